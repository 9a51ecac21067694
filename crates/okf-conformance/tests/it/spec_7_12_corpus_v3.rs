//! Spec §7.12, corpora: a v3 corpus built by `okf_corpus::build_v3` from the DWP index
//! answers the imprisonment question like the direct index.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use okf_corpus::{Corpus, MemorySource, build_v3};
use okf_engine::{Binding, Budget, ContextIndex, assemble};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn shared() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared")
}

fn dwp() -> ContextIndex {
    ContextIndex::from_json_slice(
        &std::fs::read(shared().join("dwp/full-dmg/context/assembly-index.json")).unwrap(),
    )
    .unwrap()
}

fn memory_corpus(index: &ContextIndex, per_shard: usize) -> MemorySource {
    let built = build_v3(index, per_shard).unwrap();
    let mut source = MemorySource::new();
    for (path, bytes) in built.files {
        source.insert(path, bytes);
    }
    source.insert("manifest.json", built.manifest_bytes);
    source
}

fn requirements(p: &Value) -> Vec<(String, String, Vec<String>)> {
    p["requirements"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let mut missing: Vec<String> = r["missing"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| m.as_str().unwrap().to_owned())
                .collect();
            missing.sort();
            (
                r["id"].as_str().unwrap().to_owned(),
                r["status"].as_str().unwrap().to_owned(),
                missing,
            )
        })
        .collect()
}

#[test]
fn issue_15_dwp_corpus_answers_the_imprisonment_question_like_the_direct_index() {
    let index = dwp();
    let reference: Value = serde_json::from_slice(
        &std::fs::read(shared().join("dwp/reference/imprisonment-package.json")).unwrap(),
    )
    .unwrap();
    let question = reference["question"].as_str().unwrap();
    let binding: Binding = serde_json::from_value(reference["binding"].clone()).unwrap();
    let direct = assemble(&index, question, &Budget::default(), Some(&binding)).unwrap();
    let direct: Value = serde_json::from_str(&direct.json).unwrap();

    let corpus = Corpus::open(Box::new(memory_corpus(&index, 8)), "manifest.json").unwrap();
    let answer = corpus
        .assemble(question, &Budget::default(), Some(&binding))
        .unwrap();
    let ours: Value = serde_json::from_str(&answer.assembled.json).unwrap();
    let ids = |p: &Value, list: &str, pick: &dyn Fn(&Value) -> String| {
        let mut v: Vec<String> = p[list].as_array().unwrap().iter().map(pick).collect();
        v.sort();
        v
    };
    let record_id = |s: &Value| s["record"]["id"].as_str().unwrap().to_owned();
    let own_id = |a: &Value| a["id"].as_str().unwrap().to_owned();
    // The same evidence and edges (selection order differs: lexical seeds come first).
    assert_eq!(
        ids(&ours, "selected", &record_id),
        ids(&direct, "selected", &record_id)
    );
    assert_eq!(
        ids(&ours, "relationships", &own_id),
        ids(&direct, "relationships", &own_id)
    );
    // Lexical cut-offs are reported in retrieval but are not evidence omissions.
    let retrieval = &ours["retrieval"];
    assert_eq!(retrieval["method"], "source-bound-discovery-bm25.v1");
    let admitted = retrieval["candidates"].as_array().unwrap().len();
    assert!((1..=16).contains(&admitted), "{admitted}");
    let retrieval_codes: Vec<&str> = retrieval["omissions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["code"].as_str().unwrap())
        .collect();
    assert!(retrieval_codes.contains(&"retrieval_candidate_budget"));
    assert!(retrieval["candidate_count"].as_u64().unwrap() > 16);
    assert_eq!(retrieval["truncated"], true);
    assert!(retrieval["fetched_files"].as_u64().unwrap() <= 64);
    assert_eq!(ours["budget"]["omissions"], serde_json::json!([]));
    let codes = |p: &Value| -> Vec<String> {
        p["missing_evidence"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["code"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(codes(&ours), codes(&direct));
    assert_eq!(ours["evidence_status"], direct["evidence_status"]);
    assert_eq!(requirements(&ours), requirements(&direct));
}

#[test]
fn spec_3_10_small_budget_keeps_the_package_within_max_bytes_and_reduces_retrieval() {
    let index = dwp();
    let corpus = Corpus::open(Box::new(memory_corpus(&index, 8)), "manifest.json").unwrap();
    let budget = Budget::with_overrides(None, None, None, Some(8192)).unwrap();
    let answer = corpus
        .assemble(
            "A claimant is imprisoned. Explain the effect on JSA",
            &budget,
            None,
        )
        .unwrap();
    assert!(answer.assembled.used_bytes <= 8192);
    let p: Value = serde_json::from_str(&answer.assembled.json).unwrap();
    assert_eq!(p["evidence_status"], "insufficient");
    let retrieval = &p["retrieval"];
    // Metadata fallback (spec §3.10): retrieval detail is emptied, counters are kept.
    assert_eq!(retrieval["candidates"], serde_json::json!([]));
    assert_eq!(retrieval["query_tokens"], serde_json::json!([]));
    assert_eq!(retrieval["truncated"], true);
    assert_eq!(retrieval["omissions"][0]["code"], "metadata_budget");
    assert!(retrieval.get("discovery").is_none());
    assert!(retrieval["fetched_files"].as_u64().unwrap() > 0);
}
