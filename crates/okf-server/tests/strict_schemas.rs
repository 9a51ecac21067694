//! Every tool's input schema is strict as served: what OpenAI strict function calling accepts
//! without any client-side conversion (LangChain.js `convertToOpenAITool({strict: true})` and
//! the Vercel AI SDK's `tool.strict` pass schemas through unchanged), inside the keywords
//! Gemini's function declarations also take. Every object is closed and lists every property
//! in `required`; an optional property is an `anyOf` with `{"type": "null"}`; no `type` list,
//! no `null` in an `enum`, no keyword outside the subset. The server still accepts an omitted
//! optional field, and `null` for it.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use axum::body::{Body, to_bytes};
use axum::http::Request;
use okf_api::tools::{MCP_TOOLS, Served, ServedBundle};
use okf_server::{CacheLimits, HttpConfig, Registry, Service, router};
use serde_json::{Value, json};
use std::sync::Arc;
use tower::ServiceExt;

const EXAMPLE_INDEX: &str = include_str!("../../okf/example/index.json");

/// The keywords of OpenAI's strict subset that Gemini's function declarations also take.
const KEYWORDS: [&str; 13] = [
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "enum",
    "anyOf",
    "description",
    "pattern",
    "minimum",
    "maximum",
    "minItems",
    "maxItems",
];

/// Every way `schema` (at `at`) breaks the strict rules.
fn violations(schema: &Value, at: &str, out: &mut Vec<String>) {
    let Value::Object(map) = schema else {
        out.push(format!("{at}: not a schema object"));
        return;
    };
    for key in map.keys() {
        if !KEYWORDS.contains(&key.as_str()) {
            out.push(format!(
                "{at}: keyword {key:?} is outside the strict subset"
            ));
        }
    }
    match map.get("type") {
        Some(Value::String(_)) => {}
        None if map.contains_key("anyOf") => {}
        other => out.push(format!("{at}: type {other:?} is not one type name")),
    }
    if let Some(Value::Array(values)) = map.get("enum")
        && values.iter().any(Value::is_null)
    {
        out.push(format!("{at}: null in an enum"));
    }
    if let Some(Value::Array(members)) = map.get("anyOf") {
        if map.contains_key("type") {
            out.push(format!("{at}: anyOf beside type"));
        }
        for (i, member) in members.iter().enumerate() {
            violations(member, &format!("{at}/anyOf/{i}"), out);
        }
    }
    if map.get("type") == Some(&json!("object")) {
        if map.get("additionalProperties") != Some(&json!(false)) {
            out.push(format!("{at}: object not closed"));
        }
        let properties = map.get("properties").and_then(Value::as_object);
        let names: Vec<&str> = properties
            .map(|p| p.keys().map(String::as_str).collect())
            .unwrap_or_default();
        let mut required: Vec<&str> = map
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        required.sort_unstable();
        let mut sorted = names.clone();
        sorted.sort_unstable();
        if required != sorted {
            out.push(format!(
                "{at}: required {required:?} is not every property {sorted:?}"
            ));
        }
        for (name, child) in properties.into_iter().flatten() {
            violations(child, &format!("{at}/properties/{name}"), out);
        }
    }
    if let Some(items) = map.get("items") {
        violations(items, &format!("{at}/items"), out);
    }
}

fn strict_violations(name: &str, schema: &Value) -> Vec<String> {
    let mut out = Vec::new();
    violations(schema, name, &mut out);
    if schema.get("type") != Some(&json!("object")) {
        out.push(format!("{name}: the root is not an object"));
    }
    out
}

/// A registry's worth of everything a tool schema can name: two bundles with versions, a
/// corpus and a workbench (so `okf_workbench_case` is listed).
fn served() -> Served {
    Served {
        bundles: vec![
            ServedBundle {
                id: "example".into(),
                versions: vec![("current".into(), true)],
                default_version: "current".into(),
            },
            ServedBundle {
                id: "okf-dwp".into(),
                versions: vec![("2026-05".into(), true), ("hospital".into(), false)],
                default_version: "2026-05".into(),
            },
        ],
        corpora: vec!["dwp-corpus".into()],
        search_bundle: None,
        workbenches: vec!["wb".into()],
    }
}

#[test]
fn every_tool_in_the_table_is_strict_as_served() {
    let served = served();
    let mut all = Vec::new();
    for tool in MCP_TOOLS {
        assert!((tool.listed)(&served), "{}", tool.name);
        all.extend(strict_violations(
            tool.name,
            &tool.input_schema_for(&served),
        ));
    }
    assert!(all.is_empty(), "{all:#?}");
}

async fn post(app: &axum::Router, method: &str, params: Value) -> Value {
    let ui = json!({"extensions": {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}}});
    let mut params = params;
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": ui,
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"}
    });
    let mut request = Request::post("/mcp")
        .header("Host", "127.0.0.1")
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .header("MCP-Protocol-Version", "2026-07-28")
        .header("Mcp-Method", method);
    if let Some(name) = params.get("name").and_then(Value::as_str) {
        request = request.header("Mcp-Name", name);
    }
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let response = app
        .clone()
        .oneshot(request.body(Body::from(body.to_string())).unwrap())
        .await
        .unwrap();
    serde_json::from_slice(&to_bytes(response.into_body(), 4 << 20).await.unwrap()).unwrap()
}

fn app() -> axum::Router {
    let service = Arc::new(Service::new(
        Registry::example(EXAMPLE_INDEX).unwrap(),
        CacheLimits::default(),
    ));
    router(service, HttpConfig::loopback(80))
}

#[tokio::test]
async fn every_listed_tool_and_app_only_tool_is_strict_on_the_wire() {
    let app = app();
    let list = post(&app, "tools/list", json!({})).await;
    let tools = list["result"]["tools"].as_array().unwrap();
    assert!(
        tools.len() >= 10,
        "the eight model tools and two app-only tools"
    );
    let mut all = Vec::new();
    for tool in tools {
        all.extend(strict_violations(
            tool["name"].as_str().unwrap(),
            &tool["inputSchema"],
        ));
    }
    assert!(all.is_empty(), "{all:#?}");
}

#[tokio::test]
async fn omitted_and_null_optional_fields_still_mean_absent() {
    let app = app();
    let question = "How do I borrow books?";
    let call = |arguments: Value| json!({"name": "ask_okf_manifest", "arguments": arguments});
    let omitted = post(
        &app,
        "tools/call",
        call(json!({"bundle": "example", "question": question})),
    )
    .await;
    let nulls = post(
        &app,
        "tools/call",
        call(json!({
            "bundle": "example", "question": question, "version": null, "as_of": null,
            "budget": {"max_nodes": null, "max_relationships": null, "max_depth": null, "max_bytes": null},
            "profile": null, "context_id": null, "offset": null, "delivery_bytes": null
        })),
    )
    .await;
    let content = |v: &Value| v["result"]["structuredContent"].clone();
    assert_eq!(omitted["result"]["isError"], false, "{omitted}");
    assert_eq!(content(&omitted), content(&nulls));
    let null_budget = post(
        &app,
        "tools/call",
        call(json!({"bundle": "example", "question": question, "budget": null})),
    )
    .await;
    assert_eq!(content(&omitted), content(&null_budget));
}
