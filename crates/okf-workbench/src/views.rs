//! `okf-workbench-view.v1` values (§1.8), `okf_show_view` (§1.10) and blocked calculation
//! inspection (§1.11). Nothing here performs arithmetic on a rate, an input or an award.

use crate::envelope::NAVIGATION_NOTICE;
use crate::graph::bounded_graph;
use crate::inspect::{int, opt_str};
use crate::manifest::{CalculationModel, Citation, Manifest};
use crate::package::{self, source_link};
use crate::paging::view_page;
use crate::ports::Selection;
use crate::session::{EXPIRY_MS, Host, PageBody, Reply, Retained, Session, ToolError, fail, short};
use crate::tools::VIEWS;
use serde_json::{Map, Value, json};
use std::rc::Rc;

/// The view schema name.
pub const VIEW_SCHEMA: &str = "okf-workbench-view.v1";

const NO_ARITHMETIC: &str =
    "No single declared model applies, so neither an award nor any arithmetic was produced.";
const NOTHING_CALCULATED: &str =
    "Nothing is calculated here: an unknown input is never treated as zero or false.";
const OTHER_CASE: &str = "Some references lead into a different admitted question's package; open each to load and check its passage and provenance.";

fn field(key: &str, label: &str, kind: &str) -> Value {
    json!({"key": key, "label": label, "type": kind})
}

/// Resolves the model for a request (§1.11): explicit id, else the unique model of the case.
fn resolve_model<'a>(
    models: &'a [CalculationModel],
    model_id: Option<&str>,
    case: Option<&str>,
) -> Result<Option<&'a CalculationModel>, ToolError> {
    if let Some(id) = model_id {
        let m = models.iter().find(|m| m.id == id).ok_or_else(|| {
            fail(
                "unknown_model",
                format!("model_id {} is not declared", short(id, 120)),
            )
        })?;
        if let Some(c) = case
            && !m.case_ids.iter().any(|x| x == c)
        {
            return Err(fail(
                "model_scope_mismatch",
                format!("model {id} does not cover case {c}"),
            ));
        }
        return Ok(Some(m));
    }
    let Some(c) = case else { return Ok(None) };
    let matching: Vec<&CalculationModel> = models
        .iter()
        .filter(|m| m.case_ids.iter().any(|x| x == c))
        .collect();
    Ok(if matching.len() == 1 {
        Some(matching[0])
    } else {
        None
    })
}

/// A table view's title, fields, rows and authority.
struct Table {
    title: &'static str,
    fields: Vec<Value>,
    rows: Vec<Value>,
    authority: &'static str,
}

/// The string items of a JSON array (none when it is not one).
fn str_items(v: &Value) -> Vec<&str> {
    v.as_array()
        .map(|a| a.iter().filter_map(Value::as_str).collect::<Vec<_>>())
        .unwrap_or_default()
}

/// The requirements the package declares, one row each.
fn requirements_table(p: &Value, limitations: &mut Vec<String>) -> Table {
    let rows: Vec<Value> = p["requirements"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .map(|r| {
            let mut qual = vec![r["scope"].as_str().unwrap_or_default()];
            qual.extend(str_items(&r["limitations"]));
            let qual: Vec<&str> = qual.into_iter().filter(|q| !q.is_empty()).collect();
            json!({"requirement": short(r["label"].as_str().unwrap_or_default(), 16_384), "status": r["status"], "missing": str_items(&r["missing"]).join("; "), "qualification": short(&qual.join(" "), 16_384)})
        })
        .collect();
    if rows.is_empty() {
        limitations.push("The package declares no requirement for this question, so completeness cannot be established.".into());
    }
    Table {
        title: "Requirements the bundle declares",
        fields: vec![
            field("requirement", "Requirement", "string"),
            field("status", "Status", "string"),
            field("missing", "Missing", "string"),
            field("qualification", "Qualification", "string"),
        ],
        rows,
        authority: "retained-evidence-projection",
    }
}

/// The rates table: always empty, since no reviewed contract of typed rates is admitted.
fn rates_table(limitations: &mut Vec<String>) -> Table {
    limitations.push("No reviewed contract of typed rates is admitted, so values, thresholds and effective dates stay unknown; figures are never lifted from prose and presented as current law.".into());
    Table {
        title: "Rates and applicable periods",
        fields: vec![
            field("rate", "Rate", "string"),
            field("value", "Value", "number"),
            field("period", "Period", "string"),
        ],
        rows: Vec::new(),
        authority: "retained-evidence-projection",
    }
}

impl<H: Host> Session<H> {
    /// Turns citations into refs, adding provenance for same-case HTTPS sources; fails with
    /// `missing_model_evidence` when a known package lacks the record.
    fn cite(
        &mut self,
        case: &str,
        list: &[Citation],
        provenance: &mut Vec<Value>,
        limitations: &mut Vec<String>,
    ) -> Result<Vec<Value>, ToolError> {
        let mut refs = Vec::new();
        for c in list {
            let r = self.ref_for(&c.case_id, &c.record_id);
            match self.known_package(&c.case_id) {
                Some(p) => {
                    let Some(rec) = package::record(&p, &c.record_id) else {
                        return Err(fail(
                            "missing_model_evidence",
                            format!(
                                "case {} does not hold cited record {}",
                                c.case_id,
                                short(&c.record_id, 200)
                            ),
                        ));
                    };
                    if c.case_id == case
                        && let Some(url) = source_link(rec)
                        && !provenance.iter().any(|x| x["ref"] == json!(r))
                    {
                        let locator = rec["provenance"][0]["locator"].as_str().unwrap_or_default();
                        let date = rec["provenance"][0]["source_date"]
                            .as_str()
                            .map(|d| short(d, 300));
                        provenance.push(json!({"ref": r, "url": url, "locator": short(locator, 500), "source_date": date}));
                    }
                }
                None => {
                    if c.case_id != case && !limitations.iter().any(|l| l == OTHER_CASE) {
                        limitations.push(OTHER_CASE.to_owned());
                    }
                }
            }
            refs.push(json!(r));
        }
        Ok(refs)
    }

    fn view_base(
        &self,
        kind: &str,
        title: &str,
        status: &str,
        date: &Option<String>,
    ) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("schema".into(), json!(VIEW_SCHEMA));
        m.insert("kind".into(), json!(kind));
        m.insert("title".into(), json!(title));
        m.insert("fields".into(), json!([]));
        m.insert("rows".into(), json!([]));
        m.insert(
            "time_basis".into(),
            json!({"assessment_date": date, "effective_from": null, "effective_to": null}),
        );
        m.insert("provenance".into(), json!([]));
        m.insert(
            "limitations".into(),
            json!([NAVIGATION_NOTICE, format!("Context status: {status}; retrieval and assembly omissions stay recorded in the package.")]),
        );
        m.insert("authority".into(), json!("retained-evidence-projection"));
        m
    }

    pub(crate) fn get_view_data(&mut self, input: &Value, cap: u64) -> Result<Reply, ToolError> {
        let kind = input["view"].as_str().unwrap_or_default().to_owned();
        if input.get("ref").is_some() && kind != "graph" {
            return Err(fail(
                "invalid_request",
                "ref is accepted only with view graph",
            ));
        }
        let result_id = self.new_id("v");
        if kind == "graph" {
            if input.get("cursor").is_some() {
                return Err(self.stale_cursor());
            }
            let anchor = match input.get("ref").and_then(Value::as_str) {
                Some(r) => Some(self.resolve_ref(r)?),
                None => None,
            };
            let given = opt_str(input, "case_id");
            if let (Some(a), Some(c)) = (&anchor, &given)
                && &a.case != c
            {
                return Err(fail(
                    "reference_mismatch",
                    "the graph anchor is in a different case",
                ));
            }
            let case = self.known_case(
                anchor
                    .as_ref()
                    .map(|a| a.case.clone())
                    .or(given)
                    .or_else(|| self.page_case()),
            )?;
            let p = self.package(&case)?;
            let status = p["evidence_status"]
                .as_str()
                .unwrap_or("insufficient")
                .to_owned();
            let g = bounded_graph(
                self,
                &case,
                &p,
                anchor.as_ref().map(|a| a.record.as_str()),
                1,
            );
            let mut v = self.view_base(
                "graph",
                "Directed relationships retained in the package",
                &status,
                &opt_str(input, "assessment_date"),
            );
            v.insert(
                "fields".into(),
                json!([
                    field("source", "Source", "string"),
                    field("predicate", "Relationship", "string"),
                    field("target", "Target", "string"),
                    field("status", "Status", "string")
                ]),
            );
            let rows: Vec<Value> = g
                .edges
                .iter()
                .map(|e| {
                    let (s, t) = (e["source"].as_str().unwrap_or_default(), e["target"].as_str().unwrap_or_default());
                    json!({"source": g.label_of(s), "predicate": e["label"], "target": g.label_of(t), "status": e["status"], "ref": s, "target_ref": t})
                })
                .collect();
            if let Some(Value::Array(l)) = v.get_mut("limitations") {
                l.push(json!(format!("{} selected assertions lie outside this bounded graph. Direction runs from source to target and does not prove causation.", g.omitted)));
            }
            v.insert("nodes".into(), json!(g.nodes));
            v.insert("edges".into(), json!(g.edges));
            let total = rows.len();
            let value = view_page(&v, &rows, 0, total, true, None);
            self.results.insert(
                result_id.clone(),
                Retained {
                    case: case.clone(),
                    view: kind,
                },
                self.now() + EXPIRY_MS,
            );
            return Ok(Reply {
                data: value,
                complete: true,
                next_cursor: None,
                result_id: Some(result_id),
                case: Some(case),
            });
        }
        let start = self.start_page("okf_get_view_data", input, |s| {
            let case = s.known_case(opt_str(input, "case_id").or_else(|| s.page_case()))?;
            let (base, rows) = s.table_view(&kind, &case, input)?;
            Ok((
                case,
                PageBody::Rows {
                    base,
                    rows: Rc::new(rows),
                    view: true,
                },
            ))
        })?;
        let reply = self.row_page(&start, 3, cap.saturating_sub(400), Some(result_id.clone()))?;
        self.results.insert(
            result_id,
            Retained {
                case: start.case.clone(),
                view: kind,
            },
            self.now() + EXPIRY_MS,
        );
        Ok(reply)
    }

    /// A table view of a case (requirements, interactions, rates or calculation): its view
    /// value without rows, and the rows.
    fn table_view(
        &mut self,
        kind: &str,
        case: &str,
        input: &Value,
    ) -> Result<(Map<String, Value>, Vec<Value>), ToolError> {
        let date = opt_str(input, "assessment_date");
        let m = self.manifest_rc()?;
        // The case's own package is loaded (and verified) first, so its status is real and
        // same-case citations are always checked.
        let p = self.package(case)?;
        let status = p["evidence_status"]
            .as_str()
            .unwrap_or("insufficient")
            .to_owned();
        let mut limitations: Vec<String> = Vec::new();
        let mut provenance: Vec<Value> = Vec::new();
        let table = match kind {
            "requirements" => requirements_table(&p, &mut limitations),
            "interactions" => {
                self.interactions_table(&m, case, &mut provenance, &mut limitations)?
            }
            "rates" => rates_table(&mut limitations),
            _ => {
                let model =
                    resolve_model(&m.models, opt_str(input, "model_id").as_deref(), Some(case))?;
                return self.calculation_view(case, model, &status, &date);
            }
        };
        let base = self.view_base(kind, table.title, &status, &date);
        Ok(self.finish_view(
            base,
            table.fields,
            table.rows,
            table.authority,
            provenance,
            limitations,
        ))
    }

    /// The interactions the manifest declares for a case, one row each with its cited refs.
    fn interactions_table(
        &mut self,
        m: &Manifest,
        case: &str,
        provenance: &mut Vec<Value>,
        limitations: &mut Vec<String>,
    ) -> Result<Table, ToolError> {
        let mut rows = Vec::new();
        for p in m.interactions.iter().filter(|p| p.case_id == case) {
            let refs = self.cite(case, &p.evidence, provenance, limitations)?;
            rows.push(json!({"from": p.from, "to": p.to, "effect": p.effect, "distinction": p.distinction, "qualification": p.qualification, "references": refs}));
        }
        if rows.is_empty() {
            limitations.push("No interaction is declared for this question; mentions in text are not turned into causal effects.".into());
        }
        Ok(Table {
            title: "Declared interactions (unreviewed proposals)",
            fields: vec![
                field("from", "Acting benefit or circumstance", "string"),
                field("to", "Benefit affected", "string"),
                field("effect", "Effect", "string"),
                field("distinction", "Distinction", "string"),
                field("qualification", "Qualification", "string"),
            ],
            rows,
            authority: "authored-unreviewed-proposal",
        })
    }

    /// The calculation view of a case: the stages and proposed inputs of its blocked model,
    /// with the model's effective period; nothing is calculated.
    fn calculation_view(
        &mut self,
        case: &str,
        model: Option<&CalculationModel>,
        status: &str,
        date: &Option<String>,
    ) -> Result<(Map<String, Value>, Vec<Value>), ToolError> {
        let mut limitations: Vec<String> = Vec::new();
        let mut provenance: Vec<Value> = Vec::new();
        let mut rows = Vec::new();
        let mut period = (Value::Null, Value::Null);
        match model {
            Some(model) => {
                for st in &model.stages {
                    let refs = self.cite(case, &st.evidence, &mut provenance, &mut limitations)?;
                    rows.push(json!({"stage": st.label, "description": st.description, "status": "blocked", "gaps": st.gaps.join("; "), "references": refs}));
                }
                for i in &model.inputs {
                    rows.push(json!({"stage": i.label, "description": i.reason, "status": "proposed input", "gaps": "No value gathered; whether it applies is still under review.", "group": i.group, "type": i.kind, "unit": i.unit, "required": i.required}));
                }
                limitations.extend(model.gaps.iter().cloned());
                limitations.push(NOTHING_CALCULATED.into());
                period = (
                    json!(model.effective_period.from),
                    json!(model.effective_period.to),
                );
            }
            None => limitations.push(NO_ARITHMETIC.into()),
        }
        let fields = vec![
            field("stage", "Stage", "string"),
            field("description", "Description", "string"),
            field("status", "Status", "string"),
            field("gaps", "Gaps", "string"),
            field("group", "Group", "string"),
            field("type", "Type", "string"),
            field("unit", "Unit", "string"),
            field("required", "Required", "boolean"),
        ];
        let mut base = self.view_base(
            "calculation",
            "Blocked calculation model (unreviewed)",
            status,
            date,
        );
        base.insert(
            "time_basis".into(),
            json!({"assessment_date": date, "effective_from": period.0, "effective_to": period.1}),
        );
        Ok(self.finish_view(
            base,
            fields,
            rows,
            "authored-unreviewed-proposal",
            provenance,
            limitations,
        ))
    }

    fn finish_view(
        &self,
        mut base: Map<String, Value>,
        fields: Vec<Value>,
        rows: Vec<Value>,
        authority: &str,
        provenance: Vec<Value>,
        limitations: Vec<String>,
    ) -> (Map<String, Value>, Vec<Value>) {
        base.insert("fields".into(), Value::Array(fields));
        base.insert("authority".into(), json!(authority));
        base.insert("provenance".into(), Value::Array(provenance));
        if let Some(Value::Array(l)) = base.get_mut("limitations") {
            l.extend(limitations.into_iter().map(|s| json!(short(&s, 1600))));
        }
        (base, rows)
    }

    pub(crate) fn show_view(&mut self, input: &Value, cap: u64) -> Result<Reply, ToolError> {
        let expected = int(input, "expected_revision", 0);
        if self.page_state().revision != expected {
            return Err(fail(
                "stale_revision",
                "the page was changed by someone or something else since expected_revision",
            ));
        }
        let retained =
            match input.get("result_id").and_then(Value::as_str) {
                Some(id) => Some(self.results.get(id).map(|(r, _)| r.clone()).ok_or_else(
                    || {
                        fail(
                            "unknown_result",
                            "the view result expired, was evicted or belongs to another session",
                        )
                    },
                )?),
                None => None,
            };
        let target = match input.get("ref").and_then(Value::as_str) {
            Some(r) => Some(self.resolve_ref(r)?),
            None => None,
        };
        let given = opt_str(input, "case_id");
        let case = retained
            .as_ref()
            .map(|r| r.case.clone())
            .or_else(|| target.as_ref().map(|t| t.case.clone()))
            .or(given.clone());
        let case = self.known_case(case)?;
        let contradicts = given.as_ref().is_some_and(|g| g != &case)
            || target.as_ref().is_some_and(|t| t.case != case);
        if contradicts {
            return Err(fail(
                "reference_mismatch",
                "case_id, ref and result_id point at different cases",
            ));
        }
        let p = self.package(&case)?;
        if let Some(t) = &target
            && package::record(&p, &t.record).is_none()
        {
            return Err(ToolError {
                case: Some(case),
                ..fail(
                    "missing_evidence",
                    "the referenced record is not in its retained package",
                )
            });
        }
        let view = opt_str(input, "view")
            .or_else(|| retained.as_ref().map(|r| r.view.clone()))
            .unwrap_or_else(|| "source".into());
        if !VIEWS.contains(&view.as_str()) {
            return Err(fail(
                "unknown_view",
                "view is not one of the twelve workbench views",
            ));
        }
        if retained.as_ref().is_some_and(|r| r.view != view) {
            return Err(fail(
                "reference_mismatch",
                "the retained result belongs to another view",
            ));
        }
        let selection = Selection {
            case_id: case.clone(),
            record_id: target.as_ref().map(|t| t.record.clone()),
            view: view.clone(),
            result_id: opt_str(input, "result_id"),
        };
        let reply_for = |revision: u64, record: Option<String>, link: String| json!({"case_id": case, "record_id": record, "view": view, "result_id": selection.result_id, "rendered_revision": revision, "deep_link": link});
        // Pre-flight: an irreversible change is never followed by an oversized-reply error.
        let link = self.deep_link(&selection);
        let trial = self.envelope(
            &Some(case.clone()),
            Some(reply_for(
                expected + 1,
                selection.record_id.clone(),
                link.clone(),
            )),
            true,
            None,
            None,
        );
        if trial.sealed_bytes() > cap.saturating_sub(150) {
            return Err(fail(
                "response_budget",
                format!("the reply would not fit max_bytes {cap}, so the page was not changed"),
            ));
        }
        self.present(&selection, expected)
            .map_err(|m| fail("presentation_changed", m))?;
        let now = self.page_state();
        let matches = now.revision == expected + 1
            && now.case_id.as_deref() == Some(case.as_str())
            && now.view == view
            && (target.is_none() || now.record_id == selection.record_id);
        if !matches {
            return Err(fail(
                "presentation_changed",
                "the page shows something else than what was presented",
            ));
        }
        Ok(Reply {
            data: reply_for(now.revision, now.record_id.clone(), link),
            complete: true,
            next_cursor: None,
            result_id: None,
            case: Some(case.clone()),
        })
    }

    pub(crate) fn get_calculation(&mut self, input: &Value, cap: u64) -> Result<Reply, ToolError> {
        let m = self.manifest_rc()?;
        let case = opt_str(input, "case_id").or_else(|| self.page_case());
        let model = resolve_model(
            &m.models,
            opt_str(input, "model_id").as_deref(),
            case.as_deref(),
        )?
        .cloned();
        let Some(model) = model else {
            let data = json!({
                "status": "blocked",
                "execution_allowed": false,
                "models": m.models.iter().map(|x| json!({"id": x.id, "title": x.title})).collect::<Vec<_>>(),
                "gaps": ["No unique declared model applies to this case, and nothing has been calculated."],
            });
            return Ok(Reply {
                data,
                complete: true,
                case,
                ..Reply::default()
            });
        };
        let section = opt_str(input, "section").unwrap_or_else(|| "overview".into());
        let stage_id = opt_str(input, "stage_id");
        if let Some(sid) = &stage_id
            && !model.stages.iter().any(|s| &s.id == sid)
        {
            return Err(fail(
                "unknown_stage",
                format!(
                    "stage_id {} is not a stage of {}",
                    short(sid, 120),
                    model.id
                ),
            ));
        }
        let home = case.clone().unwrap_or_else(|| model.case_ids[0].clone());
        let start = self.start_page("okf_get_calculation", input, |s| {
            let mut ignored_prov = Vec::new();
            let mut ignored_lim = Vec::new();
            let mut stage_row = |s: &mut Self, st: &crate::manifest::ModelStage| -> Result<Value, ToolError> {
                let refs = s.cite(&home, &st.evidence, &mut ignored_prov, &mut ignored_lim)?;
                let evidence: Vec<Value> = refs.iter().zip(&st.evidence).map(|(r, c)| json!({"ref": r, "case_id": c.case_id})).collect();
                Ok(json!({"id": st.id, "label": st.label, "description": st.description, "gaps": st.gaps, "evidence": evidence}))
            };
            let rows: Vec<Value> = if let Some(sid) = &stage_id {
                model.stages.iter().filter(|st| &st.id == sid).map(|st| stage_row(s, st)).collect::<Result<_, _>>()?
            } else {
                match section.as_str() {
                    "stages" => model.stages.iter().map(|st| stage_row(s, st)).collect::<Result<_, _>>()?,
                    "inputs" => model.inputs.iter().map(|i| serde_json::to_value(i).unwrap_or_default()).collect(),
                    _ => model.stages.iter().map(|st| json!({"id": st.id, "label": st.label, "gaps": st.gaps})).collect(),
                }
            };
            let mut base = Map::new();
            base.insert("model_id".into(), json!(model.id));
            base.insert("title".into(), json!(model.title));
            base.insert("status".into(), json!("blocked"));
            base.insert("execution_allowed".into(), json!(false));
            base.insert("authority".into(), json!(model.authority));
            base.insert("assessment_date".into(), json!(opt_str(input, "assessment_date")));
            base.insert("effective_period".into(), json!(model.effective_period));
            base.insert("jurisdiction".into(), json!(model.jurisdiction));
            base.insert("components".into(), json!(model.components));
            base.insert("gaps".into(), json!(model.gaps));
            base.insert("section".into(), json!(section));
            base.insert("follow_up".into(), json!("okf_get_evidence"));
            Ok((home.clone(), PageBody::Rows { base, rows: Rc::new(rows), view: false }))
        })?;
        self.row_page(&start, 3, cap, None)
    }
}
