//! Static retention (workbench-and-mcp.md §2.4.4) and reconstruction (engine.md §5.3): a
//! package as consecutive `package` read envelopes of at most 32,768 bytes, each of which a
//! publisher hosts as one part file, and the verified way back to the package.

use crate::read::read_slice;
use crate::{Context, DeliveryError, READ_SCHEMA, ReadRequest, Section, json_len};
use okf_engine::canonical::sha256_hex;
use serde_json::{Map, Value};

/// Size of every retained part's envelope budget.
pub const PART_BYTES: u64 = 32_768;
/// Most parts one package may be retained as.
pub const MAX_PARTS: usize = 128;
/// Most bytes of parts one reconstruction reads.
pub const MAX_TRANSFER_BYTES: usize = 4 * 1024 * 1024;

/// One retained part: the envelope text as written to its file, with its digest and size.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetainedPart {
    /// Compact JSON of the `okf-context-read.v1` envelope.
    pub json: String,
    /// SHA-256 of `json`.
    pub sha256: String,
    /// Byte length of `json`.
    pub bytes: u64,
}

/// Cuts a package into parts and proves, before returning them, that they reconstruct it.
pub fn retain(context: &Context) -> Result<Vec<RetainedPart>, DeliveryError> {
    let mut parts = Vec::new();
    let mut offset = 0;
    loop {
        if parts.len() == MAX_PARTS {
            return Err(DeliveryError::Reconstruction(format!(
                "the package needs more than {MAX_PARTS} parts of {PART_BYTES} bytes"
            )));
        }
        let request = ReadRequest {
            context_id: context.context_id().to_owned(),
            section: Section::Package,
            record_id: None,
            offset,
            max_bytes: PART_BYTES,
        };
        let (json, next) = read_slice(context, &request, &Map::new())?;
        parts.push(RetainedPart {
            sha256: sha256_hex(json.as_bytes()),
            bytes: json.len() as u64,
            json,
        });
        match next {
            Some(n) => offset = n,
            None => break,
        }
    }
    let texts: Vec<&str> = parts.iter().map(|p| p.json.as_str()).collect();
    let rebuilt = reconstruct(&texts, None)?;
    if rebuilt.text() != context.text() {
        return Err(DeliveryError::Reconstruction(
            "the parts do not reproduce the package exactly".into(),
        ));
    }
    Ok(parts)
}

/// Fields every part must carry, read once.
struct PartFields<'v> {
    context_id: &'v str,
    evidence_status: &'v str,
    content_sha256: &'v str,
    total: u64,
    offset: u64,
    end: u64,
    next: Option<u64>,
    data: &'v str,
    flags: (bool, bool),
}

fn part_fields<'v>(
    index: usize,
    text: &str,
    value: &'v Value,
) -> Result<PartFields<'v>, DeliveryError> {
    let fail = |reason: String| DeliveryError::Part { index, reason };
    let str_field = |key: &str| {
        value
            .get(key)
            .and_then(Value::as_str)
            .ok_or_else(|| fail(format!("{key} is missing or not a string")))
    };
    let int = |pointer: &str| {
        value
            .pointer(pointer)
            .and_then(Value::as_u64)
            .ok_or_else(|| fail(format!("{} is missing or not an integer", &pointer[1..])))
    };
    let flag = |key: &str| {
        value
            .get(key)
            .and_then(Value::as_bool)
            .ok_or_else(|| fail(format!("{key} is missing or not a boolean")))
    };
    let expect = |key: &str, wanted: &str| -> Result<(), DeliveryError> {
        let found = str_field(key)?;
        if found == wanted {
            Ok(())
        } else {
            Err(fail(format!("{key} is {found:?}, expected {wanted:?}")))
        }
    };
    expect("schema", READ_SCHEMA)?;
    expect("section", "package")?;
    expect("media_type", "application/json")?;
    expect("character_unit", "utf-16-code-units")?;
    if value.get("record_id") != Some(&Value::Null) {
        return Err(fail("record_id must be null".into()));
    }
    if value.get("ai_answer") != Some(&Value::Null) {
        return Err(fail("ai_answer must be null".into()));
    }
    let context_id = str_field("context_id")?;
    if !context_id
        .strip_prefix("urn:sha256:")
        .is_some_and(okf_engine::canonical::is_hex64)
    {
        return Err(fail("context_id is not urn:sha256:<64 hex>".into()));
    }
    let evidence_status = str_field("evidence_status")?;
    if !matches!(
        evidence_status,
        "sufficient" | "insufficient" | "conflicting"
    ) {
        return Err(fail(format!(
            "evidence_status {evidence_status:?} is not valid"
        )));
    }
    let content_sha256 = str_field("content_sha256")?;
    if int("/delivery/max_bytes")? != PART_BYTES {
        return Err(fail(format!("delivery.max_bytes must be {PART_BYTES}")));
    }
    let used = int("/delivery/used_bytes")?;
    let measured = json_len(value)? as u64;
    if used != text.len() as u64 || used != measured {
        return Err(fail(format!(
            "delivery.used_bytes {used} differs from the part's size ({} bytes, {measured} compact)",
            text.len()
        )));
    }
    if used > PART_BYTES {
        return Err(fail(format!("the part is {used} bytes, over {PART_BYTES}")));
    }
    let next = match value.get("next_offset") {
        Some(Value::Null) => None,
        Some(v) => Some(
            v.as_u64()
                .ok_or_else(|| fail("next_offset is not an integer".into()))?,
        ),
        None => return Err(fail("next_offset is missing".into())),
    };
    let data = str_field("data")?;
    let fields = PartFields {
        context_id,
        evidence_status,
        content_sha256,
        total: int("/total_characters")?,
        offset: int("/offset")?,
        end: int("/end_offset")?,
        next,
        data,
        flags: (flag("context_truncated")?, flag("retrieval_truncated")?),
    };
    let units = data.encode_utf16().count() as u64;
    if fields.end < fields.offset || fields.end - fields.offset != units {
        return Err(fail(format!(
            "data holds {units} UTF-16 units but offset..end_offset is {}..{}",
            fields.offset, fields.end
        )));
    }
    Ok(fields)
}

/// Rebuilds a package from its parts, in order, and passes it through the stored-package gate.
/// `expected_sha256` (the package's SHA-256, as a manifest lists it) is checked when given;
/// otherwise the parts' own `content_sha256` must hold.
pub fn reconstruct(
    parts: &[&str],
    expected_sha256: Option<&str>,
) -> Result<Context, DeliveryError> {
    if parts.is_empty() {
        return Err(DeliveryError::Reconstruction("no parts were given".into()));
    }
    if parts.len() > MAX_PARTS {
        return Err(DeliveryError::Reconstruction(format!(
            "{} parts are more than the {MAX_PARTS} allowed",
            parts.len()
        )));
    }
    let transferred: usize = parts.iter().map(|p| p.len()).sum();
    if transferred > MAX_TRANSFER_BYTES {
        return Err(DeliveryError::Reconstruction(format!(
            "the parts total {transferred} bytes, over {MAX_TRANSFER_BYTES}"
        )));
    }
    let mut values = Vec::with_capacity(parts.len());
    for (index, text) in parts.iter().enumerate() {
        if text.len() as u64 > PART_BYTES {
            return Err(DeliveryError::Part {
                index,
                reason: format!("the part is {} bytes, over {PART_BYTES}", text.len()),
            });
        }
        let value: Value = serde_json::from_str(text).map_err(|e| DeliveryError::Part {
            index,
            reason: format!("not JSON: {e}"),
        })?;
        values.push(value);
    }
    let mut text = String::new();
    let mut first: Option<PartFields> = None;
    let mut expected_offset = 0;
    let count = values.len();
    for (index, (raw, value)) in parts.iter().zip(&values).enumerate() {
        let part = part_fields(index, raw, value)?;
        let fail = |reason: String| DeliveryError::Part { index, reason };
        if part.offset != expected_offset {
            return Err(fail(format!(
                "starts at offset {}, expected {expected_offset} (a part is missing or out of order)",
                part.offset
            )));
        }
        let last = index + 1 == count;
        match (part.next, last) {
            (None, false) => return Err(fail("next_offset is null but more parts follow".into())),
            (Some(n), true) => {
                return Err(fail(format!(
                    "next_offset is {n} but no part follows (a part is missing)"
                )));
            }
            (Some(n), false) if n != part.end => {
                return Err(fail(format!(
                    "next_offset {n} differs from end_offset {}",
                    part.end
                )));
            }
            _ => {}
        }
        if last && part.end != part.total {
            return Err(fail(format!(
                "the last part ends at {} of {} characters",
                part.end, part.total
            )));
        }
        if let Some(f) = &first
            && (
                part.context_id,
                part.evidence_status,
                part.content_sha256,
                part.total,
                part.flags,
            ) != (
                f.context_id,
                f.evidence_status,
                f.content_sha256,
                f.total,
                f.flags,
            )
        {
            return Err(fail(
                "identity fields (context_id, status, content_sha256, total, truncation) differ from part 0"
                    .into(),
            ));
        }
        expected_offset = part.end;
        text.push_str(part.data);
        if text.len() > crate::MAX_PACKAGE_BYTES {
            return Err(DeliveryError::Reconstruction(format!(
                "the rebuilt package exceeds {} bytes",
                crate::MAX_PACKAGE_BYTES
            )));
        }
        if first.is_none() {
            first = Some(part);
        }
    }
    let Some(first) = first else {
        return Err(DeliveryError::Reconstruction("no parts were given".into()));
    };
    let actual = sha256_hex(text.as_bytes());
    if actual != first.content_sha256 {
        return Err(DeliveryError::Reconstruction(format!(
            "the joined data hashes to {actual}, the parts declare {}",
            first.content_sha256
        )));
    }
    if let Some(expected) = expected_sha256.filter(|e| *e != actual) {
        return Err(DeliveryError::Reconstruction(format!(
            "the joined data hashes to {actual}, expected {expected}"
        )));
    }
    let context_id = first.context_id.to_owned();
    let context = Context::from_stored(text, Some(&actual))?;
    context.expect_id(&context_id)?;
    Ok(context)
}
