//! A package ready for delivery: its canonical text and the parsed value the sections are cut
//! from.

use crate::utf16::Utf16Index;
use crate::{DeliveryError, MAX_PACKAGE_BYTES, json_len};
use okf_engine::canonical::sha256_hex;
use serde_json::Value;
use std::sync::{Arc, OnceLock};

/// A package held for delivery. Its text is the canonical JSON the `context_id` and
/// `used_bytes` were computed over; the parsed value is kept so sections are cut once.
#[derive(Debug, Clone)]
pub struct Context {
    text: String,
    value: Value,
    context_id: String,
    evidence_status: String,
    /// SHA-256 of `text`, computed once (every delivery result names it).
    sha256: OnceLock<String>,
    /// SHA-256 and UTF-16 index of `text`, built on the first `package` read and reused by the
    /// following ones (retention reads the package once per part).
    package_index: OnceLock<Arc<(String, Utf16Index)>>,
}

fn package_error(message: impl Into<String>) -> DeliveryError {
    DeliveryError::Package(message.into())
}

impl Context {
    /// A package as this engine wrote it (already canonical and verified by construction).
    /// Only its shape is checked here; use [`Context::from_stored`] for bytes of unknown origin.
    pub fn from_canonical(text: String) -> Result<Self, DeliveryError> {
        if text.len() > MAX_PACKAGE_BYTES {
            return Err(package_error(format!(
                "the package is {} bytes, over the {MAX_PACKAGE_BYTES}-byte limit",
                text.len()
            )));
        }
        let value: Value = serde_json::from_str(&text)
            .map_err(|e| package_error(format!("the package is not JSON: {e}")))?;
        let context_id = value
            .get("context_id")
            .and_then(Value::as_str)
            .filter(|id| {
                id.strip_prefix("urn:sha256:")
                    .is_some_and(okf_engine::canonical::is_hex64)
            })
            .ok_or_else(|| package_error("context_id is missing or not urn:sha256:<64 hex>"))?
            .to_owned();
        let evidence_status = value
            .get("evidence_status")
            .and_then(Value::as_str)
            .filter(|s| matches!(*s, "sufficient" | "insufficient" | "conflicting"))
            .ok_or_else(|| package_error("evidence_status is missing or unknown"))?
            .to_owned();
        if !value.get("selected").is_some_and(Value::is_array) {
            return Err(package_error("selected is missing or not an array"));
        }
        Ok(Context {
            text,
            value,
            context_id,
            evidence_status,
            sha256: OnceLock::new(),
            package_index: OnceLock::new(),
        })
    }

    /// The stored-package gate (spec §4.5): at most 524,288 bytes, the expected SHA-256 when
    /// one is given, compact JSON (pretty-printed or re-escaped text is refused), the package
    /// schema with `ai_answer: null`, and `context_id` / `used_bytes` recomputed exactly.
    pub fn from_stored(text: String, expected_sha256: Option<&str>) -> Result<Self, DeliveryError> {
        if text.len() > MAX_PACKAGE_BYTES {
            return Err(package_error(format!(
                "the package is {} bytes, over the {MAX_PACKAGE_BYTES}-byte limit",
                text.len()
            )));
        }
        let mut checked_sha256 = None;
        if let Some(expected) = expected_sha256 {
            let actual = sha256_hex(text.as_bytes());
            if actual != expected {
                return Err(package_error(format!(
                    "the package's SHA-256 is {actual}, expected {expected}"
                )));
            }
            checked_sha256 = Some(actual);
        }
        let value: Value = serde_json::from_str(&text)
            .map_err(|e| package_error(format!("the package is not JSON: {e}")))?;
        // Compact JSON of any key order has exactly the canonical length; whitespace, longer
        // escapes or duplicate keys all make the text longer than the value it parses to.
        if json_len(&value)? != text.len() {
            return Err(package_error(
                "the package text is not compact JSON (pretty-printed, re-escaped or with duplicate keys)",
            ));
        }
        okf_engine::verify_package(&value).map_err(|e| package_error(e.to_string()))?;
        let context = Context::from_canonical(text)?;
        if let Some(sha256) = checked_sha256 {
            // Just computed over the same text: keep it rather than hash again.
            let _ = context.sha256.set(sha256);
        }
        Ok(context)
    }

    /// The canonical package text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The SHA-256 of the package text (lowercase hex), computed once.
    pub fn package_sha256(&self) -> &str {
        self.sha256.get_or_init(|| sha256_hex(self.text.as_bytes()))
    }

    /// The SHA-256 and UTF-16 index of the package text, computed once.
    pub(crate) fn package_index(&self) -> Arc<(String, Utf16Index)> {
        Arc::clone(self.package_index.get_or_init(|| {
            Arc::new((
                self.package_sha256().to_owned(),
                Utf16Index::new(&self.text),
            ))
        }))
    }

    /// The parsed package.
    pub fn value(&self) -> &Value {
        &self.value
    }

    /// The package's `context_id`.
    pub fn context_id(&self) -> &str {
        &self.context_id
    }

    /// The package's `evidence_status`.
    pub fn evidence_status(&self) -> &str {
        &self.evidence_status
    }

    /// `budget.truncated`: the assembly budget cut evidence.
    pub fn context_truncated(&self) -> bool {
        self.value
            .pointer("/budget/truncated")
            .and_then(Value::as_bool)
            .unwrap_or(false)
    }

    /// `retrieval.truncated` of a corpus package (false for a direct index).
    pub fn retrieval_truncated(&self) -> bool {
        self.value
            .pointer("/retrieval/truncated")
            .and_then(Value::as_bool)
            .unwrap_or(false)
    }

    /// The selected items (`{record, reasons, paths}`), in package order.
    pub fn selected(&self) -> &[Value] {
        self.value
            .get("selected")
            .and_then(Value::as_array)
            .map_or(&[], Vec::as_slice)
    }

    /// Refuses a `context_id` other than this context's.
    pub fn expect_id(&self, requested: &str) -> Result<(), DeliveryError> {
        if requested == self.context_id {
            Ok(())
        } else {
            Err(DeliveryError::ContextMismatch {
                requested: requested.to_owned(),
                actual: self.context_id.clone(),
            })
        }
    }
}
