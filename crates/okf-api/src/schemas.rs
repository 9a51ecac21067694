//! The published request and response JSON Schemas (this project's own, under `schemas/`).

use crate::format::{DATE_PATTERN, LOGICAL_ID_PATTERN, NOT_BLANK_PATTERN};
use serde_json::{Map, Value, json};

/// Schema files served under `/schemas/<name>`, embedded at build time.
pub const FILES: [(&str, &str); 13] = [
    (
        "package.schema.json",
        include_str!("../../../schemas/package.schema.json"),
    ),
    (
        "ask-request.schema.json",
        include_str!("../../../schemas/ask-request.schema.json"),
    ),
    (
        "error.schema.json",
        include_str!("../../../schemas/error.schema.json"),
    ),
    (
        "bundles.schema.json",
        include_str!("../../../schemas/bundles.schema.json"),
    ),
    (
        "health.schema.json",
        include_str!("../../../schemas/health.schema.json"),
    ),
    (
        "catalogue.schema.json",
        include_str!("../../../schemas/catalogue.schema.json"),
    ),
    (
        "read.schema.json",
        include_str!("../../../schemas/read.schema.json"),
    ),
    (
        "explain.schema.json",
        include_str!("../../../schemas/explain.schema.json"),
    ),
    (
        "execution.schema.json",
        include_str!("../../../schemas/execution.schema.json"),
    ),
    (
        "answer-check.schema.json",
        include_str!("../../../schemas/answer-check.schema.json"),
    ),
    (
        "workbench-case.schema.json",
        include_str!("../../../schemas/workbench-case.schema.json"),
    ),
    (
        "review-decision.schema.json",
        include_str!("../../../schemas/review-decision.schema.json"),
    ),
    (
        "evaluation-case.schema.json",
        include_str!("../../../schemas/evaluation-case.schema.json"),
    ),
];

/// The text of a published schema.
pub fn text(name: &str) -> Option<&'static str> {
    FILES.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
}

fn parsed(name: &str) -> Value {
    // The files are part of the build and checked by tests; an unparsable one yields an
    // empty schema rather than a panic.
    text(name)
        .and_then(|t| serde_json::from_str(t).ok())
        .unwrap_or(Value::Object(serde_json::Map::new()))
}

/// The package schema (object root), used as `ask_okf`'s `outputSchema`.
pub fn package() -> Value {
    parsed("package.schema.json")
}

/// A schema's `type` with `null` allowed: strict function-calling clients send every optional
/// field, as null when they mean absent, and the decoders read null as absent.
fn or_null(kind: &str) -> Value {
    json!([kind, "null"])
}

/// The ask request schema (`POST /api/ask`, and `ask_okf`'s `inputSchema`), built from the
/// contract's own rules; `schemas/ask-request.schema.json` is this value, written by
/// `cargo run -p okf-api --example generate-contract`, and a test fails when the two differ.
pub fn ask_request() -> Value {
    let defaults = okf_engine::Budget::default();
    let budget = budget_properties(&or_null("integer"));
    let max_question = okf_engine::MAX_QUESTION_UNITS;
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://ask-okf.invalid/schemas/ask-request.schema.json",
        "title": "Ask OKF request (POST /api/ask)",
        "description": "Asks for the evidence package of one question against one registered bundle. Every optional field may be omitted or given as null (strict function-calling clients send every field); both mean absent.",
        "type": "object",
        "additionalProperties": false,
        "required": ["bundle", "question"],
        "properties": {
            "bundle": {"$ref": "#/$defs/slug", "description": "Registered bundle id, e.g. dwp-dmg."},
            "version": version_field(&or_null("string"), "omitted or null"),
            "question": {
                "type": "string",
                "minLength": 1,
                "maxLength": max_question,
                "pattern": NOT_BLANK_PATTERN,
                "description": format!("The question ({} UTF-16 code units at most).", thousands(max_question)),
            },
            "as_of": as_of_field(&or_null("string"), "Omitted or null"),
            "budget": {
                "type": or_null("object"),
                "additionalProperties": false,
                "properties": budget,
                "description": format!(
                    "Optional limits; omitted or null keys take the defaults ({} nodes, {} relationships, depth {}, {} bytes).",
                    defaults.max_nodes, defaults.max_relationships, defaults.max_depth, defaults.max_bytes
                ),
            },
            "profile": profile_field(&or_null("string"), &[json!(crate::request::REGIMES_PROFILE), Value::Null], "Omitted or null"),
        },
        "$defs": {
            "slug": {
                "type": "string",
                "pattern": LOGICAL_ID_PATTERN,
                "description": "Lowercase registry name: a letter or digit, then up to 63 of a-z 0-9 . _ -.",
            },
        },
    })
}

/// The `profile` field of a build request, of JSON Schema type `kind` with the values
/// `values`; `absent` says how a caller leaves it out.
pub(crate) fn profile_field(kind: &Value, values: &[Value], absent: &str) -> Value {
    json!({
        "type": kind,
        "enum": values,
        "description": format!("Optional: \"{}\" writes the richer profile. {absent}: the bundle's registry setting.", crate::request::REGIMES_PROFILE),
    })
}

/// The `version` field of a build request, of JSON Schema type `kind`; `absent` says how a
/// caller leaves it out.
pub(crate) fn version_field(kind: &Value, absent: &str) -> Value {
    json!({
        "type": kind,
        "pattern": LOGICAL_ID_PATTERN,
        "description": format!("Bundle version name; {absent}: the one in force on as_of, else the default."),
    })
}

/// The `as_of` field of a build request, of JSON Schema type `kind`; `absent` says how a caller
/// leaves it out.
pub(crate) fn as_of_field(kind: &Value, absent: &str) -> Value {
    json!({
        "type": kind,
        "format": "date",
        "pattern": DATE_PATTERN,
        "description": format!("Optional date (YYYY-MM-DD) the question is about: regimes not then in force are left out; with no version it picks the one in force. {absent}: none."),
    })
}

/// The four budget fields with the engine's ranges, each of JSON Schema type `kind`.
pub(crate) fn budget_properties(kind: &Value) -> Map<String, Value> {
    okf_engine::BUDGET_RANGES
        .iter()
        .map(|(key, minimum, maximum)| {
            let range = json!({"type": kind, "minimum": minimum, "maximum": maximum});
            ((*key).to_owned(), range)
        })
        .collect()
}

/// A `record_id` field: 1 to [`crate::limits::MAX_RECORD_ID_CHARS`] characters.
pub(crate) fn record_id_field(description: &str) -> Value {
    json!({"type": "string", "minLength": 1, "maxLength": crate::limits::MAX_RECORD_ID_CHARS, "description": description})
}

/// A `context_id` field: [`crate::format::CONTEXT_ID_PATTERN`].
pub(crate) fn context_id_field(description: &str) -> Value {
    json!({"type": "string", "pattern": crate::format::CONTEXT_ID_PATTERN, "description": description})
}

/// An `offset` field: 0 to [`crate::limits::MAX_OFFSET`].
pub(crate) fn offset_field(description: &str) -> Value {
    json!({"type": "integer", "minimum": 0, "maximum": crate::limits::MAX_OFFSET, "description": description})
}

/// `n` with a comma between each group of three digits, as the descriptions write numbers.
fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

/// A published schema as its committed file is written: pretty JSON and a final newline.
pub fn file_text(schema: &Value) -> String {
    // Serialising a `Value` cannot fail (its keys are strings).
    let mut text = serde_json::to_string_pretty(schema).unwrap_or_default();
    text.push('\n');
    text
}

/// The catalogue page schema, used as `ask_okf_manifest`'s `outputSchema`.
pub fn catalogue() -> Value {
    parsed("catalogue.schema.json")
}

/// The read envelope schema, used as `read_okf_evidence`'s `outputSchema`.
pub fn read() -> Value {
    parsed("read.schema.json")
}

/// The answer check report schema, used as `okf_check_answer`'s `outputSchema`.
pub fn answer_check() -> Value {
    parsed("answer-check.schema.json")
}

/// The workbench case schema, used as `okf_workbench_case`'s `outputSchema`.
pub fn workbench_case() -> Value {
    parsed("workbench-case.schema.json")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptions_group_digits_in_threes() {
        assert_eq!(thousands(7), "7");
        assert_eq!(thousands(4_000), "4,000");
        assert_eq!(thousands(524_288), "524,288");
        assert_eq!(thousands(1_000_000), "1,000,000");
    }
}
