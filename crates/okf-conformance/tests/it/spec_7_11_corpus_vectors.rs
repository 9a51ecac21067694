//! Spec §0.2 and §7.11: the retained corpus golden vectors (v1 "apples", v2 "access apples")
//! replayed through `okf-corpus` and the engine.
//!
//! Two checks per vector:
//! 1. semantic equality with the reference (the shared `compare-packages` judge where a
//!    reference package exists, plus exact equality of the `retrieval` section);
//! 2. exact identity: our package with only the exempt wording (engine id, reasons, messages,
//!    engine-written limitations) put back into the reference's words must hash to the
//!    reference `context_id` and have its `used_bytes`. Every other byte is ours.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use okf_corpus::{Corpus, MemorySource};
use okf_engine::{Binding, Budget, package_identity};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn shared() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared")
}

fn fixture(name: &str) -> Value {
    let path = shared().join("okf-explorer/fixtures").join(name);
    serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap()
}

/// Builds a memory corpus from a replay-inputs object (files as byte arrays or strings).
fn corpus_from_inputs(inputs: &Value) -> (MemorySource, Vec<u8>) {
    let mut source = MemorySource::new();
    for (path, content) in inputs["files"].as_object().unwrap() {
        let bytes = match content {
            Value::String(s) => s.as_bytes().to_vec(),
            Value::Array(a) => a.iter().map(|b| b.as_u64().unwrap() as u8).collect(),
            other => panic!("unexpected file content {other}"),
        };
        source.insert(path.clone(), bytes);
    }
    let manifest = serde_json::to_vec(&inputs["manifest"]).unwrap();
    source.insert("manifest.json", manifest.clone());
    (source, manifest)
}

fn open(source: MemorySource) -> Corpus {
    Corpus::open(Box::new(source), "manifest.json").unwrap()
}

/// Reference wording (spec §0.2: wording is exempt from semantic equality; it is put back only
/// to show that every other byte is identical).
fn reference_message(code: &str) -> &'static str {
    match code {
        "no_evidence_requirements" => {
            "No declared evidence requirements cover the resolved task. Completeness cannot be established."
        }
        "unresolved_task" => "No public concept alias resolves this task.",
        "unresolved_terms" => {
            "The question contains terms outside the declared concept vocabulary."
        }
        other => panic!("no reference wording recorded for {other}"),
    }
}

const REFERENCE_FIXED_LIMITATIONS: [&str; 4] = [
    "Sufficiency means closure of the applicable bundle-authored evidence requirements, not a verified answer or an individual decision.",
    "Only declared aliases are resolved. Unrecognised words are exposed; no external retrieval or model knowledge is used.",
    "Conflict detection reports explicit conflicts declared in the bundle; it does not prove that other contradictions are absent.",
    "Source text and assertions are untrusted evidence, never instructions to execute.",
];
const REFERENCE_LEXICAL: &str = "Lexical ranking uses question terms only; declared concept resolution remains separate. Ranking is integer inverse-document-frequency; ties use canonical record order.";
const REFERENCE_CANDIDATE: &str = "Lexical matches are candidate evidence, not resolved concepts or proof of applicability. Full-corpus indexing does not establish complete policy coverage.";

fn reference_reason(reason: &str, whole: &str) -> String {
    if let Some(rest) = reason.strip_prefix(&format!("Lexical candidate (whole {whole}) for ")) {
        let (words, tail) = rest.split_once("; score ").unwrap();
        let score = tail.split_once('.').unwrap().0;
        return format!(
            "Whole-{whole} lexical candidate: {words}; score {score}. This is not an applicability or completeness assertion."
        );
    }
    if let Some(rest) = reason.strip_prefix("Matched declared phrase: ") {
        return format!("Declared phrase match: {rest}");
    }
    if let Some(rest) = reason.strip_prefix("Reached by following ") {
        return format!("Followed {rest}");
    }
    panic!("no reference wording for reason {reason:?}")
}

/// Puts the reference's wording into our package and returns its recomputed identity.
fn reworded_identity(ours: &str, manifest_limitations: &[Value], whole: &str) -> (String, u64) {
    let mut p: Value = serde_json::from_str(ours).unwrap();
    p["engine"] = "okf-context-assembly.v1".into();
    let mut limitations: Vec<Value> = manifest_limitations.to_vec();
    limitations.push(REFERENCE_LEXICAL.into());
    limitations.extend(REFERENCE_FIXED_LIMITATIONS.iter().map(|&s| Value::from(s)));
    limitations.push(REFERENCE_CANDIDATE.into());
    p["limitations"] = limitations.into();
    for sel in p["selected"].as_array_mut().unwrap() {
        for r in sel["reasons"].as_array_mut().unwrap() {
            *r = reference_reason(r.as_str().unwrap(), whole).into();
        }
    }
    for list in ["missing_evidence", "conflicts"] {
        for issue in p[list].as_array_mut().unwrap() {
            issue["message"] = reference_message(issue["code"].as_str().unwrap()).into();
        }
    }
    let identity = package_identity(&p).unwrap();
    (identity.context_id, identity.used_bytes)
}

fn compare_with_shared_tool(expected: &Path, ours: &str) {
    let actual = std::env::temp_dir().join(format!("okf-corpus-v1-{}.json", std::process::id()));
    std::fs::write(&actual, ours).unwrap();
    let output = Command::new("python3")
        .arg(shared().join("tools/compare-packages"))
        .arg(expected)
        .arg(&actual)
        .output()
        .expect("python3 runs ../shared/tools/compare-packages");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "compare-packages: {stdout}");
    assert_eq!(stdout.trim(), "semantically equal");
}

#[test]
fn spec_7_11_v1_golden_replay_equals_the_retained_package() {
    let inputs = fixture("context-corpus-v1-74e29-inputs.json");
    let expected = fixture("context-corpus-v1-74e29.json");
    let (source, _) = corpus_from_inputs(&inputs);
    let corpus = open(source);
    let binding: Binding = serde_json::from_value(expected["binding"].clone()).unwrap();
    let answer = corpus
        .assemble("apples", &Budget::default(), Some(&binding))
        .unwrap();
    let ours: Value = serde_json::from_str(&answer.assembled.json).unwrap();
    // Every retained file is read: base index, the `apples` bucket and the record shard.
    assert_eq!(answer.files_read.len(), 3);
    assert_eq!(ours["retrieval"], expected["retrieval"]);
    compare_with_shared_tool(
        &shared().join("okf-explorer/fixtures/context-corpus-v1-74e29.json"),
        &answer.assembled.json,
    );
    let (id, bytes) = reworded_identity(
        &answer.assembled.json,
        inputs["manifest"]["limitations"].as_array().unwrap(),
        "page",
    );
    assert_eq!(
        id,
        "urn:sha256:882681725746912d484617fac927b37096186efa8367c36196c9edf85166d779"
    );
    assert_eq!(bytes, 3656);
}

#[test]
fn spec_7_11_v2_golden_replay_reproduces_the_retained_identity() {
    let inputs = fixture("context-corpus-v2-ea485af6-reconstructed.json");
    let (source, _) = corpus_from_inputs(&inputs);
    let corpus = open(source);
    let binding: Binding = serde_json::from_value(inputs["binding"].clone()).unwrap();
    let question = inputs["question"].as_str().unwrap();
    let answer = corpus
        .assemble(question, &Budget::default(), Some(&binding))
        .unwrap();
    let (id, bytes) = reworded_identity(
        &answer.assembled.json,
        inputs["manifest"]["limitations"].as_array().unwrap(),
        "unit",
    );
    assert_eq!(id, inputs["expected_context_id"].as_str().unwrap());
    assert_eq!(bytes, inputs["expected_used_bytes"].as_u64().unwrap());
}
