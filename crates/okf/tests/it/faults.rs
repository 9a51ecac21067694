//! Fault tests of `okf serve` as a real process on loopback: slow-loris clients,
//! clients that abort mid-response, a request storm past the limits, a registry whose index
//! is corrupted on disk, and log lines that requests cannot forge. All bounded in time and
//! connections.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use crate::common::*;
use serde_json::json;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

const QUESTION: &str = "How do I borrow books?";

/// Trickles `bytes` one byte per `gap`, from 127.0.0.3, until `stop` (or the server closes
/// the socket).
fn trickle(addr: String, bytes: Vec<u8>, gap: Duration, stop: Arc<AtomicBool>) {
    let Ok(mut s) = connect_from(&addr, [127, 0, 0, 3]) else {
        return;
    };
    for b in bytes.iter().cycle() {
        if stop.load(Ordering::Relaxed) || s.write_all(&[*b]).is_err() {
            return;
        }
        std::thread::sleep(gap);
    }
}

#[test]
fn slow_loris_on_headers_and_bodies_does_not_delay_a_normal_client() {
    // The lorises' timeouts outlast the test, so they hold their connections throughout.
    let server = Server::start(&["--header-timeout-ms", "20000", "--timeout-ms", "20000"]);
    let stop = Arc::new(AtomicBool::new(false));
    let header_loris = format!("GET /health HTTP/1.1\r\nHost: {}\r\nX-Slow: ", server.addr);
    let body_loris = format!(
        "POST /api/ask HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nContent-Length: 30000\r\n\r\n{{\"question\":\"",
        server.addr
    );
    // 48 header lorises and 72 body lorises: more slow bodies than the 64 processing slots,
    // which a server that reserves a slot while reading a body would hand them all. They
    // come from another address than the normal client, which the per-client budgets keep
    // apart.
    let mut lorises = Vec::new();
    for i in 0..120 {
        let (addr, stop) = (server.addr.clone(), Arc::clone(&stop));
        let header = i < 48;
        let bytes = if header {
            header_loris.clone().into_bytes()
        } else {
            // The head goes at once; the body trickles.
            let mut b = body_loris.clone().into_bytes();
            b.extend(std::iter::repeat_n(b'a', 30_000));
            b
        };
        let gap = Duration::from_millis(if header { 100 } else { 1 });
        lorises.push(std::thread::spawn(move || trickle(addr, bytes, gap, stop)));
    }
    std::thread::sleep(Duration::from_millis(500));
    // For six seconds a normal client keeps getting answers. The bound on each round trip is
    // not a speed target (they take milliseconds): it is half the lorises' timeout, so it
    // tells "answered" from "answered once the lorises were cut off".
    let until = Instant::now() + Duration::from_secs(6);
    let mut answered = 0;
    while Instant::now() < until {
        let started = Instant::now();
        let health = server.request("GET", "/health", &[], b"");
        let ask = server.ask(&json!({"bundle": "example", "question": QUESTION}));
        let took = started.elapsed();
        assert_eq!(health.status, 200);
        assert_eq!(ask.status, 200, "{}", ask.text());
        assert!(
            took < Duration::from_secs(10),
            "two requests waited {took:?}"
        );
        answered += 1;
        std::thread::sleep(Duration::from_millis(100));
    }
    stop.store(true, Ordering::Relaxed);
    for t in lorises {
        t.join().unwrap();
    }
    assert!(answered >= 5, "{answered}");
}

#[test]
fn clients_aborting_mid_response_leave_the_server_serving() {
    let server = Server::start(&[]);
    let body = json!({"bundle": "example", "question": QUESTION}).to_string();
    for i in 0..40 {
        let mut s = TcpStream::connect(&server.addr).unwrap();
        let head = format!(
            "POST /api/ask HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            server.addr,
            body.len()
        );
        s.write_all(head.as_bytes()).unwrap();
        if i % 2 == 0 {
            // Read a little of the response, then hang up with most of it unread.
            let mut first = [0u8; 64];
            let _ = s.read(&mut first);
        }
        drop(s);
    }
    let r = server.ask(&json!({"bundle": "example", "question": QUESTION}));
    assert_eq!(r.status, 200);
    assert_eq!(server.request("GET", "/health", &[], b"").status, 200);
    let log = server.stop();
    assert!(!log.contains("panicked"), "{log}");
}

#[test]
fn a_request_storm_past_the_limits_gets_429_and_health_stays_200() {
    let server = Arc::new(Server::start(&["--rate-limit-per-minute", "60"]));
    let mut workers = Vec::new();
    for w in 0..8 {
        let server = Arc::clone(&server);
        workers.push(std::thread::spawn(move || {
            let mut seen = Vec::new();
            for i in 0..40 {
                let r = match (w + i) % 3 {
                    0 => server.ask(&json!({"bundle": "example", "question": QUESTION})),
                    1 => server.request("GET", "/nope", &[], b""),
                    _ => server.request("GET", "/api/bundles", &[], b""),
                };
                if r.status == 429 {
                    let retry: u64 = r.header("retry-after").unwrap().parse().unwrap();
                    assert!((1..=60).contains(&retry));
                    assert_eq!(r.json()["error"]["code"], "rate_limited");
                }
                seen.push(r.status);
            }
            seen
        }));
    }
    // /health answers 200 throughout the storm.
    for _ in 0..20 {
        assert_eq!(server.request("GET", "/health", &[], b"").status, 200);
        std::thread::sleep(Duration::from_millis(20));
    }
    let statuses: Vec<u16> = workers
        .into_iter()
        .flat_map(|w| w.join().unwrap())
        .collect();
    assert!(statuses.contains(&429), "the storm passed the limits");
    assert!(
        statuses.iter().all(|s| matches!(s, 200 | 404 | 429)),
        "{statuses:?}"
    );
    assert_eq!(server.request("GET", "/health", &[], b"").status, 200);
}

#[test]
fn an_index_corrupted_on_disk_at_start_refuses_that_bundle_and_serves_the_others() {
    let dir = temp_dir("corrupted-registry");
    let original = std::fs::read(example("index.json")).unwrap();
    let sha = |b: &[u8]| okf_engine::canonical::sha256_hex(b);
    std::fs::write(dir.join("good.json"), &original).unwrap();
    // Flipped bytes: the declared digest no longer matches.
    let mut flipped = original.clone();
    flipped[100] ^= 0x20;
    std::fs::write(dir.join("flipped.json"), &flipped).unwrap();
    // Truncated, with the registry declaring the truncated file's own digest.
    let truncated = &original[..original.len() / 2];
    std::fs::write(dir.join("truncated.json"), truncated).unwrap();
    let registry = format!(
        r#"[[bundle]]
id = "good"
index = "good.json"
sha256 = "{good}"
index_url = "https://example.invalid/good.json"

[[bundle]]
id = "flipped"
index = "flipped.json"
sha256 = "{good}"
index_url = "https://example.invalid/flipped.json"

[[bundle]]
id = "truncated"
index = "truncated.json"
sha256 = "{trunc}"
index_url = "https://example.invalid/truncated.json"
"#,
        good = sha(&original),
        trunc = sha(truncated)
    );
    let registry_path = dir.join("registry.toml");
    std::fs::write(&registry_path, registry).unwrap();
    let server = Server::start(&["--registry", registry_path.to_str().unwrap()]);
    let listing = server.request("GET", "/api/bundles", &[], b"");
    assert_eq!(listing.status, 200);
    let text = listing.text();
    assert!(!text.contains(dir.to_str().unwrap()), "no path: {text}");
    let bundles = listing.json()["bundles"].as_array().unwrap().clone();
    let state = |id: &str| {
        bundles
            .iter()
            .find(|b| b["id"] == id)
            .map(|b| (b["state"].clone(), b["versions"][0]["reason"].clone()))
            .unwrap()
    };
    assert_eq!(state("good").0, "ready");
    let (flipped_state, flipped_reason) = state("flipped");
    assert_eq!(flipped_state, "refused");
    assert!(
        flipped_reason.as_str().unwrap().contains("SHA-256"),
        "{flipped_reason}"
    );
    let (truncated_state, truncated_reason) = state("truncated");
    assert_eq!(truncated_state, "refused");
    assert!(
        truncated_reason.as_str().unwrap().contains("not JSON"),
        "{truncated_reason}"
    );
    assert_eq!(
        server
            .ask(&json!({"bundle": "good", "question": QUESTION}))
            .status,
        200
    );
    for id in ["flipped", "truncated"] {
        let r = server.ask(&json!({"bundle": id, "question": QUESTION}));
        assert_eq!(r.status, 503);
        assert_eq!(r.json()["error"]["code"], "bundle_unavailable");
        assert!(r.json()["error"]["message"].as_str().unwrap().contains(id));
    }
    let log = server.stop();
    for id in ["flipped", "truncated"] {
        assert!(
            log.lines()
                .any(|l| l.contains("bundle version refused") && l.contains(id)),
            "{log}"
        );
    }
}

#[test]
fn requests_cannot_forge_or_flood_log_lines() {
    let server = Server::start(&[]);
    let forged = "example\n2026-01-01T00:00:00Z  INFO okf::http: forged status=200\u{0}";
    let r = server.ask(&json!({"bundle": forged, "question": QUESTION}));
    assert_eq!(r.status, 400);
    let r = server.ask(&json!({"bundle": "b".repeat(30_000), "question": QUESTION}));
    assert_eq!(r.status, 400);
    let r = server.mcp(
        &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "ask_okf", "arguments": {"bundle": forged, "question": QUESTION}}}),
        &[],
    );
    assert_eq!(r.status, 200);
    let long_path = format!("/{}", "p".repeat(7_000));
    assert_eq!(server.request("GET", &long_path, &[], b"").status, 404);
    let log = server.stop();
    assert!(
        !log.contains("forged"),
        "an invalid bundle id is never logged: {log}"
    );
    assert!(!log.contains('\u{0}'));
    for line in log.lines() {
        assert!(line.len() < 1_000, "a log line of {} bytes", line.len());
    }
}

fn serve_command() -> std::process::Command {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_okf"));
    command.args(["serve", "--listen", "127.0.0.1:0"]);
    command
}

fn borrow_question() -> serde_json::Value {
    serde_json::json!({"bundle": "example", "question": "How do I borrow books?"})
}

#[test]
fn a_full_log_disk_costs_log_lines_not_requests() {
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .expect("/dev/full");
    let server = Server::spawn_logging_to(serve_command(), full.into());
    for _ in 0..3 {
        assert_eq!(server.ask(&borrow_question()).status, 200);
    }
    let health = server.request("GET", "/health", &[], b"");
    assert_eq!(health.status, 200);
    let health = health.json();
    assert_eq!(health["log"]["ok"], false, "{health}");
    assert!(
        health["log"]["lines_dropped"].as_u64() > Some(0),
        "{health}"
    );
    assert_eq!(health["status"], "degraded", "{health}");
    // The writer takes queued lines in batches, so the last ones may still be on their way;
    // each line (start-up, three asks, /health) is counted once its write was tried.
    let dropped = |metrics: &str| {
        metrics
            .lines()
            .find_map(|l| l.strip_prefix("okf_log_lines_dropped_total "))
            .and_then(|n| n.parse::<u64>().ok())
    };
    let mut metrics = server.request("GET", "/metrics", &[], b"").text();
    for _ in 0..100 {
        if dropped(&metrics) > Some(3) {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
        metrics = server.request("GET", "/metrics", &[], b"").text();
    }
    assert!(dropped(&metrics) > Some(3), "{metrics}");
    server.stop();
}

#[test]
fn a_log_reader_that_stopped_reading_costs_log_lines_not_requests() {
    // A pipe nobody reads: once its buffer (64 KiB on Linux) is full, every write would block.
    let (_reader, writer) = std::io::pipe().expect("a pipe");
    let server = Server::spawn_logging_to(serve_command(), writer.into());
    // About 150 bytes of log per request: well past the pipe buffer.
    for n in 0..2_000 {
        let r = server.request("GET", "/health", &[], b"");
        assert_eq!(r.status, 200, "request {n}");
    }
    // The log writer is blocked on the pipe, and the asks go on.
    assert_eq!(server.ask(&borrow_question()).status, 200);
    server.stop();
}
