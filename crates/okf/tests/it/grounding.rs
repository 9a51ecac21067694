//! `okf check-answer`, `POST /api/check-answer` and the MCP tool `okf_check_answer`: the same
//! answer gives byte-identical reports everywhere; exit codes 0 grounded, 1 not grounded, 2
//! bad input; errors name the field.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use crate::common::*;
use serde_json::{Value, json};

const QUESTION: &str = "How do I borrow books?";

/// A grounded answer to the borrowing question: the first sentence of each record the
/// requirement needs.
fn grounded_answer(package: &Value) -> Value {
    let text = |end: &str| -> (String, String) {
        let r = package["selected"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| &s["record"])
            .find(|r| r["id"].as_str().unwrap().ends_with(end))
            .unwrap();
        (
            r["id"].as_str().unwrap().to_owned(),
            // The record's first sentence: quotes must be whole sentences.
            r["text"]
                .as_str()
                .unwrap()
                .split_inclusive(". ")
                .next()
                .unwrap()
                .trim_end()
                .to_owned(),
        )
    };
    let (rules, rules_quote) = text("evidence/lending-rules");
    let (card, card_quote) = text("evidence/card-eligibility");
    json!({
        "schema": "okf-grounded-answer.v1",
        "context_id": package["context_id"],
        "evidence_status": package["evidence_status"],
        "claims": [
            {"id": "c1", "text": "Members may borrow up to 12 books.", "requirement": package["requirements"][0]["id"], "citations": [{"record": rules, "quote": rules_quote}]},
            {"id": "c2", "text": "Residents, workers and students can join.", "requirement": null, "citations": [{"record": card, "quote": card_quote}]}
        ]
    })
}

fn check_cli(dir: &std::path::Path, package: &[u8], answer: &Value) -> std::process::Output {
    let p = dir.join("package.json");
    let a = dir.join("answer.json");
    std::fs::write(&p, package).unwrap();
    std::fs::write(&a, answer.to_string()).unwrap();
    okf(&[
        "check-answer",
        "--json",
        "--package",
        p.to_str().unwrap(),
        a.to_str().unwrap(),
    ])
}

#[test]
fn cli_http_and_mcp_give_the_same_report_bytes() {
    let dir = temp_dir("grounding-same");
    let server = Server::start(&[]);
    let asked = server.ask(&json!({"bundle": "example", "question": QUESTION}));
    let package = asked.json();
    let answer = grounded_answer(&package);

    let cli = check_cli(&dir, &asked.body, &answer);
    assert!(cli.status.success(), "{}", stderr(&cli));
    let report = stdout(&cli).trim_end().to_owned();
    let value: Value = serde_json::from_str(&report).unwrap();
    assert_eq!(value["verdict"], "grounded", "{report}");

    // The CLI can replay the package from the question, as okf ask builds it.
    let a = dir.join("answer.json");
    let replayed_cli = okf(&[
        "check-answer",
        "--json",
        "--question",
        QUESTION,
        a.to_str().unwrap(),
    ]);
    assert!(replayed_cli.status.success(), "{}", stderr(&replayed_cli));
    assert_eq!(
        stdout(&replayed_cli).trim_end(),
        report,
        "CLI, replayed package"
    );

    let retained = server.request(
        "POST",
        "/api/check-answer",
        &[("Content-Type", "application/json")],
        json!({"answer": answer}).to_string().as_bytes(),
    );
    assert_eq!(retained.status, 200, "{}", retained.text());
    assert_eq!(retained.text(), report, "HTTP, retained package");
    let replayed = server.request(
        "POST",
        "/api/check-answer",
        &[("Content-Type", "application/json")],
        json!({"bundle": "example", "question": QUESTION, "answer": answer})
            .to_string()
            .as_bytes(),
    );
    assert_eq!(replayed.text(), report, "HTTP, replayed package");

    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "okf_check_answer", "arguments": {"answer": answer}}});
    let reply = server.mcp(&call, &[]).json();
    assert_eq!(reply["result"]["isError"], false, "{reply}");
    assert_eq!(reply["result"]["content"][0]["text"], report.as_str());
    assert_eq!(reply["result"]["structuredContent"], value);
    server.stop();
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn exit_codes_and_errors_say_grounded_not_grounded_or_bad_input() {
    let dir = temp_dir("grounding-codes");
    let server = Server::start(&[]);
    let asked = server.ask(&json!({"bundle": "example", "question": QUESTION}));
    let package = asked.json();
    let mut broken = grounded_answer(&package);
    broken["claims"][0]["citations"][0]["quote"] =
        json!("Members with a valid library card may borrow up to 15 books at a time.");
    let out = check_cli(&dir, &asked.body, &broken);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["verdict"], "not_grounded");
    assert_eq!(report["errors"], json!(["quote_not_found"]));
    assert!(stderr(&out).contains("not grounded in its package: quote_not_found"));

    let mut empty = grounded_answer(&package);
    empty["claims"] = json!([]);
    let out = check_cli(&dir, &asked.body, &empty);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("claims: must hold at least one claim"),
        "{}",
        stderr(&out)
    );
    let http = server.request(
        "POST",
        "/api/check-answer",
        &[("Content-Type", "application/json")],
        json!({"answer": empty}).to_string().as_bytes(),
    );
    assert_eq!(http.status, 400);
    assert_eq!(http.json()["error"]["field"], "answer.claims");

    // An altered package is not checked at all.
    let altered = String::from_utf8(asked.body.clone())
        .unwrap()
        .replace("12 books", "99 books");
    let out = check_cli(&dir, altered.as_bytes(), &grounded_answer(&package));
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("does not verify"), "{}", stderr(&out));

    // A package this server does not hold, and no replay: 404 naming what to send.
    let mut other = grounded_answer(&package);
    other["context_id"] = json!(format!("urn:sha256:{}", "0".repeat(64)));
    let http = server.request(
        "POST",
        "/api/check-answer",
        &[("Content-Type", "application/json")],
        json!({"answer": other}).to_string().as_bytes(),
    );
    assert_eq!(http.status, 404, "{}", http.text());
    assert_eq!(http.json()["error"]["code"], "context_not_retained");
    server.stop();
    let _ = std::fs::remove_dir_all(dir);
}
