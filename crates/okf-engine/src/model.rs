//! Typed data model of the producer index `okf-context-index.v1` (spec §1.1, §1.4).
//!
//! Every object of the format is closed, so every struct rejects unknown fields. Fields are
//! declared in canonical (code-unit) order, so `serde_json` writes these types as canonical
//! JSON directly (a test pins this). Shape
//! (types, required keys, enums) is checked by serde; the value rules of spec §2 are checked
//! by [`crate::validate`].

use crate::canonical::{Sink, write_str, write_strs};
use serde::{Deserialize, Serialize};
use std::borrow::Cow;

/// The producer index, as published by a bundle author.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IndexDocument {
    /// Directed assertions between records.
    pub assertions: Vec<Assertion>,
    /// Identity of the bundle this index belongs to.
    pub bundle: Bundle,
    /// Declared gaps: ids of guidance the bundle knowingly does not hold (this project's
    /// additive extension; absent in reference indexes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gaps: Option<Vec<Gap>>,
    /// Author-declared limitations, copied into every package.
    pub limitations: Vec<String>,
    /// The parts a composed index was built from, each with its concepts (this project's
    /// additive extension; absent in reference and uncomposed indexes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parts: Option<Vec<Part>>,
    /// Concept, evidence and scope records.
    pub records: Vec<Record>,
    /// Guidance regimes the concepts belong to (this project's additive extension; absent in
    /// reference indexes, which then behave exactly as before).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub regimes: Option<Vec<Regime>>,
    /// Author-declared evidence requirements.
    pub requirements: Vec<Requirement>,
    /// Specialist review decisions applied at build time (this project's additive extension,
    /// issue 45; absent when none were applied, so such an index is byte-identical to one
    /// built before it existed). Sorted by `item`; the engine validates it and otherwise
    /// ignores it: a decision never changes an item's `assertion_status` or `authority`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reviews: Option<Vec<Review>>,
    /// Always `okf-context-index.v1`.
    pub schema: String,
    /// What the index as a whole claims to cover.
    pub scope: String,
    /// Words the bundle's readers use to ask that name no subject (this project's additive
    /// extension, issue 44; absent in reference indexes, which then resolve exactly as before).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vocabulary: Option<Vocabulary>,
}

/// The publisher's question vocabulary: ordinary words a question may use without naming a
/// subject. Left over after alias matching, a neutral word is dropped like the built-in
/// question scaffolding instead of becoming an unresolved term.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Vocabulary {
    /// Single folded words (lowercase, no marks, letters and numbers only), sorted by UTF-16
    /// code unit, each once, none of them built-in scaffolding.
    pub neutral: Vec<String>,
}

/// A declared gap: guidance the bundle knowingly does not hold. Assertions may point to it and
/// requirements may require it; traversal and requirements then report it missing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Gap {
    /// Concept ids the gap is about (additive, issue 40). When declared, a regime's
    /// `absent_evidence` names the gap only for a question that resolves one of them or leaves
    /// one open, so an ESA question is never told it lacks JSA guidance.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub concepts: Option<Vec<String>>,
    /// IRI; never a record id.
    pub id: String,
    /// What is missing.
    pub label: String,
    /// Why it is missing (for example an unreconciled source dependency).
    pub reason: String,
    /// The DMG paragraph numbers (five digits) the gap stands for, when it stands for
    /// paragraphs: `okf lint` reports the gap when a record of the index holds one of them,
    /// and `okf build --base` resolves it to the base records holding them. Additive
    /// (DEVIATIONS A7).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paragraphs: Option<Vec<String>>,
    /// The guidance regime the gap belongs to (additive, issue 40): an assertion pointing at
    /// it is followed, and counted as a dependency, only when the question establishes that
    /// regime or leaves it open (so a question about a date before the regime is never told
    /// it lacks the regime's guidance).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub regime: Option<String>,
}

/// One applied review decision (`okf-review-decision.v1`, schemas/review-decision.schema.json)
/// as the index records it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Review {
    /// The day of the decision (`YYYY-MM-DD`).
    pub date: String,
    /// What the reviewer decided.
    pub decision: ReviewDecision,
    /// SHA-256 of the decision file's bytes.
    pub decision_sha256: String,
    /// Id of the reviewed item: a record, assertion, requirement or declared gap.
    pub item: String,
    /// SHA-256 of the item's canonical JSON when the decision was made (and applied).
    pub item_sha256: String,
    /// Why, in the reviewer's words.
    pub reason: String,
    /// Who reviewed, by role and an opaque id (no personal data).
    pub reviewer: Reviewer,
}

/// A review decision's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ReviewDecision {
    /// The item stands as written.
    Approved,
    /// The item must change before it is approved.
    ChangesRequired,
    /// The item is wrong.
    Rejected,
}

impl ReviewDecision {
    /// The wire value.
    pub fn as_str(self) -> &'static str {
        match self {
            ReviewDecision::Approved => "approved",
            ReviewDecision::ChangesRequired => "changes-required",
            ReviewDecision::Rejected => "rejected",
        }
    }
}

/// A reviewer: a role and an opaque id.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Reviewer {
    /// An opaque reviewer id, such as `r-017`.
    pub id: String,
    /// The reviewer's role, such as `DWP policy specialist`.
    pub role: String,
}

/// One part of a composed index (a published base index, or the profile composed onto it) and
/// the concepts it contributed. A phrase ambiguous only between concepts of different parts is
/// narrowed to the part the question's other concepts all come from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Part {
    /// Concept ids this part contributed; a concept belongs to at most one part.
    pub concepts: Vec<String>,
    /// IRI, unique among parts.
    pub id: String,
    /// SHA-256 of the published index file this part was taken from, when it is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index_sha256: Option<String>,
    /// Human-readable label.
    pub label: String,
    /// The guidance regime every concept of this part belongs to (additive, issue 40), as if
    /// listed in that regime's `concepts`: a published base that holds only legacy DMG guidance
    /// is declared legacy DMG when composed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub regime: Option<String>,
}

/// A guidance regime, such as legacy DMG or New Style ADM, and the concepts that belong to it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Regime {
    /// Gap ids of this regime's guidance that the bundle does not hold. When non-empty, a
    /// question that establishes the regime or leaves it open is told so by name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub absent_evidence: Option<Vec<String>>,
    /// Public concept ids that belong to this regime.
    pub concepts: Vec<String>,
    /// IRI, unique among regimes.
    pub id: String,
    /// Human-readable label.
    pub label: String,
    /// Phrases that establish the regime in a question ("income-based", "New Style").
    pub phrases: Vec<String>,
    /// First day the regime applies (`YYYY-MM-DD`), when declared.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub valid_from: Option<String>,
    /// First day the regime no longer applies (`YYYY-MM-DD`), when declared.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub valid_until: Option<String>,
}

/// Bundle identity `{id, snapshot, source_url}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Bundle {
    /// IRI of the bundle.
    pub id: String,
    /// Snapshot label; may be empty (spec W3).
    pub snapshot: String,
    /// HTTP URL the bundle is published at; the default binding URL.
    pub source_url: String,
}

/// The kind of a record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RecordKind {
    /// A declared meaning that questions resolve to through its label and aliases.
    Concept,
    /// A source passage.
    Evidence,
    /// A statement of scope.
    Scope,
}

/// How an item was asserted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AssertionStatus {
    /// Stated by the official source.
    Official,
    /// Normalised from a source by the author.
    Normalized,
    /// Inferred by the author.
    Inferred,
    /// Produced with a model's help.
    ModelDerived,
}

impl AssertionStatus {
    /// Authority classes that are consistent with this status (spec §3.7).
    pub fn allowed_authority_classes(self) -> &'static [&'static str] {
        match self {
            AssertionStatus::Official => &["official"],
            AssertionStatus::ModelDerived => &["model-assisted", "synthetic"],
            AssertionStatus::Normalized | AssertionStatus::Inferred => &["derived", "synthetic"],
        }
    }
}

/// Who may see a record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Access {
    /// May be emitted in packages.
    Public,
    /// Never selected, expanded or quoted.
    Restricted,
}

/// Authority of a record or assertion.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Authority {
    /// Authority class, for example `official` or `derived`.
    pub class: String,
    /// Human-readable authority.
    pub label: String,
    /// HTTP URL of the authority.
    pub source: String,
}

/// One provenance entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Provenance {
    /// When the source was captured (RFC 3339 timestamp).
    pub captured_at: String,
    /// SHA-256 of the whole record text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub literal_sha256: Option<String>,
    /// Where in the source.
    pub locator: String,
    /// Optional date printed in the source.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_date: Option<String>,
    /// What `source_date` means.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_date_kind: Option<String>,
    /// SHA-256 of the source.
    pub source_sha256: String,
    /// Source URL.
    pub url: String,
}

/// An alias: a plain case-insensitive string, or an object with explicit case sensitivity.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Alias {
    /// Case-insensitive alias text.
    Plain(String),
    /// Alias with explicit case sensitivity.
    Object(AliasObject),
}

/// The object form of an alias.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AliasObject {
    /// Whether the alias only matches with the same letter case.
    pub case_sensitive: bool,
    /// Alias text.
    pub label: String,
}

impl Alias {
    /// The alias text.
    pub fn text(&self) -> &str {
        match self {
            Alias::Plain(s) => s,
            Alias::Object(o) => &o.label,
        }
    }
    /// Whether the alias matches case-sensitively.
    pub fn case_sensitive(&self) -> bool {
        matches!(
            self,
            Alias::Object(AliasObject {
                case_sensitive: true,
                ..
            })
        )
    }
}

/// A record of the index.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Record {
    /// Public or restricted.
    pub access: Access,
    /// Declared aliases (concepts resolve through them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aliases: Option<Vec<Alias>>,
    /// How the record was asserted.
    pub assertion_status: AssertionStatus,
    /// Who stands behind the record.
    pub authority: Authority,
    /// Ids this record is declared to conflict with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conflicts_with: Option<Vec<String>>,
    /// Evidence-unit metadata binding the text to source spans.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evidence_unit: Option<EvidenceUnit>,
    /// IRI, unique among records.
    pub id: String,
    /// Concept, evidence or scope.
    pub kind: RecordKind,
    /// Label, 1–500 characters.
    pub label: String,
    /// Where the text comes from.
    pub provenance: Vec<Provenance>,
    /// Review status label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub review_status: Option<String>,
    /// Basis for reuse.
    pub rights: String,
    /// Safe relative route such as `evidence/library`.
    pub route: String,
    /// Applicability scope of the record.
    pub scope: String,
    /// Passage or description text.
    pub text: String,
}

/// A directed assertion (edge) between two records.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Assertion {
    /// How the assertion was made.
    pub assertion_status: AssertionStatus,
    /// Who stands behind it.
    pub authority: Authority,
    /// Routing condition: the edge is followed only when all listed concepts were resolved.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_guard: Option<ContextGuard>,
    /// IRI, unique among assertions.
    pub id: String,
    /// Human-readable label.
    pub label: String,
    /// Id of the assertion this one was derived from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub original_assertion_id: Option<String>,
    /// Predicate IRI; only five are followed.
    pub predicate: String,
    /// Where it comes from.
    pub provenance: Vec<Provenance>,
    /// The guidance regime this dependency belongs to (additive, issue 40): the edge is
    /// followed, and counted as a dependency, only when the question establishes that regime
    /// or leaves it open.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub regime: Option<String>,
    /// Applicability scope.
    pub scope: String,
    /// Record id the edge starts from.
    pub source: String,
    /// Record id the edge points to.
    pub target: String,
}

/// Routing guard of an assertion (spec §3.6).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContextGuard {
    /// 1–8 unique concept ids that must all be resolved.
    pub when_all: Vec<String>,
}

/// An author-declared evidence requirement.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Requirement {
    /// Further resolved concepts this requirement covers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub covers: Option<Vec<String>>,
    /// IRI, unique among requirements.
    pub id: String,
    /// Human-readable label.
    pub label: String,
    /// Limitations of this requirement.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limitations: Option<Vec<String>>,
    /// The guidance regime this requirement belongs to (additive): it applies only when the
    /// question establishes that regime or leaves it open, and the regime is in force.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub regime: Option<String>,
    /// Record ids that must be selected.
    pub required: Vec<String>,
    /// Directed paths that must be present.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required_paths: Option<Vec<PathSpec>>,
    /// Applicability scope.
    pub scope: String,
    /// Concepts that must all be resolved for the requirement to apply.
    pub when_all: Vec<String>,
}

/// A directed path `{seed, assertions, records}`; used in requirements and packages.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PathSpec {
    /// Assertion ids, one per hop.
    pub assertions: Vec<String>,
    /// Record ids, one more than the hops; `records[0] == seed`.
    pub records: Vec<String>,
    /// First record of the path.
    pub seed: String,
}

/// Evidence-unit metadata `okf-evidence-unit.v1` (spec §1.4).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EvidenceUnit {
    /// `machine-detected` or `author-declared`.
    pub boundary_status: String,
    /// `complete-within-declared-boundary`, `unresolved` or `fallback`.
    pub completeness: String,
    /// `""`, `"\n"` or `"\n\n"`.
    pub joiner: String,
    /// Unit kind, for example `paragraph`.
    pub kind: String,
    /// Always `utf-8-bytes`.
    pub offset_unit: String,
    /// Always `okf-evidence-unit.v1`.
    pub schema: String,
    /// 1–32 spans tiling the text.
    pub spans: Vec<Span>,
}

/// One span of an evidence unit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Span {
    /// SHA-256 of the extraction.
    pub extraction_sha256: String,
    /// Extraction URL.
    pub extraction_url: String,
    /// SHA-256 of the unit bytes this span covers.
    pub literal_sha256: String,
    /// Locator inside the source.
    pub locator: String,
    /// End offset in the source text (exclusive).
    pub source_end: u64,
    /// SHA-256 of the source document.
    pub source_sha256: String,
    /// Start offset in the source text (UTF-8 bytes).
    pub source_start: u64,
    /// Byte length of the decoded source text.
    pub source_text_bytes: u64,
    /// SHA-256 of the decoded source text.
    pub source_text_sha256: String,
    /// Source document URL.
    pub source_url: String,
    /// End offset in the record text (exclusive).
    pub unit_end: u64,
    /// Start offset in the record text.
    pub unit_start: u64,
}

/// The binding of a package to the exact index it was assembled from (spec §1.2).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Binding {
    /// SHA-256 of the index (hex64).
    pub index_sha256: String,
    /// HTTP URL of the index.
    pub index_url: String,
}

/// The only predicates traversal follows.
pub const SUPPORTED_PREDICATES: [&str; 5] = [
    "http://purl.org/dc/terms/references",
    "http://purl.org/dc/terms/requires",
    "http://www.w3.org/2004/02/skos/core#related",
    "http://www.w3.org/2004/02/skos/core#narrower",
    "http://www.w3.org/2004/02/skos/core#broader",
];

/// The predicate that declares a context dependency.
pub const REQUIRES_PREDICATE: &str = "http://purl.org/dc/terms/requires";

/// One issue: a stable code, this engine's message, and the ids it concerns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Issue {
    /// Stable issue code shared with the reference.
    pub code: &'static str,
    /// Human-readable explanation (this project's wording).
    pub message: Cow<'static, str>,
    /// Ids the issue concerns (may be empty).
    pub ids: Vec<String>,
}

/// Writes one issue object `{code, ids, message}` in canonical key order.
pub(crate) fn write_issue<S: Sink + ?Sized>(
    out: &mut S,
    code: &str,
    ids: &[String],
    message: &str,
) {
    out.raw("{\"code\":");
    write_str(out, code);
    out.raw(",\"ids\":");
    write_strs(out, ids);
    out.raw(",\"message\":");
    write_str(out, message);
    out.byte(b'}');
}

/// Writes a JSON array of issues.
pub(crate) fn write_issues<S: Sink + ?Sized>(out: &mut S, issues: &[Issue]) {
    out.byte(b'[');
    for (i, issue) in issues.iter().enumerate() {
        if i > 0 {
            out.byte(b',');
        }
        write_issue(out, issue.code, &issue.ids, &issue.message);
    }
    out.byte(b']');
}

#[cfg(test)]
mod tests {
    use super::AssertionStatus;

    /// The authoring guide's table of statuses and the authority classes each allows is the
    /// engine's own rule, row for row.
    #[test]
    fn the_authoring_guide_states_the_status_and_authority_rule_as_the_engine_has_it() {
        let guide = include_str!("../../../docs/authoring.md");
        for (status, name) in [
            (AssertionStatus::Official, "official"),
            (AssertionStatus::Normalized, "normalized"),
            (AssertionStatus::Inferred, "inferred"),
            (AssertionStatus::ModelDerived, "model-derived"),
        ] {
            let row = guide
                .lines()
                .find(|l| l.starts_with(&format!("| `{name}` |")))
                .unwrap_or_default();
            let classes: Vec<String> = status
                .allowed_authority_classes()
                .iter()
                .map(|c| format!("`{c}`"))
                .collect();
            assert!(
                row.ends_with(&format!("| {} |", classes.join(", "))),
                "{name}: docs/authoring.md has {row:?}"
            );
        }
    }
}
