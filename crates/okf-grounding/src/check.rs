//! The check itself: an answer against the package it was written from.

use crate::GroundingError;
use crate::answer::{Answer, Citation, Claim};
use crate::quote::{MIN_QUOTE_CHARS, QuoteMatch, find_all, find_quote, quote_chars};
use crate::sentence::Sentences;
use okf_engine::canonical::{sha256_hex, to_canonical_string};
use serde_json::{Map, Value, json};
use std::collections::{BTreeSet, HashMap, HashSet};

/// The `schema` of a report.
pub const REPORT_SCHEMA: &str = "okf-answer-check.v1";

const MET: &str = "supported-within-declared-scope";

/// What the check reads from a package.
struct Package<'p> {
    context_id: &'p str,
    evidence_status: &'p str,
    /// Selected records in package order.
    records: Vec<Record<'p>>,
    /// Applicable requirements, in package order.
    requirements: Vec<Requirement<'p>>,
    /// Why an id the package names was not selected, for ids it names without selecting.
    unselected: HashMap<&'p str, &'static str>,
}

/// A selected record: what names it in a report.
struct Record<'p> {
    id: &'p str,
    text: &'p str,
    /// Its `label`, if the package gives one.
    label: Option<&'p str>,
    /// Its first provenance entry's `locator`, if the package gives one.
    locator: Option<&'p str>,
}

struct Requirement<'p> {
    id: &'p str,
    status: &'p str,
    /// Required records and records on required paths.
    named: BTreeSet<&'p str>,
}

fn bad_package(field: &str, rule: &str) -> GroundingError {
    GroundingError::Package {
        field: field.to_owned(),
        rule: rule.to_owned(),
    }
}

fn strs(value: &Value) -> impl Iterator<Item = &str> {
    value
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
}

fn items<'v>(value: &'v Value, key: &str) -> &'v [Value] {
    value
        .get(key)
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

impl<'p> Package<'p> {
    fn read(p: &'p Value) -> Result<Self, GroundingError> {
        let text_of = |key: &str| {
            p.get(key)
                .and_then(Value::as_str)
                .ok_or_else(|| bad_package(key, "must be a string"))
        };
        if p.get("schema").and_then(Value::as_str) != Some("okf-governed-context.v1") {
            return Err(bad_package("schema", "must be \"okf-governed-context.v1\""));
        }
        let context_id = text_of("context_id")?;
        let evidence_status = text_of("evidence_status")?;
        let mut texts: HashSet<&str> = HashSet::new();
        let mut records = Vec::new();
        for (i, item) in items(p, "selected").iter().enumerate() {
            let record = &item["record"];
            match (record["id"].as_str(), record["text"].as_str()) {
                (Some(id), Some(text)) => {
                    texts.insert(id);
                    records.push(Record {
                        id,
                        text,
                        label: record["label"].as_str(),
                        locator: record["provenance"][0]["locator"].as_str(),
                    });
                }
                _ => {
                    return Err(bad_package(
                        &format!("selected[{i}].record"),
                        "needs an id and a text",
                    ));
                }
            }
        }
        let requirements = items(p, "requirements")
            .iter()
            .map(|r| Requirement {
                id: r["id"].as_str().unwrap_or_default(),
                status: r["status"].as_str().unwrap_or_default(),
                named: strs(&r["required"])
                    .chain(
                        items(r, "required_paths")
                            .iter()
                            .flat_map(|path| strs(&path["records"])),
                    )
                    .collect(),
            })
            .collect::<Vec<_>>();
        let mut unselected: HashMap<&str, &'static str> = HashMap::new();
        let mut note = |id: &'p str, why: &'static str| {
            if !texts.contains(id) {
                unselected.entry(id).or_insert(why);
            }
        };
        for issue in items(&p["budget"], "omissions") {
            strs(&issue["ids"]).for_each(|id| note(id, "omitted by the budget"));
        }
        for issue in items(p, "missing_evidence") {
            let why = match issue["code"].as_str() {
                Some("restricted_evidence") => "restricted",
                Some("missing_record") => "missing from the index",
                _ => "not selected",
            };
            strs(&issue["ids"]).for_each(|id| note(id, why));
        }
        for r in &requirements {
            r.named.iter().for_each(|id| note(id, "not selected"));
        }
        for rel in items(p, "relationships") {
            for end in ["source", "target"] {
                if let Some(id) = rel[end].as_str() {
                    note(id, "not selected");
                }
            }
        }
        Ok(Package {
            context_id,
            evidence_status,
            records,
            requirements,
            unselected,
        })
    }

    /// The records that cover each requirement when cited: its own, less those every
    /// applicable requirement names (when there are several).
    fn covering(&self) -> Vec<BTreeSet<&'p str>> {
        let shared: BTreeSet<&str> = match self.requirements.split_first() {
            Some((first, rest)) if !rest.is_empty() => first
                .named
                .iter()
                .copied()
                .filter(|id| rest.iter().all(|r| r.named.contains(id)))
                .collect(),
            _ => BTreeSet::new(),
        };
        self.requirements
            .iter()
            .map(|r| r.named.difference(&shared).copied().collect())
            .collect()
    }
}

/// The text between two UTF-16 offsets of `text` (empty if they are not within it).
fn utf16_slice(text: &str, start: usize, end: usize) -> String {
    let units: Vec<u16> = text.encode_utf16().collect();
    units
        .get(start..end)
        .map(String::from_utf16_lossy)
        .unwrap_or_default()
}

/// The sentences of each record text checked so far, by record id.
type SentenceCache<'p> = HashMap<&'p str, Sentences>;

/// One citation's outcome, and the record it grounds when `ok` (else its error code).
fn check_citation<'a, 'p>(
    package: &Package<'p>,
    sentences: &mut SentenceCache<'p>,
    citation: &'a Citation,
) -> (Value, Result<&'a str, &'static str>) {
    let mut out = Map::new();
    out.insert("record".into(), json!(citation.record));
    let quote = citation.quote.trim();
    let cited = package
        .records
        .iter()
        .find(|r| r.id == citation.record.as_str());
    let error = match cited {
        None => match package.unselected.get(citation.record.as_str()) {
            Some(why) => {
                out.insert("detail".into(), json!(why));
                "unselected_record"
            }
            None => "unknown_record",
        },
        Some(_) if quote_chars(quote) < MIN_QUOTE_CHARS => "quote_too_short",
        Some(record) => {
            let found = find_all(record.text, quote);
            if found.is_empty() {
                match package
                    .records
                    .iter()
                    .filter(|r| r.id != record.id)
                    .find_map(|r| find_quote(r.text, quote).map(|m| (r, m)))
                {
                    Some((other, m)) => {
                        let mut at = Map::new();
                        at.insert("record".into(), json!(other.id));
                        if let Some(label) = other.label {
                            at.insert("label".into(), json!(label));
                        }
                        if let Some(locator) = other.locator {
                            at.insert("locator".into(), json!(locator));
                        }
                        at.insert("start".into(), json!(m.start));
                        at.insert("end".into(), json!(m.end));
                        out.insert("found_in".into(), Value::Object(at));
                        "quote_in_other_record"
                    }
                    None => "quote_not_found",
                }
            } else {
                let bounds = sentences
                    .entry(record.id)
                    .or_insert_with(|| Sentences::of(record.text));
                let whole = found.iter().find(|m| bounds.is_whole(m.start, m.end));
                let m: QuoteMatch = whole
                    .or(found.first())
                    .copied()
                    .unwrap_or(QuoteMatch { start: 0, end: 0 });
                out.insert("start".into(), json!(m.start));
                out.insert("end".into(), json!(m.end));
                if whole.is_some() {
                    out.insert("ok".into(), json!(true));
                    return (Value::Object(out), Ok(citation.record.as_str()));
                }
                let (start, end) = bounds.around(m.start, m.end);
                out.insert(
                    "sentences".into(),
                    json!({"end": end, "start": start, "text": utf16_slice(record.text, start, end)}),
                );
                "quote_not_whole_sentence"
            }
        }
    };
    out.insert("ok".into(), json!(false));
    out.insert("error".into(), json!(error));
    (Value::Object(out), Err(error))
}

/// One claim's outcome: its citations, its own errors, and the records it grounds.
fn check_claim<'a, 'p>(
    package: &Package<'p>,
    sentences: &mut SentenceCache<'p>,
    claim: &'a Claim,
) -> (Value, Vec<&'a str>, Vec<&'static str>) {
    let mut errors: Vec<&'static str> = Vec::new();
    let mut grounded = Vec::new();
    let citations: Vec<Value> = claim
        .citations
        .iter()
        .map(|c| {
            let (value, outcome) = check_citation(package, sentences, c);
            match outcome {
                Ok(record) => grounded.push(record),
                Err(code) => errors.push(code),
            }
            value
        })
        .collect();
    if claim.citations.is_empty() {
        errors.push("uncited_claim");
    }
    if let Some(id) = &claim.requirement {
        match package.requirements.iter().find(|r| r.id == id) {
            None => errors.push("unknown_requirement"),
            Some(r) if r.status != MET => errors.push("claim_on_unmet_requirement"),
            Some(_) => {}
        }
    }
    let mut unique: Vec<&'static str> = errors.clone();
    unique.sort_unstable();
    unique.dedup();
    let value = json!({
        "citations": citations,
        "errors": unique,
        "id": claim.id,
        "requirement": claim.requirement,
    });
    (value, grounded, errors)
}

/// Checks `answer` (a decoded JSON value) against `package` (the package it names) and returns
/// the report (`okf-answer-check.v1`) as a JSON value. Bad input is an error naming the field,
/// never a verdict.
pub fn check(package: &Value, answer: &Value) -> Result<Value, GroundingError> {
    let decoded = Answer::from_value(answer)?;
    let pkg = Package::read(package)?;
    let answer_sha256 = to_canonical_string(answer)
        .map(|c| sha256_hex(c.as_bytes()))
        .map_err(|e| GroundingError::Answer {
            field: "answer".into(),
            rule: e.to_string(),
        })?;
    let mut errors: BTreeSet<&'static str> = BTreeSet::new();
    if decoded.context_id != pkg.context_id {
        errors.insert("unknown_context");
    }
    let mut claims = Vec::with_capacity(decoded.claims.len());
    // Which claims ground each record.
    let mut grounding: HashMap<&str, Vec<&str>> = HashMap::new();
    let mut sentences = SentenceCache::new();
    for claim in &decoded.claims {
        let (value, grounded, claim_errors) = check_claim(&pkg, &mut sentences, claim);
        errors.extend(claim_errors);
        for record in grounded {
            let by = grounding.entry(record).or_default();
            if by.last() != Some(&claim.id.as_str()) {
                by.push(claim.id.as_str());
            }
        }
        claims.push(value);
    }
    let requirements: Vec<Value> = pkg
        .requirements
        .iter()
        .zip(pkg.covering())
        .map(|(r, covering)| {
            let mut by: Vec<&str> = Vec::new();
            let mut seen = HashSet::new();
            for claim in &decoded.claims {
                let cites = covering.iter().any(|id| {
                    grounding
                        .get(id)
                        .is_some_and(|c| c.contains(&claim.id.as_str()))
                });
                if cites && seen.insert(claim.id.as_str()) {
                    by.push(claim.id.as_str());
                }
            }
            if by.is_empty() {
                errors.insert("uncovered_requirement");
            }
            json!({"covered": !by.is_empty(), "covered_by": by, "id": r.id, "status": r.status})
        })
        .collect();
    let status_ok = decoded.evidence_status == pkg.evidence_status;
    if !status_ok {
        errors.insert("status_mismatch");
    }
    let verdict = if errors.is_empty() {
        "grounded"
    } else {
        "not_grounded"
    };
    Ok(json!({
        "answer_sha256": answer_sha256,
        "claims": claims,
        "context_id": pkg.context_id,
        "errors": errors.into_iter().collect::<Vec<_>>(),
        "requirements": requirements,
        "schema": REPORT_SCHEMA,
        "status": {"answer": decoded.evidence_status, "ok": status_ok, "package": pkg.evidence_status},
        "verdict": verdict,
    }))
}

/// [`check`], with the report as canonical JSON: the bytes every adapter returns.
pub fn check_json(package: &Value, answer: &Value) -> Result<String, GroundingError> {
    let report = check(package, answer)?;
    to_canonical_string(&report).map_err(|e| GroundingError::Answer {
        field: "answer".into(),
        rule: e.to_string(),
    })
}
