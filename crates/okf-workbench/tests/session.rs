//! Spec §4.1 (workbench session) and §1.4–§1.11, over the synthetic study club.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

mod common;

use common::*;
use okf_engine::canonical::sha256_hex;
use serde_json::{Value, json};

fn ok(v: &Value) {
    assert!(v.get("error").is_none(), "unexpected error: {v}");
}

#[test]
fn s4_1_1_without_manifest_state_is_not_loaded_and_search_is_not_ready() {
    let host = TestHost {
        files: Default::default(),
        now: 0,
        ids: 0,
        page: Default::default(),
        loads: Default::default(),
    };
    let mut s = okf_workbench::Session::new(host);
    let st = call(&mut s, "okf_get_state", json!({}));
    ok(&st);
    assert_eq!(st["evidence_status"], "not-loaded");
    assert_eq!(st["snapshot_id"], Value::Null);
    assert_eq!(st["data"]["ready"], false);
    let se = call(&mut s, "okf_search_evidence", json!({"query": "club"}));
    assert_eq!(code(&se), "not_ready");
}

#[test]
fn s4_1_1_restricted_record_fails_the_whole_call_and_discloses_nothing() {
    let c = club(true, "https://club.example/id/1");
    let mut s = session(&c);
    let text = s.invoke(
        "okf_search_evidence",
        &json!({"query": "reading", "scope": "evidence", "case_id": "club-01"}),
    );
    let v = checked(&text);
    assert_eq!(code(&v), "restricted_evidence");
    assert!(!text.contains("Study club reading"));
    assert!(v.get("data").is_none());
}

#[test]
fn s4_1_2_evidence_search_pages_and_a_cursor_is_bound_to_its_request() {
    let c = club(false, "https://club.example/id/1");
    let mut s = session(&c);
    let first = call(
        &mut s,
        "okf_search_evidence",
        json!({"query": "club members café reading", "scope": "evidence", "case_id": "club-01", "limit": 1}),
    );
    ok(&first);
    assert_eq!(first["delivery"]["complete"], false);
    let r = first["data"]["items"][0]["ref"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        r.starts_with("e-") && r.len() == 38,
        "ref format e-<uuid>: {r}"
    );
    let cursor = first["delivery"]["next_cursor"]
        .as_str()
        .unwrap()
        .to_owned();
    let ev = call(
        &mut s,
        "okf_get_evidence",
        json!({"ref": r, "section": "provenance"}),
    );
    assert_eq!(ev["data"]["case_id"], "club-01");
    let second = call(
        &mut s,
        "okf_search_evidence",
        json!({"query": "club members café reading", "scope": "evidence", "case_id": "club-01", "limit": 1, "cursor": cursor}),
    );
    ok(&second);
    assert_eq!(second["data"]["offset"], 1);
    let other = call(
        &mut s,
        "okf_search_evidence",
        json!({"query": "something else", "scope": "evidence", "case_id": "club-01", "cursor": cursor}),
    );
    assert_eq!(code(&other), "stale_cursor");
}

#[test]
fn s4_1_3_refs_and_cursors_expire_after_600000_ms_and_a_changed_snapshot_is_stale() {
    let c = club(false, "https://club.example/id/1");
    let mut s = session(&c);
    let first = call(
        &mut s,
        "okf_search_evidence",
        json!({"query": "club members café reading", "scope": "evidence", "case_id": "club-01", "limit": 1}),
    );
    let r = first["data"]["items"][0]["ref"]
        .as_str()
        .unwrap()
        .to_owned();
    let cursor = first["delivery"]["next_cursor"]
        .as_str()
        .unwrap()
        .to_owned();
    // A continuation cursor keeps its first page's expiry.
    s.host_mut().now += 300_000;
    let second = call(
        &mut s,
        "okf_search_evidence",
        json!({"query": "club members café reading", "scope": "evidence", "case_id": "club-01", "limit": 1, "cursor": cursor}),
    );
    let cursor2 = second["delivery"]["next_cursor"]
        .as_str()
        .unwrap()
        .to_owned();
    s.host_mut().now += 300_001;
    assert_eq!(
        code(&call(
            &mut s,
            "okf_get_evidence",
            json!({"ref": r, "section": "passage"})
        )),
        "unknown_ref"
    );
    assert_eq!(
        code(&call(
            &mut s,
            "okf_search_evidence",
            json!({"query": "club members café reading", "scope": "evidence", "case_id": "club-01", "limit": 1, "cursor": cursor2})
        )),
        "stale_cursor"
    );
    let stale = call(
        &mut s,
        "okf_search_evidence",
        json!({"query": "club", "snapshot_id": "sha256:other"}),
    );
    assert_eq!(code(&stale), "stale_snapshot");
    // A changed manifest digest clears every ref and cursor.
    let mut changed = c.manifest.clone();
    changed.push(b'\n');
    s.load_manifest(&changed).unwrap();
    let st = call(&mut s, "okf_get_state", json!({}));
    assert_eq!(
        st["snapshot_id"],
        format!("sha256:{}", sha256_hex(&changed))
    );
    assert_eq!(st["data"]["usage"]["calls"], 1);
}

#[test]
fn s4_1_4_a_long_passage_arrives_as_exact_ordered_ranges_within_max_bytes() {
    let c = club(false, "https://club.example/id/1");
    let mut s = session(&c);
    let found = call(
        &mut s,
        "okf_search_evidence",
        json!({"query": "reading", "scope": "evidence", "case_id": "club-01"}),
    );
    let r = found["data"]["items"][0]["ref"]
        .as_str()
        .unwrap()
        .to_owned();
    let full = READING.repeat(340);
    let mut text = String::new();
    let mut cursor: Option<String> = None;
    let mut calls = 0;
    let mut expected_start = 0;
    loop {
        let mut input = json!({"ref": r, "section": "passage", "max_bytes": 2048});
        if let Some(c) = &cursor {
            input["cursor"] = json!(c);
        }
        let v = call(&mut s, "okf_get_evidence", input);
        calls += 1;
        ok(&v);
        assert_eq!(v["evidence_status"], "insufficient");
        assert!(v["delivery"]["bytes"].as_u64().unwrap() <= 2048);
        assert_eq!(v["data"]["range"]["start"], expected_start);
        assert_eq!(v["data"]["text_sha256"], sha256_hex(full.as_bytes()));
        text.push_str(v["data"]["text"].as_str().unwrap());
        expected_start = v["data"]["range"]["end"].as_u64().unwrap();
        if v["delivery"]["complete"] == true {
            break;
        }
        assert_eq!(v["data"]["whole_passage_delivered"], false);
        cursor = Some(v["delivery"]["next_cursor"].as_str().unwrap().to_owned());
        assert!(calls < 30);
    }
    assert_eq!(text, full);
    assert_eq!(sha256_hex(text.as_bytes()), sha256_hex(full.as_bytes()));
    assert!(calls > 1 && calls < 30, "{calls} calls");
}

#[test]
fn s4_1_5_show_view_checks_the_revision_before_touching_the_page() {
    let c = club(false, "https://club.example/id/1");
    let mut s = session(&c);
    let snap = call(&mut s, "okf_get_state", json!({}))["snapshot_id"].clone();
    let stale = call(
        &mut s,
        "okf_show_view",
        json!({"expected_revision": 5, "snapshot_id": snap, "case_id": "club-01", "view": "graph"}),
    );
    assert_eq!(code(&stale), "stale_revision");
    assert!(s.host().page.presented.is_empty());
    let shown = call(
        &mut s,
        "okf_show_view",
        json!({"expected_revision": 0, "snapshot_id": snap, "case_id": "club-01", "view": "graph"}),
    );
    ok(&shown);
    assert_eq!(shown["data"]["rendered_revision"], 1);
    assert_eq!(shown["data"]["view"], "graph");
    assert_eq!(s.host().page.presented.len(), 1);
    assert_eq!(shown["state_revision"], 1);
    // A human navigation bumps the revision, invalidating the older presentation basis.
    s.host_mut()
        .page
        .navigate(Some("club-02".into()), None, Some("source".into()));
    let again = call(
        &mut s,
        "okf_show_view",
        json!({"expected_revision": 1, "snapshot_id": snap, "case_id": "club-01"}),
    );
    assert_eq!(code(&again), "stale_revision");
    assert_eq!(
        code(&call(
            &mut s,
            "okf_show_view",
            json!({"expected_revision": 2, "snapshot_id": snap, "case_id": "club-01", "view": "nope"})
        )),
        "invalid_request"
    );
}

#[test]
fn s4_1_6_requirements_view_is_paged_with_matching_coverage_and_rejects_ref() {
    let c = club(false, "https://club.example/id/1");
    let mut s = session(&c);
    let v = call(
        &mut s,
        "okf_get_view_data",
        json!({"view": "requirements", "case_id": "club-01", "max_bytes": 2048}),
    );
    ok(&v);
    let cov = &v["data"]["coverage"];
    let delivered = cov["delivered_rows"].as_u64().unwrap();
    assert!(delivered > 0 && delivered < cov["total_rows"].as_u64().unwrap());
    assert_eq!(cov["complete"], false);
    assert_eq!(cov["next_cursor"], v["delivery"]["next_cursor"]);
    assert!(v["result_id"].as_str().unwrap().starts_with("v-"));
    let r = call(
        &mut s,
        "okf_get_view_data",
        json!({"view": "requirements", "case_id": "club-01", "ref": "e-x"}),
    );
    assert_eq!(code(&r), "invalid_request");
}

#[test]
fn s4_1_7_graph_view_is_complete_and_can_be_shown_by_result_id() {
    let c = club(false, "https://club.example/id/1");
    let mut s = session(&c);
    let g = call(
        &mut s,
        "okf_get_view_data",
        json!({"view": "graph", "case_id": "club-01", "max_bytes": 32768}),
    );
    ok(&g);
    assert_eq!(g["data"]["coverage"]["total_rows"], 2);
    assert_eq!(g["data"]["coverage"]["delivered_rows"], 2);
    assert_eq!(g["data"]["coverage"]["complete"], true);
    assert_eq!(g["data"]["edges"].as_array().unwrap().len(), 2);
    assert_eq!(g["data"]["nodes"].as_array().unwrap().len(), 3);
    assert_eq!(
        code(&call(
            &mut s,
            "okf_get_view_data",
            json!({"view": "graph", "case_id": "club-01", "cursor": "c-1"})
        )),
        "stale_cursor"
    );
    let shown = call(
        &mut s,
        "okf_show_view",
        json!({"expected_revision": 0, "snapshot_id": g["snapshot_id"], "result_id": g["result_id"]}),
    );
    ok(&shown);
    let presented = &s.host().page.presented[0];
    assert_eq!(presented.result_id.as_deref(), g["result_id"].as_str());
    assert_eq!(presented.view, "graph");
}

#[test]
fn s4_1_8_the_129th_call_gets_journey_budget_and_reset_starts_over() {
    let c = club(false, "https://club.example/id/1");
    let mut s = session(&c);
    for _ in 0..128 {
        ok(&call(&mut s, "okf_get_state", json!({})));
    }
    let over = call(&mut s, "okf_get_state", json!({}));
    assert_eq!(code(&over), "journey_budget");
    s.reset();
    let st = call(&mut s, "okf_get_state", json!({}));
    ok(&st);
    assert_eq!(st["data"]["ready"], true);
    assert_eq!(st["data"]["usage"]["calls"], 1);
}

#[test]
fn s4_1_9_sixty_four_parallel_32k_calls_give_exactly_32_successes() {
    let c = club(false, "https://club.example/id/1");
    let mut s = session(&c);
    let input = json!({"query": "club", "max_bytes": 32768});
    let tickets: Vec<_> = (0..64)
        .map(|_| s.begin("okf_search_evidence", &input))
        .collect();
    let mut texts = Vec::new();
    for t in tickets {
        texts.push(match t {
            Ok(t) => s.finish(t),
            Err(text) => text,
        });
    }
    let replies: Vec<Value> = texts.iter().map(|t| checked(t)).collect();
    let good: Vec<&Value> = replies
        .iter()
        .filter(|v| v.get("error").is_none())
        .collect();
    assert_eq!(good.len(), 32);
    assert_eq!(
        replies
            .iter()
            .filter(|v| code(v) == "journey_budget")
            .count(),
        32
    );
    let sum: u64 = good
        .iter()
        .map(|v| v["delivery"]["bytes"].as_u64().unwrap())
        .sum();
    assert_eq!(s.metrics().bytes, sum);
    assert!(sum <= 1_048_576);
    ok(&call(
        &mut s,
        "okf_search_evidence",
        json!({"query": "club", "max_bytes": 32768}),
    ));
}

#[test]
fn s4_1_10_failed_calls_release_reservations_and_add_no_bytes() {
    let c = club(false, "https://club.example/id/1");
    let mut s = session(&c);
    for _ in 0..40 {
        assert_eq!(
            code(&call(
                &mut s,
                "okf_get_evidence",
                json!({"ref": "e-gone", "section": "passage", "max_bytes": 32768})
            )),
            "unknown_ref"
        );
    }
    assert_eq!(s.metrics().bytes, 0);
    assert_eq!(s.metrics().calls, 40);
    ok(&call(
        &mut s,
        "okf_search_evidence",
        json!({"query": "club", "max_bytes": 32768}),
    ));
}

#[test]
fn s4_1_12_calculation_view_page_cites_only_its_delivered_rows() {
    let c = club(false, "https://club.example/id/1");
    let mut s = session(&c);
    let v = call(
        &mut s,
        "okf_get_view_data",
        json!({"view": "calculation", "case_id": "club-01", "max_bytes": 32768}),
    );
    ok(&v);
    let d = &v["data"];
    assert_eq!(d["coverage"]["complete"], false);
    assert!(v["delivery"]["bytes"].as_u64().unwrap() <= 32768);
    let mut cited: Vec<String> = d["rows"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| r["references"].as_array().cloned().unwrap_or_default())
        .map(|x| x.as_str().unwrap().to_owned())
        .collect();
    cited.sort();
    cited.dedup();
    let mut prov: Vec<String> = d["provenance"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["ref"].as_str().unwrap().to_owned())
        .collect();
    prov.sort();
    assert!(!prov.is_empty());
    assert_eq!(cited, prov);
    assert_eq!(d["authority"], "authored-unreviewed-proposal");
}

#[test]
fn s4_1_13_a_model_outside_its_case_scope_is_refused() {
    let c = club(false, "https://club.example/id/1");
    let mut s = session(&c);
    assert_eq!(
        code(&call(
            &mut s,
            "okf_get_calculation",
            json!({"model_id": "club-model", "case_id": "club-02"})
        )),
        "model_scope_mismatch"
    );
    assert_eq!(
        code(&call(
            &mut s,
            "okf_get_calculation",
            json!({"model_id": "nope"})
        )),
        "unknown_model"
    );
    assert_eq!(
        code(&call(
            &mut s,
            "okf_get_calculation",
            json!({"model_id": "club-model", "stage_id": "nope"})
        )),
        "unknown_stage"
    );
    s.host_mut()
        .page
        .navigate(Some("club-02".into()), None, None);
    assert_eq!(
        code(&call(
            &mut s,
            "okf_get_view_data",
            json!({"view": "calculation", "model_id": "club-model"})
        )),
        "model_scope_mismatch"
    );
}

#[test]
fn s4_1_14_calculation_is_blocked_and_never_simulated() {
    let c = club(false, "https://club.example/id/1");
    let mut s = session(&c);
    let text = s.invoke(
        "okf_get_calculation",
        &json!({"model_id": "club-model", "section": "stages"}),
    );
    let v = checked(&text);
    ok(&v);
    assert_eq!(v["evidence_status"], "insufficient");
    assert_eq!(v["data"]["status"], "blocked");
    assert_eq!(v["data"]["execution_allowed"], false);
    assert_eq!(v["data"]["authority"], "authored-unreviewed-proposal");
    assert!(!text.contains("award_amount"));
    assert_eq!(
        code(&call(&mut s, "okf_simulate_benefit", json!({}))),
        "unknown_tool"
    );
    let none = call(&mut s, "okf_get_calculation", json!({"case_id": "club-03"}));
    assert_eq!(none["data"]["status"], "blocked");
    assert_eq!(none["data"]["models"][0]["id"], "club-model");
    let rates = call(
        &mut s,
        "okf_get_view_data",
        json!({"view": "rates", "case_id": "club-01"}),
    );
    ok(&rates);
    assert_eq!(rates["data"]["rows"], json!([]));
    assert!(rates["data"]["limitations"].as_array().unwrap().len() >= 3);
}

#[test]
fn s4_1_15_model_evidence_absent_from_its_package_fails_without_data() {
    let c = club(false, "https://club.example/id/404");
    let mut s = session(&c);
    for (tool, input) in [
        (
            "okf_get_view_data",
            json!({"view": "calculation", "case_id": "club-01"}),
        ),
        (
            "okf_get_calculation",
            json!({"model_id": "club-model", "section": "stages"}),
        ),
    ] {
        let v = call(&mut s, tool, input);
        assert_eq!(code(&v), "missing_model_evidence", "{tool}");
        assert!(v.get("data").is_none() && v.get("result_id").is_none());
    }
}

#[test]
fn s1_4_fourth_package_evicts_the_first_and_forces_a_verified_reload() {
    let c = club(false, "https://club.example/id/1");
    let mut s = session(&c);
    for case in ["club-01", "club-02", "club-03", "club-04"] {
        ok(&call(
            &mut s,
            "okf_get_view_data",
            json!({"view": "rates", "case_id": case}),
        ));
    }
    assert_eq!(s.verified_loads(), 4);
    ok(&call(
        &mut s,
        "okf_get_view_data",
        json!({"view": "rates", "case_id": "club-04"}),
    ));
    assert_eq!(s.verified_loads(), 4, "a cached package is not reloaded");
    // club-01 was evicted; tamper with its file: the reload verifies and refuses it.
    s.host_mut()
        .files
        .get_mut("packages/club-01.json")
        .unwrap()
        .push(b' ');
    let v = call(
        &mut s,
        "okf_get_view_data",
        json!({"view": "rates", "case_id": "club-01"}),
    );
    assert_eq!(code(&v), "package_integrity");
    assert_eq!(s.verified_loads(), 5);
}

#[test]
fn s1_7_relationships_graph_is_bounded_and_reports_omitted_edges() {
    let c = club(false, "https://club.example/id/1");
    let mut s = session(&c);
    let v = call(
        &mut s,
        "okf_get_relationships",
        json!({"case_id": "club-01", "depth": 2, "limit": 10, "max_bytes": 32768}),
    );
    ok(&v);
    assert_eq!(v["data"]["directed"], true);
    assert_eq!(v["data"]["omitted_edges"], 0);
    assert_eq!(v["data"]["items"].as_array().unwrap().len(), 2);
    assert_eq!(v["data"]["items"][0]["ref"], "assertion-0");
    assert_eq!(
        code(&call(
            &mut s,
            "okf_get_relationships",
            json!({"ref": "e-x", "case_id": "club-01"})
        )),
        "unknown_ref"
    );
}

#[test]
fn s1_7_assessment_date_must_be_a_real_calendar_date() {
    let c = club(false, "https://club.example/id/1");
    let mut s = session(&c);
    let v = call(
        &mut s,
        "okf_get_calculation",
        json!({"assessment_date": "2026-02-30"}),
    );
    assert_eq!(code(&v), "invalid_request");
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("assessment_date")
    );
    assert_eq!(s.metrics().calls, 0, "validation rejections do not count");
    ok(&call(
        &mut s,
        "okf_get_calculation",
        json!({"assessment_date": "2024-02-29", "case_id": "club-01"}),
    ));
}

#[test]
fn s1_5_no_reply_exceeds_its_max_bytes() {
    let c = club(false, "https://club.example/id/1");
    let mut s = session(&c);
    for max in [2048u64, 3000, 4096, 8192] {
        for (tool, input) in [
            (
                "okf_search_evidence",
                json!({"query": "club rule study", "limit": 10}),
            ),
            (
                "okf_get_view_data",
                json!({"view": "requirements", "case_id": "club-01"}),
            ),
            (
                "okf_get_view_data",
                json!({"view": "interactions", "case_id": "club-01"}),
            ),
            (
                "okf_get_relationships",
                json!({"case_id": "club-01", "limit": 10}),
            ),
            (
                "okf_get_calculation",
                json!({"model_id": "club-model", "section": "inputs"}),
            ),
        ] {
            let mut input = input;
            input["max_bytes"] = json!(max);
            let v = call(&mut s, tool, input);
            assert!(
                v["delivery"]["bytes"].as_u64().unwrap() <= max,
                "{tool} at {max}"
            );
        }
        s.reset();
    }
}
