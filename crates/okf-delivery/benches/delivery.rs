//! Delivery benchmarks on the real DWP package (`../shared`), per BENCHMARKS.md: what a first
//! catalogue page of a new package costs on top of assembling it.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use criterion::{Criterion, criterion_group, criterion_main};
use okf_delivery::{Context, catalogue};
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

/// The DWP imprisonment package, as `/api/ask` serves it (about 489 KB).
fn package() -> String {
    let bytes = std::fs::read(INDEX).expect("DWP index in ../shared");
    let index = ContextIndex::from_json_slice(&bytes).expect("valid");
    let case: serde_json::Value =
        serde_json::from_slice(&std::fs::read(CASE).expect("case")).expect("case JSON");
    let question = case["question"].as_str().expect("question");
    assemble(&index, question, &Budget::default(), None)
        .expect("package")
        .json
}

fn benches(c: &mut Criterion) {
    let json = package();
    c.bench_function("delivery_context_dwp_package", |b| {
        b.iter(|| Context::from_canonical(black_box(json.clone())).expect("context"))
    });
    let context = Context::from_canonical(json.clone()).expect("context");
    c.bench_function("catalogue_first_page_16k_dwp_package", |b| {
        b.iter(|| catalogue(black_box(&context), 0, 16_384).expect("page"))
    });
    c.bench_function("copy_dwp_package", |b| b.iter(|| black_box(json.clone())));
}

criterion_group!(delivery, benches);
criterion_main!(delivery);
