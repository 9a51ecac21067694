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

/// Whether some object in the JSON text gives a key twice (the text must parse).
#[allow(dead_code)]
pub fn has_duplicate_key(text: &str) -> bool {
    // Counts keys per object as the text gives them (serde_json's Value keeps only the last).
    struct Counting(bool);
    impl<'de> serde::de::Visitor<'de> for Counting {
        type Value = bool;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("JSON")
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<bool, A::Error> {
            let mut keys = std::collections::BTreeSet::new();
            let mut dup = false;
            while let Some(key) = map.next_key::<String>()? {
                dup |= !keys.insert(key);
                dup |= map.next_value::<Dup>()?.0;
            }
            Ok(dup)
        }
        fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<bool, A::Error> {
            let mut dup = false;
            while let Some(Dup(d)) = seq.next_element::<Dup>()? {
                dup |= d;
            }
            Ok(dup)
        }
        fn visit_bool<E>(self, _: bool) -> Result<bool, E> { Ok(false) }
        fn visit_i64<E>(self, _: i64) -> Result<bool, E> { Ok(false) }
        fn visit_u64<E>(self, _: u64) -> Result<bool, E> { Ok(false) }
        fn visit_f64<E>(self, _: f64) -> Result<bool, E> { Ok(false) }
        fn visit_str<E>(self, _: &str) -> Result<bool, E> { Ok(false) }
        fn visit_unit<E>(self) -> Result<bool, E> { Ok(false) }
    }
    struct Dup(bool);
    impl<'de> serde::Deserialize<'de> for Dup {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            d.deserialize_any(Counting(false)).map(Dup)
        }
    }
    serde_json::from_str::<Dup>(text).map(|d| d.0).unwrap_or(false)
}
