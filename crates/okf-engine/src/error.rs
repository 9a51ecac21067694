//! The engine's one error type.
//!
//! Every rejection names where in the input it happened and which rule failed, as a
//! distinguishable kind, so callers and tests can match on the kind rather than on wording.

use std::fmt;

/// ` at PATH`, or nothing for the document itself (whose path is empty).
fn at(path: &str) -> String {
    if path.is_empty() {
        String::new()
    } else {
        format!(" at {path}")
    }
}

/// Everything the engine can reject.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// The index is not valid `okf-context-index.v1`.
    #[error("invalid index{}: {rule}", at(path))]
    Index {
        /// JSON path of the offending value, such as `records[3].route`.
        path: String,
        /// The rule that failed.
        rule: IndexRule,
    },
    /// An evidence unit breaks the `okf-evidence-unit.v1` rules.
    #[error("invalid evidence unit at {path}: {rule}")]
    EvidenceUnit {
        /// JSON path of the offending value.
        path: String,
        /// The rule that failed.
        rule: UnitRule,
    },
    /// The question is empty, blank or too long.
    #[error("question: {0}")]
    Question(QuestionRule),
    /// The binding is not `{index_url: HTTP URL, index_sha256: hex64}`.
    #[error("binding.{field}: {reason}")]
    Binding {
        /// `index_url` or `index_sha256`.
        field: &'static str,
        /// Why it was refused.
        reason: &'static str,
    },
    /// The budget is not an object of the four known integer limits within range.
    #[error("budget{}: {rule}", .key.as_deref().map(|k| format!(".{k}")).unwrap_or_default())]
    Budget {
        /// The offending key, when there is one.
        key: Option<String>,
        /// The rule that failed.
        rule: BudgetRule,
    },
    /// Even the smallest refusal package does not fit the byte budget (spec §3.10, final guard).
    #[error(
        "budget.max_bytes: {max_bytes} bytes cannot hold even the question and bundle identity ({needed} bytes needed)"
    )]
    PackageTooSmall {
        /// The requested limit.
        max_bytes: u64,
        /// Bytes the metadata-only package needs.
        needed: u64,
    },
    /// Input JSON could not be parsed at all.
    #[error("{what} is not JSON: {message}")]
    Json {
        /// What was being parsed.
        what: &'static str,
        /// The parser's message, with line and column.
        message: String,
    },
    /// A value cannot be written as canonical JSON.
    #[error("{path}: {source}")]
    Canonical {
        /// Where the value sits.
        path: String,
        /// Why it cannot be canonicalised.
        source: crate::canonical::CanonicalError,
    },
    /// The request's `as_of` is not a `YYYY-MM-DD` calendar date.
    #[error("as_of: {value:?} must be a YYYY-MM-DD calendar date")]
    AsOf {
        /// The value given.
        value: String,
    },
    /// A stored package failed verification (spec §4.5).
    #[error("package: {0}")]
    Package(PackageRule),
}

impl Error {
    /// The stable machine-readable code adapters report for a refused question or budget
    /// (the HTTP API, MCP and the WebAssembly module use the same codes).
    pub fn code(&self) -> &'static str {
        match self {
            Error::Question(_) => "invalid_question",
            Error::Budget { .. } => "invalid_budget",
            Error::PackageTooSmall { .. } => "budget_too_small",
            _ => "engine_error",
        }
    }

    /// The request field at fault (`question`, `budget`, `budget.max_nodes`, …), where there
    /// is one.
    pub fn field(&self) -> Option<String> {
        match self {
            Error::Question(_) => Some("question".into()),
            Error::Budget { key, .. } => Some(
                key.as_ref()
                    .map_or_else(|| "budget".to_owned(), |k| format!("budget.{k}")),
            ),
            Error::PackageTooSmall { .. } => Some("budget.max_bytes".into()),
            _ => None,
        }
    }
}

/// Index validation rules (spec §2.2, in checking order).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IndexRule {
    /// `schema` is not `okf-context-index.v1`.
    UnsupportedSchema,
    /// A key that the closed object does not allow.
    UnknownKey(String),
    /// A required key is absent.
    MissingKey(String),
    /// The value has the wrong JSON type or is not one of the allowed values.
    Shape(String),
    /// Not an IRI (`scheme:` followed by non-blank characters without `<>"'` backtick or `\`).
    NotIri,
    /// Not a strict HTTP(S) URL (spec §2.3).
    NotHttpUrl,
    /// `bundle.snapshot` differs from the expected snapshot.
    SnapshotMismatch {
        /// The snapshot the caller expected.
        expected: String,
    },
    /// A string is longer than allowed (UTF-16 code units).
    TooLong {
        /// The maximum length.
        max: usize,
    },
    /// A string is shorter than allowed.
    TooShort {
        /// The minimum length.
        min: usize,
    },
    /// A list has too many entries.
    TooMany {
        /// The maximum count.
        max: usize,
    },
    /// A list has too few entries.
    TooFew {
        /// The minimum count.
        min: usize,
    },
    /// The compact serialisation exceeds 8 MiB.
    IndexTooLarge {
        /// Compact JSON bytes of the index.
        bytes: usize,
    },
    /// Two records share an id.
    DuplicateRecordId,
    /// Two assertions share an id.
    DuplicateAssertionId,
    /// Two requirements share an id.
    DuplicateRequirementId,
    /// A route is not a safe relative route.
    UnsafeRoute,
    /// Two gaps, regimes or parts share an id, or a gap id is a record id.
    DuplicateDeclaration,
    /// A regime names an id that is not a public concept (or, in `absent_evidence`, not a gap),
    /// or a requirement names an undeclared regime.
    UnknownRegimeMember,
    /// Not a `YYYY-MM-DD` calendar date.
    NotDate,
    /// Not 64 lowercase hexadecimal digits.
    NotSha256,
    /// A part names an id that is not a concept record.
    UnknownPartMember,
    /// A concept is listed by two parts.
    ConceptInTwoParts,
    /// `evidence_unit` on a record whose kind is not `evidence`.
    UnitOnNonEvidence,
    /// A context guard lists the same concept twice.
    DuplicateGuardConcept,
    /// A required path's records do not match its assertions or seed.
    InvalidDirectedPath,
    /// A number is not a safe non-negative integer.
    UnsafeInteger,
    /// A text that must say something is empty or only whitespace.
    Blank,
    /// `reviews` is not sorted by `item` (UTF-16 code-unit order), or names an item twice.
    ReviewsNotSorted,
    /// A neutral word is not one word in the engine's folded form (lowercase, no marks,
    /// letters and numbers only).
    NotOneFoldedWord,
    /// A neutral word is one of the built-in question-scaffolding words.
    NeutralWordIsScaffolding,
    /// `vocabulary.neutral` is not sorted (UTF-16 code-unit order), or lists a word twice.
    VocabularyNotSorted,
}

impl fmt::Display for IndexRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IndexRule::UnsupportedSchema => f.write_str("schema must be \"okf-context-index.v1\""),
            IndexRule::UnknownKey(k) => write!(f, "key `{k}` is not allowed in this closed object"),
            IndexRule::MissingKey(k) => write!(f, "required key `{k}` is missing"),
            IndexRule::Shape(m) => write!(f, "wrong shape: {m}"),
            IndexRule::NotIri => f.write_str("must be an IRI (scheme, colon, then no blanks or <>\"'`\\)"),
            IndexRule::NotHttpUrl => f.write_str(
                "must be an http(s) URL without blanks, credentials, port 0, raw <>\"'`\\^{}| or bad %-escapes",
            ),
            IndexRule::SnapshotMismatch { expected } => {
                write!(f, "snapshot differs from the expected snapshot {expected:?}")
            }
            IndexRule::TooLong { max } => write!(f, "longer than {max} characters"),
            IndexRule::TooShort { min } => write!(f, "shorter than {min} characters"),
            IndexRule::TooMany { max } => write!(f, "more than {max} entries"),
            IndexRule::TooFew { min } => write!(f, "fewer than {min} entries"),
            IndexRule::IndexTooLarge { bytes } => {
                write!(f, "compact JSON is {bytes} bytes; the limit is 8388608 bytes")
            }
            IndexRule::DuplicateRecordId => f.write_str("record id is used by an earlier record"),
            IndexRule::DuplicateAssertionId => f.write_str("assertion id is used by an earlier assertion"),
            IndexRule::DuplicateRequirementId => f.write_str("requirement id is used by an earlier requirement"),
            IndexRule::DuplicateDeclaration => f.write_str("id is already declared by an earlier gap, regime, part or record"),
            IndexRule::UnknownRegimeMember => f.write_str("must name a public concept (regime concepts), a declared gap (absent_evidence) or a declared regime (the regime of a requirement, assertion, gap or part), or a concept record (gap concepts)"),
            IndexRule::NotDate => f.write_str("must be a YYYY-MM-DD calendar date"),
            IndexRule::NotSha256 => f.write_str("must be a SHA-256 digest: 64 lowercase hexadecimal digits"),
            IndexRule::UnknownPartMember => f.write_str("must name a concept record of this index"),
            IndexRule::ConceptInTwoParts => f.write_str("concept is already listed by an earlier part; a concept belongs to at most one part"),
            IndexRule::UnsafeRoute => f.write_str(
                "route must be a lowercase segment followed by one or more /segments of [A-Za-z0-9._~-]",
            ),
            IndexRule::UnitOnNonEvidence => f.write_str("evidence_unit is only allowed on evidence records"),
            IndexRule::DuplicateGuardConcept => f.write_str("context_guard.when_all must not repeat an id"),
            IndexRule::InvalidDirectedPath => f.write_str(
                "a required path needs 1-8 assertions, one more record than assertions, and records[0] == seed",
            ),
            IndexRule::UnsafeInteger => f.write_str("must be a non-negative integer no larger than 2^53-1"),
            IndexRule::Blank => f.write_str("must not be empty or only whitespace"),
            IndexRule::ReviewsNotSorted => f.write_str(
                "reviews must be sorted by item (UTF-16 code-unit order), one review per item",
            ),
            IndexRule::NotOneFoldedWord => f.write_str(
                "must be one word as the engine folds a question: lowercase letters and digits, no marks, spaces or punctuation",
            ),
            IndexRule::NeutralWordIsScaffolding => f.write_str(
                "is already built-in question scaffolding (docs/authoring.md); do not declare it",
            ),
            IndexRule::VocabularyNotSorted => f.write_str(
                "vocabulary.neutral must be sorted (UTF-16 code-unit order), each word once",
            ),
        }
    }
}

/// Evidence-unit rules (spec §1.4 and §2.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnitRule {
    /// The unit object has an unexpected field, misses one, or a field has the wrong type.
    UnexpectedOrMissingFields,
    /// A span is not an object of exactly the twelve span fields with the right types.
    MalformedSpan,
    /// `schema` or `kind` is not supported.
    UnsupportedSchemaOrKind,
    /// `boundary_status` is not allowed.
    BadBoundaryStatus,
    /// `completeness` is not allowed.
    BadCompleteness,
    /// An `unresolved-fragment` unit claims a complete boundary.
    UnresolvedFragmentClaimsCompleteness,
    /// A `page-fallback` unit claims a complete boundary.
    FallbackClaimsCompleteness,
    /// `offset_unit` or `joiner` is not allowed.
    BadOffsetConventionOrJoiner,
    /// Not 1–32 spans.
    BadSpanCount,
    /// A source or extraction URL is not a safe HTTP URL with a host.
    UnsafeUrl,
    /// A span digest is not hex64.
    BadDigest,
    /// The locator is empty or longer than 8,000 characters.
    BadLocator,
    /// An offset is not a safe integer, or the source text is over 16 MiB.
    BadOffsets,
    /// Start/end order, bounds or equal lengths are broken.
    BadBoundsOrLengths,
    /// Spans leave gaps or overlap, or the joining text is not the joiner.
    GapOrOverlap,
    /// A span boundary falls inside a UTF-8 character.
    SplitsCharacter,
    /// One source selector names two different source texts.
    ConflictingTextIdentity,
    /// Spans of one source selector overlap or run backwards.
    SourceSpansOutOfOrder,
    /// No provenance entry matches a span's source URL and digest.
    MissingSourceProvenance,
    /// No provenance entry matches a span's extraction URL and digest.
    MissingExtractionProvenance,
    /// The spans do not reach the end of the text.
    TextNotCovered,
}

impl fmt::Display for UnitRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            UnitRule::UnexpectedOrMissingFields => {
                "the unit must have exactly schema, kind, boundary_status, completeness, offset_unit, joiner and spans"
            }
            UnitRule::MalformedSpan => {
                "a span must be an object of exactly the twelve span fields, with string digests, URLs and locator and non-negative integer offsets"
            }
            UnitRule::UnsupportedSchemaOrKind => "unsupported schema or unit kind",
            UnitRule::BadBoundaryStatus => {
                "boundary_status must be machine-detected or author-declared"
            }
            UnitRule::BadCompleteness => {
                "completeness must be complete-within-declared-boundary, unresolved or fallback"
            }
            UnitRule::UnresolvedFragmentClaimsCompleteness => {
                "an unresolved-fragment unit must declare completeness unresolved"
            }
            UnitRule::FallbackClaimsCompleteness => {
                "a page-fallback unit must declare completeness fallback"
            }
            UnitRule::BadOffsetConventionOrJoiner => {
                "offset_unit must be utf-8-bytes and joiner one of \"\", \"\\n\", \"\\n\\n\""
            }
            UnitRule::BadSpanCount => "a unit needs 1-32 spans",
            UnitRule::UnsafeUrl => {
                "span URLs must be http(s) URLs with a host, at most 8000 characters"
            }
            UnitRule::BadDigest => "span digests must be 64 lowercase hex characters",
            UnitRule::BadLocator => "locator must be 1-8000 characters",
            UnitRule::BadOffsets => "offsets must be safe integers and source texts at most 16 MiB",
            UnitRule::BadBoundsOrLengths => {
                "spans need start < end within bounds and equal source and unit lengths"
            }
            UnitRule::GapOrOverlap => {
                "spans must tile the text in order, separated exactly by the joiner"
            }
            UnitRule::SplitsCharacter => "a span boundary splits a UTF-8 character",
            UnitRule::ConflictingTextIdentity => {
                "spans of one source selector disagree on source_text_sha256 or source_text_bytes"
            }
            UnitRule::SourceSpansOutOfOrder => {
                "spans of one source selector overlap or run backwards"
            }
            UnitRule::MissingSourceProvenance => {
                "no provenance entry matches the span's source_url and source_sha256"
            }
            UnitRule::MissingExtractionProvenance => {
                "no provenance entry matches the span's extraction_url and extraction_sha256"
            }
            UnitRule::TextNotCovered => "the last span must end at the end of the text",
        })
    }
}

/// Question rules (spec §2.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum QuestionRule {
    /// No non-whitespace character.
    #[error("must contain at least one non-whitespace character")]
    Blank,
    /// More than 4,000 UTF-16 code units.
    #[error("must be at most 4000 characters (UTF-16 code units), got {0}")]
    TooLong(usize),
}

/// Budget rules (spec §3.1).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BudgetRule {
    /// The budget is not a JSON object.
    #[error("must be an object")]
    NotAnObject,
    /// An unknown key.
    #[error("unknown key; allowed keys are max_nodes, max_relationships, max_depth, max_bytes")]
    UnknownKey,
    /// The value is not an integer.
    #[error("must be an integer")]
    NotAnInteger,
    /// The value is outside its range.
    #[error("must be between {min} and {max}")]
    OutOfRange {
        /// Smallest allowed value.
        min: u64,
        /// Largest allowed value.
        max: u64,
    },
}

/// Stored-package verification rules (spec §4.5).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PackageRule {
    /// `schema` is not `okf-governed-context.v1`.
    #[error("schema must be \"okf-governed-context.v1\"")]
    UnsupportedSchema,
    /// `ai_answer` is not null.
    #[error("ai_answer must be null")]
    AiAnswerNotNull,
    /// A field the identity rule needs is missing or has the wrong type.
    #[error("field `{0}` is missing or has the wrong type")]
    MissingField(&'static str),
    /// The recomputed context id differs.
    #[error("context_id {stored} does not match the recomputed {computed}")]
    ContextIdMismatch {
        /// Id in the package.
        stored: String,
        /// Id recomputed from the content.
        computed: String,
    },
    /// The recorded `used_bytes` differs from the canonical length.
    #[error("budget.used_bytes {stored} does not match the canonical length {computed}")]
    UsedBytesMismatch {
        /// Value in the package.
        stored: u64,
        /// Canonical length.
        computed: u64,
    },
    /// `used_bytes` exceeds `max_bytes`, or `max_bytes` exceeds 524,288.
    #[error("budget.used_bytes {used} exceeds budget.max_bytes {max}, or max_bytes exceeds 524288")]
    OverBudget {
        /// Used bytes.
        used: u64,
        /// Declared limit.
        max: u64,
    },
}
