//! The in-process router the HTTP targets drive (no socket: the layers and handlers only).

use axum::Router;
use axum::body::{Body, to_bytes};
use axum::http::{Request, StatusCode};
use okf_server::{CacheLimits, HttpConfig, Registry, Service, router};
use std::sync::{Arc, LazyLock};
use tower::ServiceExt;

static RUNTIME: LazyLock<tokio::runtime::Runtime> = LazyLock::new(|| {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime")
});

static APP: LazyLock<Router> = LazyLock::new(|| {
    let registry = Registry::example(include_str!("../../crates/okf/example/index.json"))
        .expect("example registry");
    let mut config = HttpConfig::loopback(8080);
    config.rate_limit = None;
    router(Arc::new(Service::new(registry, CacheLimits::default())), config)
});

/// Sends one POST with `body` to `path` and returns the status and body. Panics on any 5xx
/// and on any error response that is not a JSON object.
pub fn post(path: &str, accept: &str, body: &[u8]) -> (StatusCode, Vec<u8>) {
    let request = Request::post(path)
        .header("host", "127.0.0.1:8080")
        .header("content-type", "application/json")
        .header("accept", accept)
        .body(Body::from(body.to_vec()))
        .expect("request");
    RUNTIME.block_on(async {
        let response = APP.clone().oneshot(request).await.expect("infallible");
        let status = response.status();
        let bytes = to_bytes(response.into_body(), usize::MAX)
            .await
            .expect("body");
        assert!(!status.is_server_error(), "{status}: {}", String::from_utf8_lossy(&bytes));
        if status != StatusCode::OK && status != StatusCode::ACCEPTED {
            let value: serde_json::Value =
                serde_json::from_slice(&bytes).expect("error body is JSON");
            assert!(value.is_object(), "error body is an object");
        }
        (status, bytes.to_vec())
    })
}
