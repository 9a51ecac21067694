//! # okf-corpus
//!
//! Corpora for Ask OKF: guidance larger than one `okf-context-index.v1`, published as a
//! manifest (`okf-context-corpus.v1`/`v2`/`v3`), a base index and sharded records, postings,
//! discovery cards and adjacency buckets (spec §1.6). A question reads only the shards it
//! needs; every file is checked against its declared length and SHA-256 before it is parsed,
//! and every per-call limit of spec §2.4 is enforced. Lexical discovery (integer IDF for v1/v2,
//! fixed-point two-field BM25 for v3, both with a total order) chooses the records that seed
//! the engine's governed traversal; the package then carries a `retrieval` section.
//!
//! The crate is pure apart from the [`CorpusSource`] a caller supplies; the local-directory
//! source is behind the `fs` feature. It never resolves a URL.

mod build;
mod discovery;
mod error;
pub mod generate;
mod lexical;
mod loader;
pub mod manifest;
pub mod score;
mod shards;
pub mod source;
pub mod tokens;
mod working;

pub use build::{BuiltCorpus, build_v3};
pub use error::Error;
pub use loader::LoadStats;
pub use manifest::{FileRef, Manifest, Version};
pub use source::{CorpusSource, MemorySource, SourceError};

use loader::ShardCache;
use okf_engine::{Assembled, Binding, Budget};

/// Fixed limits of spec §1.6 and §2.4.
pub mod limits {
    /// Largest corpus file (postings, records, cards, adjacency, manifest).
    pub const FILE_BYTES: u64 = 4 * 1024 * 1024;
    /// Largest manifest.
    pub const MANIFEST_BYTES: u64 = 4 * 1024 * 1024;
    /// Largest base index.
    pub const BASE_INDEX_BYTES: u64 = 8 * 1024 * 1024;
    /// Largest census or record count.
    pub const MAX_COUNT: u64 = 1_000_000;
    /// Most record shards.
    pub const MAX_SHARDS: usize = 16_000;
    /// Most records per shard.
    pub const MAX_SHARD_RECORDS: u64 = 10_000;
    /// Largest v3 field total.
    pub const MAX_TOTAL_TOKENS: u64 = 1_000_000_000_000;
    /// Query tokens kept per call.
    pub const QUERY_TOKENS: usize = 24;
    /// Longest query token, in characters.
    pub const QUERY_TOKEN_CHARS: usize = 64;
    /// Candidates kept per call.
    pub const CANDIDATES: usize = 16;
    /// Files read per call.
    pub const FILES: u64 = 64;
    /// Stored bytes read per call.
    pub const FETCHED_BYTES: u64 = 16 * 1024 * 1024;
    /// Decoded bytes per call.
    pub const DECODED_BYTES: u64 = 32 * 1024 * 1024;
    /// Largest working index.
    pub const WORKING_INDEX_BYTES: u64 = 8 * 1024 * 1024;
    /// Most records in a v2/v3 working index.
    pub const WORKING_RECORDS: usize = 10_000;
    /// Referenced-record load attempts per call.
    pub const REFERENCED_RECORDS: u64 = 200;
    /// Relationships examined while loading references.
    pub const EXAMINED_RELATIONSHIPS: u64 = 2_000;
    /// v3 posting rows ranked per call.
    pub const POSTING_ROWS: u64 = 2_000_000;
    /// v3 distinct records ranked per call.
    pub const RANKING_RECORDS: usize = 200_000;
    /// v3 priority path prefixes processed per call.
    pub const PATH_PREFIXES: u64 = 2_000;
}

/// An opened corpus: its verified manifest, its source and the shard cache.
pub struct Corpus {
    source: Box<dyn CorpusSource>,
    manifest: Manifest,
    manifest_sha256: String,
    cache: ShardCache,
}

impl std::fmt::Debug for Corpus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Corpus")
            .field("schema", &self.manifest.schema)
            .field("manifest_sha256", &self.manifest_sha256)
            .finish()
    }
}

impl Corpus {
    /// Opens the manifest at `manifest_path` (relative to the source root), refusing one over
    /// 4 MiB before reading it, and checks every manifest rule.
    pub fn open(source: Box<dyn CorpusSource>, manifest_path: &str) -> Result<Self, Error> {
        manifest::check_path(manifest_path)?;
        let bytes = source
            .read(manifest_path, limits::MANIFEST_BYTES)
            .map_err(|e| match e {
                SourceError::NotFound => Error::Missing {
                    path: manifest_path.to_owned(),
                },
                SourceError::TooLarge => Error::manifest(
                    "$",
                    format!("manifest exceeds {} bytes", limits::MANIFEST_BYTES),
                ),
                SourceError::Other(reason) => Error::Source {
                    path: manifest_path.to_owned(),
                    reason,
                },
            })?;
        Self::from_manifest_bytes(source, &bytes)
    }

    fn from_manifest_bytes(source: Box<dyn CorpusSource>, bytes: &[u8]) -> Result<Self, Error> {
        let (manifest, manifest_sha256) =
            loader::digest_beside(bytes, || Manifest::from_slice(bytes));
        Ok(Self::with_manifest(source, manifest?, manifest_sha256))
    }

    fn with_manifest(
        source: Box<dyn CorpusSource>,
        manifest: Manifest,
        manifest_sha256: String,
    ) -> Self {
        Corpus {
            source,
            manifest_sha256,
            manifest,
            cache: ShardCache::default(),
        }
    }

    /// The verified manifest.
    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    /// SHA-256 of the manifest bytes.
    pub fn manifest_sha256(&self) -> &str {
        &self.manifest_sha256
    }

    /// The binding used when the caller declares none: the bundle's `source_url` and the
    /// manifest digest.
    pub fn default_binding(&self) -> Binding {
        Binding {
            index_url: self.manifest.bundle.source_url.clone(),
            index_sha256: self.manifest_sha256.clone(),
        }
    }

    /// Physical shard reads since the corpus was opened (cache misses only).
    pub fn load_stats(&self) -> LoadStats {
        self.cache.stats()
    }

    /// Assembles the evidence package for `question` (spec §3.12).
    pub fn assemble(
        &self,
        question: &str,
        budget: &Budget,
        binding: Option<&Binding>,
    ) -> Result<CorpusAnswer, Error> {
        okf_engine::check_question(question)?;
        let binding = match binding {
            Some(b) => {
                okf_engine::check_binding(b)?;
                b.clone()
            }
            None => self.default_binding(),
        };
        let mut fetch = loader::Fetcher::new(self.source.as_ref(), &self.cache);
        let assembled = match self.manifest.version()? {
            Version::V1 | Version::V2 => {
                lexical::assemble(self, &mut fetch, question, budget, &binding)
            }
            Version::V3 => discovery::assemble(self, &mut fetch, question, budget, &binding),
        };
        // Digests still running decide first: a file that does not match its digest is the
        // error, whatever was made of its content (spec §3.12 "file loading").
        fetch.settle()?;
        let assembled = assembled?;
        Ok(CorpusAnswer {
            assembled,
            files_read: fetch.order,
        })
    }
}

/// A corpus package and the files it read.
#[derive(Debug, Clone)]
pub struct CorpusAnswer {
    /// The package.
    pub assembled: Assembled,
    /// Corpus files this call read (logically; the cache may have served them), in order.
    pub files_read: Vec<String>,
}

/// Splits query tokens into those used (first 24 of at most 64 characters) and the others.
pub(crate) fn split_query(tokens: Vec<String>) -> (Vec<String>, Vec<String>) {
    let mut kept = Vec::new();
    let mut omitted = Vec::new();
    for t in tokens {
        if kept.len() < limits::QUERY_TOKENS && t.chars().count() <= limits::QUERY_TOKEN_CHARS {
            kept.push(t);
        } else {
            omitted.push(t);
        }
    }
    (kept, omitted)
}

/// Retrieval omission messages (this project's wording).
pub(crate) mod msg {
    pub const QUERY_BUDGET: &str = "Some query words were not used for ranking: the per-question token allowance is full or the word is too long.";
    pub const CANDIDATE_BUDGET: &str = "More records matched than the candidate allowance; lower-ranked matches were not admitted.";
    pub const INDEX_BUDGET: &str =
        "Adding this record would exceed the working-index size allowance.";
    pub const REFERENCED_RECORD_BUDGET: &str =
        "The allowance of referenced-record loads is used up; this record was not loaded.";
    pub const REFERENCED_RECORD_MISSING: &str =
        "A referenced record is not in any corpus record shard.";
    pub const REFERENCED_RELATIONSHIP_BUDGET: &str =
        "The allowance of examined relationships is used up; further references were not followed.";
    pub const REFERENCED_DEPTH_BUDGET: &str =
        "The depth limit stopped a referenced record from being loaded.";
    pub const RANKING_BUDGET: &str =
        "The ranking work allowance is used up; postings of this token were not all ranked.";
    pub const RESTRICTED_RECORD: &str =
        "A ranked unit is restricted and cannot be used in a public package.";
}
