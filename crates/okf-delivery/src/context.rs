//! A package ready for delivery: its canonical text and where each part of it lies.
//!
//! A catalogue page of a new package is the common case, and it reads little: counts, a few
//! small members and the rows of one page. So the text is scanned once into a layout (where
//! each top-level member and each selected item lies, borrowed, no tree), and a part is parsed
//! only when it is read. The whole value tree is built only for the reads that walk it.

use crate::utf16::Utf16Index;
use crate::{DeliveryError, MAX_PACKAGE_BYTES, json_len};
use okf_engine::canonical::sha256_hex;
use serde::de::{Deserialize, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_json::Value;
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::fmt;
use std::ops::Range;
use std::sync::{Arc, OnceLock};

/// A package held for delivery. Its text is the canonical JSON the `context_id` and
/// `used_bytes` were computed over.
#[derive(Debug, Clone)]
pub struct Context {
    text: String,
    layout: Layout,
    context_id: String,
    evidence_status: String,
    /// The parsed package, built on the first read that walks the whole value.
    value: OnceLock<Value>,
    /// SHA-256 of `text`, computed once (every delivery result names it).
    sha256: OnceLock<String>,
    /// SHA-256 and UTF-16 index of `text`, built on the first `package` read and reused by the
    /// following ones (retention reads the package once per part).
    package_index: OnceLock<Arc<(String, Utf16Index)>>,
}

/// The top-level arrays whose items are located when the package is scanned: the records a
/// catalogue page lists, and the largest member, which the page only counts.
const ITEMIZED: [&str; 2] = ["selected", "relationships"];

/// Where the package's parts lie in its text, as byte ranges.
#[derive(Debug, Clone, Default)]
struct Layout {
    /// Each top-level member, in text order.
    members: Vec<(String, Part)>,
}

/// Where one top-level member lies.
#[derive(Debug, Clone)]
enum Part {
    /// The whole value.
    Whole(Range<usize>),
    /// An array (one of [`ITEMIZED`]), by its items.
    Items(Vec<Range<usize>>),
}

/// One top-level member's value, borrowed from the text.
enum Scanned<'a> {
    Whole(&'a RawValue),
    Items(Vec<&'a RawValue>),
}

/// The package's top level, borrowed from its text: one scan, nothing copied.
struct Skeleton<'a> {
    members: Vec<(Cow<'a, str>, Scanned<'a>)>,
}

impl<'de> Deserialize<'de> for Skeleton<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Top;
        impl<'de> Visitor<'de> for Top {
            type Value = Skeleton<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a package object")
            }
            fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Skeleton<'de>, M::Error> {
                let mut members: Vec<(Cow<'de, str>, Scanned<'de>)> = Vec::new();
                while let Some(key) = map.next_key::<Cow<'de, str>>()? {
                    if members.iter().any(|(k, _)| *k == key) {
                        return Err(serde::de::Error::custom(format!("duplicate key {key:?}")));
                    }
                    let value = if ITEMIZED.contains(&key.as_ref()) {
                        Scanned::Items(map.next_value()?)
                    } else {
                        Scanned::Whole(map.next_value()?)
                    };
                    members.push((key, value));
                }
                Ok(Skeleton { members })
            }
        }
        deserializer.deserialize_map(Top)
    }
}

/// The byte range of `part` (a slice of `text`) within `text`.
fn span(text: &str, part: &str) -> Range<usize> {
    let start = part.as_ptr().addr() - text.as_ptr().addr();
    start..start + part.len()
}

fn package_error(message: impl Into<String>) -> DeliveryError {
    DeliveryError::Package(message.into())
}

/// A string member's value, read from its JSON text.
fn string_member(raw: Option<&str>) -> Option<String> {
    raw.and_then(|raw| serde_json::from_str::<String>(raw).ok())
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
        let skeleton: Skeleton = serde_json::from_str(&text)
            .map_err(|e| package_error(format!("the package is not JSON: {e}")))?;
        let layout = Layout {
            members: skeleton
                .members
                .iter()
                .map(|(key, value)| {
                    let part = match value {
                        Scanned::Whole(raw) => Part::Whole(span(&text, raw.get())),
                        Scanned::Items(items) => {
                            Part::Items(items.iter().map(|raw| span(&text, raw.get())).collect())
                        }
                    };
                    (key.to_string(), part)
                })
                .collect(),
        };
        if !layout.members.iter().any(|(k, _)| k == "selected") {
            return Err(package_error("selected is missing or not an array"));
        }
        // An itemized array is cut from its first item's `[` to its last item's `]`, which
        // holds for compact JSON only (what this engine writes).
        for (key, part) in &layout.members {
            if let Part::Items(items) = part
                && let (Some(first), Some(last)) = (items.first(), items.last())
                && (text.as_bytes().get(first.start.wrapping_sub(1)) != Some(&b'[')
                    || text.as_bytes().get(last.end) != Some(&b']'))
            {
                return Err(package_error(format!("{key} is not compact JSON")));
            }
        }
        let mut context = Context {
            text,
            layout,
            context_id: String::new(),
            evidence_status: String::new(),
            value: OnceLock::new(),
            sha256: OnceLock::new(),
            package_index: OnceLock::new(),
        };
        context.context_id = string_member(context.member("context_id"))
            .filter(|id| {
                id.strip_prefix("urn:sha256:")
                    .is_some_and(okf_engine::canonical::is_hex64)
            })
            .ok_or_else(|| package_error("context_id is missing or not urn:sha256:<64 hex>"))?;
        context.evidence_status = string_member(context.member("evidence_status"))
            .filter(|s| matches!(s.as_str(), "sufficient" | "insufficient" | "conflicting"))
            .ok_or_else(|| package_error("evidence_status is missing or unknown"))?;
        Ok(context)
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
        // Parsed already for the gate: kept for the reads that walk the whole value.
        let _ = context.value.set(value);
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

    /// The parsed package (parsed on the first call).
    pub fn value(&self) -> Result<&Value, DeliveryError> {
        if let Some(value) = self.value.get() {
            return Ok(value);
        }
        let value = serde_json::from_str(&self.text)
            .map_err(|e| package_error(format!("the package is not JSON: {e}")))?;
        Ok(self.value.get_or_init(|| value))
    }

    /// Where the top-level member `key` lies, if the package has it.
    fn part(&self, key: &str) -> Option<&Part> {
        self.layout
            .members
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, part)| part)
    }

    /// The JSON text of the top-level member `key`, if the package has it.
    pub fn member(&self, key: &str) -> Option<&str> {
        match self.part(key)? {
            Part::Whole(range) => self.text.get(range.clone()),
            Part::Items(items) => match (items.first(), items.last()) {
                (Some(first), Some(last)) => self.text.get(first.start - 1..last.end + 1),
                _ => Some("[]"),
            },
        }
    }

    /// The top-level member `key` parsed (`Null` when the package has none).
    pub fn member_value(&self, key: &str) -> Result<Value, DeliveryError> {
        self.member(key).map_or(Ok(Value::Null), |raw| {
            serde_json::from_str(raw).map_err(|e| package_error(format!("{key}: {e}")))
        })
    }

    /// The number of items of the top-level array `key` (0 when it is missing or not an
    /// array).
    pub fn count(&self, key: &str) -> usize {
        if let Some(Part::Items(items)) = self.part(key) {
            return items.len();
        }
        self.member(key)
            .and_then(|raw| serde_json::from_str::<Vec<IgnoredAny>>(raw).ok())
            .map_or(0, |items| items.len())
    }

    /// The package's `context_id`.
    pub fn context_id(&self) -> &str {
        &self.context_id
    }

    /// The package's `evidence_status`.
    pub fn evidence_status(&self) -> &str {
        &self.evidence_status
    }

    /// `truncated` of the top-level member `key`, false when it has none.
    fn truncated(&self, key: &str) -> bool {
        #[derive(serde::Deserialize)]
        struct Truncated {
            #[serde(default)]
            truncated: Option<bool>,
        }
        self.member(key)
            .and_then(|raw| serde_json::from_str::<Truncated>(raw).ok())
            .and_then(|t| t.truncated)
            .unwrap_or(false)
    }

    /// `budget.truncated`: the assembly budget cut evidence.
    pub fn context_truncated(&self) -> bool {
        self.truncated("budget")
    }

    /// `retrieval.truncated` of a corpus package (false for a direct index).
    pub fn retrieval_truncated(&self) -> bool {
        self.truncated("retrieval")
    }

    /// The number of selected items.
    pub fn selected_count(&self) -> usize {
        self.count("selected")
    }

    /// The JSON text of the selected item at `position` (from 0), in package order.
    pub fn selected_item(&self, position: usize) -> Option<&str> {
        match self.part("selected")? {
            Part::Items(items) => self.text.get(items.get(position)?.clone()),
            Part::Whole(_) => None,
        }
    }

    /// The selected items (`{record, reasons, paths}`), in package order, parsed.
    pub fn selected(&self) -> Result<&[Value], DeliveryError> {
        Ok(self
            .value()?
            .get("selected")
            .and_then(Value::as_array)
            .map_or(&[], Vec::as_slice))
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
