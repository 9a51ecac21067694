//! The web page for people at `/`: plain HTML, CSS and ES modules from the top-level `web/`
//! directory, embedded in the binary and served under a strict Content-Security-Policy. The
//! page uses only the HTTP API (`/api/ask`, `/api/context/{id}`, `/api/bundles`), or the
//! engine itself as WebAssembly (`/assets/okf.wasm`) over the read-only index route, so it
//! shows the same package bytes as `okf ask` either way.

use crate::compression::{Coding, Level, negotiate_among};
use axum::Router;
use axum::extract::Path;
use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use bytes::Bytes;
use okf_engine::canonical::sha256_hex;
use std::sync::OnceLock;

/// The policy every page response carries: only this origin's scripts, styles and
/// connections; no inline code, no frames, no other origins. `'wasm-unsafe-eval'` lets the
/// page compile its own WebAssembly module (still only from this origin); nothing wider.
pub(crate) const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; img-src 'self' data:; \
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
pub(crate) const WASM_MODULE: &[u8] = include_bytes!("../../../web/okf.wasm");

/// A file the pages load from `/assets/`.
pub(crate) struct Asset {
    /// Its name under `/assets/`.
    pub(crate) name: &'static str,
    /// Its `Content-Type`.
    pub(crate) content_type: &'static str,
    /// Its bytes.
    pub(crate) body: &'static [u8],
    /// Its brotli and gzip forms when they are committed beside it (the module, whose best
    /// compression takes seconds); other assets are compressed the first time they are asked for.
    committed: Option<[&'static [u8]; 2]>,
    compressed: [OnceLock<Bytes>; 2],
}

impl Asset {
    const fn new(name: &'static str, content_type: &'static str, body: &'static str) -> Asset {
        Asset {
            name,
            content_type,
            body: body.as_bytes(),
            committed: None,
            compressed: [OnceLock::new(), OnceLock::new()],
        }
    }

    /// The asset in `coding` (brotli or gzip), or `None` when it cannot be compressed.
    fn encoded(&self, coding: Coding) -> Option<Bytes> {
        let slot = usize::from(coding == Coding::Gzip);
        if let Some(committed) = self.committed {
            return Some(Bytes::from_static(committed[slot]));
        }
        if let Some(done) = self.compressed[slot].get() {
            return Some(done.clone());
        }
        let bytes = Bytes::from(coding.encode(self.body, Level::Best).ok()?);
        Some(self.compressed[slot].get_or_init(|| bytes).clone())
    }
}

/// The codings assets are offered in, the server's preference first.
const ASSET_CODINGS: [Coding; 2] = [Coding::Br, Coding::Gzip];

/// Every asset of the two pages.
pub(crate) static ASSETS: [Asset; 19] = [
    Asset {
        name: "okf.wasm",
        content_type: WASM,
        body: WASM_MODULE,
        committed: Some([
            include_bytes!("../../../web/okf.wasm.br"),
            include_bytes!("../../../web/okf.wasm.gz"),
        ]),
        compressed: [OnceLock::new(), OnceLock::new()],
    },
    Asset::new("app.js", JS, include_str!("../../../web/app.js")),
    Asset::new("api.js", JS, include_str!("../../../web/api.js")),
    Asset::new("dom.js", JS, include_str!("../../../web/dom.js")),
    Asset::new("graph.js", JS, include_str!("../../../web/graph.js")),
    Asset::new("render.js", JS, include_str!("../../../web/render.js")),
    Asset::new("contract.js", JS, include_str!("../../../web/contract.js")),
    Asset::new("validate.js", JS, include_str!("../../../web/validate.js")),
    Asset::new("webmcp.js", JS, include_str!("../../../web/webmcp.js")),
    Asset::new("local.js", JS, include_str!("../../../web/local.js")),
    Asset::new("reviewer.js", JS, include_str!("../../../web/reviewer.js")),
    Asset::new("wasm.js", JS, include_str!("../../../web/wasm.js")),
    Asset::new("style.css", CSS, include_str!("../../../web/style.css")),
    Asset::new("icon.svg", SVG, include_str!("../../../web/icon.svg")),
    Asset::new("evidence.js", JS, include_str!("../../../web/evidence.js")),
    Asset::new(
        "workbench.js",
        JS,
        include_str!("../../../web/workbench.js"),
    ),
    Asset::new("views.js", JS, include_str!("../../../web/views.js")),
    // The MCP Apps view's entry and style sheet (inlined into ui://ask-okf/package-view.html
    // by mcp/apps.rs); served too, so the page's checks (no innerHTML, …) cover them.
    Asset::new("mcp-app.js", JS, include_str!("../../../web/mcp-app.js")),
    Asset::new("mcp-app.css", CSS, include_str!("../../../web/mcp-app.css")),
];

/// The version of the assets: 16 hex digits of SHA-256 over every asset's name and digest.
/// The pages load assets from `/assets/{version}/`, so a URL names fixed bytes and may be
/// cached for good; a change to any asset changes every URL (modules import each other by
/// relative path, so a changed module is never paired with a stale importer).
pub(crate) fn asset_version() -> &'static str {
    static VERSION: OnceLock<String> = OnceLock::new();
    VERSION.get_or_init(|| {
        let manifest: String = ASSETS
            .iter()
            .map(|a| format!("{}\0{}\n", a.name, sha256_hex(a.body)))
            .collect();
        sha256_hex(manifest.as_bytes())[..16].to_owned()
    })
}

/// A page's HTML with its asset URLs pointing at this version's directory.
fn versioned_html(html: &'static str, cell: &'static OnceLock<String>) -> &'static str {
    cell.get_or_init(|| html.replace("\"/assets/", &format!("\"/assets/{}/", asset_version())))
}

/// The routes of the page, to be merged into the main router (its layers add no-store,
/// nosniff and no-referrer, unless a response states its own caching).
pub(crate) fn routes<S: Clone + Send + Sync + 'static>() -> Router<S> {
    Router::new()
        .route("/", get(index))
        .route("/evidence/", get(evidence))
        .route("/assets/{name}", get(unversioned_asset))
        .route("/assets/{version}/{name}", get(versioned_asset))
}

fn page_response(content_type: &'static str, body: impl IntoResponse) -> Response {
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
    static HTML_CELL: OnceLock<String> = OnceLock::new();
    page_response(HTML, versioned_html(INDEX, &HTML_CELL))
}

async fn evidence() -> Response {
    static HTML_CELL: OnceLock<String> = OnceLock::new();
    page_response(HTML, versioned_html(EVIDENCE, &HTML_CELL))
}

/// Whether `path` is one of the page's own resources (the two pages and their assets), served
/// from memory.
pub(crate) fn is_page_path(path: &str) -> bool {
    let Some(rest) = path.strip_prefix("/assets/") else {
        return path == "/" || path == "/evidence/";
    };
    let name = match rest.split_once('/') {
        Some((version, name)) if version == asset_version() => name,
        Some(_) => return false,
        None => rest,
    };
    page_asset(name).is_some()
}

/// The asset served as `/assets/{name}`.
fn page_asset(name: &str) -> Option<&'static Asset> {
    ASSETS.iter().find(|a| a.name == name)
}

/// An asset by its bare name: the current bytes, never cached (for links from outside).
async fn unversioned_asset(Path(name): Path<String>) -> Response {
    match page_asset(&name) {
        Some(asset) => page_response(asset.content_type, asset.body),
        None => no_such_asset(),
    }
}

/// An asset of this version: fixed bytes, cached for a year, in brotli or gzip as the client
/// accepts. A URL of another version is not found, so no cache keeps other bytes under it.
async fn versioned_asset(
    Path((version, name)): Path<(String, String)>,
    headers: HeaderMap,
) -> Response {
    let Some(asset) = page_asset(&name).filter(|_| version == asset_version()) else {
        return no_such_asset();
    };
    let coding = negotiate_among(&headers, &ASSET_CODINGS);
    let encoded = coding.and_then(|c| Some((c, asset.encoded(c)?)));
    let mut response = match &encoded {
        Some((_, bytes)) => page_response(asset.content_type, bytes.clone()),
        None => page_response(asset.content_type, asset.body),
    };
    let headers = response.headers_mut();
    if let Some((coding, _)) = encoded {
        headers.insert(
            header::CONTENT_ENCODING,
            HeaderValue::from_static(coding.token()),
        );
    }
    headers.insert(header::VARY, HeaderValue::from_static("accept-encoding"));
    headers.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("public, max-age=31536000, immutable"),
    );
    response
}

fn no_such_asset() -> Response {
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
        let index = INDEX.replace("\"/assets/", &format!("\"/assets/{}/", asset_version()));
        let evidence = EVIDENCE.replace("\"/assets/", &format!("\"/assets/{}/", asset_version()));
        let mut cases = vec![
            ("/".to_owned(), HTML, index.as_bytes()),
            ("/evidence/".to_owned(), HTML, evidence.as_bytes()),
        ];
        cases.extend(
            ASSETS
                .iter()
                .map(|a| (format!("/assets/{}", a.name), a.content_type, a.body)),
        );
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

    async fn get_with(path: &str, accept_encoding: &str) -> Response {
        let app = router(
            Arc::new(Service::new(Registry::default(), CacheLimits::default())),
            HttpConfig::loopback(8080),
        );
        let request = Request::get(path)
            .header(header::HOST, "127.0.0.1:8080")
            .header(header::ACCEPT_ENCODING, accept_encoding)
            .body(Body::empty())
            .unwrap();
        app.oneshot(request).await.unwrap()
    }

    fn decode(coding: &str, bytes: &[u8]) -> Vec<u8> {
        use std::io::Read;
        let mut out = Vec::new();
        match coding {
            "br" => brotli::Decompressor::new(bytes, 4096)
                .read_to_end(&mut out)
                .unwrap(),
            "gzip" => flate2::read::GzDecoder::new(bytes)
                .read_to_end(&mut out)
                .unwrap(),
            "" => return bytes.to_vec(),
            other => panic!("unexpected coding {other}"),
        };
        out
    }

    #[tokio::test]
    async fn the_pages_load_versioned_assets_that_are_compressed_and_cached_for_good() {
        let page = to_bytes(get("/").await.into_body(), 1 << 20).await.unwrap();
        let page = String::from_utf8(page.to_vec()).unwrap();
        let prefix = format!("/assets/{}/", asset_version());
        assert!(page.contains(&format!("src=\"{prefix}app.js\"")), "{page}");
        assert!(!page.contains("\"/assets/app.js\""));
        for asset in &ASSETS {
            for (accept, expected) in [("br, gzip", "br"), ("gzip", "gzip"), ("identity", "")] {
                let path = format!("{prefix}{}", asset.name);
                let response = get_with(&path, accept).await;
                assert_eq!(response.status(), StatusCode::OK, "{path}");
                assert_eq!(
                    header_of(&response, "cache-control"),
                    "public, max-age=31536000, immutable",
                    "{path}"
                );
                assert_eq!(
                    header_of(&response, "content-encoding"),
                    expected,
                    "{path} {accept}"
                );
                assert_eq!(header_of(&response, "vary"), "accept-encoding", "{path}");
                assert_eq!(header_of(&response, "content-type"), asset.content_type);
                assert_eq!(
                    header_of(&response, "content-security-policy"),
                    CONTENT_SECURITY_POLICY
                );
                let body = to_bytes(response.into_body(), 4 << 20).await.unwrap();
                assert_eq!(decode(expected, &body), asset.body, "{path} {accept}");
                if asset.name == "okf.wasm" && !expected.is_empty() {
                    assert!(
                        body.len() < asset.body.len() / 2,
                        "{expected}: {}",
                        body.len()
                    );
                }
            }
        }
        // Another version's URL is not served, so no cache can keep these bytes under it.
        let stale = get_with("/assets/0123456789abcdef/app.js", "br").await;
        assert_eq!(stale.status(), StatusCode::NOT_FOUND);
        assert_eq!(header_of(&stale, "cache-control"), "no-store");
    }

    #[test]
    fn the_committed_compressed_module_decompresses_to_the_module() {
        let module = &ASSETS[0];
        let [br, gz] = module.committed.unwrap();
        assert_eq!(
            decode("br", br),
            WASM_MODULE,
            "web/okf.wasm.br is stale: run scripts/build-wasm"
        );
        assert_eq!(
            decode("gzip", gz),
            WASM_MODULE,
            "web/okf.wasm.gz is stale: run scripts/build-wasm"
        );
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
        for Asset { name, body, .. } in &ASSETS {
            if name.ends_with(".js") {
                let body = std::str::from_utf8(body).unwrap();
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
