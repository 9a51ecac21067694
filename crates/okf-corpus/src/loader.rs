//! Verified, lazily loaded corpus files (spec §3.12 "file loading").
//!
//! Each call gets a [`Fetcher`] that accounts files and bytes against the per-call limits and
//! reserves before reading. Verified, parsed shards are kept in a process-wide cache keyed by
//! their SHA-256, so a second question reads nothing twice; the per-call accounting is logical
//! (a cached file still counts), which keeps packages independent of cache state.

use crate::manifest::{Encoding, FileRef};
use crate::source::{CorpusSource, SourceError};
use crate::{Error, limits};
use okf_engine::Issue;
use okf_engine::canonical::sha256_hex;
use std::any::Any;
use std::collections::{BTreeMap, HashMap};
use std::io::Read;
use std::sync::{Arc, Mutex};

type Parsed = Arc<dyn Any + Send + Sync>;

/// Shards already verified and parsed, keyed by `type + sha256`.
#[derive(Default)]
pub(crate) struct ShardCache {
    entries: Mutex<HashMap<(&'static str, String), Parsed>>,
    loads: Mutex<LoadStats>,
}

/// Physical reads of a corpus since it was opened.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LoadStats {
    /// Files read from the source and verified.
    pub files: u64,
    /// Stored bytes read.
    pub bytes: u64,
    /// Decoded bytes parsed.
    pub decoded_bytes: u64,
}

impl ShardCache {
    pub(crate) fn stats(&self) -> LoadStats {
        *self.loads.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Reads the exact bytes behind a reference and checks length, digest, decoding and UTF-8.
pub(crate) fn read_verified(source: &dyn CorpusSource, r: &FileRef) -> Result<String, Error> {
    let raw = source.read(&r.path, r.bytes).map_err(|e| match e {
        SourceError::NotFound => Error::Missing {
            path: r.path.clone(),
        },
        SourceError::TooLarge => Error::Integrity {
            path: r.path.clone(),
            rule: format!("longer than its declared {} bytes", r.bytes),
        },
        SourceError::Other(reason) => Error::Source {
            path: r.path.clone(),
            reason,
        },
    })?;
    if raw.len() as u64 != r.bytes {
        return Err(Error::Integrity {
            path: r.path.clone(),
            rule: format!("{} bytes, declared {}", raw.len(), r.bytes),
        });
    }
    if sha256_hex(&raw) != r.sha256 {
        return Err(Error::Integrity {
            path: r.path.clone(),
            rule: "SHA-256 differs from the declared digest".into(),
        });
    }
    let decoded = match r.encoding {
        None => raw,
        Some(Encoding::Gzip) => {
            let declared = r.decoded_bytes.unwrap_or(0);
            let mut out = Vec::new();
            flate2::read::GzDecoder::new(raw.as_slice())
                .take(declared.saturating_add(1))
                .read_to_end(&mut out)
                .map_err(|e| Error::Integrity {
                    path: r.path.clone(),
                    rule: format!("gzip stream does not decode: {e}"),
                })?;
            if out.len() as u64 != declared {
                return Err(Error::Integrity {
                    path: r.path.clone(),
                    rule: format!(
                        "decoded content exceeds or differs from its binding of {declared} bytes"
                    ),
                });
            }
            if r.decoded_sha256.as_deref() != Some(sha256_hex(&out).as_str()) {
                return Err(Error::Integrity {
                    path: r.path.clone(),
                    rule: "decoded SHA-256 differs from decoded_sha256".into(),
                });
            }
            out
        }
    };
    String::from_utf8(decoded).map_err(|_| Error::Integrity {
        path: r.path.clone(),
        rule: "not strict UTF-8".into(),
    })
}

/// Per-call file access with reservation and accounting.
pub(crate) struct Fetcher<'c> {
    source: &'c dyn CorpusSource,
    cache: &'c ShardCache,
    /// Logical reads this call: path → decoded size (None when denied).
    seen: BTreeMap<String, Option<u64>>,
    /// Paths in the order they were first read.
    pub order: Vec<String>,
    pub files: u64,
    pub fetched_bytes: u64,
    pub decoded_bytes: u64,
    /// Omissions, each with whether it only concerns lexical candidates.
    omissions: Vec<(Issue, bool)>,
    pub truncated: bool,
    /// While set, new omissions only concern lexical candidates (never required evidence).
    pub candidate_phase: bool,
}

const RESOURCE_MESSAGE: &str =
    "Reading this corpus file would exceed the per-question file or byte allowance.";

impl<'c> Fetcher<'c> {
    pub(crate) fn new(source: &'c dyn CorpusSource, cache: &'c ShardCache) -> Self {
        Fetcher {
            source,
            cache,
            seen: BTreeMap::new(),
            order: Vec::new(),
            files: 0,
            fetched_bytes: 0,
            decoded_bytes: 0,
            omissions: Vec::new(),
            truncated: false,
            candidate_phase: false,
        }
    }

    /// Adds a retrieval omission and marks retrieval truncated.
    pub(crate) fn omit(&mut self, code: &'static str, message: &'static str, ids: Vec<String>) {
        self.truncated = true;
        if !self
            .omissions
            .iter()
            .any(|(i, _)| i.code == code && i.ids == ids)
        {
            let issue = Issue {
                code,
                message: message.into(),
                ids,
            };
            self.omissions.push((issue, self.candidate_phase));
        }
    }

    /// Every retrieval omission, in order.
    pub(crate) fn omissions(&self) -> Vec<Issue> {
        self.omissions.iter().map(|(i, _)| i.clone()).collect()
    }

    /// The omissions that concern more than lexical candidates.
    pub(crate) fn budget_omissions(&self) -> Vec<Issue> {
        self.omissions
            .iter()
            .filter(|(_, candidate_only)| !candidate_only)
            .map(|(i, _)| i.clone())
            .collect()
    }

    /// Loads, verifies and parses a file, or returns `None` when the per-call allowance denies
    /// it (recorded as `retrieval_resource_budget`). `parse` runs once per digest.
    pub(crate) fn load<T: Send + Sync + 'static>(
        &mut self,
        kind: &'static str,
        r: &FileRef,
        parse: impl FnOnce(String) -> Result<T, Error>,
    ) -> Result<Option<Arc<T>>, Error> {
        let decoded_size = r.decoded_bytes.unwrap_or(r.bytes);
        match self.seen.get(&r.path) {
            Some(None) => return Ok(None),
            Some(Some(_)) => {}
            None => {
                if self.files + 1 > limits::FILES
                    || self.fetched_bytes + r.bytes > limits::FETCHED_BYTES
                    || self.decoded_bytes + decoded_size > limits::DECODED_BYTES
                {
                    self.seen.insert(r.path.clone(), None);
                    self.omit(
                        "retrieval_resource_budget",
                        RESOURCE_MESSAGE,
                        vec![r.path.clone()],
                    );
                    return Ok(None);
                }
                self.files += 1;
                self.fetched_bytes += r.bytes;
                self.decoded_bytes += decoded_size;
                self.seen.insert(r.path.clone(), Some(decoded_size));
                self.order.push(r.path.clone());
            }
        }
        let key = (kind, r.sha256.clone());
        let cached = self
            .cache
            .entries
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&key)
            .cloned();
        let parsed: Parsed = match cached {
            Some(p) => p,
            None => {
                let bytes = read_verified(self.source, r)?;
                let decoded = bytes.len() as u64;
                let value: Parsed = Arc::new(parse(bytes)?);
                let mut stats = self.cache.loads.lock().unwrap_or_else(|e| e.into_inner());
                stats.files += 1;
                stats.bytes += r.bytes;
                stats.decoded_bytes += decoded;
                drop(stats);
                self.cache
                    .entries
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .insert(key, Arc::clone(&value));
                value
            }
        };
        parsed
            .downcast::<T>()
            .map(Some)
            .map_err(|_| Error::Integrity {
                path: r.path.clone(),
                rule: "the same digest was cached as another kind of file".into(),
            })
    }
}

/// Parses verified JSON text into `T`, naming the file and JSON path on failure. The path is
/// tracked only when parsing fails (a second, tracked parse), so valid files parse at full speed.
pub(crate) fn parse_json<'de, T: serde::Deserialize<'de>>(
    path: &str,
    text: &'de str,
) -> Result<T, Error> {
    serde_json::from_str(text).map_err(|plain| {
        let de = &mut serde_json::Deserializer::from_str(text);
        match serde_path_to_error::deserialize::<_, T>(de) {
            Err(e) => Error::shard(path, e.path().to_string(), e.inner().to_string()),
            // Not expected: the tracked parse accepted what the plain one refused.
            Ok(_) => Error::shard(path, "$", plain.to_string()),
        }
    })
}
