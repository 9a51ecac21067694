//! Delivery rules of engine.md §5 and the shared-delivery cases of workbench-and-mcp.md §4.4
//! (35–45), on synthetic packages.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{context, item, package};
use okf_delivery::{
    Context, DeliveryError, ReadRequest, Section, catalogue, read, reconstruct, retain,
};
use serde_json::Value;

fn parse(text: &str) -> Value {
    serde_json::from_str(text).expect("delivery output is JSON")
}

fn request(
    ctx: &Context,
    section: Section,
    record: Option<&str>,
    offset: u64,
    max: u64,
) -> ReadRequest {
    ReadRequest {
        context_id: ctx.context_id().to_owned(),
        section,
        record_id: record.map(str::to_owned),
        offset,
        max_bytes: max,
    }
}

/// Follows `next_offset` to the end; checks each slice's size and returns the joined value.
fn read_all(
    ctx: &Context,
    section: Section,
    record: Option<&str>,
    max: u64,
) -> (String, String, usize) {
    let mut joined = String::new();
    let mut offset = 0;
    let mut calls = 0;
    let mut sha;
    loop {
        let text = read(ctx, &request(ctx, section, record, offset, max)).expect("read");
        calls += 1;
        let env = parse(&text);
        assert_eq!(
            env["delivery"]["used_bytes"].as_u64(),
            Some(text.len() as u64),
            "used_bytes is exact"
        );
        assert!(text.len() as u64 <= max, "a slice fits its budget");
        assert_eq!(env["schema"], "okf-context-read.v1");
        assert_eq!(env["ai_answer"], Value::Null);
        joined.push_str(env["data"].as_str().expect("data"));
        sha = env["content_sha256"].as_str().expect("sha").to_owned();
        match env["next_offset"].as_u64() {
            Some(n) => {
                assert!(n > offset, "every read makes progress");
                offset = n;
            }
            None => break,
        }
    }
    (joined, sha, calls)
}

fn sha(text: &str) -> String {
    okf_engine::canonical::sha256_hex(text.as_bytes())
}

#[test]
fn s35_catalogue_leaves_the_context_unchanged_and_is_not_evidence() {
    let ctx = context(vec![item("urn:r:1", "One", "text one")]);
    let before = ctx.text().to_owned();
    let page = catalogue(&ctx, 0, 16_384).expect("catalogue");
    assert_eq!(ctx.text(), before);
    let v = parse(&page);
    assert_eq!(v["schema"], "okf-context-manifest.v1");
    assert_eq!(v["summary"]["ai_answer"], Value::Null);
    assert_eq!(
        v["delivery"]["used_bytes"].as_u64(),
        Some(page.len() as u64)
    );
    assert_eq!(
        v["summary"]["full_package_bytes"].as_u64(),
        Some(before.len() as u64)
    );
    assert!(
        v["instructions"]
            .as_str()
            .is_some_and(|s| s.contains("neither the source evidence nor an answer"))
    );
    assert_eq!(
        v["summary"]["missing_evidence_codes"],
        serde_json::json!(["no_evidence_requirements"])
    );
    let row = &v["records"][0];
    assert_eq!(row["text_characters"], 8);
    assert_eq!(row["text_sha256"], sha("text one"));
    assert_eq!(row["review_status"], "not-declared");
    assert_eq!(
        row["source_url"],
        "https://example.org/club/rules.pdf#page=1"
    );
    assert_eq!(
        (row["reasons"].as_u64(), row["paths"].as_u64()),
        (Some(1), Some(1))
    );
}

#[test]
fn s36_hundred_long_records_page_at_8192_without_loss_or_duplicates() {
    let items: Vec<Value> = (0..100)
        .map(|i| item(&format!("urn:r:{i:03}"), &"Long label ".repeat(40), "t"))
        .collect();
    let ctx = context(items);
    let mut ids = Vec::new();
    let mut offset = 0;
    loop {
        let page = catalogue(&ctx, offset, 8_192).expect("page");
        assert!(page.len() <= 8_192);
        let v = parse(&page);
        let rows = v["records"].as_array().expect("records");
        assert!(!rows.is_empty(), "every page before the end holds a record");
        assert_eq!(v["delivery"]["returned"].as_u64(), Some(rows.len() as u64));
        ids.extend(
            rows.iter()
                .map(|r| r["id"].as_str().unwrap_or_default().to_owned()),
        );
        match v["delivery"]["next_offset"].as_u64() {
            Some(n) => offset = n,
            None => break,
        }
    }
    let expected: Vec<String> = (0..100).map(|i| format!("urn:r:{i:03}")).collect();
    assert_eq!(ids, expected);
}

#[test]
fn s37_unicode_and_escaped_text_reconstructs_exactly_and_never_splits_a_pair() {
    let text = "💷\n\"quoted\"\\\t\u{0}é漢字 ".repeat(3000);
    let ctx = context(vec![item("urn:r:u", "Unicode", &text)]);
    let (joined, digest, calls) = read_all(&ctx, Section::RecordText, Some("urn:r:u"), 8_192);
    assert_eq!(joined, text);
    assert_eq!(digest, sha(&text));
    assert!(calls > 1);
    let err = read(
        &ctx,
        &request(&ctx, Section::RecordText, Some("urn:r:u"), 1, 8_192),
    )
    .unwrap_err();
    assert_eq!(err, DeliveryError::OffsetSplitsCharacter(1));
}

#[test]
fn s38_every_section_reconstructs_to_its_hash_and_value() {
    let ctx = context(vec![
        item("urn:r:1", "One", &"x".repeat(20_000)),
        item("urn:r:2", "Two", "y"),
    ]);
    let package: Value = parse(ctx.text());
    for (section, record) in [
        (Section::Package, None),
        (Section::Diagnostics, None),
        (Section::Relationships, None),
        (Section::RecordMetadata, Some("urn:r:1")),
        (Section::RecordText, Some("urn:r:2")),
    ] {
        let (joined, digest, _) = read_all(&ctx, section, record, 8_192);
        assert_eq!(sha(&joined), digest, "{section:?}");
        match section {
            Section::Package => assert_eq!(joined, ctx.text()),
            Section::Relationships => assert_eq!(parse(&joined), package["relationships"]),
            Section::Diagnostics => {
                let d = parse(&joined);
                assert!(d.get("selected").is_none() && d.get("relationships").is_none());
                assert_eq!(d["selected_records"], 2);
                assert_eq!(d["relationship_count"], 1);
                assert_eq!(d["context_id"], package["context_id"]);
            }
            Section::RecordMetadata => {
                let m = parse(&joined);
                assert!(m["record"].get("text").is_none());
                assert_eq!(m["record"]["text_reference"]["characters"], 20_000);
                assert_eq!(
                    m["record"]["text_reference"]["sha256"],
                    sha(&"x".repeat(20_000))
                );
                assert_eq!(m["reasons"], package["selected"][0]["reasons"]);
            }
            Section::RecordText => assert_eq!(joined, "y"),
        }
    }
}

#[test]
fn s39_invalid_reads_are_delivery_errors() {
    let ctx = context(vec![item("urn:r:1", "One", "text")]);
    let ok = request(&ctx, Section::Package, None, 0, 8_192);
    let stale = ReadRequest {
        context_id: format!("urn:sha256:{}", "0".repeat(64)),
        ..ok.clone()
    };
    assert_eq!(read(&ctx, &stale).unwrap_err().code(), "context_mismatch");
    let unselected = request(&ctx, Section::RecordText, Some("urn:r:9"), 0, 8_192);
    assert_eq!(
        read(&ctx, &unselected).unwrap_err(),
        DeliveryError::RecordNotSelected("urn:r:9".into())
    );
    assert_eq!(
        Section::parse("full").unwrap_err(),
        DeliveryError::UnknownSection("full".into())
    );
    let past = ReadRequest {
        offset: 99_999_999,
        ..ok.clone()
    };
    assert!(matches!(
        read(&ctx, &past).unwrap_err(),
        DeliveryError::OffsetPastEnd { .. }
    ));
    for max in [8_191, 65_537] {
        let r = ReadRequest {
            max_bytes: max,
            ..ok.clone()
        };
        assert_eq!(
            read(&ctx, &r).unwrap_err(),
            DeliveryError::DeliveryBytes(max)
        );
    }
    let with_record = ReadRequest {
        record_id: Some("urn:r:1".into()),
        ..ok.clone()
    };
    assert_eq!(
        read(&ctx, &with_record).unwrap_err(),
        DeliveryError::RecordIdNotAllowed("package")
    );
    let without_record = request(&ctx, Section::RecordText, None, 0, 8_192);
    assert_eq!(
        read(&ctx, &without_record).unwrap_err(),
        DeliveryError::RecordIdRequired("record_text")
    );
    assert!(matches!(
        catalogue(&ctx, 999, 16_384).unwrap_err(),
        DeliveryError::OffsetPastEnd { .. }
    ));
}

#[test]
fn s40_empty_context_gives_an_empty_catalogue_and_truncation_surfaces() {
    let ctx = Context::from_stored(package(vec![], "insufficient", true), None).expect("gate");
    let v = parse(&catalogue(&ctx, 0, 16_384).expect("catalogue"));
    assert_eq!(v["records"], serde_json::json!([]));
    assert_eq!(v["delivery"]["next_offset"], Value::Null);
    assert_eq!(v["evidence_status"], "insufficient");
    assert_eq!(v["summary"]["context_truncated"], true);
    let r = parse(&read(&ctx, &request(&ctx, Section::Package, None, 0, 65_536)).expect("read"));
    assert_eq!(r["context_truncated"], true);
    assert_eq!(r["delivery"]["partial"], false);
}

#[test]
fn s41_43_large_and_empty_packages_retain_in_parts_and_reconstruct_exactly() {
    let big = context(
        (0..40)
            .map(|i| {
                item(
                    &format!("urn:r:{i}"),
                    "Rule",
                    &"€ passage \"q\" ".repeat(300),
                )
            })
            .collect(),
    );
    let parts = retain(&big).expect("retain");
    assert!(parts.len() > 1);
    assert!(
        parts.iter().all(|p| p.bytes <= 32_768
            && p.bytes == p.json.len() as u64
            && p.sha256 == sha(&p.json))
    );
    let texts: Vec<&str> = parts.iter().map(|p| p.json.as_str()).collect();
    assert_eq!(
        reconstruct(&texts, Some(&sha(big.text())))
            .expect("rebuild")
            .text(),
        big.text()
    );
    let empty = Context::from_stored(package(vec![], "insufficient", false), None).expect("gate");
    let one = retain(&empty).expect("retain empty");
    assert_eq!(one.len(), 1);
    let rebuilt = reconstruct(&[one[0].json.as_str()], None).expect("rebuild empty");
    assert_eq!(parse(rebuilt.text())["selected"], serde_json::json!([]));
}

#[test]
fn s42_reconstruction_refuses_missing_reordered_mutated_or_mixed_parts() {
    let a = context(
        (0..30)
            .map(|i| item(&format!("urn:r:{i}"), "Rule", &"passage ".repeat(400)))
            .collect(),
    );
    let parts = retain(&a).expect("retain");
    let texts: Vec<&str> = parts.iter().map(|p| p.json.as_str()).collect();
    assert!(texts.len() >= 3);
    let refused = |list: &[&str], expected: Option<&str>| reconstruct(list, expected).unwrap_err();
    assert!(matches!(
        refused(&[], None),
        DeliveryError::Reconstruction(_)
    ));
    assert!(
        matches!(
            refused(&texts[1..], None),
            DeliveryError::Part { index: 0, .. }
        ),
        "missing first part"
    );
    let mut reversed = texts.clone();
    reversed.reverse();
    assert!(matches!(
        refused(&reversed, None),
        DeliveryError::Part { index: 0, .. }
    ));
    let without_last = &texts[..texts.len() - 1];
    assert!(matches!(
        refused(without_last, None),
        DeliveryError::Part { .. }
    ));
    assert!(matches!(
        refused(&texts, Some(&"0".repeat(64))),
        DeliveryError::Reconstruction(_)
    ));
    let mutated = texts[1].replacen("passage", "passagE", 1);
    let mut list = texts.clone();
    list[1] = &mutated;
    assert!(
        matches!(refused(&list, None), DeliveryError::Reconstruction(_)),
        "hash of joined data"
    );
    let b = context(
        (0..30)
            .map(|i| item(&format!("urn:r:{i}"), "Rule", &"other ".repeat(500)))
            .collect(),
    );
    let other = retain(&b).expect("retain b");
    let mut mixed = texts.clone();
    mixed[1] = &other[1].json;
    assert!(matches!(
        refused(&mixed, None),
        DeliveryError::Part { index: 1, .. }
    ));
    let oversized = format!("{}{}", texts[0], " ".repeat(40_000));
    let mut list = texts.clone();
    list[0] = &oversized;
    assert!(matches!(
        refused(&list, None),
        DeliveryError::Part { index: 0, .. }
    ));
}

#[test]
fn s44_45_the_stored_package_gate_refuses_forgeries() {
    let text = package(vec![item("urn:r:1", "One", "t")], "insufficient", false);
    let mut v = parse(&text);
    v["context_id"] = serde_json::json!(format!("urn:sha256:{}", "a".repeat(64)));
    let forged = okf_engine::canonical::to_canonical_string(&v).expect("canonical");
    assert!(
        Context::from_stored(forged, None)
            .unwrap_err()
            .to_string()
            .contains("context_id")
    );
    let pretty = serde_json::to_string_pretty(&parse(&text)).expect("pretty");
    assert!(
        Context::from_stored(pretty, None)
            .unwrap_err()
            .to_string()
            .contains("not compact")
    );
    let mut answered = parse(&text);
    answered["ai_answer"] = serde_json::json!("yes");
    let answered = okf_engine::canonical::to_canonical_string(&answered).expect("canonical");
    assert!(
        Context::from_stored(answered, None)
            .unwrap_err()
            .to_string()
            .contains("ai_answer")
    );
    assert!(
        Context::from_stored("x".repeat(524_289), None)
            .unwrap_err()
            .to_string()
            .contains("524288")
    );
    let mut lying = parse(&text);
    lying["budget"]["used_bytes"] = serde_json::json!(12);
    let lying = okf_engine::canonical::to_canonical_string(&lying).expect("canonical");
    assert!(
        Context::from_stored(lying, None)
            .unwrap_err()
            .to_string()
            .contains("used_bytes")
    );
}

mod surrogate_pairs {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        /// Astral characters between escapes: every budget slices without splitting a pair.
        #[test]
        fn astral_text_is_never_split(seed in proptest::collection::vec(prop_oneof![
            Just("😀"), Just("𝄞"), Just("a"), Just("\""), Just("\n"), Just("é"), Just("漢")
        ], 1..400), repeat in 1usize..60, max in 8_192u64..20_000) {
            let text = seed.concat().repeat(repeat);
            let ctx = context(vec![item("urn:r:a", "Astral", &text)]);
            let (joined, digest, _) = read_all(&ctx, Section::RecordText, Some("urn:r:a"), max);
            prop_assert_eq!(&joined, &text);
            prop_assert_eq!(digest, sha(&text));
        }
    }
}

#[test]
fn s4_5_the_package_sha256_is_the_digest_of_the_stored_text_however_the_context_was_made() {
    let text = package(vec![], "insufficient", false);
    let digest = okf_engine::canonical::sha256_hex(text.as_bytes());
    let checked = Context::from_stored(text.clone(), Some(&digest)).expect("gate");
    let unchecked = Context::from_stored(text.clone(), None).expect("gate");
    let written = Context::from_canonical(text).expect("shape");
    for ctx in [&checked, &unchecked, &written] {
        assert_eq!(ctx.package_sha256(), digest);
    }
    // The whole-package read names the same digest.
    let r = parse(
        &read(
            &written,
            &request(&written, Section::Package, None, 0, 65_536),
        )
        .expect("read"),
    );
    assert_eq!(r["content_sha256"], digest.as_str(), "{r}");
}

#[test]
fn a_catalogue_page_with_extras_fits_its_limit_and_states_its_own_size() {
    let mut extras = serde_json::Map::new();
    extras.insert(
        "replay".into(),
        serde_json::json!({"bundle": "b", "question": "q".repeat(900)}),
    );
    extras.insert("response_bytes".into(), serde_json::json!(0));
    let records: Vec<Value> = (0..200)
        .map(|n| {
            item(
                &format!("urn:r:{n}"),
                &format!("Record {n}"),
                &"text ".repeat(50),
            )
        })
        .collect();
    let ctx = context(records);
    for limit in [16_384_u64, 20_000, 65_536] {
        let (value, json) =
            okf_delivery::catalogue_with_extras(&ctx, 0, limit, extras.clone()).unwrap();
        assert_eq!(
            value["response_bytes"],
            serde_json::json!(json.len()),
            "{limit}"
        );
        assert!(json.len() as u64 <= limit, "{limit}: {}", json.len());
        assert_eq!(value["replay"], extras["replay"]);
        assert!(!value["records"].as_array().unwrap().is_empty());
    }
}
