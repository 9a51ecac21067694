//! The example case and controls shipped with the embedded bundle (crates/okf/example), and the
//! report formats.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

mod common;

use common::*;
use okf_engine::Budget;
use okf_eval::{EvalReport, Status, evaluate, raw_binding, report};
use serde_json::json;

fn example_report() -> EvalReport {
    let index = example_index();
    evaluate(
        &index,
        &example_case(),
        Some(&controls_of(&example_controls_value())),
        &Budget::default(),
        &raw_binding(&index, &example_index_bytes()),
    )
    .unwrap()
}

#[test]
fn example_case_and_controls_pass() {
    let report = example_report();
    let table = report::eval_table(&report);
    assert_eq!(report.status, Status::Passed, "{table}");
    assert_eq!(report.case.evidence_status, "sufficient");
    assert_eq!(report.controls.len(), 4);
    assert!(table.ends_with("status: passed"), "{table}");
    for c in &report.controls {
        assert!(table.contains(&c.id));
    }
}

#[test]
fn eval_json_report_has_the_documented_shape() {
    let report = example_report();
    let j = report::eval_json(&report);
    assert_eq!(j["status"], "passed");
    assert_eq!(j["case"]["id"], "okf-example/borrow-books");
    assert_eq!(j["case"]["status"], "passed");
    assert_eq!(j["case"]["context_id"], json!(report.case.context_id));
    assert_eq!(
        j["case"]["binding"]["index_sha256"],
        json!(okf_engine::canonical::sha256_hex(&example_index_bytes()))
    );
    let stages = j["case"]["stages"].as_object().unwrap();
    assert_eq!(
        stages.keys().cloned().collect::<Vec<_>>(),
        ["A", "B", "C", "D", "E", "F", "G", "H"]
    );
    assert_eq!(stages["A"]["label"], "source");
    assert!(stages["A"]["checks"][0]["id"].is_string());
    assert_eq!(stages["A"]["checks"][0]["status"], "passed");
    let controls = j["controls"].as_array().unwrap();
    assert_eq!(controls.len(), 4);
    for c in controls {
        for key in [
            "id",
            "status",
            "evidence_status",
            "context_id",
            "checks",
            "mutant_index_sha256",
        ] {
            assert!(c.get(key).is_some(), "{key} missing in {c}");
        }
    }
    assert_eq!(controls[0]["positive_case_failed_stages"][0], "A");
    // Same input, same bytes.
    assert_eq!(
        serde_json::to_string(&j).unwrap(),
        serde_json::to_string(&report::eval_json(&example_report())).unwrap()
    );
}

#[test]
fn a_failing_case_lists_its_failed_checks_in_the_table() {
    let index = example_index();
    let mut v = example_case_value();
    v["expected"]["evidence_status"] = json!("insufficient");
    let report = evaluate(
        &index,
        &case_of(&v),
        None,
        &Budget::default(),
        &raw_binding(&index, &example_index_bytes()),
    )
    .unwrap();
    assert_eq!(report.status, Status::Failed);
    let table = report::eval_table(&report);
    assert!(table.contains("[H] evidence-status"), "{table}");
    assert!(table.ends_with("status: failed"));
}
