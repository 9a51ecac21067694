//! The public projection of an index: the same index with every restricted record reduced to
//! what a package may reveal about it.
//!
//! A package names a restricted record only by its id (in a `restricted_evidence` issue, or in
//! a requirement's `missing` list); it never quotes its label, text, provenance or anything
//! else, and a restricted concept never resolves (its aliases are not in the alias table).
//! So an index whose restricted records keep only their id, `access` and `kind` (plus
//! placeholders where the format requires a value) assembles byte-identical packages under the
//! same binding, and can be handed to a client that assembles locally without handing it the
//! restricted text.

use crate::index::ContextIndex;
use crate::model::{Access, Authority, Record};
use serde_json::Value;
use std::collections::BTreeSet;

/// Label every restricted record carries in the projection.
pub const RESTRICTED_LABEL: &str = "Restricted record";
/// Text every restricted record carries in the projection.
pub const RESTRICTED_TEXT: &str = "This record is restricted; its content is not published.";
/// Route every restricted record carries in the projection.
const RESTRICTED_ROUTE: &str = "restricted/record";

/// The canonical JSON of `index` with each restricted record reduced to its id, access and
/// kind (label, text, route, scope, rights and authority replaced by fixed placeholders;
/// aliases, provenance, conflicts, review status and evidence unit dropped), or `None` when
/// every record is public and the index is public as it stands.
pub fn public_projection(index: &ContextIndex) -> Option<String> {
    let doc = index.document();
    if doc.records.iter().all(|r| r.access == Access::Public) {
        return None;
    }
    let mut projected = doc.clone();
    let source = doc.bundle.source_url.clone();
    for record in &mut projected.records {
        if record.access != Access::Public {
            *record = placeholder(record, &source);
        }
    }
    // A review of a restricted record says what the record says: it is not published.
    if let Some(reviews) = projected.reviews.take() {
        let restricted: std::collections::HashSet<&str> = doc
            .records
            .iter()
            .filter(|r| r.access != Access::Public)
            .map(|r| r.id.as_str())
            .collect();
        let kept: Vec<_> = reviews
            .into_iter()
            .filter(|r| !restricted.contains(r.item.as_str()))
            .collect();
        projected.reviews = (!kept.is_empty()).then_some(kept);
    }
    // Model fields are declared in canonical key order, so this is canonical JSON; a typed
    // document always serialises.
    serde_json::to_string(&projected).ok()
}

/// Whether `index` is a public projection: it has restricted records and each is exactly the
/// placeholder [`public_projection`] writes. Such an index cannot prove which full index it
/// was projected from, so a binding naming that full index is taken on the server's word.
pub fn is_public_projection(index: &ContextIndex) -> bool {
    let doc = index.document();
    let mut restricted = doc
        .records
        .iter()
        .filter(|r| r.access != Access::Public)
        .peekable();
    restricted.peek().is_some() && restricted.all(|r| *r == placeholder(r, &doc.bundle.source_url))
}

/// What remains of a restricted record: its id, access, kind and assertion status, and the
/// bundle's own public source URL where the format requires an HTTP URL.
fn placeholder(record: &Record, bundle_source: &str) -> Record {
    Record {
        access: record.access,
        aliases: None,
        assertion_status: record.assertion_status,
        authority: Authority {
            class: record.authority.class.clone(),
            label: RESTRICTED_LABEL.to_owned(),
            source: bundle_source.to_owned(),
        },
        conflicts_with: None,
        evidence_unit: None,
        id: record.id.clone(),
        kind: record.kind,
        label: RESTRICTED_LABEL.to_owned(),
        provenance: Vec::new(),
        review_status: None,
        rights: RESTRICTED_LABEL.to_owned(),
        route: RESTRICTED_ROUTE.to_owned(),
        scope: RESTRICTED_LABEL.to_owned(),
        text: RESTRICTED_TEXT.to_owned(),
    }
}

/// The strings only restricted records carry: every string value of a restricted record,
/// leaving out the fields the projection keeps (id, access, kind, assertion status and
/// authority class), that appears nowhere else in the index and is not part of the record's
/// own id (a route often is). No public route may ever return one of them; tests and audits
/// scan responses for them.
pub fn restricted_only_strings(index: &ContextIndex) -> BTreeSet<String> {
    let doc = index.document();
    let mut restricted = BTreeSet::new();
    let mut public = BTreeSet::new();
    for record in &doc.records {
        let Ok(mut value) = serde_json::to_value(record) else {
            continue;
        };
        if record.access == Access::Public {
            strings(&value, &mut public);
            continue;
        }
        if let Some(map) = value.as_object_mut() {
            for kept in ["id", "access", "kind", "assertion_status"] {
                map.remove(kept);
            }
        }
        if let Some(authority) = value.get_mut("authority").and_then(Value::as_object_mut) {
            authority.remove("class");
        }
        let mut own = BTreeSet::new();
        strings(&value, &mut own);
        restricted.extend(own.into_iter().filter(|s| !record.id.contains(s.as_str())));
    }
    if let Ok(Value::Object(rest)) = serde_json::to_value(doc) {
        for (key, value) in &rest {
            if key != "records" {
                strings(value, &mut public);
            }
        }
    }
    restricted.difference(&public).cloned().collect()
}

/// Every string inside `value` (object keys excluded), at any depth.
fn strings(value: &Value, out: &mut BTreeSet<String>) {
    match value {
        Value::String(s) => {
            out.insert(s.clone());
        }
        Value::Array(items) => items.iter().for_each(|v| strings(v, out)),
        Value::Object(map) => map.values().for_each(|v| strings(v, out)),
        _ => {}
    }
}
