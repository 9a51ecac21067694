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
//! A mutant *fails closed* when the requirement is `insufficient` in the mutant package and the
//! package is not `sufficient`. A requirement is fail-closed when all its mutants are.

use crate::assess::Status;
use crate::controls::{MUTANT_SNAPSHOT_SUFFIX, Mutation};
use crate::error::EvalError;
use okf_engine::model::IndexDocument;
use okf_engine::{BUDGET_RANGES, Budget, ContextIndex, assemble};
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
    /// The requirement is `insufficient` and the package is not `sufficient`.
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

/// Requirement status and evidence status of a package.
fn outcome(json: &str, requirement: &str) -> Result<(Option<String>, String), EvalError> {
    let p: Value = serde_json::from_str(json).map_err(|e| EvalError::Package {
        context: format!("self-check of {requirement}"),
        message: e.to_string(),
    })?;
    let status = p
        .get("requirements")
        .and_then(Value::as_array)
        .and_then(|rows| {
            rows.iter()
                .find(|r| r.get("id").and_then(Value::as_str) == Some(requirement))
        })
        .and_then(|r| r.get("status"))
        .and_then(Value::as_str)
        .map(str::to_owned);
    let evidence = p
        .get("evidence_status")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    Ok((status, evidence))
}

/// Runs the generated controls over every requirement of `index`.
pub fn self_check(index: &ContextIndex) -> Result<SelfCheckReport, EvalError> {
    let doc = index.document();
    let mut requirements = Vec::new();
    for (ri, req) in doc.requirements.iter().enumerate() {
        let labels: Vec<&str> = req
            .when_all
            .iter()
            .filter_map(|id| index.record(id).map(|r| r.label.as_str()))
            .collect();
        let question = labels.join(". ");
        let context = |what: &str| format!("self-check of {} ({what})", req.id);
        let run = |index: &ContextIndex, budget: &Budget| -> Result<(Option<String>, String), EvalError> {
            let assembled = assemble(index, &question, budget, None)
                .map_err(|e| EvalError::engine(context("assembly"), e))?;
            outcome(&assembled.json, &req.id)
        };
        let mut check = RequirementCheck {
            id: req.id.clone(),
            label: req.label.clone(),
            question: question.clone(),
            baseline_status: None,
            baseline_evidence_status: String::new(),
            closure_bytes: 0,
            mutants: Vec::new(),
            skipped: Vec::new(),
            fail_closed: true,
        };
        if labels.len() != req.when_all.len() || question.trim().is_empty() {
            check.baseline_evidence_status = "not-run".into();
            check.skipped.push(Skipped {
                kind: MutantKind::DropRecord,
                target: req.id.clone(),
                reason: "a when_all concept is not a record, so no question can apply the requirement",
            });
            requirements.push(check);
            continue;
        }
        let (status, evidence) = run(index, &Budget::default())?;
        check.baseline_status = status;
        check.baseline_evidence_status = evidence;

        let mut closure: Vec<&str> = Vec::new();
        let mut seen = HashSet::new();
        let paths = req.required_paths.as_deref().unwrap_or_default();
        for id in req.required.iter().chain(paths.iter().flat_map(|p| &p.records)) {
            if seen.insert(id.as_str()) {
                closure.push(id);
            }
        }
        check.closure_bytes = closure
            .iter()
            .filter_map(|id| index.record_index(id))
            .map(|i| index.record_canonical_json(i).len() as u64)
            .sum();

        let mut mutate = |kind: MutantKind,
                          target: &str,
                          change: &dyn Fn(&mut IndexDocument) -> Result<(), EvalError>|
         -> Result<(), EvalError> {
            let mut mutant = doc.clone();
            mutant.bundle.snapshot.push_str(MUTANT_SNAPSHOT_SUFFIX);
            mutant.bundle.snapshot.push_str(&format!("self-check-{ri}"));
            change(&mut mutant)?;
            let mutant = ContextIndex::new(mutant)
                .map_err(|e| EvalError::engine(context("mutant index"), e))?;
            let (status, evidence) = run(&mutant, &Budget::default())?;
            check.mutants.push(MutantOutcome {
                kind,
                target: target.to_owned(),
                max_bytes: None,
                fail_closed: status.as_deref() == Some("insufficient") && evidence != "sufficient",
                requirement_status: status,
                evidence_status: evidence,
            });
            Ok(())
        };
        let control = format!("self-check-{ri}");
        let mut dropped = HashSet::new();
        for id in &req.required {
            if !dropped.insert(id.as_str()) || index.record(id).is_none() {
                continue;
            }
            let m = Mutation::DropRecord {
                record_id: id.clone(),
            };
            mutate(MutantKind::DropRecord, id, &|d| m.apply(d, &control))?;
        }
        let mut hops = HashSet::new();
        for hop in paths.iter().flat_map(|p| &p.assertions) {
            if !hops.insert(hop.as_str()) || index.assertion(hop).is_none() {
                continue;
            }
            let m = Mutation::RemoveAssertion {
                assertion_id: hop.clone(),
            };
            mutate(MutantKind::RemoveAssertion, hop, &|d| m.apply(d, &control))?;
            mutate(MutantKind::ReverseAssertion, hop, &|d| {
                if let Some(a) = d.assertions.iter_mut().find(|a| a.id == *hop) {
                    std::mem::swap(&mut a.source, &mut a.target);
                }
                Ok(())
            })?;
        }
        let shrunk = check.closure_bytes.saturating_sub(1);
        if shrunk >= min_max_bytes() {
            let budget = Budget {
                max_bytes: shrunk.min(Budget::MAX.max_bytes),
                ..Budget::default()
            };
            let (status, evidence) = run(index, &budget)?;
            check.mutants.push(MutantOutcome {
                kind: MutantKind::ShrinkMaxBytes,
                target: req.id.clone(),
                max_bytes: Some(budget.max_bytes),
                fail_closed: status.as_deref() == Some("insufficient") && evidence != "sufficient",
                requirement_status: status,
                evidence_status: evidence,
            });
        } else {
            check.skipped.push(Skipped {
                kind: MutantKind::ShrinkMaxBytes,
                target: req.id.clone(),
                reason: "the closure is smaller than the smallest byte budget the engine accepts",
            });
        }
        for id in &req.required {
            if index.record(id).is_none() {
                check.skipped.push(Skipped {
                    kind: MutantKind::DropRecord,
                    target: id.clone(),
                    reason: "the required record is not in the index (see okf lint)",
                });
            }
        }
        for hop in paths.iter().flat_map(|p| &p.assertions) {
            if index.assertion(hop).is_none() {
                check.skipped.push(Skipped {
                    kind: MutantKind::RemoveAssertion,
                    target: hop.clone(),
                    reason: "the required-path hop is not an assertion in the index (see okf lint)",
                });
            }
        }
        check.fail_closed = check.mutants.iter().all(|m| m.fail_closed);
        requirements.push(check);
    }
    Ok(SelfCheckReport {
        status: Status::from_bool(requirements.iter().all(|r| r.fail_closed)),
        requirements,
    })
}
