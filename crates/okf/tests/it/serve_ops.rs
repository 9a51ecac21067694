//! Operating `okf serve`: readiness, metrics, graceful drain, SIGHUP reload,
//! settings from the environment and JSON logs, each against a real process on loopback.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use crate::common::*;
use serde_json::{Value, json};
use std::io::Write;
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

const BORROW: &str = "How do I borrow books?";

/// A registry declaring a copy of the example index as bundle `lib` (and a copy of its digest).
fn example_registry(dir: &Path) -> (PathBuf, PathBuf, String) {
    let index = dir.join("library.json");
    std::fs::copy(example("index.json"), &index).unwrap();
    let sha = okf_engine::canonical::sha256_hex(&std::fs::read(&index).unwrap());
    let registry = dir.join("registry.toml");
    write_registry(&registry, &sha);
    (registry, index, sha)
}

fn write_registry(registry: &Path, sha: &str) {
    std::fs::write(
        registry,
        format!(
            "[[bundle]]\nid = \"lib\"\nindex = \"library.json\"\nsha256 = \"{sha}\"\nindex_url = \"https://example.org/lib/index.json\"\n"
        ),
    )
    .unwrap();
}

fn ready(server: &Server) -> (u16, Value) {
    let r = server.request("GET", "/ready", &[], b"");
    (r.status, r.json())
}

/// Sends SIGHUP and waits until `/ready` reports what `done` looks for.
fn reload_until(server: &Server, done: impl Fn(&Value) -> bool) -> (u16, Value) {
    server.signal("HUP");
    let started = Instant::now();
    loop {
        let (status, body) = ready(server);
        if done(&body) {
            return (status, body);
        }
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "reload not observed: {body}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn metric(text: &str, series: &str) -> u64 {
    text.lines()
        .find_map(|l| l.strip_prefix(series)?.strip_prefix(' ')?.parse().ok())
        .unwrap_or(0)
}

#[test]
fn ready_is_200_when_every_bundle_verifies_and_503_naming_a_refused_one() {
    let dir = temp_dir("ready");
    let (registry, _, _) = example_registry(&dir);
    let server = Server::start(&["--registry", registry.to_str().unwrap()]);
    let (status, body) = ready(&server);
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["status"], "ready");
    assert_eq!(body["bundles"], json!(["lib"]));
    drop(server);

    write_registry(&registry, &"0".repeat(64));
    let server = Server::start(&["--registry", registry.to_str().unwrap()]);
    let (status, body) = ready(&server);
    assert_eq!(status, 503, "{body}");
    assert_eq!(body["status"], "not_ready");
    assert_eq!(body["refused"][0]["bundle"], "lib");
    assert_eq!(body["refused"][0]["version"], "current");
    assert!(
        body["refused"][0]["reason"]
            .as_str()
            .unwrap()
            .contains("SHA-256")
    );
    // Liveness stays 200: a refused file is no reason to restart the process.
    assert_eq!(server.request("GET", "/health", &[], b"").status, 200);
}

#[test]
fn probes_and_scrapes_are_not_rate_limited_but_are_host_checked() {
    let server = Server::start(&["--rate-limit-per-minute", "1"]);
    assert_eq!(server.request("GET", "/api/bundles", &[], b"").status, 200);
    assert_eq!(server.request("GET", "/api/bundles", &[], b"").status, 429);
    for _ in 0..3 {
        assert_eq!(server.request("GET", "/health", &[], b"").status, 200);
        assert_eq!(server.request("GET", "/ready", &[], b"").status, 200);
        assert_eq!(server.request("GET", "/metrics", &[], b"").status, 200);
    }
    let foreign = server.request("GET", "/ready", &[("Host", "evil.example")], b"");
    assert_eq!(foreign.status, 403);
}

#[test]
fn metrics_count_requests_by_route_and_status_latency_bytes_assemblies_and_429s() {
    let server = Server::start(&["--rate-limit-per-minute", "4"]);
    let package = server.ask(&json!({"bundle": "example", "question": BORROW}));
    assert_eq!(package.status, 200);
    let id = package.json()["context_id"].as_str().unwrap().to_owned();
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "ask_okf", "arguments": {"bundle": "example", "question": "Explain room booking"}}});
    let mcp = server.mcp(&call, &[]);
    assert_eq!(mcp.status, 200);
    let context = server.request("GET", &format!("/api/context/{id}"), &[], b"");
    assert_eq!(context.status, 200);
    assert_eq!(server.request("GET", "/nowhere", &[], b"").status, 404);
    // The rate limit counts per route class and spares /health: exhaust the
    // non-ask class until it answers 429.
    let limited = (0..8)
        .map(|_| server.request("GET", "/api/bundles", &[], b"").status)
        .find(|s| *s == 429);
    assert_eq!(limited, Some(429));

    let r = server.request("GET", "/metrics", &[], b"");
    assert_eq!(r.status, 200);
    assert!(
        r.header("content-type")
            .unwrap()
            .starts_with("application/openmetrics-text")
    );
    let text = r.text();
    let count = |series: &str| metric(&text, series);
    assert_eq!(
        count(r#"okf_http_requests_total{route="/api/ask",status="200"}"#),
        1
    );
    assert_eq!(
        count(r#"okf_http_requests_total{route="/mcp",status="200"}"#),
        1
    );
    assert_eq!(
        count(r#"okf_http_requests_total{route="/api/context/{context_id}",status="200"}"#),
        1,
        "routes are counted by template, never by id:\n{text}"
    );
    assert!(!text.contains(&id[11..]), "no context id in a label");
    assert_eq!(
        count(r#"okf_http_requests_total{route="unmatched",status="404"}"#),
        1
    );
    assert_eq!(
        count(r#"okf_http_requests_total{route="/api/bundles",status="429"}"#),
        1
    );
    assert_eq!(count("okf_http_throttled_total"), 1);
    assert_eq!(
        count(r#"okf_http_request_duration_seconds_count{route="/api/ask"}"#),
        1
    );
    assert_eq!(
        count(r#"okf_http_response_bytes_total{route="/api/ask"}"#),
        package.body.len() as u64
    );
    assert_eq!(
        count(r#"okf_http_response_bytes_total{route="/api/context/{context_id}"}"#),
        context.body.len() as u64
    );
    assert_eq!(
        count(r#"okf_assemblies_total{bundle="example",evidence_status="sufficient"}"#),
        1
    );
    assert_eq!(
        count(r#"okf_assemblies_total{bundle="example",evidence_status="insufficient"}"#),
        1,
        "MCP assemblies are counted too"
    );
    assert_eq!(count("okf_bundle_load_failures_total"), 0);
    assert_eq!(count(r#"okf_bundle_versions{state="ready"}"#), 1);
}

#[test]
fn bundle_load_failures_are_counted_at_start_up() {
    let dir = temp_dir("load-failures");
    let (registry, _, _) = example_registry(&dir);
    write_registry(&registry, &"1".repeat(64));
    let server = Server::start(&["--registry", registry.to_str().unwrap()]);
    let text = server.request("GET", "/metrics", &[], b"").text();
    assert_eq!(metric(&text, "okf_bundle_load_failures_total"), 1);
    assert_eq!(metric(&text, r#"okf_bundle_versions{state="refused"}"#), 1);
}

#[test]
fn sigterm_finishes_the_in_flight_request_refuses_new_connections_and_exits_0() {
    let server = Server::start(&[]);
    let body = json!({"bundle": "example", "question": BORROW}).to_string();
    // A request whose body is still arriving when SIGTERM comes.
    let mut stream = TcpStream::connect(&server.addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    write!(
        stream,
        "POST /api/ask HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{}",
        server.addr,
        body.len(),
        &body[..10]
    )
    .unwrap();
    stream.flush().unwrap();
    std::thread::sleep(Duration::from_millis(300));
    server.signal("TERM");
    // New connections are refused once the listener is closed.
    let started = Instant::now();
    while TcpStream::connect(&server.addr).is_ok() {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "still accepting"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    stream.write_all(&body.as_bytes()[10..]).unwrap();
    let response = read_response(&mut stream);
    assert_eq!(response.status, 200, "the in-flight request is answered");
    assert_eq!(response.json()["evidence_status"], "sufficient");
    let (status, log) = server.wait_exit(Duration::from_secs(30));
    assert_eq!(status.code(), Some(0), "{log}");
    assert!(log.contains("draining in-flight requests"), "{log}");
    assert!(log.contains("drained; stopped"), "{log}");
}

#[test]
fn a_request_outliving_the_drain_deadline_is_closed_and_the_exit_is_still_0() {
    let server = Server::start(&["--drain-ms", "300", "--timeout-ms", "600000"]);
    let mut stalled = server.stalled_post("/api/ask");
    std::thread::sleep(Duration::from_millis(200));
    server.signal("TERM");
    let (status, log) = server.wait_exit(Duration::from_secs(60));
    assert_eq!(status.code(), Some(0), "{log}");
    assert!(log.contains("drain deadline passed"), "{log}");
    let mut rest = Vec::new();
    let _ = std::io::Read::read_to_end(&mut stalled, &mut rest);
    assert!(rest.is_empty(), "the stalled request got no partial answer");
}

#[test]
fn sighup_keeps_the_old_verified_copy_when_the_file_changed_and_names_the_refusal() {
    let dir = temp_dir("reload-retain");
    let (registry, index, sha) = example_registry(&dir);
    let server = Server::start(&["--registry", registry.to_str().unwrap()]);
    let before = server
        .ask(&json!({"bundle": "lib", "question": BORROW}))
        .text();

    // The file changes under the same declaration: its digest no longer matches.
    let mut bytes = std::fs::read(&index).unwrap();
    bytes.extend_from_slice(b"\n");
    std::fs::write(&index, &bytes).unwrap();
    let (status, body) = reload_until(&server, |b| b["retained"][0].is_object());
    assert_eq!(
        status, 200,
        "the old verified copy still serves every version: {body}"
    );
    assert_eq!(body["retained"][0]["bundle"], "lib");
    assert!(
        body["retained"][0]["reason"]
            .as_str()
            .unwrap()
            .contains(&format!("registry declares {sha}"))
    );
    let after = server.ask(&json!({"bundle": "lib", "question": BORROW}));
    assert_eq!(after.status, 200);
    assert_eq!(after.text(), before, "same bytes from the retained copy");

    // A new declaration the file does not match gets no old copy: refused, 503, named.
    write_registry(&registry, &"2".repeat(64));
    let (status, body) = reload_until(&server, |b| b["refused"][0].is_object());
    assert_eq!(status, 503, "{body}");
    assert_eq!(body["refused"][0]["bundle"], "lib");
    assert_eq!(body["retained"], json!([]));
    let refused = server.ask(&json!({"bundle": "lib", "question": BORROW}));
    assert_eq!(refused.status, 503);
    assert_eq!(refused.json()["error"]["code"], "bundle_unavailable");

    // Declaring the changed file's real digest serves it again, with the new binding.
    let new_sha = okf_engine::canonical::sha256_hex(&bytes);
    write_registry(&registry, &new_sha);
    let (status, body) = reload_until(&server, |b| b["status"] == "ready");
    assert_eq!(status, 200, "{body}");
    let fresh = server.ask(&json!({"bundle": "lib", "question": BORROW}));
    assert_eq!(
        fresh.json()["binding"]["index_sha256"].as_str(),
        Some(new_sha.as_str())
    );

    let metrics = server.request("GET", "/metrics", &[], b"").text();
    assert_eq!(metric(&metrics, "okf_bundle_load_failures_total"), 2);
    assert_eq!(
        metric(&metrics, r#"okf_registry_reloads_total{result="ok"}"#),
        3
    );
    let log = server.stop();
    assert!(
        log.contains("bundle version file refused; the copy verified earlier keeps serving"),
        "{log}"
    );
    assert!(log.contains("bundle version refused"), "{log}");
}

#[test]
fn sighup_with_a_broken_registry_file_keeps_serving_the_previous_registry() {
    let dir = temp_dir("reload-broken");
    let (registry, _, _) = example_registry(&dir);
    let server = Server::start(&["--registry", registry.to_str().unwrap()]);
    let before = server
        .ask(&json!({"bundle": "lib", "question": BORROW}))
        .text();
    std::fs::write(&registry, "[[bundle]\nthis is not toml").unwrap();
    let (status, body) = reload_until(&server, |b| b.get("reload_failure").is_some());
    assert_eq!(status, 200, "{body}");
    assert!(
        body["reload_failure"]
            .as_str()
            .unwrap()
            .contains("registry.toml")
    );
    assert_eq!(
        server
            .ask(&json!({"bundle": "lib", "question": BORROW}))
            .text(),
        before
    );
    let metrics = server.request("GET", "/metrics", &[], b"").text();
    assert_eq!(
        metric(&metrics, r#"okf_registry_reloads_total{result="failed"}"#),
        1
    );
    let log = server.stop();
    assert!(log.contains("registry reload failed"), "{log}");
}

#[test]
fn every_setting_comes_from_an_okf_environment_variable() {
    let dir = temp_dir("env");
    let (registry, _, _) = example_registry(&dir);
    let mut command = Command::new(env!("CARGO_BIN_EXE_okf"));
    command
        .arg("serve")
        .env("OKF_LISTEN", "127.0.0.1:0")
        .env("OKF_REGISTRY", &registry)
        .env("OKF_ALLOW_HOSTS", "okf.example,okf.internal")
        .env("OKF_ALLOW_ORIGINS", "https://client.example")
        .env("OKF_RATE_LIMIT_PER_MINUTE", "3")
        .env("OKF_MAX_CONCURRENT", "8")
        .env("OKF_TIMEOUT_MS", "5000")
        .env("OKF_CACHE_ENTRIES", "0")
        .env("OKF_CACHE_BYTES", "1000")
        .env("OKF_DRAIN_MS", "1000")
        .env("OKF_LOG_FORMAT", "json");
    let server = Server::spawn(command);
    let ask = json!({"bundle": "lib", "question": BORROW}).to_string();
    let r = server.request(
        "POST",
        "/api/ask",
        &[
            ("Host", "okf.internal:8080"),
            ("Origin", "https://client.example"),
            ("Content-Type", "application/json"),
        ],
        ask.as_bytes(),
    );
    assert_eq!(
        r.status, 200,
        "registry, hosts and origins from the environment"
    );
    let id = r.json()["context_id"].as_str().unwrap().to_owned();
    let gone = server.request("GET", &format!("/api/context/{id}"), &[], b"");
    assert_eq!(gone.status, 404, "OKF_CACHE_ENTRIES=0 retains nothing");
    assert_eq!(server.request("GET", "/health", &[], b"").status, 200);
    let limited = (0..8)
        .map(|_| server.request("GET", "/api/bundles", &[], b"").status)
        .find(|s| *s == 429);
    assert_eq!(limited, Some(429), "OKF_RATE_LIMIT_PER_MINUTE=3");
    let log = server.stop();
    let line = log
        .lines()
        .find(|l| l.contains("/api/ask"))
        .expect("a request line");
    let entry: Value = serde_json::from_str(line).expect("OKF_LOG_FORMAT=json");
    assert_eq!(entry["target"], "okf::http");
    assert_eq!(entry["status"], 200);
}

#[test]
fn json_log_format_writes_one_json_object_per_line_without_the_question() {
    let server = Server::start(&["--log-format", "json"]);
    server.ask(&json!({"bundle": "example", "question": BORROW}));
    server.request("GET", "/ready", &[], b"");
    let log = server.stop();
    let lines: Vec<Value> = log
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    let http: Vec<&Value> = lines
        .iter()
        .filter(|l| l["target"] == "okf::http")
        .collect();
    assert_eq!(http.len(), 2, "{log}");
    assert_eq!(http[0]["route"], "/api/ask");
    assert_eq!(http[0]["evidence_status"], "sufficient");
    assert!(http[0]["timestamp"].is_string() && http[0]["level"] == "INFO");
    assert!(!log.contains("borrow"), "the question is never logged");
}

#[test]
fn a_flag_wins_over_its_environment_variable() {
    let mut command = Command::new(env!("CARGO_BIN_EXE_okf"));
    command
        .args([
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--rate-limit-per-minute",
            "0",
        ])
        .env("OKF_LISTEN", "127.0.0.1:1")
        .env("OKF_RATE_LIMIT_PER_MINUTE", "1");
    let server = Server::spawn(command);
    for _ in 0..3 {
        assert_eq!(server.request("GET", "/health", &[], b"").status, 200);
    }
}

/// The `ENV` settings and the `ENTRYPOINT` of the runtime stage of the Containerfile.
fn containerfile_entry_point() -> (Vec<(String, String)>, Vec<String>, String) {
    let text =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../Containerfile"))
            .unwrap();
    let joined = text.replace("\\\n", " ");
    let runtime = joined.rsplit("\nFROM ").next().unwrap();
    let mut env = Vec::new();
    let mut entry = Vec::new();
    for line in runtime.lines().map(str::trim) {
        if let Some(rest) = line.strip_prefix("ENV ") {
            for pair in rest.split_whitespace() {
                let (k, v) = pair.split_once('=').unwrap();
                env.push((k.to_owned(), v.to_owned()));
            }
        } else if let Some(rest) = line.strip_prefix("ENTRYPOINT ") {
            entry = serde_json::from_str(rest).unwrap();
        }
    }
    (env, entry, text)
}

#[test]
fn container_entry_point_serves_a_read_only_registry_volume_as_a_plain_process() {
    // No container engine can run in this sandbox (docs/deploy.md), so the image's entry
    // point runs as a plain process: same arguments, same environment (the listen address
    // moved to loopback), the registry volume a read-only directory.
    let (env, entry, text) = containerfile_entry_point();
    assert!(text.matches("\nFROM ").count() >= 2, "multi-stage build");
    let user = text
        .lines()
        .filter_map(|l| l.strip_prefix("USER "))
        .next_back()
        .unwrap();
    assert!(
        !user.starts_with("root") && !user.starts_with("0"),
        "non-root: {user}"
    );
    assert!(text.contains("VOLUME [\"/registry\"]"));
    assert_eq!(entry[0], "/usr/local/bin/okf");
    assert_eq!(entry[1], "serve");
    let listen = &env.iter().find(|(k, _)| k == "OKF_LISTEN").unwrap().1;
    assert_eq!(listen, "0.0.0.0:8080");

    let dir = temp_dir("container");
    let volume = dir.join("registry");
    std::fs::create_dir_all(&volume).unwrap();
    let (_, _, _) = example_registry(&volume);
    for file in ["library.json", "registry.toml"] {
        let mut perms = std::fs::metadata(volume.join(file)).unwrap().permissions();
        perms.set_readonly(true);
        std::fs::set_permissions(volume.join(file), perms).unwrap();
    }
    let mut perms = std::fs::metadata(&volume).unwrap().permissions();
    perms.set_readonly(true);
    std::fs::set_permissions(&volume, perms).unwrap();

    let mut command = Command::new(env!("CARGO_BIN_EXE_okf"));
    command
        .args(&entry[1..])
        .current_dir("/")
        .env_clear()
        .envs(env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .env("OKF_LISTEN", "127.0.0.1:0")
        .env("OKF_REGISTRY", volume.join("registry.toml"));
    let server = Server::spawn(command);
    let (status, body) = ready(&server);
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["bundles"], json!(["lib"]));
    let package = server.ask(&json!({"bundle": "lib", "question": BORROW}));
    assert_eq!(package.status, 200);
    assert_eq!(package.json()["evidence_status"], "sufficient");
    assert_eq!(server.request("GET", "/", &[], b"").status, 200);
    let (exit, log) = {
        server.signal("TERM");
        server.wait_exit(Duration::from_secs(30))
    };
    assert_eq!(exit.code(), Some(0), "{log}");
    assert!(
        log.lines()
            .all(|l| serde_json::from_str::<Value>(l).is_ok()),
        "the image logs JSON lines: {log}"
    );
    let mut perms = std::fs::metadata(&volume).unwrap().permissions();
    #[allow(clippy::permissions_set_readonly_false)]
    perms.set_readonly(false);
    let _ = std::fs::set_permissions(&volume, perms);
}

#[test]
fn sighup_that_adds_a_bundle_lists_it_in_the_mcp_tools() {
    let dir = temp_dir("reload-tools");
    let (registry, _, sha) = example_registry(&dir);
    let server = Server::start(&["--registry", registry.to_str().unwrap()]);
    let bundle_enum = |server: &Server| {
        let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
        let reply = server.mcp(&list, &[]).json();
        let ask = reply["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == "ask_okf")
            .cloned()
            .unwrap();
        ask["inputSchema"]["properties"]["bundle"]["enum"].clone()
    };
    assert_eq!(bundle_enum(&server), json!(["lib"]));

    let mut declared = std::fs::read_to_string(&registry).unwrap();
    declared.push_str(&format!(
        "[[bundle]]\nid = \"lib2\"\nindex = \"library.json\"\nsha256 = \"{sha}\"\nindex_url = \"https://example.org/lib2/index.json\"\n"
    ));
    std::fs::write(&registry, declared).unwrap();
    let (status, body) = reload_until(&server, |b| b["bundles"] == json!(["lib", "lib2"]));
    assert_eq!(status, 200, "{body}");
    // The tool list follows the registry now served, so a validating client may ask lib2.
    assert_eq!(bundle_enum(&server), json!(["lib", "lib2"]));
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "ask_okf", "arguments": {"bundle": "lib2", "question": BORROW}}});
    let reply = server.mcp(&call, &[]).json();
    assert_eq!(
        reply["result"]["structuredContent"]["binding"]["index_url"],
        "https://example.org/lib2/index.json",
        "{reply}"
    );
}

#[test]
fn strict_serve_refuses_to_start_naming_the_bundle_it_cannot_serve() {
    let dir = temp_dir("serve-strict");
    let (registry, _, _) = example_registry(&dir);
    write_registry(&registry, &"0".repeat(64));
    let registry = registry.to_str().unwrap();
    let out = okf(&[
        "serve",
        "--strict",
        "--registry",
        registry,
        "--listen",
        "127.0.0.1:0",
    ]);
    assert!(!out.status.success(), "started: {}", stdout(&out));
    let err = stderr(&out);
    assert!(err.contains("--strict: not starting"), "{err}");
    assert!(err.contains("bundle lib@current"), "{err}");
    assert!(!stdout(&out).contains("listening"), "{}", stdout(&out));
}
