//! # okf-wasm
//!
//! The Ask OKF engine compiled to WebAssembly for the web page, so the page can assemble a
//! package locally with the same code (and therefore the same bytes) as `okf ask`,
//! `POST /api/ask` and MCP `ask_okf`.
//!
//! The interface is deliberately tiny and byte-oriented (JSON in, JSON out), with no
//! generated glue: the page writes request bytes into the module's input buffer, calls one
//! function, and reads the output buffer.
//!
//! | export | input buffer | output buffer on `0` | on `1` |
//! |---|---|---|---|
//! | `okf_load_index()` | index file bytes | [`IndexInfo`] JSON | error JSON |
//! | `okf_ask()` | [`AskInput`] JSON | the package's canonical JSON | error JSON |
//! | `okf_brief(max_chars)` | a package's JSON | its evidence brief (Markdown) | error JSON |
//! | `okf_review_closure()` | [`ReviewClosureInput`] JSON | [`ReviewClosure`] JSON | error JSON |
//!
//! Error JSON has the HTTP API's shape: `{"error":{"code","message","field"?}}`.
//!
//! The evidence workbench page (`/evidence/`) uses the `okf_wb_*` exports over
//! [`workbench::Workbench`]; they return `0` with JSON, `2` with a finished
//! `okf-workbench-result.v1` envelope, or `1` with error JSON.
//!
//! The safe logic lives in [`Module`]; the `ffi` module only exports it.

use okf_api::error::ErrorCode;
use okf_engine::{
    AsOf, AssembleOptions, Assembled, Binding, Budget, ContextIndex, assemble_with_options,
    canonical::sha256_hex,
};
use serde::{Deserialize, Serialize};
use serde_json::Value;

mod ffi;
pub mod workbench;

use workbench::{Reply, Workbench, WorkbenchCallError};

/// Why a call produced no package.
#[derive(Debug, thiserror::Error)]
pub enum WasmError {
    /// The request bytes are not the documented JSON object.
    #[error("{field}: {message}")]
    Request {
        /// The field at fault (`request` when the whole body is wrong).
        field: &'static str,
        /// What is wrong.
        message: String,
    },
    /// `okf_ask` was called before an index was loaded.
    #[error("no index is loaded; call okf_load_index first")]
    NoIndex,
    /// The binding's digest is neither the loaded file's SHA-256 nor its canonical digest.
    #[error(
        "binding.index_sha256: {given} is neither the SHA-256 of the loaded index file nor of its canonical JSON"
    )]
    BindingMismatch {
        /// The digest the request gave.
        given: String,
    },
    /// The engine refused the index, question or budget.
    #[error(transparent)]
    Engine(#[from] okf_engine::Error),
    /// The package or the budget of an evidence brief was refused.
    #[error(transparent)]
    Brief(#[from] okf_brief::BriefError),
}

impl WasmError {
    /// The machine-readable code, the same as the HTTP API's for the same refusal.
    pub fn code(&self) -> &'static str {
        match self {
            WasmError::Request { .. } => ErrorCode::InvalidRequest.as_str(),
            WasmError::NoIndex => ErrorCode::NoIndex.as_str(),
            WasmError::BindingMismatch { .. } => ErrorCode::BindingMismatch.as_str(),
            WasmError::Engine(okf_engine::Error::Index { .. } | okf_engine::Error::Json { .. }) => {
                ErrorCode::InvalidIndex.as_str()
            }
            WasmError::Engine(e) => e.code(),
            WasmError::Brief(
                okf_brief::BriefError::Budget { .. } | okf_brief::BriefError::TooSmall { .. },
            ) => ErrorCode::InvalidRequest.as_str(),
            WasmError::Brief(_) => ErrorCode::InvalidPackage.as_str(),
        }
    }

    /// The field at fault, where there is one.
    pub fn field(&self) -> Option<String> {
        match self {
            WasmError::Request { field, .. } => Some((*field).to_owned()),
            WasmError::NoIndex => None,
            WasmError::BindingMismatch { .. } => Some("binding.index_sha256".into()),
            WasmError::Engine(e) => e.field(),
            WasmError::Brief(
                okf_brief::BriefError::Budget { .. } | okf_brief::BriefError::TooSmall { .. },
            ) => Some("max_chars".into()),
            WasmError::Brief(okf_brief::BriefError::Field { field, .. }) => Some(field.clone()),
            WasmError::Brief(_) => Some("package".into()),
        }
    }

    /// `{"error":{"code","message","field"?}}`, as the HTTP API writes it.
    pub fn to_json(&self) -> String {
        error_json(self.code(), &self.to_string(), self.field().as_deref())
    }
}

/// `{"error":{"code","message","field"?}}`: the error shape of every export, the HTTP API's.
fn error_json(code: &str, message: &str, field: Option<&str>) -> String {
    okf_api::error::error_body(code, message, field).to_string()
}

/// What `okf_load_index` reports about the loaded index.
#[derive(Debug, Serialize, PartialEq, Eq)]
pub struct IndexInfo {
    /// `bundle.id` of the index.
    pub bundle_id: String,
    /// `bundle.snapshot` of the index.
    pub snapshot: String,
    /// SHA-256 of the loaded bytes.
    pub file_sha256: String,
    /// SHA-256 of the index's canonical JSON (the default binding digest).
    pub canonical_sha256: String,
    /// The engine id packages carry.
    pub engine: &'static str,
}

/// The JSON `okf_ask` reads.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AskInput {
    /// The question (the engine checks its length).
    pub question: String,
    /// Budget overrides, checked by the engine's rules (absent: defaults).
    #[serde(default)]
    pub budget: Option<Value>,
    /// The binding the server records for this index (declared URL + digest).
    pub binding: Binding,
    /// The date the question is about (`YYYY-MM-DD`): regimes not in force on it are left out.
    #[serde(default)]
    pub as_of: Option<String>,
    /// Write the richer package profile (the bundle's registry setting or the request's).
    #[serde(default)]
    pub regime_profile: bool,
}

/// The JSON `okf_review_closure` reads.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReviewClosureInput {
    /// The id of a requirement of the loaded index.
    pub requirement: String,
}

/// One item of a requirement's closure as the loaded index holds it, for a reviewer's page.
#[derive(Debug, Serialize)]
pub struct ReviewItem {
    /// The item's id (the `item` of a decision file).
    pub id: String,
    /// `record`, `assertion`, `requirement` or `gap`; null when the index holds no single
    /// item with this id (a decision could not name it).
    pub kind: Option<&'static str>,
    /// SHA-256 of the item's canonical JSON as the index holds it (the `item_sha256` of a
    /// decision file, the digest `okf review digest` prints); null for a restricted record
    /// (its content is not published, so the page cannot show or bind it) and for an id
    /// that names no single item.
    pub item_sha256: Option<String>,
    /// Whether the item is a restricted record.
    pub restricted: bool,
    /// The item itself (the JSON the digest is taken over); null when `item_sha256` is.
    pub item: Option<Value>,
}

/// What `okf_review_closure` returns: the requirement's closure, each item once, in the
/// engine's order (code-unit order of ids), the items whose reviews decide its `review`.
#[derive(Debug, Serialize)]
pub struct ReviewClosure {
    /// The requirement asked for.
    pub requirement: String,
    /// The closure's items.
    pub items: Vec<ReviewItem>,
}

/// A loaded, validated index and the digests a binding may name.
struct Loaded {
    index: ContextIndex,
    file_sha256: String,
    /// The index is a public projection ([`okf_engine::is_public_projection`]).
    projection: bool,
}

/// The module's state: the I/O buffers and the loaded index. The FFI layer keeps one per
/// instance; tests create their own.
#[derive(Default)]
pub struct Module {
    input: Vec<u8>,
    output: Vec<u8>,
    loaded: Option<Loaded>,
    workbench: Workbench,
}

/// Which workbench call the page made (one per `okf_wb_*` export).
#[derive(Debug, Clone, Copy)]
pub enum WorkbenchCall {
    /// `okf_wb_open`: admit a manifest, start new sessions.
    Open,
    /// `okf_wb_descriptors`: the seven tool descriptors.
    Descriptors,
    /// `okf_wb_validate`: check a tool input, no session call.
    Validate,
    /// `okf_wb_begin`: gate and reserve a tool call.
    Begin,
    /// `okf_wb_fetch`: files a pending call still needs.
    Fetch,
    /// `okf_wb_finish`: run a pending call.
    Finish,
    /// `okf_wb_read`: the page's own (unmetered) rendering call.
    Read,
    /// `okf_wb_records`: a case's selected records for the page's list.
    Records,
    /// `okf_wb_navigate`: a person's navigation.
    Navigate,
    /// `okf_wb_page`: the page state.
    Page,
}

impl Module {
    /// Makes the input buffer `len` bytes long (zeroed) and returns it for the caller to fill.
    pub fn input(&mut self, len: usize) -> &mut [u8] {
        self.input.clear();
        self.input.resize(len, 0);
        &mut self.input
    }

    /// The output of the last call.
    pub fn output(&self) -> &[u8] {
        &self.output
    }

    /// Loads and validates the index in the input buffer, replacing any loaded one (only when
    /// the new one is valid). Returns 0 with [`IndexInfo`] JSON, or 1 with error JSON.
    pub fn load_index(&mut self) -> u32 {
        let bytes = std::mem::take(&mut self.input);
        let outcome = ContextIndex::from_json_slice(&bytes).map_err(WasmError::from);
        let result = outcome.and_then(|index| {
            let info = IndexInfo {
                bundle_id: index.document().bundle.id.clone(),
                snapshot: index.document().bundle.snapshot.clone(),
                file_sha256: sha256_hex(&bytes),
                canonical_sha256: index.default_binding().index_sha256.clone(),
                engine: okf_engine::ENGINE_ID,
            };
            let json = serde_json::to_string(&info).map_err(|e| WasmError::Request {
                field: "index",
                message: e.to_string(),
            })?;
            self.loaded = Some(Loaded {
                file_sha256: info.file_sha256,
                projection: okf_engine::is_public_projection(&index),
                index,
            });
            Ok(json.into_bytes())
        });
        self.finish(result)
    }

    /// Assembles a package for the [`AskInput`] in the input buffer. Returns 0 with the
    /// package bytes, or 1 with error JSON.
    pub fn ask(&mut self) -> u32 {
        let bytes = std::mem::take(&mut self.input);
        let result = self.assemble(&bytes).map(|a| a.json.into_bytes());
        self.finish(result)
    }

    /// The evidence brief (`okf-brief`) of the package in the input buffer, at most
    /// `max_chars` characters (0: the default budget). Returns 0 with the brief's text, or 1
    /// with error JSON. The same bytes as `okf ask --brief` and the MCP text block.
    pub fn brief(&mut self, max_chars: usize) -> u32 {
        let bytes = std::mem::take(&mut self.input);
        let result = (|| {
            let package = std::str::from_utf8(&bytes).map_err(|_| WasmError::Request {
                field: "package",
                message: "is not UTF-8".into(),
            })?;
            let options = match max_chars {
                0 => okf_brief::BriefOptions::default(),
                n => okf_brief::BriefOptions::with_max_chars(n)?,
            };
            Ok(okf_brief::render(package, &options)?.text.into_bytes())
        })();
        self.finish(result)
    }

    /// The closure of the requirement named by the [`ReviewClosureInput`] in the input buffer,
    /// each item with its `item_sha256` computed by the engine over the loaded index
    /// ([`okf_engine::review::item_digests`]). Returns 0 with [`ReviewClosure`] JSON, or 1
    /// with error JSON.
    pub fn review_closure(&mut self) -> u32 {
        let bytes = std::mem::take(&mut self.input);
        let result = self.closure_of(&bytes).and_then(|c| {
            serde_json::to_vec(&c).map_err(|e| WasmError::Request {
                field: "request",
                message: e.to_string(),
            })
        });
        self.finish(result)
    }

    fn closure_of(&self, bytes: &[u8]) -> Result<ReviewClosure, WasmError> {
        use okf_engine::model::Access;
        use okf_engine::review::{ReviewedKind, item_digests, requirement_closure};
        let input: ReviewClosureInput =
            serde_json::from_slice(bytes).map_err(|e| WasmError::Request {
                field: "request",
                message: e.to_string(),
            })?;
        let loaded = self.loaded.as_ref().ok_or(WasmError::NoIndex)?;
        let doc = loaded.index.document();
        let ids =
            requirement_closure(doc, &input.requirement).ok_or_else(|| WasmError::Request {
                field: "requirement",
                message: format!(
                    "{:?} is not a requirement of the loaded index",
                    input.requirement
                ),
            })?;
        let value = |v: Result<Value, serde_json::Error>| v.ok();
        let items = ids
            .into_iter()
            .map(|id| {
                let found = item_digests(doc, id);
                let [(kind, digest)] = found.as_slice() else {
                    return ReviewItem {
                        id: id.to_owned(),
                        kind: None,
                        item_sha256: None,
                        restricted: false,
                        item: None,
                    };
                };
                let record = match kind {
                    ReviewedKind::Record => doc.records.iter().find(|r| r.id == id),
                    _ => None,
                };
                let restricted = record.is_some_and(|r| r.access != Access::Public);
                let item = match kind {
                    _ if restricted => None,
                    ReviewedKind::Record => record.and_then(|r| value(serde_json::to_value(r))),
                    ReviewedKind::Assertion => doc
                        .assertions
                        .iter()
                        .find(|a| a.id == id)
                        .and_then(|a| value(serde_json::to_value(a))),
                    ReviewedKind::Requirement => doc
                        .requirements
                        .iter()
                        .find(|q| q.id == id)
                        .and_then(|q| value(serde_json::to_value(q))),
                    ReviewedKind::Gap => doc
                        .gaps
                        .iter()
                        .flatten()
                        .find(|g| g.id == id)
                        .and_then(|g| value(serde_json::to_value(g))),
                };
                ReviewItem {
                    id: id.to_owned(),
                    kind: Some(kind.as_str()),
                    item_sha256: item.is_some().then(|| digest.clone()),
                    restricted,
                    item,
                }
            })
            .collect();
        Ok(ReviewClosure {
            requirement: input.requirement,
            items,
        })
    }

    fn assemble(&self, bytes: &[u8]) -> Result<Assembled, WasmError> {
        let input: AskInput = serde_json::from_slice(bytes).map_err(|e| WasmError::Request {
            field: "request",
            message: e.to_string(),
        })?;
        let loaded = self.loaded.as_ref().ok_or(WasmError::NoIndex)?;
        let digest = &input.binding.index_sha256;
        // The page may only bind a package to the bytes it actually loaded, or, for a public
        // projection (restricted records withheld by the server), to the full index the server
        // projected it from, which it cannot see and so takes on the server's word.
        if *digest != loaded.file_sha256
            && digest != &loaded.index.default_binding().index_sha256
            && !loaded.projection
        {
            return Err(WasmError::BindingMismatch {
                given: digest.clone(),
            });
        }
        let budget = match &input.budget {
            None => Budget::default(),
            Some(b) => Budget::from_json(b)?,
        };
        let options = AssembleOptions {
            as_of: input.as_of.as_deref().map(AsOf::parse).transpose()?,
            regime_profile: input.regime_profile,
            ..AssembleOptions::default()
        };
        Ok(assemble_with_options(
            &loaded.index,
            &input.question,
            &budget,
            Some(&input.binding),
            &options,
        )?)
    }

    /// Runs a workbench call on the input buffer: 0 with JSON, 2 with an envelope, 1 with
    /// error JSON.
    pub fn workbench(&mut self, call: WorkbenchCall) -> u32 {
        let bytes = std::mem::take(&mut self.input);
        let wb = &mut self.workbench;
        let result = match call {
            WorkbenchCall::Open => wb.open(&bytes),
            WorkbenchCall::Descriptors => Ok(Workbench::descriptors()),
            WorkbenchCall::Validate => Workbench::validate(&bytes),
            WorkbenchCall::Begin => wb.begin(&bytes),
            WorkbenchCall::Fetch => wb.fetch(&bytes),
            WorkbenchCall::Finish => wb.finish(&bytes),
            WorkbenchCall::Read => wb.read(&bytes),
            WorkbenchCall::Records => wb.records(&bytes),
            WorkbenchCall::Navigate => wb.navigate(&bytes),
            WorkbenchCall::Page => wb.page(),
        };
        self.reply(result)
    }

    /// Stores a file the page fetched for the workbench. The input buffer holds the
    /// manifest-relative path (`path_len` bytes) followed by the body: the file's bytes when
    /// `fetched` is true, else why it could not be fetched.
    pub fn workbench_put(&mut self, path_len: usize, fetched: bool) -> u32 {
        let bytes = std::mem::take(&mut self.input);
        let result = if path_len > bytes.len() {
            Err(WorkbenchCallError::Request {
                field: "path_len",
                message: format!("{path_len} is longer than the {}-byte input", bytes.len()),
            })
        } else {
            let (path, body) = bytes.split_at(path_len);
            match std::str::from_utf8(path) {
                Err(_) => Err(WorkbenchCallError::Request {
                    field: "path",
                    message: "is not UTF-8".into(),
                }),
                Ok(path) => {
                    let body = if fetched {
                        Ok(body.to_vec())
                    } else {
                        Err(String::from_utf8_lossy(body).into_owned())
                    };
                    self.workbench.put(path.to_owned(), body)
                }
            }
        };
        self.reply(result)
    }

    fn reply(&mut self, result: Result<Reply, WorkbenchCallError>) -> u32 {
        match result {
            Ok(Reply::Json(text)) => {
                self.output = text.into_bytes();
                0
            }
            Ok(Reply::Envelope(text)) => {
                self.output = text.into_bytes();
                2
            }
            Err(e) => {
                let field = match &e {
                    WorkbenchCallError::Request { field, .. } => Some(*field),
                    _ => None,
                };
                self.output = error_json(e.code().as_str(), &e.to_string(), field).into_bytes();
                1
            }
        }
    }

    fn finish(&mut self, result: Result<Vec<u8>, WasmError>) -> u32 {
        match result {
            Ok(bytes) => {
                self.output = bytes;
                0
            }
            Err(e) => {
                self.output = e.to_json().into_bytes();
                1
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use okf_engine::assemble;

    const EXAMPLE: &str = include_str!("../../okf/example/index.json");

    fn loaded() -> Module {
        let mut m = Module::default();
        m.input(EXAMPLE.len()).copy_from_slice(EXAMPLE.as_bytes());
        assert_eq!(m.load_index(), 0, "{}", String::from_utf8_lossy(m.output()));
        m
    }

    fn call_ask(m: &mut Module, request: &Value) -> (u32, String) {
        let body = request.to_string();
        m.input(body.len()).copy_from_slice(body.as_bytes());
        let status = m.ask();
        (status, String::from_utf8(m.output().to_vec()).unwrap())
    }

    #[test]
    fn the_module_returns_the_engine_bytes_for_the_same_binding() {
        let mut m = loaded();
        let info: Value = serde_json::from_slice(m.output()).unwrap();
        let index = ContextIndex::from_json_str(EXAMPLE).unwrap();
        let binding = index.default_binding().clone();
        assert_eq!(info["canonical_sha256"], binding.index_sha256.as_str());
        assert_eq!(info["file_sha256"], sha256_hex(EXAMPLE.as_bytes()).as_str());
        let budget = serde_json::json!({"max_nodes": 5});
        let (status, json) = call_ask(
            &mut m,
            &serde_json::json!({"question": "How do I borrow books?", "budget": budget, "binding": binding}),
        );
        assert_eq!(status, 0, "{json}");
        let expected = assemble(
            &index,
            "How do I borrow books?",
            &Budget::from_json(&budget).unwrap(),
            Some(&binding),
        )
        .unwrap();
        assert_eq!(json, expected.json);
    }

    #[test]
    fn the_module_takes_the_question_date_and_the_richer_profile_as_the_server_does() {
        let mut m = loaded();
        let index = ContextIndex::from_json_str(EXAMPLE).unwrap();
        let binding = index.default_binding().clone();
        let (status, json) = call_ask(
            &mut m,
            &serde_json::json!({"question": "How do I borrow books?", "binding": binding, "as_of": "2026-11-30", "regime_profile": true}),
        );
        assert_eq!(status, 0, "{json}");
        let options = AssembleOptions {
            as_of: Some(AsOf::parse("2026-11-30").unwrap()),
            regime_profile: true,
            ..AssembleOptions::default()
        };
        let expected = assemble_with_options(
            &index,
            "How do I borrow books?",
            &Budget::default(),
            Some(&binding),
            &options,
        )
        .unwrap();
        assert_eq!(json, expected.json);
        let value: Value = serde_json::from_str(&json).unwrap();
        assert_eq!(value["guidance_regime"]["as_of"], "2026-11-30");
        // A malformed date is refused, naming it.
        let (status, json) = call_ask(
            &mut m,
            &serde_json::json!({"question": "q", "binding": binding, "as_of": "2026-02-31"}),
        );
        assert_eq!(status, 1);
        assert!(json.contains("2026-02-31"), "{json}");
    }

    #[test]
    fn a_public_projection_assembles_the_full_index_packages_under_its_binding() {
        let full = ContextIndex::from_json_str(EXAMPLE).unwrap();
        let projection = okf_engine::public_projection(&full).unwrap();
        let mut m = Module::default();
        m.input(projection.len())
            .copy_from_slice(projection.as_bytes());
        assert_eq!(m.load_index(), 0, "{}", String::from_utf8_lossy(m.output()));
        let binding = full.default_binding().clone();
        for question in [
            "How do I borrow books?",
            "Who holds the meeting room keys in the evening?",
        ] {
            let (status, json) = call_ask(
                &mut m,
                &serde_json::json!({"question": question, "binding": binding}),
            );
            assert_eq!(status, 0, "{json}");
            let expected = assemble(&full, question, &Budget::default(), Some(&binding)).unwrap();
            assert_eq!(json, expected.json, "{question}");
        }
    }

    fn call_closure(m: &mut Module, requirement: &str) -> (u32, Value) {
        let body = serde_json::json!({ "requirement": requirement }).to_string();
        m.input(body.len()).copy_from_slice(body.as_bytes());
        let status = m.review_closure();
        (status, serde_json::from_slice(m.output()).unwrap())
    }

    #[test]
    fn a_requirement_closure_carries_the_engine_item_digests_from_the_index_or_its_projection() {
        // The example's restricted record required by a requirement: its closure names it,
        // but the page gets no digest and no content for it.
        let mut doc: Value = serde_json::from_str(EXAMPLE).unwrap();
        let restricted = "https://example.org/okf-example/evidence/staff-key-holders";
        doc["requirements"][0]["required"]
            .as_array_mut()
            .unwrap()
            .push(restricted.into());
        let with_restricted = doc.to_string();
        let projection =
            okf_engine::public_projection(&ContextIndex::from_json_str(&with_restricted).unwrap())
                .unwrap();
        for (bytes, full) in [
            (EXAMPLE.to_owned(), EXAMPLE),
            (with_restricted.clone(), with_restricted.as_str()),
            (projection, with_restricted.as_str()),
        ] {
            let full = ContextIndex::from_json_str(full).unwrap();
            let index = ContextIndex::from_json_str(&bytes).unwrap();
            let mut m = Module::default();
            m.input(bytes.len()).copy_from_slice(bytes.as_bytes());
            assert_eq!(m.load_index(), 0);
            for q in &index.document().requirements {
                let (status, out) = call_closure(&mut m, &q.id);
                assert_eq!(status, 0, "{out}");
                let ids: Vec<&str> = out["items"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|i| i["id"].as_str().unwrap())
                    .collect();
                let expected =
                    okf_engine::review::requirement_closure(index.document(), &q.id).unwrap();
                assert_eq!(ids, expected);
                for item in out["items"].as_array().unwrap() {
                    let id = item["id"].as_str().unwrap();
                    if id == restricted {
                        assert_eq!(item["restricted"], true);
                        assert!(item["item_sha256"].is_null() && item["item"].is_null());
                        continue;
                    }
                    // The digest of the full index (what `okf build` checks a decision against).
                    let digests = okf_engine::review::item_digests(full.document(), id);
                    assert_eq!(digests.len(), 1, "{id}");
                    assert_eq!(item["item_sha256"], digests[0].1.as_str(), "{id}");
                    assert_eq!(item["kind"], digests[0].0.as_str());
                    assert_eq!(item["item"]["id"], id);
                }
            }
        }
        let mut m = loaded();
        let (status, out) = call_closure(&mut m, "https://example.org/okf-example/nothing");
        assert_eq!(status, 1);
        assert_eq!(out["error"]["field"], "requirement");
        let (status, out) = call_closure(&mut Module::default(), "x");
        assert_eq!(status, 1);
        assert_eq!(out["error"]["code"], ErrorCode::NoIndex.as_str());
    }

    #[test]
    fn a_binding_to_other_bytes_is_refused() {
        let mut m = loaded();
        let (status, json) = call_ask(
            &mut m,
            &serde_json::json!({"question": "How do I borrow books?", "binding": {
                "index_url": "https://example.org/index.json", "index_sha256": "0".repeat(64)}}),
        );
        assert_eq!(status, 1);
        let error: Value = serde_json::from_str(&json).unwrap();
        assert_eq!(error["error"]["code"], "binding_mismatch");
        assert_eq!(error["error"]["field"], "binding.index_sha256");
    }

    #[test]
    fn bad_requests_name_the_field_and_rule() {
        let mut m = Module::default();
        let binding = serde_json::json!({"index_url": "https://example.org/i.json", "index_sha256": "0".repeat(64)});
        let (status, json) = call_ask(
            &mut m,
            &serde_json::json!({"question": "x", "binding": binding}),
        );
        assert_eq!((status, json.contains("\"no_index\"")), (1, true), "{json}");
        let mut m = loaded();
        let sha = m_canonical(&m);
        let binding =
            serde_json::json!({"index_url": "https://example.org/i.json", "index_sha256": sha});
        for (request, code, field) in [
            (
                serde_json::json!({"question": " ", "binding": binding}),
                "invalid_question",
                "question",
            ),
            (
                serde_json::json!({"question": "books", "budget": {"max_nodes": 0}, "binding": binding}),
                "invalid_budget",
                "budget.max_nodes",
            ),
            (
                serde_json::json!({"question": "books", "binding": binding, "extra": 1}),
                "invalid_request",
                "request",
            ),
        ] {
            let (status, json) = call_ask(&mut m, &request);
            assert_eq!(status, 1, "{json}");
            let error: Value = serde_json::from_str(&json).unwrap();
            assert_eq!(error["error"]["code"], code, "{json}");
            assert_eq!(error["error"]["field"], field, "{json}");
        }
        // Not JSON at all, and an invalid index, are reported, never a panic; the previous
        // index stays loaded.
        m.input(3).copy_from_slice(b"{x}");
        assert_eq!(m.load_index(), 1);
        assert!(String::from_utf8_lossy(m.output()).contains("\"invalid_index\""));
        let (status, _) = call_ask(
            &mut m,
            &serde_json::json!({"question": "How do I borrow books?", "binding": binding}),
        );
        assert_eq!(status, 0);
    }

    fn m_canonical(m: &Module) -> String {
        let info: Value = serde_json::from_slice(m.output()).unwrap();
        info["canonical_sha256"].as_str().unwrap().to_owned()
    }
}
