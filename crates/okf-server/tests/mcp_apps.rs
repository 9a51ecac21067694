//! MCP Apps (`io.modelcontextprotocol/ui`) over the real router: a client that declares the
//! extension in its requests gets the package view (`resources/list`, `resources/read`), the
//! extension in `server/discover`, and `_meta.ui.resourceUri` on the package tools; a client
//! that does not gets exactly the results of the server without views. A 2025-11-25 client
//! that declares it at `initialize` gets the same views on its later (session-less) requests;
//! one that does not still sees no app-only tool (DEVIATIONS M11).
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use axum::body::{Body, to_bytes};
use axum::http::Request;
use okf_server::{CacheLimits, HttpConfig, OkfMcp, Registry, Service, router};
use serde_json::{Value, json};
use std::sync::Arc;
use tower::ServiceExt;

const EXAMPLE_INDEX: &str = include_str!("../../okf/example/index.json");
const VIEW: &str = "ui://ask-okf/package-view.html";
const MIME: &str = "text/html;profile=mcp-app";

fn service() -> Arc<Service> {
    Arc::new(Service::new(
        Registry::example(EXAMPLE_INDEX).unwrap(),
        CacheLimits::default(),
    ))
}

/// Posts `method` with `params` and returns the response body bytes. `modern` sends the
/// 2026-07-28 per-request metadata with these client capabilities; otherwise a legacy
/// (2025-11-25) request without them.
async fn post(
    app: &axum::Router,
    method: &str,
    mut params: Value,
    modern: Option<Value>,
) -> Vec<u8> {
    let mut request = Request::post("/mcp")
        .header("Host", "127.0.0.1")
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream");
    if let Some(capabilities) = modern {
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": capabilities,
            "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"}
        });
        request = request
            .header("MCP-Protocol-Version", "2026-07-28")
            .header("Mcp-Method", method);
        if let Some(name) = params
            .get("name")
            .or(params.get("uri"))
            .and_then(Value::as_str)
        {
            request = request.header("Mcp-Name", name);
        }
    } else if method != "initialize" {
        request = request.header("MCP-Protocol-Version", "2025-11-25");
    }
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let response = app
        .clone()
        .oneshot(request.body(Body::from(body.to_string())).unwrap())
        .await
        .unwrap();
    to_bytes(response.into_body(), 4 << 20)
        .await
        .unwrap()
        .to_vec()
}

fn parse(bytes: &[u8]) -> Value {
    serde_json::from_slice(bytes).unwrap()
}

fn ui() -> Value {
    json!({"extensions": {"io.modelcontextprotocol/ui": {"mimeTypes": [MIME]}}})
}

fn initialize(capabilities: Value) -> Value {
    json!({"protocolVersion": "2025-11-25", "capabilities": capabilities, "clientInfo": {"name": "t", "version": "1"}})
}

#[tokio::test]
async fn without_the_extension_every_result_is_the_servers_without_views() {
    let service = service();
    let app = router(Arc::clone(&service), HttpConfig::loopback(80));
    // The tools as the server built them before views existed (the same table, nothing added).
    let before = serde_json::to_value(
        OkfMcp::new(service)
            .tools(&okf_server::auth::Caller::anonymous())
            .to_vec(),
    )
    .unwrap();
    for capabilities in [
        json!({}),
        json!({"extensions": {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html"]}}}),
    ] {
        let modern = parse(&post(&app, "tools/list", json!({}), Some(capabilities.clone())).await);
        assert_eq!(modern["result"]["tools"], before, "{capabilities}");
        assert!(
            !String::from_utf8(
                post(&app, "tools/list", json!({}), Some(capabilities.clone())).await
            )
            .unwrap()
            .contains("ui://")
        );

        let init = parse(&post(&app, "initialize", initialize(capabilities.clone()), None).await);
        assert_eq!(
            init["result"]["capabilities"],
            json!({"tools": {}, "prompts": {}}),
            "the capabilities of the server without views"
        );
        let discover = parse(
            &post(
                &app,
                "server/discover",
                json!({}),
                Some(capabilities.clone()),
            )
            .await,
        );
        assert_eq!(
            discover["result"]["capabilities"],
            json!({"tools": {}, "prompts": {}}),
            "{discover}"
        );
        for (method, params) in [
            ("resources/list", json!({})),
            ("resources/read", json!({"uri": VIEW})),
        ] {
            let reply = parse(&post(&app, method, params, Some(capabilities.clone())).await);
            assert_eq!(reply["error"]["code"], -32601, "{method}: {reply}");
        }
    }
}

#[tokio::test]
async fn a_client_declaring_the_extension_gets_the_package_view() {
    let app = router(service(), HttpConfig::loopback(80));
    let discover = parse(&post(&app, "server/discover", json!({}), Some(ui())).await);
    assert_eq!(
        discover["result"]["capabilities"]["extensions"],
        json!({"io.modelcontextprotocol/ui": {}})
    );
    assert!(discover["result"]["capabilities"]["resources"].is_object());

    let list = parse(&post(&app, "tools/list", json!({}), Some(ui())).await);
    for tool in list["result"]["tools"].as_array().unwrap() {
        let uri = &tool["_meta"]["ui"]["resourceUri"];
        match tool["name"].as_str().unwrap() {
            "ask_okf" | "okf_get_context" | "ask_okf_manifest" | "okf_check_answer" => {
                assert_eq!(uri, VIEW)
            }
            "okf_view_read_evidence" | "okf_view_catalogue" => {
                assert_eq!(tool["_meta"]["ui"]["visibility"], json!(["app"]));
            }
            name => assert!(uri.is_null(), "{name}"),
        }
        assert_eq!(tool["_meta"]["okf/untrustedContent"], true);
    }
    let resources = parse(&post(&app, "resources/list", json!({}), Some(ui())).await);
    assert_eq!(resources["result"]["resources"][0]["uri"], VIEW);
    assert_eq!(resources["result"]["resources"][0]["mimeType"], MIME);
    let read = parse(&post(&app, "resources/read", json!({"uri": VIEW}), Some(ui())).await);
    let content = &read["result"]["contents"][0];
    assert_eq!(content["mimeType"], MIME);
    assert_eq!(
        content["_meta"]["ui"]["csp"],
        json!({}),
        "no external origin declared"
    );
    let html = content["text"].as_str().unwrap();
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert!(html.contains("script-src 'sha256-"));
    assert!(!html.contains("unsafe-inline") && !html.contains("<script src"));
    let other = parse(
        &post(
            &app,
            "resources/read",
            json!({"uri": "ui://ask-okf/other"}),
            Some(ui()),
        )
        .await,
    );
    assert!(other["error"]["code"].is_i64(), "{other}");
}

#[tokio::test]
async fn ask_okf_returns_the_same_result_with_or_without_the_extension() {
    let app = router(service(), HttpConfig::loopback(80));
    let call = json!({"name": "ask_okf", "arguments": {"bundle": "example", "question": "How do I borrow books?"}});
    let plain = post(&app, "tools/call", call.clone(), Some(json!({}))).await;
    let apps = post(&app, "tools/call", call, Some(ui())).await;
    // The receipt in result._meta records this call's own build (timings, cache), so two
    // calls differ there whatever the client declares; everything else is the same.
    let without_receipt = |bytes: &[u8]| {
        let mut value = parse(bytes);
        let receipt = value["result"]
            .as_object_mut()
            .and_then(|r| r.remove("_meta"));
        assert!(receipt.is_some());
        value
    };
    assert!(parse(&plain)["result"]["structuredContent"]["context_id"].is_string());
    assert_eq!(without_receipt(&plain), without_receipt(&apps));
}

#[tokio::test]
async fn app_only_tools_run_their_model_tool_for_clients_declaring_the_extension_only() {
    let app = router(service(), HttpConfig::loopback(80));
    let question = json!({"bundle": "example", "question": "How do I borrow books?"});
    let first = parse(
        &post(
            &app,
            "tools/call",
            json!({"name": "ask_okf_manifest", "arguments": question.clone()}),
            Some(ui()),
        )
        .await,
    );
    let mut args = question;
    args["context_id"] = first["result"]["structuredContent"]["context_id"].clone();
    args["offset"] = json!(1);
    let call = |name: &str| json!({"name": name, "arguments": args.clone()});
    let without_receipt = |bytes: &[u8]| {
        let mut value = parse(bytes);
        value["result"].as_object_mut().map(|r| r.remove("_meta"));
        value
    };
    let model =
        without_receipt(&post(&app, "tools/call", call("ask_okf_manifest"), Some(ui())).await);
    assert_eq!(
        model["result"]["structuredContent"]["schema"], "okf-context-manifest.v1",
        "{model}"
    );
    assert_eq!(
        model["result"]["structuredContent"]["delivery"]["offset"],
        1
    );
    let app_page =
        without_receipt(&post(&app, "tools/call", call("okf_view_catalogue"), Some(ui())).await);
    assert_eq!(app_page, model, "the app-only name runs the same tool");
    {
        let refused = parse(
            &post(
                &app,
                "tools/call",
                call("okf_view_catalogue"),
                Some(json!({})),
            )
            .await,
        );
        assert!(
            refused["error"]["message"]
                .as_str()
                .is_some_and(|m| m.contains("unknown tool")),
            "{refused}"
        );
    }
}

const APP_ONLY: [&str; 2] = ["okf_view_read_evidence", "okf_view_catalogue"];

fn names(list: &Value) -> Vec<String> {
    list["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn a_2025_11_25_client_declaring_the_extension_at_initialize_gets_the_same_views() {
    let app = router(service(), HttpConfig::loopback(80));
    let init = parse(&post(&app, "initialize", initialize(ui()), None).await);
    assert_eq!(init["result"]["protocolVersion"], "2025-11-25");
    let capabilities = &init["result"]["capabilities"];
    assert_eq!(
        capabilities["extensions"],
        json!({"io.modelcontextprotocol/ui": {}}),
        "{init}"
    );
    assert!(capabilities["resources"].is_object(), "{init}");

    // Its later requests carry no capabilities: each view tool names the view as for a
    // 2026-07-28 client that declares the extension.
    let legacy = parse(&post(&app, "tools/list", json!({}), None).await);
    let modern = parse(&post(&app, "tools/list", json!({}), Some(ui())).await);
    let by_name = |list: &Value, name: &str| {
        list["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == name)
            .cloned()
            .unwrap()
    };
    for name in [
        "ask_okf",
        "okf_get_context",
        "ask_okf_manifest",
        "okf_check_answer",
    ] {
        assert_eq!(by_name(&legacy, name), by_name(&modern, name), "{name}");
        assert_eq!(by_name(&legacy, name)["_meta"]["ui"]["resourceUri"], VIEW);
    }
    // The view itself, the same bytes.
    // (2026-07-28 results also carry resultType and caching fields of their revision.)
    for (method, params, member) in [
        ("resources/list", json!({}), "resources"),
        ("resources/read", json!({"uri": VIEW}), "contents"),
    ] {
        let legacy = parse(&post(&app, method, params.clone(), None).await);
        let modern = parse(&post(&app, method, params, Some(ui())).await);
        assert!(legacy["error"].is_null(), "{method}: {legacy}");
        assert!(legacy["result"][member].is_array(), "{method}: {legacy}");
        assert_eq!(
            legacy["result"][member], modern["result"][member],
            "{method}"
        );
    }
    // The view's app-only reads run when the view calls them by name.
    let question = json!({"bundle": "example", "question": "How do I borrow books?"});
    let first = parse(
        &post(
            &app,
            "tools/call",
            json!({"name": "ask_okf_manifest", "arguments": question.clone()}),
            None,
        )
        .await,
    );
    let mut args = question;
    args["context_id"] = first["result"]["structuredContent"]["context_id"].clone();
    args["offset"] = json!(1);
    let page = parse(
        &post(
            &app,
            "tools/call",
            json!({"name": "okf_view_catalogue", "arguments": args}),
            None,
        )
        .await,
    );
    assert_eq!(
        page["result"]["structuredContent"]["delivery"]["offset"], 1,
        "{page}"
    );
}

#[tokio::test]
async fn a_2025_11_25_client_without_the_extension_sees_no_app_only_tool() {
    let app = router(service(), HttpConfig::loopback(80));
    let init = parse(&post(&app, "initialize", initialize(json!({})), None).await);
    assert_eq!(
        init["result"]["capabilities"],
        json!({"tools": {}, "prompts": {}})
    );
    let legacy = names(&parse(&post(&app, "tools/list", json!({}), None).await));
    let plain = names(&parse(
        &post(&app, "tools/list", json!({}), Some(json!({}))).await,
    ));
    assert_eq!(legacy, plain, "the model's tools, and no app-only tool");
    assert!(!legacy.iter().any(|n| APP_ONLY.contains(&n.as_str())));
    // A 2026-07-28 client that declares it gets the app-only tools, which its host keeps
    // from the model.
    let apps = names(&parse(
        &post(&app, "tools/list", json!({}), Some(ui())).await,
    ));
    assert!(APP_ONLY.iter().all(|n| apps.iter().any(|a| a == n)));
}
