//! The `search` / `fetch` pair in the shape ChatGPT's deep research and company knowledge
//! modes require: `search` lists the governed package first and then its selected records in
//! package order; `fetch` returns each one's exact text, verifiable by its hash, with the
//! package's status, scope and limitations; an id whose package no longer replays is refused.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use crate::common::{Server, dwp_registry, imprisonment_question, temp_dir};
use serde_json::{Value, json};
use std::path::Path;

fn call(server: &Server, tool: &str, arguments: Value) -> Value {
    let r = server.mcp(
        &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": tool, "arguments": arguments}}),
        &[],
    );
    assert_eq!(r.status, 200, "{tool}");
    r.json()["result"].clone()
}

/// The one JSON text item ChatGPT reads, checked against `structuredContent`.
fn reply(result: &Value) -> Value {
    assert_eq!(result["isError"], false, "{}", result["content"]);
    let content = result["content"].as_array().unwrap();
    assert_eq!(content.len(), 1, "one content item");
    assert_eq!(content[0]["type"], "text");
    let parsed: Value = serde_json::from_str(content[0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(parsed, result["structuredContent"]);
    parsed
}

fn error_text(result: &Value) -> String {
    assert_eq!(result["isError"], true, "{}", result["structuredContent"]);
    assert!(result.get("structuredContent").is_none_or(Value::is_null));
    result["content"][0]["text"].as_str().unwrap().to_owned()
}

fn sha256(text: &str) -> String {
    okf_engine::canonical::sha256_hex(text.as_bytes())
}

/// A registry serving the DWP bundle and the example bundle side by side.
fn dwp_and_example_registry(dir: &Path) -> std::path::PathBuf {
    let example = crate::common::example("index.json");
    let sha = okf_engine::canonical::sha256_hex(&std::fs::read(&example).unwrap());
    dwp_registry(
        dir,
        &format!(
            "\n[[bundle]]\nid = \"example\"\nindex = \"{example}\"\nsha256 = \"{sha}\"\nindex_url = \"https://example.org/okf-example/index.json\"\n"
        ),
    )
}

#[test]
fn search_lists_the_package_then_its_52_records_and_fetch_returns_each_exactly() {
    let dir = temp_dir("deep-research-dwp");
    let registry = dwp_registry(&dir, "");
    let server = Server::start(&["--registry", registry.to_str().unwrap()]);
    let question = imprisonment_question();
    let package: Value = server
        .ask(&json!({"bundle": "okf-dwp", "question": question}))
        .json();
    let context_id = package["context_id"].as_str().unwrap();
    let selected = package["selected"].as_array().unwrap();
    assert_eq!(selected.len(), 52);

    let results = reply(&call(&server, "search", json!({"query": question})))["results"].clone();
    let results = results.as_array().unwrap();
    assert_eq!(results.len(), 53, "the package, then 52 records");
    assert_eq!(results[0]["id"], format!("{context_id}#package"));
    assert!(
        results
            .iter()
            .all(|r| !r["url"].as_str().unwrap().is_empty())
    );

    let mut joined = String::new();
    for (i, result) in results.iter().enumerate().skip(1) {
        assert_eq!(result["id"], format!("{context_id}#record-{i}"));
        let record = &selected[i - 1]["record"];
        assert_eq!(result["title"], record["label"]);
        assert!(result["url"].as_str().unwrap().starts_with("https://"));
        let document = reply(&call(&server, "fetch", json!({"id": result["id"]})));
        assert_eq!(document["id"], result["id"]);
        assert_eq!(document["url"], result["url"]);
        let text = document["text"].as_str().unwrap();
        assert_eq!(text, record["text"].as_str().unwrap(), "record {i}");
        let metadata = &document["metadata"];
        assert_eq!(metadata["text_sha256"], sha256(text));
        assert_eq!(metadata["record_id"], record["id"]);
        assert_eq!(metadata["record_provenance"], record["provenance"]);
        // The record's standing travels with its text: authored or extracted, reviewed or
        // not, public or restricted, as the package has it.
        assert_eq!(
            metadata["record_assertion_status"],
            record["assertion_status"]
        );
        assert_eq!(metadata["record_review_status"], record["review_status"]);
        assert_eq!(metadata["record_access"], "public");
        assert_eq!(metadata["evidence_status"], package["evidence_status"]);
        assert_eq!(metadata["scope"], package["scope"]);
        assert_eq!(metadata["limitations"], package["limitations"]);
        assert_eq!(metadata["context_id"], package["context_id"]);
        assert_eq!(metadata["parts"], 1);
        joined.push_str(text);
    }
    let expected: String = selected
        .iter()
        .map(|s| s["record"]["text"].as_str().unwrap())
        .collect();
    assert_eq!(joined, expected, "the joined texts are the package's");

    let summary = reply(&call(&server, "fetch", json!({"id": results[0]["id"]})));
    let text = summary["text"].as_str().unwrap();
    assert!(text.contains("Evidence status: sufficient"), "{text}");
    assert!(text.contains("not an answer"));
    assert_eq!(summary["metadata"]["ai_answer"], Value::Null);
    assert_eq!(summary["metadata"]["selected_records"], 52);
    assert!(
        summary["url"]
            .as_str()
            .unwrap()
            .contains("#bundle=okf-dwp&q=")
    );
    server.stop();
}

/// The example index with one record's text made `units` characters long (its literal hash
/// kept true), written to `dir`; returns the registry path.
fn example_registry(dir: &Path, text: Option<String>) -> std::path::PathBuf {
    let mut index: Value = serde_json::from_str(
        &std::fs::read_to_string(crate::common::example("index.json")).unwrap(),
    )
    .unwrap();
    if let Some(text) = text {
        let record = index["records"]
            .as_array_mut()
            .unwrap()
            .iter_mut()
            .find(|r| {
                r["id"]
                    .as_str()
                    .unwrap()
                    .ends_with("/evidence/lending-rules")
            })
            .unwrap();
        record["provenance"][0]["literal_sha256"] = json!(sha256(&text));
        record["text"] = json!(text);
    }
    let bytes = serde_json::to_vec(&index).unwrap();
    std::fs::write(dir.join("index.json"), &bytes).unwrap();
    let path = dir.join("registry.toml");
    std::fs::write(
        &path,
        format!(
            "[[bundle]]\nid = \"example\"\nindex = \"index.json\"\nsha256 = \"{}\"\nindex_url = \"https://example.org/okf-example/index.json\"\n",
            okf_engine::canonical::sha256_hex(&bytes)
        ),
    )
    .unwrap();
    path
}

fn search_ids(server: &Server, query: &str) -> Vec<String> {
    reply(&call(server, "search", json!({"query": query})))["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn a_long_record_text_is_listed_in_parts_that_join_to_it_exactly() {
    let dir = temp_dir("deep-research-parts");
    // 50,001 UTF-16 units with a surrogate pair straddling the first part boundary.
    let long = format!("{}💷{}", "a".repeat(23_999), "b".repeat(26_000));
    let registry = example_registry(&dir, Some(long.clone()));
    let server = Server::start(&["--registry", registry.to_str().unwrap()]);
    let ids = search_ids(&server, "How do I borrow books?");
    let parts: Vec<&String> = ids.iter().filter(|id| id.contains("-part-")).collect();
    assert_eq!(parts.len(), 3, "{ids:?}");
    let mut joined = String::new();
    for (n, id) in parts.iter().enumerate() {
        let document = reply(&call(&server, "fetch", json!({"id": id})));
        let metadata = &document["metadata"];
        assert_eq!(metadata["part"], n + 1);
        assert_eq!(metadata["parts"], 3);
        assert_eq!(metadata["text_sha256"], sha256(&long));
        assert_eq!(
            metadata["next_id"],
            parts.get(n + 1).map_or(Value::Null, |p| json!(p))
        );
        joined.push_str(document["text"].as_str().unwrap());
    }
    assert_eq!(joined, long);
    let whole = parts[0].split("-part-").next().unwrap();
    assert!(error_text(&call(&server, "fetch", json!({"id": whole}))).contains("3 parts"));
    server.stop();
}

#[test]
fn an_id_whose_package_no_longer_replays_is_refused_with_nothing_returned() {
    let dir = temp_dir("deep-research-stale");
    let registry = example_registry(&dir, None);
    let server = Server::start(&["--registry", registry.to_str().unwrap()]);
    let ids = search_ids(&server, "How do I borrow books?");
    let record = ids.iter().find(|id| id.ends_with("#record-2")).unwrap();
    let before = reply(&call(&server, "fetch", json!({"id": record})));

    // The bundle's bytes change (a new text for the same record) and the server reloads.
    example_registry(&dir, Some("Members may borrow 3 books.".into()));
    server.signal("HUP");
    let mut refused = String::new();
    for _ in 0..100 {
        let result = call(&server, "fetch", json!({"id": record}));
        if result["isError"] == true {
            refused = error_text(&result);
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert!(refused.starts_with("context_mismatch"), "{refused}");
    assert!(!refused.contains(before["text"].as_str().unwrap()));
    assert!(
        !refused.contains("borrow 3 books"),
        "no substitute evidence"
    );

    // An id no search listed, and ids that are not ids at all.
    let unknown = format!("urn:sha256:{}#package", "0".repeat(64));
    assert!(
        error_text(&call(&server, "fetch", json!({"id": unknown})))
            .starts_with("unknown_result_id")
    );
    for id in ["", "record-1", &format!("{}#record-0", &record[..75])] {
        let text = error_text(&call(&server, "fetch", json!({"id": id})));
        assert!(
            text.starts_with("unknown_result_id") || text.starts_with("invalid_request"),
            "{id}: {text}"
        );
    }
    let past = format!("{}#record-99", &record[..75]);
    let fresh = search_ids(&server, "How do I borrow books?");
    assert_ne!(
        fresh[0][..75],
        record[..75],
        "the new bytes give a new context"
    );
    assert!(
        error_text(&call(&server, "fetch", json!({"id": past}))).starts_with("context_mismatch")
    );
    server.stop();
}

#[test]
fn a_query_prefix_chooses_the_bundle_and_without_one_every_bundle_is_searched() {
    let dir = temp_dir("deep-research-prefix");
    let registry = dwp_and_example_registry(&dir);
    let server = Server::start(&["--registry", registry.to_str().unwrap()]);
    let package: Value = server
        .ask(&json!({"bundle": "example", "question": "How do I borrow books?"}))
        .json();
    let example_package = format!("{}#package", package["context_id"].as_str().unwrap());
    let ids = search_ids(&server, "example: How do I borrow books?");
    assert_eq!(ids[0], example_package);
    assert_eq!(ids.len(), 1 + package["selected"].as_array().unwrap().len());

    // Without a prefix, both bundles are searched; the example's evidence comes first.
    let all = search_ids(&server, "How do I borrow books?");
    assert_eq!(all[0], example_package, "{all:?}");
    let packages: Vec<&String> = all.iter().filter(|id| id.ends_with("#package")).collect();
    assert_eq!(packages.len(), 2, "{all:?}");

    // An unknown prefix is part of the question, which is searched on every bundle.
    let unknown = search_ids(&server, "nope: How do I borrow books?");
    assert_eq!(
        unknown.iter().filter(|id| id.ends_with("#package")).count(),
        2
    );
    server.stop();
}

/// okf-dwp at its published version (the default) with the hospital profile composed onto it
/// as a second version, and the example bundle beside it; no `search_bundle`.
fn two_bundles_and_a_hospital_version(dir: &Path) -> std::path::PathBuf {
    let base = crate::common::shared("dwp/full-dmg/context/assembly-index.json");
    let composed = dir.join("composed.json");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let built = crate::common::okf(&[
        "build",
        root.join("profiles/dwp-hospital").to_str().unwrap(),
        "--sources",
        &crate::common::shared("dwp/source"),
        "--base",
        &base,
        "--out",
        composed.to_str().unwrap(),
    ]);
    assert!(built.status.success(), "{}", crate::common::stderr(&built));
    let example = crate::common::example("index.json");
    let path = dir.join("registry.toml");
    std::fs::write(
        &path,
        format!(
            "[[bundle]]\nid = \"okf-dwp\"\nindex = {base:?}\nsha256 = \"{}\"\nindex_url = \"{}\"\nversion_name = \"efb05c6\"\n\n[[bundle.versions]]\nname = \"efb05c6-hospital\"\nindex = {:?}\nsha256 = \"{}\"\n\n[[bundle]]\nid = \"example\"\nindex = {example:?}\nsha256 = \"{}\"\nindex_url = \"https://example.org/okf-example/index.json\"\n",
            crate::common::DWP_SHA,
            crate::common::DWP_URL,
            composed.to_str().unwrap(),
            sha256_file(&composed),
            sha256_file(Path::new(&example)),
        ),
    )
    .unwrap();
    path
}

fn sha256_file(path: &Path) -> String {
    okf_engine::canonical::sha256_hex(&std::fs::read(path).unwrap())
}

const HOSPITAL_QUESTION: &str = "A claimant is admitted to hospital. Explain the effect on JSA, Income Support, State Pension Credit and ESA, distinguishing entitlement, payment and changes in amount, and trace each conclusion to the applicable DWP guidance.";

#[test]
fn search_names_the_bundle_and_version_of_every_result_and_a_prefix_may_name_the_hospital_version()
{
    let dir = temp_dir("deep-research-versions");
    let registry = two_bundles_and_a_hospital_version(&dir);
    let server = Server::start(&["--registry", registry.to_str().unwrap()]);
    let context_of = |body: Value| {
        let r = server.ask(&body);
        assert_eq!(r.status, 200, "{}", r.text());
        r.json()["context_id"].as_str().unwrap().to_owned()
    };
    let default_dwp = context_of(json!({"bundle": "okf-dwp", "question": HOSPITAL_QUESTION}));
    let hospital = context_of(
        json!({"bundle": "okf-dwp", "version": "efb05c6-hospital", "question": HOSPITAL_QUESTION}),
    );
    let example = context_of(json!({"bundle": "example", "question": HOSPITAL_QUESTION}));

    // Without a prefix: every bundle the caller sees, each at its default version, and every
    // result says which.
    let results = reply(&call(
        &server,
        "search",
        json!({"query": HOSPITAL_QUESTION}),
    ))["results"]
        .as_array()
        .unwrap()
        .clone();
    let expected = |context_id: &str| match context_id {
        c if c == default_dwp => ("okf-dwp", "efb05c6"),
        c if c == example => ("example", ""),
        c => panic!("a result from neither default version: {c}"),
    };
    let mut packages = Vec::new();
    for result in &results {
        let id = result["id"].as_str().unwrap();
        let (bundle, version) = expected(id.split('#').next().unwrap());
        assert_eq!(result["bundle"], bundle, "{result}");
        if !version.is_empty() {
            assert_eq!(result["version"], version, "{result}");
        }
        assert!(result["version"].is_string(), "{result}");
        if id.ends_with("#package") {
            packages.push(id.to_owned());
        }
    }
    assert_eq!(packages.len(), 2, "{packages:?}");
    assert!(
        !results
            .iter()
            .any(|r| r["id"].as_str().unwrap().starts_with(&hospital))
    );

    // With `okf-dwp@efb05c6-hospital: `, the hospital version, named on every result.
    let prefixed = reply(&call(
        &server,
        "search",
        json!({"query": format!("okf-dwp@efb05c6-hospital: {HOSPITAL_QUESTION}")}),
    ))["results"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(prefixed[0]["id"], format!("{hospital}#package"));
    assert!(prefixed.len() > 1, "the hospital version selects records");
    for result in &prefixed {
        assert_eq!(result["bundle"], "okf-dwp");
        assert_eq!(result["version"], "efb05c6-hospital");
    }

    // fetch replays exactly what each search named: the package and a record of each.
    for result in [&results[0], &results[1], &prefixed[0], &prefixed[1]] {
        let document = reply(&call(&server, "fetch", json!({"id": result["id"]})));
        assert_eq!(document["id"], result["id"]);
        assert_eq!(document["metadata"]["bundle"], result["bundle"]);
        assert_eq!(document["metadata"]["version"], result["version"]);
        assert_eq!(
            document["metadata"]["context_id"],
            result["id"].as_str().unwrap().split('#').next().unwrap()
        );
    }
    // A version the bundle does not have is refused, naming it.
    let refused = error_text(&call(
        &server,
        "search",
        json!({"query": format!("okf-dwp@nope: {HOSPITAL_QUESTION}")}),
    ));
    assert!(refused.contains("nope"), "{refused}");
    server.stop();
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn every_tool_is_read_only_declares_noauth_and_marks_untrusted_content() {
    let server = Server::start(&[]);
    let r = server.mcp(
        &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
        &[],
    );
    let tools = r.json()["result"]["tools"].as_array().unwrap().clone();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert!(
        names.contains(&"search") && names.contains(&"fetch"),
        "{names:?}"
    );
    for tool in &tools {
        let name = &tool["name"];
        assert_eq!(
            tool["_meta"]["securitySchemes"],
            json!([{"type": "noauth"}]),
            "{name}"
        );
        assert_eq!(tool["_meta"]["okf/untrustedContent"], true, "{name}");
        assert_eq!(tool["annotations"]["readOnlyHint"], true, "{name}");
    }
    let search = tools.iter().find(|t| t["name"] == "search").unwrap();
    assert_eq!(search["inputSchema"]["required"], json!(["query"]));
    let fetch = tools.iter().find(|t| t["name"] == "fetch").unwrap();
    assert_eq!(fetch["inputSchema"]["required"], json!(["id"]));
    server.stop();
}

/// The DWP and example bundles and the example workbench (so `okf_workbench_case` is listed).
fn dwp_example_and_workbench_registry(dir: &std::path::Path) -> std::path::PathBuf {
    let registry = dwp_and_example_registry(dir);
    let manifest = crate::common::example_workbench(dir, &["How do I borrow books?"]);
    let mut text = std::fs::read_to_string(&registry).unwrap();
    text.push_str(&crate::common::workbench_entry(&manifest));
    std::fs::write(&registry, text).unwrap();
    registry
}

#[test]
#[ignore = "needs the AI hosts' Python clients that scripts/test installs (OKF_HOST_CLIENTS_PYTHON)"]
fn the_hosts_own_clients_call_every_tool_strict_and_not_and_the_search_fetch_journey_holds() {
    let dir = temp_dir("deep-research-hosts");
    // A workbench too, so okf_workbench_case goes through every converter and client.
    let registry = dwp_example_and_workbench_registry(&dir);
    let server = Server::start(&["--registry", registry.to_str().unwrap()]);
    let report = crate::common::external_python_report(
        "OKF_HOST_CLIENTS_PYTHON",
        "host_clients.py",
        &[
            format!("http://{}/mcp", server.addr),
            format!("http://{}/api/ask", server.addr),
            "--workbench".into(),
            "wb=q0".into(),
            "example=How do I borrow books?".into(),
            format!("okf-dwp={}", imprisonment_question()),
        ],
    );
    // Every tool on both bundles through each client, so a client that listed nothing cannot
    // pass by checking nothing.
    assert!(report.matches("ok   ").count() >= 90, "{report}");
    server.stop();
}

#[test]
#[ignore = "needs the AI hosts' Python clients that scripts/test installs (OKF_HOST_CLIENTS_PYTHON)"]
fn the_agents_sdk_and_pydantic_ai_strict_converters_leave_every_served_schema_unchanged() {
    let dir = temp_dir("deep-research-strict");
    let registry = dwp_example_and_workbench_registry(&dir);
    let server = Server::start(&["--registry", registry.to_str().unwrap()]);
    let report = crate::common::external_python_report(
        "OKF_HOST_CLIENTS_PYTHON",
        "strict_schemas.py",
        &[format!("http://{}/mcp", server.addr)],
    );
    // Eleven tools (nine model tools, two app-only), five checks each, and the listing.
    assert!(report.matches("ok   ").count() >= 56, "{report}");
    server.stop();
}

#[test]
#[ignore = "needs the AI hosts' Python clients that scripts/test installs (OKF_HOST_CLIENTS_PYTHON)"]
fn google_adk_and_google_genai_declare_every_tool_without_loss_and_adk_calls_each() {
    let dir = temp_dir("deep-research-gemini");
    let registry = dwp_example_and_workbench_registry(&dir);
    let server = Server::start(&["--registry", registry.to_str().unwrap()]);
    let report = crate::common::external_python_report(
        "OKF_HOST_CLIENTS_PYTHON",
        "gemini_hosts.py",
        &[
            format!("http://{}/mcp", server.addr),
            "--workbench".into(),
            "wb=q0".into(),
            "example=How do I borrow books?".into(),
            format!("okf-dwp={}", imprisonment_question()),
        ],
    );
    // Nine tools, each declared three ways (two checks each, and the kind of declaration),
    // then an ADK agent run per bundle calling every tool with the optional fields null and
    // again omitted, so a host that listed nothing cannot pass by checking nothing.
    assert!(report.matches("ok   ").count() >= 100, "{report}");
    server.stop();
}
