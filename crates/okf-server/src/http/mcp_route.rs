//! The `/mcp` route around the MCP transport: bodies checked as one JSON-RPC message before
//! the transport sees them, the transport's bare errors rewritten as JSON-RPC errors, and
//! packages written into the transport's placeholder responses.

use super::AppState;
use super::error::has_json_body;
use crate::mcp::check_message;
use crate::mcp::splice::{MAX_PLACEHOLDER_BYTES, PackageSlot, SpliceError, splice};
use axum::body::{Body, to_bytes};
use axum::extract::{Request, State};
use axum::http::{Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};
use std::sync::Arc;

fn jsonrpc_error(status: StatusCode, id: Value, code: i64, message: &str) -> Response {
    let body = json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}});
    (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        body.to_string(),
    )
        .into_response()
}

/// Reads MCP POST bodies within the limit and answers anything that is not one well-formed
/// MCP JSON-RPC message with a JSON-RPC error ([`check_message`]) before the transport sees
/// it; the checked bytes are passed on unchanged.
pub(crate) async fn mcp_body_guard(
    State(state): State<AppState>,
    request: Request,
    next: Next,
) -> Response {
    if request.method() != Method::POST {
        return as_jsonrpc_error(next.run(request).await).await;
    }
    let (parts, body) = request.into_parts();
    let Ok(bytes) = to_bytes(body, state.config.max_body_bytes).await else {
        return jsonrpc_error(
            StatusCode::PAYLOAD_TOO_LARGE,
            Value::Null,
            -32600,
            "the request body is over the limit",
        );
    };
    if let Err(refusal) = check_message(&bytes) {
        let status = if refusal.in_band {
            StatusCode::OK
        } else {
            StatusCode::BAD_REQUEST
        };
        return jsonrpc_error(status, refusal.id, refusal.code, &refusal.message);
    }
    let slot = PackageSlot::new(Arc::clone(state.service.retained()));
    let mut request = Request::from_parts(parts, Body::from(bytes));
    request.extensions_mut().insert(slot.clone());
    let response = next.run(request).await;
    if let Some(scopes) = slot.take_step_up() {
        return step_up(response, &scopes);
    }
    match slot.take() {
        Some((package, escaped)) => splice_package(response, &package, escaped).await,
        None => as_jsonrpc_error(response).await,
    }
}

/// A tool call refused because the caller's token lacks `scopes`: `403` with the challenge
/// the MCP authorization specification describes for runtime insufficient scope (RFC 6750
/// §3.1), so a client can obtain a token with the scope; the JSON-RPC body (the tool's
/// refusal) is kept. The resource metadata is added to the challenge by the auth layer.
fn step_up(response: Response, scopes: &str) -> Response {
    let (mut parts, body) = response.into_parts();
    parts.status = StatusCode::FORBIDDEN;
    if let Ok(value) = header::HeaderValue::from_str(&format!(
        "Bearer error=\"insufficient_scope\", scope=\"{scopes}\", error_description=\"the token lacks a scope this bundle needs\""
    )) {
        parts.headers.insert(header::WWW_AUTHENTICATE, value);
    }
    Response::from_parts(parts, body)
}

/// Longest part of a transport's own error text kept in the JSON-RPC error message.
const MAX_TRANSPORT_MESSAGE_CHARS: usize = 200;

/// Rewrites an error the MCP transport answered without a JSON body (406 for a missing
/// `Accept`, 400 for an unsupported `MCP-Protocol-Version`, 405 for a method) as a JSON-RPC
/// error object with the same status: every error on `/mcp` is one a client's JSON-RPC layer
/// can read. Invalid-request code for client errors, internal error otherwise.
async fn as_jsonrpc_error(response: Response) -> Response {
    let status = response.status();
    if has_json_body(&response) || !(status.is_client_error() || status.is_server_error()) {
        return response;
    }
    let (parts, body) = response.into_parts();
    let text = to_bytes(body, 4096).await.unwrap_or_default();
    let detail: String = String::from_utf8_lossy(&text)
        .chars()
        .filter(|c| !c.is_control())
        .take(MAX_TRANSPORT_MESSAGE_CHARS)
        .collect();
    let reason = status.canonical_reason().unwrap_or("error").to_lowercase();
    let message = if detail.trim().is_empty() {
        reason
    } else {
        format!("{reason}: {}", detail.trim())
    };
    let code = if status.is_client_error() {
        -32600
    } else {
        -32603
    };
    let mut rewritten = jsonrpc_error(status, Value::Null, code, &message);
    for (name, value) in &parts.headers {
        if name != header::CONTENT_TYPE && name != header::CONTENT_LENGTH {
            rewritten.headers_mut().append(name.clone(), value.clone());
        }
    }
    rewritten
}

/// Writes the package a tool call left into the transport's placeholder response
/// ([`crate::mcp::splice`]).
async fn splice_package(
    response: Response,
    package: &okf_engine::Assembled,
    escaped: Result<bytes::Bytes, SpliceError>,
) -> Response {
    let is_json = has_json_body(&response);
    let (mut parts, body) = response.into_parts();
    let spliced = match to_bytes(body, MAX_PLACEHOLDER_BYTES).await {
        Ok(bytes) if is_json => escaped
            .and_then(|text| splice(&bytes, &package.json, &text))
            .map(|out| (bytes, out)),
        Ok(_) => Err(SpliceError::NotJson),
        Err(e) => Err(SpliceError::Unread(e)),
    };
    match spliced {
        Ok((_, Some(out))) => {
            parts.headers.remove(header::CONTENT_LENGTH);
            Response::from_parts(parts, Body::from(out))
        }
        Ok((bytes, None)) => Response::from_parts(parts, Body::from(bytes)),
        Err(error) => {
            tracing::error!(target: "okf::mcp", message = %error, "package not written");
            jsonrpc_error(
                StatusCode::INTERNAL_SERVER_ERROR,
                Value::Null,
                -32603,
                "internal error: the package could not be written into the response",
            )
        }
    }
}
