//! Every adapter states each shared rule as `okf-api` does: the page takes its checks and its
//! page-tool schemas from the generated `web/contract.js`, and the published schemas
//! (`schemas/*.json`) state the same patterns and ranges. Editing a limit or a pattern in one of
//! them alone fails here.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use okf_api::format::{CONTEXT_ID_PATTERN, LOGICAL_ID_PATTERN};
use okf_api::limits::{MAX_OFFSET, MAX_RECORD_ID_CHARS, MIN_CATALOGUE_DELIVERY_BYTES};
use std::path::Path;

fn read(relative: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(relative);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn the_committed_page_contract_is_what_okf_api_generates() {
    assert_eq!(
        read("web/contract.js"),
        okf_api::web::web_contract_module(),
        "regenerate with `cargo run -p okf-api --example generate-contract`"
    );
}

/// Every page module that checks requests or describes page tools, which must take each rule
/// from `contract.js` rather than write it again.
const PAGE_RULE_MODULES: [&str; 2] = ["web/validate.js", "web/webmcp.js"];

#[test]
fn the_page_modules_import_the_contract_and_restate_no_limit_or_pattern() {
    let restated: Vec<String> = [
        MAX_RECORD_ID_CHARS.to_string(),
        okf_engine::MAX_QUESTION_UNITS.to_string(),
        MAX_OFFSET.to_string(),
        MIN_CATALOGUE_DELIVERY_BYTES.to_string(),
        okf_delivery::MIN_DELIVERY_BYTES.to_string(),
        okf_delivery::MAX_DELIVERY_BYTES.to_string(),
    ]
    .into_iter()
    .chain(
        okf_engine::BUDGET_RANGES
            .iter()
            .map(|(_, _, max)| max.to_string()),
    )
    .chain([LOGICAL_ID_PATTERN.into(), CONTEXT_ID_PATTERN.into()])
    .collect();
    for module in PAGE_RULE_MODULES {
        let text = read(module);
        assert!(
            text.contains("import { CONTRACT } from './contract.js';"),
            "{module} does not import the contract"
        );
        for rule in &restated {
            assert!(!text.contains(rule.as_str()), "{module} restates {rule}");
        }
    }
}

#[test]
fn the_page_checks_take_each_tools_closed_field_list_and_profiles_from_the_contract() {
    let validate = read("web/validate.js");
    assert!(
        !validate.contains("'arguments', ["),
        "web/validate.js lists a tool's fields itself"
    );
    assert!(
        !validate.contains(&format!("'{}'", okf_api::request::REGIMES_PROFILE)),
        "web/validate.js names a profile itself"
    );
    for tool in okf_api::web::page_tools().keys() {
        let checked =
            validate.contains(&format!("toolFields('{tool}')")) || tool == "okf_check_answer";
        assert!(
            checked,
            "{tool}'s arguments are not checked against its schema's fields"
        );
    }
}

#[test]
fn the_page_contract_states_the_engine_budget_ranges_in_the_engine_order() {
    let contract = okf_api::web::web_contract();
    let budget: Vec<(String, u64, u64)> = contract["limits"]["budget"]
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| {
            (
                entry[0].as_str().unwrap().to_owned(),
                entry[1].as_u64().unwrap(),
                entry[2].as_u64().unwrap(),
            )
        })
        .collect();
    let engine: Vec<(String, u64, u64)> = okf_engine::BUDGET_RANGES
        .iter()
        .map(|(key, min, max)| ((*key).to_owned(), *min, *max))
        .collect();
    assert_eq!(budget, engine);
    let defaults: Vec<u64> = contract["limits"]["budget"]
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| entry[3].as_u64().unwrap())
        .collect();
    assert_eq!(defaults, okf_engine::Budget::default().values());
}

#[test]
fn the_page_html_states_no_limit_and_leaves_them_to_the_contract() {
    for page in ["web/index.html", "web/evidence.html"] {
        let html = read(page);
        for attribute in ["maxlength=", "min=\"", "max=\"", "placeholder=\"default"] {
            assert!(!html.contains(attribute), "{page} states {attribute}");
        }
        assert!(
            !html.contains(&okf_engine::MAX_QUESTION_UNITS.to_string()),
            "{page} states the question limit"
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

#[test]
fn the_committed_ask_request_schema_is_what_okf_api_generates() {
    assert_eq!(
        read("schemas/ask-request.schema.json"),
        okf_api::schemas::file_text(&okf_api::schemas::ask_request()),
        "regenerate with `cargo run -p okf-api --example generate-contract`"
    );
}

#[test]
fn the_served_ask_request_schema_is_the_generated_one() {
    let served: serde_json::Value =
        serde_json::from_str(okf_api::schemas::text("ask-request.schema.json").unwrap()).unwrap();
    assert_eq!(served, okf_api::schemas::ask_request());
}

/// The adapters' sources, without their unit-test modules (tests pin the wire spelling).
fn adapter_sources() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = Vec::new();
    let mut dirs: Vec<std::path::PathBuf> = [
        "crates/okf-server/src",
        "crates/okf-wasm/src",
        "crates/okf/src",
        "web",
    ]
    .iter()
    .map(|d| root.join(d))
    .collect();
    while let Some(dir) = dirs.pop() {
        let mut entries: Vec<_> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for path in entries {
            let name = path.to_string_lossy().into_owned();
            if path.is_dir() {
                dirs.push(path);
            } else if (name.ends_with(".rs") || name.ends_with(".js"))
                && !name.ends_with("contract.js")
            {
                let text = std::fs::read_to_string(&path).unwrap();
                let code = text
                    .split("#[cfg(test)]")
                    .next()
                    .unwrap_or_default()
                    .to_owned();
                files.push((name, code));
            }
        }
    }
    files
}

#[test]
fn every_error_code_is_spelled_only_in_the_contract() {
    let sources = adapter_sources();
    assert!(sources.len() > 40, "the adapters' sources were not found");
    let mut found = Vec::new();
    for code in okf_api::error::ErrorCode::ALL {
        // `error` is also the member every error body is wrapped in.
        if *code == okf_api::error::ErrorCode::Other {
            continue;
        }
        for quoted in [format!("\"{code}\""), format!("'{code}'")] {
            for (file, text) in &sources {
                if text.contains(&quoted) {
                    found.push(format!("{file}: {quoted}"));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "error codes spelled outside okf-api (use okf_api::error::ErrorCode, or CONTRACT.error_codes in the page):\n{}",
        found.join("\n")
    );
}
