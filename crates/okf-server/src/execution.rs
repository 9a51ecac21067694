//! Execution receipts of this server (`okf_api::receipt`): the clock around one build and the
//! id of this running instance, so a receipt says when and where, apart from the package.

use okf_api::receipt::{RECEIPT_SCHEMA, Receipt, rfc3339_utc};
use okf_engine::Assembled;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

/// When a build started, by the wall clock (for the receipt) and the monotonic one (for its
/// duration).
#[derive(Debug, Clone, Copy)]
pub struct Started {
    wall: SystemTime,
    at: Instant,
}

impl Started {
    /// Now.
    pub fn now() -> Self {
        Started {
            wall: SystemTime::now(),
            at: Instant::now(),
        }
    }

    /// The receipt of the build that started here and produced `package`.
    pub fn receipt(
        self,
        instance: &str,
        bundle: &str,
        version: &str,
        index_sha256: &str,
        package: &Assembled,
    ) -> Receipt {
        let unix_ms = self
            .wall
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
        Receipt {
            bundle: bundle.to_owned(),
            context_id: package.context_id.clone(),
            duration_us: u64::try_from(self.at.elapsed().as_micros()).unwrap_or(u64::MAX),
            engine: okf_engine::ENGINE_ID,
            engine_build: env!("CARGO_PKG_VERSION"),
            index_sha256: index_sha256.to_owned(),
            instance: instance.to_owned(),
            schema: RECEIPT_SCHEMA,
            started_at: rfc3339_utc(unix_ms),
            version: version.to_owned(),
        }
    }
}

/// A fresh id for this running server: 16 hex digits of SHA-256 over the start time, the
/// process id and an address (no randomness source is needed; it only has to differ between
/// instances).
pub fn instance_id() -> String {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let here = 0u8;
    let seed = format!("{nanos}/{}/{:p}", std::process::id(), &here);
    okf_engine::canonical::sha256_hex(seed.as_bytes())[..16].to_owned()
}
