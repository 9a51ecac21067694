//! Why the registry refused a declared file: a bundle's index, a corpus manifest or a
//! workbench manifest. `/api/bundles`, `/health`, `/ready` and the log state it as written.

/// Why a declared file was refused (or, after a reload, why its new copy was not taken).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    /// The registry's `sha256` is not a SHA-256 in hex.
    #[error("declared sha256 is not 64 lowercase hex characters")]
    DeclaredDigest,
    /// The binding the registry declares breaks the engine's binding rule.
    #[error("{field}: {why}")]
    Binding {
        /// The declaration it names (`index_url`, `corpus binding`).
        field: &'static str,
        /// The engine's rule.
        why: String,
    },
    /// The directory of a corpus or workbench cannot be opened.
    #[error("cannot open {what}: {why}")]
    Directory {
        /// Which directory.
        what: String,
        /// Why.
        why: String,
    },
    /// The file cannot be read.
    #[error("cannot read the {what}: {why}")]
    Unreadable {
        /// Which file (`index file`, `manifest`).
        what: &'static str,
        /// Why (never a path).
        why: String,
    },
    /// The file is over its size limit.
    #[error("the {what} is over {limit} bytes")]
    TooLarge {
        /// Which file.
        what: &'static str,
        /// The limit in bytes.
        limit: u64,
    },
    /// The bytes on disk are not the ones the registry declares.
    #[error("{what} SHA-256 is {actual}, registry declares {declared}")]
    Digest {
        /// Which file (`file`, `manifest`).
        what: &'static str,
        /// The SHA-256 of the bytes read.
        actual: String,
        /// The SHA-256 the registry declares.
        declared: String,
    },
    /// An index file that is not JSON.
    #[error("index is not JSON: {0}")]
    NotJson(String),
    /// A corpus file the manifest declares is missing or has another size.
    #[error("stored file {path} {why}")]
    StoredFile {
        /// The file, relative to the manifest.
        path: String,
        /// What is wrong with it.
        why: String,
    },
    /// The file breaks its own format (the index, corpus or workbench validator's error).
    #[error("{0}")]
    Invalid(String),
}

/// A refusal goes on the wire as the sentence it reads as.
impl serde::Serialize for Refusal {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}
