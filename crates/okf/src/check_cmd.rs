//! `okf check-answer`: checks an AI's answer (okf-grounded-answer.v1) against the package it
//! was written from and prints the report (okf-answer-check.v1): canonical JSON to a pipe, a
//! file or with `--json`, a summary on a terminal. The package is a file (`--package`, verified
//! first) or replayed from the question (`--question`, with `okf ask`'s source, budget and
//! binding flags). Exit 0 grounded, 1 not grounded, 2 bad input (not JSON, not an answer, or a
//! package that does not verify).

use crate::explain_cmd::check_shape;
use crate::{CliError, print, read, read_package};
use clap::Args;
use okf_engine::{check_identity, package_identity};
use serde_json::Value;
use std::fmt::Write as _;
use std::io::IsTerminal;
use std::path::PathBuf;

#[derive(Args)]
pub(crate) struct CheckArgs {
    /// The package the answer was written from (okf-governed-context.v1).
    #[arg(
        long,
        required_unless_present = "question",
        conflicts_with = "question"
    )]
    package: Option<PathBuf>,
    /// Instead of --package: the question whose package is assembled again, as `okf ask`
    /// would (from --index, --corpus or the embedded example, with the same budget and binding
    /// flags).
    #[arg(long)]
    question: Option<String>,
    /// With --question: the date the question is about (YYYY-MM-DD), as `okf ask --as-of`.
    #[arg(long, requires = "question")]
    as_of: Option<String>,
    /// With --question: the richer package profile, as `okf ask --regime-profile`.
    #[arg(long, requires = "question")]
    regime_profile: bool,
    #[command(flatten)]
    source: crate::Source,
    /// The answer (okf-grounded-answer.v1).
    answer: PathBuf,
    /// Print the report as canonical JSON even on a terminal.
    #[arg(long)]
    json: bool,
}

/// The package to check against: the file, verified, or the question's package replayed.
fn package_of(args: &CheckArgs) -> Result<Value, CliError> {
    let Some(path) = &args.package else {
        let question = args.question.as_deref().unwrap_or_default();
        let built = crate::ask_cmd::build_package(
            &args.source,
            question,
            args.as_of.as_deref(),
            args.regime_profile,
        )?;
        return serde_json::from_str(&built.json)
            .map_err(|e| CliError::Input(format!("the replayed package: {e}")));
    };
    let package = read_package(path)?;
    check_shape(&package)?;
    // An answer is only ever checked against the package its identity says it is.
    let computed = package_identity(&package)?;
    check_identity(&package, &computed).map_err(|e| {
        CliError::Input(format!(
            "{} does not verify ({e}): it is not the package its context_id names, so no answer can be checked against it",
            path.display()
        ))
    })?;
    Ok(package)
}

pub(crate) fn run(args: &CheckArgs) -> Result<(), CliError> {
    let package = package_of(args)?;
    let answer: Value = serde_json::from_slice(&read(&args.answer)?)
        .map_err(|e| CliError::Input(format!("{}: not JSON: {e}", args.answer.display())))?;
    let report = okf_grounding::check_json(&package, &answer)
        .map_err(|e| CliError::Input(format!("{}: {e}", args.answer.display())))?;
    let value: Value = serde_json::from_str(&report).unwrap_or_default();
    if args.json || !std::io::stdout().is_terminal() {
        print(&report)?;
    } else {
        print(&summary(&value))?;
    }
    match value["verdict"].as_str() {
        Some("grounded") => Ok(()),
        _ => Err(CliError::Failed(format!(
            "the answer is not grounded in its package: {}",
            crate::ask_cmd::plain(&codes(&value["errors"]))
        ))),
    }
}

fn codes(list: &Value) -> String {
    let all: Vec<&str> = list
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    all.join(", ")
}

/// What a person at a terminal reads: the verdict, then each claim and each branch.
fn summary(report: &Value) -> String {
    let mut out = String::new();
    let grounded = report["verdict"] == "grounded";
    let _ = writeln!(
        out,
        "{}",
        if grounded {
            "Grounded: every citation quotes whole sentences of a selected record exactly, every branch is covered and the status matches."
        } else {
            "NOT grounded."
        }
    );
    if !grounded {
        let _ = writeln!(out, "Problems: {}", codes(&report["errors"]));
    }
    let status = &report["status"];
    let _ = writeln!(
        out,
        "Status: the answer assumes {}, the package is {}.",
        crate::ask_cmd::text(status, "answer"),
        crate::ask_cmd::text(status, "package")
    );
    for claim in report["claims"].as_array().into_iter().flatten() {
        let errors = codes(&claim["errors"]);
        let _ = writeln!(
            out,
            "  claim {}: {}",
            crate::ask_cmd::text(claim, "id"),
            if errors.is_empty() {
                "ok".to_owned()
            } else {
                errors
            }
        );
    }
    for r in report["requirements"].as_array().into_iter().flatten() {
        let _ = writeln!(
            out,
            "  branch {}: {}",
            crate::ask_cmd::text(r, "id"),
            if r["covered"] == true {
                format!("covered by {}", codes(&r["covered_by"]))
            } else {
                "not covered".to_owned()
            }
        );
    }
    let _ = write!(out, "The report as JSON: okf check-answer --json.");
    out
}
