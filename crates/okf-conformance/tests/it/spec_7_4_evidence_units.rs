//! Spec §7.4: evidence units (§1.4), on a direct index.
//!
//! Setup as in the spec: `evidence/reading` is replaced by the §7.0 unit fixture with the same
//! id (`["Café reading.", "Only with a booking."]`, joined with `\n`, one source page per
//! span).
//!
//! Skipped from §7.4: "Span metadata delivered in slices" (`record_metadata` reads in
//! 8,192-byte slices), because delivery (§5) is not implemented yet.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::*;
use okf_engine::{Error, IndexRule, UnitRule};
use serde_json::{Value, json};

fn reading() -> String {
    id("evidence/reading")
}

fn unit_index() -> Value {
    study_club_with_unit(&UNIT_TEXTS)
}

fn unit_of(ix: &mut Value) -> &mut Value {
    &mut record_mut(ix, &reading())["evidence_unit"]
}

fn span(ix: &mut Value, i: usize) -> &mut Value {
    &mut unit_of(ix)["spans"][i]
}

fn unit_rule(ix: &Value) -> UnitRule {
    match index_error(ix) {
        Error::EvidenceUnit { rule, path } => {
            assert!(path.contains("evidence_unit"), "path {path}");
            rule
        }
        other => panic!("expected an evidence-unit rejection, got {other:?}"),
    }
}

/// Moves a span's unit and source offsets together by `delta` bytes.
fn shift(span: &mut Value, delta: i64) {
    for key in ["unit_start", "unit_end", "source_start", "source_end"] {
        let v = span[key].as_i64().unwrap() + delta;
        span[key] = json!(v);
    }
}

#[test]
fn unicode_unit_with_ordered_spans_and_separate_hashes_is_sufficient() {
    let ix = unit_index();
    let record = index_record(&ix, &reading()).clone();
    assert_eq!(record["text"], "Café reading.\nOnly with a booking.");

    let validated = index(&ix).expect("the unit fixture validates");
    let pos = validated.record_index(&reading()).unwrap();
    assert!(!validated.record_unit_integrity_failed(pos));
    assert!(!validated.record_digest_mismatch(pos));
    assert!(validated.record_governance(pos).is_empty());

    let provenance_literal = &record["provenance"][0]["literal_sha256"];
    for s in record["evidence_unit"]["spans"].as_array().unwrap() {
        assert_ne!(&s["literal_sha256"], provenance_literal);
    }
    assert_eq!(
        provenance_literal,
        &json!(sha("Café reading.\nOnly with a booking."))
    );
    // "é" is two bytes: offsets are UTF-8 bytes, not characters.
    assert_eq!(record["evidence_unit"]["spans"][0]["unit_end"], 14);
    assert_eq!(record["evidence_unit"]["spans"][1]["unit_start"], 15);

    let pkg = ask_default(&ix, "Explain Reading circle");
    assert_eq!(status(&pkg), "sufficient");
    assert_eq!(selection(&pkg, &reading())["record"], record);
}

#[test]
fn unresolved_or_fallback_boundaries_raise_an_issue_but_keep_the_status_field() {
    for (kind, completeness) in [
        ("compound", "unresolved"),
        ("unresolved-fragment", "unresolved"),
        ("compound", "fallback"),
        ("page-fallback", "fallback"),
    ] {
        let mut ix = unit_index();
        let unit = unit_of(&mut ix);
        unit["kind"] = json!(kind);
        unit["completeness"] = json!(completeness);
        unit["boundary_status"] = json!("machine-detected");
        let pkg = ask_default(&ix, "Explain Reading circle");
        assert_eq!(
            ids_of(&pkg, "missing_evidence", "unresolved_unit_boundary"),
            [vec![reading()]],
            "{kind}/{completeness}"
        );
        assert_eq!(status(&pkg), "insufficient");
        assert_eq!(
            selection(&pkg, &reading())["record"]["assertion_status"],
            "normalized"
        );
    }
}

#[test]
fn a_gap_between_spans_is_rejected() {
    let mut ix = unit_index();
    shift(span(&mut ix, 1), 1);
    // Keep the last span ending at the end of the text by extending the text.
    let text = "Café reading.\n Only with a booking.";
    record_mut(&mut ix, &reading())["text"] = json!(text);
    assert_eq!(unit_rule(&ix), UnitRule::GapOrOverlap);
}

#[test]
fn overlapping_spans_are_rejected() {
    let mut ix = unit_index();
    shift(span(&mut ix, 1), -1);
    assert_eq!(unit_rule(&ix), UnitRule::GapOrOverlap);
}

#[test]
fn joining_text_other_than_the_joiner_is_rejected() {
    let mut ix = unit_index();
    record_mut(&mut ix, &reading())["text"] = json!("Café reading. Only with a booking.");
    assert_eq!(unit_rule(&ix), UnitRule::GapOrOverlap);
}

#[test]
fn hidden_suffix_text_is_rejected() {
    let mut ix = unit_index();
    let text = "Café reading.\nOnly with a booking. Hidden suffix.";
    let r = record_mut(&mut ix, &reading());
    r["text"] = json!(text);
    for p in r["provenance"].as_array_mut().unwrap() {
        p["literal_sha256"] = json!(sha(text));
    }
    assert_eq!(unit_rule(&ix), UnitRule::TextNotCovered);
}

#[test]
fn a_source_length_different_from_the_unit_length_is_rejected() {
    let mut ix = unit_index();
    let s = span(&mut ix, 0);
    s["source_end"] = json!(s["source_end"].as_u64().unwrap() + 1);
    assert_eq!(unit_rule(&ix), UnitRule::BadBoundsOrLengths);
}

#[test]
fn out_of_bounds_offsets_are_rejected() {
    let mut ix = unit_index();
    let s = span(&mut ix, 0);
    s["source_end"] = json!(s["source_text_bytes"].as_u64().unwrap() + 1);
    s["source_start"] = json!(s["source_end"].as_u64().unwrap() - 14);
    assert_eq!(unit_rule(&ix), UnitRule::BadBoundsOrLengths);

    let mut ix = unit_index();
    let s = span(&mut ix, 0);
    s["source_text_bytes"] = json!(16 * 1024 * 1024 + 1);
    assert_eq!(unit_rule(&ix), UnitRule::BadOffsets);
}

#[test]
fn a_span_splitting_a_multibyte_character_is_rejected() {
    let text = "Café reading.";
    // Byte 4 is inside "é" (bytes 3..5).
    let record =
        unit_record_with_spans(&reading(), text, "", &[(0, 4), (4, 14)], Pages::OnePerSpan);
    let mut ix = study_club();
    replace_record(&mut ix, record);
    assert_eq!(unit_rule(&ix), UnitRule::SplitsCharacter);

    // The same split on a character boundary is valid.
    let record =
        unit_record_with_spans(&reading(), text, "", &[(0, 3), (3, 14)], Pages::OnePerSpan);
    let mut ix = study_club();
    replace_record(&mut ix, record);
    assert!(index(&ix).is_ok());
}

#[test]
fn an_unknown_span_field_is_rejected_as_an_evidence_unit_error() {
    let mut ix = unit_index();
    span(&mut ix, 0)["note"] = json!("extra");
    assert_eq!(unit_rule(&ix), UnitRule::MalformedSpan);

    let mut ix = unit_index();
    span(&mut ix, 0).as_object_mut().unwrap().remove("locator");
    assert_eq!(unit_rule(&ix), UnitRule::MalformedSpan);

    let mut ix = unit_index();
    span(&mut ix, 0)["unit_start"] = json!(-1);
    assert_eq!(unit_rule(&ix), UnitRule::MalformedSpan);
}

#[test]
fn unexpected_or_missing_unit_fields_are_rejected_as_evidence_unit_errors() {
    let mut ix = unit_index();
    unit_of(&mut ix)["note"] = json!("extra");
    assert_eq!(unit_rule(&ix), UnitRule::UnexpectedOrMissingFields);

    let mut ix = unit_index();
    unit_of(&mut ix).as_object_mut().unwrap().remove("joiner");
    assert_eq!(unit_rule(&ix), UnitRule::UnexpectedOrMissingFields);
}

#[test]
fn a_url_with_credentials_is_rejected() {
    let mut ix = unit_index();
    span(&mut ix, 0)["source_url"] = json!("https://user:secret@example.test/page.html");
    assert_eq!(unit_rule(&ix), UnitRule::UnsafeUrl);

    let mut ix = unit_index();
    span(&mut ix, 1)["extraction_url"] = json!("file:///etc/passwd");
    assert_eq!(unit_rule(&ix), UnitRule::UnsafeUrl);
}

#[test]
fn a_source_digest_without_matching_provenance_is_rejected() {
    let mut ix = unit_index();
    span(&mut ix, 0)["source_sha256"] = json!(sha("another source"));
    assert_eq!(unit_rule(&ix), UnitRule::MissingSourceProvenance);
}

#[test]
fn an_extraction_digest_without_matching_provenance_is_rejected() {
    let mut ix = unit_index();
    span(&mut ix, 1)["extraction_sha256"] = json!(sha("another extraction"));
    assert_eq!(unit_rule(&ix), UnitRule::MissingExtractionProvenance);
}

fn many_span_unit(count: usize) -> Value {
    let texts: Vec<String> = (0..count).map(|i| format!("Fragment {i}.")).collect();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    // One shared page keeps provenance at two entries (the provenance limit is 32).
    unit_record_with_spans(
        &reading(),
        &refs.join("\n"),
        "\n",
        &ranges_of(&refs, "\n"),
        Pages::Shared,
    )
}

#[test]
fn thirty_three_spans_are_rejected_and_thirty_two_accepted() {
    let mut ix = study_club();
    replace_record(&mut ix, many_span_unit(32));
    assert!(index(&ix).is_ok());

    let mut ix = study_club();
    replace_record(&mut ix, many_span_unit(33));
    assert_eq!(unit_rule(&ix), UnitRule::BadSpanCount);

    let mut ix = unit_index();
    unit_of(&mut ix)["spans"] = json!([]);
    assert_eq!(unit_rule(&ix), UnitRule::BadSpanCount);
}

#[test]
fn boundary_claims_must_match_the_unit_kind() {
    let mut ix = unit_index();
    unit_of(&mut ix)["kind"] = json!("page-fallback");
    assert_eq!(unit_rule(&ix), UnitRule::FallbackClaimsCompleteness);

    let mut ix = unit_index();
    unit_of(&mut ix)["kind"] = json!("unresolved-fragment");
    assert_eq!(
        unit_rule(&ix),
        UnitRule::UnresolvedFragmentClaimsCompleteness
    );
}

#[test]
fn unit_enumerations_are_checked() {
    let cases: [(&str, Value, UnitRule); 6] = [
        (
            "schema",
            json!("okf-evidence-unit.v2"),
            UnitRule::UnsupportedSchemaOrKind,
        ),
        ("kind", json!("chapter"), UnitRule::UnsupportedSchemaOrKind),
        (
            "boundary_status",
            json!("guessed"),
            UnitRule::BadBoundaryStatus,
        ),
        ("completeness", json!("partial"), UnitRule::BadCompleteness),
        (
            "offset_unit",
            json!("utf-16"),
            UnitRule::BadOffsetConventionOrJoiner,
        ),
        ("joiner", json!(" "), UnitRule::BadOffsetConventionOrJoiner),
    ];
    for (field, value, rule) in cases {
        let mut ix = unit_index();
        unit_of(&mut ix)[field] = value;
        assert_eq!(unit_rule(&ix), rule, "{field}");
    }
    let mut ix = unit_index();
    span(&mut ix, 0)["literal_sha256"] = json!("ABC");
    assert_eq!(unit_rule(&ix), UnitRule::BadDigest);

    let mut ix = unit_index();
    span(&mut ix, 0)["locator"] = json!("");
    assert_eq!(unit_rule(&ix), UnitRule::BadLocator);
}

#[test]
fn a_unit_on_a_non_evidence_record_is_rejected() {
    let mut ix = unit_index();
    let unit = unit_of(&mut ix).clone();
    ix["records"][5]["evidence_unit"] = unit;
    assert!(matches!(
        index_error(&ix),
        Error::Index {
            rule: IndexRule::UnitOnNonEvidence,
            ..
        }
    ));
}

#[test]
fn a_false_fragment_digest_passes_validation_but_fails_integrity() {
    let mut ix = unit_index();
    span(&mut ix, 1)["literal_sha256"] = json!(sha("Only with a different booking."));
    let validated = index(&ix).expect("shape validation passes");
    let pos = validated.record_index(&reading()).unwrap();
    assert!(validated.record_unit_integrity_failed(pos));

    let pkg = ask_default(&ix, "Explain Reading circle");
    assert_eq!(
        ids_of(&pkg, "missing_evidence", "unit_fragment_integrity"),
        [vec![reading()]]
    );
    assert_eq!(status(&pkg), "insufficient");
}

fn shared_page_unit() -> Value {
    let mut ix = study_club();
    replace_record(
        &mut ix,
        unit_record_with_spans(
            &reading(),
            "Café reading.\nOnly with a booking.",
            "\n",
            &ranges_of(&UNIT_TEXTS, "\n"),
            Pages::Shared,
        ),
    );
    ix
}

#[test]
fn one_selector_has_one_text_identity_and_monotonic_spans() {
    let ix = shared_page_unit();
    assert!(index(&ix).is_ok(), "two spans on one page are valid");
    assert_eq!(
        status(&ask_default(&ix, "Explain Reading circle")),
        "sufficient"
    );

    let mut changed_hash = shared_page_unit();
    span(&mut changed_hash, 1)["source_text_sha256"] = json!(sha("another page"));
    assert_eq!(unit_rule(&changed_hash), UnitRule::ConflictingTextIdentity);

    let mut changed_size = shared_page_unit();
    let s = span(&mut changed_size, 1);
    s["source_text_bytes"] = json!(s["source_text_bytes"].as_u64().unwrap() + 10);
    assert_eq!(unit_rule(&changed_size), UnitRule::ConflictingTextIdentity);

    let mut overlap = shared_page_unit();
    let first_end = span(&mut overlap, 0)["source_end"].as_u64().unwrap();
    let s = span(&mut overlap, 1);
    let len = s["source_end"].as_u64().unwrap() - s["source_start"].as_u64().unwrap();
    s["source_start"] = json!(first_end - 1);
    s["source_end"] = json!(first_end - 1 + len);
    assert_eq!(unit_rule(&overlap), UnitRule::SourceSpansOutOfOrder);

    let mut reverse = shared_page_unit();
    let s = span(&mut reverse, 1);
    let len = s["source_end"].as_u64().unwrap() - s["source_start"].as_u64().unwrap();
    s["source_start"] = json!(0);
    s["source_end"] = json!(len);
    assert_eq!(unit_rule(&reverse), UnitRule::SourceSpansOutOfOrder);
}

#[test]
fn the_provenance_literal_keeps_its_whole_text_meaning() {
    let mut ix = unit_index();
    let span_literal = span(&mut ix, 0)["literal_sha256"].clone();
    record_mut(&mut ix, &reading())["provenance"][0]["literal_sha256"] = span_literal;
    let pkg = ask_default(&ix, "Explain Reading circle");
    assert_eq!(
        ids_of(&pkg, "missing_evidence", "evidence_digest_mismatch"),
        [vec![reading()]]
    );
    assert!(ids_of(&pkg, "missing_evidence", "unit_fragment_integrity").is_empty());
    assert_eq!(status(&pkg), "insufficient");
}

#[test]
fn a_large_unit_is_omitted_whole() {
    let big = "x".repeat(14_000);
    let ix = study_club_with_unit(&[&big, "Only with written permission."]);
    let pkg = ask(&ix, "Explain Reading circle", json!({"max_bytes": 8192}));
    assert!(!is_selected(&pkg, &reading()));
    assert!(
        !serde_json::to_string(&pkg)
            .unwrap()
            .contains(&"x".repeat(100))
    );
    assert!(truncated(&pkg));
    assert_eq!(status(&pkg), "insufficient");
    assert!(selected_records_are_whole(&pkg, &ix));
}
