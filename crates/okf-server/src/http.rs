//! The HTTP boundary: routes, and the layers that guard them (Host/Origin allow-lists, rate
//! and concurrency limits, timeouts, body limits, content types, security headers, one log
//! line per request).

use crate::fairness::{Budget, ClientAddr, ClientKey, RateLimit, Refusal, client_key};
use crate::mcp::{OkfMcp, check_message};
use crate::mcp_splice::{EscapedTexts, MAX_PLACEHOLDER_BYTES, PackageSlot, splice};
use crate::schemas;
use crate::service::{AskRequest, Service, ServiceError};
use axum::Router;
use axum::body::{Body, to_bytes};
use axum::extract::{Path, Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use serde_json::{Value, json};
use std::net::IpAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

/// Limits and allow-lists of the HTTP boundary.
#[derive(Debug, Clone)]
pub struct HttpConfig {
    /// Host names (without port) the `Host` header may carry.
    pub allowed_hosts: Vec<String>,
    /// Exact origins (`scheme://host:port`) a browser `Origin` header may carry.
    pub allowed_origins: Vec<String>,
    /// Largest request body in bytes.
    pub max_body_bytes: usize,
    /// Longest time from request to response, body reading included.
    pub request_timeout: Duration,
    /// Most requests handled at once once their bodies are in hand; more get 429.
    pub max_concurrent: usize,
    /// Most requests still receiving their bodies; more get 429. Separate from
    /// `max_concurrent` so slow senders cannot take the slots of complete requests.
    pub max_reading: usize,
    /// At most this many requests per window in each route class (asks, everything else);
    /// more get 429. `/health` is never counted. `None` disables.
    pub rate_limit: Option<(u32, Duration)>,
    /// Most bytes of request headers (names and values) a request may carry; more get 431.
    pub max_header_bytes: usize,
    /// Longest request target (path and query); longer gets 414.
    pub max_uri_bytes: usize,
    /// Most open connections; further connections are closed as soon as they are accepted.
    pub max_connections: usize,
    /// Time a connection may take to send a complete request head, counted from the
    /// connection's start or from the end of the previous response: it closes idle and
    /// slow-header connections.
    pub header_read_timeout: Duration,
    /// Lists the MCP conformance suite's fixture tool (`okf serve --mcp-conformance-fixture`,
    /// for the suite's `json-schema-2020-12` scenario only; off by default).
    pub mcp_conformance_fixture: bool,
    /// At most this many requests per `rate_limit` window and route class from one client
    /// (never more than `rate_limit`'s own count); `None`: only the overall limit.
    pub client_rate_limit: Option<u32>,
    /// Most of the `max_concurrent` slots one client may hold; `None`: no per-client share.
    pub client_max_concurrent: Option<usize>,
    /// Most of the `max_reading` bodies one client may be sending; `None`: no per-client
    /// share.
    pub client_max_reading: Option<usize>,
    /// Most of the `max_connections` one client address may hold open (a trusted proxy's
    /// connections count against `max_connections` only); `None`: no per-client share.
    pub client_max_connections: Option<usize>,
    /// Most client addresses each per-client table tracks; past it, new addresses share one
    /// entry (with the per-client limits) until tracked ones expire.
    pub max_clients: usize,
    /// Peers whose `X-Forwarded-For` names the client: its right-most address that is not
    /// itself a trusted proxy. From any other peer the header is ignored.
    pub trusted_proxies: Vec<IpAddr>,
}

impl HttpConfig {
    /// Loopback defaults for a server bound to `port`.
    pub fn loopback(port: u16) -> Self {
        HttpConfig {
            allowed_hosts: vec!["127.0.0.1".into(), "localhost".into(), "[::1]".into()],
            allowed_origins: vec![
                format!("http://127.0.0.1:{port}"),
                format!("http://localhost:{port}"),
                format!("http://[::1]:{port}"),
            ],
            max_body_bytes: 32 * 1024,
            request_timeout: Duration::from_secs(10),
            max_concurrent: 64,
            max_reading: 256,
            rate_limit: Some((60_000, Duration::from_secs(60))),
            max_header_bytes: 16 * 1024,
            max_uri_bytes: 8 * 1024,
            max_connections: 1024,
            header_read_timeout: Duration::from_secs(5),
            mcp_conformance_fixture: false,
            client_rate_limit: Some(6000),
            client_max_concurrent: Some(32),
            client_max_reading: Some(32),
            client_max_connections: Some(128),
            max_clients: 4096,
            trusted_proxies: Vec::new(),
        }
    }
}

/// Which rate window a request counts against: a flood of cheap requests (404s, page
/// assets) cannot lock out asks, and `/health` is never limited.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RouteClass {
    Health,
    Ask,
    Other,
}

fn route_class(request: &Request) -> RouteClass {
    let path = request.uri().path();
    if path == "/health" {
        RouteClass::Health
    } else if request.method() == Method::POST && (path == "/api/ask" || path == "/mcp") {
        RouteClass::Ask
    } else {
        RouteClass::Other
    }
}

/// What every handler and middleware shares. One `Arc` around it all, because the router
/// clones the state for each layer of each request: one shared count to touch, not eight.
#[derive(Clone)]
struct AppState(Arc<SharedState>);

impl std::ops::Deref for AppState {
    type Target = SharedState;
    fn deref(&self) -> &SharedState {
        &self.0
    }
}

struct SharedState {
    service: Arc<Service>,
    config: Arc<HttpConfig>,
    permits: Arc<Budget>,
    readers: Arc<Budget>,
    /// The rate limits of asks and of everything else; `None` when rate limiting is off.
    rates: Option<Arc<[RateLimit; 2]>>,
    escaped: Arc<EscapedTexts>,
    compressed: Arc<crate::compression::CompressedPackages>,
}

/// What a handler tells the request log about its outcome.
#[derive(Clone, Default)]
struct LogFields {
    bundle: Option<String>,
    evidence_status: Option<&'static str>,
}

fn error_body(status: StatusCode, code: &str, message: &str, field: Option<&str>) -> Response {
    let mut error = json!({"code": code, "message": message});
    if let (Some(f), Value::Object(map)) = (field, &mut error) {
        map.insert("field".into(), Value::String(f.to_owned()));
    }
    (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        json!({ "error": error }).to_string(),
    )
        .into_response()
}

fn service_error(e: &ServiceError) -> Response {
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
    };
    error_body(status, e.code(), &e.to_string(), e.field().as_deref())
}

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
/// the package is small, or compressing failed), compressed once per `context_id` and coding.
async fn package_reply(
    state: &AppState,
    coding: Option<crate::compression::Coding>,
    package: Arc<okf_engine::Assembled>,
) -> Response {
    use crate::compression::{MIN_COMPRESSED_BYTES, content_encoding};
    let vary = |mut response: Response| {
        response
            .headers_mut()
            .insert(header::VARY, HeaderValue::from_static("accept-encoding"));
        response
    };
    let Some(coding) = coding.filter(|_| package.json.len() >= MIN_COMPRESSED_BYTES) else {
        return vary(package_response(package));
    };
    // A repeat is a lookup; only a first compression goes to a blocking thread.
    let compressed = match state.compressed.kept(&package.context_id, coding) {
        Some(body) => Ok(Ok((body, false))),
        None => {
            let cache = Arc::clone(&state.compressed);
            let kept = Arc::clone(&package);
            tokio::task::spawn_blocking(move || {
                cache.get(&kept.context_id, coding, kept.json.as_bytes())
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

fn json_response(text: String) -> Response {
    ([(header::CONTENT_TYPE, "application/json")], text).into_response()
}

/// Builds the router for a service: the HTTP API, the MCP endpoint and the schemas.
pub fn router(service: Arc<Service>, config: HttpConfig) -> Router {
    let mcp_config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(false)
        .with_json_response(true)
        .with_allowed_hosts(
            config
                .allowed_hosts
                .iter()
                .map(|h| h.trim_matches(['[', ']']).to_owned()),
        )
        .with_allowed_origins(config.allowed_origins.clone())
        .enforce_origin_validation()
        .with_max_request_body_bytes(config.max_body_bytes);
    // One handler (and so one tool list) per service; the transport clones it per request.
    let handler = OkfMcp::new(Arc::clone(&service));
    let handler = if config.mcp_conformance_fixture {
        handler.with_conformance_fixture()
    } else {
        handler
    };
    let mcp = StreamableHttpService::new(
        move || Ok(handler.clone()),
        Arc::new(NeverSessionManager::default()),
        mcp_config,
    );
    let rates = config.rate_limit.map(|(limit, window)| {
        let rate = || RateLimit::new(limit, window, config.client_rate_limit, config.max_clients);
        Arc::new([rate(), rate()])
    });
    let state = AppState(Arc::new(SharedState {
        service,
        permits: Budget::new(
            config.max_concurrent,
            config.client_max_concurrent,
            config.max_clients,
        ),
        readers: Budget::new(
            config.max_reading,
            config.client_max_reading,
            config.max_clients,
        ),
        rates,
        escaped: Arc::default(),
        compressed: Arc::default(),
        config: Arc::new(config),
    }));
    Router::new()
        .route("/api/ask", post(ask))
        .route("/api/catalogue", post(catalogue))
        .route("/api/read", post(read_evidence))
        .route("/api/context/{context_id}", get(context))
        .route("/api/bundles", get(bundles))
        .route(
            "/api/bundles/{bundle}/versions/{version}/index",
            get(index_file),
        )
        .route("/api/workbenches", get(workbenches))
        .route("/workbench/{id}/{*path}", get(workbench_file))
        .route("/health", get(health))
        .route("/schemas/{name}", get(schema))
        .merge(crate::page::routes())
        .merge(
            Router::new()
                .nest_service("/mcp", mcp)
                .layer(middleware::from_fn_with_state(
                    state.clone(),
                    mcp_body_guard,
                )),
        )
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        // Outermost last: log and headers, framing, Host/Origin, content type, then load
        // (rate, body reading, slots) right before the handler.
        .layer(middleware::from_fn_with_state(state.clone(), load_guard))
        .layer(middleware::from_fn_with_state(
            state.clone(),
            content_type_guard,
        ))
        // Probes and scrapes are not rate limited, but still Host-checked.
        .merge(crate::ops::routes(Arc::clone(&state.service)))
        .layer(middleware::from_fn_with_state(state.clone(), origin_guard))
        .layer(middleware::from_fn_with_state(state.clone(), framing_guard))
        .layer(middleware::from_fn(close_unread_bodies))
        .layer(middleware::from_fn(headers_and_log))
        .layer(middleware::from_fn_with_state(
            Arc::clone(&state.service),
            crate::ops::track,
        ))
        // Outermost: every response in the coding the client accepts (gzip, br, zstd); package
        // bodies arrive already compressed and cached (package_reply) and are left as they are.
        .layer(middleware::from_fn(compress_if_accepted))
        .with_state(state)
}

async fn workbenches(State(state): State<AppState>) -> Response {
    json_response(crate::workbench::listing(&state.service.registry().workbenches).to_string())
}

/// A file an admitted workbench manifest lists (or the manifest itself), read-only.
async fn workbench_file(
    State(state): State<AppState>,
    axum::extract::Path((id, path)): axum::extract::Path<(String, String)>,
) -> Response {
    use crate::workbench::FileError;
    match crate::workbench::read_file(&state.service.registry().workbenches, &id, &path) {
        Ok(bytes) => ([(header::CONTENT_TYPE, "application/json")], bytes).into_response(),
        Err(FileError::NotListed(m) | FileError::Absent(m)) => {
            error_body(StatusCode::NOT_FOUND, "not_found", &m, Some("path"))
        }
        // Never the bytes: what is on disk is not what the manifest admitted.
        Err(FileError::Unverified(m)) => error_body(
            StatusCode::SERVICE_UNAVAILABLE,
            "workbench_file_unverified",
            &m,
            Some("path"),
        ),
    }
}

async fn not_found() -> Response {
    error_body(StatusCode::NOT_FOUND, "not_found", "no such route", None)
}

async fn method_not_allowed() -> Response {
    error_body(
        StatusCode::METHOD_NOT_ALLOWED,
        "method_not_allowed",
        "this route does not accept that method",
        None,
    )
}

/// Runs the request through tower-http's compression (fastest level) when the client sent
/// `Accept-Encoding` at all; a request without it, as most API clients send, skips the
/// layer's per-response work.
async fn compress_if_accepted(request: Request, next: Next) -> Response {
    use tower::{Layer, ServiceExt};
    if !request.headers().contains_key(header::ACCEPT_ENCODING) {
        return next.run(request).await;
    }
    let compress = tower_http::compression::CompressionLayer::new()
        .quality(tower_http::CompressionLevel::Fastest)
        .layer(next);
    match compress.oneshot(request).await {
        Ok(response) => response.map(Body::new),
        Err(never) => match never {},
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
fn has_json_body(response: &Response) -> bool {
    response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"))
}

/// Replaces a non-JSON error body with the JSON error shape, keeping status and headers.
fn ensure_json_error(response: Response) -> Response {
    let status = response.status();
    if !(status.is_client_error() || status.is_server_error()) || has_json_body(&response) {
        return response;
    }
    let (mut parts, _) = response.into_parts();
    let message = status.canonical_reason().unwrap_or("error").to_lowercase();
    let replacement = error_body(status, status_code_name(status), &message, None);
    parts.headers.remove(header::CONTENT_LENGTH);
    parts.headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    Response::from_parts(parts, replacement.into_body())
}

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
async fn headers_and_log(request: Request, next: Next) -> Response {
    let started = Instant::now();
    let method = request.method().clone();
    let route = request.uri().path().to_owned();
    let mut response = ensure_json_error(next.run(request).await);
    let headers = response.headers_mut();
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
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
        duration_us = u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX),
    );
    response
}

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

fn bad_header(code: &str, message: &str, field: &str) -> Response {
    error_body(StatusCode::BAD_REQUEST, code, message, Some(field))
}

/// Framing and size checks hyper leaves to the application: one `Host` and at most one
/// `Origin` (a second copy would be checked by nobody), `Transfer-Encoding` only as plain
/// `chunked` (501 otherwise: no other coding is decoded here), a bounded request target and
/// header block (a JSON 414/431 below hyper's own hard limits).
async fn framing_guard(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let headers = request.headers();
    for (name, field) in [(header::HOST, "Host"), (header::ORIGIN, "Origin")] {
        if headers.get_all(&name).iter().count() > 1 {
            return bad_header(
                "duplicate_header",
                &format!("the {field} header must appear at most once"),
                field,
            );
        }
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
        return error_body(
            StatusCode::NOT_IMPLEMENTED,
            "transfer_coding_not_implemented",
            "only the chunked transfer coding is accepted",
            Some("Transfer-Encoding"),
        );
    }
    // An origin server answers origin-form targets only: `GET http://other.example/…`
    // (absolute form) is a proxy request, whatever the Host header says.
    if request.uri().scheme().is_some() || request.uri().authority().is_some() {
        return error_body(
            StatusCode::BAD_REQUEST,
            "absolute_target",
            "the request target must be a path (origin form), not an absolute URL",
            None,
        );
    }
    let target = request
        .uri()
        .path_and_query()
        .map_or(0, |p| p.as_str().len());
    if target > state.config.max_uri_bytes {
        return error_body(
            StatusCode::URI_TOO_LONG,
            "uri_too_long",
            &format!(
                "the request target is over {} bytes",
                state.config.max_uri_bytes
            ),
            None,
        );
    }
    let header_bytes: usize = headers
        .iter()
        .map(|(k, v)| k.as_str().len() + v.len())
        .sum();
    if header_bytes > state.config.max_header_bytes {
        return error_body(
            StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
            "headers_too_large",
            &format!(
                "the request headers are over {} bytes",
                state.config.max_header_bytes
            ),
            None,
        );
    }
    next.run(request).await
}

/// Host and Origin allow-lists (DNS-rebinding and cross-site protection).
async fn origin_guard(State(state): State<AppState>, request: Request, next: Next) -> Response {
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
        return error_body(
            StatusCode::FORBIDDEN,
            "host_not_allowed",
            "the Host header is not on this server's allow-list",
            Some("Host"),
        );
    }
    if let Some(origin) = headers.get(header::ORIGIN) {
        let allowed = origin
            .to_str()
            .is_ok_and(|o| state.config.allowed_origins.iter().any(|a| a == o));
        if !allowed {
            return error_body(
                StatusCode::FORBIDDEN,
                "origin_not_allowed",
                "the Origin is not on this server's allow-list",
                Some("Origin"),
            );
        }
    }
    next.run(request).await
}

fn too_many(retry_after: u64, message: &str) -> Response {
    let mut response = error_body(StatusCode::TOO_MANY_REQUESTS, "rate_limited", message, None);
    response
        .headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from(retry_after));
    response
}

/// Counts a request against its class's window, the client's and the overall one;
/// `Some((which, seconds left))` when one is full.
fn rate_check(state: &AppState, class: RouteClass, client: ClientKey) -> Option<(Refusal, u64)> {
    let rates = state.rates.as_ref()?;
    let rate = match class {
        RouteClass::Health => return None,
        RouteClass::Ask => &rates[0],
        RouteClass::Other => &rates[1],
    };
    rate.check(client)
        .err()
        .map(|(refusal, left)| (refusal, left.as_secs().max(1)))
}

/// Says `Connection: close` on a response given before the request's body was read to its
/// end. hyper does not keep such a connection (the unread rest would be taken for the next
/// request) and would otherwise close it unannounced, which a keep-alive client sees as a
/// broken pipe on its next request instead of this response.
async fn close_unread_bodies(request: Request, next: Next) -> Response {
    use axum::body::HttpBody;
    if request.body().is_end_stream() {
        return next.run(request).await;
    }
    let finished = Arc::new(AtomicBool::new(false));
    let request = request.map(|body| {
        Body::new(WatchedBody {
            inner: body,
            finished: Arc::clone(&finished),
        })
    });
    let mut response = next.run(request).await;
    if !finished.load(Ordering::Acquire) {
        response
            .headers_mut()
            .insert(header::CONNECTION, HeaderValue::from_static("close"));
    }
    response
}

/// A request body that records when it has been read to its end.
struct WatchedBody {
    inner: Body,
    finished: Arc<AtomicBool>,
}

impl axum::body::HttpBody for WatchedBody {
    type Data = bytes::Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<hyper::body::Frame<Self::Data>, Self::Error>>> {
        let polled = std::pin::Pin::new(&mut self.inner).poll_frame(cx);
        if matches!(polled, Poll::Ready(None)) || self.inner.is_end_stream() {
            self.finished.store(true, Ordering::Release);
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> hyper::body::SizeHint {
        self.inner.size_hint()
    }
}

fn timed_out() -> Response {
    error_body(
        StatusCode::REQUEST_TIMEOUT,
        "request_timeout",
        "the request did not complete in time",
        None,
    )
}

/// Reads a whole body within `limit` bytes. Broken framing (a bad chunk) is a 400, not a 413.
async fn read_body(mut body: Body, limit: usize) -> Result<bytes::Bytes, Response> {
    use http_body_util::BodyExt;
    let mut buffer = bytes::BytesMut::new();
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|_| {
            error_body(
                StatusCode::BAD_REQUEST,
                "malformed_body",
                "the request body ended early or its chunked framing is broken",
                Some("body"),
            )
        })?;
        if let Ok(data) = frame.into_data() {
            if buffer.len() + data.len() > limit {
                return Err(error_body(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    "body_too_large",
                    "the request body is over the limit",
                    Some("body"),
                ));
            }
            buffer.extend_from_slice(&data);
        }
    }
    Ok(buffer.freeze())
}

/// A pass from `budget` for `client`, or the message of the 429 that says whose share is
/// used up.
fn acquire(
    budget: &Arc<Budget>,
    client: ClientKey,
    client_full: &'static str,
    server_full: &'static str,
) -> Result<crate::fairness::Pass, &'static str> {
    budget
        .try_acquire(Some(client))
        .map_err(|refusal| match refusal {
            Refusal::Client => client_full,
            Refusal::Global => server_full,
        })
}

/// Rate limit (fixed window per route class, `/health` exempt), then the slot policy: a POST
/// body is read under a *reading* permit, and a processing slot is taken only once the whole
/// request is in hand, so slow senders cannot starve complete requests. The request
/// deadline covers body reading and handling; both limits answer 429 with `Retry-After`.
/// Each limit holds per client ([`crate::fairness`]) below its overall ceiling, so one
/// client's flood is refused before it can use up the others' share.
async fn load_guard(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let class = route_class(&request);
    if class == RouteClass::Health {
        return next.run(request).await;
    }
    let client = client_key(
        request.extensions().get::<ClientAddr>().map(|a| a.0),
        request.headers().get_all("x-forwarded-for").iter(),
        &state.config.trusted_proxies,
    );
    if let Some((refusal, seconds)) = rate_check(&state, class, client) {
        return too_many(
            seconds,
            match refusal {
                Refusal::Client => {
                    "too many requests from this client in this window; retry after the indicated seconds"
                }
                Refusal::Global => {
                    "too many requests in this window; retry after the indicated seconds"
                }
            },
        );
    }
    let deadline = tokio::time::Instant::now() + state.config.request_timeout;
    let request = if request.method() == Method::POST {
        let _reading = match acquire(
            &state.readers,
            client,
            "this client is sending its maximum number of request bodies; retry shortly",
            "the server is receiving its maximum number of request bodies; retry shortly",
        ) {
            Ok(pass) => pass,
            Err(message) => return too_many(1, message),
        };
        let (parts, body) = request.into_parts();
        match tokio::time::timeout_at(deadline, read_body(body, state.config.max_body_bytes)).await
        {
            Err(_) => return timed_out(),
            Ok(Err(response)) => return response,
            Ok(Ok(bytes)) => Request::from_parts(parts, Body::from(bytes)),
        }
    } else {
        request
    };
    let _permit = match acquire(
        &state.permits,
        client,
        "this client has its maximum number of requests in progress; retry shortly",
        "the server is handling its maximum number of concurrent requests; retry shortly",
    ) {
        Ok(pass) => pass,
        Err(message) => return too_many(1, message),
    };
    match tokio::time::timeout_at(deadline, next.run(request)).await {
        Ok(response) => response,
        Err(_) => timed_out(),
    }
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
async fn content_type_guard(
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
            return error_body(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "unsupported_media_type",
                "the body must be application/json (charset, if given, utf-8)",
                Some("Content-Type"),
            );
        }
        if request.headers().contains_key(header::CONTENT_ENCODING) {
            return error_body(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "unsupported_media_type",
                "encoded bodies are not accepted",
                Some("Content-Encoding"),
            );
        }
        let declared = request
            .headers()
            .get(header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<usize>().ok());
        if declared.is_some_and(|n| n > state.config.max_body_bytes) {
            return error_body(
                StatusCode::PAYLOAD_TOO_LARGE,
                "body_too_large",
                "the request body is over the limit",
                Some("body"),
            );
        }
    }
    next.run(request).await
}

fn jsonrpc_error(status: StatusCode, id: Value, code: i64, message: &str) -> Response {
    let body = json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}});
    (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        body.to_string(),
    )
        .into_response()
}

/// Reads MCP POST bodies within the limit and answers anything that is not one well-formed
/// MCP JSON-RPC message with a JSON-RPC error ([`check_message`]) before the transport sees
/// it; the checked bytes are passed on unchanged.
async fn mcp_body_guard(State(state): State<AppState>, request: Request, next: Next) -> Response {
    if request.method() != Method::POST {
        return as_jsonrpc_error(next.run(request).await).await;
    }
    let (parts, body) = request.into_parts();
    let Ok(bytes) = to_bytes(body, state.config.max_body_bytes).await else {
        return jsonrpc_error(
            StatusCode::PAYLOAD_TOO_LARGE,
            Value::Null,
            -32600,
            "the request body is over the limit",
        );
    };
    if let Err(refusal) = check_message(&bytes) {
        let status = if refusal.in_band {
            StatusCode::OK
        } else {
            StatusCode::BAD_REQUEST
        };
        return jsonrpc_error(status, refusal.id, refusal.code, &refusal.message);
    }
    let slot = PackageSlot::new(Arc::clone(&state.escaped));
    let mut request = Request::from_parts(parts, Body::from(bytes));
    request.extensions_mut().insert(slot.clone());
    let response = next.run(request).await;
    match slot.take() {
        Some((package, escaped)) => splice_package(response, &package, escaped).await,
        None => as_jsonrpc_error(response).await,
    }
}

/// Longest part of a transport's own error text kept in the JSON-RPC error message.
const MAX_TRANSPORT_MESSAGE_CHARS: usize = 200;

/// Rewrites an error the MCP transport answered without a JSON body (406 for a missing
/// `Accept`, 400 for an unsupported `MCP-Protocol-Version`, 405 for a method) as a JSON-RPC
/// error object with the same status: every error on `/mcp` is one a client's JSON-RPC layer
/// can read. Invalid-request code for client errors, internal error otherwise.
async fn as_jsonrpc_error(response: Response) -> Response {
    let status = response.status();
    if has_json_body(&response) || !(status.is_client_error() || status.is_server_error()) {
        return response;
    }
    let (parts, body) = response.into_parts();
    let text = to_bytes(body, 4096).await.unwrap_or_default();
    let detail: String = String::from_utf8_lossy(&text)
        .chars()
        .filter(|c| !c.is_control())
        .take(MAX_TRANSPORT_MESSAGE_CHARS)
        .collect();
    let reason = status.canonical_reason().unwrap_or("error").to_lowercase();
    let message = if detail.trim().is_empty() {
        reason
    } else {
        format!("{reason}: {}", detail.trim())
    };
    let code = if status.is_client_error() {
        -32600
    } else {
        -32603
    };
    let mut rewritten = jsonrpc_error(status, Value::Null, code, &message);
    for (name, value) in &parts.headers {
        if name != header::CONTENT_TYPE && name != header::CONTENT_LENGTH {
            rewritten.headers_mut().append(name.clone(), value.clone());
        }
    }
    rewritten
}

/// Writes the package a tool call left into the transport's placeholder response
/// ([`crate::mcp_splice`]).
async fn splice_package(
    response: Response,
    package: &okf_engine::Assembled,
    escaped: Result<bytes::Bytes, String>,
) -> Response {
    let is_json = has_json_body(&response);
    let (mut parts, body) = response.into_parts();
    let spliced = match to_bytes(body, MAX_PLACEHOLDER_BYTES).await {
        Ok(bytes) if is_json => escaped
            .and_then(|text| splice(&bytes, &package.json, &text))
            .map(|out| (bytes, out)),
        Ok(_) => Err("the transport did not answer with JSON".into()),
        Err(e) => Err(format!("cannot read the transport's response ({e})")),
    };
    match spliced {
        Ok((_, Some(out))) => {
            parts.headers.remove(header::CONTENT_LENGTH);
            Response::from_parts(parts, Body::from(out))
        }
        Ok((bytes, None)) => Response::from_parts(parts, Body::from(bytes)),
        Err(message) => {
            tracing::error!(target: "okf::mcp", %message, "package not written");
            jsonrpc_error(
                StatusCode::INTERNAL_SERVER_ERROR,
                Value::Null,
                -32603,
                "internal error: the package could not be written into the response",
            )
        }
    }
}

async fn ask(State(state): State<AppState>, request: Request) -> Response {
    let coding = crate::compression::negotiate(request.headers());
    // load_guard has already read the body within the limit; this only collects it.
    let bytes = match read_body(request.into_body(), state.config.max_body_bytes).await {
        Ok(b) => b,
        Err(response) => return response,
    };
    let req = match AskRequest::from_json_slice(&bytes) {
        Ok(r) => r,
        Err(e) => return service_error(&e),
    };
    let service = Arc::clone(&state.service);
    let bundle = req.bundle.clone();
    // CPU-bound but budget-bounded; keep it off the async workers.
    let outcome = tokio::task::spawn_blocking(move || service.ask(&req)).await;
    let (mut response, evidence_status) = match outcome {
        Ok(Ok(answer)) => {
            let status = answer.package_status();
            (
                package_reply(&state, coding, answer.package).await,
                Some(status),
            )
        }
        Ok(Err(e)) => (service_error(&e), None),
        Err(_) => (
            error_body(
                StatusCode::INTERNAL_SERVER_ERROR,
                "internal",
                "assembly task failed",
                None,
            ),
            None,
        ),
    };
    response.extensions_mut().insert(LogFields {
        bundle: Some(bundle),
        evidence_status,
    });
    response
}

/// `http://` plus the request's (allow-listed) Host: where the page permalinks point.
fn request_origin(request: &Request) -> String {
    let host = request
        .headers()
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("127.0.0.1");
    format!("http://{host}")
}

fn delivery_error(e: &crate::delivery::DeliveryFailure) -> Response {
    let status = match e {
        crate::delivery::DeliveryFailure::Service(inner) => return service_error(inner),
        _ => StatusCode::BAD_REQUEST,
    };
    error_body(status, e.code(), &e.to_string(), e.field().as_deref())
}

/// Decodes a delivery body strictly, runs the (CPU-bound) replay off the async workers.
async fn deliver<A, F>(
    state: AppState,
    request: Request,
    decode: fn(Value) -> Result<A, crate::delivery::DeliveryFailure>,
    run: F,
) -> Response
where
    A: Send + 'static,
    F: FnOnce(
            &Service,
            A,
            &str,
        ) -> Result<crate::delivery::Delivered, crate::delivery::DeliveryFailure>
        + Send
        + 'static,
{
    let origin = request_origin(&request);
    let bytes = match read_body(request.into_body(), state.config.max_body_bytes).await {
        Ok(b) => b,
        Err(response) => return response,
    };
    let value = match crate::strict_json::from_slice(&bytes) {
        Ok(v) => v,
        Err(e) => return service_error(&ServiceError::InvalidJson(e)),
    };
    let args = match decode(value) {
        Ok(a) => a,
        Err(e) => return delivery_error(&e),
    };
    let service = Arc::clone(&state.service);
    match tokio::task::spawn_blocking(move || run(&service, args, &origin)).await {
        Ok(Ok(delivered)) => json_response(delivered.json),
        Ok(Err(e)) => delivery_error(&e),
        Err(_) => error_body(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal",
            "delivery task failed",
            None,
        ),
    }
}

async fn catalogue(State(state): State<AppState>, request: Request) -> Response {
    use crate::delivery::{CatalogueArgs, catalogue};
    deliver(state, request, CatalogueArgs::from_value, catalogue).await
}

async fn read_evidence(State(state): State<AppState>, request: Request) -> Response {
    use crate::delivery::{ReadArgs, read};
    deliver(state, request, ReadArgs::from_value, read).await
}

async fn context(
    State(state): State<AppState>,
    Path(context_id): Path<String>,
    headers: axum::http::HeaderMap,
) -> Response {
    match state.service.context(&context_id) {
        Ok(package) => {
            package_reply(&state, crate::compression::negotiate(&headers), package).await
        }
        Err(e) => service_error(&e),
    }
}

async fn bundles(State(state): State<AppState>) -> Response {
    let registry = state.service.registry();
    let list: Vec<Value> = registry
        .bundles
        .values()
        .map(|b| {
            let versions: Vec<Value> = b
                .versions
                .values()
                .map(|v| {
                    let mut row = json!({
                        "name": v.name,
                        "snapshot": v.snapshot,
                        "index_sha256": v.index_sha256,
                        "index_url": v.index_url,
                        "state": if v.state.is_ok() { "ready" } else { "refused" },
                    });
                    if let Value::Object(map) = &mut row {
                        if let Some(p) = &v.published {
                            map.insert("published".into(), json!(p));
                        }
                        if let Err(reason) = &v.state {
                            map.insert("reason".into(), json!(reason));
                        }
                    }
                    row
                })
                .collect();
            let ready = b
                .versions
                .get(&b.default_version)
                .is_some_and(|v| v.state.is_ok());
            json!({
                "id": b.id,
                "state": if ready { "ready" } else { "refused" },
                "default_version": b.default_version,
                "versions": versions,
            })
        })
        .collect();
    // Corpora are asked by their id like bundles, on the server only (one version, shards
    // read when a question needs them).
    let corpora: Vec<Value> = registry
        .corpora
        .values()
        .map(|c| {
            let not_ready = c.not_ready();
            let state = match (&c.state, &not_ready) {
                (Err(_), _) => "refused",
                (Ok(_), Some(_)) => "not_ready",
                (Ok(_), None) => "ready",
            };
            let mut row = json!({
                "id": c.id,
                "state": state,
                "manifest_sha256": c.manifest_sha256,
            });
            if let (Some(reason), Value::Object(map)) = (not_ready, &mut row) {
                map.insert("reason".into(), json!(reason));
            }
            row
        })
        .collect();
    json_response(json!({ "bundles": list, "corpora": corpora }).to_string())
}

/// Liveness with a per-bundle summary.
async fn health(State(state): State<AppState>) -> Response {
    let rows: Vec<Value> = state
        .service
        .registry()
        .bundles
        .values()
        .map(|b| {
            let ready = b.versions.values().filter(|v| v.state.is_ok()).count();
            json!({
                "id": b.id,
                "ready": b.versions.get(&b.default_version).is_some_and(|v| v.state.is_ok()),
                "versions_ready": ready,
                "versions_refused": b.versions.len() - ready,
            })
        })
        .collect();
    let registry = state.service.registry();
    let corpora = readiness_rows(registry.corpora.values().map(|c| (&c.id, c.not_ready())));
    let workbenches = readiness_rows(
        registry
            .workbenches
            .values()
            .map(|w| (&w.id, w.not_ready())),
    );
    let log = crate::metrics::log_sink();
    let all_ready = rows
        .iter()
        .chain(&corpora)
        .chain(&workbenches)
        .all(|r| r["ready"] == true)
        && !registry.is_empty()
        && log.healthy;
    let body = json!({
        "status": if all_ready { "ok" } else { "degraded" },
        "engine": okf_engine::ENGINE_ID,
        "bundles": rows,
        "corpora": corpora,
        "workbenches": workbenches,
        "log": {"ok": log.healthy, "lines_dropped": log.dropped},
    });
    // Liveness: 200 while the process answers, whatever the bundles' state; readiness (a
    // refused bundle means 503) is GET /ready, so a refused file never restarts a replica.
    json_response(body.to_string())
}

/// `{id, ready, reason?}` rows of `/health` for corpora and workbenches.
fn readiness_rows<'a>(items: impl Iterator<Item = (&'a String, Option<String>)>) -> Vec<Value> {
    items
        .map(|(id, reason)| {
            let mut row = json!({"id": id, "ready": reason.is_none()});
            if let (Some(reason), Value::Object(map)) = (reason, &mut row) {
                map.insert("reason".into(), json!(reason));
            }
            row
        })
        .collect()
}

async fn schema(Path(name): Path<String>) -> Response {
    match schemas::text(&name) {
        Some(text) => ([(header::CONTENT_TYPE, "application/schema+json")], text).into_response(),
        None => error_body(StatusCode::NOT_FOUND, "not_found", "no such schema", None),
    }
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
async fn index_file(
    State(state): State<AppState>,
    Path((bundle, version)): Path<(String, String)>,
) -> Response {
    let (_, loaded) = match state.service.index_file(&bundle, Some(&version)) {
        Ok(found) => found,
        Err(e) => return service_error(&e),
    };
    let (Ok(url), Ok(sha), Ok(served_sha)) = (
        HeaderValue::from_str(&loaded.binding.index_url),
        HeaderValue::from_str(&loaded.binding.index_sha256),
        HeaderValue::from_str(&loaded.public_sha256),
    ) else {
        return error_body(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal",
            "the binding cannot be sent as a header",
            None,
        );
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
        evidence_status: None,
    });
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
