//! Reference vectors from `../shared`: the DWP acceptance packages (spec §0.2 "how the project
//! uses them") and the retained corpus golden vector's identity (spec §4.3).
//!
//! Semantic equality is judged by the shared `compare-packages` tool, the same judge the
//! acceptance criteria name, so these tests need `python3`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use okf_engine::{
    Binding, Budget, ContextIndex, EvidenceStatus, PackageRule, assemble, package_identity,
    verify_package,
};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

fn shared() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared")
}

fn read_json(rel: &str) -> Value {
    let path = shared().join(rel);
    serde_json::from_slice(
        &std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display())),
    )
    .unwrap()
}

const DWP_INDEX: &str = "dwp/full-dmg/context/assembly-index.json";

fn dwp_index() -> &'static ContextIndex {
    static INDEX: OnceLock<ContextIndex> = OnceLock::new();
    INDEX.get_or_init(|| {
        ContextIndex::from_json_slice(&std::fs::read(shared().join(DWP_INDEX)).unwrap()).unwrap()
    })
}

/// Assembles the reference package's question with its recorded binding and returns our JSON.
fn replay(reference_rel: &str) -> (Value, okf_engine::Assembled) {
    let reference = read_json(reference_rel);
    let binding: Binding = serde_json::from_value(reference["binding"].clone()).unwrap();
    let question = reference["question"].as_str().unwrap();
    let ours = assemble(dwp_index(), question, &Budget::default(), Some(&binding)).unwrap();
    (reference, ours)
}

fn compare_with_shared_tool(reference_rel: &str, ours: &str) {
    let dir = std::env::temp_dir().join(format!("okf-conformance-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let actual = dir.join(Path::new(reference_rel).file_name().unwrap());
    std::fs::write(&actual, ours).unwrap();
    let output = Command::new("python3")
        .arg(shared().join("tools/compare-packages"))
        .arg(shared().join(reference_rel))
        .arg(&actual)
        .arg("--index")
        .arg(shared().join(DWP_INDEX))
        .output()
        .expect("python3 runs ../shared/tools/compare-packages");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "compare-packages: {stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(stdout.trim(), "semantically equal");
}

#[test]
fn dwp_imprisonment_question_matches_reference_package() {
    let (reference, ours) = replay("dwp/reference/imprisonment-package.json");
    let package: Value = serde_json::from_str(&ours.json).unwrap();
    assert_eq!(package["evidence_status"], "sufficient");
    assert_eq!(ours.evidence_status, EvidenceStatus::Sufficient);
    assert_eq!(package["selected"].as_array().unwrap().len(), 52);
    assert_eq!(package["relationships"].as_array().unwrap().len(), 127);
    assert_eq!(package["binding"], reference["binding"]);
    compare_with_shared_tool("dwp/reference/imprisonment-package.json", &ours.json);
}

#[test]
fn dwp_hospital_question_matches_reference_package() {
    let (_, ours) = replay("dwp/reference/hospital-package.json");
    let package: Value = serde_json::from_str(&ours.json).unwrap();
    assert_eq!(package["evidence_status"], "insufficient");
    let terms: Vec<&str> = package["unresolved_terms"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    assert_eq!(
        terms,
        [
            "admitted",
            "amount",
            "applicable",
            "changes",
            "dwp",
            "hospital"
        ]
    );
    compare_with_shared_tool("dwp/reference/hospital-package.json", &ours.json);
}

#[test]
fn our_packages_carry_our_engine_id_and_verify() {
    let (_, ours) = replay("dwp/reference/imprisonment-package.json");
    let package: Value = serde_json::from_str(&ours.json).unwrap();
    assert_eq!(package["engine"], okf_engine::ENGINE_ID);
    assert_ne!(package["engine"], "okf-context-assembly.v1");
    assert_eq!(package["ai_answer"], Value::Null);
    let identity = verify_package(&package).unwrap();
    assert_eq!(identity.context_id, ours.context_id);
    assert_eq!(identity.used_bytes, ours.json.len() as u64);
}

#[test]
fn identity_rule_reproduces_reference_dwp_packages() {
    for (rel, id, bytes) in [
        (
            "dwp/reference/imprisonment-package.json",
            "urn:sha256:283cddceca09958b96949527280ea14775de5f26d092c939cacfaa545500e80e",
            487_506,
        ),
        (
            "dwp/reference/hospital-package.json",
            "urn:sha256:8908ea39720333dd8b580efd48c0f3d6d7892d7f64d0ead2a815e3ab3b9770ac",
            444_815,
        ),
    ] {
        let package = read_json(rel);
        assert_eq!(package["context_id"], id, "{rel}");
        let identity = verify_package(&package).unwrap();
        assert_eq!(identity.context_id, id);
        assert_eq!(identity.used_bytes, bytes);
    }
}

#[test]
fn identity_rule_reproduces_corpus_golden_vector() {
    // Spec §0.2 vector 1: a package retained from the reference engine.
    let package = read_json("okf-explorer/fixtures/context-corpus-v1-74e29.json");
    let identity = package_identity(&package).unwrap();
    assert_eq!(
        identity.context_id,
        "urn:sha256:882681725746912d484617fac927b37096186efa8367c36196c9edf85166d779"
    );
    assert_eq!(identity.used_bytes, 3656);
}

#[test]
fn one_changed_byte_of_record_text_fails_verification() {
    let mut package = read_json("dwp/reference/imprisonment-package.json");
    let text = package["selected"][3]["record"]["text"]
        .as_str()
        .unwrap()
        .to_owned();
    let mut bytes = text.into_bytes();
    bytes[0] = if bytes[0] == b'X' { b'Y' } else { b'X' };
    package["selected"][3]["record"]["text"] = Value::String(String::from_utf8(bytes).unwrap());
    assert!(matches!(
        verify_package(&package),
        Err(okf_engine::Error::Package(
            PackageRule::ContextIdMismatch { .. }
        ))
    ));
}

#[test]
fn dwp_index_default_binding_is_canonical_digest_under_source_url() {
    let index = dwp_index();
    let binding = index.default_binding();
    assert_eq!(binding.index_url, index.document().bundle.source_url);
    let value: Value =
        serde_json::from_slice(&std::fs::read(shared().join(DWP_INDEX)).unwrap()).unwrap();
    let canonical = okf_engine::canonical::to_canonical_string(&value).unwrap();
    assert_eq!(
        binding.index_sha256,
        okf_engine::canonical::sha256_hex(canonical.as_bytes())
    );
    assert_eq!(index.compact_bytes(), canonical.len());
}
