//! Generated controls (`okf eval --self-check`) on the example bundle and edited copies of it.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

mod common;

use common::*;
use okf_engine::canonical::sha256_hex;
use okf_eval::self_check::MutantKind;
use okf_eval::{Status, self_check};
use serde_json::{Value, json};

fn position(v: &Value, list: &str, rel: &str) -> usize {
    v[list]
        .as_array()
        .unwrap()
        .iter()
        .position(|x| x["id"] == json!(ex(rel)))
        .unwrap()
}

#[test]
fn every_requirement_of_the_example_fails_closed() {
    let report = self_check(&example_index()).unwrap();
    assert_eq!(report.requirements.len(), 5);
    // One drop per required record; no required paths; every closure is below the smallest
    // byte budget, so the byte-budget mutant is skipped (and said so).
    assert_eq!(report.mutant_count(), 7);
    assert_eq!(report.fail_closed_count(), 7);
    assert_eq!(report.skipped_count(), 5);
    assert!(report.requirements.iter().all(|r| {
        r.skipped
            .iter()
            .any(|s| s.kind == MutantKind::ShrinkMaxBytes)
    }));
    assert!(report.unsupported_baselines().is_empty());
    assert_eq!(report.requirements[0].question, "Borrowing books");
    assert_eq!(report.status, Status::Passed);
}

#[test]
fn required_path_hops_are_removed_and_reversed_one_at_a_time() {
    let mut v = example_index_value();
    let r = position(&v, "requirements", "requirement/borrowing");
    v["requirements"][r]["required_paths"] = json!([{
        "seed": ex("concept/borrowing"),
        "assertions": [ex("assertion/borrowing-requires-library-card"), ex("assertion/library-card-eligibility")],
        "records": [ex("concept/borrowing"), ex("concept/library-card"), ex("evidence/card-eligibility")],
    }]);
    let report = self_check(&index_of(&v)).unwrap();
    let borrowing = &report.requirements[0];
    let kinds: Vec<(MutantKind, String)> = borrowing
        .mutants
        .iter()
        .map(|m| (m.kind, m.target.clone()))
        .collect();
    assert_eq!(
        kinds,
        [
            (MutantKind::DropRecord, ex("evidence/lending-rules")),
            (MutantKind::DropRecord, ex("evidence/card-eligibility")),
            (
                MutantKind::RemoveAssertion,
                ex("assertion/borrowing-requires-library-card")
            ),
            (
                MutantKind::ReverseAssertion,
                ex("assertion/borrowing-requires-library-card")
            ),
            (
                MutantKind::RemoveAssertion,
                ex("assertion/library-card-eligibility")
            ),
            (
                MutantKind::ReverseAssertion,
                ex("assertion/library-card-eligibility")
            ),
        ]
    );
    assert!(
        borrowing
            .mutants
            .iter()
            .all(|m| m.fail_closed && m.requirement_status.as_deref() == Some("insufficient"))
    );
    assert_eq!(report.status, Status::Passed);
}

#[test]
fn max_bytes_is_shrunk_below_the_closure_when_the_engine_allows_it() {
    let mut v = example_index_value();
    let at = position(&v, "records", "evidence/lending-rules");
    let text = format!("{} ", v["records"][at]["text"].as_str().unwrap()).repeat(60);
    v["records"][at]["provenance"][0]["literal_sha256"] = json!(sha256_hex(text.as_bytes()));
    v["records"][at]["text"] = json!(text);
    let report = self_check(&index_of(&v)).unwrap();
    let borrowing = &report.requirements[0];
    assert!(borrowing.closure_bytes > 8192);
    let shrink = borrowing
        .mutants
        .iter()
        .find(|m| m.kind == MutantKind::ShrinkMaxBytes)
        .unwrap();
    assert_eq!(shrink.max_bytes, Some(borrowing.closure_bytes - 1));
    assert!(shrink.fail_closed, "{shrink:?}");
    assert_eq!(shrink.requirement_status.as_deref(), Some("insufficient"));
    assert_eq!(
        borrowing.baseline_status.as_deref(),
        Some("supported-within-declared-scope")
    );
}

#[test]
fn a_requirement_that_vanishes_when_its_record_is_dropped_is_reported_not_fail_closed() {
    // The borrowing requirement also requires its own trigger concept: dropping that concept
    // makes the requirement inapplicable instead of insufficient, so the package no longer says
    // what the requirement is missing.
    let mut v = example_index_value();
    let r = position(&v, "requirements", "requirement/borrowing");
    v["requirements"][r]["required"]
        .as_array_mut()
        .unwrap()
        .push(json!(ex("concept/borrowing")));
    let report = self_check(&index_of(&v)).unwrap();
    assert_eq!(
        report.not_fail_closed(),
        [ex("requirement/borrowing").as_str()]
    );
    let open: Vec<_> = report.requirements[0]
        .mutants
        .iter()
        .filter(|m| !m.fail_closed)
        .collect();
    assert_eq!(open.len(), 1);
    assert_eq!(open[0].target, ex("concept/borrowing"));
    assert_eq!(open[0].requirement_status, None);
    assert_ne!(open[0].evidence_status, "sufficient");
    assert_eq!(report.status, Status::Failed);
    let table = okf_eval::report::self_check_table(&report);
    assert!(table.contains("NOT fail-closed"), "{table}");
}

#[test]
fn ids_that_are_not_in_the_index_are_skipped_with_a_reason() {
    let mut v = example_index_value();
    let r = position(&v, "requirements", "requirement/overdue-charges");
    v["requirements"][r]["required"]
        .as_array_mut()
        .unwrap()
        .push(json!(ex("evidence/nowhere")));
    let report = self_check(&index_of(&v)).unwrap();
    let overdue = &report.requirements[1];
    assert!(
        overdue
            .skipped
            .iter()
            .any(|s| s.kind == MutantKind::DropRecord && s.target == ex("evidence/nowhere"))
    );
    assert_eq!(overdue.baseline_status.as_deref(), Some("insufficient"));
    assert_eq!(
        report.unsupported_baselines(),
        [ex("requirement/overdue-charges").as_str()]
    );
}
