//! Spec §7.3: provenance, governance and digests, plus the §3.7 governance table and the §2.2
//! rejection conditions it exercises, on a direct index.
//!
//! Skipped from §7.3: nothing. "Rejected from both validation and assembly" is covered by
//! validation alone, because in this API assembly only accepts an already validated
//! `ContextIndex` (the type makes an unvalidated assembly impossible).
//!
//! Not tested here: §3.7 issue grouping (corpus v2/v3 only, not implemented). For a direct
//! index the spec requires one row per item, which
//! `governance_issues_keep_one_row_per_item_on_a_direct_index` pins.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::*;
use okf_engine::{BudgetRule, Error, IndexRule, QuestionRule};
use serde_json::{Value, json};

fn library() -> String {
    id("evidence/library")
}

/// Asks `Reading circle` of the study club after `change` is applied to `records[1]`
/// (the library record).
fn ask_with_library(change: impl FnOnce(&mut Value)) -> Value {
    let mut ix = study_club();
    assert_eq!(ix["records"][1]["id"], json!(library()));
    change(&mut ix["records"][1]);
    ask_default(&ix, "Reading circle")
}

#[test]
fn fails_closed_without_provenance() {
    let pkg = ask_with_library(|r| r["provenance"] = json!([]));
    assert_eq!(status(&pkg), "insufficient");
    assert!(has_issue(
        &pkg,
        "missing_evidence",
        "missing_provenance",
        &[&library()]
    ));
    // No provenance also means no literal digest.
    assert!(has_issue(
        &pkg,
        "missing_evidence",
        "missing_evidence",
        &[&library()]
    ));
    assert!(requirement_missing(&pkg, &id("requirement/reading")).contains(&library()));
}

#[test]
fn fails_closed_without_scope() {
    let pkg = ask_with_library(|r| r["scope"] = json!(""));
    assert_eq!(status(&pkg), "insufficient");
    assert!(has_issue(
        &pkg,
        "missing_evidence",
        "missing_scope",
        &[&library()]
    ));
}

#[test]
fn fails_closed_without_rights() {
    let pkg = ask_with_library(|r| r["rights"] = json!(""));
    assert_eq!(status(&pkg), "insufficient");
    assert!(has_issue(
        &pkg,
        "missing_evidence",
        "missing_rights",
        &[&library()]
    ));
}

#[test]
fn fails_closed_without_authority() {
    let pkg = ask_with_library(|r| {
        r["authority"] = json!({"class": "unclassified", "label": "", "source": ""})
    });
    assert_eq!(status(&pkg), "insufficient");
    assert!(has_issue(
        &pkg,
        "missing_evidence",
        "missing_authority",
        &[&library()]
    ));
}

#[test]
fn authority_needs_a_label_a_traceable_source_and_a_class() {
    for authority in [
        json!({"class": "synthetic", "label": " ", "source": BASE}),
        json!({"class": "synthetic", "label": "x", "source": "ftp://example.test/"}),
        json!({"class": "", "label": "x", "source": BASE}),
    ] {
        let pkg = ask_with_library(|r| r["authority"] = authority.clone());
        assert!(
            has_issue(&pkg, "missing_evidence", "missing_authority", &[&library()]),
            "{authority}"
        );
        assert_eq!(status(&pkg), "insufficient");
    }
}

#[test]
fn authority_class_must_match_the_assertion_status() {
    let cases = [
        ("official", "official", false),
        ("official", "derived", true),
        ("model-derived", "model-assisted", false),
        ("model-derived", "synthetic", false),
        ("model-derived", "derived", true),
        ("normalized", "derived", false),
        ("normalized", "synthetic", false),
        ("inferred", "derived", false),
        ("inferred", "official", true),
    ];
    for (assertion_status, class, mismatch) in cases {
        let pkg = ask_with_library(|r| {
            r["assertion_status"] = json!(assertion_status);
            r["authority"]["class"] = json!(class);
        });
        assert_eq!(
            has_issue(
                &pkg,
                "missing_evidence",
                "authority_mismatch",
                &[&library()]
            ),
            mismatch,
            "{assertion_status} / {class}"
        );
        assert_eq!(
            status(&pkg) == "sufficient",
            !mismatch,
            "{assertion_status} / {class}"
        );
    }
}

#[test]
fn evidence_needs_a_passage_and_a_literal_digest() {
    let pkg = ask_with_library(|r| {
        r["text"] = json!("   ");
        r["provenance"][0]["literal_sha256"] = json!(sha("   "));
    });
    assert!(has_issue(
        &pkg,
        "missing_evidence",
        "missing_evidence",
        &[&library()]
    ));
    assert_eq!(status(&pkg), "insufficient");

    let pkg = ask_with_library(|r| {
        r["provenance"][0]
            .as_object_mut()
            .unwrap()
            .remove("literal_sha256");
    });
    assert!(has_issue(
        &pkg,
        "missing_evidence",
        "missing_evidence",
        &[&library()]
    ));
    assert_eq!(status(&pkg), "insufficient");
}

#[test]
fn malformed_provenance_fields_raise_missing_provenance() {
    let cases: [(&str, Value); 4] = [
        ("url", json!("not a url")),
        ("source_sha256", json!("ABC")),
        ("locator", json!(" ")),
        ("captured_at", json!("yesterday")),
    ];
    for (field, value) in cases {
        let pkg = ask_with_library(|r| r["provenance"][0][field] = value.clone());
        assert!(
            has_issue(
                &pkg,
                "missing_evidence",
                "missing_provenance",
                &[&library()]
            ),
            "{field}"
        );
        assert_eq!(status(&pkg), "insufficient", "{field}");
    }
}

#[test]
fn assertion_governance_issues_name_the_assertion() {
    let mut ix = study_club();
    assertion_mut(&mut ix, &id("assertion/1"))["scope"] = json!("");
    let pkg = ask_default(&ix, "Reading circle");
    assert!(has_issue(
        &pkg,
        "missing_evidence",
        "missing_scope",
        &[&id("assertion/1")]
    ));
    assert_eq!(status(&pkg), "insufficient");

    // Assertions never get `missing_rights`: they have no rights field.
    assert!(ids_of(&pkg, "missing_evidence", "missing_rights").is_empty());
}

#[test]
fn changed_passage_bytes_raise_a_digest_mismatch() {
    let mut ix = study_club();
    let changed = format!("{} Appended.", text_of("library"));
    set_text_unsigned(&mut ix, &library(), &changed);
    let pkg = ask_default(&ix, "Reading circle");
    assert_eq!(
        ids_of(&pkg, "missing_evidence", "evidence_digest_mismatch"),
        [vec![library()]]
    );
    assert_eq!(status(&pkg), "insufficient");
    assert!(requirement_missing(&pkg, &id("requirement/reading")).contains(&library()));
}

#[test]
fn a_different_expected_snapshot_is_rejected() {
    let ix = study_club();
    let err = okf_engine::ContextIndex::from_value(ix.clone(), Some("another-snapshot"))
        .expect_err("cross-snapshot binding must be rejected");
    assert!(
        matches!(
            err,
            Error::Index {
                rule: IndexRule::SnapshotMismatch { .. },
                ..
            }
        ),
        "{err:?}"
    );
    assert!(okf_engine::ContextIndex::from_value(ix, Some(SNAPSHOT)).is_ok());
}

#[test]
fn loose_or_impossible_capture_dates_raise_missing_provenance() {
    for captured_at in [
        "3",
        "2026-02-31T00:00:00Z",
        "2026-09-16",
        "2026-09-16T25:00:00Z",
    ] {
        let pkg = ask_with_library(|r| r["provenance"][0]["captured_at"] = json!(captured_at));
        assert!(
            has_issue(
                &pkg,
                "missing_evidence",
                "missing_provenance",
                &[&library()]
            ),
            "{captured_at}"
        );
        assert_eq!(status(&pkg), "insufficient", "{captured_at}");
    }
    for captured_at in ["2026-09-16T00:00:00.5+01:00", "2024-02-29T23:59:59Z"] {
        let pkg = ask_with_library(|r| r["provenance"][0]["captured_at"] = json!(captured_at));
        assert!(
            ids_of(&pkg, "missing_evidence", "missing_provenance").is_empty(),
            "{captured_at}"
        );
        assert_eq!(status(&pkg), "sufficient", "{captured_at}");
    }
}

#[test]
fn a_numeric_capture_date_is_rejected_by_validation() {
    // §1.1: every provenance value present must be a string.
    let mut ix = study_club();
    ix["records"][1]["provenance"][0]["captured_at"] = json!(3);
    assert!(matches!(index_error(&ix), Error::Index { .. }));
}

fn assert_index_rejected(ix: &Value, what: &str) -> IndexRule {
    match index_error(ix) {
        Error::Index { rule, .. } => rule,
        other => panic!("{what}: expected an index-validation error, got {other:?}"),
    }
}

#[test]
fn malformed_optional_fields_are_rejected() {
    let mut ix = study_club();
    ix["records"][1]["review_status"] = json!({"state": "reviewed"});
    assert_index_rejected(&ix, "review_status object");

    let mut ix = study_club();
    ix["assertions"][1]["original_assertion_id"] = json!({});
    assert_index_rejected(&ix, "original_assertion_id object");

    let mut ix = study_club();
    ix["assertions"][1]["original_assertion_id"] = json!("not an iri");
    assert_eq!(
        assert_index_rejected(&ix, "original_assertion_id not IRI"),
        IndexRule::NotIri
    );

    let mut ix = study_club();
    ix["records"][5]["aliases"] = json!([{"label": "RC", "case_sensitive": true, "note": "extra"}]);
    assert_index_rejected(&ix, "alias object with extra key");

    // The valid forms are accepted.
    let mut ix = study_club();
    ix["records"][1]["review_status"] = json!("reviewed");
    ix["assertions"][1]["original_assertion_id"] = json!(id("assertion/original"));
    ix["records"][5]["aliases"] =
        json!(["Reading circle", {"label": "RC", "case_sensitive": true}]);
    assert!(index(&ix).is_ok());
}

#[test]
fn a_duplicated_record_is_rejected() {
    let mut ix = study_club();
    let copy = ix["records"][1].clone();
    push(&mut ix, "records", copy);
    assert_eq!(
        assert_index_rejected(&ix, "duplicate record"),
        IndexRule::DuplicateRecordId
    );
}

#[test]
fn duplicated_assertions_and_requirements_are_rejected() {
    let mut ix = study_club();
    let copy = ix["assertions"][1].clone();
    push(&mut ix, "assertions", copy);
    assert_eq!(
        assert_index_rejected(&ix, "duplicate assertion"),
        IndexRule::DuplicateAssertionId
    );

    let mut ix = study_club();
    let copy = ix["requirements"][0].clone();
    push(&mut ix, "requirements", copy);
    assert_eq!(
        assert_index_rejected(&ix, "duplicate requirement"),
        IndexRule::DuplicateRequirementId
    );

    // Assertion ids share no namespace with record ids.
    let mut ix = study_club();
    ix["assertions"][1]["id"] = json!(library());
    assert!(index(&ix).is_ok());
}

#[test]
fn out_of_range_and_unknown_budgets_are_rejected() {
    let ix = study_club();
    for (budget, key) in [
        (json!({"max_nodes": 1e9}), "max_nodes"),
        (json!({"max_bytes": 42}), "max_bytes"),
        (json!({"max_bytes": 524_289}), "max_bytes"),
        (json!({"max_nodes": 0}), "max_nodes"),
        (json!({"max_relationships": 1001}), "max_relationships"),
        (json!({"max_depth": 9}), "max_depth"),
    ] {
        let err = try_ask(&ix, "Reading circle", budget.clone()).expect_err("rejected");
        assert!(
            matches!(&err, Error::Budget { key: Some(k), rule: BudgetRule::OutOfRange { .. } } if k == key),
            "{budget}: {err:?}"
        );
    }

    let from_text: Value = serde_json::from_str(r#"{"constructor":1}"#).unwrap();
    let err = try_ask(&ix, "Reading circle", from_text).expect_err("rejected");
    assert!(
        matches!(
            err,
            Error::Budget {
                rule: BudgetRule::UnknownKey,
                ..
            }
        ),
        "{err:?}"
    );

    for (budget, rule) in [
        (json!({"max_nodes": 2.5}), BudgetRule::NotAnInteger),
        (json!({"max_nodes": "3"}), BudgetRule::NotAnInteger),
        (json!([]), BudgetRule::NotAnObject),
        (json!(null), BudgetRule::NotAnObject),
    ] {
        let err = try_ask(&ix, "Reading circle", budget.clone()).expect_err("rejected");
        assert!(
            matches!(&err, Error::Budget { rule: r, .. } if *r == rule),
            "{budget}: {err:?}"
        );
    }

    // The boundaries themselves are accepted.
    for budget in [
        json!({"max_nodes": 1, "max_relationships": 1, "max_depth": 0, "max_bytes": 8192}),
        json!({"max_nodes": 200, "max_relationships": 1000, "max_depth": 8, "max_bytes": 524_288}),
    ] {
        assert!(try_ask(&ix, "Reading circle", budget).is_ok());
    }
}

#[test]
fn empty_blank_and_overlong_questions_are_rejected() {
    let ix = study_club();
    for q in ["", "   ", "\n\t"] {
        let err = try_ask(&ix, q, json!({})).expect_err("rejected");
        assert_eq!(err, Error::Question(QuestionRule::Blank), "{q:?}");
    }
    let long = "a".repeat(4001);
    assert!(matches!(
        try_ask(&ix, &long, json!({})),
        Err(Error::Question(QuestionRule::TooLong(4001)))
    ));
    // 4,000 UTF-16 units is the inclusive limit; astral characters count twice.
    assert!(try_ask(&ix, &"a".repeat(4000), json!({})).is_ok());
    assert!(try_ask(&ix, &"😀".repeat(2000), json!({})).is_ok());
    assert!(matches!(
        try_ask(&ix, &format!("a{}", "😀".repeat(2000)), json!({})),
        Err(Error::Question(QuestionRule::TooLong(4001)))
    ));
}

#[test]
fn a_null_provenance_entry_is_rejected() {
    let mut ix = study_club();
    ix["records"][1]["provenance"] = json!([null]);
    assert_index_rejected(&ix, "provenance [null]");
}

#[test]
fn index_shape_rejections_have_distinguishable_kinds() {
    let mut ix = study_club();
    ix["schema"] = json!("okf-context-index.v2");
    assert_eq!(
        assert_index_rejected(&ix, "schema"),
        IndexRule::UnsupportedSchema
    );

    let mut ix = study_club();
    ix["extra"] = json!(1);
    assert!(matches!(
        assert_index_rejected(&ix, "top-level key"),
        IndexRule::UnknownKey(k) if k == "extra"
    ));

    let mut ix = study_club();
    ix["bundle"]["id"] = json!("no iri");
    assert_eq!(assert_index_rejected(&ix, "bundle id"), IndexRule::NotIri);

    let mut ix = study_club();
    ix["bundle"]["source_url"] = json!("https://user:pw@example.test/");
    assert_eq!(
        assert_index_rejected(&ix, "bundle url"),
        IndexRule::NotHttpUrl
    );

    let mut ix = study_club();
    ix["bundle"]["extra"] = json!(1);
    assert!(matches!(
        assert_index_rejected(&ix, "bundle key"),
        IndexRule::UnknownKey(_)
    ));

    // The engine accepts an empty snapshot although the schema says minLength 1 (W3).
    let mut ix = study_club();
    ix["bundle"]["snapshot"] = json!("");
    assert!(index(&ix).is_ok());

    let mut ix = study_club();
    ix["records"][1]["route"] = json!("../evidence/library");
    assert_eq!(assert_index_rejected(&ix, "route"), IndexRule::UnsafeRoute);

    let mut ix = study_club();
    ix["records"][1]["kind"] = json!("passage");
    assert_index_rejected(&ix, "kind");

    let mut ix = study_club();
    ix["records"][1]["access"] = json!("internal");
    assert_index_rejected(&ix, "access");

    let mut ix = study_club();
    ix["records"][1].as_object_mut().unwrap().remove("access");
    assert!(matches!(
        assert_index_rejected(&ix, "access missing"),
        IndexRule::MissingKey(k) if k == "access"
    ));

    let mut ix = study_club();
    ix["records"][1]["label"] = json!("");
    assert_eq!(
        assert_index_rejected(&ix, "empty label"),
        IndexRule::TooShort { min: 1 }
    );

    let mut ix = study_club();
    ix["records"][1]["label"] = json!("x".repeat(501));
    assert_eq!(
        assert_index_rejected(&ix, "long label"),
        IndexRule::TooLong { max: 500 }
    );

    let mut ix = study_club();
    ix["records"][1]["conflicts_with"] = json!(["not an iri"]);
    assert_eq!(assert_index_rejected(&ix, "conflicts"), IndexRule::NotIri);

    let mut ix = study_club();
    ix["assertions"][1]["predicate"] = json!("requires");
    assert_eq!(assert_index_rejected(&ix, "predicate"), IndexRule::NotIri);

    let mut ix = study_club();
    ix["requirements"][0]["when_all"] = json!([]);
    assert_eq!(
        assert_index_rejected(&ix, "when_all"),
        IndexRule::TooFew { min: 1 }
    );

    let mut ix = study_club();
    ix["requirements"][0]["required_paths"] = json!([{
        "seed": id("concept/reading"),
        "assertions": [id("assertion/0")],
        "records": [id("evidence/reading"), id("evidence/library")],
    }]);
    assert_eq!(
        assert_index_rejected(&ix, "path seed"),
        IndexRule::InvalidDirectedPath
    );

    let mut ix = study_club();
    ix["requirements"][0]["required_paths"] = json!([{
        "seed": id("concept/reading"),
        "assertions": [id("assertion/0")],
        "records": [id("concept/reading")],
    }]);
    assert_eq!(
        assert_index_rejected(&ix, "path length"),
        IndexRule::InvalidDirectedPath
    );
}

#[test]
fn dangling_references_pass_validation_and_surface_during_assembly() {
    // W13 (kept): validation does not check that endpoints exist.
    let mut ix = study_club();
    push(
        &mut ix,
        "assertions",
        extra_assertion(
            &id("assertion/dangling"),
            &id("evidence/library"),
            &id("evidence/nowhere"),
        ),
    );
    let pkg = ask_default(&ix, "Reading circle");
    assert_eq!(
        ids_of(&pkg, "missing_evidence", "missing_record"),
        [vec![id("evidence/nowhere")]]
    );
    assert_eq!(
        ids_of(&pkg, "missing_evidence", "missing_dependency"),
        [vec![id("evidence/library"), id("evidence/nowhere")]]
    );
    assert_eq!(status(&pkg), "insufficient");
}

#[test]
fn governance_issues_keep_one_row_per_item_on_a_direct_index() {
    let mut ix = study_club();
    ix["records"][0]["scope"] = json!("");
    ix["records"][1]["scope"] = json!("");
    let pkg = ask_default(&ix, "Reading circle");
    assert_eq!(
        ids_of(&pkg, "missing_evidence", "missing_scope"),
        [vec![id("evidence/reading")], vec![library()]]
    );
}

#[test]
fn governance_issue_order_follows_the_spec_table() {
    let pkg = ask_with_library(|r| {
        r["scope"] = json!("");
        r["authority"] = json!({"class": "official", "label": "", "source": ""});
        r["provenance"] = json!([]);
        r["rights"] = json!("");
    });
    let for_library: Vec<String> = pkg["missing_evidence"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["ids"] == json!([library()]) && i["code"] != "missing_required_evidence")
        .map(|i| i["code"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        for_library,
        [
            "missing_scope",
            "missing_authority",
            "authority_mismatch",
            "missing_provenance",
            "missing_rights",
            "missing_evidence",
        ]
    );
}

#[test]
fn non_ascii_urls_are_checked_without_panicking() {
    // §2.3: the prefix check must not split a multi-byte character (found by
    // spec_2_never_panics).
    for url in [
        "a完éa完é",
        "http:/完",
        "https:/完/",
        "完https://example.test/",
    ] {
        assert!(!okf_engine::validate::is_http_url(url), "{url}");
    }
    assert!(okf_engine::validate::is_http_url(
        "https://example.test/完整"
    ));
    let pkg = ask_with_library(|r| r["authority"]["source"] = json!("a完éa完é"));
    assert!(has_issue(
        &pkg,
        "missing_evidence",
        "missing_authority",
        &[&library()]
    ));
}

/// The `regimes` extension (this project's; spec hospital-and-regimes): a regime's members
/// must be public concepts of the index, each looked up by id.
#[test]
fn a_regime_names_only_public_concepts() {
    let with_regime = |member: &str, restrict_concept: bool| {
        let mut ix = study_club();
        let concept = ix["records"]
            .as_array_mut()
            .unwrap()
            .iter_mut()
            .find(|r| r["kind"] == "concept")
            .unwrap();
        if restrict_concept {
            concept["access"] = json!("restricted");
        }
        let concept_id = concept["id"].as_str().unwrap().to_owned();
        let member = if member == "concept" {
            concept_id
        } else {
            member.to_owned()
        };
        ix["regimes"] = json!([{"id": id("regime/term-time"), "label": "Term time", "concepts": [member], "phrases": []}]);
        index(&ix)
    };
    assert!(with_regime("concept", false).is_ok());
    for (member, restricted, what) in [
        ("concept", true, "a restricted concept"),
        (library().as_str(), false, "an evidence record"),
        (id("concept/nowhere").as_str(), false, "an unknown id"),
    ] {
        match with_regime(member, restricted) {
            Err(Error::Index { path, rule, .. }) => {
                assert_eq!(rule, IndexRule::UnknownRegimeMember, "{what}");
                assert_eq!(path, "regimes[0].concepts[0]", "{what}");
            }
            other => panic!("{what}: {other:?}"),
        }
    }
}

/// The `parts` extension of a composed index (docs/authoring.md "Composition"): each part
/// lists concept records of the index, a concept belongs to at most one part, and a part's
/// `index_sha256` is a digest.
#[test]
fn parts_name_concepts_of_the_index_each_in_one_part() {
    let with_parts = |parts: Value| {
        let mut ix = study_club();
        ix["parts"] = parts;
        index(&ix)
    };
    let concept = study_club()["records"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["kind"] == "concept")
        .unwrap()["id"]
        .clone();
    let part = |n: &str, concepts: Value| json!({"id": id(n), "label": n, "concepts": concepts});
    assert!(
        with_parts(json!([
            part("part/a", json!([concept])),
            part("part/b", json!([]))
        ]))
        .is_ok()
    );
    let mut bad_digest = part("part/a", json!([concept]));
    bad_digest["index_sha256"] = json!("ABC");
    for (parts, path, rule) in [
        (
            json!([part("part/a", json!([library()]))]),
            "parts[0].concepts[0]",
            IndexRule::UnknownPartMember,
        ),
        (
            json!([
                part("part/a", json!([concept])),
                part("part/b", json!([concept]))
            ]),
            "parts[1].concepts[0]",
            IndexRule::ConceptInTwoParts,
        ),
        (
            json!([part("part/a", json!([])), part("part/a", json!([]))]),
            "parts[1].id",
            IndexRule::DuplicateDeclaration,
        ),
        (
            json!([bad_digest]),
            "parts[0].index_sha256",
            IndexRule::NotSha256,
        ),
    ] {
        match with_parts(parts) {
            Err(Error::Index {
                path: p, rule: r, ..
            }) => {
                assert_eq!((p.as_str(), r), (path, rule));
            }
            other => panic!("{path}: {other:?}"),
        }
    }
}
