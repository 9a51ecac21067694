//! A first evaluation case drafted from a package: every expectation is what that package
//! holds (concepts, evidence sources with their digests, requirement paths, status), for the
//! author to cut down to what the guidance requires. The draft is checked as a case is.

use crate::case::{CASE_SCHEMA, Case};
use crate::error::EvalError;
use serde_json::{Value, json};

fn ids_where(items: &Value, keep: impl Fn(&Value) -> bool) -> Vec<Value> {
    items
        .as_array()
        .into_iter()
        .flatten()
        .filter(|item| keep(item))
        .filter_map(|item| item.get("id").cloned())
        .collect()
}

/// The case drafted from `package` (an `okf-governed-context.v1` package's JSON), as JSON
/// with its members in a fixed order, and the case it decodes to.
pub fn draft_case(package: &Value) -> Result<(Value, Case), EvalError> {
    let records: Vec<&Value> = package["selected"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|s| s.get("record"))
        .collect();
    let of_kind = |kind: &str| -> Vec<Value> {
        records
            .iter()
            .filter(|r| r["kind"] == kind)
            .filter_map(|r| r.get("id").cloned())
            .collect()
    };
    // A source is an evidence record whose first provenance row pins its text.
    let sources: Vec<Value> = records
        .iter()
        .filter(|r| r["kind"] == "evidence")
        .filter_map(|r| {
            let row = r["provenance"].get(0)?;
            Some(json!({
                "record_id": r["id"], "route": r["route"], "source_sha256": row["source_sha256"],
                "locator": row["locator"], "literal_sha256": row.get("literal_sha256")?, "url": row["url"],
            }))
        })
        .collect();
    let paths: Vec<Value> = package["requirements"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|r| r["required_paths"].as_array().cloned().unwrap_or_default())
        .collect();
    let context_id = package["context_id"].as_str().unwrap_or_default();
    let digest = context_id.trim_start_matches("urn:sha256:");
    let draft = json!({
        "schema": CASE_SCHEMA,
        "id": format!("draft-{}", &digest[..digest.len().min(12)]),
        "title": format!("Draft: {}", package["question"].as_str().unwrap_or_default()),
        "question": package["question"],
        "description": format!("Drafted by okf eval --draft-from from package {context_id}: every expectation is what that package holds. Keep what the guidance requires, remove what is incidental, and add the records that must not be selected."),
        "scope": package["scope"],
        "fixture_kind": "source-backed",
        "expected": {
            "resolved_concepts": ids_where(&package["resolved_concepts"], |_| true),
            "selected_concepts": of_kind("concept"),
            "sources": sources,
            "assertions": [],
            "paths": paths,
            "evidence": of_kind("evidence"),
            "forbidden_records": [],
            "requirements": ids_where(&package["requirements"], |_| true),
            "issues": [],
            "boundaries": [],
            "evidence_status": package["evidence_status"],
            "ambiguity_phrases": package["ambiguities"].as_array().into_iter().flatten().filter_map(|a| a.get("phrase").cloned()).collect::<Vec<_>>(),
            "unresolved_terms": package["unresolved_terms"],
        },
        "limitations": ["A draft: it pins what one package held, not yet what the guidance requires."],
    });
    let bytes = serde_json::to_vec(&draft).map_err(|e| EvalError::Shape {
        what: "case",
        path: ".".into(),
        message: e.to_string(),
    })?;
    let case = Case::from_slice(&bytes)?;
    Ok((draft, case))
}
