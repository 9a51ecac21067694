//! The `unresolved_task` issue says why no concept resolved: no alias matched, or every
//! matched phrase was ambiguous (then "matched no alias" would read as false).

use okf_engine::{Budget, ContextIndex, assemble};
use serde_json::Value;

fn unresolved_task_message(question: &str) -> Option<String> {
    let index =
        ContextIndex::from_json_str(include_str!("../../../okf/example/index.json")).ok()?;
    let package: Value = serde_json::from_str(
        &assemble(&index, question, &Budget::default(), None)
            .ok()?
            .json,
    )
    .ok()?;
    package["missing_evidence"]
        .as_array()?
        .iter()
        .find(|i| i["code"] == "unresolved_task")
        .and_then(|i| i["message"].as_str())
        .map(str::to_owned)
}

#[test]
fn an_ambiguous_only_question_is_not_said_to_match_no_alias() {
    let message = unresolved_task_message("Explain room booking").unwrap_or_default();
    assert!(message.contains("ambiguities"), "{message}");
    assert!(!message.contains("matched no alias"), "{message}");
}

#[test]
fn a_question_matching_nothing_is_said_to_match_no_alias() {
    let message = unresolved_task_message("Tell me about quokkas").unwrap_or_default();
    assert!(message.contains("matched no alias"), "{message}");
}

#[test]
fn a_resolved_question_has_no_unresolved_task() {
    assert_eq!(unresolved_task_message("How do I borrow books?"), None);
}
