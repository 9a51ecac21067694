//! `okf eval` and `okf lint`, run as a real process: exit codes 0 (passed), 1 (an expectation
//! failed / a lint error) and 2 (unusable input), tables and JSON reports.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use crate::common::{example, okf, shared, stderr, stdout, temp_dir};
use serde_json::{Value, json};
use std::path::PathBuf;
use std::process::Output;

fn temp(name: &str, content: &Value) -> PathBuf {
    let file = temp_dir("eval-cli").join(name);
    std::fs::write(&file, serde_json::to_vec(content).unwrap()).unwrap();
    file
}

fn read_json(file: &str) -> Value {
    serde_json::from_slice(&std::fs::read(file).unwrap()).unwrap()
}

fn code(o: &Output) -> i32 {
    o.status.code().unwrap()
}

#[test]
fn eval_of_the_example_case_and_controls_passes_with_exit_0() {
    let out = okf(&[
        "eval",
        "--index",
        &example("index.json"),
        "--case",
        &example("case.json"),
        "--controls",
        &example("controls.json"),
    ]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("case     okf-example/borrow-books"), "{text}");
    assert!(text.contains("controls: 4 passed, 0 failed"), "{text}");
    assert!(text.trim_end().ends_with("status: passed"));
}

#[test]
fn eval_json_of_the_dwp_case_and_controls_passes_and_matches_the_receipt() {
    let out = okf(&[
        "eval",
        "--index",
        &shared("dwp/full-dmg/context/assembly-index.json"),
        "--case",
        &shared("dwp/evaluation/context-assembly/imprisonment-case.json"),
        "--controls",
        &shared("dwp/evaluation/context-assembly/imprisonment-controls.json"),
        "--json",
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["status"], "passed");
    assert_eq!(
        report["case"]["id"],
        "dwp/imprisonment-four-benefit-comparison"
    );
    assert_eq!(report["case"]["status"], "passed");
    for letter in ["A", "B", "C", "D", "E", "F", "G", "H"] {
        assert_eq!(
            report["case"]["stages"][letter]["status"], "passed",
            "{letter}"
        );
    }
    let receipt = read_json(&shared(
        "dwp/evaluation/context-assembly/imprisonment-controls-execution.json",
    ));
    let theirs = receipt["execution"]["controls"].as_array().unwrap();
    let ours = report["controls"].as_array().unwrap();
    assert_eq!(ours.len(), theirs.len());
    for (a, b) in ours.iter().zip(theirs) {
        assert_eq!(
            (&a["id"], &a["status"], &a["evidence_status"]),
            (&b["id"], &b["status"], &b["evidence_status"])
        );
        assert!(a["context_id"].as_str().unwrap().starts_with("urn:sha256:"));
    }
}

#[test]
fn eval_of_the_hospital_case_passes_as_insufficient() {
    let out = okf(&[
        "eval",
        "--index",
        &shared("dwp/full-dmg/context/assembly-index.json"),
        "--case",
        &shared("dwp/evaluation/remote-mcp/hospital-case.json"),
        "--json",
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["case"]["evidence_status"], "insufficient");
    assert_eq!(report["controls"], json!([]));
}

#[test]
fn a_failed_expectation_exits_1_and_names_the_check() {
    let mut case = read_json(&example("case.json"));
    case["expected"]["evidence_status"] = json!("conflicting");
    let file = temp("failing-case.json", &case);
    let out = okf(&[
        "eval",
        "--index",
        &example("index.json"),
        "--case",
        file.to_str().unwrap(),
    ]);
    assert_eq!(code(&out), 1);
    assert!(
        stdout(&out).contains("[H] evidence-status"),
        "{}",
        stdout(&out)
    );
    assert!(
        stderr(&out).contains("evaluation failed"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_failed_control_exits_1() {
    let mut controls = read_json(&example("controls.json"));
    controls["controls"][0]["expected"]["evidence_status"] = json!(["sufficient"]);
    let file = temp("failing-controls.json", &controls);
    let out = okf(&[
        "eval",
        "--index",
        &example("index.json"),
        "--case",
        &example("case.json"),
        "--controls",
        file.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(code(&out), 1);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["status"], "failed");
    assert_eq!(report["case"]["status"], "passed");
    assert_eq!(report["controls"][0]["status"], "failed");
}

#[test]
fn a_malformed_case_exits_2_naming_the_json_path() {
    let mut case = read_json(&example("case.json"));
    case["expected"]["sources"][0]["literal_sha256"] = json!("not-a-digest");
    let file = temp("malformed-case.json", &case);
    let out = okf(&[
        "eval",
        "--index",
        &example("index.json"),
        "--case",
        file.to_str().unwrap(),
    ]);
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("expected.sources[0].literal_sha256"),
        "{}",
        stderr(&out)
    );
    assert!(out.stdout.is_empty());
}

#[test]
fn an_unknown_mutation_op_exits_2() {
    let mut controls = read_json(&example("controls.json"));
    controls["controls"][0]["mutations"][0]["op"] = json!("rename_record");
    let file = temp("unknown-op.json", &controls);
    let out = okf(&[
        "eval",
        "--index",
        &example("index.json"),
        "--case",
        &example("case.json"),
        "--controls",
        file.to_str().unwrap(),
    ]);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("rename_record"), "{}", stderr(&out));
}

#[test]
fn a_mutation_naming_an_unknown_record_exits_2() {
    let mut controls = read_json(&example("controls.json"));
    controls["controls"][0]["mutations"][0]["record_id"] =
        json!("https://example.org/okf-example/evidence/none");
    let file = temp("unknown-record.json", &controls);
    let out = okf(&[
        "eval",
        "--index",
        &example("index.json"),
        "--case",
        &example("case.json"),
        "--controls",
        file.to_str().unwrap(),
    ]);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("evidence/none"), "{}", stderr(&out));
}

#[test]
fn an_out_of_range_budget_or_a_missing_file_exits_2() {
    let out = okf(&[
        "eval",
        "--index",
        &example("index.json"),
        "--case",
        &example("case.json"),
        "--max-bytes",
        "10",
    ]);
    assert_eq!(code(&out), 2);
    let out = okf(&[
        "eval",
        "--index",
        &example("index.json"),
        "--case",
        "/nonexistent/case.json",
    ]);
    assert_eq!(code(&out), 2);
    let out = okf(&["eval", "--index", &example("index.json")]);
    assert_eq!(code(&out), 2, "--case or --self-check is required");
    assert!(
        stderr(&out).contains("--case <CASE>|--self-check"),
        "the message names both ways: {}",
        stderr(&out)
    );
}

#[test]
fn the_case_budget_flags_reach_the_engine() {
    let out = okf(&[
        "eval",
        "--index",
        &example("index.json"),
        "--case",
        &example("case.json"),
        "--max-nodes",
        "2",
        "--json",
    ]);
    assert_eq!(code(&out), 1);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["case"]["budget"]["max_nodes"], 2);
    assert_eq!(report["case"]["evidence_status"], "insufficient");
}

#[test]
fn self_check_of_the_example_passes() {
    let out = okf(&[
        "eval",
        "--index",
        &example("index.json"),
        "--self-check",
        "--json",
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["summary"]["requirements"], 5);
    assert_eq!(report["summary"]["mutants"], 7);
    assert_eq!(report["summary"]["not_fail_closed"], json!([]));
}

#[test]
fn self_check_reports_a_requirement_that_is_not_fail_closed_with_exit_1() {
    let mut index = read_json(&example("index.json"));
    let borrowing = "https://example.org/okf-example/concept/borrowing";
    index["requirements"][0]["required"]
        .as_array_mut()
        .unwrap()
        .push(json!(borrowing));
    let file = temp("open-requirement.json", &index);
    let out = okf(&["eval", "--index", file.to_str().unwrap(), "--self-check"]);
    assert_eq!(code(&out), 1);
    assert!(stdout(&out).contains("NOT fail-closed"), "{}", stdout(&out));
}

#[test]
fn lint_of_the_example_has_warnings_only_and_exits_0() {
    let out = okf(&["lint", "--index", &example("index.json"), "--json"]);
    assert_eq!(code(&out), 0);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["summary"]["error"], 0);
    assert_eq!(report["summary"]["warning"], 2);
    assert_eq!(report["summary"]["info"], 1);
    assert_eq!(report["findings"][0]["kind"], "shared-alias");
    let table = okf(&["lint", "--index", &example("index.json")]);
    assert!(
        stdout(&table).ends_with("0 errors, 2 warnings, 1 info\n"),
        "{}",
        stdout(&table)
    );
}

#[test]
fn lint_of_a_broken_index_exits_1() {
    let mut index = read_json(&example("index.json"));
    index["assertions"][0]["target"] = json!("https://example.org/okf-example/evidence/none");
    let file = temp("broken-index.json", &index);
    let out = okf(&["lint", "--index", file.to_str().unwrap()]);
    assert_eq!(code(&out), 1);
    assert!(
        stdout(&out).contains("dangling-assertion-endpoint"),
        "{}",
        stdout(&out)
    );
    assert!(
        stderr(&out).contains("lint found 1 error"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn lint_of_the_dwp_index_is_clean() {
    let out = okf(&[
        "lint",
        "--index",
        &shared("dwp/full-dmg/context/assembly-index.json"),
    ]);
    assert_eq!(code(&out), 0);
    assert!(
        stdout(&out).contains("0 errors, 0 warnings, 0 infos"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn lint_of_an_invalid_index_exits_2() {
    let file = temp("not-an-index.json", &json!({"schema": "something-else"}));
    let out = okf(&["lint", "--index", file.to_str().unwrap()]);
    assert_eq!(code(&out), 2);
}

/// A change made to a copy of a case.
type Mutation = fn(&mut Value);

/// Every case the project holds and the DWP cases, and broken copies of one: the published
/// schema (schemas/evaluation-case.schema.json) and the reader `okf eval` uses agree on each.
#[test]
fn the_evaluation_case_schema_agrees_with_the_case_reader() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let text = std::fs::read_to_string(root.join("schemas/evaluation-case.schema.json")).unwrap();
    let schema = jsonschema::validator_for(&serde_json::from_str(&text).unwrap()).unwrap();
    let mut files = vec![
        example("case.json"),
        shared("dwp/evaluation/context-assembly/imprisonment-case.json"),
        shared("dwp/evaluation/remote-mcp/hospital-case.json"),
    ];
    let mut dirs = vec![root.join("profiles/dwp-hospital/eval")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "json") {
                // Controls files live beside the cases; only cases say this schema.
                let value: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
                if value["schema"] == okf_eval::case::CASE_SCHEMA {
                    files.push(path.to_string_lossy().into_owned());
                }
            }
        }
    }
    assert!(files.len() >= 10, "{files:?}");
    for file in &files {
        let bytes = std::fs::read(file).unwrap();
        let value: Value = serde_json::from_slice(&bytes).unwrap();
        let errors: Vec<String> = schema.iter_errors(&value).map(|e| e.to_string()).collect();
        assert!(errors.is_empty(), "{file}: {errors:?}");
        okf_eval::Case::from_slice(&bytes).unwrap_or_else(|e| panic!("{file}: {e}"));
    }
    let base = read_json(&shared(
        "dwp/evaluation/context-assembly/imprisonment-case.json",
    ));
    let broken: [(&str, Mutation); 8] = [
        ("another schema", |c| c["schema"] = json!("x")),
        ("an extra key", |c| c["notes"] = json!("x")),
        ("an empty id", |c| c["id"] = json!("")),
        ("an unknown status", |c| {
            c["expected"]["evidence_status"] = json!("maybe")
        }),
        ("no forbidden_records", |c| {
            c["expected"]
                .as_object_mut()
                .unwrap()
                .remove("forbidden_records");
        }),
        ("a short digest", |c| {
            c["expected"]["sources"][0]["literal_sha256"] = json!("abc");
        }),
        ("an unknown boundary member", |c| {
            c["expected"]["boundaries"][0]["label"] = json!("x");
        }),
        ("a null list", |c| {
            c["expected"]["unresolved_terms"] = Value::Null
        }),
    ];
    for (label, mutate) in broken {
        let mut case = base.clone();
        mutate(&mut case);
        assert!(!schema.is_valid(&case), "the schema accepts {label}");
        assert!(
            okf_eval::Case::from_slice(&serde_json::to_vec(&case).unwrap()).is_err(),
            "the reader accepts {label}"
        );
    }
    // Optional members may be absent or null, for both.
    let mut nulls = base.clone();
    nulls["expected"]["budget_truncated"] = Value::Null;
    nulls["expected"]["sources"][0]["url"] = Value::Null;
    assert!(schema.is_valid(&nulls));
    okf_eval::Case::from_slice(&serde_json::to_vec(&nulls).unwrap()).unwrap();
}
