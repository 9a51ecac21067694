//! # okf-server
//!
//! `okf serve`: the HTTP API and the remote MCP server over an allow-listed bundle registry.
//! Adapters contain no selection logic: `/api/ask`, MCP `ask_okf` and `okf ask` return the
//! same package bytes for the same bundle, question and budget, because all three call
//! [`okf_engine::assemble`] on the same verified index with the same binding.

pub mod auth;
mod compression;
mod connections;
pub mod delivery;
pub mod execution;
mod fairness;
mod grounding;
mod http;
mod mcp;
pub mod metrics;
pub mod ops;
mod page;
pub mod refusal;
pub mod registry;
mod retained;
pub use okf_api::schemas;
mod search;
pub mod service;
pub mod workbench;

pub use fairness::ClientAddr;
pub use http::{HttpConfig, router};
pub use mcp::{CONFORMANCE_FIXTURE_TOOL, INSTRUCTIONS, OkfMcp};
pub use refusal::Refusal;
pub use registry::{Registry, RegistryError};
pub use service::{AskRequest, CacheLimits, Service, ServiceError};

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;

/// Errors that stop the server.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The listening socket could not be opened.
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// The requested address.
        addr: String,
        /// Why.
        source: std::io::Error,
    },
    /// The server stopped with an I/O error.
    #[error("server error: {0}")]
    Io(#[from] std::io::Error),
}

/// How to adjust the loopback defaults once the port is known.
pub type ConfigureHttp = Box<dyn FnOnce(&mut HttpConfig) + Send>;

/// How the running server is operated.
#[derive(Debug, Clone)]
pub struct Lifecycle {
    /// Registry file SIGHUP re-reads (`None`: the embedded example, nothing to reload).
    pub registry_path: Option<PathBuf>,
    /// How long in-flight requests may take to finish after SIGTERM or Ctrl-C.
    pub drain_deadline: Duration,
}

/// Binds `addr`, calls `on_listening` with the bound address (before serving), and serves
/// until Ctrl-C or SIGTERM; then stops accepting, lets in-flight requests finish within the
/// drain deadline and returns. SIGHUP reloads the registry.
pub async fn serve(
    service: Service,
    addr: &str,
    configure: ConfigureHttp,
    lifecycle: Lifecycle,
    on_listening: impl FnOnce(SocketAddr),
) -> Result<(), ServeError> {
    let listener = TcpListener::bind(addr)
        .await
        .map_err(|source| ServeError::Bind {
            addr: addr.to_owned(),
            source,
        })?;
    let local = listener.local_addr()?;
    let mut config = HttpConfig::loopback(local.port());
    configure(&mut config);
    let limits = connections::ConnectionLimits::from(&config);
    let service = Arc::new(service);
    let app = router(Arc::clone(&service), config);
    #[cfg(unix)]
    let reloader = tokio::spawn(reload_on_hangup(service, lifecycle.registry_path));
    on_listening(local);
    let drain_deadline = lifecycle.drain_deadline;
    let shutdown = async move {
        shutdown_signal().await;
        tracing::info!(
            target: "okf::serve",
            deadline_ms = u64::try_from(drain_deadline.as_millis()).unwrap_or(u64::MAX),
            "shutting down: no new connections; draining in-flight requests"
        );
    };
    if connections::serve_connections(listener, app, limits, shutdown, drain_deadline).await {
        tracing::info!(target: "okf::serve", "drained; stopped");
    } else {
        tracing::warn!(target: "okf::serve", "drain deadline passed; closing the remaining connections");
    }
    #[cfg(unix)]
    reloader.abort();
    Ok(())
}

/// Re-reads the registry on every SIGHUP, off the async workers; one reload at a time.
#[cfg(unix)]
async fn reload_on_hangup(service: Arc<Service>, path: Option<PathBuf>) {
    use tokio::signal::unix::{SignalKind, signal};
    let Ok(mut hangups) = signal(SignalKind::hangup()) else {
        tracing::warn!(target: "okf::serve", "cannot listen for SIGHUP; registry reload is off");
        return;
    };
    while hangups.recv().await.is_some() {
        let Some(path) = path.clone() else {
            tracing::info!(
                target: "okf::registry",
                "SIGHUP: serving the embedded example bundle, nothing to reload"
            );
            continue;
        };
        let service = Arc::clone(&service);
        let _ = tokio::task::spawn_blocking(move || ops::reload(&service, &path)).await;
    }
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = terminate => {},
    }
}
