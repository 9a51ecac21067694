//! The tools' input and output schemas, built from the published schemas for the registry
//! served (bundle and version enums), in the subset strict function calling accepts.

use crate::registry::Registry;
use crate::schemas;
use serde_json::{Value, json};

/// `search`'s query, with the registry's bundles named in its description.
pub(super) fn search_input_schema(registry: &Registry) -> Value {
    let ids: Vec<&str> = registry.ids().collect();
    let default = match &registry.search_bundle {
        Some(id) => format!("; without a prefix: {id}"),
        None => String::new(),
    };
    json!({
        "type": "object",
        "properties": {"query": {
            "type": "string",
            "minLength": 1,
            "maxLength": crate::search::MAX_QUERY_CHARS,
            "description": format!("A question in plain words. Prefix \"<bundle>: \" to choose the bundle ({}){default}.", ids.join(", "))
        }},
        "required": ["query"],
        "additionalProperties": false
    })
}

pub(super) fn search_output_schema() -> Value {
    json!({
        "type": "object",
        "properties": {"results": {"type": "array", "items": {
            "type": "object",
            "properties": {"id": {"type": "string"}, "title": {"type": "string"}, "url": {"type": "string"}},
            "required": ["id", "title", "url"],
            "additionalProperties": false
        }}},
        "required": ["results"],
        "additionalProperties": false
    })
}

pub(super) fn fetch_output_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "id": {"type": "string"},
            "title": {"type": "string"},
            "text": {"type": "string"},
            "url": {"type": "string"},
            "metadata": {"type": "object"}
        },
        "required": ["id", "title", "text", "url", "metadata"],
        "additionalProperties": false
    })
}

fn delivery_bytes_schema(min: u64) -> Value {
    json!({
        "type": ["integer", "null"],
        "minimum": min,
        "maximum": okf_delivery::MAX_DELIVERY_BYTES,
        "description": format!("Largest response in bytes ({min}-{}, default {}); it limits only this response, never the evidence.", okf_delivery::MAX_DELIVERY_BYTES, okf_delivery::DEFAULT_DELIVERY_BYTES),
    })
}

fn offset_schema(unit: &str) -> Value {
    json!({"type": ["integer", "null"], "minimum": 0, "maximum": crate::delivery::MAX_OFFSET, "description": format!("Start of this response, counted in {unit}; take it from next_offset (omitted or null: 0).")})
}

/// `ask_okf`'s schema plus the delivery fields: `extra` properties and extra required names.
fn delivery_input_schema(registry: &Registry, extra: Value, required: &[&str]) -> Value {
    // The delivery tools replay bundle versions only; corpora are asked with ask_okf.
    let mut schema = bundle_input_schema(registry, false);
    if let (Some(Value::Object(properties)), Value::Object(extra)) =
        (schema.get_mut("properties"), extra)
    {
        properties.extend(extra);
    }
    if let Some(Value::Array(list)) = schema.get_mut("required") {
        list.extend(required.iter().map(|r| json!(r)));
    }
    schema
}

pub(super) fn manifest_input_schema(registry: &Registry) -> Value {
    delivery_input_schema(
        registry,
        json!({
            "context_id": nullable(context_id_schema()),
            "offset": offset_schema("records"),
            "delivery_bytes": delivery_bytes_schema(crate::delivery::MIN_CATALOGUE_DELIVERY_BYTES),
        }),
        &[],
    )
}

pub(super) fn read_input_schema(registry: &Registry) -> Value {
    delivery_input_schema(
        registry,
        json!({
            "context_id": context_id_schema(),
            "section": {"type": "string", "enum": ["record_text", "record_metadata", "relationships", "diagnostics", "package"], "description": "What to read; record_text and record_metadata need record_id."},
            "record_id": {"type": ["string", "null"], "minLength": 1, "maxLength": okf_api::limits::MAX_RECORD_ID_CHARS, "description": "Id of a selected record (from the catalogue), for record_text and record_metadata only; null otherwise."},
            "offset": offset_schema("UTF-16 code units"),
            "delivery_bytes": delivery_bytes_schema(okf_delivery::MIN_DELIVERY_BYTES),
        }),
        &["context_id", "section"],
    )
}

/// `schema` with `null` added to its type: an optional field a strict client spells as null.
fn nullable(mut schema: Value) -> Value {
    if let Some(Value::String(t)) = schema.get("type").cloned() {
        schema["type"] = json!([t, "null"]);
    }
    schema
}

pub(super) fn context_id_schema() -> Value {
    json!({"type": "string", "pattern": okf_api::format::CONTEXT_ID_PATTERN, "description": "context_id returned by ask_okf"})
}

/// The published ask request schema with `bundle` and `version` narrowed to what this
/// registry serves, so a client can discover them from `tools/list` alone.
pub(super) fn ask_input_schema(registry: &Registry) -> Value {
    bundle_input_schema(registry, true)
}

/// The ask request schema narrowed to the registry's bundles, and its corpora when `corpora`.
fn bundle_input_schema(registry: &Registry, corpora: bool) -> Value {
    let mut schema = schemas::ask_request();
    let mut served: Vec<String> = registry
        .bundles
        .values()
        .map(|b| {
            let versions: Vec<String> = b
                .versions
                .values()
                .map(|v| match v.state {
                    Ok(_) => v.name.clone(),
                    Err(_) => format!("{} (refused at start-up)", v.name),
                })
                .collect();
            format!(
                "{} (versions: {}; default {})",
                b.id,
                versions.join(", "),
                b.default_version
            )
        })
        .collect();
    let mut versions: Vec<&str> = registry
        .bundles
        .values()
        .flat_map(|b| b.versions.keys().map(String::as_str))
        .collect();
    versions.sort_unstable();
    versions.dedup();
    // Corpora are asked by id like bundles (one version: omit version and as_of). Ids are
    // unique across bundles and corpora (the registry refuses a clash).
    let corpus_ids = registry.corpora.keys().filter(|_| corpora);
    served.extend(
        corpus_ids
            .clone()
            .map(|id| format!("{id} (a corpus: one version, omit version and as_of)")),
    );
    let mut ids: Vec<&String> = registry.bundles.keys().chain(corpus_ids).collect();
    ids.sort_unstable();
    let bundle = json!({
        "type": "string",
        "enum": ids,
        "description": format!(
            "Id of a bundle this server serves: {}. Always one of these logical ids, never a URL or a path.",
            served.join("; ")
        ),
    });
    let mut version_enum: Vec<Value> = versions.iter().map(|v| json!(v)).collect();
    version_enum.push(Value::Null);
    let version = json!({
        "type": ["string", "null"],
        "enum": version_enum,
        "description": "Version of the chosen bundle (see the bundle description); omitted or null: its default version. Not with as_of.",
    });
    if let Some(Value::Object(properties)) = schema.get_mut("properties") {
        properties.insert("bundle".into(), bundle);
        properties.insert("version".into(), version);
    }
    // Each tool's input schema differs (the delivery tools add fields), so none carries the
    // published schema's `$id`: validators that cache compiled schemas by `$id` (Ajv in the
    // TypeScript SDK) would otherwise check one tool's arguments against another's schema.
    // The narrowed `bundle` no longer refers to the published `$defs`, and the published
    // title names the HTTP request; both would only lengthen what every conversation carries.
    if let Value::Object(map) = &mut schema {
        map.remove("$id");
        map.remove("title");
        if !map.get("properties").is_some_and(schema_refers) {
            map.remove("$defs");
        }
    }
    schema
}

/// Whether `value` holds a `$ref` anywhere.
fn schema_refers(value: &Value) -> bool {
    match value {
        Value::Object(map) => map.contains_key("$ref") || map.values().any(schema_refers),
        Value::Array(items) => items.iter().any(schema_refers),
        _ => false,
    }
}
