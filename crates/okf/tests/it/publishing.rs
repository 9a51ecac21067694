//! docs/publishing.md, run end to end: a published HTML page captured, a profile started,
//! built (lint clean), rebuilt after the page changes, a case drafted and run, the bundle
//! served with --strict and asked over HTTP.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use crate::common::{Server, okf, stderr, stdout, temp_dir};
use serde_json::{Value, json};
use std::path::Path;

fn run(args: &[&str]) -> String {
    let o = okf(args);
    assert!(
        o.status.success(),
        "okf {args:?}: {}{}",
        stdout(&o),
        stderr(&o)
    );
    stdout(&o)
}

#[test]
fn the_publishing_walkthrough_runs_end_to_end() {
    let dir = temp_dir("publishing");
    let path = |p: &str| dir.join(p).to_str().unwrap().to_owned();
    let fixture = Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/council-tax-reduction.html"
    ));
    std::fs::copy(fixture, dir.join("council-tax-reduction.html")).unwrap();
    std::fs::create_dir_all(dir.join("sources")).unwrap();
    let url = "https://council.example/council-tax-reduction";
    let capture = || {
        let (page, out) = (path("council-tax-reduction.html"), path("sources/ctr.json"));
        run(&["capture", &page, "--url", url, "--out", &out]);
    };

    // 1. Capture.
    capture();
    // 2. Start a profile.
    run(&[
        "init",
        &path("council"),
        "--sources",
        &path("sources"),
        "--captured-on",
        "2026-12-01",
    ]);
    // 3. Build (lint runs; it is clean), then rebuild after the page is republished.
    let built = run(&[
        "build",
        &path("council"),
        "--sources",
        &path("sources"),
        "--out",
        &path("council/index.json"),
    ]);
    assert!(!built.contains("lint:"), "no lint warning: {built}");
    let page = std::fs::read_to_string(dir.join("council-tax-reduction.html")).unwrap();
    std::fs::write(
        dir.join("council-tax-reduction.html"),
        page.replace("1 October 2026", "1 November 2026"),
    )
    .unwrap();
    capture();
    let rebuilt = run(&[
        "build",
        &path("council"),
        "--sources",
        &path("sources"),
        "--out",
        &path("council/index-2.json"),
        "--previous",
        &path("council/index.json"),
    ]);
    assert!(rebuilt.contains("1 record(s) changed text"), "{rebuilt}");
    // 4. A first evaluation case, drafted from a package, then run on its own; the self-check.
    let package = run(&[
        "ask",
        "--index",
        &path("council/index-2.json"),
        "--json",
        "First topic",
    ]);
    std::fs::write(dir.join("package.json"), package).unwrap();
    run(&[
        "eval",
        "--index",
        &path("council/index-2.json"),
        "--draft-from",
        &path("package.json"),
        "--out",
        &path("council/case.json"),
    ]);
    run(&[
        "eval",
        "--index",
        &path("council/index-2.json"),
        "--case",
        &path("council/case.json"),
    ]);
    run(&[
        "eval",
        "--index",
        &path("council/index-2.json"),
        "--self-check",
    ]);
    // 5. Serve with --strict, and ask over HTTP.
    let index = std::fs::read(dir.join("council/index-2.json")).unwrap();
    std::fs::write(
        dir.join("registry.toml"),
        format!(
            "[[bundle]]\nid = \"council-ctr\"\nindex = \"council/index-2.json\"\nsha256 = \"{}\"\nindex_url = \"https://council.example/ask-okf/index.json\"\ntitle = \"Example Council: Council Tax Reduction\"\nexamples = [\"First topic\"]\n",
            okf_engine::canonical::sha256_hex(&index)
        ),
    )
    .unwrap();
    let server = Server::start(&["--registry", &path("registry.toml"), "--strict"]);
    let body = json!({"bundle": "council-ctr", "question": "First topic"}).to_string();
    let answer = server.request(
        "POST",
        "/api/ask",
        &[("Content-Type", "application/json")],
        body.as_bytes(),
    );
    assert_eq!(answer.status, 200);
    let package: Value = answer.json();
    assert_eq!(package["evidence_status"], "sufficient");
    let bundles: Value = server.request("GET", "/api/bundles", &[], b"").json();
    assert_eq!(bundles["bundles"][0]["examples"], json!(["First topic"]));
}
