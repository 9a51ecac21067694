//! Execution receipts (`okf-execution.v1`): every HTTP and MCP answer that carries a package
//! also carries when and where it was built, outside the package, as does
//! `okf ask --receipt FILE`; the request log line names the `context_id`. Two executions of
//! the same question differ in their receipts, never in `context_id`.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use crate::common::*;
use serde_json::{Value, json};

const QUESTION: &str = "How do I borrow books?";

fn validator() -> jsonschema::Validator {
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../schemas/execution.schema.json"),
    )
    .unwrap();
    jsonschema::validator_for(&serde_json::from_str(&text).unwrap()).unwrap()
}

fn assert_receipt_of(receipt: &Value, package: &Value, bundle: &str, version: &str) {
    let errors: Vec<String> = validator()
        .iter_errors(receipt)
        .map(|e| e.to_string())
        .collect();
    assert!(errors.is_empty(), "{errors:?}: {receipt}");
    assert_eq!(receipt["context_id"], package["context_id"]);
    assert_eq!(receipt["index_sha256"], package["binding"]["index_sha256"]);
    assert_eq!(receipt["engine"], package["engine"]);
    assert_eq!(receipt["bundle"], bundle);
    assert_eq!(receipt["version"], version);
    assert!(package.get("execution").is_none() && !package.to_string().contains("okf-execution"));
}

#[test]
fn http_and_mcp_answers_carry_a_receipt_outside_the_package_and_the_log_names_the_context() {
    let server = Server::start(&[]);
    let first = server.ask(&json!({"bundle": "example", "question": QUESTION}));
    assert_eq!(first.status, 200);
    let receipt: Value = serde_json::from_str(first.header("okf-execution").unwrap()).unwrap();
    assert_receipt_of(&receipt, &first.json(), "example", "current");

    std::thread::sleep(std::time::Duration::from_millis(3));
    let second = server.ask(&json!({"bundle": "example", "question": QUESTION}));
    let again: Value = serde_json::from_str(second.header("okf-execution").unwrap()).unwrap();
    assert_eq!(second.body, first.body, "the same package bytes");
    assert_eq!(again["instance"], receipt["instance"], "the same server");
    assert_ne!(
        again["started_at"], receipt["started_at"],
        "another execution"
    );

    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "ask_okf", "arguments": {"bundle": "example", "question": QUESTION}}});
    let reply = server.mcp(&call, &[]).json();
    let result = &reply["result"];
    assert_eq!(result["structuredContent"], first.json());
    assert_receipt_of(
        &result["_meta"]["okf/execution"],
        &result["structuredContent"],
        "example",
        "current",
    );

    // A retained package fetched again was not built by that call: no receipt.
    let id = first.json()["context_id"].as_str().unwrap().to_owned();
    let fetched = server.request("GET", &format!("/api/context/{id}"), &[], b"");
    assert_eq!(fetched.status, 200);
    assert!(fetched.header("okf-execution").is_none());

    let log = server.stop();
    let line = log
        .lines()
        .find(|l| l.contains("okf::http") && l.contains("/api/ask"))
        .unwrap_or_else(|| panic!("no ask line in {log}"));
    assert!(line.contains(&format!("context_id={id}")), "{line}");
}

#[test]
fn okf_ask_writes_the_receipt_file_and_the_same_package() {
    let dir = temp_dir("receipt-cli");
    let file = dir.join("receipt.json");
    let plain = okf(&["ask", "--json", QUESTION]);
    let with = okf(&[
        "ask",
        "--json",
        "--receipt",
        file.to_str().unwrap(),
        QUESTION,
    ]);
    assert!(with.status.success(), "{}", stderr(&with));
    assert_eq!(
        with.stdout, plain.stdout,
        "the receipt never changes the package"
    );
    let package: Value = serde_json::from_slice(&with.stdout).unwrap();
    let receipt: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    assert_receipt_of(&receipt, &package, "example", "embedded");
    assert_eq!(receipt["instance"], "okf-cli");
    // Nothing partial is left beside it.
    let names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["receipt.json"]);
    let _ = std::fs::remove_dir_all(dir);
}
