//! Spec §4.2 (descriptors and validators), §4.3 (manifest, loader, model validation) and §5
//! (the reference fixtures as data).
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

mod common;

use common::*;
use okf_workbench::manifest::{admit, check_manifest_url, check_relative_path};
use okf_workbench::package::{source_link, span_text};
use okf_workbench::tools::{TOOLS, descriptors, validate};
use okf_workbench::{WorkbenchError, accounting_of};
use serde_json::{Value, json};

/// One change to a manifest.
type Edit = Box<dyn FnOnce(&mut Value)>;

const FIXTURES: &str = "../../../shared/okf-explorer/profiles/evidence-workbench-tools/v1/fixtures";

#[test]
fn s5_every_reference_fixture_validates_and_satisfies_our_accounting() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(FIXTURES);
    let mut seen = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let v: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert!(
            validate_schema_file("response.schema.json", &v).is_empty(),
            "{}",
            path.display()
        );
        if v["data"]["schema"] == "okf-workbench-view.v1" {
            assert!(
                validate_schema_file("view.schema.json", &v["data"]).is_empty(),
                "{}",
                path.display()
            );
        }
        let (declared, computed) = accounting_of(&v);
        assert_eq!(declared, computed, "{}", path.display());
        seen += 1;
    }
    assert_eq!(seen, 5);
}

#[test]
fn s4_2_16_descriptors_are_seven_bounded_and_under_13000_characters() {
    let d = descriptors();
    let list = d.as_array().unwrap();
    let names: Vec<&str> = list.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "okf_get_state",
            "okf_search_evidence",
            "okf_get_evidence",
            "okf_get_relationships",
            "okf_get_view_data",
            "okf_show_view",
            "okf_get_calculation"
        ]
    );
    for t in list {
        let name = t["name"].as_str().unwrap();
        assert!(name.len() <= 30);
        assert!(t["description"].as_str().unwrap().chars().count() <= 500);
        assert_eq!(t["inputSchema"]["additionalProperties"], false);
        assert!(t.get("outputSchema").is_none());
        assert_eq!(t["annotations"]["untrustedContentHint"], true);
        assert_eq!(t["annotations"]["readOnlyHint"], name != "okf_show_view");
        for (_, p) in t["inputSchema"]["properties"].as_object().unwrap() {
            assert!(p["description"].as_str().unwrap().chars().count() <= 150);
        }
    }
    let text = serde_json::to_string(&d).unwrap();
    assert!(
        text.encode_utf16().count() < 13_000,
        "{} characters",
        text.len()
    );
}

#[test]
fn s4_2_17_validators_reject_bad_inputs_and_accept_valid_ones() {
    let t = |name: &str| TOOLS.iter().find(|t| t.name == name).unwrap();
    assert!(validate(t("okf_get_state"), &json!({})).is_ok());
    for bad in [json!(null), json!([]), json!({"hidden": 1})] {
        assert!(validate(t("okf_get_state"), &bad).is_err());
    }
    let rejected = [
        ("okf_search_evidence", json!({"query": "  "})),
        ("okf_search_evidence", json!({"query": "x".repeat(501)})),
        ("okf_search_evidence", json!({"query": "x", "limit": 11})),
        ("okf_get_evidence", json!({"ref": "e-1", "section": "full"})),
        (
            "okf_show_view",
            json!({"expected_revision": -1, "snapshot_id": "s", "case_id": "c"}),
        ),
        (
            "okf_show_view",
            json!({"expected_revision": 0, "snapshot_id": "s"}),
        ),
        ("okf_get_relationships", json!({"depth": 1})),
        (
            "okf_get_calculation",
            json!({"assessment_date": "2026-02-30"}),
        ),
        (
            "okf_search_evidence",
            json!({"query": "x", "max_bytes": 2047}),
        ),
        (
            "okf_search_evidence",
            json!({"query": "x", "max_bytes": 32769}),
        ),
    ];
    for (name, input) in rejected {
        assert!(validate(t(name), &input).is_err(), "{name} {input}");
    }
    let msg = validate(t("okf_search_evidence"), &json!({"query": "x", "extra": 1})).unwrap_err();
    assert!(msg.contains("extra"));
    let msg = validate(t("okf_get_evidence"), &json!({"section": "passage"})).unwrap_err();
    assert!(msg.contains("ref"));
    assert!(validate(t("okf_get_calculation"), &json!({"model_id": "m", "stage_id": "s", "case_id": "c", "section": "inputs", "assessment_date": "2024-02-29"})).is_ok());
}

#[test]
fn s4_3_22_package_paths_stay_inside_the_manifest_directory() {
    assert!(check_relative_path("packages/staff-001.json").is_ok());
    assert!(check_relative_path("parts/a%20b.json").is_ok());
    for bad in [
        "../private.json",
        "packages/%2e%2e/x.json",
        "packages/%2E%2e/x.json",
        "//elsewhere/x.json",
        "https://evil.example/x.json",
        "x.json?token=1",
        "packages\\x.json",
        "a/./b",
        "a//b",
        "a/%zz",
        "/abs.json",
        "a/%2f/b",
        "a/%5C/b",
        "x#y",
        "",
    ] {
        assert!(check_relative_path(bad).is_err(), "{bad}");
    }
    assert!(check_manifest_url("https://club.example/wb/manifest.json").is_ok());
    assert!(check_manifest_url("http://127.0.0.1:8080/wb/manifest.json").is_ok());
    assert!(check_manifest_url("http://localhost/wb/manifest.json").is_ok());
    assert!(check_manifest_url("http://[::1]:9/m.json").is_ok());
    for bad in [
        "javascript:alert(1)",
        "https://user:pw@club.example/m.json",
        "http://club.example/m.json",
        "https://club.example/m.json#x",
    ] {
        assert!(check_manifest_url(bad).is_err(), "{bad}");
    }
}

fn manifest_with(
    edit: impl FnOnce(&mut Value),
) -> Result<okf_workbench::manifest::Manifest, WorkbenchError> {
    let c = club(false, "https://club.example/id/1");
    let mut m: Value = serde_json::from_slice(&c.manifest).unwrap();
    edit(&mut m);
    admit(&serde_json::to_vec(&m).unwrap())
}

fn field_of(r: Result<okf_workbench::manifest::Manifest, WorkbenchError>) -> String {
    match r {
        Err(WorkbenchError::Manifest { field, .. }) => field,
        other => panic!("expected a manifest error, got {other:?}"),
    }
}

#[test]
fn s4_3_23_duplicate_ids_bad_hashes_and_101_questions_are_refused_naming_the_field() {
    assert!(manifest_with(|_| {}).is_ok());
    assert_eq!(
        field_of(manifest_with(|m| m["questions"][1]["id"] = json!("club-01"))),
        "questions[1].id"
    );
    assert_eq!(
        field_of(manifest_with(
            |m| m["questions"][0]["package"]["sha256"] = json!("ABC")
        )),
        "questions[0].package.sha256"
    );
    assert_eq!(
        field_of(manifest_with(|m| {
            let q = m["questions"][0].clone();
            m["questions"] = Value::Array(
                (0..101)
                    .map(|i| {
                        let mut q = q.clone();
                        q["id"] = json!(format!("q-{i}"));
                        q
                    })
                    .collect(),
            );
        })),
        "questions"
    );
    assert_eq!(
        field_of(manifest_with(
            |m| m["questions"][0]["package"]["url"] = json!("../x.json")
        )),
        "questions[0].package.url"
    );
    assert_eq!(
        field_of(manifest_with(
            |m| m["questions"][0]["package"]["url"] = json!("packages\\x.json")
        )),
        "questions[0].package.url"
    );
    assert_eq!(
        field_of(manifest_with(
            |m| m["questions"][0]["package"]["url"] = json!("packages/%2e%2e/x.json")
        )),
        "questions[0].package.url"
    );
    let part = json!({"url": "parts/a-000.json", "sha256": "a".repeat(64), "bytes": 32769});
    assert_eq!(
        field_of(manifest_with(
            |m| m["questions"][0]["package"]["parts"] = json!([part])
        )),
        "questions[0].package.parts[0].bytes"
    );
    assert_eq!(
        field_of(manifest_with(|m| m["schema"] = json!("other"))),
        "schema"
    );
    assert_eq!(
        field_of(manifest_with(|m| m["title"] = json!(" "))),
        "title"
    );
    assert_eq!(
        field_of(manifest_with(
            |m| m["publication"]["captured_at"] = json!("yesterday")
        )),
        "publication.captured_at"
    );
    assert_eq!(
        field_of(manifest_with(|m| m["questions"][0]["id"] = json!("Club"))),
        "questions[0].id"
    );
    assert_eq!(
        field_of(manifest_with(
            |m| m["questions"][0]["scope_gaps"] = json!([""])
        )),
        "questions[0].scope_gaps[0]"
    );
    // Unknown top-level and question fields are tolerated.
    assert!(
        manifest_with(|m| {
            m["source"] = json!({"x": 1});
            m["questions"][0]["extra"] = json!(true);
        })
        .is_ok()
    );
    // Over 256 KiB is refused before parsing.
    assert!(admit(&vec![b' '; 262_145]).is_err());
}

#[test]
fn s4_3_29_to_33_modelling_proposals_are_closed_and_strict() {
    assert!(
        manifest_with(|m| m["calculation_models"][0]["inputs"][0]["required"] = json!(false))
            .is_ok()
    );
    assert!(
        manifest_with(|m| m["calculation_models"][0]["effective_period"] =
            json!({"from": "2024-04-01", "to": "2025-03-31"}))
        .is_ok()
    );
    let refused: Vec<Edit> = vec![
        Box::new(|m| m["calculation_models"][0]["formula"] = json!("x+1")),
        Box::new(|m| m["calculation_models"][0]["renderer"] = json!("<svg>")),
        Box::new(|m| m["calculation_models"][0]["inputs"][0]["expression"] = json!("1")),
        Box::new(|m| m["calculation_models"][0]["stages"][0]["evidence"][0]["code"] = json!("1")),
        Box::new(|m| m["calculation_models"][0]["status"] = json!("executable")),
        Box::new(|m| m["calculation_models"][0]["authority"] = json!("human-reviewed")),
        Box::new(|m| m["calculation_models"][0]["gaps"] = json!([])),
        Box::new(|m| {
            m["calculation_models"][0]["inputs"][0]
                .as_object_mut()
                .unwrap()
                .remove("required");
        }),
        Box::new(|m| m["calculation_models"][0]["case_ids"] = json!(["nope"])),
        Box::new(|m| m["interaction_proposals"][0]["case_id"] = json!("nope")),
        Box::new(|m| m["interaction_proposals"][0]["evidence"] = json!([])),
        Box::new(|m| {
            m["calculation_models"][0]["stages"][0]["evidence"][0]["case_id"] = json!("nope")
        }),
        Box::new(|m| {
            let s = m["calculation_models"][0]["stages"][0].clone();
            m["calculation_models"][0]["stages"][1] = s;
        }),
        Box::new(|m| {
            m["calculation_models"][0]["effective_period"] =
                json!({"from": "2026-02-30", "to": null})
        }),
        Box::new(|m| {
            m["calculation_models"][0]["effective_period"] =
                json!({"from": "2025-01-01", "to": "2024-01-01"})
        }),
    ];
    for (i, edit) in refused.into_iter().enumerate() {
        assert!(manifest_with(edit).is_err(), "case {i} should be refused");
    }
}

#[test]
fn s4_3_25_source_links_and_unit_spans() {
    let r = json!({"provenance": [{"url": "javascript:alert(1)", "locator": "page 1"}, {"url": "https://x.example/manual.pdf", "locator": "page 12"}]});
    assert_eq!(
        source_link(&r).as_deref(),
        Some("https://x.example/manual.pdf#page=12")
    );
    assert_eq!(
        source_link(&json!({"provenance": [{"url": "javascript:alert(1)", "locator": "page 1"}]})),
        None
    );
    assert_eq!(span_text("A £5 limit", 2, 5), Some("£5"));
    assert_eq!(span_text("A £5 limit", 3, 5), None);
}

#[test]
fn s4_3_24_and_28_package_question_and_identity_are_verified_on_load() {
    use okf_workbench::manifest::Case;
    use okf_workbench::package::{check_structure, load_package};
    struct Files(std::collections::BTreeMap<String, Vec<u8>>);
    impl okf_workbench::ports::Loader for Files {
        fn load(
            &self,
            path: &str,
            _cap: usize,
        ) -> Result<Vec<u8>, okf_workbench::ports::LoadFailure> {
            self.0
                .get(path)
                .cloned()
                .ok_or_else(|| format!("{path} not found").into())
        }
    }
    let c = club(false, "https://club.example/id/1");
    let m = admit(&c.manifest).unwrap();
    let case: Case = m.cases[1].clone();
    let files = Files(c.files.clone());
    assert!(load_package(&case, &files).is_ok());
    let mut wrong = case.clone();
    wrong.question = "Another question?".into();
    assert!(
        matches!(load_package(&wrong, &files), Err(WorkbenchError::Package { field, .. }) if field == "question")
    );
    // A matching file hash but a false context_id.
    let mut p: Value = serde_json::from_slice(&c.files["packages/club-02.json"]).unwrap();
    p["context_id"] = json!(format!("urn:sha256:{}", "1".repeat(64)));
    let text = okf_engine::canonical::to_canonical_string(&p).unwrap();
    let mut forged = case.clone();
    forged.package.sha256 = okf_engine::canonical::sha256_hex(text.as_bytes());
    let files = Files([(case.package.url.clone(), text.into_bytes())].into());
    let e = load_package(&forged, &files).unwrap_err();
    assert!(e.to_string().contains("context_id"), "{e}");
    // Structure: a non-array concept.matched and a non-array budget.omissions.
    let mut p: Value = serde_json::from_slice(&c.files["packages/club-02.json"]).unwrap();
    let q = p["question"].as_str().unwrap().to_owned();
    p["resolved_concepts"] = json!([{"label": "x", "matched": "y", "method": "alias"}]);
    assert!(check_structure(&p, &q).is_err());
    p["resolved_concepts"] = json!([]);
    p["budget"]["omissions"] = json!({});
    assert!(check_structure(&p, &q).is_err());
}

#[test]
fn s4_3_26_review_export_is_a_local_unreviewed_proposal_keeping_the_comment() {
    let c = club(false, "https://club.example/id/1");
    let p: Value = serde_json::from_slice(&c.files["packages/club-01.json"]).unwrap();
    let comment = "Check £5 <b>fee</b>\n  verbatim";
    let text = okf_workbench::package::review_export(
        "club-01",
        &p,
        "https://club.example/id/1",
        "needs-review",
        comment,
    );
    assert!(text.ends_with("}\n") && text.contains("\n  \""));
    let v: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["schema"], "okf-evidence-review-proposal.v1");
    assert_eq!(v["proposal"]["comment"], comment);
    assert_eq!(v["authority"], "local-unreviewed-proposal");
    assert_eq!(v["context_id"], p["context_id"]);
}

#[test]
fn every_case_id_field_has_the_manifests_one_limit() {
    // A case id longer than the manifest admits can name no case; every tool that takes one
    // says so with the same limit (the MCP tool over workbenches uses the same constant).
    let limit = okf_workbench::manifest::MAX_CASE_ID_CHARS;
    let mut seen = 0;
    for tool in descriptors().as_array().unwrap() {
        if let Some(case) = tool["inputSchema"]["properties"].get("case_id") {
            assert_eq!(case["maxLength"], limit, "{}", tool["name"]);
            seen += 1;
        }
    }
    assert!(seen >= 2, "{seen} tools take a case_id");
    let tool = TOOLS
        .iter()
        .find(|t| t.fields.iter().any(|f| f.name == "case_id"))
        .unwrap();
    let mut input = json!({"case_id": "q".repeat(limit + 1)});
    for field in tool
        .fields
        .iter()
        .filter(|f| f.required && f.name != "case_id")
    {
        input[field.name] = json!("x");
    }
    let refused = validate(tool, &input);
    assert!(refused.is_err_and(|e| e.contains("case_id")), "{input}");
}
