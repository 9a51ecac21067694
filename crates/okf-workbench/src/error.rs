//! The one error type of this crate: why a manifest or a package was refused.

/// A manifest or package that failed admission, naming the field and the rule it broke.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WorkbenchError {
    /// The manifest broke an admission rule (§1.2).
    #[error("manifest field {field}: {rule}")]
    Manifest {
        /// JSON path of the offending field, e.g. `questions[3].package.parts[0].url`.
        field: String,
        /// The rule, in words.
        rule: String,
    },
    /// A file could not be loaded (absent, unreadable or over its byte cap).
    #[error("cannot load {path}: {reason}")]
    Unavailable {
        /// The manifest-relative path.
        path: String,
        /// Why.
        reason: String,
    },
    /// A retained package or part failed verification (§1.3).
    #[error("package {field}: {rule}")]
    Package {
        /// The part path or package field at fault.
        field: String,
        /// The rule, in words.
        rule: String,
    },
    /// A question of a workbench being built could not be assembled or retained.
    #[error("question {id}: {reason}")]
    Question {
        /// The question's id in the questions file.
        id: String,
        /// Why.
        reason: String,
    },
}

impl WorkbenchError {
    pub(crate) fn manifest(field: impl Into<String>, rule: impl Into<String>) -> Self {
        WorkbenchError::Manifest {
            field: field.into(),
            rule: rule.into(),
        }
    }
    pub(crate) fn package(field: impl Into<String>, rule: impl Into<String>) -> Self {
        WorkbenchError::Package {
            field: field.into(),
            rule: rule.into(),
        }
    }
}
