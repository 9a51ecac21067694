//! Spec §7.9: cycles, determinism and identity (§4), on a direct index.
//!
//! Skipped from §7.9: the corpus fetch-timing checks (§7.11, §7.12) and the golden replay
//! (§0.2), which belong to corpus loading and the reference-vector tests, not to direct-index
//! assembly.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::*;
use okf_engine::canonical::to_canonical_string;
use okf_engine::{Error, PackageRule, explain, package_identity, verify_package};
use serde_json::{Value, json};

fn cyclic() -> Value {
    let mut ix = study_club();
    push(
        &mut ix,
        "assertions",
        extra_assertion(
            &id("assertion/cycle"),
            &id("evidence/library"),
            &id("concept/reading"),
        ),
    );
    ix
}

fn is_context_id(s: &str) -> bool {
    s.strip_prefix("urn:sha256:").is_some_and(|hex| {
        hex.len() == 64
            && hex
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    })
}

#[test]
fn cycles_terminate_and_identities_are_reproducible() {
    let ix = cyclic();
    let a = ask_default(&ix, "Reading circle");
    let b = ask_default(&ix, "Reading circle");
    assert_eq!(a, b);
    let context_id = a["context_id"].as_str().unwrap();
    assert!(is_context_id(context_id), "{context_id}");
    assert_eq!(status(&a), "sufficient");
    // The cycle edge is skipped silently: no omission, no relationship, no extra path.
    assert!(!relationship_ids(&a).contains(&id("assertion/cycle")));
    assert_eq!(a["budget"]["omissions"], json!([]));
    assert_eq!(
        selection(&a, &id("concept/reading"))["paths"]
            .as_array()
            .unwrap()
            .len(),
        1
    );

    let view = explain(&a, Some(&id("evidence/library")));
    assert_eq!(view["context_id"], a["context_id"]);
    assert_eq!(view["item"]["record"]["id"], json!(id("evidence/library")));
    assert_eq!(
        view["item"]["paths"],
        selection(&a, &id("evidence/library"))["paths"]
    );
}

#[test]
fn cycles_do_not_block_other_paths_through_the_same_node() {
    // Two roots reach library; each path is blocked only by its own records.
    let mut ix = cyclic();
    push(
        &mut ix,
        "assertions",
        extra_assertion(
            &id("assertion/repair-library"),
            &id("concept/repair"),
            &id("evidence/library"),
        ),
    );
    let pkg = ask_default(&ix, "Reading circle and Repair demonstration");
    let library = selection(&pkg, &id("evidence/library"));
    assert_eq!(library["paths"].as_array().unwrap().len(), 2);
    // From the repair root, library → concept/reading is not a cycle, but concept/reading is
    // already selected, so the new path is stored on it rather than re-expanded.
    let reading_paths = selection(&pkg, &id("concept/reading"))["paths"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(reading_paths.len(), 2);
    assert_eq!(reading_paths[1]["seed"], json!(id("concept/repair")));
    assert!(relationship_ids(&pkg).contains(&id("assertion/cycle")));
}

#[test]
fn canonical_json_ignores_key_order() {
    let a: Value = serde_json::from_str(r#"{"b":1,"a":{"y":[1,2],"x":"é"},"é":null}"#).unwrap();
    let b: Value = serde_json::from_str(r#"{"é":null,"a":{"x":"é","y":[1,2]},"b":1}"#).unwrap();
    assert_eq!(
        to_canonical_string(&a).unwrap(),
        to_canonical_string(&b).unwrap()
    );
    assert_eq!(
        to_canonical_string(&a).unwrap(),
        r#"{"a":{"x":"é","y":[1,2]},"b":1,"é":null}"#
    );

    // The same index written with keys in another order binds and assembles identically.
    let ix = cyclic();
    let reordered_text = reorder_keys(&ix);
    let reordered: Value = serde_json::from_str(&reordered_text).unwrap();
    let p1 = ask_default(&ix, "Reading circle");
    let p2 = ask_default(&reordered, "Reading circle");
    assert_eq!(p1["context_id"], p2["context_id"]);
    assert_eq!(p1["binding"], p2["binding"]);
}

/// Writes a JSON value with every object's keys in reverse order.
fn reorder_keys(v: &Value) -> String {
    match v {
        Value::Object(map) => {
            let parts: Vec<String> = map
                .iter()
                .rev()
                .map(|(k, v)| format!("{}:{}", serde_json::to_string(k).unwrap(), reorder_keys(v)))
                .collect();
            format!("{{{}}}", parts.join(","))
        }
        Value::Array(items) => {
            format!(
                "[{}]",
                items.iter().map(reorder_keys).collect::<Vec<_>>().join(",")
            )
        }
        other => serde_json::to_string(other).unwrap(),
    }
}

#[test]
fn the_package_is_canonical_json_and_its_identity_recomputes() {
    let ix = study_club();
    let index = index(&ix).unwrap();
    let assembled = okf_engine::assemble(
        &index,
        "Explain Reading circle",
        &okf_engine::Budget::default(),
        None,
    )
    .unwrap();
    let pkg: Value = serde_json::from_str(&assembled.json).unwrap();
    assert_eq!(to_canonical_string(&pkg).unwrap(), assembled.json);
    let identity = package_identity(&pkg).unwrap();
    assert_eq!(identity.context_id, assembled.context_id);
    assert_eq!(identity.used_bytes, assembled.used_bytes);

    // context_id hashes the package without context_id and budget.used_bytes.
    let mut unsigned = pkg.clone();
    unsigned.as_object_mut().unwrap().remove("context_id");
    unsigned["budget"]
        .as_object_mut()
        .unwrap()
        .remove("used_bytes");
    assert_eq!(
        format!(
            "urn:sha256:{}",
            sha(&to_canonical_string(&unsigned).unwrap())
        ),
        assembled.context_id
    );

    // Emission fields of §1.5.
    assert_eq!(pkg["schema"], "okf-governed-context.v1");
    assert_eq!(pkg["engine"], okf_engine::ENGINE_ID);
    assert_ne!(pkg["engine"], "okf-context-assembly.v1");
    for key in [
        "max_nodes",
        "max_relationships",
        "max_depth",
        "max_bytes",
        "used_nodes",
        "used_relationships",
        "used_bytes",
        "reached_depth",
        "truncated",
        "omissions",
    ] {
        assert!(pkg["budget"].get(key).is_some(), "budget.{key}");
    }
}

#[test]
fn tampered_packages_fail_verification_distinguishably() {
    let pkg = ask_default(&study_club(), "Reading circle");
    assert!(verify_package(&pkg).is_ok());

    let mut changed = pkg.clone();
    changed["scope"] = json!("Another scope.");
    assert!(matches!(
        verify_package(&changed),
        Err(Error::Package(PackageRule::ContextIdMismatch { .. }))
    ));

    let mut changed = pkg.clone();
    let used = changed["budget"]["used_bytes"].as_u64().unwrap();
    changed["budget"]["used_bytes"] = json!(used + 1);
    assert!(matches!(
        verify_package(&changed),
        Err(Error::Package(PackageRule::UsedBytesMismatch { .. }))
    ));

    let mut changed = pkg.clone();
    changed["ai_answer"] = json!("An answer.");
    assert!(matches!(
        verify_package(&changed),
        Err(Error::Package(PackageRule::AiAnswerNotNull))
    ));

    let mut changed = pkg;
    changed["schema"] = json!("okf-governed-context.v2");
    assert!(matches!(
        verify_package(&changed),
        Err(Error::Package(PackageRule::UnsupportedSchema))
    ));
}

#[test]
fn identity_covers_question_budget_and_binding() {
    let ix = study_club();
    let base = ask_default(&ix, "Reading circle");
    let other_question = ask_default(&ix, "Reading circle ");
    assert_ne!(base["context_id"], other_question["context_id"]);
    let other_budget = ask(&ix, "Reading circle", json!({"max_nodes": 63}));
    assert_ne!(base["context_id"], other_budget["context_id"]);

    let index = index(&ix).unwrap();
    let binding = okf_engine::Binding {
        index_url: "https://example.test/elsewhere/index.json".into(),
        index_sha256: sha("raw bytes"),
    };
    let assembled = okf_engine::assemble(
        &index,
        "Reading circle",
        &okf_engine::Budget::default(),
        Some(&binding),
    )
    .unwrap();
    let pkg: Value = serde_json::from_str(&assembled.json).unwrap();
    assert_eq!(pkg["binding"]["index_url"], json!(binding.index_url));
    assert_eq!(pkg["binding"]["index_sha256"], json!(binding.index_sha256));
    assert_ne!(pkg["context_id"], base["context_id"]);

    for bad in [
        okf_engine::Binding {
            index_url: "ftp://example.test/index.json".into(),
            index_sha256: sha("x"),
        },
        okf_engine::Binding {
            index_url: id("index.json"),
            index_sha256: "ABC".into(),
        },
    ] {
        assert!(matches!(
            okf_engine::assemble(
                &index,
                "Reading circle",
                &okf_engine::Budget::default(),
                Some(&bad)
            ),
            Err(Error::Binding { .. })
        ));
    }
}

#[test]
fn inputs_are_never_mutated() {
    let ix = cyclic();
    let before = ix.clone();
    let pkg = ask_default(&ix, "Reading circle");
    assert_eq!(ix, before);
    let pkg_before = pkg.clone();
    let _ = explain(&pkg, Some(&id("evidence/library")));
    let _ = verify_package(&pkg);
    assert_eq!(pkg, pkg_before);
}
