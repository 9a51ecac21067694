//! Shared fixtures for the okf-eval tests: the embedded example bundle, its borrow-books case
//! and controls (crates/okf/example), and the DWP files in ../shared, read by relative path.

#![allow(clippy::unwrap_used, clippy::expect_used, dead_code)]

use okf_engine::{Budget, ContextIndex, assemble};
use okf_eval::{Case, Controls};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Base of every example-bundle id.
pub const EX: &str = "https://example.org/okf-example/";

/// `EX` + a relative id, e.g. `ex("evidence/lending-rules")`.
pub fn ex(rel: &str) -> String {
    format!("{EX}{rel}")
}

fn example_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../okf/example")
}

/// A file of `../shared`, read as bytes.
pub fn shared(rel: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared")
        .join(rel);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The DWP index bytes.
pub fn dwp_index_bytes() -> Vec<u8> {
    shared("dwp/full-dmg/context/assembly-index.json")
}

/// The example index as JSON.
pub fn example_index_value() -> Value {
    serde_json::from_slice(&std::fs::read(example_dir().join("index.json")).unwrap()).unwrap()
}

/// The example index bytes.
pub fn example_index_bytes() -> Vec<u8> {
    std::fs::read(example_dir().join("index.json")).unwrap()
}

/// The example index, validated.
pub fn example_index() -> ContextIndex {
    ContextIndex::from_json_slice(&example_index_bytes()).unwrap()
}

/// An index from JSON.
pub fn index_of(value: &Value) -> ContextIndex {
    ContextIndex::from_value(value.clone(), None).unwrap()
}

/// The borrow-books case as JSON.
pub fn example_case_value() -> Value {
    serde_json::from_slice(&std::fs::read(example_dir().join("case.json")).unwrap()).unwrap()
}

/// A case from JSON.
pub fn case_of(value: &Value) -> Case {
    Case::from_slice(&serde_json::to_vec(value).unwrap()).unwrap()
}

/// The example controls as JSON.
pub fn example_controls_value() -> Value {
    serde_json::from_slice(&std::fs::read(example_dir().join("controls.json")).unwrap()).unwrap()
}

/// Controls from JSON.
pub fn controls_of(value: &Value) -> Controls {
    Controls::from_slice(&serde_json::to_vec(value).unwrap()).unwrap()
}

/// A package for `question`, as JSON, with the index's default binding.
pub fn package(index: &ContextIndex, question: &str) -> Value {
    let a = assemble(index, question, &Budget::default(), None).unwrap();
    serde_json::from_str(&a.json).unwrap()
}

/// The borrow-books case parsed from the file's own bytes (member order as written).
pub fn example_case() -> Case {
    Case::from_slice(&std::fs::read(example_dir().join("case.json")).unwrap()).unwrap()
}
