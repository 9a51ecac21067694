//! `GET /workbench/{id}/{path}` for any path, on a workbench whose directory also holds a
//! part rewritten after admission and a part replaced by a symlink to a file outside it.
//! Oracle: no 5xx but the 503 of an unverified file; a 200 only for the admitted manifest
//! (its admitted bytes) or a listed file whose bytes hash to the digest the manifest
//! declares; never the bytes of the tampered part or of the symlink's target.
//!
//! The workbench comes from `okf workbench build` (see docs/reliability.md):
//! `OKF_FUZZ_WORKBENCH=DIR/manifest.json cargo fuzz run workbench_file`. The target copies
//! it into a temporary directory and tampers with the copy there.
#![no_main]

use axum::Router;
use axum::body::{Body, to_bytes};
use axum::http::Request;
use libfuzzer_sys::fuzz_target;
use okf_server::{CacheLimits, HttpConfig, Registry, Service, router};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, LazyLock};
use tower::ServiceExt;

struct Fixture {
    app: Router,
    runtime: tokio::runtime::Runtime,
    admitted_manifest: Vec<u8>,
    /// Listed path -> declared SHA-256.
    declared: BTreeMap<String, String>,
    forbidden: Vec<Vec<u8>>,
}

static FIXTURE: LazyLock<Fixture> = LazyLock::new(|| {
    let source = PathBuf::from(std::env::var("OKF_FUZZ_WORKBENCH").expect("OKF_FUZZ_WORKBENCH names a built workbench manifest"));
    let from = source.parent().expect("a directory").to_owned();
    let dir = std::env::temp_dir().join(format!("okf-fuzz-workbench-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    for sub in ["packages", "parts"] {
        std::fs::create_dir_all(dir.join(sub)).expect("dirs");
        for e in std::fs::read_dir(from.join(sub)).expect("built dirs") {
            let e = e.expect("entry");
            std::fs::copy(e.path(), dir.join(sub).join(e.file_name())).expect("copy");
        }
    }
    let admitted_manifest = std::fs::read(&source).expect("manifest");
    std::fs::write(dir.join("manifest.json"), &admitted_manifest).expect("manifest copy");
    let manifest: Value = serde_json::from_slice(&admitted_manifest).expect("JSON");
    let mut declared = BTreeMap::new();
    let mut parts = Vec::new();
    for q in manifest["questions"].as_array().expect("questions") {
        let p = &q["package"];
        declared.insert(p["url"].as_str().unwrap_or_default().to_owned(), p["sha256"].as_str().unwrap_or_default().to_owned());
        for part in p["parts"].as_array().into_iter().flatten() {
            let url = part["url"].as_str().unwrap_or_default().to_owned();
            declared.insert(url.clone(), part["sha256"].as_str().unwrap_or_default().to_owned());
            parts.push(url);
        }
    }
    let registry_text = format!("[[workbench]]\nid = \"wb\"\nmanifest = {:?}\n", dir.join("manifest.json"));
    let registry = Registry::from_toml(&registry_text, &dir.join("registry.toml")).expect("registry");
    // After admission: one part rewritten (same length), one replaced by a symlink out.
    let mut forbidden = vec![std::fs::read("/etc/passwd").unwrap_or_default()];
    if let [first, second, ..] = parts.as_slice() {
        let path = dir.join(first);
        let mut bytes = std::fs::read(&path).expect("part");
        if let Some(b) = bytes.iter_mut().rev().find(|b| **b == b'a') {
            *b = b'b';
        }
        std::fs::write(&path, &bytes).expect("tamper");
        forbidden.push(bytes);
        let path = dir.join(second);
        std::fs::remove_file(&path).expect("remove");
        std::os::unix::fs::symlink("/etc/passwd", &path).expect("symlink");
    }
    let mut config = HttpConfig::loopback(8080);
    config.rate_limit = None;
    Fixture {
        app: router(Arc::new(Service::new(registry, CacheLimits::default())), config),
        runtime: tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime"),
        admitted_manifest,
        declared,
        forbidden,
    }
});

fuzz_target!(|data: &[u8]| {
    let fixture = &*FIXTURE;
    let Ok(path) = std::str::from_utf8(data) else {
        return;
    };
    let target = format!("/workbench/wb/{path}");
    let Ok(request) = Request::get(target.as_str()).header("host", "127.0.0.1:8080").body(Body::empty()) else {
        return;
    };
    let (status, bytes) = fixture.runtime.block_on(async {
        let response = fixture.app.clone().oneshot(request).await.expect("infallible");
        let status = response.status().as_u16();
        (status, to_bytes(response.into_body(), usize::MAX).await.expect("body").to_vec())
    });
    assert!(status < 500 || status == 503, "{status}");
    for secret in &fixture.forbidden {
        assert!(secret.is_empty() || bytes != *secret, "served forbidden bytes for {path:?}");
    }
    if status == 200 {
        if bytes == fixture.admitted_manifest {
            return;
        }
        let digest = okf_engine::canonical::sha256_hex(&bytes);
        assert!(fixture.declared.values().any(|d| *d == digest), "200 with undeclared bytes for {path:?}");
    } else {
        let v: Value = serde_json::from_slice(&bytes).expect("JSON error");
        assert!(v["error"]["code"].is_string(), "{v}");
    }
});
