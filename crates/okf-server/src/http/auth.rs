//! Bearer tokens on every route (only when the registry declares `[auth]`): the caller a
//! valid token makes, the 401 an invalid one gets, and the protected-resource metadata
//! (RFC 9728) MCP clients discover the authorization server from.

use super::AppState;
use super::error::ApiError;
use crate::auth::{Caller, Failure};
use axum::extract::{FromRequestParts, Request, State};
use axum::http::request::Parts;
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use okf_api::error::{BearerError, ErrorCode};
use serde_json::json;
use std::convert::Infallible;

impl<S: Send + Sync> FromRequestParts<S> for Caller {
    type Rejection = Infallible;

    /// The caller [`authenticate`] found; anonymous when the registry has no `[auth]`.
    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        Ok(parts
            .extensions
            .get::<Caller>()
            .cloned()
            .unwrap_or_default())
    }
}

/// Why a request's credentials were refused before any handler ran.
enum Refused {
    /// An `Authorization` header that is not one `Bearer` token.
    NotBearer,
    /// A bearer token that failed a check.
    Token(Failure),
    /// No token on an MCP request, where the registry requires one.
    Missing,
}

impl Refused {
    fn label(&self) -> &'static str {
        match self {
            Refused::NotBearer => "not_bearer",
            Refused::Token(f) => f.label(),
            Refused::Missing => ErrorCode::MissingToken.as_str(),
        }
    }
}

/// Checks the bearer token, if any, and passes the request on with its [`Caller`]; without
/// `[auth]` in the registry it does nothing (the `Authorization` header is ignored, as before).
pub(crate) async fn authenticate(
    State(state): State<AppState>,
    mut request: Request,
    next: Next,
) -> Response {
    let registry = state.service.registry();
    let Some(verifier) = registry.auth.clone() else {
        return next.run(request).await;
    };
    let metadata_url = verifier.config().metadata_url();
    let is_mcp = request.uri().path() == "/mcp";
    // A second Authorization header was refused by the framing guard.
    let header_value = request.headers().get(header::AUTHORIZATION).cloned();
    let outcome = match header_value {
        None if is_mcp && verifier.config().mcp_requires_token => Err(Refused::Missing),
        None => Ok(Caller::anonymous()),
        Some(value) => match bearer(&value) {
            None => Err(Refused::NotBearer),
            // The first token of an issuer may wait for one fetch of its keys (async,
            // time-bounded, shared by every request that needs them).
            Some(token) => match verifier.verify(token).await {
                Ok(grant) => Ok(Caller { grant: Some(grant) }),
                Err(failure) => Err(Refused::Token(failure)),
            },
        },
    };
    match outcome {
        Ok(caller) => {
            request.extensions_mut().insert(caller);
            let mut response = next.run(request).await;
            add_resource_metadata(&mut response, &metadata_url);
            response
        }
        Err(refused) => {
            state.service.ops().metrics.auth_failed(refused.label());
            unauthorized(&refused, &metadata_url, is_mcp)
        }
    }
}

/// The token of `Authorization: Bearer <token>` (the scheme is case-insensitive).
fn bearer(value: &HeaderValue) -> Option<&str> {
    let text = value.to_str().ok()?;
    let (scheme, token) = text.split_once(' ')?;
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty() && !token.contains(' '))
        .then_some(token)
}

/// 401 with the challenge RFC 6750 §3 and RFC 9728 §5.1 describe. The body never repeats the
/// token; on `/mcp` it is a JSON-RPC error object like every other error there.
fn unauthorized(refused: &Refused, metadata_url: &str, is_mcp: bool) -> Response {
    let (error, description) = match refused {
        Refused::Missing => (None, "this MCP endpoint needs a bearer token"),
        Refused::NotBearer => (
            Some(BearerError::InvalidRequest),
            "the Authorization header must be one Bearer token",
        ),
        Refused::Token(f) => (Some(BearerError::InvalidToken), f.description()),
    };
    let challenge = match error {
        Some(error) => format!(
            "Bearer error=\"{}\", error_description=\"{description}\", resource_metadata=\"{metadata_url}\"",
            error.as_str()
        ),
        None => format!("Bearer resource_metadata=\"{metadata_url}\""),
    };
    let code = error
        .map_or(ErrorCode::MissingToken, BearerError::code)
        .as_str();
    if !is_mcp {
        return ApiError::with_status(StatusCode::UNAUTHORIZED, code, description)
            .challenge(challenge)
            .into_response();
    }
    let body = json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32600, "message": format!("{code}: {description}")}});
    let mut response = (
        StatusCode::UNAUTHORIZED,
        [(header::CONTENT_TYPE, "application/json")],
        body.to_string(),
    )
        .into_response();
    if let Ok(value) = HeaderValue::from_str(&challenge) {
        response
            .headers_mut()
            .insert(header::WWW_AUTHENTICATE, value);
    }
    response
}

/// Names the resource metadata in a challenge a handler wrote (403 `insufficient_scope`).
fn add_resource_metadata(response: &mut Response, metadata_url: &str) {
    let Some(challenge) = response
        .headers()
        .get(header::WWW_AUTHENTICATE)
        .and_then(|v| v.to_str().ok())
        .filter(|c| !c.contains("resource_metadata="))
        .map(str::to_owned)
    else {
        return;
    };
    if let Ok(value) = HeaderValue::from_str(&format!(
        "{challenge}, resource_metadata=\"{metadata_url}\""
    )) {
        response
            .headers_mut()
            .insert(header::WWW_AUTHENTICATE, value);
    }
}

/// `GET /.well-known/oauth-protected-resource[/<path>]`: the protected-resource metadata at
/// the URL challenges advertise (the well-known path inserted before the resource's path,
/// RFC 9728 §3.1), at the bare well-known path and under `/mcp` (where clients of this
/// server's endpoint look); 404 for any other path, or when the registry declares no `[auth]`.
pub(crate) async fn resource_metadata(
    State(state): State<AppState>,
    uri: axum::http::Uri,
) -> Response {
    let registry = state.service.registry();
    let Some(verifier) = registry.auth.as_ref() else {
        return super::error::not_found().await;
    };
    let config = verifier.config();
    let advertised = config.metadata_url();
    let asked = uri.path();
    if !(asked == "/.well-known/oauth-protected-resource"
        || asked == "/.well-known/oauth-protected-resource/mcp"
        || advertised.ends_with(asked))
    {
        return super::error::not_found().await;
    }
    let servers: Vec<&str> = config.issuers.iter().map(|i| i.issuer.as_str()).collect();
    let body = json!({
        "resource": config.resource,
        "authorization_servers": servers,
        "scopes_supported": config.scopes,
        "bearer_methods_supported": ["header"],
        "resource_name": "Ask OKF",
    });
    (
        StatusCode::OK,
        [(header::CONTENT_TYPE, "application/json")],
        body.to_string(),
    )
        .into_response()
}
