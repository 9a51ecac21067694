//! Spec §7.7: required-path allocation, the bounded second pass of §3.5.4, on a direct index.
//!
//! Fixture "competing paths": the reading concept has four optional evidence edges
//! `assertion/00-optional-<i>`, which sort first; the declared required route is
//! `concept/reading → evidence/reading → concept/qualification → evidence/library` through
//! `assertion/90-required-0..2`.
//!
//! Skipped from §7.7, because they need features that are not implemented yet:
//! - "Same lexical seeds, resolved-root path reserved" (lexical evidence seeds and the echoed
//!   `retrieval` section);
//! - "no fetch" in the infeasible-union case (no fetcher for a direct index).
//!
//! "The exact baseline is preserved": the reference compares with its retained single-pass
//! engine, which this project does not have. The test instead compares with the same index
//! stripped of `required_paths` (where no second pass can exist): selection, relationships,
//! budget, issues and limitations must be identical whenever no qualifying path was lost.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::*;
use serde_json::{Value, json};

fn optional(i: usize) -> String {
    id(&format!("evidence/optional-{i}"))
}

fn required_edge(i: usize) -> String {
    id(&format!("assertion/90-required-{i}"))
}

fn library() -> String {
    id("evidence/library")
}

fn qualification() -> String {
    id("concept/qualification")
}

fn requirement() -> String {
    id("requirement/reading")
}

fn route() -> [String; 4] {
    [
        id("concept/reading"),
        id("evidence/reading"),
        qualification(),
        library(),
    ]
}

/// The competing-paths fixture; optional records carry `padding` extra characters.
fn competing_paths(padding: usize) -> Value {
    let mut ix = study_club();
    remove(&mut ix, "assertions", &id("assertion/0"));
    remove(&mut ix, "assertions", &id("assertion/1"));
    push(
        &mut ix,
        "records",
        extra_concept("qualification", "Qualification", json!([])),
    );
    for i in 0..4 {
        let text = format!("Optional note {i}. {}", "o".repeat(padding));
        push(
            &mut ix,
            "records",
            extra_evidence(&format!("optional-{i}"), &format!("Optional {i}"), &text),
        );
        push(
            &mut ix,
            "assertions",
            extra_assertion(
                &id(&format!("assertion/00-optional-{i}")),
                &id("concept/reading"),
                &optional(i),
            ),
        );
    }
    let r = route();
    for i in 0..3 {
        push(
            &mut ix,
            "assertions",
            extra_assertion(&required_edge(i), &r[i], &r[i + 1]),
        );
    }
    requirement_mut(&mut ix, &requirement())["required_paths"] = json!([{
        "seed": r[0],
        "assertions": [required_edge(0), required_edge(1), required_edge(2)],
        "records": r,
    }]);
    ix
}

/// Whether the declared route is retained: all records selected and all hops held.
fn path_retained(pkg: &Value) -> bool {
    route().iter().all(|r| is_selected(pkg, r))
        && (0..3).all(|i| relationship_ids(pkg).contains(&required_edge(i)))
}

/// Reasons that carry the budget-priority suffix (it names the requirement id).
fn priority_reasons(pkg: &Value) -> Vec<String> {
    pkg["selected"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| strings(&s["reasons"]))
        .filter(|r| r.contains(&requirement()))
        .collect()
}

fn strip_required_paths(ix: &Value) -> Value {
    let mut stripped = ix.clone();
    for r in stripped["requirements"].as_array_mut().unwrap() {
        r.as_object_mut().unwrap().remove("required_paths");
    }
    stripped
}

#[test]
fn the_declared_route_is_followed_without_pressure() {
    let ix = competing_paths(0);
    let pkg = ask_default(&ix, "Reading circle");
    assert!(path_retained(&pkg));
    assert_eq!(
        selected_ids(&pkg),
        [
            id("concept/reading"),
            optional(0),
            optional(1),
            optional(2),
            optional(3),
            id("evidence/reading"),
            qualification(),
            library(),
        ]
    );
    assert_eq!(status(&pkg), "sufficient");
    assert!(!allocation_ran(&pkg, &ix));
    assert!(priority_reasons(&pkg).is_empty());
}

#[test]
fn the_exact_baseline_is_preserved_when_no_qualifying_path_was_lost() {
    let mut ix = competing_paths(0);
    // A late fan-out edge from the library gives pressure that names no plan record.
    push(
        &mut ix,
        "records",
        extra_evidence("late", "Late", "A late optional note."),
    );
    push(
        &mut ix,
        "assertions",
        extra_assertion(&id("assertion/99-late"), &library(), &id("evidence/late")),
    );
    let cases = [
        ("Reading circle", json!({})),
        ("Reading circle", json!({"max_nodes": 8})),
        ("Reading circle", json!({"max_depth": 2})),
        ("Reading circle", json!({"max_depth": 3})),
        ("Repair demonstration", json!({"max_nodes": 2})),
        (
            "Reading circle and Repair demonstration",
            json!({"max_nodes": 200}),
        ),
        ("Explain teleportation", json!({"max_nodes": 1})),
    ];
    let stripped = strip_required_paths(&ix);
    for (question, budget) in cases {
        let pkg = ask(&ix, question, budget.clone());
        let baseline = ask(&stripped, question, budget.clone());
        assert!(!allocation_ran(&pkg, &ix), "{question} {budget}");
        for field in [
            "selected",
            "relationships",
            "resolved_concepts",
            "ambiguities",
            "unresolved_terms",
            "conflicts",
            "limitations",
        ] {
            assert_eq!(pkg[field], baseline[field], "{question} {budget}: {field}");
        }
        let mut b1 = pkg["budget"].clone();
        let mut b2 = baseline["budget"].clone();
        b1["used_bytes"] = json!(0);
        b2["used_bytes"] = json!(0);
        assert_eq!(b1, b2, "{question} {budget}: budget");
    }
    // max_nodes 8 loses only the late record, which is on no declared path.
    let pkg = ask(&ix, "Reading circle", json!({"max_nodes": 8}));
    assert_eq!(
        ids_of(&pkg, "omissions", "node_budget"),
        [vec![id("evidence/late")]]
    );
    assert!(path_retained(&pkg));
}

#[test]
fn a_three_hop_path_wins_against_fan_out() {
    let ix = competing_paths(0);
    let unconstrained = ask_default(&ix, "Reading circle");
    let ordinary_reason = strings(&selection(&unconstrained, &library())["reasons"])[0].clone();

    for budget in [json!({"max_nodes": 4}), json!({"max_relationships": 3})] {
        let pkg = ask(&ix, "Reading circle", budget.clone());
        assert!(path_retained(&pkg), "{budget}");
        assert!(allocation_ran(&pkg, &ix), "{budget}");

        let reasons = strings(&selection(&pkg, &library())["reasons"]);
        assert_eq!(reasons.len(), 1);
        assert_ne!(reasons[0], ordinary_reason, "priority reasons differ");
        assert!(reasons[0].starts_with(&ordinary_reason), "{}", reasons[0]);
        assert!(reasons[0].contains(&requirement()), "{}", reasons[0]);

        assert_eq!(
            requirement_missing(&pkg, &requirement()),
            Vec::<String>::new()
        );
        assert_eq!(
            pkg["requirements"][0]["status"],
            "supported-within-declared-scope"
        );
        assert!(truncated(&pkg));
        assert_eq!(status(&pkg), "insufficient", "{budget}");
        // Every selected path starts at the resolved root: nothing was injected.
        for sel in pkg["selected"].as_array().unwrap() {
            for p in sel["paths"].as_array().unwrap() {
                assert_eq!(p["seed"], json!(id("concept/reading")));
            }
        }
        assert_eq!(
            ask(&ix, "Reading circle", budget.clone()),
            pkg,
            "deterministic"
        );
    }

    // Under max_nodes 4 the priority route takes all four slots, in route order.
    let pkg = ask(&ix, "Reading circle", json!({"max_nodes": 4}));
    assert_eq!(selected_ids(&pkg), route());
    assert_eq!(
        ids_of(&pkg, "omissions", "node_budget"),
        (0..4).map(|i| vec![optional(i)]).collect::<Vec<_>>()
    );
    // Deferred optional edges are admitted after the route, once priority items are done.
    assert_eq!(
        relationship_ids(&pkg),
        [
            required_edge(0),
            required_edge(1),
            required_edge(2),
            id("assertion/00-optional-0"),
            id("assertion/00-optional-1"),
            id("assertion/00-optional-2"),
            id("assertion/00-optional-3"),
        ]
    );
    // The root and the route records carry the priority suffix; nothing else does.
    assert_eq!(priority_reasons(&pkg).len(), 4);

    let pkg = ask(&ix, "Reading circle", json!({"max_relationships": 3}));
    assert_eq!(
        relationship_ids(&pkg),
        [required_edge(0), required_edge(1), required_edge(2)]
    );
    assert_eq!(
        ids_of(&pkg, "omissions", "relationship_budget"),
        (0..4)
            .map(|i| vec![id(&format!("assertion/00-optional-{i}")), optional(i)])
            .collect::<Vec<_>>()
    );
}

#[test]
fn the_baseline_loses_the_route_under_the_same_budgets() {
    // Without declared paths the same budgets lose the route: the second pass is what keeps it.
    let stripped = strip_required_paths(&competing_paths(0));
    for budget in [json!({"max_nodes": 4}), json!({"max_relationships": 3})] {
        let pkg = ask(&stripped, "Reading circle", budget.clone());
        assert!(!path_retained(&pkg), "{budget}");
        assert!(!allocation_ran(&pkg, &stripped));
    }
}

#[test]
fn optional_branches_are_evicted_before_required_evidence() {
    let ix = competing_paths(5000);
    let pkg = ask(&ix, "Reading circle", json!({"max_bytes": 24000}));
    assert!(path_retained(&pkg));
    assert!(allocation_ran(&pkg, &ix));
    assert!(selected_records_are_whole(&pkg, &ix));
    assert!(pkg["budget"]["used_bytes"].as_u64().unwrap() <= 24000);
    let dropped = ids_of(&pkg, "omissions", "byte_budget");
    assert!(!dropped.is_empty());
    for row in &dropped {
        assert!(row[0].starts_with(&id("evidence/optional-")), "{row:?}");
    }
    assert_eq!(
        requirement_missing(&pkg, &requirement()),
        Vec::<String>::new()
    );

    // The baseline alone drops the route's last records first.
    let baseline = ask(
        &strip_required_paths(&ix),
        "Reading circle",
        json!({"max_bytes": 24000}),
    );
    assert!(!path_retained(&baseline));
}

fn ineligible_cases() -> Vec<(&'static str, Value)> {
    let mut cases = Vec::new();

    let mut ix = competing_paths(0);
    remove(&mut ix, "assertions", &required_edge(1));
    cases.push(("missing edge", ix));

    let mut ix = competing_paths(0);
    let e = assertion_mut(&mut ix, &required_edge(1));
    e["source"] = json!(qualification());
    e["target"] = json!(id("evidence/reading"));
    cases.push(("reversed edge", ix));

    let mut ix = competing_paths(0);
    assertion_mut(&mut ix, &required_edge(0))["source"] = json!(id("concept/repair"));
    let req = requirement_mut(&mut ix, &requirement());
    req["required_paths"][0]["seed"] = json!(id("concept/repair"));
    req["required_paths"][0]["records"][0] = json!(id("concept/repair"));
    cases.push(("wrong root", ix));

    let mut ix = competing_paths(0);
    set_text(&mut ix, &library(), "PRIVATE LEAF");
    record_mut(&mut ix, &library())["access"] = json!("restricted");
    cases.push(("restricted leaf", ix));

    let mut ix = competing_paths(0);
    set_text_unsigned(&mut ix, &library(), "Changed library text.");
    cases.push(("digest", ix));

    let mut ix = competing_paths(0);
    record_mut(&mut ix, &library())["authority"]["class"] = json!("unclassified");
    cases.push(("authority", ix));

    let mut ix = competing_paths(0);
    record_mut(&mut ix, &library())["scope"] = json!(" ");
    cases.push(("scope", ix));

    let mut ix = competing_paths(0);
    record_mut(&mut ix, &library())["rights"] = json!("");
    cases.push(("rights", ix));

    let mut ix = competing_paths(0);
    assertion_mut(&mut ix, &required_edge(2))["predicate"] = json!("https://evil.example/execute");
    cases.push(("unsupported predicate", ix));

    let mut ix = competing_paths(0);
    assertion_mut(&mut ix, &required_edge(1))["scope"] = json!("");
    cases.push(("ungoverned edge", ix));

    cases
}

#[test]
fn an_endpoint_of_an_ineligible_path_is_never_injected() {
    for (case, ix) in ineligible_cases() {
        let pkg = ask(&ix, "Reading circle", json!({"max_nodes": 4}));
        assert!(!allocation_ran(&pkg, &ix), "{case}");
        assert!(priority_reasons(&pkg).is_empty(), "{case}");
        assert!(!is_selected(&pkg, &library()), "{case}");
        assert_eq!(status(&pkg), "insufficient", "{case}");
        assert!(
            !serde_json::to_string(&pkg)
                .unwrap()
                .contains("PRIVATE LEAF"),
            "{case}"
        );
        assert!(
            requirement_missing(&pkg, &requirement()).contains(&library()),
            "{case}"
        );
    }
}

#[test]
fn the_depth_limit_is_never_overridden() {
    let ix = competing_paths(0);
    let pkg = ask(
        &ix,
        "Reading circle",
        json!({"max_nodes": 4, "max_depth": 2}),
    );
    assert!(!allocation_ran(&pkg, &ix));
    assert!(!is_selected(&pkg, &library()));
    assert_eq!(status(&pkg), "insufficient");
}

#[test]
fn alternatives_never_activate_allocation() {
    let mut ix = competing_paths(0);
    push(
        &mut ix,
        "records",
        extra_concept("reading-twin", "Reading circle", json!([])),
    );
    let pkg = ask(&ix, "Reading circle", json!({"max_nodes": 4}));
    assert_eq!(pkg["ambiguities"].as_array().unwrap().len(), 1);
    assert!(resolved_ids(&pkg).is_empty());
    assert_eq!(pkg["requirements"], json!([]));
    assert!(!allocation_ran(&pkg, &ix));
    assert!(priority_reasons(&pkg).is_empty());
    assert_eq!(status(&pkg), "insufficient");
}

#[test]
fn an_infeasible_required_union_fails_closed_and_is_never_sliced() {
    let mut ix = competing_paths(0);
    set_text(
        &mut ix,
        &library(),
        &"The Library room is recorded as step-free. ".repeat(860),
    );
    assert!(text_len(&ix, &library()) > 36_000);
    let pkg = ask(&ix, "Reading circle", json!({"max_bytes": 15000}));
    assert_eq!(status(&pkg), "insufficient");
    assert!(!is_selected(&pkg, &library()));
    assert!(requirement_missing(&pkg, &requirement()).contains(&library()));
    assert!(truncated(&pkg));
    assert!(selected_records_are_whole(&pkg, &ix));
    assert!(!serde_json::to_string(&pkg).unwrap().contains("step-free"));
}

fn text_len(ix: &Value, record_id: &str) -> usize {
    index_record(ix, record_id)["text"].as_str().unwrap().len()
}

#[test]
fn a_fifth_required_path_into_a_full_record_is_reported() {
    // Five declared routes into the library, each from its own resolved root; the library
    // keeps four paths and the fifth priority item is reported as `required_path_budget`.
    let mut ix = study_club();
    let mut paths = Vec::new();
    let mut when_all = Vec::new();
    let mut question = Vec::new();
    for i in 0..5 {
        let name = format!("root-{i}");
        push(
            &mut ix,
            "records",
            extra_concept(&name, &format!("Root{i}"), json!([])),
        );
        let edge = id(&format!("assertion/root-{i}"));
        push(
            &mut ix,
            "assertions",
            extra_assertion(&edge, &id(&format!("concept/{name}")), &library()),
        );
        paths.push(json!({
            "seed": id(&format!("concept/{name}")),
            "assertions": [edge],
            "records": [id(&format!("concept/{name}")), library()],
        }));
        when_all.push(json!(id(&format!("concept/{name}"))));
        question.push(format!("Root{i}"));
    }
    // A competing record that takes the last node slot in the baseline.
    push(
        &mut ix,
        "records",
        extra_concept("aardvark", "Aardvark", json!([])),
    );
    push(
        &mut ix,
        "assertions",
        extra_assertion(
            &id("assertion/aardvark"),
            &id("concept/aardvark"),
            &id("evidence/workshop"),
        ),
    );
    question.push("Aardvark".to_owned());
    when_all.push(json!(id("concept/aardvark")));
    push(
        &mut ix,
        "requirements",
        json!({
            "id": id("requirement/roots"),
            "label": "Roots",
            "when_all": when_all,
            "required": [library()],
            "required_paths": paths,
            "scope": "Roots scope.",
        }),
    );
    let pkg = ask(&ix, &question.join(" "), json!({"max_nodes": 7}));
    assert!(allocation_ran(&pkg, &ix));
    let leaf = selection(&pkg, &library());
    assert_eq!(leaf["paths"].as_array().unwrap().len(), 4);
    assert_eq!(
        ids_of(&pkg, "omissions", "required_path_budget"),
        [vec![library(), id("concept/root-4")]]
    );
}
