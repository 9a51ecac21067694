//! The evidence workbench session in the page (`/evidence/`): the `okf-workbench` crate's
//! `Session`, hosted over files the page fetched, a clock the page passes with every call,
//! seeded ids and the page's display state.
//!
//! Two sessions share the files and the display state: `tools` serves the seven WebMCP tools
//! (budgets, refs, cursors, retained results; human navigation bumps its page revision), and
//! `reader` serves the page's own rendering, unmetered, so a person browsing never spends an
//! assistant's budget or changes the references its replies hold.
//!
//! Fetching is the page's job and is asynchronous, while a session call is synchronous, so a
//! tool call is split: `begin` (gate and reservation, and the files the call may need),
//! the page fetches and `put`s them, then `finish`. Everything is JSON in, JSON out.

use okf_api::error::ErrorCode;
use okf_workbench::ports::{
    Clock, IdSource, LoadFailure, Loader, MemoryPage, PageState, PresentationPort, SeededIds,
    Selection,
};
use okf_workbench::{Session, Ticket, tools};
use serde::Deserialize;
use serde_json::{Value, json};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

/// Why a workbench call could not run (tool failures are envelopes, not this).
#[derive(Debug, thiserror::Error)]
pub enum WorkbenchCallError {
    /// The request bytes are not the documented JSON.
    #[error("{field}: {message}")]
    Request {
        /// The field at fault.
        field: &'static str,
        /// What is wrong.
        message: String,
    },
    /// No manifest is open.
    #[error("no workbench manifest is open; call okf_wb_open first")]
    NotOpen,
    /// The manifest was refused at admission.
    #[error("{0}")]
    Manifest(String),
    /// The tool input breaks its schema (nothing reached the session).
    #[error("{0}")]
    InvalidInput(String),
    /// The ticket is not pending.
    #[error("ticket {0} is not a pending call")]
    UnknownTicket(u64),
}

impl WorkbenchCallError {
    /// The machine-readable code.
    pub fn code(&self) -> ErrorCode {
        match self {
            Self::Request { .. } => ErrorCode::InvalidRequest,
            Self::NotOpen => ErrorCode::NotReady,
            Self::Manifest(_) => ErrorCode::InvalidManifest,
            Self::InvalidInput(_) => ErrorCode::InvalidInput,
            Self::UnknownTicket(_) => ErrorCode::UnknownTicket,
        }
    }
}

/// Files fetched by the page, by manifest-relative URL: the bytes or why they are missing.
type Files = Rc<RefCell<BTreeMap<String, Result<Vec<u8>, String>>>>;

/// The display state both sessions see, and the selections `okf_show_view` presented.
type Page = Rc<RefCell<MemoryPage>>;

/// A session host in the page.
struct PageHost {
    files: Files,
    page: Page,
    now_ms: u64,
    ids: SeededIds,
}

impl Loader for PageHost {
    fn load(&self, path: &str, cap: usize) -> Result<Vec<u8>, LoadFailure> {
        match self.files.borrow().get(path) {
            None => Err(format!("{path} was not fetched by the page").into()),
            Some(Err(reason)) => Err(reason.clone().into()),
            Some(Ok(bytes)) if bytes.len() > cap => {
                Err(format!("{path} is {} bytes, over its {cap}-byte limit", bytes.len()).into())
            }
            Some(Ok(bytes)) => Ok(bytes.clone()),
        }
    }
}

impl Clock for PageHost {
    fn now_ms(&self) -> u64 {
        self.now_ms
    }
}

impl IdSource for PageHost {
    fn next_id(&mut self) -> String {
        self.ids.next_id()
    }
}

impl PresentationPort for PageHost {
    fn state(&self) -> PageState {
        self.page.borrow().state()
    }
    fn present(&mut self, selection: &Selection, expected_revision: u64) -> Result<(), String> {
        self.page.borrow_mut().present(selection, expected_revision)
    }
    fn deep_link(&self, selection: &Selection) -> String {
        self.page.borrow().deep_link(selection)
    }
}

/// `okf_wb_open` input.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct OpenInput {
    /// The served workbench id (deep links name it).
    manifest_id: String,
    /// Seed of the tool session's ids (the page draws a random one).
    seed: String,
    /// The manifest text, exactly as served.
    manifest: String,
}

/// A tool call: `okf_wb_validate`, `okf_wb_begin`, `okf_wb_read`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CallInput {
    tool: String,
    #[serde(default = "empty_object")]
    arguments: Value,
    #[serde(default)]
    now_ms: u64,
}

fn empty_object() -> Value {
    json!({})
}

/// `okf_wb_finish` / `okf_wb_fetch` input.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TicketInput {
    ticket: u64,
    #[serde(default)]
    now_ms: u64,
}

/// `okf_wb_records` input.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RecordsInput {
    case_id: String,
    #[serde(default)]
    now_ms: u64,
}

/// `okf_wb_navigate` input: a person's navigation.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NavigateInput {
    case_id: Option<String>,
    record_id: Option<String>,
    view: Option<String>,
}

/// What a call returns to the page.
#[derive(Debug, PartialEq, Eq)]
pub enum Reply {
    /// JSON for the page (status 0).
    Json(String),
    /// A finished `okf-workbench-result.v1` envelope (status 2).
    Envelope(String),
}

/// An open workbench: both sessions and what they share.
struct Open {
    tools: Session<PageHost>,
    reader: Session<PageHost>,
    files: Files,
    page: Page,
    pending: BTreeMap<u64, Ticket>,
    next_ticket: u64,
    /// Calls that reached the tool session (`begin`), for the page's diagnostics.
    session_calls: u64,
}

/// The workbench state of one module instance.
#[derive(Default)]
pub struct Workbench {
    open: Option<Open>,
}

fn parse<T: for<'de> Deserialize<'de>>(bytes: &[u8]) -> Result<T, WorkbenchCallError> {
    serde_json::from_slice(bytes).map_err(|e| WorkbenchCallError::Request {
        field: "request",
        message: e.to_string(),
    })
}

impl Open {
    fn set_clock(&mut self, now_ms: u64) {
        self.tools.host_mut().now_ms = now_ms;
        self.reader.host_mut().now_ms = now_ms;
    }

    /// The files of `cases` the page has not fetched yet: `[{path, cap}]`.
    fn missing(&self, cases: &[String]) -> Vec<Value> {
        let files = self.files.borrow();
        cases
            .iter()
            .flat_map(|c| self.tools.package_files(c))
            .filter(|(path, _)| !files.contains_key(path))
            .map(|(path, cap)| json!({"path": path, "cap": cap}))
            .collect()
    }

    /// `{fetch}` for a reader call whose cases' files are not all here yet.
    fn fetch_first(&self, cases: &[String]) -> Option<Reply> {
        let fetch = self.missing(cases);
        (!fetch.is_empty()).then(|| Reply::Json(json!({ "fetch": fetch }).to_string()))
    }

    /// Drops fetched files once no pending call may still need them (the sessions keep
    /// the verified packages they loaded).
    fn release_files(&mut self) {
        if self.pending.is_empty() {
            self.files.borrow_mut().clear();
        }
    }

    fn page_json(&self) -> Value {
        let page = self.page.borrow();
        let state = page.state();
        json!({
            "revision": state.revision,
            "case_id": state.case_id,
            "record_id": state.record_id,
            "view": state.view,
            "presented": page.presented.len(),
            "session_calls": self.session_calls,
            "pending": self.pending.len(),
            "usage": {
                "calls": self.tools.metrics().calls,
                "bytes": self.tools.metrics().bytes,
                "max_calls": okf_workbench::MAX_CALLS,
                "max_bytes": okf_workbench::MAX_SESSION_BYTES,
            },
        })
    }
}

impl Workbench {
    fn open_mut(&mut self) -> Result<&mut Open, WorkbenchCallError> {
        self.open.as_mut().ok_or(WorkbenchCallError::NotOpen)
    }

    /// Admits a manifest and starts new sessions (a reload is a new session). Replies with
    /// the manifest's summary: snapshot, title, publication and its questions.
    pub fn open(&mut self, bytes: &[u8]) -> Result<Reply, WorkbenchCallError> {
        let input: OpenInput = parse(bytes)?;
        let files: Files = Rc::default();
        let page: Page = Rc::new(RefCell::new(MemoryPage {
            manifest: Some(input.manifest_id.clone()),
            ..MemoryPage::default()
        }));
        let host = |seed: String| PageHost {
            files: Rc::clone(&files),
            page: Rc::clone(&page),
            now_ms: 0,
            ids: SeededIds::new(seed),
        };
        let mut tools = Session::new(host(input.seed.clone()));
        let mut reader = Session::new(host(format!("{}:reader", input.seed)));
        for s in [&mut tools, &mut reader] {
            s.load_manifest(input.manifest.as_bytes())
                .map_err(|e| WorkbenchCallError::Manifest(e.to_string()))?;
        }
        let summary = tools.manifest().map(|m| {
            json!({
                "snapshot_id": m.snapshot_id,
                "title": m.title,
                "cases": m.cases.iter().map(|c| json!({
                    "id": c.id,
                    "label": c.label,
                    "question": c.question,
                    "ambiguities": c.ambiguities,
                    "required_evidence": c.required_evidence,
                    "scope_gaps": c.scope_gaps,
                })).collect::<Vec<_>>(),
                "models": m.models.iter().map(|x| json!({"id": x.id, "title": x.title})).collect::<Vec<_>>(),
            })
        });
        self.open = Some(Open {
            tools,
            reader,
            files,
            page,
            pending: BTreeMap::new(),
            next_ticket: 0,
            session_calls: 0,
        });
        Ok(Reply::Json(summary.unwrap_or(Value::Null).to_string()))
    }

    /// The seven tool descriptors (names, descriptions, input schemas, annotations).
    pub fn descriptors() -> Reply {
        Reply::Json(tools::descriptors().to_string())
    }

    /// Checks a tool input against its schema without touching any session.
    pub fn validate(bytes: &[u8]) -> Result<Reply, WorkbenchCallError> {
        let input: CallInput = parse(bytes)?;
        let tool = tools::tool(&input.tool).ok_or_else(|| {
            WorkbenchCallError::InvalidInput(format!("{} is not a workbench tool", input.tool))
        })?;
        tools::validate(tool, &input.arguments).map_err(WorkbenchCallError::InvalidInput)?;
        Ok(Reply::Json("{}".into()))
    }

    /// Starts a tool call: the session's gate and reservation. Replies with the ticket and
    /// the files to fetch before `finish`, or with the refusal envelope.
    pub fn begin(&mut self, bytes: &[u8]) -> Result<Reply, WorkbenchCallError> {
        let input: CallInput = parse(bytes)?;
        let open = self.open_mut()?;
        open.set_clock(input.now_ms);
        open.session_calls += 1;
        match open.tools.begin(&input.tool, &input.arguments) {
            Err(envelope) => Ok(Reply::Envelope(envelope)),
            Ok(ticket) => {
                let cases = open.tools.cases_to_fetch(ticket.input());
                let fetch = open.missing(&cases);
                let id = open.next_ticket;
                open.next_ticket += 1;
                open.pending.insert(id, ticket);
                Ok(Reply::Json(
                    json!({"ticket": id, "fetch": fetch}).to_string(),
                ))
            }
        }
    }

    /// The files a pending call still needs (the page checks again right before `finish`,
    /// since other calls may have changed the session's cache meanwhile).
    pub fn fetch(&mut self, bytes: &[u8]) -> Result<Reply, WorkbenchCallError> {
        let input: TicketInput = parse(bytes)?;
        let open = self.open_mut()?;
        let ticket = open
            .pending
            .get(&input.ticket)
            .ok_or(WorkbenchCallError::UnknownTicket(input.ticket))?;
        let cases = open.tools.cases_to_fetch(ticket.input());
        Ok(Reply::Json(
            json!({"fetch": open.missing(&cases)}).to_string(),
        ))
    }

    /// Runs a pending call and replies with its envelope.
    pub fn finish(&mut self, bytes: &[u8]) -> Result<Reply, WorkbenchCallError> {
        let input: TicketInput = parse(bytes)?;
        let open = self.open_mut()?;
        let ticket = open
            .pending
            .remove(&input.ticket)
            .ok_or(WorkbenchCallError::UnknownTicket(input.ticket))?;
        open.set_clock(input.now_ms);
        let envelope = open.tools.finish(ticket);
        open.release_files();
        Ok(Reply::Envelope(envelope))
    }

    /// A call for the page's own rendering (the reader session): the files to fetch first,
    /// or the envelope.
    pub fn read(&mut self, bytes: &[u8]) -> Result<Reply, WorkbenchCallError> {
        let input: CallInput = parse(bytes)?;
        let open = self.open_mut()?;
        open.set_clock(input.now_ms);
        let cases = open.reader.cases_to_fetch(&input.arguments);
        if let Some(reply) = open.fetch_first(&cases) {
            return Ok(reply);
        }
        let envelope = open.reader.page_call(&input.tool, &input.arguments);
        open.release_files();
        Ok(Reply::Envelope(envelope))
    }

    /// The selected records of a case for the page's list: the files to fetch first, or
    /// `{records}` / `{error}`.
    pub fn records(&mut self, bytes: &[u8]) -> Result<Reply, WorkbenchCallError> {
        let input: RecordsInput = parse(bytes)?;
        let open = self.open_mut()?;
        open.set_clock(input.now_ms);
        let cases = open
            .reader
            .cases_to_fetch(&json!({"case_id": input.case_id}));
        if let Some(reply) = open.fetch_first(&cases) {
            return Ok(reply);
        }
        let reply = match open.reader.page_records(&input.case_id) {
            Ok(v) => v,
            Err(e) => json!({"error": {"code": e.code, "message": e.message}}),
        };
        open.release_files();
        Ok(Reply::Json(reply.to_string()))
    }

    /// Stores a fetched file (or why it could not be fetched) under its manifest URL.
    pub fn put(
        &mut self,
        path: String,
        body: Result<Vec<u8>, String>,
    ) -> Result<Reply, WorkbenchCallError> {
        let open = self.open_mut()?;
        open.files.borrow_mut().insert(path, body);
        Ok(Reply::Json("{}".into()))
    }

    /// A person's navigation: applies it and bumps the revision, so an assistant's older
    /// `okf_show_view` fails with `stale_revision`. Replies with the page state.
    pub fn navigate(&mut self, bytes: &[u8]) -> Result<Reply, WorkbenchCallError> {
        let input: NavigateInput = parse(bytes)?;
        if let Some(view) = &input.view
            && !tools::VIEWS.contains(&view.as_str())
        {
            return Err(WorkbenchCallError::Request {
                field: "view",
                message: format!("{view} is not one of the twelve views"),
            });
        }
        let open = self.open_mut()?;
        open.page
            .borrow_mut()
            .navigate(input.case_id, input.record_id, input.view);
        Ok(Reply::Json(open.page_json().to_string()))
    }

    /// The page state: revision, case, record, view, presentations, session calls, usage.
    pub fn page(&mut self) -> Result<Reply, WorkbenchCallError> {
        let open = self.open_mut()?;
        Ok(Reply::Json(open.page_json().to_string()))
    }
}
