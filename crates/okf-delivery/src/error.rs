//! The one error type of delivery.

/// Why a delivery request or a reconstruction was refused. Every refusal returns no data.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DeliveryError {
    /// The package text is not a deliverable package.
    #[error("the package cannot be delivered: {0}")]
    Package(String),
    /// The requested `context_id` is not the id of the context being delivered.
    #[error(
        "context_id {requested} does not match the context being delivered ({actual}); no substitute evidence is returned"
    )]
    ContextMismatch {
        /// The id the caller expected.
        requested: String,
        /// The id of the context at hand.
        actual: String,
    },
    /// `max_bytes` / `delivery_bytes` outside 8,192–65,536.
    #[error("delivery_bytes {0} is outside 8192-65536")]
    DeliveryBytes(u64),
    /// An offset past the end of the value or record list.
    #[error("offset {offset} is past the end ({total})")]
    OffsetPastEnd {
        /// The requested offset.
        offset: u64,
        /// The length of what is read.
        total: u64,
    },
    /// An offset that falls between the two halves of a surrogate pair.
    #[error("offset {0} splits a character (it falls inside a UTF-16 surrogate pair)")]
    OffsetSplitsCharacter(u64),
    /// A section name that is not one of the five.
    #[error(
        "section {0:?} is not one of record_text, record_metadata, relationships, diagnostics, package"
    )]
    UnknownSection(String),
    /// `record_id` missing for a record section.
    #[error("record_id is required for section {0}")]
    RecordIdRequired(&'static str),
    /// `record_id` given for a section that is not about one record.
    #[error("record_id is only allowed with record_text and record_metadata, not {0}")]
    RecordIdNotAllowed(&'static str),
    /// The record is not among the package's selected records.
    #[error("record {0:?} is not selected in this context")]
    RecordNotSelected(String),
    /// Not even the metadata of a response fits the delivery budget.
    #[error("the response metadata alone exceeds delivery_bytes {0}")]
    MetadataTooLarge(u64),
    /// The next item (a record summary or a character) does not fit one response.
    #[error("the next item does not fit within delivery_bytes {0}; raise delivery_bytes")]
    NoProgress(u64),
    /// A self-describing size did not settle (never expected; refused rather than guessed).
    #[error("the response size did not reach a fixed point")]
    NoFixedPoint,
    /// A value cannot be written as canonical JSON.
    #[error("canonical JSON: {0}")]
    Canonical(okf_engine::canonical::CanonicalError),
    /// A retained part is missing, reordered, altered, oversized or inconsistent.
    #[error("part {index}: {reason}")]
    Part {
        /// Zero-based position of the part in the list.
        index: usize,
        /// What is wrong with it.
        reason: String,
    },
    /// A search result id that is malformed or names no result of its context.
    #[error("{0}")]
    UnknownItem(String),
    /// The parts as a whole cannot be reconstructed.
    #[error("reconstruction refused: {0}")]
    Reconstruction(String),
}

impl DeliveryError {
    /// A stable machine-readable code.
    pub fn code(&self) -> &'static str {
        match self {
            DeliveryError::Package(_) => "invalid_package",
            DeliveryError::ContextMismatch { .. } => "context_mismatch",
            DeliveryError::DeliveryBytes(_) => "invalid_delivery_bytes",
            DeliveryError::OffsetPastEnd { .. } => "invalid_offset",
            DeliveryError::OffsetSplitsCharacter(_) => "offset_splits_character",
            DeliveryError::UnknownSection(_) => "invalid_section",
            DeliveryError::RecordIdRequired(_) | DeliveryError::RecordIdNotAllowed(_) => {
                "invalid_record_id"
            }
            DeliveryError::RecordNotSelected(_) => "record_not_selected",
            DeliveryError::MetadataTooLarge(_) | DeliveryError::NoProgress(_) => {
                "delivery_too_small"
            }
            DeliveryError::NoFixedPoint | DeliveryError::Canonical(_) => "delivery_internal",
            DeliveryError::UnknownItem(_) => "unknown_result_id",
            DeliveryError::Part { .. } | DeliveryError::Reconstruction(_) => {
                "reconstruction_refused"
            }
        }
    }

    /// The request field at fault, where there is one.
    pub fn field(&self) -> Option<&'static str> {
        match self {
            DeliveryError::ContextMismatch { .. } => Some("context_id"),
            DeliveryError::DeliveryBytes(_)
            | DeliveryError::MetadataTooLarge(_)
            | DeliveryError::NoProgress(_) => Some("delivery_bytes"),
            DeliveryError::OffsetPastEnd { .. } | DeliveryError::OffsetSplitsCharacter(_) => {
                Some("offset")
            }
            DeliveryError::UnknownSection(_) => Some("section"),
            DeliveryError::RecordIdRequired(_)
            | DeliveryError::RecordIdNotAllowed(_)
            | DeliveryError::RecordNotSelected(_) => Some("record_id"),
            DeliveryError::UnknownItem(_) => Some("id"),
            _ => None,
        }
    }
}
