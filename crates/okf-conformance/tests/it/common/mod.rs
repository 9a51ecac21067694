//! Shared fixtures for the spec-clause tests: the §7.0 "study club" index rebuilt from the
//! spec's description, the §7.0 evidence-unit fixture, and helpers to mutate indexes and read
//! packages.
//!
//! Everything is plain `serde_json::Value` so tests can change any field, including into
//! shapes the engine must reject.

#![allow(clippy::unwrap_used, clippy::expect_used, dead_code)]

use okf_engine::canonical::{sha256_hex, to_canonical_string};
use okf_engine::{Budget, ContextIndex, Error, assemble, verify_package};
use serde_json::{Value, json};

/// Base IRI of every study-club id.
pub const BASE: &str = "https://example.test/study-club/";
/// The one predicate of the fixture's assertions.
pub const REQUIRES: &str = "http://purl.org/dc/terms/requires";
/// A supported but dependency-free predicate.
pub const RELATED: &str = "http://www.w3.org/2004/02/skos/core#related";
/// Snapshot of the fixture bundle.
pub const SNAPSHOT: &str = "synthetic-study-club-v1";

/// The five evidence records: name, label, text (spec §7.0, in record order).
pub const EVIDENCE: [(&str, &str, &str); 5] = [
    (
        "reading",
        "Reading circle",
        "The reading circle meets on Tuesday at 18:30 in the [Library room](library-room.md). It is free.",
    ),
    (
        "library",
        "Library room",
        "The Library room is recorded as step-free. No address or capacity is recorded.",
    ),
    (
        "repair",
        "Repair demonstration",
        "The repair demonstration meets on Saturday at 10:00 in the [Workshop room](workshop-room.md). [Booking](booking.md) is required. Its price is not recorded.",
    ),
    (
        "workshop",
        "Workshop room",
        "Accessibility for the Workshop room is not recorded. No address or capacity is recorded.",
    ),
    (
        "booking",
        "Booking",
        "Booking is required for the [Repair demonstration](repair-demonstration.md). No telephone number, booking URL or availability is recorded.",
    ),
];

/// `BASE` followed by a relative path, e.g. `id("evidence/library")`.
pub fn id(path: &str) -> String {
    format!("{BASE}{path}")
}

/// Lowercase hex SHA-256 of UTF-8 text.
pub fn sha(text: &str) -> String {
    sha256_hex(text.as_bytes())
}

/// Lowercase hex SHA-256 of raw bytes.
pub fn sha_bytes(bytes: &[u8]) -> String {
    sha256_hex(bytes)
}

/// The label of a study-club evidence record by name.
pub fn label_of(name: &str) -> &'static str {
    EVIDENCE
        .iter()
        .find(|(n, _, _)| *n == name)
        .map(|(_, l, _)| *l)
        .expect("known fixture name")
}

/// The text of a study-club evidence record by name.
pub fn text_of(name: &str) -> &'static str {
    EVIDENCE
        .iter()
        .find(|(n, _, _)| *n == name)
        .map(|(_, _, t)| *t)
        .expect("known fixture name")
}

/// One evidence record of the study club (spec §7.0).
pub fn evidence_record(name: &str, label: &str, text: &str) -> Value {
    json!({
        "id": id(&format!("evidence/{name}")),
        "route": format!("evidence/{name}"),
        "label": label,
        "kind": "evidence",
        "text": text,
        "assertion_status": "normalized",
        "authority": {
            "class": "synthetic",
            "label": "Fictional study-club teaching fixture",
            "source": BASE,
        },
        "scope": "Invented teaching data. No real event or service.",
        "provenance": [{
            "url": format!("{BASE}{name}.md"),
            "source_sha256": sha(text),
            "literal_sha256": sha(text),
            "locator": "Fictional source excerpt",
            "captured_at": "2026-09-16T00:00:00Z",
            "source_date": "2026-09-06",
            "source_date_kind": "fictional note date",
        }],
        "rights": "CC0 synthetic fixture",
        "access": "public",
    })
}

/// A concept record built the way §7.0 builds `concept/reading` and `concept/repair`: a copy
/// of the evidence record with kind concept, a navigation text, its label as its one alias and
/// provenance without `literal_sha256`.
pub fn concept_from(evidence: &Value, name: &str) -> Value {
    let mut c = evidence.clone();
    let label = c["label"].as_str().unwrap().to_owned();
    c["id"] = json!(id(&format!("concept/{name}")));
    c["route"] = json!(format!("concept/{name}"));
    c["kind"] = json!("concept");
    c["text"] = json!(format!("Navigation concept for {label}."));
    c["aliases"] = json!([label]);
    strip_literals(&mut c["provenance"]);
    c
}

/// Removes `literal_sha256` from every entry of a provenance array.
pub fn strip_literals(provenance: &mut Value) {
    for p in provenance.as_array_mut().unwrap() {
        p.as_object_mut().unwrap().remove("literal_sha256");
    }
}

/// A fixture assertion (spec §7.0): `requires`, model-derived, synthetic authority, provenance
/// copied from the target record without `literal_sha256`.
pub fn assertion(
    assertion_id: &str,
    source: &str,
    target: &str,
    target_provenance: &Value,
) -> Value {
    let mut provenance = target_provenance.clone();
    strip_literals(&mut provenance);
    json!({
        "id": assertion_id,
        "source": source,
        "target": target,
        "predicate": REQUIRES,
        "label": "requires contextual evidence",
        "assertion_status": "model-derived",
        "authority": {
            "class": "synthetic",
            "label": "Explicit synthetic evidence dependency",
            "source": BASE,
        },
        "scope": "Context dependency; not a domain predicate inferred from a hyperlink.",
        "provenance": provenance,
    })
}

/// The §7.0 study-club index.
pub fn study_club() -> Value {
    let evidence: Vec<Value> = EVIDENCE
        .iter()
        .map(|(n, l, t)| evidence_record(n, l, t))
        .collect();
    let reading_concept = concept_from(&evidence[0], "reading");
    let repair_concept = concept_from(&evidence[2], "repair");
    let edges = [
        ("concept/reading", "evidence/reading", 0usize),
        ("evidence/reading", "evidence/library", 1),
        ("concept/repair", "evidence/repair", 2),
        ("evidence/repair", "evidence/workshop", 3),
        ("evidence/repair", "evidence/booking", 4),
    ];
    let by_id = |rid: &str| -> &Value {
        evidence
            .iter()
            .chain([&reading_concept, &repair_concept])
            .find(|r| r["id"] == rid)
            .unwrap()
    };
    let assertions: Vec<Value> = edges
        .iter()
        .enumerate()
        .map(|(i, (s, t, _))| {
            let target = id(t);
            assertion(
                &id(&format!("assertion/{i}")),
                &id(s),
                &target,
                &by_id(&target)["provenance"],
            )
        })
        .collect();
    let scope =
        "Retain activity, location and booking evidence including explicitly unknown facts.";
    let mut records = evidence.clone();
    records.push(reading_concept);
    records.push(repair_concept);
    json!({
        "schema": "okf-context-index.v1",
        "bundle": {
            "id": id("bundle"),
            "snapshot": SNAPSHOT,
            "source_url": id("index.json"),
        },
        "scope": "Source explanation for the fictional study club.",
        "limitations": ["Synthetic fixture; not real service information."],
        "records": records,
        "assertions": assertions,
        "requirements": [
            {
                "id": id("requirement/reading"),
                "label": "Reading circle context",
                "when_all": [id("concept/reading")],
                "required": [id("evidence/reading"), id("evidence/library")],
                "scope": scope,
            },
            {
                "id": id("requirement/repair"),
                "label": "Repair demonstration context",
                "when_all": [id("concept/repair")],
                "required": [id("evidence/repair"), id("evidence/workshop"), id("evidence/booking")],
                "scope": scope,
            },
        ],
    })
}

// ---------------------------------------------------------------------------------------------
// Evidence-unit fixture (spec §7.0 "Unit fixture").

/// How the spans of a unit map to source pages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pages {
    /// Each span comes from its own page `Heading\n<fragment>\nFooter` with `source_start` 8.
    OnePerSpan,
    /// All spans come from one page `Heading\n<text>\nFooter` (one source selector).
    Shared,
}

/// An evidence record with an `okf-evidence-unit.v1` whose spans cover the byte ranges given
/// (ranges may split characters, to build invalid units). Every span gets a source and an
/// extraction provenance entry carrying the whole-text literal digest.
pub fn unit_record_with_spans(
    record_id: &str,
    text: &str,
    joiner: &str,
    ranges: &[(usize, usize)],
    pages: Pages,
) -> Value {
    let bytes = text.as_bytes();
    let mut spans = Vec::new();
    let mut provenance: Vec<Value> = Vec::new();
    let whole = sha(text);
    for (i, &(start, end)) in ranges.iter().enumerate() {
        let fragment = &bytes[start..end];
        let (page, source_start, page_no) = match pages {
            Pages::OnePerSpan => {
                let mut page = b"Heading\n".to_vec();
                page.extend_from_slice(fragment);
                page.extend_from_slice(b"\nFooter");
                (page, 8, i)
            }
            Pages::Shared => {
                let mut page = b"Heading\n".to_vec();
                page.extend_from_slice(bytes);
                page.extend_from_slice(b"\nFooter");
                (page, 8 + start, 0)
            }
        };
        let source_url = format!("{BASE}sources/unit-page-{page_no}.html");
        let extraction_url = format!("{BASE}extractions/unit-page-{page_no}.txt");
        let mut html = b"<html>".to_vec();
        html.extend_from_slice(&page);
        let source_sha = sha_bytes(&html);
        let extraction_sha = sha_bytes(&page);
        spans.push(json!({
            "source_url": source_url,
            "source_sha256": source_sha,
            "extraction_url": extraction_url,
            "extraction_sha256": extraction_sha,
            "source_text_sha256": sha_bytes(&page),
            "literal_sha256": sha_bytes(fragment),
            "locator": format!("Fictional unit page {page_no}"),
            "source_text_bytes": page.len(),
            "source_start": source_start,
            "source_end": source_start + fragment.len(),
            "unit_start": start,
            "unit_end": end,
        }));
        for (url, digest) in [(source_url, source_sha), (extraction_url, extraction_sha)] {
            let entry = json!({
                "url": url,
                "source_sha256": digest,
                "locator": format!("Fictional unit page {page_no}"),
                "captured_at": "2026-09-16T00:00:00Z",
                "literal_sha256": whole,
            });
            if !provenance.contains(&entry) {
                provenance.push(entry);
            }
        }
    }
    let route = record_id
        .strip_prefix(BASE)
        .unwrap_or("evidence/unit")
        .to_owned();
    let name = route.rsplit('/').next().unwrap_or("unit").to_owned();
    json!({
        "id": record_id,
        "route": route,
        "label": format!("Unit {name}"),
        "kind": "evidence",
        "text": text,
        "assertion_status": "normalized",
        "authority": {
            "class": "synthetic",
            "label": "Fictional study-club teaching fixture",
            "source": BASE,
        },
        "scope": "Invented teaching data. No real event or service.",
        "provenance": provenance,
        "rights": "CC0 synthetic fixture",
        "access": "public",
        "evidence_unit": {
            "schema": "okf-evidence-unit.v1",
            "kind": "compound",
            "boundary_status": "author-declared",
            "completeness": "complete-within-declared-boundary",
            "offset_unit": "utf-8-bytes",
            "joiner": joiner,
            "spans": spans,
        },
    })
}

/// Byte ranges of `texts` joined by `joiner`.
pub fn ranges_of(texts: &[&str], joiner: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut at = 0;
    for (i, t) in texts.iter().enumerate() {
        if i > 0 {
            at += joiner.len();
        }
        out.push((at, at + t.len()));
        at += t.len();
    }
    out
}

/// The §7.0 unit fixture: a compound unit of `texts` joined with `\n`, one source page per
/// span (`Heading\n<fragment>\nFooter`, `source_start` 8).
pub fn unit_fixture(texts: &[&str], record_id: &str) -> Value {
    unit_record_with_spans(
        record_id,
        &texts.join("\n"),
        "\n",
        &ranges_of(texts, "\n"),
        Pages::OnePerSpan,
    )
}

/// The default unit texts of §7.0.
pub const UNIT_TEXTS: [&str; 2] = ["Café reading.", "Only with a booking."];

/// The study club with `evidence/reading` replaced by the unit fixture of the same id (§7.4).
pub fn study_club_with_unit(texts: &[&str]) -> Value {
    let mut ix = study_club();
    replace_record(&mut ix, unit_fixture(texts, &id("evidence/reading")));
    ix
}

// ---------------------------------------------------------------------------------------------
// Index mutation helpers.

fn find_mut<'v>(ix: &'v mut Value, list: &str, item_id: &str) -> &'v mut Value {
    ix[list]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|r| r["id"] == item_id)
        .unwrap_or_else(|| panic!("no {list} entry {item_id}"))
}

/// A record by full id.
pub fn record_mut<'v>(ix: &'v mut Value, record_id: &str) -> &'v mut Value {
    find_mut(ix, "records", record_id)
}

/// An assertion by full id.
pub fn assertion_mut<'v>(ix: &'v mut Value, assertion_id: &str) -> &'v mut Value {
    find_mut(ix, "assertions", assertion_id)
}

/// A requirement by full id.
pub fn requirement_mut<'v>(ix: &'v mut Value, requirement_id: &str) -> &'v mut Value {
    find_mut(ix, "requirements", requirement_id)
}

/// Replaces the record that has the same id as `record`.
pub fn replace_record(ix: &mut Value, record: Value) {
    let rid = record["id"].as_str().unwrap().to_owned();
    *record_mut(ix, &rid) = record;
}

/// Removes an entry of `records`, `assertions` or `requirements` by id.
pub fn remove(ix: &mut Value, list: &str, item_id: &str) {
    let items = ix[list].as_array_mut().unwrap();
    let before = items.len();
    items.retain(|r| r["id"] != item_id);
    assert_eq!(items.len() + 1, before, "no {list} entry {item_id}");
}

/// Appends to `records`, `assertions` or `requirements`.
pub fn push(ix: &mut Value, list: &str, item: Value) {
    ix[list].as_array_mut().unwrap().push(item);
}

/// Sets a record's text and keeps its digests true: every provenance entry's `source_sha256`
/// and (where present) `literal_sha256` become the SHA-256 of the new text, as in the fixture.
/// Not for evidence units, whose provenance digests name their spans' sources.
pub fn set_text(ix: &mut Value, record_id: &str, text: &str) {
    let r = record_mut(ix, record_id);
    r["text"] = json!(text);
    let digest = sha(text);
    for p in r["provenance"].as_array_mut().unwrap() {
        p["source_sha256"] = json!(digest);
        if p.get("literal_sha256").is_some() {
            p["literal_sha256"] = json!(digest);
        }
    }
}

/// Sets a record's text without touching its digests (a corrupted passage).
pub fn set_text_unsigned(ix: &mut Value, record_id: &str, text: &str) {
    record_mut(ix, record_id)["text"] = json!(text);
}

/// A new evidence record cloned from the study-club template, with its own id, label and text.
pub fn extra_evidence(name: &str, label: &str, text: &str) -> Value {
    evidence_record(name, label, text)
}

/// A new public concept record with the given id suffix, label and aliases.
pub fn extra_concept(name: &str, label: &str, aliases: Value) -> Value {
    let mut c = concept_from(&evidence_record(name, label, "x"), name);
    c["aliases"] = aliases;
    c
}

/// A new `requires` assertion between two full ids, governed like the fixture's.
pub fn extra_assertion(assertion_id: &str, source: &str, target: &str) -> Value {
    assertion(
        assertion_id,
        source,
        target,
        &evidence_record("extra", "Extra", "x")["provenance"],
    )
}

// ---------------------------------------------------------------------------------------------
// Running the engine.

/// Validates an index value.
pub fn index(ix: &Value) -> Result<ContextIndex, Error> {
    ContextIndex::from_value(ix.clone(), None)
}

/// Assembles and returns the parsed package, or the error.
///
/// Every successful package is also checked against the invariants that hold for all
/// packages: `used_bytes` is the JSON length and within `max_bytes`, the identity verifies,
/// and `ai_answer` is null.
pub fn try_ask(ix: &Value, question: &str, budget: Value) -> Result<Value, Error> {
    let index = index(ix)?;
    let budget = Budget::from_json(&budget)?;
    let assembled = assemble(&index, question, &budget, None)?;
    let pkg: Value = serde_json::from_str(&assembled.json).expect("package is JSON");
    assert_eq!(assembled.used_bytes, assembled.json.len() as u64);
    assert_eq!(pkg["budget"]["used_bytes"], json!(assembled.used_bytes));
    assert!(assembled.used_bytes <= budget.max_bytes);
    assert_eq!(pkg["context_id"], json!(assembled.context_id));
    assert_eq!(
        pkg["evidence_status"],
        json!(assembled.evidence_status.as_str())
    );
    assert!(pkg["ai_answer"].is_null());
    assert_eq!(pkg["question"], json!(question));
    verify_package(&pkg).expect("every assembled package verifies");
    Ok(pkg)
}

/// Assembles and returns the parsed package; panics on any error.
pub fn ask(ix: &Value, question: &str, budget: Value) -> Value {
    try_ask(ix, question, budget).unwrap_or_else(|e| panic!("assembly failed: {e:?}"))
}

/// Assembles with the default budget.
pub fn ask_default(ix: &Value, question: &str) -> Value {
    ask(ix, question, json!({}))
}

/// The index-validation error of an index that must be rejected.
pub fn index_error(ix: &Value) -> Error {
    match index(ix) {
        Ok(_) => panic!("index unexpectedly validated"),
        Err(e) => e,
    }
}

/// Compact (= canonical) byte length of a JSON value.
pub fn compact_len(v: &Value) -> usize {
    to_canonical_string(v).unwrap().len()
}

// ---------------------------------------------------------------------------------------------
// Reading packages.

/// `evidence_status`.
pub fn status(pkg: &Value) -> &str {
    pkg["evidence_status"].as_str().unwrap()
}

/// Ids of the selected records, in selection order.
pub fn selected_ids(pkg: &Value) -> Vec<String> {
    pkg["selected"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["record"]["id"].as_str().unwrap().to_owned())
        .collect()
}

/// Whether a record (full id) is selected.
pub fn is_selected(pkg: &Value, record_id: &str) -> bool {
    selected_ids(pkg).iter().any(|s| s == record_id)
}

/// The selection entry of a record.
pub fn selection<'p>(pkg: &'p Value, record_id: &str) -> &'p Value {
    pkg["selected"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["record"]["id"] == record_id)
        .unwrap_or_else(|| panic!("{record_id} is not selected"))
}

/// Ids of the held relationships, in admission order.
pub fn relationship_ids(pkg: &Value) -> Vec<String> {
    pkg["relationships"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["id"].as_str().unwrap().to_owned())
        .collect()
}

fn issue_list<'p>(pkg: &'p Value, field: &str) -> &'p [Value] {
    let list = match field {
        "omissions" => &pkg["budget"]["omissions"],
        other => &pkg[other],
    };
    list.as_array().unwrap()
}

/// Codes of an issue list (`missing_evidence`, `conflicts` or `omissions`), in order.
pub fn codes(pkg: &Value, field: &str) -> Vec<String> {
    issue_list(pkg, field)
        .iter()
        .map(|i| i["code"].as_str().unwrap().to_owned())
        .collect()
}

/// The id lists of every issue with `code` in an issue list, in order.
pub fn ids_of(pkg: &Value, field: &str, code: &str) -> Vec<Vec<String>> {
    issue_list(pkg, field)
        .iter()
        .filter(|i| i["code"] == code)
        .map(|i| {
            i["ids"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_str().unwrap().to_owned())
                .collect()
        })
        .collect()
}

/// Whether an issue list has a row with `code` and exactly `ids`.
pub fn has_issue(pkg: &Value, field: &str, code: &str, ids: &[&str]) -> bool {
    ids_of(pkg, field, code)
        .iter()
        .any(|row| row.iter().map(String::as_str).eq(ids.iter().copied()))
}

/// Strings of a JSON array.
pub fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_str().unwrap().to_owned())
        .collect()
}

/// Ids of the resolved concepts.
pub fn resolved_ids(pkg: &Value) -> Vec<String> {
    pkg["resolved_concepts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap().to_owned())
        .collect()
}

/// The `missing` list of the package requirement with this id.
pub fn requirement_missing(pkg: &Value, requirement_id: &str) -> Vec<String> {
    let r = pkg["requirements"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == requirement_id)
        .unwrap_or_else(|| panic!("requirement {requirement_id} not in package"));
    strings(&r["missing"])
}

/// Whether `budget.truncated` is true.
pub fn truncated(pkg: &Value) -> bool {
    pkg["budget"]["truncated"].as_bool().unwrap()
}

/// Number of limitation sentences the engine added after the index's own (spec §3.11).
pub fn engine_limitations(pkg: &Value, ix: &Value) -> usize {
    pkg["limitations"].as_array().unwrap().len() - ix["limitations"].as_array().unwrap().len()
}

/// Whether the allocation second pass ran (spec §3.5.4, §3.11 item 5): it adds exactly one
/// limitation beyond the four fixed ones and the ambiguity one.
pub fn allocation_ran(pkg: &Value, ix: &Value) -> bool {
    let ambiguity = usize::from(!pkg["ambiguities"].as_array().unwrap().is_empty());
    let extra = engine_limitations(pkg, ix);
    assert!(
        extra == 4 + ambiguity || extra == 5 + ambiguity,
        "unexpected number of engine limitations: {extra}"
    );
    extra == 5 + ambiguity
}

/// Every record of the index that has this id.
pub fn index_record<'v>(ix: &'v Value, record_id: &str) -> &'v Value {
    ix["records"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == record_id)
        .unwrap()
}

/// Whether every selected record is an unchanged, whole copy of the index record.
pub fn selected_records_are_whole(pkg: &Value, ix: &Value) -> bool {
    pkg["selected"]
        .as_array()
        .unwrap()
        .iter()
        .all(|s| &s["record"] == index_record(ix, s["record"]["id"].as_str().unwrap()))
}

/// Longest common prefix of some strings.
pub fn common_prefix(items: &[&str]) -> String {
    let Some(first) = items.first() else {
        return String::new();
    };
    let mut end = first.len();
    for s in &items[1..] {
        end = first
            .char_indices()
            .zip(s.chars())
            .take_while(|((_, a), b)| a == b)
            .last()
            .map_or(0, |((i, a), _)| i + a.len_utf8())
            .min(end);
    }
    first[..end].to_owned()
}
