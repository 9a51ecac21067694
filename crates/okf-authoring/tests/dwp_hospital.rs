//! The DWP hospital profile (profiles/dwp-hospital), built at test time from the frozen
//! captures in ../shared/dwp/source: lint, the hospital case with its eight controls, the two
//! variant cases, the generated self-check, and package identity.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use okf_authoring::{Built, CaptureFile, ProfileFile, Rule, build_onto};
use okf_engine::{
    AsOf, AssembleOptions, Binding, Budget, ContextIndex, assemble, assemble_with_options,
};
use okf_eval::{Case, Controls, Status, evaluate, lint, raw_binding, self_check};
use serde_json::Value;
use std::path::{Path, PathBuf};

const B: &str = "https://example.invalid/ask-okf/dwp-hospital/id/";
const HOSPITAL_QUESTION: &str = "A claimant is admitted to hospital. Explain the effect on JSA, Income Support, State Pension Credit and ESA, distinguishing entitlement, payment and changes in amount, and trace each conclusion to the applicable DWP guidance.";

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn files_with_ext(dir: &Path, ext: &str, recursive: bool, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() && recursive {
            files_with_ext(&p, ext, recursive, out);
        } else if p.extension().is_some_and(|e| e == ext) {
            out.push(p);
        }
    }
}

/// Reads a profile folder and a capture folder the way `okf build` does.
pub fn build_profile(profile: &Path, sources: &Path) -> Built {
    build_profile_onto(profile, sources, None).unwrap_or_else(|e| panic!("{e}"))
}

/// [`build_profile`], composed onto the base index file `base` when given.
fn build_profile_onto(
    profile: &Path,
    sources: &Path,
    base: Option<&[u8]>,
) -> Result<Built, okf_authoring::Error> {
    let mut toml = Vec::new();
    files_with_ext(profile, "toml", false, &mut toml);
    let profile: Vec<ProfileFile> = toml
        .iter()
        .map(|p| ProfileFile {
            name: p.file_name().unwrap().to_string_lossy().into_owned(),
            text: std::fs::read_to_string(p).unwrap(),
        })
        .collect();
    let mut json = Vec::new();
    files_with_ext(sources, "json", true, &mut json);
    let captures: Vec<CaptureFile> = json
        .iter()
        .map(|p| CaptureFile {
            name: p.display().to_string(),
            bytes: std::fs::read(p).unwrap(),
        })
        .collect();
    build_onto(&profile, &captures, base)
}

fn hospital() -> (Built, ContextIndex) {
    let built = build_profile(
        &root().join("profiles/dwp-hospital"),
        &root().join("../shared/dwp/source"),
    );
    let index = ContextIndex::from_json_str(&built.json).unwrap();
    (built, index)
}

fn eval_file(name: &str) -> Vec<u8> {
    std::fs::read(root().join("profiles/dwp-hospital/eval").join(name)).unwrap()
}

fn package(index: &ContextIndex, question: &str) -> Value {
    serde_json::from_str(
        &assemble(index, question, &Budget::default(), None)
            .unwrap()
            .json,
    )
    .unwrap()
}

fn ids(rows: &Value, key: &str) -> Vec<String> {
    rows.as_array()
        .unwrap()
        .iter()
        .map(|r| r[key].as_str().unwrap().trim_start_matches(B).to_owned())
        .collect()
}

/// The case checks a report failed, as `stage check-id` lines.
fn failed_checks(report: &okf_eval::EvalReport) -> Vec<String> {
    report
        .case
        .assessment
        .failed_checks()
        .map(|(s, c)| format!("{s:?} {}", c.id))
        .collect()
}

fn issue<'a>(p: &'a Value, code: &str) -> Vec<&'a Value> {
    p["missing_evidence"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["code"] == code)
        .collect()
}

#[test]
fn the_profile_builds_byte_identically_lints_clean_and_copies_pages_exactly() {
    let (a, index) = hospital();
    let (b, _) = hospital();
    assert_eq!(a.json, b.json);
    let report = lint(&index);
    assert!(!report.has_errors(), "{report:?}");
    // Every page record's text is the capture's page text, with the review's literal digest.
    let review: Value = serde_json::from_slice(
        &std::fs::read(
            root().join("../shared/dwp/evaluation/remote-mcp/hospital-source-review.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let mut pages = 0;
    for doc in review["documents"].as_array().unwrap() {
        for page in doc["pages"].as_array().unwrap() {
            // Our routes name the document id (the review writes chapter 78 as `page/78/…`).
            let route = format!(
                "page/{}/{:04}",
                doc["document_id"].as_str().unwrap(),
                page["page"].as_u64().unwrap()
            );
            if let Some(r) = index.record(&format!("{B}{route}")) {
                pages += 1;
                let p = &r.provenance[0];
                assert_eq!(p.literal_sha256.as_deref(), page["literal_sha256"].as_str());
                assert_eq!(p.url, page["source_url"].as_str().unwrap());
                assert_eq!(p.source_sha256, doc["source_sha256"].as_str().unwrap());
                assert_eq!(
                    okf_engine::canonical::sha256_hex(r.text.as_bytes()),
                    page["literal_sha256"].as_str().unwrap()
                );
            }
        }
    }
    // 32 pages before issue 41; 47 after: every page of the source review the requirements'
    // own text refers to, less chapter 18 pages 7-8 (the in-patient test 18001 limits to AA and
    // DLA) and chapter 24 page 7 (the 24001 list of special cases, navigation only).
    assert_eq!(pages, 47);
}

/// With the captures, no hospital requirement cites text (a reference, or a definition whose
/// term its chapter's captured paragraphs use) that points at a captured paragraph it does not
/// require (issue 41 findings 1 and 2 were both of this kind).
#[test]
fn the_profile_has_no_uncited_cross_reference_against_the_captures() {
    let (_, index) = hospital();
    let mut json = Vec::new();
    files_with_ext(
        &root().join("../shared/dwp/source"),
        "json",
        true,
        &mut json,
    );
    let files: Vec<CaptureFile> = json
        .iter()
        .map(|p| CaptureFile {
            name: p.display().to_string(),
            bytes: std::fs::read(p).unwrap(),
        })
        .collect();
    let captures: Vec<okf_eval::CapturedPage> = okf_authoring::captured_pages(&files)
        .unwrap()
        .into_iter()
        .map(|(label, text)| okf_eval::CapturedPage { label, text })
        .collect();
    assert!(captures.len() > 40);
    let uncited: Vec<_> = okf_eval::lint_with_captures(&index, &captures)
        .findings
        .into_iter()
        .filter(|f| f.kind == okf_eval::lint::kinds::UNCITED_CROSS_REFERENCE)
        .collect();
    assert!(uncited.is_empty(), "{uncited:#?}");
}

#[test]
fn hospital_case_and_its_eight_controls_pass() {
    let (built, index) = hospital();
    let case = Case::from_slice(&eval_file("case.json")).unwrap();
    let controls = Controls::from_slice(&eval_file("controls.json")).unwrap();
    assert!(controls.controls.len() >= 5);
    let binding = raw_binding(&index, built.json.as_bytes());
    let report = evaluate(&index, &case, Some(&controls), &Budget::default(), &binding).unwrap();
    let failed = failed_checks(&report);
    assert!(failed.is_empty(), "{failed:#?}");
    assert_eq!(report.case.evidence_status, "insufficient");
    for c in &report.controls {
        assert_eq!(c.status, Status::Passed, "{}", c.id);
    }
    assert_eq!(report.status, Status::Passed);
}

#[test]
fn variant_cases_pinned_legacy_jsa_and_prisoner_transfer_pass() {
    let (built, index) = hospital();
    let binding = raw_binding(&index, built.json.as_bytes());
    for name in ["case-legacy-jsa.json", "case-prisoner-transfer.json"] {
        let case = Case::from_slice(&eval_file(name)).unwrap();
        let report = evaluate(&index, &case, None, &Budget::default(), &binding).unwrap();
        let failed = failed_checks(&report);
        assert!(failed.is_empty(), "{name}: {failed:#?}");
    }
}

#[test]
fn hospital_question_names_regime_ambiguity_and_missing_adm_evidence() {
    let (_, index) = hospital();
    let p = package(&index, HOSPITAL_QUESTION);
    assert_eq!(p["evidence_status"], "insufficient");
    assert_eq!(p["unresolved_terms"], serde_json::json!([]));
    let ambiguous: Vec<Vec<String>> = issue(&p, "ambiguous_regime")
        .iter()
        .map(|i| {
            ids(
                &i["ids"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|v| serde_json::json!({"id": v}))
                    .collect::<Value>(),
                "id",
            )
        })
        .collect();
    assert_eq!(
        ambiguous,
        [
            ["term/esa", "regime/legacy-dmg", "regime/new-style-adm"],
            ["term/jsa", "regime/legacy-dmg", "regime/new-style-adm"]
        ]
    );
    let missing = issue(&p, "missing_regime_evidence");
    assert_eq!(missing.len(), 1);
    assert_eq!(
        missing[0]["ids"],
        serde_json::json!([
            format!("{B}regime/new-style-adm"),
            format!("{B}gap/adm-new-style-jsa-hospital"),
            format!("{B}gap/adm-new-style-esa-hospital")
        ])
    );
    // The prisoner-transfer branch is kept apart from ordinary admission.
    let selected = ids(
        &p["selected"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["record"].clone())
            .collect(),
        "id",
    );
    assert!(!selected.iter().any(|id| id.contains("transfer")));
    // Issue 41, finding 3: 54107 is ordinary ESA(IR) guidance, not a prisoner rule. Its own
    // text: "The DM should establish the legislation used to admit a claimant to hospital. A
    // person admitted under prescribed mental health legislation ... is a patient for ESA
    // purposes". So it is selected, and only through the legacy ESA branch.
    let row = p["selected"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["record"]["id"] == format!("{B}excerpt/dmg-vol9-ch54/0024/54107"))
        .expect("54107 is selected");
    for path in row["paths"].as_array().unwrap() {
        assert_eq!(
            ids(
                &path["assertions"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|v| serde_json::json!({"id": v}))
                    .collect::<Value>(),
                "id"
            ),
            [
                "assertion/esa-hospital-legacy-branch",
                "assertion/legacy-esa-54107"
            ],
            "{path}"
        );
    }
}

#[test]
fn a_question_that_pins_the_regime_drops_the_other_regimes_requirements() {
    let (_, index) = hospital();
    let p = package(
        &index,
        "A claimant on income-based JSA is admitted to hospital. What happens to the JSA?",
    );
    let reqs = ids(&p["requirements"], "id");
    assert!(
        reqs.contains(&"requirement/hospital-jsa-legacy-reading".to_owned()),
        "{reqs:?}"
    );
    assert!(!reqs.iter().any(|r| r.contains("new-style")), "{reqs:?}");
    assert!(issue(&p, "ambiguous_regime").is_empty());
    assert!(issue(&p, "missing_regime_evidence").is_empty());
    // New Style named explicitly: its requirement applies and the ADM gap is named missing.
    let p = package(
        &index,
        "A claimant on New Style JSA is admitted to hospital.",
    );
    let reqs = ids(&p["requirements"], "id");
    assert!(
        reqs.contains(&"requirement/hospital-new-style-jsa".to_owned()),
        "{reqs:?}"
    );
    assert_eq!(issue(&p, "missing_regime_evidence").len(), 1);
}

/// Issue 41: Income Support in hospital depends on household facts the question does not state
/// (23281, 23290–23293, 23297), so it is never sufficient; the package names them.
#[test]
fn an_income_support_question_names_the_household_facts_it_depends_on() {
    let (_, index) = hospital();
    let p = package(
        &index,
        "A claimant on Income Support is admitted to hospital. Explain the effect on the amount.",
    );
    assert_eq!(
        p["evidence_status"], "insufficient",
        "{}",
        p["missing_evidence"]
    );
    assert!(
        p["missing_evidence"]
            .to_string()
            .contains("gap/household-facts-not-stated")
    );
}

#[test]
fn self_check_proves_every_requirement_fails_closed() {
    let (_, index) = hospital();
    let report = self_check(&index).unwrap();
    let open: Vec<&str> = report
        .requirements
        .iter()
        .filter(|r| !r.fail_closed)
        .map(|r| r.id.as_str())
        .collect();
    assert!(open.is_empty(), "{open:?}");
    assert_eq!(report.status, Status::Passed);
}

/// The package identity is the content digest: the same inputs give the same `context_id`
/// whenever they are assembled, and a different index digest gives a different one.
fn identity_is_content_not_execution(index: &ContextIndex, question: &str) {
    let first = assemble(index, question, &Budget::default(), None).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    let second = assemble(index, question, &Budget::default(), None).unwrap();
    assert_eq!(first.context_id, second.context_id);
    assert_eq!(first.json, second.json);
    let other = Binding {
        index_url: index.default_binding().index_url.clone(),
        index_sha256: "0".repeat(64),
    };
    let rebound = assemble(index, question, &Budget::default(), Some(&other)).unwrap();
    assert_ne!(first.context_id, rebound.context_id);
}

#[test]
fn context_id_is_stable_across_runs_and_changes_with_the_index_digest_both_profiles() {
    let (_, hospital) = hospital();
    identity_is_content_not_execution(&hospital, HOSPITAL_QUESTION);
    let example = build_profile(
        &root().join("profiles/example"),
        &root().join("profiles/example/sources"),
    );
    let example = ContextIndex::from_json_str(&example.json).unwrap();
    identity_is_content_not_execution(&example, "How do I borrow books?");
}

#[test]
fn as_of_outside_a_regime_removes_it_from_the_candidates() {
    // The DWP profile declares no dates (the captures state none), so dates are added here to
    // a copy: New Style from 2013-04-29 (a test date, not a claim about the law).
    let (_, index) = hospital();
    let mut doc = index.document().clone();
    for r in doc.regimes.iter_mut().flatten() {
        if r.id.ends_with("new-style-adm") {
            r.valid_from = Some("2013-04-29".into());
        }
    }
    let dated = ContextIndex::new(doc).unwrap();
    let run = |as_of: &str| -> Value {
        let options = AssembleOptions {
            as_of: Some(AsOf::parse(as_of).unwrap()),
            ..AssembleOptions::default()
        };
        let a = assemble_with_options(
            &dated,
            "A claimant on JSA is admitted to hospital.",
            &Budget::default(),
            None,
            &options,
        )
        .unwrap();
        serde_json::from_str(&a.json).unwrap()
    };
    let before = run("2012-01-01");
    assert!(issue(&before, "ambiguous_regime").is_empty());
    assert!(issue(&before, "missing_regime_evidence").is_empty());
    let after = run("2020-01-01");
    assert_eq!(issue(&after, "ambiguous_regime").len(), 1);
    assert!(AsOf::parse("2021-02-29").is_err());
    assert_eq!(
        AsOf::parse("2020-02-29").unwrap().to_date_string(),
        "2020-02-29"
    );
}

#[test]
fn the_profile_names_each_declared_gap_once_with_its_label_reason_and_codes() {
    let (_, index) = hospital();
    let options = AssembleOptions {
        regime_profile: true,
        ..AssembleOptions::default()
    };
    let profiled = assemble_with_options(
        &index,
        HOSPITAL_QUESTION,
        &Budget::default(),
        None,
        &options,
    )
    .unwrap();
    let p: Value = serde_json::from_str(&profiled.json).unwrap();
    let gaps = p["declared_gaps"].as_array().unwrap();
    // Seven gaps, each named by one or more issues, each listed once, in id order. Issue 41:
    // no chapter 53 gap (no captured page makes legacy ESA in hospital depend on chapter 53,
    // finding 5); the ESA holes are the chapter 43 household rule and the household facts; the
    // chapter 24/20 reconciliation gap is now only memo 06/20 (finding 8), and the SPC
    // in-patient test 78720 is named (finding 9).
    assert_eq!(
        ids(&p["declared_gaps"], "id"),
        [
            "gap/adm-new-style-esa-hospital",
            "gap/adm-new-style-jsa-hospital",
            "gap/dmg-77119-hospital-household-exception",
            "gap/dmg-78720-spc-free-in-patient-test",
            "gap/dmg-ch43-esa-household-membership",
            "gap/dmg-memo-06-20",
            "gap/household-facts-not-stated",
        ]
    );
    assert!(gaps[4]["reason"].as_str().unwrap().contains("54097"));
    assert!(
        gaps[6]["reason"]
            .as_str()
            .unwrap()
            .contains("this requirement stays unmet until they are known")
    );
    let household = &gaps[2];
    assert_eq!(
        household["label"],
        "The hospital household exception DMG 78827 refers to at 77119"
    );
    assert!(household["reason"].as_str().unwrap().starts_with(
        "78827 points to 77119, but the captured 77119 (chapter 77 page 22, cited) concerns temporary absence abroad"
    ));
    assert_eq!(
        household["codes"],
        serde_json::json!([
            "missing_dependency",
            "missing_record",
            "missing_required_evidence"
        ])
    );
    // Every code listed is the code of an issue that names the gap, and every such issue is
    // counted.
    for gap in gaps {
        let named: std::collections::BTreeSet<&str> = p["missing_evidence"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|i| i["ids"].as_array().unwrap().contains(&gap["id"]))
            .map(|i| i["code"].as_str().unwrap())
            .collect();
        let listed: std::collections::BTreeSet<&str> = gap["codes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_str().unwrap())
            .collect();
        assert_eq!(named, listed, "{}", gap["id"]);
    }
    // The default package does not carry the member, and is otherwise what it was.
    let default = package(&index, HOSPITAL_QUESTION);
    assert!(default.get("declared_gaps").is_none());
}

#[test]
fn the_question_date_decides_whether_new_style_is_a_candidate_and_is_written_to_the_package() {
    // New Style JSA and ESA from 29 April 2013 (regimes.toml, authored): a question about an
    // earlier date cannot be about New Style, so ESA is legacy only; a later date leaves the
    // regime open, as no date does.
    let (_, index) = hospital();
    let run = |as_of: &str| -> Value {
        let options = AssembleOptions {
            as_of: Some(AsOf::parse(as_of).unwrap()),
            regime_profile: true,
            ..AssembleOptions::default()
        };
        let a = assemble_with_options(
            &index,
            "A claimant on ESA is admitted to hospital",
            &Budget::default(),
            None,
            &options,
        )
        .unwrap();
        serde_json::from_str(&a.json).unwrap()
    };
    let ambiguous_esa = |p: &Value| {
        issue(p, "ambiguous_regime")
            .iter()
            .any(|i| i["ids"][0] == format!("{B}term/esa"))
    };
    let before = run("2012-06-01");
    assert!(!ambiguous_esa(&before), "{}", before["missing_evidence"]);
    assert_eq!(before["guidance_regime"]["as_of"], "2012-06-01");
    assert_eq!(
        before["guidance_regime"]["resolved"],
        serde_json::json!([format!("{B}regime/legacy-dmg")])
    );
    assert_eq!(
        before["guidance_regime"]["unresolved"],
        serde_json::json!([])
    );
    let after = run("2026-09-15");
    assert!(ambiguous_esa(&after), "{}", after["missing_evidence"]);
    assert_eq!(after["guidance_regime"]["as_of"], "2026-09-15");
    assert_eq!(
        after["guidance_regime"]["unresolved"],
        serde_json::json!([
            format!("{B}regime/legacy-dmg"),
            format!("{B}regime/new-style-adm")
        ])
    );
}

#[test]
fn the_profile_lists_regime_ambiguity_in_ambiguities_with_its_reason() {
    let (_, index) = hospital();
    let options = AssembleOptions {
        regime_profile: true,
        ..AssembleOptions::default()
    };
    let profiled: Value = serde_json::from_str(
        &assemble_with_options(
            &index,
            HOSPITAL_QUESTION,
            &Budget::default(),
            None,
            &options,
        )
        .unwrap()
        .json,
    )
    .unwrap();
    let ambiguities = profiled["ambiguities"].as_array().unwrap();
    let regimes = serde_json::json!([
        format!("{B}regime/legacy-dmg"),
        format!("{B}regime/new-style-adm")
    ]);
    // One entry per ambiguous term, by the words of the question, with the regimes and why.
    let phrases: Vec<&str> = ambiguities
        .iter()
        .map(|a| a["phrase"].as_str().unwrap())
        .collect();
    assert_eq!(phrases, ["ESA", "JSA"], "{ambiguities:?}");
    for a in ambiguities {
        assert_eq!(a["candidates"], regimes);
        assert!(a["reason"].as_str().unwrap().contains("guidance regime"));
    }
    // The issues stay, one per entry; the default package lists no regime ambiguity.
    assert_eq!(
        issue(&profiled, "ambiguous_regime").len(),
        ambiguities.len()
    );
    let default = package(&index, HOSPITAL_QUESTION);
    assert_eq!(default["ambiguities"], serde_json::json!([]));
    assert_eq!(issue(&default, "ambiguous_regime").len(), 2);
}

#[test]
fn duration_phrases_resolve_and_select_the_paragraphs_tied_to_them() {
    let (_, index) = hospital();
    let selected = |p: &Value| {
        ids(
            &p["selected"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| s["record"].clone())
                .collect::<Value>(),
            "id",
        )
    };
    let requirement = |p: &Value, id: &str| -> Value {
        p["requirements"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["id"] == format!("{B}{id}"))
            .cloned()
            .unwrap_or_else(|| panic!("{id} does not apply: {}", p["requirements"]))
    };
    // SPC after 52 weeks: the 52-week paragraphs (78781, 78825–78829), and the household
    // exception 78827 refers to is named as the declared gap it is.
    let spc = package(
        &index,
        "What happens to Pension Credit after 52 weeks in hospital?",
    );
    assert_eq!(spc["unresolved_terms"], serde_json::json!([]));
    let chosen = selected(&spc);
    for page in [
        "page/dmg-vol13-ch78/0127",
        "page/dmg-vol13-ch78/0129",
        "page/dmg-vol13-ch78/0130",
    ] {
        assert!(chosen.iter().any(|s| s == page), "{page}: {chosen:?}");
    }
    let row = requirement(&spc, "requirement/hospital-spc-after-52-weeks");
    assert_eq!(
        row["missing"],
        serde_json::json!([
            format!("{B}gap/dmg-77119-hospital-household-exception"),
            format!("{B}gap/dmg-78720-spc-free-in-patient-test"),
            format!("{B}gap/household-facts-not-stated")
        ])
    );
    // IS after four weeks: 23289 (the severe disability premium stops with its qualifying
    // benefit) and, for a couple, the lower rate (23290-23293, "see DMG 23292"). Issue 41,
    // finding 2: which member is the patient and who satisfied the conditions are household
    // facts the question does not state, so the branch is not met (it was before).
    let is = package(&index, "Income Support after four weeks in hospital");
    assert_eq!(is["unresolved_terms"], serde_json::json!([]));
    for page in ["page/dmg-vol4-ch23/0077", "page/dmg-vol4-ch23/0078"] {
        assert!(selected(&is).iter().any(|s| s == page), "{page}");
    }
    let row = requirement(&is, "requirement/hospital-is-after-four-weeks");
    assert_eq!(row["status"], "insufficient");
    assert_eq!(
        row["missing"],
        serde_json::json!([format!("{B}gap/household-facts-not-stated")])
    );
    // Without a duration the duration branches do not apply.
    let plain = package(&index, "Income Support in hospital");
    assert!(
        !plain["requirements"]
            .to_string()
            .contains("after-four-weeks")
    );
}

#[test]
fn a_budget_that_leaves_only_metadata_fails_closed() {
    let (_, index) = hospital();
    let report = self_check(&index).unwrap();
    // Issue 41: the SPC 52-week requirement now cites chapter 78 pages 126-135 and chapter 77
    // pages 21-22, so one byte below its closure still leaves room for a partial package (its
    // mutant fails closed as `insufficient`); the four-week requirement's does not, and shows
    // the metadata-only fallback.
    let spc = report
        .requirements
        .iter()
        .find(|r| r.id.ends_with("requirement/hospital-spc-after-four-weeks"))
        .unwrap();
    let shrink = spc.mutants.iter().find(|m| m.max_bytes.is_some()).unwrap();
    assert!(shrink.metadata_only, "{shrink:?}");
    assert_eq!(shrink.requirement_status, None);
    assert_eq!(shrink.evidence_status, "insufficient");
    assert!(shrink.fail_closed);
}

// Composition onto the published okf-dwp imprisonment index (profile.toml `[compose]`).

const BASE_INDEX: &str = "../shared/dwp/full-dmg/context/assembly-index.json";

fn base_bytes() -> Vec<u8> {
    std::fs::read(root().join(BASE_INDEX)).unwrap()
}

fn composed() -> (Built, ContextIndex) {
    let built = build_profile_onto(
        &root().join("profiles/dwp-hospital"),
        &root().join("../shared/dwp/source"),
        Some(&base_bytes()),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let index = ContextIndex::from_json_str(&built.json).unwrap();
    (built, index)
}

fn canonical_items(doc: &Value, list: &str) -> Vec<String> {
    doc[list]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| okf_engine::canonical::to_canonical_string(v).unwrap())
        .collect()
}

#[test]
fn the_composed_index_keeps_every_base_item_as_published_then_adds_the_profiles() {
    let (built, _) = composed();
    let (hospital, _) = hospital();
    let base: Value = serde_json::from_slice(&base_bytes()).unwrap();
    let own: Value = serde_json::from_str(&hospital.json).unwrap();
    let doc: Value = serde_json::from_str(&built.json).unwrap();
    // The profile's items follow unchanged, except what named a gap the base holds: those
    // name the base records instead (issue 41; see the transfer-gap test below).
    let resolved: Vec<&str> = built.resolved_gaps.iter().map(|g| g.gap.as_str()).collect();
    assert_eq!(resolved.len(), 3);
    let names_resolved =
        |item: &String| resolved.iter().any(|g| item.contains(&format!("\"{g}\"")));
    for list in ["records", "assertions", "requirements"] {
        let items = canonical_items(&doc, list);
        let base_items = canonical_items(&base, list);
        assert_eq!(items[..base_items.len()], base_items[..], "{list}");
        let composed_own = &items[base_items.len()..];
        for item in canonical_items(&own, list)
            .iter()
            .filter(|i| !names_resolved(i))
        {
            assert!(composed_own.contains(item), "{list}: {item}");
        }
        assert!(composed_own.iter().all(|i| !names_resolved(i)), "{list}");
    }
    assert_eq!(canonical_items(&base, "records").len(), 52);
    let parts = doc["parts"].as_array().unwrap();
    assert_eq!(parts.len(), 2);
    assert_eq!(parts[0]["id"], base["bundle"]["id"]);
    assert_eq!(
        parts[0]["index_sha256"],
        okf_engine::canonical::sha256_hex(&base_bytes())
    );
    assert_eq!(parts[0]["concepts"].as_array().unwrap().len(), 12);
    assert_eq!(parts[1]["id"], own["bundle"]["id"]);
    assert_eq!(doc["regimes"], own["regimes"]);
    // Every limitation of both parts is kept, each once.
    for l in base["limitations"]
        .as_array()
        .unwrap()
        .iter()
        .chain(own["limitations"].as_array().unwrap())
    {
        assert!(doc["limitations"].as_array().unwrap().contains(l), "{l}");
    }
}

/// The package without what names the index it came from: its bundle, binding, scope and
/// limitations, the identity computed over them, and the byte count they change.
fn without_index_identity(mut p: Value) -> Value {
    for key in ["binding", "bundle", "context_id", "limitations", "scope"] {
        p.as_object_mut().unwrap().remove(key);
    }
    p["budget"].as_object_mut().unwrap().remove("used_bytes");
    p
}

fn assembled(index: &ContextIndex, question: &str, regimes: bool) -> Value {
    let options = AssembleOptions {
        as_of: Some(AsOf::parse("2026-09-15").unwrap()),
        regime_profile: regimes,
        ..AssembleOptions::default()
    };
    let json = assemble_with_options(index, question, &Budget::default(), None, &options)
        .unwrap()
        .json;
    serde_json::from_str(&json).unwrap()
}

#[test]
fn on_the_composed_index_the_imprisonment_question_keeps_the_base_package() {
    let (_, composed) = composed();
    let base = ContextIndex::from_json_slice(&base_bytes()).unwrap();
    let case: Value = serde_json::from_slice(
        &std::fs::read(
            root().join("../shared/dwp/evaluation/context-assembly/imprisonment-case.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let question = case["question"].as_str().unwrap();
    let on_base = package(&base, question);
    let on_composed = package(&composed, question);
    assert_eq!(on_composed["evidence_status"], "sufficient");
    assert_eq!(on_composed["selected"].as_array().unwrap().len(), 52);
    assert_eq!(
        without_index_identity(on_composed),
        without_index_identity(on_base)
    );
}

#[test]
fn on_the_composed_index_hospital_questions_keep_the_profiles_packages() {
    let (_, composed) = composed();
    let (_, hospital) = hospital();
    let questions = [
        HOSPITAL_QUESTION,
        "A claimant on legacy income-based JSA is admitted to hospital. Explain the effect on their JSA.",
        "What happens to Pension Credit after 52 weeks in hospital?",
        "Income Support after four weeks in hospital",
    ];
    for question in questions {
        for regimes in [false, true] {
            let on_profile = assembled(&hospital, question, regimes);
            let on_composed = assembled(&composed, question, regimes);
            assert_eq!(
                without_index_identity(on_composed),
                without_index_identity(on_profile),
                "{question} (regime profile {regimes})"
            );
        }
    }
}

#[test]
fn a_question_that_mixes_both_parts_leaves_their_shared_phrases_ambiguous() {
    let (_, composed) = composed();
    let p = package(
        &composed,
        "A claimant is imprisoned and then admitted to hospital: what happens to JSA?",
    );
    let phrases: Vec<&str> = p["ambiguities"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["phrase"].as_str().unwrap())
        .collect();
    assert!(
        phrases.contains(&"JSA") && phrases.contains(&"claimant"),
        "{phrases:?}"
    );
    assert_eq!(p["evidence_status"], "insufficient");
}

#[test]
fn the_eval_cases_controls_and_self_check_of_both_parts_pass_on_the_composed_index() {
    let (built, index) = composed();
    let binding = raw_binding(&index, built.json.as_bytes());
    let imprisonment = root().join("../shared/dwp/evaluation/context-assembly");
    // The prisoner-transfer case expects the standalone profile's transfer gaps; on the
    // composed index `okf build --base` resolves them to the base pages that hold them (issue
    // 41), so it is checked by `on_the_composed_index_the_transfer_gaps_are_resolved_…`.
    let runs: [(Vec<u8>, Option<Vec<u8>>); 3] = [
        (
            std::fs::read(imprisonment.join("imprisonment-case.json")).unwrap(),
            Some(std::fs::read(imprisonment.join("imprisonment-controls.json")).unwrap()),
        ),
        (eval_file("case.json"), Some(eval_file("controls.json"))),
        (eval_file("case-legacy-jsa.json"), None),
    ];
    for (case, controls) in runs {
        let case = Case::from_slice(&case).unwrap();
        let controls = controls.map(|c| Controls::from_slice(&c).unwrap());
        let report = evaluate(
            &index,
            &case,
            controls.as_ref(),
            &Budget::default(),
            &binding,
        )
        .unwrap();
        let failed = failed_checks(&report);
        assert!(failed.is_empty(), "{}: {failed:#?}", case.id);
        for c in &report.controls {
            assert_eq!(c.status, Status::Passed, "{}: {}", case.id, c.id);
        }
        assert_eq!(report.status, Status::Passed, "{}", case.id);
    }
    let report = self_check(&index).unwrap();
    // 6 of the base, 26 of the profile (issue 41 added the duration requirements).
    assert_eq!(report.requirements.len(), 32);
    assert!(report.requirements.iter().all(|r| r.fail_closed));
    assert_eq!(report.status, Status::Passed);
}

#[test]
fn a_base_with_another_digest_is_refused_naming_both_digests() {
    let mut base = base_bytes();
    base.push(b'\n');
    let e = build_profile_onto(
        &root().join("profiles/dwp-hospital"),
        &root().join("../shared/dwp/source"),
        Some(&base),
    )
    .unwrap_err();
    assert_eq!(e.file, "profile.toml");
    let Rule::DigestMismatch {
        what,
        declared,
        actual,
    } = &e.rule
    else {
        panic!("{e}");
    };
    assert_eq!(*what, "[compose] base_sha256");
    assert_eq!(
        declared,
        "38159445a60d4bcabc23cb2cf728e14cbd0a4b55013276c291356e7a1452ff54"
    );
    assert_eq!(actual, &okf_engine::canonical::sha256_hex(&base));
}

#[test]
fn a_base_given_to_a_profile_without_compose_is_refused() {
    let e = build_profile_onto(
        &root().join("profiles/example"),
        &root().join("profiles/example/sources"),
        Some(&base_bytes()),
    )
    .unwrap_err();
    assert_eq!(
        (e.file.as_str(), e.line, &e.rule),
        ("profile.toml", 1, &Rule::ComposeSection)
    );
}

/// Issue 41: one case per finding (eval/findings), each failing on the profile before the
/// correction; all pass on the corrected profile.
#[test]
fn the_issue_41_finding_cases_pass() {
    let (built, index) = hospital();
    let binding = raw_binding(&index, built.json.as_bytes());
    let mut files = Vec::new();
    files_with_ext(
        &root().join("profiles/dwp-hospital/eval/findings"),
        "json",
        false,
        &mut files,
    );
    assert_eq!(files.len(), 14);
    for f in files {
        let case = Case::from_slice(&std::fs::read(&f).unwrap()).unwrap();
        let report = evaluate(&index, &case, None, &Budget::default(), &binding).unwrap();
        let failed = failed_checks(&report);
        assert!(failed.is_empty(), "{}: {failed:#?}", f.display());
    }
}

/// Issue 41: the profile's prisoner-transfer gaps stand for paragraphs the published base holds
/// (24215, 54212, 78651, 78652, 78663). `okf build --base` resolves them: on the composed
/// index the transfer requirement requires the base pages, is met, and lint reports no stale
/// gap. Standalone, the gaps stay and the requirement is unmet. (This is why the transfer
/// question is not among the questions whose package the composition keeps.)
#[test]
fn on_the_composed_index_the_transfer_gaps_are_resolved_to_the_base_pages() {
    let (built, composed) = composed();
    let base = "https://chris-page-gov.github.io/okf-dwp/id/";
    let resolved: Vec<(String, Vec<String>)> = built
        .resolved_gaps
        .iter()
        .map(|g| {
            (
                g.gap.trim_start_matches(B).to_owned(),
                g.records
                    .iter()
                    .map(|r| r.trim_start_matches(base).to_owned())
                    .collect(),
            )
        })
        .collect();
    assert_eq!(
        resolved,
        [
            (
                "gap/dmg-78651-prisoner-guidance".to_owned(),
                vec![
                    "page/78/0100".to_owned(),
                    "page/78/0101".to_owned(),
                    "page/78/0103".to_owned()
                ]
            ),
            (
                "gap/dmg-24215-is-prisoner-in-hospital".to_owned(),
                vec!["page/dmg-vol4-ch24/0042".to_owned()]
            ),
            (
                "gap/dmg-54212-esa-prisoner-in-hospital".to_owned(),
                vec!["page/dmg-vol9-ch54/0033".to_owned()]
            ),
        ]
    );
    let report = lint(&composed);
    assert!(
        !report
            .findings
            .iter()
            .any(|f| f.kind == okf_eval::lint::kinds::GAP_HELD_IN_INDEX),
        "{report:?}"
    );
    let question = "A prisoner is transferred to hospital under mental health legislation. Explain the effect on income-related ESA and State Pension Credit.";
    let row = |p: &Value| {
        p["requirements"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["id"] == format!("{B}requirement/prisoner-transfer-to-hospital"))
            .cloned()
            .unwrap()
    };
    let on_composed = package(&composed, question);
    assert_eq!(
        row(&on_composed)["status"],
        "supported-within-declared-scope"
    );
    let (_, hospital) = hospital();
    let alone = row(&package(&hospital, question));
    assert_eq!(alone["status"], "insufficient");
    assert_eq!(alone["missing"].as_array().unwrap().len(), 3);
}

// Issue 40 item 1: dates that mean what they say.

/// Every id named by an issue of `p` (any list), without the base.
fn issue_ids(p: &Value) -> Vec<String> {
    ["missing_evidence", "omissions", "conflicts"]
        .iter()
        .flat_map(|list| p[list].as_array().into_iter().flatten())
        .flat_map(|i| i["ids"].as_array().unwrap().iter())
        .map(|id| id.as_str().unwrap().trim_start_matches(B).to_owned())
        .collect()
}

fn esa_question_on(index: &ContextIndex, as_of: &str) -> Value {
    let options = AssembleOptions {
        as_of: Some(AsOf::parse(as_of).unwrap()),
        regime_profile: true,
        ..AssembleOptions::default()
    };
    let json = assemble_with_options(
        index,
        "A claimant on ESA is admitted to hospital",
        &Budget::default(),
        None,
        &options,
    )
    .unwrap()
    .json;
    serde_json::from_str(&json).unwrap()
}

#[test]
fn a_2012_esa_question_names_no_new_style_gap_or_dependency_and_a_2026_one_names_only_esas() {
    let (_, index) = hospital();
    // 2012-06-01: New Style (from 2013-04-29) is not in force, so nothing of it is named.
    let before = esa_question_on(&index, "2012-06-01");
    let named = issue_ids(&before);
    assert!(
        named.iter().all(|id| !id.contains("new-style")),
        "2012: {named:?}"
    );
    assert!(
        issue(&before, "missing_dependency")
            .iter()
            .all(|i| !i.to_string().contains("new-style")),
        "{}",
        before["missing_evidence"]
    );
    assert!(
        ids(&before["declared_gaps"], "id")
            .iter()
            .all(|g| !g.contains("new-style"))
    );
    // Still insufficient, for the household gaps of the legacy ESA requirement.
    assert_eq!(before["evidence_status"], "insufficient");
    // 2026-09-15: New Style is open for ESA, so its ESA gap is named, never the JSA one.
    let after = esa_question_on(&index, "2026-09-15");
    let named = issue_ids(&after);
    assert!(
        named.contains(&"gap/adm-new-style-esa-hospital".to_owned()),
        "2026: {named:?}"
    );
    assert!(
        !named.contains(&"gap/adm-new-style-jsa-hospital".to_owned()),
        "2026: {named:?}"
    );
    assert_eq!(
        ids(&after["declared_gaps"], "id")
            .into_iter()
            .filter(|g| g.contains("new-style"))
            .collect::<Vec<_>>(),
        ["gap/adm-new-style-esa-hospital"]
    );
}

#[test]
fn on_the_composed_index_the_imprisonment_question_resolves_legacy_dmg_and_names_new_style_not_held()
 {
    let (_, composed) = composed();
    let case: Value = serde_json::from_slice(
        &std::fs::read(
            root().join("../shared/dwp/evaluation/context-assembly/imprisonment-case.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let question = case["question"].as_str().unwrap();
    let p = assembled(&composed, question, true);
    let regime = &p["guidance_regime"];
    assert_eq!(
        regime["resolved"],
        serde_json::json!([format!("{B}regime/legacy-dmg")]),
        "{regime}"
    );
    let new_style = serde_json::json!(format!("{B}regime/new-style-adm"));
    let named = |key: &str| {
        regime[key]
            .as_array()
            .is_some_and(|a| a.contains(&new_style))
    };
    assert!(named("unresolved") || named("not_held"), "{regime}");
    // The default package is the base's, as before.
    assert_eq!(p["evidence_status"], "sufficient");
}
