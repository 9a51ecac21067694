//! `okf explain`: the explanation view of a package (spec §1.5), after checking that the file
//! is a package (its shape) and that it is the package its identity says (`context_id` and
//! `budget.used_bytes` recomputed). A package altered after assembly is refused with a loud
//! message (exit 1) unless `--allow-unverified`; a record the package does not mention at all
//! is refused by name (exit 2). A person at a terminal gets a short summary (the package's,
//! or the record's: why it was selected, by which path, what names it); `--json`, a pipe or a
//! file get the explanation view as JSON.

use crate::ask_cmd::{items, plain, text};
use crate::{CliError, print, read_package};
use clap::Args;
use okf_engine::{Error, PackageRule, check_identity, explain, package_identity};
use serde_json::Value;
use std::fmt::Write as _;
use std::io::IsTerminal;
use std::path::PathBuf;

#[derive(Args)]
pub(crate) struct ExplainArgs {
    /// Package JSON file (okf-governed-context.v1).
    package: PathBuf,
    /// Record id to explain (selected, or named by a missing-evidence issue or routing guard).
    #[arg(long)]
    record: Option<String>,
    /// Explain a package whose context_id or used_bytes do not verify (still warns).
    #[arg(long)]
    allow_unverified: bool,
    /// Print the explanation view as JSON even on a terminal (what a pipe or file always gets).
    #[arg(long)]
    json: bool,
}

/// Whether a JSON value has the type a field needs.
type IsType = fn(&Value) -> bool;

/// The top-level fields an explanation reads, with the JSON type each must have.
const SHAPE: [(&str, IsType); 7] = [
    ("context_id", Value::is_string),
    ("evidence_status", Value::is_string),
    ("question", Value::is_string),
    ("selected", Value::is_array),
    ("relationships", Value::is_array),
    ("missing_evidence", Value::is_array),
    ("budget", Value::is_object),
];

/// Refuses a document that is not an `okf-governed-context.v1` package, naming the field.
pub(crate) fn check_shape(value: &Value) -> Result<(), CliError> {
    let package = |rule| CliError::Engine(Error::Package(rule));
    if !value.is_object() {
        return Err(CliError::Input(
            "not a package: an okf-governed-context.v1 package is a JSON object".into(),
        ));
    }
    if value.get("schema").and_then(Value::as_str) != Some(okf_engine::PACKAGE_SCHEMA) {
        return Err(package(PackageRule::UnsupportedSchema));
    }
    if let Some((field, _)) = SHAPE
        .iter()
        .find(|(field, is_type)| !value.get(*field).is_some_and(is_type))
    {
        return Err(package(PackageRule::MissingField(field)));
    }
    if value.get("ai_answer") != Some(&Value::Null) {
        return Err(package(PackageRule::AiAnswerNotNull));
    }
    Ok(())
}

/// Whether a record view says anything: the record is selected, or an issue or guard names it.
fn mentions(view: &Value) -> bool {
    let non_empty = |key: &str| {
        view.get(key)
            .and_then(Value::as_array)
            .is_some_and(|a| !a.is_empty())
    };
    !view.get("item").is_none_or(Value::is_null)
        || non_empty("missing_evidence")
        || non_empty("routing_guards")
}

pub(crate) fn run(args: &ExplainArgs) -> Result<(), CliError> {
    let value = read_package(&args.package)?;
    check_shape(&value)?;
    let computed = package_identity(&value)?;
    if let Err(e) = check_identity(&value, &computed) {
        let warning = format!(
            "WARNING: {} does not verify: {e}. It is not the package its context_id names \
             (altered after assembly?).",
            args.package.display()
        );
        if !args.allow_unverified {
            return Err(CliError::Verification(format!(
                "{warning} Refusing to explain it; pass --allow-unverified to explain it anyway."
            )));
        }
        eprintln!("okf: {warning} Explaining it anyway (--allow-unverified).");
    }
    let view = explain(&value, args.record.as_deref());
    if let Some(record) = &args.record
        && !mentions(&view)
    {
        return Err(CliError::Input(format!(
            "record {record:?} is not in this package: it is not selected and no missing-evidence \
             issue or routing guard names it"
        )));
    }
    match (&args.record, args.json || !std::io::stdout().is_terminal()) {
        (_, true) => print(&crate::pretty(&view)),
        (None, false) => print(&format!(
            "{}\n{CLOSING}",
            crate::ask_cmd::package_lines(&view)
        )),
        (Some(_), false) => print(&record_summary(&view)),
    }
}

/// A short human summary of one record's explanation: what the record is, whether and why it
/// was selected (reasons and paths), and the routing guards and issues that name it.
fn record_summary(view: &Value) -> String {
    let mut out = String::new();
    let item = view.get("item").unwrap_or(&Value::Null);
    let record = item.get("record").unwrap_or(&Value::Null);
    let _ = writeln!(out, "evidence_status  {}", text(view, "evidence_status"));
    let _ = writeln!(out, "context_id       {}", text(view, "context_id"));
    if record.is_null() {
        let _ = writeln!(
            out,
            "selected         no: the package names this record without selecting it"
        );
    } else {
        let _ = writeln!(
            out,
            "record           {} ({}, {})",
            text(record, "label"),
            text(record, "kind"),
            text(record, "access")
        );
        let _ = writeln!(out, "id               {}", text(record, "id"));
        for source in items(record, "provenance") {
            let _ = writeln!(
                out,
                "source           {} ({})",
                text(source, "url"),
                text(source, "locator")
            );
        }
        for reason in items(item, "reasons").iter().filter_map(Value::as_str) {
            let _ = writeln!(out, "selected because {}", plain(reason));
        }
        for path in items(item, "paths") {
            let hops: Vec<String> = items(path, "records")
                .iter()
                .filter_map(Value::as_str)
                .map(plain)
                .collect();
            let _ = writeln!(out, "path             {}", hops.join(" -> "));
        }
    }
    for guard in items(view, "routing_guards") {
        let missing: Vec<String> = items(guard, "missing_concepts")
            .iter()
            .filter_map(Value::as_str)
            .map(plain)
            .collect();
        let _ = writeln!(
            out,
            "routing guard    {} ({}){}",
            text(guard, "assertion_id"),
            text(guard, "status"),
            if missing.is_empty() {
                String::new()
            } else {
                format!(", missing {}", missing.join(", "))
            }
        );
    }
    let issues = items(view, "missing_evidence");
    if !issues.is_empty() {
        let _ = writeln!(out, "\nmissing evidence naming it ({}):", issues.len());
        for issue in issues {
            let _ = writeln!(out, "  {}: {}", text(issue, "code"), text(issue, "message"));
        }
    }
    let _ = write!(out, "\n{CLOSING}");
    out
}

/// The last line of a terminal summary.
const CLOSING: &str = "ai_answer is null: this is evidence, not an answer. The whole view as JSON: add --json (what a pipe or file receives).";

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn shape_check_names_the_first_missing_field() {
        let mut value = json!({"schema": okf_engine::PACKAGE_SCHEMA});
        let err = check_shape(&value).err().map(|e| e.to_string());
        assert!(
            err.as_deref().is_some_and(|e| e.contains("`context_id`")),
            "{err:?}"
        );
        value["context_id"] = json!("urn:sha256:0");
        value["evidence_status"] = json!("sufficient");
        value["question"] = json!("q");
        value["selected"] = json!({});
        let err = check_shape(&value).err().map(|e| e.to_string());
        assert!(
            err.as_deref().is_some_and(|e| e.contains("`selected`")),
            "{err:?}"
        );
    }

    #[test]
    fn a_record_summary_says_what_it_is_why_it_was_selected_and_by_which_path() {
        let index = okf_engine::ContextIndex::from_json_str(crate::example::INDEX_JSON)
            .unwrap_or_else(|e| panic!("example index: {e}"));
        let package = okf_engine::assemble(
            &index,
            "How do I borrow books?",
            &okf_engine::Budget::default(),
            None,
        )
        .unwrap_or_else(|e| panic!("assemble: {e}"));
        let package: Value =
            serde_json::from_str(&package.json).unwrap_or_else(|e| panic!("package: {e}"));
        let id = "https://example.org/okf-example/evidence/lending-rules";
        let summary = record_summary(&explain(&package, Some(id)));
        for expected in [
            "record           Loan limits, loan period and renewals (evidence, public)",
            "source           https://example.org/okf-example/sources/lending-policy.html (Section 3 (Loans))",
            "selected because Reached by following",
            "path             https://example.org/okf-example/concept/borrowing -> https://example.org/okf-example/evidence/lending-rules",
            "not an answer",
        ] {
            assert!(summary.contains(expected), "{expected:?} in\n{summary}");
        }
        let unnamed = record_summary(&explain(&package, Some("https://example.org/nothing")));
        assert!(unnamed.contains("selected         no"), "{unnamed}");
    }

    #[test]
    fn shape_check_refuses_non_objects_and_other_schemas() {
        for doc in [
            json!([1, 2]),
            json!("x"),
            json!({}),
            json!({"schema": "other"}),
        ] {
            assert!(check_shape(&doc).is_err(), "{doc}");
        }
    }
}
