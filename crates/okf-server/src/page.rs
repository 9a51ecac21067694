//! The web page for people at `/`: plain HTML, CSS and ES modules from the top-level `web/`
//! directory, embedded in the binary and served under a strict Content-Security-Policy. The
//! page uses only the HTTP API (`/api/ask`, `/api/context/{id}`, `/api/bundles`), or the
//! engine itself as WebAssembly (`/assets/okf.wasm`) over the read-only index route, so it
//! shows the same package bytes as `okf ask` either way.

use axum::Router;
use axum::extract::Path;
use axum::http::{HeaderName, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;

/// The policy every page response carries: only this origin's scripts, styles and
/// connections; no inline code, no frames, no other origins. `'wasm-unsafe-eval'` lets the
/// page compile its own WebAssembly module (still only from this origin); nothing wider.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; img-src 'self' data:; \
     connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

const HTML: &str = "text/html; charset=utf-8";
const JS: &str = "text/javascript; charset=utf-8";
const CSS: &str = "text/css; charset=utf-8";
const SVG: &str = "image/svg+xml";
const WASM: &str = "application/wasm";

/// The page itself.
const INDEX: &str = include_str!("../../../web/index.html");
/// The evidence workbench page (`/evidence/`).
const EVIDENCE: &str = include_str!("../../../web/evidence.html");

/// The engine as a WebAssembly module (`crates/okf-wasm`, built by `scripts/build-wasm`).
pub const WASM_MODULE: &[u8] = include_bytes!("../../../web/okf.wasm");

/// Static assets under `/assets/{name}`: name, content type, bytes.
pub const ASSETS: [(&str, &str, &str); 15] = [
    ("app.js", JS, include_str!("../../../web/app.js")),
    ("api.js", JS, include_str!("../../../web/api.js")),
    ("dom.js", JS, include_str!("../../../web/dom.js")),
    ("graph.js", JS, include_str!("../../../web/graph.js")),
    ("render.js", JS, include_str!("../../../web/render.js")),
    ("contract.js", JS, include_str!("../../../web/contract.js")),
    ("validate.js", JS, include_str!("../../../web/validate.js")),
    ("webmcp.js", JS, include_str!("../../../web/webmcp.js")),
    ("local.js", JS, include_str!("../../../web/local.js")),
    ("wasm.js", JS, include_str!("../../../web/wasm.js")),
    ("style.css", CSS, include_str!("../../../web/style.css")),
    ("icon.svg", SVG, include_str!("../../../web/icon.svg")),
    ("evidence.js", JS, include_str!("../../../web/evidence.js")),
    (
        "workbench.js",
        JS,
        include_str!("../../../web/workbench.js"),
    ),
    ("views.js", JS, include_str!("../../../web/views.js")),
];

/// The routes of the page, to be merged into the main router (its layers add no-store,
/// nosniff and no-referrer).
pub(crate) fn routes<S: Clone + Send + Sync + 'static>() -> Router<S> {
    Router::new()
        .route("/", get(index))
        .route("/evidence/", get(evidence))
        .route("/assets/{name}", get(asset))
}

fn page_response(content_type: &'static str, body: &'static [u8]) -> Response {
    (
        [
            (header::CONTENT_TYPE, HeaderValue::from_static(content_type)),
            (
                header::CONTENT_SECURITY_POLICY,
                HeaderValue::from_static(CONTENT_SECURITY_POLICY),
            ),
            (header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY")),
            // Origin-keyed agent cluster, which WebMCP's registerTool requires.
            (
                HeaderName::from_static("origin-agent-cluster"),
                HeaderValue::from_static("?1"),
            ),
            (
                HeaderName::from_static("cross-origin-opener-policy"),
                HeaderValue::from_static("same-origin"),
            ),
        ],
        body,
    )
        .into_response()
}

async fn index() -> Response {
    page_response(HTML, INDEX.as_bytes())
}

async fn evidence() -> Response {
    page_response(HTML, EVIDENCE.as_bytes())
}

/// Whether `path` is one of the page's own resources (the two pages and their assets), served
/// from memory.
pub(crate) fn is_page_path(path: &str) -> bool {
    path == "/"
        || path == "/evidence/"
        || path
            .strip_prefix("/assets/")
            .is_some_and(|name| page_asset(name).is_some())
}

/// The content type and bytes of the asset served as `/assets/{name}`.
fn page_asset(name: &str) -> Option<(&'static str, &'static [u8])> {
    if name == "okf.wasm" {
        return Some((WASM, WASM_MODULE));
    }
    ASSETS
        .iter()
        .find(|(n, _, _)| *n == name)
        .map(|(_, content_type, body)| (*content_type, body.as_bytes()))
}

async fn asset(Path(name): Path<String>) -> Response {
    match page_asset(&name) {
        Some((content_type, body)) => page_response(content_type, body),
        None => {
            let mut response = (StatusCode::NOT_FOUND, "no such asset").into_response();
            response.headers_mut().insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/plain; charset=utf-8"),
            );
            response.headers_mut().insert(
                header::CONTENT_SECURITY_POLICY,
                HeaderValue::from_static(CONTENT_SECURITY_POLICY),
            );
            response
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use crate::registry::Registry;
    use crate::service::{CacheLimits, Service};
    use crate::{HttpConfig, router};
    use axum::body::{Body, to_bytes};
    use axum::http::Request;
    use std::sync::Arc;
    use tower::ServiceExt;

    async fn get(path: &str) -> Response {
        let app = router(
            Arc::new(Service::new(Registry::default(), CacheLimits::default())),
            HttpConfig::loopback(8080),
        );
        let request = Request::get(path)
            .header(header::HOST, "127.0.0.1:8080")
            .body(Body::empty())
            .unwrap();
        app.oneshot(request).await.unwrap()
    }

    fn header_of<'r>(response: &'r Response, name: &str) -> &'r str {
        response
            .headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
    }

    #[tokio::test]
    async fn page_and_assets_are_served_with_csp_and_content_types() {
        let mut cases = vec![
            ("/".to_owned(), HTML, INDEX.as_bytes()),
            ("/evidence/".to_owned(), HTML, EVIDENCE.as_bytes()),
            ("/assets/okf.wasm".to_owned(), WASM, WASM_MODULE),
        ];
        cases.extend(ASSETS.iter().map(|(name, content_type, body)| {
            (format!("/assets/{name}"), *content_type, body.as_bytes())
        }));
        for (path, content_type, body) in cases {
            let response = get(&path).await;
            assert_eq!(response.status(), StatusCode::OK, "{path}");
            assert_eq!(header_of(&response, "content-type"), content_type, "{path}");
            assert_eq!(
                header_of(&response, "content-security-policy"),
                CONTENT_SECURITY_POLICY,
                "{path}"
            );
            assert_eq!(
                header_of(&response, "x-content-type-options"),
                "nosniff",
                "{path}"
            );
            assert_eq!(header_of(&response, "cache-control"), "no-store", "{path}");
            assert_eq!(
                header_of(&response, "referrer-policy"),
                "no-referrer",
                "{path}"
            );
            assert_eq!(header_of(&response, "x-frame-options"), "DENY", "{path}");
            let bytes = to_bytes(response.into_body(), 4 << 20).await.unwrap();
            assert_eq!(&bytes[..], body, "{path}");
        }
        let missing = get("/assets/nope.js").await;
        assert_eq!(missing.status(), StatusCode::NOT_FOUND);
        let traversal = get("/assets/..%2Fweb%2Findex.html").await;
        assert_eq!(traversal.status(), StatusCode::NOT_FOUND);
    }

    #[test]
    fn csp_allows_webassembly_compilation_and_nothing_wider() {
        let directives: Vec<&str> = CONTENT_SECURITY_POLICY.split("; ").collect();
        assert!(directives.contains(&"script-src 'self' 'wasm-unsafe-eval'"));
        assert!(!CONTENT_SECURITY_POLICY.contains("'unsafe-eval'"));
        assert!(!CONTENT_SECURITY_POLICY.contains("'unsafe-inline'"));
        assert!(directives.contains(&"default-src 'none'"));
        assert!(directives.contains(&"connect-src 'self'"));
    }

    #[test]
    fn the_embedded_module_is_webassembly_exporting_the_page_interface() {
        assert_eq!(&WASM_MODULE[..8], b"\0asm\x01\0\0\0");
        for export in [
            "okf_input",
            "okf_load_index",
            "okf_ask",
            "okf_output_ptr",
            "okf_output_len",
        ] {
            assert!(
                WASM_MODULE
                    .windows(export.len())
                    .any(|w| w == export.as_bytes()),
                "{export}"
            );
        }
    }

    #[test]
    fn the_page_has_no_inline_script_style_or_external_origin() {
        let lower = INDEX.to_ascii_lowercase();
        assert!(!lower.contains("<style"), "no inline style element");
        assert!(!lower.contains(" style="), "no style attributes");
        let inline_handler = lower.match_indices(" on").any(|(i, _)| {
            let rest = &lower[i + 3..];
            let name_len = rest.bytes().take_while(u8::is_ascii_lowercase).count();
            rest[name_len..].starts_with('=')
        });
        assert!(!inline_handler, "no inline event handlers");
        for (i, _) in lower.match_indices("<script") {
            let tag = &lower[i..i + lower[i..].find('>').unwrap()];
            assert!(
                tag.contains("src=\"/assets/"),
                "every script is an embedded asset: {tag}"
            );
        }
        assert!(
            !lower.contains("http://") && !lower.contains("https://") && !lower.contains("//cdn"),
            "no external origin"
        );
        for (name, _, body) in ASSETS {
            if name.ends_with(".js") {
                assert!(
                    !body.contains("innerHTML")
                        && !body.contains("outerHTML")
                        && !body.contains("insertAdjacentHTML"),
                    "{name}"
                );
                assert!(
                    !body.contains("eval(") && !body.contains("new Function"),
                    "{name}"
                );
                assert!(!body.contains("document.write"), "{name}");
            }
        }
    }
}
