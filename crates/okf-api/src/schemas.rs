//! The published request and response JSON Schemas (this project's own, under `schemas/`).

use serde_json::Value;

/// Schema files served under `/schemas/<name>`, embedded at build time.
pub const FILES: [(&str, &str); 8] = [
    (
        "package.schema.json",
        include_str!("../../../schemas/package.schema.json"),
    ),
    (
        "ask-request.schema.json",
        include_str!("../../../schemas/ask-request.schema.json"),
    ),
    (
        "error.schema.json",
        include_str!("../../../schemas/error.schema.json"),
    ),
    (
        "bundles.schema.json",
        include_str!("../../../schemas/bundles.schema.json"),
    ),
    (
        "health.schema.json",
        include_str!("../../../schemas/health.schema.json"),
    ),
    (
        "catalogue.schema.json",
        include_str!("../../../schemas/catalogue.schema.json"),
    ),
    (
        "read.schema.json",
        include_str!("../../../schemas/read.schema.json"),
    ),
    (
        "explain.schema.json",
        include_str!("../../../schemas/explain.schema.json"),
    ),
];

/// The text of a published schema.
pub fn text(name: &str) -> Option<&'static str> {
    FILES.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
}

fn parsed(name: &str) -> Value {
    // The files are part of the build and checked by tests; an unparsable one yields an
    // empty schema rather than a panic.
    text(name)
        .and_then(|t| serde_json::from_str(t).ok())
        .unwrap_or(Value::Object(serde_json::Map::new()))
}

/// The package schema (object root), used as `ask_okf`'s `outputSchema`.
pub fn package() -> Value {
    parsed("package.schema.json")
}

/// The ask request schema, used as `ask_okf`'s `inputSchema`.
pub fn ask_request() -> Value {
    parsed("ask-request.schema.json")
}

/// The catalogue page schema, used as `ask_okf_manifest`'s `outputSchema`.
pub fn catalogue() -> Value {
    parsed("catalogue.schema.json")
}

/// The read envelope schema, used as `read_okf_evidence`'s `outputSchema`.
pub fn read() -> Value {
    parsed("read.schema.json")
}
