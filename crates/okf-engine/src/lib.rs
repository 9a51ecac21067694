//! # okf-engine
//!
//! The deterministic core of Ask OKF. For a question and an immutable producer index
//! (`okf-context-index.v1`) it builds a bounded evidence package (`okf-governed-context.v1`):
//! the concepts the question resolves to, the evidence reached by following governed directed
//! assertions, the author-declared requirements and whether each is met, every omission,
//! ambiguity, conflict and limitation, and an explicit `evidence_status`. It never answers the
//! question: `ai_answer` is always null.
//!
//! The crate is pure: no I/O, no clocks, no threads, no global state, no locale and no
//! floating point in anything that feeds identity or ordering. It builds for
//! `wasm32-unknown-unknown`.
//!
//! ```
//! use okf_engine::{Budget, ContextIndex, assemble};
//! # let index_json = include_str!("../../okf/example/index.json");
//! let index = ContextIndex::from_json_str(index_json)?;
//! let package = assemble(&index, "How do I borrow books?", &Budget::default(), None)?;
//! assert!(package.context_id.starts_with("urn:sha256:"));
//! # Ok::<(), okf_engine::Error>(())
//! ```

mod assemble;
mod budget;
pub mod canonical;
pub mod discovery;
pub mod dmg;
mod error;
mod index;
pub mod model;
mod package;
mod parts;
mod pass;
mod public;
mod regime;
mod resolve;
pub mod review;
mod reviewed;
mod stored;
pub mod text;
pub mod validate;

pub use assemble::{
    AssembleOptions, EvidenceStatus, Issue, MAX_PATHS_PER_RECORD, MAX_QUESTION_UNITS,
    OutsideVersions, assemble, assemble_with_discovery, assemble_with_options, check_binding,
    check_question,
};
pub use budget::{BUDGET_RANGES, Budget};
pub use error::{BudgetRule, Error, IndexRule, PackageRule, QuestionRule, UnitRule};
pub use index::{AliasGroup, ContextIndex, Governance};
pub use model::Binding;
pub use package::{Assembled, ENGINE_ID, PACKAGE_SCHEMA, REGIME_PROFILE};
pub use public::{
    RESTRICTED_LABEL, RESTRICTED_TEXT, is_public_projection, public_projection,
    restricted_only_strings,
};
pub use regime::{AsOf, RegimeOutcome};
pub use resolve::{Ambiguity, RESOLUTION_WORK_LIMIT, Resolution, ResolvedConcept, resolve};
pub use stored::{
    DeclaredIdentity, PackageIdentity, ReplayInputs, check_identity, declared_identity, explain,
    package_identity, verify_package,
};
