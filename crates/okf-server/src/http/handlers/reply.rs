//! Package responses: the retained package bytes, compressed once per package and coding
//! when the client accepts it.

use crate::http::AppState;
use axum::body::Body;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use okf_api::error::ErrorCode;
use std::sync::Arc;

/// The package bytes, shared with the cache rather than copied.
struct PackageBytes(Arc<okf_engine::Assembled>);

impl AsRef<[u8]> for PackageBytes {
    fn as_ref(&self) -> &[u8] {
        self.0.json.as_bytes()
    }
}

fn package_response(package: Arc<okf_engine::Assembled>) -> Response {
    let body = Body::from(bytes::Bytes::from_owner(PackageBytes(package)));
    ([(header::CONTENT_TYPE, "application/json")], body).into_response()
}

/// A package response in the coding the client accepts (identity when it accepts none, or
/// the package is small, or compressing failed), compressed once per package and coding.
pub(crate) async fn package_reply(
    state: &AppState,
    coding: Option<crate::compression::Coding>,
    package: Arc<okf_engine::Assembled>,
) -> Response {
    use crate::compression::{Level, MIN_COMPRESSED_BYTES, content_encoding};
    let vary = |mut response: Response| {
        response
            .headers_mut()
            .insert(header::VARY, HeaderValue::from_static("accept-encoding"));
        response
    };
    let Some(coding) = coding.filter(|_| package.json.len() >= MIN_COMPRESSED_BYTES) else {
        return vary(package_response(package));
    };
    // A repeat is a lookup; only a first compression goes to a blocking thread, and its body
    // is kept with the package while the package is retained.
    let store = Arc::clone(state.service.retained());
    let entry = store.get(&package.context_id);
    let compressed = match entry.as_ref().and_then(|e| e.compressed(coding)) {
        Some(body) => Ok(Ok((body, false))),
        None => {
            let json = Arc::clone(&package);
            tokio::task::spawn_blocking(move || {
                let body = bytes::Bytes::from(coding.encode(json.json.as_bytes(), Level::Fast)?);
                if let Some(entry) = entry {
                    entry.keep_compressed(coding, &body, &store);
                }
                Ok::<_, std::io::Error>((body, true))
            })
            .await
        }
    };
    match compressed {
        Ok(Ok((body, fresh))) => {
            if fresh {
                state
                    .service
                    .ops()
                    .metrics
                    .package_compressed(coding.token());
            }
            vary(
                (
                    [
                        (
                            header::CONTENT_TYPE,
                            HeaderValue::from_static("application/json"),
                        ),
                        (header::CONTENT_ENCODING, content_encoding(coding)),
                    ],
                    Body::from(body),
                )
                    .into_response(),
            )
        }
        _ => vary(package_response(package)),
    }
}

/// Whether the request's `Accept` prefers the evidence brief (`text/markdown`, or `text/*`)
/// to the package JSON: a strictly higher quality value; a tie or no `Accept` is JSON.
pub(crate) fn wants_brief(headers: &axum::http::HeaderMap) -> bool {
    let ranges: Vec<(String, u16)> = headers
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|item| {
            let mut parts = item.split(';');
            let range = parts.next().unwrap_or("").trim().to_ascii_lowercase();
            let q = parts
                .find_map(|p| p.trim().strip_prefix("q="))
                .map_or(Some(1000), crate::compression::parse_q)
                .unwrap_or(0);
            (range, q)
        })
        .collect();
    let quality = |names: &[&str]| {
        names
            .iter()
            .find_map(|name| ranges.iter().find(|(r, _)| r == name).map(|(_, q)| *q))
            .unwrap_or(0)
    };
    quality(&["text/markdown", "text/*", "*/*"])
        > quality(&["application/json", "application/*", "*/*"])
}

/// A package's evidence brief (`okf-brief`, default budget) as `text/markdown`, kept with the
/// package while it is retained.
pub(crate) async fn brief_reply(state: &AppState, package: Arc<okf_engine::Assembled>) -> Response {
    let store = Arc::clone(state.service.retained());
    let rendered = tokio::task::spawn_blocking(move || store.brief(&package)).await;
    match rendered {
        Ok(Ok(brief)) => (
            [(
                header::CONTENT_TYPE,
                HeaderValue::from_static(okf_brief::MEDIA_TYPE),
            )],
            brief.to_string(),
        )
            .into_response(),
        _ => crate::http::error::ApiError::new(
            ErrorCode::Internal,
            "the evidence brief could not be rendered",
        )
        .into_response(),
    }
}

pub(crate) fn json_response(text: String) -> Response {
    ([(header::CONTENT_TYPE, "application/json")], text).into_response()
}
