//! Review decisions as data (issue 45): `okf-review-decision.v1` files folded into the built
//! index's `reviews` (docs/authoring.md "The review loop", DEVIATIONS A10).

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use okf_authoring::{
    Built, CaptureFile, Error, ProfileFile, ReviewFile, Rule, build_reviewed, decode_decision,
    item_sha256,
};
use okf_engine::ContextIndex;
use okf_engine::model::ReviewDecision;
use okf_eval::{ReviewClaim, Severity, lint_reviewed};
use std::path::{Path, PathBuf};

const CONCEPT: &str = "https://x.example/concept/loans";
const REQUIREMENT: &str = "https://x.example/requirement/loans";
const ASSERTION: &str = "https://x.example/assertion/loans-rule";
const EVIDENCE: &str = "https://x.example/evidence/rule";

/// SHA-256 of the fixture's index built without decisions, pinned. The same digest was
/// computed with the compiler before `reviews` existed (commit f720630), so adding the field
/// changed nothing for an index without it.
const UNREVIEWED_INDEX_SHA256: &str =
    "bf94a66ee54e691f8bfcff5345fd83158878b5ff2b56441829ecab512ce1cc25";

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/review-profile")
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap()
}

fn profile() -> Vec<ProfileFile> {
    ["profile.toml", "graph.toml"]
        .iter()
        .map(|name| ProfileFile {
            name: (*name).into(),
            text: read(&fixture().join(name)),
        })
        .collect()
}

fn captures() -> Vec<CaptureFile> {
    vec![CaptureFile {
        name: "sources/doc.json".into(),
        bytes: read(&fixture().join("sources/doc.json")).into_bytes(),
    }]
}

/// The fixture's decision files, named as `okf build` names them.
fn decisions() -> Vec<ReviewFile> {
    let mut out: Vec<ReviewFile> = std::fs::read_dir(fixture().join("reviews"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|p| ReviewFile {
            name: format!("reviews/{}", p.file_name().unwrap().to_string_lossy()),
            bytes: std::fs::read(&p).unwrap(),
        })
        .collect();
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

fn build(profile: &[ProfileFile], reviews: &[ReviewFile]) -> Result<Built, Error> {
    build_reviewed(profile, &captures(), None, reviews)
}

fn decision(name: &str, json: &str) -> ReviewFile {
    ReviewFile {
        name: format!("reviews/{name}"),
        bytes: json.as_bytes().to_vec(),
    }
}

/// A valid decision about the concept, as JSON with `edit` applied.
fn concept_decision(edit: impl Fn(&mut serde_json::Value)) -> String {
    let mut v: serde_json::Value =
        serde_json::from_slice(&decisions()[0].bytes).expect("fixture decision");
    edit(&mut v);
    v.to_string()
}

fn refused(reviews: &[ReviewFile]) -> Error {
    build(&profile(), reviews).expect_err("the decisions must be refused")
}

fn review_rule(e: &Error) -> (&str, &str) {
    match &e.rule {
        Rule::ReviewDecision { field, problem } => (field.as_str(), problem.as_str()),
        other => panic!("not a review decision error: {other:?}"),
    }
}

#[test]
fn decisions_approving_two_items_and_rejecting_one_are_recorded_in_the_index_sorted_by_item() {
    let built = build(&profile(), &decisions()).unwrap();
    assert!(built.stale_reviews.is_empty());
    let reviews = built.index.reviews.as_ref().expect("reviews recorded");
    let got: Vec<(&str, ReviewDecision, &str, &str)> = reviews
        .iter()
        .map(|r| {
            (
                r.item.as_str(),
                r.decision,
                r.reviewer.role.as_str(),
                r.reviewer.id.as_str(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            (
                ASSERTION,
                ReviewDecision::Rejected,
                "Library policy specialist",
                "r-021"
            ),
            (
                CONCEPT,
                ReviewDecision::Approved,
                "Library policy specialist",
                "r-017"
            ),
            (
                REQUIREMENT,
                ReviewDecision::Approved,
                "Library policy specialist",
                "r-017"
            ),
        ]
    );
    let files = decisions();
    let concept = &reviews[1];
    assert_eq!(concept.date, "2026-12-01");
    assert_eq!(
        concept.reason,
        "The concept names loans as the library rules use the word."
    );
    assert_eq!(
        concept.decision_sha256,
        okf_engine::canonical::sha256_hex(&files[0].bytes)
    );
    assert_eq!(
        concept.item_sha256,
        item_sha256(&built.index, CONCEPT).unwrap()
    );
    // A decision never changes the item's status or authority: the items are the unreviewed
    // build's, byte for byte.
    let plain = build(&profile(), &[]).unwrap();
    assert_eq!(plain.index.records, built.index.records);
    assert_eq!(plain.index.assertions, built.index.assertions);
    assert_eq!(plain.index.requirements, built.index.requirements);
    // The engine accepts the index as written and keeps the list.
    let loaded = ContextIndex::from_json_slice(built.json.as_bytes()).unwrap();
    assert_eq!(loaded.document().reviews, built.index.reviews);
    // Lint: the evidence record is the one item still unreviewed; nothing else to say.
    let report = lint_reviewed(&loaded, &[], None);
    let review_kinds: Vec<(&str, Vec<String>)> = report
        .findings
        .iter()
        .filter(|f| f.kind.contains("review"))
        .map(|f| (f.kind, f.ids.clone()))
        .collect();
    assert_eq!(
        review_kinds,
        [("unreviewed-item", vec![EVIDENCE.to_owned()])]
    );
}

#[test]
fn editing_an_approved_item_makes_its_decision_stale_so_the_build_warns_and_does_not_record_it_and_lint_names_it()
 {
    let mut edited = profile();
    let graph = &mut edited[1];
    assert!(graph.text.contains("text = \"Navigation concept.\""));
    graph.text = graph.text.replace(
        "text = \"Navigation concept.\"",
        "text = \"Navigation concept for loans.\"",
    );
    let built = build(&edited, &decisions()).unwrap();
    assert_eq!(built.stale_reviews.len(), 1, "{:?}", built.stale_reviews);
    let stale = &built.stale_reviews[0];
    assert_eq!(stale.file, "reviews/001-concept-loans.json");
    assert_eq!(stale.item, CONCEPT);
    assert_eq!(
        stale.declared,
        "bf348017c883a3f51b589cd7e527f596cc3a845729747c0e84407b2878068570"
    );
    assert_eq!(stale.actual, item_sha256(&built.index, CONCEPT).unwrap());
    let recorded: Vec<&str> = built
        .index
        .reviews
        .iter()
        .flatten()
        .map(|r| r.item.as_str())
        .collect();
    assert_eq!(
        recorded,
        [ASSERTION, REQUIREMENT],
        "the stale decision is not carried"
    );

    // Lint with the decision files names the stale one and counts the unreviewed items.
    let index = ContextIndex::from_json_slice(built.json.as_bytes()).unwrap();
    let claims: Vec<ReviewClaim> = decisions()
        .iter()
        .map(|f| {
            let d = decode_decision(f).unwrap();
            ReviewClaim {
                file: d.file,
                item: d.item,
                item_sha256: d.item_sha256,
            }
        })
        .collect();
    let report = lint_reviewed(&index, &[], Some(&claims));
    let stale: Vec<_> = report
        .findings
        .iter()
        .filter(|f| f.kind == "stale-review")
        .collect();
    assert_eq!(stale.len(), 1);
    assert_eq!(stale[0].severity, Severity::Warning);
    assert_eq!(stale[0].path, "reviews/001-concept-loans.json");
    assert!(stale[0].message.contains(&built.stale_reviews[0].actual));
    let unreviewed: Vec<&str> = report
        .findings
        .iter()
        .filter(|f| f.kind == "unreviewed-item")
        .map(|f| f.ids[0].as_str())
        .collect();
    assert_eq!(unreviewed, [CONCEPT, EVIDENCE]);

    // An index whose recorded review no longer matches its item (edited after the build) is
    // an error for lint.
    let mut doc = build(&profile(), &decisions()).unwrap().index;
    doc.records[0].text = "Edited after the build.".into();
    let report = lint_reviewed(&ContextIndex::new(doc).unwrap(), &[], None);
    let recorded_stale: Vec<_> = report
        .findings
        .iter()
        .filter(|f| f.kind == "stale-review")
        .map(|f| (f.severity, f.path.as_str(), f.ids[0].as_str()))
        .collect();
    assert_eq!(
        recorded_stale,
        [(Severity::Error, "reviews[1].item_sha256", CONCEPT)]
    );
}

#[test]
fn a_decision_for_an_unknown_item_is_refused_naming_the_file_and_field() {
    let bad = concept_decision(|v| v["item"] = "https://x.example/concept/fines".into());
    let e = refused(&[decision("009-fines.json", &bad)]);
    assert_eq!(e.file, "reviews/009-fines.json");
    assert_eq!(review_rule(&e).0, "item");
    assert_eq!(
        e.to_string(),
        "reviews/009-fines.json:1: review decision field `item` https://x.example/concept/fines is not a record, assertion, requirement or declared gap of the built index"
    );
}

#[test]
fn two_decisions_for_one_item_are_refused_whether_duplicate_or_conflicting() {
    let files = decisions();
    let same = decision(
        "004-again.json",
        std::str::from_utf8(&files[0].bytes).unwrap(),
    );
    let e = refused(&[files[0].clone(), same]);
    assert_eq!(e.file, "reviews/004-again.json");
    assert_eq!(
        e.to_string(),
        format!(
            "reviews/004-again.json:3: review decision field `item` {CONCEPT} is also decided by reviews/001-concept-loans.json; one decision per item (to change a decision, replace its file)"
        )
    );
    let conflicting = concept_decision(|v| v["decision"] = "rejected".into());
    let e = refused(&[
        files[0].clone(),
        decision("000-conflict.json", &conflicting),
    ]);
    // Applied in file-name order: the later file is the one refused.
    assert_eq!(e.file, "reviews/001-concept-loans.json");
    assert_eq!(review_rule(&e).0, "item");
    assert!(
        review_rule(&e)
            .1
            .contains("also decided by reviews/000-conflict.json")
    );
}

#[test]
fn a_bad_date_is_refused() {
    for date in ["2026-02-30", "01/12/2026", "2026-12-1", ""] {
        let bad = concept_decision(|v| v["date"] = date.into());
        let e = refused(&[decision("bad-date.json", &bad)]);
        assert_eq!(e.file, "reviews/bad-date.json");
        assert_eq!(
            e.to_string(),
            format!(
                "reviews/bad-date.json:1: review decision field `date` must be a YYYY-MM-DD calendar date, not {date:?}"
            )
        );
    }
}

#[test]
fn a_missing_or_blank_reason_is_refused() {
    let missing = concept_decision(|v| {
        v.as_object_mut().unwrap().remove("reason");
    });
    let e = refused(&[decision("no-reason.json", &missing)]);
    assert_eq!(
        e.to_string(),
        "reviews/no-reason.json:1: review decision field `reason` is required"
    );
    for blank in ["", "   ", "\n\t"] {
        let bad = concept_decision(|v| v["reason"] = blank.into());
        let e = refused(&[decision("blank-reason.json", &bad)]);
        assert_eq!(
            e.to_string(),
            "reviews/blank-reason.json:1: review decision field `reason` is required and must not be empty or only whitespace"
        );
    }
}

#[test]
fn an_unknown_decision_value_is_refused() {
    let bad = concept_decision(|v| v["decision"] = "approve".into());
    let e = refused(&[decision("approve.json", &bad)]);
    assert_eq!(
        e.to_string(),
        "reviews/approve.json:1: review decision field `decision` must be approved, changes-required or rejected, not \"approve\""
    );
}

#[test]
fn a_decision_file_is_a_closed_object_without_repeated_keys_and_every_error_names_the_field() {
    let cases: Vec<(String, &str, &str)> = vec![
        (
            concept_decision(|v| v["assertion_status"] = "reviewed".into()),
            "assertion_status",
            "is not a field of okf-review-decision.v1 (the object is closed)",
        ),
        (
            concept_decision(|v| v["reviewer"]["name"] = "A. Person".into()),
            "reviewer.name",
            "is not a field of okf-review-decision.v1 (the object is closed)",
        ),
        (
            r#"{"schema": "okf-review-decision.v1", "item": "https://x.example/concept/loans", "item": "https://x.example/concept/loans"}"#.into(),
            "item",
            "is given more than once",
        ),
        (
            concept_decision(|v| {
                v["reviewer"].as_object_mut().unwrap().remove("id");
            }),
            "reviewer.id",
            "is required",
        ),
        (
            concept_decision(|v| v["reviewer"]["role"] = " ".into()),
            "reviewer.role",
            "is required and must not be empty or only whitespace",
        ),
        (
            concept_decision(|v| v["schema"] = "okf-review-decision.v2".into()),
            "schema",
            "must be \"okf-review-decision.v1\"",
        ),
        (
            concept_decision(|v| v["item_sha256"] = "ABC".into()),
            "item_sha256",
            "must be a SHA-256 digest: 64 lowercase hexadecimal digits (okf review digest prints it)",
        ),
        (
            concept_decision(|v| v["date"] = 20261201.into()),
            "date",
            "has the wrong type: invalid type: integer `20261201`, expected a string at line 1 column 16",
        ),
        ("not json".into(), "(file)", ""),
    ];
    for (json, field, problem) in cases {
        let e = refused(&[decision("x.json", &json)]);
        assert_eq!(e.file, "reviews/x.json");
        let (got_field, got_problem) = review_rule(&e);
        assert_eq!(got_field, field, "{json}");
        if !problem.is_empty() {
            assert_eq!(got_problem, problem, "{json}");
        }
    }
}

#[test]
fn a_refused_decision_builds_nothing_even_after_valid_ones() {
    let mut files = decisions();
    files.push(decision(
        "999-bad.json",
        &concept_decision(|v| v["decision"] = "maybe".into()),
    ));
    // The error is the whole result: no index, no partial list of reviews.
    let e = refused(&files);
    assert_eq!(e.file, "reviews/999-bad.json");
}

#[test]
fn an_index_without_reviews_is_unchanged_and_its_digest_pinned() {
    let plain = build(&profile(), &[]).unwrap();
    assert!(plain.index.reviews.is_none());
    assert!(!plain.json.contains("\"reviews\""));
    assert_eq!(
        okf_engine::canonical::sha256_hex(plain.json.as_bytes()),
        UNREVIEWED_INDEX_SHA256
    );
    // The same bytes as the plain build entry point.
    let onto = okf_authoring::build_onto(&profile(), &captures(), None).unwrap();
    assert_eq!(onto.json, plain.json);
    // And the canonical index digest the engine binds packages to is the file's digest.
    let index = ContextIndex::from_json_slice(plain.json.as_bytes()).unwrap();
    assert_eq!(
        index.default_binding().index_sha256,
        okf_engine::canonical::sha256_hex(plain.json.trim_end().as_bytes())
    );
}

#[test]
fn the_engine_validates_recorded_reviews_as_a_closed_sorted_bounded_list() {
    let built = build(&profile(), &decisions()).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&built.json).unwrap();
    let refused = |v: &serde_json::Value| {
        ContextIndex::from_json_slice(v.to_string().as_bytes())
            .expect_err("the index must be refused")
            .to_string()
    };
    let mut unknown = v.clone();
    unknown["reviews"][0]["status"] = "reviewed".into();
    assert!(
        refused(&unknown).contains("status"),
        "{}",
        refused(&unknown)
    );
    let mut unsorted = v.clone();
    unsorted["reviews"].as_array_mut().unwrap().swap(0, 1);
    assert!(
        refused(&unsorted).contains("reviews[1].item"),
        "{}",
        refused(&unsorted)
    );
    let mut blank = v.clone();
    blank["reviews"][2]["reason"] = " ".into();
    assert!(
        refused(&blank).contains("reviews[2].reason"),
        "{}",
        refused(&blank)
    );
    let mut bad_date = v.clone();
    bad_date["reviews"][0]["date"] = "2026-13-01".into();
    assert!(refused(&bad_date).contains("reviews[0].date"));
    let mut bad_digest = v.clone();
    bad_digest["reviews"][0]["decision_sha256"] = "00".into();
    assert!(refused(&bad_digest).contains("reviews[0].decision_sha256"));
    let mut bad_value = v.clone();
    bad_value["reviews"][0]["decision"] = "approve".into();
    assert!(
        refused(&bad_value).contains("approve"),
        "{}",
        refused(&bad_value)
    );
    v["reviews"] = serde_json::json!([]);
    assert!(refused(&v).contains("reviews"), "{}", refused(&v));
}

// ---------------------------------------------------------------------------------------
// Carried in packages and shown (issue 45 item 3): the hospital profile with decisions.

mod hospital {
    use super::*;
    use okf_engine::{AssembleOptions, Budget, assemble_with_options};
    use serde_json::Value;

    const B: &str = "https://example.invalid/ask-okf/dwp-hospital/id/";
    const QUESTION: &str = "A claimant is admitted to hospital. Explain the effect on JSA, Income Support, State Pension Credit and ESA, distinguishing entitlement, payment and changes in amount, and trace each conclusion to the applicable DWP guidance.";
    /// The chapter 18 branch and its closure: the requirement, its two required pages and the
    /// assertion of its required path.
    const COMMON: &str = "requirement/hospital-common";
    const COMMON_CLOSURE: [&str; 4] = [
        "assertion/hospital-ch18-0003",
        "page/dmg-vol3-ch18/0003",
        "page/dmg-vol3-ch18/0005",
        "requirement/hospital-common",
    ];
    /// The Income Support branch, and the assertion of its required path a decision refuses.
    const IS: &str = "requirement/hospital-income-support";
    const REFUSED: &str = "assertion/hospital-routes-is-to-ch24";
    const ROLE: &str = "DWP decision-making policy specialist";
    const REFUSAL_REASON: &str = "Chapter 18 routes Income Support to chapter 24 only for the downrating rules it revoked; the edge must name the paragraph it rests on.";
    /// `evidence_status` and `context_id` of the hospital package in the richer profile built
    /// without decisions, pinned. Computed on main before packages carried review facts
    /// (commit e666d6e): an index without `reviews` gives the same package.
    const UNREVIEWED_STATUS: &str = "insufficient";
    const UNREVIEWED_CONTEXT_ID: &str =
        "urn:sha256:650471b205da0f934cd99964b2ec840b979dfe151ccc945a5a00013315d047da";

    fn root() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
    }

    fn files(dir: &Path, ext: &str, recursive: bool, out: &mut Vec<PathBuf>) {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for p in entries {
            if p.is_dir() && recursive {
                files(&p, ext, recursive, out);
            } else if p.extension().is_some_and(|e| e == ext) {
                out.push(p);
            }
        }
    }

    /// The hospital profile's files, read the way `okf build` reads them.
    pub(super) fn profile() -> Vec<ProfileFile> {
        let mut toml = Vec::new();
        files(
            &root().join("profiles/dwp-hospital"),
            "toml",
            false,
            &mut toml,
        );
        toml.iter()
            .map(|p| ProfileFile {
                name: p.file_name().unwrap().to_string_lossy().into_owned(),
                text: std::fs::read_to_string(p).unwrap(),
            })
            .collect()
    }

    fn captures() -> Vec<CaptureFile> {
        let mut json = Vec::new();
        files(
            &root().join("../shared/dwp/source"),
            "json",
            true,
            &mut json,
        );
        json.iter()
            .map(|p| CaptureFile {
                name: p.display().to_string(),
                bytes: std::fs::read(p).unwrap(),
            })
            .collect()
    }

    fn build(profile: &[ProfileFile], reviews: &[ReviewFile]) -> Built {
        build_reviewed(profile, &captures(), None, reviews).unwrap_or_else(|e| panic!("{e}"))
    }

    /// A decision file about `route` (an id under the profile's base), bound to its digest in
    /// `index`.
    fn decide(
        index: &okf_engine::model::IndexDocument,
        n: usize,
        route: &str,
        decision: &str,
        date: &str,
        reason: &str,
    ) -> ReviewFile {
        let item = format!("{B}{route}");
        let json = serde_json::json!({
            "schema": "okf-review-decision.v1",
            "item": item,
            "item_sha256": item_sha256(index, &item).unwrap(),
            "decision": decision,
            "reviewer": {"role": ROLE, "id": format!("r-{n:03}")},
            "date": date,
            "reason": reason,
        });
        ReviewFile {
            name: format!("reviews/{n:03}.json"),
            bytes: json.to_string().into_bytes(),
        }
    }

    /// Decisions approving the chapter 18 branch's closure (the last on 2026-12-03) and
    /// refusing one assertion of the Income Support branch.
    pub(super) fn decisions(index: &okf_engine::model::IndexDocument) -> Vec<ReviewFile> {
        let mut out: Vec<ReviewFile> = COMMON_CLOSURE
            .iter()
            .enumerate()
            .map(|(i, route)| {
                let date = if i == 2 { "2026-12-03" } else { "2026-12-01" };
                decide(
                    index,
                    i + 1,
                    route,
                    "approved",
                    date,
                    "Checked against the captured DMG chapter 18 pages.",
                )
            })
            .collect();
        out.push(decide(
            index,
            9,
            REFUSED,
            "rejected",
            "2026-12-04",
            REFUSAL_REASON,
        ));
        out
    }

    fn package(index: &ContextIndex) -> Value {
        let options = AssembleOptions {
            regime_profile: true,
            ..AssembleOptions::default()
        };
        let p = assemble_with_options(index, QUESTION, &Budget::default(), None, &options).unwrap();
        serde_json::from_str(&p.json).unwrap()
    }

    pub(super) fn requirement<'a>(p: &'a Value, route: &str) -> &'a Value {
        p["requirements"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["id"] == format!("{B}{route}"))
            .unwrap_or_else(|| panic!("{route} is not a requirement of the package"))
    }

    fn loaded(built: &Built) -> ContextIndex {
        ContextIndex::from_json_str(&built.json).unwrap()
    }

    /// The hospital case with `expected.review` set from `review` (JSON).
    fn case_requiring(review: Value) -> okf_eval::Case {
        let path = root().join("profiles/dwp-hospital/eval/case.json");
        let mut case: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
        case["expected"]["review"] = review;
        okf_eval::Case::from_slice(case.to_string().as_bytes()).unwrap()
    }

    /// Stage R of the hospital case on `built`, as `okf eval` runs it.
    fn review_stage(built: &Built, review: Value) -> okf_eval::Stage {
        let index = loaded(built);
        let binding = okf_eval::raw_binding(&index, built.json.as_bytes());
        let run = okf_eval::run_case(
            &index,
            &case_requiring(review),
            &Budget::default(),
            &binding,
        )
        .unwrap();
        let stage = run.assessment.stage(okf_eval::StageId::R).unwrap().clone();
        assert_eq!(run.assessment.stages.len(), 9, "A to H, then R");
        stage
    }

    #[test]
    fn an_eval_case_can_require_a_branch_approved_by_a_specialist() {
        let plain = build(&profile(), &[]);
        let reviewed = build(&profile(), &decisions(&plain.index));
        let common = format!("{B}{COMMON}");
        let approved = serde_json::json!({"approved": [common]});
        // With the decisions: the chapter 18 branch reads approved.
        let stage = review_stage(&reviewed, approved.clone());
        assert!(stage.status.passed(), "{stage:?}");
        assert_eq!(stage.checks[0].id, format!("review-approved:{common}"));
        // Without them the same case fails at stage R only, saying what the package holds.
        let stage = review_stage(&plain, approved);
        assert!(!stage.status.passed());
        assert_eq!(stage.checks[0].actual, Some(Value::Null));
        // Every requirement approved: the other branches are not.
        let stage = review_stage(
            &reviewed,
            serde_json::json!({"every_requirement_approved": true}),
        );
        assert!(!stage.status.passed());
        let not_approved = stage.checks[0].actual.as_ref().unwrap()["not_approved"]
            .as_array()
            .unwrap()
            .clone();
        assert!(not_approved.contains(&Value::from(format!("{B}{IS}"))));
        assert!(!not_approved.contains(&Value::from(common)));
    }

    #[test]
    fn a_case_without_a_review_requirement_has_the_eight_stages_only() {
        let plain = build(&profile(), &[]);
        let index = loaded(&plain);
        let binding = okf_eval::raw_binding(&index, plain.json.as_bytes());
        let path = root().join("profiles/dwp-hospital/eval/case.json");
        let case = okf_eval::Case::from_slice(&std::fs::read(path).unwrap()).unwrap();
        let run = okf_eval::run_case(&index, &case, &Budget::default(), &binding).unwrap();
        assert_eq!(run.assessment.stages.len(), 8);
        assert!(run.assessment.stage(okf_eval::StageId::R).is_none());
    }

    #[test]
    fn the_package_shows_the_chapter_18_branch_approved_and_the_refusal_with_its_reason() {
        let plain = build(&profile(), &[]);
        let unreviewed = package(&loaded(&plain));
        let reviewed_built = build(&profile(), &decisions(&plain.index));
        assert!(reviewed_built.stale_reviews.is_empty());
        assert_eq!(reviewed_built.index.reviews.as_ref().unwrap().len(), 5);
        let p = package(&loaded(&reviewed_built));
        // Written in canonical key order: the bytes are the canonical JSON of the package.
        let options = AssembleOptions {
            regime_profile: true,
            ..AssembleOptions::default()
        };
        let bytes = assemble_with_options(
            &loaded(&reviewed_built),
            QUESTION,
            &Budget::default(),
            None,
            &options,
        )
        .unwrap()
        .json;
        assert_eq!(
            okf_engine::canonical::to_canonical_string(&p).unwrap(),
            bytes
        );
        okf_engine::verify_package(&p).unwrap();

        // The chapter 18 branch: its whole closure approved, by whom and when.
        let common = &requirement(&p, COMMON)["review"];
        assert_eq!(
            common,
            &serde_json::json!({
                "approved": 4, "awaiting_review": 0, "items": 4,
                "latest_approval": "2026-12-03", "refusals": [], "refused": 0,
                "reviewers": [ROLE], "stale": 0, "state": "approved",
                "statement": format!("Reviewed by a {ROLE} on 2026-12-03."),
            })
        );
        // The Income Support branch: the refused assertion with its reason; the routing page
        // it shares with chapter 18 is approved, the rest awaits review.
        let is = &requirement(&p, IS)["review"];
        assert_eq!(is["state"], "refused");
        assert_eq!(is["refused"], 1);
        assert_eq!(is["stale"], 0);
        assert_eq!(
            is["refusals"],
            serde_json::json!([{
                "date": "2026-12-04", "decision": "rejected", "item": format!("{B}{REFUSED}"),
                "label": "Chapter 18 routes the effect of hospital on IS to chapter 24",
                "reason": REFUSAL_REASON, "role": ROLE,
            }])
        );
        let n = is["items"].as_u64().unwrap();
        assert_eq!(
            is["approved"].as_u64().unwrap() + is["awaiting_review"].as_u64().unwrap() + 1,
            n
        );
        assert_eq!(
            is["statement"],
            format!("Not approved by a specialist: 1 of {n} items refused.")
        );
        // Every other branch: not reviewed.
        for r in p["requirements"].as_array().unwrap() {
            let id = r["id"].as_str().unwrap();
            if id != format!("{B}{COMMON}") && id != format!("{B}{IS}") {
                assert_eq!(r["review"]["state"], "not-reviewed", "{id}");
                assert_eq!(r["review"]["refused"], 0, "{id}");
            }
        }
        // The package summary.
        let basis = &p["review_basis"];
        assert_eq!(basis["requirements_approved"], 1);
        assert_eq!(
            basis["requirements_total"],
            p["requirements"].as_array().unwrap().len()
        );
        assert_eq!(basis["refused"], 1);
        assert_eq!(basis["stale"], 0);
        assert!(basis["approved"].as_u64().unwrap() >= 4);

        // Review never changes sufficiency, and a package built without decisions is the
        // package of before: no review facts, the pinned status and identity.
        assert_eq!(p["evidence_status"], unreviewed["evidence_status"]);
        assert_eq!(unreviewed["evidence_status"], UNREVIEWED_STATUS);
        assert_eq!(unreviewed["context_id"], UNREVIEWED_CONTEXT_ID);
        assert!(unreviewed.get("review_basis").is_none());
        assert!(
            unreviewed["requirements"]
                .as_array()
                .unwrap()
                .iter()
                .all(|r| r.get("review").is_none())
        );
        // And the default profile carries no review facts even from a reviewed index.
        let default =
            okf_engine::assemble(&loaded(&reviewed_built), QUESTION, &Budget::default(), None)
                .unwrap();
        assert!(!default.json.contains("review_basis"));
        assert!(!default.json.contains("\"review\":"));
    }

    /// The claims `okf lint --reviews` reads from decision files.
    fn claims(files: &[ReviewFile]) -> Vec<ReviewClaim> {
        files
            .iter()
            .map(|f| {
                let d = decode_decision(f).unwrap();
                ReviewClaim {
                    file: d.file,
                    item: d.item,
                    item_sha256: d.item_sha256,
                }
            })
            .collect()
    }

    #[test]
    fn editing_an_approved_item_of_the_chapter_18_branch_makes_it_read_not_reviewed_again() {
        let plain = build(&profile(), &[]);
        let files = decisions(&plain.index);
        let assertion = format!("{B}{}", COMMON_CLOSURE[0]);

        // Edited in the profile: the build does not carry the decision, lint names it, and the
        // branch reads not reviewed again.
        let mut edited = profile();
        let graph = edited.iter_mut().find(|f| f.name == "graph.toml").unwrap();
        let old = "label = \"Hospital in-patient guidance, DMG chapter 18 page 3\"";
        assert!(graph.text.contains(old));
        graph.text = graph.text.replace(
            old,
            "label = \"Hospital in-patient guidance, DMG chapter 18 page 3 (18000)\"",
        );
        let built = build(&edited, &files);
        assert_eq!(built.stale_reviews.len(), 1, "{:?}", built.stale_reviews);
        assert_eq!(built.stale_reviews[0].item, assertion);
        assert_eq!(built.stale_reviews[0].file, "reviews/001.json");
        assert!(
            built
                .index
                .reviews
                .iter()
                .flatten()
                .all(|r| r.item != assertion),
            "the stale decision is not carried"
        );
        let index = loaded(&built);
        let report = lint_reviewed(&index, &[], Some(&claims(&files)));
        let stale: Vec<(&str, &str)> = report
            .findings
            .iter()
            .filter(|f| f.kind == "stale-review")
            .map(|f| (f.path.as_str(), f.ids[0].as_str()))
            .collect();
        assert_eq!(stale, [("reviews/001.json", assertion.as_str())]);
        let p = package(&index);
        let review = &requirement(&p, COMMON)["review"];
        assert_eq!(review["state"], "not-reviewed");
        assert_eq!(
            review["statement"],
            "Not reviewed by a specialist as a whole: 3 of 4 items approved."
        );
        assert_eq!(review["awaiting_review"], 1);

        // Edited in the index after the build, the decision still recorded: the engine finds
        // it stale by its digest, never counts it as approved, and lint names it as an error.
        let mut doc = build(&profile(), &files).index;
        let a = doc
            .assertions
            .iter_mut()
            .find(|a| a.id == assertion)
            .unwrap();
        a.label.push_str(" (18000)");
        let index = ContextIndex::new(doc).unwrap();
        let report = lint_reviewed(&index, &[], None);
        assert!(
            report
                .findings
                .iter()
                .any(|f| f.kind == "stale-review" && f.ids[0] == assertion),
            "lint names the stale recorded review"
        );
        let p = package(&index);
        let review = &requirement(&p, COMMON)["review"];
        assert_eq!(review["state"], "not-reviewed", "{review}");
        assert_eq!(review["approved"], 3);
        assert_eq!(review["stale"], 1);
        assert_eq!(
            review["statement"],
            "Not reviewed by a specialist as a whole: 3 of 4 items approved, 1 changed since it was reviewed."
        );
        assert_eq!(p["review_basis"]["requirements_approved"], 0);
        assert_eq!(p["review_basis"]["stale"], 1);
    }

    #[test]
    fn a_package_never_carries_the_review_of_a_restricted_record() {
        let plain = build(&profile(), &[]);
        let mut doc = build(&profile(), &decisions(&plain.index)).index;
        let page = format!("{B}{}", COMMON_CLOSURE[2]);
        let secret = "Reviewer's note on a restricted page: not for publication.";
        doc.records
            .iter_mut()
            .find(|r| r.id == page)
            .unwrap()
            .access = okf_engine::model::Access::Restricted;
        let digest = item_sha256(&doc, &page).unwrap();
        let review = doc
            .reviews
            .iter_mut()
            .flatten()
            .find(|r| r.item == page)
            .unwrap();
        review.decision = ReviewDecision::Rejected;
        review.reason = secret.into();
        review.item_sha256 = digest;
        let index = ContextIndex::new(doc).unwrap();
        let options = AssembleOptions {
            regime_profile: true,
            ..AssembleOptions::default()
        };
        let json = assemble_with_options(&index, QUESTION, &Budget::default(), None, &options)
            .unwrap()
            .json;
        assert!(
            !json.contains(secret),
            "the restricted record's review leaked"
        );
        let p: Value = serde_json::from_str(&json).unwrap();
        let review = &requirement(&p, COMMON)["review"];
        assert_eq!(review["refused"], 0);
        assert_eq!(review["awaiting_review"], 1);
        assert_eq!(review["state"], "not-reviewed");
        // A caller allowed to read restricted records (okf serve's access policy) sees it.
        let revealing = index.revealing_restricted();
        let json = assemble_with_options(&revealing, QUESTION, &Budget::default(), None, &options)
            .unwrap()
            .json;
        assert!(json.contains(secret));
    }

    #[test]
    fn review_facts_are_counted_in_the_byte_budget_and_the_metadata_fallback_counts_none() {
        let plain = build(&profile(), &[]);
        let index = loaded(&build(&profile(), &decisions(&plain.index)));
        let options = AssembleOptions {
            regime_profile: true,
            ..AssembleOptions::default()
        };
        let mut fallback = false;
        for max_bytes in [6_000, 8_192, 16_384, 40_000, 100_000] {
            let budget = Budget {
                max_bytes,
                ..Budget::default()
            };
            let Ok(a) = assemble_with_options(&index, QUESTION, &budget, None, &options) else {
                continue;
            };
            assert_eq!(a.json.len() as u64, a.used_bytes);
            assert!(a.used_bytes <= max_bytes, "{max_bytes}");
            let p: Value = serde_json::from_str(&a.json).unwrap();
            assert_eq!(p["budget"]["used_bytes"], a.used_bytes);
            if p["requirements"].as_array().unwrap().is_empty() {
                fallback = true;
                assert_eq!(p["review_basis"]["requirements_total"], 0);
                assert_eq!(p["review_basis"]["items"], 0);
            }
        }
        assert!(fallback, "one budget leaves only the metadata");
    }
}
