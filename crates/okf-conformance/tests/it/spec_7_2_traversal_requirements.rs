//! Spec §7.2: traversal, direction, requirements and missing dependencies, on a direct index.
//!
//! Skipped from §7.2: "the fetcher is never called" (there is no fetcher for a direct index;
//! corpus loading is not implemented). Everything else in §7.2 applies and is tested here.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::*;
use serde_json::{Value, json};

#[test]
fn resolves_an_alias_and_follows_dependencies_without_external_retrieval() {
    let ix = study_club();
    let pkg = ask_default(&ix, "Explain Reading circle");
    assert_eq!(status(&pkg), "sufficient");
    assert_eq!(
        selected_ids(&pkg),
        [
            id("concept/reading"),
            id("evidence/reading"),
            id("evidence/library")
        ]
    );
    let library = selection(&pkg, &id("evidence/library"));
    assert_eq!(library["paths"].as_array().unwrap().len(), 1);
    assert_eq!(
        library["paths"][0],
        json!({
            "seed": id("concept/reading"),
            "assertions": [id("assertion/0"), id("assertion/1")],
            "records": [id("concept/reading"), id("evidence/reading"), id("evidence/library")],
        })
    );
    assert_eq!(
        relationship_ids(&pkg),
        [id("assertion/0"), id("assertion/1")]
    );
    for rel in pkg["relationships"].as_array().unwrap() {
        assert_eq!(rel["assertion_status"], "model-derived");
    }
    assert!(pkg["ai_answer"].is_null());
    assert!(pkg.get("retrieval").is_none());
    assert!(pkg.get("routing_guards").is_none());
    assert_eq!(pkg["missing_evidence"], json!([]));
    assert_eq!(pkg["conflicts"], json!([]));
    assert_eq!(pkg["budget"]["omissions"], json!([]));
    assert_eq!(pkg["budget"]["reached_depth"], 2);
    assert_eq!(pkg["budget"]["used_nodes"], 3);
    assert_eq!(pkg["budget"]["used_relationships"], 2);
    assert_eq!(
        requirement_missing(&pkg, &id("requirement/reading")),
        Vec::<String>::new()
    );
    assert_eq!(
        pkg["requirements"][0]["status"],
        "supported-within-declared-scope"
    );
    // Packages copy the bundle and carry the default binding of spec §1.2.
    assert_eq!(pkg["bundle"], ix["bundle"]);
    assert_eq!(pkg["binding"]["index_url"], ix["bundle"]["source_url"]);
    assert_eq!(
        pkg["binding"]["index_sha256"],
        json!(sha(
            &okf_engine::canonical::to_canonical_string(&ix).unwrap()
        ))
    );
    assert!(selected_records_are_whole(&pkg, &ix));
}

#[test]
fn keeps_unknown_facts_and_does_not_transfer_room_properties() {
    let ix = study_club();
    let pkg = ask_default(&ix, "Explain Repair demonstration");
    assert_eq!(status(&pkg), "sufficient");
    let json_text = serde_json::to_string(&pkg).unwrap();
    assert!(json_text.contains(text_of("workshop")));
    assert!(text_of("workshop").starts_with("Accessibility for the Workshop room is not recorded"));
    assert!(json_text.contains("No telephone number"));
    assert!(is_selected(&pkg, &id("evidence/booking")));
    assert!(!is_selected(&pkg, &id("evidence/library")));
    assert!(!json_text.contains("step-free"));
}

#[test]
fn required_ids_are_not_retrieval_seeds() {
    let mut ix = study_club();
    remove(&mut ix, "assertions", &id("assertion/1"));
    let pkg = ask_default(&ix, "Reading circle");
    assert_eq!(status(&pkg), "insufficient");
    assert!(!is_selected(&pkg, &id("evidence/library")));
    assert_eq!(
        requirement_missing(&pkg, &id("requirement/reading")),
        [id("evidence/library")]
    );
    assert_eq!(pkg["requirements"][0]["status"], "insufficient");
    assert_eq!(
        ids_of(&pkg, "missing_evidence", "missing_required_evidence"),
        [vec![id("evidence/library")]]
    );
}

#[test]
fn no_whole_task_sufficiency_from_one_covered_part() {
    let mut ix = study_club();
    remove(&mut ix, "requirements", &id("requirement/repair"));
    let pkg = ask_default(&ix, "Reading circle and Repair demonstration");
    assert_eq!(
        resolved_ids(&pkg),
        [id("concept/reading"), id("concept/repair")]
    );
    assert_eq!(status(&pkg), "insufficient");
    assert_eq!(
        ids_of(&pkg, "missing_evidence", "uncovered_resolved_concept"),
        [vec![id("concept/repair")]]
    );
    // The reading requirement itself is met.
    assert_eq!(
        requirement_missing(&pkg, &id("requirement/reading")),
        Vec::<String>::new()
    );
}

#[test]
fn declared_supporting_concept_coverage_allows_sufficiency() {
    let mut ix = study_club();
    remove(&mut ix, "requirements", &id("requirement/repair"));
    let reading = requirement_mut(&mut ix, &id("requirement/reading"));
    reading["covers"] = json!([id("concept/repair")]);
    for extra in ["evidence/repair", "evidence/workshop", "evidence/booking"] {
        reading["required"]
            .as_array_mut()
            .unwrap()
            .push(json!(id(extra)));
    }
    let pkg = ask_default(&ix, "Reading circle and Repair demonstration");
    assert_eq!(status(&pkg), "sufficient");
    assert!(ids_of(&pkg, "missing_evidence", "uncovered_resolved_concept").is_empty());
    assert_eq!(
        pkg["requirements"][0]["covers"],
        json!([id("concept/repair")])
    );
}

#[test]
fn no_applicable_requirement_means_insufficient() {
    let mut ix = study_club();
    remove(&mut ix, "requirements", &id("requirement/reading"));
    let pkg = ask_default(&ix, "Reading circle");
    assert_eq!(status(&pkg), "insufficient");
    assert_eq!(
        ids_of(&pkg, "missing_evidence", "no_evidence_requirements"),
        [Vec::<String>::new()]
    );
    assert_eq!(
        ids_of(&pkg, "missing_evidence", "uncovered_resolved_concept"),
        [vec![id("concept/reading")]]
    );
    assert_eq!(pkg["requirements"], json!([]));
}

#[test]
fn requirements_need_all_when_all_concepts_and_keep_index_order() {
    let mut ix = study_club();
    requirement_mut(&mut ix, &id("requirement/reading"))["when_all"] =
        json!([id("concept/reading"), id("concept/repair")]);
    let pkg = ask_default(&ix, "Reading circle");
    assert!(pkg["requirements"].as_array().unwrap().is_empty());
    assert_eq!(status(&pkg), "insufficient");

    let pkg = ask_default(&ix, "Repair demonstration and Reading circle");
    let req_ids: Vec<&str> = pkg["requirements"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        req_ids,
        [
            id("requirement/reading").as_str(),
            id("requirement/repair").as_str()
        ]
    );
    assert_eq!(status(&pkg), "sufficient");
}

#[test]
fn blank_scopes_are_reported_at_package_level() {
    let mut ix = study_club();
    requirement_mut(&mut ix, &id("requirement/reading"))["scope"] = json!("  ");
    let pkg = ask_default(&ix, "Reading circle");
    assert_eq!(
        ids_of(&pkg, "missing_evidence", "missing_scope"),
        [Vec::<String>::new()]
    );
    assert_eq!(status(&pkg), "insufficient");

    let mut ix = study_club();
    ix["scope"] = json!("");
    let pkg = ask_default(&ix, "Reading circle");
    assert_eq!(
        ids_of(&pkg, "missing_evidence", "missing_scope"),
        [Vec::<String>::new()]
    );
    assert_eq!(status(&pkg), "insufficient");
}

/// The reading requirement declares the path `concept/reading → concept/repair` through
/// `assertion/routing`.
fn routing_fixture(edge: Option<(&str, &str)>) -> Value {
    let mut ix = study_club();
    if let Some((from, to)) = edge {
        push(
            &mut ix,
            "assertions",
            extra_assertion(&id("assertion/routing"), &id(from), &id(to)),
        );
    }
    requirement_mut(&mut ix, &id("requirement/reading"))["required_paths"] = json!([{
        "seed": id("concept/reading"),
        "assertions": [id("assertion/routing")],
        "records": [id("concept/reading"), id("concept/repair")],
    }]);
    ix
}

#[test]
fn directed_required_paths_must_be_held_in_their_declared_direction() {
    let declared = routing_fixture(Some(("concept/reading", "concept/repair")));
    let pkg = ask_default(&declared, "Reading circle");
    assert_eq!(status(&pkg), "sufficient");
    assert!(relationship_ids(&pkg).contains(&id("assertion/routing")));
    assert!(is_selected(&pkg, &id("concept/repair")));
    assert_eq!(
        pkg["requirements"][0]["required_paths"],
        declared["requirements"][0]["required_paths"]
    );

    let reversed = routing_fixture(Some(("concept/repair", "concept/reading")));
    let pkg = ask_default(&reversed, "Reading circle");
    assert_eq!(status(&pkg), "insufficient");
    let missing = requirement_missing(&pkg, &id("requirement/reading"));
    assert!(missing.contains(&id("assertion/routing")), "{missing:?}");
    assert!(missing.contains(&id("concept/repair")), "{missing:?}");

    let removed = routing_fixture(None);
    let pkg = ask_default(&removed, "Reading circle");
    assert_eq!(status(&pkg), "insufficient");
    let missing = requirement_missing(&pkg, &id("requirement/reading"));
    assert!(missing.contains(&id("assertion/routing")), "{missing:?}");
}

#[test]
fn requirement_missing_lists_are_sorted_and_deduplicated() {
    let mut ix = routing_fixture(None);
    let req = requirement_mut(&mut ix, &id("requirement/reading"));
    req["required"] = json!([id("evidence/zzz"), id("concept/repair"), id("evidence/aaa")]);
    let pkg = ask_default(&ix, "Reading circle");
    assert_eq!(
        requirement_missing(&pkg, &id("requirement/reading")),
        [
            id("assertion/routing"),
            id("concept/repair"),
            id("evidence/aaa"),
            id("evidence/zzz"),
        ]
    );
}

#[test]
fn absent_required_records_and_reversed_direction_fail_closed() {
    let mut ix = study_club();
    remove(&mut ix, "records", &id("evidence/library"));
    let pkg = ask_default(&ix, "Reading circle");
    assert_eq!(status(&pkg), "insufficient");
    assert!(
        requirement_missing(&pkg, &id("requirement/reading")).contains(&id("evidence/library"))
    );
    assert_eq!(
        ids_of(&pkg, "missing_evidence", "missing_record"),
        [vec![id("evidence/library")]]
    );
    // The edge is held although its target is absent (W4: kept as the reference does).
    assert!(relationship_ids(&pkg).contains(&id("assertion/1")));

    let mut ix = study_club();
    let edge = assertion_mut(&mut ix, &id("assertion/1"));
    edge["source"] = json!(id("evidence/library"));
    edge["target"] = json!(id("evidence/reading"));
    let pkg = ask_default(&ix, "Reading circle");
    assert_eq!(status(&pkg), "insufficient");
    assert!(!is_selected(&pkg, &id("evidence/library")));
    assert!(
        requirement_missing(&pkg, &id("requirement/reading")).contains(&id("evidence/library"))
    );
}

fn padding(len: usize) -> String {
    let unit = "The Library room is recorded as step-free. ";
    unit.repeat(len / unit.len() + 1)[..len].to_owned()
}

#[test]
fn dependency_is_reported_after_its_edge_is_trimmed() {
    let mut ix = study_club();
    set_text(&mut ix, &id("evidence/library"), &padding(12_000));
    let pkg = ask(&ix, "Reading circle", json!({"max_bytes": 15000}));
    assert!(!allocation_ran(&pkg, &ix));
    assert!(is_selected(&pkg, &id("evidence/reading")));
    assert!(!is_selected(&pkg, &id("evidence/library")));
    for rel in pkg["relationships"].as_array().unwrap() {
        assert_ne!(rel["target"], json!(id("evidence/library")));
    }
    assert_eq!(
        ids_of(&pkg, "missing_evidence", "missing_dependency"),
        [vec![id("evidence/reading"), id("evidence/library")]]
    );
    assert_eq!(
        ids_of(&pkg, "omissions", "byte_budget"),
        [vec![id("evidence/library")]]
    );
    assert!(truncated(&pkg));
    assert_eq!(status(&pkg), "insufficient");
    // W7 (kept): the source of a missing dependency counts as missing as well.
    let missing = requirement_missing(&pkg, &id("requirement/reading"));
    assert_eq!(missing, [id("evidence/library"), id("evidence/reading")]);
}

#[test]
fn no_stale_dependency_after_the_source_is_trimmed() {
    let mut ix = study_club();
    set_text(&mut ix, &id("evidence/reading"), &padding(40_000));
    let pkg = ask(&ix, "Reading circle", json!({"max_bytes": 15000}));
    assert!(!is_selected(&pkg, &id("evidence/reading")));
    assert_eq!(selected_ids(&pkg), [id("concept/reading")]);
    assert_eq!(
        ids_of(&pkg, "missing_evidence", "missing_dependency"),
        [vec![id("concept/reading"), id("evidence/reading")]]
    );
    assert_eq!(status(&pkg), "insufficient");
}

#[test]
fn unselected_dependency_targets_are_reported_from_the_declared_graph() {
    // With max_depth 1 the library edge is never followed, so it is never held; the
    // dependency still surfaces because the declared graph is consulted.
    let ix = study_club();
    let pkg = ask(&ix, "Reading circle", json!({"max_depth": 1}));
    assert!(!relationship_ids(&pkg).contains(&id("assertion/1")));
    assert_eq!(
        ids_of(&pkg, "missing_evidence", "missing_dependency"),
        [vec![id("evidence/reading"), id("evidence/library")]]
    );
    assert_eq!(
        ids_of(&pkg, "omissions", "depth_budget"),
        [vec![id("assertion/1"), id("evidence/library")]]
    );
}

#[test]
fn only_supported_predicates_are_followed_and_only_requires_is_a_dependency() {
    let mut ix = study_club();
    assertion_mut(&mut ix, &id("assertion/1"))["predicate"] = json!(RELATED);
    let pkg = ask(&ix, "Reading circle", json!({"max_depth": 1}));
    assert!(ids_of(&pkg, "missing_evidence", "missing_dependency").is_empty());
    let pkg = ask_default(&ix, "Reading circle");
    assert!(is_selected(&pkg, &id("evidence/library")));
    assert_eq!(status(&pkg), "sufficient");
}

#[test]
fn a_record_reached_twice_keeps_each_new_path_up_to_four() {
    // Five concepts, all resolved by one question, each linking to library: library keeps
    // four paths (one per seed) and reasons without duplicates.
    let mut ix = study_club();
    let mut question = Vec::new();
    for i in 0..5 {
        let name = format!("door-{i}");
        push(
            &mut ix,
            "records",
            extra_concept(&name, &format!("Door{i}"), json!([])),
        );
        push(
            &mut ix,
            "assertions",
            extra_assertion(
                &id(&format!("assertion/{name}")),
                &id(&format!("concept/{name}")),
                &id("evidence/library"),
            ),
        );
        question.push(format!("Door{i}"));
    }
    let pkg = ask_default(&ix, &question.join(" "));
    assert_eq!(resolved_ids(&pkg).len(), 5);
    let library = selection(&pkg, &id("evidence/library"));
    assert_eq!(library["paths"].as_array().unwrap().len(), 4);
    // Ordinary (non-alternative, non-priority) paths beyond four are dropped silently.
    assert!(!codes(&pkg, "omissions").contains(&"alternative_path_budget".to_owned()));
    assert!(!codes(&pkg, "omissions").contains(&"required_path_budget".to_owned()));
    let reasons = strings(&library["reasons"]);
    let mut unique = reasons.clone();
    unique.dedup();
    assert_eq!(reasons, unique);
}
