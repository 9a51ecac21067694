//! `okf serve`: wires the registry (or the embedded example) to the HTTP/MCP server. Every
//! option can also come from an `OKF_*` environment variable, as containers expect; a
//! command-line flag wins over the variable.

use crate::{CliError, example};
use clap::{Args, ValueEnum};
use okf_server::{CacheLimits, HttpConfig, Lifecycle, Registry, Service};
use std::io::Write;
use std::net::IpAddr;
use std::path::PathBuf;
use std::time::Duration;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

/// Options of `okf serve`.
#[derive(Args)]
pub(crate) struct ServeArgs {
    /// Registry file (TOML) of allow-listed bundles. Without it the embedded example bundle is
    /// served under the id `example`.
    /// SIGHUP re-reads it.
    #[arg(long, env = "OKF_REGISTRY")]
    registry: Option<PathBuf>,
    /// Address to listen on; port 0 picks a free port.
    #[arg(long, env = "OKF_LISTEN", default_value = "127.0.0.1:8080")]
    listen: String,
    /// Extra host name the Host header may carry (repeatable, or comma-separated in the
    /// variable; loopback names are always allowed).
    #[arg(long = "allow-host", env = "OKF_ALLOW_HOSTS", value_delimiter = ',')]
    allow_hosts: Vec<String>,
    /// Extra browser origin allowed to call the server, e.g. https://chatgpt.com (repeatable,
    /// or comma-separated in the variable).
    #[arg(
        long = "allow-origin",
        env = "OKF_ALLOW_ORIGINS",
        value_delimiter = ','
    )]
    allow_origins: Vec<String>,
    /// Most requests handled at once; more get 429.
    #[arg(long, env = "OKF_MAX_CONCURRENT", default_value_t = defaults().max_concurrent)]
    max_concurrent: usize,
    /// Most requests one client may have handled at once (of --max-concurrent); more get 429
    /// (0: no per-client share).
    #[arg(long, env = "OKF_CLIENT_MAX_CONCURRENT", default_value_t = defaults().client_max_concurrent.unwrap_or(0))]
    client_max_concurrent: usize,
    /// Most requests per minute in each route class (asks; everything else) across all
    /// clients; more get 429. /health is never limited (0 disables rate limiting, the
    /// per-client limit included).
    #[arg(long, env = "OKF_RATE_LIMIT_PER_MINUTE", default_value_t = defaults().rate_limit.map_or(0, |(n, _)| n))]
    rate_limit_per_minute: u32,
    /// Most requests per minute in each route class from one client; more get 429 (0: only
    /// the overall limit).
    #[arg(long, env = "OKF_CLIENT_RATE_LIMIT_PER_MINUTE", default_value_t = defaults().client_rate_limit.unwrap_or(0))]
    client_rate_limit_per_minute: u32,
    /// Most requests still receiving their bodies; more get 429.
    #[arg(long, default_value_t = defaults().max_reading)]
    max_reading: usize,
    /// Most requests one client may have receiving their bodies; more get 429 (0: no
    /// per-client share).
    #[arg(long, default_value_t = defaults().client_max_reading.unwrap_or(0))]
    client_max_reading: usize,
    /// Most open connections; further ones are closed at once.
    #[arg(long, default_value_t = defaults().max_connections)]
    max_connections: usize,
    /// Most open connections from one client address (a trusted proxy's count against
    /// --max-connections only); further ones are closed at once (0: no per-client share).
    #[arg(long, default_value_t = defaults().client_max_connections.unwrap_or(0))]
    client_max_connections: usize,
    /// Most client addresses tracked by each per-client limit; past it, new addresses share
    /// one client's limits until tracked ones expire.
    #[arg(long, default_value_t = defaults().max_clients)]
    max_clients: usize,
    /// Address of a reverse proxy whose X-Forwarded-For header names the client (repeatable,
    /// or comma-separated in the variable). From any other peer the header is ignored.
    #[arg(
        long = "trusted-proxy",
        env = "OKF_TRUSTED_PROXIES",
        value_delimiter = ','
    )]
    trusted_proxies: Vec<IpAddr>,
    /// Milliseconds a connection may take to send a request head (idle keep-alive included).
    #[arg(long, default_value_t = millis(defaults().header_read_timeout))]
    header_timeout_ms: u64,
    /// Test only: also list the MCP conformance suite's fixture tool json_schema_2020_12_tool
    /// (its json-schema-2020-12 scenario). Only in builds with the `conformance-fixture`
    /// feature (scripts/test builds with it; a release build has no such flag).
    #[cfg(feature = "conformance-fixture")]
    #[arg(long)]
    mcp_conformance_fixture: bool,
    /// Request timeout in milliseconds, body reading included.
    #[arg(long, env = "OKF_TIMEOUT_MS", default_value_t = millis(defaults().request_timeout))]
    timeout_ms: u64,
    /// Most packages retained for /api/context and okf_get_context.
    #[arg(long, env = "OKF_CACHE_ENTRIES", default_value_t = CacheLimits::default().max_entries)]
    cache_entries: usize,
    /// Most package bytes retained.
    #[arg(long, env = "OKF_CACHE_BYTES", default_value_t = CacheLimits::default().max_bytes)]
    cache_bytes: usize,
    /// After SIGTERM or Ctrl-C, how long in-flight requests may take to finish (milliseconds)
    /// before the remaining connections are closed; the exit status is 0 either way.
    #[arg(long, env = "OKF_DRAIN_MS", default_value_t = 20_000)]
    drain_ms: u64,
    /// Refuse to start when anything the registry declares cannot be served (a bundle
    /// version, corpus or workbench refused at load), naming each; without it the server
    /// starts, logs them and answers 503 on /ready.
    #[arg(long)]
    strict: bool,
    /// Log line format on standard error.
    #[arg(long, env = "OKF_LOG_FORMAT", value_enum, default_value_t = LogFormat::Text)]
    log_format: LogFormat,
}

/// The server's own defaults, which the flags' defaults are read from: one place for each.
fn defaults() -> HttpConfig {
    HttpConfig::loopback(0)
}

/// A duration as whole milliseconds, the unit of the flags.
fn millis(d: std::time::Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// How log lines are written.
#[derive(Clone, Copy, ValueEnum)]
pub(crate) enum LogFormat {
    /// Compact human-readable lines.
    Text,
    /// One JSON object per line (timestamp, level, target, fields), for log collectors.
    Json,
}

/// A failure to start or run the server.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ServeFailure {
    /// The registry is unusable.
    #[error(transparent)]
    Registry(#[from] okf_server::RegistryError),
    /// The server could not start or stopped with an error.
    #[error(transparent)]
    Serve(#[from] okf_server::ServeError),
    /// A token issuer's signing keys could not be fetched at start-up.
    #[error("{0}")]
    Keys(String),
    /// The async runtime could not start.
    #[error("cannot start the async runtime: {0}")]
    Runtime(std::io::Error),
    /// `--strict`, and the registry declares something that cannot be served.
    #[error("--strict: not starting, because the registry declares what cannot be served: {0}")]
    Strict(String),
}

pub(crate) fn run(args: ServeArgs) -> Result<(), CliError> {
    let ansi = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let sink = crate::log_lines::Sink::to_stderr().ok_or_else(|| {
        ServeFailure::Runtime(std::io::Error::other("cannot start the log writer thread"))
    })?;
    let writer = sink.clone();
    // Whichever way `run` returns, the lines queued so far are written before the process exits.
    let _flush = crate::log_lines::FlushOnDrop(sink);
    let logs = tracing_subscriber::fmt()
        .with_writer(move || crate::log_lines::OneLine::new(writer.clone(), ansi))
        .log_internal_errors(false)
        .with_target(true);
    // The MCP transport logs several lines per request (every error response at warn, with
    // its message, which may echo request text); this server writes its own line per
    // request, so only the transport's errors are kept.
    let filter = tracing_subscriber::filter::Targets::new()
        .with_default(tracing::Level::INFO)
        .with_target("rmcp", tracing::Level::ERROR);
    match args.log_format {
        LogFormat::Text => logs.with_ansi(ansi).compact().finish().with(filter).init(),
        LogFormat::Json => logs
            .with_ansi(false)
            .json()
            .flatten_event(true)
            .finish()
            .with(filter)
            .init(),
    }
    let registry = match &args.registry {
        Some(path) => Registry::load(path).map_err(ServeFailure::from)?,
        None => Registry::example(example::INDEX_JSON).map_err(ServeFailure::from)?,
    };
    okf_server::ops::log_registry_problems(&registry);
    let refused = registry.not_ready();
    if args.strict && !refused.is_empty() {
        let listed: Vec<String> = refused
            .iter()
            .map(|r| match &r.version {
                Some(version) => format!("{} {}@{version}: {}", r.kind, r.id, r.reason),
                None => format!("{} {}: {}", r.kind, r.id, r.reason),
            })
            .collect();
        return Err(ServeFailure::Strict(listed.join("; ")).into());
    }
    let service = Service::new(
        registry,
        CacheLimits {
            max_entries: args.cache_entries,
            max_bytes: args.cache_bytes,
        },
    );
    // Assembly is CPU-bound, so more blocking threads than cores only add memory (each holds
    // package-sized buffers), not throughput.
    let cores = std::thread::available_parallelism().map_or(2, std::num::NonZeroUsize::get);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .max_blocking_threads(cores.max(2))
        .build()
        .map_err(ServeFailure::Runtime)?;
    // Every issuer's keys are fetched before the server listens (unless the registry lets
    // them be fetched on demand): a registry whose key server is down or misconfigured is
    // refused now, naming the issuer, rather than failing every token later.
    if let Some(verifier) = &service.registry().auth {
        runtime
            .block_on(verifier.prefetch())
            .map_err(ServeFailure::Keys)?;
    }
    let lifecycle = Lifecycle {
        registry_path: args.registry.clone(),
        drain_deadline: Duration::from_millis(args.drain_ms),
    };
    #[cfg(feature = "conformance-fixture")]
    let conformance_fixture = args.mcp_conformance_fixture;
    let ServeArgs {
        listen,
        allow_hosts,
        allow_origins,
        max_concurrent,
        client_max_concurrent,
        rate_limit_per_minute,
        client_rate_limit_per_minute,
        timeout_ms,
        max_reading,
        client_max_reading,
        max_connections,
        client_max_connections,
        max_clients,
        trusted_proxies,
        header_timeout_ms,
        ..
    } = args;
    let configure = Box::new(move |config: &mut HttpConfig| {
        config.allowed_hosts.extend(allow_hosts);
        config.allowed_origins.extend(allow_origins);
        config.max_concurrent = max_concurrent.max(1);
        config.rate_limit =
            (rate_limit_per_minute > 0).then(|| (rate_limit_per_minute, Duration::from_secs(60)));
        config.request_timeout = Duration::from_millis(timeout_ms.max(1));
        config.max_reading = max_reading.max(1);
        config.max_connections = max_connections.max(1);
        config.header_read_timeout = Duration::from_millis(header_timeout_ms.max(1));
        #[cfg(feature = "conformance-fixture")]
        {
            config.mcp_conformance_fixture = conformance_fixture;
        }
        config.client_max_concurrent = (client_max_concurrent > 0).then_some(client_max_concurrent);
        config.client_rate_limit =
            (client_rate_limit_per_minute > 0).then_some(client_rate_limit_per_minute);
        config.client_max_reading = (client_max_reading > 0).then_some(client_max_reading);
        config.client_max_connections =
            (client_max_connections > 0).then_some(client_max_connections);
        config.max_clients = max_clients.max(1);
        config.trusted_proxies = trusted_proxies;
    });
    let served = runtime.block_on(okf_server::serve(
        service,
        &listen,
        configure,
        lifecycle,
        |addr| {
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "listening on http://{addr}");
            let _ = out.flush();
        },
    ));
    // Assemblies still running past the drain deadline are budget-bounded; give them a
    // moment rather than waiting on them indefinitely.
    runtime.shutdown_timeout(Duration::from_secs(1));
    served.map_err(ServeFailure::from)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::ServeArgs;
    use clap::Args;

    /// The default docs/deploy.md states for each flag of its table, as clap spells it.
    fn documented_defaults() -> Vec<(String, String)> {
        let doc = include_str!("../../../docs/deploy.md");
        let mut out = Vec::new();
        for row in doc.lines().filter(|l| l.starts_with("| ")) {
            let cells: Vec<&str> = row.split('|').map(str::trim).collect();
            let (Some(flags), Some(values)) = (cells.get(2), cells.get(3)) else {
                continue;
            };
            let flags: Vec<&str> = flags.split(" / ").collect();
            let values: Vec<&str> = values.split(" / ").collect();
            for (flag, value) in flags.iter().zip(values) {
                let Some(name) = flag.strip_prefix("`--").and_then(|f| f.split('`').next()) else {
                    continue;
                };
                let value = value.split(" (").next().unwrap_or(value).trim_matches('`');
                let value = match value.strip_suffix(" MiB") {
                    Some(mib) => (mib.parse::<u64>().unwrap_or(0) * 1024 * 1024).to_string(),
                    None => value.to_owned(),
                };
                out.push((name.to_owned(), value));
            }
        }
        out
    }

    #[test]
    fn the_deploy_guide_states_every_serve_default_as_the_server_has_it() {
        let command = ServeArgs::augment_args(clap::Command::new("serve"));
        let table = documented_defaults();
        let mut checked = 0;
        for arg in command.get_arguments() {
            let Some(default) = arg.get_default_values().first() else {
                continue;
            };
            let name = arg.get_long().unwrap_or_default();
            let documented: Vec<&str> = table
                .iter()
                .filter(|(flag, _)| flag == name)
                .map(|(_, value)| value.as_str())
                .collect();
            assert_eq!(
                documented,
                [default.to_string_lossy()],
                "--{name}: docs/deploy.md's table and the flag's default differ"
            );
            checked += 1;
        }
        assert!(checked >= 15, "only {checked} defaults were checked");
    }
}
