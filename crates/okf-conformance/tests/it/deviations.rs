//! One test per documented deviation from the reference (DEVIATIONS.md), named after it.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use crate::common::*;
use okf_engine::{Budget, ContextIndex, Error, IndexRule, UnitRule, assemble};
use serde_json::{Value, json};

/// D1 (W1): edges are visited in UTF-16 code-unit order of their ids, not locale collation.
/// Under ICU collation `…/b-lower` would come before `…/C-upper`; in code-unit order uppercase
/// letters sort first.
#[test]
fn d1_edges_are_visited_in_code_unit_order_not_locale_collation() {
    let mut ix = study_club();
    let reading = id("concept/reading");
    remove(&mut ix, "assertions", &id("assertion/0"));
    push(
        &mut ix,
        "assertions",
        extra_assertion(&id("assertion/b-lower"), &reading, &id("evidence/library")),
    );
    push(
        &mut ix,
        "assertions",
        extra_assertion(&id("assertion/C-upper"), &reading, &id("evidence/reading")),
    );
    let pkg = ask_default(&ix, "Reading circle");
    let held: Vec<&str> = pkg["relationships"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    assert_eq!(held[0], id("assertion/C-upper"));
    assert_eq!(held[1], id("assertion/b-lower"));
    let order = selected_ids(&pkg);
    assert_eq!(
        order[1],
        id("evidence/reading"),
        "the C-upper edge's target is reached first"
    );
}

/// D2 (W12): ill-formed Unicode is refused at the boundary instead of being hashed as U+FFFD.
#[test]
fn d2_lone_surrogates_are_rejected_when_the_index_is_read() {
    let ix = study_club();
    let text =
        serde_json::to_string(&ix)
            .unwrap()
            .replacen("Library room", "Library \\ud800room", 1);
    assert!(matches!(
        ContextIndex::from_json_str(&text),
        Err(Error::Json { .. })
    ));
}

/// D3 (W14): `used_bytes` is found by iterating the digit count to a fixed point, so it equals
/// the package length whatever the size; checked across many budgets and sizes.
#[test]
fn d3_used_bytes_is_an_exact_fixed_point_at_every_size() {
    let mut ix = study_club();
    let index0 = index(&ix).unwrap();
    for pad in [0usize, 1, 7, 93, 512, 4000, 9000] {
        set_text(
            &mut ix,
            &id("evidence/library"),
            &format!("Library room.{}", "x".repeat(pad)),
        );
        let idx = index(&ix).unwrap();
        for max_bytes in [8192u64, 9999, 10_000, 10_001, 65_536] {
            let budget = Budget {
                max_bytes,
                ..Budget::default()
            };
            if let Ok(pkg) = assemble(&idx, "Reading circle", &budget, None) {
                assert_eq!(pkg.used_bytes, pkg.json.len() as u64);
                assert!(pkg.used_bytes <= max_bytes);
            }
        }
    }
    drop(index0);
}

/// D4: numbers in the index must be exact JSON integers where the format asks for integers;
/// `8.0` in a span offset is refused rather than silently read as 8.
#[test]
fn d4_non_integer_spelling_of_an_offset_is_rejected() {
    let ix = study_club_with_unit(&UNIT_TEXTS);
    let text =
        serde_json::to_string(&ix)
            .unwrap()
            .replacen("\"unit_start\":0", "\"unit_start\":0.0", 1);
    assert!(text.contains("\"unit_start\":0.0"));
    let err = ContextIndex::from_json_str(&text).unwrap_err();
    assert!(
        matches!(err, Error::EvidenceUnit { ref path, .. } if path.ends_with("spans[0].unit_start")),
        "{err}"
    );
}

/// D5: a JSON object that repeats a key is refused; JavaScript would silently keep the last.
#[test]
fn d5_duplicate_keys_are_rejected() {
    let ix = study_club();
    let text = serde_json::to_string(&ix).unwrap().replacen(
        "\"rights\":",
        "\"rights\":\"first\",\"rights\":",
        1,
    );
    let err = ContextIndex::from_json_str(&text).unwrap_err();
    assert!(
        matches!(err, Error::Index { rule: IndexRule::Shape(ref m), .. } if m.contains("duplicate")),
        "{err}"
    );
}

/// D6: the HTTP URL check is a strict subset of WHATWG parsing; `%` escapes and credentials in
/// the host are refused even where WHATWG would decode them.
#[test]
fn d6_percent_encoded_hosts_are_not_http_urls() {
    assert!(!okf_engine::validate::is_http_url(
        "https://ex%61mple.test/"
    ));
    assert!(okf_engine::validate::is_http_url(
        "https://example.test/a%20b"
    ));
    let mut ix = study_club();
    ix["bundle"]["source_url"] = Value::String("https://ex%61mple.test/index.json".into());
    assert!(matches!(
        index_error(&ix),
        Error::Index {
            rule: IndexRule::NotHttpUrl,
            ..
        }
    ));
}

/// D7 (W19): packages name this engine and its version, never the reference's identifier.
#[test]
fn d7_engine_identifier_is_ours_and_versioned() {
    let pkg = ask_default(&study_club(), "Reading circle");
    let engine = pkg["engine"].as_str().unwrap();
    assert!(engine.starts_with("ask-okf-engine/"));
    assert!(engine.ends_with(env!("CARGO_PKG_VERSION")));
}

/// D8 (W9): every per-item issue message is independent of the item, so grouping rows by code
/// and by (code, message) cannot disagree.
#[test]
fn d8_per_item_messages_do_not_depend_on_the_item() {
    let mut ix = study_club();
    for name in ["library", "workshop"] {
        let rec = record_mut(&mut ix, &id(&format!("evidence/{name}")));
        rec["rights"] = json!("");
        rec["scope"] = json!(" ");
    }
    let pkg = ask_default(&ix, "Reading circle and Repair demonstration");
    for code in ["missing_rights", "missing_scope"] {
        let rows: Vec<&Value> = pkg["missing_evidence"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|i| i["code"] == code && i["ids"].as_array().unwrap().len() == 1)
            .collect();
        assert_eq!(rows.len(), 2, "{code}");
        assert_eq!(rows[0]["message"], rows[1]["message"], "{code}");
    }
}

/// D9: evidence-unit offsets beyond 2^53 - 1 are rejected as bad offsets (the reference's
/// numbers could not even represent them).
#[test]
fn d9_unsafe_integer_offsets_are_rejected() {
    let ix = study_club_with_unit(&UNIT_TEXTS);
    let text = serde_json::to_string(&ix).unwrap().replacen(
        "\"source_text_bytes\":",
        "\"source_text_bytes\":9007199254740993",
        1,
    );
    // The replacement prefixes the real digits, making an even larger number.
    let err = ContextIndex::from_json_str(&text).unwrap_err();
    assert!(
        matches!(
            err,
            Error::EvidenceUnit {
                rule: UnitRule::BadOffsets,
                ..
            } | Error::Index { .. }
        ),
        "{err}"
    );
}
