//! The HTTP boundary's limits and allow-lists.

use std::net::IpAddr;
use std::time::Duration;

/// Limits and allow-lists of the HTTP boundary.
#[derive(Debug, Clone)]
pub struct HttpConfig {
    /// Host names (without port) the `Host` header may carry.
    pub allowed_hosts: Vec<String>,
    /// Exact origins (`scheme://host:port`) a browser `Origin` header may carry.
    pub allowed_origins: Vec<String>,
    /// Largest request body in bytes.
    pub max_body_bytes: usize,
    /// Longest time from request to response, body reading included.
    pub request_timeout: Duration,
    /// Most requests handled at once once their bodies are in hand; more get 429.
    pub max_concurrent: usize,
    /// Most requests still receiving their bodies; more get 429. Separate from
    /// `max_concurrent` so slow senders cannot take the slots of complete requests.
    pub max_reading: usize,
    /// At most this many requests per window in each route class (asks, everything else);
    /// more get 429. `/health` is never counted. `None` disables.
    pub rate_limit: Option<(u32, Duration)>,
    /// Most bytes of request headers (names and values) a request may carry; more get 431.
    pub max_header_bytes: usize,
    /// Longest request target (path and query); longer gets 414.
    pub max_uri_bytes: usize,
    /// Most open connections; further connections are closed as soon as they are accepted.
    pub max_connections: usize,
    /// Time a connection may take to send a complete request head, counted from the
    /// connection's start or from the end of the previous response: it closes idle and
    /// slow-header connections.
    pub header_read_timeout: Duration,
    /// Lists the MCP conformance suite's fixture tool (`okf serve --mcp-conformance-fixture`,
    /// for the suite's `json-schema-2020-12` scenario only; off by default).
    pub mcp_conformance_fixture: bool,
    /// At most this many requests per `rate_limit` window and route class from one client
    /// (never more than `rate_limit`'s own count); `None`: only the overall limit.
    pub client_rate_limit: Option<u32>,
    /// Most of the `max_concurrent` slots one client may hold; `None`: no per-client share.
    pub client_max_concurrent: Option<usize>,
    /// Most of the `max_reading` bodies one client may be sending; `None`: no per-client
    /// share.
    pub client_max_reading: Option<usize>,
    /// Most of the `max_connections` one client address may hold open (a trusted proxy's
    /// connections count against `max_connections` only); `None`: no per-client share.
    pub client_max_connections: Option<usize>,
    /// Most client addresses each per-client table tracks; past it, new addresses share one
    /// entry (with the per-client limits) until tracked ones expire.
    pub max_clients: usize,
    /// Peers whose `X-Forwarded-For` names the client: its right-most address that is not
    /// itself a trusted proxy. From any other peer the header is ignored.
    pub trusted_proxies: Vec<IpAddr>,
}

impl HttpConfig {
    /// Loopback defaults for a server bound to `port`.
    pub fn loopback(port: u16) -> Self {
        HttpConfig {
            allowed_hosts: vec!["127.0.0.1".into(), "localhost".into(), "[::1]".into()],
            allowed_origins: vec![
                format!("http://127.0.0.1:{port}"),
                format!("http://localhost:{port}"),
                format!("http://[::1]:{port}"),
            ],
            max_body_bytes: 32 * 1024,
            request_timeout: Duration::from_secs(10),
            max_concurrent: 64,
            max_reading: 256,
            rate_limit: Some((60_000, Duration::from_secs(60))),
            max_header_bytes: 16 * 1024,
            max_uri_bytes: 8 * 1024,
            max_connections: 1024,
            header_read_timeout: Duration::from_secs(5),
            mcp_conformance_fixture: false,
            client_rate_limit: Some(6000),
            client_max_concurrent: Some(32),
            client_max_reading: Some(32),
            client_max_connections: Some(128),
            max_clients: 4096,
            trusted_proxies: Vec::new(),
        }
    }
}
