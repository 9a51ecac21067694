//! Search, evidence reading and relationships (tools 2–4 of spec §1.7).

use crate::graph::bounded_graph;
use crate::package::{self, source_link};
use crate::paging::passage_body;
use crate::session::{Host, PageBody, Reply, Session, ToolError, fail, short};
use okf_engine::canonical::cmp_utf16;
use serde_json::{Map, Value, json};
use std::rc::Rc;

const NOT_SUPPLIED: &str = "not supplied";
const STOP_WORDS: [&str; 17] = [
    "a", "an", "the", "what", "how", "is", "are", "to", "of", "and", "for", "can", "do", "does",
    "it", "i", "my",
];

/// Query tokens: lowercase runs of letters and digits, stop words dropped, duplicates kept.
pub fn query_tokens(query: &str) -> Vec<String> {
    query
        .to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|t| !t.is_empty() && !STOP_WORDS.contains(t))
        .map(str::to_owned)
        .collect()
}

fn score(tokens: &[String], haystack: &str) -> u64 {
    tokens
        .iter()
        .filter(|t| haystack.contains(t.as_str()))
        .count() as u64
}

pub(crate) fn int(input: &Value, key: &str, default: u64) -> u64 {
    input.get(key).and_then(Value::as_u64).unwrap_or(default)
}

pub(crate) fn opt_str(input: &Value, key: &str) -> Option<String> {
    input.get(key).and_then(Value::as_str).map(str::to_owned)
}

impl<H: Host> Session<H> {
    /// Record metadata shared by tools: `{ref, title, kind, assertion_status, review_status, locator}`.
    pub(crate) fn record_metadata(&mut self, case: &str, record: &Value) -> Map<String, Value> {
        let id = record["id"].as_str().unwrap_or_default();
        let r = self.ref_for(case, id);
        let mut m = Map::new();
        m.insert("ref".into(), json!(r));
        m.insert(
            "title".into(),
            json!(short(record["label"].as_str().unwrap_or_default(), 160)),
        );
        m.insert("kind".into(), record["kind"].clone());
        m.insert(
            "assertion_status".into(),
            record["assertion_status"].clone(),
        );
        m.insert(
            "review_status".into(),
            json!(record["review_status"].as_str().unwrap_or(NOT_SUPPLIED)),
        );
        let locator = record["provenance"][0]["locator"]
            .as_str()
            .unwrap_or(NOT_SUPPLIED);
        m.insert("locator".into(), json!(short(locator, 160)));
        m
    }

    pub(crate) fn search(&mut self, input: &Value, cap: u64) -> Result<Reply, ToolError> {
        let limit = int(input, "limit", 3) as usize;
        let start = self.start_page("okf_search_evidence", input, |s| {
            let tokens = query_tokens(input["query"].as_str().unwrap_or_default());
            let evidence = input["scope"].as_str() == Some("evidence");
            let m = s.manifest_rc()?;
            let mut base = Map::new();
            base.insert("scope".into(), json!(if evidence { "evidence" } else { "questions" }));
            base.insert("method".into(), json!("retained-text-lexical.v1"));
            base.insert("follow_up".into(), json!(if evidence { "okf_get_evidence" } else { "okf_show_view" }));
            base.insert("searched_full_corpus".into(), json!(false));
            if !evidence {
                let mut hits: Vec<(u64, &str, Value)> = m
                    .cases
                    .iter()
                    .filter_map(|c| {
                        let hay = format!("{} {} {}", c.label, c.question, c.required_evidence.join(" ")).to_lowercase();
                        let sc = score(&tokens, &hay);
                        (sc > 0).then(|| (sc, c.id.as_str(), json!({"case_id": c.id, "title": short(&c.label, 160), "question": short(&c.question, 260), "score": sc})))
                    })
                    .collect();
                hits.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| cmp_utf16(a.1, b.1)));
                let rows = hits.into_iter().map(|h| h.2).collect();
                return Ok((String::new(), PageBody::Rows { base, rows: Rc::new(rows), view: false }));
            }
            let case = s.known_case(opt_str(input, "case_id").or_else(|| s.page_case()))?;
            let p = s.package(&case)?;
            let mut hits: Vec<(u64, String, Map<String, Value>)> = Vec::new();
            for item in p["selected"].as_array().map(Vec::as_slice).unwrap_or_default() {
                let r = &item["record"];
                let hay = format!("{} {}", r["label"].as_str().unwrap_or_default(), r["text"].as_str().unwrap_or_default()).to_lowercase();
                let sc = score(&tokens, &hay);
                if sc > 0 {
                    hits.push((sc, r["id"].as_str().unwrap_or_default().to_owned(), Map::new()));
                }
            }
            hits.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| cmp_utf16(&a.1, &b.1)));
            let mut rows = Vec::with_capacity(hits.len());
            for (sc, id, _) in hits {
                if let Some(r) = package::record(&p, &id) {
                    let mut meta = s.record_metadata(&case, r);
                    meta.insert("score".into(), json!(sc));
                    rows.push(Value::Object(meta));
                }
            }
            base.insert("case_id".into(), json!(case));
            Ok((case, PageBody::Rows { base, rows: Rc::new(rows), view: false }))
        })?;
        self.row_page(&start, limit, cap, None)
    }

    pub(crate) fn get_evidence(&mut self, input: &Value, cap: u64) -> Result<Reply, ToolError> {
        let section = input["section"].as_str().unwrap_or("passage").to_owned();
        let r = input["ref"].as_str().unwrap_or_default().to_owned();
        let start = self.start_page("okf_get_evidence", input, |s| {
            let target = s.resolve_ref(&r)?;
            let p = s.package(&target.case)?;
            let Some(item) = package::selected_item(&p, &target.record) else {
                return Err(ToolError {
                    case: Some(target.case.clone()),
                    ..fail(
                        "missing_evidence",
                        "the referenced record is not in its retained package",
                    )
                });
            };
            let record = &item["record"];
            let mut base = s.record_metadata(&target.case, record);
            base.insert("canonical_id".into(), record["id"].clone());
            base.insert("case_id".into(), json!(target.case));
            base.insert("context_id".into(), p["context_id"].clone());
            base.insert("source_url".into(), json!(source_link(record)));
            base.insert(
                "completeness".into(),
                json!(
                    record["evidence_unit"]["completeness"]
                        .as_str()
                        .unwrap_or(NOT_SUPPLIED)
                ),
            );
            base.insert(
                "scope".into(),
                json!(
                    record["scope"]
                        .as_str()
                        .unwrap_or(p["scope"].as_str().unwrap_or_default())
                ),
            );
            base.insert("follow_up".into(), json!("okf_get_relationships"));
            if section == "passage" {
                return Ok((
                    target.case,
                    passage_body(base, record["text"].as_str().unwrap_or_default()),
                ));
            }
            base.insert("section".into(), json!(section));
            let list = |v: &Value| v.as_array().cloned().unwrap_or_default();
            let rows: Vec<Value> = match section.as_str() {
                "provenance" => list(&record["provenance"]),
                "structure" => list(&record["evidence_unit"]["spans"]),
                _ => {
                    let mut rows: Vec<Value> = list(&item["reasons"])
                        .into_iter()
                        .map(|reason| json!({"kind": "selection_reason", "reason": reason}))
                        .collect();
                    rows.extend(
                        list(&item["paths"])
                            .into_iter()
                            .map(|path| json!({"kind": "path", "path": path})),
                    );
                    for (key, kind) in [
                        ("missing_evidence", "missing_evidence"),
                        ("conflicts", "conflict"),
                    ] {
                        rows.extend(
                            list(&p[key])
                                .into_iter()
                                .map(|d| json!({"kind": kind, "diagnostic": d})),
                        );
                    }
                    rows.extend(
                        list(&p["budget"]["omissions"])
                            .into_iter()
                            .map(|d| json!({"kind": "omission", "diagnostic": d})),
                    );
                    rows
                }
            };
            Ok((
                target.case,
                PageBody::Rows {
                    base,
                    rows: Rc::new(rows),
                    view: false,
                },
            ))
        })?;
        match start.body {
            PageBody::Text { .. } => self.text_page(&start, cap),
            PageBody::Rows { .. } => self.row_page(&start, 3, cap, None),
        }
    }

    pub(crate) fn get_relationships(
        &mut self,
        input: &Value,
        cap: u64,
    ) -> Result<Reply, ToolError> {
        let limit = int(input, "limit", 3) as usize;
        let depth = int(input, "depth", 1) as usize;
        let start = self.start_page("okf_get_relationships", input, |s| {
            let anchor = match input.get("ref").and_then(Value::as_str) {
                Some(r) => Some(s.resolve_ref(r)?),
                None => None,
            };
            let given = opt_str(input, "case_id");
            if let (Some(a), Some(c)) = (&anchor, &given)
                && &a.case != c
            {
                return Err(fail(
                    "reference_mismatch",
                    "ref belongs to a different case than case_id",
                ));
            }
            let case = s.known_case(anchor.as_ref().map(|a| a.case.clone()).or(given))?;
            let p = s.package(&case)?;
            if let Some(a) = &anchor
                && package::record(&p, &a.record).is_none()
            {
                return Err(ToolError {
                    case: Some(case),
                    ..fail(
                        "missing_evidence",
                        "the referenced record is not in its retained package",
                    )
                });
            }
            let g = bounded_graph(
                s,
                &case,
                &p,
                anchor.as_ref().map(|a| a.record.as_str()),
                depth,
            );
            let rels = p["relationships"]
                .as_array()
                .map(Vec::as_slice)
                .unwrap_or_default();
            let rows: Vec<Value> = g
                .edges
                .iter()
                .zip(&g.edge_index)
                .map(|(e, &i)| {
                    let rel = &rels[i];
                    let mut row = e.clone();
                    row["canonical_id"] = rel["id"].clone();
                    row["predicate"] = rel["predicate"].clone();
                    row["scope"] = rel["scope"].clone();
                    row["authority"] = rel["authority"].clone();
                    row["provenance"] = rel["provenance"].clone();
                    row["from"] = json!(g.label_of(e["source"].as_str().unwrap_or_default()));
                    row["to"] = json!(g.label_of(e["target"].as_str().unwrap_or_default()));
                    row
                })
                .collect();
            let mut base = Map::new();
            base.insert("case_id".into(), json!(case));
            base.insert("directed".into(), json!(true));
            base.insert("omitted_edges".into(), json!(g.omitted));
            base.insert(
                "relationship_scope".into(),
                json!("Only assertions selected into the retained package; no edge is inferred."),
            );
            Ok((
                case,
                PageBody::Rows {
                    base,
                    rows: Rc::new(rows),
                    view: false,
                },
            ))
        })?;
        self.row_page(&start, limit, cap, None)
    }
}
