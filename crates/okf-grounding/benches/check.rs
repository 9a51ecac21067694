//! Checking a four-claim answer against the DWP imprisonment reference package (52 records,
//! about 490 KB): `cargo bench -p okf-grounding`.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::{Value, json};

fn dwp() -> (Value, Value) {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/dwp/reference/imprisonment-package.json"
    );
    let p: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    let text = |id: &str| -> String {
        p["selected"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["record"]["id"] == id)
            .unwrap()["record"]["text"]
            .as_str()
            .unwrap()
            .chars()
            .skip(200)
            .take(80)
            .collect()
    };
    // One claim per branch, each quoting the last long record only that branch (not every one) requires.
    let claims: Vec<Value> = p["requirements"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let shared = |id: &Value| p["requirements"].as_array().unwrap().iter().all(|o| o["required"].as_array().unwrap().contains(id));
            let id = r["required"].as_array().unwrap().iter().rev().find(|id| {
                !shared(id) && p["selected"].as_array().unwrap().iter().any(|s| s["record"]["id"] == **id && s["record"]["text"].as_str().unwrap().chars().count() > 400)
            }).unwrap().as_str().unwrap().to_owned();
            json!({"id": format!("c{i}"), "text": "…", "requirement": r["id"], "citations": [{"record": id, "quote": text(&id)}]})
        })
        .collect();
    let answer = json!({"schema": "okf-grounded-answer.v1", "context_id": p["context_id"], "evidence_status": p["evidence_status"], "claims": claims});
    (p, answer)
}

fn bench(c: &mut Criterion) {
    let (package, answer) = dwp();
    let report = okf_grounding::check_json(&package, &answer).unwrap();
    assert!(report.contains("\"verdict\":\"grounded\""), "{report}");
    c.bench_function("check_answer_dwp_imprisonment_4_claims", |b| {
        b.iter(|| okf_grounding::check_json(&package, &answer).unwrap())
    });
    // What the server does per call: parse the retained package's bytes, then check.
    let bytes = serde_json::to_vec(&package).unwrap();
    c.bench_function("parse_package_and_check_dwp_imprisonment", |b| {
        b.iter(|| {
            let parsed: Value = serde_json::from_slice(&bytes).unwrap();
            okf_grounding::check_json(&parsed, &answer).unwrap()
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
