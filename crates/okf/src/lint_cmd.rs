//! `okf lint`: authoring checks over an index (see `okf_eval::lint`). Exit 1 if any finding is
//! an error, 2 for an index the engine refuses.

use crate::{CliError, print, read};
use clap::Args;
use okf_engine::ContextIndex;
use okf_eval::{CapturedPage, ReviewClaim, lint_reviewed, report};
use std::path::PathBuf;

#[derive(Args)]
pub(crate) struct LintArgs {
    /// Index file (okf-context-index.v1).
    #[arg(long)]
    index: PathBuf,
    /// Captured page files (`*.json`, searched recursively): also check that each
    /// requirement requires the captured paragraphs its cited text refers to.
    #[arg(long)]
    sources: Option<PathBuf>,
    /// Folder of review decision files (okf-review-decision.v1, *.json), such as a profile's
    /// reviews/: also report decisions that are stale, name no item, conflict, or are not yet
    /// recorded in the index. Without it, the reviews the index records are checked.
    #[arg(long)]
    reviews: Option<PathBuf>,
    /// Print the JSON report instead of the table.
    #[arg(long)]
    json: bool,
}

pub(crate) fn run(args: &LintArgs) -> Result<(), CliError> {
    let index = ContextIndex::from_json_slice(&read(&args.index)?)?;
    let captures = match &args.sources {
        Some(dir) => captured_pages(dir)?,
        None => Vec::new(),
    };
    let claims = match &args.reviews {
        Some(dir) => Some(
            crate::build_cmd::review_files(dir, false)?
                .iter()
                .map(|f| {
                    okf_authoring::decode_decision(f).map(|d| ReviewClaim {
                        file: d.file,
                        item: d.item,
                        item_sha256: d.item_sha256,
                    })
                })
                .collect::<Result<Vec<_>, _>>()?,
        ),
        None => None,
    };
    let report = lint_reviewed(&index, &captures, claims.as_deref());
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

/// Every page of every capture file under `dir`, read and checked as `okf build` reads them.
fn captured_pages(dir: &std::path::Path) -> Result<Vec<CapturedPage>, CliError> {
    let mut files = Vec::new();
    crate::build_cmd::captures(dir, &mut files)?;
    let pages = okf_authoring::captured_pages(&files)?;
    Ok(pages
        .into_iter()
        .map(|(label, text)| CapturedPage { label, text })
        .collect())
}
