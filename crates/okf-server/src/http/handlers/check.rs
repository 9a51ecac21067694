//! `POST /api/check-answer`: an AI's answer checked against its package (`okf-grounding`).

use super::reply::json_response;
use crate::auth::Caller;
use crate::http::AppState;
use crate::http::error::ApiError;
use crate::http::load::read_body;
use axum::extract::{Request, State};
use axum::response::{IntoResponse, Response};
use okf_api::error::ErrorCode;
use okf_api::request::CheckAnswerRequest;
use std::sync::Arc;

/// The report (200, whatever the verdict), or an error naming the field.
pub(crate) async fn check_answer(
    State(state): State<AppState>,
    caller: Caller,
    request: Request,
) -> Response {
    let bytes = match read_body(request.into_body(), state.config.max_body_bytes).await {
        Ok(b) => b,
        Err(response) => return response,
    };
    let req = match CheckAnswerRequest::from_json_slice(&bytes) {
        Ok(r) => r,
        Err(e) => return ApiError::from(&e).into_response(),
    };
    let service = Arc::clone(&state.service);
    // A replay assembles a package: CPU-bound, kept off the async workers.
    match tokio::task::spawn_blocking(move || service.check_answer(&req, &caller)).await {
        Ok(Ok(report)) => json_response(report),
        Ok(Err(e)) => ApiError::from(&e).into_response(),
        Err(_) => ApiError::new(ErrorCode::Internal, "answer check task failed").into_response(),
    }
}
