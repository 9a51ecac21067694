//! The evaluation set of the answer check: for each package (the example bundle's four
//! questions, the DWP imprisonment question, the DWP hospital question on the hospital profile)
//! a grounded answer built from the package's own records (whole sentences), and answers that
//! each break exactly one rule, each with the error codes it must get. Prints an `okf eval`-style table.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use crate::common::*;
use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::path::Path;

/// The packages of the set: (name, package JSON).
fn packages(dir: &Path) -> Vec<(String, Value)> {
    let ask = |args: &[&str]| -> Value {
        let o = okf(args);
        assert!(o.status.success(), "{}", stderr(&o));
        serde_json::from_slice(&o.stdout).unwrap()
    };
    let mut out = Vec::new();
    let questions: Value =
        serde_json::from_str(include_str!("../../example/questions.json")).unwrap();
    for q in questions.as_array().unwrap() {
        let question = q["question"].as_str().unwrap();
        out.push((
            format!("example: {question}"),
            ask(&["ask", "--json", question]),
        ));
    }
    let dwp = shared("dwp/full-dmg/context/assembly-index.json");
    out.push((
        "DWP imprisonment".into(),
        ask(&["ask", "--json", "--index", &dwp, &imprisonment_question()]),
    ));
    let hospital = dir.join("hospital.json");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let built = okf(&[
        "build",
        root.join("profiles/dwp-hospital").to_str().unwrap(),
        "--sources",
        &shared("dwp/source"),
        "--out",
        hospital.to_str().unwrap(),
    ]);
    assert!(built.status.success(), "{}", stderr(&built));
    let question: Value = serde_json::from_slice(
        &std::fs::read(shared("dwp/reference/hospital-package.json")).unwrap(),
    )
    .unwrap();
    out.push((
        "DWP hospital (profile)".into(),
        ask(&[
            "ask",
            "--json",
            "--index",
            hospital.to_str().unwrap(),
            question["question"].as_str().unwrap(),
        ]),
    ));
    out
}

struct View<'p> {
    p: &'p Value,
}

impl<'p> View<'p> {
    fn text(&self, id: &str) -> Option<&'p str> {
        self.p["selected"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["record"]["id"] == id)
            .and_then(|s| s["record"]["text"].as_str())
    }
    fn requirements(&self) -> &'p [Value] {
        self.p["requirements"].as_array().unwrap()
    }
    fn named(r: &Value) -> BTreeSet<String> {
        let mut ids: BTreeSet<String> = r["required"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap().to_owned())
            .collect();
        for path in r["required_paths"].as_array().into_iter().flatten() {
            ids.extend(
                path["records"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|v| v.as_str().unwrap().to_owned()),
            );
        }
        ids
    }
    /// The records that cover `r` when cited (its own, less those every requirement names).
    fn covering(&self, r: &Value) -> BTreeSet<String> {
        let all: Vec<BTreeSet<String>> = self.requirements().iter().map(Self::named).collect();
        let own = Self::named(r);
        if all.len() < 2 {
            return own;
        }
        own.into_iter()
            .filter(|id| !all.iter().all(|s| s.contains(id)))
            .collect()
    }
    /// A citation of a selected record: its id and its first whole sentence(s), the ones the
    /// check reports for its first 40 characters (quotes must be whole sentences).
    fn cite(&self, id: &str) -> Option<Value> {
        let text = self.text(id)?;
        if text.chars().filter(|c| !c.is_whitespace()).count() < 30 {
            return None;
        }
        let fragment: String = text.chars().take(40).collect();
        let probe = self.answer(vec![
            json!({"id": "probe", "text": "…", "citations": [{"record": id, "quote": fragment}]}),
        ]);
        let report = okf_grounding::check(self.p, &probe).ok()?;
        let c = &report["claims"][0]["citations"][0];
        let quote = if c["ok"] == true {
            fragment
        } else {
            c["sentences"]["text"].as_str()?.to_owned()
        };
        Some(json!({"record": id, "quote": quote}))
    }
    fn answer(&self, claims: Vec<Value>) -> Value {
        json!({"schema": "okf-grounded-answer.v1", "context_id": self.p["context_id"], "evidence_status": self.p["evidence_status"], "claims": claims})
    }
}

/// The best answer the package allows: for each requirement one claim citing a record that
/// covers it (tied to the requirement when it is met); with no requirement, one claim citing
/// the first record. The flag says some requirement has no selected record to cite (only
/// declared gaps or missing records): then no answer can cover it, so none is grounded.
fn best(v: &View<'_>) -> Option<(Value, bool)> {
    let mut claims = Vec::new();
    let mut uncoverable = false;
    for (i, r) in v.requirements().iter().enumerate() {
        let Some(citation) = v.covering(r).iter().find_map(|id| v.cite(id)) else {
            uncoverable = true;
            continue;
        };
        let met = r["status"] == "supported-within-declared-scope";
        claims.push(json!({"id": format!("c{i}"), "text": "…", "requirement": if met { r["id"].clone() } else { Value::Null }, "citations": [citation]}));
    }
    if claims.is_empty() {
        let first = v.p["selected"]
            .as_array()
            .unwrap()
            .iter()
            .find_map(|s| v.cite(s["record"]["id"].as_str().unwrap()))?;
        claims.push(json!({"id": "c0", "text": "…", "requirement": null, "citations": [first]}));
    }
    Some((v.answer(claims), uncoverable))
}

/// `base` and `code`, sorted (the report lists its codes in byte order).
fn plus(base: &[&'static str], code: &'static str) -> Vec<&'static str> {
    let mut all: Vec<&'static str> = base.iter().copied().chain([code]).collect();
    all.sort_unstable();
    all.dedup();
    all
}

/// The set's cases for one package: (case, answer, expected codes).
fn cases(v: &View<'_>) -> Vec<(&'static str, Value, Vec<&'static str>)> {
    let Some((good, uncoverable)) = best(v) else {
        return Vec::new();
    };
    let base: Vec<&'static str> = if uncoverable {
        vec!["uncovered_requirement"]
    } else {
        vec![]
    };
    let mut out = vec![(
        if uncoverable {
            "best possible (a branch has nothing to cite)"
        } else {
            "grounded"
        },
        good.clone(),
        base.clone(),
    )];
    let first = good["claims"][0]["citations"][0].clone();
    let record = first["record"].as_str().unwrap().to_owned();
    let with_claim = |claim: Value| {
        let mut a = good.clone();
        a["claims"].as_array_mut().unwrap().push(claim);
        a
    };
    out.push(("fabricated quote", with_claim(json!({"id": "x", "text": "…", "requirement": null, "citations": [{"record": record, "quote": "This sentence appears in no record of the package at all."}]})), plus(&base, "quote_not_found")));
    // One word changed: the first word of the quote, replaced by one no text of the package has.
    let quote = first["quote"].as_str().unwrap();
    let changed = quote.replacen(quote.split_whitespace().next().unwrap(), "Zyxwvut", 1);
    out.push(("one word changed", with_claim(json!({"id": "x", "text": "…", "requirement": null, "citations": [{"record": record, "quote": changed}]})), plus(&base, "quote_not_found")));
    // The quote without its last word: exact, but it stops inside its sentence.
    let cut = quote
        .trim_end()
        .rsplit_once(char::is_whitespace)
        .map(|(head, _)| head);
    if let Some(cut) =
        cut.filter(|c| c.split_whitespace().collect::<String>().chars().count() >= 30)
    {
        out.push(("a fragment", with_claim(json!({"id": "x", "text": "…", "requirement": null, "citations": [{"record": record, "quote": cut}]})), plus(&base, "quote_not_whole_sentence")));
    }
    // The right quote on the wrong record: another selected record's sentence, cited on the
    // first claim's record.
    let elsewhere = v.p["selected"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| s["record"]["id"].as_str())
        .filter(|id| *id != record)
        .filter_map(|id| v.cite(id))
        .find(|c| {
            !v.text(&record)
                .unwrap()
                .contains(c["quote"].as_str().unwrap())
        });
    if let Some(c) = elsewhere {
        out.push(("the right quote, the wrong record", with_claim(json!({"id": "x", "text": "…", "requirement": null, "citations": [{"record": record, "quote": c["quote"]}]})), plus(&base, "quote_in_other_record")));
    }
    out.push((
        "uncited claim",
        with_claim(json!({"id": "x", "text": "…", "requirement": null, "citations": []})),
        plus(&base, "uncited_claim"),
    ));
    let mut wrong = good.clone();
    wrong["evidence_status"] = json!(if v.p["evidence_status"] == "sufficient" {
        "insufficient"
    } else {
        "sufficient"
    });
    out.push(("wrong status", wrong, plus(&base, "status_mismatch")));
    // A record the package names but did not select (omitted, missing or restricted).
    let unselected = v.p["missing_evidence"]
        .as_array()
        .unwrap()
        .iter()
        .chain(v.p["budget"]["omissions"].as_array().unwrap())
        .flat_map(|i| {
            i["ids"]
                .as_array()
                .unwrap()
                .iter()
                .filter_map(Value::as_str)
        })
        .find(|id| v.text(id).is_none() && !id.contains("/gap/") && !id.contains("/regime/"));
    if let Some(id) = unselected {
        out.push(("unselected record", with_claim(json!({"id": "x", "text": "…", "requirement": null, "citations": [{"record": id, "quote": "Text that cannot be checked against anything."}]})), plus(&base, "unselected_record")));
    }
    // A claim tied to a requirement the package does not meet (its citation is sound).
    if let Some(unmet) = v
        .requirements()
        .iter()
        .find(|r| r["status"] != "supported-within-declared-scope")
    {
        out.push((
            "claim on an unmet requirement",
            with_claim(
                json!({"id": "x", "text": "…", "requirement": unmet["id"], "citations": [first]}),
            ),
            plus(&base, "claim_on_unmet_requirement"),
        ));
    }
    // A missing branch: drop the claim for a requirement no other claim's record covers
    // (when another claim remains: an answer holds at least one).
    let claims = good["claims"].as_array().unwrap().len();
    for (i, r) in v
        .requirements()
        .iter()
        .enumerate()
        .filter(|_| claims > 1 && !uncoverable)
    {
        let covering = v.covering(r);
        let others_cover = good["claims"]
            .as_array()
            .unwrap()
            .iter()
            .enumerate()
            .filter(|(j, _)| *j != i)
            .any(|(_, c)| covering.contains(c["citations"][0]["record"].as_str().unwrap()));
        if !others_cover {
            let mut a = good.clone();
            a["claims"].as_array_mut().unwrap().remove(i);
            out.push(("a missing branch", a, vec!["uncovered_requirement"]));
            break;
        }
    }
    out
}

#[test]
fn every_grounded_answer_is_grounded_and_every_broken_one_gets_exactly_its_codes() {
    let dir = temp_dir("answer-set");
    let mut rows = Vec::new();
    let mut failures = Vec::new();
    for (name, package) in packages(&dir) {
        let view = View { p: &package };
        let set = cases(&view);
        assert!(set.len() >= 5, "{name}: {} cases", set.len());
        for (case, answer, expected) in set {
            let report = okf_grounding::check(&package, &answer).unwrap();
            let got: Vec<&str> = report["errors"]
                .as_array()
                .unwrap()
                .iter()
                .map(|e| e.as_str().unwrap())
                .collect();
            let verdict = report["verdict"].as_str().unwrap();
            let pass = got == expected && (verdict == "grounded") == expected.is_empty();
            if !pass {
                failures.push(format!(
                    "{name} / {case}: expected {expected:?}, got {got:?}"
                ));
            }
            rows.push(format!(
                "{:<44} {:<34} {:<14} {:<40} {}",
                name,
                case,
                verdict,
                got.join(","),
                if pass { "passed" } else { "FAILED" }
            ));
        }
    }
    println!(
        "{:<44} {:<34} {:<14} {:<40} status",
        "package", "case", "verdict", "errors"
    );
    for row in &rows {
        println!("{row}");
    }
    println!("{} cases, {} failed", rows.len(), failures.len());
    assert!(failures.is_empty(), "{failures:#?}");
    let _ = std::fs::remove_dir_all(dir);
}
