//! # okf-workbench
//!
//! The evidence workbench core: admission of an `okf-evidence-workbench.v1` manifest of
//! retained packages, verified package loading from one file or from retained parts, and one
//! bounded `Session` whose seven tools (search, evidence, relationships, view data, show view,
//! blocked calculation, state) reply with `okf-workbench-result.v1` envelopes.
//!
//! The crate is pure: files, the clock, ids, part reconstruction and the page are supplied
//! by the host through the traits in [`ports`], so the same code runs natively and in wasm.
//! Calls are split into [`Session::begin`] (budget gate and byte reservation) and
//! [`Session::finish`] (the tool body), which is how concurrent calls reserve before any runs.

pub mod build;
mod envelope;
mod error;
mod graph;
mod inspect;
pub mod manifest;
pub mod package;
mod paging;
pub mod ports;
mod session;
pub mod tools;
mod views;

pub use envelope::{
    DEFAULT_RECOVERY, Delivery, Envelope, ErrorBody, NAVIGATION_NOTICE, RESULT_SCHEMA,
    accounting_of, compact, measure,
};
pub use error::WorkbenchError;
pub use graph::{Graph, MAX_EDGES, MAX_NODES};
pub use inspect::query_tokens;
pub use session::{
    DEFAULT_MAX_BYTES, EXPIRY_MS, Host, MAX_CALLS, MAX_CONTEXTS, MAX_SESSION_BYTES, Metrics,
    Session, Ticket, ToolError, short,
};
pub use views::VIEW_SCHEMA;
