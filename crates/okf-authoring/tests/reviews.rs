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
