//! # okf-delivery
//!
//! Bounded, verifiable delivery of an `okf-governed-context.v1` package (spec engine.md §5,
//! workbench-and-mcp.md §2.4). Two budgets never mix: the assembly budget decides what evidence
//! a package holds; the delivery budget here only decides how large one response is. Nothing in
//! this crate changes a package, its `context_id` or its status.
//!
//! - [`catalogue`]: one page of the package's catalogue (`okf-context-manifest.v1`), a small
//!   index of the selected records and the diagnostics counts.
//! - [`read`]: an exact slice of one section (`okf-context-read.v1`), cut on UTF-16 code units
//!   without ever splitting a surrogate pair, with the SHA-256 of the whole value.
//! - [`retain`] / [`reconstruct`]: static retention as `package` read envelopes of at most
//!   32,768 bytes (the part files publishers host), and the verified way back.
//! - [`search`]: the context as ChatGPT's `search` results and `fetch` documents.
//!
//! The crate is pure (no I/O, no clock) and builds for `wasm32-unknown-unknown`.

mod catalogue;
mod context;
mod error;
mod read;
mod retain;
pub mod search;
mod utf16;

pub use catalogue::{
    CATALOGUE_INSTRUCTIONS, CATALOGUE_SCHEMA, catalogue, catalogue_value, catalogue_with_extras,
};
pub use context::Context;
pub use error::DeliveryError;
pub use read::{READ_SCHEMA, ReadRequest, Section, read, read_with_extras};
pub use retain::{MAX_PARTS, MAX_TRANSFER_BYTES, PART_BYTES, RetainedPart, reconstruct, retain};

/// Smallest delivery budget of one response, in bytes.
pub const MIN_DELIVERY_BYTES: u64 = 8_192;
/// Default delivery budget of one response, in bytes.
pub const DEFAULT_DELIVERY_BYTES: u64 = 16_384;
/// Largest delivery budget of one response, in bytes.
pub const MAX_DELIVERY_BYTES: u64 = 65_536;
/// Largest package accepted for delivery (the engine's `max_bytes` ceiling).
pub const MAX_PACKAGE_BYTES: usize = okf_engine::Budget::MAX.max_bytes as usize;

/// Checks a delivery budget against 8,192–65,536.
pub fn check_delivery_bytes(max_bytes: u64) -> Result<u64, DeliveryError> {
    if (MIN_DELIVERY_BYTES..=MAX_DELIVERY_BYTES).contains(&max_bytes) {
        Ok(max_bytes)
    } else {
        Err(DeliveryError::DeliveryBytes(max_bytes))
    }
}

/// Serialised size of a JSON value when written compactly (canonical and compact JSON have the
/// same length).
pub fn json_len(value: &serde_json::Value) -> Result<usize, DeliveryError> {
    let mut counter = okf_engine::canonical::ByteCounter::default();
    okf_engine::canonical::write_value(&mut counter, value).map_err(DeliveryError::Canonical)?;
    Ok(counter.0)
}

/// Canonical JSON text of a value.
pub fn canonical(value: &serde_json::Value) -> Result<String, DeliveryError> {
    okf_engine::canonical::to_canonical_string(value).map_err(DeliveryError::Canonical)
}

/// The fixed point of `size(n) = n` for a self-describing size field (spec §3.10: four passes).
pub fn fixed_point(
    mut size: impl FnMut(u64) -> Result<u64, DeliveryError>,
) -> Result<u64, DeliveryError> {
    let mut used = 0;
    for _ in 0..4 {
        let measured = size(used)?;
        if measured == used {
            return Ok(used);
        }
        used = measured;
    }
    if size(used)? == used {
        Ok(used)
    } else {
        Err(DeliveryError::NoFixedPoint)
    }
}
