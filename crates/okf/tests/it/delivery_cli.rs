//! `okf retain`, `okf verify --parts`, `okf catalogue` and `okf read` on the DWP reference
//! packages (engine.md §5.3): parts reassemble exactly, and a corrupted, missing, reordered or
//! oversized part is refused with a message naming it.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use crate::common::{okf, shared, stderr, stdout, temp_dir};
use serde_json::Value;
use std::path::Path;

fn retain(package: &str, out: &Path) {
    let o = okf(&["retain", package, "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
}

fn verify(dir: &Path) -> std::process::Output {
    okf(&["verify", "--parts", dir.to_str().unwrap()])
}

fn list(dir: &Path) -> Vec<Value> {
    serde_json::from_str::<Value>(&std::fs::read_to_string(dir.join("parts.json")).unwrap())
        .unwrap()
        .as_array()
        .unwrap()
        .clone()
}

#[test]
fn retained_reference_packages_reassemble_and_verify() {
    let dir = temp_dir("retain-ok");
    for name in ["imprisonment", "hospital"] {
        let out = dir.join(name);
        retain(&shared(&format!("dwp/reference/{name}-package.json")), &out);
        let parts = list(&out);
        assert!(parts.len() > 10);
        assert!(parts.iter().all(|p| p["bytes"].as_u64().unwrap() <= 32_768));
        let o = verify(&out);
        assert!(o.status.success(), "{}", stderr(&o));
        assert!(stdout(&o).contains("ok"));
    }
    let o = okf(&[
        "retain",
        &shared("dwp/reference/hospital-package.json"),
        "--out",
        dir.join("imprisonment").to_str().unwrap(),
    ]);
    assert!(
        !o.status.success(),
        "a non-empty output directory is refused"
    );
}

#[test]
fn corrupted_missing_reordered_or_oversized_parts_are_refused_by_name() {
    let package = shared("dwp/reference/imprisonment-package.json");
    let fresh = |name: &str| {
        let dir = temp_dir(&format!("retain-{name}")).join("parts");
        retain(&package, &dir);
        dir
    };
    let refused = |dir: &Path, needle: &str| {
        let o = verify(dir);
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
        assert!(stderr(&o).contains(needle), "{needle} in {}", stderr(&o));
    };
    // Corrupted: one byte of a part changed.
    let dir = fresh("corrupt");
    let path = dir.join("part-003.json");
    let mut bytes = std::fs::read(&path).unwrap();
    let at = bytes.len() / 2;
    bytes[at] = if bytes[at] == b'a' { b'b' } else { b'a' };
    std::fs::write(&path, bytes).unwrap();
    refused(&dir, "part-003.json");
    // Missing: the file is gone.
    let dir = fresh("missing");
    std::fs::remove_file(dir.join("part-002.json")).unwrap();
    refused(&dir, "part-002.json");
    // Reordered: the list names two parts in swapped positions (hashes still match files).
    let dir = fresh("reordered");
    let mut parts = list(&dir);
    parts.swap(1, 2);
    std::fs::write(
        dir.join("parts.json"),
        serde_json::to_string(&parts).unwrap(),
    )
    .unwrap();
    refused(&dir, "part-002.json");
    // Oversized: a part file over 32,768 bytes, declared as such.
    let dir = fresh("oversized");
    let path = dir.join("part-000.json");
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str(&" ".repeat(1_000));
    std::fs::write(&path, &text).unwrap();
    let mut parts = list(&dir);
    parts[0]["bytes"] = serde_json::json!(text.len());
    std::fs::write(
        dir.join("parts.json"),
        serde_json::to_string(&parts).unwrap(),
    )
    .unwrap();
    refused(&dir, "part-000.json");
}

#[test]
fn part_urls_follow_the_workbench_part_path_rule() {
    let package = shared("dwp/reference/imprisonment-package.json");
    let fresh = |name: &str| {
        let dir = temp_dir(&format!("retain-url-{name}")).join("parts");
        retain(&package, &dir);
        dir
    };
    let with_url = |dir: &Path, url: &str| {
        let mut parts = list(dir);
        parts[1]["url"] = url.into();
        std::fs::write(
            dir.join("parts.json"),
            serde_json::to_string(&parts).unwrap(),
        )
        .unwrap();
    };
    // Paths that leave the list's folder, or that the workbench rule (spec §1.2) refuses.
    for (i, (url, rule)) in [
        ("../parts/part-001.json", "has a . or .. segment"),
        ("/etc/passwd", "must be relative"),
        ("sub//part-001.json", "has an empty path segment"),
        ("%2e%2e/part-001.json", "encoded dot"),
        ("part-001.json?x", "must not contain ? or #"),
        ("file:part-001.json", "must not name a scheme"),
    ]
    .into_iter()
    .enumerate()
    {
        let dir = fresh(&format!("refused-{i}"));
        with_url(&dir, url);
        let o = verify(&dir);
        assert_eq!(o.status.code(), Some(1), "{url}: {}", stderr(&o));
        assert!(
            stderr(&o).contains(&format!("{url:?}")) && stderr(&o).contains(rule),
            "{url}: {}",
            stderr(&o)
        );
    }
    // A %XX escape names the decoded file, as a workbench serving the parts would read it.
    let dir = fresh("escaped");
    std::fs::rename(dir.join("part-001.json"), dir.join("part 001.json")).unwrap();
    with_url(&dir, "part%20001.json");
    let o = verify(&dir);
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn catalogue_and_read_print_bounded_envelopes() {
    let package = shared("dwp/reference/imprisonment-package.json");
    let o = okf(&["catalogue", &package, "--max-bytes", "8192"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let page: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(page["schema"], "okf-context-manifest.v1");
    assert!(page["delivery"]["used_bytes"].as_u64().unwrap() <= 8192);
    let record = page["records"][0]["id"].as_str().unwrap().to_owned();
    let o = okf(&[
        "read",
        &package,
        "--section",
        "record_text",
        "--record",
        &record,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let slice: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(slice["record_id"], record.as_str());
    let o = okf(&[
        "read",
        &package,
        "--section",
        "record_text",
        "--record",
        "urn:not:selected",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("record_not_selected"), "{}", stderr(&o));
}
