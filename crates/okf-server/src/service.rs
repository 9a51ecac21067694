//! What every adapter (HTTP and MCP) does with a request: check it, pick the allow-listed
//! index, call the engine, and retain the package for later lookup. No selection logic lives
//! here; the package bytes are the engine's, unchanged.

use crate::auth::Caller;
use crate::execution::Started;
use crate::registry::{BundleEntry, LoadedVersion, Registry};
pub use crate::retained::{CacheLimits, ServedInputs};
use crate::retained::{Origin, Store};
use okf_api::error::ErrorCode;
use okf_api::format::{LOGICAL_ID_PATTERN, is_logical_id};
use okf_engine::{
    AsOf, AssembleOptions, Assembled, Budget, OutsideVersions, ReplayInputs, assemble_with_options,
    explain,
};
use serde_json::Value;
use std::sync::{Arc, Mutex, PoisonError, RwLock};

pub use okf_api::request::{AskRequest, RequestError, check_selector};

/// Why a request was not answered with a package.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ServiceError {
    /// The request breaks an input rule; nothing was assembled.
    #[error("{field}: {message}")]
    InvalidRequest {
        /// The offending field (`body` for the request as a whole).
        field: String,
        /// What is wrong.
        message: String,
    },
    /// The body is not one well-formed JSON document (or repeats a key).
    #[error("the body {0}")]
    InvalidJson(String),
    /// The bundle id is not in the registry.
    #[error(
        "bundle {bundle:?} is not served here; the bundles this server serves are: {served} (the bundle enum of the ask_okf tool and GET /api/bundles list them too)"
    )]
    UnknownBundle {
        /// The requested id.
        bundle: String,
        /// The served ids, comma-separated.
        served: String,
    },
    /// The version is not declared for the bundle (a date with no version in force gets the
    /// default version and an issue instead, issue 40).
    #[error("{message}")]
    UnknownVersion {
        /// The field that selected nothing (`version`).
        field: &'static str,
        /// What was not found.
        message: String,
    },
    /// The bundle version was refused when the registry was (re)loaded.
    #[error(
        "bundle {bundle:?} version {version:?} is not available: it failed verification when the registry was loaded; GET /ready names the reason"
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
    /// The caller's verified token does not hold what a restricted bundle's policy requires.
    #[error(
        "bundle {bundle:?} needs a token from one of its issuers, for this server, with the scopes: {scopes}"
    )]
    InsufficientScope {
        /// The requested id.
        bundle: String,
        /// The scopes the policy requires, space-separated.
        scopes: String,
    },
}

impl ServiceError {
    /// A stable machine-readable code.
    pub fn code(&self) -> &'static str {
        self.classify()
            .map_or_else(okf_engine::Error::code, ErrorCode::as_str)
    }

    /// The service's own code for the refusal, or the engine error that decides it.
    fn classify(&self) -> Result<ErrorCode, &okf_engine::Error> {
        Ok(match self {
            ServiceError::InvalidRequest { .. } => ErrorCode::InvalidRequest,
            ServiceError::InvalidJson(_) => ErrorCode::InvalidJson,
            ServiceError::UnknownBundle { .. } => ErrorCode::UnknownBundle,
            ServiceError::UnknownVersion { .. } => ErrorCode::UnknownVersion,
            ServiceError::Unavailable { .. } => ErrorCode::BundleUnavailable,
            ServiceError::CorpusUnavailable { .. } => ErrorCode::CorpusUnavailable,
            ServiceError::ContextNotRetained(_) => ErrorCode::ContextNotRetained,
            ServiceError::InsufficientScope { .. } => ErrorCode::InsufficientScope,
            ServiceError::Engine(e) => return Err(e),
        })
    }

    /// The HTTP status the refusal is sent with: its code's, and 400 for the engine's
    /// refusals of a question or budget.
    pub fn http_status(&self) -> u16 {
        self.classify().map_or(400, ErrorCode::http_status)
    }

    /// The request field at fault, where there is one.
    pub fn field(&self) -> Option<String> {
        match self {
            ServiceError::InvalidRequest { field, .. } => Some(field.clone()),
            ServiceError::InvalidJson(_) => Some("body".into()),
            ServiceError::UnknownBundle { .. } | ServiceError::InsufficientScope { .. } => {
                Some("bundle".into())
            }
            ServiceError::UnknownVersion { field, .. } => Some((*field).to_owned()),
            ServiceError::Unavailable { .. } => Some("version".into()),
            ServiceError::Engine(e) => e.field(),
            ServiceError::CorpusUnavailable { .. } | ServiceError::ContextNotRetained(_) => None,
        }
    }
}

impl From<RequestError> for ServiceError {
    fn from(e: RequestError) -> Self {
        match e {
            RequestError::Invalid { field, message } => {
                ServiceError::InvalidRequest { field, message }
            }
            RequestError::Json(message) => ServiceError::InvalidJson(message),
        }
    }
}

fn invalid(field: &'static str, message: impl Into<String>) -> ServiceError {
    ServiceError::InvalidRequest {
        field: field.to_owned(),
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
    /// When and where it was built (never part of the package).
    pub receipt: okf_api::receipt::Receipt,
}

impl Answer {
    /// The package's evidence status, as written in it.
    pub fn package_status(&self) -> &'static str {
        self.package.evidence_status.as_str()
    }
}

/// The shared service state. The registry is one immutable snapshot that a reload replaces
/// whole; each request takes the snapshot once, so it never sees a half-loaded registry.
#[derive(Debug)]
pub struct Service {
    registry: RwLock<Arc<Registry>>,
    /// Every package assembled recently, with what was made from it: the engine gives the
    /// same bytes for the same inputs, so asking again, paging, compressing or briefing a
    /// package already kept is a lookup.
    retained: Arc<Store>,
    /// The requests behind the contexts `search` listed, newest first, so a `fetch` of one of
    /// their result ids can replay its context (and refuse when it no longer replays).
    searched: Mutex<std::collections::VecDeque<(String, AskRequest)>>,
    ops: crate::metrics::Ops,
    /// This running server's id, written into every receipt.
    instance: String,
}

/// The version of `bundle` in force on `date`: the latest published on or before it. A bundle
/// whose registry dates no version has one version in force at every date, its default. A
/// date before every dated version has no version in force: the default version is served,
/// with the dates the package must name (issue `question_date_outside_versions`, issue 40).
fn version_in_force<'b>(bundle: &'b BundleEntry, date: &str) -> (&'b str, Option<OutsideVersions>) {
    let dated: Vec<(&str, &str)> = bundle
        .versions
        .values()
        .filter_map(|v| v.published.as_deref().map(|p| (p, v.name.as_str())))
        .collect();
    let in_force = dated
        .iter()
        .filter(|(published, _)| *published <= date)
        .max()
        .map(|(_, name)| *name);
    let earliest = dated.iter().filter_map(|(p, _)| AsOf::parse(p).ok()).min();
    match (in_force, earliest) {
        (Some(name), _) => (name, None),
        (None, None) => (bundle.default_version.as_str(), None),
        (None, Some(earliest_published)) => {
            let name = bundle.default_version.as_str();
            let served_published = bundle
                .versions
                .get(name)
                .and_then(|v| v.published.as_deref())
                .and_then(|p| AsOf::parse(p).ok());
            (
                name,
                Some(OutsideVersions {
                    served_published,
                    earliest_published,
                }),
            )
        }
    }
}

/// Most searches whose results can still be fetched (each holds one request, at most a
/// question of 4,000 characters: under 16 MB in all).
const SEARCHES_KEPT: usize = 4096;

pub use okf_api::format::is_context_id;

impl Service {
    /// Wraps a verified registry.
    pub fn new(registry: Registry, cache_limits: CacheLimits) -> Self {
        let ops = crate::metrics::Ops::default();
        ops.registry_loaded(&registry);
        Service {
            registry: RwLock::new(Arc::new(registry)),
            retained: Arc::new(Store::new(cache_limits)),
            searched: Mutex::new(std::collections::VecDeque::new()),
            ops,
            instance: crate::execution::instance_id(),
        }
    }

    /// The registry snapshot being served now.
    pub fn registry(&self) -> Arc<Registry> {
        Arc::clone(&self.registry.read().unwrap_or_else(PoisonError::into_inner))
    }

    /// Serves `registry` from now on; requests already running finish on the old snapshot.
    pub fn replace_registry(&self, registry: Registry) {
        self.ops.registry_loaded(&registry);
        let previous = std::mem::replace(
            &mut *self
                .registry
                .write()
                .unwrap_or_else(PoisonError::into_inner),
            Arc::new(registry),
        );
        // Freed (if no request still holds it) after the lock is released.
        drop(previous);
    }

    /// The registry snapshot as `caller` may see it: restricted entries its token does not
    /// open are absent ([`Registry::visible_to`]).
    pub fn registry_for(&self, caller: &Caller) -> Arc<Registry> {
        self.registry().visible_to(caller)
    }

    /// An unknown-bundle error as `caller` should get it: an anonymous caller (or one whose
    /// token comes from none of the bundle's issuers) learns nothing, a caller with a token
    /// the policy names but short of its scopes is told which scopes (RFC 6750 §3.1).
    fn refusal_for(&self, e: ServiceError, caller: &Caller) -> ServiceError {
        let ServiceError::UnknownBundle { bundle, .. } = &e else {
            return e;
        };
        let registry = self.registry();
        match (registry.policy_of(bundle), &caller.grant) {
            (Some(policy), Some(grant)) if policy.issuers.contains(&grant.issuer) => {
                ServiceError::InsufficientScope {
                    bundle: bundle.clone(),
                    scopes: policy.scopes.join(" "),
                }
            }
            _ => e,
        }
    }

    /// Metrics and reload state.
    pub fn ops(&self) -> &crate::metrics::Ops {
        &self.ops
    }

    fn bundle<'r>(registry: &'r Registry, id: &str) -> Result<&'r BundleEntry, ServiceError> {
        registry
            .bundles
            .get(id)
            .ok_or_else(|| ServiceError::UnknownBundle {
                bundle: id.to_owned(),
                served: registry
                    .bundles
                    .keys()
                    .map(String::as_str)
                    .collect::<Vec<_>>()
                    .join(", "),
            })
    }

    /// The name of the version a request selects (checked as `ask` checks it).
    pub fn version_name(&self, req: &AskRequest, caller: &Caller) -> Result<String, ServiceError> {
        self.version(req, caller).map(|(name, _, _)| name)
    }

    /// The version a request selects, its loaded copy, and the held versions' dates when its
    /// `as_of` is before all of them.
    fn version(
        &self,
        req: &AskRequest,
        caller: &Caller,
    ) -> Result<(String, LoadedVersion, Option<OutsideVersions>), ServiceError> {
        self.select(
            &req.bundle,
            req.version.as_deref(),
            req.as_of.as_deref(),
            caller,
        )
    }

    /// The verified index of a bundle version (default version without `version`), as the
    /// registry loaded it: its file bytes and the binding packages record. Read-only; the
    /// bundle is a logical id, never a URL or path.
    pub fn index_file(
        &self,
        bundle: &str,
        version: Option<&str>,
        caller: &Caller,
    ) -> Result<(String, LoadedVersion), ServiceError> {
        self.select(bundle, version, None, caller)
            .map(|(name, loaded, _)| (name, loaded))
    }

    /// The version a selector names in the registry snapshot being served now.
    fn select(
        &self,
        bundle: &str,
        version: Option<&str>,
        as_of: Option<&str>,
        caller: &Caller,
    ) -> Result<(String, LoadedVersion, Option<OutsideVersions>), ServiceError> {
        check_selector(bundle, version, as_of)?;
        let mut outside = None;
        let registry = self.registry_for(caller);
        let bundle = Self::bundle(&registry, bundle).map_err(|e| self.refusal_for(e, caller))?;
        // A named version is used as it is (a date then only decides which regimes apply);
        // without one, a date picks the version in force on it.
        let name: &str = match (version, as_of) {
            (Some(v), _) => {
                if !is_logical_id(v) {
                    return Err(invalid(
                        "version",
                        format!("must match {LOGICAL_ID_PATTERN}"),
                    ));
                }
                bundle
                    .versions
                    .get_key_value(v)
                    .map(|(k, _)| k.as_str())
                    .ok_or_else(|| ServiceError::UnknownVersion {
                        field: "version",
                        message: format!("bundle {:?} declares no version {v:?}", bundle.id),
                    })?
            }
            (None, Some(date)) => {
                let (name, dates) = version_in_force(bundle, date);
                outside = dates;
                name
            }
            (None, None) => bundle.default_version.as_str(),
        };
        let entry = &bundle.versions[name];
        match &entry.state {
            Ok(loaded) => Ok((entry.name.clone(), loaded.clone(), outside)),
            Err(_) => Err(ServiceError::Unavailable {
                bundle: bundle.id.clone(),
                version: entry.name.clone(),
            }),
        }
    }

    /// The store of retained packages and what is made from them.
    pub(crate) fn retained(&self) -> &Arc<Store> {
        &self.retained
    }

    /// The parsed context `context_id`, when the package is retained and `inputs` are known to
    /// assemble to it: then it is exactly what assembling `inputs` again would give.
    pub fn delivered_for(
        &self,
        context_id: &str,
        inputs: &ServedInputs,
    ) -> Option<Arc<okf_delivery::Context>> {
        self.retained
            .assembled_from(inputs)
            .filter(|entry| entry.package.context_id == context_id)
            .and_then(|entry| entry.delivery(&self.retained).ok())
    }

    /// Remembers the request a search assembled `context_id` from.
    pub fn keep_searched(&self, context_id: &str, request: &AskRequest) {
        let mut list = self.searched.lock().unwrap_or_else(PoisonError::into_inner);
        list.retain(|(id, _)| id != context_id);
        list.push_front((context_id.to_owned(), request.clone()));
        list.truncate(SEARCHES_KEPT);
    }

    /// The request a recent search assembled `context_id` from.
    pub fn searched(&self, context_id: &str) -> Option<AskRequest> {
        let list = self.searched.lock().unwrap_or_else(PoisonError::into_inner);
        list.iter()
            .find(|(id, _)| id == context_id)
            .map(|(_, request)| request.clone())
    }

    /// What fixes the package `req` assembles to: its question, resolved budget and options
    /// over the index or corpus it names. Requests with equal inputs give the same package.
    pub fn replay_inputs(
        &self,
        req: &AskRequest,
        caller: &Caller,
    ) -> Result<ServedInputs, ServiceError> {
        let registry = self.registry_for(caller);
        if is_logical_id(&req.bundle)
            && let Some(entry) = registry.corpora.get(&req.bundle)
        {
            return corpus_inputs(entry, req).map(|(_, inputs)| ServedInputs {
                inputs,
                reveals_restricted: false,
            });
        }
        let reveals_restricted = self.reveals_restricted(&req.bundle, caller);
        self.bundle_inputs(req, caller)
            .map(|(_, _, inputs)| ServedInputs {
                inputs,
                reveals_restricted,
            })
    }

    /// Whether `caller` may read the restricted records of `bundle`: its policy names a
    /// `restricted_records_scope` and the caller's token satisfies the policy and holds it.
    pub fn reveals_restricted(&self, bundle: &str, caller: &Caller) -> bool {
        let registry = self.registry();
        let resource = registry.auth.as_ref().map(|v| v.config().resource.as_str());
        registry.policy_of(bundle).is_some_and(|policy| {
            policy
                .restricted_records_scope
                .as_ref()
                .is_some_and(|scope| {
                    caller.may_see_policy(policy, resource)
                        && caller
                            .grant
                            .as_ref()
                            .is_some_and(|g| g.scopes.contains(scope))
                })
        })
    }

    /// The version `req` selects, its loaded copy and the inputs of the package it asks for.
    fn bundle_inputs(
        &self,
        req: &AskRequest,
        caller: &Caller,
    ) -> Result<(String, LoadedVersion, ReplayInputs), ServiceError> {
        let (version, loaded, outside_versions) = self.version(req, caller)?;
        let regime_profile = req.regime_profile(loaded.regime_profile)?;
        let options = AssembleOptions {
            // Already checked as a calendar date when the version was chosen.
            as_of: req.as_of.as_deref().and_then(|d| AsOf::parse(d).ok()),
            regime_profile,
            outside_versions,
            ..AssembleOptions::default()
        };
        let inputs = ReplayInputs {
            question: req.question.clone(),
            budget: request_budget(req)?,
            binding: loaded.binding.clone(),
            options,
        };
        Ok((version, loaded, inputs))
    }

    /// Checks a request and assembles its package (spec: same bytes as `okf ask`).
    pub fn ask(&self, req: &AskRequest, caller: &Caller) -> Result<Answer, ServiceError> {
        let registry = self.registry_for(caller);
        if is_logical_id(&req.bundle)
            && let Some(entry) = registry.corpora.get(&req.bundle)
        {
            return self.ask_corpus(entry, req);
        }
        let started = Started::now();
        let (version, loaded, inputs) = self.bundle_inputs(req, caller)?;
        let served = ServedInputs {
            inputs,
            reveals_restricted: self.reveals_restricted(&req.bundle, caller),
        };
        if let Some(entry) = self.retained.assembled_from(&served) {
            self.ops.metrics.repeated();
            return Ok(self.answered(req, Arc::clone(&entry.package), version, &served, started));
        }
        let index = match (&loaded.revealing, served.reveals_restricted) {
            (Some(revealing), true) => revealing,
            _ => &loaded.index,
        };
        let inputs = &served.inputs;
        let package = Arc::new(assemble_with_options(
            index,
            &inputs.question,
            &inputs.budget,
            Some(&inputs.binding),
            &inputs.options,
        )?);
        self.count_assembly(&req.bundle, &package);
        Ok(self.answered(req, package, version, &served, started))
    }

    /// Counts a package just assembled (a restricted bundle's id is not published, not even
    /// as a metrics label).
    fn count_assembly(&self, bundle: &str, package: &Assembled) {
        let label = match self.registry().policy_of(bundle) {
            Some(_) => "(restricted)",
            None => bundle,
        };
        self.ops
            .metrics
            .assembled(label, package.evidence_status.as_str());
    }

    /// Retains a package this request answers with, and the receipt of the request.
    fn answered(
        &self,
        req: &AskRequest,
        package: Arc<Assembled>,
        version: String,
        served: &ServedInputs,
        started: Started,
    ) -> Answer {
        // A corpus reads its shards on every ask (a missing one makes it unavailable), so its
        // packages are retained by id only, never answered again by their inputs.
        let is_corpus = self.registry().corpora.contains_key(&req.bundle);
        self.retained.keep(
            Origin {
                bundle: req.bundle.clone(),
                revealed: served.reveals_restricted,
            },
            (!is_corpus).then(|| served.clone()),
            Arc::clone(&package),
        );
        let receipt = started.receipt(
            &self.instance,
            &req.bundle,
            &version,
            &served.inputs.binding.index_sha256,
            &package,
        );
        Answer {
            package,
            bundle: req.bundle.clone(),
            version,
            receipt,
        }
    }

    /// Assembles a package from a registry corpus: one version, lazy shards.
    fn ask_corpus(
        &self,
        entry: &crate::registry::CorpusEntry,
        req: &AskRequest,
    ) -> Result<Answer, ServiceError> {
        let started = Started::now();
        let (corpus, inputs) = corpus_inputs(entry, req)?;
        let answer = corpus
            .assemble(&inputs.question, &inputs.budget, Some(&inputs.binding))
            .map_err(|e| match e {
                okf_corpus::Error::Engine(e) => ServiceError::Engine(e),
                // A stored file is missing, altered or malformed: the corpus is not ready.
                other => {
                    let reason = other.to_string();
                    entry.fail(&reason);
                    ServiceError::CorpusUnavailable {
                        corpus: entry.id.clone(),
                        reason,
                    }
                }
            })?;
        let package = Arc::new(answer.assembled);
        self.count_assembly(&req.bundle, &package);
        let served = ServedInputs {
            inputs,
            reveals_restricted: false,
        };
        Ok(self.answered(req, package, "corpus".into(), &served, started))
    }

    /// A package assembled here recently.
    pub fn context(
        &self,
        context_id: &str,
        caller: &Caller,
    ) -> Result<Arc<Assembled>, ServiceError> {
        if !is_context_id(context_id) {
            return Err(invalid(
                "context_id",
                format!("must match {}", okf_api::format::CONTEXT_ID_PATTERN),
            ));
        }
        let found = self.retained.get(context_id);
        // A package of a bundle the caller may not see is, to it, a package never retained.
        let registry = self.registry_for(caller);
        found
            .filter(|entry| {
                let from = &entry.origin;
                registry.answers(&from.bundle)
                    && (!from.revealed || self.reveals_restricted(&from.bundle, caller))
            })
            .map(|entry| Arc::clone(&entry.package))
            .ok_or_else(|| ServiceError::ContextNotRetained(context_id.to_owned()))
    }

    /// The explanation view of a retained package (whole package without a record id).
    pub fn explain(
        &self,
        context_id: &str,
        record_id: Option<&str>,
        caller: &Caller,
    ) -> Result<Value, ServiceError> {
        if record_id.is_some_and(|r| !okf_api::format::is_record_id(r)) {
            return Err(invalid("record_id", okf_api::format::RECORD_ID_RULE));
        }
        let package = self.context(context_id, caller)?;
        let value: Value = serde_json::from_str(&package.json).map_err(|e| {
            ServiceError::Engine(okf_engine::Error::Json {
                what: "package",
                message: e.to_string(),
            })
        })?;
        Ok(explain(&value, record_id))
    }
}

/// The budget a request resolves to: the engine's default when it gives none.
fn request_budget(req: &AskRequest) -> Result<Budget, ServiceError> {
    match &req.budget {
        None => Ok(Budget::default()),
        Some(b) => Ok(Budget::from_json(b)?),
    }
}

/// A servable corpus and the inputs of the package `req` asks of it. A corpus takes no
/// version, date or profile; its binding names the corpus manifest.
fn corpus_inputs<'a>(
    entry: &'a crate::registry::CorpusEntry,
    req: &AskRequest,
) -> Result<(&'a okf_corpus::Corpus, ReplayInputs), ServiceError> {
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
    let inputs = ReplayInputs {
        question: req.question.clone(),
        budget: request_budget(req)?,
        binding: binding.clone(),
        options: AssembleOptions::default(),
    };
    Ok((corpus, inputs))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[allow(clippy::unwrap_used)]
    fn profile_is_opt_in_per_request_and_per_registry_entry() {
        let index = include_str!("../../okf/example/index.json");
        let ask = |service: &Service, profile: Option<&str>| -> Value {
            let req = AskRequest {
                bundle: "example".into(),
                question: "How do I borrow books?".into(),
                version: None,
                as_of: None,
                budget: None,
                profile: profile.map(str::to_owned),
            };
            let answer = service
                .ask(&req, &crate::auth::Caller::anonymous())
                .unwrap();
            serde_json::from_str(&answer.package.json).unwrap()
        };
        let limits = CacheLimits {
            max_entries: 8,
            max_bytes: 1 << 20,
        };
        let plain = Service::new(Registry::example(index).unwrap(), limits);
        let default = ask(&plain, None);
        assert!(default.get("profile").is_none());
        let rich = ask(&plain, Some("regimes"));
        assert_eq!(rich["profile"], "okf-governed-context.v1+regimes.v1");
        assert_eq!(rich["status_basis"]["requirements_met"], 1);
        let req = AskRequest {
            bundle: "example".into(),
            question: "x".into(),
            version: None,
            as_of: None,
            budget: None,
            profile: Some("other".into()),
        };
        assert_eq!(
            plain
                .ask(&req, &crate::auth::Caller::anonymous())
                .unwrap_err()
                .to_string(),
            "profile: must be \"regimes\" when given"
        );
        // Per registry entry: the bundle's setting is the default for its requests.
        let mut registry = Registry::example(index).unwrap();
        for b in registry.bundles.values_mut() {
            for v in b.versions.values_mut() {
                if let Ok(loaded) = &mut v.state {
                    loaded.regime_profile = true;
                }
            }
        }
        let opted = Service::new(registry, limits);
        assert_eq!(ask(&opted, None)["profile"], rich["profile"]);
        assert_eq!(ask(&opted, None), rich);
    }
}
