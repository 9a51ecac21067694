//! Where corpus bytes come from. A source only maps a confined relative path to bytes: it never
//! resolves URLs, and the loader has already checked the path (spec §1.3 "confined paths").

use std::collections::BTreeMap;

/// Why a source could not return a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SourceError {
    /// No file at that path.
    NotFound,
    /// The file is longer than the caller's limit; it was not read whole.
    TooLarge,
    /// Any other read failure.
    Other(String),
}

/// Reads the files of one corpus, addressed by paths relative to its root.
pub trait CorpusSource: Send + Sync {
    /// Reads the file at `path`, refusing files longer than `limit` bytes without reading them.
    fn read(&self, path: &str, limit: u64) -> Result<Vec<u8>, SourceError>;
}

/// Files held in memory: tests, fixtures and embedded corpora.
#[derive(Debug, Clone, Default)]
pub struct MemorySource {
    files: BTreeMap<String, Vec<u8>>,
}

impl MemorySource {
    /// An empty source.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds or replaces a file.
    pub fn insert(&mut self, path: impl Into<String>, bytes: Vec<u8>) {
        self.files.insert(path.into(), bytes);
    }

    /// Removes a file (used to test missing shards).
    pub fn remove(&mut self, path: &str) -> Option<Vec<u8>> {
        self.files.remove(path)
    }

    /// The bytes of a file, if present.
    pub fn get(&self, path: &str) -> Option<&Vec<u8>> {
        self.files.get(path)
    }
}

impl CorpusSource for MemorySource {
    fn read(&self, path: &str, limit: u64) -> Result<Vec<u8>, SourceError> {
        let bytes = self.files.get(path).ok_or(SourceError::NotFound)?;
        if bytes.len() as u64 > limit {
            return Err(SourceError::TooLarge);
        }
        Ok(bytes.clone())
    }
}

/// Files under one local directory. Paths arrive already confined (no `..`, no absolute
/// paths); symlinks that leave the directory are refused as well, and so is anything but a
/// regular file (a FIFO or device would never end).
#[cfg(feature = "fs")]
#[derive(Debug, Clone)]
pub struct DirSource {
    root: std::path::PathBuf,
}

#[cfg(feature = "fs")]
impl DirSource {
    /// A source rooted at `root`, which must be an existing directory.
    pub fn new(root: impl Into<std::path::PathBuf>) -> std::io::Result<Self> {
        let root = std::fs::canonicalize(root.into())?;
        if !root.is_dir() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::NotADirectory,
                format!("{} is not a directory", root.display()),
            ));
        }
        Ok(DirSource { root })
    }
}

#[cfg(feature = "fs")]
impl CorpusSource for DirSource {
    fn read(&self, path: &str, limit: u64) -> Result<Vec<u8>, SourceError> {
        use std::io::Read;
        let full = self.root.join(path);
        let real = match std::fs::canonicalize(&full) {
            Ok(p) => p,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(SourceError::NotFound);
            }
            Err(e) => return Err(SourceError::Other(e.to_string())),
        };
        if !real.starts_with(&self.root) {
            return Err(SourceError::Other(
                "resolves outside the corpus directory".into(),
            ));
        }
        let file = std::fs::File::open(&real).map_err(|e| SourceError::Other(e.to_string()))?;
        let metadata = file
            .metadata()
            .map_err(|e| SourceError::Other(e.to_string()))?;
        if !metadata.is_file() {
            return Err(SourceError::Other("is not a regular file".into()));
        }
        // Sized from the file's length (capped by the limit) so a large shard is read into one
        // allocation instead of a doubling series.
        let expected = metadata.len().min(limit);
        let mut bytes = Vec::with_capacity(usize::try_from(expected).unwrap_or(0) + 1);
        // Read one byte past the limit to tell "exactly at the limit" from "over it".
        file.take(limit.saturating_add(1))
            .read_to_end(&mut bytes)
            .map_err(|e| SourceError::Other(e.to_string()))?;
        if bytes.len() as u64 > limit {
            return Err(SourceError::TooLarge);
        }
        Ok(bytes)
    }
}
