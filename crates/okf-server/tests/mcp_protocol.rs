//! The MCP endpoint's protocol behaviour, in process through the real router:
//! malformed JSON-RPC is a JSON-RPC error object with HTTP 400, an unknown tool or mis-shaped
//! params is -32602, ids are bounded, batches are refused and 2025-03-26 is not negotiated,
//! and the tool schemas enumerate the registry's bundles and versions.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use axum::body::{Body, to_bytes};
use axum::http::{Request, StatusCode};
use okf_server::{CacheLimits, HttpConfig, OkfMcp, Registry, Service, router};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tower::ServiceExt;

const EXAMPLE_INDEX: &str = include_str!("../../okf/example/index.json");

fn example_service() -> Arc<Service> {
    Arc::new(Service::new(
        Registry::example(EXAMPLE_INDEX).unwrap(),
        CacheLimits::default(),
    ))
}

struct Reply {
    status: StatusCode,
    content_type: Option<String>,
    body: Value,
}

async fn post_mcp(body: impl Into<Vec<u8>>) -> Reply {
    post_to(router(example_service(), HttpConfig::loopback(80)), body).await
}

/// Posts one MCP body to `app` (a router kept across calls keeps its retained contexts).
async fn post_to(app: axum::Router, body: impl Into<Vec<u8>>) -> Reply {
    let request = Request::post("/mcp")
        .header("Host", "127.0.0.1")
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .body(Body::from(body.into()))
        .unwrap();
    let response = app.oneshot(request).await.unwrap();
    let status = response.status();
    let content_type = response
        .headers()
        .get("content-type")
        .map(|v| v.to_str().unwrap().to_owned());
    let bytes = to_bytes(response.into_body(), 1 << 20).await.unwrap();
    let body = serde_json::from_slice(&bytes)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&bytes)));
    Reply {
        status,
        content_type,
        body,
    }
}

async fn rpc(message: Value) -> Reply {
    post_mcp(message.to_string()).await
}

fn assert_jsonrpc_error(reply: &Reply, status: StatusCode, code: i64, id: &Value, case: &str) {
    assert_eq!(reply.status, status, "{case}: {}", reply.body);
    assert_eq!(
        reply.content_type.as_deref(),
        Some("application/json"),
        "{case}"
    );
    assert_eq!(reply.body["jsonrpc"], "2.0", "{case}");
    assert_eq!(reply.body["error"]["code"], code, "{case}: {}", reply.body);
    assert!(reply.body["error"]["message"].is_string(), "{case}");
    assert_eq!(&reply.body["id"], id, "{case}");
    assert!(reply.body.get("result").is_none(), "{case}");
}

#[tokio::test]
async fn malformed_jsonrpc_and_batches_are_invalid_request_with_http_400() {
    let long_id = "a".repeat(129);
    let cases: Vec<(&str, String, Value)> = vec![
        ("empty batch", "[]".into(), Value::Null),
        (
            "batch",
            r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#.into(),
            Value::Null,
        ),
        ("string", r#""ping""#.into(), Value::Null),
        (
            "jsonrpc 1.0",
            r#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#.into(),
            json!(1),
        ),
        ("no jsonrpc", r#"{"id":1,"method":"ping"}"#.into(), json!(1)),
        (
            "string params",
            r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":"x"}"#.into(),
            json!(1),
        ),
        (
            "array params",
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":[]}"#.into(),
            json!(1),
        ),
        ("no method", r#"{"jsonrpc":"2.0","id":2}"#.into(), json!(2)),
        (
            "numeric method",
            r#"{"jsonrpc":"2.0","id":2,"method":7}"#.into(),
            json!(2),
        ),
        (
            "null id",
            r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#.into(),
            Value::Null,
        ),
        (
            "fractional id",
            r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#.into(),
            Value::Null,
        ),
        (
            "negative id",
            r#"{"jsonrpc":"2.0","id":-5,"method":"ping"}"#.into(),
            Value::Null,
        ),
        (
            "id over 2^53-1",
            r#"{"jsonrpc":"2.0","id":9007199254740992,"method":"ping"}"#.into(),
            Value::Null,
        ),
        (
            "empty string id",
            r#"{"jsonrpc":"2.0","id":"","method":"ping"}"#.into(),
            Value::Null,
        ),
        (
            "129-character id",
            format!(r#"{{"jsonrpc":"2.0","id":"{long_id}","method":"ping"}}"#),
            Value::Null,
        ),
        (
            "object id",
            r#"{"jsonrpc":"2.0","id":{},"method":"ping"}"#.into(),
            Value::Null,
        ),
    ];
    for (case, body, id) in cases {
        let reply = post_mcp(body).await;
        assert_jsonrpc_error(&reply, StatusCode::BAD_REQUEST, -32600, &id, case);
    }
}

#[tokio::test]
async fn unparsable_bodies_are_parse_errors_with_http_400() {
    let mut not_utf8 =
        br#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"x":""#.to_vec();
    not_utf8.extend_from_slice(&[0xff, 0xfe]);
    not_utf8.extend_from_slice(br#""}}}"#);
    for (case, body) in [
        ("invalid UTF-8", not_utf8),
        ("not JSON", b"{not json".to_vec()),
        ("truncated", br#"{"jsonrpc":"2.0","id":1"#.to_vec()),
    ] {
        let reply = post_mcp(body).await;
        assert_jsonrpc_error(&reply, StatusCode::BAD_REQUEST, -32700, &Value::Null, case);
    }
}

#[tokio::test]
async fn ids_within_bounds_are_echoed() {
    let longest = "b".repeat(128);
    for id in [
        json!(0),
        json!(9_007_199_254_740_991_u64),
        json!("x"),
        json!(longest),
    ] {
        let reply = rpc(json!({"jsonrpc": "2.0", "id": id, "method": "ping"})).await;
        assert_eq!(reply.status, StatusCode::OK, "{}", reply.body);
        assert_eq!(reply.body["id"], id);
        assert!(reply.body["result"].is_object(), "{}", reply.body);
    }
}

#[tokio::test]
async fn an_unknown_tool_is_a_jsonrpc_invalid_params_error_not_a_tool_result() {
    let reply = rpc(json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": "no_such_tool", "arguments": {}}})).await;
    assert_jsonrpc_error(&reply, StatusCode::OK, -32602, &json!(9), "unknown tool");
    assert!(
        reply.body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("no_such_tool")
    );
}

#[tokio::test]
async fn mis_shaped_params_of_served_methods_are_invalid_params() {
    let cases = [
        (
            "array arguments",
            json!({"name": "ask_okf", "arguments": [1]}),
            "tools/call",
            "arguments must be an object",
        ),
        (
            "string arguments",
            json!({"name": "ask_okf", "arguments": "q"}),
            "tools/call",
            "arguments must be an object",
        ),
        ("no name", json!({"arguments": {}}), "tools/call", "name"),
        ("numeric name", json!({"name": 3}), "tools/call", "name"),
        (
            "initialize without fields",
            json!({}),
            "initialize",
            "invalid params for initialize",
        ),
    ];
    for (case, params, method, says) in cases {
        let reply =
            rpc(json!({"jsonrpc": "2.0", "id": 4, "method": method, "params": params})).await;
        assert_jsonrpc_error(&reply, StatusCode::OK, -32602, &json!(4), case);
        let message = reply.body["error"]["message"].as_str().unwrap();
        assert!(message.contains(says), "{case}: {message}");
    }
}

#[tokio::test]
async fn protocol_2025_03_26_is_not_negotiated_because_its_batches_are_refused() {
    for (asked, agreed) in [
        ("2025-03-26", "2025-11-25"),
        ("2024-11-05", "2025-11-25"),
        ("2025-06-18", "2025-06-18"),
        ("2025-11-25", "2025-11-25"),
    ] {
        let reply = rpc(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": asked, "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}})).await;
        assert_eq!(reply.status, StatusCode::OK, "{}", reply.body);
        assert_eq!(reply.body["result"]["protocolVersion"], agreed, "{asked}");
    }
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("okf-server-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A registry with the DWP index and the example index under two version names.
fn two_bundle_registry() -> Registry {
    let dir = temp_dir("registry");
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("../okf/example/index.json");
    let example_sha = okf_engine::canonical::sha256_hex(&std::fs::read(&example).unwrap());
    let dwp = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/dwp/full-dmg/context/assembly-index.json");
    let text = format!(
        r#"[[bundle]]
id = "okf-dwp"
index = "{dwp}"
sha256 = "38159445a60d4bcabc23cb2cf728e14cbd0a4b55013276c291356e7a1452ff54"
index_url = "https://raw.githubusercontent.com/chris-page-gov/okf-dwp/efb05c66616a9cd4328a86cf412780fe7bc7cf0b/full-dmg/context/assembly-index.json"

[[bundle]]
id = "example"
index = "{example}"
sha256 = "{example_sha}"
index_url = "https://example.org/okf-example/index.json"
version_name = "v2"

[[bundle.versions]]
name = "v1"
index = "{example}"
sha256 = "{example_sha}"
"#,
        dwp = dwp.display(),
        example = example.display(),
    );
    let path = dir.join("registry.toml");
    std::fs::write(&path, text).unwrap();
    Registry::load(&path).unwrap()
}

#[test]
fn bundle_and_version_enums_are_generated_from_the_registry() {
    let service = Arc::new(Service::new(two_bundle_registry(), CacheLimits::default()));
    let mcp = OkfMcp::new(Arc::clone(&service));
    let ask = serde_json::to_value(&mcp.tools(&okf_server::auth::Caller::anonymous())[0]).unwrap();
    assert_eq!(ask["name"], "ask_okf");
    let properties = &ask["inputSchema"]["properties"];
    assert_eq!(properties["bundle"]["enum"], json!(["example", "okf-dwp"]));
    // null is the strict function-calling spelling of "the default version": a member of
    // its own beside the enum (strict schemas and Gemini take no null in an enum). The
    // description stays in the string member, where Gemini's Schema conversion keeps it.
    let version = &properties["version"]["anyOf"];
    assert_eq!(version[0]["type"], "string");
    assert_eq!(version[0]["enum"], json!(["current", "v1", "v2"]));
    assert!(version[0]["description"].is_string(), "{version}");
    assert_eq!(version[1], json!({"type": "null"}));
    assert_eq!(version.as_array().unwrap().len(), 2);
    assert!(properties["version"].get("description").is_none());
    let described = properties["bundle"]["description"].as_str().unwrap();
    for says in [
        "example (versions: v1, v2; default v2)",
        "okf-dwp (versions: current; default current)",
        "never a URL",
    ] {
        assert!(described.contains(says), "{described}");
    }
    assert!(!described.contains("e.g."), "{described}");
    // The embedded example alone: one bundle, one version.
    let example = OkfMcp::new(example_service());
    let ask =
        serde_json::to_value(&example.tools(&okf_server::auth::Caller::anonymous())[0]).unwrap();
    assert_eq!(
        ask["inputSchema"]["properties"]["bundle"]["enum"],
        json!(["example"])
    );
    assert_eq!(
        ask["inputSchema"]["properties"]["version"]["anyOf"][0]["enum"],
        json!(["current"])
    );
}

#[tokio::test]
async fn an_unknown_bundle_names_the_served_bundles_to_an_mcp_client() {
    let reply = rpc(json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "ask_okf", "arguments": {"bundle": "dwp-dmg", "question": "q"}}})).await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(reply.body["result"]["isError"], true);
    let text = reply.body["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.starts_with("unknown_bundle (field bundle)"), "{text}");
    assert!(
        text.contains("the bundles this server serves are: example"),
        "{text}"
    );
    assert!(text.contains("ask_okf"), "{text}");
}

#[test]
fn the_conformance_fixture_tool_is_listed_only_on_request_with_its_2020_12_schema_kept() {
    use okf_server::CONFORMANCE_FIXTURE_TOOL;
    let plain = OkfMcp::new(example_service());
    assert!(
        plain
            .tools(&okf_server::auth::Caller::anonymous())
            .iter()
            .all(|t| t.name != CONFORMANCE_FIXTURE_TOOL),
        "never listed by default"
    );
    let names = |m: &OkfMcp| {
        m.tools(&okf_server::auth::Caller::anonymous())
            .iter()
            .map(|t| t.name.to_string())
            .collect::<Vec<_>>()
    };
    let fixture = OkfMcp::new(example_service()).with_conformance_fixture();
    let mut expected = names(&plain);
    expected.push(CONFORMANCE_FIXTURE_TOOL.to_owned());
    assert_eq!(names(&fixture), expected, "appended after the real tools");
    let listed = serde_json::to_value(
        fixture
            .tools(&okf_server::auth::Caller::anonymous())
            .last()
            .unwrap(),
    )
    .unwrap();
    let schema = &listed["inputSchema"];
    assert_eq!(
        schema["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
    assert_eq!(
        schema["$defs"]["address"]["properties"]["city"]["type"],
        "string"
    );
    assert_eq!(schema["properties"]["address"]["$ref"], "#/$defs/address");
    assert_eq!(schema["additionalProperties"], false);
}

#[tokio::test]
async fn a_key_given_twice_anywhere_in_a_message_is_an_invalid_request_naming_the_key() {
    let cases = [
        (
            "bundle",
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask_okf","arguments":{"bundle":"example","bundle":"okf-dwp","question":"How do I borrow books?"}}}"#,
        ),
        (
            "section",
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read_okf_evidence","arguments":{"bundle":"example","question":"How do I borrow books?","context_id":"urn:sha256:0000000000000000000000000000000000000000000000000000000000000000","section":"package","section":"diagnostics"}}}"#,
        ),
        (
            "method",
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","method":"tools/call"}"#,
        ),
        (
            "id",
            r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"tools/list"}"#,
        ),
        (
            "params",
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{},"params":{}}"#,
        ),
    ];
    for (key, body) in cases {
        let reply = post_mcp(body).await;
        assert_jsonrpc_error(&reply, StatusCode::BAD_REQUEST, -32600, &Value::Null, key);
        let message = reply.body["error"]["message"].as_str().unwrap_or_default();
        assert!(
            message.contains(&format!("key \"{key}\" appears twice")),
            "{key}: {message}"
        );
    }
}

#[tokio::test]
async fn the_server_instructions_fit_the_512_characters_hosts_show() {
    assert!(
        okf_server::INSTRUCTIONS.chars().count() <= 512,
        "{} characters",
        okf_server::INSTRUCTIONS.chars().count()
    );
    let reply = rpc(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}))
    .await;
    assert_eq!(
        reply.body["result"]["instructions"],
        okf_server::INSTRUCTIONS
    );
    for says in ["never answers", "untrusted", "evidence_status"] {
        assert!(okf_server::INSTRUCTIONS.contains(says), "{says}");
    }
}

#[tokio::test]
async fn a_record_id_is_limited_in_characters_as_its_schema_says_not_in_bytes() {
    // One router, so the context ask_okf retains is there for okf_explain_context.
    let app = router(example_service(), HttpConfig::loopback(80));
    let call = |arguments: Value, name: &'static str| {
        let app = app.clone();
        async move {
            let message = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": name, "arguments": arguments}});
            post_to(app, message.to_string()).await.body["result"].clone()
        }
    };
    let package = call(
        json!({"bundle": "example", "question": "How do I borrow books?"}),
        "ask_okf",
    )
    .await;
    let context_id = package["structuredContent"]["context_id"].clone();
    let limit = okf_api::limits::MAX_RECORD_ID_CHARS;
    // Two bytes a character: within the limit counted in characters, over it in bytes.
    let at_limit = "é".repeat(limit);
    let reply = call(
        json!({"context_id": context_id, "record_id": at_limit}),
        "okf_explain_context",
    )
    .await;
    let text = reply["content"][0]["text"].as_str().unwrap_or_default();
    assert!(!text.contains(okf_api::format::RECORD_ID_RULE), "{text}");
    let over = format!("{at_limit}é");
    let reply = call(
        json!({"context_id": context_id, "record_id": over}),
        "okf_explain_context",
    )
    .await;
    assert_eq!(reply["isError"], true);
    let text = reply["content"][0]["text"].as_str().unwrap_or_default();
    assert!(text.contains(okf_api::format::RECORD_ID_RULE), "{text}");
}
