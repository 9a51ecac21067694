//! The wire requests, each with its one strict decoder: closed objects, no unknown or
//! duplicate keys, `null` as absent for optional fields, every error naming its field. The
//! HTTP API, the MCP tools and the page decode with these and nothing else.

use crate::error::ErrorCode;
use crate::format::{LOGICAL_ID_PATTERN, RECORD_ID_RULE, is_date, is_logical_id, is_record_id};
use crate::limits::{MAX_OFFSET, MIN_CATALOGUE_DELIVERY_BYTES};
use okf_delivery::MAX_DELIVERY_BYTES;
use serde::Deserialize;
use serde_json::{Map, Value};

/// Why a request was refused before anything was looked up or assembled.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RequestError {
    /// A field breaks an input rule.
    #[error("{field}: {message}")]
    Invalid {
        /// The offending field (`body` for the request as a whole).
        field: String,
        /// The rule it breaks.
        message: String,
    },
    /// The body is not one well-formed JSON document (or repeats a key).
    #[error("the body {0}")]
    Json(String),
}

impl RequestError {
    /// The code every adapter reports: [`ErrorCode::InvalidRequest`] or
    /// [`ErrorCode::InvalidJson`].
    pub fn code(&self) -> ErrorCode {
        match self {
            RequestError::Invalid { .. } => ErrorCode::InvalidRequest,
            RequestError::Json(_) => ErrorCode::InvalidJson,
        }
    }

    /// The request field at fault.
    pub fn field(&self) -> &str {
        match self {
            RequestError::Invalid { field, .. } => field,
            RequestError::Json(_) => "body",
        }
    }
}

fn invalid(field: &str, message: impl Into<String>) -> RequestError {
    RequestError::Invalid {
        field: field.to_owned(),
        message: message.into(),
    }
}

/// The body of `POST /api/ask` and the arguments of the `ask_okf` tool.
///
/// Both adapters decode it with [`AskRequest::from_json_slice`] or
/// [`AskRequest::from_value`], which enforce the published closed schema exactly (see
/// `schemas/ask-request.schema.json`): an object, no unknown or duplicate keys, no `null`
/// for an optional field, and every error naming its field.
#[derive(Debug, Clone, PartialEq)]
pub struct AskRequest {
    /// Logical bundle id from the registry.
    pub bundle: String,
    /// The question, 1–4000 characters, not blank.
    pub question: String,
    /// Named version of the bundle (default: the bundle's default version).
    pub version: Option<String>,
    /// Date (YYYY-MM-DD): use the latest version published on or before it.
    pub as_of: Option<String>,
    /// Budget overrides; checked by the engine's rules.
    pub budget: Option<Value>,
    /// `"regimes"`: write the richer package profile (docs/authoring.md); default off.
    pub profile: Option<String>,
}

/// Parses one request body, refusing a key given twice ([`crate::strict_json`]).
pub fn json_body(bytes: &[u8]) -> Result<Value, RequestError> {
    crate::strict_json::parse(bytes)
        .map_err(|e| RequestError::Json(format!("is not valid JSON: {e}")))
}

/// The one rule for optional fields, on every route and tool: `null` means absent. Clients
/// that convert schemas to strict function calling must send every field, and spell an
/// optional one they do not use as `null`; a required field given as `null` is then missing.
/// Only the `known` fields are dropped: an unknown key is refused whatever its value, `null`
/// included, as the closed schemas say.
pub fn null_is_absent(map: &mut Map<String, Value>, known: &[&str]) {
    map.retain(|k, v| !(v.is_null() && known.contains(&k.as_str())));
}

/// The keys of a budget object.
fn budget_fields() -> [&'static str; 4] {
    okf_engine::BUDGET_RANGES.map(|(key, _, _)| key)
}

/// The one package profile a request (or a registry entry) may name: the richer regimes profile.
pub const REGIMES_PROFILE: &str = "regimes";

/// The keys of an ask request, in schema order.
const ASK_FIELDS: [&str; 6] = [
    "bundle", "question", "version", "as_of", "budget", "profile",
];

/// Longest unknown key echoed back as an error's `field`.
const MAX_ECHOED_KEY_CHARS: usize = 64;

impl AskRequest {
    /// Decodes a request body: JSON with no duplicate key at any depth, then
    /// [`AskRequest::from_value`].
    pub fn from_json_slice(bytes: &[u8]) -> Result<Self, RequestError> {
        let value = json_body(bytes)?;
        Self::from_value(value)
    }

    /// Decodes parsed arguments against the closed schema and checks the id formats, so a
    /// decoded request's `bundle` is always a logical id (safe to log).
    pub fn from_value(value: Value) -> Result<Self, RequestError> {
        let mut map = object_body(value)?;
        null_is_absent(&mut map, &ASK_FIELDS);
        if let Some(Value::Object(budget)) = map.get_mut("budget") {
            null_is_absent(budget, &budget_fields());
        }
        if let Some(unknown) = map.keys().find(|k| !ASK_FIELDS.contains(&k.as_str())) {
            let shown: String = unknown.chars().take(MAX_ECHOED_KEY_CHARS).collect();
            return Err(RequestError::Invalid {
                field: shown,
                message: format!(
                    "is not a field of an ask request (allowed: {})",
                    ASK_FIELDS.join(", ")
                ),
            });
        }
        let mut string = |field: &'static str, required: bool| match map.remove(field) {
            None if required => Err(invalid(field, "is required")),
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(other) => Err(invalid(
                field,
                format!("must be a string, not {}", json_kind(&other)),
            )),
        };
        let bundle = string("bundle", true)?.unwrap_or_default();
        let question = string("question", true)?.unwrap_or_default();
        let version = string("version", false)?;
        let as_of = string("as_of", false)?;
        let profile = string("profile", false)?;
        let budget = match map.remove("budget") {
            None => None,
            Some(Value::Object(b)) => Some(Value::Object(b)),
            Some(other) => {
                return Err(invalid(
                    "budget",
                    format!("must be an object, not {}", json_kind(&other)),
                ));
            }
        };
        let request = AskRequest {
            bundle,
            question,
            version,
            as_of,
            budget,
            profile,
        };
        request.check_ids()?;
        request.regime_profile(false)?;
        Ok(request)
    }

    /// Whether the package is written in the regimes profile: as the request says, else
    /// `default` (the registry entry's setting). Any profile but [`REGIMES_PROFILE`] is refused.
    pub fn regime_profile(&self, default: bool) -> Result<bool, RequestError> {
        match self.profile.as_deref() {
            None => Ok(default),
            Some(REGIMES_PROFILE) => Ok(true),
            Some(_) => Err(invalid(
                "profile",
                format!("must be {REGIMES_PROFILE:?} when given"),
            )),
        }
    }

    /// The format rules of `bundle`, `version` and `as_of`, checked before any lookup.
    pub fn check_ids(&self) -> Result<(), RequestError> {
        check_selector(&self.bundle, self.version.as_deref(), self.as_of.as_deref())
    }
}

/// The format rules of a bundle selector (`bundle`, `version`, `as_of`), checked before any
/// lookup: anything that looks like a URL or path is refused before it reaches the registry.
pub fn check_selector(
    bundle: &str,
    version: Option<&str>,
    as_of: Option<&str>,
) -> Result<(), RequestError> {
    if !is_logical_id(bundle) {
        return Err(invalid(
            "bundle",
            format!(
                "must be a logical bundle id matching {LOGICAL_ID_PATTERN}, never a URL or path"
            ),
        ));
    }
    if version.is_some_and(|v| !is_logical_id(v)) {
        return Err(invalid(
            "version",
            format!("must match {LOGICAL_ID_PATTERN}"),
        ));
    }
    if as_of.is_some_and(|d| !is_date(d)) {
        return Err(invalid("as_of", "must be a calendar date YYYY-MM-DD"));
    }
    Ok(())
}

/// A request body's members, or the error saying the body is not an object.
fn object_body(value: Value) -> Result<serde_json::Map<String, Value>, RequestError> {
    match value {
        Value::Object(map) => Ok(map),
        other => Err(invalid(
            "body",
            format!("must be a JSON object, not {}", json_kind(&other)),
        )),
    }
}

/// The JSON type of a value, as the schema names it.
fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Arguments of `ask_okf_manifest` and `POST /api/catalogue`: an ask request plus the
/// delivery fields.
#[derive(Debug, Clone)]
pub struct CatalogueArgs {
    /// The replayed request (decoded by the same strict decoder as `/api/ask`).
    pub ask: AskRequest,
    /// The expected identity; required when `offset > 0`.
    pub context_id: Option<String>,
    /// First record of the page.
    pub offset: u64,
    /// Largest response in bytes (16,384–65,536, default 16,384).
    pub delivery_bytes: Option<u64>,
}

/// Arguments of `read_okf_evidence` and `POST /api/read`: an ask request plus the delivery
/// fields.
#[derive(Debug, Clone)]
pub struct ReadArgs {
    /// The replayed request (decoded by the same strict decoder as `/api/ask`).
    pub ask: AskRequest,
    /// The identity the replay must reproduce.
    pub context_id: String,
    /// record_text, record_metadata, relationships, diagnostics or package.
    pub section: String,
    /// The selected record, for the two record sections.
    pub record_id: Option<String>,
    /// Start, in UTF-16 code units.
    pub offset: u64,
    /// Largest response in bytes (8,192–65,536, default 16,384).
    pub delivery_bytes: Option<u64>,
}

/// The delivery fields of a body, taken out so the rest decodes as an ask request.
struct DeliveryFields(Map<String, Value>);

impl DeliveryFields {
    /// Splits `value` into the listed delivery fields and the ask request.
    fn split(value: Value, keys: &[&str]) -> Result<(AskRequest, Self), RequestError> {
        let Value::Object(mut map) = value else {
            return Err(invalid("body", "must be a JSON object"));
        };
        null_is_absent(&mut map, keys);
        let fields = keys
            .iter()
            .filter_map(|k| map.remove(*k).map(|v| ((*k).to_owned(), v)))
            .collect();
        Ok((
            AskRequest::from_value(Value::Object(map))?,
            DeliveryFields(fields),
        ))
    }

    fn string(&mut self, key: &'static str) -> Result<Option<String>, RequestError> {
        match self.0.remove(key) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(_) => Err(invalid(key, "must be a string")),
        }
    }

    fn integer(&mut self, key: &'static str) -> Result<Option<u64>, RequestError> {
        match self.0.remove(key) {
            None => Ok(None),
            Some(Value::Number(n)) => n
                .as_u64()
                .map(Some)
                .ok_or_else(|| invalid(key, "must be an integer of at least 0")),
            Some(_) => Err(invalid(key, "must be an integer")),
        }
    }
}

impl DeliveryFields {
    /// `offset`: 0 when absent, at most [`MAX_OFFSET`].
    fn offset(&mut self) -> Result<u64, RequestError> {
        let offset = self.integer("offset")?.unwrap_or(0);
        if offset > MAX_OFFSET {
            return Err(invalid("offset", format!("must be 0-{MAX_OFFSET}")));
        }
        Ok(offset)
    }

    /// `record_id`, when given, in the record id format.
    fn record_id(&mut self) -> Result<Option<String>, RequestError> {
        let id = self.string("record_id")?;
        if id.as_deref().is_some_and(|r| !is_record_id(r)) {
            return Err(invalid("record_id", RECORD_ID_RULE));
        }
        Ok(id)
    }
}

impl CatalogueArgs {
    /// Decodes arguments (closed: ask request fields plus context_id, offset, delivery_bytes).
    pub fn from_value(value: Value) -> Result<Self, RequestError> {
        let (ask, mut f) =
            DeliveryFields::split(value, &["context_id", "offset", "delivery_bytes"])?;
        let context_id = f.string("context_id")?;
        let offset = f.offset()?;
        let delivery_bytes = f.integer("delivery_bytes")?;
        let range = MIN_CATALOGUE_DELIVERY_BYTES..=MAX_DELIVERY_BYTES;
        if delivery_bytes.is_some_and(|b| !range.contains(&b)) {
            return Err(invalid(
                "delivery_bytes",
                format!("must be {MIN_CATALOGUE_DELIVERY_BYTES}-{MAX_DELIVERY_BYTES}"),
            ));
        }
        if offset > 0 && context_id.is_none() {
            return Err(invalid(
                "context_id",
                "a continuation page (offset > 0) needs the context_id of the first page",
            ));
        }
        Ok(CatalogueArgs {
            ask,
            context_id,
            offset,
            delivery_bytes,
        })
    }
}

impl ReadArgs {
    /// Decodes arguments (closed: ask request fields plus context_id, section, record_id,
    /// offset, delivery_bytes).
    pub fn from_value(value: Value) -> Result<Self, RequestError> {
        let (ask, mut f) = DeliveryFields::split(
            value,
            &[
                "context_id",
                "section",
                "record_id",
                "offset",
                "delivery_bytes",
            ],
        )?;
        Ok(ReadArgs {
            ask,
            context_id: f
                .string("context_id")?
                .ok_or_else(|| invalid("context_id", "is required"))?,
            section: f
                .string("section")?
                .ok_or_else(|| invalid("section", "is required"))?,
            record_id: f.record_id()?,
            offset: f.offset()?,
            delivery_bytes: f.integer("delivery_bytes")?,
        })
    }
}

/// Arguments of `okf_get_context`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContextArgs {
    /// The retained package's id.
    pub context_id: String,
}

/// Arguments of `okf_explain_context`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExplainArgs {
    /// The retained package's id.
    pub context_id: String,
    /// The record to explain; absent (or `null`): the whole package.
    #[serde(default)]
    pub record_id: Option<String>,
}

/// Arguments of `okf_workbench_case`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorkbenchCaseArgs {
    /// The workbench's logical id.
    pub workbench: String,
    /// The case to open; absent (or `null`): the list of cases only.
    #[serde(default)]
    pub case_id: Option<String>,
}

/// Arguments of `search` (ChatGPT's search and fetch pair).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SearchArgs {
    /// The question.
    pub query: String,
}

/// Arguments of `fetch`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FetchArgs {
    /// A search result's id.
    pub id: String,
}

/// The body of `POST /api/check-answer` and the arguments of `okf_check_answer`: an answer
/// (`okf-grounded-answer.v1`, checked by `okf-grounding`), and, when its package is not
/// retained, the ask request that replays it (`bundle`, `question`, and the optional
/// `version`, `as_of`, `budget`, `profile`, decoded by [`AskRequest::from_value`]).
#[derive(Debug, Clone)]
pub struct CheckAnswerRequest {
    /// The answer, as sent (its shape is checked by the grounding check).
    pub answer: Value,
    /// The request that replays the package, when given.
    pub replay: Option<AskRequest>,
}

impl CheckAnswerRequest {
    /// Decodes a request body: JSON with no duplicate key at any depth, then
    /// [`CheckAnswerRequest::from_value`].
    pub fn from_json_slice(bytes: &[u8]) -> Result<Self, RequestError> {
        Self::from_value(json_body(bytes)?)
    }

    /// Decodes parsed arguments: `answer` is required; any other member belongs to the replay
    /// request, which then must be a whole ask request.
    pub fn from_value(value: Value) -> Result<Self, RequestError> {
        let mut map = object_body(value)?;
        null_is_absent(&mut map, &ASK_FIELDS);
        let answer = map
            .remove("answer")
            .ok_or_else(|| invalid("answer", "is required: the okf-grounded-answer.v1 to check"))?;
        if !answer.is_object() {
            return Err(invalid(
                "answer",
                format!("must be a JSON object, not {}", json_kind(&answer)),
            ));
        }
        let replay = if map.is_empty() {
            None
        } else {
            Some(AskRequest::from_value(Value::Object(map))?)
        };
        Ok(CheckAnswerRequest { answer, replay })
    }
}
