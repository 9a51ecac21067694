//! Within host limits at any budget: no `tools/call` result passes 1,000,000 bytes (desktop
//! hosts refuse larger ones), while `structuredContent` stays the exact package; a package
//! small enough to travel twice still comes back as its own text too.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use crate::common::{Server, dwp_registry, imprisonment_question, temp_dir};
use serde_json::{Value, json};

const LIMIT: usize = 1_000_000;

fn call(server: &Server, tool: &str, arguments: Value) -> (usize, Value) {
    let r = server.mcp(
        &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": tool, "arguments": arguments}}),
        &[],
    );
    assert_eq!(r.status, 200, "{tool}");
    (r.body.len(), r.json())
}

#[test]
fn no_tool_result_passes_a_million_bytes_at_the_largest_budget() {
    let dir = temp_dir("host-limits");
    let registry = dwp_registry(&dir, "");
    let server = Server::start(&["--registry", registry.to_str().unwrap()]);
    let ask = json!({"bundle": "okf-dwp", "question": imprisonment_question(), "budget": {"max_bytes": 524_288}});
    let http = server.ask(&ask);
    assert_eq!(http.status, 200);
    let package: Value = http.json();
    let context_id = package["context_id"].as_str().unwrap().to_owned();
    assert!(http.body.len() > 400_000, "a package near the budget");

    let (size, reply) = call(&server, "ask_okf", ask.clone());
    assert!(size <= LIMIT, "ask_okf result is {size} bytes");
    let result = &reply["result"];
    assert_eq!(result["structuredContent"], package, "the exact package");
    // What a model reads: the package's evidence brief, bounded by its own budget, naming
    // the package and how to read what it leaves out.
    let text = result["content"][0]["text"].as_str().unwrap();
    assert_eq!(text, crate::common::brief_of(&http.text()));
    assert!(text.chars().count() <= okf_brief::DEFAULT_MAX_CHARS);
    assert!(text.contains(&context_id));
    assert!(text.contains("read_okf_evidence"));

    let (size, reply) = call(
        &server,
        "okf_get_context",
        json!({"context_id": context_id}),
    );
    assert!(size <= LIMIT, "okf_get_context result is {size} bytes");
    assert_eq!(reply["result"]["structuredContent"], package);

    let (size, reply) = call(
        &server,
        "okf_explain_context",
        json!({"context_id": context_id}),
    );
    assert!(size <= LIMIT, "okf_explain_context result is {size} bytes");
    assert_eq!(
        reply["result"]["isError"], false,
        "{}",
        reply["result"]["content"]
    );

    let mut read = ask.clone();
    read["context_id"] = json!(context_id);
    read["section"] = json!("package");
    read["delivery_bytes"] = json!(65_536);
    let (size, _) = call(&server, "read_okf_evidence", read);
    assert!(size <= LIMIT);
    let mut manifest = ask;
    manifest["delivery_bytes"] = json!(65_536);
    let (size, _) = call(&server, "ask_okf_manifest", manifest);
    assert!(size <= LIMIT);
    server.stop();
}

#[test]
fn the_largest_workbench_case_stays_within_a_million_bytes_measured() {
    // A workbench whose one case is the imprisonment question at the largest budget: its
    // package and briefing come to about 490 KB, and the result once carried them twice
    // (1,004,986 bytes, under an estimate that missed JSON escaping).
    let dir = temp_dir("host-limits-workbench");
    let questions = dir.join("questions.json");
    std::fs::write(
        &questions,
        json!({"questions": [{"id": "imprisonment", "label": "Imprisonment", "question": imprisonment_question()}]}).to_string(),
    )
    .unwrap();
    let out = dir.join("wb");
    let built = crate::common::okf(&[
        "workbench",
        "build",
        "--index",
        &crate::common::shared("dwp/full-dmg/context/assembly-index.json"),
        "--binding-url",
        crate::common::DWP_URL,
        "--binding-sha256",
        crate::common::DWP_SHA,
        "--questions",
        questions.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(built.status.success(), "{}", crate::common::stderr(&built));
    let registry = dwp_registry(
        &dir,
        &crate::common::workbench_entry(&out.join("manifest.json")),
    );
    let server = Server::start(&["--registry", registry.to_str().unwrap()]);
    let (size, reply) = call(
        &server,
        "okf_workbench_case",
        json!({"workbench": "wb", "case_id": "imprisonment"}),
    );
    let result = &reply["result"];
    assert_eq!(result["isError"], false, "{}", result["content"]);
    assert!(size <= LIMIT, "okf_workbench_case result is {size} bytes");
    let package = &result["structuredContent"]["package"];
    assert!(
        package.to_string().len() > 400_000,
        "the case carries the whole package"
    );
    let text = result["content"][0]["text"].as_str().unwrap();
    assert_eq!(
        text,
        crate::common::brief_of(&package.to_string()),
        "a model reads the case's evidence brief"
    );
    server.stop();
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_small_package_is_still_read_as_its_brief_and_kept_whole_as_structured_content() {
    let server = Server::start(&[]);
    let ask = json!({"bundle": "example", "question": "How do I borrow books?"});
    let http = server.ask(&ask);
    let (_, reply) = call(&server, "ask_okf", ask);
    assert_eq!(
        reply["result"]["content"][0]["text"].as_str().unwrap(),
        crate::common::brief_of(&http.text())
    );
    assert_eq!(reply["result"]["structuredContent"], http.json());
    server.stop();
}

/// The model-visible bytes of `registry`'s tool list (names, descriptions, input schemas as
/// compact JSON) and the number of tools.
fn model_visible(registry: &std::path::Path) -> (usize, usize) {
    let server = Server::start(&["--registry", registry.to_str().unwrap()]);
    let r = server.mcp(
        &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
        &[],
    );
    let tools = r.json()["result"]["tools"].as_array().unwrap().clone();
    server.stop();
    let visible = tools
        .iter()
        .map(|t| {
            json!({"name": t["name"], "description": t["description"], "inputSchema": t["inputSchema"]})
                .to_string()
                .len()
        })
        .sum();
    (visible, tools.len())
}

#[test]
fn the_part_of_the_tool_list_a_model_sees_stays_within_12000_bytes() {
    // Names, descriptions and input schemas go into every conversation's context; the
    // largest registry enums come from the DWP bundle plus the example.
    let dir = temp_dir("host-limits-list");
    let registry = dwp_registry(&dir, "");
    let (visible, tools) = model_visible(&registry);
    assert!(tools >= 8, "{tools} tools");
    assert!(
        visible <= 12_000,
        "the model-visible part is {visible} bytes"
    );
    // A registry that serves a workbench lists okf_workbench_case too, within 650 bytes more.
    let manifest = crate::common::example_workbench(&dir, &["How do I borrow books?"]);
    let with_workbench = dwp_registry(&dir, &crate::common::workbench_entry(&manifest));
    let (more, ninth) = model_visible(&with_workbench);
    assert_eq!(ninth, tools + 1);
    assert!(
        more - visible <= 650,
        "okf_workbench_case adds {} model-visible bytes",
        more - visible
    );
}
