//! Producer side (`okf corpus build`): shards one `okf-context-index.v1` into an
//! `okf-context-corpus.v3` corpus: a base index (concepts, scope records, requirements), unit
//! shards, ordinal-aligned discovery-card shards, BM25 posting buckets and adjacency buckets.

use crate::manifest::{
    ADJACENCY_SCHEMA, CORPUS_V3, Counts, FileRef, Inventory, Manifest, Ranking, Relationships,
    Search, ShardRef, TotalTokens, bucket_names, is_ascii_iri,
};
use crate::shards::{ADJACENCY_BUCKET, CARDS, POSTINGS_V2, RECORDS};
use crate::tokens::{BUCKET_ALGORITHM, TOKENISATION, bucket, corpus_tokens};
use crate::working::id_of;
use crate::{Error, limits};
use okf_engine::ContextIndex;
use okf_engine::canonical::{cmp_utf16, sha256_hex, to_canonical_string};
use serde_json::{Value, json};
use std::collections::BTreeMap;

/// Schema of a card reference.
pub const CARD_REFERENCE: &str = "okf-discovery-card-reference.v1";
/// Schema of an incident reference.
pub const INCIDENT_REFERENCE: &str = "okf-discovery-incident-reference.v1";

/// Outgoing and incoming assertions of one id.
type Incident = (Vec<Value>, Vec<Value>);

/// A corpus ready to be written: every file by relative path, and the manifest.
#[derive(Debug, Clone)]
pub struct BuiltCorpus {
    /// Files other than the manifest, by relative path.
    pub files: BTreeMap<String, Vec<u8>>,
    /// The manifest.
    pub manifest: Manifest,
    /// Canonical JSON bytes of the manifest (written as `manifest.json`).
    pub manifest_bytes: Vec<u8>,
}

fn canonical(v: &Value) -> Result<String, Error> {
    to_canonical_string(v).map_err(|e| Error::Build(e.to_string()))
}

fn file(path: String, bytes: &[u8]) -> Result<FileRef, Error> {
    if bytes.len() as u64 > limits::FILE_BYTES {
        return Err(Error::Build(format!(
            "{path} would be {} bytes, over the {} byte file limit; use fewer units per shard",
            bytes.len(),
            limits::FILE_BYTES
        )));
    }
    Ok(FileRef {
        path,
        bytes: bytes.len() as u64,
        sha256: sha256_hex(bytes),
        encoding: None,
        decoded_bytes: None,
        decoded_sha256: None,
    })
}

/// The discovery text of a card: label, heading path, summary and aliases, joined by newlines.
pub(crate) fn card_text(card: &Value) -> String {
    let strings = |key: &str| -> Vec<String> {
        card.get(key)
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default()
    };
    let mut parts = vec![
        card.get("label")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned(),
    ];
    parts.extend(strings("heading_path"));
    parts.push(
        card.get("summary")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned(),
    );
    parts.extend(strings("search_aliases"));
    parts.join("\n")
}

/// Term frequencies and length of a text.
pub(crate) fn term_counts(text: &str) -> (BTreeMap<String, u64>, u64) {
    let tokens = corpus_tokens(text);
    let mut tf = BTreeMap::new();
    for t in &tokens {
        *tf.entry(t.clone()).or_insert(0) += 1;
    }
    (tf, tokens.len() as u64)
}

/// A card for a unit: navigation text bound to the unit by its digest, never evidence.
fn card_for(unit: &Value, unit_canonical: &str) -> Result<Value, Error> {
    let id = id_of(unit);
    let field = |k: &str| unit.get(k).cloned().unwrap_or(Value::Null);
    let source = unit
        .get("authority")
        .and_then(|a| a.get("source"))
        .cloned()
        .unwrap_or(Value::Null);
    let heading: Vec<Value> = unit
        .get("route")
        .and_then(Value::as_str)
        .unwrap_or("")
        .split('/')
        .filter(|s| !s.is_empty())
        .take(20)
        .map(|s| Value::String(s.chars().take(500).collect()))
        .collect();
    let aliases: Vec<Value> = unit
        .get("aliases")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|x| x.as_str().or_else(|| x.get("text").and_then(Value::as_str)))
                .take(100)
                .map(|s| Value::String(s.chars().take(500).collect()))
                .collect()
        })
        .unwrap_or_default();
    Ok(json!({
        "id": format!("{id}#discovery-card"),
        "evidence_id": id,
        "evidence_sha256": sha256_hex(unit_canonical.as_bytes()),
        "label": field("label"),
        "heading_path": heading,
        "summary": "",
        "search_aliases": aliases,
        "assertion_status": "normalized",
        "authority": {
            "class": "derived",
            "label": "Discovery card derived by okf corpus build from the unit's own label and route",
            "source": source,
        },
        "scope": field("scope"),
        "provenance": field("provenance"),
        "rights": field("rights"),
        "access": field("access"),
    }))
}

/// Target size of a unit or card shard. A question reads the unit shard and the card shard of
/// each of its (at most 16) candidates; at this size those 32 files stay within a quarter of the
/// 16 MiB per-question read allowance however large the corpus, and a cold question's reads do
/// not grow with the units that happen to share a shard.
pub const SHARD_TARGET_BYTES: usize = 128 * 1024;

/// Splits units (given the canonical sizes of each unit and its card) into ordinal ranges of at
/// most `units_per_shard` units whose unit and card shards each stay under
/// [`SHARD_TARGET_BYTES`] (a single larger unit gets a shard of its own).
fn shard_spans(sizes: &[(usize, usize)], units_per_shard: usize) -> Vec<std::ops::Range<usize>> {
    let mut spans = Vec::new();
    let (mut start, mut unit_bytes, mut card_bytes) = (0, 0, 0);
    for (i, &(unit_len, card_len)) in sizes.iter().enumerate() {
        let count = i - start;
        let over = unit_bytes + unit_len + 1 > SHARD_TARGET_BYTES
            || card_bytes + card_len + 1 > SHARD_TARGET_BYTES;
        if count > 0 && (count >= units_per_shard || over) {
            spans.push(start..i);
            (start, unit_bytes, card_bytes) = (i, 0, 0);
        }
        unit_bytes += unit_len + 1;
        card_bytes += card_len + 1;
    }
    if start < sizes.len() {
        spans.push(start..sizes.len());
    }
    spans
}

/// Shards `index` into a v3 corpus with at most `units_per_shard` units per record shard (and
/// shards of about [`SHARD_TARGET_BYTES`] at most).
pub fn build_v3(index: &ContextIndex, units_per_shard: usize) -> Result<BuiltCorpus, Error> {
    let doc = serde_json::to_value(index.document()).map_err(|e| Error::Build(e.to_string()))?;
    build_from_document(&doc, units_per_shard)
}

/// Shards an index document that may be larger than one index may be (the scale generator's
/// output). Records are not validated here: every working index the reader builds from the
/// corpus is validated by the engine.
pub(crate) fn build_from_document(
    doc: &Value,
    units_per_shard: usize,
) -> Result<BuiltCorpus, Error> {
    let units_per_shard = units_per_shard.clamp(1, limits::MAX_SHARD_RECORDS as usize);
    let document = index_head(doc)?;
    let records = doc["records"].as_array().cloned().unwrap_or_default();
    let assertions = doc["assertions"].as_array().cloned().unwrap_or_default();
    let (units, base_records) = split_units(records)?;
    let mut files: BTreeMap<String, Vec<u8>> = BTreeMap::new();
    let base_ref = write_base(doc, base_records, &mut files)?;
    let written = write_units(&units, units_per_shard, &mut files)?;
    let search_shards = write_buckets(
        POSTINGS_V2,
        "search",
        "postings",
        written.postings,
        &mut files,
    )?;
    let adjacency_shards = write_buckets(
        ADJACENCY_BUCKET,
        "adjacency",
        "entries",
        adjacency_entries(&assertions)?,
        &mut files,
    )?;
    let manifest = Manifest {
        schema: CORPUS_V3.into(),
        semantic_source_snapshot: document.bundle.snapshot.clone(),
        bundle: document.bundle,
        scope: document.scope,
        limitations: document.limitations,
        counts: Counts {
            documents: 1,
            pages: written.count,
            nonempty_pages: written.count,
            empty_pages: 0,
            tokenless_pages: 0,
        },
        base_index: base_ref,
        records: Inventory {
            count: written.count,
            shards: written.records,
        },
        search: Search {
            tokenisation: TOKENISATION.into(),
            bucket_algorithm: BUCKET_ALGORITHM.into(),
            shards: search_shards,
            ranking: Some(Ranking::Bm25.declaration()),
            total_tokens: Some(written.totals),
            alias_routes: None,
        },
        discovery: Some(Inventory {
            count: written.count,
            shards: written.cards,
        }),
        relationships: Some(Relationships {
            schema: ADJACENCY_SCHEMA.into(),
            bucket_algorithm: BUCKET_ALGORITHM.into(),
            shards: adjacency_shards,
        }),
        extensions: None,
    };
    let manifest_value =
        serde_json::to_value(&manifest).map_err(|e| Error::Build(e.to_string()))?;
    let manifest_bytes = canonical(&manifest_value)?.into_bytes();
    // The builder's output must pass the reader's own manifest rules.
    Manifest::from_slice(&manifest_bytes)?;
    Ok(BuiltCorpus {
        files,
        manifest,
        manifest_bytes,
    })
}

/// The index document without its records and assertions, typed: the bundle, scope and
/// limitations the manifest copies.
fn index_head(doc: &Value) -> Result<okf_engine::model::IndexDocument, Error> {
    serde_json::from_value(Value::Object(
        doc.as_object()
            .map(|o| {
                o.iter()
                    .filter(|(k, _)| !matches!(k.as_str(), "records" | "assertions"))
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .chain([
                        ("records".to_owned(), Value::Array(Vec::new())),
                        ("assertions".to_owned(), Value::Array(Vec::new())),
                    ])
                    .collect()
            })
            .unwrap_or_default(),
    ))
    .map_err(|e| Error::Build(format!("index head: {e}")))
}

/// Splits records into evidence units, sorted by id in code-unit order, and the records the
/// base index keeps. Unit ids must be ASCII IRIs, since unit shards are ranged by id.
fn split_units(records: Vec<Value>) -> Result<(Vec<Value>, Vec<Value>), Error> {
    let (mut units, base_records): (Vec<Value>, Vec<Value>) = records
        .into_iter()
        .partition(|r| r.get("kind").and_then(Value::as_str) == Some("evidence"));
    units.sort_by(|a, b| cmp_utf16(id_of(a), id_of(b)));
    for u in &units {
        if !is_ascii_iri(id_of(u)) {
            return Err(Error::Build(format!(
                "unit id {:?} is not an ASCII IRI, so it cannot be range-sharded",
                id_of(u)
            )));
        }
    }
    Ok((units, base_records))
}

/// Writes the base index: the document with only its non-unit records and no assertions.
/// Its size is checked by the manifest rules (its limit is not a shard's).
fn write_base(
    doc: &Value,
    base_records: Vec<Value>,
    files: &mut BTreeMap<String, Vec<u8>>,
) -> Result<FileRef, Error> {
    let mut base = doc.clone();
    base["records"] = Value::Array(base_records);
    base["assertions"] = Value::Array(Vec::new());
    let base_bytes = canonical(&base)?.into_bytes();
    let base_ref = FileRef {
        path: "base-index.json".into(),
        bytes: base_bytes.len() as u64,
        sha256: sha256_hex(&base_bytes),
        encoding: None,
        decoded_bytes: None,
        decoded_sha256: None,
    };
    files.insert(base_ref.path.clone(), base_bytes);
    Ok(base_ref)
}

/// Posting rows `[ordinal, source tf, source length, discovery tf, discovery length]` by
/// bucket, then token.
type Postings = BTreeMap<String, BTreeMap<String, Vec<[u64; 5]>>>;

/// What writing the unit and card shards produced.
struct WrittenUnits {
    count: u64,
    records: Vec<ShardRef>,
    cards: Vec<ShardRef>,
    postings: Postings,
    totals: TotalTokens,
}

/// Writes the unit shards and their ordinal-aligned card shards, collecting the postings and
/// the token totals of both fields.
fn write_units(
    units: &[Value],
    units_per_shard: usize,
    files: &mut BTreeMap<String, Vec<u8>>,
) -> Result<WrittenUnits, Error> {
    let mut written = WrittenUnits {
        count: units.len() as u64,
        records: Vec::new(),
        cards: Vec::new(),
        postings: BTreeMap::new(),
        totals: TotalTokens {
            source: 0,
            discovery: 0,
        },
    };
    let prepared = units
        .iter()
        .map(|unit| {
            let unit_canonical = canonical(unit)?;
            let card = card_for(unit, &unit_canonical)?;
            let card_len = canonical(&card)?.len();
            Ok((unit_canonical.len(), card, card_len))
        })
        .collect::<Result<Vec<_>, Error>>()?;
    let sizes: Vec<(usize, usize)> = prepared.iter().map(|(u, _, c)| (*u, *c)).collect();
    let spans = shard_spans(&sizes, units_per_shard);
    let mut cards_by_unit = prepared.into_iter();
    for (n, span) in spans.into_iter().enumerate() {
        let chunk = &units[span.clone()];
        let first_ordinal = span.start as u64;
        let mut cards = Vec::with_capacity(chunk.len());
        for (i, unit) in chunk.iter().enumerate() {
            let Some((_, card, _)) = cards_by_unit.next() else {
                return Err(Error::Build("a unit lost its discovery card".into()));
            };
            written.post(first_ordinal + i as u64, unit, &card);
            cards.push(card);
        }
        let records_bytes = canonical(&json!({
            "schema": RECORDS, "first_ordinal": first_ordinal, "records": chunk,
        }))?
        .into_bytes();
        let cards_bytes = canonical(&json!({
            "schema": CARDS, "first_ordinal": first_ordinal, "cards": cards,
        }))?
        .into_bytes();
        let r = file(format!("units/{n:05}.json"), &records_bytes)?;
        let c = file(format!("cards/{n:05}.json"), &cards_bytes)?;
        written
            .records
            .push(shard_ref(r, first_ordinal, chunk, true));
        written
            .cards
            .push(shard_ref(c, first_ordinal, chunk, false));
        files.insert(format!("units/{n:05}.json"), records_bytes);
        files.insert(format!("cards/{n:05}.json"), cards_bytes);
    }
    Ok(written)
}

impl WrittenUnits {
    /// Adds the postings of one unit and its card, and their lengths to the totals.
    fn post(&mut self, ordinal: u64, unit: &Value, card: &Value) {
        let (stf, slen) = term_counts(unit.get("text").and_then(Value::as_str).unwrap_or(""));
        let (dtf, dlen) = term_counts(&card_text(card));
        self.totals.source += slen;
        self.totals.discovery += dlen;
        let mut all: BTreeMap<&str, (u64, u64)> = BTreeMap::new();
        for (t, c) in &stf {
            all.entry(t).or_default().0 = *c;
        }
        for (t, c) in &dtf {
            all.entry(t).or_default().1 = *c;
        }
        for (t, (s, d)) in all {
            self.postings
                .entry(bucket(t))
                .or_default()
                .entry(t.to_owned())
                .or_default()
                .push([ordinal, s, slen, d, dlen]);
        }
    }
}

/// The shard reference of a written unit or card shard holding `chunk`; unit shards also
/// carry their id range.
fn shard_ref(f: FileRef, first_ordinal: u64, chunk: &[Value], ids: bool) -> ShardRef {
    ShardRef {
        path: f.path,
        bytes: f.bytes,
        sha256: f.sha256,
        encoding: None,
        decoded_bytes: None,
        decoded_sha256: None,
        first_ordinal,
        count: chunk.len() as u64,
        first_id: ids
            .then(|| chunk.first().map(|u| id_of(u).to_owned()))
            .flatten(),
        last_id: ids
            .then(|| chunk.last().map(|u| id_of(u).to_owned()))
            .flatten(),
    }
}

/// Writes all 256 buckets `{dir}/{bucket}.json` as `{"schema": schema, key: contents}`, an
/// absent bucket with empty contents.
fn write_buckets<T: serde::Serialize + Default>(
    schema: &str,
    dir: &str,
    key: &str,
    mut contents: BTreeMap<String, T>,
    files: &mut BTreeMap<String, Vec<u8>>,
) -> Result<BTreeMap<String, FileRef>, Error> {
    let mut shards = BTreeMap::new();
    for b in bucket_names() {
        let bytes = canonical(&json!({
            "schema": schema,
            key: contents.remove(&b).unwrap_or_default(),
        }))?
        .into_bytes();
        let f = file(format!("{dir}/{b}.json"), &bytes)?;
        files.insert(f.path.clone(), bytes);
        shards.insert(b, f);
    }
    Ok(shards)
}

/// Adjacency entries by bucket: every endpoint id, in code-unit order, with its outgoing and
/// incoming assertions (each sorted by id) and their id commitments.
fn adjacency_entries(assertions: &[Value]) -> Result<BTreeMap<String, Vec<Value>>, Error> {
    let mut entries: BTreeMap<String, Incident> = BTreeMap::new();
    for a in assertions {
        let s = a
            .get("source")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned();
        let t = a
            .get("target")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned();
        entries.entry(s).or_default().0.push(a.clone());
        entries.entry(t).or_default().1.push(a.clone());
    }
    let mut buckets: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    let mut sorted: Vec<(String, Incident)> = entries.into_iter().collect();
    sorted.sort_by(|a, b| cmp_utf16(&a.0, &b.0));
    for (id, (mut out, mut inc)) in sorted {
        out.sort_by(|x, y| cmp_utf16(id_of(x), id_of(y)));
        inc.sort_by(|x, y| cmp_utf16(id_of(x), id_of(y)));
        let ids_sha = |list: &[Value]| -> Result<String, Error> {
            let ids: Vec<&str> = list.iter().map(id_of).collect();
            Ok(sha256_hex(canonical(&json!(ids))?.as_bytes()))
        };
        let entry = json!({
            "id": id,
            "outgoing_count": out.len(),
            "incoming_count": inc.len(),
            "outgoing_ids_sha256": ids_sha(&out)?,
            "incoming_ids_sha256": ids_sha(&inc)?,
            "outgoing": out,
            "incoming": inc,
        });
        buckets.entry(bucket(&id)).or_default().push(entry);
    }
    Ok(buckets)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_close_at_the_unit_count_or_the_byte_target() {
        let small = [(100, 100); 10];
        assert_eq!(shard_spans(&small, 4), vec![0..4, 4..8, 8..10]);
        // Cards of a third of the target: three fit, the fourth opens a new shard.
        let third = SHARD_TARGET_BYTES / 3 - 1;
        assert_eq!(shard_spans(&[(10, third); 7], 1000), vec![0..3, 3..6, 6..7]);
        // A unit over the target gets a shard of its own.
        let big = [(10, 10), (SHARD_TARGET_BYTES * 2, 10), (10, 10)];
        assert_eq!(shard_spans(&big, 1000), vec![0..1, 1..2, 2..3]);
        assert!(shard_spans(&[], 10).is_empty());
    }
}
