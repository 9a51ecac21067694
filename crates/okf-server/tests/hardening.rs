//! Regression tests of the server hardening: each finding of the loopback attack,
//! pinned against the real connection stack (`okf_server::serve` on an ephemeral port) with
//! raw sockets, so framing and header tricks reach the server exactly as sent.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use okf_server::{CacheLimits, HttpConfig, Registry, Service};
use serde_json::{Value, json};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::time::{Duration, Instant};

const INDEX: &str = include_str!("../../okf/example/index.json");
const QUESTION: &str = "How do I borrow books?";

struct Server {
    addr: SocketAddr,
}

/// Starts the server on its own runtime thread; it lives until the test process ends.
fn start(configure: impl FnOnce(&mut HttpConfig) + Send + 'static) -> Server {
    start_with(Registry::example(INDEX).unwrap(), configure)
}

fn start_with(
    registry: Registry,
    configure: impl FnOnce(&mut HttpConfig) + Send + 'static,
) -> Server {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let service = Service::new(registry, CacheLimits::default());
        let _ = runtime.block_on(okf_server::serve(
            service,
            "127.0.0.1:0",
            Box::new(configure),
            okf_server::Lifecycle {
                registry_path: None,
                drain_deadline: Duration::from_secs(10),
            },
            move |addr| {
                let _ = tx.send(addr);
            },
        ));
    });
    Server {
        addr: rx.recv_timeout(Duration::from_secs(30)).unwrap(),
    }
}

#[derive(Debug)]
struct Reply {
    status: u16,
    head: String,
    body: Vec<u8>,
}

impl Reply {
    fn header(&self, name: &str) -> Option<String> {
        self.head.split("\r\n").skip(1).find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.trim()
                .eq_ignore_ascii_case(name)
                .then(|| v.trim().to_owned())
        })
    }
    fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| {
            panic!(
                "not JSON ({e}): {} {}",
                self.status,
                String::from_utf8_lossy(&self.body)
            )
        })
    }
    fn error(&self) -> Value {
        let v = self.json();
        assert!(v["error"]["code"].is_string(), "{v}");
        assert!(v["error"]["message"].is_string(), "{v}");
        v["error"].clone()
    }
}

impl Server {
    fn connect(&self) -> TcpStream {
        let s = TcpStream::connect(self.addr).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
        s
    }

    fn host(&self) -> String {
        self.addr.to_string()
    }

    /// Sends raw bytes on a fresh connection and reads until the server closes it.
    fn raw(&self, bytes: &[u8]) -> Reply {
        let mut s = self.connect();
        s.write_all(bytes).unwrap();
        read_reply(&mut s)
    }

    fn request(&self, method: &str, path: &str, headers: &[(&str, &str)], body: &[u8]) -> Reply {
        self.raw(&self.request_bytes(method, path, headers, body))
    }

    /// A request with `Connection: close` (and Host and Content-Length unless given).
    fn request_bytes(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: &[u8],
    ) -> Vec<u8> {
        let mut head = format!("{method} {path} HTTP/1.1\r\nConnection: close\r\n");
        if !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("host")) {
            head.push_str(&format!("Host: {}\r\n", self.host()));
        }
        if !headers
            .iter()
            .any(|(k, _)| k.eq_ignore_ascii_case("transfer-encoding"))
        {
            head.push_str(&format!("Content-Length: {}\r\n", body.len()));
        }
        for (k, v) in headers {
            head.push_str(&format!("{k}: {v}\r\n"));
        }
        head.push_str("\r\n");
        let mut bytes = head.into_bytes();
        bytes.extend_from_slice(body);
        bytes
    }

    fn get(&self, path: &str) -> Reply {
        self.request("GET", path, &[], b"")
    }

    fn ask_raw(&self, body: &[u8]) -> Reply {
        self.request(
            "POST",
            "/api/ask",
            &[("Content-Type", "application/json")],
            body,
        )
    }

    fn ask(&self, body: &Value) -> Reply {
        self.ask_raw(body.to_string().as_bytes())
    }

    fn mcp_call(&self, arguments: Value) -> Value {
        self.mcp_tool("ask_okf", arguments)
    }

    fn mcp_tool(&self, tool: &str, arguments: Value) -> Value {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": tool, "arguments": arguments}});
        let r = self.request(
            "POST",
            "/mcp",
            &[
                ("Content-Type", "application/json"),
                ("Accept", "application/json, text/event-stream"),
                ("MCP-Protocol-Version", "2025-11-25"),
            ],
            body.to_string().as_bytes(),
        );
        assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
        r.json()["result"].clone()
    }

    /// A POST whose headers promise 100 bytes of body; only `{` is sent.
    fn stalled_post(&self) -> TcpStream {
        let mut s = self.connect();
        let head = format!(
            "POST /api/ask HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nContent-Length: 100\r\nConnection: close\r\n\r\n{{",
            self.host()
        );
        s.write_all(head.as_bytes()).unwrap();
        s
    }
}

fn read_reply(s: &mut TcpStream) -> Reply {
    try_read_reply(s).unwrap_or_else(|e| panic!("{e}"))
}

/// The response on `s`, read until the server closes it; `Err` when there is none (the
/// connection was closed or reset without an answer).
fn try_read_reply(s: &mut TcpStream) -> Result<Reply, String> {
    let mut raw = Vec::new();
    if let Err(e) = s.read_to_end(&mut raw)
        && raw.is_empty()
    {
        return Err(format!("no response: {e}"));
    }
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or_else(|| format!("no response head in {:?}", String::from_utf8_lossy(&raw)))?;
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| format!("no status in {head:?}"))?;
    Ok(Reply {
        status,
        head,
        body: raw[split + 4..].to_vec(),
    })
}

/// Waits until the server closes `s` (read returns 0 or a reset); the elapsed time.
fn time_until_closed(s: &mut TcpStream) -> Duration {
    let started = Instant::now();
    let mut buf = [0u8; 4096];
    loop {
        match s.read(&mut buf) {
            Ok(0) | Err(_) => return started.elapsed(),
            Ok(_) => {}
        }
    }
}

// --- finding 1: idle and header-read timeouts, connection cap -------------------------

#[test]
fn a_silent_connection_is_closed_after_the_header_read_timeout() {
    let server = start(|c| c.header_read_timeout = Duration::from_millis(300));
    let mut s = server.connect();
    let waited = time_until_closed(&mut s);
    assert!(waited < Duration::from_secs(15), "closed after {waited:?}");
}

#[test]
fn a_slow_header_is_closed_after_the_header_read_timeout() {
    let server = start(|c| c.header_read_timeout = Duration::from_millis(300));
    let mut s = server.connect();
    s.write_all(b"GET /health HTTP/1.1\r\nHo").unwrap();
    let waited = time_until_closed(&mut s);
    assert!(waited < Duration::from_secs(15), "closed after {waited:?}");
}

#[test]
fn an_idle_keep_alive_connection_is_closed_after_the_header_read_timeout() {
    let server = start(|c| c.header_read_timeout = Duration::from_millis(300));
    let mut s = server.connect();
    s.write_all(format!("GET /health HTTP/1.1\r\nHost: {}\r\n\r\n", server.host()).as_bytes())
        .unwrap();
    let mut buf = [0u8; 4096];
    let n = s.read(&mut buf).unwrap();
    assert!(String::from_utf8_lossy(&buf[..n]).starts_with("HTTP/1.1 200"));
    let waited = time_until_closed(&mut s);
    assert!(waited < Duration::from_secs(15), "closed after {waited:?}");
}

#[test]
fn connections_over_the_cap_are_closed_at_once() {
    let server = start(|c| {
        c.max_connections = 4;
        c.header_read_timeout = Duration::from_secs(30);
    });
    let held: Vec<TcpStream> = (0..4).map(|_| server.connect()).collect();
    // Accepting is asynchronous: give the server a moment to take the four.
    std::thread::sleep(Duration::from_millis(300));
    let mut over = server.connect();
    let waited = time_until_closed(&mut over);
    assert!(waited < Duration::from_secs(15), "closed after {waited:?}");
    drop(held);
    // The slots come back once the held connections are gone.
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let mut s = server.connect();
        let ok = s
            .write_all(
                format!(
                    "GET /health HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
                    server.host()
                )
                .as_bytes(),
            )
            .is_ok();
        let mut raw = Vec::new();
        let _ = s.read_to_end(&mut raw);
        if ok && raw.starts_with(b"HTTP/1.1 200") {
            break;
        }
        assert!(Instant::now() < deadline, "slots never came back");
        std::thread::sleep(Duration::from_millis(50));
    }
}

// --- finding 2: slow bodies cannot starve the processing slots ------------------------

#[test]
fn slow_bodies_do_not_take_processing_slots() {
    let server = start(|c| {
        c.max_concurrent = 1;
        c.max_reading = 8;
    });
    let stalled: Vec<TcpStream> = (0..4).map(|_| server.stalled_post()).collect();
    std::thread::sleep(Duration::from_millis(200));
    let r = server.ask(&json!({"bundle": "example", "question": QUESTION}));
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    assert_eq!(server.get("/health").status, 200);
    drop(stalled);
}

#[test]
fn a_full_reading_budget_answers_429_and_spares_complete_gets() {
    let server = start(|c| c.max_reading = 1);
    let stalled = server.stalled_post();
    std::thread::sleep(Duration::from_millis(200));
    let r = server.ask(&json!({"bundle": "example", "question": QUESTION}));
    assert_eq!(r.status, 429);
    assert_eq!(r.error()["code"], "rate_limited");
    assert!(r.header("retry-after").is_some());
    assert_eq!(server.get("/api/bundles").status, 200);
    assert_eq!(server.get("/health").status, 200);
    drop(stalled);
}

#[test]
fn no_processing_slot_answers_429_with_retry_after_but_health_answers() {
    let server = start(|c| c.max_concurrent = 0);
    let r = server.get("/api/bundles");
    assert_eq!(r.status, 429);
    assert_eq!(r.header("retry-after").as_deref(), Some("1"));
    assert_eq!(server.get("/health").status, 200);
}

#[test]
fn a_stalled_body_times_out_with_408() {
    let server = start(|c| c.request_timeout = Duration::from_millis(300));
    let mut s = server.stalled_post();
    let r = read_reply(&mut s);
    assert_eq!(r.status, 408);
    assert_eq!(r.error()["code"], "request_timeout");
}

// --- finding 3: the rate limit spares /health and counts per route class ------------

#[test]
fn rate_limit_spares_health_and_counts_per_route_class() {
    let server = start(|c| c.rate_limit = Some((3, Duration::from_secs(60))));
    for _ in 0..3 {
        assert_eq!(server.get("/nope").status, 404);
    }
    let r = server.get("/nope");
    assert_eq!(r.status, 429);
    let seconds: u64 = r.header("retry-after").unwrap().parse().unwrap();
    assert!((1..=60).contains(&seconds));
    for _ in 0..10 {
        assert_eq!(server.get("/health").status, 200, "health is never limited");
    }
    // Asks have their own window: the 404 flood did not use it up.
    for _ in 0..3 {
        let r = server.ask(&json!({"bundle": "example", "question": QUESTION}));
        assert_eq!(r.status, 200);
    }
    assert_eq!(
        server
            .ask(&json!({"bundle": "example", "question": QUESTION}))
            .status,
        429
    );
}

#[test]
fn a_low_rate_limit_still_lets_the_whole_page_load_and_leaves_the_windows_untouched() {
    let server = start(|c| c.rate_limit = Some((3, Duration::from_secs(60))));
    // Every file of the page: both pages and every asset they load, from the versioned
    // directory the page names (and by bare name, for links from outside).
    let page = String::from_utf8(server.get("/").body).unwrap();
    let start = page.find("/assets/").unwrap();
    let end = start + "/assets/".len() + page[start + "/assets/".len()..].find('/').unwrap();
    let versioned = &page[start..=end];
    let web = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../web");
    let mut paths = vec!["/".to_owned(), "/evidence/".to_owned()];
    for entry in std::fs::read_dir(web).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        // okf.wasm.rustc records which compiler built okf.wasm; .br and .gz are the module's
        // compressed forms, sent in its place.
        let served = [".html", ".rustc", ".br", ".gz"]
            .iter()
            .all(|ext| !name.ends_with(ext));
        if served {
            paths.push(format!("{versioned}{name}"));
            paths.push(format!("/assets/{name}"));
        }
    }
    assert!(paths.len() > 24, "{paths:?}");
    for path in &paths {
        assert_eq!(server.get(path).status, 200, "{path}");
    }
    // Neither window was used: three 404s and three asks are still answered.
    for _ in 0..3 {
        assert_eq!(server.get("/nope").status, 404);
        let r = server.ask(&json!({"bundle": "example", "question": QUESTION}));
        assert_eq!(r.status, 200);
    }
    assert_eq!(server.get("/nope").status, 429);
}

// --- finding 5: strict request decoding, shared by HTTP and MCP ----------------------

#[test]
fn schema_violating_ask_bodies_are_400_naming_the_field() {
    let server = start(|_| {});
    let cases: [(&[u8], &str, &str); 10] = [
        (br#"["example","prison"]"#, "invalid_request", "body"),
        (br#""example""#, "invalid_request", "body"),
        // null means absent, so a required field given as null is missing.
        (
            br#"{"bundle":null,"question":"q"}"#,
            "invalid_request",
            "bundle",
        ),
        (
            br#"{"bundle":"nope","bundle":"example","question":"q"}"#,
            "invalid_json",
            "body",
        ),
        (
            br#"{"bundle":"example","question":"q","budget":{"max_records":1,"max_records":2}}"#,
            "invalid_json",
            "body",
        ),
        (
            br#"{"bundle":"example","question":7}"#,
            "invalid_request",
            "question",
        ),
        (
            br#"{"bundle":["example"],"question":"q"}"#,
            "invalid_request",
            "bundle",
        ),
        (br#"{"bundle":"example"}"#, "invalid_request", "question"),
        (
            br#"{"bundle":"example","question":"q","url":"x"}"#,
            "invalid_request",
            "url",
        ),
        (
            br#"{"bundle":"example","question":"q","budget":[1]}"#,
            "invalid_request",
            "budget",
        ),
    ];
    for (body, code, field) in cases {
        let r = server.ask_raw(body);
        let text = String::from_utf8_lossy(body);
        assert_eq!(r.status, 400, "{text}");
        let error = r.error();
        assert_eq!(error["code"], code, "{text}: {error}");
        assert_eq!(error["field"], field, "{text}: {error}");
        let message = error["message"].as_str().unwrap();
        for rust in ["struct", "AskRequest", "Option<", "elements"] {
            assert!(!message.contains(rust), "{text}: {message}");
        }
    }
}

#[test]
fn an_unknown_field_is_refused_whatever_its_value_with_the_same_code_and_field_on_http_and_mcp() {
    let server = start(|_| {});
    for (body, field) in [
        (
            json!({"bundle": "example", "question": QUESTION, "bogus": null}),
            "bogus",
        ),
        (
            json!({"bundle": "example", "question": QUESTION, "bogus": 1}),
            "bogus",
        ),
        (
            json!({"bundle": "example", "question": QUESTION, "budget": {"bogus": null}}),
            "budget.bogus",
        ),
    ] {
        let http = server.ask(&body);
        assert_eq!(http.status, 400, "{body}");
        let error = http.error();
        let code = error["code"].as_str().unwrap();
        assert!(
            ["invalid_request", "invalid_budget"].contains(&code),
            "{body}: {error}"
        );
        let result = server.mcp_call(body.clone());
        assert_eq!(result["isError"], true, "{body}: {result}");
        let text = result["content"][0]["text"].as_str().unwrap();
        assert!(
            text.starts_with(&format!(
                "{code} (field {})",
                error["field"].as_str().unwrap()
            )),
            "{body}: the same code and field as HTTP ({error}): {text}"
        );
        assert!(
            error["field"]
                .as_str()
                .unwrap()
                .ends_with(field.rsplit('.').next().unwrap()),
            "{body}: {error}"
        );
    }
}

#[test]
fn optional_fields_given_as_null_are_absent_on_http_and_mcp() {
    let server = start(|_| {});
    let plain = json!({"bundle": "example", "question": "How do I borrow books?"});
    let expected = server.ask(&plain);
    assert_eq!(expected.status, 200);
    // What a strict function-calling client must send: every field, unused ones null.
    let strict = json!({"bundle": "example", "question": "How do I borrow books?", "version": null, "as_of": null, "profile": null,
        "budget": {"max_nodes": null, "max_relationships": null, "max_depth": null, "max_bytes": null}});
    let with_budget_null = json!({"bundle": "example", "question": "How do I borrow books?", "version": null, "as_of": null, "profile": null, "budget": null});
    for body in [&strict, &with_budget_null] {
        let r = server.ask(body);
        assert_eq!(r.status, 200, "{body}");
        assert_eq!(r.body, expected.body, "{body}");
        let result = server.mcp_call(body.clone());
        assert_eq!(result["isError"], false, "{result}");
        assert_eq!(result["structuredContent"], expected.json(), "{body}");
    }
    // The delivery tools replay the same package from the strict spelling of their fields.
    let context_id = expected.json()["context_id"].clone();
    let mut manifest = strict.clone();
    for key in ["context_id", "offset", "delivery_bytes"] {
        manifest[key] = Value::Null;
    }
    let page = server.mcp_tool("ask_okf_manifest", manifest);
    assert_eq!(page["isError"], false, "{page}");
    assert_eq!(
        page["structuredContent"]["context_id"], context_id,
        "{page}"
    );
    let mut read = strict.clone();
    read["context_id"] = context_id.clone();
    read["section"] = json!("package");
    for key in ["record_id", "offset", "delivery_bytes"] {
        read[key] = Value::Null;
    }
    let slice = server.mcp_tool("read_okf_evidence", read);
    assert_eq!(slice["isError"], false, "{slice}");
    assert_eq!(
        slice["structuredContent"]["context_id"], context_id,
        "{slice}"
    );
}

#[test]
fn a_date_on_a_bundle_with_no_dated_version_asks_its_default_version() {
    // The embedded example's registry dates no version, so it has one version in force at
    // every date (it was a 404 while as_of only chose among published versions).
    let server = start(|_| {});
    let plain = server.ask(&json!({"bundle": "example", "question": "How do I borrow books?"}));
    for date in ["1990-01-01", "2026-12-03"] {
        let dated = server.ask(
            &json!({"bundle": "example", "question": "How do I borrow books?", "as_of": date}),
        );
        assert_eq!(dated.status, 200, "{date}");
        assert_eq!(
            dated.body, plain.body,
            "{date}: the example declares no regimes, so the date changes nothing"
        );
    }
}

#[test]
fn a_date_before_every_held_version_gets_the_default_version_with_an_issue_naming_both_dates() {
    // Issue 40: a bundle whose only version was published 2026-09-16. A question about an
    // earlier date used to be a 404 unknown_version; it gets the package of the version the
    // registry serves by default, insufficient, with an issue naming the question date and the
    // version's published date. A version name that does not exist is still unknown_version.
    let dir = std::env::temp_dir().join(format!("okf-harden-dated-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("index.json"), INDEX).unwrap();
    let registry_path = dir.join("registry.toml");
    std::fs::write(
        &registry_path,
        format!(
            r#"[[bundle]]
id = "dated"
index = "index.json"
sha256 = "{sha}"
index_url = "https://example.invalid/index.json"
published = "2026-09-16"
"#,
            sha = okf_engine::canonical::sha256_hex(INDEX.as_bytes())
        ),
    )
    .unwrap();
    let server = start_with(Registry::load(&registry_path).unwrap(), |_| {});
    let plain = server.ask(&json!({"bundle": "dated", "question": QUESTION}));
    assert_eq!(plain.status, 200);
    assert_eq!(plain.json()["evidence_status"], "sufficient");
    for date in ["2000-01-01", "2026-09-15"] {
        let r = server.ask(&json!({"bundle": "dated", "question": QUESTION, "as_of": date}));
        assert_eq!(
            r.status,
            200,
            "{date}: {}",
            String::from_utf8_lossy(&r.body)
        );
        let p = r.json();
        assert_eq!(p["evidence_status"], "insufficient", "{date}");
        let issues: Vec<&Value> = p["missing_evidence"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|i| i["code"] == "question_date_outside_versions")
            .collect();
        assert_eq!(issues.len(), 1, "{date}: {}", p["missing_evidence"]);
        let message = issues[0]["message"].as_str().unwrap();
        assert!(message.contains(date), "{message}");
        assert!(message.contains("published 2026-09-16"), "{message}");
        // Same records as the plain package: it is the same version.
        assert_eq!(p["selected"], plain.json()["selected"], "{date}");
    }
    // On and after the version's date it is in force: no issue, the plain package's status.
    for date in ["2026-09-16", "2030-01-01"] {
        let r = server.ask(&json!({"bundle": "dated", "question": QUESTION, "as_of": date}));
        assert_eq!(r.status, 200, "{date}");
        assert_eq!(r.json()["evidence_status"], "sufficient", "{date}");
    }
    let unknown = server.ask(&json!({"bundle": "dated", "question": QUESTION, "version": "nope"}));
    assert_eq!(unknown.status, 404);
    assert_eq!(unknown.error()["code"], "unknown_version");
}

#[test]
fn mcp_ask_okf_uses_the_same_strict_decoder() {
    let server = start(|_| {});
    for (arguments, field) in [
        (json!({"bundle": "example", "question": null}), "question"),
        (
            json!({"bundle": "example", "question": "q", "version": 3}),
            "version",
        ),
        (
            json!({"bundle": "example\nINFO forged", "question": "q"}),
            "bundle",
        ),
        (json!({"bundle": "example", "question": 1}), "question"),
    ] {
        let result = server.mcp_call(arguments.clone());
        assert_eq!(result["isError"], true, "{arguments}");
        let text = result["content"][0]["text"].as_str().unwrap();
        assert!(text.starts_with("invalid_request"), "{text}");
        assert!(text.contains(&format!("(field {field})")), "{text}");
        assert!(!text.contains("struct"), "{text}");
    }
}

// --- finding 6: no file-system detail in any response --------------------------------

#[test]
fn refused_versions_are_listed_without_file_system_paths() {
    let dir = std::env::temp_dir().join(format!("okf-harden-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let registry_path = dir.join("registry.toml");
    std::fs::write(
        &registry_path,
        format!(
            r#"[[bundle]]
id = "ghost"
index = "/nonexistent/secret/dir/index.json"
sha256 = "{zeros}"
index_url = "https://example.invalid/index.json"

[[bundle]]
id = "device"
index = "/dev/zero"
sha256 = "{zeros}"
index_url = "https://example.invalid/index.json"
"#,
            zeros = "0".repeat(64)
        ),
    )
    .unwrap();
    let registry = Registry::load(&registry_path).unwrap();
    let server = start_with(registry, |_| {});
    let r = server.get("/api/bundles");
    assert_eq!(r.status, 200);
    let text = String::from_utf8_lossy(&r.body).into_owned();
    for leak in [
        "/nonexistent",
        "secret",
        "/dev/zero",
        "os error",
        "No such file",
    ] {
        assert!(!text.contains(leak), "{leak} in {text}");
    }
    let reasons: Vec<String> = r.json()["bundles"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["versions"][0]["reason"].as_str().unwrap().to_owned())
        .collect();
    assert!(
        reasons.iter().any(|r| r.contains("does not exist")),
        "{reasons:?}"
    );
    assert!(
        reasons.iter().any(|r| r.contains("not a regular file")),
        "{reasons:?}"
    );
}

// --- finding 7: [::1] origins ---------------------------------------------------------

#[test]
fn the_page_served_on_ipv6_loopback_may_ask() {
    let server = start(|_| {});
    let port = server.addr.port();
    let host = format!("[::1]:{port}");
    let origin = format!("http://[::1]:{port}");
    let body = json!({"bundle": "example", "question": QUESTION}).to_string();
    let r = server.request(
        "POST",
        "/api/ask",
        &[
            ("Host", &host),
            ("Origin", &origin),
            ("Content-Type", "application/json"),
        ],
        body.as_bytes(),
    );
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
}

// --- finding 8: every error is a JSON body --------------------------------------------

#[test]
fn every_error_is_a_json_body_with_code_and_message() {
    let server = start(|_| {});
    let long_path = format!("/{}", "a".repeat(9000));
    let big_header = "b".repeat(20_000);
    let cases = [
        (server.request("DELETE", "/api/ask", &[], b""), 405),
        (
            server.request(
                "POST",
                "/health",
                &[("Content-Type", "application/json")],
                b"{}",
            ),
            405,
        ),
        (server.request("PUT", "/api/bundles", &[], b""), 405),
        (server.get("/assets/x"), 404),
        (server.get("/nope"), 404),
        (server.get(&long_path), 414),
        (
            server.request("GET", "/health", &[("X-Big", &big_header)], b""),
            431,
        ),
    ];
    for (r, status) in cases {
        assert_eq!(r.status, status, "{}", r.head);
        assert_eq!(
            r.header("content-type").as_deref(),
            Some("application/json"),
            "{}",
            r.head
        );
        r.error();
    }
    // On /mcp, errors are JSON-RPC error objects, the transport's own included.
    let r = server.request("GET", "/mcp", &[], b"");
    assert_eq!(r.status, 405, "{}", r.head);
    assert_eq!(
        r.header("content-type").as_deref(),
        Some("application/json")
    );
    assert_eq!(r.json()["error"]["code"], -32600, "{}", r.json());
    assert_eq!(r.json()["jsonrpc"], "2.0");
}

#[test]
fn a_malformed_chunked_body_is_400_not_413() {
    let server = start(|_| {});
    let r = server.raw(
        format!(
            "POST /api/ask HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\nzz\r\n{{}}\r\n0\r\n\r\n",
            server.host()
        )
        .as_bytes(),
    );
    assert_eq!(r.status, 400, "{}", r.head);
    assert_eq!(r.error()["code"], "malformed_body");
}

#[test]
fn a_header_block_past_the_hard_limit_is_refused() {
    let server = start(|_| {});
    // 100 KB and 300 KB fit hyper's default read buffer (about 400 KB), so a server without
    // its own head limit answers them 200; 500 KB is past even that buffer.
    for size in [100_000, 300_000, 500_000] {
        let huge = "c".repeat(size);
        let mut s = server.connect();
        let head = format!(
            "GET /health HTTP/1.1\r\nHost: {}\r\nX-Huge: {huge}\r\n\r\n",
            server.host()
        );
        // The server may close before reading it all; what it answers, if anything, is 431.
        let _ = s.write_all(head.as_bytes());
        let mut raw = Vec::new();
        let _ = s.read_to_end(&mut raw);
        assert!(
            raw.is_empty() || raw.starts_with(b"HTTP/1.1 431"),
            "{size}: {:?}",
            String::from_utf8_lossy(&raw[..raw.len().min(80)])
        );
    }
}

// --- finding 9: Host port, duplicate Host/Origin, Transfer-Encoding ---------------------

#[test]
fn a_host_with_a_malformed_port_is_refused() {
    let server = start(|_| {});
    for host in [
        "127.0.0.1:80@attacker.example",
        "127.0.0.1:0",
        "127.0.0.1:65536",
        "127.0.0.1:",
        "127.0.0.1:8a",
        "[::1]x",
        "[::1]:80:80",
    ] {
        let r = server.request("GET", "/api/bundles", &[("Host", host)], b"");
        assert_eq!(r.status, 403, "{host}");
        assert_eq!(r.error()["field"], "Host", "{host}");
    }
    let port = server.addr.port().to_string();
    for host in [
        format!("127.0.0.1:{port}"),
        "localhost".into(),
        format!("[::1]:{port}"),
    ] {
        assert_eq!(
            server
                .request("GET", "/api/bundles", &[("Host", &host)], b"")
                .status,
            200,
            "{host}"
        );
    }
}

#[test]
fn duplicate_host_or_origin_headers_are_refused() {
    let server = start(|_| {});
    let host = server.host();
    let origin = format!("http://{host}");
    let r = server.request(
        "GET",
        "/api/bundles",
        &[("Host", &host), ("Host", "attacker.example")],
        b"",
    );
    assert_eq!(r.status, 400);
    assert_eq!(r.error()["field"], "Host");
    let r = server.request(
        "GET",
        "/api/bundles",
        &[("Origin", &origin), ("Origin", "https://attacker.example")],
        b"",
    );
    assert_eq!(r.status, 400);
    assert_eq!(r.error()["field"], "Origin");
}

#[test]
fn transfer_codings_other_than_chunked_are_501() {
    let server = start(|_| {});
    let body = json!({"bundle": "example", "question": QUESTION}).to_string();
    let chunked = format!("{:x}\r\n{body}\r\n0\r\n\r\n", body.len());
    for codings in [&["gzip, chunked"][..], &["gzip", "chunked"][..]] {
        let mut head = format!(
            "POST /api/ask HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nConnection: close\r\n",
            server.host()
        );
        for c in codings {
            head.push_str(&format!("Transfer-Encoding: {c}\r\n"));
        }
        let r = server.raw(format!("{head}\r\n{chunked}").as_bytes());
        assert_eq!(r.status, 501, "{codings:?}");
        assert_eq!(r.error()["field"], "Transfer-Encoding");
    }
    // Plain chunked is fine.
    let r = server.raw(
        format!(
            "POST /api/ask HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n{chunked}",
            server.host()
        )
        .as_bytes(),
    );
    assert_eq!(r.status, 200);
}

#[test]
fn content_length_with_transfer_encoding_never_keeps_the_connection() {
    // hyper drops Content-Length when Transfer-Encoding is present (RFC 9112 §6.1) before
    // the application sees the request, and closes the connection after the response, so
    // nothing smuggled after the chunked body is ever read as a second request.
    let server = start(|_| {});
    let host = server.host();
    let smuggled = format!("GET /health HTTP/1.1\r\nHost: {host}\r\n\r\n");
    let mut s = server.connect();
    s.write_all(
        format!(
            "POST /api/ask HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n{smuggled}"
        )
        .as_bytes(),
    )
    .unwrap();
    let mut raw = Vec::new();
    let _ = s.read_to_end(&mut raw);
    let text = String::from_utf8_lossy(&raw);
    assert_eq!(text.matches("HTTP/1.1 ").count(), 1, "{text}");
}

// --- per-client fairness: one client address cannot starve the others ------------------

/// The flooding client and another one. Linux routes all of 127.0.0.0/8 to `lo`, so a socket
/// bound to either reaches the server on 127.0.0.1 with its own peer address.
const HOSTILE: [u8; 4] = [127, 0, 0, 1];
const OTHER: [u8; 4] = [127, 0, 0, 2];

// The only lines that name the per-client settings.
fn client_rate(c: &mut HttpConfig, per_minute: u32) {
    c.client_rate_limit = Some(per_minute);
}
fn client_connections(c: &mut HttpConfig, most: usize) {
    c.client_max_connections = Some(most);
}
fn trust(c: &mut HttpConfig, proxy: &str) {
    c.trusted_proxies.push(proxy.parse().unwrap());
}

thread_local! {
    /// Drives the connects of one test thread (`TcpSocket` binds before it connects).
    static CONNECTOR: tokio::runtime::Runtime = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .build()
        .unwrap();
}

impl Server {
    /// A blocking connection from `source`.
    fn connect_from(&self, source: [u8; 4]) -> std::io::Result<TcpStream> {
        let addr = self.addr;
        CONNECTOR.with(|runtime| {
            runtime.block_on(async move {
                let socket = tokio::net::TcpSocket::new_v4()?;
                socket.bind(SocketAddr::from((source, 0)))?;
                let stream = socket.connect(addr).await?.into_std()?;
                stream.set_nonblocking(false)?;
                stream.set_read_timeout(Some(Duration::from_secs(20)))?;
                Ok(stream)
            })
        })
    }

    /// One request from `source` on a fresh connection; `Err` when it was not answered.
    fn request_from(
        &self,
        source: [u8; 4],
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: &[u8],
    ) -> Result<Reply, String> {
        let mut s = self
            .connect_from(source)
            .map_err(|e| format!("connect: {e}"))?;
        s.write_all(&self.request_bytes(method, path, headers, body))
            .map_err(|e| format!("write: {e}"))?;
        try_read_reply(&mut s)
    }

    fn ask_from(&self, source: [u8; 4]) -> Result<Reply, String> {
        let body = json!({"bundle": "example", "question": QUESTION}).to_string();
        let json = [("Content-Type", "application/json")];
        self.request_from(source, "POST", "/api/ask", &json, body.as_bytes())
    }

    fn mcp_from(&self, source: [u8; 4]) -> Result<Reply, String> {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "ask_okf", "arguments": {"bundle": "example", "question": QUESTION}}});
        let headers = [
            ("Content-Type", "application/json"),
            ("Accept", "application/json, text/event-stream"),
            ("MCP-Protocol-Version", "2025-11-25"),
        ];
        self.request_from(
            source,
            "POST",
            "/mcp",
            &headers,
            body.to_string().as_bytes(),
        )
    }

    /// Whether a new body-less POST from `source` is refused at once (429, or the connection
    /// closed) rather than left waiting for its body.
    fn stalled_post_refused(&self, source: [u8; 4]) -> bool {
        let Ok(mut s) = self.connect_from(source) else {
            return true;
        };
        let _ = s.write_all(self.stalled_head().as_bytes());
        s.set_read_timeout(Some(Duration::from_millis(500)))
            .unwrap();
        let mut buf = [0u8; 64];
        match s.read(&mut buf) {
            Ok(0) => true,
            Ok(n) => buf[..n].starts_with(b"HTTP/1.1 429"),
            Err(e) => !matches!(
                e.kind(),
                std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
            ),
        }
    }

    fn stalled_head(&self) -> String {
        format!(
            "POST /api/ask HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{{",
            self.host()
        )
    }

    /// Whether a new connection from `source` is closed without a request being sent.
    fn connection_refused(&self, source: [u8; 4]) -> bool {
        let Ok(mut s) = self.connect_from(source) else {
            return true;
        };
        s.set_read_timeout(Some(Duration::from_millis(500)))
            .unwrap();
        let mut buf = [0u8; 64];
        // Anything but a timeout (the end, a reset, even bytes) means it was not kept open.
        match s.read(&mut buf) {
            Ok(_n) => true,
            Err(e) => !matches!(
                e.kind(),
                std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
            ),
        }
    }
}

/// Sends until a request is answered 429 (at most `most` tries); how many were answered
/// before it.
fn flood_until_429(most: usize, mut send: impl FnMut() -> Result<Reply, String>) -> usize {
    for admitted in 0..most {
        let r = send().unwrap();
        if r.status == 429 {
            return admitted;
        }
        assert!(
            r.status < 500,
            "{} {}",
            r.status,
            String::from_utf8_lossy(&r.body)
        );
    }
    panic!("{most} requests and none was refused");
}

/// How long the hostile connections in the starvation tests may hold the server: their
/// header and request timeouts are set this long, so a server that made another address wait
/// for them would answer it no sooner.
const HOSTILE_HOLD: Duration = Duration::from_secs(30);

/// Asserts that `r` is a 200 that was not held back behind the hostile connections. What the
/// old code did was refuse such asks (429) or close the connection; the time bound only
/// tells "answered" from "answered once the hostile connections timed out", so it is half
/// of [`HOSTILE_HOLD`], not a speed target (these asks take milliseconds, about a second on
/// a loaded two-core CI machine).
fn answered_before_the_hostile_timeout(r: Result<Reply, String>, took: Duration, what: &str) {
    let r = r.unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(
        r.status,
        200,
        "{what}: {}",
        String::from_utf8_lossy(&r.body)
    );
    assert!(took < HOSTILE_HOLD / 2, "{what} waited {took:?}");
}

#[test]
fn a_404_flood_from_one_address_leaves_another_addresses_gets_answered() {
    let server = start(|c| client_rate(c, 20));
    let admitted = flood_until_429(100, || {
        server.request_from(HOSTILE, "GET", "/nope", &[], b"")
    });
    assert_eq!(admitted, 20);
    let own = server.request_from(HOSTILE, "GET", "/api/bundles", &[], b"");
    assert_eq!(own.unwrap().status, 429, "the flood used up its own window");
    let other = server
        .request_from(OTHER, "GET", "/api/bundles", &[], b"")
        .unwrap();
    assert_eq!(
        other.status,
        200,
        "{}",
        String::from_utf8_lossy(&other.body)
    );
}

#[test]
fn an_ask_flood_from_one_address_leaves_another_addresses_asks_and_mcp_answered() {
    let server = start(|c| client_rate(c, 10));
    let admitted = flood_until_429(50, || server.ask_from(HOSTILE));
    assert_eq!(admitted, 10);
    assert_eq!(server.mcp_from(HOSTILE).unwrap().status, 429, "same class");
    for (what, r) in [
        ("ask", server.ask_from(OTHER)),
        ("mcp", server.mcp_from(OTHER)),
    ] {
        let r = r.unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(
            r.status,
            200,
            "{what}: {}",
            String::from_utf8_lossy(&r.body)
        );
    }
}

#[test]
fn three_hundred_slow_bodies_from_one_address_leave_another_addresses_ask_answered() {
    // The shipped limits: per client 32 of the 256 bodies being received, 128 of the 1,024
    // connections; only the timeouts are lengthened, so the stalled bodies outlast the asks.
    let server = start(|c| {
        c.header_read_timeout = HOSTILE_HOLD;
        c.request_timeout = HOSTILE_HOLD;
    });
    let head = server.stalled_head();
    let stalled: Vec<TcpStream> = (0..300)
        .filter_map(|_| {
            let mut s = server.connect_from(HOSTILE).ok()?;
            let _ = s.write_all(head.as_bytes());
            Some(s)
        })
        .collect();
    // Accepting is asynchronous: wait until the flooding address is refused itself, i.e. it
    // holds all the server lets it hold.
    let full = (0..40).any(|_| server.stalled_post_refused(HOSTILE));
    assert!(full, "the slow bodies were never refused");
    for _ in 0..5 {
        let started = Instant::now();
        let r = server.ask_from(OTHER);
        answered_before_the_hostile_timeout(r, started.elapsed(), "ask from another address");
    }
    drop(stalled);
}

#[test]
fn a_reconnect_storm_from_one_address_leaves_another_addresses_ask_answered() {
    let server = start(|c| {
        c.max_connections = 64;
        c.header_read_timeout = HOSTILE_HOLD;
        client_connections(c, 8);
    });
    let held: Vec<TcpStream> = (0..200)
        .filter_map(|_| server.connect_from(HOSTILE).ok())
        .collect();
    let full = (0..40).any(|_| server.connection_refused(HOSTILE));
    assert!(full, "the storm's connections were never refused");
    // Keep reconnecting from the same address while the other one asks.
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let storm = {
        let (stop, addr) = (std::sync::Arc::clone(&stop), server.addr);
        std::thread::spawn(move || {
            let server = Server { addr };
            let mut connects = 0;
            while connects < 2_000 && !stop.load(std::sync::atomic::Ordering::Relaxed) {
                drop(server.connect_from(HOSTILE));
                connects += 1;
            }
            connects
        })
    };
    for _ in 0..5 {
        let started = Instant::now();
        let r = server.ask_from(OTHER);
        answered_before_the_hostile_timeout(r, started.elapsed(), "ask from another address");
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    assert!(storm.join().unwrap() > 0);
    drop(held);
}

#[test]
fn forwarded_for_from_an_untrusted_peer_is_ignored() {
    let server = start(|c| client_rate(c, 5));
    let mut n = 0;
    let admitted = flood_until_429(20, || {
        n += 1;
        let claimed = format!("10.9.0.{n}");
        let headers = [("X-Forwarded-For", claimed.as_str())];
        server.request_from(HOSTILE, "GET", "/nope", &headers, b"")
    });
    assert_eq!(admitted, 5, "a new X-Forwarded-For gave no new budget");
}

#[test]
fn forwarded_for_from_a_trusted_proxy_gives_each_client_its_own_budget() {
    let server = start(|c| {
        client_rate(c, 5);
        trust(c, "127.0.0.1");
    });
    let behind = |client: &str| {
        let headers = [("X-Forwarded-For", client)];
        server.request_from(HOSTILE, "GET", "/nope", &headers, b"")
    };
    assert_eq!(flood_until_429(20, || behind("198.51.100.1")), 5);
    assert_eq!(
        behind("198.51.100.2").unwrap().status,
        404,
        "its own budget"
    );
    assert_eq!(behind("198.51.100.1").unwrap().status, 429);
    // The proxy's own requests (no header) count as the proxy's address.
    let own = server.request_from(HOSTILE, "GET", "/nope", &[], b"");
    assert_eq!(own.unwrap().status, 404);
}

#[test]
fn a_refusal_before_a_keep_alive_post_body_is_read_says_connection_close() {
    let server = start(|c| {
        c.rate_limit = Some((1, Duration::from_secs(60)));
        c.header_read_timeout = Duration::from_secs(2);
    });
    assert_eq!(server.ask_from(OTHER).unwrap().status, 200);
    let body = json!({"bundle": "example", "question": QUESTION}).to_string();
    for (content_type, status) in [("application/json", 429), ("text/plain", 415)] {
        let mut s = server.connect_from(OTHER).unwrap();
        let request = format!(
            "POST /api/ask HTTP/1.1\r\nHost: {}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n\r\n{body}",
            server.host(),
            body.len()
        );
        s.write_all(request.as_bytes()).unwrap();
        let r = read_reply(&mut s);
        assert_eq!(r.status, status);
        assert_eq!(
            r.header("connection").as_deref(),
            Some("close"),
            "{content_type}: {}",
            r.head
        );
    }
}

// --- the fourth attack's smaller findings ------------------------------------------------

#[test]
fn replays_that_assemble_share_the_ask_window() {
    let server = start(|c| c.rate_limit = Some((3, Duration::from_secs(60))));
    let ask = json!({"bundle": "example", "question": QUESTION});
    let post = |path: &str, body: &Value| {
        server.request(
            "POST",
            path,
            &[("Content-Type", "application/json")],
            body.to_string().as_bytes(),
        )
    };
    let package = post("/api/ask", &ask);
    assert_eq!(package.status, 200);
    let mut replay = ask.clone();
    replay["context_id"] = package.json()["context_id"].clone();
    assert_eq!(post("/api/catalogue", &replay).status, 200);
    let mut read = replay.clone();
    read["section"] = json!("diagnostics");
    assert_eq!(post("/api/read", &read).status, 200);
    // Three requests of the ask window: a fourth replay is refused like a fourth ask.
    assert_eq!(post("/api/catalogue", &replay).status, 429);
    assert_eq!(post("/api/ask", &ask).status, 429);
    // The other window is untouched.
    assert_eq!(server.get("/nope").status, 404);
}

#[test]
fn a_client_that_accepts_no_coding_gets_406_before_anything_is_assembled() {
    let server = start(|_| {});
    for refusal in ["identity;q=0", "*;q=0", "identity;q=0, deflate"] {
        let r = server.request(
            "POST",
            "/api/ask",
            &[
                ("Content-Type", "application/json"),
                ("Accept-Encoding", refusal),
            ],
            json!({"bundle": "example", "question": QUESTION})
                .to_string()
                .as_bytes(),
        );
        assert_eq!(r.status, 406, "{refusal}");
        let error = r.error();
        assert_eq!(error["code"], "not_acceptable");
        assert_eq!(error["field"], "Accept-Encoding");
        assert!(
            r.body.len() < 300,
            "no package in the body: {}",
            r.body.len()
        );
    }
    let metrics = String::from_utf8(server.get("/metrics").body).unwrap();
    assert!(
        !metrics
            .lines()
            .any(|l| l.starts_with("okf_assemblies_total{") && !l.ends_with(" 0")),
        "nothing was assembled:\n{metrics}"
    );
    // identity refused but gzip accepted: answered, compressed.
    let r = server.request(
        "POST",
        "/api/ask",
        &[
            ("Content-Type", "application/json"),
            ("Accept-Encoding", "identity;q=0, gzip"),
        ],
        json!({"bundle": "example", "question": QUESTION})
            .to_string()
            .as_bytes(),
    );
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-encoding").as_deref(), Some("gzip"));
}

#[test]
fn content_encoding_identity_is_the_body_as_sent_and_two_authorization_headers_are_400() {
    let server = start(|_| {});
    let body = json!({"bundle": "example", "question": QUESTION}).to_string();
    let r = server.request(
        "POST",
        "/api/ask",
        &[
            ("Content-Type", "application/json"),
            ("Content-Encoding", "identity"),
        ],
        body.as_bytes(),
    );
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    let r = server.request(
        "POST",
        "/api/ask",
        &[
            ("Content-Type", "application/json"),
            ("Content-Encoding", "gzip"),
        ],
        body.as_bytes(),
    );
    assert_eq!(r.status, 415);
    let r = server.request(
        "POST",
        "/api/ask",
        &[
            ("Content-Type", "application/json"),
            ("Authorization", "Bearer a.b.c"),
            ("Authorization", "Bearer d.e.f"),
        ],
        body.as_bytes(),
    );
    assert_eq!(r.status, 400);
    let error = r.error();
    assert_eq!(error["code"], "duplicate_header");
    assert_eq!(error["field"], "Authorization");
}

#[test]
fn a_workbench_none_of_whose_packages_is_present_is_not_ready() {
    let dir = std::env::temp_dir().join(format!("okf-hardening-wb-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // DWP's published workbench manifest lists 40 case packages; none is shipped beside it.
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/dwp/evaluation/evidence-workbench/manifest.json")
        .canonicalize()
        .unwrap();
    let registry = dir.join("registry.toml");
    std::fs::write(
        &registry,
        format!("[[workbench]]\nid = \"dwp-staff\"\nmanifest = {manifest:?}\n"),
    )
    .unwrap();
    let server = start_with(Registry::load(&registry).unwrap(), |_| {});
    let ready = server.get("/ready");
    assert_eq!(
        ready.status,
        503,
        "{}",
        String::from_utf8_lossy(&ready.body)
    );
    let text = String::from_utf8_lossy(&ready.body).into_owned();
    assert!(
        text.contains("none of its 40 case packages is present"),
        "{text}"
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_catalogue_of_a_named_version_links_to_that_versions_package() {
    let server = start(|_| {});
    let ask = json!({"bundle": "example", "question": QUESTION, "version": "current", "as_of": "2026-12-01", "profile": "regimes"});
    let package = server.ask(&ask);
    assert_eq!(
        package.status,
        200,
        "{}",
        String::from_utf8_lossy(&package.body)
    );
    let mut replay = ask.clone();
    replay["context_id"] = package.json()["context_id"].clone();
    let page = server.request(
        "POST",
        "/api/catalogue",
        &[("Content-Type", "application/json")],
        replay.to_string().as_bytes(),
    );
    assert_eq!(page.status, 200, "{}", String::from_utf8_lossy(&page.body));
    let link = page.json()["review_url"].as_str().unwrap().to_owned();
    // Everything that chose the package is in the link, so the page shows the same package.
    for part in ["version=current", "as_of=2026-12-01", "profile=regimes"] {
        assert!(link.contains(part), "{part} is missing from {link}");
    }
}
