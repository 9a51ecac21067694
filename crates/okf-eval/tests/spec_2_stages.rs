//! Spec §2: stage membership A–H. For each stage, a case (or a package) that fails exactly that
//! stage; plus the ordering and presence rules of individual checks.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

mod common;

use common::*;
use okf_engine::ContextIndex;
use okf_eval::{Assessment, Case, StageId, Status, assess};
use serde_json::{Value, json};

const QUESTION: &str = "How do I borrow books?";

/// Assesses the example package for the case's question, with the default binding.
fn run(case: &Case, index: &ContextIndex) -> Assessment {
    let p = package(index, &case.question);
    assess(&p, case, index, None)
}

fn case_with(edit: impl FnOnce(&mut Value)) -> Case {
    let mut v = example_case_value();
    edit(&mut v);
    case_of(&v)
}

fn failed_ids(a: &Assessment) -> Vec<String> {
    a.failed_checks()
        .map(|(s, c)| format!("{}:{}", s.letter(), c.id))
        .collect()
}

#[test]
fn the_unchanged_example_case_passes_every_stage() {
    let index = example_index();
    let a = run(&case_of(&example_case_value()), &index);
    assert!(a.failed_checks().next().is_none(), "{:#?}", failed_ids(&a));
    assert_eq!(a.status, Status::Passed);
    let ids: Vec<&str> = a.stages.iter().map(|s| s.label).collect();
    assert_eq!(
        ids,
        [
            "source",
            "semantic",
            "retrieval",
            "traversal",
            "assembly",
            "provenance",
            "boundaries",
            "answerability"
        ]
    );
}

fn only(a: &Assessment, stage: StageId, check: &str) {
    assert_eq!(a.failed_stages(), [stage], "{:#?}", failed_ids(a));
    assert_eq!(failed_ids(a), [format!("{}:{check}", stage.letter())]);
    assert_eq!(a.status, Status::Failed);
}

#[test]
fn stage_a_fails_alone_when_a_required_source_route_differs() {
    let case = case_with(|v| v["expected"]["sources"][0]["route"] = json!("evidence/other"));
    let a = run(&case, &example_index());
    only(
        &a,
        StageId::A,
        &format!(
            "required-source:{}:Section 3 (Loans)",
            ex("evidence/lending-rules")
        ),
    );
}

#[test]
fn stage_b_fails_alone_when_a_required_assertion_has_another_predicate() {
    let case = case_with(|v| {
        v["expected"]["assertions"][1]["predicate"] =
            json!("http://www.w3.org/2004/02/skos/core#related");
    });
    let a = run(&case, &example_index());
    only(
        &a,
        StageId::B,
        &format!(
            "required-assertion:{}->{}",
            ex("concept/borrowing"),
            ex("evidence/lending-rules")
        ),
    );
}

#[test]
fn stage_c_fails_alone_when_a_concept_is_expected_resolved_but_only_reached() {
    let case = case_with(|v| {
        v["expected"]["resolved_concepts"]
            .as_array_mut()
            .unwrap()
            .push(json!(ex("concept/library-card")));
    });
    let a = run(&case, &example_index());
    only(
        &a,
        StageId::C,
        &format!("resolved-concept:{}", ex("concept/library-card")),
    );
}

#[test]
fn stage_d_fails_alone_when_an_expected_path_is_not_retained_exactly() {
    // A real chain, but no retained path starts at library-card: `paths` needs equality.
    let case = case_with(|v| {
        let chain = v["expected"]["assertion_paths"][0].clone();
        v["expected"]["paths"].as_array_mut().unwrap().push(chain);
    });
    let a = run(&case, &example_index());
    only(
        &a,
        StageId::D,
        &format!(
            "required-path:{}:{}",
            ex("concept/library-card"),
            ex("evidence/card-eligibility")
        ),
    );
}

#[test]
fn stage_e_fails_alone_when_truncation_is_expected_but_absent() {
    let case = case_with(|v| v["expected"]["budget_truncated"] = json!(true));
    let a = run(&case, &example_index());
    only(&a, StageId::E, "budget-truncation");
}

#[test]
fn stage_f_fails_alone_when_the_binding_differs_from_the_override() {
    let index = example_index();
    let case = case_of(&example_case_value());
    let p = package(&index, QUESTION);
    let a = assess(&p, &case, &index, Some(&"0".repeat(64)));
    only(&a, StageId::F, "index-binding-exact");
    // Without an override the canonical digest of the index is expected (spec §1.5), which is
    // the engine's default binding.
    assert_eq!(assess(&p, &case, &index, None).status, Status::Passed);
    assert_eq!(assess(&p, &case, &index, Some("")).status, Status::Passed);
}

#[test]
fn stage_f_fails_alone_when_the_context_id_is_not_the_recomputed_one() {
    let index = example_index();
    let mut p = package(&index, QUESTION);
    let forged = format!("urn:sha256:{}", "1".repeat(64));
    p["context_id"] = json!(forged);
    let a = assess(&p, &case_of(&example_case_value()), &index, None);
    only(&a, StageId::F, "context-identity-recomputed");
}

#[test]
fn stage_g_fails_alone_when_a_selected_record_is_forbidden() {
    let case = case_with(|v| {
        v["expected"]["forbidden_records"]
            .as_array_mut()
            .unwrap()
            .push(json!(ex("scope/service-area")));
    });
    let a = run(&case, &example_index());
    only(
        &a,
        StageId::G,
        &format!("excluded:{}", ex("scope/service-area")),
    );
}

#[test]
fn stage_h_fails_alone_when_an_inapplicable_requirement_is_expected() {
    let case = case_with(|v| {
        v["expected"]["requirements"]
            .as_array_mut()
            .unwrap()
            .push(json!(ex("requirement/opening-hours")));
    });
    let a = run(&case, &example_index());
    only(
        &a,
        StageId::H,
        &format!("requirement:{}", ex("requirement/opening-hours")),
    );
}

#[test]
fn spec_2_2_assertion_boundary_checks_open_stage_g_before_exclusions() {
    let a = run(&case_of(&example_case_value()), &example_index());
    let g: Vec<&str> = a
        .stage(StageId::G)
        .unwrap()
        .checks
        .iter()
        .map(|c| c.id.as_str())
        .collect();
    let first_excluded = g.iter().position(|id| id.starts_with("excluded:")).unwrap();
    assert!(first_excluded > 0);
    assert!(
        g[..first_excluded]
            .iter()
            .all(|id| id.starts_with("assertion-boundary:"))
    );
    assert_eq!(
        g[0],
        format!(
            "assertion-boundary:{}:assertion_status",
            ex("assertion/borrowing-requires-library-card")
        )
    );
    // A wrong boundary value of an assertion fails G, not B.
    let case = case_with(|v| v["expected"]["assertions"][2]["authority_class"] = json!("official"));
    let a = run(&case, &example_index());
    only(
        &a,
        StageId::G,
        &format!(
            "assertion-boundary:{}->{}:authority_class",
            ex("concept/library-card"),
            ex("evidence/card-eligibility")
        ),
    );
}

#[test]
fn spec_2_7_boundary_checks_follow_the_member_order_written_in_the_case() {
    // Parsed from the file bytes: a serde_json::Value would have sorted the members.
    let a = run(&example_case(), &example_index());
    let ids: Vec<String> = a
        .stage(StageId::G)
        .unwrap()
        .checks
        .iter()
        .filter(|c| c.id.starts_with("boundary:"))
        .map(|c| c.id.clone())
        .collect();
    let lr = ex("evidence/lending-rules");
    let ce = ex("evidence/card-eligibility");
    assert_eq!(
        ids,
        [
            format!("boundary:{lr}:access"),
            format!("boundary:{lr}:assertion_status"),
            format!("boundary:{lr}:authority_class"),
            format!("boundary:{ce}:authority_class"),
            format!("boundary:{ce}:access"),
        ]
    );
    // An unselected record fails every listed field.
    let case = case_with(|v| {
        v["expected"]["boundaries"] = json!([{"record_id": ex("evidence/staff-key-holders"), "access": "restricted", "rights": "x"}]);
    });
    let a = run(&case, &example_index());
    let failed = failed_ids(&a);
    assert_eq!(failed.len(), 2, "{failed:?}");
}

#[test]
fn spec_2_8_sufficiency_checks_appear_only_for_a_sufficient_package() {
    let index = example_index();
    let a = run(&case_of(&example_case_value()), &index);
    let h: Vec<&str> = a
        .stage(StageId::H)
        .unwrap()
        .checks
        .iter()
        .map(|c| c.id.as_str())
        .collect();
    assert_eq!(
        h.iter()
            .filter(|id| id.starts_with("sufficiency-"))
            .copied()
            .collect::<Vec<_>>(),
        [
            "sufficiency-covers-all-resolved-concepts",
            "sufficiency-has-declared-requirement",
            "sufficiency-retains-required-evidence",
            "sufficiency-retains-required-paths",
            "sufficiency-without-omissions-or-conflicts",
        ]
    );
    // An insufficient package has none of them (absent, not failed).
    let case = case_with(|v| {
        v["question"] = json!("Explain overdue fines for DVDs");
        v["expected"] = json!({
            "resolved_concepts": [ex("concept/overdue-charges")],
            "selected_concepts": [], "sources": [], "assertions": [], "paths": [], "evidence": [],
            "forbidden_records": [], "requirements": [ex("requirement/overdue-charges")],
            "issues": [{"area": "missing_evidence", "code": "unresolved_terms", "ids": []}],
            "boundaries": [], "evidence_status": "insufficient", "unresolved_terms": ["dvds"],
        });
    });
    let a = run(&case, &index);
    assert_eq!(a.status, Status::Passed, "{:#?}", failed_ids(&a));
    assert!(
        a.stage(StageId::H)
            .unwrap()
            .checks
            .iter()
            .all(|c| !c.id.starts_with("sufficiency-"))
    );
}

#[test]
fn spec_2_4_every_selection_has_a_valid_directed_path_from_a_resolved_seed() {
    let index = example_index();
    let mut p = package(&index, QUESTION);
    // Re-seed the lending-rules path at an unresolved concept.
    p["selected"][1]["paths"][0]["seed"] = json!(ex("concept/library-card"));
    p["selected"][1]["paths"][0]["records"][0] = json!(ex("concept/library-card"));
    let a = assess(&p, &case_of(&example_case_value()), &index, None);
    assert!(
        failed_ids(&a).contains(&"D:valid-directed-path:1:0".to_owned()),
        "{:#?}",
        failed_ids(&a)
    );
}

#[test]
fn spec_0_4_duplicate_selected_rows_fail_uniqueness_and_the_row_count() {
    let index = example_index();
    let mut p = package(&index, QUESTION);
    let row = p["selected"][1].clone();
    p["selected"].as_array_mut().unwrap().push(row);
    let a = assess(&p, &case_of(&example_case_value()), &index, None);
    let failed = failed_ids(&a);
    assert!(
        failed.contains(&"A:unique-selected-records".to_owned()),
        "{failed:#?}"
    );
    assert!(
        failed.contains(&"E:selected-count".to_owned()),
        "{failed:#?}"
    );
    assert!(
        failed.contains(&"E:exact-package-byte-count".to_owned()),
        "{failed:#?}"
    );
}

#[test]
fn spec_0_4_a_missing_package_field_fails_rather_than_passes() {
    let index = example_index();
    let mut p = package(&index, QUESTION);
    p.as_object_mut().unwrap().remove("ai_answer");
    let a = assess(&p, &case_of(&example_case_value()), &index, None);
    assert!(failed_ids(&a).contains(&"H:no-model-answer".to_owned()));
    let mut p = package(&index, QUESTION);
    p.as_object_mut().unwrap().remove("budget");
    let a = assess(&p, &case_of(&example_case_value()), &index, None);
    assert!(a.failed_stages().contains(&StageId::E));
}

#[test]
fn spec_1_2_a_malformed_case_is_rejected_with_its_json_path() {
    let mut v = example_case_value();
    v["expected"]["sources"][0]["source_sha256"] = json!("ABC");
    let err = Case::from_slice(&serde_json::to_vec(&v).unwrap()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "case at expected.sources[0].source_sha256: must be 64 lowercase hex characters"
    );
    let mut v = example_case_value();
    v["expected"]["score"] = json!(1);
    let err = Case::from_slice(&serde_json::to_vec(&v).unwrap()).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("case at expected.score: unknown field `score`"),
        "{err}"
    );
    let mut v = example_case_value();
    v["expected"]["boundaries"][0]["access"] = json!("secret");
    let err = Case::from_slice(&serde_json::to_vec(&v).unwrap()).unwrap_err();
    assert!(err.to_string().contains("expected.boundaries[0]"), "{err}");
    let mut v = example_case_value();
    v["schema"] = json!("okf-context-evaluation-case.v2");
    assert!(Case::from_slice(&serde_json::to_vec(&v).unwrap()).is_err());
    assert!(Case::from_slice(b"{\"schema\":").is_err());
}

#[test]
fn e3_a_repeated_member_in_a_case_is_rejected() {
    let text = String::from_utf8(
        std::fs::read(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../okf/example/case.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let twice = text.replacen(
        "\"id\": \"okf-example/borrow-books\",",
        "\"id\": \"a\", \"id\": \"b\",",
        1,
    );
    let err = Case::from_slice(twice.as_bytes()).unwrap_err();
    assert!(err.to_string().contains("duplicate field `id`"), "{err}");
    let twice = text.replacen(
        "\"access\": \"public\",",
        "\"access\": \"public\", \"access\": \"restricted\",",
        1,
    );
    let err = Case::from_slice(twice.as_bytes()).unwrap_err();
    assert!(
        err.to_string().contains("duplicate field `access`"),
        "{err}"
    );
}

#[test]
fn assessing_malformed_packages_never_panics_and_never_passes() {
    let index = example_index();
    let case = example_case();
    let good = package(&index, QUESTION);
    let mut candidates = vec![json!(null), json!([]), json!("package"), json!({})];
    // Every top-level member replaced by a wrong type, one at a time.
    for key in good.as_object().unwrap().keys() {
        for wrong in [
            json!(null),
            json!(7),
            json!("x"),
            json!([{"id": 1}]),
            json!({"paths": "no"}),
        ] {
            if good[key] != wrong {
                let mut p = good.clone();
                p[key] = wrong;
                candidates.push(p);
            }
        }
    }
    // Selected rows and paths with wrong shapes.
    for wrong in [
        json!(null),
        json!(3),
        json!([null]),
        json!([{"seed": 1, "assertions": "a", "records": [2]}]),
    ] {
        let mut p = good.clone();
        p["selected"][0]["paths"] = wrong.clone();
        p["selected"][1]["record"] = wrong;
        candidates.push(p);
    }
    for p in candidates {
        let a = assess(&p, &case, &index, None);
        assert_eq!(a.status, Status::Failed, "{p}");
    }
}
