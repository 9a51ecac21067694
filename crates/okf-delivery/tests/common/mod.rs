//! Synthetic packages for delivery tests: a valid `okf-governed-context.v1` shape with a correct
//! identity, built around the records a test needs.

#![allow(clippy::unwrap_used, clippy::expect_used, dead_code)]
use okf_delivery::Context;
use serde_json::{Value, json};

/// A selection item for a public evidence record with the given id and text.
pub fn item(id: &str, label: &str, text: &str) -> Value {
    json!({
        "record": {
            "access": "public",
            "assertion_status": "source-stated",
            "authority": {"class": "official-guidance", "label": "Study club rules", "source": "https://example.org/club"},
            "id": id,
            "kind": "evidence",
            "label": label,
            "provenance": [{"captured_at": "2026-01-01T00:00:00Z", "locator": "rule 1", "source_sha256": "0".repeat(64), "url": "https://example.org/club/rules.pdf#page=1"}],
            "rights": "https://example.org/licence",
            "route": "evidence/club",
            "scope": "Study club",
            "text": text
        },
        "reasons": ["resolved concept"],
        "paths": [{"seed": id, "assertions": [], "records": [id]}]
    })
}

/// A package around `selected`, with `context_id` and `used_bytes` computed by the identity rule.
pub fn package(selected: Vec<Value>, status: &str, truncated: bool) -> String {
    let mut p = json!({
        "schema": "okf-governed-context.v1",
        "context_id": "",
        "engine": "test-engine",
        "question": "How does the study club work?",
        "bundle": {"id": "https://example.org/club", "snapshot": "club-1", "source_url": "https://example.org/club"},
        "binding": {"index_url": "https://example.org/club/index.json", "index_sha256": "1".repeat(64)},
        "scope": "Study club",
        "evidence_status": status,
        "resolved_concepts": [],
        "ambiguities": [],
        "unresolved_terms": [],
        "selected": selected,
        "relationships": [{"id": "urn:a:1", "subject": "urn:x", "predicate": "requires", "object": "urn:y"}],
        "requirements": [],
        "missing_evidence": [{"code": "no_evidence_requirements", "message": "none", "ids": []}],
        "conflicts": [],
        "limitations": ["synthetic"],
        "budget": {"max_nodes": 64, "max_relationships": 128, "max_depth": 6, "max_bytes": 524288,
                   "used_nodes": 1, "used_relationships": 1, "used_bytes": 0, "reached_depth": 0,
                   "truncated": truncated, "omissions": []},
        "ai_answer": null
    });
    for _ in 0..4 {
        let identity =
            okf_engine::package_identity(&p).expect("synthetic package is canonicalisable");
        p["context_id"] = json!(identity.context_id);
        p["budget"]["used_bytes"] = json!(identity.used_bytes);
    }
    let text = okf_engine::canonical::to_canonical_string(&p).expect("canonical");
    okf_engine::verify_package(&serde_json::from_str(&text).expect("json"))
        .expect("synthetic package verifies");
    text
}

/// A verified context around `selected`.
pub fn context(selected: Vec<Value>) -> Context {
    Context::from_stored(package(selected, "insufficient", false), None).expect("stored gate")
}
