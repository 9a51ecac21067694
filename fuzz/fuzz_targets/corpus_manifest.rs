//! Corpus manifest loading (`okf-context-corpus.v1`, `.v2`, `.v3`): any bytes as the
//! manifest of a corpus whose files are real. Parsing never panics; a manifest that parses
//! opens a corpus; assembling a probe question over it never panics, is deterministic, and
//! every package it returns verifies.
//!
//! The files behind the manifest: a small generated v3 corpus, and (when `../shared` is
//! beside the repository) the v1 and v2 reference vectors' files, chosen by the schema.
#![no_main]

use libfuzzer_sys::fuzz_target;
use okf_corpus::generate::{QUESTION, generate};
use okf_corpus::{Corpus, Manifest, MemorySource, Version};
use okf_engine::{Budget, verify_package};
use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::LazyLock;

type Files = BTreeMap<String, Vec<u8>>;

static GENERATED: LazyLock<Files> = LazyLock::new(|| {
    let built = generate(40, 10).expect("generated corpus");
    built.files.into_iter().collect()
});

/// The files of a reference vector (`files`: path to text or byte array), if present.
fn vector(name: &str) -> Files {
    let path = format!(
        "{}/../../shared/okf-explorer/fixtures/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    let Ok(bytes) = std::fs::read(path) else {
        return Files::new();
    };
    let inputs: Value = serde_json::from_slice(&bytes).expect("vector is JSON");
    let mut files = Files::new();
    for (path, content) in inputs["files"].as_object().into_iter().flatten() {
        let bytes = match content {
            Value::String(s) => s.as_bytes().to_vec(),
            Value::Array(a) => a
                .iter()
                .filter_map(Value::as_u64)
                .filter_map(|b| u8::try_from(b).ok())
                .collect(),
            _ => continue,
        };
        files.insert(path.clone(), bytes);
    }
    files
}

static V1: LazyLock<Files> = LazyLock::new(|| vector("context-corpus-v1-74e29-inputs.json"));
static V2: LazyLock<Files> =
    LazyLock::new(|| vector("context-corpus-v2-ea485af6-reconstructed.json"));

const QUESTIONS: [&str; 3] = [QUESTION, "apples", "access apples"];

fuzz_target!(|data: &[u8]| {
    let Ok(manifest) = Manifest::from_slice(data) else {
        return;
    };
    let files: &Files = match manifest.version() {
        Ok(Version::V1) => &V1,
        Ok(Version::V2) => &V2,
        Ok(Version::V3) => &GENERATED,
        Err(_) => return,
    };
    let mut source = MemorySource::new();
    for (path, bytes) in files {
        source.insert(path.clone(), bytes.clone());
    }
    source.insert("manifest.json", data.to_vec());
    let corpus = Corpus::open(Box::new(source), "manifest.json")
        .expect("a manifest that parses opens a corpus");
    for question in QUESTIONS {
        let first = corpus.assemble(question, &Budget::default(), None);
        let again = corpus.assemble(question, &Budget::default(), None);
        match (first, again) {
            (Ok(a), Ok(b)) => {
                assert_eq!(a.assembled.json, b.assembled.json, "deterministic");
                let value: Value = serde_json::from_str(&a.assembled.json).expect("JSON");
                verify_package(&value).expect("a fresh package verifies");
            }
            (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "deterministic"),
            (a, b) => panic!("one run failed: {:?} / {:?}", a.is_ok(), b.is_ok()),
        }
    }
});
