//! `POST /api/ask` and `GET /api/context/{context_id}`: a package assembled, or one retained.

use super::reply::{brief_reply, package_reply, wants_brief};
use crate::auth::Caller;
use crate::http::error::ApiError;
use crate::http::load::read_body;
use crate::http::{AppState, LogFields};
use crate::service::AskRequest;
use axum::extract::{Path, Request, State};
use axum::http::HeaderValue;
use axum::response::{IntoResponse, Response};
use okf_api::error::ErrorCode;
use okf_api::receipt::RECEIPT_HEADER;
use std::sync::Arc;

/// Assembles (or finds in the cache) the package for one strictly decoded ask request.
pub(crate) async fn ask(
    State(state): State<AppState>,
    caller: Caller,
    request: Request,
) -> Response {
    let coding = crate::compression::negotiate(request.headers());
    let brief = wants_brief(request.headers());
    // load_guard has already read the body within the limit; this only collects it.
    let bytes = match read_body(request.into_body(), state.config.max_body_bytes).await {
        Ok(b) => b,
        Err(response) => return response,
    };
    let req = match AskRequest::from_json_slice(&bytes) {
        Ok(r) => r,
        Err(e) => return ApiError::from(&e).into_response(),
    };
    let service = Arc::clone(&state.service);
    let bundle = req.bundle.clone();
    // CPU-bound but budget-bounded; keep it off the async workers.
    let outcome = tokio::task::spawn_blocking(move || service.ask(&req, &caller)).await;
    let (mut response, evidence_status, context_id) = match outcome {
        Ok(Ok(answer)) => {
            let status = answer.package_status();
            let context_id = answer.package.context_id.clone();
            let receipt = answer.receipt.to_json();
            let mut response = if brief {
                brief_reply(&state, answer.package).await
            } else {
                package_reply(&state, coding, answer.package).await
            };
            // The receipt is ASCII JSON of ids, digests, numbers and a timestamp.
            if let Ok(value) = HeaderValue::from_str(&receipt) {
                response.headers_mut().insert(RECEIPT_HEADER, value);
            }
            (response, Some(status), Some(context_id))
        }
        Ok(Err(e)) => (ApiError::from(&e).into_response(), None, None),
        Err(_) => (
            ApiError::new(ErrorCode::Internal, "assembly task failed").into_response(),
            None,
            None,
        ),
    };
    response.extensions_mut().insert(LogFields {
        bundle: Some(bundle),
        evidence_status,
        context_id,
    });
    response
}

/// A package this server assembled recently, by its `context_id`.
pub(crate) async fn context(
    State(state): State<AppState>,
    Path(context_id): Path<String>,
    caller: Caller,
    headers: axum::http::HeaderMap,
) -> Result<Response, ApiError> {
    let package = state
        .service
        .context(&context_id, &caller)
        .map_err(|e| ApiError::from(&e))?;
    if wants_brief(&headers) {
        return Ok(brief_reply(&state, package).await);
    }
    let coding = crate::compression::negotiate(&headers);
    Ok(package_reply(&state, coding, package).await)
}
