//! The Ask OKF wire contract: the rules a request must keep, written once for every adapter
//! (the HTTP API, the MCP tools and their schemas, the page's checks). Pure: no I/O, builds
//! for wasm32; it sits on the engine and the domain crates, under every adapter.
//!
//! It holds every wire request type with its one strict decoder ([`request`], over the
//! duplicate-key-refusing parser [`strict_json`]), the limits ([`limits`]) and the format
//! predicates ([`format`]). The adapters read them from here; `tests/adapters_agree.rs`
//! fails when the page's JavaScript or a published schema states a rule differently.

pub mod error;
pub mod format;
pub mod limits;
pub mod receipt;
pub mod request;
pub mod schemas;
pub mod strict_json;
pub mod tools;
pub mod web;
