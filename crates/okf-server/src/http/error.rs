//! The one error shape of the HTTP API, `{"error": {"code", "message", "field"?}}` with its
//! status, and the rewriting of bare error responses inner services write into that shape.

use crate::delivery::DeliveryFailure;
use crate::service::{RequestError, ServiceError};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

/// An error answer: its status, a stable code, a message and, when one field of the request
/// is at fault, that field's name.
#[derive(Debug)]
pub(crate) struct ApiError {
    status: StatusCode,
    code: &'static str,
    message: String,
    field: Option<String>,
    /// A `WWW-Authenticate` challenge to send with it (401 and 403 of restricted bundles).
    challenge: Option<String>,
}

impl ApiError {
    /// An error with no field named.
    pub(crate) fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> Self {
        ApiError {
            status,
            code,
            message: message.into(),
            field: None,
            challenge: None,
        }
    }

    /// The same error with a `WWW-Authenticate` challenge.
    pub(crate) fn challenge(mut self, value: String) -> Self {
        self.challenge = Some(value);
        self
    }

    /// The same error, naming the request field at fault.
    pub(crate) fn on(self, field: impl Into<String>) -> Self {
        self.field_opt(Some(field.into()))
    }

    /// The same error, naming the request field at fault when there is one.
    pub(crate) fn field_opt(mut self, field: Option<impl Into<String>>) -> Self {
        self.field = field.map(Into::into);
        self
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut error = json!({"code": self.code, "message": self.message});
        if let (Some(f), Value::Object(map)) = (self.field, &mut error) {
            map.insert("field".into(), Value::String(f));
        }
        let mut response = (
            self.status,
            [(header::CONTENT_TYPE, "application/json")],
            json!({ "error": error }).to_string(),
        )
            .into_response();
        if let Some(value) = self.challenge.and_then(|c| HeaderValue::from_str(&c).ok()) {
            response
                .headers_mut()
                .insert(header::WWW_AUTHENTICATE, value);
        }
        response
    }
}

impl From<&ServiceError> for ApiError {
    fn from(e: &ServiceError) -> Self {
        let status = match e {
            ServiceError::InvalidRequest { .. }
            | ServiceError::InvalidJson(_)
            | ServiceError::Engine(_) => StatusCode::BAD_REQUEST,
            ServiceError::UnknownBundle { .. }
            | ServiceError::UnknownVersion { .. }
            | ServiceError::ContextNotRetained(_) => StatusCode::NOT_FOUND,
            ServiceError::Unavailable { .. } | ServiceError::CorpusUnavailable { .. } => {
                StatusCode::SERVICE_UNAVAILABLE
            }
            ServiceError::InsufficientScope { scopes, .. } => {
                return ApiError::new(StatusCode::FORBIDDEN, e.code(), e.to_string())
                    .on("bundle")
                    .challenge(format!(
                        "Bearer error=\"insufficient_scope\", scope=\"{scopes}\""
                    ));
            }
        };
        ApiError::new(status, e.code(), e.to_string()).field_opt(e.field())
    }
}

impl From<&RequestError> for ApiError {
    fn from(e: &RequestError) -> Self {
        ApiError::new(StatusCode::BAD_REQUEST, e.code(), e.to_string()).on(e.field())
    }
}

impl From<&DeliveryFailure> for ApiError {
    fn from(e: &DeliveryFailure) -> Self {
        match e {
            DeliveryFailure::Service(inner) => ApiError::from(inner),
            _ => {
                ApiError::new(StatusCode::BAD_REQUEST, e.code(), e.to_string()).field_opt(e.field())
            }
        }
    }
}

/// The code of an error response some inner service (the MCP transport, the page's asset
/// route) wrote without a JSON body.
fn status_code_name(status: StatusCode) -> &'static str {
    match status {
        StatusCode::BAD_REQUEST => "bad_request",
        StatusCode::NOT_FOUND => "not_found",
        StatusCode::METHOD_NOT_ALLOWED => "method_not_allowed",
        StatusCode::NOT_ACCEPTABLE => "not_acceptable",
        StatusCode::UNSUPPORTED_MEDIA_TYPE => "unsupported_media_type",
        StatusCode::PAYLOAD_TOO_LARGE => "body_too_large",
        StatusCode::TOO_MANY_REQUESTS => "rate_limited",
        s if s.is_server_error() => "internal",
        _ => "error",
    }
}

/// Whether a response already carries a JSON body (`Content-Type: application/json…`).
pub(crate) fn has_json_body(response: &Response) -> bool {
    response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"))
}

/// Replaces a non-JSON error body with the JSON error shape, keeping status and headers.
pub(crate) fn ensure_json_error(response: Response) -> Response {
    let status = response.status();
    if !(status.is_client_error() || status.is_server_error()) || has_json_body(&response) {
        return response;
    }
    let (mut parts, _) = response.into_parts();
    let message = status.canonical_reason().unwrap_or("error").to_lowercase();
    let replacement = ApiError::new(status, status_code_name(status), &message).into_response();
    parts.headers.remove(header::CONTENT_LENGTH);
    parts.headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    Response::from_parts(parts, replacement.into_body())
}

pub(crate) async fn not_found() -> Response {
    ApiError::new(StatusCode::NOT_FOUND, "not_found", "no such route").into_response()
}

pub(crate) async fn method_not_allowed() -> Response {
    ApiError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        "method_not_allowed",
        "this route does not accept that method",
    )
    .into_response()
}
