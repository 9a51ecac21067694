//! `okf serve` as a real process on an ephemeral loopback port: the HTTP API, MCP, the
//! registry and its security behaviour (allow-listed bundles only, Host/Origin checks, limits, no paths in errors).
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use crate::common::*;
use serde_json::{Value, json};
use std::io::Write;

fn example_questions() -> Vec<String> {
    let v: Value = serde_json::from_str(include_str!("../../example/questions.json")).unwrap();
    v.as_array()
        .unwrap()
        .iter()
        .map(|q| q["question"].as_str().unwrap().to_owned())
        .collect()
}

fn cli_package(args: &[&str]) -> String {
    let out = okf(args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .trim_end_matches('\n')
        .to_owned()
}

fn mcp_call(server: &Server, id: u64, tool: &str, arguments: Value) -> Value {
    let r = server.mcp(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": tool, "arguments": arguments}}), &[]);
    assert_eq!(r.status, 200, "{}", r.text());
    r.json()
}

fn validator(name: &str) -> jsonschema::Validator {
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../schemas")
            .join(name),
    )
    .unwrap();
    jsonschema::validator_for(&serde_json::from_str(&text).unwrap()).unwrap()
}

fn assert_valid(v: &jsonschema::Validator, instance: &Value) {
    let errors: Vec<String> = v
        .iter_errors(instance)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .take(5)
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
}

#[test]
fn cli_http_and_mcp_return_identical_bytes_for_the_example_bundle() {
    let server = Server::start(&[]);
    let package_schema = validator("package.schema.json");
    for question in example_questions() {
        let cli = cli_package(&["ask", &question]);
        let http = server.ask(&json!({"bundle": "example", "question": question}));
        assert_eq!(http.status, 200);
        assert_eq!(http.header("content-type"), Some("application/json"));
        assert_eq!(http.text(), cli, "{question}");
        let mcp = mcp_call(
            &server,
            1,
            "ask_okf",
            json!({"bundle": "example", "question": question}),
        );
        let result = &mcp["result"];
        assert_eq!(result["isError"], false);
        assert_eq!(
            result["content"][0]["text"].as_str().unwrap(),
            crate::common::brief_of(&cli),
            "the text block is the package's evidence brief, as okf ask --brief prints it"
        );
        let brief = crate::common::okf(&["ask", "--brief", &question]);
        assert_eq!(
            crate::common::stdout(&brief),
            result["content"][0]["text"].as_str().unwrap()
        );
        let over_http = server.request(
            "POST",
            "/api/ask",
            &[
                ("Content-Type", "application/json"),
                ("Accept", "text/markdown"),
            ],
            json!({"bundle": "example", "question": question})
                .to_string()
                .as_bytes(),
        );
        assert_eq!(
            over_http.header("content-type"),
            Some("text/markdown; charset=utf-8")
        );
        assert_eq!(over_http.text(), crate::common::brief_of(&cli));
        // The page's WebAssembly module (its "Copy for an AI" button) gives the same bytes.
        let mut module = okf_wasm::Module::default();
        module.input(cli.len()).copy_from_slice(cli.as_bytes());
        assert_eq!(module.brief(0), 0);
        assert_eq!(module.output(), over_http.body.as_slice(), "{question}");
        let structured = &result["structuredContent"];
        assert_eq!(
            okf_engine::canonical::to_canonical_string(structured).unwrap(),
            cli,
            "structuredContent is the package"
        );
        assert_valid(&package_schema, structured);
    }
}

#[test]
fn dwp_registry_package_equals_cli_with_the_same_binding_over_http_and_both_mcp_eras() {
    let dir = temp_dir("dwp-registry");
    let registry = dwp_registry(&dir, "");
    let server = Server::start(&["--registry", registry.to_str().unwrap()]);
    let question = imprisonment_question();
    let cli = cli_package(&[
        "ask",
        "--index",
        &shared("dwp/full-dmg/context/assembly-index.json"),
        "--binding-url",
        DWP_URL,
        "--binding-sha256",
        DWP_SHA,
        &question,
    ]);
    let http = server.ask(&json!({"bundle": "okf-dwp", "question": question}));
    assert_eq!(http.status, 200);
    assert_eq!(http.text(), cli);
    let package = http.json();
    assert_eq!(package["evidence_status"], "sufficient");
    assert_eq!(package["selected"].as_array().unwrap().len(), 52);

    let legacy = mcp_call(
        &server,
        7,
        "ask_okf",
        json!({"bundle": "okf-dwp", "question": question}),
    );
    assert_eq!(
        okf_engine::canonical::to_canonical_string(&legacy["result"]["structuredContent"]).unwrap(),
        cli
    );

    // The stateless 2026-07-28 protocol: per-request metadata and headers, no initialize.
    let body = json!({
        "jsonrpc": "2.0", "id": 8, "method": "tools/call",
        "params": {
            "name": "ask_okf",
            "arguments": {"bundle": "okf-dwp", "question": question},
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {}
            }
        }
    });
    let modern = server.mcp(
        &body,
        &[
            ("MCP-Protocol-Version", "2026-07-28"),
            ("Mcp-Method", "tools/call"),
            ("Mcp-Name", "ask_okf"),
        ],
    );
    assert_eq!(modern.status, 200, "{}", modern.text());
    let modern = modern.json();
    assert_eq!(
        okf_engine::canonical::to_canonical_string(&modern["result"]["structuredContent"]).unwrap(),
        cli
    );
    // The package near 500 KB travels once, as structured content; a model reads its brief.
    let text = modern["result"]["content"][0]["text"].as_str().unwrap();
    assert!(cli.len() > 400_000);
    assert_eq!(text, crate::common::brief_of(&cli));
}

#[test]
fn retained_contexts_are_served_by_id_and_evicted_ones_say_to_ask_again() {
    let server = Server::start(&["--cache-entries", "1"]);
    let first = server.ask(&json!({"bundle": "example", "question": "How do I borrow books?"}));
    let id = first.json()["context_id"].as_str().unwrap().to_owned();
    let again = server.request("GET", &format!("/api/context/{id}"), &[], b"");
    assert_eq!(again.status, 200);
    assert_eq!(again.body, first.body);

    let mcp = mcp_call(&server, 2, "okf_get_context", json!({"context_id": id}));
    assert_eq!(
        mcp["result"]["content"][0]["text"].as_str().unwrap(),
        crate::common::brief_of(&first.text())
    );
    assert_eq!(mcp["result"]["structuredContent"], first.json());
    let explained = mcp_call(
        &server,
        3,
        "okf_explain_context",
        json!({"context_id": id, "record_id": "https://example.org/okf-example/concept/borrowing"}),
    );
    let view = &explained["result"]["structuredContent"];
    assert_eq!(view["context_id"], json!(id));
    assert!(view["item"]["reasons"].is_array(), "{view}");
    assert_valid(&validator("explain.schema.json"), view);

    // A second package evicts the first from a one-entry cache.
    server.ask(&json!({"bundle": "example", "question": "What are the opening hours?"}));
    let gone = server.request("GET", &format!("/api/context/{id}"), &[], b"");
    assert_eq!(gone.status, 404);
    assert_eq!(gone.json()["error"]["code"], "context_not_retained");
    assert!(
        gone.json()["error"]["message"]
            .as_str()
            .unwrap()
            .contains("ask again")
    );
    assert_valid(&validator("error.schema.json"), &gone.json());
    let bad = server.request("GET", "/api/context/not-an-id", &[], b"");
    assert_eq!(bad.status, 400);
    let mcp_gone = mcp_call(&server, 4, "okf_get_context", json!({"context_id": id}));
    assert_eq!(mcp_gone["result"]["isError"], true);
}

/// The sum of a counter's samples in `/metrics` (every label set).
fn counter(server: &Server, name: &str) -> u64 {
    let text = server.request("GET", "/metrics", &[], b"").text();
    text.lines()
        .filter(|l| l.starts_with(name))
        .filter_map(|l| l.rsplit(' ').next()?.parse::<u64>().ok())
        .sum()
}

#[test]
fn a_repeated_ask_gets_the_same_bytes_without_assembling_again() {
    let server = Server::start(&[]);
    let ask = json!({"bundle": "example", "question": "How do I borrow books?"});
    let first = server.ask(&ask);
    assert_eq!(first.status, 200);
    assert_eq!(counter(&server, "okf_assemblies_total"), 1);
    assert_eq!(counter(&server, "okf_package_repeats_total"), 0);
    // The same inputs over HTTP and MCP: the same bytes, and nothing assembled again.
    let again = server.ask(&ask);
    assert_eq!(again.body, first.body);
    let mcp = mcp_call(&server, 2, "ask_okf", ask.clone());
    assert_eq!(
        mcp["result"]["content"][0]["text"].as_str().unwrap(),
        crate::common::brief_of(&first.text())
    );
    assert_eq!(mcp["result"]["structuredContent"], first.json());
    assert_eq!(counter(&server, "okf_assemblies_total"), 1);
    assert_eq!(counter(&server, "okf_package_repeats_total"), 2);
    // Each request has its own receipt, naming the same package.
    let receipts: Vec<Value> = [&first, &again]
        .iter()
        .map(|r| serde_json::from_str(r.header("okf-execution").unwrap()).unwrap())
        .collect();
    assert_eq!(receipts[0]["context_id"], receipts[1]["context_id"]);
    // Any other input (here the budget, spelled differently but the same once resolved, and
    // then a different one) is looked up by what it resolves to.
    let mut same_budget = ask.clone();
    same_budget["budget"] = json!({"max_depth": okf_engine::Budget::default().max_depth});
    assert_eq!(server.ask(&same_budget).body, first.body);
    assert_eq!(counter(&server, "okf_assemblies_total"), 1);
    let mut other_budget = ask;
    other_budget["budget"] = json!({"max_nodes": 3});
    let other = server.ask(&other_budget);
    assert_ne!(other.body, first.body);
    assert_eq!(counter(&server, "okf_assemblies_total"), 2);
    server.stop();
}

#[test]
fn bundles_health_and_schemas_are_published_and_valid() {
    let dir = temp_dir("bundles");
    let registry = dir.join("registry.toml");
    // One good bundle and one whose declared digest is wrong: the good one is still served.
    std::fs::write(
        &registry,
        format!(
            "[[bundle]]\nid = \"okf-dwp\"\nindex = \"{idx}\"\nsha256 = \"{DWP_SHA}\"\nindex_url = \"{DWP_URL}\"\npublished = \"2026-09-16\"\n\n\
             [[bundle]]\nid = \"tampered\"\nindex = \"{idx}\"\nsha256 = \"{bad}\"\nindex_url = \"{DWP_URL}\"\n",
            idx = shared("dwp/full-dmg/context/assembly-index.json"),
            bad = "0".repeat(64),
        ),
    )
    .unwrap();
    let server = Server::start(&["--registry", registry.to_str().unwrap()]);
    let bundles = server.request("GET", "/api/bundles", &[], b"");
    assert_eq!(bundles.status, 200);
    let listing = bundles.json();
    assert_valid(&validator("bundles.schema.json"), &listing);
    let rows = listing["bundles"].as_array().unwrap();
    assert_eq!(rows[0]["id"], "okf-dwp");
    assert_eq!(rows[0]["state"], "ready");
    assert_eq!(
        rows[0]["versions"][0]["snapshot"],
        "dwp-full-dmg-2026-09-16-a26a93daa9f5"
    );
    assert_eq!(rows[1]["id"], "tampered");
    assert_eq!(rows[1]["state"], "refused");
    assert!(
        rows[1]["versions"][0]["reason"]
            .as_str()
            .unwrap()
            .contains("SHA-256")
    );

    let health = server.request("GET", "/health", &[], b"");
    assert_eq!(
        health.status, 200,
        "liveness: the process answers; readiness is /ready"
    );
    assert_valid(&validator("health.schema.json"), &health.json());
    assert_eq!(health.json()["status"], "degraded");
    let ready = server.request("GET", "/ready", &[], b"");
    assert_eq!(ready.status, 503, "one bundle is refused, so not ready");
    assert_eq!(ready.json()["refused"][0]["bundle"], "tampered");

    let refused =
        server.ask(&json!({"bundle": "tampered", "question": "A claimant is imprisoned."}));
    assert_eq!(refused.status, 503);
    let ok = server.ask(&json!({"bundle": "okf-dwp", "question": "A claimant is imprisoned.", "as_of": "2026-10-01"}));
    assert_eq!(ok.status, 200);
    // A date before every held version gets the default version's package, which says so.
    let too_early = server.ask(&json!({"bundle": "okf-dwp", "question": "A claimant is imprisoned.", "as_of": "2026-01-01"}));
    assert_eq!(too_early.status, 200);
    assert_eq!(too_early.json()["evidence_status"], "insufficient");
    assert!(too_early.text().contains("question_date_outside_versions"));

    for name in [
        "package",
        "ask-request",
        "error",
        "bundles",
        "health",
        "explain",
    ] {
        let r = server.request("GET", &format!("/schemas/{name}.schema.json"), &[], b"");
        assert_eq!(r.status, 200, "{name}");
        let schema = r.json();
        assert!(
            jsonschema::validator_for(&schema).is_ok(),
            "{name} compiles"
        );
    }
}

#[test]
fn ask_requests_are_validated_before_anything_is_assembled() {
    let server = Server::start(&[]);
    let request_schema = validator("ask-request.schema.json");
    let cases = [
        (
            json!({"bundle": "example", "question": "q", "url": "https://x"}),
            400,
            "invalid_request",
        ),
        (
            json!({"bundle": "example", "question": ""}),
            400,
            "invalid_question",
        ),
        (
            json!({"bundle": "example", "question": "   "}),
            400,
            "invalid_question",
        ),
        (
            json!({"bundle": "example", "question": "x".repeat(4001)}),
            400,
            "invalid_question",
        ),
        (
            json!({"bundle": "https://evil.example/index.json", "question": "q"}),
            400,
            "invalid_request",
        ),
        (
            json!({"bundle": "../shared/dwp/full-dmg/context/assembly-index.json", "question": "q"}),
            400,
            "invalid_request",
        ),
        (
            json!({"bundle": "/etc/passwd", "question": "q"}),
            400,
            "invalid_request",
        ),
        (
            json!({"bundle": "nope", "question": "q"}),
            404,
            "unknown_bundle",
        ),
        (
            json!({"bundle": "example", "question": "q", "version": "v9"}),
            404,
            "unknown_version",
        ),
        (
            json!({"bundle": "example", "question": "q", "budget": {"max_bytes": 42}}),
            400,
            "invalid_budget",
        ),
        (
            json!({"bundle": "example", "question": "q", "budget": {"constructor": 1}}),
            400,
            "invalid_budget",
        ),
        (
            json!({"bundle": "example", "question": "q", "as_of": "2026-02-31"}),
            400,
            "invalid_request",
        ),
    ];
    for (body, status, code) in cases {
        let r = server.ask(&body);
        assert_eq!(r.status, status, "{body}: {}", r.text());
        assert_eq!(r.json()["error"]["code"], code, "{body}");
        // The schema cannot know the registry (404s) or the calendar (format is an annotation).
        let schema_can_tell = status != 404 && body.get("as_of").is_none();
        assert!(
            !schema_can_tell || !request_schema.is_valid(&body),
            "the published schema also rejects {body}"
        );
    }
    let ok = json!({"bundle": "example", "question": "How do I borrow books?", "budget": {"max_nodes": 3, "max_bytes": 8192}});
    assert!(request_schema.is_valid(&ok));
    let r = server.ask(&ok);
    assert_eq!(r.status, 200);
    assert!(r.json()["selected"].as_array().unwrap().len() <= 3);
    let invalid_tool = mcp_call(
        &server,
        5,
        "ask_okf",
        json!({"bundle": "example", "question": "q", "url": "https://x"}),
    );
    assert_eq!(invalid_tool["result"]["isError"], true);
    assert!(invalid_tool["result"].get("structuredContent").is_none());
}

#[test]
fn mcp_lists_eight_read_only_tools_with_their_output_schemas() {
    let server = Server::start(&[]);
    let init = server.mcp(
        &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}),
        &[],
    );
    assert_eq!(init.status, 200);
    assert!(
        init.header("mcp-session-id").is_none(),
        "stateless: no session is minted"
    );
    let list = server
        .mcp(
            &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
            &[],
        )
        .json();
    let tools = list["result"]["tools"].as_array().unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "ask_okf",
            "okf_get_context",
            "okf_explain_context",
            "ask_okf_manifest",
            "read_okf_evidence",
            "search",
            "fetch",
            "okf_check_answer"
        ]
    );
    for t in tools {
        let a = &t["annotations"];
        assert_eq!(
            (
                a["readOnlyHint"].clone(),
                a["destructiveHint"].clone(),
                a["idempotentHint"].clone(),
                a["openWorldHint"].clone()
            ),
            (json!(true), json!(false), json!(true), json!(false))
        );
        let d = t["description"].as_str().unwrap();
        assert!(
            d.contains("not an answer") && d.contains("untrusted") && d.contains("instructions"),
            "{d}"
        );
        assert_eq!(t["inputSchema"]["type"], "object");
        assert_eq!(t["inputSchema"]["additionalProperties"], false);
    }
    assert_eq!(tools[0]["outputSchema"]["type"], "object");
    assert!(tools[0]["outputSchema"]["properties"]["evidence_status"].is_object());
}

#[test]
fn foreign_origin_and_host_get_403_on_every_route() {
    let server = Server::start(&[]);
    for path in ["/api/ask", "/mcp"] {
        let r = server.request(
            "POST",
            path,
            &[
                ("Content-Type", "application/json"),
                ("Origin", "http://evil.example"),
            ],
            b"{}",
        );
        assert_eq!(r.status, 403, "{path}");
        let r = server.request(
            "POST",
            path,
            &[
                ("Content-Type", "application/json"),
                ("Host", "evil.example"),
            ],
            b"{}",
        );
        assert_eq!(r.status, 403, "{path}");
    }
    let own_origin = format!("http://127.0.0.1:{}", server.port());
    let r = server.request(
        "POST",
        "/api/ask",
        &[
            ("Content-Type", "application/json"),
            ("Origin", &own_origin),
        ],
        br#"{"bundle":"example","question":"How do I borrow books?"}"#,
    );
    assert_eq!(r.status, 200, "the server's own origin is allowed");
    let r = server.request("GET", "/health", &[("Origin", "null")], b"");
    assert_eq!(r.status, 403);
}

#[test]
fn body_size_content_type_and_json_errors() {
    let server = Server::start(&[]);
    let big = format!(
        r#"{{"bundle":"example","question":"{}"}}"#,
        "a".repeat(40 * 1024)
    );
    for path in ["/api/ask", "/mcp"] {
        let r = server.request(
            "POST",
            path,
            &[
                ("Content-Type", "application/json"),
                ("Accept", "application/json, text/event-stream"),
            ],
            big.as_bytes(),
        );
        assert_eq!(r.status, 413, "{path}");
        let r = server.request("POST", path, &[("Content-Type", "text/plain")], b"{}");
        assert_eq!(r.status, 415, "{path}");
    }
    let r = server.request(
        "POST",
        "/api/ask",
        &[("Content-Type", "application/json")],
        b"{not json",
    );
    assert_eq!(r.status, 400);
    assert_eq!(r.json()["error"]["code"], "invalid_json");
    let r = server.request(
        "POST",
        "/mcp",
        &[
            ("Content-Type", "application/json"),
            ("Accept", "application/json, text/event-stream"),
        ],
        b"{not json",
    );
    assert_eq!(r.status, 400);
    assert_eq!(r.json()["error"]["code"], -32700);
}

#[test]
fn security_headers_are_on_every_response() {
    let server = Server::start(&[]);
    let responses = [
        server.request("GET", "/health", &[], b""),
        server.request("GET", "/nope", &[], b""),
        server.ask(&json!({"bundle": "example", "question": "How do I borrow books?"})),
        server.request("POST", "/api/ask", &[("Content-Type", "text/plain")], b"x"),
        server.mcp(
            &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
            &[],
        ),
    ];
    for r in responses {
        assert_eq!(r.header("cache-control"), Some("no-store"), "{}", r.status);
        assert_eq!(r.header("x-content-type-options"), Some("nosniff"));
        assert_eq!(r.header("referrer-policy"), Some("no-referrer"));
    }
}

#[test]
fn a_stalled_body_times_out() {
    let server = Server::start(&["--timeout-ms", "300"]);
    let mut stalled = server.stalled_post("/api/ask");
    let r = read_response(&mut stalled);
    assert_eq!(r.status, 408);
}

#[test]
fn a_full_reading_budget_answers_429_with_retry_after() {
    // Issue 10: a slow body holds a reading permit, never a processing slot.
    let server = Server::start(&["--max-reading", "1", "--timeout-ms", "5000"]);
    let mut holder = server.stalled_post("/api/ask");
    std::thread::sleep(std::time::Duration::from_millis(200));
    let r = server.ask(&json!({"bundle": "example", "question": "How do I borrow books?"}));
    assert_eq!(r.status, 429);
    assert!(r.header("retry-after").is_some());
    assert_eq!(server.request("GET", "/health", &[], b"").status, 200);
    // Let the held request finish; the permit frees up.
    holder
        .write_all(br#""bundle":"example","question":"How do I borrow books?"}"#)
        .unwrap();
    let _ = read_response(&mut holder);
    let r = server.ask(&json!({"bundle": "example", "question": "How do I borrow books?"}));
    assert_eq!(r.status, 200);
}

#[test]
fn rate_limit_answers_429_with_retry_after() {
    let server = Server::start(&["--rate-limit-per-minute", "3"]);
    for _ in 0..3 {
        assert_eq!(server.request("GET", "/api/bundles", &[], b"").status, 200);
    }
    let r = server.request("GET", "/api/bundles", &[], b"");
    assert_eq!(r.status, 429);
    let seconds: u64 = r.header("retry-after").unwrap().parse().unwrap();
    assert!((1..=60).contains(&seconds));
    assert_eq!(server.request("GET", "/health", &[], b"").status, 200);
}

#[test]
fn the_per_client_rate_limit_and_trusted_proxies_come_from_flags_and_variables() {
    // Every request here comes from 127.0.0.1, named as the trusted proxy by the variable:
    // the clients are the addresses it forwards for.
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_okf"));
    command
        .args(["serve", "--listen", "127.0.0.1:0"])
        .args(["--client-rate-limit-per-minute", "3"])
        .env("OKF_TRUSTED_PROXIES", "192.0.2.1,127.0.0.1");
    let server = Server::spawn(command);
    let from = |client: &str| {
        server
            .request("GET", "/api/bundles", &[("X-Forwarded-For", client)], b"")
            .status
    };
    for _ in 0..3 {
        assert_eq!(from("198.51.100.1"), 200);
    }
    assert_eq!(from("198.51.100.1"), 429);
    assert_eq!(
        from("198.51.100.2"),
        200,
        "another client has its own budget"
    );
}

#[test]
fn restricted_records_never_leave_the_server() {
    let index: Value = serde_json::from_str(include_str!("../../example/index.json")).unwrap();
    let restricted: Vec<&Value> = index["records"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["access"] == "restricted")
        .collect();
    assert!(
        !restricted.is_empty(),
        "the example bundle carries a restricted record"
    );
    let server = Server::start(&[]);
    for question in [
        "Explain room booking",
        "Explain meeting room hire",
        "How do I borrow books?",
    ] {
        let http = server.ask(&json!({"bundle": "example", "question": question}));
        let mcp = server.mcp(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "ask_okf", "arguments": {"bundle": "example", "question": question}}}), &[]);
        for r in &restricted {
            let text = r["text"].as_str().unwrap();
            assert!(!http.text().contains(text), "{question}");
            assert!(
                !mcp.text()
                    .contains(&serde_json::to_string(text).unwrap()[1..text.len() / 2]),
                "{question}"
            );
        }
        let package = http.json();
        assert!(
            package["selected"]
                .as_array()
                .unwrap()
                .iter()
                .all(|s| s["record"]["access"] == "public")
        );
    }
}

#[test]
fn one_log_line_per_request_without_the_question_text() {
    let server = Server::start(&[]);
    let secret_question = "Explain borrowing for quokka-zebra-4711";
    server.ask(&json!({"bundle": "example", "question": secret_question}));
    server.request("GET", "/health", &[], b"");
    let log = server.stop();
    assert!(!log.contains("quokka-zebra-4711"), "{log}");
    let ask_lines: Vec<&str> = log
        .lines()
        .filter(|l| l.contains("okf::http") && l.contains("/api/ask"))
        .collect();
    assert_eq!(ask_lines.len(), 1, "{log}");
    for field in [
        "bundle=example",
        "status=200",
        "evidence_status=insufficient",
        "duration_us=",
    ] {
        assert!(ask_lines[0].contains(field), "{field} in {}", ask_lines[0]);
    }
    assert_eq!(
        log.lines()
            .filter(|l| l.contains("okf::http") && l.contains("/health"))
            .count(),
        1
    );
}

#[test]
#[ignore = "needs the external Python MCP client that scripts/test installs (OKF_MCP_CLIENT_PYTHON)"]
fn external_python_mcp_client_lists_tools_and_calls_ask_okf_in_every_protocol_era() {
    let server = Server::start(&[]);
    let report = crate::common::external_python_report(
        "OKF_MCP_CLIENT_PYTHON",
        "mcp_python_client.py",
        &[
            format!("http://{}/mcp", server.addr),
            format!("http://{}/api/ask", server.addr),
        ],
    );
    assert_eq!(report.matches("ok   ").count(), 30, "{report}");
}

#[test]
#[ignore = "needs the external Python MCP client that scripts/test installs (OKF_MCP_CLIENT_PYTHON)"]
fn external_python_mcp_client_rebuilds_the_dwp_package_from_bounded_reads() {
    let dir = temp_dir("python-delivery");
    let registry = dwp_registry(&dir, "");
    let server = Server::start(&["--registry", registry.to_str().unwrap()]);
    crate::common::external_python_report(
        "OKF_MCP_CLIENT_PYTHON",
        "mcp_python_delivery.py",
        &[
            format!("http://{}/mcp", server.addr),
            format!("http://{}/api/ask", server.addr),
            "okf-dwp".into(),
            "A claimant is imprisoned. Explain the effect on JSA, IS, State Pension Credit and ESA, distinguishing loss of payment from loss of entitlement, and trace each conclusion to the relevant DMG guidance.".into(),
        ],
    );
}
