//! Shard file formats and their content rules (spec §1.6 "shard files").

use crate::Error;
use crate::loader::{Text, parse_json};
use crate::manifest::{ShardRef, is_ascii_iri};
use okf_engine::canonical::cmp_utf16;
use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::ops::Range;
use std::sync::OnceLock;

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
    pub(crate) fn parse(path: &str, text: &str, records: u64) -> Result<Self, Error> {
        let p: PostingsV1 = parse_json(path, text)?;
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

/// A bucket's tokens: where each list sits in the text, and its rows once read.
type TokenLists = BTreeMap<String, (Range<usize>, OnceLock<Vec<Row>>)>;

/// A verified `okf-context-postings.v2` bucket.
///
/// A bucket holds every token that hashes to it, so its size grows with the corpus (the format
/// fixes 256 buckets) while a question reads one or two tokens from it. The whole file is
/// length-, digest- and UTF-8-checked, and its object structure is walked once to find each
/// token's list; a token's rows are parsed and checked against the row rules the first time a
/// question reads that token (DEVIATIONS.md C5).
#[derive(Debug)]
pub(crate) struct PostingsV2 {
    path: String,
    text: Text,
    records: u64,
    totals: (u64, u64),
    tokens: TokenLists,
}

impl PostingsV2 {
    pub(crate) fn parse(
        path: &str,
        text: Text,
        records: u64,
        totals: (u64, u64),
    ) -> Result<Self, Error> {
        let mut walk = Walk {
            path,
            text: &text,
            at: 0,
        };
        let mut schema = None;
        let mut tokens = None;
        walk.expect(b'{', "$")?;
        if walk.peek() == Some(b'}') {
            walk.at += 1;
        } else {
            loop {
                let key = walk.string("$")?;
                walk.expect(b':', &key)?;
                match key.as_str() {
                    "schema" if schema.is_none() => {
                        let span = walk.skip_value("schema")?;
                        schema = Some(walk.decode::<String>(span, "schema")?);
                    }
                    "postings" if tokens.is_none() => tokens = Some(walk.spans()?),
                    "schema" | "postings" => {
                        return Err(Error::shard(path, key, "duplicate field"));
                    }
                    other => {
                        return Err(Error::shard(path, other, "unknown field"));
                    }
                }
                if !walk.next_member("$")? {
                    break;
                }
            }
        }
        walk.peek();
        if walk.at != text.len() {
            return Err(Error::shard(
                path,
                "$",
                "trailing characters after the object",
            ));
        }
        if schema.as_deref() != Some(POSTINGS_V2) {
            return Err(Error::shard(
                path,
                "schema",
                format!("must be {POSTINGS_V2}"),
            ));
        }
        let tokens = tokens.ok_or_else(|| Error::shard(path, "postings", "missing field"))?;
        Ok(PostingsV2 {
            path: path.to_owned(),
            text,
            records,
            totals,
            tokens,
        })
    }

    /// The checked rows of `token`, or `None` when the bucket does not hold it.
    pub(crate) fn rows(&self, token: &str) -> Result<Option<&[Row]>, Error> {
        let Some((span, rows)) = self.tokens.get(token) else {
            return Ok(None);
        };
        if let Some(r) = rows.get() {
            return Ok(Some(r));
        }
        let field = format!("postings.{token}");
        let bad = |rule: &str| Err(Error::shard(&self.path, &field, rule));
        let json = self.text.get(span.clone()).unwrap_or("");
        let parsed: Vec<Row> = match serde_json::from_str(json) {
            Ok(p) => p,
            Err(e) => return bad(&e.to_string()),
        };
        if parsed.windows(2).any(|w| w[0][0] >= w[1][0]) {
            return bad("ordinals must strictly increase");
        }
        for &[o, stf, slen, dtf, dlen] in &parsed {
            if o >= self.records {
                return bad("ordinal outside the corpus records");
            }
            if stf == 0 && dtf == 0 {
                return bad("a row needs a positive source or discovery frequency");
            }
            if stf > slen || dtf > dlen || slen > self.totals.0 || dlen > self.totals.1 {
                return bad("frequencies must not exceed lengths, nor lengths the field totals");
            }
            if [o, stf, slen, dtf, dlen].iter().any(|&v| v > 1_000_000) {
                return bad("posting integers are at most 1,000,000");
            }
        }
        // Another thread may have parsed it first; both are equal.
        Ok(Some(rows.get_or_init(|| parsed)))
    }
}

/// `okf-context-records.v1` (also used, with `cards`, for card shards). Items are kept as
/// raw JSON here: the whole file is syntax-checked, but only the items a question uses are
/// parsed into values (see [`Shard`]).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RecordsFile<'a> {
    schema: String,
    first_ordinal: u64,
    #[serde(default, borrow)]
    records: Option<Vec<&'a RawValue>>,
    #[serde(default, borrow)]
    cards: Option<Vec<&'a RawValue>>,
}

/// Only the `id` of an item; any other shape reads as "no id".
#[derive(Deserialize)]
struct ItemId<'a> {
    #[serde(default, borrow)]
    id: Option<Cow<'a, str>>,
}

/// One item of a shard: where it sits in the shard text, its id, and its value once used.
#[derive(Debug)]
struct Item {
    span: Range<usize>,
    id: Box<str>,
    value: OnceLock<Value>,
}

/// A verified record or card shard.
///
/// Cold cost matters at scale (BENCHMARKS.md "Corpora"): building a `Value` tree for every
/// item of every shard a question touches cost far more than reading and hashing the bytes,
/// while a question uses a handful of items. So the shard keeps its verified text, each
/// item's span and id, and parses an item into a `Value` the first time it is asked for.
#[derive(Debug)]
pub(crate) struct Shard {
    path: String,
    pub first_ordinal: u64,
    text: Text,
    items: Vec<Item>,
}

impl Shard {
    /// Parses a record (`cards == false`) or card shard and checks it against its reference.
    pub(crate) fn parse(
        path: &str,
        text: Text,
        cards: bool,
        shard: &ShardRef,
    ) -> Result<Self, Error> {
        let f: RecordsFile<'_> = parse_json(path, &text)?;
        let (schema, items) = if cards {
            (CARDS, f.cards.filter(|_| f.records.is_none()))
        } else {
            (RECORDS, f.records.filter(|_| f.cards.is_none()))
        };
        if f.schema != schema {
            return Err(Error::shard(path, "schema", format!("must be {schema}")));
        }
        let raw = items.ok_or_else(|| {
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
        if f.first_ordinal != shard.first_ordinal || raw.len() as u64 != shard.count {
            return Err(Error::shard(
                path,
                "first_ordinal",
                format!(
                    "shard holds {} items from ordinal {}, the manifest declares {} from {}",
                    raw.len(),
                    f.first_ordinal,
                    shard.count,
                    shard.first_ordinal
                ),
            ));
        }
        let base = text.as_ptr() as usize;
        let mut items = Vec::with_capacity(raw.len());
        for item in raw {
            let json = item.get();
            // `json` borrows from `text`, so its offset is the distance between the pointers.
            let start = (json.as_ptr() as usize).saturating_sub(base);
            let id = serde_json::from_str::<ItemId<'_>>(json)
                .ok()
                .and_then(|i| i.id)
                .unwrap_or_default();
            items.push(Item {
                span: start..start + json.len(),
                id: id.into(),
                value: OnceLock::new(),
            });
        }
        if let (Some(first), Some(last)) = (&shard.first_id, &shard.last_id) {
            let mut previous: Option<&str> = None;
            for (i, item) in items.iter().enumerate() {
                let id = &*item.id;
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
            path: path.to_owned(),
            first_ordinal: f.first_ordinal,
            text,
            items,
        })
    }

    /// The item at index `i`, parsed on first use.
    fn value(&self, i: usize) -> Result<Option<&Value>, Error> {
        let Some(item) = self.items.get(i) else {
            return Ok(None);
        };
        if let Some(v) = item.value.get() {
            return Ok(Some(v));
        }
        let json = self.text.get(item.span.clone()).unwrap_or("");
        let parsed: Value = serde_json::from_str(json)
            .map_err(|e| Error::shard(&self.path, format!("[{i}]"), e.to_string()))?;
        // Another thread may have parsed it first; both values are equal.
        Ok(Some(item.value.get_or_init(|| parsed)))
    }

    /// The item at a corpus ordinal.
    pub(crate) fn at(&self, ordinal: u64) -> Result<Option<&Value>, Error> {
        match ordinal
            .checked_sub(self.first_ordinal)
            .and_then(|i| usize::try_from(i).ok())
        {
            Some(i) => self.value(i),
            None => Ok(None),
        }
    }

    /// The item with an id (items are sorted by id).
    pub(crate) fn find(&self, id: &str) -> Result<Option<&Value>, Error> {
        match self.items.binary_search_by(|item| cmp_utf16(&item.id, id)) {
            Ok(i) => self.value(i),
            Err(_) => Ok(None),
        }
    }
}

/// Bytes that open or close a container or a string.
static STRUCTURAL: [bool; 256] = {
    let mut table = [false; 256];
    table[b'[' as usize] = true;
    table[b']' as usize] = true;
    table[b'{' as usize] = true;
    table[b'}' as usize] = true;
    table[b'"' as usize] = true;
    table
};

/// A single pass over a JSON object that records where member values sit without building
/// them. Strings (keys and the schema) are decoded strictly by serde_json; skipped values are
/// matched bracket by bracket, honouring strings and escapes, and parsed strictly when used.
struct Walk<'a> {
    path: &'a str,
    text: &'a str,
    at: usize,
}

impl Walk<'_> {
    fn error(&self, field: &str, rule: &str) -> Error {
        Error::shard(self.path, field, format!("{rule} at byte {}", self.at))
    }

    /// The next byte after whitespace, without consuming it.
    fn peek(&mut self) -> Option<u8> {
        let bytes = self.text.as_bytes();
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = bytes.get(self.at) {
            self.at += 1;
        }
        bytes.get(self.at).copied()
    }

    fn expect(&mut self, byte: u8, field: &str) -> Result<(), Error> {
        if self.peek() == Some(byte) {
            self.at += 1;
            Ok(())
        } else {
            Err(self.error(field, &format!("expected `{}`", char::from(byte))))
        }
    }

    /// After a member: `true` on `,` (another member follows), `false` on `}`.
    fn next_member(&mut self, field: &str) -> Result<bool, Error> {
        match self.peek() {
            Some(b',') => {
                self.at += 1;
                Ok(true)
            }
            Some(b'}') => {
                self.at += 1;
                Ok(false)
            }
            _ => Err(self.error(field, "expected `,` or `}`")),
        }
    }

    fn decode<T: serde::de::DeserializeOwned>(
        &self,
        span: Range<usize>,
        field: &str,
    ) -> Result<T, Error> {
        let json = self.text.get(span).unwrap_or("");
        serde_json::from_str(json).map_err(|e| Error::shard(self.path, field, e.to_string()))
    }

    /// The end of the string starting at `self.at` (a `"`), just past its closing quote.
    fn string_end(&self, field: &str) -> Result<usize, Error> {
        let bytes = self.text.as_bytes();
        let mut i = self.at + 1;
        loop {
            match bytes.get(i) {
                Some(b'"') => return Ok(i + 1),
                Some(b'\\') => i += 2,
                Some(_) => i += 1,
                None => return Err(self.error(field, "unterminated string")),
            }
        }
    }

    fn string(&mut self, field: &str) -> Result<String, Error> {
        if self.peek() != Some(b'"') {
            return Err(self.error(field, "expected a string key"));
        }
        let end = self.string_end(field)?;
        // Without escapes or control characters a JSON string is its own text: a bucket has
        // a key per token, hundreds at scale, so skip the decoder for those.
        let key = match self.text.get(self.at + 1..end - 1) {
            Some(inner) if inner.bytes().all(|b| b != b'\\' && b >= 0x20) => inner.to_owned(),
            _ => self.decode(self.at..end, field)?,
        };
        self.at = end;
        Ok(key)
    }

    /// Skips one value, returning its span. The scan keeps its position in a local so the loop
    /// stays tight: a posting bucket is megabytes of digits at scale (BENCHMARKS.md).
    fn skip_value(&mut self, field: &str) -> Result<Range<usize>, Error> {
        let bytes = self.text.as_bytes();
        let start = match self.peek() {
            Some(_) => self.at,
            None => return Err(self.error(field, "expected a value")),
        };
        let mut depth = 0usize;
        let mut i = start;
        while let Some(&b) = bytes.get(i) {
            // Inside a container only brackets, braces and strings matter: skip digits, commas
            // and spaces without taking the `match` below.
            if depth > 0 && !STRUCTURAL[usize::from(b)] {
                i += 1;
                continue;
            }
            match b {
                b'[' | b'{' => depth += 1,
                b']' | b'}' if depth > 0 => {
                    depth -= 1;
                    if depth == 0 {
                        self.at = i + 1;
                        return Ok(start..self.at);
                    }
                }
                b'"' => {
                    self.at = i;
                    i = self.string_end(field)?;
                    if depth == 0 {
                        self.at = i;
                        return Ok(start..i);
                    }
                    continue;
                }
                b',' | b']' | b'}' | b' ' | b'\t' | b'\n' | b'\r' if depth == 0 => {
                    self.at = i;
                    return Ok(start..i);
                }
                _ => {}
            }
            i += 1;
        }
        self.at = i;
        Err(self.error(field, "unexpected end of file"))
    }

    /// Skips a token's posting list, returning its span. Keys are the only strings in a
    /// `postings` object, so the list runs to the last `]` before the next `"` (found by a
    /// vectorised search; a bucket is megabytes of digits at scale, BENCHMARKS.md). The span
    /// must open with `[` and hold no string or brace; its rows are parsed strictly when the
    /// token is read (DEVIATIONS.md C5).
    fn skip_list(&mut self, field: &str) -> Result<Range<usize>, Error> {
        if self.peek() != Some(b'[') {
            return Err(self.error(field, "expected a posting list"));
        }
        let bytes = self.text.as_bytes();
        let start = self.at;
        let next_quote = memchr::memchr(b'"', &bytes[start..]).map_or(bytes.len(), |i| start + i);
        let end = memchr::memrchr(b']', &bytes[start..next_quote]).map_or(start, |i| start + i + 1);
        if end == start || memchr::memchr2(b'{', b'}', &bytes[start..end]).is_some() {
            self.at = end;
            return Err(self.error(field, "a posting list must be a bracketed list of rows"));
        }
        self.at = end;
        Ok(start..end)
    }

    /// The members of the object at `self.at`: key, list span and a slot for its rows.
    fn spans(&mut self) -> Result<TokenLists, Error> {
        let mut out = BTreeMap::new();
        self.expect(b'{', "postings")?;
        if self.peek() == Some(b'}') {
            self.at += 1;
            return Ok(out);
        }
        loop {
            let key = self.string("postings")?;
            self.expect(b':', &key)?;
            let span = self.skip_list(&key)?;
            out.insert(key, (span, OnceLock::new()));
            if !self.next_member("postings")? {
                return Ok(out);
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn bucket(text: &str) -> Result<PostingsV2, Error> {
        PostingsV2::parse("search/00.json", Text::new(text.to_owned()), 10, (100, 100))
    }

    #[test]
    fn postings_rows_are_found_through_any_whitespace_and_escaped_keys() {
        let p = bucket(
            " {\"postings\" : {\"\\u0061pple\": [ [1,1,5,0,3] , [4,2,6,1,3] ],\n\"pear\":[]},\"schema\":\"okf-context-postings.v2\"} ",
        )
        .unwrap();
        assert_eq!(
            p.rows("apple").unwrap(),
            Some(&[[1, 1, 5, 0, 3], [4, 2, 6, 1, 3]][..])
        );
        assert_eq!(p.rows("pear").unwrap(), Some(&[][..]));
        assert_eq!(p.rows("plum").unwrap(), None);
    }

    #[test]
    fn postings_rows_are_checked_when_their_token_is_read() {
        // "bad" breaks two row rules; reading "good" is unaffected, reading "bad" fails.
        let p = bucket(
            r#"{"schema":"okf-context-postings.v2","postings":{"bad":[[3,0,1,0,1],[2,1,1,0,1]],"good":[[0,1,1,0,1]]}}"#,
        )
        .unwrap();
        assert!(p.rows("good").unwrap().is_some());
        let err = p.rows("bad").unwrap_err().to_string();
        assert!(err.contains("postings.bad"), "{err}");
        // Still an error the second time: a failed parse is not cached.
        assert!(p.rows("bad").is_err());
    }

    #[test]
    fn postings_bucket_structure_is_checked_whole() {
        for (text, expect) in [
            (
                r#"{"schema":"okf-context-postings.v1","postings":{}}"#,
                "must be",
            ),
            (r#"{"schema":"okf-context-postings.v2"}"#, "missing field"),
            (
                r#"{"schema":"okf-context-postings.v2","postings":{},"extra":1}"#,
                "unknown field",
            ),
            (
                r#"{"schema":"okf-context-postings.v2","postings":{},"postings":{}}"#,
                "duplicate field",
            ),
            (
                r#"{"schema":"okf-context-postings.v2","postings":{}} x"#,
                "trailing",
            ),
            (
                r#"{"schema":"okf-context-postings.v2","postings":{"a":[[1,2]"#,
                "expected `,` or `}`",
            ),
            (
                r#"{"schema":"okf-context-postings.v2","postings":{"a":[[1,{}]]}}"#,
                "bracketed list of rows",
            ),
            (
                r#"{"schema":"okf-context-postings.v2","postings":{"a":1}}"#,
                "expected a posting list",
            ),
            // A raw control character in a key is not JSON, fast path or not.
            (
                "{\"schema\":\"okf-context-postings.v2\",\"postings\":{\"a\u{1}\":[]}}",
                "control character",
            ),
            (
                r#"{"schema":"okf-context-postings.v2","postings":{"a" [1]}}"#,
                "expected `:`",
            ),
            (
                r#"{"schema":"okf-context-postings.v2","postings":{"a":"x]"}}"#,
                "expected a posting list",
            ),
        ] {
            let err = bucket(text).err().map(|e| e.to_string());
            assert!(
                err.as_deref().is_some_and(|e| e.contains(expect)),
                "{text}: {err:?}"
            );
        }
        // Brackets inside an unread list are matched only when its token is read (C5).
        let p = bucket(
            r#"{"schema":"okf-context-postings.v2","postings":{"a":[[1,1,1,0,1]]],"b":[[2,1,1,0,1]]}}"#,
        )
        .unwrap();
        assert!(p.rows("b").unwrap().is_some());
        assert!(p.rows("a").is_err());
    }
}
