//! The authoring format: TOML files of a profile folder (docs/authoring.md).
//!
//! Every table is closed (`deny_unknown_fields`), so a misspelt key is an error with its line.
//! Items are wrapped in [`Spanned`] so later rules can name the line of the offending item.

use okf_engine::model::{
    Access, Alias, AssertionStatus, Authority, Bundle, RecordKind, Vocabulary,
};
use serde::Deserialize;
use toml::Spanned;

/// One parsed profile file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ProfileFile {
    pub index: Option<Spanned<IndexDecl>>,
    pub compose: Option<Spanned<ComposeDecl>>,
    pub defaults: Option<Defaults>,
    #[serde(default)]
    pub document: Vec<Spanned<DocumentDecl>>,
    #[serde(default)]
    pub record: Vec<Spanned<RecordDecl>>,
    #[serde(default)]
    pub assertion: Vec<Spanned<AssertionDecl>>,
    #[serde(default)]
    pub requirement: Vec<Spanned<RequirementDecl>>,
    #[serde(default)]
    pub gap: Vec<Spanned<GapDecl>>,
    #[serde(default)]
    pub regime: Vec<Spanned<RegimeDecl>>,
    pub vocabulary: Option<Spanned<VocabularyDecl>>,
}

/// `[vocabulary]`: ordinary words the bundle's readers ask with that name no subject
/// (docs/authoring.md, "Words a question may use freely"). Any file may declare it; the build
/// writes the union, sorted, to the index's `vocabulary.neutral`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct VocabularyDecl {
    pub neutral: Vec<String>,
}

/// `[[regime]]`: a guidance regime, its concepts, the phrases that establish it, its dates and
/// the gaps that stand for its guidance when the bundle does not hold it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RegimeDecl {
    pub route: String,
    pub label: String,
    pub concepts: Vec<String>,
    #[serde(default)]
    pub phrases: Vec<String>,
    pub valid_from: Option<String>,
    pub valid_until: Option<String>,
    pub absent_evidence: Option<Vec<String>>,
}

/// `[index]`: what the index as a whole is.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct IndexDecl {
    /// Every id is `base` followed by the item's route.
    pub base: String,
    pub bundle: Bundle,
    pub scope: String,
    #[serde(default)]
    pub limitations: Vec<String>,
}

/// `[compose]`: the published index this profile may be composed onto (`okf build --base`),
/// and what the composed index is. Ignored by a build without a base.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ComposeDecl {
    /// SHA-256 of the base index file; the file given with `--base` must have it.
    pub base_sha256: String,
    /// Label of the base's part.
    pub base_label: String,
    /// Label of this profile's part.
    pub label: String,
    /// The regime (route) every concept of the base belongs to, written as the base part's
    /// `regime` (optional; issue 40).
    pub base_regime: Option<String>,
    /// The composed index's bundle identity (never the base's or the profile's own).
    pub bundle: Bundle,
    /// What the composed index as a whole claims to cover.
    pub scope: String,
    /// Limitations of the composition itself, after the base's and the profile's.
    #[serde(default)]
    pub limitations: Vec<String>,
}

/// `[defaults]`: per item kind, the fields an item may omit.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Defaults {
    #[serde(default)]
    pub concept: ItemDefaults,
    #[serde(default)]
    pub evidence: ItemDefaults,
    #[serde(default)]
    pub scope: ItemDefaults,
    #[serde(default)]
    pub assertion: ItemDefaults,
}

/// Fields an item of one kind may take from `[defaults.KIND]`.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ItemDefaults {
    pub access: Option<Access>,
    pub assertion_status: Option<AssertionStatus>,
    pub authority: Option<Authority>,
    pub review_status: Option<String>,
    pub rights: Option<String>,
    pub scope: Option<String>,
}

impl ItemDefaults {
    /// Field-by-field overlay: `self` wins where it has a value.
    pub fn over(&self, base: &ItemDefaults) -> ItemDefaults {
        ItemDefaults {
            access: self.access.or(base.access),
            assertion_status: self.assertion_status.or(base.assertion_status),
            authority: self.authority.clone().or_else(|| base.authority.clone()),
            review_status: self
                .review_status
                .clone()
                .or_else(|| base.review_status.clone()),
            rights: self.rights.clone().or_else(|| base.rights.clone()),
            scope: self.scope.clone().or_else(|| base.scope.clone()),
        }
    }
}

impl Defaults {
    /// Per-kind overlay of a file's defaults on the profile's.
    pub fn over(&self, base: &Defaults) -> Defaults {
        Defaults {
            concept: self.concept.over(&base.concept),
            evidence: self.evidence.over(&base.evidence),
            scope: self.scope.over(&base.scope),
            assertion: self.assertion.over(&base.assertion),
        }
    }
}

/// `[[document]]`: a captured document the profile cites, with what the capture lacks.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct DocumentDecl {
    /// The capture's `document_id`.
    pub id: String,
    /// When the document was captured (RFC 3339).
    pub captured_at: String,
    /// Optional: the capture's `source_sha256` must equal it.
    pub source_sha256: Option<String>,
    pub source_date: Option<String>,
    pub source_date_kind: Option<String>,
}

/// A citation of a captured document: `{document, page?, locator}` plus, for a record's
/// `source`, an excerpt selector and an optional pinned digest.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Citation {
    pub document: String,
    pub page: Option<u32>,
    pub locator: String,
    /// Exact text that must occur once in the page.
    pub quote: Option<String>,
    /// Start of the excerpt (occurs once in the page).
    pub from: Option<String>,
    /// End of the excerpt (its first occurrence after `from`).
    pub to: Option<String>,
    /// The page `to` is on, when the excerpt runs on past the end of `page` (a paragraph
    /// across a page break): the pages' texts are joined with one line break.
    pub to_page: Option<u32>,
    /// Optional: the copied text must hash to it.
    pub literal_sha256: Option<String>,
}

/// `[[record]]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RecordDecl {
    pub kind: RecordKind,
    pub route: String,
    pub label: String,
    /// Authored text (concepts and scope records only).
    pub text: Option<String>,
    /// Cited text, copied from the capture.
    pub source: Option<Citation>,
    /// Further provenance entries (no literal digest).
    #[serde(default)]
    pub provenance: Vec<Citation>,
    pub aliases: Option<Vec<Alias>>,
    pub conflicts_with: Option<Vec<String>>,
    pub access: Option<Access>,
    pub assertion_status: Option<AssertionStatus>,
    pub authority: Option<Authority>,
    pub review_status: Option<String>,
    pub rights: Option<String>,
    pub scope: Option<String>,
}

/// Where an assertion's provenance comes from.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub(crate) enum AssertionProvenance {
    /// `"target"`: the target record's provenance without literal digests.
    Keyword(String),
    /// Explicit citations.
    Citations(Vec<Citation>),
}

/// `[[assertion]]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct AssertionDecl {
    pub route: String,
    pub from: String,
    pub predicate: String,
    pub to: String,
    pub label: String,
    pub provenance: AssertionProvenance,
    /// Concepts that must all resolve for the edge to be followed (`context_guard`).
    pub guard: Option<Vec<String>>,
    /// The regime (route) the dependency belongs to (optional; issue 40).
    pub regime: Option<String>,
    pub assertion_status: Option<AssertionStatus>,
    pub authority: Option<Authority>,
    pub scope: Option<String>,
}

/// `[[gap]]`: a record the bundle does not hold, and why. Assertions may point to it and
/// requirements may require it, so the engine reports it missing; it is never inferred.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct GapDecl {
    pub route: String,
    pub label: String,
    pub reason: String,
    /// The five-digit DMG paragraph numbers the gap stands for (optional).
    pub paragraphs: Option<Vec<String>>,
    /// The regime (route) the gap belongs to (optional; issue 40).
    pub regime: Option<String>,
    /// The concepts (routes) the gap is about (optional; issue 40).
    pub concepts: Option<Vec<String>>,
}

/// `[[requirement]]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RequirementDecl {
    pub route: String,
    pub label: String,
    pub scope: String,
    pub when_all: Vec<String>,
    pub covers: Option<Vec<String>>,
    #[serde(default)]
    pub required: Vec<String>,
    /// Required directed paths, each a chain of assertion routes.
    pub paths: Option<Vec<Vec<String>>>,
    pub limitations: Option<Vec<String>>,
    /// The regime (route) the requirement belongs to.
    pub regime: Option<String>,
}

/// Most pages one excerpt runs on past its first (a paragraph across a page break, or two).
pub(crate) const MAX_EXCERPT_PAGES: u32 = 2;

/// The index's `vocabulary` from the declared neutral words: sorted (UTF-16 code-unit order)
/// and each once, so authors may list them in any order; `None` when no file declares any.
pub(crate) fn vocabulary_from(neutral: Option<Vec<String>>) -> Option<Vocabulary> {
    let mut neutral = neutral?;
    neutral.sort_by(|a, b| okf_engine::canonical::cmp_utf16(a, b));
    neutral.dedup();
    Some(Vocabulary { neutral })
}
