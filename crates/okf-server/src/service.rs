//! What every adapter (HTTP and MCP) does with a request: check it, pick the allow-listed
//! index, call the engine, and retain the package for later lookup. No selection logic lives
//! here; the package bytes are the engine's, unchanged.

use crate::registry::{BundleEntry, LoadedVersion, Registry, is_date, is_logical_id};
use okf_engine::{Assembled, Budget, assemble, explain};
use serde::Deserialize;
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

/// The body of `POST /api/ask` and the arguments of the `ask_okf` tool.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AskRequest {
    /// Logical bundle id from the registry.
    pub bundle: String,
    /// The question, 1–4000 characters, not blank.
    pub question: String,
    /// Named version of the bundle (default: the bundle's default version).
    #[serde(default)]
    pub version: Option<String>,
    /// Date (YYYY-MM-DD): use the latest version published on or before it.
    #[serde(default)]
    pub as_of: Option<String>,
    /// Budget overrides; checked by the engine's rules.
    #[serde(default)]
    pub budget: Option<Value>,
}

/// Why a request was not answered with a package.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ServiceError {
    /// The request breaks an input rule; nothing was assembled.
    #[error("{field}: {message}")]
    InvalidRequest {
        /// The offending field.
        field: &'static str,
        /// What is wrong.
        message: String,
    },
    /// The bundle id is not in the registry.
    #[error("bundle {0:?} is not served here; GET /api/bundles lists the served bundles")]
    UnknownBundle(String),
    /// The version is not declared for the bundle, or none was in effect at `as_of`.
    #[error("{0}")]
    UnknownVersion(String),
    /// The bundle version was refused at start-up.
    #[error(
        "bundle {bundle:?} version {version:?} is not available: it failed verification at start-up"
    )]
    Unavailable {
        /// Bundle id.
        bundle: String,
        /// Version name.
        version: String,
    },
    /// A corpus shard failed verification or could not be read while answering.
    #[error("corpus {corpus:?} is not available for this question: {reason}")]
    CorpusUnavailable {
        /// Corpus id.
        corpus: String,
        /// The corpus reader's error.
        reason: String,
    },
    /// The engine refused the question or budget.
    #[error(transparent)]
    Engine(#[from] okf_engine::Error),
    /// The context id is not retained (evicted or never assembled here).
    #[error(
        "context {0} is not retained by this server; ask again with the same bundle, question and budget to rebuild it"
    )]
    ContextNotRetained(String),
}

impl ServiceError {
    /// A stable machine-readable code.
    pub fn code(&self) -> &'static str {
        match self {
            ServiceError::InvalidRequest { .. } => "invalid_request",
            ServiceError::UnknownBundle(_) => "unknown_bundle",
            ServiceError::UnknownVersion(_) => "unknown_version",
            ServiceError::Unavailable { .. } => "bundle_unavailable",
            ServiceError::CorpusUnavailable { .. } => "corpus_unavailable",
            ServiceError::Engine(okf_engine::Error::Question(_)) => "invalid_question",
            ServiceError::Engine(okf_engine::Error::Budget { .. }) => "invalid_budget",
            ServiceError::Engine(okf_engine::Error::PackageTooSmall { .. }) => "budget_too_small",
            ServiceError::Engine(_) => "engine_error",
            ServiceError::ContextNotRetained(_) => "context_not_retained",
        }
    }

    /// The request field at fault, where there is one.
    pub fn field(&self) -> Option<String> {
        match self {
            ServiceError::InvalidRequest { field, .. } => Some((*field).to_owned()),
            ServiceError::UnknownBundle(_) => Some("bundle".into()),
            ServiceError::UnknownVersion(_) | ServiceError::Unavailable { .. } => {
                Some("version".into())
            }
            ServiceError::Engine(okf_engine::Error::Question(_)) => Some("question".into()),
            ServiceError::Engine(okf_engine::Error::Budget { key, .. }) => Some(
                key.as_ref()
                    .map_or_else(|| "budget".to_owned(), |k| format!("budget.{k}")),
            ),
            ServiceError::Engine(okf_engine::Error::PackageTooSmall { .. }) => {
                Some("budget.max_bytes".into())
            }
            _ => None,
        }
    }
}

fn invalid(field: &'static str, message: impl Into<String>) -> ServiceError {
    ServiceError::InvalidRequest {
        field,
        message: message.into(),
    }
}

/// A package this server assembled.
#[derive(Debug, Clone)]
pub struct Answer {
    /// The package bytes and identity.
    pub package: Arc<Assembled>,
    /// The bundle id that was asked.
    pub bundle: String,
    /// The version that served it.
    pub version: String,
}

impl Answer {
    /// The package's evidence status, as written in it.
    pub fn package_status(&self) -> &'static str {
        self.package.evidence_status.as_str()
    }
}

/// Limits of the retained-package cache.
#[derive(Debug, Clone, Copy)]
pub struct CacheLimits {
    /// Most packages retained.
    pub max_entries: usize,
    /// Most package bytes retained.
    pub max_bytes: usize,
}

impl Default for CacheLimits {
    fn default() -> Self {
        CacheLimits {
            max_entries: 256,
            max_bytes: 64 * 1024 * 1024,
        }
    }
}

/// Least-recently-used cache of packages by `context_id`, bounded by count and bytes.
#[derive(Debug, Default)]
struct ContextCache {
    entries: HashMap<String, (u64, Arc<Assembled>)>,
    order: BTreeMap<u64, String>,
    bytes: usize,
    tick: u64,
}

impl ContextCache {
    fn touch(&mut self, id: &str) -> Option<Arc<Assembled>> {
        self.tick += 1;
        let tick = self.tick;
        let (old, package) = self
            .entries
            .get_mut(id)
            .map(|e| (std::mem::replace(&mut e.0, tick), Arc::clone(&e.1)))?;
        self.order.remove(&old);
        self.order.insert(tick, id.to_owned());
        Some(package)
    }

    fn insert(&mut self, package: Arc<Assembled>, limits: CacheLimits) {
        if self.touch(&package.context_id).is_some() {
            return;
        }
        let size = package.json.len();
        if size > limits.max_bytes || limits.max_entries == 0 {
            return;
        }
        while self.entries.len() >= limits.max_entries || self.bytes + size > limits.max_bytes {
            let Some((_, oldest)) = self.order.pop_first() else {
                break;
            };
            if let Some((_, evicted)) = self.entries.remove(&oldest) {
                self.bytes -= evicted.json.len();
            }
        }
        self.tick += 1;
        self.order.insert(self.tick, package.context_id.clone());
        self.entries
            .insert(package.context_id.clone(), (self.tick, package));
        self.bytes += size;
    }
}

/// The shared, read-only-after-start service state.
#[derive(Debug)]
pub struct Service {
    registry: Registry,
    cache: Mutex<ContextCache>,
    cache_limits: CacheLimits,
}

/// `^urn:sha256:[0-9a-f]{64}$`.
pub fn is_context_id(s: &str) -> bool {
    s.strip_prefix("urn:sha256:")
        .is_some_and(okf_engine::canonical::is_hex64)
}

impl Service {
    /// Wraps a verified registry.
    pub fn new(registry: Registry, cache_limits: CacheLimits) -> Self {
        Service {
            registry,
            cache: Mutex::new(ContextCache::default()),
            cache_limits,
        }
    }

    /// The registry being served.
    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    fn bundle(&self, id: &str) -> Result<&BundleEntry, ServiceError> {
        // Refuse anything that looks like a URL or path before any lookup or file access.
        if !is_logical_id(id) {
            return Err(invalid(
                "bundle",
                "must be a logical bundle id matching ^[a-z0-9][a-z0-9._-]{0,63}$, never a URL or path",
            ));
        }
        self.registry
            .bundles
            .get(id)
            .ok_or_else(|| ServiceError::UnknownBundle(id.to_owned()))
    }

    fn version<'r>(
        &'r self,
        req: &AskRequest,
    ) -> Result<(&'r str, &'r LoadedVersion), ServiceError> {
        let bundle = self.bundle(&req.bundle)?;
        let name: &str = match (&req.version, &req.as_of) {
            (Some(_), Some(_)) => {
                return Err(invalid("as_of", "give either version or as_of, not both"));
            }
            (Some(v), None) => {
                if !is_logical_id(v) {
                    return Err(invalid("version", "must match ^[a-z0-9][a-z0-9._-]{0,63}$"));
                }
                bundle
                    .versions
                    .get_key_value(v.as_str())
                    .map(|(k, _)| k.as_str())
                    .ok_or_else(|| {
                        ServiceError::UnknownVersion(format!(
                            "bundle {:?} declares no version {v:?}",
                            bundle.id
                        ))
                    })?
            }
            (None, Some(date)) => {
                if !is_date(date) {
                    return Err(invalid("as_of", "must be a calendar date YYYY-MM-DD"));
                }
                bundle
                    .versions
                    .values()
                    .filter_map(|v| {
                        v.published
                            .as_deref()
                            .filter(|p| *p <= date.as_str())
                            .map(|p| (p, v.name.as_str()))
                    })
                    .max()
                    .map(|(_, name)| name)
                    .ok_or_else(|| {
                        ServiceError::UnknownVersion(format!(
                            "no version of bundle {:?} was published on or before {date}",
                            bundle.id
                        ))
                    })?
            }
            (None, None) => bundle.default_version.as_str(),
        };
        let entry = &bundle.versions[name];
        match &entry.state {
            Ok(loaded) => Ok((entry.name.as_str(), loaded)),
            Err(_) => Err(ServiceError::Unavailable {
                bundle: bundle.id.clone(),
                version: entry.name.clone(),
            }),
        }
    }

    /// Checks a request and assembles its package (spec: same bytes as `okf ask`).
    pub fn ask(&self, req: &AskRequest) -> Result<Answer, ServiceError> {
        if is_logical_id(&req.bundle)
            && let Some(entry) = self.registry.corpora.get(&req.bundle)
        {
            return self.ask_corpus(entry, req);
        }
        let (version, loaded) = self.version(req)?;
        let budget = match &req.budget {
            None => Budget::default(),
            Some(b) => Budget::from_json(b)?,
        };
        let package = Arc::new(assemble(
            &loaded.index,
            &req.question,
            &budget,
            Some(&loaded.binding),
        )?);
        if let Ok(mut cache) = self.cache.lock() {
            cache.insert(Arc::clone(&package), self.cache_limits);
        }
        Ok(Answer {
            package,
            bundle: req.bundle.clone(),
            version: version.to_owned(),
        })
    }

    /// Assembles a package from a registry corpus (issue 15): one version, lazy shards.
    fn ask_corpus(
        &self,
        entry: &crate::registry::CorpusEntry,
        req: &AskRequest,
    ) -> Result<Answer, ServiceError> {
        if req.version.is_some() || req.as_of.is_some() {
            return Err(invalid(
                "version",
                "a corpus has one version; omit version and as_of",
            ));
        }
        let (corpus, binding) = entry
            .state
            .as_ref()
            .map_err(|_| ServiceError::Unavailable {
                bundle: entry.id.clone(),
                version: "corpus".into(),
            })?;
        let budget = match &req.budget {
            None => Budget::default(),
            Some(b) => Budget::from_json(b)?,
        };
        let answer = corpus
            .assemble(&req.question, &budget, Some(binding))
            .map_err(|e| match e {
                okf_corpus::Error::Engine(e) => ServiceError::Engine(e),
                other => ServiceError::CorpusUnavailable {
                    corpus: entry.id.clone(),
                    reason: other.to_string(),
                },
            })?;
        let package = Arc::new(answer.assembled);
        if let Ok(mut cache) = self.cache.lock() {
            cache.insert(Arc::clone(&package), self.cache_limits);
        }
        Ok(Answer {
            package,
            bundle: req.bundle.clone(),
            version: "corpus".into(),
        })
    }

    /// A package assembled here recently.
    pub fn context(&self, context_id: &str) -> Result<Arc<Assembled>, ServiceError> {
        if !is_context_id(context_id) {
            return Err(invalid(
                "context_id",
                "must match ^urn:sha256:[0-9a-f]{64}$",
            ));
        }
        let found = self.cache.lock().ok().and_then(|mut c| c.touch(context_id));
        found.ok_or_else(|| ServiceError::ContextNotRetained(context_id.to_owned()))
    }

    /// The explanation view of a retained package (whole package without a record id).
    pub fn explain(
        &self,
        context_id: &str,
        record_id: Option<&str>,
    ) -> Result<Value, ServiceError> {
        if record_id.is_some_and(|r| r.is_empty() || r.len() > 2000) {
            return Err(invalid("record_id", "must be 1-2000 characters"));
        }
        let package = self.context(context_id)?;
        let value: Value = serde_json::from_str(&package.json).map_err(|e| {
            ServiceError::Engine(okf_engine::Error::Json {
                what: "package",
                message: e.to_string(),
            })
        })?;
        Ok(explain(&value, record_id))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use okf_engine::EvidenceStatus;

    fn fake(id: u8, size: usize) -> Arc<Assembled> {
        Arc::new(Assembled {
            json: "x".repeat(size),
            context_id: format!("urn:sha256:{}", format!("{id:02x}").repeat(32)),
            used_bytes: size as u64,
            evidence_status: EvidenceStatus::Insufficient,
        })
    }

    #[test]
    fn cache_evicts_least_recently_used_by_count_and_bytes() {
        let limits = CacheLimits {
            max_entries: 2,
            max_bytes: 100,
        };
        let mut cache = ContextCache::default();
        cache.insert(fake(1, 10), limits);
        cache.insert(fake(2, 10), limits);
        assert!(cache.touch(&fake(1, 0).context_id).is_some());
        cache.insert(fake(3, 10), limits);
        assert!(
            cache.touch(&fake(2, 0).context_id).is_none(),
            "2 was least recently used"
        );
        assert!(cache.touch(&fake(1, 0).context_id).is_some());
        cache.insert(fake(4, 95), limits);
        assert_eq!(
            cache.entries.len(),
            1,
            "bytes bound evicts both older entries"
        );
        assert!(cache.bytes <= 100);
        cache.insert(fake(5, 101), limits);
        assert!(
            cache.touch(&fake(5, 0).context_id).is_none(),
            "an entry larger than the cache is not kept"
        );
    }
}
