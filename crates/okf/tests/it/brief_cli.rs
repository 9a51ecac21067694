//! `okf ask --brief`: the evidence brief the library renders, byte for byte.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::{imprisonment_question, okf, shared, stderr};

fn imprisonment_package() -> String {
    let index = okf_engine::ContextIndex::from_json_slice(
        &std::fs::read(shared("dwp/full-dmg/context/assembly-index.json")).unwrap(),
    )
    .unwrap();
    okf_engine::assemble(
        &index,
        &imprisonment_question(),
        &okf_engine::Budget::default(),
        None,
    )
    .unwrap()
    .json
}

#[test]
fn okf_ask_brief_prints_the_library_brief_byte_for_byte() {
    let index = shared("dwp/full-dmg/context/assembly-index.json");
    let question = imprisonment_question();
    let package = imprisonment_package();
    for (flags, max_chars) in [
        (vec![], okf_brief::DEFAULT_MAX_CHARS),
        (vec!["--brief-chars", "40000"], 40_000),
    ] {
        let mut args = vec!["ask", "--index", &index, "--brief"];
        args.extend(flags);
        args.push(&question);
        let out = okf(&args);
        assert!(out.status.success(), "{}", stderr(&out));
        let brief = okf_brief::render(
            &package,
            &okf_brief::BriefOptions::with_max_chars(max_chars).unwrap(),
        )
        .unwrap();
        assert_eq!(out.stdout, brief.text.as_bytes());
    }
}

#[test]
fn okf_ask_brief_chars_out_of_range_is_refused_naming_the_flag_and_range() {
    for bad in ["1999", "1000001", "ten"] {
        let out = okf(&[
            "ask",
            "--brief",
            "--brief-chars",
            bad,
            "How do I borrow books?",
        ]);
        assert_eq!(out.status.code(), Some(2));
        let err = stderr(&out);
        assert!(err.contains("--brief-chars"), "{err}");
        if bad != "ten" {
            assert!(err.contains("2000..=1000000"), "{err}");
        }
    }
    let out = okf(&["ask", "--brief", "--json", "How do I borrow books?"]);
    assert_eq!(out.status.code(), Some(2));
    let out = okf(&["ask", "--brief-chars", "5000", "How do I borrow books?"]);
    assert_eq!(out.status.code(), Some(2));
}
