//! Engine benchmarks on the real DWP index (`../shared`), per BENCHMARKS.md.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use criterion::{Criterion, criterion_group, criterion_main};
use okf_engine::{Binding, Budget, ContextIndex, assemble};
use std::hint::black_box;

const INDEX: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../../shared/dwp/full-dmg/context/assembly-index.json"
);
const CASE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../../shared/dwp/evaluation/context-assembly/imprisonment-case.json"
);

fn inputs() -> (Vec<u8>, String) {
    let bytes = std::fs::read(INDEX).expect("DWP index in ../shared");
    let case: serde_json::Value =
        serde_json::from_slice(&std::fs::read(CASE).expect("case")).expect("case JSON");
    (
        bytes,
        case["question"].as_str().expect("question").to_owned(),
    )
}

fn benches(c: &mut Criterion) {
    let (bytes, question) = inputs();
    c.bench_function("load_and_validate_dwp_index", |b| {
        b.iter(|| ContextIndex::from_json_slice(black_box(&bytes)).expect("valid"))
    });
    let index = ContextIndex::from_json_slice(&bytes).expect("valid");
    let binding = Binding {
        index_url: "https://raw.githubusercontent.com/chris-page-gov/okf-dwp/efb05c66616a9cd4328a86cf412780fe7bc7cf0b/full-dmg/context/assembly-index.json".into(),
        index_sha256: "38159445a60d4bcabc23cb2cf728e14cbd0a4b55013276c291356e7a1452ff54".into(),
    };
    c.bench_function("assemble_dwp_imprisonment", |b| {
        b.iter(|| {
            assemble(
                &index,
                black_box(&question),
                &Budget::default(),
                Some(&binding),
            )
            .expect("package")
        })
    });
    let small = Budget {
        max_bytes: 65_536,
        ..Budget::default()
    };
    c.bench_function("assemble_dwp_imprisonment_trimmed_64k", |b| {
        b.iter(|| assemble(&index, black_box(&question), &small, Some(&binding)).expect("package"))
    });
}

criterion_group!(engine, benches);
criterion_main!(engine);
