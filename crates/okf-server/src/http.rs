//! The HTTP boundary: routes, and the layers that guard them (Host/Origin allow-lists, rate
//! and concurrency limits, timeouts, body limits, content types, security headers, one log
//! line per request).

use crate::mcp::OkfMcp;
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
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::Semaphore;

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
    /// Most requests handled at once; more get 429.
    pub max_concurrent: usize,
    /// At most this many requests per window; more get 429 (`None` disables).
    pub rate_limit: Option<(u32, Duration)>,
}

impl HttpConfig {
    /// Loopback defaults for a server bound to `port`.
    pub fn loopback(port: u16) -> Self {
        HttpConfig {
            allowed_hosts: vec!["127.0.0.1".into(), "localhost".into(), "[::1]".into()],
            allowed_origins: vec![
                format!("http://127.0.0.1:{port}"),
                format!("http://localhost:{port}"),
            ],
            max_body_bytes: 32 * 1024,
            request_timeout: Duration::from_secs(10),
            max_concurrent: 64,
            rate_limit: Some((6000, Duration::from_secs(60))),
        }
    }
}

/// Fixed-window request counter shared by all routes.
#[derive(Debug)]
struct RateWindow {
    started: Instant,
    count: u32,
}

#[derive(Clone)]
struct AppState {
    service: Arc<Service>,
    config: Arc<HttpConfig>,
    permits: Arc<Semaphore>,
    window: Arc<Mutex<RateWindow>>,
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
        ServiceError::InvalidRequest { .. } | ServiceError::Engine(_) => StatusCode::BAD_REQUEST,
        ServiceError::UnknownBundle(_)
        | ServiceError::UnknownVersion(_)
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
    let mcp_service = Arc::clone(&service);
    let mcp = StreamableHttpService::new(
        move || Ok(OkfMcp::new(Arc::clone(&mcp_service))),
        Arc::new(NeverSessionManager::default()),
        mcp_config,
    );
    let state = AppState {
        service,
        permits: Arc::new(Semaphore::new(config.max_concurrent)),
        window: Arc::new(Mutex::new(RateWindow {
            started: Instant::now(),
            count: 0,
        })),
        config: Arc::new(config),
    };
    Router::new()
        .route("/api/ask", post(ask))
        .route("/api/context/{context_id}", get(context))
        .route("/api/bundles", get(bundles))
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
        .layer(middleware::from_fn_with_state(
            state.clone(),
            content_type_guard,
        ))
        .layer(middleware::from_fn_with_state(state.clone(), timeout_guard))
        .layer(middleware::from_fn_with_state(state.clone(), load_guard))
        .layer(middleware::from_fn_with_state(state.clone(), origin_guard))
        .layer(middleware::from_fn(headers_and_log))
        .with_state(state)
}

async fn not_found() -> Response {
    error_body(StatusCode::NOT_FOUND, "not_found", "no such route", None)
}

/// Security headers on every response, and one log line per request (never the question).
async fn headers_and_log(request: Request, next: Next) -> Response {
    let started = Instant::now();
    let method = request.method().clone();
    let route = request.uri().path().to_owned();
    let mut response = next.run(request).await;
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
        "/api/context/{id}"
    } else {
        route.as_str()
    };
    tracing::info!(
        target: "okf::http",
        method = %method,
        route = %route,
        bundle = %fields.bundle.as_deref().unwrap_or("-"),
        status = response.status().as_u16(),
        evidence_status = %fields.evidence_status.unwrap_or("-"),
        duration_us = u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX),
    );
    response
}

fn host_name(host: &str) -> &str {
    // Strip a port: "[::1]:80" -> "[::1]", "localhost:80" -> "localhost".
    if host.starts_with('[') {
        host.find(']').map_or(host, |i| &host[..=i])
    } else {
        host.rsplit_once(':').map_or(host, |(h, _)| h)
    }
}

/// Host and Origin allow-lists (DNS-rebinding and cross-site protection).
async fn origin_guard(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let headers = request.headers();
    let host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .map(host_name);
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
            None,
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
                None,
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

/// Rate limit (fixed window) and concurrency limit; both answer 429 with `Retry-After`.
async fn load_guard(State(state): State<AppState>, request: Request, next: Next) -> Response {
    if let Some((limit, window)) = state.config.rate_limit {
        let retry = {
            let Ok(mut w) = state.window.lock() else {
                return error_body(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "internal",
                    "rate limiter unavailable",
                    None,
                );
            };
            let now = Instant::now();
            if now.duration_since(w.started) >= window {
                w.started = now;
                w.count = 0;
            }
            if w.count >= limit {
                Some(
                    window
                        .saturating_sub(now.duration_since(w.started))
                        .as_secs()
                        .max(1),
                )
            } else {
                w.count += 1;
                None
            }
        };
        if let Some(seconds) = retry {
            return too_many(
                seconds,
                "too many requests in this window; retry after the indicated seconds",
            );
        }
    }
    // Held until the response is produced, body reading included.
    let Ok(_permit) = Arc::clone(&state.permits).try_acquire_owned() else {
        return too_many(
            1,
            "the server is handling its maximum number of concurrent requests; retry shortly",
        );
    };
    next.run(request).await
}

/// Caps the whole exchange, so a slow body cannot hold a slot forever.
async fn timeout_guard(State(state): State<AppState>, request: Request, next: Next) -> Response {
    match tokio::time::timeout(state.config.request_timeout, next.run(request)).await {
        Ok(response) => response,
        Err(_) => error_body(
            StatusCode::REQUEST_TIMEOUT,
            "request_timeout",
            "the request did not complete in time",
            None,
        ),
    }
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
            .and_then(|v| v.split(';').next())
            .is_some_and(|m| m.trim().eq_ignore_ascii_case("application/json"));
        if !is_json {
            return error_body(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "unsupported_media_type",
                "the body must be application/json",
                None,
            );
        }
        if request.headers().contains_key(header::CONTENT_ENCODING) {
            return error_body(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "unsupported_media_type",
                "encoded bodies are not accepted",
                None,
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
                None,
            );
        }
    }
    next.run(request).await
}

fn jsonrpc_error(status: StatusCode, code: i64, message: &str) -> Response {
    let body = json!({"jsonrpc": "2.0", "id": null, "error": {"code": code, "message": message}});
    (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        body.to_string(),
    )
        .into_response()
}

/// Reads MCP POST bodies within the limit and answers malformed JSON with JSON-RPC -32700
/// before the transport sees it; the checked bytes are passed on unchanged.
async fn mcp_body_guard(State(state): State<AppState>, request: Request, next: Next) -> Response {
    if request.method() != Method::POST {
        return next.run(request).await;
    }
    let (parts, body) = request.into_parts();
    let Ok(bytes) = to_bytes(body, state.config.max_body_bytes).await else {
        return jsonrpc_error(
            StatusCode::PAYLOAD_TOO_LARGE,
            -32600,
            "the request body is over the limit",
        );
    };
    if serde_json::from_slice::<serde::de::IgnoredAny>(&bytes).is_err() {
        return jsonrpc_error(
            StatusCode::BAD_REQUEST,
            -32700,
            "parse error: the body is not JSON",
        );
    }
    next.run(Request::from_parts(parts, Body::from(bytes)))
        .await
}

async fn read_json_body(body: Body, limit: usize) -> Result<Value, Response> {
    let bytes = to_bytes(body, limit).await.map_err(|_| {
        error_body(
            StatusCode::PAYLOAD_TOO_LARGE,
            "body_too_large",
            "the request body is over the limit",
            None,
        )
    })?;
    serde_json::from_slice(&bytes).map_err(|e| {
        error_body(
            StatusCode::BAD_REQUEST,
            "invalid_json",
            &format!("the body is not JSON: {e}"),
            None,
        )
    })
}

async fn ask(State(state): State<AppState>, request: Request) -> Response {
    let value = match read_json_body(request.into_body(), state.config.max_body_bytes).await {
        Ok(v) => v,
        Err(response) => return response,
    };
    let req: AskRequest = match serde_json::from_value(value) {
        Ok(r) => r,
        Err(e) => {
            return error_body(
                StatusCode::BAD_REQUEST,
                "invalid_request",
                &e.to_string(),
                None,
            );
        }
    };
    let service = Arc::clone(&state.service);
    let bundle = req.bundle.clone();
    // CPU-bound but budget-bounded; keep it off the async workers.
    let outcome = tokio::task::spawn_blocking(move || service.ask(&req)).await;
    let (mut response, evidence_status) = match outcome {
        Ok(Ok(answer)) => {
            let status = answer.package_status();
            (package_response(answer.package), Some(status))
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

async fn context(State(state): State<AppState>, Path(context_id): Path<String>) -> Response {
    match state.service.context(&context_id) {
        Ok(package) => package_response(package),
        Err(e) => service_error(&e),
    }
}

async fn bundles(State(state): State<AppState>) -> Response {
    let list: Vec<Value> = state
        .service
        .registry()
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
    json_response(json!({ "bundles": list }).to_string())
}

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
    let all_ready = rows.iter().all(|r| r["ready"] == true) && !rows.is_empty();
    let body = json!({
        "status": if all_ready { "ok" } else { "degraded" },
        "engine": okf_engine::ENGINE_ID,
        "bundles": rows,
    });
    let status = if all_ready {
        StatusCode::OK
    } else {
        StatusCode::SERVICE_UNAVAILABLE
    };
    (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        body.to_string(),
    )
        .into_response()
}

async fn schema(Path(name): Path<String>) -> Response {
    match schemas::text(&name) {
        Some(text) => ([(header::CONTENT_TYPE, "application/schema+json")], text).into_response(),
        None => error_body(StatusCode::NOT_FOUND, "not_found", "no such schema", None),
    }
}
