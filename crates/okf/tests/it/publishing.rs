//! docs/publishing.md, run end to end: a published HTML page and a PDF leaflet (written at
//! test time) captured, a profile started and pointed at a page of the PDF, built (lint
//! clean), rebuilt after the page changes, a case drafted and run, the digest pinned in the
//! registry by `okf registry pin`, the bundle served with --strict and asked over HTTP.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use crate::common::pdf::{require_pdftotext, small_pdf};
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

    // 1. Capture the page, and the PDF leaflet page by page (the same bytes twice).
    capture();
    require_pdftotext();
    let leaflet = small_pdf(&[
        &[
            "Council Tax Reduction: a short guide",
            "Apply online or by phone.",
        ],
        &[
            "Going into hospital",
            "Tell us within 21 days if you go into hospital for more than 4 weeks.",
        ],
    ]);
    std::fs::write(dir.join("ctr-leaflet.pdf"), &leaflet).unwrap();
    let pdf_url = "https://council.example/documents/ctr-leaflet.pdf";
    let capture_pdf = |out: &str| {
        run(&[
            "capture",
            &path("ctr-leaflet.pdf"),
            "--url",
            pdf_url,
            "--out",
            &path(out),
        ]);
        std::fs::read(dir.join(out)).unwrap()
    };
    let pdf_capture = capture_pdf("sources/leaflet.json");
    assert_eq!(
        pdf_capture,
        capture_pdf("leaflet-again.json"),
        "the same PDF gives the same bytes"
    );
    let pdf_capture: Value = serde_json::from_slice(&pdf_capture).unwrap();
    assert_eq!(pdf_capture["document_id"], "ctr-leaflet");
    assert_eq!(
        pdf_capture["source_sha256"],
        okf_engine::canonical::sha256_hex(&leaflet)
    );
    assert_eq!(
        pdf_capture["extraction"]["method"],
        "pdftotext -layout -enc UTF-8"
    );
    assert!(
        pdf_capture["extraction"]["tool"]
            .as_str()
            .unwrap()
            .starts_with("pdftotext version ")
    );
    let pdf_pages = pdf_capture["pages"].as_array().unwrap();
    assert_eq!(pdf_pages.len(), 2);
    assert_eq!(pdf_pages[1]["url"], format!("{pdf_url}#page=2"));
    assert!(
        pdf_pages[1]["text"]
            .as_str()
            .unwrap()
            .contains("within 21 days"),
        "{pdf_capture}"
    );
    for p in pdf_pages {
        let text = p["text"].as_str().unwrap();
        assert_eq!(
            p["literal_sha256"],
            okf_engine::canonical::sha256_hex(text.as_bytes())
        );
    }
    // 2. Start a profile.
    run(&[
        "init",
        &path("council"),
        "--sources",
        &path("sources"),
        "--captured-on",
        "2026-12-01",
    ]);
    // ... and point the first topic at page 2 of the leaflet too.
    let mut graph = std::fs::read_to_string(dir.join("council/graph.toml")).unwrap();
    graph.push_str(LEAFLET_RECORDS);
    std::fs::write(dir.join("council/graph.toml"), graph).unwrap();
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
    let index: Value =
        serde_json::from_slice(&std::fs::read(dir.join("council/index.json")).unwrap()).unwrap();
    assert!(
        index.to_string().contains(&format!("{pdf_url}#page=2")),
        "the leaflet's page is in the bundle"
    );
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
    assert!(package.contains("evidence/leaflet-hospital"), "{package}");
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
    // 5. Pin the index's digest in the registry, serve with --strict, and ask over HTTP.
    let registry = "# Example Council's bundles.\n[[bundle]]\nid = \"council-ctr\"\nindex = \"council/index-2.json\"\nsha256 = \"\"  # okf registry pin writes it\nindex_url = \"https://council.example/ask-okf/index.json\"\ntitle = \"Example Council: Council Tax Reduction\"\nexamples = [\"First topic\"]\n";
    std::fs::write(dir.join("registry.toml"), registry).unwrap();
    let pinned = run(&[
        "registry",
        "pin",
        "--registry",
        &path("registry.toml"),
        "--bundle",
        "council-ctr",
    ]);
    let digest = okf_engine::canonical::sha256_hex(
        &std::fs::read(dir.join("council/index-2.json")).unwrap(),
    );
    assert!(pinned.contains(&digest), "{pinned}");
    assert_eq!(
        std::fs::read_to_string(dir.join("registry.toml")).unwrap(),
        registry.replace("sha256 = \"\"", &format!("sha256 = \"{digest}\"")),
        "only the digest changes"
    );
    let unknown = okf(&[
        "registry",
        "pin",
        "--registry",
        &path("registry.toml"),
        "--bundle",
        "council",
    ]);
    assert!(
        !unknown.status.success() && stderr(&unknown).contains("--bundle"),
        "{}",
        stderr(&unknown)
    );
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
    // Ordinary words (the starter vocabulary `okf init` wrote) and a possessive leave a covered
    // question sufficient; a topic the bundle does not cover is insufficient and says so.
    let ask = |question: &str| -> Value {
        let body = json!({"bundle": "council-ctr", "question": question}).to_string();
        let answer = server.request(
            "POST",
            "/api/ask",
            &[("Content-Type", "application/json")],
            body.as_bytes(),
        );
        assert_eq!(answer.status, 200);
        answer.json()
    };
    let covered = ask("Do I still keep the first topic's information?");
    assert_eq!(covered["evidence_status"], "sufficient", "{covered}");
    assert_eq!(covered["unresolved_terms"], json!([]), "{covered}");
    let uncovered = ask("Do I still keep my parking permit?");
    assert_eq!(uncovered["evidence_status"], "insufficient", "{uncovered}");
    let codes: Vec<&str> = uncovered["missing_evidence"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|issue| issue["code"].as_str())
        .collect();
    assert!(codes.contains(&"topic_not_covered"), "{uncovered}");
    assert_eq!(uncovered["unresolved_terms"], json!(["parking", "permit"]));
    let bundles: Value = server.request("GET", "/api/bundles", &[], b"").json();
    assert_eq!(bundles["bundles"][0]["examples"], json!(["First topic"]));
}

/// What docs/publishing.md step 2 adds to `council/graph.toml`: page 2 of the PDF leaflet as an
/// evidence record the first topic references.
const LEAFLET_RECORDS: &str = r#"
[[record]]
kind = "evidence"
route = "evidence/leaflet-hospital"
label = "Leaflet: going into hospital"
source = { document = "ctr-leaflet", page = 2, locator = "page 2" }

[[assertion]]
route = "assertion/first-topic-leaflet"
from = "concept/first-topic"
predicate = "references"
to = "evidence/leaflet-hospital"
label = "The leaflet explains the first topic too"
provenance = "target"
"#;
