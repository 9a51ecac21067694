//! A validated, immutable producer index with everything assembly needs precomputed.
//!
//! Loading does all question-independent work once: validation, the default binding digest,
//! canonical JSON of every record and assertion (packages copy them whole), per-item governance
//! issues, literal and unit digests, the outgoing-edge lists in id order and the alias table.
//! Assembly then only walks the graph.

use crate::canonical::{self, sha256_hex};
use crate::error::{Error, IndexRule, UnitRule};
use crate::model::{
    Access, Assertion, Binding, IndexDocument, Record, RecordKind, SUPPORTED_PREDICATES,
};
use crate::text;
use crate::validate::{self, is_http_url, is_timestamp};
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::collections::HashMap;

/// Per-item governance issue codes (spec §3.7), in the order they are reported.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Governance {
    /// The item declares no scope.
    MissingScope,
    /// The authority is unclassified, unlabelled or not traceable.
    MissingAuthority,
    /// The authority class is not allowed for the assertion status.
    AuthorityMismatch,
    /// Provenance is absent or malformed.
    MissingProvenance,
    /// No reuse basis (records only).
    MissingRights,
    /// Evidence without text or without a literal digest.
    MissingEvidence,
    /// The evidence unit does not prove a complete boundary.
    UnresolvedUnitBoundary,
}

impl Governance {
    /// The issue code.
    pub fn code(self) -> &'static str {
        match self {
            Governance::MissingScope => "missing_scope",
            Governance::MissingAuthority => "missing_authority",
            Governance::AuthorityMismatch => "authority_mismatch",
            Governance::MissingProvenance => "missing_provenance",
            Governance::MissingRights => "missing_rights",
            Governance::MissingEvidence => "missing_evidence",
            Governance::UnresolvedUnitBoundary => "unresolved_unit_boundary",
        }
    }
}

/// One alias group: every public concept that declares the same token sequence with the same
/// case rule. A group with more than one concept makes its phrase ambiguous.
#[derive(Debug, Clone)]
pub struct AliasGroup {
    pub(crate) key: String,
    pub(crate) tokens: Vec<String>,
    pub(crate) case_sensitive: bool,
    pub(crate) records: Vec<u32>,
    pub(crate) label: String,
}

impl AliasGroup {
    /// `"<case_sensitive>:<tokens joined by spaces>"`.
    pub fn key(&self) -> &str {
        &self.key
    }
    /// The alias or label text that created the group, as written.
    pub fn label(&self) -> &str {
        &self.label
    }
    /// Record indices of the concepts in the group, first-seen order.
    pub fn records(&self) -> &[u32] {
        &self.records
    }
}

/// A validated producer index ready for assembly.
#[derive(Debug, Clone)]
pub struct ContextIndex {
    doc: IndexDocument,
    compact_bytes: usize,
    default_binding: Binding,
    record_pos: HashMap<String, u32>,
    assertion_pos: HashMap<String, u32>,
    pub(crate) record_json: Vec<String>,
    pub(crate) assertion_json: Vec<String>,
    pub(crate) record_governance: Vec<Vec<Governance>>,
    pub(crate) assertion_governance: Vec<Vec<Governance>>,
    /// Evidence record whose text disagrees with a declared provenance literal digest.
    pub(crate) digest_mismatch: Vec<bool>,
    /// Evidence record whose unit spans do not hash to their declared fragment digests.
    pub(crate) unit_integrity_failed: Vec<bool>,
    /// Outgoing assertion indices per record index, sorted by assertion id (code-unit order).
    pub(crate) outgoing: Vec<Vec<u32>>,
    pub(crate) assertion_source: Vec<Option<u32>>,
    pub(crate) assertion_target: Vec<Option<u32>>,
    pub(crate) assertion_supported: Vec<bool>,
    pub(crate) alias_groups: Vec<AliasGroup>,
    /// Alias groups by their first token, lowercased, in creation order.
    pub(crate) alias_by_first: HashMap<String, Vec<u32>>,
    /// Restricted records resolve, are selected and are quoted like public ones
    /// ([`ContextIndex::revealing_restricted`]); false for every index as loaded.
    reveals_restricted: bool,
    /// Position in `reviews` of the recorded review of each reviewed item id (issue 45);
    /// empty for an index without reviews.
    pub(crate) review_of: HashMap<String, u32>,
    /// Per recorded review: whether it still binds its item ([`crate::review::reviews_current`]);
    /// a stale review is never counted as a decision.
    pub(crate) review_current: Vec<bool>,
}

/// Canonical JSON of a typed model value. Serialising writes canonical JSON because fields are
/// declared in canonical order (pinned by a test in this module).
fn canonical_json<T: serde::Serialize>(value: &T) -> Result<String, Error> {
    serde_json::to_string(value).map_err(|e| Error::Json {
        what: "index",
        message: e.to_string(),
    })
}

/// Canonical JSON of the whole index, assembled from the already-canonical item texts.
fn canonical_index(
    doc: &IndexDocument,
    records: &[String],
    assertions: &[String],
) -> Result<String, Error> {
    let total: usize = records.iter().chain(assertions).map(|s| s.len() + 1).sum();
    let mut out = String::with_capacity(total + 4096);
    let join = |out: &mut String, items: &[String]| {
        out.push('[');
        for (i, item) in items.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push_str(item);
        }
        out.push(']');
    };
    out.push_str("{\"assertions\":");
    join(&mut out, assertions);
    out.push_str(",\"bundle\":");
    out.push_str(&canonical_json(&doc.bundle)?);
    if let Some(gaps) = &doc.gaps {
        out.push_str(",\"gaps\":");
        out.push_str(&canonical_json(gaps)?);
    }
    out.push_str(",\"limitations\":");
    out.push_str(&canonical_json(&doc.limitations)?);
    if let Some(parts) = &doc.parts {
        out.push_str(",\"parts\":");
        out.push_str(&canonical_json(parts)?);
    }
    out.push_str(",\"records\":");
    join(&mut out, records);
    if let Some(regimes) = &doc.regimes {
        out.push_str(",\"regimes\":");
        out.push_str(&canonical_json(regimes)?);
    }
    out.push_str(",\"requirements\":");
    out.push_str(&canonical_json(&doc.requirements)?);
    if let Some(reviews) = &doc.reviews {
        out.push_str(",\"reviews\":");
        out.push_str(&canonical_json(reviews)?);
    }
    out.push_str(",\"schema\":");
    out.push_str(&canonical_json(&doc.schema)?);
    out.push_str(",\"scope\":");
    out.push_str(&canonical_json(&doc.scope)?);
    if let Some(vocabulary) = &doc.vocabulary {
        out.push_str(",\"vocabulary\":");
        out.push_str(&canonical_json(vocabulary)?);
    }
    out.push('}');
    Ok(out)
}

fn check_schema(value: &Value) -> Result<(), Error> {
    if !value.is_object() {
        return Err(Error::Index {
            path: String::new(),
            rule: IndexRule::Shape("the index must be a JSON object".into()),
        });
    }
    if value.get("schema").and_then(Value::as_str) != Some("okf-context-index.v1") {
        return Err(Error::Index {
            path: "schema".into(),
            rule: IndexRule::UnsupportedSchema,
        });
    }
    Ok(())
}

fn json_error(what: &'static str, e: &serde_json::Error) -> Error {
    Error::Json {
        what,
        message: e.to_string(),
    }
}

/// The evidence-unit rule for a shape error inside an `evidence_unit` object (spec §2.2 lists
/// unexpected or missing fields and malformed spans as evidence-unit errors), or `None`.
fn unit_shape_rule(path: &str) -> Option<UnitRule> {
    let (_, inside) = path.split_once(".evidence_unit")?;
    if !(inside.is_empty() || inside.starts_with('.')) {
        return None;
    }
    Some(match inside.strip_prefix(".spans") {
        Some("") => UnitRule::BadSpanCount,
        Some(rest) if rest.starts_with('[') => UnitRule::MalformedSpan,
        _ => UnitRule::UnexpectedOrMissingFields,
    })
}

/// Maps a serde shape error at a JSON path to an index rule.
fn shape_error(e: serde_path_to_error::Error<serde_json::Error>) -> Error {
    let path = e.path().to_string();
    let path = if path == "." { String::new() } else { path };
    if let Some(rule) = unit_shape_rule(&path) {
        return Error::EvidenceUnit { path, rule };
    }
    let message = e.inner().to_string();
    let quoted = |m: &str| m.split('`').nth(1).unwrap_or_default().to_owned();
    let rule = if message.starts_with("unknown field") {
        IndexRule::UnknownKey(quoted(&message))
    } else if message.starts_with("missing field") {
        IndexRule::MissingKey(quoted(&message))
    } else if message.starts_with("data did not match any variant of untagged enum Alias") {
        IndexRule::Shape(
            "an alias must be a string or {label: string, case_sensitive: boolean}".into(),
        )
    } else {
        IndexRule::Shape(message)
    };
    Error::Index { path, rule }
}

impl ContextIndex {
    /// Parses and validates an index from JSON text.
    pub fn from_json_str(text: &str) -> Result<Self, Error> {
        Self::from_json_slice(text.as_bytes())
    }

    /// Parses and validates an index from JSON bytes (which must be UTF-8).
    pub fn from_json_slice(bytes: &[u8]) -> Result<Self, Error> {
        let mut de = serde_json::Deserializer::from_slice(bytes);
        let parsed: Result<IndexDocument, _> = serde_path_to_error::deserialize(&mut de);
        let doc = match parsed {
            Ok(doc) => doc,
            // Report a foreign document as such rather than by its first unexpected key.
            Err(e) => {
                let value: Value =
                    serde_json::from_slice(bytes).map_err(|e| json_error("index", &e))?;
                check_schema(&value)?;
                return Err(shape_error(e));
            }
        };
        de.end().map_err(|e| json_error("index", &e))?;
        Self::build(doc, None)
    }

    /// Validates an already-typed index document.
    pub fn new(doc: IndexDocument) -> Result<Self, Error> {
        Self::build(doc, None)
    }

    /// Validates a parsed JSON index; `expected_snapshot`, when given, must equal
    /// `bundle.snapshot`.
    pub fn from_value(value: Value, expected_snapshot: Option<&str>) -> Result<Self, Error> {
        check_schema(&value)?;
        let doc: IndexDocument = serde_path_to_error::deserialize(&value).map_err(shape_error)?;
        Self::build(doc, expected_snapshot)
    }

    fn build(doc: IndexDocument, expected_snapshot: Option<&str>) -> Result<Self, Error> {
        let record_json: Vec<String> = doc
            .records
            .iter()
            .map(canonical_json)
            .collect::<Result<_, _>>()?;
        let assertion_json: Vec<String> = doc
            .assertions
            .iter()
            .map(canonical_json)
            .collect::<Result<_, _>>()?;
        let canonical = canonical_index(&doc, &record_json, &assertion_json)?;
        validate::validate_document(&doc, canonical.len(), expected_snapshot)?;
        let compact_bytes = canonical.len();
        let default_binding = Binding {
            index_url: doc.bundle.source_url.clone(),
            index_sha256: sha256_hex(canonical.as_bytes()),
        };
        drop(canonical);

        let record_pos: HashMap<String, u32> = doc
            .records
            .iter()
            .enumerate()
            .map(|(i, r)| (r.id.clone(), index_u32(i)))
            .collect();
        let assertion_pos: HashMap<String, u32> = doc
            .assertions
            .iter()
            .enumerate()
            .map(|(i, a)| (a.id.clone(), index_u32(i)))
            .collect();

        let record_governance = doc.records.iter().map(record_governance).collect();
        let assertion_governance = doc.assertions.iter().map(assertion_governance).collect();
        let digest_mismatch = doc.records.iter().map(has_digest_mismatch).collect();
        let unit_integrity_failed = doc.records.iter().map(unit_integrity_fails).collect();

        let assertion_source: Vec<Option<u32>> = doc
            .assertions
            .iter()
            .map(|a| record_pos.get(&a.source).copied())
            .collect();
        let assertion_target = doc
            .assertions
            .iter()
            .map(|a| record_pos.get(&a.target).copied())
            .collect();
        let assertion_supported = doc
            .assertions
            .iter()
            .map(|a| SUPPORTED_PREDICATES.contains(&a.predicate.as_str()))
            .collect();
        let mut outgoing: Vec<Vec<u32>> = vec![Vec::new(); doc.records.len()];
        let mut by_id: Vec<u32> = (0..index_u32(doc.assertions.len())).collect();
        // Code-unit order, not locale collation (DEVIATIONS.md, W1).
        by_id.sort_by(|&a, &b| {
            canonical::cmp_utf16(
                &doc.assertions[a as usize].id,
                &doc.assertions[b as usize].id,
            )
        });
        for a in by_id {
            if let Some(s) = assertion_source[a as usize] {
                outgoing[s as usize].push(a);
            }
        }

        let (alias_groups, alias_by_first) = build_alias_table(&doc.records, false);
        let review_of = doc
            .reviews
            .iter()
            .flatten()
            .enumerate()
            .map(|(i, r)| (r.item.clone(), index_u32(i)))
            .collect();
        let review_current = crate::review::reviews_current(&doc);
        Ok(ContextIndex {
            doc,
            compact_bytes,
            default_binding,
            record_pos,
            assertion_pos,
            record_json,
            assertion_json,
            record_governance,
            assertion_governance,
            digest_mismatch,
            unit_integrity_failed,
            outgoing,
            assertion_source,
            assertion_target,
            assertion_supported,
            alias_groups,
            alias_by_first,
            reveals_restricted: false,
            review_of,
            review_current,
        })
    }

    /// The same index for a caller allowed to read its restricted records (an access policy
    /// that grants them, in `okf serve`): restricted concepts resolve and restricted records
    /// are selected and quoted like public ones. Their record JSON is unchanged, so a package
    /// still marks them `"access": "restricted"`; the binding is the same file's.
    pub fn revealing_restricted(&self) -> Self {
        let (alias_groups, alias_by_first) = build_alias_table(&self.doc.records, true);
        ContextIndex {
            alias_groups,
            alias_by_first,
            reveals_restricted: true,
            ..self.clone()
        }
    }

    /// Whether a record may be resolved, selected and quoted: public ones always, restricted
    /// ones only by an index [revealing](ContextIndex::revealing_restricted) them.
    pub(crate) fn may_quote(&self, record: &Record) -> bool {
        record.access == Access::Public || self.reveals_restricted
    }

    /// The typed index document.
    pub fn document(&self) -> &IndexDocument {
        &self.doc
    }

    /// Bytes of the compact (equivalently canonical) JSON serialisation.
    pub fn compact_bytes(&self) -> usize {
        self.compact_bytes
    }

    /// The binding used when the caller supplies none: `bundle.source_url` and the SHA-256 of
    /// the canonical JSON of the index (spec §1.2).
    pub fn default_binding(&self) -> &Binding {
        &self.default_binding
    }

    /// Index of a record by id.
    pub fn record_index(&self, id: &str) -> Option<usize> {
        self.record_pos.get(id).map(|&i| i as usize)
    }

    /// A record by id.
    pub fn record(&self, id: &str) -> Option<&Record> {
        self.record_index(id).map(|i| &self.doc.records[i])
    }

    /// Index of an assertion by id.
    pub fn assertion_index(&self, id: &str) -> Option<usize> {
        self.assertion_pos.get(id).map(|&i| i as usize)
    }

    /// An assertion by id.
    pub fn assertion(&self, id: &str) -> Option<&Assertion> {
        self.assertion_index(id).map(|i| &self.doc.assertions[i])
    }

    /// The alias table, in creation order (records in index order, label before aliases).
    pub fn alias_groups(&self) -> &[AliasGroup] {
        &self.alias_groups
    }

    /// Canonical JSON of an assertion, as packages copy it.
    pub fn assertion_canonical_json(&self, index: usize) -> &str {
        &self.assertion_json[index]
    }

    /// Canonical JSON of a record, as packages copy it.
    pub fn record_canonical_json(&self, index: usize) -> &str {
        &self.record_json[index]
    }

    /// Governance issue codes of a record (spec §3.7).
    pub fn record_governance(&self, index: usize) -> &[Governance] {
        &self.record_governance[index]
    }

    /// Governance issue codes of an assertion (spec §3.7).
    pub fn assertion_governance(&self, index: usize) -> &[Governance] {
        &self.assertion_governance[index]
    }

    /// True when the record's text disagrees with a declared `literal_sha256`.
    pub fn record_digest_mismatch(&self, index: usize) -> bool {
        self.digest_mismatch[index]
    }

    /// True when a span of the record's evidence unit does not hash to its fragment digest.
    pub fn record_unit_integrity_failed(&self, index: usize) -> bool {
        self.unit_integrity_failed[index]
    }

    /// True when the id is a declared gap (guidance the bundle knowingly does not hold).
    pub fn is_declared_gap(&self, id: &str) -> bool {
        self.doc.gaps.iter().flatten().any(|g| g.id == id)
    }

    /// True when the record is a public concept (the only records questions resolve to).
    pub fn is_public_concept(&self, id: &str) -> bool {
        self.record(id)
            .is_some_and(|r| r.kind == RecordKind::Concept && self.may_quote(r))
    }
}

/// Index positions are bounded by the record and assertion limits, far below `u32::MAX`.
pub(crate) fn index_u32(i: usize) -> u32 {
    u32::try_from(i).unwrap_or(u32::MAX)
}

fn blank(s: &str) -> bool {
    s.trim().is_empty()
}

fn governance_common(
    scope: &str,
    authority: &crate::model::Authority,
    status: crate::model::AssertionStatus,
    provenance: &[crate::model::Provenance],
) -> Vec<Governance> {
    let mut out = Vec::new();
    if blank(scope) {
        out.push(Governance::MissingScope);
    }
    let class = authority.class.trim();
    if blank(&authority.label)
        || !is_http_url(&authority.source)
        || class.is_empty()
        || class == "unclassified"
    {
        out.push(Governance::MissingAuthority);
    }
    if !status
        .allowed_authority_classes()
        .contains(&authority.class.as_str())
    {
        out.push(Governance::AuthorityMismatch);
    }
    let bad_entry = |p: &crate::model::Provenance| {
        !is_http_url(&p.url)
            || !canonical::is_hex64(&p.source_sha256)
            || blank(&p.locator)
            || !is_timestamp(&p.captured_at)
    };
    if provenance.is_empty() || provenance.iter().any(bad_entry) {
        out.push(Governance::MissingProvenance);
    }
    out
}

fn record_governance(r: &Record) -> Vec<Governance> {
    let mut out = governance_common(&r.scope, &r.authority, r.assertion_status, &r.provenance);
    if blank(&r.rights) {
        out.push(Governance::MissingRights);
    }
    if r.kind == RecordKind::Evidence
        && (blank(&r.text)
            || !r
                .provenance
                .iter()
                .any(|p| p.literal_sha256.as_deref().is_some_and(canonical::is_hex64)))
    {
        out.push(Governance::MissingEvidence);
    }
    if r.evidence_unit
        .as_ref()
        .is_some_and(|u| u.completeness != "complete-within-declared-boundary")
    {
        out.push(Governance::UnresolvedUnitBoundary);
    }
    out
}

fn assertion_governance(a: &Assertion) -> Vec<Governance> {
    governance_common(&a.scope, &a.authority, a.assertion_status, &a.provenance)
}

fn has_digest_mismatch(r: &Record) -> bool {
    if r.kind != RecordKind::Evidence || !r.provenance.iter().any(|p| p.literal_sha256.is_some()) {
        return false;
    }
    let digest = sha256_hex(r.text.as_bytes());
    r.provenance
        .iter()
        .any(|p| p.literal_sha256.as_deref().is_some_and(|l| l != digest))
}

fn unit_integrity_fails(r: &Record) -> bool {
    let Some(unit) = &r.evidence_unit else {
        return false;
    };
    unit.spans.iter().any(|s| {
        let range = usize::try_from(s.unit_start)
            .ok()
            .zip(usize::try_from(s.unit_end).ok());
        match range.and_then(|(a, b)| r.text.as_bytes().get(a..b)) {
            Some(bytes) => canonical::hex_lower(&Sha256::digest(bytes)) != s.literal_sha256,
            None => true,
        }
    })
}

fn build_alias_table(
    records: &[Record],
    with_restricted: bool,
) -> (Vec<AliasGroup>, HashMap<String, Vec<u32>>) {
    let mut groups: Vec<AliasGroup> = Vec::new();
    let mut by_key: HashMap<String, u32> = HashMap::new();
    let mut by_first: HashMap<String, Vec<u32>> = HashMap::new();
    for (ri, r) in records.iter().enumerate() {
        if r.kind != RecordKind::Concept || (r.access != Access::Public && !with_restricted) {
            continue;
        }
        let label = std::iter::once((r.label.as_str(), false));
        let aliases = r
            .aliases
            .iter()
            .flatten()
            .map(|a| (a.text(), a.case_sensitive()));
        for (text_value, case_sensitive) in label.chain(aliases) {
            let tokens = if case_sensitive {
                text::exact_tokens(text_value)
            } else {
                text::folded_tokens(text_value)
            };
            let Some(first) = tokens.first() else {
                continue;
            };
            let key = format!("{case_sensitive}:{}", tokens.join(" "));
            let ri = index_u32(ri);
            if let Some(&g) = by_key.get(&key) {
                let group = &mut groups[g as usize];
                if !group.records.contains(&ri) {
                    group.records.push(ri);
                }
                continue;
            }
            let g = index_u32(groups.len());
            by_key.insert(key.clone(), g);
            by_first.entry(first.to_lowercase()).or_default().push(g);
            groups.push(AliasGroup {
                key,
                tokens,
                case_sensitive,
                records: vec![ri],
                label: text_value.to_owned(),
            });
        }
    }
    (groups, by_first)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_serialisation_is_canonical_json() {
        let text = include_str!("../../okf/example/index.json");
        let value: Value = serde_json::from_str(text).unwrap_or_default();
        let index = ContextIndex::from_json_str(text).map_err(|e| e.to_string());
        let index = index.as_ref().map_err(String::clone);
        assert!(index.is_ok(), "{index:?}");
        let expected = canonical::to_canonical_string(&value).unwrap_or_default();
        let doc = index
            .map(|i| i.document().clone())
            .unwrap_or_else(|_| unreachable!());
        let records: Vec<String> = doc
            .records
            .iter()
            .map(|r| serde_json::to_string(r).unwrap_or_default())
            .collect();
        let assertions: Vec<String> = doc
            .assertions
            .iter()
            .map(|a| serde_json::to_string(a).unwrap_or_default())
            .collect();
        assert_eq!(
            canonical_index(&doc, &records, &assertions).unwrap_or_default(),
            expected
        );
    }

    #[test]
    fn serde_json_escapes_strings_like_json_stringify() {
        let all: String = (0u8..0x80)
            .map(char::from)
            .chain("é\u{2028}😀\u{fffd}".chars())
            .collect();
        let mut ours = String::new();
        canonical::write_str(&mut ours, &all);
        assert_eq!(serde_json::to_string(&all).unwrap_or_default(), ours);
    }
}
