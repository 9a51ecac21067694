//! The routes and the order of the layers around them.

use super::error::{method_not_allowed, not_found};
use super::guards::{content_type_guard, framing_guard, origin_guard};
use super::handlers::{ask, check, delivery, files, status};
use super::load::{close_unread_bodies, load_guard};
use super::log::headers_and_log;
use super::mcp_route::mcp_body_guard;
use super::{AppState, HttpConfig, SharedState};
use crate::fairness::{Budget, RateLimit};
use crate::mcp::OkfMcp;
use crate::service::Service;
use axum::Router;
use axum::middleware;
use axum::routing::{get, post};
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use std::sync::Arc;

/// Builds the router for a service: the HTTP API, the MCP endpoint and the schemas.
pub fn router(service: Arc<Service>, config: HttpConfig) -> Router {
    let mcp_config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(false)
        .with_json_response(true)
        .with_allowed_hosts(
            config
                .allowed_hosts
                .iter()
                .map(|h| h.trim_matches(['[', ']']).to_owned()),
        )
        .with_allowed_origins(config.allowed_origins.clone())
        .enforce_origin_validation()
        .with_max_request_body_bytes(config.max_body_bytes);
    // One handler (and so one tool list) per service; the transport clones it per request.
    let handler = OkfMcp::new(Arc::clone(&service));
    let handler = if config.mcp_conformance_fixture {
        handler.with_conformance_fixture()
    } else {
        handler
    };
    let mcp = StreamableHttpService::new(
        move || Ok(handler.clone()),
        Arc::new(NeverSessionManager::default()),
        mcp_config,
    );
    let rates = config.rate_limit.map(|(limit, window)| {
        let rate = || RateLimit::new(limit, window, config.client_rate_limit, config.max_clients);
        Arc::new([rate(), rate()])
    });
    let state = AppState(Arc::new(SharedState {
        service,
        permits: Budget::new(
            config.max_concurrent,
            config.client_max_concurrent,
            config.max_clients,
        ),
        readers: Budget::new(
            config.max_reading,
            config.client_max_reading,
            config.max_clients,
        ),
        rates,
        config: Arc::new(config),
    }));
    Router::new()
        .route("/api/ask", post(ask::ask))
        .route("/api/check-answer", post(check::check_answer))
        .route("/api/catalogue", post(delivery::catalogue))
        .route("/api/read", post(delivery::read_evidence))
        .route("/api/context/{context_id}", get(ask::context))
        .route("/api/bundles", get(status::bundles))
        .route(
            "/api/bundles/{bundle}/versions/{version}/index",
            get(files::index_file),
        )
        .route("/api/workbenches", get(files::workbenches))
        .route("/workbench/{id}/{*path}", get(files::workbench_file))
        .route("/health", get(status::health))
        .route(
            "/.well-known/oauth-protected-resource",
            get(super::auth::resource_metadata),
        )
        .route(
            "/.well-known/oauth-protected-resource/{*resource_path}",
            get(super::auth::resource_metadata),
        )
        .route("/schemas/{name}", get(files::schema))
        .merge(crate::page::routes())
        .merge(
            Router::new()
                .nest_service("/mcp", mcp)
                .layer(middleware::from_fn_with_state(
                    state.clone(),
                    mcp_body_guard,
                )),
        )
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        // Outermost last: log and headers, framing, Host/Origin, content type, load (rate,
        // body reading, slots), then the bearer token right before the handler.
        .layer(middleware::from_fn_with_state(
            state.clone(),
            super::auth::authenticate,
        ))
        .layer(middleware::from_fn_with_state(state.clone(), load_guard))
        .layer(middleware::from_fn_with_state(
            state.clone(),
            content_type_guard,
        ))
        // Probes and scrapes are not rate limited, but still Host-checked.
        .merge(crate::ops::routes(Arc::clone(&state.service)))
        .layer(middleware::from_fn_with_state(state.clone(), origin_guard))
        .layer(middleware::from_fn_with_state(state.clone(), framing_guard))
        .layer(middleware::from_fn(close_unread_bodies))
        .layer(middleware::from_fn(headers_and_log))
        .layer(middleware::from_fn_with_state(
            Arc::clone(&state.service),
            crate::ops::track,
        ))
        // Outermost: every response in the coding the client accepts (gzip, br, zstd); package
        // bodies arrive already compressed and cached (package_reply) and are left as they are.
        .layer(middleware::from_fn(
            crate::compression::compress_if_accepted,
        ))
        .with_state(state)
}
