//! The one error type of the crate.

/// Why a corpus could not be read or assembled. Every variant names the file or field and the
/// rule it broke; none is a panic.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The manifest breaks a rule of spec §1.6.
    #[error("corpus manifest: {field}: {rule}")]
    Manifest {
        /// JSON path of the offending field.
        field: String,
        /// The rule it broke.
        rule: String,
    },
    /// A file path is not a confined relative path (spec §1.6 file reference).
    #[error("corpus file path {path:?} is unsafe: {rule}")]
    UnsafePath {
        /// The path as declared.
        path: String,
        /// The rule it broke.
        rule: &'static str,
    },
    /// A file's bytes do not match its declared length or digest, or do not decode.
    #[error("corpus file {path}: integrity check failed: {rule}")]
    Integrity {
        /// The file.
        path: String,
        /// What did not match.
        rule: String,
    },
    /// A file is missing from the corpus source.
    #[error("corpus file {path} is missing")]
    Missing {
        /// The file.
        path: String,
    },
    /// The corpus source could not read a file.
    #[error("corpus file {path} could not be read: {reason}")]
    Source {
        /// The file.
        path: String,
        /// The source's explanation.
        reason: String,
    },
    /// A verified file's content breaks a shard rule (schema, ordering, counts, commitments).
    #[error("corpus file {path}: {field}: {rule}")]
    Shard {
        /// The file.
        path: String,
        /// JSON path inside the file.
        field: String,
        /// The rule it broke.
        rule: String,
    },
    /// The working index or the package failed an engine rule.
    #[error(transparent)]
    Engine(#[from] okf_engine::Error),
    /// The producer-side builder cannot shard this index.
    #[error("corpus build: {0}")]
    Build(String),
}

impl Error {
    pub(crate) fn manifest(field: impl Into<String>, rule: impl Into<String>) -> Self {
        Error::Manifest {
            field: field.into(),
            rule: rule.into(),
        }
    }

    pub(crate) fn shard(
        path: impl Into<String>,
        field: impl Into<String>,
        rule: impl Into<String>,
    ) -> Self {
        Error::Shard {
            path: path.into(),
            field: field.into(),
            rule: rule.into(),
        }
    }
}
