//! Spec §4.6: the control checks, their order, and the subset rules: `failed-stage` is a subset
//! rule, `diagnostic:` needs expected ids ⊆ row ids, and `positive-acceptance-rejected` fails a
//! control whose mutant still lets the positive case pass.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

mod common;

use common::*;
use okf_engine::Budget;
use okf_eval::{ControlResult, Status, evaluate, raw_binding};
use serde_json::{Value, json};

fn run(controls: Value) -> Vec<ControlResult> {
    let index = example_index();
    let manifest = json!({
        "schema": "okf-context-evaluation-controls.v1",
        "id": "test/controls",
        "description": "Test controls.",
        "controls": controls,
    });
    evaluate(
        &index,
        &example_case(),
        Some(&controls_of(&manifest)),
        &Budget::default(),
        &raw_binding(&index, &example_index_bytes()),
    )
    .unwrap()
    .controls
}

fn drop_card(expected: Value) -> Value {
    json!({
        "id": "drop-card",
        "description": "Drop the card eligibility passage.",
        "mutations": [{"op": "drop_record", "record_id": ex("evidence/card-eligibility")}],
        "expected": expected,
    })
}

fn verdicts(c: &ControlResult) -> Vec<(String, Status)> {
    c.checks.iter().map(|k| (k.id.clone(), k.status)).collect()
}

fn status_of(c: &ControlResult, id: &str) -> Status {
    c.checks
        .iter()
        .find(|k| k.id == id)
        .unwrap_or_else(|| panic!("no check {id}"))
        .status
}

#[test]
fn checks_come_in_spec_order() {
    let c = &run(json!([drop_card(json!({
        "evidence_status": ["insufficient"],
        "failed_stages": ["A", "H"],
        "issues": [{"area": "missing_evidence", "code": "missing_record", "ids": []}],
        "absent_records": [ex("evidence/card-eligibility")],
        "truncated": false,
        "max_selected": 64,
    }))]))[0];
    let ids: Vec<String> = verdicts(c).into_iter().map(|(id, _)| id).collect();
    assert_eq!(
        ids,
        [
            "evidence-status".to_owned(),
            "no-model-answer".into(),
            "positive-acceptance-rejected".into(),
            "failed-stage:A".into(),
            "failed-stage:H".into(),
            "diagnostic:missing_record".into(),
            format!("absent-record:{}", ex("evidence/card-eligibility")),
            "truncation".into(),
            "selected-bound".into(),
            "package-byte-bound".into(),
        ]
    );
    assert_eq!(c.status, Status::Passed, "{:?}", verdicts(c));
}

#[test]
fn failed_stages_is_a_subset_rule_not_equality() {
    // The positive case fails A, E, F? and H on this mutant; listing only H still passes.
    let c = &run(json!([drop_card(json!({
        "evidence_status": ["insufficient"], "failed_stages": ["H"], "issues": [], "absent_records": [],
    }))]))[0];
    assert!(c.positive_case_failed_stages.len() > 1);
    assert_eq!(c.status, Status::Passed);
    // A listed stage that still passes fails its check (C: the question still resolves).
    let c = &run(json!([drop_card(json!({
        "evidence_status": ["insufficient"], "failed_stages": ["C", "H"], "issues": [], "absent_records": [],
    }))]))[0];
    assert_eq!(status_of(c, "failed-stage:C"), Status::Failed);
    assert_eq!(status_of(c, "failed-stage:H"), Status::Passed);
    assert_eq!(c.status, Status::Failed);
}

#[test]
fn diagnostic_needs_expected_ids_to_be_a_subset_of_one_rows_ids() {
    let issue = |code: &str, ids: Vec<String>| json!({"area": "missing_evidence", "code": code, "ids": ids});
    let expected = |issues: Value| json!({"evidence_status": ["insufficient"], "failed_stages": [], "issues": issues, "absent_records": []});
    let card = ex("evidence/card-eligibility");
    let results = run(json!([drop_card(expected(json!([issue(
        "missing_record",
        vec![card.clone()]
    )]))),]));
    assert_eq!(results[0].status, Status::Passed);
    let results = run(json!([drop_card(expected(json!([issue(
        "missing_record",
        vec![card.clone(), ex("evidence/lending-rules")]
    )]))),]));
    assert_eq!(
        status_of(&results[0], "diagnostic:missing_record"),
        Status::Failed,
        "an id not in the row"
    );
    let results = run(json!([drop_card(expected(json!([issue(
        "missing_record",
        vec![]
    )])))]));
    assert_eq!(
        status_of(&results[0], "diagnostic:missing_record"),
        Status::Passed,
        "empty ids match any row with the code"
    );
    let results = run(json!([drop_card(expected(json!([issue(
        "declared_conflict",
        vec![]
    )])))]));
    assert_eq!(
        status_of(&results[0], "diagnostic:declared_conflict"),
        Status::Failed,
        "no row with that code"
    );
    let results = run(json!([drop_card(expected(
        json!([{"area": "conflicts", "code": "missing_record", "ids": []}])
    ))]));
    assert_eq!(
        status_of(&results[0], "diagnostic:missing_record"),
        Status::Failed,
        "the code is looked up in its area only"
    );
    // The actual of a diagnostic check is every row of the area, unfiltered.
    let actual = results[0]
        .checks
        .iter()
        .find(|k| k.id == "diagnostic:missing_record")
        .unwrap()
        .actual
        .clone()
        .unwrap();
    assert_eq!(actual, json!([]));
}

#[test]
fn positive_acceptance_rejected_fails_a_control_whose_mutant_still_lets_the_case_pass() {
    let c = &run(json!([{
        "id": "harmless-alias",
        "description": "An alias on an unrelated concept changes nothing the case checks.",
        "mutations": [{"op": "add_alias", "record_id": ex("concept/meeting-room"), "alias": "function room"}],
        "expected": {"evidence_status": ["sufficient"], "failed_stages": [], "issues": [], "absent_records": []},
    }]))[0];
    assert_eq!(c.positive_case.status, Status::Passed);
    assert_eq!(status_of(c, "evidence-status"), Status::Passed);
    assert_eq!(status_of(c, "positive-acceptance-rejected"), Status::Failed);
    assert_eq!(c.status, Status::Failed);
}

#[test]
fn evidence_status_is_membership_and_an_empty_list_always_fails() {
    let expected = |statuses: Value| json!({"evidence_status": statuses, "failed_stages": [], "issues": [], "absent_records": []});
    let c = &run(json!([drop_card(expected(json!([
        "conflicting",
        "insufficient"
    ])))]))[0];
    assert_eq!(status_of(c, "evidence-status"), Status::Passed);
    let c = &run(json!([drop_card(expected(json!([])))]))[0];
    assert_eq!(status_of(c, "evidence-status"), Status::Failed);
}

#[test]
fn absent_record_truncation_selected_bound_and_byte_bound() {
    let c = &run(json!([{
        "id": "small-budget",
        "description": "The smallest byte budget drops whole items.",
        "mutations": [],
        "budget": {"max_bytes": 8192},
        "expected": {
            "evidence_status": ["insufficient"], "failed_stages": ["E", "H"], "issues": [],
            "absent_records": [ex("concept/borrowing")], "truncated": true, "max_selected": 0,
        },
    }]))[0];
    assert_eq!(status_of(c, "truncation"), Status::Passed);
    assert_eq!(status_of(c, "package-byte-bound"), Status::Passed);
    // Some records still fit, so the concept is present and more than zero rows are selected.
    assert_eq!(
        status_of(c, &format!("absent-record:{}", ex("concept/borrowing"))),
        Status::Failed
    );
    assert_eq!(status_of(c, "selected-bound"), Status::Failed);
    let bound = c
        .checks
        .iter()
        .find(|k| k.id == "package-byte-bound")
        .unwrap();
    assert_eq!(bound.expected, Some(json!(8192)));
    assert!(bound.actual.as_ref().unwrap().as_u64().unwrap() <= 8192);
}

#[test]
fn a_control_question_replaces_the_case_question_and_fails_actual_question() {
    let c = &run(json!([{
        "id": "other-question",
        "description": "Ask something else.",
        "mutations": [],
        "question": "teleportation",
        "expected": {"evidence_status": ["insufficient"], "failed_stages": ["C"], "issues": [], "absent_records": [], "max_selected": 0},
    }]))[0];
    assert_eq!(c.question, "teleportation");
    let failed_c: Vec<&str> = c
        .positive_case
        .stage(okf_eval::StageId::C)
        .unwrap()
        .checks
        .iter()
        .filter(|k| !k.status.passed())
        .map(|k| k.id.as_str())
        .collect();
    assert!(failed_c.contains(&"actual-question"));
    assert_eq!(c.status, Status::Passed);
}

#[test]
fn case_issue_checks_match_by_code_with_ids_as_a_subset() {
    let index = example_index();
    let mut v = example_case_value();
    v["question"] = json!("Explain meeting room hire");
    v["expected"] = json!({
        "resolved_concepts": [ex("concept/meeting-room")], "selected_concepts": [], "sources": [],
        "assertions": [], "paths": [], "evidence": [],
        "forbidden_records": [ex("evidence/staff-key-holders")], "requirements": [],
        "issues": [
            {"area": "missing_evidence", "code": "uncovered_resolved_concept", "ids": [ex("concept/meeting-room")]},
            {"area": "missing_evidence", "code": "restricted_evidence", "ids": []},
        ],
        "boundaries": [], "evidence_status": "insufficient",
    });
    let case = case_of(&v);
    let p = package(&index, &case.question);
    let a = okf_eval::assess(&p, &case, &index, None);
    let failed: Vec<&str> = a.failed_checks().map(|(_, c)| c.id.as_str()).collect();
    assert!(failed.is_empty(), "{failed:#?}");
    v["expected"]["issues"][0]["ids"] =
        json!([ex("concept/meeting-room"), ex("concept/borrowing")]);
    let a = okf_eval::assess(&p, &case_of(&v), &index, None);
    assert_eq!(a.failed_stages(), [okf_eval::StageId::G]);
}
