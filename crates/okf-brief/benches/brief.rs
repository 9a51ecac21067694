//! Brief benchmarks on the real DWP package (`../shared`), per BENCHMARKS.md: what the text
//! block of an MCP `ask_okf` result costs on top of assembling the package.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use criterion::{Criterion, criterion_group, criterion_main};
use okf_brief::{BriefOptions, render};
use okf_engine::{Budget, ContextIndex, assemble};
use std::hint::black_box;

const INDEX: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../../shared/dwp/full-dmg/context/assembly-index.json"
);
const CASE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../../shared/dwp/evaluation/context-assembly/imprisonment-case.json"
);

fn benches(c: &mut Criterion) {
    let bytes = std::fs::read(INDEX).expect("DWP index in ../shared");
    let index = ContextIndex::from_json_slice(&bytes).expect("valid");
    let case: serde_json::Value =
        serde_json::from_slice(&std::fs::read(CASE).expect("case")).expect("case JSON");
    let question = case["question"].as_str().expect("question");
    let json = assemble(&index, question, &Budget::default(), None)
        .expect("package")
        .json;
    c.bench_function("brief_dwp_package", |b| {
        b.iter(|| render(black_box(&json), &BriefOptions::default()).expect("brief"))
    });
}

criterion_group!(brief, benches);
criterion_main!(brief);
