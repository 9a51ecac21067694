//! Responses in the coding the client accepts: packages compressed once per `context_id` and
//! coding (a repeated question is not compressed again), every other response by the
//! compression layer, the page's WebAssembly module included; identity without
//! `Accept-Encoding`.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use crate::common::{Response, Server, dwp_registry, imprisonment_question, temp_dir};
use serde_json::json;
use std::io::Read;

fn decode(r: &Response) -> Vec<u8> {
    let mut out = Vec::new();
    match r.header("content-encoding") {
        None => out = r.body.clone(),
        Some("gzip") => {
            flate2::read::GzDecoder::new(&r.body[..])
                .read_to_end(&mut out)
                .unwrap();
        }
        Some("br") => {
            brotli::Decompressor::new(&r.body[..], 4096)
                .read_to_end(&mut out)
                .unwrap();
        }
        Some("zstd") => {
            zstd::stream::read::Decoder::new(&r.body[..])
                .unwrap()
                .read_to_end(&mut out)
                .unwrap();
        }
        Some(other) => panic!("unexpected coding {other}"),
    }
    out
}

fn compressions(server: &Server, coding: &str) -> u64 {
    let text = server.request("GET", "/metrics", &[], b"").text();
    let series = format!("okf_package_compressions_total{{coding=\"{coding}\"}} ");
    text.lines()
        .find_map(|l| l.strip_prefix(&series)?.parse().ok())
        .unwrap_or(0)
}

#[test]
fn a_package_comes_in_the_coding_the_client_accepts_and_is_compressed_once() {
    let dir = temp_dir("compression");
    let registry = dwp_registry(&dir, "");
    let server = Server::start(&["--registry", registry.to_str().unwrap()]);
    let body = json!({"bundle": "okf-dwp", "question": imprisonment_question()}).to_string();
    let ask = |accept: &str| {
        let mut headers = vec![("Content-Type", "application/json")];
        if !accept.is_empty() {
            headers.push(("Accept-Encoding", accept));
        }
        server.request("POST", "/api/ask", &headers, body.as_bytes())
    };
    let identity = ask("");
    assert_eq!(identity.status, 200);
    assert_eq!(identity.header("content-encoding"), None);
    assert_eq!(identity.header("vary"), Some("accept-encoding"));
    for (accept, coding) in [
        ("gzip", "gzip"),
        ("gzip, deflate, br", "br"),
        ("gzip, br, zstd", "zstd"),
    ] {
        let r = ask(accept);
        assert_eq!(r.header("content-encoding"), Some(coding), "{accept}");
        assert!(
            r.body.len() * 4 < identity.body.len(),
            "{coding}: {} bytes",
            r.body.len()
        );
        assert!(
            decode(&r) == identity.body,
            "{coding} decodes to the package"
        );
        // Asked again (and fetched by id): served from the kept body, not compressed again.
        assert_eq!(compressions(&server, coding), 1, "{coding}");
        let again = ask(accept);
        assert!(again.body == r.body);
        let id = identity.json()["context_id"].as_str().unwrap().to_owned();
        let by_id = server.request(
            "GET",
            &format!("/api/context/{id}"),
            &[("Accept-Encoding", accept)],
            b"",
        );
        assert!(by_id.body == r.body);
        assert_eq!(compressions(&server, coding), 1, "{coding} compressed once");
    }
    server.stop();
}

#[test]
fn other_responses_are_compressed_by_the_layer_and_identity_stays_identity() {
    let server = Server::start(&[]);
    let wasm =
        std::fs::read(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../web/okf.wasm"))
            .unwrap();
    let plain = server.request("GET", "/assets/okf.wasm", &[], b"");
    assert_eq!(plain.header("content-encoding"), None);
    assert!(plain.body == wasm);
    let br = server.request(
        "GET",
        "/assets/okf.wasm",
        &[("Accept-Encoding", "gzip, br")],
        b"",
    );
    assert_eq!(br.header("content-encoding"), Some("br"));
    assert!(br.body.len() < wasm.len() / 2, "{} bytes", br.body.len());
    assert!(decode(&br) == wasm);
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "ask_okf", "arguments": {"bundle": "example", "question": "How do I borrow books?"}}});
    let mcp = server.mcp(&call, &[("Accept-Encoding", "gzip")]);
    assert_eq!(mcp.header("content-encoding"), Some("gzip"));
    let reply: serde_json::Value = serde_json::from_slice(&decode(&mcp)).unwrap();
    assert_eq!(reply["result"]["isError"], false);
    server.stop();
}
