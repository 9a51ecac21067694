//! Checks on a request before anything reads its body: framing and sizes hyper leaves to the
//! application, the Host and Origin allow-lists, and the content type of POST bodies.

use super::AppState;
use super::error::ApiError;
use axum::extract::{Request, State};
use axum::http::{Method, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use okf_api::error::ErrorCode;

/// The host name of a `Host` header value (`host` or `host:port`, IPv6 in brackets), or
/// `None` when the port is not a number in 1..=65535 or anything follows the name.
fn host_name(host: &str) -> Option<&str> {
    let (name, port) = if host.starts_with('[') {
        let end = host.find(']')?;
        let rest = &host[end + 1..];
        let port = if rest.is_empty() {
            None
        } else {
            Some(rest.strip_prefix(':')?)
        };
        (&host[..=end], port)
    } else {
        match host.split_once(':') {
            Some((name, port)) => (name, Some(port)),
            None => (host, None),
        }
    };
    let port_ok = port.is_none_or(|p| {
        !p.is_empty()
            && p.len() <= 5
            && p.bytes().all(|b| b.is_ascii_digit())
            && p.parse::<u16>().is_ok_and(|n| n > 0)
    });
    (port_ok && !name.is_empty()).then_some(name)
}

/// Framing and size checks hyper leaves to the application: one `Host` and at most one
/// `Origin` (a second copy would be checked by nobody), `Transfer-Encoding` only as plain
/// `chunked` (501 otherwise: no other coding is decoded here), a bounded request target and
/// header block (a JSON 414/431 below hyper's own hard limits).
pub(crate) async fn framing_guard(
    State(state): State<AppState>,
    request: Request,
    next: Next,
) -> Response {
    let headers = request.headers();
    // Two credentials are as ambiguous as two hosts: which would the request act under?
    for (name, field) in [
        (header::HOST, "Host"),
        (header::ORIGIN, "Origin"),
        (header::AUTHORIZATION, "Authorization"),
    ] {
        if headers.get_all(&name).iter().count() > 1 {
            return ApiError::new(
                ErrorCode::DuplicateHeader,
                format!("the {field} header must appear at most once"),
            )
            .on(field)
            .into_response();
        }
    }
    // Refused before any work is done: a package built for a client that accepts none of the
    // codings it could be sent in would only be thrown away.
    if !crate::compression::something_acceptable(headers) {
        return ApiError::new(
            ErrorCode::NotAcceptable,
            "Accept-Encoding refuses identity and every coding this server writes (zstd, br, gzip)",
        )
        .on("Accept-Encoding")
        .into_response();
    }
    let codings: Vec<_> = headers.get_all(header::TRANSFER_ENCODING).iter().collect();
    let plain_chunked = match codings.as_slice() {
        [] => true,
        [one] => one
            .to_str()
            .is_ok_and(|v| v.trim().eq_ignore_ascii_case("chunked")),
        _ => false,
    };
    if !plain_chunked {
        return ApiError::new(
            ErrorCode::TransferCodingNotImplemented,
            "only the chunked transfer coding is accepted",
        )
        .on("Transfer-Encoding")
        .into_response();
    }
    // An origin server answers origin-form targets only: `GET http://other.example/…`
    // (absolute form) is a proxy request, whatever the Host header says.
    if request.uri().scheme().is_some() || request.uri().authority().is_some() {
        return ApiError::new(
            ErrorCode::AbsoluteTarget,
            "the request target must be a path (origin form), not an absolute URL",
        )
        .into_response();
    }
    let target = request
        .uri()
        .path_and_query()
        .map_or(0, |p| p.as_str().len());
    if target > state.config.max_uri_bytes {
        return ApiError::new(
            ErrorCode::UriTooLong,
            format!(
                "the request target is over {} bytes",
                state.config.max_uri_bytes
            ),
        )
        .into_response();
    }
    let header_bytes: usize = headers
        .iter()
        .map(|(k, v)| k.as_str().len() + v.len())
        .sum();
    if header_bytes > state.config.max_header_bytes {
        return ApiError::new(
            ErrorCode::HeadersTooLarge,
            format!(
                "the request headers are over {} bytes",
                state.config.max_header_bytes
            ),
        )
        .into_response();
    }
    next.run(request).await
}

/// Host and Origin allow-lists (DNS-rebinding and cross-site protection).
pub(crate) async fn origin_guard(
    State(state): State<AppState>,
    request: Request,
    next: Next,
) -> Response {
    let headers = request.headers();
    let host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .and_then(host_name);
    let host_ok = host.is_some_and(|h| {
        state
            .config
            .allowed_hosts
            .iter()
            .any(|a| a.eq_ignore_ascii_case(h))
    });
    if !host_ok {
        return ApiError::new(
            ErrorCode::HostNotAllowed,
            "the Host header is not on this server's allow-list",
        )
        .on("Host")
        .into_response();
    }
    if let Some(origin) = headers.get(header::ORIGIN) {
        let allowed = origin
            .to_str()
            .is_ok_and(|o| state.config.allowed_origins.iter().any(|a| a == o));
        if !allowed {
            return ApiError::new(
                ErrorCode::OriginNotAllowed,
                "the Origin is not on this server's allow-list",
            )
            .on("Origin")
            .into_response();
        }
    }
    next.run(request).await
}

/// Whether a `Content-Type` value is `application/json` with no parameter other than
/// `charset=utf-8` (JSON is UTF-8, RFC 8259 §8.1; any other declared charset is refused
/// rather than silently read as UTF-8).
fn is_utf8_json(value: &str) -> bool {
    let mut parts = value.split(';');
    let media_ok = parts
        .next()
        .is_some_and(|m| m.trim().eq_ignore_ascii_case("application/json"));
    media_ok
        && parts.all(|p| {
            let (name, val) = p.split_once('=').unwrap_or((p, ""));
            name.trim().eq_ignore_ascii_case("charset")
                && val.trim().trim_matches('"').eq_ignore_ascii_case("utf-8")
        })
}

/// POST bodies must be JSON; everything else is refused before a handler reads it.
pub(crate) async fn content_type_guard(
    State(state): State<AppState>,
    request: Request,
    next: Next,
) -> Response {
    if request.method() == Method::POST {
        let is_json = request
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(is_utf8_json);
        if !is_json {
            return ApiError::new(
                ErrorCode::UnsupportedMediaType,
                "the body must be application/json (charset, if given, utf-8)",
            )
            .on("Content-Type")
            .into_response();
        }
        // `identity` names no coding at all (RFC 9110 §8.4.1), so it is the body as sent.
        let encoded = request
            .headers()
            .get_all(header::CONTENT_ENCODING)
            .iter()
            .flat_map(|v| v.to_str().unwrap_or("?").split(','))
            .any(|coding| !coding.trim().eq_ignore_ascii_case("identity"));
        if encoded {
            return ApiError::new(
                ErrorCode::UnsupportedMediaType,
                "encoded bodies are not accepted",
            )
            .on("Content-Encoding")
            .into_response();
        }
        let declared = request
            .headers()
            .get(header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<usize>().ok());
        if declared.is_some_and(|n| n > state.config.max_body_bytes) {
            return ApiError::new(
                ErrorCode::BodyTooLarge,
                "the request body is over the limit",
            )
            .on("body")
            .into_response();
        }
    }
    next.run(request).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_content_types() {
        for ok in [
            "application/json",
            "Application/JSON",
            "application/json; charset=utf-8",
            "application/json;charset=\"UTF-8\"",
        ] {
            assert!(is_utf8_json(ok), "{ok}");
        }
        for bad in [
            "application/json; charset=iso-8859-1",
            "application/json; charset=utf-16",
            "application/json; boundary=x",
            "text/json",
            "application/jsonx",
        ] {
            assert!(!is_utf8_json(bad), "{bad}");
        }
    }

    #[test]
    fn host_names_and_ports() {
        assert_eq!(host_name("localhost"), Some("localhost"));
        assert_eq!(host_name("127.0.0.1:8080"), Some("127.0.0.1"));
        assert_eq!(host_name("[::1]:65535"), Some("[::1]"));
        assert_eq!(host_name("[::1]"), Some("[::1]"));
        for bad in [
            "127.0.0.1:80@attacker.example",
            "127.0.0.1:0",
            "127.0.0.1:65536",
            "127.0.0.1:",
            "127.0.0.1:+80",
            ":80",
            "[::1]x",
            "[::1",
        ] {
            assert_eq!(host_name(bad), None, "{bad}");
        }
    }
}
