//! Format rules of request fields, with the wording every adapter uses when one is broken.

use crate::limits::{MAX_LOGICAL_ID_BYTES, MAX_RECORD_ID_CHARS};

/// The logical-id rule as a regular expression (JSON Schema `pattern`, ECMA-262 `u` mode):
/// a lowercase letter or digit, then up to 63 of `a-z 0-9 . _ -`.
pub const LOGICAL_ID_PATTERN: &str = "^[a-z0-9][a-z0-9._-]{0,63}$";

/// Whether `s` is a logical id (bundle, version, corpus or workbench): [`LOGICAL_ID_PATTERN`].
pub fn is_logical_id(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b.len() <= MAX_LOGICAL_ID_BYTES
        && (b[0].is_ascii_lowercase() || b[0].is_ascii_digit())
        && b.iter().all(|&c| {
            c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, b'.' | b'_' | b'-')
        })
}

/// The form of a `context_id` (JSON Schema `pattern`): the SHA-256 of the canonical package.
pub const CONTEXT_ID_PATTERN: &str = "^urn:sha256:[0-9a-f]{64}$";

/// Whether `s` is a `context_id`: [`CONTEXT_ID_PATTERN`].
pub fn is_context_id(s: &str) -> bool {
    s.strip_prefix("urn:sha256:")
        .is_some_and(okf_engine::canonical::is_hex64)
}

/// What a broken `record_id` is told.
pub const RECORD_ID_RULE: &str = "must be 1-2000 characters";

/// Whether `s` keeps the record-id rule: 1 to [`MAX_RECORD_ID_CHARS`] Unicode scalar values.
pub fn is_record_id(s: &str) -> bool {
    !s.is_empty() && s.chars().count() <= MAX_RECORD_ID_CHARS
}

/// The shape of a calendar date (JSON Schema `pattern`); [`is_date`] also checks the calendar.
pub const DATE_PATTERN: &str = r"^\d{4}-\d{2}-\d{2}$";

/// A string with at least one non-whitespace character (JSON Schema `pattern` of a question).
pub const NOT_BLANK_PATTERN: &str = r"^[\s\S]*\S[\s\S]*$";

/// Whether `s` is a real calendar date written exactly `YYYY-MM-DD` (`as_of`, `published`):
/// the engine's one date rule, so a date the server accepts is one the engine can use.
pub fn is_date(s: &str) -> bool {
    okf_engine::validate::date_number(s).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_record_id_rule_names_its_limit() {
        assert!(RECORD_ID_RULE.ends_with(&format!("1-{MAX_RECORD_ID_CHARS} characters")));
    }

    #[test]
    fn a_record_id_is_counted_in_characters_not_bytes() {
        let at_limit = "é".repeat(MAX_RECORD_ID_CHARS);
        assert!(at_limit.len() > MAX_RECORD_ID_CHARS, "two bytes each");
        assert!(is_record_id(&at_limit));
        assert!(!is_record_id(&format!("{at_limit}x")));
        assert!(!is_record_id(""));
    }

    #[test]
    fn context_ids_are_urn_sha256_of_64_lowercase_hex() {
        let hex = "0123456789abcdef".repeat(4);
        assert!(is_context_id(&format!("urn:sha256:{hex}")));
        for bad in [
            hex.clone(),
            format!("urn:sha256:{}", hex.to_uppercase()),
            format!("urn:sha256:{hex}0"),
            format!("urn:sha1:{hex}"),
        ] {
            assert!(!is_context_id(&bad), "{bad}");
        }
    }

    #[test]
    fn logical_ids_keep_the_pattern_and_its_length() {
        for ok in ["example", "okf-dwp", "0", "a.b_c-d", &"a".repeat(64)] {
            assert!(is_logical_id(ok), "{ok}");
        }
        for bad in [
            "",
            "Example",
            "-x",
            ".x",
            "a/b",
            "a b",
            "../etc",
            "http://x",
            &"a".repeat(65),
        ] {
            assert!(!is_logical_id(bad), "{bad}");
        }
        assert!(LOGICAL_ID_PATTERN.ends_with(&format!("{{0,{}}}$", MAX_LOGICAL_ID_BYTES - 1)));
    }

    #[test]
    fn dates_are_real_calendar_days_written_exactly() {
        assert!(is_date("2026-09-16") && is_date("2024-02-29"));
        for bad in [
            "2026-02-30",
            "2023-02-29",
            "2026-9-16",
            "2026-09-16T00:00:00Z",
            "",
        ] {
            assert!(!is_date(bad), "{bad}");
        }
    }
}
