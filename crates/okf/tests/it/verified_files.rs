//! Only verified bytes are served, and readiness tells the truth: a workbench part rewritten
//! or replaced by a symlink on disk is not served (503 naming the file, never its bytes) and
//! makes the workbench not ready; the manifest served is the one admitted; a reload that
//! cannot admit a new manifest keeps the old one and says so; a corpus shard deleted or
//! tampered makes its corpus not ready in `/ready`, `/health` and `/api/bundles`; a registry
//! with only a corpus or only a workbench can be ready; `/health` and `/ready` apply one rule.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use crate::common::{Server, example, example_workbench_registry, okf, stderr, temp_dir};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn workbench_registry(dir: &Path) -> (PathBuf, PathBuf) {
    example_workbench_registry(
        dir,
        &["How do I borrow books?", "What are the opening hours?"],
    )
}

fn first_part(manifest: &Path) -> String {
    let m: Value = serde_json::from_slice(&std::fs::read(manifest).unwrap()).unwrap();
    m["questions"][0]["package"]["parts"][0]["url"]
        .as_str()
        .unwrap()
        .to_owned()
}

fn ready(server: &Server) -> (u16, Value) {
    let r = server.request("GET", "/ready", &[], b"");
    (r.status, r.json())
}

/// Sends SIGHUP and waits until the reload counter moves.
fn reload(server: &Server) {
    let count = |server: &Server| {
        let text = server.request("GET", "/metrics", &[], b"").text();
        text.lines()
            .filter(|l| l.starts_with("okf_registry_reloads_total"))
            .filter_map(|l| l.rsplit(' ').next()?.parse::<u64>().ok())
            .sum::<u64>()
    };
    let before = count(server);
    server.signal("HUP");
    let started = Instant::now();
    while count(server) == before {
        assert!(started.elapsed() < Duration::from_secs(30), "no reload");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_workbench_part_rewritten_on_disk_is_not_served_and_the_workbench_is_not_ready() {
    let dir = temp_dir("wb-tampered");
    let (registry, manifest) = workbench_registry(&dir);
    let server = Server::start(&["--registry", registry.to_str().unwrap()]);
    assert_eq!(ready(&server).0, 200, "{}", ready(&server).1);
    let part = first_part(&manifest);
    let path = manifest.parent().unwrap().join(&part);
    let good = server.request("GET", &format!("/workbench/wb/{part}"), &[], b"");
    assert_eq!(good.status, 200);
    assert_eq!(good.body, std::fs::read(&path).unwrap());
    // Same length, one byte changed: still JSON, not the bytes the manifest declares.
    let mut bytes = std::fs::read(&path).unwrap();
    let at = bytes.iter().rposition(|&b| b == b'a').unwrap();
    bytes[at] = b'b';
    std::fs::write(&path, &bytes).unwrap();
    let r = server.request("GET", &format!("/workbench/wb/{part}"), &[], b"");
    assert_eq!(r.status, 503);
    assert_eq!(r.json()["error"]["code"], "workbench_file_unverified");
    assert!(r.text().contains(&part), "{}", r.text());
    assert!(
        !r.body
            .windows(bytes.len().min(64))
            .any(|w| w == &bytes[..w.len()])
    );
    let (status, body) = ready(&server);
    assert_eq!(status, 503, "{body}");
    assert_eq!(body["refused"][0]["workbench"], "wb", "{body}");
    assert!(
        body["refused"][0]["reason"]
            .as_str()
            .unwrap()
            .contains(&part)
    );
    let listed = server.request("GET", "/api/workbenches", &[], b"").json();
    assert_eq!(listed["workbenches"][0]["state"], "not_ready", "{listed}");
    let health = server.request("GET", "/health", &[], b"").json();
    assert_eq!(health["workbenches"][0]["ready"], false, "{health}");
    let log = server.stop();
    assert_eq!(
        log.matches("workbench file failed verification").count(),
        1,
        "one log line: {log}"
    );
}

#[cfg(unix)]
#[test]
fn a_workbench_part_replaced_by_a_symlink_out_of_the_directory_is_not_served() {
    let dir = temp_dir("wb-symlink");
    let (registry, manifest) = workbench_registry(&dir);
    let server = Server::start(&["--registry", registry.to_str().unwrap()]);
    let part = first_part(&manifest);
    let path = manifest.parent().unwrap().join(&part);
    std::fs::remove_file(&path).unwrap();
    std::os::unix::fs::symlink("/etc/passwd", &path).unwrap();
    let r = server.request("GET", &format!("/workbench/wb/{part}"), &[], b"");
    assert_eq!(r.status, 503, "{}", r.text());
    assert!(!r.text().contains("root:"), "{}", r.text());
    assert!(r.text().contains(&part));
    server.stop();
}

#[test]
fn the_manifest_served_is_the_one_admitted_and_a_refused_reload_keeps_it() {
    let dir = temp_dir("wb-manifest");
    let (registry, manifest) = workbench_registry(&dir);
    let admitted = std::fs::read(&manifest).unwrap();
    let server = Server::start(&["--registry", registry.to_str().unwrap()]);
    let snapshot =
        server.request("GET", "/api/workbenches", &[], b"").json()["workbenches"][0]["snapshot_id"]
            .clone();
    // Another valid manifest copied over on disk is not served before a reload admits it.
    let mut other: Value = serde_json::from_slice(&admitted).unwrap();
    other["title"] = json!("Copied over");
    std::fs::write(&manifest, other.to_string()).unwrap();
    let served = server.request("GET", "/workbench/wb/manifest.json", &[], b"");
    assert_eq!(served.body, admitted);
    // A garbage manifest on reload: the admitted one keeps serving, and that is said.
    std::fs::write(&manifest, b"{ not a manifest").unwrap();
    reload(&server);
    let served = server.request("GET", "/workbench/wb/manifest.json", &[], b"");
    assert_eq!(served.status, 200);
    assert_eq!(served.body, admitted);
    let listed = server.request("GET", "/api/workbenches", &[], b"").json();
    assert_eq!(listed["workbenches"][0]["snapshot_id"], snapshot);
    assert!(listed["workbenches"][0]["retained"].is_string(), "{listed}");
    let (status, body) = ready(&server);
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["retained"][0]["workbench"], "wb", "{body}");
    let log = server.stop();
    assert!(
        log.contains("workbench manifest refused; the manifest admitted earlier keeps serving"),
        "{log}"
    );
}

/// A corpus built from the example index, and a registry serving only it.
fn corpus_registry(dir: &Path) -> (PathBuf, PathBuf) {
    let out = dir.join("corpus");
    let _ = std::fs::remove_dir_all(&out);
    let built = okf(&[
        "corpus",
        "build",
        &example("index.json"),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(built.status.success(), "{}", stderr(&built));
    let manifest = out.join("manifest.json");
    let sha = okf_engine::canonical::sha256_hex(&std::fs::read(&manifest).unwrap());
    let registry = dir.join("registry.toml");
    std::fs::write(
        &registry,
        format!("[[corpus]]\nid = \"lib\"\nmanifest = {manifest:?}\nsha256 = \"{sha}\"\nindex_url = \"https://example.org/okf-example/corpus.json\"\n"),
    )
    .unwrap();
    (registry, out)
}

fn borrow(server: &Server) -> crate::common::Response {
    server.ask(&json!({"bundle": "lib", "question": "How do I borrow books?"}))
}

#[test]
fn a_registry_with_only_a_corpus_or_only_a_workbench_is_ready() {
    let dir = temp_dir("only-corpus");
    let (registry, _) = corpus_registry(&dir);
    let server = Server::start(&["--registry", registry.to_str().unwrap()]);
    let (status, body) = ready(&server);
    assert_eq!(status, 200, "{body}");
    assert_eq!(borrow(&server).status, 200);
    assert_eq!(
        server.request("GET", "/health", &[], b"").json()["status"],
        "ok"
    );
    server.stop();
    let dir = temp_dir("only-workbench");
    let (registry, _) = workbench_registry(&dir);
    let server = Server::start(&["--registry", registry.to_str().unwrap()]);
    let (status, body) = ready(&server);
    assert_eq!(status, 200, "{body}");
    server.stop();
}

#[test]
fn a_deleted_corpus_shard_makes_ready_503_naming_the_corpus_after_a_reload() {
    let dir = temp_dir("corpus-deleted");
    let (registry, out) = corpus_registry(&dir);
    let server = Server::start(&["--registry", registry.to_str().unwrap()]);
    assert_eq!(ready(&server).0, 200);
    let shard = std::fs::read_dir(out.join("units"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    std::fs::remove_file(&shard).unwrap();
    reload(&server);
    let (status, body) = ready(&server);
    assert_eq!(status, 503, "{body}");
    assert_eq!(body["refused"][0]["corpus"], "lib", "{body}");
    assert!(
        body["refused"][0]["reason"]
            .as_str()
            .unwrap()
            .contains("missing"),
        "{body}"
    );
    let listed = server.request("GET", "/api/bundles", &[], b"").json();
    assert_eq!(listed["corpora"][0]["state"], "refused", "{listed}");
    assert_eq!(
        server.request("GET", "/health", &[], b"").json()["status"],
        "degraded"
    );
    server.stop();
}

#[test]
fn a_tampered_corpus_shard_makes_the_corpus_not_ready_once_a_question_meets_it() {
    let dir = temp_dir("corpus-tampered");
    let (registry, out) = corpus_registry(&dir);
    // Same length, one byte changed, in every unit shard: whatever the question reads.
    for entry in std::fs::read_dir(out.join("units")).unwrap() {
        let path = entry.unwrap().path();
        let mut bytes = std::fs::read(&path).unwrap();
        let at = bytes.iter().rposition(|&b| b == b'e').unwrap();
        bytes[at] = b'f';
        std::fs::write(&path, bytes).unwrap();
    }
    let server = Server::start(&["--registry", registry.to_str().unwrap()]);
    let answer = borrow(&server);
    assert_eq!(answer.status, 503, "{}", answer.text());
    assert_eq!(answer.json()["error"]["code"], "corpus_unavailable");
    let (status, body) = ready(&server);
    assert_eq!(status, 503, "{body}");
    assert_eq!(body["refused"][0]["corpus"], "lib", "{body}");
    let listed = server.request("GET", "/api/bundles", &[], b"").json();
    assert_eq!(listed["corpora"][0]["state"], "not_ready", "{listed}");
    let health = server.request("GET", "/health", &[], b"").json();
    assert_eq!(health["corpora"][0]["ready"], false, "{health}");
    assert_eq!(health["status"], "degraded", "{health}");
    let log = server.stop();
    assert_eq!(
        log.matches("corpus file failed verification").count(),
        1,
        "{log}"
    );
}

#[test]
fn a_refused_non_default_version_makes_health_degraded_as_ready_is_503() {
    let dir = temp_dir("refused-older-version");
    let extra = format!(
        "[[bundle.versions]]\nname = \"older\"\nindex = {:?}\nsha256 = \"{}\"\n",
        crate::common::shared("dwp/full-dmg/context/assembly-index.json"),
        "0".repeat(64)
    );
    let registry = crate::common::dwp_registry(&dir, &extra);
    let server = Server::start(&["--registry", registry.to_str().unwrap()]);
    let (status, body) = ready(&server);
    assert_eq!(status, 503, "{body}");
    assert_eq!(body["refused"][0]["version"], "older", "{body}");
    let health = server.request("GET", "/health", &[], b"").json();
    // The bundle can still be asked without a version: its row says so, the status does not
    // hide the refused version.
    assert_eq!(health["bundles"][0]["ready"], true, "{health}");
    assert_eq!(health["bundles"][0]["versions_refused"], 1, "{health}");
    assert_eq!(health["status"], "degraded", "{health}");
    server.stop();
}
