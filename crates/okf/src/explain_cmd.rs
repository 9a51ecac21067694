//! `okf explain`: the explanation view of a package (spec §1.5), after checking that the file
//! is a package (its shape) and that it is the package its identity says (`context_id` and
//! `budget.used_bytes` recomputed). A package altered after assembly is refused with a loud
//! message (exit 1) unless `--allow-unverified`; a record the package does not mention at all
//! is refused by name (exit 2).

use crate::{CliError, print, read_package};
use clap::Args;
use okf_engine::{Error, PackageRule, check_identity, explain, package_identity};
use serde_json::Value;
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
    print(&crate::pretty(&view))
}

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
