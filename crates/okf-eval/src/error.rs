//! The crate's one error type.
//!
//! Every variant is an *unusable input* (exit 2 in the command line): a malformed case or
//! controls file, an index or budget the engine refuses, or a mutation that cannot be applied.
//! A failed expectation is never an error; it is a `failed` check in a report.

/// Everything the evaluation harness can refuse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EvalError {
    /// A file is not JSON, or its JSON does not have the shape of its format.
    #[error("{what} at {path}: {message}")]
    Shape {
        /// `case` or `controls`.
        what: &'static str,
        /// JSON path of the offending value (`.` for the document itself).
        path: String,
        /// What is wrong, with line and column where the parser gives them.
        message: String,
    },
    /// A value breaks a rule of its format that the shape alone does not express
    /// (a constant, a pattern, a minimum length or count, uniqueness).
    #[error("{what} at {path}: {rule}")]
    Rule {
        /// `case` or `controls`.
        what: &'static str,
        /// JSON path of the offending value.
        path: String,
        /// The rule that failed.
        rule: String,
    },
    /// The engine refused an input: the index (original or mutant), a budget, a question or a
    /// binding.
    #[error("{context}: {source}")]
    Engine {
        /// What was being done (`index`, `case question`, `control missing-page`).
        context: String,
        /// The engine's error.
        source: okf_engine::Error,
    },
    /// A mutation names a record the mutant does not contain.
    #[error("control {control}: {op} names record {record_id}, which the index does not contain")]
    UnknownRecord {
        /// Control id.
        control: String,
        /// Mutation op.
        op: &'static str,
        /// The record id.
        record_id: String,
    },
    /// `remove_assertion` names an assertion the mutant does not contain.
    #[error(
        "control {control}: remove_assertion names assertion {assertion_id}, which the index does not contain"
    )]
    UnknownAssertion {
        /// Control id.
        control: String,
        /// The assertion id.
        assertion_id: String,
    },
    /// `reverse_incoming` found no assertion pointing at the record.
    #[error("control {control}: reverse_incoming found no assertion whose target is {record_id}")]
    NoIncomingAssertion {
        /// Control id.
        control: String,
        /// The record id.
        record_id: String,
    },
    /// The engine produced a package this harness cannot read (never expected).
    #[error("package of {context} is not JSON: {message}")]
    Package {
        /// Which run produced it.
        context: String,
        /// The parser's message.
        message: String,
    },
}

impl EvalError {
    /// Wraps an engine error with what was being done.
    pub fn engine(context: impl Into<String>, source: okf_engine::Error) -> Self {
        EvalError::Engine {
            context: context.into(),
            source,
        }
    }
}
