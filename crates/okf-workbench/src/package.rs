//! Verified loading of a retained package from one file or from parts (spec §1.3), the
//! stored-package gate (through okf-delivery), structural validation and the public-scope gate.

use crate::error::WorkbenchError;
use crate::manifest::{Case, MAX_PACKAGE_BYTES, MAX_PART_BYTES, utf16_len};
use crate::ports::{LoadFailure, Loader};
use okf_engine::canonical::{MAX_SAFE_INTEGER, sha256_hex};
use serde_json::Value;

/// A loader's failure for `path` as this crate's error.
fn load_error(path: &str, failure: LoadFailure) -> WorkbenchError {
    match failure {
        LoadFailure::Unavailable(reason) => WorkbenchError::Unavailable {
            path: path.to_owned(),
            reason,
        },
        LoadFailure::Unverified(rule) => WorkbenchError::package(path, rule),
    }
}

/// Loads and verifies a case's package; returns the parsed package.
pub fn load_package(case: &Case, loader: &dyn Loader) -> Result<Value, WorkbenchError> {
    let pkg = &case.package;
    let context = if pkg.parts.is_empty() {
        let bytes = loader
            .load(&pkg.url, MAX_PACKAGE_BYTES)
            .map_err(|failure| load_error(&pkg.url, failure))?;
        if sha256_hex(&bytes) != pkg.sha256 {
            return Err(WorkbenchError::package(
                &pkg.url,
                "SHA-256 differs from the manifest's package.sha256",
            ));
        }
        let text = String::from_utf8(bytes)
            .map_err(|_| WorkbenchError::package(&pkg.url, "is not UTF-8"))?;
        okf_delivery::Context::from_stored(text, Some(&pkg.sha256))
            .map_err(|e| WorkbenchError::package(&pkg.url, e.to_string()))?
    } else {
        let mut parts = Vec::with_capacity(pkg.parts.len());
        for part in &pkg.parts {
            let bytes = loader
                .load(&part.url, MAX_PART_BYTES)
                .map_err(|failure| load_error(&part.url, failure))?;
            if bytes.len() as u64 != part.bytes {
                return Err(WorkbenchError::package(
                    &part.url,
                    format!(
                        "has {} bytes, the manifest says {}",
                        bytes.len(),
                        part.bytes
                    ),
                ));
            }
            if sha256_hex(&bytes) != part.sha256 {
                return Err(WorkbenchError::package(
                    &part.url,
                    "SHA-256 differs from the manifest's part sha256",
                ));
            }
            parts.push(
                String::from_utf8(bytes)
                    .map_err(|_| WorkbenchError::package(&part.url, "is not UTF-8"))?,
            );
        }
        let refs: Vec<&str> = parts.iter().map(String::as_str).collect();
        // Reconstruction checks every part rule, then runs the stored-package gate.
        okf_delivery::reconstruct(&refs, Some(&pkg.sha256))
            .map_err(|e| WorkbenchError::package(format!("{} parts", case.id), e.to_string()))?
    };
    let value = context
        .value()
        .map_err(|e| WorkbenchError::package(format!("{} package", case.id), e.to_string()))?
        .clone();
    check_structure(&value, &case.question)?;
    Ok(value)
}

fn need<'a>(v: &'a Value, path: &str) -> Result<&'a Value, WorkbenchError> {
    path.split('.')
        .try_fold(v, |cur, key| cur.get(key))
        .ok_or_else(|| WorkbenchError::package(path, "is missing"))
}

fn strings(v: &Value) -> bool {
    v.as_array().is_some_and(|a| a.iter().all(Value::is_string))
}

/// The items of an array field, or none when the field is absent or not an array.
fn items<'a>(p: &'a Value, key: &str) -> &'a [Value] {
    p[key].as_array().map(Vec::as_slice).unwrap_or_default()
}

/// Structural validation of a package against its manifest question (§1.3).
pub fn check_structure(p: &Value, question: &str) -> Result<(), WorkbenchError> {
    check_head(p, question)?;
    check_budget(p)?;
    check_selected(p)?;
    check_listed(p)
}

/// The package's identity fields, the presence of its lists and its evidence status.
fn check_head(p: &Value, question: &str) -> Result<(), WorkbenchError> {
    let bad = |field: &str, rule: &str| Err(WorkbenchError::package(field, rule));
    if need(p, "question")?.as_str() != Some(question) {
        return bad("question", "must equal the manifest question exactly");
    }
    let cid = need(p, "context_id")?.as_str().unwrap_or("");
    if cid.trim().is_empty() || utf16_len(cid) > 300 {
        return bad(
            "context_id",
            "must be a non-blank string of at most 300 units",
        );
    }
    if need(p, "scope")?
        .as_str()
        .is_none_or(|s| s.trim().is_empty())
    {
        return bad("scope", "must be a non-blank string");
    }
    need(p, "bundle.snapshot")?;
    need(p, "binding.index_sha256")?;
    for key in [
        "selected",
        "relationships",
        "requirements",
        "missing_evidence",
        "conflicts",
        "resolved_concepts",
        "ambiguities",
        "unresolved_terms",
        "limitations",
    ] {
        if !need(p, key)?.is_array() {
            return bad(key, "must be an array");
        }
    }
    if !need(p, "budget.omissions")?.is_array() {
        return bad("budget.omissions", "must be an array");
    }
    if !matches!(
        need(p, "evidence_status")?.as_str(),
        Some("sufficient" | "insufficient" | "conflicting")
    ) {
        return bad(
            "evidence_status",
            "must be sufficient, insufficient or conflicting",
        );
    }
    Ok(())
}

/// The budget's limits and usage: non-negative safe integers.
fn check_budget(p: &Value) -> Result<(), WorkbenchError> {
    for key in [
        "max_nodes",
        "max_relationships",
        "max_bytes",
        "used_nodes",
        "used_relationships",
        "used_bytes",
    ] {
        if p["budget"][key]
            .as_u64()
            .is_none_or(|n| n > MAX_SAFE_INTEGER)
        {
            return Err(WorkbenchError::package(
                format!("budget.{key}"),
                "must be a non-negative safe integer",
            ));
        }
    }
    Ok(())
}

/// The size of the selection and each selected item: its record, reasons and paths.
fn check_selected(p: &Value) -> Result<(), WorkbenchError> {
    let selected = items(p, "selected");
    if selected.len() > 1000
        || p["relationships"]
            .as_array()
            .is_some_and(|a| a.len() > 3000)
    {
        return Err(WorkbenchError::package(
            "selected",
            "at most 1000 selected items and 3000 relationships",
        ));
    }
    for (i, item) in selected.iter().enumerate() {
        check_record(&item["record"], &format!("selected[{i}].record"))?;
        if !strings(&item["reasons"]) {
            return Err(WorkbenchError::package(
                format!("selected[{i}].reasons"),
                "must be a string array",
            ));
        }
        if !item["paths"]
            .as_array()
            .is_some_and(|a| a.iter().all(|x| strings(&x["records"])))
        {
            return Err(WorkbenchError::package(
                format!("selected[{i}].paths"),
                "each path needs a string-array records",
            ));
        }
    }
    Ok(())
}

/// A selected record (named `f` in errors): bounded id and label, text and provenance.
fn check_record(r: &Value, f: &str) -> Result<(), WorkbenchError> {
    for key in ["id", "label"] {
        let s = r[key].as_str().unwrap_or("");
        if s.trim().is_empty() || utf16_len(s) > 500 {
            return Err(WorkbenchError::package(
                format!("{f}.{key}"),
                "must be non-blank and at most 500 units",
            ));
        }
    }
    if !r["text"].is_string() {
        return Err(WorkbenchError::package(
            format!("{f}.text"),
            "must be a string",
        ));
    }
    let prov_ok = r["provenance"].as_array().is_some_and(|a| {
        a.iter()
            .all(|e| e["url"].is_string() && e["locator"].is_string())
    });
    if !prov_ok {
        return Err(WorkbenchError::package(
            format!("{f}.provenance"),
            "must be an array of {url, locator} strings",
        ));
    }
    Ok(())
}

/// The entries of the relationship, requirement, diagnostic and concept lists.
fn check_listed(p: &Value) -> Result<(), WorkbenchError> {
    for (i, rel) in items(p, "relationships").iter().enumerate() {
        if !(rel["source"].is_string() && rel["target"].is_string() && rel["label"].is_string()) {
            return Err(WorkbenchError::package(
                format!("relationships[{i}]"),
                "needs string source, target and label",
            ));
        }
    }
    for (i, req) in items(p, "requirements").iter().enumerate() {
        let label_ok = req["label"].as_str().is_some_and(|s| !s.trim().is_empty());
        let lim_ok = req.get("limitations").is_none_or(strings);
        if !label_ok || !strings(&req["missing"]) || !lim_ok {
            return Err(WorkbenchError::package(
                format!("requirements[{i}]"),
                "needs a non-blank label and string-array missing",
            ));
        }
    }
    for key in ["missing_evidence", "conflicts"] {
        for (i, d) in items(p, key).iter().enumerate() {
            let ok = d["code"].is_string() && d["message"].is_string() && strings(&d["ids"]);
            if !ok {
                return Err(WorkbenchError::package(
                    format!("{key}[{i}]"),
                    "must be a diagnostic {code, message, ids[]}",
                ));
            }
        }
    }
    for (i, c) in items(p, "resolved_concepts").iter().enumerate() {
        if !(c["label"].is_string() && strings(&c["matched"]) && c["method"].is_string()) {
            return Err(WorkbenchError::package(
                format!("resolved_concepts[{i}]"),
                "must be a concept {label, matched[], method}",
            ));
        }
    }
    Ok(())
}

/// Why a case's package may not be shown: it cannot be loaded, it failed verification, or it
/// holds non-public evidence (the public-scope gate).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Undisclosable {
    /// A listed file could not be loaded ([`WorkbenchError::Unavailable`]).
    Unavailable(WorkbenchError),
    /// A file or the package failed verification.
    Integrity(WorkbenchError),
    /// A selected record is not `access: public`, so nothing from the package is disclosed.
    Restricted,
}

impl Undisclosable {
    /// The stable error code every adapter reports.
    pub fn code(&self) -> &'static str {
        match self {
            Undisclosable::Unavailable(_) => "package_unavailable",
            Undisclosable::Integrity(_) => "package_integrity",
            Undisclosable::Restricted => "restricted_evidence",
        }
    }

    /// What went wrong for `case_id`, in words.
    pub fn message(&self, case_id: &str) -> String {
        match self {
            Undisclosable::Unavailable(e) | Undisclosable::Integrity(e) => {
                format!("case {case_id}: {e}")
            }
            Undisclosable::Restricted => format!(
                "the package of case {case_id} holds non-public evidence, so nothing from it is disclosed"
            ),
        }
    }
}

/// A case's package as every adapter may show it: loaded and verified ([`load_package`]),
/// then passed through the public-scope gate ([`is_public`]).
pub fn load_public_package(case: &Case, loader: &dyn Loader) -> Result<Value, Undisclosable> {
    let loaded = load_package(case, loader).map_err(|e| match e {
        WorkbenchError::Unavailable { .. } => Undisclosable::Unavailable(e),
        _ => Undisclosable::Integrity(e),
    })?;
    if is_public(&loaded) {
        Ok(loaded)
    } else {
        Err(Undisclosable::Restricted)
    }
}

/// The public-scope gate: true when every selected record is `access: public`.
pub fn is_public(p: &Value) -> bool {
    p["selected"].as_array().is_none_or(|a| {
        a.iter()
            .all(|item| item["record"]["access"].as_str() == Some("public"))
    })
}

/// The selected record with this id.
pub fn record<'a>(p: &'a Value, id: &str) -> Option<&'a Value> {
    p["selected"]
        .as_array()?
        .iter()
        .map(|item| &item["record"])
        .find(|r| r["id"].as_str() == Some(id))
}

/// The selected item (record plus reasons and paths) with this record id.
pub fn selected_item<'a>(p: &'a Value, id: &str) -> Option<&'a Value> {
    p["selected"]
        .as_array()?
        .iter()
        .find(|item| item["record"]["id"].as_str() == Some(id))
}

/// The source-page link of a record: the first HTTPS provenance URL, with `#page=N` added for
/// a PDF whose locator names `page N` or `p N`; `None` when no HTTPS URL exists.
pub fn source_link(record: &Value) -> Option<String> {
    let prov = record["provenance"].as_array()?;
    let entry = prov
        .iter()
        .find(|e| e["url"].as_str().is_some_and(|u| u.starts_with("https://")))?;
    let url = entry["url"].as_str()?;
    let path = url.split(['?', '#']).next().unwrap_or(url);
    if url.contains('#') || !path.to_ascii_lowercase().ends_with(".pdf") {
        return Some(url.to_owned());
    }
    let locator = entry["locator"].as_str().unwrap_or("").to_ascii_lowercase();
    let words: Vec<&str> = locator
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    let page = words
        .windows(2)
        .find(|w| (w[0] == "page" || w[0] == "p") && w[1].bytes().all(|b| b.is_ascii_digit()))
        .map(|w| w[1]);
    Some(match page {
        Some(n) => format!("{url}#page={n}"),
        None => url.to_owned(),
    })
}

/// The text of an evidence-unit span: UTF-8 byte offsets into `text`; `None` if they do not
/// fall on character boundaries.
pub fn span_text(text: &str, start: usize, end: usize) -> Option<&str> {
    text.get(start..end)
}

/// The local review proposal a person may download for one record (§1.3): pretty-printed JSON
/// with a trailing newline, `authority: local-unreviewed-proposal`. It is never published.
pub fn review_export(
    question_id: &str,
    package: &Value,
    record_id: &str,
    status: &str,
    comment: &str,
) -> String {
    let doc = serde_json::json!({
        "schema": "okf-evidence-review-proposal.v1",
        "question_id": question_id,
        "context_id": package["context_id"],
        "bundle_snapshot": package["bundle"]["snapshot"],
        "context_binding_sha256": package["binding"]["index_sha256"],
        "record_id": record_id,
        "proposal": {"status": status, "comment": comment},
        "authority": "local-unreviewed-proposal",
    });
    // A value built from strings and parsed JSON always serialises.
    let mut text = serde_json::to_string_pretty(&doc).unwrap_or_default();
    text.push('\n');
    text
}
