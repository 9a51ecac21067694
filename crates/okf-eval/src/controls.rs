//! Mutation controls `okf-context-evaluation-controls.v1` (spec §4): typed manifest, the eight
//! mutation ops over an in-memory copy of the typed index, and the control checks.
//!
//! The original index is never modified: each control starts from a clone of its typed
//! document. The mutant is re-bound under the original `bundle.source_url` with its own
//! digest. The reference binds the *compact insertion-order* digest of its mutant; this port
//! binds the canonical digest of the typed mutant (`ContextIndex::default_binding`), because a
//! typed document has no insertion order (DEVIATIONS.md, E1).

use crate::assemble_package;
use crate::assess::{self, Assessment, Check, StageId, Status, assess};
use crate::case::{Case, ExpectedIssue, ExpectedStatus, Rules, parse};
use crate::error::EvalError;
use okf_engine::model::{Access, Alias, IndexDocument};
use okf_engine::{Binding, Budget, ContextIndex};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// The `schema` value of a controls manifest.
pub const CONTROLS_SCHEMA: &str = "okf-context-evaluation-controls.v1";

/// The line `corrupt_text` appends (after a newline) to a record's text. Our own wording; the
/// reference's marker differs, which is one reason mutant digests differ (DEVIATIONS.md, E1).
pub const CORRUPTION_MARKER: &str = "SYNTHETIC CONTROL: THIS LINE WAS APPENDED BY OKF EVAL TO CORRUPT THE PASSAGE; IT IS NOT SOURCE TEXT.";

/// Suffix appended to `bundle.snapshot` of every mutant, before the control id.
pub const MUTANT_SNAPSHOT_SUFFIX: &str = "--synthetic-control-";

/// A controls manifest.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Controls {
    /// Always [`CONTROLS_SCHEMA`].
    pub schema: String,
    /// Manifest id.
    pub id: String,
    /// What the controls establish.
    pub description: String,
    /// One or more controls, run in order.
    pub controls: Vec<Control>,
}

/// One control: mutations, an optional question and budget, and what must happen.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Control {
    /// Id matching `^[a-z][a-z0-9-]{0,79}$`, unique in the manifest.
    pub id: String,
    /// What the control does.
    pub description: String,
    /// Mutations, applied in order to a copy of the index.
    pub mutations: Vec<Mutation>,
    /// Question to ask instead of the case question.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub question: Option<String>,
    /// Budget to use instead of the engine defaults.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget: Option<ControlBudget>,
    /// The expected outcome.
    pub expected: ControlExpected,
}

/// A control budget; absent keys take the engine defaults.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ControlBudget {
    /// `max_nodes`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_nodes: Option<u64>,
    /// `max_relationships`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_relationships: Option<u64>,
    /// `max_depth`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_depth: Option<u64>,
    /// `max_bytes`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_bytes: Option<u64>,
}

/// What a control expects (spec §4.1).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ControlExpected {
    /// The package status must be one of these (an empty list always fails).
    pub evidence_status: Vec<ExpectedStatus>,
    /// Stages the positive case must now fail (a subset rule).
    pub failed_stages: Vec<StageId>,
    /// Issues the package must report (ids ⊆ row ids).
    pub issues: Vec<ExpectedIssue>,
    /// Records that must not be selected.
    pub absent_records: Vec<String>,
    /// Exact `budget.truncated`, when given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub truncated: Option<bool>,
    /// Most selected rows, when given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_selected: Option<u64>,
}

/// One mutation op (spec §4.2). An op name not listed here is rejected when the manifest is
/// read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case", deny_unknown_fields)]
pub enum Mutation {
    /// Remove every record with this id; references to it are left dangling.
    DropRecord {
        /// The record.
        record_id: String,
    },
    /// Swap source and target of every assertion whose target is this record.
    ReverseIncoming {
        /// The record.
        record_id: String,
    },
    /// Remove the first assertion with this id.
    RemoveAssertion {
        /// The assertion.
        assertion_id: String,
    },
    /// Append a newline and [`CORRUPTION_MARKER`] to the record's text.
    CorruptText {
        /// The record.
        record_id: String,
    },
    /// Make the record restricted.
    RestrictRecord {
        /// The record.
        record_id: String,
    },
    /// Remove every provenance row of the record.
    ClearProvenance {
        /// The record.
        record_id: String,
    },
    /// Append a plain alias to the record.
    AddAlias {
        /// The record.
        record_id: String,
        /// The alias text.
        alias: String,
    },
    /// Replace the record's `conflicts_with` with `[other_id]`.
    DeclareConflict {
        /// The record.
        record_id: String,
        /// The record it conflicts with.
        other_id: String,
    },
}

impl Mutation {
    /// The op name.
    pub fn op(&self) -> &'static str {
        match self {
            Mutation::DropRecord { .. } => "drop_record",
            Mutation::ReverseIncoming { .. } => "reverse_incoming",
            Mutation::RemoveAssertion { .. } => "remove_assertion",
            Mutation::CorruptText { .. } => "corrupt_text",
            Mutation::RestrictRecord { .. } => "restrict_record",
            Mutation::ClearProvenance { .. } => "clear_provenance",
            Mutation::AddAlias { .. } => "add_alias",
            Mutation::DeclareConflict { .. } => "declare_conflict",
        }
    }

    fn record_id(&self) -> Option<&str> {
        match self {
            Mutation::DropRecord { record_id }
            | Mutation::ReverseIncoming { record_id }
            | Mutation::CorruptText { record_id }
            | Mutation::RestrictRecord { record_id }
            | Mutation::ClearProvenance { record_id }
            | Mutation::AddAlias { record_id, .. }
            | Mutation::DeclareConflict { record_id, .. } => Some(record_id),
            Mutation::RemoveAssertion { .. } => None,
        }
    }

    /// Applies the op to `doc` in place. `control` names the control in errors.
    ///
    /// Fails when the op names a record (or assertion) `doc` does not contain, or when
    /// `reverse_incoming` finds no incoming assertion.
    pub fn apply(&self, doc: &mut IndexDocument, control: &str) -> Result<(), EvalError> {
        let record = match self.record_id() {
            Some(id) => Some(doc.records.iter().position(|r| r.id == id).ok_or_else(|| {
                EvalError::UnknownRecord {
                    control: control.to_owned(),
                    op: self.op(),
                    record_id: id.to_owned(),
                }
            })?),
            None => None,
        };
        match self {
            Mutation::DropRecord { record_id } => {
                doc.records.retain(|r| r.id != *record_id);
                // A dropped concept no longer belongs to the part that contributed it.
                for part in doc.parts.iter_mut().flatten() {
                    part.concepts.retain(|c| c != record_id);
                }
            }
            Mutation::ReverseIncoming { record_id } => {
                let mut reversed = 0;
                for a in doc.assertions.iter_mut().filter(|a| a.target == *record_id) {
                    std::mem::swap(&mut a.source, &mut a.target);
                    reversed += 1;
                }
                if reversed == 0 {
                    return Err(EvalError::NoIncomingAssertion {
                        control: control.to_owned(),
                        record_id: record_id.clone(),
                    });
                }
            }
            Mutation::RemoveAssertion { assertion_id } => {
                let pos = doc
                    .assertions
                    .iter()
                    .position(|a| a.id == *assertion_id)
                    .ok_or_else(|| EvalError::UnknownAssertion {
                        control: control.to_owned(),
                        assertion_id: assertion_id.clone(),
                    })?;
                doc.assertions.remove(pos);
            }
            edit => {
                // Every remaining op names a record, found above.
                let Some(r) = record.and_then(|i| doc.records.get_mut(i)) else {
                    return Ok(());
                };
                match edit {
                    Mutation::CorruptText { .. } => {
                        r.text.push('\n');
                        r.text.push_str(CORRUPTION_MARKER);
                    }
                    Mutation::RestrictRecord { .. } => r.access = Access::Restricted,
                    Mutation::ClearProvenance { .. } => r.provenance.clear(),
                    Mutation::AddAlias { alias, .. } => r
                        .aliases
                        .get_or_insert_with(Vec::new)
                        .push(Alias::Plain(alias.clone())),
                    Mutation::DeclareConflict { other_id, .. } => {
                        r.conflicts_with = Some(vec![other_id.clone()]);
                    }
                    Mutation::DropRecord { .. }
                    | Mutation::ReverseIncoming { .. }
                    | Mutation::RemoveAssertion { .. } => {}
                }
            }
        }
        Ok(())
    }
}

impl ControlBudget {
    /// The engine budget (defaults for absent keys, ranges checked by the engine).
    pub fn to_budget(self) -> Result<Budget, okf_engine::Error> {
        Budget::with_overrides(
            self.max_nodes,
            self.max_relationships,
            self.max_depth,
            self.max_bytes,
        )
    }
}

fn valid_control_id(id: &str) -> bool {
    let b = id.as_bytes();
    (1..=80).contains(&b.len())
        && b[0].is_ascii_lowercase()
        && b[1..]
            .iter()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-')
}

impl Controls {
    /// Parses and checks a controls manifest (its raw bytes).
    pub fn from_slice(bytes: &[u8]) -> Result<Controls, EvalError> {
        let controls: Controls = parse("controls", bytes)?;
        controls.check()?;
        Ok(controls)
    }

    /// Applies the schema rules serde does not express, and id uniqueness; returns the first
    /// failure.
    pub fn check(&self) -> Result<(), EvalError> {
        let mut r = Rules::new("controls");
        r.require(
            self.schema == CONTROLS_SCHEMA,
            "schema",
            "must be okf-context-evaluation-controls.v1",
        );
        r.non_empty("id", &self.id);
        r.non_empty("description", &self.description);
        r.require(
            !self.controls.is_empty(),
            "controls",
            "must list at least one control",
        );
        let mut seen = std::collections::HashSet::new();
        for (i, c) in self.controls.iter().enumerate() {
            let p = format!("controls[{i}]");
            r.require(
                valid_control_id(&c.id),
                format!("{p}.id"),
                "must match ^[a-z][a-z0-9-]{0,79}$",
            );
            r.require(
                seen.insert(c.id.as_str()),
                format!("{p}.id"),
                "repeats an earlier control id",
            );
            r.non_empty(format!("{p}.description"), &c.description);
            if let Some(q) = &c.question {
                r.non_empty(format!("{p}.question"), q);
            }
            for (j, m) in c.mutations.iter().enumerate() {
                let mp = format!("{p}.mutations[{j}]");
                match m {
                    Mutation::RemoveAssertion { assertion_id } => {
                        r.non_empty(format!("{mp}.assertion_id"), assertion_id);
                    }
                    Mutation::AddAlias { record_id, alias } => {
                        r.non_empty(format!("{mp}.record_id"), record_id);
                        r.non_empty(format!("{mp}.alias"), alias);
                    }
                    Mutation::DeclareConflict {
                        record_id,
                        other_id,
                    } => {
                        r.non_empty(format!("{mp}.record_id"), record_id);
                        r.non_empty(format!("{mp}.other_id"), other_id);
                    }
                    other => {
                        r.non_empty(format!("{mp}.record_id"), other.record_id().unwrap_or(""))
                    }
                }
            }
            r.issues(&format!("{p}.expected.issues"), &c.expected.issues);
            r.non_empty_items(
                &format!("{p}.expected.absent_records"),
                &c.expected.absent_records,
            );
        }
        r.finish()
    }
}

/// Builds the mutant of a control: a copy of `original` with the snapshot suffixed
/// (`--synthetic-control-<id>`) and the mutations applied in order. `original` is untouched.
pub fn build_mutant(
    original: &IndexDocument,
    control: &Control,
) -> Result<IndexDocument, EvalError> {
    let mut doc = original.clone();
    doc.bundle.snapshot.push_str(MUTANT_SNAPSHOT_SUFFIX);
    doc.bundle.snapshot.push_str(&control.id);
    for m in &control.mutations {
        m.apply(&mut doc, &control.id)?;
    }
    Ok(doc)
}

/// The outcome of one control.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ControlResult {
    /// Control id.
    pub id: String,
    /// Control description.
    pub description: String,
    /// `passed` when every check passed.
    pub status: Status,
    /// The mutant package's evidence status.
    pub evidence_status: String,
    /// The mutant package's `context_id`.
    pub context_id: String,
    /// The digest the mutant was bound with (canonical; DEVIATIONS.md E1).
    pub mutant_index_sha256: String,
    /// The question asked.
    pub question: String,
    /// Stages the unchanged positive case failed on the mutant package.
    pub positive_case_failed_stages: Vec<StageId>,
    /// The control checks, in spec §4.6 order.
    pub checks: Vec<Check>,
    /// The full assessment of the positive case on the mutant package.
    #[serde(skip)]
    pub positive_case: Assessment,
}

/// Runs one control against `index` with the positive `case` (spec §4.2–§4.6).
pub fn run_control(
    index: &ContextIndex,
    case: &Case,
    control: &Control,
) -> Result<ControlResult, EvalError> {
    let context = format!("control {}", control.id);
    let mutant = build_mutant(index.document(), control)?;
    let mutant = ContextIndex::new(mutant)
        .map_err(|e| EvalError::engine(format!("{context} mutant index"), e))?;
    let digest = mutant.default_binding().index_sha256.clone();
    let binding = Binding {
        index_url: index.document().bundle.source_url.clone(),
        index_sha256: digest.clone(),
    };
    let budget = match control.budget {
        Some(b) => b
            .to_budget()
            .map_err(|e| EvalError::engine(format!("{context} budget"), e))?,
        None => Budget::default(),
    };
    let question = control.question.as_deref().unwrap_or(&case.question);
    let (assembled, p) = assemble_package(&mutant, question, &budget, Some(&binding), &context)?;
    let positive = assess(&p, case, &mutant, Some(&digest));
    let checks = control_checks(&p, &positive, &control.expected);
    Ok(ControlResult {
        id: control.id.clone(),
        description: control.description.clone(),
        status: Status::from_bool(checks.iter().all(|c| c.status.passed())),
        evidence_status: assembled.evidence_status.as_str().to_owned(),
        context_id: assembled.context_id,
        mutant_index_sha256: digest,
        question: question.to_owned(),
        positive_case_failed_stages: positive.failed_stages(),
        checks,
        positive_case: positive,
    })
}

/// The control checks of spec §4.6 over the mutant package `p` and the positive case's
/// assessment of it.
pub fn control_checks(p: &Value, positive: &Assessment, expected: &ControlExpected) -> Vec<Check> {
    let mut checks = Vec::new();
    let status = p.get("evidence_status");
    let allowed: Vec<&str> = expected
        .evidence_status
        .iter()
        .map(|s| s.as_str())
        .collect();
    checks.push(Check::maybe(
        "evidence-status",
        status
            .and_then(Value::as_str)
            .is_some_and(|s| allowed.contains(&s)),
        Some(json!(allowed)),
        status.cloned(),
    ));
    let ai_answer = p.get("ai_answer");
    checks.push(Check::maybe(
        "no-model-answer",
        ai_answer.is_some_and(Value::is_null),
        Some(Value::Null),
        ai_answer.cloned(),
    ));
    checks.push(Check::new(
        "positive-acceptance-rejected",
        positive.status == Status::Failed,
        json!("failed"),
        json!(positive.status.as_str()),
    ));
    for &stage in &expected.failed_stages {
        let actual = positive.stage(stage).map(|s| s.status);
        checks.push(Check::new(
            format!("failed-stage:{}", stage.letter()),
            actual == Some(Status::Failed),
            json!("failed"),
            json!(actual.map(Status::as_str)),
        ));
    }
    for issue in &expected.issues {
        checks.push(Check::new(
            format!("diagnostic:{}", issue.code),
            !assess::issue_hits(p, issue).is_empty(),
            serde_json::to_value(issue).unwrap_or(Value::Null),
            assess::area_value(p, issue.area),
        ));
    }
    let selected: Vec<&str> = p
        .get("selected")
        .and_then(Value::as_array)
        .map(|rows| {
            rows.iter()
                .filter_map(|r| {
                    r.get("record")
                        .and_then(|rec| rec.get("id"))
                        .and_then(Value::as_str)
                })
                .collect()
        })
        .unwrap_or_default();
    for id in &expected.absent_records {
        let present = selected.contains(&id.as_str());
        checks.push(Check::new(
            format!("absent-record:{id}"),
            !present,
            json!("absent"),
            json!(present),
        ));
    }
    let budget = p.get("budget");
    if let Some(want) = expected.truncated {
        let truncated = budget.and_then(|b| b.get("truncated"));
        checks.push(Check::maybe(
            "truncation",
            truncated.and_then(Value::as_bool) == Some(want),
            Some(json!(want)),
            truncated.cloned(),
        ));
    }
    if let Some(max) = expected.max_selected {
        let rows = p
            .get("selected")
            .and_then(Value::as_array)
            .map_or(0, Vec::len) as u64;
        checks.push(Check::new(
            "selected-bound",
            rows <= max,
            json!(max),
            json!(rows),
        ));
    }
    let used = budget.and_then(|b| b.get("used_bytes"));
    let max = budget.and_then(|b| b.get("max_bytes"));
    let used_n = used.and_then(Value::as_u64);
    let ok = match (
        used_n,
        max.and_then(Value::as_u64),
        assess::package_bytes(p),
    ) {
        (Some(u), Some(m), Some(actual)) => u == actual && u <= m,
        _ => false,
    };
    checks.push(Check::maybe(
        "package-byte-bound",
        ok,
        max.cloned(),
        used.cloned(),
    ));
    checks
}
