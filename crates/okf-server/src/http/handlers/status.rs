//! `GET /api/bundles` (what can be asked) and `GET /health` (liveness with a summary).

use super::reply::json_response;
use crate::auth::Caller;
use crate::http::AppState;
use axum::extract::State;
use axum::response::Response;
use okf_api::error::readiness;
use serde_json::{Value, json};

pub(crate) async fn bundles(State(state): State<AppState>, caller: Caller) -> Response {
    let registry = state.service.registry_for(&caller);
    let list: Vec<Value> = registry
        .bundles
        .values()
        .map(|b| {
            let versions: Vec<Value> = b
                .versions
                .values()
                .map(|v| {
                    let mut row = json!({
                        "name": v.name,
                        "snapshot": v.snapshot,
                        "index_sha256": v.index_sha256,
                        "index_url": v.index_url,
                        "state": if v.state.is_ok() { "ready" } else { "refused" },
                    });
                    if let Value::Object(map) = &mut row {
                        if let Some(p) = &v.published {
                            map.insert("published".into(), json!(p));
                        }
                        if let Ok(loaded) = &v.state {
                            map.insert("scope".into(), json!(loaded.index.document().scope));
                            if loaded.regime_profile {
                                // What a request without `profile` gets, so the page's local
                                // assembly writes the same package.
                                map.insert(
                                    "package_profile".into(),
                                    json!(okf_api::request::REGIMES_PROFILE),
                                );
                            }
                            if let Some((first, last)) = &loaded.captured {
                                map.insert(
                                    "captured".into(),
                                    json!({"first": first, "last": last}),
                                );
                            }
                        }
                        if let Err(reason) = &v.state {
                            map.insert("reason".into(), json!(reason));
                        }
                    }
                    row
                })
                .collect();
            json!({
                "id": b.id,
                "title": b.title,
                "examples": b.examples,
                "state": if b.default_ready() { "ready" } else { "refused" },
                "default_version": b.default_version,
                "versions": versions,
            })
        })
        .collect();
    // Corpora are asked by their id like bundles, on the server only (one version, shards
    // read when a question needs them).
    let corpora: Vec<Value> = registry
        .corpora
        .values()
        .map(|c| {
            let not_ready = c.not_ready();
            let state = match (&c.state, &not_ready) {
                (Err(_), _) => "refused",
                (Ok(_), Some(_)) => readiness::NOT_READY,
                (Ok(_), None) => readiness::READY,
            };
            let mut row = json!({
                "id": c.id,
                "state": state,
                "manifest_sha256": c.manifest_sha256,
            });
            if let (Some(reason), Value::Object(map)) = (not_ready, &mut row) {
                map.insert("reason".into(), json!(reason));
            }
            row
        })
        .collect();
    json_response(json!({ "bundles": list, "corpora": corpora }).to_string())
}

/// Liveness with a per-bundle summary.
pub(crate) async fn health(State(state): State<AppState>, caller: Caller) -> Response {
    let registry = state.service.registry_for(&caller);
    let rows: Vec<Value> = registry
        .bundles
        .values()
        .map(|b| {
            let ready = b.versions.values().filter(|v| v.state.is_ok()).count();
            json!({
                "id": b.id,
                "ready": b.default_ready(),
                "versions_ready": ready,
                "versions_refused": b.versions.len() - ready,
            })
        })
        .collect();
    let corpora = readiness_rows(registry.corpora.values().map(|c| (&c.id, c.not_ready())));
    let workbenches = readiness_rows(
        registry
            .workbenches
            .values()
            .map(|w| (&w.id, w.not_ready())),
    );
    let log = crate::metrics::log_sink();
    // The registry's one readiness rule (every version, corpus and workbench), plus a log
    // that still takes lines.
    let all_ready = registry.not_ready().is_empty() && !registry.is_empty() && log.healthy;
    let body = json!({
        "status": if all_ready { "ok" } else { "degraded" },
        "engine": okf_engine::ENGINE_ID,
        "bundles": rows,
        "corpora": corpora,
        "workbenches": workbenches,
        "log": {"ok": log.healthy, "lines_dropped": log.dropped},
    });
    // Liveness: 200 while the process answers, whatever the bundles' state; readiness (a
    // refused bundle means 503) is GET /ready, so a refused file never restarts a replica.
    json_response(body.to_string())
}

/// `{id, ready, reason?}` rows of `/health` for corpora and workbenches.
fn readiness_rows<'a>(items: impl Iterator<Item = (&'a String, Option<String>)>) -> Vec<Value> {
    items
        .map(|(id, reason)| {
            let mut row = json!({"id": id, "ready": reason.is_none()});
            if let (Some(reason), Value::Object(map)) = (reason, &mut row) {
                map.insert("reason".into(), json!(reason));
            }
            row
        })
        .collect()
}
