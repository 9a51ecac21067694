//! The HTTP boundary: routes, and the layers that guard them (Host/Origin allow-lists, rate
//! and concurrency limits, timeouts, body limits, content types, security headers, one log
//! line per request). One room per job: [`config`] the limits, [`router`] the wiring,
//! `guards` and `load` the checks before a handler, `log` the headers and log line, `error`
//! the one error shape, `mcp_route` the MCP transport's surroundings, `handlers` the routes.

mod auth;
mod config;
mod error;
mod guards;
mod handlers;
mod load;
mod log;
mod mcp_route;
mod router;

pub use config::HttpConfig;
pub use router::router;

use crate::fairness::{Budget, RateLimit};
use crate::service::Service;
use std::sync::Arc;

/// What every handler and middleware shares. One `Arc` around it all, because the router
/// clones the state for each layer of each request: one shared count to touch, not eight.
#[derive(Clone)]
struct AppState(Arc<SharedState>);

impl std::ops::Deref for AppState {
    type Target = SharedState;
    fn deref(&self) -> &SharedState {
        &self.0
    }
}

struct SharedState {
    service: Arc<Service>,
    config: Arc<HttpConfig>,
    permits: Arc<Budget>,
    readers: Arc<Budget>,
    /// The rate limits of asks and of everything else; `None` when rate limiting is off.
    rates: Option<Arc<[RateLimit; 2]>>,
}

/// What a handler tells the request log about its outcome.
#[derive(Clone, Default)]
struct LogFields {
    bundle: Option<String>,
    evidence_status: Option<&'static str>,
    /// The package built, so a log line can be matched to its receipt and its package.
    context_id: Option<String>,
}
