//! Connection handling: hyper's HTTP/1 connection builder with a timer (so the header-read
//! timeout closes idle, silent and slow-header connections), a hard cap on the request
//! head, and a cap on open connections, in all and per client address. `axum::serve`
//! exposes none of these settings.

use crate::fairness::{Budget, ClientAddr, ClientKey, is_trusted};
use crate::http::HttpConfig;
use axum::Router;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use std::future::Future;
use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;
use tower::ServiceExt;

/// Hard limit of a request head in hyper itself (its own empty-bodied 431 beyond it); the
/// JSON 431 of [`HttpConfig::max_header_bytes`] applies well below it.
const HEAD_HARD_LIMIT_BYTES: usize = 64 * 1024;

/// How long to wait when `accept` fails (e.g. out of file descriptors) before trying again.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(50);

/// The connection settings taken from [`HttpConfig`].
#[derive(Debug, Clone)]
pub(crate) struct ConnectionLimits {
    max_connections: usize,
    client_max_connections: Option<usize>,
    max_clients: usize,
    trusted_proxies: Arc<[IpAddr]>,
    header_read_timeout: Duration,
}

impl From<&HttpConfig> for ConnectionLimits {
    fn from(config: &HttpConfig) -> Self {
        ConnectionLimits {
            max_connections: config.max_connections.max(1),
            client_max_connections: config.client_max_connections.map(|n| n.max(1)),
            max_clients: config.max_clients,
            trusted_proxies: config.trusted_proxies.iter().copied().collect(),
            header_read_timeout: config.header_read_timeout,
        }
    }
}

/// Accepts connections until `shutdown` completes, then lets open ones finish within
/// `drain_deadline`; returns whether they all did. A connection over the cap (in all, or of
/// its peer address) is closed at once: the kernel keeps no queue of idle sockets for it and
/// the process's file descriptors stay bounded. A trusted proxy's connections carry many
/// clients, so they count against the overall cap only.
pub(crate) async fn serve_connections(
    listener: TcpListener,
    app: Router,
    limits: ConnectionLimits,
    shutdown: impl Future<Output = ()>,
    drain_deadline: Duration,
) -> bool {
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_read_timeout)
        .max_header_size(HEAD_HARD_LIMIT_BYTES);
    let open = Budget::new(
        limits.max_connections,
        limits.client_max_connections,
        limits.max_clients,
    );
    let graceful = GracefulShutdown::new();
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            () = &mut shutdown => break,
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(_) => {
                    tokio::time::sleep(ACCEPT_BACKOFF).await;
                    continue;
                }
            },
        };
        let client =
            (!is_trusted(peer.ip(), &limits.trusted_proxies)).then(|| ClientKey::of(peer.ip()));
        let Ok(permit) = open.try_acquire(client) else {
            drop(stream);
            continue;
        };
        let _ = stream.set_nodelay(true);
        // Every request carries its peer, for the per-client budgets of the HTTP layer.
        let service = TowerToHyperService::new(app.clone().map_request(
            move |mut request: hyper::Request<hyper::body::Incoming>| {
                request.extensions_mut().insert(ClientAddr(peer));
                request
            },
        ));
        let connection = builder.serve_connection(TokioIo::new(stream), service);
        let connection = graceful.watch(connection);
        tokio::spawn(async move {
            // Errors are the client's (reset, timeout, malformed head); nothing to report.
            let _ = connection.await;
            drop(permit);
        });
    }
    // Stop accepting before draining: a closed listener refuses new connections at once.
    drop(listener);
    tokio::time::timeout(drain_deadline, graceful.shutdown())
        .await
        .is_ok()
}
