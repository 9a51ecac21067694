//! Vocabulary a publisher controls (issue 44 item 3): a profile's `[vocabulary]` neutral words,
//! possessives and inflections of declared aliases, and "unrecognised words" reported apart
//! from "topic not covered" (docs/authoring.md "Words a question may use freely", DEVIATIONS
//! A12). The fixture is an invented one-requirement bundle: a full-time student in hospital and
//! Council Tax Reduction.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use okf_authoring::{CaptureFile, Error, ProfileFile, Rule, build};
use okf_engine::{Budget, ContextIndex, assemble};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/vocabulary-profile")
}

fn profile_with(edit: impl Fn(String) -> String) -> Vec<ProfileFile> {
    ["profile.toml", "graph.toml"]
        .iter()
        .map(|name| {
            let text = std::fs::read_to_string(fixture().join(name)).unwrap();
            ProfileFile {
                name: (*name).into(),
                text: if *name == "profile.toml" {
                    edit(text)
                } else {
                    text
                },
            }
        })
        .collect()
}

fn captures() -> Vec<CaptureFile> {
    vec![CaptureFile {
        name: "sources/doc.json".into(),
        bytes: std::fs::read(fixture().join("sources/doc.json")).unwrap(),
    }]
}

fn index_with(edit: impl Fn(String) -> String) -> Result<ContextIndex, Error> {
    let built = build(&profile_with(edit), &captures())?;
    Ok(ContextIndex::from_json_slice(built.json.as_bytes()).expect("the built index loads"))
}

fn index() -> ContextIndex {
    index_with(|t| t).unwrap()
}

/// The fixture without its `[vocabulary]` table.
fn index_without_vocabulary() -> ContextIndex {
    index_with(|t| {
        t.replace(
            "[vocabulary]\nneutral = [\"still\", \"keep\", \"continue\", \"entitled\", \"lose\", \"living\", \"admitted\", \"while\"]\n",
            "",
        )
    })
    .unwrap()
}

fn ask(index: &ContextIndex, question: &str) -> Value {
    let assembled = assemble(index, question, &Budget::default(), None).unwrap();
    serde_json::from_str(&assembled.json).unwrap()
}

fn codes(package: &Value) -> Vec<&str> {
    package["missing_evidence"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["code"].as_str().unwrap())
        .collect()
}

fn message<'a>(package: &'a Value, code: &str) -> &'a str {
    package["missing_evidence"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["code"] == code)
        .and_then(|i| i["message"].as_str())
        .unwrap_or_else(|| panic!("no {code} issue in {:?}", codes(package)))
}

fn terms(package: &Value) -> Vec<&str> {
    package["unresolved_terms"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect()
}

const STILL: &str =
    "A full-time student is admitted to hospital. Do they still get Council Tax Reduction?";

#[test]
fn the_profiles_neutral_words_are_written_sorted_to_the_index() {
    let index = index();
    let neutral = &index.document().vocabulary.as_ref().unwrap().neutral;
    assert_eq!(
        neutral,
        &[
            "admitted", "continue", "entitled", "keep", "living", "lose", "still", "while"
        ]
    );
}

#[test]
fn a_covered_question_with_still_is_sufficient() {
    let p = ask(&index(), STILL);
    assert_eq!(p["evidence_status"], "sufficient", "{:?}", codes(&p));
    assert!(terms(&p).is_empty());
}

#[test]
fn keep_a_possessive_and_a_plural_of_a_declared_alias_leave_a_covered_question_sufficient() {
    let index = index();
    for question in [
        "Does a full-time student's Council Tax Reduction continue when they are admitted to hospital?",
        "Do full-time students keep Council Tax Reduction while living in hospital?",
        "A full-time student is an in-patient: are they still entitled to CTR, or do they lose it?",
    ] {
        let p = ask(&index, question);
        assert_eq!(
            p["evidence_status"],
            "sufficient",
            "{question}: {:?} {:?}",
            codes(&p),
            terms(&p)
        );
    }
}

#[test]
fn an_uncovered_topic_is_insufficient_with_a_not_covered_reason_apart_from_its_unrecognised_words()
{
    let p = ask(
        &index(),
        "A full-time student is admitted to hospital. Do they still get Pension Credit?",
    );
    assert_eq!(p["evidence_status"], "insufficient");
    assert_eq!(
        codes(&p),
        [
            "no_evidence_requirements",
            "topic_not_covered",
            "uncovered_resolved_concept",
            "uncovered_resolved_concept",
            "unresolved_terms"
        ]
    );
    assert!(message(&p, "topic_not_covered").starts_with("Not covered: "));
    assert_eq!(terms(&p), ["credit", "pension"]);
    assert!(message(&p, "unresolved_terms").starts_with("Unrecognised words: "));
}

#[test]
fn an_unrecognised_word_alone_keeps_a_covered_question_insufficient_and_says_so_plainly() {
    let p = ask(
        &index(),
        "A full-time student is admitted to hospital. Do they still get Council Tax Reduction abroad?",
    );
    assert_eq!(p["evidence_status"], "insufficient");
    assert_eq!(codes(&p), ["unresolved_terms"]);
    assert_eq!(terms(&p), ["abroad"]);
    assert!(message(&p, "unresolved_terms").starts_with("Unrecognised words: "));
    assert_eq!(
        p["requirements"][0]["status"],
        "supported-within-declared-scope"
    );
}

#[test]
fn without_a_vocabulary_the_index_keeps_the_reference_behaviour() {
    let p = ask(&index_without_vocabulary(), STILL);
    assert_eq!(p["evidence_status"], "insufficient");
    assert_eq!(terms(&p), ["admitted", "still"]);
    assert_eq!(codes(&p), ["unresolved_terms"]);
    assert_eq!(
        message(&p, "unresolved_terms"),
        "The question uses words outside the bundle's declared vocabulary."
    );
    let p = ask(
        &index_without_vocabulary(),
        "A full-time student is in hospital. Do they get Pension Credit?",
    );
    assert!(!codes(&p).contains(&"topic_not_covered"));
}

#[test]
fn a_neutral_word_that_is_not_one_folded_word_is_refused_at_the_vocabulary_table() {
    for (word, rule) in [
        ("Still", "must be one word as the engine folds a question"),
        ("keep up", "must be one word as the engine folds a question"),
        ("the", "is already built-in question scaffolding"),
    ] {
        let e = index_with(|t| t.replace("\"still\", \"keep\"", &format!("\"{word}\", \"keep\"")))
            .err()
            .unwrap_or_else(|| panic!("{word} must be refused"));
        assert_eq!((e.file.as_str(), e.line), ("profile.toml", 10), "{word}");
        match &e.rule {
            Rule::Index(text) => {
                assert!(
                    text.contains("vocabulary.neutral[") && text.contains(rule),
                    "{word}: {text}"
                );
            }
            other => panic!("{word}: {other:?}"),
        }
    }
}
