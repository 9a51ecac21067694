//! Generated controls (beyond the reference): does every declared requirement fail closed?
//!
//! For each requirement of the index a question is built from the labels of its `when_all`
//! concepts (so the requirement applies), and assembled once on the unchanged index (the
//! baseline). Then, one mutant at a time:
//!
//! - each required record is dropped;
//! - each hop of each required path is removed, and separately reversed (only that assertion);
//! - `max_bytes` is set one byte below the requirement's closure (the canonical bytes of its
//!   required records and required-path records together), when that is still a budget the
//!   engine accepts.
//!
//! A mutant *fails closed* when the package is not `sufficient` and either the requirement is
//! `insufficient` in it or the package is the metadata-only fallback (the budget left room for
//! no record, so the package assesses nothing and says so with `metadata_budget`). A
//! requirement that merely vanishes from a full package does not fail closed: that package no
//! longer says what the requirement is missing. A requirement is fail-closed when all its
//! mutants are.

use crate::assemble_package;
use crate::assess::Status;
use crate::controls::{MUTANT_SNAPSHOT_SUFFIX, Mutation};
use crate::error::EvalError;
use okf_engine::model::{IndexDocument, PathSpec, Requirement};
use okf_engine::{BUDGET_RANGES, Budget, ContextIndex};
use serde::Serialize;
use serde_json::Value;
use std::collections::HashSet;

/// What a generated mutant does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MutantKind {
    /// A required record is removed.
    DropRecord,
    /// A required-path hop is removed.
    RemoveAssertion,
    /// A required-path hop has its source and target swapped.
    ReverseAssertion,
    /// `max_bytes` is one below the requirement's closure.
    ShrinkMaxBytes,
}

/// One generated mutant and what the engine made of it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MutantOutcome {
    /// What was changed.
    pub kind: MutantKind,
    /// The record or assertion changed (the requirement itself for `shrink_max_bytes`).
    pub target: String,
    /// The byte budget used, for `shrink_max_bytes`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_bytes: Option<u64>,
    /// The requirement's status in the mutant package (`None`: not assessed at all).
    pub requirement_status: Option<String>,
    /// The mutant package's evidence status.
    pub evidence_status: String,
    /// The mutant package is the metadata-only fallback (it assesses no requirement).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub metadata_only: bool,
    /// The package is not `sufficient`, and the requirement is `insufficient` or the package
    /// is the metadata-only fallback.
    pub fail_closed: bool,
}

/// A mutant that could not be generated, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Skipped {
    /// What would have been changed.
    pub kind: MutantKind,
    /// The record or assertion.
    pub target: String,
    /// Why it was skipped.
    pub reason: &'static str,
}

/// The self-check of one requirement.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RequirementCheck {
    /// Requirement id.
    pub id: String,
    /// Requirement label.
    pub label: String,
    /// The generated question (labels of the `when_all` concepts).
    pub question: String,
    /// The requirement's status on the unchanged index (`None`: it did not apply).
    pub baseline_status: Option<String>,
    /// The unchanged package's evidence status.
    pub baseline_evidence_status: String,
    /// Canonical bytes of the requirement's closure.
    pub closure_bytes: u64,
    /// The generated mutants.
    pub mutants: Vec<MutantOutcome>,
    /// Mutants that could not be generated.
    pub skipped: Vec<Skipped>,
    /// Every mutant failed closed.
    pub fail_closed: bool,
}

/// The self-check of a whole index.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SelfCheckReport {
    /// `passed` when every requirement is fail-closed.
    pub status: Status,
    /// One entry per requirement, in index order.
    pub requirements: Vec<RequirementCheck>,
}

impl SelfCheckReport {
    /// Number of generated mutants.
    pub fn mutant_count(&self) -> usize {
        self.requirements.iter().map(|r| r.mutants.len()).sum()
    }

    /// Number of mutants that failed closed.
    pub fn fail_closed_count(&self) -> usize {
        self.requirements
            .iter()
            .flat_map(|r| &r.mutants)
            .filter(|m| m.fail_closed)
            .count()
    }

    /// Number of mutants that could not be generated.
    pub fn skipped_count(&self) -> usize {
        self.requirements.iter().map(|r| r.skipped.len()).sum()
    }

    /// Ids of requirements with at least one mutant that did not fail closed.
    pub fn not_fail_closed(&self) -> Vec<&str> {
        self.requirements
            .iter()
            .filter(|r| !r.fail_closed)
            .map(|r| r.id.as_str())
            .collect()
    }

    /// Ids of requirements that do not apply to their generated question, or are not
    /// supported by it on the unchanged index (their mutants prove little).
    pub fn unsupported_baselines(&self) -> Vec<&str> {
        self.requirements
            .iter()
            .filter(|r| r.baseline_status.as_deref() != Some(SUPPORTED))
            .map(|r| r.id.as_str())
            .collect()
    }
}

const SUPPORTED: &str = "supported-within-declared-scope";

/// The smallest `max_bytes` the engine accepts.
fn min_max_bytes() -> u64 {
    BUDGET_RANGES
        .iter()
        .find(|(k, _, _)| *k == "max_bytes")
        .map_or(0, |(_, min, _)| *min)
}

/// A requirement's status (`None` when not assessed), the package's evidence status, and
/// whether the package is the metadata-only fallback.
type Outcome = (Option<String>, String, bool);

impl MutantOutcome {
    fn new(kind: MutantKind, target: &str, max_bytes: Option<u64>, outcome: Outcome) -> Self {
        let (requirement_status, evidence_status, metadata_only) = outcome;
        MutantOutcome {
            kind,
            target: target.to_owned(),
            max_bytes,
            fail_closed: evidence_status != "sufficient"
                && (requirement_status.as_deref() == Some("insufficient") || metadata_only),
            requirement_status,
            evidence_status,
            metadata_only,
        }
    }
}

/// Assembles one requirement's question on an index (the original or a mutant).
struct Probe<'a> {
    requirement: &'a str,
    question: String,
}

impl Probe<'_> {
    fn run(&self, index: &ContextIndex, budget: &Budget) -> Result<Outcome, EvalError> {
        let (assembled, p) = assemble_package(
            index,
            &self.question,
            budget,
            None,
            &format!("self-check of {}", self.requirement),
        )?;
        let status = p
            .get("requirements")
            .and_then(Value::as_array)
            .and_then(|rows| {
                rows.iter()
                    .find(|r| r.get("id").and_then(Value::as_str) == Some(self.requirement))
            })
            .and_then(|r| r.get("status"))
            .and_then(Value::as_str)
            .map(str::to_owned);
        let metadata_only = p
            .get("missing_evidence")
            .and_then(Value::as_array)
            .is_some_and(|issues| {
                issues
                    .iter()
                    .any(|i| i.get("code").and_then(Value::as_str) == Some("metadata_budget"))
            });
        Ok((
            status,
            assembled.evidence_status.as_str().to_owned(),
            metadata_only,
        ))
    }

    /// Builds a mutant of `doc` with `change`, then runs the question on it.
    fn run_mutant(
        &self,
        doc: &IndexDocument,
        control: &str,
        change: impl FnOnce(&mut IndexDocument) -> Result<(), EvalError>,
    ) -> Result<Outcome, EvalError> {
        let mut mutant = doc.clone();
        mutant.bundle.snapshot.push_str(MUTANT_SNAPSHOT_SUFFIX);
        mutant.bundle.snapshot.push_str(control);
        change(&mut mutant)?;
        let mutant = ContextIndex::new(mutant).map_err(|e| {
            EvalError::engine(
                format!("self-check of {} (mutant index)", self.requirement),
                e,
            )
        })?;
        self.run(&mutant, &Budget::default())
    }
}

/// Runs the generated controls over every requirement of `index`.
pub fn self_check(index: &ContextIndex) -> Result<SelfCheckReport, EvalError> {
    let requirements = index
        .document()
        .requirements
        .iter()
        .enumerate()
        .map(|(ri, req)| check_requirement(index, ri, req))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(SelfCheckReport {
        status: Status::from_bool(requirements.iter().all(|r| r.fail_closed)),
        requirements,
    })
}

fn check_requirement(
    index: &ContextIndex,
    ri: usize,
    req: &Requirement,
) -> Result<RequirementCheck, EvalError> {
    let labels: Vec<&str> = req
        .when_all
        .iter()
        .filter_map(|id| index.record(id).map(|r| r.label.as_str()))
        .collect();
    let probe = Probe {
        requirement: &req.id,
        question: labels.join(". "),
    };
    let mut check = RequirementCheck {
        id: req.id.clone(),
        label: req.label.clone(),
        question: probe.question.clone(),
        baseline_status: None,
        baseline_evidence_status: "not-run".into(),
        closure_bytes: 0,
        mutants: Vec::new(),
        skipped: Vec::new(),
        fail_closed: true,
    };
    if labels.len() != req.when_all.len() || probe.question.trim().is_empty() {
        check.skipped.push(Skipped {
            kind: MutantKind::DropRecord,
            target: req.id.clone(),
            reason: "a when_all concept is not a record, so no question can apply the requirement",
        });
        return Ok(check);
    }
    (check.baseline_status, check.baseline_evidence_status, _) =
        probe.run(index, &Budget::default())?;

    let paths = req.required_paths.as_deref().unwrap_or_default();
    let mut closure = HashSet::new();
    check.closure_bytes = req
        .required
        .iter()
        .chain(paths.iter().flat_map(|p| &p.records))
        .filter(|id| closure.insert(id.as_str()))
        .filter_map(|id| index.record_index(id))
        .map(|i| index.record_canonical_json(i).len() as u64)
        .sum();

    let control = format!("self-check-{ri}");
    drop_required_records(index, &probe, &control, req, &mut check)?;
    cut_path_hops(index, &probe, &control, paths, &mut check)?;
    shrink_byte_budget(index, &probe, req, &mut check)?;
    check.fail_closed = check.mutants.iter().all(|m| m.fail_closed);
    Ok(check)
}

/// Mutants that drop each required record once (a record not in the index is skipped).
fn drop_required_records(
    index: &ContextIndex,
    probe: &Probe<'_>,
    control: &str,
    req: &Requirement,
    check: &mut RequirementCheck,
) -> Result<(), EvalError> {
    let doc = index.document();
    let mut dropped = HashSet::new();
    for id in req.required.iter().filter(|id| dropped.insert(id.as_str())) {
        if index.record(id).is_none() {
            check.skipped.push(Skipped {
                kind: MutantKind::DropRecord,
                target: id.clone(),
                reason: "the required record is not in the index (see okf lint)",
            });
            continue;
        }
        let m = Mutation::DropRecord {
            record_id: id.clone(),
        };
        let outcome = probe.run_mutant(doc, control, |d| m.apply(d, control))?;
        check.mutants.push(MutantOutcome::new(
            MutantKind::DropRecord,
            id,
            None,
            outcome,
        ));
    }
    Ok(())
}

/// Mutants that remove, then reverse, each hop of the required paths once.
fn cut_path_hops(
    index: &ContextIndex,
    probe: &Probe<'_>,
    control: &str,
    paths: &[PathSpec],
    check: &mut RequirementCheck,
) -> Result<(), EvalError> {
    let doc = index.document();
    let mut cut = HashSet::new();
    for hop in paths
        .iter()
        .flat_map(|p| &p.assertions)
        .filter(|hop| cut.insert(hop.as_str()))
    {
        if index.assertion(hop).is_none() {
            check.skipped.push(Skipped {
                kind: MutantKind::RemoveAssertion,
                target: hop.clone(),
                reason: "the required-path hop is not an assertion in the index (see okf lint)",
            });
            continue;
        }
        let m = Mutation::RemoveAssertion {
            assertion_id: hop.clone(),
        };
        let outcome = probe.run_mutant(doc, control, |d| m.apply(d, control))?;
        check.mutants.push(MutantOutcome::new(
            MutantKind::RemoveAssertion,
            hop,
            None,
            outcome,
        ));
        let outcome = probe.run_mutant(doc, control, |d| {
            if let Some(a) = d.assertions.iter_mut().find(|a| a.id == *hop) {
                std::mem::swap(&mut a.source, &mut a.target);
            }
            Ok(())
        })?;
        check.mutants.push(MutantOutcome::new(
            MutantKind::ReverseAssertion,
            hop,
            None,
            outcome,
        ));
    }
    Ok(())
}

/// A run with the byte budget one below the closure's size, unless that is under the
/// engine's smallest budget.
fn shrink_byte_budget(
    index: &ContextIndex,
    probe: &Probe<'_>,
    req: &Requirement,
    check: &mut RequirementCheck,
) -> Result<(), EvalError> {
    let shrunk = check.closure_bytes.saturating_sub(1);
    if shrunk >= min_max_bytes() {
        let budget = Budget {
            max_bytes: shrunk.min(Budget::MAX.max_bytes),
            ..Budget::default()
        };
        let outcome = probe.run(index, &budget)?;
        check.mutants.push(MutantOutcome::new(
            MutantKind::ShrinkMaxBytes,
            &req.id,
            Some(budget.max_bytes),
            outcome,
        ));
    } else {
        check.skipped.push(Skipped {
            kind: MutantKind::ShrinkMaxBytes,
            target: req.id.clone(),
            reason: "the closure is smaller than the smallest byte budget the engine accepts",
        });
    }
    Ok(())
}
