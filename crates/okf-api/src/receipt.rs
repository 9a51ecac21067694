//! The execution receipt (`okf-execution.v1`): when and where one package was built. It is the
//! fourth identity of the richer profile (source, assertion, package, execution) and is kept
//! outside the package: two builds of the same question differ in their receipts, never in
//! `context_id`. The HTTP API sends it in the `okf-execution` header, MCP in the result's
//! `_meta`, `okf ask --receipt FILE` writes it to a file.

use serde::Serialize;

/// The `schema` value of a receipt.
pub const RECEIPT_SCHEMA: &str = "okf-execution.v1";

/// The HTTP response header that carries a receipt (compact JSON).
pub const RECEIPT_HEADER: &str = "okf-execution";

/// The key of a receipt in an MCP result's `_meta`.
pub const RECEIPT_META_KEY: &str = "okf/execution";

/// One execution of a build. Field order is the canonical (sorted) key order, so the compact
/// JSON serde writes is the canonical form.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Receipt {
    /// The bundle (or corpus) id asked.
    pub bundle: String,
    /// The package built (its content identity).
    pub context_id: String,
    /// How long the build took, in microseconds.
    pub duration_us: u64,
    /// The engine id packages carry.
    pub engine: &'static str,
    /// The version of the program that ran the engine.
    pub engine_build: &'static str,
    /// The SHA-256 the package's binding records for the index (or corpus manifest).
    pub index_sha256: String,
    /// Which running server (or `okf-cli`) built it: a random id chosen at start-up.
    pub instance: String,
    /// Always [`RECEIPT_SCHEMA`].
    pub schema: &'static str,
    /// When the build started, RFC 3339 in UTC with milliseconds.
    pub started_at: String,
    /// The bundle version that served it.
    pub version: String,
}

impl Receipt {
    /// The receipt as compact canonical JSON (ASCII only, fit for an HTTP header: every field
    /// is an id, a digest, a number or a timestamp).
    pub fn to_json(&self) -> String {
        // Serializing plain strings and integers cannot fail.
        serde_json::to_string(self).unwrap_or_default()
    }
}

/// `unix_ms` (milliseconds since 1970-01-01T00:00:00Z) as RFC 3339 in UTC with milliseconds,
/// for example `2026-12-03T13:24:05.123Z`. Pure (no clock, no locale): the caller reads the
/// clock.
pub fn rfc3339_utc(unix_ms: u64) -> String {
    let days = unix_ms / 86_400_000;
    let ms_of_day = unix_ms % 86_400_000;
    let (year, month, day) = civil_from_days(days);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        ms_of_day / 3_600_000,
        ms_of_day / 60_000 % 60,
        ms_of_day / 1000 % 60,
        ms_of_day % 1000
    )
}

/// The proleptic Gregorian date of a day count since 1970-01-01 (Howard Hinnant's
/// `civil_from_days`, for non-negative counts).
fn civil_from_days(days: u64) -> (u64, u64, u64) {
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + u64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_are_rfc3339_utc_with_milliseconds() {
        assert_eq!(rfc3339_utc(0), "1970-01-01T00:00:00.000Z");
        // 2000-02-29 (a leap day of a century divisible by 400) and the end of 2026-12-31.
        assert_eq!(rfc3339_utc(951_782_400_000), "2000-02-29T00:00:00.000Z");
        assert_eq!(rfc3339_utc(1_798_761_599_999), "2026-12-31T23:59:59.999Z");
        assert_eq!(rfc3339_utc(4_107_542_400_000), "2100-03-01T00:00:00.000Z");
    }

    #[test]
    fn a_receipt_is_compact_json_in_sorted_key_order() {
        let r = Receipt {
            bundle: "example".into(),
            context_id: "urn:sha256:00".into(),
            duration_us: 12,
            engine: "e",
            engine_build: "0.1.0",
            index_sha256: "ab".into(),
            instance: "i".into(),
            schema: RECEIPT_SCHEMA,
            started_at: rfc3339_utc(0),
            version: "current".into(),
        };
        assert_eq!(
            r.to_json(),
            r#"{"bundle":"example","context_id":"urn:sha256:00","duration_us":12,"engine":"e","engine_build":"0.1.0","index_sha256":"ab","instance":"i","schema":"okf-execution.v1","started_at":"1970-01-01T00:00:00.000Z","version":"current"}"#
        );
    }
}
