//! Exact reads (`okf-context-read.v1`, spec engine.md §5.2): one slice of one section, cut on
//! UTF-16 code units, as large as fits the delivery budget with its whole envelope.

use crate::utf16::Utf16Index;
use crate::{Context, DeliveryError, canonical, check_delivery_bytes, fixed_point, json_len};
use okf_engine::canonical::sha256_hex;
use serde_json::{Map, Value, json};
use std::borrow::Cow;
use std::sync::Arc;

/// Schema identifier of a read envelope.
pub const READ_SCHEMA: &str = "okf-context-read.v1";

/// The five readable sections of a package.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Section {
    /// One selected record's raw text (`text/plain`).
    RecordText,
    /// One selection item with its text replaced by a `text_reference`.
    RecordMetadata,
    /// The package's `relationships`.
    Relationships,
    /// The package without `selected` and `relationships`, with their counts.
    Diagnostics,
    /// The whole canonical package.
    Package,
}

impl Section {
    /// All sections, in documentation order.
    pub const ALL: [Section; 5] = [
        Section::RecordText,
        Section::RecordMetadata,
        Section::Relationships,
        Section::Diagnostics,
        Section::Package,
    ];

    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Section::RecordText => "record_text",
            Section::RecordMetadata => "record_metadata",
            Section::Relationships => "relationships",
            Section::Diagnostics => "diagnostics",
            Section::Package => "package",
        }
    }

    /// Parses a wire name.
    pub fn parse(name: &str) -> Result<Self, DeliveryError> {
        Section::ALL
            .into_iter()
            .find(|s| s.as_str() == name)
            .ok_or_else(|| DeliveryError::UnknownSection(name.to_owned()))
    }

    fn is_record(self) -> bool {
        matches!(self, Section::RecordText | Section::RecordMetadata)
    }

    fn media_type(self) -> &'static str {
        if self == Section::RecordText {
            "text/plain"
        } else {
            "application/json"
        }
    }
}

/// One exact read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadRequest {
    /// The id the caller expects; a different context is refused.
    pub context_id: String,
    /// What to read.
    pub section: Section,
    /// The record, for the two record sections only.
    pub record_id: Option<String>,
    /// Start, in UTF-16 code units.
    pub offset: u64,
    /// Delivery budget of the whole response, 8,192–65,536 bytes.
    pub max_bytes: u64,
}

/// The selection item of a selected record.
fn selection<'c>(context: &'c Context, record_id: &str) -> Result<&'c Value, DeliveryError> {
    context
        .selected()?
        .iter()
        .find(|item| item.pointer("/record/id").and_then(Value::as_str) == Some(record_id))
        .ok_or_else(|| DeliveryError::RecordNotSelected(record_id.to_owned()))
}

/// The full value of a section (spec §5.2 table).
fn section_value<'c>(
    context: &'c Context,
    section: Section,
    record_id: Option<&str>,
) -> Result<Cow<'c, str>, DeliveryError> {
    if !section.is_record() && record_id.is_some() {
        return Err(DeliveryError::RecordIdNotAllowed(section.as_str()));
    }
    let record = || record_id.ok_or(DeliveryError::RecordIdRequired(section.as_str()));
    let no_text = |id: &str| DeliveryError::Package(format!("record {id:?} has no text"));
    let package = context.value()?;
    Ok(match section {
        Section::RecordText => {
            let id = record()?;
            let text = selection(context, id)?
                .pointer("/record/text")
                .and_then(Value::as_str)
                .ok_or_else(|| no_text(id))?;
            Cow::Borrowed(text)
        }
        Section::RecordMetadata => {
            let id = record()?;
            let mut item = selection(context, id)?.clone();
            let Some(Value::Object(record)) = item.get_mut("record") else {
                return Err(no_text(id));
            };
            let Some(Value::String(text)) = record.remove("text") else {
                return Err(no_text(id));
            };
            record.insert(
                "text_reference".into(),
                json!({
                    "section": "record_text",
                    "characters": text.encode_utf16().count(),
                    "sha256": sha256_hex(text.as_bytes()),
                }),
            );
            Cow::Owned(canonical(&item)?)
        }
        Section::Relationships => Cow::Owned(canonical(
            package
                .get("relationships")
                .unwrap_or(&Value::Array(vec![])),
        )?),
        Section::Diagnostics => {
            let Value::Object(map) = package else {
                return Err(DeliveryError::Package(
                    "the package is not an object".into(),
                ));
            };
            let mut rest: Map<String, Value> = map.clone();
            let count = |v: Option<Value>| v.as_ref().and_then(Value::as_array).map_or(0, Vec::len);
            let selected = count(rest.remove("selected"));
            let relationships = count(rest.remove("relationships"));
            rest.insert("selected_records".into(), json!(selected));
            rest.insert("relationship_count".into(), json!(relationships));
            Cow::Owned(canonical(&Value::Object(rest))?)
        }
        Section::Package => Cow::Borrowed(context.text()),
    })
}

/// Reads one slice of a section (spec §5.2).
pub fn read(context: &Context, request: &ReadRequest) -> Result<String, DeliveryError> {
    read_with_extras(context, request, &Map::new())
}

/// As [`read`], with further top-level fields (for example an adapter's replay identity)
/// included in the envelope; the slice is cut so that the enlarged envelope still fits.
pub fn read_with_extras(
    context: &Context,
    request: &ReadRequest,
    extras: &Map<String, Value>,
) -> Result<String, DeliveryError> {
    read_slice(context, request, extras).map(|(json, _)| json)
}

/// One read envelope and its `next_offset`.
pub(crate) fn read_slice(
    context: &Context,
    request: &ReadRequest,
    extras: &Map<String, Value>,
) -> Result<(String, Option<u64>), DeliveryError> {
    let max_bytes = check_delivery_bytes(request.max_bytes)?;
    context.expect_id(&request.context_id)?;
    let value = section_value(context, request.section, request.record_id.as_deref())?;
    let (content_sha256, text) = if request.section == Section::Package {
        let index = context.package_index();
        (index.0.clone(), Indexed::Shared(index))
    } else {
        (
            sha256_hex(value.as_bytes()),
            Indexed::Own(Utf16Index::new(&value)),
        )
    };
    let text = text.get();
    let total = text.len();
    let offset = request.offset;
    if offset > total {
        return Err(DeliveryError::OffsetPastEnd { offset, total });
    }
    if text.splits_pair(offset) {
        return Err(DeliveryError::OffsetSplitsCharacter(offset));
    }
    let envelope = Envelope {
        context,
        request,
        extras,
        content_sha256,
        total,
    };
    // Response size for a candidate end: the envelope with empty data, plus the escaped slice.
    let size = |end: u64| -> Result<u64, DeliveryError> {
        let escaped = text.escaped_len(offset, end);
        fixed_point(|used| Ok(json_len(&envelope.build(end, "", used))? as u64 + escaped))
    };
    if size(offset)? > max_bytes {
        return Err(DeliveryError::MetadataTooLarge(max_bytes));
    }
    // Largest end whose whole response fits; the search never stops inside a surrogate pair.
    let mut low = offset;
    let mut high = total.min(offset.saturating_add(max_bytes));
    while low < high {
        let mut mid = low + (high - low).div_ceil(2);
        if text.splits_pair(mid) {
            mid -= 1;
            if mid == low {
                // The only candidate above `low` is the whole pair.
                mid = low + 2;
                if mid > high {
                    break;
                }
            }
        }
        if size(mid)? <= max_bytes {
            low = mid;
        } else {
            high = mid - 1;
        }
    }
    let end = low;
    if end == offset && offset < total {
        return Err(DeliveryError::NoProgress(max_bytes));
    }
    let used = size(end)?;
    let out = envelope.build(end, text.slice(&value, offset, end), used);
    let json = canonical(&out)?;
    debug_assert_eq!(json.len() as u64, used);
    Ok((json, (end < total).then_some(end)))
}

/// A section's UTF-16 index: the context's memoised one for the package, or built for the read.
enum Indexed {
    Shared(Arc<(String, Utf16Index)>),
    Own(Utf16Index),
}

impl Indexed {
    fn get(&self) -> &Utf16Index {
        match self {
            Indexed::Shared(shared) => &shared.1,
            Indexed::Own(own) => own,
        }
    }
}

/// The fields of one read response that do not depend on where the slice ends.
struct Envelope<'r> {
    context: &'r Context,
    request: &'r ReadRequest,
    extras: &'r Map<String, Value>,
    content_sha256: String,
    total: u64,
}

impl Envelope<'_> {
    fn build(&self, end: u64, data: &str, used_bytes: u64) -> Value {
        let offset = self.request.offset;
        let mut map = self.extras.clone();
        let fields = json!({
            "schema": READ_SCHEMA,
            "context_id": self.context.context_id(),
            "evidence_status": self.context.evidence_status(),
            "section": self.request.section.as_str(),
            "record_id": self.request.record_id,
            "media_type": self.request.section.media_type(),
            "content_sha256": self.content_sha256,
            "total_characters": self.total,
            "character_unit": "utf-16-code-units",
            "offset": offset,
            "end_offset": end,
            "next_offset": if end < self.total { Some(end) } else { None },
            "data": data,
            "delivery": {
                "max_bytes": self.request.max_bytes,
                "used_bytes": used_bytes,
                "partial": offset > 0 || end < self.total,
            },
            "context_truncated": self.context.context_truncated(),
            "retrieval_truncated": self.context.retrieval_truncated(),
            "ai_answer": null,
        });
        if let Value::Object(f) = fields {
            map.extend(f);
        }
        Value::Object(map)
    }
}
