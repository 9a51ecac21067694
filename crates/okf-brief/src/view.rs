//! The parts of an `okf-governed-context.v1` package the brief reads, as small typed serde
//! structs. They are views, not the package's schema: unknown fields are ignored, and only what
//! the brief renders is required.

use serde::Deserialize;
use serde_json::Value;

/// The package, as far as the brief reads it.
#[derive(Debug, Deserialize)]
pub(crate) struct Package {
    pub schema: String,
    pub context_id: String,
    pub question: String,
    pub scope: String,
    pub evidence_status: String,
    pub bundle: Bundle,
    #[serde(default)]
    pub resolved_concepts: Vec<Concept>,
    #[serde(default)]
    pub ambiguities: Vec<Ambiguity>,
    #[serde(default)]
    pub unresolved_terms: Vec<String>,
    pub selected: Vec<Selected>,
    pub requirements: Vec<Requirement>,
    pub missing_evidence: Vec<Issue>,
    pub conflicts: Vec<Issue>,
    pub limitations: Vec<String>,
    pub budget: Budget,
    pub ai_answer: Value,
    #[serde(default)]
    pub guidance_regime: Option<GuidanceRegime>,
    #[serde(default)]
    pub declared_gaps: Vec<Gap>,
    /// Richer profile from an index with reviews (issue 45).
    #[serde(default)]
    pub review_basis: Option<ReviewBasis>,
}

/// `review_basis`: the package's specialist review summary.
#[derive(Debug, Deserialize)]
pub(crate) struct ReviewBasis {
    pub statement: String,
}

/// A requirement's `review` (richer profile, index with reviews).
#[derive(Debug, Deserialize)]
pub(crate) struct Review {
    pub statement: String,
    #[serde(default)]
    pub refusals: Vec<Refusal>,
    #[serde(default)]
    pub refused: usize,
}

/// A refused item of a requirement's closure.
#[derive(Debug, Deserialize)]
pub(crate) struct Refusal {
    pub date: String,
    pub decision: String,
    pub item: String,
    #[serde(default)]
    pub label: Option<String>,
    pub reason: String,
    pub role: String,
}

#[derive(Debug, Deserialize)]
pub(crate) struct Bundle {
    pub id: String,
    pub snapshot: String,
}

#[derive(Debug, Deserialize)]
pub(crate) struct Concept {
    pub id: String,
    pub label: String,
}

#[derive(Debug, Deserialize)]
pub(crate) struct Ambiguity {
    pub phrase: String,
    pub candidates: Vec<String>,
    #[serde(default)]
    pub reason: Option<String>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct Selected {
    pub record: Record,
    #[serde(default)]
    pub paths: Vec<Path>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct Record {
    pub id: String,
    pub label: String,
    pub kind: String,
    pub text: String,
    pub assertion_status: String,
    #[serde(default)]
    pub review_status: Option<String>,
    #[serde(default)]
    pub access: Option<String>,
    pub provenance: Vec<Provenance>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct Provenance {
    pub url: String,
    pub locator: String,
    pub captured_at: String,
    #[serde(default)]
    pub source_date: Option<String>,
    #[serde(default)]
    pub source_date_kind: Option<String>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct Path {
    pub records: Vec<String>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct Requirement {
    pub id: String,
    pub label: String,
    pub scope: String,
    pub status: String,
    pub required: Vec<String>,
    pub missing: Vec<String>,
    #[serde(default)]
    pub required_paths: Vec<Path>,
    #[serde(default)]
    pub limitations: Vec<String>,
    #[serde(default)]
    pub regime: Option<String>,
    #[serde(default)]
    pub review: Option<Review>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct Issue {
    pub message: String,
    #[serde(default)]
    pub ids: Vec<String>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct Budget {
    pub truncated: bool,
    #[serde(default)]
    pub omissions: Vec<Issue>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct GuidanceRegime {
    #[serde(default)]
    pub as_of: Option<String>,
    pub resolved: Vec<String>,
    pub unresolved: Vec<String>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct Gap {
    pub id: String,
    pub label: String,
    pub reason: String,
}
