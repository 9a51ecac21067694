//! The delivery context reads a package by where its parts lie in the text, without a value
//! tree: every member it cuts is the member's exact canonical text, its counts are the
//! array lengths, and text it cannot cut exactly is refused.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use okf_delivery::{Context, DeliveryError};
use okf_engine::{Budget, ContextIndex, assemble};
use serde_json::Value;

const INDEX: &str = include_str!("../../okf/example/index.json");

fn package(question: &str) -> String {
    let index = ContextIndex::from_json_str(INDEX).expect("the example index loads");
    assemble(&index, question, &Budget::default(), None)
        .expect("the question assembles")
        .json
}

#[test]
fn every_member_is_cut_as_its_exact_canonical_text_and_counted() {
    for question in [
        "How do I borrow books, and when is the homework club?",
        "What is the weather on Mars?",
    ] {
        let json = package(question);
        let value: Value = serde_json::from_str(&json).unwrap();
        let context = Context::from_canonical(json.clone()).unwrap();
        let members = value.as_object().unwrap();
        for (key, member) in members {
            let expected = okf_engine::canonical::to_canonical_string(member).unwrap();
            assert_eq!(
                context.member(key),
                Some(expected.as_str()),
                "{question}: {key}"
            );
            if let Some(items) = member.as_array() {
                assert_eq!(context.count(key), items.len(), "{question}: {key}");
            }
        }
        let selected = members["selected"].as_array().unwrap();
        assert_eq!(context.selected_count(), selected.len());
        for (i, item) in selected.iter().enumerate() {
            let expected = okf_engine::canonical::to_canonical_string(item).unwrap();
            assert_eq!(context.selected_item(i), Some(expected.as_str()));
        }
        assert_eq!(context.selected_item(selected.len()), None);
        assert_eq!(context.member("no-such-member"), None);
        assert_eq!(context.selected().unwrap(), selected.as_slice());
    }
}

#[test]
fn an_itemized_array_that_is_not_compact_is_refused_rather_than_cut_wrongly() {
    let json = package("How do I borrow books?");
    let loose = json.replacen("\"selected\":[", "\"selected\":[ ", 1);
    assert_ne!(loose, json);
    let err = Context::from_canonical(loose).unwrap_err();
    assert!(
        matches!(&err, DeliveryError::Package(m) if m == "selected is not compact JSON"),
        "{err:?}"
    );
}

#[test]
fn a_duplicate_member_is_refused() {
    let json = package("How do I borrow books?");
    let twice = json.replacen("{", "{\"scope\":\"x\",", 1);
    let err = Context::from_canonical(twice).unwrap_err();
    assert!(
        matches!(&err, DeliveryError::Package(m) if m.contains("duplicate key \"scope\"")),
        "{err:?}"
    );
}
