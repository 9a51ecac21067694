//! Spec §4.2: the eight mutation ops on an in-memory copy of the typed index, their errors, and
//! each op run end to end as a control on the example bundle.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

mod common;

use common::*;
use okf_engine::Budget;
use okf_engine::model::{Access, Alias, IndexDocument};
use okf_eval::controls::{CORRUPTION_MARKER, Control, build_mutant};
use okf_eval::{Controls, EvalError, Mutation, Status, evaluate, raw_binding};
use serde_json::{Value, json};

fn doc() -> IndexDocument {
    example_index().document().clone()
}

fn apply(m: Mutation) -> Result<IndexDocument, EvalError> {
    let mut d = doc();
    m.apply(&mut d, "test-control")?;
    Ok(d)
}

fn record<'a>(d: &'a IndexDocument, rel: &str) -> &'a okf_engine::model::Record {
    d.records.iter().find(|r| r.id == ex(rel)).unwrap()
}

#[test]
fn drop_record_removes_the_record_and_leaves_references_dangling() {
    let d = apply(Mutation::DropRecord {
        record_id: ex("evidence/card-eligibility"),
    })
    .unwrap();
    assert_eq!(d.records.len(), doc().records.len() - 1);
    assert!(
        d.records
            .iter()
            .all(|r| r.id != ex("evidence/card-eligibility"))
    );
    assert_eq!(
        d.assertions,
        doc().assertions,
        "assertions are left untouched"
    );
    assert_eq!(
        d.requirements,
        doc().requirements,
        "requirements are left untouched"
    );
}

#[test]
fn reverse_incoming_swaps_every_incoming_assertion_and_nothing_else() {
    let before = doc();
    let d = apply(Mutation::ReverseIncoming {
        record_id: ex("evidence/card-eligibility"),
    })
    .unwrap();
    for (a, b) in before.assertions.iter().zip(&d.assertions) {
        if a.target == ex("evidence/card-eligibility") {
            assert_eq!((&b.source, &b.target), (&a.target, &a.source));
            assert_eq!((&b.id, &b.predicate), (&a.id, &a.predicate));
        } else {
            assert_eq!(a, b);
        }
    }
}

#[test]
fn reverse_incoming_without_an_incoming_assertion_is_an_error() {
    let err = apply(Mutation::ReverseIncoming {
        record_id: ex("concept/borrowing"),
    })
    .unwrap_err();
    assert!(
        matches!(err, EvalError::NoIncomingAssertion { .. }),
        "{err}"
    );
}

#[test]
fn remove_assertion_removes_the_first_assertion_with_that_id() {
    let id = ex("assertion/borrowing-requires-library-card");
    let d = apply(Mutation::RemoveAssertion {
        assertion_id: id.clone(),
    })
    .unwrap();
    assert_eq!(d.assertions.len(), doc().assertions.len() - 1);
    assert!(d.assertions.iter().all(|a| a.id != id));
}

#[test]
fn remove_assertion_with_an_unknown_id_is_an_error() {
    let err = apply(Mutation::RemoveAssertion {
        assertion_id: ex("assertion/none"),
    })
    .unwrap_err();
    assert!(matches!(err, EvalError::UnknownAssertion { .. }), "{err}");
}

#[test]
fn corrupt_text_appends_a_newline_and_the_marker() {
    let d = apply(Mutation::CorruptText {
        record_id: ex("evidence/lending-rules"),
    })
    .unwrap();
    let old = &record(&doc(), "evidence/lending-rules").text.clone();
    assert_eq!(
        record(&d, "evidence/lending-rules").text,
        format!("{old}\n{CORRUPTION_MARKER}")
    );
}

#[test]
fn restrict_record_sets_access_restricted() {
    let d = apply(Mutation::RestrictRecord {
        record_id: ex("evidence/lending-rules"),
    })
    .unwrap();
    assert_eq!(
        record(&d, "evidence/lending-rules").access,
        Access::Restricted
    );
}

#[test]
fn clear_provenance_empties_the_provenance() {
    let d = apply(Mutation::ClearProvenance {
        record_id: ex("evidence/lending-rules"),
    })
    .unwrap();
    assert!(record(&d, "evidence/lending-rules").provenance.is_empty());
}

#[test]
fn add_alias_appends_a_plain_alias_creating_the_list_when_absent() {
    let d = apply(Mutation::AddAlias {
        record_id: ex("concept/borrowing"),
        alias: "lending".into(),
    })
    .unwrap();
    let aliases = record(&d, "concept/borrowing").aliases.clone().unwrap();
    assert_eq!(aliases.last(), Some(&Alias::Plain("lending".into())));
    assert_eq!(
        aliases.len(),
        record(&doc(), "concept/borrowing")
            .aliases
            .clone()
            .unwrap()
            .len()
            + 1
    );
    let d = apply(Mutation::AddAlias {
        record_id: ex("evidence/lending-rules"),
        alias: "rules".into(),
    })
    .unwrap();
    assert_eq!(
        record(&d, "evidence/lending-rules").aliases,
        Some(vec![Alias::Plain("rules".into())])
    );
}

#[test]
fn declare_conflict_replaces_any_existing_list() {
    let d = apply(Mutation::DeclareConflict {
        record_id: ex("evidence/opening-hours-2026"),
        other_id: ex("evidence/lending-rules"),
    })
    .unwrap();
    assert_eq!(
        record(&d, "evidence/opening-hours-2026").conflicts_with,
        Some(vec![ex("evidence/lending-rules")])
    );
}

#[test]
fn every_record_op_naming_an_unknown_record_is_an_error() {
    let missing = ex("evidence/none");
    for m in [
        Mutation::DropRecord {
            record_id: missing.clone(),
        },
        Mutation::ReverseIncoming {
            record_id: missing.clone(),
        },
        Mutation::CorruptText {
            record_id: missing.clone(),
        },
        Mutation::RestrictRecord {
            record_id: missing.clone(),
        },
        Mutation::ClearProvenance {
            record_id: missing.clone(),
        },
        Mutation::AddAlias {
            record_id: missing.clone(),
            alias: "x".into(),
        },
        Mutation::DeclareConflict {
            record_id: missing.clone(),
            other_id: ex("evidence/lending-rules"),
        },
    ] {
        let op = m.op();
        let err = apply(m).unwrap_err();
        assert!(
            matches!(&err, EvalError::UnknownRecord { op: o, .. } if *o == op),
            "{op}: {err}"
        );
    }
}

fn manifest(controls: Value) -> Value {
    json!({
        "schema": "okf-context-evaluation-controls.v1",
        "id": "test/controls",
        "description": "Test controls.",
        "controls": controls,
    })
}

fn parse(v: &Value) -> Result<Controls, EvalError> {
    Controls::from_slice(&serde_json::to_vec(v).unwrap())
}

fn control(id: &str, mutations: Value) -> Value {
    json!({
        "id": id,
        "description": "A control.",
        "mutations": mutations,
        "expected": {"evidence_status": ["insufficient"], "failed_stages": [], "issues": [], "absent_records": []},
    })
}

#[test]
fn an_unknown_op_is_rejected_naming_the_mutation() {
    let m = manifest(json!([control(
        "c",
        json!([{"op": "shuffle_records", "record_id": ex("concept/borrowing")}])
    )]));
    let err = parse(&m).unwrap_err();
    let EvalError::Shape { path, message, .. } = &err else {
        panic!("{err:?}")
    };
    assert_eq!(path, "controls[0].mutations[0].op");
    assert!(message.contains("shuffle_records"), "{message}");
}

#[test]
fn an_op_with_a_foreign_parameter_is_rejected() {
    let m = manifest(json!([control(
        "c",
        json!([{"op": "drop_record", "record_id": ex("concept/borrowing"), "alias": "x"}])
    )]));
    assert!(matches!(parse(&m).unwrap_err(), EvalError::Shape { .. }));
}

#[test]
fn control_ids_must_match_the_pattern_and_be_unique() {
    let bad = manifest(json!([control("Bad_Id", json!([]))]));
    assert!(
        matches!(parse(&bad).unwrap_err(), EvalError::Rule { path, .. } if path == "controls[0].id")
    );
    let dup = manifest(json!([
        control("same", json!([])),
        control("same", json!([]))
    ]));
    assert!(
        matches!(parse(&dup).unwrap_err(), EvalError::Rule { path, .. } if path == "controls[1].id")
    );
    let none = manifest(json!([]));
    assert!(
        matches!(parse(&none).unwrap_err(), EvalError::Rule { path, .. } if path == "controls")
    );
}

#[test]
fn build_mutant_suffixes_the_snapshot_and_never_touches_the_original() {
    let original = doc();
    let c: Control = serde_json::from_value(control(
        "drop-card",
        json!([{"op": "drop_record", "record_id": ex("evidence/card-eligibility")}]),
    ))
    .unwrap();
    let mutant = build_mutant(&original, &c).unwrap();
    assert_eq!(
        mutant.bundle.snapshot,
        "okf-example-2026-11-29--synthetic-control-drop-card"
    );
    assert_eq!(original, doc());
}

#[test]
fn a_failing_mutation_aborts_the_whole_run() {
    let index = example_index();
    let m = parse(&manifest(json!([control(
        "gone",
        json!([{"op": "remove_assertion", "assertion_id": ex("assertion/none")}])
    )])))
    .unwrap();
    let err = evaluate(
        &index,
        &case_of(&example_case_value()),
        Some(&m),
        &Budget::default(),
        &raw_binding(&index, &example_index_bytes()),
    )
    .unwrap_err();
    assert!(matches!(err, EvalError::UnknownAssertion { .. }));
}

/// Each op, run as a control of the borrow-books case, fails closed the way it should.
#[test]
fn every_op_run_as_a_control_on_the_example_fails_closed() {
    let index = example_index();
    let issue =
        |area: &str, code: &str, ids: Vec<String>| json!({"area": area, "code": code, "ids": ids});
    let c = |id: &str,
             mutations: Value,
             status: &str,
             stages: Value,
             issue: Value,
             absent: Value| {
        json!({
            "id": id,
            "description": "Op control.",
            "mutations": mutations,
            "expected": {"evidence_status": [status], "failed_stages": stages, "issues": [issue], "absent_records": absent},
        })
    };
    let controls = manifest(json!([
        c(
            "drop",
            json!([{"op": "drop_record", "record_id": ex("evidence/card-eligibility")}]),
            "insufficient",
            json!(["A", "E", "H"]),
            issue(
                "missing_evidence",
                "missing_record",
                vec![ex("evidence/card-eligibility")]
            ),
            json!([ex("evidence/card-eligibility")])
        ),
        c(
            "reverse",
            json!([{"op": "reverse_incoming", "record_id": ex("evidence/card-eligibility")}]),
            "insufficient",
            json!(["A", "B", "D", "E", "H"]),
            issue(
                "missing_evidence",
                "missing_required_evidence",
                vec![ex("evidence/card-eligibility")]
            ),
            json!([ex("evidence/card-eligibility")])
        ),
        c(
            "remove",
            json!([{"op": "remove_assertion", "assertion_id": ex("assertion/borrowing-lending-rules")}]),
            "insufficient",
            json!(["A", "B", "D", "E", "H"]),
            issue(
                "missing_evidence",
                "missing_required_evidence",
                vec![ex("evidence/lending-rules")]
            ),
            json!([ex("evidence/lending-rules")])
        ),
        c(
            "corrupt",
            json!([{"op": "corrupt_text", "record_id": ex("evidence/card-eligibility")}]),
            "insufficient",
            json!(["F", "H"]),
            issue(
                "missing_evidence",
                "evidence_digest_mismatch",
                vec![ex("evidence/card-eligibility")]
            ),
            json!([])
        ),
        c(
            "restrict",
            json!([{"op": "restrict_record", "record_id": ex("evidence/lending-rules")}]),
            "insufficient",
            json!(["A", "E", "H"]),
            issue(
                "missing_evidence",
                "restricted_evidence",
                vec![ex("evidence/lending-rules")]
            ),
            json!([ex("evidence/lending-rules")])
        ),
        c(
            "unprovenanced",
            json!([{"op": "clear_provenance", "record_id": ex("evidence/lending-rules")}]),
            "insufficient",
            json!(["A", "F", "H"]),
            issue(
                "missing_evidence",
                "missing_provenance",
                vec![ex("evidence/lending-rules")]
            ),
            json!([])
        ),
        c(
            "alias",
            json!([{"op": "add_alias", "record_id": ex("concept/study-room"), "alias": "borrow books"}]),
            "insufficient",
            json!(["C", "H"]),
            issue("missing_evidence", "ambiguous_concepts", vec![]),
            json!([])
        ),
        c(
            "conflict",
            json!([{"op": "declare_conflict", "record_id": ex("evidence/lending-rules"), "other_id": ex("evidence/card-eligibility")}]),
            "conflicting",
            json!(["H"]),
            issue(
                "conflicts",
                "declared_conflict",
                vec![
                    ex("evidence/lending-rules"),
                    ex("evidence/card-eligibility")
                ]
            ),
            json!([])
        ),
    ]));
    let report = evaluate(
        &index,
        &case_of(&example_case_value()),
        Some(&parse(&controls).unwrap()),
        &Budget::default(),
        &raw_binding(&index, &example_index_bytes()),
    )
    .unwrap();
    for c in &report.controls {
        let failed: Vec<&str> = c
            .checks
            .iter()
            .filter(|k| !k.status.passed())
            .map(|k| k.id.as_str())
            .collect();
        assert!(
            failed.is_empty(),
            "{}: {failed:?} (case failed {:?}, status {})",
            c.id,
            c.positive_case_failed_stages,
            c.evidence_status
        );
    }
    assert_eq!(report.status, Status::Passed);
}
