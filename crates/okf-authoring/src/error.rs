//! The crate's one error type: every authoring error names the file, the line and the rule.

use crate::profile::MAX_EXCERPT_PAGES;
use std::fmt;

/// An authoring error at a place in a profile or capture file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}:{line}: {rule}")]
pub struct Error {
    /// The profile or capture file, as the caller named it.
    pub file: String,
    /// One-based line in that file (1 when the error concerns the file as a whole).
    pub line: usize,
    /// The rule that failed.
    pub rule: Rule,
}

/// Every rule the compiler checks, as a distinguishable kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Rule {
    /// The profile folder has no `profile.toml`.
    MissingProfile,
    /// The TOML is malformed or does not have the profile's shape (unknown or missing key,
    /// wrong type); the message is the parser's.
    Syntax(String),
    /// `[index]` is declared in no file or in more than one, or outside `profile.toml`.
    IndexSection,
    /// A capture file is not JSON of the capture shape, or a page contradicts its own digest.
    Capture(String),
    /// Two capture files, or two `[[document]]` declarations, have the same document id.
    DuplicateDocument(String),
    /// A citation names a document that no `[[document]]` declares or no capture holds.
    UnknownDocument(String),
    /// A citation names a page the capture does not hold.
    UnknownPage {
        /// Document id.
        document: String,
        /// One-based page.
        page: u32,
    },
    /// A declared `source_sha256` or `literal_sha256` differs from the capture.
    DigestMismatch {
        /// What was compared.
        what: &'static str,
        /// Declared in the profile.
        declared: String,
        /// Found in or computed from the capture.
        actual: String,
    },
    /// An excerpt selector (`quote`, `from` or `to`) does not occur in the page text, even
    /// with its line breaks and spaces matched loosely.
    ExcerptNotFound {
        /// The selector.
        selector: String,
        /// The page text where the selector's longest matching beginning is, when some of it is.
        nearest: Option<String>,
    },
    /// An excerpt selector occurs more than once, so the excerpt is not determined.
    ExcerptNotUnique(String),
    /// `quote` cannot be combined with `from`/`to`, and `from` and `to` go together.
    ExcerptSelectors,
    /// `to_page` is not a later page of the document, or comes without `from` and `to`.
    ExcerptPages {
        /// The excerpt's first page.
        page: u32,
        /// The page named by `to_page`.
        to_page: u32,
    },
    /// An evidence record must cite its text (`source`), never write it (`text`).
    EvidenceText,
    /// A record needs exactly one of `text` and `source`.
    RecordText,
    /// A field is neither given on the item nor in `[defaults]`.
    MissingField(&'static str),
    /// Two items share an id.
    DuplicateId(String),
    /// A reference names no declared record of the expected kind.
    UnknownReference {
        /// The reference as written.
        reference: String,
        /// What it had to name.
        expected: &'static str,
    },
    /// A predicate is neither a short name nor an IRI.
    UnknownPredicate(String),
    /// A required path's assertions do not chain (one's target is the next one's source).
    PathBroken(String),
    /// A declared gap names a record the profile declares, so it is not a gap.
    GapDeclared(String),
    /// A gap's `paragraphs` entry is not a five-digit DMG paragraph number.
    GapParagraph(String),
    /// The compiled index fails the engine's validation (spec §2).
    Index(String),
    /// A base index was given but `profile.toml` declares no `[compose]`.
    ComposeSection,
    /// The base index is not a valid `okf-context-index.v1` file.
    BaseIndex(String),
    /// A profile item's id is also an id of the base index.
    CollidesWithBase {
        /// The shared id.
        id: String,
        /// What the base holds under it (record, assertion, requirement, gap, regime, part).
        base_item: &'static str,
    },
    /// With `--base`: a declared gap stands for paragraphs of which the base holds some but
    /// not all, so it can be neither kept (it would be stale) nor resolved to base records.
    GapPartlyInBase {
        /// The gap id.
        gap: String,
        /// A paragraph the base holds, and the base record holding it (boxed: keeps `Rule`
        /// small).
        held: Box<(String, String)>,
        /// A paragraph of the gap the base does not hold.
        missing: String,
    },
    /// A review decision file breaks a rule of `okf-review-decision.v1`, names no item (or
    /// an item another decision already names) of the built index.
    ReviewDecision {
        /// The field concerned (`reason`, `reviewer.role`, `(file)` for the file as a whole).
        field: String,
        /// The rule it breaks.
        problem: String,
    },
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Rule::MissingProfile => write!(f, "a profile folder needs profile.toml"),
            Rule::Syntax(m) => write!(f, "not a valid profile file: {m}"),
            Rule::IndexSection => {
                write!(f, "[index] must be declared exactly once, in profile.toml")
            }
            Rule::Capture(m) => write!(f, "not a valid capture file: {m}"),
            Rule::DuplicateDocument(d) => write!(f, "document id {d:?} is declared twice"),
            Rule::UnknownDocument(d) => write!(
                f,
                "document {d:?} is not declared by a [[document]] or not found among the captures"
            ),
            Rule::UnknownPage { document, page } => {
                write!(f, "the capture of {document:?} has no page {page}")
            }
            Rule::DigestMismatch {
                what,
                declared,
                actual,
            } => write!(
                f,
                "{what} declared {declared} but the capture gives {actual}"
            ),
            Rule::ExcerptNotFound { selector, nearest } => {
                write!(f, "excerpt selector {selector:?} is not in the page text")?;
                match nearest {
                    Some(text) => write!(f, "; the nearest page text is {text:?}"),
                    None => write!(f, "; not even its first word is on the page"),
                }
            }
            Rule::ExcerptNotUnique(s) => write!(
                f,
                "excerpt selector {s:?} occurs more than once in the page text; lengthen it"
            ),
            Rule::ExcerptPages { page, to_page } => write!(
                f,
                "to_page {to_page} must be a later page than page {page}, at most {MAX_EXCERPT_PAGES} pages on, with `from` on page {page} and `to` on page {to_page}"
            ),
            Rule::ExcerptSelectors => write!(
                f,
                "an excerpt is the whole page, `quote`, or `from` with `to`; nothing else"
            ),
            Rule::EvidenceText => write!(
                f,
                "an evidence record cites its text with `source`; it may not write `text`"
            ),
            Rule::RecordText => write!(f, "a record needs exactly one of `text` and `source`"),
            Rule::MissingField(name) => {
                write!(f, "`{name}` is given neither on the item nor in [defaults]")
            }
            Rule::DuplicateId(id) => write!(f, "id {id} is declared twice"),
            Rule::UnknownReference {
                reference,
                expected,
            } => write!(f, "{reference:?} does not name a declared {expected}"),
            Rule::UnknownPredicate(p) => write!(
                f,
                "predicate {p:?} is not requires, references, related, narrower, broader or an IRI"
            ),
            Rule::PathBroken(m) => write!(f, "required path does not chain: {m}"),
            Rule::GapDeclared(g) => write!(
                f,
                "gap {g:?} names a record the profile declares; require it instead"
            ),
            Rule::GapParagraph(p) => write!(
                f,
                "gap paragraphs: {p:?} is not a five-digit DMG paragraph number"
            ),
            Rule::Index(m) => write!(f, "the compiled index is invalid: {m}"),
            Rule::ComposeSection => write!(
                f,
                "a base index is given, so profile.toml must declare [compose] (base_sha256, labels, bundle, scope)"
            ),
            Rule::BaseIndex(m) => {
                write!(f, "the base index is not a valid okf-context-index.v1: {m}")
            }
            Rule::CollidesWithBase { id, base_item } => write!(
                f,
                "id {id} is already a {base_item} of the base index; the profile must not redeclare it"
            ),
            Rule::GapPartlyInBase { gap, held, missing } => write!(
                f,
                "gap {gap} stands for DMG {}, which the base record {} holds, and for DMG {missing}, which the base does not hold; split the gap so that the base's part can be resolved",
                held.0, held.1
            ),
            Rule::ReviewDecision { field, problem } if field == "(file)" => {
                write!(f, "review decision file: {problem}")
            }
            Rule::ReviewDecision { field, problem } => {
                write!(f, "review decision field `{field}` {problem}")
            }
        }
    }
}

/// One-based line of a byte offset in a text.
pub(crate) fn line_of(text: &str, offset: usize) -> usize {
    let end = offset.min(text.len());
    text.as_bytes()[..end]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}
