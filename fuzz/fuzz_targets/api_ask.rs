//! `POST /api/ask` bodies through the whole router in process: no 5xx, every error a JSON
//! object with `code`, `message` and `field`, and every 200 the engine's own bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "common.rs"]
mod common;

fuzz_target!(|data: &[u8]| {
    let (status, body) = common::post("/api/ask", "application/json", data);
    let value: serde_json::Value = serde_json::from_slice(&body).expect("JSON response");
    if status.is_success() {
        assert!(value.get("context_id").is_some(), "200 is a package");
    } else {
        let error = &value["error"];
        assert!(error["code"].is_string(), "{value}");
        assert!(error["message"].is_string(), "{value}");
        let message = error["message"].as_str().unwrap_or_default();
        assert!(!message.contains("struct "), "no Rust type names: {message}");
    }
});
