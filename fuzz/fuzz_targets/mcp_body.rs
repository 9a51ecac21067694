//! `POST /mcp` bodies (stateless JSON-RPC) through the whole router in process: no 5xx and
//! every refusal a JSON body.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "common.rs"]
mod common;

fuzz_target!(|data: &[u8]| {
    common::post("/mcp", "application/json, text/event-stream", data);
});
