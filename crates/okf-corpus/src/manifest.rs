//! Corpus manifests `okf-context-corpus.v1`/`v2`/`v3` (spec §1.6): typed models and every
//! manifest-level rule, checked before any shard is read.

use crate::Error;
use crate::limits;
use okf_engine::canonical::{cmp_utf16, is_hex64, to_canonical_string};
use okf_engine::model::Bundle;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::cmp::Ordering;
use std::collections::BTreeMap;

/// Schema of a page corpus.
pub const CORPUS_V1: &str = "okf-context-corpus.v1";
/// Schema of a unit corpus.
pub const CORPUS_V2: &str = "okf-context-corpus.v2";
/// Schema of a source-bound discovery corpus.
pub const CORPUS_V3: &str = "okf-context-corpus.v3";
/// Schema of the v3 adjacency section.
pub const ADJACENCY_SCHEMA: &str = "okf-context-adjacency.v1";
/// Ranking id of plain two-field BM25.
pub const BM25_V1: &str = "okf-bm25.v1";
/// Ranking id of BM25 with the discovery field weighted 2.
pub const BM25_WEIGHTED_V2: &str = "okf-bm25-weighted.v2";

/// How a file is stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Encoding {
    /// gzip-compressed; the decoded bytes are bound separately.
    Gzip,
}

/// A file reference `{path, bytes, sha256, encoding?, decoded_bytes?, decoded_sha256?}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileRef {
    /// Confined relative path.
    pub path: String,
    /// Exact stored length.
    pub bytes: u64,
    /// SHA-256 of the stored bytes.
    pub sha256: String,
    /// Stored encoding, if compressed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub encoding: Option<Encoding>,
    /// Exact decoded length (gzip only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decoded_bytes: Option<u64>,
    /// SHA-256 of the decoded bytes (gzip only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decoded_sha256: Option<String>,
}

/// A record or card shard reference: a file reference plus its ordinal range.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShardRef {
    /// Confined relative path.
    pub path: String,
    /// Exact stored length.
    pub bytes: u64,
    /// SHA-256 of the stored bytes.
    pub sha256: String,
    /// Stored encoding, if compressed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub encoding: Option<Encoding>,
    /// Exact decoded length (gzip only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decoded_bytes: Option<u64>,
    /// SHA-256 of the decoded bytes (gzip only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decoded_sha256: Option<String>,
    /// Ordinal of the shard's first record.
    pub first_ordinal: u64,
    /// Records in the shard.
    pub count: u64,
    /// Smallest record id (unit corpora).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_id: Option<String>,
    /// Largest record id (unit corpora).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_id: Option<String>,
}

impl ShardRef {
    /// The file part of the reference.
    pub fn file(&self) -> FileRef {
        FileRef {
            path: self.path.clone(),
            bytes: self.bytes,
            sha256: self.sha256.clone(),
            encoding: self.encoding,
            decoded_bytes: self.decoded_bytes,
            decoded_sha256: self.decoded_sha256.clone(),
        }
    }

    /// Whether `ordinal` falls in this shard.
    pub fn holds(&self, ordinal: u64) -> bool {
        ordinal >= self.first_ordinal && ordinal - self.first_ordinal < self.count
    }
}

/// Page and document census.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Counts {
    /// Source documents.
    pub documents: u64,
    /// Pages.
    pub pages: u64,
    /// Pages with text.
    pub nonempty_pages: u64,
    /// Pages without text.
    pub empty_pages: u64,
    /// Pages with text but no token.
    pub tokenless_pages: u64,
}

/// Record (or card) inventory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Inventory {
    /// Total records.
    pub count: u64,
    /// Ordinal-contiguous shards.
    pub shards: Vec<ShardRef>,
}

/// Token totals per BM25 field (v3).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TotalTokens {
    /// Tokens of all evidence texts.
    pub source: u64,
    /// Tokens of all discovery cards.
    pub discovery: u64,
}

/// The lexical search section.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Search {
    /// Always `nfkd-lowercase-ascii-alphanumeric-min2-v1`.
    pub tokenisation: String,
    /// Always `fnv1a32-high-byte-hex-v1`.
    pub bucket_algorithm: String,
    /// Posting buckets `00`..`ff`.
    pub shards: BTreeMap<String, FileRef>,
    /// v3 ranking parameters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ranking: Option<Value>,
    /// v3 field totals.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_tokens: Option<TotalTokens>,
    /// v3 weighted-ranking alias routes (accepted, not interpreted; spec §1.6 open point).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alias_routes: Option<Value>,
}

/// The v3 adjacency section.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Relationships {
    /// Always `okf-context-adjacency.v1`.
    pub schema: String,
    /// Always `fnv1a32-high-byte-hex-v1`.
    pub bucket_algorithm: String,
    /// Adjacency buckets `00`..`ff`.
    pub shards: BTreeMap<String, FileRef>,
}

/// A corpus manifest of any supported version.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// `okf-context-corpus.v1`, `.v2` or `.v3`.
    pub schema: String,
    /// Bundle identity copied into packages.
    pub bundle: Bundle,
    /// Snapshot the base index must carry.
    pub semantic_source_snapshot: String,
    /// Scope copied into packages.
    pub scope: String,
    /// Limitations copied into packages.
    pub limitations: Vec<String>,
    /// Page census.
    pub counts: Counts,
    /// The base index: concepts, scope records, requirements (and, before v3, assertions).
    pub base_index: FileRef,
    /// Record shards.
    pub records: Inventory,
    /// Posting buckets.
    pub search: Search,
    /// v3 discovery-card shards, ordinal-aligned with `records`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub discovery: Option<Inventory>,
    /// v3 adjacency buckets.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relationships: Option<Relationships>,
    /// Inert producer extensions; never interpreted, never a fetch permission.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extensions: Option<Value>,
}

impl Manifest {
    /// Every stored file the manifest names, with its exact stored length: the base index,
    /// the record, discovery, posting and adjacency shards. A server checks them all at start-up
    /// so that a deleted or truncated file is reported before a question needs it.
    pub fn stored_files(&self) -> Vec<(&str, u64)> {
        let inventories = std::iter::once(&self.records).chain(self.discovery.as_ref());
        let buckets = self
            .search
            .shards
            .values()
            .chain(self.relationships.iter().flat_map(|r| r.shards.values()));
        std::iter::once((self.base_index.path.as_str(), self.base_index.bytes))
            .chain(
                inventories
                    .flat_map(|i| i.shards.iter())
                    .map(|s| (s.path.as_str(), s.bytes)),
            )
            .chain(buckets.map(|f| (f.path.as_str(), f.bytes)))
            .collect()
    }
}

/// The manifest's corpus version.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Version {
    /// Page corpus.
    V1,
    /// Unit corpus.
    V2,
    /// Source-bound discovery corpus.
    V3,
}

/// The declared v3 ranking.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ranking {
    /// `okf-bm25.v1`: score = source + discovery.
    Bm25,
    /// `okf-bm25-weighted.v2`: score = source + 2 × discovery.
    Bm25Weighted,
}

impl Ranking {
    /// The ranking schema id.
    pub fn id(self) -> &'static str {
        match self {
            Ranking::Bm25 => BM25_V1,
            Ranking::Bm25Weighted => BM25_WEIGHTED_V2,
        }
    }

    /// Weight of the discovery field.
    pub fn discovery_weight(self) -> u64 {
        match self {
            Ranking::Bm25 => 1,
            Ranking::Bm25Weighted => 2,
        }
    }

    /// The exact parameter object the manifest must declare.
    pub fn declaration(self) -> Value {
        match self {
            Ranking::Bm25 => json!({"schema": BM25_V1, "k1": 1.2, "b": 0.75,
                "score_scale": 1_000_000, "fields": ["source", "discovery"]}),
            Ranking::Bm25Weighted => json!({"schema": BM25_WEIGHTED_V2, "k1": 1.2, "b": 0.75,
                "score_scale": 1_000_000, "fields": ["source", "discovery"],
                "weights": {"source": 1, "discovery": 2}}),
        }
    }
}

/// Hex names of the 256 buckets.
pub fn bucket_names() -> impl Iterator<Item = String> {
    (0..=255u32).map(|b| format!("{b:02x}"))
}

/// Checks a file path: ≤ 240 chars of `[A-Za-z0-9_.-]` segments joined by `/`, no `.`/`..`.
pub fn check_path(path: &str) -> Result<(), Error> {
    let unsafe_path = |rule| {
        Err(Error::UnsafePath {
            path: path.to_owned(),
            rule,
        })
    };
    if path.is_empty() || path.len() > 240 {
        return unsafe_path("must be 1-240 characters");
    }
    if path.contains('\\') || path.contains('%') || path.contains(':') {
        return unsafe_path("must not contain a backslash, '%' or a scheme");
    }
    if path.starts_with('/') {
        return unsafe_path("must be relative");
    }
    for segment in path.split('/') {
        if segment.is_empty() || segment == "." || segment == ".." {
            return unsafe_path("must not have empty, '.' or '..' segments");
        }
        if !segment
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
        {
            return unsafe_path("segments may use only A-Z, a-z, 0-9, '_', '.', '-'");
        }
    }
    Ok(())
}

/// True for an ASCII IRI (spec §1 notation).
pub fn is_ascii_iri(s: &str) -> bool {
    let Some((scheme, rest)) = s.split_once(':') else {
        return false;
    };
    s.len() <= 2000
        && scheme
            .bytes()
            .next()
            .is_some_and(|b| b.is_ascii_lowercase())
        && scheme.bytes().all(|b| {
            b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'+' | b'.' | b'-')
        })
        && !rest.is_empty()
        && rest.bytes().all(|b| (b'!'..=b'~').contains(&b))
}

/// The stored-file fields of a file or shard reference, borrowed for checking.
struct RefParts<'a> {
    path: &'a str,
    bytes: u64,
    sha256: &'a str,
    encoding: Option<Encoding>,
    decoded_bytes: Option<u64>,
    decoded_sha256: Option<&'a str>,
}

impl FileRef {
    fn parts(&self) -> RefParts<'_> {
        RefParts {
            path: &self.path,
            bytes: self.bytes,
            sha256: &self.sha256,
            encoding: self.encoding,
            decoded_bytes: self.decoded_bytes,
            decoded_sha256: self.decoded_sha256.as_deref(),
        }
    }
}

impl ShardRef {
    fn parts(&self) -> RefParts<'_> {
        RefParts {
            path: &self.path,
            bytes: self.bytes,
            sha256: &self.sha256,
            encoding: self.encoding,
            decoded_bytes: self.decoded_bytes,
            decoded_sha256: self.decoded_sha256.as_deref(),
        }
    }
}

/// Checks one reference. `field` names it in an error; it is built only then, because a large
/// manifest holds thousands of references (BENCHMARKS.md "Corpora").
fn check_ref(
    field: impl Fn() -> String,
    r: RefParts<'_>,
    limit: u64,
    closed_v3: bool,
) -> Result<(), Error> {
    check_path(r.path)?;
    if r.bytes == 0 || r.bytes > limit {
        return Err(Error::manifest(
            format!("{}.bytes", field()),
            format!("must be 1 to {limit} (declared {})", r.bytes),
        ));
    }
    if !is_hex64(r.sha256) {
        return Err(Error::manifest(
            format!("{}.sha256", field()),
            "must be 64 lowercase hex characters",
        ));
    }
    match r.encoding {
        Some(Encoding::Gzip) => {
            match r.decoded_bytes {
                Some(d) if (1..=limit).contains(&d) => {}
                _ => {
                    return Err(Error::manifest(
                        format!("{}.decoded_bytes", field()),
                        format!("gzip files need decoded_bytes from 1 to {limit}"),
                    ));
                }
            }
            if !r.decoded_sha256.is_some_and(is_hex64) {
                return Err(Error::manifest(
                    format!("{}.decoded_sha256", field()),
                    "gzip files need a hex64 decoded_sha256",
                ));
            }
        }
        None if closed_v3 && (r.decoded_bytes.is_some() || r.decoded_sha256.is_some()) => {
            return Err(Error::manifest(
                field(),
                "decoded_* fields are allowed only with gzip encoding",
            ));
        }
        None => {}
    }
    Ok(())
}

fn check_inventory<'a>(
    field: &'static str,
    inv: &'a Inventory,
    unit_ids: bool,
    closed_v3: bool,
    paths: &mut FilePaths<'a>,
) -> Result<(), Error> {
    if inv.shards.len() > limits::MAX_SHARDS {
        return Err(Error::manifest(
            format!("{field}.shards"),
            format!("at most {} shards", limits::MAX_SHARDS),
        ));
    }
    let mut next = 0u64;
    let mut previous_last: Option<&str> = None;
    for (i, shard) in inv.shards.iter().enumerate() {
        let f = || format!("{field}.shards[{i}]");
        check_ref(f, shard.parts(), limits::FILE_BYTES, closed_v3)?;
        paths.add(&shard.path, Named::Shard(field, i));
        if shard.first_ordinal != next {
            return Err(Error::manifest(
                format!("{}.first_ordinal", f()),
                format!("shards must be contiguous from 0; expected {next}"),
            ));
        }
        if !(1..=limits::MAX_SHARD_RECORDS).contains(&shard.count) {
            return Err(Error::manifest(
                format!("{}.count", f()),
                format!("must be 1 to {}", limits::MAX_SHARD_RECORDS),
            ));
        }
        next += shard.count;
        if unit_ids {
            let (Some(first), Some(last)) = (shard.first_id.as_deref(), shard.last_id.as_deref())
            else {
                return Err(Error::manifest(
                    f(),
                    "unit shards need first_id and last_id",
                ));
            };
            if !is_ascii_iri(first) || !is_ascii_iri(last) {
                return Err(Error::manifest(
                    f(),
                    "first_id and last_id must be ASCII IRIs",
                ));
            }
            if cmp_utf16(first, last) == Ordering::Greater {
                return Err(Error::manifest(f(), "first_id must not exceed last_id"));
            }
            if previous_last.is_some_and(|p| cmp_utf16(p, first) != Ordering::Less) {
                return Err(Error::manifest(
                    f(),
                    "unit id ranges must strictly ascend without overlapping",
                ));
            }
            previous_last = Some(last);
        } else if shard.first_id.is_some() || shard.last_id.is_some() {
            return Err(Error::manifest(
                f(),
                "first_id/last_id are not allowed here",
            ));
        }
    }
    if next != inv.count {
        return Err(Error::manifest(
            format!("{field}.count"),
            format!("shard counts sum to {next}, not {}", inv.count),
        ));
    }
    Ok(())
}

fn check_buckets<'a>(
    field: &'static str,
    shards: &'a BTreeMap<String, FileRef>,
    closed_v3: bool,
    paths: &mut FilePaths<'a>,
) -> Result<(), Error> {
    if shards.len() != 256 || !bucket_names().all(|b| shards.contains_key(&b)) {
        return Err(Error::manifest(
            field.to_owned(),
            "must hold exactly the 256 buckets 00..ff",
        ));
    }
    for (name, r) in shards {
        let f = || format!("{field}.{name}");
        check_ref(f, r.parts(), limits::FILE_BYTES, closed_v3)?;
        paths.add(&r.path, Named::Bucket(field, name));
    }
    Ok(())
}

impl Manifest {
    /// Parses and checks manifest bytes (already verified against their declared digest).
    pub fn from_slice(bytes: &[u8]) -> Result<Self, Error> {
        if bytes.len() as u64 > limits::MANIFEST_BYTES {
            return Err(Error::manifest(
                "$",
                format!("manifest exceeds {} bytes", limits::MANIFEST_BYTES),
            ));
        }
        let text = std::str::from_utf8(bytes)
            .map_err(|_| Error::manifest("$", "manifest is not UTF-8"))?;
        // Track the JSON path only when the plain parse fails: a large manifest parses at full
        // speed, and a bad one still names the field.
        let manifest: Manifest = serde_json::from_str(text).map_err(|plain| {
            let de = &mut serde_json::Deserializer::from_str(text);
            match serde_path_to_error::deserialize::<_, Manifest>(de) {
                Err(e) => Error::manifest(e.path().to_string(), e.inner().to_string()),
                Ok(_) => Error::manifest("$", plain.to_string()),
            }
        })?;
        manifest.check()?;
        Ok(manifest)
    }

    /// The corpus version, from `schema`.
    pub fn version(&self) -> Result<Version, Error> {
        match self.schema.as_str() {
            CORPUS_V1 => Ok(Version::V1),
            CORPUS_V2 => Ok(Version::V2),
            CORPUS_V3 => Ok(Version::V3),
            other => Err(Error::manifest(
                "schema",
                format!("unsupported corpus schema {other:?}"),
            )),
        }
    }

    /// The declared v3 ranking.
    pub fn ranking(&self) -> Result<Ranking, Error> {
        let declared = self
            .search
            .ranking
            .as_ref()
            .ok_or_else(|| Error::manifest("search.ranking", "v3 corpora declare a ranking"))?;
        let declared = to_canonical_string(declared)
            .map_err(|e| Error::manifest("search.ranking", e.to_string()))?;
        for r in [Ranking::Bm25, Ranking::Bm25Weighted] {
            if to_canonical_string(&r.declaration()).is_ok_and(|d| d == declared) {
                return Ok(r);
            }
        }
        Err(Error::manifest(
            "search.ranking",
            "unsupported ranking parameters: must equal okf-bm25.v1 or okf-bm25-weighted.v2 exactly",
        ))
    }

    /// Every manifest-level rule, in the order the rules are reported: census, base index,
    /// records, search, then the v3-only sections; last, that no file is named twice.
    fn check(&self) -> Result<(), Error> {
        let version = self.version()?;
        let v3 = version == Version::V3;
        self.check_counts(version)?;
        let mut paths = FilePaths::default();
        check_ref(
            || "base_index".to_owned(),
            self.base_index.parts(),
            limits::BASE_INDEX_BYTES,
            v3,
        )?;
        paths.add(&self.base_index.path, Named::Field("base_index"));
        check_inventory(
            "records",
            &self.records,
            version != Version::V1,
            v3,
            &mut paths,
        )?;
        if self.search.tokenisation != crate::tokens::TOKENISATION {
            return Err(Error::manifest(
                "search.tokenisation",
                format!("must be {}", crate::tokens::TOKENISATION),
            ));
        }
        if self.search.bucket_algorithm != crate::tokens::BUCKET_ALGORITHM {
            return Err(Error::manifest(
                "search.bucket_algorithm",
                format!("must be {}", crate::tokens::BUCKET_ALGORITHM),
            ));
        }
        check_buckets("search.shards", &self.search.shards, v3, &mut paths)?;
        if !v3 {
            if self.search.ranking.is_some()
                || self.search.total_tokens.is_some()
                || self.search.alias_routes.is_some()
                || self.discovery.is_some()
                || self.relationships.is_some()
                || self.extensions.is_some()
            {
                return Err(Error::manifest(
                    "$",
                    "ranking, total_tokens, alias_routes, discovery, relationships and extensions belong to v3 corpora only",
                ));
            }
            return Ok(());
        }
        self.check_v3_search()?;
        self.check_discovery(&mut paths)?;
        self.check_relationships(&mut paths)?;
        if let Some(ext) = &self.extensions
            && !ext.is_object()
        {
            return Err(Error::manifest("extensions", "must be an object"));
        }
        paths.check_unique()
    }

    /// The page census and the record count against it.
    fn check_counts(&self, version: Version) -> Result<(), Error> {
        let c = &self.counts;
        for (name, v) in [
            ("documents", c.documents),
            ("pages", c.pages),
            ("nonempty_pages", c.nonempty_pages),
            ("empty_pages", c.empty_pages),
            ("tokenless_pages", c.tokenless_pages),
        ] {
            if v > limits::MAX_COUNT {
                return Err(Error::manifest(
                    format!("counts.{name}"),
                    format!("must be at most {}", limits::MAX_COUNT),
                ));
            }
        }
        if c.nonempty_pages + c.empty_pages != c.pages {
            return Err(Error::manifest(
                "counts",
                "nonempty_pages + empty_pages must equal pages",
            ));
        }
        if c.tokenless_pages > c.nonempty_pages {
            return Err(Error::manifest(
                "counts.tokenless_pages",
                "must not exceed nonempty_pages",
            ));
        }
        if self.records.count > limits::MAX_COUNT {
            return Err(Error::manifest(
                "records.count",
                format!("must be at most {}", limits::MAX_COUNT),
            ));
        }
        if version == Version::V1 && self.records.count != c.nonempty_pages {
            return Err(Error::manifest(
                "records.count",
                "record inventory must equal the nonempty page census in a v1 corpus",
            ));
        }
        Ok(())
    }

    /// The v3 search parameters: the declared ranking, the field totals and the alias routes.
    fn check_v3_search(&self) -> Result<(), Error> {
        let ranking = self.ranking()?;
        let totals = self
            .search
            .total_tokens
            .as_ref()
            .ok_or_else(|| Error::manifest("search.total_tokens", "required in v3"))?;
        if totals.source > limits::MAX_TOTAL_TOKENS || totals.discovery > limits::MAX_TOTAL_TOKENS {
            return Err(Error::manifest(
                "search.total_tokens",
                "totals must be at most 10^12",
            ));
        }
        if let Some(routes) = &self.search.alias_routes {
            let ok = ranking == Ranking::Bm25Weighted
                && routes.as_array().is_some_and(|a| a.len() <= 2000);
            if !ok {
                return Err(Error::manifest(
                    "search.alias_routes",
                    "allowed only with okf-bm25-weighted.v2, at most 2,000 entries",
                ));
            }
        }
        Ok(())
    }

    /// The v3 card inventory: one card per record, in shards ordinal-aligned with the records'.
    fn check_discovery<'a>(&'a self, paths: &mut FilePaths<'a>) -> Result<(), Error> {
        let cards = self
            .discovery
            .as_ref()
            .ok_or_else(|| Error::manifest("discovery", "required in v3"))?;
        if cards.count != self.records.count {
            return Err(Error::manifest(
                "discovery.count",
                "must equal records.count",
            ));
        }
        check_inventory("discovery", cards, false, true, paths)?;
        if cards.shards.len() != self.records.shards.len()
            || cards
                .shards
                .iter()
                .zip(&self.records.shards)
                .any(|(c, r)| c.first_ordinal != r.first_ordinal || c.count != r.count)
        {
            return Err(Error::manifest(
                "discovery.shards",
                "card shards must be ordinal-aligned with the record shards",
            ));
        }
        Ok(())
    }

    /// The v3 adjacency section and its 256 buckets.
    fn check_relationships<'a>(&'a self, paths: &mut FilePaths<'a>) -> Result<(), Error> {
        let rel = self
            .relationships
            .as_ref()
            .ok_or_else(|| Error::manifest("relationships", "required in v3"))?;
        if rel.schema != ADJACENCY_SCHEMA || rel.bucket_algorithm != crate::tokens::BUCKET_ALGORITHM
        {
            return Err(Error::manifest(
                "relationships",
                format!(
                    "must declare {ADJACENCY_SCHEMA} with {}",
                    crate::tokens::BUCKET_ALGORITHM
                ),
            ));
        }
        check_buckets("relationships.shards", &rel.shards, true, paths)
    }
}

/// Where a manifest names a file, rendered as a field only for an error.
#[derive(Debug, Clone, Copy)]
enum Named<'a> {
    Field(&'static str),
    Shard(&'static str, usize),
    Bucket(&'static str, &'a str),
}

impl Named<'_> {
    fn field(self) -> String {
        match self {
            Named::Field(f) => f.to_owned(),
            Named::Shard(f, i) => format!("{f}.shards[{i}]"),
            Named::Bucket(f, name) => format!("{f}.{name}"),
        }
    }
}

/// Every file path a manifest names, checked for repeats once all are known: one sort rather
/// than a tree insert per file (a manifest names about 1,600 files at 100,000 units).
#[derive(Debug, Default)]
struct FilePaths<'a>(Vec<(&'a str, Named<'a>)>);

impl<'a> FilePaths<'a> {
    fn add(&mut self, path: &'a str, named: Named<'a>) {
        self.0.push((path, named));
    }

    /// Names the first repeat in manifest order.
    fn check_unique(&self) -> Result<(), Error> {
        let mut order: Vec<(&str, usize)> = self
            .0
            .iter()
            .enumerate()
            .map(|(i, (p, _))| (*p, i))
            .collect();
        order.sort_unstable();
        let repeat = order
            .windows(2)
            .filter(|w| w[0].0 == w[1].0)
            .map(|w| w[1].1)
            .min();
        match repeat.and_then(|i| self.0.get(i)) {
            Some((_, named)) => Err(Error::manifest(named.field(), "duplicate file path")),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn spec_1_6_a_file_named_twice_is_refused_naming_the_second_mention() {
        let built = crate::generate::generate(300, 100).unwrap();
        let manifest: serde_json::Value = serde_json::from_slice(&built.manifest_bytes).unwrap();
        assert!(Manifest::from_slice(&built.manifest_bytes).is_ok());
        let records_0 = manifest["records"]["shards"][0].clone();
        for (pointer, field) in [
            ("/records/shards/2", "records.shards[2]"),
            ("/search/shards/7f", "search.shards.7f"),
            ("/relationships/shards/00", "relationships.shards.00"),
        ] {
            let mut m = manifest.clone();
            let target = m.pointer_mut(pointer).unwrap();
            for key in ["path", "bytes", "sha256"] {
                target[key] = records_0[key].clone();
            }
            let err = Manifest::from_slice(&serde_json::to_vec(&m).unwrap()).unwrap_err();
            assert!(
                matches!(&err, Error::Manifest { field: f, rule } if f == field && rule.contains("duplicate")),
                "{pointer}: {err}"
            );
        }
    }

    #[test]
    fn spec_7_11_unsafe_paths_are_rejected() {
        for p in [
            "../outside",
            "https://evil.test/data",
            "/outside",
            "records/%2e%2e/x",
            "records/../x",
            "records\\x",
            "",
            "a//b",
        ] {
            assert!(
                matches!(check_path(p), Err(Error::UnsafePath { .. })),
                "{p}"
            );
        }
        check_path("records/0000.json.gz").unwrap_or_else(|e| panic!("{e}"));
    }

    #[test]
    fn ascii_iri_rule() {
        assert!(is_ascii_iri("https://example.test/evidence/0"));
        assert!(!is_ascii_iri("https://example.test/é"));
        assert!(!is_ascii_iri("no-scheme"));
        assert!(!is_ascii_iri("Https://x"));
    }
}
