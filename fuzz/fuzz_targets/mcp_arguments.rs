//! MCP `tools/call` arguments through the whole router in process: the input is the text of
//! the `arguments` object, the first byte picks the tool. Oracle: no 5xx; every reply is a
//! JSON-RPC object; a key given twice anywhere is an invalid request (-32600, HTTP 400) that
//! names the key; for `ask_okf`, the package (or the refusal) is the same as `POST /api/ask`
//! with the same arguments as its body.
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::Value;

#[path = "common.rs"]
mod common;

const TOOLS: [&str; 7] = [
    "ask_okf",
    "ask_okf_manifest",
    "read_okf_evidence",
    "okf_explain_context",
    "okf_get_context",
    "search",
    "fetch",
];

fuzz_target!(|data: &[u8]| {
    let Some((&pick, arguments)) = data.split_first() else {
        return;
    };
    let Ok(arguments) = std::str::from_utf8(arguments) else {
        return;
    };
    // Only object texts make a well-formed envelope; anything else is the envelope target's.
    if !arguments.trim_start().starts_with('{') || serde_json::from_str::<Value>(arguments).is_err() {
        return;
    }
    let tool = TOOLS[usize::from(pick) % TOOLS.len()];
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"{tool}","arguments":{arguments}}}}}"#
    );
    let (status, bytes) = common::post("/mcp", "application/json, text/event-stream", body.as_bytes());
    let reply: Value = serde_json::from_slice(&bytes).expect("a JSON-RPC reply");
    assert_eq!(reply["jsonrpc"], "2.0", "{reply}");
    let duplicate = common::has_duplicate_key(arguments);
    if duplicate {
        assert_eq!(status.as_u16(), 400, "{reply}");
        assert_eq!(reply["error"]["code"], -32600, "{reply}");
        let message = reply["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains("appears twice"), "{message}");
        return;
    }
    if tool == "ask_okf" && reply.get("result").is_some() {
        let (http_status, http_bytes) = common::post("/api/ask", "application/json", arguments.as_bytes());
        let result = &reply["result"];
        if result["isError"] == true {
            assert!(http_status.is_client_error(), "MCP refused what /api/ask answered: {reply}");
        } else {
            assert_eq!(http_status.as_u16(), 200, "{reply}");
            let text = result["content"][0]["text"].as_str().unwrap_or_default();
            assert_eq!(text.as_bytes(), &http_bytes[..], "the same package bytes");
        }
    }
});
