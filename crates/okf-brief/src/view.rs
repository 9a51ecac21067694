//! The parts of an `okf-governed-context.v1` package the brief reads, as small typed serde
//! structs. They are views, not the package's schema: unknown fields are ignored, and only what
//! the brief renders is required.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::borrow::Cow;
use std::ops::Deref;

/// A string of the package: borrowed from the package text when it has no escapes, so that
/// reading a package does not copy every id, label and URL.
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub(crate) struct Text<'a>(#[serde(borrow)] Cow<'a, str>);

impl Text<'_> {
    pub(crate) fn as_str(&self) -> &str {
        &self.0
    }
}

impl PartialEq<&str> for Text<'_> {
    fn eq(&self, other: &&str) -> bool {
        *self.0 == **other
    }
}

impl PartialEq<str> for Text<'_> {
    fn eq(&self, other: &str) -> bool {
        *self.0 == *other
    }
}

impl std::fmt::Display for Text<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl Deref for Text<'_> {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

/// The package, as far as the brief reads it.
#[derive(Debug, Deserialize)]
pub(crate) struct Package<'a> {
    #[serde(borrow)]
    pub schema: Text<'a>,
    #[serde(borrow)]
    pub context_id: Text<'a>,
    #[serde(borrow)]
    pub question: Text<'a>,
    #[serde(borrow)]
    pub scope: Text<'a>,
    #[serde(borrow)]
    pub evidence_status: Text<'a>,
    #[serde(borrow)]
    pub bundle: Bundle<'a>,
    #[serde(borrow, default)]
    pub resolved_concepts: Vec<Concept<'a>>,
    #[serde(borrow, default)]
    pub ambiguities: Vec<Ambiguity<'a>>,
    #[serde(borrow, default)]
    pub unresolved_terms: Vec<Text<'a>>,
    #[serde(borrow)]
    pub selected: Vec<Selected<'a>>,
    #[serde(borrow)]
    pub requirements: Vec<Requirement<'a>>,
    #[serde(borrow)]
    pub missing_evidence: Vec<Issue<'a>>,
    #[serde(borrow)]
    pub conflicts: Vec<Issue<'a>>,
    #[serde(borrow)]
    pub limitations: Vec<Text<'a>>,
    #[serde(borrow)]
    pub budget: Budget<'a>,
    pub ai_answer: Value,
    #[serde(borrow, default)]
    pub guidance_regime: Option<GuidanceRegime<'a>>,
    #[serde(borrow, default)]
    pub declared_gaps: Vec<Gap<'a>>,
    /// Richer profile from an index with reviews (issue 45).
    #[serde(borrow, default)]
    pub review_basis: Option<ReviewBasis<'a>>,
}

/// `review_basis`: the package's specialist review summary.
#[derive(Debug, Deserialize)]
pub(crate) struct ReviewBasis<'a> {
    #[serde(borrow)]
    pub statement: Text<'a>,
}

/// A requirement's `review` (richer profile, index with reviews).
#[derive(Debug, Deserialize)]
pub(crate) struct Review<'a> {
    #[serde(borrow)]
    pub statement: Text<'a>,
    #[serde(borrow, default)]
    pub refusals: Vec<Refusal<'a>>,
    #[serde(default)]
    pub refused: usize,
}

/// A refused item of a requirement's closure.
#[derive(Debug, Deserialize)]
pub(crate) struct Refusal<'a> {
    #[serde(borrow)]
    pub date: Text<'a>,
    #[serde(borrow)]
    pub decision: Text<'a>,
    #[serde(borrow)]
    pub item: Text<'a>,
    #[serde(borrow, default)]
    pub label: Option<Text<'a>>,
    #[serde(borrow)]
    pub reason: Text<'a>,
    #[serde(borrow)]
    pub role: Text<'a>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct Bundle<'a> {
    #[serde(borrow)]
    pub id: Text<'a>,
    #[serde(borrow)]
    pub snapshot: Text<'a>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct Concept<'a> {
    #[serde(borrow)]
    pub id: Text<'a>,
    #[serde(borrow)]
    pub label: Text<'a>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct Ambiguity<'a> {
    #[serde(borrow)]
    pub phrase: Text<'a>,
    #[serde(borrow)]
    pub candidates: Vec<Text<'a>>,
    #[serde(borrow, default)]
    pub reason: Option<Text<'a>>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct Selected<'a> {
    #[serde(borrow)]
    pub record: Record<'a>,
    #[serde(borrow, default)]
    pub paths: Vec<Path<'a>>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct Record<'a> {
    #[serde(borrow)]
    pub id: Text<'a>,
    #[serde(borrow)]
    pub label: Text<'a>,
    #[serde(borrow)]
    pub kind: Text<'a>,
    #[serde(borrow)]
    pub text: Text<'a>,
    #[serde(borrow)]
    pub assertion_status: Text<'a>,
    #[serde(borrow, default)]
    pub review_status: Option<Text<'a>>,
    #[serde(borrow, default)]
    pub access: Option<Text<'a>>,
    #[serde(borrow)]
    pub provenance: Vec<Provenance<'a>>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct Provenance<'a> {
    #[serde(borrow)]
    pub url: Text<'a>,
    #[serde(borrow)]
    pub locator: Text<'a>,
    #[serde(borrow)]
    pub captured_at: Text<'a>,
    #[serde(borrow, default)]
    pub source_date: Option<Text<'a>>,
    #[serde(borrow, default)]
    pub source_date_kind: Option<Text<'a>>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct Path<'a> {
    #[serde(borrow)]
    pub records: Vec<Text<'a>>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct Requirement<'a> {
    #[serde(borrow)]
    pub id: Text<'a>,
    #[serde(borrow)]
    pub label: Text<'a>,
    #[serde(borrow)]
    pub scope: Text<'a>,
    #[serde(borrow)]
    pub status: Text<'a>,
    #[serde(borrow)]
    pub required: Vec<Text<'a>>,
    #[serde(borrow)]
    pub missing: Vec<Text<'a>>,
    #[serde(borrow, default)]
    pub required_paths: Vec<Path<'a>>,
    #[serde(borrow, default)]
    pub limitations: Vec<Text<'a>>,
    #[serde(borrow, default)]
    pub regime: Option<Text<'a>>,
    #[serde(borrow, default)]
    pub review: Option<Review<'a>>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct Issue<'a> {
    #[serde(borrow)]
    pub message: Text<'a>,
    #[serde(borrow, default)]
    pub ids: Vec<Text<'a>>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct Budget<'a> {
    pub truncated: bool,
    #[serde(borrow, default)]
    pub omissions: Vec<Issue<'a>>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct GuidanceRegime<'a> {
    #[serde(borrow, default)]
    pub as_of: Option<Text<'a>>,
    #[serde(borrow)]
    pub resolved: Vec<Text<'a>>,
    #[serde(borrow)]
    pub unresolved: Vec<Text<'a>>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct Gap<'a> {
    #[serde(borrow)]
    pub id: Text<'a>,
    #[serde(borrow)]
    pub label: Text<'a>,
    #[serde(borrow)]
    pub reason: Text<'a>,
}
