//! Every adapter states each shared rule as `okf-api` does: the page's checks
//! (`web/validate.js`), its page-tool schemas (`web/webmcp.js`) and the published schemas
//! (`schemas/*.json`). Editing a limit or a pattern in one of them alone fails here.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use okf_api::format::{CONTEXT_ID_PATTERN, LOGICAL_ID_PATTERN};
use okf_api::limits::MAX_RECORD_ID_CHARS;
use std::path::Path;

fn read(relative: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(relative);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The text after `marker` up to the first `end`, for every occurrence of `marker`.
fn after<'t>(text: &'t str, marker: &str, end: char) -> Vec<&'t str> {
    text.match_indices(marker)
        .map(|(at, _)| {
            let rest = &text[at + marker.len()..];
            rest.split(end).next().unwrap_or(rest).trim()
        })
        .collect()
}

#[test]
fn the_page_checks_record_ids_and_bundle_ids_by_the_shared_rules() {
    let validate = read("web/validate.js");
    assert_eq!(
        after(&validate, "export const MAX_RECORD_ID_CHARS =", ';'),
        [MAX_RECORD_ID_CHARS.to_string()]
    );
    assert_eq!(
        after(&validate, "export const BUNDLE_ID = /", '/'),
        [LOGICAL_ID_PATTERN]
    );
    assert_eq!(
        after(&validate, "export const CONTEXT_ID = /", '/'),
        [CONTEXT_ID_PATTERN]
    );
    assert!(
        !validate.contains("'must match ^urn"),
        "a second context-id message"
    );
    // No record-id check of its own beside the shared constant.
    assert!(
        !validate.contains("record_id.length >"),
        "a second record-id limit"
    );
}

#[test]
fn the_page_tools_take_their_record_id_and_bundle_limits_from_the_page_checks() {
    let webmcp = read("web/webmcp.js");
    let record_ids = after(&webmcp, "record_id: {", '}');
    assert!(!record_ids.is_empty());
    for schema in record_ids {
        assert!(
            schema.contains("maxLength: MAX_RECORD_ID_CHARS"),
            "record_id schema {schema:?}"
        );
    }
    for schema in after(&webmcp, "bundle: {", '}') {
        assert!(
            schema.contains("pattern: BUNDLE_ID.source"),
            "bundle schema {schema:?}"
        );
    }
}

#[test]
fn every_published_id_pattern_is_the_shared_one() {
    let (mut logical, mut context) = (0, 0);
    for name in [
        "ask-request",
        "bundles",
        "catalogue",
        "package",
        "read",
        "explain",
    ] {
        let schema: serde_json::Value =
            serde_json::from_str(&read(&format!("schemas/{name}.schema.json"))).unwrap();
        let mut stack = vec![&schema];
        while let Some(node) = stack.pop() {
            match node {
                serde_json::Value::Object(map) => {
                    let pattern = map.get("pattern").and_then(|p| p.as_str());
                    if let Some(pattern) = pattern.filter(|p| p.starts_with("^[a-z0-9]")) {
                        assert_eq!(pattern, LOGICAL_ID_PATTERN, "schemas/{name}.schema.json");
                        logical += 1;
                    }
                    if let Some(pattern) = pattern.filter(|p| p.starts_with("^urn:sha256:")) {
                        assert_eq!(pattern, CONTEXT_ID_PATTERN, "schemas/{name}.schema.json");
                        context += 1;
                    }
                    stack.extend(map.values());
                }
                serde_json::Value::Array(items) => stack.extend(items),
                _ => {}
            }
        }
    }
    assert!(logical >= 3, "{logical} logical-id patterns");
    assert!(context >= 6, "{context} context-id patterns");
}

/// The `[min, max]` pairs of `web/validate.js`'s `BUDGET_LIMITS`, by key.
fn page_budget_limits(validate: &str) -> Vec<(String, u64, u64)> {
    let block = after(
        validate,
        "export const BUDGET_LIMITS = Object.freeze({",
        '}',
    );
    block[0]
        .lines()
        .filter_map(|line| {
            let (key, range) = line.trim().split_once(':')?;
            let range = range.trim().trim_end_matches(',');
            let (min, max) = range
                .strip_prefix('[')?
                .strip_suffix(']')?
                .split_once(',')?;
            Some((
                key.trim().to_owned(),
                min.trim().parse().ok()?,
                max.trim().parse().ok()?,
            ))
        })
        .collect()
}

#[test]
fn the_page_checks_budgets_and_delivery_sizes_by_the_engine_and_delivery_ranges() {
    let validate = read("web/validate.js");
    let engine: Vec<(String, u64, u64)> = okf_engine::BUDGET_RANGES
        .iter()
        .map(|(key, min, max)| ((*key).to_owned(), *min, *max))
        .collect();
    assert_eq!(page_budget_limits(&validate), engine);
    let delivery = format!(
        "checkRange(input.delivery_bytes, 'delivery_bytes', {}, {})",
        okf_delivery::MIN_DELIVERY_BYTES,
        okf_delivery::MAX_DELIVERY_BYTES
    );
    assert!(validate.contains(&delivery), "{delivery}");
    // The page tools' budget description names the engine's defaults.
    let defaults = okf_engine::Budget::default();
    let described = format!(
        "({} records, {} relationships, depth {}, {} bytes)",
        defaults.max_nodes, defaults.max_relationships, defaults.max_depth, defaults.max_bytes
    );
    assert!(read("web/webmcp.js").contains(&described), "{described}");
}

#[test]
fn the_published_ask_request_states_the_engine_budget_ranges() {
    let schema: serde_json::Value =
        serde_json::from_str(&read("schemas/ask-request.schema.json")).unwrap();
    let budget = &schema["properties"]["budget"]["properties"];
    for (key, min, max) in okf_engine::BUDGET_RANGES {
        assert_eq!(
            (
                budget[key]["minimum"].as_u64(),
                budget[key]["maximum"].as_u64()
            ),
            (Some(min), Some(max)),
            "budget.{key}"
        );
    }
}
