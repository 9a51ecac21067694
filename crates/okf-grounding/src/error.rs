//! The one error of this crate: input that is not an answer or not a package.

/// Why an answer or a package could not be checked at all (never a verdict).
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum GroundingError {
    /// The answer breaks the `okf-grounded-answer.v1` contract.
    #[error("answer: {field}: {rule}")]
    Answer {
        /// The JSON path of the offending field (`claims[0].citations`).
        field: String,
        /// The rule it breaks.
        rule: String,
    },
    /// The package is not an `okf-governed-context.v1` package this check can read.
    #[error("package: {field}: {rule}")]
    Package {
        /// The member that is missing or malformed.
        field: String,
        /// The rule it breaks.
        rule: String,
    },
}

impl GroundingError {
    /// The field the error names.
    pub fn field(&self) -> &str {
        match self {
            GroundingError::Answer { field, .. } | GroundingError::Package { field, .. } => field,
        }
    }
}
