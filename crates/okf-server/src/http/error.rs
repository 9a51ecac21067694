//! The one error shape of the HTTP API, `{"error": {"code", "message", "field"?}}` with its
//! status, and the rewriting of bare error responses inner services write into that shape.

use crate::delivery::DeliveryFailure;
use crate::service::{RequestError, ServiceError};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use okf_api::error::{BearerError, ErrorCode, error_body};

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
    /// An error with one of the API's own codes, sent with that code's status; no field named.
    pub(crate) fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self::with_status(status_of(code.http_status()), code.as_str(), message)
    }

    /// An error with a code decided elsewhere (a lower crate's, or a status's own).
    pub(crate) fn with_status(
        status: StatusCode,
        code: &'static str,
        message: impl Into<String>,
    ) -> Self {
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
        let body = error_body(self.code, &self.message, self.field.as_deref());
        let mut response = (
            self.status,
            [(header::CONTENT_TYPE, "application/json")],
            body.to_string(),
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

/// The status with this number; every number in the code table is a valid status.
fn status_of(code: u16) -> StatusCode {
    StatusCode::from_u16(code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
}

impl From<&ServiceError> for ApiError {
    fn from(e: &ServiceError) -> Self {
        let error = ApiError::with_status(status_of(e.http_status()), e.code(), e.to_string())
            .field_opt(e.field());
        match e {
            ServiceError::InsufficientScope { scopes, .. } => error.challenge(format!(
                "Bearer error=\"{}\", scope=\"{scopes}\"",
                BearerError::InsufficientScope.as_str()
            )),
            _ => error,
        }
    }
}

impl From<&RequestError> for ApiError {
    fn from(e: &RequestError) -> Self {
        ApiError::new(e.code(), e.to_string()).on(e.field())
    }
}

impl From<&DeliveryFailure> for ApiError {
    fn from(e: &DeliveryFailure) -> Self {
        match e {
            DeliveryFailure::Service(inner) => ApiError::from(inner),
            _ => ApiError::with_status(StatusCode::BAD_REQUEST, e.code(), e.to_string())
                .field_opt(e.field()),
        }
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
    let code = ErrorCode::for_bare_status(status.as_u16()).as_str();
    let replacement = ApiError::with_status(status, code, &message).into_response();
    parts.headers.remove(header::CONTENT_LENGTH);
    parts.headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    Response::from_parts(parts, replacement.into_body())
}

pub(crate) async fn not_found() -> Response {
    ApiError::new(ErrorCode::NotFound, "no such route").into_response()
}

pub(crate) async fn method_not_allowed() -> Response {
    ApiError::new(
        ErrorCode::MethodNotAllowed,
        "this route does not accept that method",
    )
    .into_response()
}
