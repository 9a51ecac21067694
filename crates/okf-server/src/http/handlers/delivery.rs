//! `POST /api/catalogue` and `POST /api/read`: bounded deliveries of a replayed package.

use super::reply::json_response;
use crate::auth::Caller;
use crate::http::AppState;
use crate::http::error::ApiError;
use crate::http::load::read_body;
use crate::service::{RequestError, Service};
use axum::extract::{Request, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use okf_api::error::ErrorCode;
use serde_json::Value;
use std::sync::Arc;

/// `http://` plus the request's (allow-listed) Host: where the page permalinks point.
fn request_origin(request: &Request) -> String {
    let host = request
        .headers()
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("127.0.0.1");
    format!("http://{host}")
}

/// Decodes a delivery body strictly, runs the (CPU-bound) replay off the async workers.
async fn deliver<A, F>(
    state: AppState,
    request: Request,
    decode: fn(Value) -> Result<A, RequestError>,
    run: F,
) -> Response
where
    A: Send + 'static,
    F: FnOnce(
            &Service,
            A,
            &str,
            &Caller,
        ) -> Result<crate::delivery::Delivered, crate::delivery::DeliveryFailure>
        + Send
        + 'static,
{
    let origin = request_origin(&request);
    let caller = request
        .extensions()
        .get::<Caller>()
        .cloned()
        .unwrap_or_default();
    let bytes = match read_body(request.into_body(), state.config.max_body_bytes).await {
        Ok(b) => b,
        Err(response) => return response,
    };
    let value = match okf_api::request::json_body(&bytes) {
        Ok(v) => v,
        Err(e) => return ApiError::from(&e).into_response(),
    };
    let args = match decode(value) {
        Ok(a) => a,
        Err(e) => return ApiError::from(&e).into_response(),
    };
    let service = Arc::clone(&state.service);
    match tokio::task::spawn_blocking(move || run(&service, args, &origin, &caller)).await {
        Ok(Ok(delivered)) => json_response(delivered.json),
        Ok(Err(e)) => ApiError::from(&e).into_response(),
        Err(_) => ApiError::new(ErrorCode::Internal, "delivery task failed").into_response(),
    }
}

pub(crate) async fn catalogue(State(state): State<AppState>, request: Request) -> Response {
    use crate::delivery::{CatalogueArgs, catalogue};
    deliver(state, request, CatalogueArgs::from_value, catalogue).await
}

pub(crate) async fn read_evidence(State(state): State<AppState>, request: Request) -> Response {
    use crate::delivery::{ReadArgs, read};
    deliver(state, request, ReadArgs::from_value, read).await
}
