//! Shard file formats and their content rules (spec §1.6 "shard files").

use crate::Error;
use crate::loader::parse_json;
use crate::manifest::{ShardRef, is_ascii_iri};
use okf_engine::canonical::cmp_utf16;
use serde::Deserialize;
use serde_json::Value;
use std::cmp::Ordering;
use std::collections::BTreeMap;

/// Schema of v1 postings.
pub const POSTINGS_V1: &str = "okf-context-postings.v1";
/// Schema of v3 postings.
pub const POSTINGS_V2: &str = "okf-context-postings.v2";
/// Schema of record shards.
pub const RECORDS: &str = "okf-context-records.v1";
/// Schema of card shards.
pub const CARDS: &str = "okf-discovery-cards.v1";
/// Schema of adjacency buckets.
pub const ADJACENCY_BUCKET: &str = "okf-context-adjacency-bucket.v1";

/// `okf-context-postings.v1`: token → strictly increasing ordinals.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct PostingsV1 {
    schema: String,
    pub postings: BTreeMap<String, Vec<u64>>,
}

impl PostingsV1 {
    pub(crate) fn parse(path: &str, bytes: &[u8], records: u64) -> Result<Self, Error> {
        let p: PostingsV1 = parse_json(path, bytes)?;
        if p.schema != POSTINGS_V1 {
            return Err(Error::shard(
                path,
                "schema",
                format!("must be {POSTINGS_V1}"),
            ));
        }
        for (token, list) in &p.postings {
            if list.windows(2).any(|w| w[0] >= w[1]) {
                return Err(Error::shard(
                    path,
                    format!("postings.{token}"),
                    "ordinals must strictly increase",
                ));
            }
            if list.last().is_some_and(|&o| o >= records) {
                return Err(Error::shard(
                    path,
                    format!("postings.{token}"),
                    format!("ordinal outside the {records} corpus records"),
                ));
            }
        }
        Ok(p)
    }
}

/// One v3 posting row `[ordinal, source_tf, source_len, discovery_tf, discovery_len]`.
pub(crate) type Row = [u64; 5];

/// `okf-context-postings.v2`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct PostingsV2 {
    schema: String,
    pub postings: BTreeMap<String, Vec<Row>>,
}

impl PostingsV2 {
    pub(crate) fn parse(
        path: &str,
        bytes: &[u8],
        records: u64,
        totals: (u64, u64),
    ) -> Result<Self, Error> {
        let p: PostingsV2 = parse_json(path, bytes)?;
        if p.schema != POSTINGS_V2 {
            return Err(Error::shard(
                path,
                "schema",
                format!("must be {POSTINGS_V2}"),
            ));
        }
        for (token, rows) in &p.postings {
            let bad = |rule: &str| Err(Error::shard(path, format!("postings.{token}"), rule));
            if rows.windows(2).any(|w| w[0][0] >= w[1][0]) {
                return bad("ordinals must strictly increase");
            }
            for &[o, stf, slen, dtf, dlen] in rows {
                if o >= records {
                    return bad("ordinal outside the corpus records");
                }
                if stf == 0 && dtf == 0 {
                    return bad("a row needs a positive source or discovery frequency");
                }
                if stf > slen || dtf > dlen || slen > totals.0 || dlen > totals.1 {
                    return bad(
                        "frequencies must not exceed lengths, nor lengths the field totals",
                    );
                }
                if [o, stf, slen, dtf, dlen].iter().any(|&v| v > 1_000_000) {
                    return bad("posting integers are at most 1,000,000");
                }
            }
        }
        Ok(p)
    }
}

/// `okf-context-records.v1` (also used, with `cards`, for card shards).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RecordsFile {
    schema: String,
    first_ordinal: u64,
    #[serde(default)]
    records: Option<Vec<Value>>,
    #[serde(default)]
    cards: Option<Vec<Value>>,
}

/// A verified record or card shard.
#[derive(Debug)]
pub(crate) struct Shard {
    pub first_ordinal: u64,
    pub items: Vec<Value>,
}

impl Shard {
    /// Parses a record (`cards == false`) or card shard and checks it against its reference.
    pub(crate) fn parse(
        path: &str,
        bytes: &[u8],
        cards: bool,
        shard: &ShardRef,
    ) -> Result<Self, Error> {
        let f: RecordsFile = parse_json(path, bytes)?;
        let (schema, items) = if cards {
            (CARDS, f.cards.filter(|_| f.records.is_none()))
        } else {
            (RECORDS, f.records.filter(|_| f.cards.is_none()))
        };
        if f.schema != schema {
            return Err(Error::shard(path, "schema", format!("must be {schema}")));
        }
        let items = items.ok_or_else(|| {
            Error::shard(
                path,
                "$",
                if cards {
                    "card shards hold exactly `cards`"
                } else {
                    "record shards hold exactly `records`"
                },
            )
        })?;
        if f.first_ordinal != shard.first_ordinal || items.len() as u64 != shard.count {
            return Err(Error::shard(
                path,
                "first_ordinal",
                format!(
                    "shard holds {} items from ordinal {}, the manifest declares {} from {}",
                    items.len(),
                    f.first_ordinal,
                    shard.count,
                    shard.first_ordinal
                ),
            ));
        }
        if let (Some(first), Some(last)) = (&shard.first_id, &shard.last_id) {
            let mut previous: Option<&str> = None;
            for (i, item) in items.iter().enumerate() {
                let id = item.get("id").and_then(Value::as_str).unwrap_or("");
                let in_range = cmp_utf16(id, first) != Ordering::Less
                    && cmp_utf16(id, last) != Ordering::Greater;
                if !is_ascii_iri(id)
                    || !in_range
                    || previous.is_some_and(|p| cmp_utf16(p, id) != Ordering::Less)
                {
                    return Err(Error::shard(
                        path,
                        format!("records[{i}].id"),
                        "unit ids must be ASCII IRIs, strictly ascending, within the declared range",
                    ));
                }
                previous = Some(id);
            }
        }
        Ok(Shard {
            first_ordinal: f.first_ordinal,
            items,
        })
    }

    pub(crate) fn at(&self, ordinal: u64) -> Option<&Value> {
        let i = ordinal.checked_sub(self.first_ordinal)?;
        self.items.get(usize::try_from(i).ok()?)
    }

    pub(crate) fn find(&self, id: &str) -> Option<&Value> {
        self.items
            .binary_search_by(|v| cmp_utf16(v.get("id").and_then(Value::as_str).unwrap_or(""), id))
            .ok()
            .and_then(|i| self.items.get(i))
    }
}
