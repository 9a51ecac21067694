//! `okf serve` serving evidence workbench directories read-only.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use crate::common::{Server, example_workbench_registry, shared, temp_dir};
use serde_json::Value;

#[test]
fn registry_workbenches_are_listed_and_only_their_listed_files_are_served() {
    let dir = temp_dir("workbench-serve");
    let registry = dir.join("registry.toml");
    let manifest = shared("dwp/evaluation/evidence-workbench/manifest.json");
    std::fs::write(
        &registry,
        format!("[[workbench]]\nid = \"dwp-staff\"\nmanifest = {manifest:?}\n"),
    )
    .unwrap();
    let server = Server::start(&["--registry", registry.to_str().unwrap()]);
    let list = server.request("GET", "/api/workbenches", &[], b"");
    assert_eq!(list.status, 200);
    let v: Value = serde_json::from_slice(&list.body).unwrap();
    let bytes = std::fs::read(&manifest).unwrap();
    assert_eq!(v["workbenches"][0]["id"], "dwp-staff");
    assert_eq!(v["workbenches"][0]["questions"], 40);
    assert_eq!(
        v["workbenches"][0]["snapshot_id"],
        format!("sha256:{}", okf_engine::canonical::sha256_hex(&bytes))
    );
    let got = server.request("GET", "/workbench/dwp-staff/manifest.json", &[], b"");
    assert_eq!(got.status, 200);
    assert_eq!(got.body, bytes, "the manifest is served byte for byte");
    // Listed but absent: a clear 404 naming the part.
    let part = server.request(
        "GET",
        "/workbench/dwp-staff/parts/staff-001-000.json",
        &[],
        b"",
    );
    assert_eq!(part.status, 404);
    assert!(String::from_utf8_lossy(&part.body).contains("parts/staff-001-000.json"));
    // Nothing outside the manifest's list is reachable.
    for path in [
        "/workbench/dwp-staff/README.md",
        "/workbench/dwp-staff/../README.md",
        "/workbench/dwp-staff/%2e%2e/README.md",
        "/workbench/dwp-staff/parts/..%2fREADME.md",
        "/workbench/other/manifest.json",
    ] {
        let r = server.request("GET", path, &[], b"");
        assert_eq!(r.status, 404, "{path}");
        assert!(
            !String::from_utf8_lossy(&r.body).contains("DWP evidence-workbench manifest"),
            "{path}"
        );
    }
    server.stop();
}

/// A `tools/call` of `okf_workbench_case` with `arguments`: the call's `result`.
fn workbench_case(server: &Server, arguments: Value) -> Value {
    let r = server.mcp(
        &serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "okf_workbench_case", "arguments": arguments}}),
        &[],
    );
    assert_eq!(r.status, 200, "{}", r.text());
    r.json()["result"].clone()
}

/// The refusal text of a tool result that must be an error without structured content.
fn refusal(result: &Value) -> String {
    assert_eq!(result["isError"], true, "{result}");
    assert!(result.get("structuredContent").is_none_or(Value::is_null));
    result["content"][0]["text"].as_str().unwrap().to_owned()
}

fn tool_names(server: &Server) -> Vec<String> {
    let r = server.mcp(
        &serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
        &[],
    );
    r.json()["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn okf_workbench_case_is_listed_only_where_a_workbench_is_served() {
    let plain = Server::start(&[]);
    assert!(!tool_names(&plain).contains(&"okf_workbench_case".to_owned()));
    plain.stop();
    let dir = temp_dir("wb-case-listed");
    let (registry, _) = example_workbench_registry(&dir, &["How do I borrow books?"]);
    let server = Server::start(&["--registry", registry.to_str().unwrap()]);
    let r = server.mcp(
        &serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
        &[],
    );
    let tools = r.json()["result"]["tools"].clone();
    let tool = tools
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "okf_workbench_case")
        .expect("listed");
    assert_eq!(
        tool["inputSchema"]["properties"]["workbench"]["enum"],
        serde_json::json!(["wb"])
    );
    server.stop();
}

#[test]
fn okf_workbench_case_returns_the_verified_package_and_names_what_it_refuses() {
    let dir = temp_dir("wb-case");
    let (registry, manifest) = example_workbench_registry(
        &dir,
        &["How do I borrow books?", "What are the opening hours?"],
    );
    let declared: Value = serde_json::from_slice(&std::fs::read(&manifest).unwrap()).unwrap();
    let server = Server::start(&["--registry", registry.to_str().unwrap()]);

    // Without a case: the cases, nothing else.
    let listed = workbench_case(&server, serde_json::json!({"workbench": "wb"}));
    let value = &listed["structuredContent"];
    assert_eq!(value["schema"], "okf-workbench-case.v1");
    assert_eq!(value["cases"][0]["id"], "q0");
    assert_eq!(value["cases"][1]["question"], "What are the opening hours?");
    assert!(value["case"].is_null() && value["package"].is_null());
    let text: Value = serde_json::from_str(listed["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(&text, value, "the text block is the structured content");

    // A case: its package is the one the manifest declares, byte for byte once canonical.
    let opened = workbench_case(
        &server,
        serde_json::json!({"workbench": "wb", "case_id": "q1", }),
    );
    let value = &opened["structuredContent"];
    let package = &value["package"];
    assert_eq!(package["question"], "What are the opening hours?");
    let canonical = okf_engine::canonical::to_canonical_string(package).unwrap();
    let sha = okf_engine::canonical::sha256_hex(canonical.as_bytes());
    assert_eq!(sha, declared["questions"][1]["package"]["sha256"]);
    assert_eq!(value["case"]["package_sha256"], sha);
    assert_eq!(value["case"]["id"], "q1");
    assert!(
        value["workbench"]["link"]
            .as_str()
            .unwrap()
            .ends_with("/evidence/?manifest=wb&case=q1"),
        "{}",
        value["workbench"]
    );
    // A strict client's null is "no case".
    let null_case = workbench_case(
        &server,
        serde_json::json!({"workbench": "wb", "case_id": null}),
    );
    assert!(null_case["structuredContent"]["package"].is_null());

    // Refusals name the field and the rule, and return nothing of the case.
    let text = refusal(&workbench_case(
        &server,
        serde_json::json!({"workbench": "wb", "case_id": "q9"}),
    ));
    assert!(text.starts_with("unknown_case (field case_id)"), "{text}");
    let text = refusal(&workbench_case(
        &server,
        serde_json::json!({"workbench": "other", "case_id": "q0"}),
    ));
    assert!(
        text.starts_with("unknown_workbench (field workbench)"),
        "{text}"
    );
    let text = refusal(&workbench_case(
        &server,
        serde_json::json!({"workbench": "wb", "url": "http://169.254.169.254/"}),
    ));
    assert!(text.starts_with("invalid_request"), "{text}");

    // A part rewritten on disk: refused as an integrity failure, none of its bytes returned,
    // and the workbench is no longer ready.
    let part = declared["questions"][0]["package"]["parts"][0]["url"]
        .as_str()
        .unwrap()
        .to_owned();
    let path = manifest.parent().unwrap().join(&part);
    let mut bytes = std::fs::read(&path).unwrap();
    let at = bytes.iter().rposition(|&b| b == b'a').unwrap();
    bytes[at] = b'b';
    std::fs::write(&path, &bytes).unwrap();
    let result = workbench_case(
        &server,
        serde_json::json!({"workbench": "wb", "case_id": "q0"}),
    );
    let text = refusal(&result);
    assert!(
        text.starts_with("package_integrity (field case_id)"),
        "{text}"
    );
    assert!(text.contains(&part), "{text}");
    assert!(
        !result.to_string().contains("Members may borrow"),
        "{result}"
    );
    assert_eq!(server.request("GET", "/ready", &[], b"").status, 503);
    server.stop();
}
