//! `GET /api/bundles/{bundle}/versions/{version}/index`: the registry's verified index bytes,
//! read-only, with the binding the server records in its packages, so the page can assemble
//! the same package in the browser.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use crate::common::*;

#[test]
fn the_index_route_serves_the_verified_file_bytes_with_the_recorded_binding() {
    let dir = temp_dir("index-route");
    let server = Server::start(&["--registry", dwp_registry(&dir, "").to_str().unwrap()]);
    let r = server.request(
        "GET",
        "/api/bundles/okf-dwp/versions/current/index",
        &[],
        b"",
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let file = std::fs::read(shared("dwp/full-dmg/context/assembly-index.json")).unwrap();
    assert!(
        r.body == file,
        "the exact file bytes (no restricted record to withhold)"
    );
    assert_eq!(
        okf_engine::canonical::sha256_hex(&r.body),
        DWP_SHA,
        "bytes hash to the declared digest"
    );
    assert_eq!(r.header("okf-binding-url"), Some(DWP_URL));
    assert_eq!(r.header("okf-binding-sha256"), Some(DWP_SHA));
    assert_eq!(r.header("content-type"), Some("application/json"));
    assert_eq!(r.header("cache-control"), Some("no-store"));
}

#[test]
fn the_index_route_names_only_logical_ids_and_refuses_everything_else() {
    let server = Server::start(&[]);
    let r = server.request(
        "GET",
        "/api/bundles/example/versions/current/index",
        &[],
        b"",
    );
    assert_eq!(r.status, 200);
    let file = std::fs::read_to_string(example("index.json")).unwrap();
    // The example holds a restricted record, so its public projection is served instead.
    let index = okf_engine::ContextIndex::from_json_str(&file).unwrap();
    let projection = okf_engine::public_projection(&index).unwrap();
    assert!(
        r.body == projection.as_bytes(),
        "the public projection is served"
    );
    assert_eq!(
        r.header("okf-index-sha256"),
        Some(okf_engine::canonical::sha256_hex(projection.as_bytes()).as_str())
    );
    // The example bundle's binding is the engine's default one (canonical-JSON digest).
    assert_eq!(
        r.header("okf-binding-sha256"),
        Some(index.default_binding().index_sha256.as_str())
    );
    assert_eq!(
        r.header("okf-binding-url"),
        Some(index.default_binding().index_url.as_str())
    );
    for (path, status, code) in [
        (
            "/api/bundles/nope/versions/current/index",
            404,
            "unknown_bundle",
        ),
        (
            "/api/bundles/example/versions/v9/index",
            404,
            "unknown_version",
        ),
        (
            "/api/bundles/https%3A%2F%2Fevil.example%2Fi.json/versions/current/index",
            400,
            "invalid_request",
        ),
        (
            "/api/bundles/example/versions/..%2F..%2Fetc/index",
            400,
            "invalid_request",
        ),
    ] {
        let r = server.request("GET", path, &[], b"");
        assert_eq!(r.status, status, "{path}: {}", r.text());
        assert_eq!(r.json()["error"]["code"], code, "{path}");
    }
    let post = server.request(
        "POST",
        "/api/bundles/example/versions/current/index",
        &[("Content-Type", "application/json")],
        b"{}",
    );
    assert_eq!(post.status, 405, "read-only");
}
