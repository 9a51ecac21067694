//! Building a workbench from a questions file (`okf workbench build`): one package per
//! question, retained as parts, and the manifest that lists them, admitted before anything is
//! written. No I/O: the caller writes [`Built::files`] and the manifest.

use crate::WorkbenchError;
use crate::manifest::{self, Manifest};
use okf_engine::{Binding, Budget, ContextIndex, assemble};
use serde::Deserialize;
use serde_json::{Value, json};

/// A questions file: `{"questions": [...], "title"?, "publication"?}`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QuestionsFile {
    /// The questions, in workbench order.
    pub questions: Vec<Question>,
    /// The workbench title (default "Evidence workbench").
    pub title: Option<String>,
    /// The publication note (default: names the bundle).
    pub publication: Option<Value>,
}

/// One question of a questions file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Question {
    /// Case id (becomes part of file names once the manifest admits it).
    pub id: String,
    /// Short label.
    pub label: String,
    /// The question asked of the index.
    pub question: String,
    /// Ambiguities the author notes for the case.
    pub ambiguities: Option<Vec<String>>,
    /// Evidence the author expects.
    pub required_evidence: Option<Vec<String>>,
    /// Known gaps of the case's scope.
    pub scope_gaps: Option<Vec<String>>,
}

/// A workbench built in memory and already admitted.
#[derive(Debug, Clone)]
pub struct Built {
    /// The manifest's text (pretty JSON and a final newline).
    pub manifest_text: String,
    /// Every package and part file, by manifest-relative path, in writing order.
    pub files: Vec<(String, String)>,
    /// The manifest as admitted.
    pub admitted: Manifest,
}

/// Assembles each question over `index`, retains each package as parts and writes the
/// manifest listing them; refused (naming the question or the manifest field) unless the
/// manifest is admitted.
pub fn build(
    spec: QuestionsFile,
    index: &ContextIndex,
    budget: &Budget,
    binding: Option<&Binding>,
) -> Result<Built, WorkbenchError> {
    let mut files: Vec<(String, String)> = Vec::new();
    let mut entries = Vec::new();
    for q in &spec.questions {
        let failed = |reason: String| WorkbenchError::Question {
            id: q.id.clone(),
            reason,
        };
        let assembled =
            assemble(index, &q.question, budget, binding).map_err(|e| failed(e.to_string()))?;
        let context = okf_delivery::Context::from_canonical(assembled.json)
            .map_err(|e| failed(e.to_string()))?;
        let parts = okf_delivery::retain(&context).map_err(|e| failed(e.to_string()))?;
        // Ids become file names only after the manifest (and so every id) is admitted below.
        let url = format!("packages/{}.json", q.id);
        let part_refs: Vec<Value> = parts
            .iter()
            .enumerate()
            .map(|(i, p)| json!({"url": format!("parts/{}-{i:03}.json", q.id), "sha256": p.sha256, "bytes": p.bytes}))
            .collect();
        let mut entry = json!({"id": q.id, "label": q.label, "question": q.question});
        for (key, list) in [
            ("ambiguities", &q.ambiguities),
            ("required_evidence", &q.required_evidence),
            ("scope_gaps", &q.scope_gaps),
        ] {
            if let Some(list) = list {
                entry[key] = json!(list);
            }
        }
        entry["package"] = json!({"url": url, "sha256": context.package_sha256(), "bytes": context.text().len(), "parts": part_refs});
        entries.push(entry);
        for (i, p) in parts.into_iter().enumerate() {
            files.push((format!("parts/{}-{i:03}.json", q.id), p.json));
        }
        files.push((url, context.text().to_owned()));
    }
    let publication = spec.publication.unwrap_or_else(|| {
        let label = format!(
            "Evidence packages assembled by Ask OKF from {}",
            index.document().bundle.id
        );
        json!({"label": crate::short(&label, 300)})
    });
    let doc = json!({
        "schema": manifest::MANIFEST_SCHEMA,
        "title": spec.title.unwrap_or_else(|| "Evidence workbench".into()),
        "publication": publication,
        "questions": entries,
    });
    let mut manifest_text = serde_json::to_string_pretty(&doc)
        .map_err(|e| WorkbenchError::manifest("(manifest)", e.to_string()))?;
    manifest_text.push('\n');
    let admitted = manifest::admit(manifest_text.as_bytes())?;
    Ok(Built {
        manifest_text,
        files,
        admitted,
    })
}
