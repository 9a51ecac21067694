//! `okf corpus build`, `okf ask --corpus` and `okf bench --corpus`, run as real
//! processes.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use crate::common::{okf, shared, stderr, stdout, temp_dir};
use serde_json::Value;

#[test]
fn corpus_build_then_ask_answers_the_dwp_question_like_the_index() {
    let dir = temp_dir("corpus-cli").join("dwp");
    let _ = std::fs::remove_dir_all(&dir);
    let index = shared("dwp/full-dmg/context/assembly-index.json");
    let out = okf(&["corpus", "build", &index, "--out", dir.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("35 units"));
    // The output directory is never overwritten.
    let again = okf(&["corpus", "build", &index, "--out", dir.to_str().unwrap()]);
    assert_eq!(again.status.code(), Some(1));
    assert!(stderr(&again).contains("already exists"));

    let reference: Value = serde_json::from_str(
        &std::fs::read_to_string(shared("dwp/reference/imprisonment-package.json")).unwrap(),
    )
    .unwrap();
    let question = reference["question"].as_str().unwrap();
    let url = reference["binding"]["index_url"].as_str().unwrap();
    let sha = reference["binding"]["index_sha256"].as_str().unwrap();
    let manifest = dir.join("manifest.json");
    let ask = |source: &[&str]| -> Value {
        let mut args = vec!["ask"];
        args.extend_from_slice(source);
        args.extend_from_slice(&["--binding-url", url, "--binding-sha256", sha, question]);
        let out = okf(&args);
        assert!(out.status.success(), "{}", stderr(&out));
        serde_json::from_str(stdout(&out).trim_end()).unwrap()
    };
    let corpus = ask(&["--corpus", manifest.to_str().unwrap()]);
    let direct = ask(&["--index", &index]);
    assert_eq!(corpus["evidence_status"], "sufficient");
    assert_eq!(corpus["evidence_status"], direct["evidence_status"]);
    assert_eq!(corpus["requirements"], direct["requirements"]);
    assert_eq!(corpus["binding"], direct["binding"]);
    assert_eq!(
        corpus["retrieval"]["method"],
        "source-bound-discovery-bm25.v1"
    );

    let bench = okf(&[
        "bench",
        "--corpus",
        manifest.to_str().unwrap(),
        "--n",
        "2",
        "--warmup",
        "0",
        "--json",
        question,
    ]);
    assert!(bench.status.success(), "{}", stderr(&bench));
    let report: Value = serde_json::from_str(stdout(&bench).trim_end()).unwrap();
    assert_eq!(report["units"], 35);
    assert!(report["files_read"].as_u64().unwrap() <= 64);
    // The cold figures of BENCHMARKS.md: first open within the first cold question, and the
    // medians over fresh opens.
    let micros = |k: &str| {
        report[k]
            .as_u64()
            .unwrap_or_else(|| panic!("{k}: {report}"))
    };
    assert!(micros("first_open_us") <= micros("cold_us"));
    micros("cold_open_median_us");
    micros("cold_question_median_us");
}

#[test]
fn ask_corpus_reports_a_tampered_shard_and_exits_2() {
    let dir = temp_dir("corpus-cli").join("tampered");
    let _ = std::fs::remove_dir_all(&dir);
    let index = shared("dwp/full-dmg/context/assembly-index.json");
    assert!(
        okf(&["corpus", "build", &index, "--out", dir.to_str().unwrap()])
            .status
            .success()
    );
    let unit = dir.join("units/00000.json");
    let mut bytes = std::fs::read(&unit).unwrap();
    bytes[10] ^= 1;
    std::fs::write(&unit, bytes).unwrap();
    let out = okf(&[
        "ask",
        "--corpus",
        dir.join("manifest.json").to_str().unwrap(),
        "imprisonment",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("units/00000.json: integrity check failed"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn ask_corpus_refuses_a_shard_symlinked_outside_the_corpus_directory() {
    let root = temp_dir("corpus-cli").join("symlink");
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).unwrap();
    let dir = root.join("corpus");
    let index = shared("dwp/full-dmg/context/assembly-index.json");
    assert!(
        okf(&["corpus", "build", &index, "--out", dir.to_str().unwrap()])
            .status
            .success()
    );
    // Same bytes, but the file lives outside the corpus directory.
    let unit = dir.join("units/00000.json");
    let outside = root.join("outside.json");
    std::fs::rename(&unit, &outside).unwrap();
    std::os::unix::fs::symlink(&outside, &unit).unwrap();
    let out = okf(&[
        "ask",
        "--corpus",
        dir.join("manifest.json").to_str().unwrap(),
        "imprisonment",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("resolves outside the corpus directory"),
        "{}",
        stderr(&out)
    );
}
