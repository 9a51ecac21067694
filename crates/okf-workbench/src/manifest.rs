//! Manifest `okf-evidence-workbench.v1` and its admission rules (spec §1.2, §1.11).
//!
//! Unknown top-level and question fields are tolerated (DWP adds `source` and `package.bytes`);
//! only the modelling proposals are closed.

use crate::error::WorkbenchError;
use okf_engine::canonical::{is_hex64, sha256_hex};
use serde::Deserialize;
use serde_json::{Map, Value};

/// The manifest schema name.
pub const MANIFEST_SCHEMA: &str = "okf-evidence-workbench.v1";
/// Largest manifest file, in bytes.
pub const MAX_MANIFEST_BYTES: usize = 262_144;
/// Largest single-file package, in bytes (the engine's `max_bytes` ceiling).
pub const MAX_PACKAGE_BYTES: usize = okf_delivery::MAX_PACKAGE_BYTES;
/// Largest retained part file, in bytes (the size `okf retain` cuts parts to).
pub const MAX_PART_BYTES: usize = okf_delivery::PART_BYTES as usize;
/// Most parts per package.
pub const MAX_PARTS: usize = 128;
/// What a case id must match (an ECMA-262 `u` regex too: schemas state it).
pub const CASE_ID_PATTERN: &str = "^[a-z0-9][a-z0-9._-]*$";
/// Longest case id, in UTF-16 code units.
pub const MAX_CASE_ID_CHARS: usize = 100;
/// Largest sum of part sizes per package.
pub const MAX_PARTS_TOTAL: u64 = 4_194_304;

/// One part file of a retained package.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartRef {
    /// Manifest-relative path.
    pub url: String,
    /// Lowercase hex SHA-256 of the part file bytes.
    pub sha256: String,
    /// Exact size of the part file.
    pub bytes: u64,
}

/// Where a case's package is retained.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackageRef {
    /// Manifest-relative path of the single-file package.
    pub url: String,
    /// Lowercase hex SHA-256 of the canonical package text.
    pub sha256: String,
    /// Parts, when the package is retained as parts (they take precedence over `url`).
    pub parts: Vec<PartRef>,
}

/// One admitted question ("case").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Case {
    /// Case id, e.g. `staff-001`.
    pub id: String,
    /// Short label.
    pub label: String,
    /// The exact question text the package was assembled for.
    pub question: String,
    /// Recorded ambiguities of the brief.
    pub ambiguities: Vec<String>,
    /// Evidence the brief says is required.
    pub required_evidence: Vec<String>,
    /// Known scope gaps.
    pub scope_gaps: Vec<String>,
    /// The retained package.
    pub package: PackageRef,
}

/// An input of a blocked calculation model.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct ModelInput {
    /// Input id.
    pub id: String,
    /// Label.
    pub label: String,
    /// `money`, `date`, `boolean`, `enum` or `integer`.
    #[serde(rename = "type")]
    pub kind: String,
    /// Unit, or null when unknown.
    pub unit: Option<String>,
    /// Why the input is needed.
    pub reason: String,
    /// Whether it is required; null means unknown (the key itself is mandatory).
    #[serde(deserialize_with = "present_nullable")]
    pub required: Option<bool>,
    /// Group.
    pub group: String,
}

/// Reads a nullable value whose key must still be present (unknown is written as null).
fn present_nullable<'de, D: serde::Deserializer<'de>, T: Deserialize<'de>>(
    d: D,
) -> Result<Option<T>, D::Error> {
    Option::deserialize(d)
}

/// A citation of a record in a case's package.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct Citation {
    /// The case whose package holds the record.
    pub case_id: String,
    /// The record id.
    pub record_id: String,
}

/// A stage of a blocked calculation model.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct ModelStage {
    /// Stage id.
    pub id: String,
    /// Label.
    pub label: String,
    /// Description.
    pub description: String,
    /// Cited evidence (1–12).
    pub evidence: Vec<Citation>,
    /// Known gaps (≤ 20).
    pub gaps: Vec<String>,
}

/// The effective period of a model.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct Period {
    /// First day, or null.
    pub from: Option<String>,
    /// Last day, or null.
    pub to: Option<String>,
}

/// An authored, unreviewed, blocked calculation model (never executed).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct CalculationModel {
    /// Model id.
    pub id: String,
    /// Title.
    pub title: String,
    /// Always `blocked`.
    pub status: String,
    /// Always `authored-unreviewed-proposal`.
    pub authority: String,
    /// Cases the model concerns.
    pub case_ids: Vec<String>,
    /// Components (labels).
    pub components: Vec<String>,
    /// Jurisdiction, or null.
    pub jurisdiction: Option<String>,
    /// Effective period.
    pub effective_period: Period,
    /// Proposed inputs.
    pub inputs: Vec<ModelInput>,
    /// Stages.
    pub stages: Vec<ModelStage>,
    /// Gaps (1–20).
    pub gaps: Vec<String>,
}

/// An authored, unreviewed interaction proposal.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct InteractionProposal {
    /// Id.
    pub id: String,
    /// The case it belongs to.
    pub case_id: String,
    /// The benefit or circumstance acting.
    pub from: String,
    /// The benefit affected.
    pub to: String,
    /// The distinction drawn.
    pub distinction: String,
    /// The effect described.
    pub effect: String,
    /// Its qualification.
    pub qualification: String,
    /// Cited evidence (1–12).
    pub evidence: Vec<Citation>,
    /// Always `authored-unreviewed-proposal`.
    pub authority: String,
}

/// An admitted manifest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Manifest {
    /// `sha256:` + hex SHA-256 of the raw manifest bytes.
    pub snapshot_id: String,
    /// Title.
    pub title: String,
    /// Publication label.
    pub publication_label: String,
    /// The cases, in manifest order.
    pub cases: Vec<Case>,
    /// Blocked calculation models.
    pub models: Vec<CalculationModel>,
    /// Interaction proposals.
    pub interactions: Vec<InteractionProposal>,
}

impl Manifest {
    /// The case with this id.
    pub fn case(&self, id: &str) -> Option<&Case> {
        self.cases.iter().find(|c| c.id == id)
    }
}

/// Length in UTF-16 code units (every length rule counts these): the engine's one count.
pub use okf_engine::validate::utf16_len;

fn err(field: &str, rule: impl Into<String>) -> WorkbenchError {
    WorkbenchError::manifest(field, rule)
}

fn text(
    obj: &Map<String, Value>,
    key: &str,
    field: &str,
    max: usize,
    blank_ok: bool,
) -> Result<String, WorkbenchError> {
    let f = format!("{field}.{key}");
    let s = obj
        .get(key)
        .and_then(Value::as_str)
        .ok_or_else(|| err(&f, "must be a string"))?;
    if !blank_ok && s.trim().is_empty() {
        return Err(err(&f, "must not be blank"));
    }
    if utf16_len(s) > max {
        return Err(err(&f, format!("must be at most {max} UTF-16 code units")));
    }
    Ok(s.to_owned())
}

/// Whether `s` matches [`CASE_ID_PATTERN`] (the rule for case, model and input ids).
fn id_like(s: &str) -> bool {
    let mut bytes = s.bytes();
    matches!(bytes.next(), Some(b) if b.is_ascii_lowercase() || b.is_ascii_digit())
        && bytes.all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"._-".contains(&b))
}

/// True when `s` is a real calendar date written exactly `YYYY-MM-DD` (the engine's one rule).
pub fn is_calendar_date(s: &str) -> bool {
    okf_engine::validate::date_number(s).is_some()
}

fn starts_with_date(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() >= 10
        && b[..4].iter().all(u8::is_ascii_digit)
        && b[4] == b'-'
        && b[5..7].iter().all(u8::is_ascii_digit)
        && b[7] == b'-'
        && b[8..10].iter().all(u8::is_ascii_digit)
}

/// The package/part path rule (§1.2): a relative path that stays inside the manifest's
/// directory. Returns the rule broken.
pub fn check_relative_path(path: &str) -> Result<(), &'static str> {
    if path.trim().is_empty() {
        return Err("must not be blank");
    }
    if utf16_len(path) > 1000 {
        return Err("must be at most 1000 UTF-16 code units");
    }
    if path.starts_with('/') {
        return Err("must be relative (no leading /)");
    }
    if path.contains('\\') {
        return Err("must not contain a backslash");
    }
    if path.contains('?') || path.contains('#') {
        return Err("must not contain ? or #");
    }
    if path.contains(':') {
        // An absolute URL (scheme) would leave the manifest's origin.
        return Err("must not name a scheme or another origin");
    }
    let b = path.as_bytes();
    for (i, &c) in b.iter().enumerate() {
        if c == b'%' {
            let ok =
                b.len() > i + 2 && b[i + 1].is_ascii_hexdigit() && b[i + 2].is_ascii_hexdigit();
            if !ok {
                return Err("contains a malformed % escape");
            }
        }
    }
    for segment in path.split('/') {
        if segment.is_empty() {
            return Err("has an empty path segment");
        }
        if segment == "." || segment == ".." {
            return Err("has a . or .. segment");
        }
        let lower = segment.to_ascii_lowercase();
        if lower.contains("%2e") || lower.contains("%2f") || lower.contains("%5c") {
            return Err("has an encoded dot, slash or backslash (%2e, %2f, %5c)");
        }
    }
    Ok(())
}

/// Decodes the `%XX` escapes of a path that passed [`check_relative_path`] (which refused
/// malformed escapes and encoded dots and separators), giving the file name on disk.
pub fn decode_path(path: &str) -> Result<String, String> {
    check_relative_path(path).map_err(str::to_owned)?;
    let b = path.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |c: u8| char::from(c).to_digit(16);
        match (
            b[i],
            b.get(i + 1).copied().and_then(hex),
            b.get(i + 2).copied().and_then(hex),
        ) {
            (b'%', Some(h), Some(l)) => {
                // Two hex digits make one byte.
                out.push(u8::try_from(h * 16 + l).unwrap_or(0));
                i += 3;
            }
            (c, _, _) => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8(out).map_err(|_| "the decoded path is not UTF-8".into())
}

/// The manifest URL rule (§1.2): HTTPS, or HTTP only on loopback; no credentials, no fragment.
pub fn check_manifest_url(url: &str) -> Result<(), &'static str> {
    if url.contains('#') {
        return Err("must not have a fragment");
    }
    let rest = if let Some(r) = url.strip_prefix("https://") {
        r
    } else if let Some(r) = url.strip_prefix("http://") {
        let host = r.split(['/', '?']).next().unwrap_or("");
        let host_only = if host.starts_with('[') {
            host.split(']')
                .next()
                .map(|h| format!("{h}]"))
                .unwrap_or_default()
        } else {
            host.split(':').next().unwrap_or("").to_owned()
        };
        if !matches!(host_only.as_str(), "localhost" | "127.0.0.1" | "[::1]") {
            return Err("must be https (http only on localhost, 127.0.0.1 or [::1])");
        }
        r
    } else {
        return Err("must be https (http only on localhost, 127.0.0.1 or [::1])");
    };
    let authority = rest.split(['/', '?']).next().unwrap_or("");
    if authority.is_empty() {
        return Err("must name a host");
    }
    if authority.contains('@') {
        return Err("must not carry credentials");
    }
    Ok(())
}

fn string_list(
    obj: &Map<String, Value>,
    key: &str,
    field: &str,
) -> Result<Vec<String>, WorkbenchError> {
    let f = format!("{field}.{key}");
    let Some(v) = obj.get(key) else {
        return Ok(Vec::new());
    };
    let items = v.as_array().ok_or_else(|| err(&f, "must be an array"))?;
    if items.len() > 30 {
        return Err(err(&f, "must hold at most 30 items"));
    }
    items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let fi = format!("{f}[{i}]");
            let s = item.as_str().ok_or_else(|| err(&fi, "must be a string"))?;
            if s.trim().is_empty() {
                return Err(err(&fi, "must not be blank"));
            }
            if utf16_len(s) > 2000 {
                return Err(err(&fi, "must be at most 2000 UTF-16 code units"));
            }
            Ok(s.to_owned())
        })
        .collect()
}

fn safe_u64(v: Option<&Value>) -> Option<u64> {
    v.and_then(Value::as_u64)
        .filter(|&n| n <= okf_engine::canonical::MAX_SAFE_INTEGER)
}

fn package_ref(v: Option<&Value>, field: &str) -> Result<PackageRef, WorkbenchError> {
    let obj = v
        .and_then(Value::as_object)
        .ok_or_else(|| err(field, "must be an object"))?;
    let sha256 = obj.get("sha256").and_then(Value::as_str).unwrap_or("");
    if !is_hex64(sha256) {
        return Err(err(
            &format!("{field}.sha256"),
            "must be 64 lowercase hex characters",
        ));
    }
    let url = obj
        .get("url")
        .and_then(Value::as_str)
        .ok_or_else(|| err(&format!("{field}.url"), "must be a string"))?;
    check_relative_path(url).map_err(|rule| err(&format!("{field}.url"), rule))?;
    let mut parts = Vec::new();
    if let Some(p) = obj.get("parts") {
        let pf = format!("{field}.parts");
        let list = p.as_array().ok_or_else(|| err(&pf, "must be an array"))?;
        if list.is_empty() || list.len() > MAX_PARTS {
            return Err(err(&pf, "must hold 1 to 128 parts"));
        }
        let mut total = 0u64;
        for (i, part) in list.iter().enumerate() {
            let f = format!("{pf}[{i}]");
            let o = part
                .as_object()
                .ok_or_else(|| err(&f, "must be an object"))?;
            let sha = o.get("sha256").and_then(Value::as_str).unwrap_or("");
            if !is_hex64(sha) {
                return Err(err(
                    &format!("{f}.sha256"),
                    "must be 64 lowercase hex characters",
                ));
            }
            let bytes = safe_u64(o.get("bytes"))
                .filter(|n| (1..=MAX_PART_BYTES as u64).contains(n))
                .ok_or_else(|| {
                    err(
                        &format!("{f}.bytes"),
                        format!("must be an integer from 1 to {MAX_PART_BYTES}"),
                    )
                })?;
            let purl = o
                .get("url")
                .and_then(Value::as_str)
                .ok_or_else(|| err(&format!("{f}.url"), "must be a string"))?;
            check_relative_path(purl).map_err(|rule| err(&format!("{f}.url"), rule))?;
            total += bytes;
            parts.push(PartRef {
                url: purl.to_owned(),
                sha256: sha.to_owned(),
                bytes,
            });
        }
        if total > MAX_PARTS_TOTAL {
            return Err(err(&pf, "part bytes must sum to at most 4194304"));
        }
    }
    Ok(PackageRef {
        url: url.to_owned(),
        sha256: sha256.to_owned(),
        parts,
    })
}

/// Admits a manifest from its raw bytes; any failure rejects the whole manifest.
pub fn admit(bytes: &[u8]) -> Result<Manifest, WorkbenchError> {
    if bytes.len() > MAX_MANIFEST_BYTES {
        return Err(err("(manifest)", "must be at most 262144 bytes"));
    }
    let raw = std::str::from_utf8(bytes).map_err(|_| err("(manifest)", "must be UTF-8"))?;
    let value: Value =
        serde_json::from_str(raw).map_err(|e| err("(manifest)", format!("is not JSON: {e}")))?;
    let root = value
        .as_object()
        .ok_or_else(|| err("(manifest)", "must be a JSON object"))?;
    if root.get("schema").and_then(Value::as_str) != Some(MANIFEST_SCHEMA) {
        return Err(err("schema", "must be okf-evidence-workbench.v1"));
    }
    let title = text_field(root, "title", 300)?;
    let publication = root
        .get("publication")
        .and_then(Value::as_object)
        .ok_or_else(|| err("publication", "must be an object"))?;
    let publication_label = text(publication, "label", "publication", 300, false)?;
    for key in ["source_date", "captured_at"] {
        if publication.contains_key(key) {
            let s = text(publication, key, "publication", 80, false)?;
            if !starts_with_date(&s) {
                return Err(err(
                    &format!("publication.{key}"),
                    "must start with YYYY-MM-DD",
                ));
            }
        }
    }
    let questions = root
        .get("questions")
        .and_then(Value::as_array)
        .ok_or_else(|| err("questions", "must be an array"))?;
    if questions.is_empty() || questions.len() > 100 {
        return Err(err("questions", "must hold 1 to 100 questions"));
    }
    let mut cases: Vec<Case> = Vec::with_capacity(questions.len());
    for (i, q) in questions.iter().enumerate() {
        let field = format!("questions[{i}]");
        let obj = q
            .as_object()
            .ok_or_else(|| err(&field, "must be an object"))?;
        let id = text(obj, "id", &field, MAX_CASE_ID_CHARS, false)?;
        if !id_like(&id) {
            return Err(err(
                &format!("{field}.id"),
                format!("must match {CASE_ID_PATTERN}"),
            ));
        }
        if cases.iter().any(|c| c.id == id) {
            return Err(err(
                &format!("{field}.id"),
                format!("duplicate case id {id}"),
            ));
        }
        cases.push(Case {
            label: text(obj, "label", &field, 300, true)?,
            question: text(obj, "question", &field, 2000, false)?,
            ambiguities: string_list(obj, "ambiguities", &field)?,
            required_evidence: string_list(obj, "required_evidence", &field)?,
            scope_gaps: string_list(obj, "scope_gaps", &field)?,
            package: package_ref(obj.get("package"), &format!("{field}.package"))?,
            id,
        });
    }
    let mut manifest = Manifest {
        snapshot_id: format!("sha256:{}", sha256_hex(bytes)),
        title,
        publication_label,
        cases,
        models: Vec::new(),
        interactions: Vec::new(),
    };
    manifest.models = closed_list(root, "calculation_models", 10)?;
    manifest.interactions = closed_list(root, "interaction_proposals", 40)?;
    check_models(&manifest)?;
    Ok(manifest)
}

fn text_field(root: &Map<String, Value>, key: &str, max: usize) -> Result<String, WorkbenchError> {
    let s = root
        .get(key)
        .and_then(Value::as_str)
        .ok_or_else(|| err(key, "must be a string"))?;
    bounded(key, s, max)?;
    Ok(s.to_owned())
}

fn closed_list<T: for<'de> Deserialize<'de>>(
    root: &Map<String, Value>,
    key: &str,
    max: usize,
) -> Result<Vec<T>, WorkbenchError> {
    let Some(v) = root.get(key) else {
        return Ok(Vec::new());
    };
    let list = v.as_array().ok_or_else(|| err(key, "must be an array"))?;
    if list.len() > max {
        return Err(err(key, format!("must hold at most {max} entries")));
    }
    list.iter()
        .enumerate()
        .map(|(i, item)| {
            T::deserialize(item).map_err(|e| {
                err(
                    &format!("{key}[{i}]"),
                    format!("is outside the modelling contract: {e}"),
                )
            })
        })
        .collect()
}

/// The blocked calculation models and interaction proposals (§1.11): bounded text, unique
/// ids and citations of manifest cases.
fn check_models(m: &Manifest) -> Result<(), WorkbenchError> {
    let mut model_ids = Vec::new();
    for (mi, model) in m.models.iter().enumerate() {
        check_model(
            m,
            &format!("calculation_models[{mi}]"),
            model,
            &mut model_ids,
        )?;
    }
    let mut ids = Vec::new();
    for (ii, p) in m.interactions.iter().enumerate() {
        let f = format!("interaction_proposals[{ii}]");
        unique_id(&format!("{f}.id"), &p.id, &mut ids)?;
        if !is_case(m, &p.case_id) {
            return Err(err(&format!("{f}.case_id"), "must be a manifest case"));
        }
        for (k, v) in [
            ("from", &p.from),
            ("to", &p.to),
            ("distinction", &p.distinction),
            ("effect", &p.effect),
            ("qualification", &p.qualification),
        ] {
            bounded(&format!("{f}.{k}"), v, 1600)?;
        }
        citations(m, &format!("{f}.evidence"), &p.evidence)?;
        if p.authority != "authored-unreviewed-proposal" {
            return Err(err(
                &format!("{f}.authority"),
                "must be authored-unreviewed-proposal",
            ));
        }
    }
    Ok(())
}

/// Whether `case` is a manifest case id.
fn is_case(m: &Manifest, case: &str) -> bool {
    m.cases.iter().any(|c| c.id == case)
}

/// A non-blank text of at most `max` UTF-16 code units.
fn bounded(field: &str, s: &str, max: usize) -> Result<(), WorkbenchError> {
    if s.trim().is_empty() {
        return Err(err(field, "must not be blank"));
    }
    if utf16_len(s) > max {
        return Err(err(
            field,
            format!("must be at most {max} UTF-16 code units"),
        ));
    }
    Ok(())
}

/// A model-style id not among `seen`, which it joins.
fn unique_id(field: &str, s: &str, seen: &mut Vec<String>) -> Result<(), WorkbenchError> {
    if utf16_len(s) > 80 || !id_like(s) {
        return Err(err(
            field,
            "must be at most 80 characters matching ^[a-z0-9][a-z0-9._-]*$",
        ));
    }
    if seen.iter().any(|x| x == s) {
        return Err(err(field, format!("duplicate id {s}")));
    }
    seen.push(s.to_owned());
    Ok(())
}

/// One to twelve citations of records in manifest cases.
fn citations(m: &Manifest, field: &str, list: &[Citation]) -> Result<(), WorkbenchError> {
    if list.is_empty() || list.len() > 12 {
        return Err(err(field, "must cite 1 to 12 records"));
    }
    for (i, c) in list.iter().enumerate() {
        if !is_case(m, &c.case_id) {
            return Err(err(
                &format!("{field}[{i}].case_id"),
                "must be a manifest case",
            ));
        }
        bounded(&format!("{field}[{i}].record_id"), &c.record_id, 500)?;
    }
    Ok(())
}

/// One calculation model (named `f` in errors): a blocked, unreviewed proposal over manifest
/// cases, with a real effective period, bounded inputs and stages, and its gaps.
fn check_model(
    m: &Manifest,
    f: &str,
    model: &CalculationModel,
    model_ids: &mut Vec<String>,
) -> Result<(), WorkbenchError> {
    unique_id(&format!("{f}.id"), &model.id, model_ids)?;
    bounded(&format!("{f}.title"), &model.title, 300)?;
    if model.status != "blocked" {
        return Err(err(&format!("{f}.status"), "must be blocked"));
    }
    if model.authority != "authored-unreviewed-proposal" {
        return Err(err(
            &format!("{f}.authority"),
            "must be authored-unreviewed-proposal",
        ));
    }
    if model.case_ids.is_empty() || model.case_ids.len() > 10 {
        return Err(err(&format!("{f}.case_ids"), "must hold 1 to 10 case ids"));
    }
    for (i, c) in model.case_ids.iter().enumerate() {
        if !is_case(m, c) {
            return Err(err(
                &format!("{f}.case_ids[{i}]"),
                "must be a manifest case",
            ));
        }
    }
    if model.components.len() > 10 {
        return Err(err(
            &format!("{f}.components"),
            "must hold at most 10 entries",
        ));
    }
    if let Some(j) = &model.jurisdiction {
        bounded(&format!("{f}.jurisdiction"), j, 200)?;
    }
    check_period(f, &model.effective_period)?;
    if model.inputs.len() > 40 || model.stages.len() > 20 {
        return Err(err(f, "must have at most 40 inputs and 20 stages"));
    }
    if model.gaps.is_empty() || model.gaps.len() > 20 {
        return Err(err(&format!("{f}.gaps"), "must hold 1 to 20 gaps"));
    }
    check_inputs(f, &model.inputs)?;
    let mut ids = Vec::new();
    for (si, stage) in model.stages.iter().enumerate() {
        let fs = format!("{f}.stages[{si}]");
        unique_id(&format!("{fs}.id"), &stage.id, &mut ids)?;
        bounded(&format!("{fs}.label"), &stage.label, 300)?;
        bounded(&format!("{fs}.description"), &stage.description, 1600)?;
        citations(m, &format!("{fs}.evidence"), &stage.evidence)?;
        if stage.gaps.len() > 20 {
            return Err(err(&format!("{fs}.gaps"), "must hold at most 20 gaps"));
        }
    }
    Ok(())
}

/// A model's effective period: real dates or null, `from` not after `to`.
fn check_period(f: &str, period: &Period) -> Result<(), WorkbenchError> {
    for (key, d) in [("from", &period.from), ("to", &period.to)] {
        if let Some(d) = d
            && !is_calendar_date(d)
        {
            return Err(err(
                &format!("{f}.effective_period.{key}"),
                "must be a real YYYY-MM-DD date or null",
            ));
        }
    }
    if let (Some(a), Some(b)) = (&period.from, &period.to)
        && a > b
    {
        return Err(err(
            &format!("{f}.effective_period"),
            "from must not be after to",
        ));
    }
    Ok(())
}

/// A model's proposed inputs: unique ids, bounded texts and a known type.
fn check_inputs(f: &str, inputs: &[ModelInput]) -> Result<(), WorkbenchError> {
    let mut ids = Vec::new();
    for (ii, input) in inputs.iter().enumerate() {
        let fi = format!("{f}.inputs[{ii}]");
        unique_id(&format!("{fi}.id"), &input.id, &mut ids)?;
        bounded(&format!("{fi}.label"), &input.label, 300)?;
        if !matches!(
            input.kind.as_str(),
            "money" | "date" | "boolean" | "enum" | "integer"
        ) {
            return Err(err(
                &format!("{fi}.type"),
                "must be money, date, boolean, enum or integer",
            ));
        }
        if let Some(u) = &input.unit {
            bounded(&format!("{fi}.unit"), u, 80)?;
        }
        bounded(&format!("{fi}.reason"), &input.reason, 1600)?;
        bounded(&format!("{fi}.group"), &input.group, 200)?;
    }
    Ok(())
}
