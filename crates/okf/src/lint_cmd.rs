//! `okf lint`: authoring checks over an index (see `okf_eval::lint`). Exit 1 if any finding is
//! an error, 2 for an index the engine refuses.

use crate::{CliError, print, read};
use clap::Args;
use okf_engine::ContextIndex;
use okf_eval::{lint, report};
use std::path::PathBuf;

#[derive(Args)]
pub(crate) struct LintArgs {
    /// Index file (okf-context-index.v1).
    #[arg(long)]
    index: PathBuf,
    /// Print the JSON report instead of the table.
    #[arg(long)]
    json: bool,
}

pub(crate) fn run(args: &LintArgs) -> Result<(), CliError> {
    let index = ContextIndex::from_json_slice(&read(&args.index)?)?;
    let report = lint(&index);
    if args.json {
        print(&report::lint_json(&report).to_string())?;
    } else {
        print(&report::lint_table(&report))?;
    }
    if report.has_errors() {
        return Err(CliError::Failed(format!(
            "lint found {} error(s)",
            report.count(okf_eval::Severity::Error)
        )));
    }
    Ok(())
}
