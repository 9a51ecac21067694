//! Evidence workbench directories served read-only (issue 12): a registry `[[workbench]]`
//! entry names a manifest file; at start-up it is admitted (`okf-evidence-workbench.v1`), and
//! from then on only the manifest itself and the package and part paths it lists can be read,
//! under `/workbench/{id}/…`. Requests never name a URL, and nothing is fetched from one.

use okf_workbench::manifest::{self, MAX_MANIFEST_BYTES, MAX_PACKAGE_BYTES, MAX_PART_BYTES};
use serde::Deserialize;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One `[[workbench]]` entry of the registry file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorkbenchDecl {
    /// Logical id used in `/workbench/{id}/…`.
    pub id: String,
    /// The manifest file, relative to the registry file; packages and parts sit beside it.
    pub manifest: PathBuf,
}

/// An admitted workbench directory.
#[derive(Debug, Clone)]
pub struct Workbench {
    /// The directory holding the manifest.
    pub dir: PathBuf,
    /// `sha256:` of the manifest bytes.
    pub snapshot_id: String,
    /// Title.
    pub title: String,
    /// Number of questions.
    pub questions: usize,
    /// Servable paths (decoded) with their byte caps.
    pub files: BTreeMap<String, usize>,
}

/// A registry workbench: admitted, or refused with the reason.
#[derive(Debug, Clone)]
pub struct WorkbenchEntry {
    /// Logical id.
    pub id: String,
    /// The admitted workbench, or why it was refused.
    pub state: Result<Workbench, String>,
}

/// The name the manifest is served under.
pub const MANIFEST_FILE: &str = "manifest.json";

/// Admits the manifest a declaration names (missing packages or parts are not an error here:
/// clients opening such a case get a clear error naming the missing file).
pub fn load(base: &Path, decl: &WorkbenchDecl) -> WorkbenchEntry {
    let path = base.join(&decl.manifest);
    let state = (|| {
        let bytes =
            std::fs::read(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        if bytes.len() > MAX_MANIFEST_BYTES {
            return Err(format!(
                "{} is over {MAX_MANIFEST_BYTES} bytes",
                path.display()
            ));
        }
        let m = manifest::admit(&bytes).map_err(|e| e.to_string())?;
        let mut files = BTreeMap::from([(MANIFEST_FILE.to_owned(), MAX_MANIFEST_BYTES)]);
        for case in &m.cases {
            files.insert(manifest::decode_path(&case.package.url)?, MAX_PACKAGE_BYTES);
            for part in &case.package.parts {
                files.insert(manifest::decode_path(&part.url)?, MAX_PART_BYTES);
            }
        }
        Ok(Workbench {
            dir: path.parent().map(Path::to_path_buf).unwrap_or_default(),
            snapshot_id: m.snapshot_id,
            title: m.title,
            questions: m.cases.len(),
            files,
        })
    })();
    WorkbenchEntry {
        id: decl.id.clone(),
        state,
    }
}

/// Why a workbench file cannot be served.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileError {
    /// No such workbench, or the path is not one its manifest lists.
    NotListed(String),
    /// Listed but absent, unreadable or over its cap.
    Unavailable(String),
}

/// Reads one listed file of an admitted workbench.
pub fn read_file(
    entries: &BTreeMap<String, WorkbenchEntry>,
    id: &str,
    path: &str,
) -> Result<Vec<u8>, FileError> {
    let wb = entries
        .get(id)
        .and_then(|e| e.state.as_ref().ok())
        .ok_or_else(|| FileError::NotListed(format!("no admitted workbench {id:?}")))?;
    let cap = *wb.files.get(path).ok_or_else(|| {
        FileError::NotListed(format!("{path:?} is not a file of workbench {id:?}"))
    })?;
    let file = wb.dir.join(path);
    let len = std::fs::metadata(&file)
        .map_err(|_| FileError::Unavailable(format!("{path} of workbench {id} is absent")))?
        .len();
    if len > cap as u64 {
        return Err(FileError::Unavailable(format!(
            "{path} of workbench {id} is over its {cap}-byte limit"
        )));
    }
    std::fs::read(&file)
        .map_err(|_| FileError::Unavailable(format!("{path} of workbench {id} is unreadable")))
}

/// The `/api/workbenches` listing.
pub fn listing(entries: &BTreeMap<String, WorkbenchEntry>) -> Value {
    let list: Vec<Value> = entries
        .values()
        .map(|e| match &e.state {
            Ok(wb) => json!({"id": e.id, "snapshot_id": wb.snapshot_id, "title": wb.title, "questions": wb.questions, "manifest": format!("/workbench/{}/{MANIFEST_FILE}", e.id)}),
            Err(reason) => json!({"id": e.id, "error": reason}),
        })
        .collect();
    json!({"workbenches": list})
}
