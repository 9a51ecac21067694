//! Evidence workbench directories served read-only: a registry `[[workbench]]` entry names a
//! manifest file; at start-up (and on reload) it is admitted (`okf-evidence-workbench.v1`),
//! and from then on only the admitted manifest itself (its bytes as admitted, held in memory)
//! and the package and part files it lists can be read, under `/workbench/{id}/…`, and each
//! file only while its bytes match the SHA-256 (and, for parts, the length) the manifest
//! declares. Requests never name a URL, and nothing is fetched from one.

use crate::refusal::Refusal;
use okf_api::error::{ErrorCode, readiness};
use okf_corpus::source::DirSource;
use okf_corpus::{CorpusSource, SourceError};
use okf_workbench::manifest::{self, MAX_MANIFEST_BYTES, MAX_PACKAGE_BYTES, MAX_PART_BYTES};
use okf_workbench::ports::LoadFailure;
use serde::Deserialize;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

/// One `[[workbench]]` entry of the registry file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorkbenchDecl {
    /// Logical id used in `/workbench/{id}/…`.
    pub id: String,
    /// The manifest file, relative to the registry file; packages and parts sit beside it.
    pub manifest: PathBuf,
    /// Who may read it (default public).
    #[serde(default)]
    pub access: crate::auth::Access,
}

/// What the admitted manifest declares about one servable file.
#[derive(Debug, Clone)]
struct Declared {
    /// Lowercase hex SHA-256 the bytes must have.
    sha256: String,
    /// Exact length, where the manifest declares one (parts).
    bytes: Option<u64>,
    /// Largest length read.
    cap: usize,
}

/// An admitted workbench directory.
#[derive(Debug, Clone)]
pub struct Workbench {
    /// `sha256:` of the manifest bytes.
    pub snapshot_id: String,
    /// Title.
    pub title: String,
    /// Number of questions.
    pub questions: usize,
    /// The manifest bytes as admitted; served from memory, whatever happens to the file.
    manifest: bytes::Bytes,
    /// The admitted manifest, for the cases the MCP tool opens.
    admitted: Arc<manifest::Manifest>,
    /// Confined reads under the manifest's directory (the real path must stay inside it).
    source: DirSource,
    /// Package and part paths (decoded) with what the manifest declares about them.
    files: BTreeMap<String, Declared>,
    /// Set once a listed file failed verification: the workbench is then not ready.
    failure: Arc<Mutex<Option<String>>>,
}

impl Workbench {
    /// Why the workbench is not ready, once a listed file failed verification.
    pub fn failure(&self) -> Option<String> {
        self.failure
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Records a verification failure (logged once, the first time).
    fn fail(&self, id: &str, reason: &str) {
        let mut failure = self.failure.lock().unwrap_or_else(PoisonError::into_inner);
        if failure.is_none() {
            tracing::error!(
                target: "okf::workbench",
                workbench = id,
                reason,
                "workbench file failed verification; the workbench is not ready"
            );
            *failure = Some(reason.to_owned());
        }
    }
}

/// A registry workbench: admitted, or refused with the reason.
#[derive(Debug, Clone)]
pub struct WorkbenchEntry {
    /// Logical id.
    pub id: String,
    /// The manifest file the registry declares.
    pub manifest_path: PathBuf,
    /// The admitted workbench, or why it was refused.
    pub state: Result<Workbench, Refusal>,
    /// Set by a reload that could not admit the manifest while the one admitted earlier keeps
    /// serving: why the new manifest was refused.
    pub retained: Option<Refusal>,
}

impl WorkbenchEntry {
    /// Why this workbench cannot be served (refused, or a file failed verification).
    pub fn not_ready(&self) -> Option<String> {
        match &self.state {
            Err(reason) => Some(reason.to_string()),
            Ok(wb) => wb.failure(),
        }
    }
}

/// The name the manifest is served under.
pub const MANIFEST_FILE: &str = "manifest.json";

/// Admits the manifest a declaration names (missing packages or parts are not an error here:
/// clients opening such a case get a clear error naming the missing file).
pub fn load(base: &Path, decl: &WorkbenchDecl) -> WorkbenchEntry {
    let path = base.join(&decl.manifest);
    WorkbenchEntry {
        id: decl.id.clone(),
        state: admit(&path),
        manifest_path: path,
        retained: None,
    }
}

fn admit(path: &Path) -> Result<Workbench, Refusal> {
    let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let source = DirSource::new(&dir).map_err(|e| Refusal::Directory {
        what: "the workbench directory".to_owned(),
        why: e.to_string(),
    })?;
    let unreadable = |why: String| Refusal::Unreadable {
        what: "manifest",
        why,
    };
    let bytes = source
        .read(&name, MAX_MANIFEST_BYTES as u64)
        .map_err(|e| match e {
            SourceError::NotFound => unreadable("it does not exist".to_owned()),
            SourceError::TooLarge => Refusal::TooLarge {
                what: "manifest",
                limit: MAX_MANIFEST_BYTES as u64,
            },
            SourceError::Other(why) => unreadable(why),
        })?;
    let m = Arc::new(manifest::admit(&bytes).map_err(|e| Refusal::Invalid(e.to_string()))?);
    let mut files = BTreeMap::new();
    for case in &m.cases {
        let package = Declared {
            sha256: case.package.sha256.clone(),
            bytes: None,
            cap: MAX_PACKAGE_BYTES,
        };
        files.insert(decoded(&case.package.url)?, package);
        for part in &case.package.parts {
            let declared = Declared {
                sha256: part.sha256.clone(),
                bytes: Some(part.bytes),
                cap: MAX_PART_BYTES,
            };
            files.insert(decoded(&part.url)?, declared);
        }
    }
    // A manifest none of whose case packages is on disk serves nothing but its own listing:
    // not ready, said once here (a partly present workbench serves what it has, and each
    // absent file is a 404 naming it).
    let present = m
        .cases
        .iter()
        .filter(|case| decoded(&case.package.url).is_ok_and(|file| dir.join(file).is_file()))
        .count();
    let failure = (present == 0 && !m.cases.is_empty()).then(|| {
        format!(
            "none of its {} case packages is present in {}",
            m.cases.len(),
            dir.display()
        )
    });
    Ok(Workbench {
        snapshot_id: m.snapshot_id.clone(),
        title: m.title.clone(),
        questions: m.cases.len(),
        manifest: bytes.into(),
        admitted: m,
        source,
        files,
        failure: Arc::new(Mutex::new(failure)),
    })
}

/// The file name on disk of a manifest URL (already checked when the manifest was admitted).
fn decoded(url: &str) -> Result<String, Refusal> {
    manifest::decode_path(url).map_err(Refusal::Invalid)
}

/// Why a workbench file cannot be served.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileError {
    /// No such workbench, or the path is not one its manifest lists.
    NotListed(String),
    /// Listed but absent (404).
    Absent(String),
    /// Listed and present, but its bytes are not the ones the manifest declares, or it is not
    /// a regular file inside the workbench directory (503; the workbench is then not ready).
    Unverified(String),
}

/// Reads one listed file of an admitted workbench, verified against its manifest.
pub fn read_file(
    entries: &BTreeMap<String, WorkbenchEntry>,
    id: &str,
    path: &str,
) -> Result<bytes::Bytes, FileError> {
    let wb = entries
        .get(id)
        .and_then(|e| e.state.as_ref().ok())
        .ok_or_else(|| FileError::NotListed(format!("no admitted workbench {id:?}")))?;
    if path == MANIFEST_FILE {
        return Ok(wb.manifest.clone());
    }
    let declared = wb.files.get(path).ok_or_else(|| {
        FileError::NotListed(format!("{path:?} is not a file of workbench {id:?}"))
    })?;
    let unverified = |why: &str| {
        let reason = format!("{path} of workbench {id} {why}");
        wb.fail(id, &reason);
        FileError::Unverified(reason)
    };
    let bytes = match wb.source.read(path, declared.cap as u64) {
        Ok(bytes) => bytes,
        Err(SourceError::NotFound) => {
            return Err(FileError::Absent(format!(
                "{path} of workbench {id} is absent"
            )));
        }
        Err(SourceError::TooLarge) => {
            return Err(unverified(&format!(
                "is over its {}-byte limit",
                declared.cap
            )));
        }
        Err(SourceError::Other(why)) => return Err(unverified(&format!("cannot be read: {why}"))),
    };
    if declared.bytes.is_some_and(|n| n != bytes.len() as u64) {
        return Err(unverified("does not have the length its manifest declares"));
    }
    if okf_engine::canonical::sha256_hex(&bytes) != declared.sha256 {
        return Err(unverified(
            "does not match the SHA-256 its manifest declares",
        ));
    }
    Ok(bytes.into())
}

/// The `/api/workbenches` listing.
pub fn listing(entries: &BTreeMap<String, WorkbenchEntry>) -> Value {
    let list: Vec<Value> = entries
        .values()
        .map(|e| {
            let mut row = match &e.state {
                Ok(wb) => json!({"id": e.id, "snapshot_id": wb.snapshot_id, "title": wb.title, "questions": wb.questions, "manifest": format!("/workbench/{}/{MANIFEST_FILE}", e.id)}),
                Err(reason) => json!({"id": e.id, "error": reason}),
            };
            if let Value::Object(map) = &mut row {
                let not_ready = e.not_ready();
                let state = if not_ready.is_some() {
                    readiness::NOT_READY
                } else {
                    readiness::READY
                };
                map.insert("state".into(), json!(state));
                // A refused entry already says why under `error`.
                if let (Ok(_), Some(reason)) = (&e.state, not_ready) {
                    map.insert("reason".into(), json!(reason));
                }
                if let Some(reason) = &e.retained {
                    map.insert("retained".into(), json!(reason));
                }
            }
            row
        })
        .collect();
    json!({"workbenches": list})
}

/// The schema of an `okf_workbench_case` result.
pub const CASE_SCHEMA: &str = "okf-workbench-case.v1";

/// Why a workbench case cannot be shown, with the field at fault.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct CaseError {
    /// Stable error code.
    pub code: &'static str,
    /// The argument at fault.
    pub field: &'static str,
    /// What went wrong, in words.
    pub message: String,
}

/// Reads a workbench's listed files for [`okf_workbench::package::load_public_package`]
/// through [`read_file`]: confined, and verified against the admitted manifest.
struct VerifiedFiles<'a> {
    entries: &'a BTreeMap<String, WorkbenchEntry>,
    id: &'a str,
}

impl okf_workbench::ports::Loader for VerifiedFiles<'_> {
    fn load(&self, url: &str, _cap: usize) -> Result<Vec<u8>, LoadFailure> {
        // read_file applies the cap the manifest's file kind has.
        let path = manifest::decode_path(url)?;
        read_file(self.entries, self.id, &path)
            .map(|bytes| bytes.to_vec())
            .map_err(|e| match e {
                FileError::NotListed(m) | FileError::Absent(m) => LoadFailure::Unavailable(m),
                FileError::Unverified(m) => LoadFailure::Unverified(m),
            })
    }
}

/// An `okf-workbench-case.v1` result: the workbench, its cases, and with `case_id` that case's
/// questions-file briefing and its verified, public package (at most the package byte limit,
/// so the result stays within what hosts accept), and the link to the same case on this
/// server's workbench page at `origin`.
pub fn case_view(
    entries: &BTreeMap<String, WorkbenchEntry>,
    id: &str,
    case_id: Option<&str>,
    origin: &str,
) -> Result<Value, CaseError> {
    let wb = entries
        .get(id)
        .and_then(|e| e.state.as_ref().ok())
        .ok_or_else(|| CaseError {
            code: ErrorCode::UnknownWorkbench.as_str(),
            field: "workbench",
            message: format!("no admitted workbench {id:?}"),
        })?;
    let m = &wb.admitted;
    let cases: Vec<Value> = m
        .cases
        .iter()
        .map(|c| json!({"id": c.id, "label": c.label, "question": c.question}))
        .collect();
    let (case, package) = match case_id {
        None => (Value::Null, Value::Null),
        Some(case_id) => {
            let case = m.case(case_id).ok_or_else(|| CaseError {
                code: ErrorCode::UnknownCase.as_str(),
                field: "case_id",
                message: format!("{case_id:?} is not a case of workbench {id:?}"),
            })?;
            let loader = VerifiedFiles { entries, id };
            let package =
                okf_workbench::package::load_public_package(case, &loader).map_err(|e| {
                    CaseError {
                        code: e.code(),
                        field: "case_id",
                        message: e.message(case_id),
                    }
                })?;
            let briefing = json!({
                "id": case.id,
                "label": case.label,
                "question": case.question,
                "ambiguities": case.ambiguities,
                "required_evidence": case.required_evidence,
                "scope_gaps": case.scope_gaps,
                "package_sha256": case.package.sha256,
            });
            (briefing, package)
        }
    };
    Ok(json!({
        "schema": CASE_SCHEMA,
        "workbench": {
            "id": id,
            "title": m.title,
            "publication_label": m.publication_label,
            "snapshot_id": m.snapshot_id,
            // Workbench and case ids are [a-z0-9._-] (admission rules): nothing to escape.
            "link": match case_id {
                Some(case_id) => format!("{origin}/evidence/?manifest={id}&case={case_id}"),
                None => format!("{origin}/evidence/?manifest={id}"),
            },
        },
        "cases": cases,
        "case": case,
        "package": package,
    }))
}
