//! The synthetic "study club" workbench of spec §4.1 and an in-memory host.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs, dead_code)]

use okf_engine::canonical::{sha256_hex, to_canonical_string};
use okf_engine::package_identity;
use okf_workbench::ports::{
    Clock, IdSource, LoadFailure, Loader, MemoryPage, PageState, PresentationPort, Selection,
};
use okf_workbench::{Session, VIEW_SCHEMA};
use serde_json::{Value, json};
use std::cell::Cell;
use std::collections::BTreeMap;
use std::rc::Rc;

pub const READING: &str = "Study club reading £5 café 💡. ";

pub struct TestHost {
    pub files: BTreeMap<String, Vec<u8>>,
    pub now: u64,
    pub ids: u64,
    pub page: MemoryPage,
    pub loads: Rc<Cell<u64>>,
}

impl Loader for TestHost {
    fn load(&self, path: &str, cap: usize) -> Result<Vec<u8>, LoadFailure> {
        self.loads.set(self.loads.get() + 1);
        let b = self
            .files
            .get(path)
            .ok_or_else(|| format!("{path} not found"))?;
        if b.len() > cap {
            return Err(format!("over {cap} bytes").into());
        }
        Ok(b.clone())
    }
}
impl Clock for TestHost {
    fn now_ms(&self) -> u64 {
        self.now
    }
}
impl IdSource for TestHost {
    fn next_id(&mut self) -> String {
        self.ids += 1;
        format!("00000000-0000-4000-8000-{:012x}", self.ids)
    }
}
impl PresentationPort for TestHost {
    fn state(&self) -> PageState {
        self.page.state()
    }
    fn present(&mut self, s: &Selection, r: u64) -> Result<(), String> {
        self.page.present(s, r)
    }
    fn deep_link(&self, s: &Selection) -> String {
        self.page.deep_link(s)
    }
}

/// Sets `context_id` and `used_bytes` by the identity rule and returns canonical text.
pub fn seal(mut p: Value) -> String {
    p["context_id"] = json!("urn:sha256:".to_owned() + &"0".repeat(64));
    p["budget"]["used_bytes"] = json!(0);
    for _ in 0..4 {
        let id = package_identity(&p).unwrap();
        p["context_id"] = json!(id.context_id);
        let len = to_canonical_string(&p).unwrap().len();
        p["budget"]["used_bytes"] = json!(len);
    }
    let text = to_canonical_string(&p).unwrap();
    okf_engine::verify_package(&serde_json::from_str(&text).unwrap()).unwrap();
    text
}

pub fn record(id: &str, label: &str, text: &str, access: &str) -> Value {
    json!({
        "id": id, "label": label, "text": text, "kind": "concept", "access": access,
        "assertion_status": "authored", "review_status": "unreviewed",
        "scope": "Study club rules",
        "provenance": [{"url": "https://club.example/rules.pdf", "locator": "page 12"}],
    })
}

pub fn package(question: &str, records: Vec<Value>, rels: Vec<Value>, reqs: Vec<Value>) -> Value {
    let selected: Vec<Value> = records
        .into_iter()
        .map(|r| json!({"record": r, "reasons": ["Matched declared phrase: club"], "paths": [{"records": [r["id"]], "assertions": []}]}))
        .collect();
    json!({
        "schema": "okf-governed-context.v1", "ai_answer": null, "engine": "test", "question": question,
        "scope": "Study club rules", "bundle": {"snapshot": "s1"}, "binding": {"index_sha256": "0".repeat(64), "index_url": "https://club.example/index.json"},
        "selected": selected, "relationships": rels, "requirements": reqs,
        "missing_evidence": [], "conflicts": [], "resolved_concepts": [], "ambiguities": [], "unresolved_terms": [], "limitations": [],
        "evidence_status": "insufficient",
        "budget": {"max_nodes": 64, "max_relationships": 128, "max_bytes": 524288, "used_nodes": 3, "used_relationships": 2, "used_bytes": 0, "omissions": []},
    })
}

pub fn club_id(n: usize) -> String {
    format!("https://club.example/id/{n}")
}

pub struct Club {
    pub manifest: Vec<u8>,
    pub files: BTreeMap<String, Vec<u8>>,
}

/// 5 cases; club-01 has 3 records (one a long reading), 2 `requires` relationships and 12
/// long requirements; one blocked model over club-01 with 4 stages, and one interaction.
pub fn club(restricted: bool, model_record: &str) -> Club {
    let mut files = BTreeMap::new();
    let mut questions = Vec::new();
    for n in 1..=5 {
        let id = format!("club-0{n}");
        let question = format!("How does the study club handle rule {n}?");
        let p = if n == 1 {
            let reading = READING.repeat(340);
            let recs = vec![
                record(
                    &club_id(1),
                    "Membership",
                    "Members pay £5 each term.",
                    "public",
                ),
                record(
                    &club_id(2),
                    "Reading",
                    &reading,
                    if restricted { "restricted" } else { "public" },
                ),
                record(&club_id(3), "Café", "The café opens at noon.", "public"),
            ];
            let rels = vec![
                json!({"id": "https://club.example/a/1", "source": club_id(1), "target": club_id(2), "label": "requires", "predicate": "requires", "assertion_status": "authored"}),
                json!({"id": "https://club.example/a/2", "source": club_id(2), "target": club_id(3), "label": "requires", "predicate": "requires", "assertion_status": "authored"}),
            ];
            let reqs = (0..12)
                .map(|i| json!({"label": format!("Requirement {i}: {}", "members must read the rules carefully. ".repeat(2)), "status": "unmet", "missing": [club_id(2)], "scope": "Study club rules", "limitations": ["Unreviewed."]}))
                .collect();
            package(&question, recs, rels, reqs)
        } else {
            package(
                &question,
                vec![record(
                    &format!("{}-{n}", club_id(9)),
                    &format!("Rule {n}"),
                    "A short rule.",
                    "public",
                )],
                vec![],
                vec![],
            )
        };
        let text = seal(p);
        let url = format!("packages/{id}.json");
        questions.push(json!({"id": id, "label": format!("{id}: Rule {n}"), "question": question, "required_evidence": ["membership rules"], "package": {"url": url, "sha256": sha256_hex(text.as_bytes())}}));
        files.insert(url, text.into_bytes());
    }
    let cite = |r: &str| json!([{"case_id": "club-01", "record_id": r}]);
    let stages: Vec<Value> = (0..4)
        .map(|i| json!({"id": format!("stage-{i}"), "label": format!("Stage {i}"), "description": "Check the rule.", "evidence": cite(if i == 3 { model_record } else { ["https://club.example/id/1", "https://club.example/id/2", "https://club.example/id/3"][i] }), "gaps": ["No reviewed rule."]}))
        .collect();
    let manifest = json!({
        "schema": "okf-evidence-workbench.v1", "title": "Study club", "publication": {"label": "Synthetic study club", "source_date": "2026-01-01"},
        "questions": questions,
        "calculation_models": [{
            "id": "club-model", "title": "Club fee model", "status": "blocked", "authority": "authored-unreviewed-proposal",
            "case_ids": ["club-01"], "components": ["Fee"], "jurisdiction": null, "effective_period": {"from": null, "to": null},
            "inputs": [{"id": "fee", "label": "Fee", "type": "money", "unit": "GBP", "reason": "Rules say £5.", "required": null, "group": "fees"}],
            "stages": stages, "gaps": ["No reviewed rates."]
        }],
        "interaction_proposals": [{"id": "i-1", "case_id": "club-01", "from": "Membership", "to": "Café", "distinction": "Members only", "effect": "Discount", "qualification": "Unreviewed", "evidence": cite("https://club.example/id/3"), "authority": "authored-unreviewed-proposal"}]
    });
    Club {
        manifest: serde_json::to_vec_pretty(&manifest).unwrap(),
        files,
    }
}

pub fn session(c: &Club) -> Session<TestHost> {
    let host = TestHost {
        files: c.files.clone(),
        now: 1_000,
        ids: 0,
        page: MemoryPage::default(),
        loads: Rc::new(Cell::new(0)),
    };
    let mut s = Session::new(host);
    s.load_manifest(&c.manifest).unwrap();
    s
}

fn schema(name: &str) -> jsonschema::Validator {
    let path = format!(
        "{}/../../../shared/okf-explorer/profiles/evidence-workbench-tools/v1/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    let v: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    jsonschema::options()
        .should_validate_formats(true)
        .build(&v)
        .unwrap()
}

thread_local! {
    static RESPONSE: jsonschema::Validator = schema("response.schema.json");
    static VIEW: jsonschema::Validator = schema("view.schema.json");
}

/// Checks an envelope text against the published schemas and our accounting; returns it parsed.
pub fn checked(text: &str) -> Value {
    let v: Value = serde_json::from_str(text).unwrap();
    RESPONSE.with(|s| {
        let errors: Vec<String> = s.iter_errors(&v).map(|e| e.to_string()).collect();
        assert!(
            errors.is_empty(),
            "envelope fails response.schema.json: {errors:?}\n{text}"
        );
    });
    if v["data"]["schema"] == VIEW_SCHEMA {
        VIEW.with(|s| {
            let errors: Vec<String> = s.iter_errors(&v["data"]).map(|e| e.to_string()).collect();
            assert!(
                errors.is_empty(),
                "view fails view.schema.json: {errors:?}\n{text}"
            );
        });
    }
    assert_eq!(
        v["delivery"]["bytes"].as_u64().unwrap(),
        text.len() as u64,
        "bytes are the compact length"
    );
    let chars = text.encode_utf16().count() as u64;
    assert_eq!(v["delivery"]["characters"].as_u64().unwrap(), chars);
    assert_eq!(
        v["delivery"]["estimated_tokens"].as_u64().unwrap(),
        chars.div_ceil(4)
    );
    v
}

pub fn call(s: &mut Session<TestHost>, tool: &str, input: Value) -> Value {
    checked(&s.invoke(tool, &input))
}

pub fn code(v: &Value) -> &str {
    v["error"]["code"].as_str().unwrap_or("")
}

pub fn validate_schema_file(name: &str, value: &Value) -> Vec<String> {
    let s = schema(name);
    s.iter_errors(value).map(|e| e.to_string()).collect()
}
