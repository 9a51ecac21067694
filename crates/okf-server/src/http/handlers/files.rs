//! Read-only files: the published schemas, an index's public bytes with its binding, and the
//! files an admitted workbench manifest lists.

use super::reply::json_response;
use crate::auth::Caller;
use crate::http::error::ApiError;
use crate::http::{AppState, LogFields};
use crate::schemas;
use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use okf_api::error::ErrorCode;

pub(crate) async fn workbenches(State(state): State<AppState>, caller: Caller) -> Response {
    let registry = state.service.registry_for(&caller);
    json_response(crate::workbench::listing(&registry.workbenches).to_string())
}

/// A file an admitted workbench manifest lists (or the manifest itself), read-only.
pub(crate) async fn workbench_file(
    State(state): State<AppState>,
    Path((id, path)): Path<(String, String)>,
    caller: Caller,
) -> Result<Response, ApiError> {
    use crate::workbench::FileError;
    let registry = state.service.registry_for(&caller);
    let bytes =
        crate::workbench::read_file(&registry.workbenches, &id, &path).map_err(|e| match e {
            FileError::NotListed(m) | FileError::Absent(m) => {
                ApiError::new(ErrorCode::NotFound, m).on("path")
            }
            // Never the bytes: what is on disk is not what the manifest admitted.
            FileError::Unverified(m) => {
                ApiError::new(ErrorCode::WorkbenchFileUnverified, m).on("path")
            }
        })?;
    Ok(([(header::CONTENT_TYPE, "application/json")], bytes).into_response())
}

pub(crate) async fn schema(Path(name): Path<String>) -> Result<Response, ApiError> {
    let text =
        schemas::text(&name).ok_or_else(|| ApiError::new(ErrorCode::NotFound, "no such schema"))?;
    Ok(([(header::CONTENT_TYPE, "application/schema+json")], text).into_response())
}

/// Header naming the binding URL the server records for a served index.
const BINDING_URL_HEADER: &str = "okf-binding-url";

/// Header naming the binding digest the server records for a served index.
const BINDING_SHA256_HEADER: &str = "okf-binding-sha256";

/// Header naming the SHA-256 of the index bytes served (the file's own digest, or that of its
/// public projection when the version holds restricted records).
const INDEX_SHA256_HEADER: &str = "okf-index-sha256";

/// The public bytes of an allow-listed index (read-only: the verified file, or its public
/// projection when it holds restricted records), with the binding the server records in its
/// packages, so the page can assemble the same package locally.
pub(crate) async fn index_file(
    State(state): State<AppState>,
    Path((bundle, version)): Path<(String, String)>,
    caller: Caller,
) -> Response {
    let (_, loaded) = match state.service.index_file(&bundle, Some(&version), &caller) {
        Ok(found) => found,
        Err(e) => return ApiError::from(&e).into_response(),
    };
    let (Ok(url), Ok(sha), Ok(served_sha)) = (
        HeaderValue::from_str(&loaded.binding.index_url),
        HeaderValue::from_str(&loaded.binding.index_sha256),
        HeaderValue::from_str(&loaded.public_sha256),
    ) else {
        return ApiError::new(
            ErrorCode::Internal,
            "the binding cannot be sent as a header",
        )
        .into_response();
    };
    let mut response = (
        [(header::CONTENT_TYPE, "application/json")],
        Body::from(loaded.public_bytes.clone()),
    )
        .into_response();
    let headers = response.headers_mut();
    headers.insert(BINDING_URL_HEADER, url);
    headers.insert(BINDING_SHA256_HEADER, sha);
    headers.insert(INDEX_SHA256_HEADER, served_sha);
    response.extensions_mut().insert(LogFields {
        bundle: Some(bundle),
        ..LogFields::default()
    });
    response
}
