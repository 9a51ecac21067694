//! Operating replicas: readiness (`GET /ready`), metrics (`GET /metrics`), the per-request
//! metrics hook, and registry reload (SIGHUP). Replicas share nothing: each loads and
//! verifies the same immutable bundle files and keeps its own caches and counters.

use crate::registry::Registry;
use crate::service::Service;
use axum::Router;
use axum::body::HttpBody;
use axum::extract::{MatchedPath, Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use okf_api::error::readiness;
use serde_json::{Value, json};
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

/// Content type of the OpenMetrics text exposition.
pub const METRICS_CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// Logs, one line each, everything declared that cannot be served, and every version or
/// workbench kept on what was verified earlier.
pub fn log_registry_problems(registry: &Registry) {
    for problem in registry.not_ready() {
        match &problem.version {
            Some(version) => tracing::warn!(
                target: "okf::registry",
                bundle = %problem.id,
                version = %version,
                reason = %problem.reason,
                "bundle version refused"
            ),
            None => tracing::warn!(
                target: "okf::registry",
                kind = problem.kind,
                id = %problem.id,
                reason = %problem.reason,
                "{} not ready", problem.kind
            ),
        }
    }
    for (bundle, version, reason) in registry.retained() {
        tracing::warn!(
            target: "okf::registry",
            bundle,
            version,
            reason,
            "bundle version file refused; the copy verified earlier keeps serving"
        );
    }
    for entry in registry.workbenches.values() {
        if let Some(reason) = &entry.retained {
            tracing::warn!(
                target: "okf::registry",
                workbench = %entry.id,
                reason = %reason,
                "workbench manifest refused; the manifest admitted earlier keeps serving"
            );
        }
    }
}

/// One `/ready` and `/health` row for something that cannot be served: bundle rows keep the
/// `{bundle, version, reason}` shape, corpus and workbench rows name their own kind.
pub fn not_ready_row(problem: &crate::registry::NotReady) -> Value {
    let mut row = json!({"kind": problem.kind, problem.kind: problem.id, "reason": problem.reason});
    if let (Some(version), Value::Object(map)) = (&problem.version, &mut row) {
        map.insert("version".into(), json!(version));
    }
    row
}

/// Re-reads and re-verifies the registry file and swaps it in whole. A registry file that
/// cannot be read or parsed changes nothing: the previous registry keeps serving and
/// `/ready` names the failure. Returns whether the new registry was adopted.
pub fn reload(service: &Service, path: &Path) -> bool {
    let previous = service.registry();
    let next = Registry::reload(path, &previous).and_then(|next| {
        // A new issuer's keys are fetched before the reload is accepted, as at start-up.
        if let (Some(verifier), Ok(runtime)) = (&next.auth, tokio::runtime::Handle::try_current()) {
            runtime.block_on(verifier.prefetch()).map_err(|message| {
                crate::registry::RegistryError::Invalid {
                    path: path.to_owned(),
                    message,
                }
            })?;
        }
        Ok(next)
    });
    match next {
        Ok(next) => {
            log_registry_problems(&next);
            let versions: usize = next.bundles.values().map(|b| b.versions.len()).sum();
            tracing::info!(
                target: "okf::registry",
                bundles = next.bundles.len(),
                versions,
                refused = next.refusals().len(),
                retained = next.retained().len(),
                "registry reloaded"
            );
            service.replace_registry(next);
            service.ops().set_reload_failure(None);
            service.ops().metrics.reloaded(true);
            true
        }
        Err(e) => {
            tracing::error!(
                target: "okf::registry",
                error = %e,
                "registry reload failed; the previous registry keeps serving"
            );
            service.ops().set_reload_failure(Some(e.to_string()));
            service.ops().metrics.reloaded(false);
            false
        }
    }
}

/// `GET /ready` and `GET /metrics`, to be merged into the main router.
pub(crate) fn routes<S: Clone + Send + Sync + 'static>(service: Arc<Service>) -> Router<S> {
    Router::new()
        .route("/ready", get(ready))
        .route("/metrics", get(metrics))
        .with_state(service)
}

/// The readiness report: 200 when everything the registry declares (bundle versions,
/// corpora, workbenches) can be served, freshly verified or from what was verified before a
/// refused reload, and there is something to serve; 503 naming each that cannot, with why.
/// Copies kept after a refused reload and a failed reload are named either way.
pub fn readiness(service: &Service) -> (bool, Value) {
    // Readiness counts every entry; the body names only what an anonymous caller may know
    // exists, and how many restricted entries are not ready.
    let full = service.registry();
    let all_problems = full.not_ready().len();
    let registry = full.visible_to(&crate::auth::Caller::anonymous());
    let problems = registry.not_ready();
    let refused: Vec<Value> = problems.iter().map(not_ready_row).collect();
    let mut retained: Vec<Value> = registry
        .retained()
        .into_iter()
        .map(|(bundle, version, reason)| {
            json!({"bundle": bundle, "version": version, "reason": reason})
        })
        .collect();
    retained.extend(registry.workbenches.values().filter_map(|w| {
        w.retained
            .as_ref()
            .map(|reason| json!({"kind": "workbench", "workbench": w.id, "reason": reason}))
    }));
    let ready = all_problems == 0 && !full.is_empty();
    let mut body = json!({
        "status": if ready { readiness::READY } else { readiness::NOT_READY },
        "engine": okf_engine::ENGINE_ID,
        "bundles": registry.bundles.keys().collect::<Vec<_>>(),
        "corpora": registry.corpora.keys().collect::<Vec<_>>(),
        "workbenches": registry.workbenches.keys().collect::<Vec<_>>(),
        "refused": refused,
        "retained": retained,
    });
    if let (true, Value::Object(map)) = (all_problems > problems.len(), &mut body) {
        map.insert(
            "restricted_not_ready".into(),
            json!(all_problems - problems.len()),
        );
    }
    if let (Some(failure), Value::Object(map)) = (service.ops().reload_failure(), &mut body) {
        map.insert("reload_failure".into(), Value::String(failure));
    }
    (ready, body)
}

async fn ready(State(service): State<Arc<Service>>) -> Response {
    let (ready, body) = readiness(&service);
    let status = if ready {
        StatusCode::OK
    } else {
        StatusCode::SERVICE_UNAVAILABLE
    };
    (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        body.to_string(),
    )
        .into_response()
}

async fn metrics(State(service): State<Arc<Service>>) -> Response {
    (
        [(header::CONTENT_TYPE, METRICS_CONTENT_TYPE)],
        service.ops().metrics.encode(),
    )
        .into_response()
}

/// Counts every response by route template and status, its latency and body bytes.
pub(crate) async fn track(
    State(service): State<Arc<Service>>,
    request: Request,
    next: Next,
) -> Response {
    let started = Instant::now();
    // Templates only ("/api/context/{context_id}"), so ids never become label values.
    let route = request
        .extensions()
        .get::<MatchedPath>()
        .map_or("unmatched", MatchedPath::as_str)
        .to_owned();
    let response = next.run(request).await;
    let bytes = response.body().size_hint().exact().unwrap_or(0);
    service
        .ops()
        .metrics
        .response(&route, response.status().as_u16(), bytes, started.elapsed());
    response
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use crate::service::{AskRequest, CacheLimits};

    fn write_registry(dir: &Path, name: &str, index_url: &str) -> std::path::PathBuf {
        let index = Path::new(env!("CARGO_MANIFEST_DIR")).join("../okf/example/index.json");
        let sha = okf_engine::canonical::sha256_hex(&std::fs::read(&index).unwrap());
        let path = dir.join(name);
        let mut text = String::new();
        for id in ["a", "b"] {
            text.push_str(&format!(
                "[[bundle]]\nid = \"{id}\"\nindex = \"{}\"\nsha256 = \"{sha}\"\nindex_url = \"{index_url}\"\n\n",
                index.display()
            ));
        }
        std::fs::write(&path, text).unwrap();
        path
    }

    #[test]
    fn a_request_never_sees_a_half_loaded_registry() {
        let dir = std::env::temp_dir().join(format!("okf-ops-swap-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let first = write_registry(&dir, "one.toml", "https://example.org/one.json");
        let second = write_registry(&dir, "two.toml", "https://example.org/two.json");
        let service = Arc::new(Service::new(
            Registry::load(&first).unwrap(),
            CacheLimits::default(),
        ));
        let ask = |bundle: &str| AskRequest {
            bundle: bundle.into(),
            question: "How do I borrow books?".into(),
            version: None,
            as_of: None,
            budget: None,
            profile: None,
        };
        let expected_one = service
            .ask(&ask("a"), &crate::auth::Caller::anonymous())
            .unwrap()
            .package
            .json
            .clone();
        let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let askers: Vec<_> = ["a", "b"]
            .into_iter()
            .map(|bundle| {
                let service = Arc::clone(&service);
                let stop = Arc::clone(&stop);
                let request = ask(bundle);
                std::thread::spawn(move || {
                    let mut urls = std::collections::BTreeSet::new();
                    while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                        // Every request is answered from one whole registry or the other.
                        let answer = service
                            .ask(&request, &crate::auth::Caller::anonymous())
                            .expect("never a missing bundle");
                        let package: Value = serde_json::from_str(&answer.package.json).unwrap();
                        urls.insert(package["binding"]["index_url"].as_str().unwrap().to_owned());
                    }
                    urls
                })
            })
            .collect();
        for round in 0..40 {
            let path = if round % 2 == 0 { &second } else { &first };
            assert!(reload(&service, path));
        }
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        for asker in askers {
            let urls = asker.join().unwrap();
            assert!(
                urls.iter()
                    .all(|u| u.ends_with("/one.json") || u.ends_with("/two.json")),
                "{urls:?}"
            );
        }
        assert_eq!(
            service
                .ask(&ask("a"), &crate::auth::Caller::anonymous())
                .unwrap()
                .package
                .json,
            expected_one
        );
        let (ready, body) = readiness(&service);
        assert!(ready, "{body}");
    }
}
