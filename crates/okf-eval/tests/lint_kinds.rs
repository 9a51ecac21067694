//! `okf lint`: one broken fixture per finding kind, built from the example bundle, plus the
//! example bundle itself.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

mod common;

use common::*;
use okf_eval::lint::kinds;
use okf_eval::{Severity, lint};
use serde_json::{Value, json};

type Row = (Severity, &'static str, String);

fn rows(v: &Value) -> Vec<Row> {
    lint(&index_of(v))
        .findings
        .into_iter()
        .map(|f| (f.severity, f.kind, f.path))
        .collect()
}

/// Findings of the edited example that the unedited example does not have.
fn new_findings(edit: impl FnOnce(&mut Value)) -> Vec<Row> {
    let baseline = rows(&example_index_value());
    let mut v = example_index_value();
    edit(&mut v);
    rows(&v)
        .into_iter()
        .filter(|r| !baseline.contains(r))
        .collect()
}

fn position(v: &Value, list: &str, rel: &str) -> usize {
    v[list]
        .as_array()
        .unwrap()
        .iter()
        .position(|x| x["id"] == json!(ex(rel)))
        .unwrap()
}

fn has(found: &[Row], severity: Severity, kind: &str, path: &str) {
    assert!(
        found
            .iter()
            .any(|(s, k, p)| *s == severity && *k == kind && p == path),
        "{kind} at {path} not in {found:#?}"
    );
}

#[test]
fn the_example_bundle_has_its_deliberate_ambiguity_and_uncovered_concept_only() {
    let report = lint(&example_index());
    let found: Vec<(Severity, &str)> = report
        .findings
        .iter()
        .map(|f| (f.severity, f.kind))
        .collect();
    assert_eq!(
        found,
        [
            (Severity::Warning, kinds::SHARED_ALIAS),
            (Severity::Warning, kinds::SHARED_ALIAS),
            (Severity::Info, kinds::UNCOVERED_CONCEPT),
        ]
    );
    assert!(!report.has_errors());
    assert_eq!(
        report.findings[0].ids,
        [ex("concept/study-room"), ex("concept/meeting-room")]
    );
    assert_eq!(report.findings[2].ids, [ex("concept/meeting-room")]);
}

#[test]
fn dangling_assertion_endpoint() {
    let found = new_findings(|v| v["assertions"][0]["target"] = json!(ex("evidence/nowhere")));
    has(
        &found,
        Severity::Error,
        kinds::DANGLING_ASSERTION_ENDPOINT,
        "assertions[0].target",
    );
}

#[test]
fn requirement_id_not_record() {
    let found = new_findings(|v| {
        v["requirements"][0]["required"][0] = json!(ex("evidence/nowhere"));
        v["requirements"][0]["covers"][0] = json!(ex("concept/nowhere"));
    });
    has(
        &found,
        Severity::Error,
        kinds::REQUIREMENT_ID_NOT_RECORD,
        "requirements[0].required[0]",
    );
    has(
        &found,
        Severity::Error,
        kinds::REQUIREMENT_ID_NOT_RECORD,
        "requirements[0].covers[0]",
    );
}

#[test]
fn when_all_not_public_concept() {
    let found =
        new_findings(|v| v["requirements"][0]["when_all"][0] = json!(ex("evidence/lending-rules")));
    has(
        &found,
        Severity::Error,
        kinds::WHEN_ALL_NOT_PUBLIC_CONCEPT,
        "requirements[0].when_all[0]",
    );
}

fn with_required_path(v: &mut Value, path: Value) {
    let at = position(v, "requirements", "requirement/borrowing");
    v["requirements"][at]["required_paths"] = json!([path]);
}

#[test]
fn required_path_record_not_record() {
    let found = new_findings(|v| {
        with_required_path(
            v,
            json!({
                "seed": ex("concept/borrowing"),
                "assertions": [ex("assertion/borrowing-lending-rules")],
                "records": [ex("concept/borrowing"), ex("evidence/nowhere")],
            }),
        );
    });
    has(
        &found,
        Severity::Error,
        kinds::REQUIRED_PATH_RECORD_NOT_RECORD,
        "requirements[0].required_paths[0].records[1]",
    );
}

#[test]
fn required_path_hop_not_assertion() {
    let found = new_findings(|v| {
        with_required_path(
            v,
            json!({
                "seed": ex("concept/borrowing"),
                "assertions": [ex("assertion/nowhere")],
                "records": [ex("concept/borrowing"), ex("evidence/lending-rules")],
            }),
        );
    });
    assert_eq!(
        found,
        [(
            Severity::Error,
            kinds::REQUIRED_PATH_HOP_NOT_ASSERTION,
            "requirements[0].required_paths[0].assertions[0]".to_owned()
        )]
    );
}

#[test]
fn required_path_hop_mismatch() {
    let found = new_findings(|v| {
        with_required_path(
            v,
            json!({
                "seed": ex("concept/borrowing"),
                "assertions": [ex("assertion/library-card-eligibility")],
                "records": [ex("concept/borrowing"), ex("evidence/card-eligibility")],
            }),
        );
    });
    assert_eq!(
        found,
        [(
            Severity::Error,
            kinds::REQUIRED_PATH_HOP_MISMATCH,
            "requirements[0].required_paths[0].assertions[0]".to_owned()
        )]
    );
    // A well-formed declared path is clean.
    let found = new_findings(|v| {
        with_required_path(
            v,
            json!({
                "seed": ex("concept/borrowing"),
                "assertions": [ex("assertion/borrowing-requires-library-card"), ex("assertion/library-card-eligibility")],
                "records": [ex("concept/borrowing"), ex("concept/library-card"), ex("evidence/card-eligibility")],
            }),
        );
    });
    assert_eq!(found, []);
}

#[test]
fn conflict_target_not_record() {
    let found = new_findings(|v| {
        let at = position(v, "records", "evidence/opening-hours-2026");
        v["records"][at]["conflicts_with"] = json!([ex("evidence/nowhere")]);
    });
    let at = position(
        &example_index_value(),
        "records",
        "evidence/opening-hours-2026",
    );
    has(
        &found,
        Severity::Error,
        kinds::CONFLICT_TARGET_NOT_RECORD,
        &format!("records[{at}].conflicts_with[0]"),
    );
}

#[test]
fn literal_digest_mismatch() {
    let at = position(&example_index_value(), "records", "evidence/lending-rules");
    let found = new_findings(|v| {
        let text = v["records"][at]["text"]
            .as_str()
            .unwrap()
            .replace("12 books", "20 books");
        v["records"][at]["text"] = json!(text);
    });
    assert_eq!(
        found,
        [(
            Severity::Error,
            kinds::LITERAL_DIGEST_MISMATCH,
            format!("records[{at}].text")
        )]
    );
}

#[test]
fn unit_digest_mismatch() {
    let at = position(&example_index_value(), "records", "evidence/lending-rules");
    let found = new_findings(|v| {
        let r = &mut v["records"][at];
        let len = r["text"].as_str().unwrap().len();
        let url = r["provenance"][0]["url"].clone();
        let sha = r["provenance"][0]["source_sha256"].clone();
        r["evidence_unit"] = json!({
            "schema": "okf-evidence-unit.v1",
            "kind": "paragraph",
            "boundary_status": "author-declared",
            "completeness": "complete-within-declared-boundary",
            "offset_unit": "utf-8-bytes",
            "joiner": "",
            "spans": [{
                "source_url": url, "source_sha256": sha,
                "extraction_url": url, "extraction_sha256": sha,
                "source_text_sha256": "0".repeat(64), "source_text_bytes": len,
                "source_start": 0, "source_end": len, "unit_start": 0, "unit_end": len,
                "literal_sha256": "0".repeat(64),
                "locator": "Section 3 (Loans)",
            }],
        });
    });
    has(
        &found,
        Severity::Error,
        kinds::UNIT_DIGEST_MISMATCH,
        &format!("records[{at}].evidence_unit"),
    );
}

#[test]
fn provenance_gap() {
    let at = position(&example_index_value(), "records", "evidence/lending-rules");
    let found = new_findings(|v| v["records"][at]["provenance"] = json!([]));
    has(
        &found,
        Severity::Error,
        kinds::PROVENANCE_GAP,
        &format!("records[{at}]"),
    );
    let found =
        new_findings(|v| v["assertions"][1]["provenance"][0]["captured_at"] = json!("yesterday"));
    has(
        &found,
        Severity::Error,
        kinds::PROVENANCE_GAP,
        "assertions[1]",
    );
}

#[test]
fn governance_gap() {
    let at = position(&example_index_value(), "records", "evidence/lending-rules");
    let mut v = example_index_value();
    v["records"][at]["scope"] = json!(" ");
    let report = lint(&index_of(&v));
    let gap = report
        .findings
        .iter()
        .find(|f| f.kind == kinds::GOVERNANCE_GAP)
        .unwrap();
    assert_eq!(
        (gap.severity, gap.code, gap.path.as_str()),
        (
            Severity::Error,
            Some("missing_scope"),
            format!("records[{at}]").as_str()
        )
    );
}

#[test]
fn unsupported_predicate() {
    let found = new_findings(|v| {
        v["assertions"][2]["predicate"] =
            json!("https://example.org/okf-example/predicate/mentions")
    });
    has(
        &found,
        Severity::Warning,
        kinds::UNSUPPORTED_PREDICATE,
        "assertions[2].predicate",
    );
}

#[test]
fn shared_alias() {
    let at = position(&example_index_value(), "records", "concept/borrowing");
    let found = new_findings(|v| {
        let other = position(v, "records", "concept/overdue-charges");
        v["records"][other]["aliases"]
            .as_array_mut()
            .unwrap()
            .push(json!("Borrow  BOOKS"));
    });
    assert_eq!(
        found,
        [(
            Severity::Warning,
            kinds::SHARED_ALIAS,
            format!("records[{at}]")
        )]
    );
    // A case-sensitive alias with the same letters is a different alias.
    let found = new_findings(|v| {
        let other = position(v, "records", "concept/overdue-charges");
        v["records"][other]["aliases"]
            .as_array_mut()
            .unwrap()
            .push(json!({"label": "BORROW BOOKS", "case_sensitive": true}));
    });
    assert_eq!(found, []);
}

#[test]
fn uncovered_concept() {
    let at = position(&example_index_value(), "records", "concept/library-card");
    let found = new_findings(|v| {
        let r = position(v, "requirements", "requirement/borrowing");
        v["requirements"][r]
            .as_object_mut()
            .unwrap()
            .remove("covers");
    });
    assert_eq!(
        found,
        [(
            Severity::Info,
            kinds::UNCOVERED_CONCEPT,
            format!("records[{at}]")
        )]
    );
}

#[test]
fn unreachable_record() {
    let at = position(&example_index_value(), "records", "scope/service-area");
    let found = new_findings(|v| {
        let a = position(v, "assertions", "assertion/library-card-service-area");
        v["assertions"].as_array_mut().unwrap().remove(a);
    });
    assert_eq!(
        found,
        [(
            Severity::Warning,
            kinds::UNREACHABLE_RECORD,
            format!("records[{at}]")
        )]
    );
    // Behind a restricted record nothing is reachable: traversal never expands it.
    let found = new_findings(|v| {
        let a = position(v, "assertions", "assertion/library-card-service-area");
        v["assertions"][a]["source"] = json!(ex("evidence/staff-key-holders"));
    });
    assert_eq!(
        found,
        [(
            Severity::Warning,
            kinds::UNREACHABLE_RECORD,
            format!("records[{at}]")
        )]
    );
}

#[test]
fn findings_are_ordered_errors_first_and_report_counts_by_kind() {
    let mut v = example_index_value();
    v["assertions"][0]["target"] = json!(ex("evidence/nowhere"));
    let report = lint(&index_of(&v));
    let severities: Vec<Severity> = report.findings.iter().map(|f| f.severity).collect();
    let mut sorted = severities.clone();
    sorted.sort();
    assert_eq!(severities, sorted);
    assert!(report.has_errors());
    let json = okf_eval::report::lint_json(&report);
    assert_eq!(json["status"], "failed");
    assert_eq!(
        json["summary"]["error"],
        json!(report.count(Severity::Error))
    );
}

// Cross-references and declared gaps (issue 41): the paragraphs a requirement's cited text
// refers to, and gaps that stand for paragraphs the index holds.

use okf_eval::lint::{
    CapturedPage, cross_references, defined_term, paragraph_texts, paragraphs_held,
};
use okf_eval::lint_with_captures;

/// The example index with the first requirement's first required record's text replaced,
/// and that record's position in `records`.
fn with_cited_text(text: &str) -> (Value, usize) {
    let mut v = example_index_value();
    let cited = v["requirements"][0]["required"][0].clone();
    let i = v["records"]
        .as_array()
        .unwrap()
        .iter()
        .position(|r| r["id"] == cited)
        .unwrap();
    v["records"][i]["text"] = json!(text);
    (v, i)
}

fn kind_rows(v: &Value, captures: &[CapturedPage], kind: &str) -> Vec<(String, String)> {
    lint_with_captures(&index_of(v), captures)
        .findings
        .into_iter()
        .filter(|f| f.kind == kind)
        .map(|f| (f.path, f.message))
        .collect()
}

fn page(label: &str, text: &str) -> CapturedPage {
    CapturedPage {
        label: label.into(),
        text: text.into(),
    }
}

#[test]
fn uncited_cross_reference_names_the_captured_paragraph_the_requirement_does_not_require() {
    let (v, _) = with_cited_text("12345 The lower rate is payable (see DMG 23292).\n");
    let captures = [page(
        "doc p78",
        "        23292 The claimant is treated as receiving AA.\n",
    )];
    let found = kind_rows(&v, &captures, kinds::UNCITED_CROSS_REFERENCE);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0].0, "requirements[0].required[0]");
    assert!(
        found[0].1.contains("refers to DMG 23292 (doc p78)"),
        "{}",
        found[0].1
    );
    // Without captures the check does not run; a reference to an uncaptured paragraph is not
    // reported.
    assert!(kind_rows(&v, &[], kinds::UNCITED_CROSS_REFERENCE).is_empty());
    let elsewhere = [page("doc p79", "23293 Another rule.\n")];
    assert!(kind_rows(&v, &elsewhere, kinds::UNCITED_CROSS_REFERENCE).is_empty());
}

#[test]
fn a_required_gap_that_names_the_paragraph_accounts_for_the_cross_reference() {
    let (mut v, _) = with_cited_text("12345 The lower rate is payable (see DMG 23292).\n");
    let gap = ex("gap/dmg-23292");
    v["gaps"] = json!([{"id": gap, "label": "DMG 23292", "reason": "not captured", "paragraphs": ["23292"]}]);
    v["requirements"][0]["required"]
        .as_array_mut()
        .unwrap()
        .push(json!(gap));
    let captures = [page(
        "doc p78",
        "23292 The claimant is treated as receiving AA.\n",
    )];
    assert!(kind_rows(&v, &captures, kinds::UNCITED_CROSS_REFERENCE).is_empty());
}

/// A contents line ("Severe disability premium 23287 - 23294") is navigation, not a
/// reference: a page whose contents list names captured paragraphs is not reported for them;
/// the same range written as a reference in running text is.
#[test]
fn a_contents_line_is_not_a_cross_reference_but_a_range_in_running_text_is() {
    let captures = [
        page("doc p76", "23287 SDP continues.\n23288 The lower rate.\n"),
        page("doc p80", "23298 Outside the range.\n"),
    ];
    let (v, _) = with_cited_text(
        "Severe disability premium 23287 - 23294\n\n23254 The following paragraphs.\n",
    );
    let found = kind_rows(&v, &captures, kinds::UNCITED_CROSS_REFERENCE);
    assert!(found.is_empty(), "{found:#?}");
    let (v, _) = with_cited_text("23254 For the lower rate see paragraphs 23287 to 23294.\n");
    let found = kind_rows(&v, &captures, kinds::UNCITED_CROSS_REFERENCE);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert!(
        found[0].1.contains("23287 (doc p76), 23288 (doc p76);"),
        "{}",
        found[0].1
    );
}

/// Issue 41 finding 1: a requirement cites 23256, which only defines "long-term patient";
/// the paragraphs of chapter 23 that say what happens to a long-term patient (23280, 23296)
/// are reached only through contents lines, so no reference names them.
#[test]
fn a_cited_definition_names_the_captured_paragraphs_of_its_chapter_that_use_the_term() {
    let definition = "Higher pensioner premium 23280 - 23281\n\nLong-term patient\n23256 A long-term patient means a person who\n\n1. has been a patient for more than 52 weeks.\n";
    let (mut v, _) = with_cited_text(definition);
    let captures = [
        page("doc p73", definition),
        page(
            "doc p75",
            "23280 HPP stops when the claimant becomes a long term patient 1.\n23282 DP is\npayable.\n",
        ),
        page(
            "doc p79",
            "23296 DCP is withdrawn when the child becomes a long term patient1.\n",
        ),
        // Another chapter's use is not this definition's.
        page(
            "ch18 p11",
            "18070 A long term patient who spends part of a week at home.\n",
        ),
    ];
    let found = kind_rows(&v, &captures, kinds::UNCITED_CROSS_REFERENCE);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0].0, "requirements[0].required[0]");
    assert!(
        found[0].1.contains(
            "DMG 23256 defines 'long term patient', used by DMG 23280 (doc p75), 23296 (doc p79);"
        ),
        "{}",
        found[0].1
    );
    // A required gap naming the paragraphs accounts for them.
    let gap = ex("gap/long-term-patient");
    v["gaps"] = json!([{"id": gap, "label": "DMG 23280, 23296", "reason": "not captured", "paragraphs": ["23280", "23296"]}]);
    v["requirements"][0]["required"]
        .as_array_mut()
        .unwrap()
        .push(json!(gap));
    let found = kind_rows(&v, &captures, kinds::UNCITED_CROSS_REFERENCE);
    assert!(found.is_empty(), "{found:#?}");
}

/// A heading that is only the term, and a scope list that sends the reader to the definition
/// ("a patient (see DMG 54003)"), are navigation, not uses of the term.
#[test]
fn a_heading_or_a_pointer_to_the_definition_is_not_a_use_of_the_defined_term() {
    let (v, _) =
        with_cited_text("54003 A patient means a claimant receiving free in-patient treatment.\n");
    let captures = [
        page(
            "doc p5",
            "54001 This Chapter explains the amount where people are\n1. a patient (see DMG 54003)\n\nPatients\n",
        ),
        page(
            "doc p24",
            "54107 A person admitted is a patient for ESA purposes.\n",
        ),
        page("doc p25", "54110 An outpatient is not admitted.\n"),
    ];
    let found = kind_rows(&v, &captures, kinds::UNCITED_CROSS_REFERENCE);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert!(
        found[0]
            .1
            .contains("defines 'patient', used by DMG 54107 (doc p24);"),
        "{}",
        found[0].1
    );
}

#[test]
fn a_definition_is_a_paragraph_opening_with_a_short_term_then_means() {
    let texts = paragraph_texts(
        "continued from the last page\n23256 A long-term patient means a person who\nis a patient\n23257 A JSA claimant who is admitted means nothing here.\n",
    );
    assert_eq!(
        texts.iter().map(|(p, _)| *p).collect::<Vec<_>>(),
        [23256, 23257]
    );
    assert_eq!(
        texts[0].1,
        "A long-term patient means a person who\nis a patient"
    );
    let term = |t: &str| defined_term(t);
    assert_eq!(term(&texts[0].1).as_deref(), Some("long term patient"));
    assert_eq!(
        term("“Day of recovery” means a day").as_deref(),
        Some("day of recovery")
    );
    assert_eq!(
        term("Week means a period of seven days1").as_deref(),
        Some("week")
    );
    // Five words before "means" is a sentence, not a term.
    assert_eq!(term(&texts[1].1), None);
    assert_eq!(term("The DM should consider what this means"), None);
}

#[test]
fn gap_held_in_index_names_the_record_that_holds_the_gaps_paragraph() {
    let (mut v, i) = with_cited_text("78651 A prisoner is a person who is detained in custody.\n");
    let holder = v["records"][i]["id"].clone();
    v["gaps"] = json!([
        {"id": ex("gap/held"), "label": "DMG 78651", "reason": "not captured", "paragraphs": ["78651"]},
        {"id": ex("gap/absent"), "label": "DMG 78720", "reason": "not captured", "paragraphs": ["78720"]},
        {"id": ex("gap/memo"), "label": "A memo", "reason": "not captured"}
    ]);
    let found: Vec<_> = lint_with_captures(&index_of(&v), &[])
        .findings
        .into_iter()
        .filter(|f| f.kind == kinds::GAP_HELD_IN_INDEX)
        .collect();
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0].path, "gaps[0]");
    assert_eq!(found[0].severity, Severity::Warning);
    assert_eq!(
        found[0].ids,
        [json!(ex("gap/held")), holder].map(|x| x.as_str().unwrap().to_owned())
    );
    assert!(
        found[0].message.contains("DMG 78651 is held by"),
        "{}",
        found[0].message
    );
}

#[test]
fn paragraphs_are_line_starts_and_references_follow_dmg() {
    let text = "        24003 - 24006\n78030 et seq\n23290 The lower rate\n23294\nsee DMG 78805 - 78899 and DMG 20974-74, DMG 161103, DMG paragraph 77119\nIntroduction 23254 - 23257\n(see DMG 77118, 77119 or DMG 78795 and 78840 et seq; paragraphs 78842 to\n78843)\n";
    assert_eq!(
        paragraphs_held(text).into_iter().collect::<Vec<_>>(),
        [23290, 23294]
    );
    assert_eq!(
        cross_references(text).into_iter().collect::<Vec<_>>(),
        [
            (20974, 20974),
            (77118, 77118),
            (77119, 77119),
            (78795, 78795),
            (78805, 78899),
            (78840, 78840),
            (78842, 78843)
        ]
    );
}
