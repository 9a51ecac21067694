//! Spec §7.10 "Grouped issues": the same index assembled without and with issue grouping
//! (`AssembleOptions::group_issues`, which the reference applies for unit corpora v2/v3).
//!
//! Not covered: the reference drives grouping through corpus discovery options
//! (`retrieval.units.corpus_schema`); corpora are not implemented yet, so grouping is switched
//! on directly. Everything the clause compares is compared.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use crate::common::*;
use okf_engine::{AssembleOptions, Budget, assemble_with_options};
use serde_json::{Value, json};

/// The study club plus 16 unit records with unresolved boundaries, each linked from the reading
/// concept by a `requires` edge.
fn sixteen_unresolved_units() -> Value {
    let mut ix = study_club();
    let reading = id("concept/reading");
    for i in 0..16 {
        let uid = id(&format!("evidence/unit-{i:02}"));
        let texts = [
            format!("Unit {i} opening passage."),
            format!("Unit {i} closing clause."),
        ];
        let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
        let mut unit = unit_fixture(&texts, &uid);
        unit["evidence_unit"]["completeness"] = json!("unresolved");
        unit["evidence_unit"]["boundary_status"] = json!("machine-detected");
        push(&mut ix, "records", unit);
        push(
            &mut ix,
            "assertions",
            extra_assertion(&id(&format!("assertion/unit-{i:02}")), &reading, &uid),
        );
    }
    ix
}

fn assemble_json(ix: &Value, question: &str, budget: Budget, grouped: bool) -> Value {
    let index = index(ix).unwrap();
    let options = AssembleOptions {
        group_issues: grouped,
        ..AssembleOptions::default()
    };
    let package = assemble_with_options(&index, question, &budget, None, &options).unwrap();
    assert_eq!(package.used_bytes, package.json.len() as u64);
    serde_json::from_str(&package.json).unwrap()
}

/// Every (code, message, id) triple of an issue list, one per id (rows without ids kept whole).
fn triples(issues: &Value) -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    for row in issues.as_array().unwrap() {
        let code = row["code"].as_str().unwrap().to_owned();
        let message = row["message"].as_str().unwrap().to_owned();
        let ids = row["ids"].as_array().unwrap();
        if ids.is_empty() {
            out.push((code.clone(), message.clone(), String::new()));
        }
        for id in ids {
            out.push((
                code.clone(),
                message.clone(),
                id.as_str().unwrap().to_owned(),
            ));
        }
    }
    out.sort();
    out
}

fn rows<'a>(pkg: &'a Value, code: &str) -> Vec<&'a Value> {
    pkg["missing_evidence"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["code"] == code)
        .collect()
}

#[test]
fn grouping_merges_boundary_rows_without_changing_anything_else() {
    let ix = sixteen_unresolved_units();
    let plain = assemble_json(&ix, "Reading circle", Budget::default(), false);
    let grouped = assemble_json(&ix, "Reading circle", Budget::default(), true);
    assert_eq!(
        triples(&plain["missing_evidence"]),
        triples(&grouped["missing_evidence"])
    );
    assert_eq!(rows(&plain, "unresolved_unit_boundary").len(), 16);
    let boundary = rows(&grouped, "unresolved_unit_boundary");
    assert_eq!(boundary.len(), 1);
    assert_eq!(boundary[0]["ids"].as_array().unwrap().len(), 16);
    for key in ["selected", "relationships", "requirements", "scope"] {
        assert_eq!(plain[key], grouped[key], "{key}");
    }
    assert_eq!(grouped["evidence_status"], "insufficient");
    assert!(grouped["budget"]["used_bytes"].as_u64() < plain["budget"]["used_bytes"].as_u64());
}

#[test]
fn grouping_keeps_pairs_and_lists_digest_failures_in_order() {
    let mut ix = sixteen_unresolved_units();
    // Two units with a false fragment digest and a false whole-text literal, and two
    // dependencies on ids that do not exist.
    for i in [3, 7] {
        let uid = id(&format!("evidence/unit-{i:02}"));
        let rec = record_mut(&mut ix, &uid);
        rec["evidence_unit"]["spans"][0]["literal_sha256"] = json!("0".repeat(64));
        for p in rec["provenance"].as_array_mut().unwrap() {
            p["literal_sha256"] = json!("1".repeat(64));
        }
    }
    let reading = id("concept/reading");
    push(
        &mut ix,
        "assertions",
        extra_assertion(
            &id("assertion/dangling-a"),
            &reading,
            &id("evidence/absent-a"),
        ),
    );
    push(
        &mut ix,
        "assertions",
        extra_assertion(
            &id("assertion/dangling-b"),
            &reading,
            &id("evidence/absent-b"),
        ),
    );
    let plain = assemble_json(&ix, "Reading circle", Budget::default(), false);
    let grouped = assemble_json(&ix, "Reading circle", Budget::default(), true);
    assert_eq!(
        triples(&plain["missing_evidence"]),
        triples(&grouped["missing_evidence"])
    );
    assert_eq!(
        rows(&plain, "missing_dependency"),
        rows(&grouped, "missing_dependency"),
        "pairs are never grouped"
    );
    let expected = [id("evidence/unit-03"), id("evidence/unit-07")];
    for code in ["unit_fragment_integrity", "evidence_digest_mismatch"] {
        let r = rows(&grouped, code);
        assert_eq!(r.len(), 1, "{code}");
        assert_eq!(
            r[0]["ids"],
            json!(expected),
            "{code} lists both ids in selection order"
        );
    }
}

#[test]
fn grouped_byte_budget_is_one_row_and_retained_records_stay_whole() {
    let mut ix = sixteen_unresolved_units();
    for i in 0..16 {
        let uid = id(&format!("evidence/unit-{i:02}"));
        let texts = [
            format!("Unit {i} opening passage. {}", "Long clause. ".repeat(120)),
            format!("Unit {i} closing clause."),
        ];
        let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
        let mut unit = unit_fixture(&texts, &uid);
        unit["evidence_unit"]["completeness"] = json!("unresolved");
        unit["evidence_unit"]["boundary_status"] = json!("machine-detected");
        replace_record(&mut ix, unit);
    }
    let budget = Budget {
        max_bytes: 32_768,
        ..Budget::default()
    };
    let grouped = assemble_json(&ix, "Reading circle", budget, true);
    let omissions: Vec<&Value> = grouped["budget"]["omissions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["code"] == "byte_budget")
        .collect();
    assert_eq!(omissions.len(), 1);
    assert!(omissions[0]["ids"].as_array().unwrap().len() > 1);
    assert!(grouped["budget"]["used_bytes"].as_u64().unwrap() <= 32_768);
    assert_eq!(
        rows(&grouped, "unresolved_unit_boundary")[0]["ids"]
            .as_array()
            .unwrap()
            .len(),
        16,
        "W6: rows of trimmed records stay"
    );
    let original: Value = ix.clone();
    for sel in grouped["selected"].as_array().unwrap() {
        let rid = sel["record"]["id"].as_str().unwrap();
        let input = original["records"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["id"] == rid)
            .unwrap();
        assert_eq!(&sel["record"], input, "retained records are copied whole");
    }
}
