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
use std::thread::JoinHandle;

type Parsed = Arc<dyn Any + Send + Sync>;

/// A parsed file's kind and SHA-256.
type CacheKey = (&'static str, String);

/// Shards already verified and parsed, keyed by `type + sha256`.
#[derive(Default)]
pub(crate) struct ShardCache {
    entries: Mutex<HashMap<CacheKey, Parsed>>,
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
    /// Keeps a verified, parsed file for later calls.
    fn insert(&self, key: CacheKey, value: Parsed) {
        self.entries
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(key, value);
    }

    pub(crate) fn stats(&self) -> LoadStats {
        *self.loads.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Plain files at least this long have their digest checked on a second thread while the
/// question goes on with their content (see [`Fetcher::settle`]). At scale one posting bucket
/// is megabytes and its SHA-256 was the largest single cost of a cold question (BENCHMARKS.md
/// "Corpora"); smaller files are checked in line, where a thread would cost more than it saves.
const BACKGROUND_DIGEST_BYTES: u64 = 256 * 1024;

/// Verified (or being verified) file text, shared with the thread that checks its digest.
pub(crate) type Text = Arc<String>;

/// The digest check of a file read by [`read_checked`].
enum DigestCheck {
    /// Checked in line: the digest matched.
    Done,
    /// Running on another thread; yields the SHA-256 of the stored bytes.
    Running(JoinHandle<String>),
}

fn source_error(r: &FileRef, e: SourceError) -> Error {
    match e {
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
    }
}

fn digest_differs(r: &FileRef) -> Error {
    Error::Integrity {
        path: r.path.clone(),
        rule: "SHA-256 differs from the declared digest".into(),
    }
}

fn not_utf8(r: &FileRef) -> Error {
    Error::Integrity {
        path: r.path.clone(),
        rule: "not strict UTF-8".into(),
    }
}

/// The stored bytes, exactly as long as declared.
fn read_exact(source: &dyn CorpusSource, r: &FileRef) -> Result<Vec<u8>, Error> {
    let raw = source
        .read(&r.path, r.bytes)
        .map_err(|e| source_error(r, e))?;
    if raw.len() as u64 != r.bytes {
        return Err(Error::Integrity {
            path: r.path.clone(),
            rule: format!("{} bytes, declared {}", raw.len(), r.bytes),
        });
    }
    Ok(raw)
}

/// Decodes digest-checked stored bytes: gzip against its decoded binding, then UTF-8.
fn decode(r: &FileRef, raw: Vec<u8>) -> Result<String, Error> {
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
    String::from_utf8(decoded).map_err(|_| not_utf8(r))
}

/// Reads a file for [`Fetcher::load`], checking length, digest, decoding and UTF-8, except
/// that a large plain file's digest may still be running on another thread when this returns. Its text must not be
/// trusted, cached or returned until [`DigestCheck`] has matched.
fn read_checked(source: &dyn CorpusSource, r: &FileRef) -> Result<(Text, DigestCheck), Error> {
    let raw = read_exact(source, r)?;
    if r.encoding.is_some() || r.bytes < BACKGROUND_DIGEST_BYTES {
        if sha256_hex(&raw) != r.sha256 {
            return Err(digest_differs(r));
        }
        return Ok((Arc::new(decode(r, raw)?), DigestCheck::Done));
    }
    let text = match String::from_utf8(raw) {
        Ok(text) => Arc::new(text),
        // A tampered file reports its digest, as when the digest is checked first.
        Err(e) if sha256_hex(e.as_bytes()) != r.sha256 => return Err(digest_differs(r)),
        Err(_) => return Err(not_utf8(r)),
    };
    let shared = Arc::clone(&text);
    let spawned = digest_thread().spawn(move || sha256_hex(shared.as_bytes()));
    match spawned {
        Ok(handle) => Ok((text, DigestCheck::Running(handle))),
        // No thread to be had: check in line.
        Err(_) if sha256_hex(text.as_bytes()) == r.sha256 => Ok((text, DigestCheck::Done)),
        Err(_) => Err(digest_differs(r)),
    }
}

/// The thread a large file's SHA-256 runs on.
fn digest_thread() -> std::thread::Builder {
    std::thread::Builder::new().name("okf-corpus-digest".into())
}

/// Waits for a digest running on another thread and compares it with the reference.
fn finish_digest(r: &FileRef, handle: JoinHandle<String>) -> Result<(), Error> {
    match handle.join() {
        Ok(digest) if digest == r.sha256 => Ok(()),
        _ => Err(digest_differs(r)),
    }
}

/// Runs `parse` while the SHA-256 of `bytes` is computed, on a second thread when `bytes` is
/// large (a manifest grows with its corpus: 339 KB at 100,000 units).
pub(crate) fn digest_beside<T>(bytes: &[u8], parse: impl FnOnce() -> T) -> (T, String) {
    if (bytes.len() as u64) < BACKGROUND_DIGEST_BYTES {
        return (parse(), sha256_hex(bytes));
    }
    std::thread::scope(|scope| {
        let digest = digest_thread().spawn_scoped(scope, || sha256_hex(bytes));
        let parsed = parse();
        let digest = match digest {
            Ok(handle) => handle.join().unwrap_or_else(|_| sha256_hex(bytes)),
            Err(_) => sha256_hex(bytes),
        };
        (parsed, digest)
    })
}

/// A file parsed before its digest finished: kept out of the shared cache until it matches.
struct Pending {
    key: CacheKey,
    file: FileRef,
    value: Parsed,
    digest: JoinHandle<String>,
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
    /// Files in use whose digest is still running, in load order.
    pending: Vec<Pending>,
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
            pending: Vec::new(),
        }
    }

    /// Waits for every digest still running, in load order, and caches the files that match.
    /// The first mismatch is the call's error, whatever the call made of that file's content:
    /// exactly the error an in-line check would have given when the file was read.
    pub(crate) fn settle(&mut self) -> Result<(), Error> {
        let mut first_error = None;
        for p in self.pending.drain(..) {
            match finish_digest(&p.file, p.digest) {
                Ok(()) => self.cache.insert(p.key, p.value),
                Err(e) => {
                    first_error.get_or_insert(e);
                }
            }
        }
        first_error.map_or(Ok(()), Err)
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
        parse: impl FnOnce(Text) -> Result<T, Error>,
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
            .cloned()
            .or_else(|| {
                let pending = self.pending.iter().find(|p| p.key == key);
                pending.map(|p| Arc::clone(&p.value))
            });
        let parsed: Parsed = match cached {
            Some(p) => p,
            None => {
                let (text, digest) = read_checked(self.source, r)?;
                let decoded = text.len() as u64;
                let value: Parsed = match parse(text) {
                    Ok(v) => Arc::new(v),
                    Err(e) => {
                        // Content that does not parse is reported only once its digest matched.
                        if let DigestCheck::Running(handle) = digest {
                            finish_digest(r, handle)?;
                        }
                        return Err(e);
                    }
                };
                let mut stats = self.cache.loads.lock().unwrap_or_else(|e| e.into_inner());
                stats.files += 1;
                stats.bytes += r.bytes;
                stats.decoded_bytes += decoded;
                drop(stats);
                let parsed = Arc::clone(&value);
                match digest {
                    DigestCheck::Done => self.cache.insert(key, parsed),
                    DigestCheck::Running(handle) => self.pending.push(Pending {
                        key,
                        file: r.clone(),
                        value: parsed,
                        digest: handle,
                    }),
                }
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
