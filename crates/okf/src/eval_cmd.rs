//! `okf eval`: run an evaluation case (and its mutation controls) against an index, or derive
//! controls from the index itself with `--self-check`. All judging is done by `okf-eval`; this
//! module reads the files and prints the report.
//!
//! Exit codes: 0 everything passed, 1 an expectation failed, 2 unusable input.

use crate::{CliError, print, read};
use clap::{ArgGroup, Args};
use okf_engine::ContextIndex;
use okf_eval::{Case, Controls, evaluate, raw_binding, report, self_check};
use std::path::PathBuf;

#[derive(Args)]
// One of --case and --self-check, so a bare `okf eval --index X` names both.
#[command(group(ArgGroup::new("mode").required(true).args(["case", "self_check", "draft_from"])))]
pub(crate) struct EvalArgs {
    /// Index file (okf-context-index.v1).
    #[arg(long)]
    index: PathBuf,
    /// Evaluation case (okf-context-evaluation-case.v1).
    #[arg(long)]
    case: Option<PathBuf>,
    /// Mutation controls (okf-context-evaluation-controls.v1) run against the case.
    #[arg(long, requires = "case")]
    controls: Option<PathBuf>,
    /// Derive controls from the index's own requirements instead of reading a case.
    #[arg(long, conflicts_with_all = ["max_nodes", "max_relationships", "max_depth", "max_bytes"])]
    self_check: bool,
    /// Draft a case from a package of this index (every expectation what it holds), write it
    /// to --out, and run it: a first case for the author to cut down.
    #[arg(long, requires = "out")]
    draft_from: Option<PathBuf>,
    /// Where --draft-from writes the case.
    #[arg(long, requires = "draft_from")]
    out: Option<PathBuf>,
    /// Print the JSON report instead of the table.
    #[arg(long)]
    json: bool,
    /// The budget of a case run (a self-check uses each requirement's own).
    #[command(flatten)]
    budget: crate::BudgetArgs,
}

pub(crate) fn run(args: &EvalArgs) -> Result<(), CliError> {
    let bytes = read(&args.index)?;
    let index = ContextIndex::from_json_slice(&bytes)?;
    let emit = |json: serde_json::Value, table: String| {
        if args.json {
            print(&json.to_string())
        } else {
            print(&table)
        }
    };
    // clap makes exactly one of --case, --self-check and --draft-from present (`mode`).
    let case = match (&args.case, &args.draft_from, &args.out) {
        (Some(path), _, _) => Some(Case::from_slice(&read(path)?)?),
        (None, Some(package), Some(out)) => {
            let package: serde_json::Value = serde_json::from_slice(&read(package)?)
                .map_err(|e| CliError::Failed(format!("{}: not JSON: {e}", package.display())))?;
            let (draft, case) = okf_eval::draft_case(&package)?;
            let text = serde_json::to_string_pretty(&draft).unwrap_or_default() + "\n";
            crate::staged::write_file(out, text.as_bytes())?;
            eprintln!("{}: drafted from the package; running it", out.display());
            Some(case)
        }
        _ => None,
    };
    let Some(case) = case else {
        let report = self_check(&index)?;
        emit(
            report::self_check_json(&report),
            report::self_check_table(&report),
        )?;
        let open = report.not_fail_closed();
        if !open.is_empty() {
            return Err(CliError::Failed(format!(
                "self-check failed: {} requirement(s) not fail-closed",
                open.len()
            )));
        }
        return Ok(());
    };
    let controls = match &args.controls {
        Some(path) => Some(Controls::from_slice(&read(path)?)?),
        None => None,
    };
    let budget = args.budget.budget()?;
    let binding = raw_binding(&index, &bytes);
    let report = evaluate(&index, &case, controls.as_ref(), &budget, &binding)?;
    emit(report::eval_json(&report), report::eval_table(&report))?;
    if !report.status.passed() {
        let failed_checks = report.case.assessment.failed_checks().count();
        let failed_controls = report
            .controls
            .iter()
            .filter(|c| !c.status.passed())
            .count();
        return Err(CliError::Failed(format!(
            "evaluation failed: {failed_checks} case check(s) and {failed_controls} control(s) failed"
        )));
    }
    Ok(())
}
