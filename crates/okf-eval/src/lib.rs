//! # okf-eval
//!
//! The evaluation harness and authoring checks of Ask OKF, built on the engine's public API
//! (`okf_engine::assemble` is the only assembler; there is no second engine):
//!
//! - [`assess`]: the A–H assessor of an assembled package against an evaluation case
//!   (`okf-context-evaluation-case.v1`), following `../shared/spec/evaluation.md`;
//! - [`controls`]: mutation controls (`okf-context-evaluation-controls.v1`) run on in-memory
//!   copies of the index;
//! - [`self_check`]: controls generated from the index's own requirements, showing which
//!   requirements fail closed;
//! - [`lint`]: what the engine tolerates but an author should fix;
//! - [`report`]: the human table and the JSON report of each.
//!
//! The crate does no I/O and reads no clock: callers pass parsed indexes and file bytes.
//! Expected ids are never used as retrieval seeds; the engine sees only the index, the
//! question, a budget and a binding.
//!
//! ```
//! use okf_engine::{Budget, ContextIndex};
//! use okf_eval::{Case, evaluate, raw_binding};
//! # let index_bytes = include_bytes!("../../okf/example/index.json");
//! # let case_bytes = include_bytes!("../../okf/example/case.json");
//! let index = ContextIndex::from_json_slice(index_bytes)?;
//! let case = Case::from_slice(case_bytes)?;
//! let binding = raw_binding(&index, index_bytes);
//! let report = evaluate(&index, &case, None, &Budget::default(), &binding)?;
//! assert!(report.status.passed());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod assess;
pub mod case;
pub mod controls;
mod draft;
mod error;
pub mod lint;
pub mod report;
mod review;
pub mod self_check;

pub use assess::{Assessment, Check, Stage, StageId, Status, assess};
pub use case::Case;
pub use controls::{ControlResult, Controls, Mutation, run_control};
pub use draft::draft_case;
pub use error::EvalError;
pub use lint::{
    CapturedPage, Finding, LintReport, ReviewClaim, Severity, lint, lint_reviewed,
    lint_with_captures,
};
pub use self_check::{SelfCheckReport, self_check};

use okf_engine::canonical::sha256_hex;
use okf_engine::{
    AssembleOptions, Assembled, Binding, Budget, ContextIndex, assemble, assemble_with_options,
};
use serde_json::Value;

/// The binding a case run records (spec §3 step 5): `bundle.source_url` and the SHA-256 of the
/// raw index file bytes.
pub fn raw_binding(index: &ContextIndex, index_bytes: &[u8]) -> Binding {
    Binding {
        index_url: index.document().bundle.source_url.clone(),
        index_sha256: sha256_hex(index_bytes),
    }
}

/// Assembles with the engine (the only assembler) and parses the package it wrote; `context`
/// names the run in errors.
pub(crate) fn assemble_package(
    index: &ContextIndex,
    question: &str,
    budget: &Budget,
    binding: Option<&Binding>,
    context: &str,
) -> Result<(Assembled, Value), EvalError> {
    let assembled =
        assemble(index, question, budget, binding).map_err(|e| EvalError::engine(context, e))?;
    let package = serde_json::from_str(&assembled.json).map_err(|e| EvalError::Package {
        context: context.to_owned(),
        message: e.to_string(),
    })?;
    Ok((assembled, package))
}

/// The positive case run: the package the engine assembled and its assessment.
#[derive(Debug, Clone, PartialEq)]
pub struct CaseRun {
    /// The assessment, A to H.
    pub assessment: Assessment,
    /// The package's `context_id`.
    pub context_id: String,
    /// The package's evidence status.
    pub evidence_status: String,
    /// The binding the package was assembled with.
    pub binding: Binding,
    /// The budget the package was assembled with.
    pub budget: Budget,
    /// The package itself.
    pub package: Value,
}

/// Assembles the case question with `budget` and `binding` and assesses the package, with
/// `binding.index_sha256` as the binding override (spec §3 steps 5–7).
pub fn run_case(
    index: &ContextIndex,
    case: &Case,
    budget: &Budget,
    binding: &Binding,
) -> Result<CaseRun, EvalError> {
    let (assembled, package) = assemble_package(
        index,
        &case.question,
        budget,
        Some(binding),
        &format!("case {}", case.id),
    )?;
    let mut assessment = assess(&package, case, index, Some(&binding.index_sha256));
    if let Some(review) = &case.expected.review {
        let options = AssembleOptions {
            regime_profile: true,
            ..AssembleOptions::default()
        };
        let context = format!("case {} (review)", case.id);
        let reviewed =
            assemble_with_options(index, &case.question, budget, Some(binding), &options)
                .map_err(|e| EvalError::engine(&context, e))?;
        let reviewed: Value =
            serde_json::from_str(&reviewed.json).map_err(|e| EvalError::Package {
                context,
                message: e.to_string(),
            })?;
        assessment.push_stage(StageId::R, review::checks(&reviewed, review));
    }
    Ok(CaseRun {
        assessment,
        context_id: assembled.context_id,
        evidence_status: assembled.evidence_status.as_str().to_owned(),
        binding: binding.clone(),
        budget: *budget,
        package,
    })
}

/// A whole evaluation: the positive case and, when given, its controls.
#[derive(Debug, Clone, PartialEq)]
pub struct EvalReport {
    /// `passed` when the case and every control passed.
    pub status: Status,
    /// The positive case.
    pub case: CaseRun,
    /// The controls, in manifest order (empty without a manifest).
    pub controls: Vec<ControlResult>,
}

/// Runs the case and then every control of `controls` (spec §3, §4).
///
/// Errors are unusable input (an engine refusal, a mutation that cannot be applied); failed
/// expectations are reported in the result, never as errors.
pub fn evaluate(
    index: &ContextIndex,
    case: &Case,
    controls: Option<&Controls>,
    budget: &Budget,
    binding: &Binding,
) -> Result<EvalReport, EvalError> {
    let case_run = run_case(index, case, budget, binding)?;
    let controls = controls
        .map(|m| {
            m.controls
                .iter()
                .map(|c| run_control(index, case, c))
                .collect::<Result<Vec<_>, _>>()
        })
        .transpose()?
        .unwrap_or_default();
    let status = Status::from_bool(
        case_run.assessment.status.passed() && controls.iter().all(|c| c.status.passed()),
    );
    Ok(EvalReport {
        status,
        case: case_run,
        controls,
    })
}
