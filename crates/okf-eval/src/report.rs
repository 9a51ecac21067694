//! Reports: a readable table and a JSON document for evaluations, self-checks and lint.
//!
//! JSON objects are `serde_json` maps, so their keys come out sorted and the output is the same
//! on every run; lists keep the order of the case, the manifest and the index.

use crate::assess::{Assessment, Check, StageId};
use crate::controls::ControlResult;
use crate::lint::LintReport;
use crate::self_check::SelfCheckReport;
use crate::{CaseRun, EvalReport};
use serde_json::{Map, Value, json};
use std::fmt::Write as _;

/// The stages of an assessment as `{A: {label, status, checks}, …, H: …}`.
pub fn stages_json(assessment: &Assessment) -> Value {
    let mut stages = Map::new();
    for s in &assessment.stages {
        stages.insert(
            s.id.letter().to_owned(),
            json!({ "label": s.label, "status": s.status, "checks": s.checks }),
        );
    }
    Value::Object(stages)
}

fn case_json(run: &CaseRun) -> Value {
    json!({
        "id": run.assessment.case_id,
        "question": run.package.get("question").cloned().unwrap_or(Value::Null),
        "status": run.assessment.status,
        "context_id": run.context_id,
        "evidence_status": run.evidence_status,
        "binding": run.binding,
        "budget": {
            "max_nodes": run.budget.max_nodes,
            "max_relationships": run.budget.max_relationships,
            "max_depth": run.budget.max_depth,
            "max_bytes": run.budget.max_bytes,
        },
        "stages": stages_json(&run.assessment),
    })
}

/// The JSON report of `okf eval`:
/// `{status, case:{id, status, stages:{A..H}, …}, controls:[{id, status, evidence_status,
/// context_id, checks, …}]}`.
pub fn eval_json(report: &EvalReport) -> Value {
    json!({
        "status": report.status,
        "case": case_json(&report.case),
        "controls": report.controls,
    })
}

fn letters(stages: &[StageId]) -> String {
    if stages.is_empty() {
        return "-".into();
    }
    stages
        .iter()
        .map(|s| s.letter())
        .collect::<Vec<_>>()
        .join(",")
}

fn short(v: Option<&Value>) -> String {
    let text = match v {
        None => "(absent)".to_owned(),
        Some(v) => serde_json::to_string(v).unwrap_or_default(),
    };
    const LIMIT: usize = 160;
    if text.chars().count() > LIMIT {
        let cut: String = text.chars().take(LIMIT).collect();
        format!("{cut}…")
    } else {
        text
    }
}

fn failed_check_line(out: &mut String, prefix: &str, c: &Check) {
    let _ = writeln!(
        out,
        "  {prefix}{}\n      expected {}\n      actual   {}",
        c.id,
        short(c.expected.as_ref()),
        short(c.actual.as_ref())
    );
}

/// Writes left-aligned columns, each as wide as its widest cell, two spaces apart.
fn columns(out: &mut String, headers: &[&str], rows: &[Vec<String>]) {
    let widths: Vec<usize> = headers
        .iter()
        .enumerate()
        .map(|(i, h)| {
            rows.iter()
                .filter_map(|r| r.get(i))
                .map(|c| c.chars().count())
                .chain([h.chars().count()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let header: Vec<String> = headers.iter().map(|h| (*h).to_owned()).collect();
    for row in std::iter::once(&header).chain(rows) {
        let mut line = String::new();
        for (i, cell) in row.iter().enumerate() {
            if i + 1 == row.len() {
                line.push_str(cell);
            } else {
                let pad = widths.get(i).copied().unwrap_or(0);
                let _ = write!(line, "{cell:<pad$}  ");
            }
        }
        let _ = writeln!(out, "{}", line.trim_end());
    }
}

/// The readable report of `okf eval`.
pub fn eval_table(report: &EvalReport) -> String {
    let mut out = String::new();
    let run = &report.case;
    let a = &run.assessment;
    let _ = writeln!(out, "case     {}", a.case_id);
    let _ = writeln!(out, "package  {} ({})", run.context_id, run.evidence_status);
    let _ = writeln!(
        out,
        "binding  {} sha256 {}",
        run.binding.index_url, run.binding.index_sha256
    );
    let _ = writeln!(out);
    let _ = writeln!(out, "stage  label           checks  failed  status");
    for s in &a.stages {
        let failed = s.checks.iter().filter(|c| !c.status.passed()).count();
        let _ = writeln!(
            out,
            "{:<6} {:<15} {:>6}  {:>6}  {}",
            s.id.letter(),
            s.label,
            s.checks.len(),
            failed,
            s.status.as_str()
        );
    }
    let _ = writeln!(out, "case: {}", a.status.as_str());
    let failed: Vec<(StageId, &Check)> = a.failed_checks().collect();
    if !failed.is_empty() {
        let _ = writeln!(out, "failed case checks:");
        for (stage, c) in failed {
            failed_check_line(&mut out, &format!("[{}] ", stage.letter()), c);
        }
    }
    if !report.controls.is_empty() {
        let _ = writeln!(out);
        let rows: Vec<Vec<String>> = report
            .controls
            .iter()
            .map(|c| {
                vec![
                    c.id.clone(),
                    expected_statuses(c),
                    c.evidence_status.clone(),
                    expected_stages(c),
                    letters(&c.positive_case_failed_stages),
                    c.status.as_str().to_owned(),
                ]
            })
            .collect();
        columns(
            &mut out,
            &[
                "control",
                "expected status",
                "actual status",
                "must fail stages",
                "case failed stages",
                "result",
            ],
            &rows,
        );
        let passed = report.controls.iter().filter(|c| c.status.passed()).count();
        let _ = writeln!(
            out,
            "controls: {passed} passed, {} failed",
            report.controls.len() - passed
        );
        for c in report.controls.iter().filter(|c| !c.status.passed()) {
            for check in c.checks.iter().filter(|k| !k.status.passed()) {
                failed_check_line(&mut out, &format!("{}: ", c.id), check);
            }
        }
    }
    let _ = writeln!(out);
    let _ = write!(out, "status: {}", report.status.as_str());
    out
}

fn check_expected<'a>(c: &'a ControlResult, id: &str) -> Option<&'a Value> {
    c.checks
        .iter()
        .find(|k| k.id == id)
        .and_then(|k| k.expected.as_ref())
}

fn expected_statuses(c: &ControlResult) -> String {
    check_expected(c, "evidence-status")
        .and_then(Value::as_array)
        .map(|v| {
            v.iter()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join("|")
        })
        .unwrap_or_default()
}

fn expected_stages(c: &ControlResult) -> String {
    let stages: Vec<&str> = c
        .checks
        .iter()
        .filter_map(|k| k.id.strip_prefix("failed-stage:"))
        .collect();
    if stages.is_empty() {
        "-".into()
    } else {
        stages.join(",")
    }
}

/// The JSON report of `okf eval --self-check`.
pub fn self_check_json(report: &SelfCheckReport) -> Value {
    json!({
        "status": report.status,
        "summary": {
            "requirements": report.requirements.len(),
            "mutants": report.mutant_count(),
            "fail_closed": report.fail_closed_count(),
            "skipped": report.skipped_count(),
            "not_fail_closed": report.not_fail_closed(),
            "unsupported_baselines": report.unsupported_baselines(),
        },
        "requirements": report.requirements,
    })
}

/// The readable report of `okf eval --self-check`.
pub fn self_check_table(report: &SelfCheckReport) -> String {
    let mut out = String::new();
    let width = report
        .requirements
        .iter()
        .map(|r| r.id.len())
        .max()
        .unwrap_or(0)
        .max("requirement".len());
    let _ = writeln!(
        out,
        "{:<width$}  {:<31}  {:>8}  {:>7}  {:>11}  {:>7}  result",
        "requirement", "baseline", "closure", "mutants", "fail-closed", "skipped"
    );
    for r in &report.requirements {
        let closed = r.mutants.iter().filter(|m| m.fail_closed).count();
        let _ = writeln!(
            out,
            "{:<width$}  {:<31}  {:>8}  {:>7}  {:>11}  {:>7}  {}",
            r.id,
            r.baseline_status.as_deref().unwrap_or("not applicable"),
            r.closure_bytes,
            r.mutants.len(),
            closed,
            r.skipped.len(),
            if r.fail_closed {
                "fail-closed"
            } else {
                "NOT fail-closed"
            }
        );
        for m in r.mutants.iter().filter(|m| !m.fail_closed) {
            let _ = writeln!(
                out,
                "  open: {} {}{} -> requirement {}, package {}",
                serde_json::to_value(m.kind)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_owned))
                    .unwrap_or_default(),
                m.target,
                m.max_bytes
                    .map(|b| format!(" ({b} bytes)"))
                    .unwrap_or_default(),
                m.requirement_status.as_deref().unwrap_or("not assessed"),
                m.evidence_status
            );
        }
    }
    let not_closed = report.not_fail_closed();
    let _ = writeln!(
        out,
        "{} requirements, {} mutants, {} failed closed, {} skipped; not fail-closed: {}",
        report.requirements.len(),
        report.mutant_count(),
        report.fail_closed_count(),
        report.skipped_count(),
        if not_closed.is_empty() {
            "none".to_owned()
        } else {
            not_closed.join(", ")
        }
    );
    let _ = write!(out, "status: {}", report.status.as_str());
    out
}

/// The JSON report of `okf lint`.
pub fn lint_json(report: &LintReport) -> Value {
    let by_kind: Vec<Value> = report
        .counts_by_kind()
        .into_iter()
        .map(
            |(severity, kind, count)| json!({ "severity": severity, "kind": kind, "count": count }),
        )
        .collect();
    json!({
        "status": if report.has_errors() { "failed" } else { "passed" },
        "summary": {
            "error": report.count(crate::Severity::Error),
            "warning": report.count(crate::Severity::Warning),
            "info": report.count(crate::Severity::Info),
            "by_kind": by_kind,
        },
        "findings": report.findings,
    })
}

/// The readable report of `okf lint`.
pub fn lint_table(report: &LintReport) -> String {
    let mut out = String::new();
    for f in &report.findings {
        let _ = writeln!(
            out,
            "{:<7}  {:<31}  {}\n         {}\n         ids: {}",
            f.severity.as_str(),
            f.kind,
            f.path,
            f.message,
            f.ids.join(" ")
        );
    }
    if !report.findings.is_empty() {
        let _ = writeln!(out);
    }
    for (severity, kind, count) in report.counts_by_kind() {
        let _ = writeln!(out, "{:>5}  {:<7}  {kind}", count, severity.as_str());
    }
    let counted = |severity, noun: &str| match report.count(severity) {
        1 => format!("1 {noun}"),
        n => format!("{n} {noun}s"),
    };
    let _ = write!(
        out,
        "{}, {}, {}",
        counted(crate::Severity::Error, "error"),
        counted(crate::Severity::Warning, "warning"),
        counted(crate::Severity::Info, "info")
    );
    out
}
