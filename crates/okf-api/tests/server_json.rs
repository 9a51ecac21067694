//! `server.json`, the MCP registry's description of a remote `okf serve` (schema 2025-12-11):
//! the template at the repository root is checked here against the rules of that schema as
//! the registry documents them (the official schema file is not reachable from CI, so this is
//! a structural check written from the documentation, not a validation by the file itself).
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use serde_json::Value;
use std::path::Path;

const SCHEMA: &str = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json";

fn server_json() -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../server.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Every way `doc` breaks the 2025-12-11 `server.json` rules a remote-only server meets.
fn violations(doc: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let Some(map) = doc.as_object() else {
        return vec!["not an object".into()];
    };
    let allowed = [
        "$schema",
        "name",
        "title",
        "description",
        "version",
        "websiteUrl",
        "repository",
        "icons",
        "packages",
        "remotes",
        "_meta",
    ];
    for key in map.keys() {
        if !allowed.contains(&key.as_str()) {
            out.push(format!("unknown member {key}"));
        }
    }
    if doc["$schema"] != SCHEMA {
        out.push(format!("$schema is {}", doc["$schema"]));
    }
    let name = doc["name"].as_str().unwrap_or_default();
    let (namespace, server) = name.split_once('/').unwrap_or_default();
    let ok = |s: &str, extra: &str| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || extra.contains(c))
    };
    if !(3..=200).contains(&name.len()) || !ok(namespace, ".-") || !ok(server, "._-") {
        out.push(format!(
            "name {name:?} is not <reverse-DNS namespace>/<name>"
        ));
    }
    for (key, max) in [("description", 100), ("title", 100)] {
        let n = doc[key].as_str().map_or(0, |s| s.chars().count());
        if !(1..=max).contains(&n) {
            out.push(format!("{key} has {n} characters (1-{max})"));
        }
    }
    let version = doc["version"].as_str().unwrap_or_default();
    if version.is_empty()
        || version.len() > 255
        || version.contains(['^', '~', '>', '<', '*', ' '])
        || version.ends_with(".x")
        || version == "latest"
    {
        out.push(format!("version {version:?} is not one specific version"));
    }
    let remotes = doc["remotes"].as_array().cloned().unwrap_or_default();
    if remotes.is_empty() {
        out.push("no remotes".into());
    }
    for (i, remote) in remotes.iter().enumerate() {
        if remote["type"] != "streamable-http" {
            out.push(format!("remotes[{i}].type is {}", remote["type"]));
        }
        let url = remote["url"].as_str().unwrap_or_default();
        if !url.starts_with("https://") && !url.starts_with("http://") {
            out.push(format!("remotes[{i}].url {url:?} is not an http(s) URL"));
        }
        // Every {variable} in the URL is declared, and every declared one is used.
        let used: Vec<&str> = url
            .split('{')
            .skip(1)
            .filter_map(|s| s.split_once('}').map(|(v, _)| v))
            .collect();
        let declared: Vec<&String> = remote["variables"]
            .as_object()
            .map(|v| v.keys().collect())
            .unwrap_or_default();
        for v in &used {
            if !declared.iter().any(|d| d == v) {
                out.push(format!("remotes[{i}]: {{{v}}} is not declared"));
            }
        }
        for d in &declared {
            if !used.contains(&d.as_str()) {
                out.push(format!("remotes[{i}]: {d} is not used"));
            }
            let input = &remote["variables"][d.as_str()];
            if !input["description"].is_string() {
                out.push(format!("remotes[{i}].variables.{d} has no description"));
            }
        }
    }
    out
}

#[test]
fn the_server_json_template_meets_the_2025_12_11_registry_rules() {
    let doc = server_json();
    assert_eq!(violations(&doc), Vec::<String>::new());
    assert_eq!(
        doc["version"],
        env!("CARGO_PKG_VERSION"),
        "the release's version"
    );
    assert_eq!(doc["remotes"][0]["url"], "https://{host}/mcp");
}

#[test]
fn the_structural_check_refuses_what_the_registry_refuses() {
    let doc = server_json();
    let broken = |edit: fn(&mut Value)| {
        let mut d = doc.clone();
        edit(&mut d);
        violations(&d)
    };
    assert!(!broken(|d| d["name"] = "ask-okf".into()).is_empty());
    assert!(!broken(|d| d["description"] = "x".repeat(101).into()).is_empty());
    assert!(!broken(|d| d["version"] = "^0.1.0".into()).is_empty());
    assert!(!broken(|d| d["remotes"][0]["type"] = "sse".into()).is_empty());
    assert!(!broken(|d| d["remotes"][0]["url"] = "https://{tenant}/mcp".into()).is_empty());
    assert!(!broken(|d| d["status"] = "active".into()).is_empty());
}
