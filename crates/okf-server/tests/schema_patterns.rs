//! JSON Schema 2020-12: a `pattern` should be an ECMA-262 regular expression, and the
//! TypeScript validators MCP clients use compile every pattern with the `u` flag. Every
//! pattern this project publishes (`schemas/*.json`) or emits (`tools/list`) must compile
//! there, or clients refuse the whole tool list.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use okf_server::{CacheLimits, OkfMcp, Registry, Service};
use serde_json::Value;
use std::path::Path;
use std::sync::Arc;

/// Every `pattern` keyword's string in a schema, with its JSON pointer.
fn patterns(value: &Value, at: &str, out: &mut Vec<(String, String)>) {
    match value {
        Value::Object(map) => {
            for (key, child) in map {
                let here = format!("{at}/{key}");
                if let ("pattern", Value::String(p)) = (key.as_str(), child) {
                    out.push((here.clone(), p.clone()));
                }
                patterns(child, &here, out);
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                patterns(child, &format!("{at}/{i}"), out);
            }
        }
        _ => {}
    }
}

fn unicode_mode_errors(found: &[(String, String)]) -> Vec<String> {
    found
        .iter()
        .filter_map(|(at, p)| {
            regress::Regex::with_flags(p, "u")
                .err()
                .map(|e| format!("{at}: {p:?}: {e}"))
        })
        .collect()
}

fn published() -> Vec<(String, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../schemas");
    let mut found = Vec::new();
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    assert!(files.len() >= 6, "{files:?}");
    for file in files {
        let schema: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        patterns(&schema, &name, &mut found);
    }
    found
}

fn example_mcp() -> OkfMcp {
    let registry = Registry::example(include_str!("../../okf/example/index.json")).unwrap();
    OkfMcp::new(Arc::new(Service::new(registry, CacheLimits::default())))
}

#[test]
fn every_published_schema_pattern_compiles_as_an_ecma262_unicode_regex() {
    let found = published();
    assert!(
        found.len() >= 18,
        "walked too few patterns: {}",
        found.len()
    );
    let errors = unicode_mode_errors(&found);
    assert!(errors.is_empty(), "{errors:#?}");
}

#[test]
fn every_tool_schema_pattern_compiles_as_an_ecma262_unicode_regex() {
    let mcp = example_mcp();
    let tools = serde_json::to_value(mcp.tools(&okf_server::auth::Caller::anonymous())).unwrap();
    let mut found = Vec::new();
    patterns(&tools, "tools", &mut found);
    // ask_okf's input and output schemas and the context_id patterns at the least.
    assert!(
        found.len() >= 12,
        "walked too few patterns: {}",
        found.len()
    );
    let errors = unicode_mode_errors(&found);
    assert!(errors.is_empty(), "{errors:#?}");
}

#[test]
fn the_old_escaped_quote_pattern_is_refused_in_unicode_mode() {
    // The `iri` pattern as published before: `\"` inside a character class is an identity
    // escape that `u` mode forbids (Python's `re` accepts it, which hid the defect).
    let old = r#"^[A-Za-z][A-Za-z0-9+.-]*:[^\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff<>\"'`\\]+$"#;
    let errors = unicode_mode_errors(&[("old iri".into(), old.into())]);
    assert_eq!(errors.len(), 1, "the check must refuse the old pattern");
    // The check is the same one the published schemas pass: fed a schema holding the old
    // pattern, the walker finds it and refuses it.
    let schema = serde_json::json!({"$defs": {"iri": {"type": "string", "pattern": old}}});
    let mut found = Vec::new();
    patterns(&schema, "schema", &mut found);
    assert_eq!(unicode_mode_errors(&found).len(), 1);
    // And the fixed pattern means the same: it still refuses a quote and accepts an IRI.
    let fixed = old.replace(r#"\""#, "\"");
    let re = regress::Regex::with_flags(&fixed, "u").unwrap();
    assert!(re.find("https://example.org/a").is_some());
    assert!(re.find("https://example.org/\"a").is_none());
    assert!(re.find("https://example.org/a b").is_none());
}
