//! The allow-listed bundle registry.
//!
//! Requests name a logical bundle id (and optionally a version); they never name a URL or a
//! path. Every index file is read and verified once, at start-up: its bytes must hash to the
//! declared SHA-256, it must validate, and its snapshot must match the declared one if any.
//! A bundle version that fails is refused and reported; the others are still served.

use crate::auth::{Access, AuthConfig, AuthDecl, Caller, Policy, Verifier};
use crate::refusal::Refusal;
use okf_engine::{Binding, ContextIndex};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use okf_api::format::LOGICAL_ID_PATTERN;
use okf_api::format::{is_date, is_logical_id};

/// A registry file (TOML).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RegistryFile {
    /// The bundle or corpus the MCP `search` tool asks when a query names none.
    #[serde(default)]
    pub search_bundle: Option<String>,
    /// The bundles.
    #[serde(default)]
    pub bundle: Vec<BundleDecl>,
    /// Evidence workbench directories served read-only.
    #[serde(default)]
    pub workbench: Vec<crate::workbench::WorkbenchDecl>,
    /// The corpora, asked by id like bundles.
    #[serde(default)]
    pub corpus: Vec<CorpusDecl>,
    /// The token issuers restricted entries trust (docs/deploy.md "Restricted bundles").
    #[serde(default)]
    pub auth: Option<AuthDecl>,
}

/// One `[[corpus]]` entry: a corpus manifest served under a logical id.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CorpusDecl {
    /// Logical id requests use (shared namespace with bundles).
    pub id: String,
    /// Manifest file, relative to the registry file; its directory holds the shards.
    pub manifest: PathBuf,
    /// SHA-256 of the manifest file's bytes.
    pub sha256: String,
    /// URL recorded in every package's binding.
    pub index_url: String,
    /// Who may ask it (default public).
    #[serde(default)]
    pub access: Access,
}

/// A verified, servable corpus: shards are read lazily, per question, and cached by digest.
#[derive(Debug, Clone)]
pub struct CorpusEntry {
    /// Logical id.
    pub id: String,
    /// Declared SHA-256 of the manifest.
    pub manifest_sha256: String,
    /// The opened corpus and its binding, or why it was refused.
    pub state: Result<(Arc<okf_corpus::Corpus>, Binding), Refusal>,
    /// Set once a question found a stored file that failed verification: the corpus is then
    /// not ready until a reload opens it afresh.
    pub failure: Arc<std::sync::Mutex<Option<String>>>,
}

impl CorpusEntry {
    /// Why this corpus cannot be served (refused, or a file failed verification).
    pub fn not_ready(&self) -> Option<String> {
        match &self.state {
            Err(reason) => Some(reason.to_string()),
            Ok(_) => self
                .failure
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .clone(),
        }
    }

    /// Records that a stored file failed verification (logged once, the first time).
    pub fn fail(&self, reason: &str) {
        let mut failure = self
            .failure
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if failure.is_none() {
            tracing::error!(
                target: "okf::registry",
                corpus = %self.id,
                reason,
                "corpus file failed verification; the corpus is not ready"
            );
            *failure = Some(reason.to_owned());
        }
    }
}

/// Something the registry declares that cannot be served, as `/ready`, `/health` and the log
/// name it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotReady {
    /// `bundle`, `corpus` or `workbench`.
    pub kind: &'static str,
    /// Its logical id.
    pub id: String,
    /// The version, for a bundle.
    pub version: Option<String>,
    /// Why.
    pub reason: String,
}

/// One `[[bundle]]` entry.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BundleDecl {
    /// Logical id requests use.
    pub id: String,
    /// Index file, relative to the registry file.
    pub index: PathBuf,
    /// SHA-256 of the index file's bytes.
    pub sha256: String,
    /// URL recorded in every package's binding.
    pub index_url: String,
    /// Expected `bundle.snapshot`, if declared.
    #[serde(default)]
    pub snapshot: Option<String>,
    /// Date (YYYY-MM-DD) the main index took effect, for `as_of` selection.
    #[serde(default)]
    pub published: Option<String>,
    /// Name of the main index as a version (default `current`).
    #[serde(default)]
    pub version_name: Option<String>,
    /// Which version serves requests without `version` (default: the main index).
    #[serde(default)]
    pub default_version: Option<String>,
    /// Further named versions.
    #[serde(default)]
    pub versions: Vec<VersionDecl>,
    /// `"regimes"`: packages of this bundle use the richer profile unless a request says
    /// otherwise (docs/authoring.md).
    #[serde(default)]
    pub package_profile: Option<String>,
    /// A title for people, shown in the page's bundle picker and in `/api/bundles`
    /// (1–120 characters, no control characters).
    #[serde(default)]
    pub title: Option<String>,
    /// Example questions for people and hosts: the page's placeholder and suggestions, and
    /// `/api/bundles` (at most [`MAX_EXAMPLES`], each a question the engine accepts).
    #[serde(default)]
    pub examples: Vec<String>,
    /// Who may ask it (default public).
    #[serde(default)]
    pub access: Access,
}

/// Most example questions one bundle may declare.
pub const MAX_EXAMPLES: usize = 5;

/// One `[[bundle.versions]]` entry.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VersionDecl {
    /// Version name requests use.
    pub name: String,
    /// Index file, relative to the registry file.
    pub index: PathBuf,
    /// SHA-256 of the file's bytes.
    pub sha256: String,
    /// Binding URL (defaults to the bundle's `index_url`).
    #[serde(default)]
    pub index_url: Option<String>,
    /// Expected snapshot, if declared.
    #[serde(default)]
    pub snapshot: Option<String>,
    /// Date (YYYY-MM-DD) this version took effect.
    #[serde(default)]
    pub published: Option<String>,
}

/// A verified, servable index.
#[derive(Debug, Clone)]
pub struct LoadedVersion {
    /// The validated index.
    pub index: Arc<ContextIndex>,
    /// Binding recorded in packages: the declared URL and the file's SHA-256.
    pub binding: Binding,
    /// What `GET /api/bundles/{b}/versions/{v}/index` serves so the page can assemble
    /// locally: the verified file bytes when every record is public, else the index's public
    /// projection ([`okf_engine::public_projection`]), which assembles the same packages under
    /// the same binding and holds no restricted text.
    pub public_bytes: bytes::Bytes,
    /// Lowercase hex SHA-256 of [`LoadedVersion::public_bytes`].
    pub public_sha256: String,
    /// Packages use the richer profile by default (registry `package_profile = "regimes"`).
    pub regime_profile: bool,
    /// The first and last day (`YYYY-MM-DD`) a public record's source was captured, from
    /// `provenance[].captured_at`; restricted records are not counted, so not even their
    /// dates leave the server.
    pub captured: Option<(String, String)>,
    /// The index revealing its restricted records, for callers whose grant may read them:
    /// built at load when the bundle's policy names a `restricted_records_scope` and the index
    /// holds restricted records.
    pub revealing: Option<Arc<ContextIndex>>,
}

impl LoadedVersion {
    /// A verified index, its binding, the bytes it was read from and their SHA-256 (already
    /// computed to verify them; only a projection is hashed here).
    pub fn new(
        index: ContextIndex,
        binding: Binding,
        file_bytes: bytes::Bytes,
        file_sha256: String,
    ) -> Self {
        let (public_bytes, public_sha256) = match okf_engine::public_projection(&index) {
            Some(projection) => {
                let sha = okf_engine::canonical::sha256_hex(projection.as_bytes());
                (bytes::Bytes::from(projection), sha)
            }
            None => (file_bytes, file_sha256),
        };
        LoadedVersion {
            public_sha256,
            public_bytes,
            captured: captured_days(&index),
            index: Arc::new(index),
            binding,
            regime_profile: false,
            revealing: None,
        }
    }
}

/// The first and last capture day of the public records' sources.
fn captured_days(index: &ContextIndex) -> Option<(String, String)> {
    let days = index
        .document()
        .records
        .iter()
        .filter(|r| r.access == okf_engine::model::Access::Public)
        .flat_map(|r| r.provenance.iter())
        .filter_map(|p| p.captured_at.get(..10));
    let (mut first, mut last): (Option<&str>, Option<&str>) = (None, None);
    for day in days {
        first = Some(first.map_or(day, |f| f.min(day)));
        last = Some(last.map_or(day, |l| l.max(day)));
    }
    Some((first?.to_owned(), last?.to_owned()))
}

/// A version entry as listed by `/api/bundles`.
#[derive(Debug, Clone)]
pub struct VersionEntry {
    /// Version name.
    pub name: String,
    /// Declared or observed snapshot.
    pub snapshot: Option<String>,
    /// Declared SHA-256 of the file.
    pub index_sha256: String,
    /// Binding URL.
    pub index_url: String,
    /// Effective date, if declared.
    pub published: Option<String>,
    /// The loaded index, or why it was refused.
    pub state: Result<LoadedVersion, Refusal>,
    /// Set by a reload whose file no longer verified while the copy verified earlier keeps
    /// serving: why the file was refused.
    pub retained: Option<Refusal>,
}

/// A logical bundle with its versions.
#[derive(Debug, Clone)]
pub struct BundleEntry {
    /// Logical id.
    pub id: String,
    /// The declared title for people, if any.
    pub title: Option<String>,
    /// The declared example questions, in order.
    pub examples: Vec<String>,
    /// Versions by name (ordered by name for stable listings).
    pub versions: BTreeMap<String, VersionEntry>,
    /// Version used when a request names none.
    pub default_version: String,
}

impl BundleEntry {
    /// Whether the bundle can be asked without naming a version: its default version is
    /// servable. A bundle's row in `/api/bundles` and `/health` says this; whether the whole
    /// registry is ready is [`Registry::not_ready`], which counts every version.
    pub fn default_ready(&self) -> bool {
        self.versions
            .get(&self.default_version)
            .is_some_and(|v| v.state.is_ok())
    }
}

/// All bundles the server may serve.
#[derive(Debug, Clone, Default)]
pub struct Registry {
    /// Bundles by id.
    pub bundles: BTreeMap<String, BundleEntry>,
    /// Evidence workbenches by id.
    pub workbenches: BTreeMap<String, crate::workbench::WorkbenchEntry>,
    /// Corpora by id.
    pub corpora: BTreeMap<String, CorpusEntry>,
    /// What the MCP `search` tool asks when a query names no bundle: the registry's
    /// `search_bundle`, else its only bundle or corpus.
    pub search_bundle: Option<String>,
    /// Whether the registry file names `search_bundle` (otherwise it is the only bundle or
    /// corpus a caller sees, counted per caller).
    pub search_bundle_declared: bool,
    /// The policy of each restricted bundle, corpus (by id) and workbench (by `workbench/` and
    /// its id); entries not listed are public.
    pub restricted: BTreeMap<String, Policy>,
    /// Token checks for the restricted entries (`[auth]`); `None` when the registry has none.
    pub auth: Option<Arc<Verifier>>,
}

/// The prefix of a workbench's key in [`Registry::restricted`] (bundles and corpora share the
/// plain id namespace; workbenches have their own).
const WORKBENCH_KEY: &str = "workbench/";

fn workbench_key(id: &str) -> String {
    format!("{WORKBENCH_KEY}{id}")
}

/// Problems with the registry file itself (as opposed to one refused bundle).
#[derive(Debug, thiserror::Error)]
pub enum RegistryError {
    /// The registry file could not be read.
    #[error("cannot read registry {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The registry is not valid TOML of the documented shape.
    #[error("registry {path}: {message}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// The parser's message.
        message: String,
    },
    /// An entry breaks a rule that makes the whole registry ambiguous.
    #[error("registry {path}: {message}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// The embedded example bundle failed to load (a build defect).
    #[error("embedded example bundle: {0}")]
    Example(okf_engine::Error),
}

impl Registry {
    /// A registry with only the embedded example bundle, under the id `example`.
    pub fn example(index_json: &str) -> Result<Self, RegistryError> {
        let index = ContextIndex::from_json_str(index_json).map_err(RegistryError::Example)?;
        let binding = index.default_binding().clone();
        let snapshot = index.document().bundle.snapshot.clone();
        let version = VersionEntry {
            name: "current".into(),
            snapshot: Some(snapshot),
            index_sha256: binding.index_sha256.clone(),
            index_url: binding.index_url.clone(),
            published: None,
            retained: None,
            state: Ok(LoadedVersion::new(
                index,
                binding,
                bytes::Bytes::copy_from_slice(index_json.as_bytes()),
                okf_engine::canonical::sha256_hex(index_json.as_bytes()),
            )),
        };
        let mut registry = Registry::default();
        registry.bundles.insert(
            "example".into(),
            BundleEntry {
                id: "example".into(),
                title: Some("Example library bundle (embedded)".into()),
                examples: vec!["How do I borrow books?".into()],
                versions: BTreeMap::from([("current".into(), version)]),
                default_version: "current".into(),
            },
        );
        registry.search_bundle = Some("example".into());
        Ok(registry)
    }

    /// Reads and verifies a registry file. Individual bundle versions that fail verification
    /// are kept as refused entries; only a malformed registry is an error.
    pub fn load(path: &Path) -> Result<Self, RegistryError> {
        let text = std::fs::read_to_string(path).map_err(|source| RegistryError::Read {
            path: path.into(),
            source,
        })?;
        Self::from_toml(&text, path)
    }

    /// Parses and verifies registry text as if read from `path` (index paths resolve against
    /// its folder). Refused versions are kept as entries; only a malformed registry errs.
    pub fn from_toml(text: &str, path: &Path) -> Result<Self, RegistryError> {
        let file: RegistryFile = toml::from_str(text).map_err(|e| RegistryError::Parse {
            path: path.into(),
            message: e.to_string(),
        })?;
        let base = path.parent().unwrap_or(Path::new("."));
        let invalid = |message: String| RegistryError::Invalid {
            path: path.into(),
            message,
        };
        let mut registry = Registry::default();
        for decl in file.bundle {
            if !is_logical_id(&decl.id) {
                return Err(invalid(format!(
                    "bundle id {:?} must match {LOGICAL_ID_PATTERN}",
                    decl.id
                )));
            }
            if registry.bundles.contains_key(&decl.id) {
                return Err(invalid(format!(
                    "bundle id {:?} is declared twice",
                    decl.id
                )));
            }
            let reveal = matches!(&decl.access, Access::Restricted(p) if p.restricted_records_scope.is_some());
            if let Access::Restricted(policy) = &decl.access {
                registry.restricted.insert(decl.id.clone(), policy.clone());
            }
            let mut entry = bundle_entry(decl, base, &invalid)?;
            if reveal {
                for version in entry.versions.values_mut() {
                    if let Ok(loaded) = &mut version.state
                        && loaded
                            .index
                            .document()
                            .records
                            .iter()
                            .any(|r| r.access != okf_engine::model::Access::Public)
                    {
                        loaded.revealing = Some(Arc::new(loaded.index.revealing_restricted()));
                    }
                }
            }
            registry.bundles.insert(entry.id.clone(), entry);
        }
        for decl in &file.workbench {
            if !is_logical_id(&decl.id) || registry.workbenches.contains_key(&decl.id) {
                return Err(invalid(format!(
                    "workbench id {:?} must match {LOGICAL_ID_PATTERN} and be declared once",
                    decl.id
                )));
            }
            if let Access::Restricted(policy) = &decl.access {
                registry
                    .restricted
                    .insert(workbench_key(&decl.id), policy.clone());
            }
            let entry = crate::workbench::load(base, decl);
            registry.workbenches.insert(decl.id.clone(), entry);
        }
        for decl in file.corpus {
            if !is_logical_id(&decl.id) {
                return Err(invalid(format!(
                    "corpus id {:?} must match {LOGICAL_ID_PATTERN}",
                    decl.id
                )));
            }
            if registry.bundles.contains_key(&decl.id) || registry.corpora.contains_key(&decl.id) {
                return Err(invalid(format!("id {:?} is declared twice", decl.id)));
            }
            if let Access::Restricted(policy) = &decl.access {
                registry.restricted.insert(decl.id.clone(), policy.clone());
            }
            let state = load_corpus(&base.join(&decl.manifest), &decl.sha256, &decl.index_url);
            registry.corpora.insert(
                decl.id.clone(),
                CorpusEntry {
                    id: decl.id,
                    manifest_sha256: decl.sha256,
                    state,
                    failure: Arc::default(),
                },
            );
        }
        registry.search_bundle_declared = file.search_bundle.is_some();
        registry.search_bundle = match file.search_bundle {
            Some(id) if registry.answers(&id) => Some(id),
            Some(id) => {
                return Err(invalid(format!(
                    "search_bundle {id:?} is not a declared bundle or corpus id"
                )));
            }
            None => registry.only_id(),
        };
        registry.auth = match file.auth {
            Some(decl) => {
                let policies: Vec<&Policy> = registry.restricted.values().collect();
                let config = AuthConfig::new(decl, &policies).map_err(invalid)?;
                let audiences = config.audiences(registry.restricted.values());
                Some(Arc::new(Verifier::new(config, audiences)))
            }
            None if registry.restricted.is_empty() => None,
            None => {
                return Err(invalid(
                    "a restricted access policy needs an [auth] section naming its issuers".into(),
                ));
            }
        };
        Ok(registry)
    }

    /// The registry as `caller` may see it: every restricted bundle, corpus and workbench the
    /// caller's token does not open removed, as if never declared. Without restricted entries
    /// this is the registry itself.
    pub fn visible_to(self: &Arc<Self>, caller: &Caller) -> Arc<Self> {
        let hidden = self.hidden_from(caller);
        if hidden.is_empty() {
            return Arc::clone(self);
        }
        let mut view = (**self).clone();
        for id in hidden {
            match id.strip_prefix(WORKBENCH_KEY) {
                Some(workbench) => {
                    view.workbenches.remove(workbench);
                }
                None => {
                    view.bundles.remove(id);
                    view.corpora.remove(id);
                }
            }
        }
        // The default search bundle counts only what this caller sees, so a hidden entry
        // changes nothing a caller can observe.
        if !view.search_bundle_declared {
            view.search_bundle = view.only_id();
        } else if view
            .search_bundle
            .as_ref()
            .is_some_and(|id| !view.answers(id))
        {
            view.search_bundle = None;
        }
        Arc::new(view)
    }

    /// The keys of [`Registry::restricted`] that `caller` may not see, in key order.
    pub fn hidden_from(&self, caller: &Caller) -> Vec<&String> {
        let resource = self.auth.as_ref().map(|v| v.config().resource.as_str());
        self.restricted
            .iter()
            .filter(|(_, policy)| !caller.may_see_policy(policy, resource))
            .map(|(id, _)| id)
            .collect()
    }

    /// The policy of a restricted bundle or corpus id, if it is one.
    pub fn policy_of(&self, id: &str) -> Option<&Policy> {
        self.restricted.get(id)
    }

    /// Re-reads the registry file for a reload. A version whose file no longer verifies keeps
    /// the copy `previous` verified, provided its declaration (SHA-256, binding URL and any
    /// declared snapshot) is unchanged: that copy is exactly the bytes the registry still
    /// names, so packages bound to it stay correct. A changed declaration gets no such copy.
    pub fn reload(path: &Path, previous: &Registry) -> Result<Self, RegistryError> {
        let mut next = Registry::load(path)?;
        // Issuers declared as before keep their fetched keys (and their backoff).
        if let (Some(verifier), Some(before)) = (
            next.auth.as_mut().and_then(Arc::get_mut),
            previous.auth.as_deref(),
        ) {
            verifier.adopt_keys(before);
        }
        for bundle in next.bundles.values_mut() {
            for version in bundle.versions.values_mut() {
                let Err(reason) = &version.state else {
                    continue;
                };
                let kept = previous
                    .bundles
                    .get(&bundle.id)
                    .and_then(|b| b.versions.get(&version.name))
                    .filter(|old| {
                        old.index_sha256 == version.index_sha256
                            && old.index_url == version.index_url
                            && version
                                .snapshot
                                .as_ref()
                                .is_none_or(|s| old.snapshot.as_ref() == Some(s))
                    })
                    .and_then(|old| {
                        old.state
                            .as_ref()
                            .ok()
                            .map(|loaded| (loaded.clone(), old.snapshot.clone()))
                    });
                if let Some((loaded, snapshot)) = kept {
                    version.retained = Some(reason.clone());
                    version.state = Ok(loaded);
                    version.snapshot = snapshot;
                }
            }
        }
        // The same for a workbench whose manifest (same file) can no longer be admitted.
        for entry in next.workbenches.values_mut() {
            let Err(reason) = &entry.state else {
                continue;
            };
            let kept = previous
                .workbenches
                .get(&entry.id)
                .filter(|old| old.manifest_path == entry.manifest_path)
                .and_then(|old| old.state.as_ref().ok());
            if let Some(old) = kept {
                entry.retained = Some(reason.clone());
                entry.state = Ok(old.clone());
            }
        }
        Ok(next)
    }

    /// Whether `id` is a bundle or corpus this registry declares (what requests may name).
    pub fn answers(&self, id: &str) -> bool {
        self.bundles.contains_key(id) || self.corpora.contains_key(id)
    }

    /// The ids requests may name: bundles, then corpora.
    pub fn ids(&self) -> impl Iterator<Item = &str> {
        self.bundles
            .keys()
            .chain(self.corpora.keys())
            .map(String::as_str)
    }

    /// The id of the registry's only bundle or corpus, if it has exactly one.
    fn only_id(&self) -> Option<String> {
        let mut ids = self.ids();
        match (ids.next(), ids.next()) {
            (Some(id), None) => Some(id.to_owned()),
            _ => None,
        }
    }

    /// Everything declared that cannot be served now, bundles, corpora and workbenches alike:
    /// the one readiness rule `/ready`, `/health` and `/api/bundles` share. A bundle counts by
    /// each version; a version kept on its earlier verified copy is servable.
    pub fn not_ready(&self) -> Vec<NotReady> {
        let versions = self.bundles.values().flat_map(|b| {
            b.versions.values().filter_map(|v| {
                v.state.as_ref().err().map(|reason| NotReady {
                    kind: "bundle",
                    id: b.id.clone(),
                    version: Some(v.name.clone()),
                    reason: reason.to_string(),
                })
            })
        });
        let corpora = self.corpora.values().filter_map(|c| {
            c.not_ready().map(|reason| NotReady {
                kind: "corpus",
                id: c.id.clone(),
                version: None,
                reason,
            })
        });
        let workbenches = self.workbenches.values().filter_map(|w| {
            w.not_ready().map(|reason| NotReady {
                kind: "workbench",
                id: w.id.clone(),
                version: None,
                reason,
            })
        });
        versions.chain(corpora).chain(workbenches).collect()
    }

    /// Whether the registry declares anything at all to serve.
    pub fn is_empty(&self) -> bool {
        self.bundles.is_empty() && self.corpora.is_empty() && self.workbenches.is_empty()
    }

    /// Versions served from a copy verified before a reload whose file no longer verified,
    /// as `(bundle, version, reason)`.
    pub fn retained(&self) -> Vec<(String, String, String)> {
        self.bundles
            .values()
            .flat_map(|b| {
                b.versions.values().filter_map(|v| {
                    v.retained
                        .as_ref()
                        .map(|r| (b.id.clone(), v.name.clone(), r.to_string()))
                })
            })
            .collect()
    }

    /// Versions that were refused at start-up, as `(bundle, version, reason)`.
    pub fn refusals(&self) -> Vec<(String, String, String)> {
        self.bundles
            .values()
            .flat_map(|b| {
                b.versions.values().filter_map(|v| {
                    v.state
                        .as_ref()
                        .err()
                        .map(|r| (b.id.clone(), v.name.clone(), r.to_string()))
                })
            })
            .chain(self.corpora.values().filter_map(|c| {
                c.state
                    .as_ref()
                    .err()
                    .map(|r| (c.id.clone(), "corpus".to_owned(), r.to_string()))
            }))
            .collect()
    }
}

/// Largest index file read at start-up.
pub const MAX_INDEX_FILE_BYTES: u64 = 256 * 1024 * 1024;

/// Reads one index file. The reason names no path and no OS message: it is shown to clients
/// by `/api/bundles` (the operator's log has the registry to find the file).
fn read_index_file(path: &Path) -> Result<Vec<u8>, Refusal> {
    use std::io::Read;
    let unreadable = |why: &str| Refusal::Unreadable {
        what: "index file",
        why: why.to_owned(),
    };
    let io_error = |e: std::io::Error| {
        unreadable(match e.kind() {
            std::io::ErrorKind::NotFound => "it does not exist",
            std::io::ErrorKind::PermissionDenied => "permission denied",
            _ => "read error",
        })
    };
    let file = std::fs::File::open(path).map_err(io_error)?;
    // A device or FIFO (e.g. /dev/zero) would never end; only regular files are indexes.
    if !file.metadata().map_err(io_error)?.is_file() {
        return Err(unreadable("it is not a regular file"));
    }
    let mut bytes = Vec::new();
    file.take(MAX_INDEX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(io_error)?;
    if bytes.len() as u64 > MAX_INDEX_FILE_BYTES {
        return Err(Refusal::TooLarge {
            what: "index file",
            limit: MAX_INDEX_FILE_BYTES,
        });
    }
    Ok(bytes)
}

/// Opens one corpus manifest: its bytes must hash to the declared SHA-256 and pass every
/// manifest rule; shards are verified later, when a question first needs them.
fn load_corpus(
    manifest: &Path,
    sha256: &str,
    index_url: &str,
) -> Result<(Arc<okf_corpus::Corpus>, Binding), Refusal> {
    let binding = Binding {
        index_url: index_url.to_owned(),
        index_sha256: sha256.to_owned(),
    };
    okf_engine::check_binding(&binding).map_err(|e| Refusal::Binding {
        field: "corpus binding",
        why: e.to_string(),
    })?;
    let dir = manifest.parent().unwrap_or(Path::new("."));
    let name = manifest
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let source = okf_corpus::source::DirSource::new(dir).map_err(|e| Refusal::Directory {
        what: dir.display().to_string(),
        why: e.to_string(),
    })?;
    let corpus = okf_corpus::Corpus::open(Box::new(source), &name)
        .map_err(|e| Refusal::Invalid(e.to_string()))?;
    if corpus.manifest_sha256() != sha256 {
        return Err(Refusal::Digest {
            what: "manifest",
            actual: corpus.manifest_sha256().to_owned(),
            declared: sha256.to_owned(),
        });
    }
    // Shards are hashed when a question first reads them; a deleted or truncated one is found
    // here already, so readiness never reports a corpus that cannot answer.
    for (path, bytes) in corpus.manifest().stored_files() {
        let why = match std::fs::metadata(dir.join(path)) {
            Ok(m) if m.is_file() && m.len() == bytes => continue,
            Ok(m) if m.is_file() => format!("has {} bytes, the manifest declares {bytes}", m.len()),
            Ok(_) => "is not a regular file".to_owned(),
            Err(_) => "is missing".to_owned(),
        };
        return Err(Refusal::StoredFile {
            path: path.to_string(),
            why,
        });
    }
    Ok((Arc::new(corpus), binding))
}

/// Error for a malformed registry file: `message` says which declaration breaks which rule.
type Invalid<'a> = dyn Fn(String) -> RegistryError + 'a;

/// One `[[bundle]]` declaration with all its versions, each loaded and verified (a version
/// that fails is kept as refused); errs only when the declaration itself breaks a rule.
fn bundle_entry(
    decl: BundleDecl,
    base: &Path,
    invalid: &Invalid<'_>,
) -> Result<BundleEntry, RegistryError> {
    let regime_profile = match decl.package_profile.as_deref() {
        None => false,
        Some(okf_api::request::REGIMES_PROFILE) => true,
        Some(other) => {
            return Err(invalid(format!(
                "package_profile {other:?} of bundle {:?} must be {:?} when given",
                decl.id,
                okf_api::request::REGIMES_PROFILE
            )));
        }
    };
    let main_name = decl
        .version_name
        .clone()
        .unwrap_or_else(|| "current".into());
    let mut decls = vec![VersionDecl {
        name: main_name.clone(),
        index: decl.index.clone(),
        sha256: decl.sha256.clone(),
        index_url: Some(decl.index_url.clone()),
        snapshot: decl.snapshot.clone(),
        published: decl.published.clone(),
    }];
    decls.extend(decl.versions);
    let mut versions = BTreeMap::new();
    for v in decls {
        let bundle = (decl.id.as_str(), decl.index_url.as_str());
        let entry = version_entry(v, bundle, &versions, base, regime_profile, invalid)?;
        versions.insert(entry.name.clone(), entry);
    }
    let default_version = decl.default_version.unwrap_or(main_name);
    if !versions.contains_key(&default_version) {
        return Err(invalid(format!(
            "default_version {default_version:?} of bundle {:?} is not declared",
            decl.id
        )));
    }
    if let Some(title) = &decl.title {
        let chars = title.chars().count();
        if !(1..=120).contains(&chars)
            || title.chars().any(char::is_control)
            || title.trim() != title
        {
            return Err(invalid(format!(
                "title of bundle {:?} must be 1-120 characters without control characters or surrounding spaces",
                decl.id
            )));
        }
    }
    if decl.examples.len() > MAX_EXAMPLES {
        return Err(invalid(format!(
            "bundle {:?} declares {} examples; at most {MAX_EXAMPLES}",
            decl.id,
            decl.examples.len()
        )));
    }
    for example in &decl.examples {
        if let Err(e) = okf_engine::check_question(example) {
            return Err(invalid(format!(
                "example {example:?} of bundle {:?} is not a question the engine accepts: {e}",
                decl.id
            )));
        }
    }
    Ok(BundleEntry {
        id: decl.id,
        title: decl.title,
        examples: decl.examples,
        versions,
        default_version,
    })
}

/// One version of bundle `bundle` (its id and default binding URL), loaded and verified
/// (refused when its file fails) and written in the regimes profile when `regime_profile`;
/// errs when the declaration breaks a rule, or names a version `declared` already holds.
fn version_entry(
    v: VersionDecl,
    (bundle, default_url): (&str, &str),
    declared: &BTreeMap<String, VersionEntry>,
    base: &Path,
    regime_profile: bool,
    invalid: &Invalid<'_>,
) -> Result<VersionEntry, RegistryError> {
    if !is_logical_id(&v.name) {
        return Err(invalid(format!(
            "version name {:?} of bundle {bundle:?} must match {LOGICAL_ID_PATTERN}",
            v.name
        )));
    }
    if let Some(p) = v.published.as_deref().filter(|p| !is_date(p)) {
        return Err(invalid(format!(
            "published {p:?} of {bundle}/{} must be YYYY-MM-DD",
            v.name
        )));
    }
    if declared.contains_key(&v.name) {
        return Err(invalid(format!(
            "version {:?} of bundle {bundle:?} is declared twice",
            v.name
        )));
    }
    let index_url = v
        .index_url
        .clone()
        .unwrap_or_else(|| default_url.to_owned());
    let state = load_version(
        &base.join(&v.index),
        &v.sha256,
        &index_url,
        v.snapshot.as_deref(),
    )
    .map(|loaded| LoadedVersion {
        regime_profile,
        ..loaded
    });
    let snapshot = match &state {
        Ok(loaded) => Some(loaded.index.document().bundle.snapshot.clone()),
        Err(_) => v.snapshot.clone(),
    };
    Ok(VersionEntry {
        name: v.name,
        snapshot,
        index_sha256: v.sha256,
        index_url,
        published: v.published,
        state,
        retained: None,
    })
}

/// Reads, hashes, validates and binds one index file.
fn load_version(
    path: &Path,
    sha256: &str,
    index_url: &str,
    snapshot: Option<&str>,
) -> Result<LoadedVersion, Refusal> {
    if !okf_engine::canonical::is_hex64(sha256) {
        return Err(Refusal::DeclaredDigest);
    }
    let binding = Binding {
        index_url: index_url.to_owned(),
        index_sha256: sha256.to_owned(),
    };
    okf_engine::check_binding(&binding).map_err(|e| Refusal::Binding {
        field: "index_url",
        why: e.to_string(),
    })?;
    let bytes = read_index_file(path)?;
    let actual = okf_engine::canonical::sha256_hex(&bytes);
    if actual != sha256 {
        return Err(Refusal::Digest {
            what: "file",
            actual,
            declared: sha256.to_owned(),
        });
    }
    let value: serde_json::Value =
        serde_json::from_slice(&bytes).map_err(|e| Refusal::NotJson(e.to_string()))?;
    let index =
        ContextIndex::from_value(value, snapshot).map_err(|e| Refusal::Invalid(e.to_string()))?;
    Ok(LoadedVersion::new(index, binding, bytes.into(), actual))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[allow(clippy::unwrap_used)]
    fn capture_days_count_public_records_only() {
        let index =
            ContextIndex::from_json_str(include_str!("../../okf/example/index.json")).unwrap();
        let mut doc = index.document().clone();
        for r in &mut doc.records {
            for p in &mut r.provenance {
                if r.access == okf_engine::model::Access::Restricted {
                    p.captured_at = "2020-01-01T00:00:00Z".into();
                } else if r.id.ends_with("evidence/homework-club") {
                    p.captured_at = "2026-11-30T08:00:00Z".into();
                }
            }
        }
        let index = ContextIndex::new(doc).unwrap();
        let binding = index.default_binding().clone();
        let loaded = LoadedVersion::new(index, binding, bytes::Bytes::new(), String::new());
        assert_eq!(
            loaded.captured,
            Some(("2026-11-29".to_owned(), "2026-11-30".to_owned()))
        );
    }

    #[test]
    fn a_bundle_title_must_be_short_plain_text() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../okf/example");
        let entry = |title: &str| {
            format!(
                "[[bundle]]\nid = \"example\"\nindex = \"index.json\"\nsha256 = \"{}\"\nindex_url = \"https://example.org/okf-example/index.json\"\ntitle = {title}\n",
                okf_engine::canonical::sha256_hex(include_bytes!("../../okf/example/index.json"))
            )
        };
        let registry = Registry::from_toml(&entry("\"Example library\""), &dir.join("r.toml"));
        assert_eq!(
            registry
                .map(|r| r.bundles["example"].title.clone())
                .ok()
                .flatten()
                .as_deref(),
            Some("Example library")
        );
        for bad in [
            "\"\"",
            "\" padded \"",
            "\"tab\\there\"",
            &format!("\"{}\"", "x".repeat(121)),
        ] {
            let err = Registry::from_toml(&entry(bad), &dir.join("r.toml"))
                .err()
                .map(|e| e.to_string());
            assert!(
                err.as_deref().is_some_and(
                    |e| e.contains("title of bundle \"example\" must be 1-120 characters")
                ),
                "{bad}: {err:?}"
            );
        }
    }

    #[test]
    fn a_bundle_lists_at_most_five_example_questions_the_engine_accepts() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../okf/example");
        let registry = |examples: &str| {
            let text = format!(
                "[[bundle]]\nid = \"example\"\nindex = \"index.json\"\nsha256 = \"{}\"\nindex_url = \"https://example.org/okf-example/index.json\"\nexamples = {examples}\n",
                okf_engine::canonical::sha256_hex(include_bytes!("../../okf/example/index.json"))
            );
            Registry::from_toml(&text, &dir.join("r.toml")).map_err(|e| e.to_string())
        };
        let listed = registry("[\"How do I borrow books?\", \"Are there fines?\"]")
            .map(|r| r.bundles["example"].examples.clone());
        assert_eq!(
            listed,
            Ok(vec![
                "How do I borrow books?".into(),
                "Are there fines?".into()
            ])
        );
        let six = format!("[{}]", ["\"Fines?\""; 6].join(", "));
        let too_many = registry(&six).err().unwrap_or_default();
        assert!(
            too_many.contains("declares 6 examples; at most 5"),
            "{too_many}"
        );
        let blank = registry("[\"   \"]").err().unwrap_or_default();
        assert!(
            blank.contains("is not a question the engine accepts"),
            "{blank}"
        );
    }

    #[test]
    fn an_access_policy_needs_auth_known_issuers_and_allowed_key_urls() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../okf/example");
        let registry = |auth: &str, access: &str| {
            let text = format!(
                "{auth}\n[[bundle]]\nid = \"example\"\nindex = \"index.json\"\nsha256 = \"{}\"\nindex_url = \"https://example.org/okf-example/index.json\"\naccess = {access}\n",
                okf_engine::canonical::sha256_hex(include_bytes!("../../okf/example/index.json"))
            );
            Registry::from_toml(&text, &dir.join("r.toml")).map_err(|e| e.to_string())
        };
        let auth = |jwks: &str| {
            format!(
                "[auth]\nresource = \"https://okf.example/mcp\"\n[[auth.issuer]]\nid = \"idp\"\nissuer = \"https://idp.example\"\njwks_uri = \"{jwks}\"\n"
            )
        };
        let policy = "{ issuers = [\"idp\"], scopes = [\"okf.staff\"] }";
        assert!(
            registry("", "\"public\"").is_ok_and(|r| r.auth.is_none() && r.restricted.is_empty())
        );
        assert!(
            registry(&auth("https://idp.example/jwks"), policy)
                .is_ok_and(|r| r.policy_of("example").is_some())
        );
        for (auth, access, expected) in [
            (String::new(), policy, "needs an [auth] section"),
            (
                auth("https://idp.example/jwks"),
                "{ issuers = [\"other\"], scopes = [\"okf.staff\"] }",
                "which no [[auth.issuer]] declares",
            ),
            (
                auth("https://idp.example/jwks"),
                "{ issuers = [\"idp\"], scopes = [] }",
                "at least one issuer and one scope",
            ),
            (
                auth("http://idp.example/jwks"),
                policy,
                "http only on a loopback address",
            ),
            (
                auth("https://idp.example/jwks"),
                "\"secret\"",
                "must be \"public\" or a table",
            ),
        ] {
            let err = registry(&auth, access).err().unwrap_or_default();
            assert!(err.contains(expected), "{access}: {err}");
        }
    }

    #[test]
    fn dates() {
        assert!(is_date("2026-09-16"));
        assert!(!is_date("2026-02-30"));
        assert!(!is_date("2026-9-16"));
        assert!(!is_date("2026-09-16T00:00:00Z"));
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod corpus_tests {
    use super::*;
    use crate::service::{AskRequest, CacheLimits, Service};

    fn dwp_corpus_registry(tag: &str, tamper: bool) -> (Registry, PathBuf) {
        let dir =
            std::env::temp_dir().join(format!("okf-registry-corpus-{}-{tag}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let index_path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../../shared/dwp/full-dmg/context/assembly-index.json");
        let index = ContextIndex::from_json_slice(&std::fs::read(index_path).unwrap()).unwrap();
        let built = okf_corpus::build_v3(&index, 1000).unwrap();
        for (path, bytes) in &built.files {
            let target = dir.join("dwp").join(path);
            std::fs::create_dir_all(target.parent().unwrap()).unwrap();
            std::fs::write(target, bytes).unwrap();
        }
        std::fs::write(dir.join("dwp/manifest.json"), &built.manifest_bytes).unwrap();
        if tamper {
            let unit = dir.join("dwp/units/00000.json");
            let mut bytes = std::fs::read(&unit).unwrap();
            bytes[20] ^= 1;
            std::fs::write(unit, bytes).unwrap();
        }
        let sha = okf_engine::canonical::sha256_hex(&built.manifest_bytes);
        let toml = format!(
            "[[corpus]]\nid = \"dwp-corpus\"\nmanifest = \"dwp/manifest.json\"\nsha256 = \"{sha}\"\nindex_url = \"https://example.test/dwp/manifest.json\"\n"
        );
        std::fs::write(dir.join("registry.toml"), toml).unwrap();
        (Registry::load(&dir.join("registry.toml")).unwrap(), dir)
    }

    fn request(question: &str) -> AskRequest {
        AskRequest::from_value(serde_json::json!({"bundle": "dwp-corpus", "question": question}))
            .unwrap()
    }

    #[test]
    fn registry_corpus_answers_by_logical_id() {
        let (registry, dir) = dwp_corpus_registry("ok", false);
        assert!(registry.refusals().is_empty(), "{:?}", registry.refusals());
        let service = Service::new(registry, CacheLimits::default());
        let answer = service
            .ask(
                &request("A claimant is imprisoned. What happens to JSA?"),
                &crate::auth::Caller::anonymous(),
            )
            .unwrap();
        let package: serde_json::Value = serde_json::from_str(&answer.package.json).unwrap();
        assert_eq!(
            package["retrieval"]["method"],
            "source-bound-discovery-bm25.v1"
        );
        assert_eq!(
            package["binding"]["index_url"],
            "https://example.test/dwp/manifest.json"
        );
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn registry_corpus_with_tampered_shard_fails_closed() {
        let (registry, dir) = dwp_corpus_registry("tampered", true);
        let service = Service::new(registry, CacheLimits::default());
        let err = service
            .ask(
                &request("A claimant is imprisoned. What happens to JSA?"),
                &crate::auth::Caller::anonymous(),
            )
            .unwrap_err();
        assert_eq!(err.code(), "corpus_unavailable");
        assert!(err.to_string().contains("integrity check failed"), "{err}");
        let _ = std::fs::remove_dir_all(dir);
    }

    #[tokio::test]
    async fn registry_corpora_are_listed_in_api_bundles_and_asked_through_mcp() {
        use axum::body::{Body, to_bytes};
        use axum::http::{Request, header};
        use tower::ServiceExt;
        let (registry, dir) = dwp_corpus_registry("listed", false);
        let sha = registry.corpora["dwp-corpus"].manifest_sha256.clone();
        let service = std::sync::Arc::new(Service::new(registry, CacheLimits::default()));
        let app = crate::router(
            std::sync::Arc::clone(&service),
            crate::HttpConfig::loopback(8080),
        );
        let request = Request::get("/api/bundles")
            .header(header::HOST, "127.0.0.1:8080")
            .body(Body::empty())
            .unwrap();
        let response = app.clone().oneshot(request).await.unwrap();
        let body = to_bytes(response.into_body(), 1 << 20).await.unwrap();
        let listed: serde_json::Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(
            listed["corpora"],
            serde_json::json!([{"id": "dwp-corpus", "state": "ready", "manifest_sha256": sha}])
        );
        // The MCP tools name the corpus in their bundle enum, and ask_okf answers with it.
        let mcp = crate::OkfMcp::new(std::sync::Arc::clone(&service));
        let ask = serde_json::to_value(&mcp.tools(&crate::auth::Caller::anonymous())[0]).unwrap();
        assert_eq!(
            ask["inputSchema"]["properties"]["bundle"]["enum"],
            serde_json::json!(["dwp-corpus"])
        );
        let call = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "ask_okf", "arguments": {"bundle": "dwp-corpus", "question": "A claimant is imprisoned. What happens to JSA?"}}});
        let request = Request::post("/mcp")
            .header(header::HOST, "127.0.0.1:8080")
            .header(header::CONTENT_TYPE, "application/json")
            .header(header::ACCEPT, "application/json, text/event-stream")
            .header("mcp-protocol-version", "2025-11-25")
            .body(Body::from(call.to_string()))
            .unwrap();
        let response = app.oneshot(request).await.unwrap();
        let body = to_bytes(response.into_body(), 4 << 20).await.unwrap();
        let reply: serde_json::Value = serde_json::from_slice(&body).unwrap();
        let package = &reply["result"]["structuredContent"];
        assert_eq!(
            package["retrieval"]["method"], "source-bound-discovery-bm25.v1",
            "{reply}"
        );
        // The corpus answer is counted like any other.
        assert!(
            service
                .ops()
                .metrics
                .encode()
                .contains("bundle=\"dwp-corpus\""),
            "{}",
            service.ops().metrics.encode()
        );
        // The delivery tools replay bundle versions only, so they do not offer the corpus.
        let tools = mcp.tools(&crate::auth::Caller::anonymous());
        for name in ["ask_okf_manifest", "read_okf_evidence"] {
            let tool = tools.iter().find(|t| t.name == name).unwrap();
            let tool = serde_json::to_value(tool).unwrap();
            assert_eq!(
                tool["inputSchema"]["properties"]["bundle"]["enum"],
                serde_json::json!([]),
                "{name}"
            );
        }
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn registry_corpus_with_wrong_manifest_digest_is_refused() {
        let (registry, dir) = dwp_corpus_registry("digest", false);
        let text = std::fs::read_to_string(dir.join("registry.toml")).unwrap();
        let sha = registry.corpora["dwp-corpus"].manifest_sha256.clone();
        std::fs::write(
            dir.join("registry.toml"),
            text.replace(&sha, &"0".repeat(64)),
        )
        .unwrap();
        let registry = Registry::load(&dir.join("registry.toml")).unwrap();
        let refusals = registry.refusals();
        assert_eq!(refusals.len(), 1);
        assert!(refusals[0].2.contains("registry declares"), "{refusals:?}");
        // A refused corpus is not a refused bundle version: the load counters stay consistent
        // (this subtraction used to underflow and panic).
        let service = Service::new(registry, CacheLimits::default());
        assert!(service.ops().metrics.encode().contains("ready"));
        let _ = std::fs::remove_dir_all(dir);
    }
}
