//! The real DWP data: the imprisonment case and its ten controls (agreeing with the reference
//! receipt), the hospital case, the generated self-check and lint on the same index.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

mod common;

use common::{dwp_index_bytes, shared};
use okf_engine::{Budget, ContextIndex};
use okf_eval::controls::{MUTANT_SNAPSHOT_SUFFIX, build_mutant};
use okf_eval::{Case, Controls, StageId, Status, evaluate, lint, raw_binding, self_check};
use serde_json::Value;

fn dwp() -> (Vec<u8>, ContextIndex) {
    let bytes = dwp_index_bytes();
    let index = ContextIndex::from_json_slice(&bytes).unwrap();
    (bytes, index)
}

fn imprisonment_case() -> Case {
    Case::from_slice(&shared(
        "dwp/evaluation/context-assembly/imprisonment-case.json",
    ))
    .unwrap()
}

fn imprisonment_controls() -> Controls {
    Controls::from_slice(&shared(
        "dwp/evaluation/context-assembly/imprisonment-controls.json",
    ))
    .unwrap()
}

#[test]
fn spec_3_dwp_imprisonment_case_passes_every_stage() {
    let (bytes, index) = dwp();
    let binding = raw_binding(&index, &bytes);
    // The case run binds the raw file digest, which is the digest DWP publishes.
    assert_eq!(
        binding.index_sha256,
        "38159445a60d4bcabc23cb2cf728e14cbd0a4b55013276c291356e7a1452ff54"
    );
    let report = evaluate(
        &index,
        &imprisonment_case(),
        None,
        &Budget::default(),
        &binding,
    )
    .unwrap();
    let a = &report.case.assessment;
    let failed: Vec<String> = a
        .failed_checks()
        .map(|(s, c)| format!("{s:?} {}", c.id))
        .collect();
    assert!(failed.is_empty(), "{failed:#?}");
    assert_eq!(report.case.evidence_status, "sufficient");
    let counts: Vec<usize> = a.stages.iter().map(|s| s.checks.len()).collect();
    // Observed check counts per stage A..H (pinned so a change in stage membership shows).
    assert_eq!(counts, [93, 167, 10, 180, 43, 81, 162, 15]);
    // The five sufficiency preconditions are present because the package is sufficient.
    let h = a.stage(StageId::H).unwrap();
    assert_eq!(
        h.checks
            .iter()
            .filter(|c| c.id.starts_with("sufficiency-"))
            .count(),
        5
    );
    assert_eq!(report.status, Status::Passed);
}

#[test]
fn spec_4_dwp_controls_all_pass_and_agree_with_the_reference_receipt() {
    let (bytes, index) = dwp();
    let report = evaluate(
        &index,
        &imprisonment_case(),
        Some(&imprisonment_controls()),
        &Budget::default(),
        &raw_binding(&index, &bytes),
    )
    .unwrap();
    let receipt: Value = serde_json::from_slice(&shared(
        "dwp/evaluation/context-assembly/imprisonment-controls-execution.json",
    ))
    .unwrap();
    let retained = receipt["execution"]["controls"].as_array().unwrap();
    assert_eq!(receipt["execution"]["status"], "passed");
    assert_eq!(report.controls.len(), 10);
    assert_eq!(retained.len(), report.controls.len());
    for (ours, theirs) in report.controls.iter().zip(retained) {
        assert_eq!(ours.id, theirs["id"].as_str().unwrap());
        assert_eq!(
            ours.status.as_str(),
            theirs["status"].as_str().unwrap(),
            "{}",
            ours.id
        );
        assert_eq!(
            ours.evidence_status,
            theirs["evidence_status"].as_str().unwrap(),
            "{}",
            ours.id
        );
        // Same checks, same order, same verdicts.
        let our_checks: Vec<(&str, &str)> = ours
            .checks
            .iter()
            .map(|c| (c.id.as_str(), c.status.as_str()))
            .collect();
        let their_checks: Vec<(&str, &str)> = theirs["checks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| (c["id"].as_str().unwrap(), c["status"].as_str().unwrap()))
            .collect();
        assert_eq!(our_checks, their_checks, "{}", ours.id);
        // The positive case must fail on every mutant.
        assert_eq!(ours.positive_case.status, Status::Failed, "{}", ours.id);
    }
    assert_eq!(report.status, Status::Passed);
}

#[test]
fn spec_4_2_dwp_mutants_leave_the_original_untouched_and_are_marked_synthetic() {
    let (bytes, index) = dwp();
    let before = index.document().clone();
    let controls = imprisonment_controls();
    for control in &controls.controls {
        let mutant = build_mutant(index.document(), control).unwrap();
        assert_eq!(
            mutant.bundle.snapshot,
            format!(
                "{}{MUTANT_SNAPSHOT_SUFFIX}{}",
                before.bundle.snapshot, control.id
            )
        );
        assert_eq!(mutant.bundle.source_url, before.bundle.source_url);
    }
    let report = evaluate(
        &index,
        &imprisonment_case(),
        Some(&controls),
        &Budget::default(),
        &raw_binding(&index, &bytes),
    )
    .unwrap();
    assert_eq!(
        index.document(),
        &before,
        "the original index is never modified"
    );
    // Each mutant is bound with its own digest, never the original's.
    let mut digests: Vec<&str> = report
        .controls
        .iter()
        .map(|c| c.mutant_index_sha256.as_str())
        .collect();
    assert!(!digests.contains(&index.default_binding().index_sha256.as_str()));
    digests.sort_unstable();
    digests.dedup();
    assert_eq!(digests.len(), 10);
}

#[test]
fn spec_1_5_dwp_hospital_case_passes_as_insufficient_against_the_same_index() {
    let (bytes, index) = dwp();
    let case = Case::from_slice(&shared("dwp/evaluation/remote-mcp/hospital-case.json")).unwrap();
    let report = evaluate(
        &index,
        &case,
        None,
        &Budget::default(),
        &raw_binding(&index, &bytes),
    )
    .unwrap();
    let failed: Vec<String> = report
        .case
        .assessment
        .failed_checks()
        .map(|(_, c)| c.id.clone())
        .collect();
    assert!(failed.is_empty(), "{failed:#?}");
    assert_eq!(report.case.evidence_status, "insufficient");
    // No sufficiency preconditions for an insufficient package.
    let h = report.case.assessment.stage(StageId::H).unwrap();
    assert!(h.checks.iter().all(|c| !c.id.starts_with("sufficiency-")));
    assert_eq!(report.status, Status::Passed);
}

#[test]
fn self_check_on_the_dwp_index_finds_every_requirement_fail_closed() {
    let (_, index) = dwp();
    let report = self_check(&index).unwrap();
    assert_eq!(report.requirements.len(), 6);
    // Observed: per requirement (index order) the number of generated mutants: one per
    // required record, two per required-path hop, one byte-budget mutant.
    let per_requirement: Vec<usize> = report
        .requirements
        .iter()
        .map(|r| r.mutants.len())
        .collect();
    assert_eq!(per_requirement, [24, 35, 17, 16, 12, 18]);
    assert_eq!(report.mutant_count(), 122);
    assert_eq!(report.fail_closed_count(), 122);
    assert_eq!(report.skipped_count(), 0);
    assert!(report.not_fail_closed().is_empty());
    assert!(
        report.unsupported_baselines().is_empty(),
        "every generated question applies and supports its requirement"
    );
    assert!(report.requirements.iter().all(|r| r.closure_bytes > 8192));
    assert_eq!(report.status, Status::Passed);
}

#[test]
fn lint_on_the_dwp_index_finds_nothing() {
    let (_, index) = dwp();
    let report = lint(&index);
    assert_eq!(report.findings, Vec::new());
    assert!(!report.has_errors());
}

#[test]
fn e1_mutants_are_bound_with_their_canonical_digest_not_the_reference_compact_one() {
    let (bytes, index) = dwp();
    let controls = imprisonment_controls();
    let report = evaluate(
        &index,
        &imprisonment_case(),
        Some(&controls),
        &Budget::default(),
        &raw_binding(&index, &bytes),
    )
    .unwrap();
    let receipt: Value = serde_json::from_slice(&shared(
        "dwp/evaluation/context-assembly/imprisonment-controls-execution.json",
    ))
    .unwrap();
    for ((control, result), theirs) in controls
        .controls
        .iter()
        .zip(&report.controls)
        .zip(receipt["execution"]["controls"].as_array().unwrap())
    {
        let mutant = ContextIndex::new(build_mutant(index.document(), control).unwrap()).unwrap();
        assert_eq!(
            result.mutant_index_sha256,
            mutant.default_binding().index_sha256
        );
        // The DWP file is itself canonical compact JSON, so the two digests agree unless an op
        // appends a new member (sorted here, last in the reference) or writes our own wording.
        let same = result.mutant_index_sha256 == theirs["mutant_index_sha256"].as_str().unwrap();
        let differs = ["declared-conflict", "corrupt-whole-passage"].contains(&control.id.as_str());
        assert_eq!(same, !differs, "{}", control.id);
    }
}
