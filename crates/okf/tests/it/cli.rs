//! The `okf` command line, run as a real process.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use crate::common::{example, okf, shared, stderr, stdout, temp_dir};
use serde_json::Value;
use std::path::PathBuf;

fn temp(name: &str) -> PathBuf {
    temp_dir("cli").join(name)
}

fn example_questions() -> Vec<Value> {
    let text = include_str!("../../example/questions.json");
    serde_json::from_str::<Value>(text)
        .unwrap()
        .as_array()
        .unwrap()
        .clone()
}

#[test]
fn ask_on_embedded_example_prints_canonical_package_for_each_demo_question() {
    for q in example_questions() {
        let question = q["question"].as_str().unwrap();
        let out = okf(&["ask", question]);
        assert!(
            out.status.success(),
            "{question}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = stdout(&out);
        let json = text.strip_suffix('\n').unwrap();
        let package: Value = serde_json::from_str(json).unwrap();
        assert_eq!(
            package["evidence_status"], q["expected_status"],
            "{question}"
        );
        assert_eq!(package["ai_answer"], Value::Null);
        assert_eq!(
            okf_engine::canonical::to_canonical_string(&package).unwrap(),
            json,
            "output is canonical"
        );
        assert_eq!(
            package["budget"]["used_bytes"].as_u64().unwrap(),
            json.len() as u64
        );
        if let Some(terms) = q.get("expected_unresolved_terms") {
            assert_eq!(&package["unresolved_terms"], terms);
        }
        if let Some(phrase) = q.get("expected_ambiguous_phrase") {
            assert_eq!(&package["ambiguities"][0]["phrase"], phrase);
            assert_eq!(package["resolved_concepts"], Value::Array(Vec::new()));
        }
    }
}

#[test]
fn two_processes_print_identical_bytes() {
    // Each process gets fresh hash seeds, so equal output shows order never depends on them.
    let a = okf(&["ask", "How do I borrow books?"]);
    let b = okf(&["ask", "How do I borrow books?"]);
    assert!(a.status.success());
    assert_eq!(a.stdout, b.stdout);
}

#[test]
fn pretty_output_has_the_same_identity() {
    let compact = okf(&["ask", "What are the opening hours?"]);
    let pretty = okf(&["ask", "--pretty", "What are the opening hours?"]);
    let a: Value = serde_json::from_slice(&compact.stdout).unwrap();
    let b: Value = serde_json::from_slice(&pretty.stdout).unwrap();
    assert_eq!(a, b);
    assert!(stdout(&pretty).contains("\n  \""));
}

#[test]
fn insufficient_result_still_exits_zero() {
    let out = okf(&["ask", "Explain teleportation"]);
    assert!(out.status.success());
    let package: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(package["evidence_status"], "insufficient");
    assert_eq!(package["unresolved_terms"][0], "teleportation");
}

#[test]
fn invalid_budget_and_blank_question_are_refused_with_exit_2() {
    let out = okf(&["ask", "--max-bytes", "42", "How do I borrow books?"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("max_bytes"));
    let out = okf(&["ask", "   "]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("question"));
    let out = okf(&["ask", "--binding-url", "https://example.org/x.json", "q"]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "binding url without sha is a usage error"
    );
}

#[test]
fn invalid_index_names_the_json_path_and_rule() {
    let mut index: Value = serde_json::from_str(include_str!("../../example/index.json")).unwrap();
    index["records"][2]["route"] = Value::String("../escape".into());
    let path = temp("bad-route.json");
    std::fs::write(&path, serde_json::to_string(&index).unwrap()).unwrap();
    let out = okf(&[
        "ask",
        "--index",
        path.to_str().unwrap(),
        "How do I borrow books?",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("records[2].route"), "{err}");
    assert!(
        out.stdout.is_empty(),
        "nothing is printed for a rejected index"
    );

    index["records"][2]["route"] = Value::String("evidence/ok".into());
    index["records"][2]["colour"] = Value::String("blue".into());
    std::fs::write(&path, serde_json::to_string(&index).unwrap()).unwrap();
    let out = okf(&[
        "ask",
        "--index",
        path.to_str().unwrap(),
        "How do I borrow books?",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("records[2]") && err.contains("colour"),
        "{err}"
    );
}

#[test]
fn verify_accepts_reference_and_own_packages_and_rejects_a_changed_byte() {
    for rel in [
        "dwp/reference/imprisonment-package.json",
        "dwp/reference/hospital-package.json",
    ] {
        let out = okf(&["verify", &shared(rel)]);
        assert!(
            out.status.success(),
            "{rel}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let out = okf(&["verify", &shared("dwp/reference/imprisonment-package.json")]);
    let text = stdout(&out);
    assert!(
        text.contains(
            "urn:sha256:283cddceca09958b96949527280ea14775de5f26d092c939cacfaa545500e80e"
        )
    );
    assert!(text.contains("used_bytes 487506"));

    let original =
        std::fs::read_to_string(shared("dwp/reference/imprisonment-package.json")).unwrap();
    let marker = "Entitlement and payability are distinct";
    assert!(original.contains(marker));
    let tampered = original.replacen(marker, "Entitlement and payability are distinkt", 1);
    let path = temp("tampered.json");
    std::fs::write(&path, tampered).unwrap();
    let out = okf(&["verify", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));

    let ours = okf(&["ask", "How do I borrow books?"]);
    let path = temp("ours.json");
    std::fs::write(&path, &ours.stdout).unwrap();
    assert!(okf(&["verify", path.to_str().unwrap()]).status.success());
}

#[test]
fn explain_shows_one_record_with_its_issues() {
    let ours = okf(&["ask", "Explain room booking"]);
    let package: Value = serde_json::from_slice(&ours.stdout).unwrap();
    let path = temp("ambiguous.json");
    std::fs::write(&path, &ours.stdout).unwrap();
    let restricted = package["missing_evidence"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["code"] == "restricted_evidence")
        .map(|i| i["ids"][0].as_str().unwrap().to_owned())
        .expect("the example reaches a restricted note");
    let out = okf(&["explain", path.to_str().unwrap(), "--record", &restricted]);
    assert!(out.status.success());
    let view: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        view["item"],
        Value::Null,
        "restricted records are never selected"
    );
    assert_eq!(view["missing_evidence"][0]["code"], "restricted_evidence");
    assert_eq!(view["context_id"], package["context_id"]);
    let whole = okf(&["explain", path.to_str().unwrap()]);
    assert_eq!(
        serde_json::from_slice::<Value>(&whole.stdout).unwrap(),
        package
    );
}

#[test]
fn bench_json_reports_timings_and_the_context_id() {
    let out = okf(&[
        "bench",
        "--n",
        "5",
        "--warmup",
        "1",
        "--json",
        "How do I borrow books?",
    ]);
    assert!(out.status.success());
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    for key in ["load_us", "n", "min_us", "median_us", "p95_us"] {
        assert!(report[key].is_u64(), "{key}");
    }
    assert!(report["min_us"].as_u64() <= report["median_us"].as_u64());
    assert!(report["median_us"].as_u64() <= report["p95_us"].as_u64());
    let ask: Value =
        serde_json::from_slice(&okf(&["ask", "How do I borrow books?"]).stdout).unwrap();
    assert_eq!(report["context_id"], ask["context_id"]);
}

#[test]
fn dwp_ask_with_explicit_binding_records_that_binding() {
    let out = okf(&[
        "ask",
        "--index",
        &shared("dwp/full-dmg/context/assembly-index.json"),
        "--binding-url",
        "https://example.org/okf/index.json",
        "--binding-sha256",
        "38159445a60d4bcabc23cb2cf728e14cbd0a4b55013276c291356e7a1452ff54",
        "--max-nodes",
        "5",
        "A claimant is imprisoned.",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let package: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        package["binding"]["index_url"],
        "https://example.org/okf/index.json"
    );
    assert_eq!(package["budget"]["max_nodes"], 5);
    assert!(package["selected"].as_array().unwrap().len() <= 5);
}

#[test]
fn okf_build_rebuilds_the_example_bundle_byte_identically() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let dir = std::env::temp_dir().join(format!("okf-build-example-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out_path = dir.join("index.json");
    let profile = root.join("profiles/example");
    let out = okf(&[
        "build",
        profile.to_str().unwrap(),
        "--out",
        out_path.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let built = std::fs::read(&out_path).unwrap();
    assert_eq!(built, std::fs::read(example("index.json")).unwrap());
    // --check agrees, and refuses a file that differs.
    let check = okf(&[
        "build",
        profile.to_str().unwrap(),
        "--out",
        &example("index.json"),
        "--check",
    ]);
    assert!(check.status.success(), "{}", stderr(&check));
    std::fs::write(&out_path, b"{}\n").unwrap();
    let check = okf(&[
        "build",
        profile.to_str().unwrap(),
        "--out",
        out_path.to_str().unwrap(),
        "--check",
    ]);
    assert_eq!(check.status.code(), Some(1));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn okf_build_names_file_line_and_rule_and_writes_nothing() {
    let dir = std::env::temp_dir().join(format!("okf-build-bad-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("sources")).unwrap();
    std::fs::write(
        dir.join("profile.toml"),
        "[index]\nbase = \"https://x.example/\"\nscope = 1\n",
    )
    .unwrap();
    let out_path = dir.join("index.json");
    let out = okf(&[
        "build",
        dir.to_str().unwrap(),
        "--out",
        out_path.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let message = stderr(&out);
    assert!(
        message.contains("profile.toml:3: not a valid profile file"),
        "{message}"
    );
    assert!(!out_path.exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_reader_that_stops_early_is_not_an_error() {
    // The DWP package (about 490 KB) is larger than a pipe buffer, so closing the read end
    // after a few bytes makes the writer hit a broken pipe.
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_okf"))
        .args([
            "ask",
            "--index",
            &shared("dwp/full-dmg/context/assembly-index.json"),
            "A claimant is imprisoned.",
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = [0u8; 16];
    std::io::Read::read_exact(child.stdout.as_mut().unwrap(), &mut first).unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert_eq!(&first[..14], b"{\"ai_answer\":n");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
