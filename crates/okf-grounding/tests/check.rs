//! The grounding check on real packages: the example bundle's and the DWP imprisonment
//! reference package; one test per rule, and property tests of the quote rule.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use okf_engine::{Budget, ContextIndex, assemble};
use okf_grounding::{GroundingError, MIN_QUOTE_CHARS, check, check_json, find_quote};
use proptest::prelude::*;
use serde_json::{Value, json};

const EXAMPLE: &str = include_str!("../../okf/example/index.json");

fn example_package(question: &str) -> Value {
    let index = ContextIndex::from_json_str(EXAMPLE).unwrap();
    serde_json::from_str(
        &assemble(&index, question, &Budget::default(), None)
            .unwrap()
            .json,
    )
    .unwrap()
}

fn dwp_package() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/dwp/reference/imprisonment-package.json"
    );
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// The text of a selected record, by the end of its id.
fn text_of<'p>(package: &'p Value, id_end: &str) -> (&'p str, &'p str) {
    let record = package["selected"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| &s["record"])
        .find(|r| r["id"].as_str().unwrap().ends_with(id_end))
        .unwrap_or_else(|| panic!("no selected record {id_end}"));
    (
        record["id"].as_str().unwrap(),
        record["text"].as_str().unwrap(),
    )
}

/// The first sentence of a text (to its first ". "), a whole-sentence quote.
fn first_sentence(text: &str) -> &str {
    text.split_inclusive(". ").next().unwrap().trim_end()
}

/// A whole-sentence quote from a selected record: the sentences the report gives for a
/// fragment of it (the repair a host makes), or the fragment when it is already whole.
fn whole_quote(package: &Value, id: &str, fragment: &str) -> String {
    let c = cite(package, id, fragment);
    if c["ok"] == true {
        fragment.to_owned()
    } else {
        c["sentences"]["text"].as_str().unwrap().to_owned()
    }
}

fn answer(package: &Value, claims: Value) -> Value {
    json!({"schema": "okf-grounded-answer.v1", "context_id": package["context_id"], "evidence_status": package["evidence_status"], "claims": claims})
}

fn codes(report: &Value) -> Vec<&str> {
    report["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e.as_str().unwrap())
        .collect()
}

/// A grounded answer to "How do I borrow books?": one claim per record the requirement needs.
fn borrowing() -> (Value, Value) {
    let p = example_package("How do I borrow books?");
    let (rules, rules_text) = text_of(&p, "evidence/lending-rules");
    let (card, card_text) = text_of(&p, "evidence/card-eligibility");
    let requirement = p["requirements"][0]["id"].clone();
    let a = answer(
        &p,
        json!([
            {"id": "c1", "text": "You can borrow up to 12 books for three weeks.", "requirement": requirement, "citations": [{"record": rules, "quote": first_sentence(rules_text)}]},
            {"id": "c2", "text": "Anyone living, working or studying in Harbourside can join.", "citations": [{"record": card, "quote": first_sentence(card_text)}]},
        ]),
    );
    (p, a)
}

#[test]
fn a_grounded_answer_is_grounded_with_offsets_and_coverage() {
    let (p, a) = borrowing();
    let report = check(&p, &a).unwrap();
    assert_eq!(report["verdict"], "grounded", "{report:#}");
    assert_eq!(codes(&report), Vec::<&str>::new());
    assert_eq!(report["claims"][0]["citations"][0]["ok"], true);
    assert_eq!(report["claims"][0]["citations"][0]["start"], 0);
    assert_eq!(report["claims"][0]["citations"][0]["end"], 70);
    assert_eq!(report["requirements"][0]["covered"], true);
    assert_eq!(report["requirements"][0]["covered_by"], json!(["c1", "c2"]));
    assert_eq!(report["schema"], "okf-answer-check.v1");
    assert_eq!(report["context_id"], p["context_id"]);
    assert_eq!(report["answer_sha256"].as_str().unwrap().len(), 64);
    // The same input gives the same bytes.
    assert_eq!(check_json(&p, &a).unwrap(), check_json(&p, &a).unwrap());
}

#[test]
fn each_broken_rule_is_named() {
    let (p, good) = borrowing();
    let mutate = |f: &dyn Fn(&mut Value)| {
        let mut a = good.clone();
        f(&mut a);
        codes(&check(&p, &a).unwrap())
            .into_iter()
            .map(str::to_owned)
            .collect::<Vec<_>>()
    };
    // A changed word in a quote.
    assert_eq!(
        mutate(&|a| {
            let q = a["claims"][0]["citations"][0]["quote"]
                .as_str()
                .unwrap()
                .replace("12", "15");
            a["claims"][0]["citations"][0]["quote"] = json!(q);
        }),
        // The requirement stays covered by c2's record, which it also needs.
        ["quote_not_found"].map(String::from)
    );
    // White space differences do not matter.
    assert_eq!(
        mutate(&|a| {
            let q = a["claims"][0]["citations"][0]["quote"]
                .as_str()
                .unwrap()
                .replace(' ', " \n  ");
            a["claims"][0]["citations"][0]["quote"] = json!(q);
        }),
        Vec::<String>::new()
    );
    assert_eq!(
        mutate(&|a| a["claims"][0]["citations"][0]["quote"] = json!("Members with")),
        ["quote_too_short"].map(String::from)
    );
    assert_eq!(
        mutate(&|a| a["claims"][1]["citations"][0]["record"] =
            json!("https://example.org/okf-example/evidence/nope")),
        ["unknown_record"].map(String::from)
    );
    assert_eq!(
        mutate(&|a| a["claims"][1]["citations"] = json!([])),
        ["uncited_claim"].map(String::from)
    );
    assert_eq!(
        mutate(&|a| a["evidence_status"] = json!("insufficient")),
        ["status_mismatch"].map(String::from)
    );
    assert_eq!(
        mutate(&|a| a["context_id"] = json!(format!("urn:sha256:{}", "0".repeat(64)))),
        ["unknown_context"].map(String::from)
    );
    assert_eq!(
        mutate(&|a| a["claims"][1]["requirement"] =
            json!("https://example.org/okf-example/requirement/none")),
        ["unknown_requirement"].map(String::from)
    );
    // Dropping both claims' grounding of the requirement leaves it uncovered.
    assert_eq!(
        mutate(&|a| {
            let claims = a["claims"].as_array_mut().unwrap();
            claims.truncate(1);
            claims[0]["citations"] = json!([]);
        }),
        ["uncited_claim", "uncovered_requirement"].map(String::from)
    );
}

#[test]
fn a_restricted_record_is_unselected_and_says_why() {
    let p = example_package("Who holds the meeting room keys in the evening?");
    let a = answer(
        &p,
        json!([{"id": "c1", "text": "The rota is kept by staff.", "citations": [{"record": "https://example.org/okf-example/evidence/staff-key-holders", "quote": "Staff only: the evening key-holder rota"}]}]),
    );
    let report = check(&p, &a).unwrap();
    assert_eq!(
        report["claims"][0]["citations"][0]["error"], "unselected_record",
        "{report:#}"
    );
    assert_eq!(report["claims"][0]["citations"][0]["detail"], "restricted");
    assert_eq!(report["verdict"], "not_grounded");
}

#[test]
fn a_claim_on_an_unmet_requirement_is_named() {
    // Two records' budget: the card-eligibility page is left out, so the borrowing
    // requirement is not met; a claim tied to it is refused, though its own quote is exact.
    let index = ContextIndex::from_json_str(EXAMPLE).unwrap();
    let budget = Budget::with_overrides(Some(2), None, None, None).unwrap();
    let p: Value = serde_json::from_str(
        &assemble(&index, "How do I borrow books?", &budget, None)
            .unwrap()
            .json,
    )
    .unwrap();
    assert_eq!(p["requirements"][0]["status"], "insufficient");
    let (id, text) = text_of(&p, "evidence/lending-rules");
    let a = answer(
        &p,
        json!([{"id": "c1", "text": "Up to 12 books.", "requirement": p["requirements"][0]["id"], "citations": [{"record": id, "quote": first_sentence(text)}]}]),
    );
    let report = check(&p, &a).unwrap();
    assert_eq!(
        report["claims"][0]["errors"],
        json!(["claim_on_unmet_requirement"]),
        "{report:#}"
    );
    assert_eq!(report["claims"][0]["citations"][0]["ok"], true);
    // The card-eligibility page was never reached: citing it says it is not selected.
    let b = answer(
        &p,
        json!([{"id": "c1", "text": "Anyone can join.", "citations": [{"record": "https://example.org/okf-example/evidence/card-eligibility", "quote": "Anyone who lives, works or studies"}]}]),
    );
    let report = check(&p, &b).unwrap();
    assert_eq!(
        report["claims"][0]["citations"][0]["error"],
        "unselected_record"
    );
    // Traversal stopped before reaching it (the budget cut the concept that leads there).
    assert_eq!(
        report["claims"][0]["citations"][0]["detail"],
        "not selected"
    );
}

#[test]
fn citing_only_what_every_dwp_branch_shares_covers_none_of_them() {
    let p = dwp_package();
    assert_eq!(p["requirements"].as_array().unwrap().len(), 4);
    // DMG Vol 3 Ch 12 PDF page 3 is required by all four branches.
    let (page, _) = text_of(&p, "dmg-vol3-ch12/0003");
    let quote = "Disqualification only affects the payability of the benefit not claimants’ entitlement to that benefit2.";
    let a = answer(
        &p,
        json!([{"id": "c1", "text": "Imprisonment guidance applies.", "citations": [{"record": page, "quote": quote}]}]),
    );
    let report = check(&p, &a).unwrap();
    assert_eq!(
        report["claims"][0]["citations"][0]["ok"], true,
        "{report:#}"
    );
    assert!(
        report["requirements"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["covered"] == false)
    );
    assert_eq!(codes(&report), ["uncovered_requirement"]);
    // One own record per branch covers each.
    let mut claims = Vec::new();
    for (i, r) in p["requirements"].as_array().unwrap().iter().enumerate() {
        let shared = |id: &str| {
            p["requirements"]
                .as_array()
                .unwrap()
                .iter()
                .all(|o| o["required"].as_array().unwrap().iter().any(|x| x == id))
        };
        let own = r["required"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_str().unwrap())
            .find(|id| {
                !shared(id)
                    && p["selected"].as_array().unwrap().iter().any(|s| {
                        s["record"]["id"] == *id
                            && s["record"]["text"].as_str().unwrap().chars().count() > 40
                    })
            })
            .unwrap();
        let (_, text) = text_of(&p, own);
        let quote = whole_quote(&p, own, &text.chars().take(40).collect::<String>());
        claims.push(json!({"id": format!("c{i}"), "text": "…", "requirement": r["id"], "citations": [{"record": own, "quote": quote}]}));
    }
    let report = check(&p, &answer(&p, Value::Array(claims))).unwrap();
    assert_eq!(report["verdict"], "grounded", "{:#}", report["errors"]);
}

#[test]
fn bad_input_is_an_error_naming_the_field_never_a_verdict() {
    let (p, good) = borrowing();
    let cases: [(Value, &str); 6] = [
        (json!([]), "answer"),
        (
            json!({"schema": "x", "context_id": "", "evidence_status": "", "claims": []}),
            "schema",
        ),
        (
            {
                let mut a = good.clone();
                a["claims"] = json!([]);
                a
            },
            "claims",
        ),
        (
            {
                let mut a = good.clone();
                a["extra"] = json!(1);
                a
            },
            "extra",
        ),
        (
            {
                let mut a = good.clone();
                a["claims"][1]["id"] = json!("c1");
                a
            },
            "claims[1].id",
        ),
        (
            {
                let mut a = good.clone();
                a["claims"][0]["citations"][0]["quote"] = json!(3);
                a
            },
            "claims[0].citations[0].quote",
        ),
    ];
    for (a, field) in cases {
        match check(&p, &a) {
            Err(GroundingError::Answer { field: f, .. }) => assert_eq!(f, field, "{a}"),
            other => panic!("{a}: {other:?}"),
        }
    }
    assert!(matches!(
        check(&json!({}), &good),
        Err(GroundingError::Package { .. })
    ));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Any quote cut from a record's text at character boundaries, at least MIN_QUOTE_CHARS
    /// long, is found, and where it is found the text reads as the quote.
    #[test]
    fn a_quote_cut_from_the_text_is_found_at_its_offsets(start in 0usize..400, len in MIN_QUOTE_CHARS..200) {
        let p = dwp_package();
        let (_, text) = text_of(&p, "dmg-vol3-ch12/0003");
        let chars: Vec<char> = text.chars().collect();
        let start = start % (chars.len() - MIN_QUOTE_CHARS);
        let end = (start + len).min(chars.len());
        let quote: String = chars[start..end].iter().collect();
        prop_assume!(quote.split_whitespace().collect::<String>().chars().count() >= MIN_QUOTE_CHARS);
        let m = find_quote(text, &quote).unwrap();
        let units: Vec<u16> = text.encode_utf16().collect();
        let found = String::from_utf16(&units[m.start..m.end]).unwrap();
        let squash = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
        prop_assert_eq!(squash(&found), squash(&quote));
        let cut_start: usize = chars[..start].iter().map(|c| c.len_utf16()).sum();
        prop_assert!(m.start <= cut_start + 1);
    }

    /// One character changed to one the text never holds: not found.
    #[test]
    fn one_changed_character_is_not_found(start in 0usize..400, at in 0usize..MIN_QUOTE_CHARS) {
        let p = dwp_package();
        let (_, text) = text_of(&p, "dmg-vol3-ch12/0003");
        let chars: Vec<char> = text.chars().collect();
        let start = start % (chars.len() - MIN_QUOTE_CHARS);
        let mut quote: Vec<char> = chars[start..start + MIN_QUOTE_CHARS].to_vec();
        quote[at] = '\u{E000}';
        prop_assert_eq!(find_quote(text, &quote.iter().collect::<String>()), None);
    }
}

/// The citation report of a one-claim answer citing `record` with `quote`.
fn cite(p: &Value, record: &str, quote: &str) -> Value {
    let a = answer(
        p,
        json!([{"id": "c1", "text": "A claim.", "citations": [{"record": record, "quote": quote}]}]),
    );
    let report = check(p, &a).unwrap();
    report["claims"][0]["citations"][0].clone()
}

/// The record text between two UTF-16 offsets.
fn utf16_slice(text: &str, start: &Value, end: &Value) -> String {
    let units: Vec<u16> = text.encode_utf16().collect();
    let (s, e) = (
        start.as_u64().unwrap() as usize,
        end.as_u64().unwrap() as usize,
    );
    String::from_utf16(&units[s..e]).unwrap()
}

/// A package of hand-written records, for the sentence rule's cases the real data lacks.
fn package_of(records: &[(&str, &str)]) -> Value {
    let selected: Vec<Value> = records
        .iter()
        .map(|(id, text)| json!({"record": {"id": id, "text": text, "label": format!("Label of {id}")}}))
        .collect();
    json!({"schema": "okf-governed-context.v1", "context_id": format!("urn:sha256:{}", "a".repeat(64)), "evidence_status": "sufficient", "selected": selected, "requirements": []})
}

/// The worked example of docs/grounding.md: a quote that stops before "at a time." is exact
/// but not a whole sentence; the report gives the sentence, as exact record text, and where.
#[test]
fn a_quote_that_stops_inside_a_sentence_is_not_whole_and_the_report_gives_the_sentence() {
    let p = example_package("How do I borrow books?");
    let (rules, _) = text_of(&p, "evidence/lending-rules");
    let c = cite(
        &p,
        rules,
        "Members with a valid library card may borrow up to 12 books",
    );
    assert_eq!(
        c,
        json!({
            "end": 59,
            "error": "quote_not_whole_sentence",
            "ok": false,
            "record": rules,
            "sentences": {"end": 70, "start": 0, "text": "Members with a valid library card may borrow up to 12 books at a time."},
            "start": 0
        })
    );
    // The whole sentence is grounded; so are two whole sentences, and the sentence without
    // its full stop.
    for quote in [
        "Members with a valid library card may borrow up to 12 books at a time.",
        "Members with a valid library card may borrow up to 12 books at a time",
        "Members with a valid library card may borrow up to 12 books at a time. The standard loan period is three weeks, and a loan may be renewed twice unless another member has reserved the item.",
    ] {
        assert_eq!(cite(&p, rules, quote)["ok"], true, "{quote}");
    }
}

#[test]
fn a_quote_that_starts_inside_a_sentence_is_not_whole() {
    let p = example_package("How do I borrow books?");
    let (card, text) = text_of(&p, "evidence/card-eligibility");
    let c = cite(
        &p,
        card,
        "can join the library free of charge by showing one proof of address.",
    );
    assert_eq!(c["error"], "quote_not_whole_sentence", "{c:#}");
    assert_eq!(c["sentences"]["start"], 0);
    assert_eq!(
        c["sentences"]["text"],
        "Anyone who lives, works or studies in Harbourside can join the library free of charge by showing one proof of address."
    );
    assert_eq!(
        utf16_slice(text, &c["sentences"]["start"], &c["sentences"]["end"]),
        c["sentences"]["text"].as_str().unwrap()
    );
    let a = answer(
        &p,
        json!([{"id": "c1", "text": "Anyone can join.", "citations": [{"record": card, "quote": "can join the library free of charge by showing one proof of address."}]}]),
    );
    let report = check(&p, &a).unwrap();
    assert_eq!(report["verdict"], "not_grounded");
    assert!(codes(&report).contains(&"quote_not_whole_sentence"));
}

/// DMG page text: a leading paragraph number or list marker need not be quoted, a glued
/// footnote marker and the full stop may be left off, but a list item is part of its
/// sentence (the lead-in and every item), and a spaced footnote marker must be quoted.
#[test]
fn dmg_paragraph_numbers_footnote_markers_and_list_items_follow_the_sentence_rule() {
    let p = dwp_package();
    let (jsa, jsa_text) = text_of(&p, "dmg-vol4-ch24/0037");
    let (ch12, _) = text_of(&p, "dmg-vol3-ch12/0003");
    let whole = [
        (
            jsa,
            "A person who is on temporary release (see DMG Chapter 21) or is detained in custody, will not be able to satisfy the condition of being available for employment, and will not be entitled to JSA(Cont).",
        ),
        (
            jsa,
            "24185 A person who is on temporary release (see DMG Chapter 21) or is detained in custody, will not be able to satisfy the condition of being available for employment, and will not be entitled to JSA(Cont).",
        ),
        (
            jsa,
            "A claimant can be treated as available1 if, for a maximum of 96 hours before being released, he is held in 1. police detention under specific legislation2 or 2. legal custody as defined in Scotland3, so long as they are not a prisoner.",
        ),
        (
            jsa,
            "The claimant may need to claim IS for housing costs. Any partner may need to claim IS or JSA(IB).",
        ),
        (
            ch12,
            "Disqualification only affects the payability of the benefit not claimants’ entitlement to that benefit",
        ),
        (
            ch12,
            "Claimants are disqualified from receiving these benefits when they are imprisoned or detained in legal custody following criminal proceedings 1.",
        ),
    ];
    for (record, quote) in whole {
        let c = cite(&p, record, quote);
        assert_eq!(c["ok"], true, "{quote}: {c:#}");
    }
    let fragments = [
        // Stops before the operative condition.
        (
            jsa,
            "A person who is on temporary release (see DMG Chapter 21) or is detained in custody, will not be able to satisfy the condition of being available for employment",
        ),
        // The lead-in and the first item only.
        (
            jsa,
            "A claimant can be treated as available1 if, for a maximum of 96 hours before being released, he is held in 1. police detention under specific legislation2 or",
        ),
        // A list item without its lead-in.
        (
            jsa,
            "legal custody as defined in Scotland3, so long as they are not a prisoner.",
        ),
        (
            jsa,
            "2. legal custody as defined in Scotland3, so long as they are not a prisoner.",
        ),
        // The spaced footnote marker left off.
        (
            ch12,
            "Claimants are disqualified from receiving these benefits when they are imprisoned or detained in legal custody following criminal proceedings",
        ),
    ];
    for (record, quote) in fragments {
        let c = cite(&p, record, quote);
        assert_eq!(c["error"], "quote_not_whole_sentence", "{quote}: {c:#}");
    }
    let c = cite(
        &p,
        jsa,
        "he is held in 1. police detention under specific legislation2 or",
    );
    assert_eq!(
        c["sentences"]["text"],
        "A claimant can be treated as available1 if, for a maximum of 96 hours before being\n        released, he is held in\n\n        1.    police detention under specific legislation2 or\n\n        2.    legal custody as defined in Scotland3, so long as they are not a prisoner."
    );
    assert_eq!(
        utf16_slice(jsa_text, &c["sentences"]["start"], &c["sentences"]["end"]),
        c["sentences"]["text"].as_str().unwrap()
    );
}

/// Sub-paragraphs that are sentences of their own ("(1) A claimant …; and (2) A …"): each
/// ends where the next begins, its trailing "; and" may be left off, and the number and
/// marker before it need not be quoted.
#[test]
fn a_sub_paragraph_that_begins_a_sentence_is_a_sentence_of_its_own() {
    let text = "78773 (1) A claimant who has been in hospital for 52 weeks is treated as absent from the household; and\n(2) A claimant who returns home for a day is treated as present that day.";
    let p = package_of(&[("r1", text)]);
    for quote in [
        "A claimant who has been in hospital for 52 weeks is treated as absent from the household",
        "(1) A claimant who has been in hospital for 52 weeks is treated as absent from the household;",
        "78773 (1) A claimant who has been in hospital for 52 weeks is treated as absent from the household; and",
        "A claimant who returns home for a day is treated as present that day.",
    ] {
        assert_eq!(cite(&p, "r1", quote)["ok"], true, "{quote}");
    }
    let c = cite(&p, "r1", "A claimant who has been in hospital for 52 weeks");
    assert_eq!(c["error"], "quote_not_whole_sentence");
    assert_eq!(
        c["sentences"],
        json!({"end": 103, "start": 10, "text": "A claimant who has been in hospital for 52 weeks is treated as absent from the household; and"})
    );
}

#[test]
fn padding_does_not_count_towards_the_quote_minimum() {
    let p = package_of(&[(
        "r1",
        "A member with a library card may borrow up to 12 books.",
    )]);
    assert_eq!(
        cite(&p, "r1", "card may borrow up")["error"],
        "quote_too_short"
    );
    assert_eq!(
        cite(&p, "r1", "  card may borrow up  ")["error"],
        "quote_too_short"
    );
    assert_eq!(
        cite(&p, "r1", "\n card may borrow up \t")["error"],
        "quote_too_short"
    );
    // Padding around a whole sentence is not part of the match either.
    let c = cite(
        &p,
        "r1",
        "  A member with a library card may borrow up to 12 books.  ",
    );
    assert_eq!(
        (&c["ok"], &c["start"], &c["end"]),
        (&json!(true), &json!(0), &json!(55))
    );
}

#[test]
fn a_claim_or_id_of_only_invisible_format_characters_is_blank() {
    let (p, good) = borrowing();
    for (field, blank) in [
        ("text", "\u{200B}"),
        ("text", " \u{200C}\u{200D}\n"),
        ("text", "\u{2060}\u{FEFF}"),
        ("id", "\u{200B}"),
        ("id", "\u{FEFF} "),
    ] {
        let mut a = good.clone();
        a["claims"][1][field] = json!(blank);
        match check(&p, &a) {
            Err(GroundingError::Answer { field: f, rule }) => {
                assert_eq!(f, format!("claims[1].{field}"), "{blank:?}");
                assert_eq!(rule, "must not be blank");
            }
            other => panic!("{field} {blank:?}: {other:?}"),
        }
    }
}

/// The right quote on the wrong record: reported with the record it is in, its label and
/// locator, and where; still not grounded. A misquote stays quote_not_found.
#[test]
fn a_quote_found_in_another_selected_record_names_that_record_and_where() {
    let p = dwp_package();
    let (jsa, _) = text_of(&p, "dmg-vol4-ch24/0037");
    let (ch12, ch12_text) = text_of(&p, "dmg-vol3-ch12/0003");
    let quote = "Disqualification only affects the payability of the benefit not claimants’ entitlement to that benefit2.";
    let c = cite(&p, jsa, quote);
    assert_eq!(c["error"], "quote_in_other_record", "{c:#}");
    assert_eq!(c["ok"], false);
    let found = &c["found_in"];
    assert_eq!(found["record"], ch12);
    assert_eq!(found["label"], "DMG Vol 3 Ch 12: Imprisonment — PDF page 3");
    assert_eq!(
        found["locator"],
        "DMG chapter 12, PDF page 3; exact whole extracted page; imprisonment passages and continuation context"
    );
    assert_eq!(
        utf16_slice(ch12_text, &found["start"], &found["end"])
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" "),
        quote
    );
    let a = answer(
        &p,
        json!([{"id": "c1", "text": "Payability only.", "citations": [{"record": jsa, "quote": quote}]}]),
    );
    let report = check(&p, &a).unwrap();
    assert!(
        codes(&report).contains(&"quote_in_other_record"),
        "{report:#}"
    );
    assert_eq!(report["verdict"], "not_grounded");
    // A quote in no record at all is still not found; a record without label or locator is
    // named by its id alone.
    assert_eq!(
        cite(
            &p,
            jsa,
            "Disqualification only affects the payability of every benefit."
        )["error"],
        "quote_not_found"
    );
    let q = package_of(&[
        ("r1", "One sentence about books, long enough."),
        ("r2", "Another sentence, about rooms and keys."),
    ]);
    let mut q = q;
    q["selected"][1]["record"]
        .as_object_mut()
        .unwrap()
        .remove("label");
    assert_eq!(
        cite(&q, "r1", "Another sentence, about rooms and keys.")["found_in"],
        json!({"end": 39, "record": "r2", "start": 0})
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// A fragment cut from a DMG page inside a word is not whole sentences; the reported
    /// sentences contain it, are exact record text, and quoted instead, are grounded.
    #[test]
    fn the_reported_sentences_repair_a_fragment(start in 0usize..2000, len in MIN_QUOTE_CHARS..160) {
        let p = dwp_package();
        let (jsa, text) = text_of(&p, "dmg-vol4-ch24/0037");
        let chars: Vec<char> = text.chars().collect();
        let start = start % (chars.len() - MIN_QUOTE_CHARS);
        let end = (start + len).min(chars.len());
        let quote: String = chars[start..end].iter().collect();
        prop_assume!(quote.split_whitespace().collect::<String>().chars().count() >= MIN_QUOTE_CHARS);
        // Cut inside a word: never a sentence start.
        prop_assume!(start > 0 && chars[start - 1].is_alphabetic() && chars[start].is_alphabetic());
        prop_assume!(find_quote(text, &quote).is_some_and(|m| m.start == chars[..start].iter().map(|c| c.len_utf16()).sum::<usize>()));
        let c = cite(&p, jsa, &quote);
        {
            prop_assert_eq!(&c["error"], "quote_not_whole_sentence", "{:#}", c);
            let s = &c["sentences"];
            prop_assert!(s["start"].as_u64() <= c["start"].as_u64() && c["end"].as_u64() <= s["end"].as_u64());
            let sentences = utf16_slice(text, &s["start"], &s["end"]);
            prop_assert_eq!(sentences.as_str(), s["text"].as_str().unwrap());
            let repaired = cite(&p, jsa, &sentences);
            prop_assert_eq!(&repaired["ok"], true, "{:#}", repaired);
        }
    }
}
