//! No restricted byte on any route: `okf serve` with the example bundle (which holds a
//! restricted staff rota) and a workbench built over it is walked over every route and every
//! MCP tool, and no response may carry a string that only restricted records hold.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use crate::common::{Response, Server, example, example_workbench, temp_dir};
use serde_json::{Value, json};
use std::collections::BTreeSet;

const QUESTIONS: [&str; 5] = [
    "How do I borrow books?",
    "Who holds the meeting room keys in the evening?",
    "Can I hire the meeting room?",
    "What are the opening hours?",
    "Explain room booking",
];

/// Restricted-only strings of the example index, raw and as they appear inside JSON text.
fn secrets() -> Vec<String> {
    let index =
        okf_engine::ContextIndex::from_json_slice(&std::fs::read(example("index.json")).unwrap())
            .unwrap();
    let raw = okf_engine::restricted_only_strings(&index);
    assert!(raw.iter().any(|s| s.contains("Staff only")), "{raw:?}");
    raw.iter()
        .flat_map(|s| {
            let escaped = serde_json::to_string(s).unwrap();
            [s.clone(), escaped[1..escaped.len() - 1].to_owned()]
        })
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect()
}

/// A registry with the example bundle and a workbench built over it.
fn registry() -> std::path::PathBuf {
    let dir = temp_dir("restricted-walk");
    let manifest = example_workbench(&dir, &QUESTIONS);
    let index = example("index.json");
    let sha = okf_engine::canonical::sha256_hex(&std::fs::read(&index).unwrap());
    let registry = dir.join("registry.toml");
    std::fs::write(
        &registry,
        format!(
            "[[bundle]]\nid = \"example\"\nindex = {index:?}\nsha256 = \"{sha}\"\nindex_url = \"https://example.org/okf-example/index.json\"\n\n[[workbench]]\nid = \"wb\"\nmanifest = {manifest:?}\n"
        ),
    )
    .unwrap();
    registry
}

fn tool_call(server: &Server, name: &str, arguments: Value) -> Response {
    server.mcp(
        &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": name, "arguments": arguments}}),
        &[],
    )
}

#[test]
fn no_route_and_no_mcp_tool_returns_restricted_text() {
    let registry = registry();
    let server = Server::start(&["--registry", registry.to_str().unwrap()]);
    let mut seen: Vec<(String, Response)> = Vec::new();
    let mut get = |server: &Server, path: &str| {
        let r = server.request("GET", path, &[], b"");
        seen.push((format!("GET {path}"), r));
        seen.last().map(|(_, r)| r.body.clone()).unwrap_or_default()
    };
    for path in [
        "/",
        "/evidence/",
        "/api/bundles",
        "/api/workbenches",
        "/health",
        "/ready",
        "/metrics",
    ] {
        get(&server, path);
    }
    let web = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../web");
    for entry in std::fs::read_dir(web).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        get(&server, &format!("/assets/{name}"));
    }
    for entry in
        std::fs::read_dir(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../schemas"))
            .unwrap()
    {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        get(&server, &format!("/schemas/{name}"));
    }
    let index = get(&server, "/api/bundles/example/versions/current/index");
    let manifest: Value =
        serde_json::from_slice(&get(&server, "/workbench/wb/manifest.json")).unwrap();
    for case in manifest["questions"].as_array().unwrap() {
        let package = &case["package"];
        get(
            &server,
            &format!("/workbench/wb/{}", package["url"].as_str().unwrap()),
        );
        for part in package["parts"].as_array().into_iter().flatten() {
            get(
                &server,
                &format!("/workbench/wb/{}", part["url"].as_str().unwrap()),
            );
        }
    }
    // The served index is still a valid index the page can assemble from.
    assert!(okf_engine::ContextIndex::from_json_slice(&index).is_ok());

    let mut post = |server: &Server, path: &str, body: Value| {
        let r = server.request(
            "POST",
            path,
            &[("Content-Type", "application/json")],
            body.to_string().as_bytes(),
        );
        seen.push((format!("POST {path} {body}"), r));
        seen.last().map(|(_, r)| r.json()).unwrap_or(Value::Null)
    };
    let mut packages = Vec::new();
    for question in QUESTIONS {
        let ask = json!({"bundle": "example", "question": question});
        let package = post(&server, "/api/ask", ask.clone());
        let context_id = package["context_id"].as_str().unwrap().to_owned();
        post(
            &server,
            "/api/catalogue",
            json!({"bundle": "example", "question": question, "context_id": context_id}),
        );
        for section in ["relationships", "diagnostics", "package"] {
            post(
                &server,
                "/api/read",
                json!({"bundle": "example", "question": question, "context_id": context_id, "section": section}),
            );
        }
        packages.push((question, context_id, package));
    }
    for (question, context_id, package) in &packages {
        let r = server.request("GET", &format!("/api/context/{context_id}"), &[], b"");
        seen.push((format!("GET /api/context {question}"), r));
        let args = json!({"bundle": "example", "question": question});
        for (name, arguments) in [
            ("ask_okf", args.clone()),
            ("okf_get_context", json!({"context_id": context_id})),
            ("okf_explain_context", json!({"context_id": context_id})),
            (
                "ask_okf_manifest",
                json!({"bundle": "example", "question": question, "context_id": context_id}),
            ),
        ] {
            let r = tool_call(&server, name, arguments);
            seen.push((format!("MCP {name} {question}"), r));
        }
        // search, then fetch of every result id it listed and of positions past its end.
        let r = tool_call(
            &server,
            "search",
            json!({"query": format!("example: {question}")}),
        );
        let results = r.json()["result"]["structuredContent"]["results"].clone();
        seen.push((format!("MCP search {question}"), r));
        let mut fetch_ids: Vec<String> = results
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|result| result["id"].as_str().map(str::to_owned))
            .collect();
        assert!(fetch_ids.len() > 1, "search listed {fetch_ids:?}");
        let listed = fetch_ids.len();
        fetch_ids.extend((listed..listed + 4).map(|n| format!("{context_id}#record-{n}")));
        for id in fetch_ids {
            let r = tool_call(&server, "fetch", json!({"id": id}));
            seen.push((format!("MCP fetch {id}"), r));
        }
        // Every record the package names, selected or not (a restricted id included), read
        // and explained by id.
        let mut ids = BTreeSet::new();
        for selected in package["selected"].as_array().into_iter().flatten() {
            ids.insert(
                selected["record"]["id"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned(),
            );
        }
        for issue in package["missing_evidence"].as_array().into_iter().flatten() {
            for id in issue["ids"].as_array().into_iter().flatten() {
                ids.insert(id.as_str().unwrap_or_default().to_owned());
            }
        }
        for id in ids {
            for section in ["record_text", "record_metadata"] {
                let r = tool_call(
                    &server,
                    "read_okf_evidence",
                    json!({"bundle": "example", "question": question, "context_id": context_id, "section": section, "record_id": id}),
                );
                seen.push((format!("MCP read {section} {id}"), r));
            }
            let r = tool_call(
                &server,
                "okf_explain_context",
                json!({"context_id": context_id, "record_id": id}),
            );
            seen.push((format!("MCP explain {id}"), r));
        }
    }
    // Every workbench case through the MCP tool (the staff rota question among them).
    seen.push((
        "MCP okf_workbench_case list".into(),
        tool_call(&server, "okf_workbench_case", json!({"workbench": "wb"})),
    ));
    for case in manifest["questions"].as_array().unwrap() {
        let case_id = case["id"].as_str().unwrap();
        let r = tool_call(
            &server,
            "okf_workbench_case",
            json!({"workbench": "wb", "case_id": case_id}),
        );
        seen.push((format!("MCP okf_workbench_case {case_id}"), r));
    }
    let r = server.mcp(
        &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
        &[],
    );
    seen.push(("MCP tools/list".into(), r));
    let r = server.mcp(
        &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "walk", "version": "1"}}}),
        &[],
    );
    seen.push(("MCP initialize".into(), r));
    let log = server.stop();

    let secrets = secrets();
    assert!(seen.len() > 60, "walked {} requests", seen.len());
    for (what, response) in &seen {
        let body = String::from_utf8_lossy(&response.body);
        let headers = format!("{:?}", response.headers);
        for secret in &secrets {
            assert!(
                !body.contains(secret.as_str()) && !headers.contains(secret.as_str()),
                "{what} returned restricted text {secret:?}"
            );
        }
    }
    for secret in &secrets {
        assert!(
            !log.contains(secret.as_str()),
            "the log holds restricted text {secret:?}"
        );
    }
    assert!(
        seen.iter()
            .filter(|(what, _)| what.starts_with("MCP read record_text"))
            .count()
            > 5,
        "records were read"
    );
    // The staff rota question reaches the restricted record and names it by id only.
    let keys = &packages[1].2;
    assert!(
        keys.to_string()
            .contains("https://example.org/okf-example/evidence/staff-key-holders"),
        "{keys}"
    );
}
