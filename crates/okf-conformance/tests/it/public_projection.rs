//! The public projection of an index (`okf_engine::public_projection`): it holds no text that
//! only restricted records carry, and it assembles the same package bytes as the full index
//! under the same binding, on the example bundle and on the DWP index with records restricted.

#![allow(clippy::expect_used)]

use okf_engine::{Budget, ContextIndex, assemble, public_projection, restricted_only_strings};
use serde_json::Value;
use std::path::Path;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn example_index() -> Value {
    let bytes = std::fs::read(root().join("../okf/example/index.json")).unwrap_or_default();
    serde_json::from_slice(&bytes).unwrap_or(Value::Null)
}

fn package(index: &ContextIndex, question: &str, binding: &okf_engine::Binding) -> String {
    match assemble(index, question, &Budget::default(), Some(binding)) {
        Ok(assembled) => assembled.json,
        Err(e) => format!("error: {e}"),
    }
}

/// Checks the projection of `full` on `questions`: no restricted-only string, and the same
/// package bytes as the full index for every question.
fn check(full: &Value, questions: &[String]) {
    let full_index = ContextIndex::from_value(full.clone(), None).expect("the full index loads");
    let binding = full_index.default_binding().clone();
    let projected = public_projection(&full_index).expect("the index has restricted records");
    let secret = restricted_only_strings(&full_index);
    assert!(!secret.is_empty(), "the fixture has restricted-only text");
    for s in &secret {
        assert!(
            !projected.contains(&serde_json::to_string(s).unwrap_or_default()),
            "the projection carries restricted-only text {s:?}"
        );
    }
    let projected_index =
        ContextIndex::from_json_str(&projected).expect("the projection is a valid index");
    assert_eq!(
        public_projection(&projected_index).as_deref(),
        Some(projected.as_str()),
        "projecting twice changes nothing"
    );
    assert!(okf_engine::is_public_projection(&projected_index));
    assert!(!okf_engine::is_public_projection(&full_index));
    let mut reaching_restricted = 0;
    for question in questions {
        let expected = package(&full_index, question, &binding);
        reaching_restricted += usize::from(expected.contains("\"restricted_evidence\""));
        assert_eq!(
            package(&projected_index, question, &binding),
            expected,
            "{question}"
        );
    }
    assert!(
        reaching_restricted > 0,
        "some question reaches a restricted record, so the check means something"
    );
}

#[test]
fn an_index_with_only_public_records_has_no_projection() {
    let mut index = example_index();
    for record in index["records"].as_array_mut().into_iter().flatten() {
        record["access"] = "public".into();
    }
    let index = ContextIndex::from_value(index, None).expect("loads");
    assert_eq!(public_projection(&index), None);
    assert!(!okf_engine::is_public_projection(&index));
}

#[test]
fn the_example_projection_drops_the_staff_rota_and_assembles_the_same_packages() {
    let index = example_index();
    let text = index.to_string();
    assert!(
        text.contains("Staff only"),
        "the fixture holds the staff rota"
    );
    let mut questions: Vec<String> = serde_json::from_slice::<Value>(
        &std::fs::read(root().join("../okf/example/questions.json")).unwrap_or_default(),
    )
    .unwrap_or(Value::Null)
    .as_array()
    .into_iter()
    .flatten()
    .filter_map(|q| q["question"].as_str().map(str::to_owned))
    .collect();
    questions.extend(
        [
            "Who holds the meeting room keys in the evening?",
            "Can I hire the meeting room and who has the key?",
            "Explain room booking",
            "staff key holders mobile numbers",
        ]
        .map(str::to_owned),
    );
    let full = ContextIndex::from_value(index.clone(), None).expect("loads");
    let projected = public_projection(&full).expect("restricted records");
    assert!(!projected.contains("Staff only"));
    assert!(!projected.contains("mobile numbers"));
    check(&index, &questions);
}

#[test]
fn a_dwp_index_with_restricted_pages_projects_to_the_same_packages() {
    let path = root().join("../../../shared/dwp/full-dmg/context/assembly-index.json");
    let mut index: Value =
        serde_json::from_slice(&std::fs::read(&path).expect("the DWP index in ../shared"))
            .expect("JSON");
    // Restrict every seventh record (concepts, pages and passages alike), with a secret
    // sentence of its own so the check has text to look for.
    for (n, record) in index["records"]
        .as_array_mut()
        .into_iter()
        .flatten()
        .enumerate()
    {
        if n % 7 == 3 {
            record["access"] = "restricted".into();
            record["label"] = format!("Internal note {n}").into();
        }
    }
    let case_dir = root().join("../../../shared/dwp/evaluation/context-assembly");
    let case: Value = serde_json::from_slice(
        &std::fs::read(case_dir.join("imprisonment-case.json")).expect("the case"),
    )
    .expect("JSON");
    let mut questions = vec![case["question"].as_str().unwrap_or_default().to_owned()];
    questions.extend(
        [
            "A claimant is imprisoned. What happens to JSA?",
            "What happens to Income Support when a claimant goes to prison?",
            "ESA and remand in custody",
            "Pension Credit and imprisonment",
            "What is a hospital in-patient?",
        ]
        .map(str::to_owned),
    );
    check(&index, &questions);
}
