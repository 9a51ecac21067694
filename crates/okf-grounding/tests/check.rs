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
            {"id": "c1", "text": "You can borrow up to 12 books for three weeks.", "requirement": requirement, "citations": [{"record": rules, "quote": &rules_text[..80]}]},
            {"id": "c2", "text": "Anyone living, working or studying in Harbourside can join.", "citations": [{"record": card, "quote": &card_text[..70]}]},
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
    assert_eq!(report["claims"][0]["citations"][0]["end"], 80);
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
        json!([{"id": "c1", "text": "Up to 12 books.", "requirement": p["requirements"][0]["id"], "citations": [{"record": id, "quote": &text[..40]}]}]),
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
    let (page, text) = text_of(&p, "dmg-vol3-ch12/0003");
    let quote: String = text.chars().take(60).collect();
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
        claims.push(json!({"id": format!("c{i}"), "text": "…", "requirement": r["id"], "citations": [{"record": own, "quote": text.chars().take(40).collect::<String>()}]}));
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
