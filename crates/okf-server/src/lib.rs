//! # okf-server
//!
//! `okf serve`: the HTTP API and the remote MCP server over an allow-listed bundle registry.
//! Adapters contain no selection logic: `/api/ask`, MCP `ask_okf` and `okf ask` return the
//! same package bytes for the same bundle, question and budget, because all three call
//! [`okf_engine::assemble`] on the same verified index with the same binding.

pub mod delivery;
mod http;
mod mcp;
mod page;
pub mod registry;
pub mod schemas;
pub mod service;
pub mod workbench;

pub use http::{HttpConfig, router};
pub use mcp::{INSTRUCTIONS, OkfMcp};
pub use registry::{Registry, RegistryError};
pub use service::{AskRequest, CacheLimits, Service, ServiceError};

use std::net::SocketAddr;
use std::sync::Arc;
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

/// Binds `addr`, calls `on_listening` with the bound address (before serving), and serves
/// until Ctrl-C or SIGTERM.
pub async fn serve(
    service: Service,
    addr: &str,
    configure: ConfigureHttp,
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
    let app = router(Arc::new(service), config);
    on_listening(local);
    axum::serve(listener, app)
        .with_graceful_shutdown(shutdown_signal())
        .await?;
    Ok(())
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
