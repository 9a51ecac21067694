//! `okf serve` serving evidence workbench directories read-only.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use crate::common::{Server, shared, temp_dir};
use serde_json::Value;

#[test]
fn registry_workbenches_are_listed_and_only_their_listed_files_are_served() {
    let dir = temp_dir("workbench-serve");
    let registry = dir.join("registry.toml");
    let manifest = shared("dwp/evaluation/evidence-workbench/manifest.json");
    std::fs::write(
        &registry,
        format!("[[workbench]]\nid = \"dwp-staff\"\nmanifest = {manifest:?}\n"),
    )
    .unwrap();
    let server = Server::start(&["--registry", registry.to_str().unwrap()]);
    let list = server.request("GET", "/api/workbenches", &[], b"");
    assert_eq!(list.status, 200);
    let v: Value = serde_json::from_slice(&list.body).unwrap();
    let bytes = std::fs::read(&manifest).unwrap();
    assert_eq!(v["workbenches"][0]["id"], "dwp-staff");
    assert_eq!(v["workbenches"][0]["questions"], 40);
    assert_eq!(
        v["workbenches"][0]["snapshot_id"],
        format!("sha256:{}", okf_engine::canonical::sha256_hex(&bytes))
    );
    let got = server.request("GET", "/workbench/dwp-staff/manifest.json", &[], b"");
    assert_eq!(got.status, 200);
    assert_eq!(got.body, bytes, "the manifest is served byte for byte");
    // Listed but absent: a clear 404 naming the part.
    let part = server.request(
        "GET",
        "/workbench/dwp-staff/parts/staff-001-000.json",
        &[],
        b"",
    );
    assert_eq!(part.status, 404);
    assert!(String::from_utf8_lossy(&part.body).contains("parts/staff-001-000.json"));
    // Nothing outside the manifest's list is reachable.
    for path in [
        "/workbench/dwp-staff/README.md",
        "/workbench/dwp-staff/../README.md",
        "/workbench/dwp-staff/%2e%2e/README.md",
        "/workbench/dwp-staff/parts/..%2fREADME.md",
        "/workbench/other/manifest.json",
    ] {
        let r = server.request("GET", path, &[], b"");
        assert_eq!(r.status, 404, "{path}");
        assert!(
            !String::from_utf8_lossy(&r.body).contains("DWP evidence-workbench manifest"),
            "{path}"
        );
    }
    server.stop();
}
