//! The counters `GET /metrics` publishes (Prometheus/OpenMetrics text), one set per
//! [`Service`](crate::Service). Label values come from fixed sets (route templates, status
//! codes, registry bundle ids, evidence statuses), never from request text, so the number
//! of series stays bounded.

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry as MetricRegistry;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{LazyLock, Mutex, PoisonError};
use std::time::Duration;

use crate::registry::Registry;

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RouteStatus {
    route: String,
    status: u16,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct Route {
    route: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct Assembly {
    bundle: String,
    evidence_status: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct Outcome {
    result: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct CodingLabel {
    coding: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ReasonLabel {
    reason: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct VersionState {
    state: &'static str,
}

/// Log lines the process could not write (a full disk, a closed pipe, a reader that stopped
/// reading), counted by whatever writes the log. The log sink is the process's (standard
/// error), so these are process-wide; every [`Metrics`] publishes them.
static LOG_LINES_DROPPED: LazyLock<Counter> = LazyLock::new(Counter::default);
/// Whether the last attempt to write a log line failed.
static LOG_SINK_FAILING: AtomicBool = AtomicBool::new(false);

/// Records a log line that could not be written: service goes on, the line is counted.
pub fn log_line_dropped(sink_failed: bool) {
    LOG_LINES_DROPPED.inc();
    if sink_failed {
        LOG_SINK_FAILING.store(true, Ordering::Relaxed);
    }
}

/// Records a log line written: the sink works (again).
pub fn log_line_written() {
    LOG_SINK_FAILING.store(false, Ordering::Relaxed);
}

/// The state of the process's log sink, as `/health` reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LogSinkState {
    /// False while the last write failed.
    pub healthy: bool,
    /// Lines dropped since the process started.
    pub dropped: u64,
}

/// The log sink's state now.
pub fn log_sink() -> LogSinkState {
    LogSinkState {
        healthy: !LOG_SINK_FAILING.load(Ordering::Relaxed),
        dropped: LOG_LINES_DROPPED.get(),
    }
}

/// Request latency buckets: 0.25 ms to about 4 s, doubling.
fn latency_histogram() -> Histogram {
    Histogram::new(exponential_buckets(0.000_25, 2.0, 15))
}

/// The server's counters and the registry they are published from.
#[derive(Debug)]
pub struct Metrics {
    registry: MetricRegistry,
    requests: Family<RouteStatus, Counter>,
    latency: Family<Route, Histogram, fn() -> Histogram>,
    response_bytes: Family<Route, Counter>,
    throttled: Counter,
    assemblies: Family<Assembly, Counter>,
    repeats: Counter,
    load_failures: Counter,
    reloads: Family<Outcome, Counter>,
    versions: Family<VersionState, Gauge>,
    compressions: Family<CodingLabel, Counter>,
    auth_failures: Family<ReasonLabel, Counter>,
}

impl Default for Metrics {
    fn default() -> Self {
        let mut registry = MetricRegistry::with_prefix("okf");
        let requests = Family::<RouteStatus, Counter>::default();
        let latency: Family<Route, Histogram, fn() -> Histogram> =
            Family::new_with_constructor(latency_histogram);
        let response_bytes = Family::<Route, Counter>::default();
        let throttled = Counter::default();
        let assemblies = Family::<Assembly, Counter>::default();
        let repeats = Counter::default();
        let load_failures = Counter::default();
        let reloads = Family::<Outcome, Counter>::default();
        let versions = Family::<VersionState, Gauge>::default();
        registry.register(
            "http_requests",
            "HTTP requests answered, by route template and status code",
            requests.clone(),
        );
        registry.register(
            "http_request_duration_seconds",
            "Time from request to response headers, by route template",
            latency.clone(),
        );
        registry.register(
            "http_response_bytes",
            "Response body bytes delivered, by route template",
            response_bytes.clone(),
        );
        registry.register(
            "http_throttled",
            "Requests answered 429 by the rate or concurrency limit",
            throttled.clone(),
        );
        registry.register(
            "assemblies",
            "Packages assembled (HTTP and MCP), by bundle and evidence status",
            assemblies.clone(),
        );
        registry.register(
            "package_repeats",
            "Asks answered with the package just assembled for the same inputs (the same bytes, not assembled again)",
            repeats.clone(),
        );
        registry.register(
            "bundle_load_failures",
            "Bundle version files that failed verification at start-up or on a reload",
            load_failures.clone(),
        );
        registry.register(
            "registry_reloads",
            "Registry reloads (SIGHUP), by result",
            reloads.clone(),
        );
        registry.register(
            "bundle_versions",
            "Declared bundle versions by state: ready, retained (old verified copy) or refused",
            versions.clone(),
        );
        let compressions = Family::<CodingLabel, Counter>::default();
        registry.register(
            "package_compressions",
            "Package bodies compressed, by coding (a package is compressed once per coding while it is kept)",
            compressions.clone(),
        );
        let auth_failures = Family::<ReasonLabel, Counter>::default();
        registry.register(
            "auth_failures",
            "Requests refused for their credentials (401), by reason; restricted bundles only",
            auth_failures.clone(),
        );
        registry.register(
            "log_lines_dropped",
            "Log lines that could not be written (a failing or stalled log sink); service goes on",
            LOG_LINES_DROPPED.clone(),
        );
        Metrics {
            registry,
            requests,
            latency,
            response_bytes,
            throttled,
            assemblies,
            repeats,
            load_failures,
            reloads,
            versions,
            compressions,
            auth_failures,
        }
    }
}

impl Metrics {
    /// Counts one HTTP response.
    pub fn response(&self, route: &str, status: u16, body_bytes: u64, elapsed: Duration) {
        let key = Route {
            route: route.to_owned(),
        };
        self.requests
            .get_or_create(&RouteStatus {
                route: route.to_owned(),
                status,
            })
            .inc();
        self.latency
            .get_or_create(&key)
            .observe(elapsed.as_secs_f64());
        self.response_bytes.get_or_create(&key).inc_by(body_bytes);
        if status == 429 {
            self.throttled.inc();
        }
    }

    /// Counts one assembled package.
    pub fn assembled(&self, bundle: &str, evidence_status: &'static str) {
        self.assemblies
            .get_or_create(&Assembly {
                bundle: bundle.to_owned(),
                evidence_status,
            })
            .inc();
    }

    /// Counts one ask answered with a package assembled earlier for the same inputs.
    pub fn repeated(&self) {
        self.repeats.inc();
    }

    /// Records the state of a freshly (re)loaded registry.
    pub fn registry_loaded(&self, ready: usize, retained: usize, refused: usize) {
        let failures = retained + refused;
        self.load_failures.inc_by(failures as u64);
        for (state, n) in [
            ("ready", ready),
            ("retained", retained),
            ("refused", refused),
        ] {
            self.versions
                .get_or_create(&VersionState { state })
                .set(i64::try_from(n).unwrap_or(i64::MAX));
        }
    }

    /// Counts one request refused for its credentials.
    pub fn auth_failed(&self, reason: &'static str) {
        self.auth_failures
            .get_or_create(&ReasonLabel { reason })
            .inc();
    }

    /// Counts one package body compressed in `coding`.
    pub fn package_compressed(&self, coding: &'static str) {
        self.compressions
            .get_or_create(&CodingLabel { coding })
            .inc();
    }

    /// Counts one reload attempt.
    pub fn reloaded(&self, ok: bool) {
        let result = if ok { "ok" } else { "failed" };
        self.reloads.get_or_create(&Outcome { result }).inc();
    }

    /// The OpenMetrics text exposition of every counter.
    pub fn encode(&self) -> String {
        let mut text = String::new();
        // Writing into a String cannot fail.
        let _ = prometheus_client::encoding::text::encode(&mut text, &self.registry);
        text
    }
}

/// Per-service operations state: counters and the outcome of the last reload.
#[derive(Debug, Default)]
pub struct Ops {
    /// The counters `/metrics` publishes.
    pub metrics: Metrics,
    reload_failure: Mutex<Option<String>>,
}

impl Ops {
    /// Counts the versions of a freshly loaded registry by state.
    pub(crate) fn registry_loaded(&self, registry: &Registry) {
        let retained = registry.retained().len();
        // Bundle versions only: `refusals()` also lists refused corpora, which are not versions.
        let refused = registry
            .bundles
            .values()
            .flat_map(|b| b.versions.values())
            .filter(|v| v.state.is_err())
            .count();
        let declared: usize = registry.bundles.values().map(|b| b.versions.len()).sum();
        self.metrics
            .registry_loaded(declared - retained - refused, retained, refused);
    }

    /// Why the last reload kept the previous registry, if it did.
    pub fn reload_failure(&self) -> Option<String> {
        self.reload_failure
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Records the outcome of a reload (`None`: it succeeded).
    pub(crate) fn set_reload_failure(&self, failure: Option<String>) {
        *self
            .reload_failure
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = failure;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exposition_names_every_counter_with_its_labels() {
        let m = Metrics::default();
        m.response("/api/ask", 200, 1234, Duration::from_millis(3));
        m.response("/api/ask", 429, 10, Duration::from_micros(50));
        m.assembled("example", "sufficient");
        m.registry_loaded(2, 1, 1);
        m.reloaded(false);
        let text = m.encode();
        for line in [
            "okf_http_requests_total{route=\"/api/ask\",status=\"200\"} 1",
            "okf_http_requests_total{route=\"/api/ask\",status=\"429\"} 1",
            "okf_http_request_duration_seconds_count{route=\"/api/ask\"} 2",
            "okf_http_response_bytes_total{route=\"/api/ask\"} 1244",
            "okf_http_throttled_total 1",
            "okf_assemblies_total{bundle=\"example\",evidence_status=\"sufficient\"} 1",
            "okf_bundle_load_failures_total 2",
            "okf_registry_reloads_total{result=\"failed\"} 1",
            "okf_bundle_versions{state=\"refused\"} 1",
            "# EOF",
        ] {
            assert!(
                text.lines().any(|l| l == line),
                "missing {line:?} in\n{text}"
            );
        }
    }
}
