//! `WorkbenchSession`: snapshot identity, refs, cursors, retained results, the package cache,
//! per-session budgets and the call pipeline (spec §1.4, §1.6).

use crate::envelope::{
    DEFAULT_RECOVERY, Delivery, Envelope, ErrorBody, NAVIGATION_NOTICE, RESULT_SCHEMA,
};
use crate::error::WorkbenchError;
use crate::manifest::{self, Manifest};
use crate::package;
use crate::ports::{Clock, IdSource, Loader, PresentationPort};
use crate::tools;
use okf_engine::canonical::to_canonical_string;
use serde_json::{Map, Value};
use std::collections::{BTreeMap, VecDeque};
use std::rc::Rc;

/// Lifetime of refs, cursors and retained results.
pub const EXPIRY_MS: u64 = 600_000;
/// Calls per snapshot session.
pub const MAX_CALLS: u64 = 128;
/// Cumulative successful reply bytes (with in-flight reservations).
pub const MAX_SESSION_BYTES: u64 = 1_048_576;
/// Default reply cap.
pub const DEFAULT_MAX_BYTES: u64 = 4096;
/// Retained maps' capacities.
pub const MAX_REFS: usize = 512;
/// Cursor capacity.
pub const MAX_CURSORS: usize = 32;
/// Retained view result capacity.
pub const MAX_RESULTS: usize = 32;
/// Cached packages.
pub const MAX_CONTEXTS: usize = 3;

/// Everything the host provides to a session.
pub trait Host: Loader + Clock + IdSource + PresentationPort {}
impl<T: Loader + Clock + IdSource + PresentationPort> Host for T {}

/// An insertion-ordered map that drops its oldest entry when full.
#[derive(Debug, Clone)]
pub(crate) struct Fifo<T> {
    max: usize,
    order: VecDeque<String>,
    map: BTreeMap<String, (T, u64)>,
}

impl<T> Fifo<T> {
    fn new(max: usize) -> Self {
        Fifo {
            max,
            order: VecDeque::new(),
            map: BTreeMap::new(),
        }
    }
    pub(crate) fn insert(&mut self, key: String, value: T, expires: u64) {
        if self.map.remove(&key).is_some() {
            self.order.retain(|k| k != &key);
        }
        while self.map.len() >= self.max {
            match self.order.pop_front() {
                Some(old) => {
                    self.map.remove(&old);
                }
                None => break,
            }
        }
        self.order.push_back(key.clone());
        self.map.insert(key, (value, expires));
    }
    pub(crate) fn get(&self, key: &str) -> Option<&(T, u64)> {
        self.map.get(key)
    }
    fn purge(&mut self, now: u64) {
        let map = &mut self.map;
        self.order.retain(|k| match map.get(k) {
            Some((_, exp)) if *exp <= now => {
                map.remove(k);
                false
            }
            _ => true,
        });
    }
    fn remove(&mut self, key: &str) {
        if self.map.remove(key).is_some() {
            self.order.retain(|k| k != key);
        }
    }
    fn clear(&mut self) {
        self.map.clear();
        self.order.clear();
    }
    pub(crate) fn iter(&self) -> impl Iterator<Item = (&String, &(T, u64))> {
        self.order.iter().filter_map(|k| self.map.get_key_value(k))
    }
}

/// Where a ref points.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RefTarget {
    pub(crate) case: String,
    pub(crate) record: String,
}

/// What a cursor continues.
#[derive(Debug, Clone)]
pub(crate) enum PageBody {
    /// Whole rows; `view` marks `okf-workbench-view.v1` pages.
    Rows {
        base: Map<String, Value>,
        rows: Rc<Vec<Value>>,
        view: bool,
    },
    /// A passage in UTF-16 code units.
    Text {
        base: Map<String, Value>,
        units: Rc<Vec<u16>>,
    },
}

/// A stored page position.
#[derive(Debug, Clone)]
pub(crate) struct CursorPage {
    pub(crate) tool: &'static str,
    pub(crate) signature: String,
    pub(crate) body: PageBody,
    pub(crate) offset: usize,
    pub(crate) case: String,
}

/// A retained view result.
#[derive(Debug, Clone)]
pub(crate) struct Retained {
    pub(crate) case: String,
    pub(crate) view: String,
}

/// Session usage counters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Metrics {
    /// Calls that passed the budget gate.
    pub calls: u64,
    /// Bytes of successful replies.
    pub bytes: u64,
    /// Estimated tokens of successful replies.
    pub estimated_tokens: u64,
    /// Milliseconds spent in calls (session clock).
    pub elapsed_ms: u64,
}

/// A tool failure before it becomes an envelope.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolError {
    /// Code (§1.13).
    pub code: &'static str,
    /// Message.
    pub message: String,
    /// Recovery, when not the default.
    pub recovery: Option<&'static str>,
    /// The case the failure concerns, for `evidence_status`.
    pub case: Option<String>,
}

pub(crate) fn fail(code: &'static str, message: impl Into<String>) -> ToolError {
    ToolError {
        code,
        message: message.into(),
        recovery: None,
        case: None,
    }
}

/// A successful tool body.
#[derive(Debug, Clone, Default)]
pub(crate) struct Reply {
    pub(crate) data: Value,
    pub(crate) complete: bool,
    pub(crate) next_cursor: Option<String>,
    pub(crate) result_id: Option<String>,
    pub(crate) case: Option<String>,
}

/// A call that passed the budget gate and holds its reservation.
#[derive(Debug)]
pub struct Ticket {
    id: u64,
    tool: &'static tools::Tool,
    input: Value,
    cap: u64,
    started_ms: u64,
}

impl Ticket {
    /// The call's input.
    pub fn input(&self) -> &Value {
        &self.input
    }
}

/// The single application service that tools and human controls share.
pub struct Session<H: Host> {
    host: H,
    manifest: Option<Rc<Manifest>>,
    snapshot: Option<String>,
    pub(crate) refs: Fifo<RefTarget>,
    pub(crate) cursors: Fifo<CursorPage>,
    pub(crate) results: Fifo<Retained>,
    pub(crate) contexts: Fifo<Rc<Value>>,
    reservations: BTreeMap<u64, u64>,
    next_ticket: u64,
    metrics: Metrics,
    loads: u64,
}

const STALE_CURSOR_RECOVERY: &str =
    "Start again from the first request; never mix pages from different snapshots.";
const BUDGET_RECOVERY: &str = "Finish pending requests, continue in the manual interface, or reload the manifest to start a new session.";

impl<H: Host> Session<H> {
    /// A session with no manifest.
    pub fn new(host: H) -> Self {
        Session {
            host,
            manifest: None,
            snapshot: None,
            refs: Fifo::new(MAX_REFS),
            cursors: Fifo::new(MAX_CURSORS),
            results: Fifo::new(MAX_RESULTS),
            contexts: Fifo::new(MAX_CONTEXTS),
            reservations: BTreeMap::new(),
            next_ticket: 0,
            metrics: Metrics::default(),
            loads: 0,
        }
    }

    /// The host (for drivers that move its clock or play the page).
    pub fn host_mut(&mut self) -> &mut H {
        &mut self.host
    }

    /// The host.
    pub fn host(&self) -> &H {
        &self.host
    }

    /// Admits manifest bytes as the page's manifest; the session adopts it at the next sync.
    pub fn load_manifest(&mut self, bytes: &[u8]) -> Result<(), WorkbenchError> {
        self.manifest = Some(Rc::new(manifest::admit(bytes)?));
        self.sync();
        Ok(())
    }

    /// The admitted manifest.
    pub fn manifest(&self) -> Option<&Manifest> {
        self.manifest.as_deref()
    }

    /// Usage so far.
    pub fn metrics(&self) -> Metrics {
        self.metrics
    }

    /// Verified package loads so far (cache misses).
    pub fn verified_loads(&self) -> u64 {
        self.loads
    }

    /// A human reload (also of the same manifest): clears all state and resets the metrics.
    pub fn reset(&mut self) {
        self.clear();
        self.snapshot = None;
    }

    fn clear(&mut self) {
        self.reservations.clear();
        self.refs.clear();
        self.cursors.clear();
        self.results.clear();
        self.contexts.clear();
        self.metrics = Metrics::default();
    }

    fn sync(&mut self) {
        let current = self.manifest.as_ref().map(|m| m.snapshot_id.clone());
        if current != self.snapshot {
            self.clear();
            self.snapshot = current;
        }
        let now = self.host.now_ms();
        self.refs.purge(now);
        self.cursors.purge(now);
        self.results.purge(now);
    }

    pub(crate) fn now(&self) -> u64 {
        self.host.now_ms()
    }

    pub(crate) fn new_id(&mut self, prefix: &str) -> String {
        format!("{prefix}-{}", self.host.next_id())
    }

    /// Calls a tool and returns its envelope as compact JSON.
    pub fn invoke(&mut self, name: &str, input: &Value) -> String {
        match self.begin(name, input) {
            Ok(ticket) => self.finish(ticket),
            Err(text) => text,
        }
    }

    /// Steps 1–6 of the pipeline: sync, tool lookup, validation, budget gate and reservation.
    /// A refusal comes back as the finished envelope text.
    pub fn begin(&mut self, name: &str, input: &Value) -> Result<Ticket, String> {
        self.sync();
        let cap = input
            .get("max_bytes")
            .and_then(Value::as_u64)
            .unwrap_or(DEFAULT_MAX_BYTES);
        let Some(tool) = tools::tool(name) else {
            let e = fail(
                "unknown_tool",
                format!(
                    "{} is not one of the seven workbench tools",
                    short(name, 80)
                ),
            );
            return Err(self.error_envelope(&e, DEFAULT_MAX_BYTES));
        };
        let cap = if tool.fields.iter().any(|f| f.name == "max_bytes") {
            cap
        } else {
            DEFAULT_MAX_BYTES
        };
        if let Err(message) = tools::validate(tool, input) {
            let e = fail("invalid_request", truncate(&message, 240));
            return Err(self.error_envelope(&e, DEFAULT_MAX_BYTES));
        }
        let reserved: u64 = self.reservations.values().sum();
        if self.metrics.calls >= MAX_CALLS
            || self.metrics.bytes + reserved + cap > MAX_SESSION_BYTES
        {
            let e = ToolError {
                code: "journey_budget",
                message: format!(
                    "this session has used {} of {MAX_CALLS} calls and {} of {MAX_SESSION_BYTES} bytes ({} reserved by pending calls)",
                    self.metrics.calls, self.metrics.bytes, reserved
                ),
                recovery: Some(BUDGET_RECOVERY),
                case: None,
            };
            return Err(self.error_envelope(&e, cap));
        }
        let id = self.next_ticket;
        self.next_ticket += 1;
        self.reservations.insert(id, cap);
        self.metrics.calls += 1;
        Ok(Ticket {
            id,
            tool,
            input: input.clone(),
            cap,
            started_ms: self.now(),
        })
    }

    /// The cases whose packages a call with this input may load and that are not cached:
    /// its `case_id`, the cases its `ref`, `cursor` and `result_id` point at, and the page's
    /// case. A superset, for hosts that must fetch files before the (synchronous) call runs.
    pub fn cases_to_fetch(&self, input: &Value) -> Vec<String> {
        let text = |key: &str| input.get(key).and_then(Value::as_str);
        let mut cases = std::collections::BTreeSet::new();
        cases.extend(text("case_id").map(str::to_owned));
        if let Some(r) = text("ref").and_then(|r| self.refs.get(r)) {
            cases.insert(r.0.case.clone());
        }
        if let Some(c) = text("cursor").and_then(|c| self.cursors.get(c)) {
            cases.insert(c.0.case.clone());
        }
        if let Some(r) = text("result_id").and_then(|r| self.results.get(r)) {
            cases.insert(r.0.case.clone());
        }
        cases.extend(self.page_case());
        let manifest = self.manifest.as_deref();
        cases
            .into_iter()
            .filter(|c| manifest.is_some_and(|m| m.case(c).is_some()))
            .filter(|c| self.contexts.get(c).is_none())
            .collect()
    }

    /// The manifest-relative files (with their byte caps) a verified load of `case` reads.
    pub fn package_files(&self, case: &str) -> Vec<(String, usize)> {
        let Some(c) = self.manifest.as_deref().and_then(|m| m.case(case)) else {
            return Vec::new();
        };
        if c.package.parts.is_empty() {
            vec![(c.package.url.clone(), manifest::MAX_PACKAGE_BYTES)]
        } else {
            c.package
                .parts
                .iter()
                .map(|p| (p.url.clone(), manifest::MAX_PART_BYTES))
                .collect()
        }
    }

    /// A call for the page's own rendering (spec §1.1 route): the same tool bodies, without the
    /// budget gate, reservations or metrics, and with a reply cap of [`MAX_SESSION_BYTES`] so
    /// a view arrives whole. Hosts use a separate session for it, so a person browsing never
    /// spends an assistant's budget or changes its references.
    pub fn page_call(&mut self, name: &str, input: &Value) -> String {
        self.sync();
        let Some(tool) = tools::tool(name) else {
            let e = fail(
                "unknown_tool",
                format!("{} is not a workbench tool", short(name, 80)),
            );
            return self.error_envelope(&e, MAX_SESSION_BYTES);
        };
        if let Err(message) = tools::validate(tool, input) {
            let e = fail("invalid_request", truncate(&message, 240));
            return self.error_envelope(&e, MAX_SESSION_BYTES);
        }
        let ticket = Ticket {
            id: u64::MAX,
            tool,
            input: input.clone(),
            cap: MAX_SESSION_BYTES,
            started_ms: self.now(),
        };
        match self.run(&ticket) {
            Ok(reply) => self
                .envelope(
                    &reply.case,
                    Some(reply.data),
                    reply.complete,
                    reply.next_cursor,
                    reply.result_id,
                )
                .seal(),
            Err(e) => self.error_envelope(&e, MAX_SESSION_BYTES),
        }
    }

    /// The selected records of a case for the page's record list, in package order:
    /// `{case_id, evidence_status, package, records: [{ref, record_id, title, kind, ...}]}`.
    pub fn page_records(&mut self, case: &str) -> Result<Value, ToolError> {
        self.sync();
        let case = self.known_case(Some(case.to_owned()))?;
        let p = self.package(&case)?;
        let mut records = Vec::new();
        for item in p["selected"]
            .as_array()
            .map(Vec::as_slice)
            .unwrap_or_default()
        {
            let record = &item["record"];
            let mut m = self.record_metadata(&case, record);
            m.insert("record_id".into(), record["id"].clone());
            records.push(Value::Object(m));
        }
        // The verified package itself, so the page shows the same branch table and reasons
        // as the Ask page (render.js) without a second fetch.
        Ok(serde_json::json!({
            "case_id": case,
            "evidence_status": p["evidence_status"],
            "package": &*p,
            "records": records,
        }))
    }

    /// Steps 7–11: readiness, the tool body, the reply bound, metrics and release.
    pub fn finish(&mut self, ticket: Ticket) -> String {
        let outcome = self.run(&ticket);
        let text = match outcome {
            Ok(reply) => {
                let mut env = self.envelope(
                    &reply.case,
                    Some(reply.data),
                    reply.complete,
                    reply.next_cursor,
                    reply.result_id.clone(),
                );
                let text = env.seal();
                if env.delivery.bytes > ticket.cap {
                    // Only delivered values are retained.
                    if let Some(id) = &reply.result_id {
                        self.results.remove(id);
                    }
                    let e = fail(
                        "response_budget",
                        format!(
                            "the complete reply needs {} bytes, over max_bytes {}; source text is never cut short without notice",
                            env.delivery.bytes, ticket.cap
                        ),
                    );
                    self.error_envelope(&e, ticket.cap)
                } else {
                    self.metrics.bytes += env.delivery.bytes;
                    self.metrics.estimated_tokens += env.delivery.estimated_tokens;
                    text
                }
            }
            Err(e) => self.error_envelope(&e, ticket.cap),
        };
        self.reservations.remove(&ticket.id);
        self.metrics.elapsed_ms += self.now().saturating_sub(ticket.started_ms);
        text
    }

    fn run(&mut self, t: &Ticket) -> Result<Reply, ToolError> {
        if t.tool.name != "okf_get_state" {
            let Some(snapshot) = &self.snapshot else {
                return Err(fail(
                    "not_ready",
                    "no evidence workbench manifest is admitted",
                ));
            };
            if let Some(given) = t.input.get("snapshot_id").and_then(Value::as_str)
                && given != snapshot
            {
                return Err(fail(
                    "stale_snapshot",
                    "snapshot_id is not the admitted manifest's snapshot",
                ));
            }
        }
        let input = &t.input;
        let cap = t.cap;
        match t.tool.name {
            "okf_get_state" => Ok(self.get_state()),
            "okf_search_evidence" => self.search(input, cap),
            "okf_get_evidence" => self.get_evidence(input, cap),
            "okf_get_relationships" => self.get_relationships(input, cap),
            "okf_get_view_data" => self.get_view_data(input, cap),
            "okf_show_view" => self.show_view(input, cap),
            _ => self.get_calculation(input, cap),
        }
    }

    /// `evidence_status` for an envelope about `case`.
    pub(crate) fn status_of(&self, case: &Option<String>) -> String {
        if self.snapshot.is_none() {
            return "not-loaded".into();
        }
        case.as_deref()
            .and_then(|c| self.contexts.get(c))
            .and_then(|(p, _)| p["evidence_status"].as_str())
            .unwrap_or("insufficient")
            .to_owned()
    }

    pub(crate) fn envelope(
        &self,
        case: &Option<String>,
        data: Option<Value>,
        complete: bool,
        next_cursor: Option<String>,
        result_id: Option<String>,
    ) -> Envelope {
        Envelope {
            schema: RESULT_SCHEMA,
            snapshot_id: self.snapshot.clone(),
            state_revision: self.host.state().revision,
            evidence_status: self.status_of(case),
            data,
            delivery: Delivery {
                complete,
                next_cursor,
                ..Delivery::default()
            },
            limitations: vec![NAVIGATION_NOTICE.to_owned()],
            error: None,
            result_id,
        }
    }

    fn error_envelope(&self, e: &ToolError, cap: u64) -> String {
        let mut env = self.envelope(&e.case, None, false, None, None);
        env.error = Some(ErrorBody {
            code: e.code.to_owned(),
            message: e.message.clone(),
            recovery: e.recovery.unwrap_or(DEFAULT_RECOVERY).to_owned(),
        });
        let text = env.seal();
        if env.delivery.bytes <= cap {
            return text;
        }
        // Bound the error itself: shorten the message until it fits.
        if let Some(err) = env.error.as_mut() {
            err.message = truncate(&err.message, 120);
        }
        env.seal()
    }

    pub(crate) fn manifest_rc(&self) -> Result<Rc<Manifest>, ToolError> {
        self.manifest
            .clone()
            .ok_or_else(|| fail("not_ready", "no evidence workbench manifest is admitted"))
    }

    /// The page's current case, if any.
    pub(crate) fn page_case(&self) -> Option<String> {
        self.host.state().case_id
    }

    pub(crate) fn page_state(&self) -> crate::ports::PageState {
        self.host.state()
    }

    pub(crate) fn present(
        &mut self,
        sel: &crate::ports::Selection,
        expected: u64,
    ) -> Result<(), String> {
        self.host.present(sel, expected)
    }

    pub(crate) fn deep_link(&self, sel: &crate::ports::Selection) -> String {
        self.host.deep_link(sel)
    }

    /// A known case id, or `unknown_case`.
    pub(crate) fn known_case(&self, id: Option<String>) -> Result<String, ToolError> {
        let m = self.manifest_rc()?;
        match id {
            Some(id) if m.case(&id).is_some() => Ok(id),
            Some(id) => Err(fail(
                "unknown_case",
                format!("case_id {} is not an admitted question", short(&id, 120)),
            )),
            None => Err(fail(
                "unknown_case",
                "no case_id was given and the page shows no case",
            )),
        }
    }

    /// The verified package of a case: cache, else a verified load; the public gate applies.
    pub(crate) fn package(&mut self, case_id: &str) -> Result<Rc<Value>, ToolError> {
        if let Some((p, _)) = self.contexts.get(case_id) {
            return Ok(Rc::clone(p));
        }
        let m = self.manifest_rc()?;
        let case = m.case(case_id).ok_or_else(|| {
            fail(
                "unknown_case",
                format!("case_id {case_id} is not an admitted question"),
            )
        })?;
        self.loads += 1;
        let loaded = package::load_public_package(case, &self.host).map_err(|e| {
            let recovery = match e {
                package::Undisclosable::Restricted => None,
                _ => Some(
                    "The retained package cannot be used; report it to the publisher. Other cases stay available.",
                ),
            };
            ToolError {
                code: e.code(),
                message: truncate(&e.message(case_id), 480),
                recovery,
                case: None,
            }
        })?;
        let p = Rc::new(loaded);
        self.contexts
            .insert(case_id.to_owned(), Rc::clone(&p), u64::MAX);
        Ok(p)
    }

    /// The cached package of a case, if already loaded.
    pub(crate) fn known_package(&self, case_id: &str) -> Option<Rc<Value>> {
        self.contexts.get(case_id).map(|(p, _)| Rc::clone(p))
    }

    /// The ref for `(case, record)`: reused if it exists (expiry not extended), else minted.
    pub(crate) fn ref_for(&mut self, case: &str, record: &str) -> String {
        let existing = self
            .refs
            .iter()
            .find(|(_, (t, _))| t.case == case && t.record == record)
            .map(|(k, _)| k.clone());
        if let Some(r) = existing {
            return r;
        }
        let r = self.new_id("e");
        let expires = self.now() + EXPIRY_MS;
        self.refs.insert(
            r.clone(),
            RefTarget {
                case: case.to_owned(),
                record: record.to_owned(),
            },
            expires,
        );
        r
    }

    /// Resolves a ref, or `unknown_ref`.
    pub(crate) fn resolve_ref(&mut self, r: &str) -> Result<RefTarget, ToolError> {
        self.sync();
        self.refs.get(r).map(|(t, _)| t.clone()).ok_or_else(|| {
            fail(
                "unknown_ref",
                "the reference expired, was evicted or belongs to another session",
            )
        })
    }

    /// Looks up a cursor for this tool and request signature, or `stale_cursor`.
    pub(crate) fn take_cursor(
        &self,
        id: &str,
        tool: &str,
        signature: &str,
    ) -> Result<(CursorPage, u64), ToolError> {
        let stale = || ToolError {
            code: "stale_cursor",
            message: "the cursor expired, was evicted, or belongs to a different request".into(),
            recovery: Some(STALE_CURSOR_RECOVERY),
            case: None,
        };
        let (page, expires) = self.cursors.get(id).ok_or_else(stale)?;
        if page.tool != tool || page.signature != signature {
            return Err(stale());
        }
        Ok((page.clone(), *expires))
    }

    pub(crate) fn stale_cursor(&self) -> ToolError {
        ToolError {
            code: "stale_cursor",
            message: "a cursor cannot continue this request".into(),
            recovery: Some(STALE_CURSOR_RECOVERY),
            case: None,
        }
    }

    fn get_state(&self) -> Reply {
        let page = self.host.state();
        let m = self.manifest.as_deref().filter(|_| self.snapshot.is_some());
        let data = serde_json::json!({
            "ready": m.is_some(),
            "loading": page.loading,
            "case_id": page.case_id,
            "record_id": page.record_id,
            "view": page.view,
            "questions": m.map_or(0, |m| m.cases.len()),
            "features": {
                "retained_evidence": m.is_some(),
                "page_presentation": true,
                "view_data": true,
                "calculation_inspection": m.is_some_and(|m| !m.models.is_empty()),
                "simulation": false,
                "remote_mcp": "separate service (okf serve /mcp), not part of this page",
                "assistant_panel": "host support untested",
            },
            "references": {"scope": "this page session only", "expires_after_ms": EXPIRY_MS},
            "usage": {
                "calls": self.metrics.calls,
                "bytes": self.metrics.bytes,
                "estimated_tokens": self.metrics.estimated_tokens,
                "elapsed_ms": self.metrics.elapsed_ms,
                "estimated_tokens_method": "ceil(UTF-16 characters / 4)",
            },
        });
        Reply {
            data,
            complete: true,
            case: page.case_id,
            ..Reply::default()
        }
    }
}

/// `short(s, n)`: the first n−1 characters and `…` when longer than n (UTF-16 units).
pub fn short(s: &str, n: usize) -> String {
    if manifest::utf16_len(s) <= n {
        return s.to_owned();
    }
    let mut out = String::new();
    let mut used = 0;
    for c in s.chars() {
        if used + c.len_utf16() > n - 1 {
            break;
        }
        used += c.len_utf16();
        out.push(c);
    }
    out.push('…');
    out
}

fn truncate(s: &str, n: usize) -> String {
    short(s, n)
}

/// The request signature: canonical JSON of the input without cursor, max_bytes and limit.
pub(crate) fn signature(input: &Value) -> String {
    let mut m = input.as_object().cloned().unwrap_or_default();
    for k in ["cursor", "max_bytes", "limit"] {
        m.remove(k);
    }
    to_canonical_string(&Value::Object(m)).unwrap_or_default()
}
