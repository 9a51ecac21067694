//! The JSON-RPC checks every MCP request passes before the transport sees it: one message, no
//! batch, no duplicate key, a bounded id, a known method's params of the right shape.

use rmcp::model::{
    CallToolRequestParams, ClientJsonRpcMessage, ClientRequest, InitializeRequestParams,
    PaginatedRequestParams, ProtocolVersion,
};
use serde_json::Value;

/// The protocol revisions offered. 2025-03-26 is left out because its transport allows
/// JSON-RPC batches, which this server refuses ([`check_message`]); 2024-11-05 defines no
/// Streamable HTTP. A client asking for either is offered 2025-11-25 at `initialize`.
pub(super) const SUPPORTED_PROTOCOLS: &[ProtocolVersion] = &[
    ProtocolVersion::V_2025_06_18,
    ProtocolVersion::V_2025_11_25,
    ProtocolVersion::V_2026_07_28,
];

/// Longest string `id` accepted (and so echoed back).
const MAX_ID_CHARS: usize = 128;

/// Largest numeric `id` accepted: the largest integer every JSON client holds exactly.
const MAX_ID_NUMBER: u64 = (1 << 53) - 1;

/// The methods served whose params the transport decodes into typed structures; a request
/// for one of them with params of the wrong shape is invalid params, not an unknown method.
const TYPED_METHODS: [&str; 5] = [
    "initialize",
    "ping",
    "server/discover",
    "tools/list",
    "tools/call",
];

/// Why the HTTP boundary answers a POSTed MCP message itself instead of passing it on.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Refusal {
    /// An error to a well-formed request, answered with HTTP 200 as the transport answers
    /// its own JSON-RPC errors; otherwise the message is malformed and gets HTTP 400.
    pub in_band: bool,
    /// The request's `id` when it could be read and is within bounds, else `null`.
    pub id: Value,
    /// JSON-RPC error code.
    pub code: i64,
    /// What is wrong, naming the member and the rule.
    pub message: String,
}

impl Refusal {
    fn new(id: &Value, code: i64, message: impl Into<String>) -> Self {
        Refusal {
            in_band: false,
            id: id.clone(),
            code,
            message: message.into(),
        }
    }
}

fn id_in_bounds(id: &Value) -> bool {
    match id {
        Value::String(s) => !s.is_empty() && s.chars().count() <= MAX_ID_CHARS,
        Value::Number(n) => n.as_u64().is_some_and(|n| n <= MAX_ID_NUMBER),
        _ => false,
    }
}

/// Checks one POSTed MCP body: UTF-8 JSON (else -32700), a single JSON-RPC 2.0 message with
/// a bounded id, a string method and object params (else -32600), and, for the methods this
/// server serves, params of the right shape (else -32602, in band). Batches are refused:
/// no revision offered here allows them.
pub(crate) fn check_message(bytes: &[u8]) -> Result<(), Refusal> {
    let text = std::str::from_utf8(bytes)
        .map_err(|_| Refusal::new(&Value::Null, -32700, "parse error: the body is not UTF-8"))?;
    // One strict decoder for every body: a key given twice anywhere (the envelope or the
    // tool arguments) makes the message ambiguous, so it is refused naming the key.
    let value: Value = okf_api::strict_json::parse(text.as_bytes()).map_err(|e| {
        if e.classify() == serde_json::error::Category::Data {
            Refusal::new(&Value::Null, -32600, format!("invalid request: {e}"))
        } else {
            Refusal::new(
                &Value::Null,
                -32700,
                format!("parse error: the body is not JSON ({e})"),
            )
        }
    })?;
    let message = match &value {
        Value::Object(message) => message,
        Value::Array(_) => {
            return Err(Refusal::new(
                &Value::Null,
                -32600,
                "invalid request: JSON-RPC batches are not accepted; send one message per request",
            ));
        }
        _ => {
            return Err(Refusal::new(
                &Value::Null,
                -32600,
                "invalid request: a JSON-RPC message must be an object",
            ));
        }
    };
    let id = match message.get("id") {
        None => Value::Null,
        Some(id) if id_in_bounds(id) => id.clone(),
        Some(_) => {
            return Err(Refusal::new(
                &Value::Null,
                -32600,
                format!(
                    "invalid request: id must be a string of 1-{MAX_ID_CHARS} characters or an integer from 0 to {MAX_ID_NUMBER}"
                ),
            ));
        }
    };
    if message.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Err(Refusal::new(
            &id,
            -32600,
            "invalid request: jsonrpc must be \"2.0\"",
        ));
    }
    let method = match message.get("method") {
        Some(Value::String(m)) => Some(m.as_str()),
        Some(_) => {
            return Err(Refusal::new(
                &id,
                -32600,
                "invalid request: method must be a string",
            ));
        }
        None if message.contains_key("result") || message.contains_key("error") => None,
        None => {
            return Err(Refusal::new(
                &id,
                -32600,
                "invalid request: a request or notification needs a method",
            ));
        }
    };
    let params = message.get("params");
    if params.is_some_and(|p| !p.is_object()) {
        return Err(Refusal::new(
            &id,
            -32600,
            "invalid request: params must be an object",
        ));
    }
    let parsed = serde_json::from_value::<ClientJsonRpcMessage>(value.clone()).map_err(|e| {
        Refusal::new(
            &id,
            -32600,
            format!("invalid request: not an MCP JSON-RPC message ({e})"),
        )
    })?;
    // The transport decodes a served method with mis-shaped params as a custom method and
    // would answer "method not found"; name the params instead.
    let fell_back = matches!(
        &parsed,
        ClientJsonRpcMessage::Request(r) if matches!(r.request, ClientRequest::CustomRequest(_))
    );
    match method {
        Some(m) if fell_back && TYPED_METHODS.contains(&m) => {
            let detail = params_problem(m, params);
            // A request (it has an id): answered in band, as the transport answers -32602.
            Err(Refusal {
                in_band: true,
                ..Refusal::new(&id, -32602, format!("invalid params for {m}: {detail}"))
            })
        }
        _ => Ok(()),
    }
}

/// What is wrong with the params of a served method that the transport could not decode.
fn params_problem(method: &str, params: Option<&Value>) -> String {
    let params = params.cloned().unwrap_or(Value::Null);
    let decoded = match method {
        "tools/call" => {
            match (params.get("name"), params.get("arguments")) {
                (Some(Value::String(_)), Some(a)) if !a.is_object() => {
                    return "arguments must be an object".into();
                }
                (Some(Value::String(_)), _) => {}
                _ => return "name must be the string name of a listed tool".into(),
            }
            serde_json::from_value::<CallToolRequestParams>(params).map(drop)
        }
        "initialize" => serde_json::from_value::<InitializeRequestParams>(params).map(drop),
        _ => serde_json::from_value::<PaginatedRequestParams>(params).map(drop),
    };
    match decoded {
        Err(e) => e.to_string(),
        Ok(()) => "the params do not match the method's schema".into(),
    }
}
