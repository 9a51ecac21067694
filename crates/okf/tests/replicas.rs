//! Two `okf serve` replicas behind Debian's nginx as a round-robin proxy, all on loopback.
//! Run by `scripts/replica-test`, which installs nginx when it is missing; this
//! target is not part of a plain `cargo test` (`test = false` in Cargo.toml) because it
//! needs that system package. `OKF_NGINX` names the nginx binary (default /usr/sbin/nginx).
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

#[path = "it/common/mod.rs"]
mod common;

use common::*;
use serde_json::json;
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// A running nginx, stopped on drop.
struct Nginx {
    child: Child,
    addr: String,
    dir: PathBuf,
}

impl Drop for Nginx {
    /// SIGTERM, not SIGKILL: the master then stops its worker, which SIGKILL would orphan.
    fn drop(&mut self) {
        let terminated = Command::new("kill")
            .args(["-s", "TERM", &self.child.id().to_string()])
            .status()
            .is_ok_and(|s| s.success());
        if !terminated {
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// nginx in the foreground with everything under `dir`: round-robin over the replicas,
/// keep-alive upstream connections, and a retry on the other replica when one fails. The
/// API is pure (same request, same bytes), so retrying a POST is safe: `non_idempotent`.
fn start_nginx(dir: &Path, upstreams: &[&str]) -> Nginx {
    let port = free_port();
    let servers: String = upstreams
        .iter()
        .map(|u| format!("    server {u} max_fails=1 fail_timeout=10s;\n"))
        .collect();
    let d = dir.display();
    let conf = format!(
        r#"worker_processes 1;
pid {d}/nginx.pid;
error_log {d}/error.log warn;
events {{ worker_connections 512; }}
http {{
  access_log off;
  client_body_temp_path {d}/client_body;
  proxy_temp_path {d}/proxy;
  fastcgi_temp_path {d}/fastcgi;
  uwsgi_temp_path {d}/uwsgi;
  scgi_temp_path {d}/scgi;
  upstream okf {{
{servers}    keepalive 16;
  }}
  server {{
    listen 127.0.0.1:{port};
    location / {{
      proxy_pass http://okf;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_next_upstream error timeout http_502 http_503 non_idempotent;
      proxy_next_upstream_tries 2;
      proxy_connect_timeout 2s;
      proxy_buffers 32 64k;
      proxy_max_temp_file_size 0;
      add_header X-Upstream $upstream_addr always;
    }}
  }}
}}
"#
    );
    let conf_path = dir.join("nginx.conf");
    std::fs::write(&conf_path, conf).unwrap();
    let nginx = std::env::var("OKF_NGINX").unwrap_or_else(|_| "/usr/sbin/nginx".into());
    let child = Command::new(&nginx)
        .arg("-p")
        .arg(dir)
        .arg("-e")
        .arg(dir.join("error.log"))
        .arg("-c")
        .arg(&conf_path)
        .args(["-g", "daemon off;"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {nginx} ({e}); scripts/replica-test installs it"));
    let addr = format!("127.0.0.1:{port}");
    let started = Instant::now();
    while TcpStream::connect(&addr).is_err() {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "nginx did not listen: {}",
            std::fs::read_to_string(dir.join("error.log")).unwrap_or_default()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    Nginx {
        child,
        addr,
        dir: dir.to_owned(),
    }
}

/// The example bundle and the DWP bundle, by absolute path.
fn both_bundles(dir: &Path) -> PathBuf {
    let example_index = example("index.json");
    let sha = okf_engine::canonical::sha256_hex(&std::fs::read(&example_index).unwrap());
    dwp_registry(
        dir,
        &format!(
            "\n[[bundle]]\nid = \"example\"\nindex = \"{example_index}\"\nsha256 = \"{sha}\"\nindex_url = \"https://example.org/okf-example/index.json\"\n"
        ),
    )
}

/// One request of the run: `(method, path, headers, body)`.
type Replayed = (
    &'static str,
    &'static str,
    Vec<(&'static str, &'static str)>,
    Vec<u8>,
);

/// The requests of the run.
fn requests() -> Vec<Replayed> {
    let json = vec![("Content-Type", "application/json")];
    let mcp = vec![
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
        ("MCP-Protocol-Version", "2025-11-25"),
    ];
    let ask = |bundle: &str, question: &str| {
        json!({"bundle": bundle, "question": question})
            .to_string()
            .into_bytes()
    };
    vec![
        ("POST", "/api/ask", json.clone(), ask("example", "How do I borrow books?")),
        ("POST", "/api/ask", json.clone(), ask("okf-dwp", &imprisonment_question())),
        ("POST", "/api/ask", json, ask("example", "Explain room booking")),
        (
            "POST",
            "/mcp",
            mcp,
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                "params": {"name": "ask_okf", "arguments": {"bundle": "example", "question": "What are the opening hours?"}}})
            .to_string()
            .into_bytes(),
        ),
        ("GET", "/", vec![], vec![]),
    ]
}

/// A response with the MCP result's execution receipt (`_meta`) cut out. The receipt says
/// which replica built the package and when, so it differs by design; every other byte must
/// be the same.
fn without_receipt(body: &[u8]) -> Vec<u8> {
    let key = br#""_meta":"#;
    let Some(at) = body.windows(key.len()).position(|w| w == key) else {
        return body.to_vec();
    };
    let start = at + key.len();
    let mut stream =
        serde_json::Deserializer::from_slice(&body[start..]).into_iter::<serde_json::Value>();
    match stream.next() {
        Some(Ok(_)) => {
            let rest = &body[start + stream.byte_offset()..];
            let mut out = body[..at].to_vec();
            out.extend_from_slice(rest.strip_prefix(b",").unwrap_or(rest));
            out
        }
        _ => body.to_vec(),
    }
}

#[test]
fn two_replicas_behind_nginx_give_the_same_bytes_and_survive_losing_one() {
    let dir = temp_dir("replicas");
    let registry = both_bundles(&dir);
    // nginx on loopback is the trusted proxy whose X-Forwarded-For names the client.
    let args = [
        "--registry",
        registry.to_str().unwrap(),
        "--trusted-proxy",
        "127.0.0.1",
    ];
    let a = Server::start(&args);
    let b = Server::start(&args);
    let nginx = start_nginx(&dir, &[&a.addr, &b.addr]);
    let requests = requests();

    // The same request gives the same bytes from either replica, directly or through the
    // proxy, and round-robin reaches both.
    let mut expected = Vec::new();
    let mut seen_upstreams = std::collections::BTreeSet::new();
    for (method, path, headers, body) in &requests {
        let direct_a = request_to(&a.addr, method, path, headers, body);
        let direct_b = request_to(&b.addr, method, path, headers, body);
        assert_eq!(direct_a.status, 200, "{path}: {}", direct_a.text());
        assert_eq!(
            without_receipt(&direct_a.body),
            without_receipt(&direct_b.body),
            "{path}: replicas differ"
        );
        if *path == "/mcp" {
            // Each replica's receipt names itself.
            let receipt = |b: &[u8]| {
                serde_json::from_slice::<serde_json::Value>(b).unwrap()["result"]["_meta"]["okf/execution"]["instance"].clone()
            };
            assert_ne!(receipt(&direct_a.body), receipt(&direct_b.body));
        }
        for _ in 0..4 {
            let proxied = request_to(&nginx.addr, method, path, headers, body);
            assert_eq!(proxied.status, 200, "{path}");
            assert_eq!(
                without_receipt(&proxied.body),
                without_receipt(&direct_a.body),
                "{path}: proxy changed the bytes"
            );
            seen_upstreams.insert(proxied.header("x-upstream").unwrap().to_owned());
        }
        expected.push(without_receipt(&direct_a.body));
    }
    assert!(
        seen_upstreams.contains(&a.addr) && seen_upstreams.contains(&b.addr),
        "round-robin reaches both replicas: {seen_upstreams:?}"
    );

    // Load through the proxy from four clients; replica B is killed (SIGKILL, no drain)
    // mid-run. Every request must still be answered 200 with the expected bytes, and the
    // survivor's /ready must stay 200 throughout.
    let requests = Arc::new(requests);
    let expected = Arc::new(expected);
    let done = Arc::new(AtomicUsize::new(0));
    let killed = Arc::new(AtomicBool::new(false));
    let stop_probe = Arc::new(AtomicBool::new(false));
    let probe = {
        let addr = a.addr.clone();
        let stop = Arc::clone(&stop_probe);
        std::thread::spawn(move || {
            let mut statuses = Vec::new();
            while !stop.load(Ordering::Relaxed) {
                statuses.push(request_to(&addr, "GET", "/ready", &[], b"").status);
                std::thread::sleep(Duration::from_millis(25));
            }
            statuses
        })
    };
    let per_client = 60;
    let clients: Vec<_> = (0..4)
        .map(|client| {
            let (requests, expected, done, killed) = (
                Arc::clone(&requests),
                Arc::clone(&expected),
                Arc::clone(&done),
                Arc::clone(&killed),
            );
            let proxy = nginx.addr.clone();
            std::thread::spawn(move || {
                let mut failures = Vec::new();
                let mut upstreams = Vec::new();
                for i in 0..per_client {
                    let k = (client + i) % requests.len();
                    let (method, path, headers, body) = &requests[k];
                    let after_kill = killed.load(Ordering::SeqCst);
                    let r = request_to(&proxy, method, path, headers, body);
                    if r.status != 200 || without_receipt(&r.body) != expected[k] {
                        failures.push(format!("{method} {path}: {}", r.status));
                    }
                    upstreams.push((after_kill, r.header("x-upstream").unwrap_or("").to_owned()));
                    done.fetch_add(1, Ordering::Relaxed);
                }
                (failures, upstreams)
            })
        })
        .collect();
    let total = 4 * per_client;
    while done.load(Ordering::Relaxed) < total / 3 {
        std::thread::sleep(Duration::from_millis(5));
    }
    let killed_at = done.load(Ordering::Relaxed);
    b.signal("KILL");
    killed.store(true, Ordering::SeqCst);
    let mut failures = Vec::new();
    let mut upstreams = Vec::new();
    for client in clients {
        let (f, u) = client.join().unwrap();
        failures.extend(f);
        upstreams.extend(u);
    }
    stop_probe.store(true, Ordering::Relaxed);
    let ready = probe.join().unwrap();
    let log = std::fs::read_to_string(nginx.dir.join("error.log")).unwrap_or_default();
    assert!(
        killed_at < total,
        "B was killed while requests were still running"
    );
    assert!(
        failures.is_empty(),
        "requests lost after killing a replica: {failures:?}\nnginx: {log}"
    );
    assert!(
        !ready.is_empty() && ready.iter().all(|s| *s == 200),
        "{ready:?}"
    );
    let after: Vec<&String> = upstreams
        .iter()
        .filter(|(after_kill, _)| *after_kill)
        .map(|(_, u)| u)
        .collect();
    assert!(!after.is_empty(), "requests ran after the kill");
    assert!(
        after.iter().all(|u| u.ends_with(a.addr.as_str())),
        "every request after the kill was answered by the survivor: {after:?}"
    );
    eprintln!(
        "{total} requests, B killed after {killed_at}; {} started after the kill; {} retried on the survivor by nginx",
        after.len(),
        upstreams.iter().filter(|(_, u)| u.contains(", ")).count()
    );
}
