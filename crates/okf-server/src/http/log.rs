//! Security headers on every response and one log line per request; request-controlled
//! values are escaped before they reach the log.

use super::LogFields;
use super::error::ensure_json_error;
use axum::extract::Request;
use axum::http::{HeaderValue, header};
use axum::middleware::Next;
use axum::response::Response;
use std::time::Instant;

/// Longest text of one log field; longer values are cut (and marked).
const MAX_LOG_FIELD_CHARS: usize = 128;

/// A request-controlled value made safe for a log line: control characters, quotes and
/// backslashes escaped (so no value can end a line or forge a field), at most
/// [`MAX_LOG_FIELD_CHARS`] characters.
fn log_safe(value: &str) -> String {
    let mut out = String::with_capacity(value.len().min(MAX_LOG_FIELD_CHARS + 8));
    for (n, c) in value.chars().enumerate() {
        if n == MAX_LOG_FIELD_CHARS {
            out.push_str("...");
            break;
        }
        if c.is_control() || c == '"' || c == '\\' || is_invisible_format(c) {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// Characters that change how a line reads without showing themselves: bidirectional
/// controls (U+202A-U+202E, U+2066-U+2069, U+200E/U+200F, U+061C), zero-width and line or
/// paragraph separators, the byte-order mark. Escaped in log fields so a logged path cannot
/// reorder or hide what an operator reads.
fn is_invisible_format(c: char) -> bool {
    matches!(c, '\u{061C}' | '\u{200B}'..='\u{200F}' | '\u{2028}'..='\u{202E}' | '\u{2060}'..='\u{2069}' | '\u{FEFF}')
}

/// Security headers on every response, and one log line per request (never the question).
pub(crate) async fn headers_and_log(request: Request, next: Next) -> Response {
    let started = Instant::now();
    let method = request.method().clone();
    let route = request.uri().path().to_owned();
    let mut response = ensure_json_error(next.run(request).await);
    let headers = response.headers_mut();
    // Nothing is cached unless its handler says so (the page's versioned assets).
    headers
        .entry(header::CACHE_CONTROL)
        .or_insert(HeaderValue::from_static("no-store"));
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    let fields = response
        .extensions()
        .get::<LogFields>()
        .cloned()
        .unwrap_or_default();
    // Context ids are not secret, but keep the logged route to its template.
    let route = if route.starts_with("/api/context/") {
        "/api/context/{id}".to_owned()
    } else {
        log_safe(&route)
    };
    tracing::info!(
        target: "okf::http",
        method = %log_safe(method.as_str()),
        route = %route,
        bundle = %fields.bundle.as_deref().map_or_else(|| "-".to_owned(), log_safe),
        status = response.status().as_u16(),
        evidence_status = %fields.evidence_status.unwrap_or("-"),
        context_id = %fields.context_id.as_deref().unwrap_or("-"),
        duration_us = u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX),
    );
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_fields_are_escaped_and_truncated() {
        let forged = "a\n2026 INFO okf::http: forged\u{0}\"x\\";
        let safe = log_safe(forged);
        assert!(!safe.chars().any(char::is_control), "{safe}");
        assert!(safe.contains("\\n") && safe.contains("\\u{0}") && safe.contains("\\\""));
        let long = log_safe(&"p".repeat(65_000));
        assert_eq!(long.len(), MAX_LOG_FIELD_CHARS + 3);
    }

    #[test]
    fn bidirectional_and_invisible_characters_are_escaped_in_log_fields() {
        let safe = log_safe("/api/\u{202E}txt.exe\u{200B}\u{2066}x");
        assert!(
            !safe.contains('\u{202E}') && !safe.contains('\u{200B}') && !safe.contains('\u{2066}')
        );
        assert!(safe.contains("\\u{202e}"), "{safe}");
        assert_eq!(log_safe("café"), "café");
    }
}
