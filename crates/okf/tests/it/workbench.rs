//! `okf workbench build` and `okf workbench run` as real processes (spec §1.2–§1.11, §4.1), over
//! a workbench built from the DWP index with DWP's 40 staff questions, and over DWP's own
//! published manifest (whose part files are absent).
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use crate::common::{okf, shared, stderr, temp_dir};
use okf_engine::canonical::sha256_hex;
use serde_json::{Value, json};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

/// One change to a manifest.
type Edit = Box<dyn Fn(&mut Value)>;

const DWP_MANIFEST: &str = "dwp/evaluation/evidence-workbench/manifest.json";

fn schema(name: &str) -> jsonschema::Validator {
    let v: Value = serde_json::from_str(
        &std::fs::read_to_string(shared(&format!(
            "okf-explorer/profiles/evidence-workbench-tools/v1/{name}"
        )))
        .unwrap(),
    )
    .unwrap();
    jsonschema::options()
        .should_validate_formats(true)
        .build(&v)
        .unwrap()
}

/// Checks an envelope line against both schemas and the accounting rule.
fn checked(line: &str) -> Value {
    static RESPONSE: OnceLock<jsonschema::Validator> = OnceLock::new();
    static VIEW: OnceLock<jsonschema::Validator> = OnceLock::new();
    let v: Value = serde_json::from_str(line).unwrap();
    let errors: Vec<String> = RESPONSE
        .get_or_init(|| schema("response.schema.json"))
        .iter_errors(&v)
        .map(|e| e.to_string())
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
    if v["data"]["schema"] == "okf-workbench-view.v1" {
        let errors: Vec<String> = VIEW
            .get_or_init(|| schema("view.schema.json"))
            .iter_errors(&v["data"])
            .map(|e| e.to_string())
            .collect();
        assert!(errors.is_empty(), "{errors:?}");
    }
    assert_eq!(v["delivery"]["bytes"].as_u64().unwrap(), line.len() as u64);
    let chars = line.encode_utf16().count() as u64;
    assert_eq!(v["delivery"]["characters"].as_u64().unwrap(), chars);
    assert_eq!(
        v["delivery"]["estimated_tokens"].as_u64().unwrap(),
        chars.div_ceil(4)
    );
    v
}

struct Run {
    /// The printed lines, exactly.
    lines: Vec<String>,
    envelopes: Vec<Value>,
    stderr: String,
    success: bool,
}

fn run(manifest: &Path, lines: &[Value]) -> Run {
    run_with(manifest, &[], lines)
}

/// `okf workbench run` with extra options.
fn run_with(manifest: &Path, options: &[&str], lines: &[Value]) -> Run {
    let mut child = Command::new(env!("CARGO_BIN_EXE_okf"))
        .args(["workbench", "run", "--manifest", manifest.to_str().unwrap()])
        .args(options)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    {
        // A run that refuses its manifest exits without reading its input, so a write may
        // find the pipe closed; what it printed is what the test checks.
        let mut stdin = child.stdin.take().unwrap();
        for l in lines {
            if writeln!(stdin, "{l}").is_err() {
                break;
            }
        }
    }
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    Run {
        lines: text.lines().map(str::to_owned).collect(),
        envelopes: text.lines().map(checked).collect(),
        stderr: String::from_utf8(out.stderr).unwrap(),
        success: out.status.success(),
    }
}

fn call(tool: &str, arguments: Value) -> Value {
    json!({"tool": tool, "arguments": arguments})
}

fn code(v: &Value) -> &str {
    v["error"]["code"].as_str().unwrap_or("")
}

/// The DWP staff questions (texts and briefs from DWP's manifest) as a questions file.
fn dwp_questions(dir: &Path) -> PathBuf {
    let m: Value =
        serde_json::from_str(&std::fs::read_to_string(shared(DWP_MANIFEST)).unwrap()).unwrap();
    let questions: Vec<Value> = m["questions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|q| {
            let mut e = json!({"id": q["id"], "label": q["label"], "question": q["question"]});
            for k in ["ambiguities", "required_evidence", "scope_gaps"] {
                if q.get(k).is_some() {
                    e[k] = q[k].clone();
                }
            }
            e
        })
        .collect();
    let path = dir.join("questions.json");
    std::fs::write(&path, serde_json::to_vec(&json!({"title": "DWP staff questions over the DMG index", "publication": m["publication"], "questions": questions})).unwrap()).unwrap();
    path
}

/// One workbench built by `okf workbench build` from the DWP index, shared by this file's tests.
fn built() -> &'static PathBuf {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT.get_or_init(|| {
        let dir = temp_dir("workbench-build");
        let out = dir.join("wb");
        let _ = std::fs::remove_dir_all(&out);
        let q = dwp_questions(&dir);
        let o = okf(&[
            "workbench",
            "build",
            "--index",
            &shared("dwp/full-dmg/context/assembly-index.json"),
            "--questions",
            q.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        out.join("manifest.json")
    })
}

/// A private copy of the built workbench, for tests that tamper with it.
fn copy_of_built(name: &str) -> PathBuf {
    let src = built().parent().unwrap().to_owned();
    let dst = temp_dir(name).join("wb");
    let _ = std::fs::remove_dir_all(&dst);
    for sub in ["packages", "parts"] {
        std::fs::create_dir_all(dst.join(sub)).unwrap();
        for e in std::fs::read_dir(src.join(sub)).unwrap() {
            let e = e.unwrap();
            std::fs::copy(e.path(), dst.join(sub).join(e.file_name())).unwrap();
        }
    }
    std::fs::copy(src.join("manifest.json"), dst.join("manifest.json")).unwrap();
    dst.join("manifest.json")
}

fn manifest_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// A case of the built workbench with at least `n` parts.
fn large_case(manifest: &Path) -> String {
    let m = manifest_json(manifest);
    m["questions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|q| q["package"]["parts"].as_array().unwrap().len() > 3)
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned()
}

#[test]
fn s1_2_dwp_published_manifest_is_admitted_and_its_absent_parts_are_named() {
    let path = PathBuf::from(shared(DWP_MANIFEST));
    let bytes = std::fs::read(&path).unwrap();
    let r = run(
        &path,
        &[
            call("okf_get_state", json!({})),
            call(
                "okf_search_evidence",
                json!({"query": "Pension Credit capital savings", "limit": 10}),
            ),
            call(
                "okf_get_view_data",
                json!({"view": "requirements", "case_id": "staff-006"}),
            ),
        ],
    );
    assert!(r.success, "{}", r.stderr);
    let state = &r.envelopes[0];
    assert_eq!(
        state["snapshot_id"],
        format!("sha256:{}", sha256_hex(&bytes))
    );
    assert_eq!(state["data"]["questions"], 40);
    assert_eq!(state["data"]["ready"], true);
    let search = &r.envelopes[1];
    assert!(search.get("error").is_none());
    assert!(search["data"]["total"].as_u64().unwrap() > 0);
    assert!(
        search["data"]["items"]
            .as_array()
            .unwrap()
            .iter()
            .any(|i| i["title"].as_str().unwrap().contains("Pension Credit"))
    );
    let open = &r.envelopes[2];
    assert_eq!(code(open), "package_unavailable");
    assert!(
        open["error"]["message"]
            .as_str()
            .unwrap()
            .contains("parts/staff-006-000.json"),
        "{open}"
    );
}

fn refused(manifest: &Value, name: &str) -> String {
    let dir = temp_dir(name);
    let path = dir.join("manifest.json");
    std::fs::write(&path, serde_json::to_vec_pretty(manifest).unwrap()).unwrap();
    let r = run(&path, &[call("okf_get_state", json!({}))]);
    assert!(!r.success, "{name} should be refused");
    assert!(r.envelopes.is_empty());
    r.stderr
}

#[test]
fn s1_2_bad_paths_oversized_parts_and_duplicate_ids_are_refused_naming_the_field() {
    let dwp: Value =
        serde_json::from_str(&std::fs::read_to_string(shared(DWP_MANIFEST)).unwrap()).unwrap();
    let cases: Vec<(&str, Edit, &str)> = vec![
        (
            "dotdot",
            Box::new(|m| m["questions"][0]["package"]["url"] = json!("../private.json")),
            "questions[0].package.url",
        ),
        (
            "pct2e",
            Box::new(|m| {
                m["questions"][1]["package"]["parts"][0]["url"] = json!("parts/%2e%2e/x.json")
            }),
            "questions[1].package.parts[0].url",
        ),
        (
            "backslash",
            Box::new(|m| {
                m["questions"][2]["package"]["parts"][3]["url"] = json!("parts\\staff-003-003.json")
            }),
            "questions[2].package.parts[3].url",
        ),
        (
            "oversized",
            Box::new(|m| m["questions"][0]["package"]["parts"][0]["bytes"] = json!(32769)),
            "questions[0].package.parts[0].bytes",
        ),
        (
            "duplicate",
            Box::new(|m| m["questions"][5]["id"] = json!("staff-001")),
            "questions[5].id",
        ),
    ];
    for (name, edit, field) in cases {
        let mut m = dwp.clone();
        edit(&mut m);
        let message = refused(&m, name);
        assert!(message.contains(field), "{name}: {message}");
    }
}

#[test]
fn s1_3_built_parts_have_dwp_shape_and_rebuild_the_package_by_joining_data() {
    let manifest = built();
    let dir = manifest.parent().unwrap();
    let m = manifest_json(manifest);
    assert_eq!(m["questions"].as_array().unwrap().len(), 40);
    for q in m["questions"].as_array().unwrap() {
        let package =
            std::fs::read_to_string(dir.join(q["package"]["url"].as_str().unwrap())).unwrap();
        assert_eq!(sha256_hex(package.as_bytes()), q["package"]["sha256"]);
        let mut joined = String::new();
        for part in q["package"]["parts"].as_array().unwrap() {
            let text = std::fs::read_to_string(dir.join(part["url"].as_str().unwrap())).unwrap();
            assert!(text.len() <= 32_768);
            assert_eq!(text.len() as u64, part["bytes"].as_u64().unwrap());
            assert_eq!(sha256_hex(text.as_bytes()), part["sha256"]);
            let v: Value = serde_json::from_str(&text).unwrap();
            assert_eq!(v["schema"], "okf-context-read.v1");
            assert_eq!(v["section"], "package");
            joined.push_str(v["data"].as_str().unwrap());
        }
        assert_eq!(joined, package);
    }
}

#[test]
fn s1_4_the_129th_call_gets_journey_budget_and_a_reload_starts_over() {
    let mut lines: Vec<Value> = (0..129).map(|_| call("okf_get_state", json!({}))).collect();
    lines.push(json!({"reload": true}));
    lines.push(call("okf_get_state", json!({})));
    let r = run(built(), &lines);
    assert!(r.success, "{}", r.stderr);
    assert_eq!(r.envelopes.len(), 130);
    assert!(r.envelopes[..128].iter().all(|v| v.get("error").is_none()));
    assert_eq!(code(&r.envelopes[128]), "journey_budget");
    assert_eq!(r.envelopes[129]["data"]["usage"]["calls"], 1);
}

#[test]
fn s1_4_sixty_four_parallel_32k_calls_give_exactly_32_successes() {
    let parallel: Vec<Value> = (0..64)
        .map(|_| {
            call(
                "okf_search_evidence",
                json!({"query": "pension credit", "max_bytes": 32768}),
            )
        })
        .collect();
    let r = run(
        built(),
        &[
            json!({"parallel": parallel}),
            call("okf_get_state", json!({})),
        ],
    );
    assert!(r.success, "{}", r.stderr);
    let ok = r.envelopes[..64]
        .iter()
        .filter(|v| v.get("error").is_none())
        .count();
    let budget = r.envelopes[..64]
        .iter()
        .filter(|v| code(v) == "journey_budget")
        .count();
    assert_eq!((ok, budget), (32, 32));
    let sum: u64 = r.envelopes[..64]
        .iter()
        .filter(|v| v.get("error").is_none())
        .map(|v| v["delivery"]["bytes"].as_u64().unwrap())
        .sum();
    assert_eq!(r.envelopes[64]["data"]["usage"]["bytes"], sum);
}

#[test]
fn s1_4_refs_expire_after_600000_ms_and_continuations_keep_their_first_expiry() {
    let q = json!({"query": "pension credit capital income", "scope": "evidence", "case_id": "staff-010", "limit": 1});
    let mut next = q.clone();
    next["cursor"] = json!("$0.delivery.next_cursor");
    let mut third = q.clone();
    third["cursor"] = json!("$1.delivery.next_cursor");
    let r = run(
        built(),
        &[
            call("okf_search_evidence", q.clone()),
            json!({"advance_ms": 599_999}),
            call("okf_search_evidence", next),
            call(
                "okf_get_evidence",
                json!({"ref": "$0.data.items.0.ref", "section": "provenance"}),
            ),
            json!({"advance_ms": 1}),
            call(
                "okf_get_evidence",
                json!({"ref": "$0.data.items.0.ref", "section": "provenance"}),
            ),
            call("okf_search_evidence", third),
        ],
    );
    assert!(r.success, "{}", r.stderr);
    assert!(r.envelopes[1].get("error").is_none(), "{}", r.envelopes[1]);
    assert_eq!(r.envelopes[1]["data"]["offset"], 1);
    assert!(r.envelopes[2].get("error").is_none());
    assert_eq!(code(&r.envelopes[3]), "unknown_ref");
    // The second page's cursor was minted at 599,999 ms but expires with the first page.
    assert_eq!(code(&r.envelopes[4]), "stale_cursor");
}

#[test]
fn s1_4_evicting_the_fourth_package_forces_a_verified_reload() {
    let manifest = copy_of_built("evict");
    let m = manifest_json(&manifest);
    let ids: Vec<String> = m["questions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|q| q["package"]["parts"].as_array().unwrap().len() > 1)
        .take(4)
        .map(|q| q["id"].as_str().unwrap().to_owned())
        .collect();
    let views: Vec<Value> = ids
        .iter()
        .map(|id| call("okf_get_view_data", json!({"view": "rates", "case_id": id})))
        .collect();
    let mut lines = views.clone();
    lines.push(views[0].clone());
    let r = run(&manifest, &lines);
    assert!(r.envelopes.iter().all(|v| v.get("error").is_none()));
    assert!(r.stderr.contains("verified_loads 5"), "{}", r.stderr);
    // Tamper with one byte of an evicted package's part: the reload verifies and refuses it.
    let part = m["questions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|q| q["id"] == ids[0].as_str())
        .unwrap()["package"]["parts"][1]["url"]
        .as_str()
        .unwrap()
        .to_owned();
    let part_path = manifest.parent().unwrap().join(&part);
    // One live session: open four packages, tamper with the evicted one's part on disk, then
    // ask for it again. The reload re-verifies and refuses it.
    let mut child = Command::new(env!("CARGO_BIN_EXE_okf"))
        .args(["workbench", "run", "--manifest", manifest.to_str().unwrap()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut ask = |line: &Value| {
        writeln!(stdin, "{line}").unwrap();
        stdin.flush().unwrap();
        let mut reply = String::new();
        std::io::BufRead::read_line(&mut stdout, &mut reply).unwrap();
        checked(reply.trim_end())
    };
    for v in &views {
        assert!(ask(v).get("error").is_none());
    }
    let mut bytes = std::fs::read(&part_path).unwrap();
    let i = bytes.iter().position(|&b| b == b'a').unwrap();
    bytes[i] = b'b';
    std::fs::write(&part_path, &bytes).unwrap();
    // The three cached packages are still served from the cache.
    assert!(ask(&views[3]).get("error").is_none());
    let refused = ask(&views[0]);
    assert_eq!(code(&refused), "package_integrity");
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains(&part),
        "{refused}"
    );
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    let log = String::from_utf8(out.stderr).unwrap();
    assert!(log.contains("verified_loads 5"), "{log}");
}

#[test]
fn s1_6_a_long_passage_arrives_as_ordered_exact_ranges_hashing_to_text_sha256() {
    let manifest = built();
    let dir = manifest.parent().unwrap();
    let case = large_case(manifest);
    let package: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join(format!("packages/{case}.json"))).unwrap(),
    )
    .unwrap();
    let longest = package["selected"]
        .as_array()
        .unwrap()
        .iter()
        .max_by_key(|s| s["record"]["text"].as_str().unwrap().len())
        .unwrap();
    let full = longest["record"]["text"].as_str().unwrap();
    assert!(full.len() > 2048, "the longest passage must exceed the cap");
    let label = longest["record"]["label"].as_str().unwrap();
    // Find its ref by searching its label, then follow the cursors.
    let mut lines = vec![call(
        "okf_search_evidence",
        json!({"query": label, "scope": "evidence", "case_id": case, "limit": 10, "max_bytes": 32768}),
    )];
    let first = run(manifest, &lines);
    let items = first.envelopes[0]["data"]["items"].as_array().unwrap();
    let idx = items
        .iter()
        .position(|i| i["title"].as_str().unwrap() == okf_workbench::short(label, 160))
        .unwrap();
    lines.push(call(
        "okf_get_evidence",
        json!({"ref": format!("$0.data.items.{idx}.ref"), "section": "passage", "max_bytes": 2048}),
    ));
    // Enough continuation lines; once complete, a null cursor is refused as invalid_request.
    let pages_needed = full.encode_utf16().count() / 100 + 5;
    for n in 1..pages_needed {
        lines.push(call("okf_get_evidence", json!({"ref": format!("$0.data.items.{idx}.ref"), "section": "passage", "max_bytes": 2048, "cursor": format!("${n}.delivery.next_cursor")})));
    }
    let r = run(manifest, &lines);
    let pages: Vec<&Value> = r.envelopes[1..]
        .iter()
        .take_while(|v| v.get("error").is_none())
        .collect();
    let mut text = String::new();
    let mut end = 0;
    for p in &pages {
        assert!(p["delivery"]["bytes"].as_u64().unwrap() <= 2048);
        assert_eq!(p["data"]["range"]["start"], end);
        end = p["data"]["range"]["end"].as_u64().unwrap();
        text.push_str(p["data"]["text"].as_str().unwrap());
        assert_eq!(p["data"]["text_sha256"], sha256_hex(full.as_bytes()));
    }
    assert!(pages.len() > 1);
    assert_eq!(pages.last().unwrap()["delivery"]["complete"], true);
    assert_eq!(text, full);
}

#[test]
fn s1_7_journey_replies_stay_within_max_bytes_and_graphs_are_bounded() {
    let manifest = built();
    let case = large_case(manifest);
    let mut lines = vec![call(
        "okf_search_evidence",
        json!({"query": "pension credit", "scope": "evidence", "case_id": case, "limit": 3}),
    )];
    for max in [2048u64, 4096, 8192, 32768] {
        lines.push(call(
            "okf_get_view_data",
            json!({"view": "graph", "case_id": case, "max_bytes": max}),
        ));
        lines.push(call(
            "okf_get_relationships",
            json!({"ref": "$0.data.items.0.ref", "depth": 2, "limit": 10, "max_bytes": max}),
        ));
        lines.push(call(
            "okf_get_view_data",
            json!({"view": "requirements", "case_id": case, "max_bytes": max}),
        ));
        lines.push(call(
            "okf_get_evidence",
            json!({"ref": "$0.data.items.0.ref", "section": "trace", "max_bytes": max}),
        ));
    }
    lines.push(call(
        "okf_get_calculation",
        json!({"case_id": case, "assessment_date": "2026-02-30"}),
    ));
    lines.push(call("okf_get_calculation", json!({"case_id": case})));
    lines.push(call(
        "okf_get_view_data",
        json!({"view": "rates", "case_id": case}),
    ));
    let r = run(manifest, &lines);
    assert!(r.success, "{}", r.stderr);
    for (i, v) in r.envelopes.iter().enumerate().skip(1).take(16) {
        let max = [2048u64, 4096, 8192, 32768][(i - 1) / 4];
        assert!(v["delivery"]["bytes"].as_u64().unwrap() <= max, "line {i}");
        if let Some(nodes) = v["data"]["nodes"].as_array() {
            assert!(nodes.len() <= 20);
            assert!(v["data"]["edges"].as_array().unwrap().len() <= 40);
            assert!(
                v["data"]["limitations"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|l| l.as_str().unwrap().contains("outside this bounded graph"))
            );
        }
        if v["data"]["directed"] == true {
            assert!(v["data"]["omitted_edges"].as_u64().is_some());
        }
    }
    let graph = &r.envelopes[13];
    assert!(graph.get("error").is_none(), "{graph}");
    assert_eq!(graph["data"]["coverage"]["complete"], true);
    let n = r.envelopes.len();
    assert_eq!(code(&r.envelopes[n - 3]), "invalid_request");
    assert!(
        r.envelopes[n - 3]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("assessment_date")
    );
    let calc = &r.envelopes[n - 2];
    assert_eq!(calc["data"]["status"], "blocked");
    assert_eq!(calc["data"]["execution_allowed"], false);
    let rates = &r.envelopes[n - 1];
    assert_eq!(rates["data"]["rows"], json!([]));
    assert_eq!(rates["evidence_status"], "insufficient");
}

#[test]
fn s1_10_show_view_plays_against_a_page_that_people_also_change() {
    let manifest = built();
    let case = large_case(manifest);
    let r = run(
        manifest,
        &[
            call("okf_get_state", json!({})),
            call(
                "okf_get_view_data",
                json!({"view": "graph", "case_id": case, "max_bytes": 32768}),
            ),
            call(
                "okf_show_view",
                json!({"expected_revision": 0, "snapshot_id": "$0.snapshot_id", "result_id": "$1.result_id"}),
            ),
            json!({"present": {"case_id": "staff-001", "view": "source"}}),
            call(
                "okf_show_view",
                json!({"expected_revision": 1, "snapshot_id": "$0.snapshot_id", "case_id": case}),
            ),
            call("okf_get_state", json!({})),
        ],
    );
    assert!(r.success, "{}", r.stderr);
    assert_eq!(r.envelopes[2]["data"]["rendered_revision"], 1);
    assert_eq!(r.envelopes[2]["data"]["view"], "graph");
    assert_eq!(code(&r.envelopes[3]), "stale_revision");
    assert_eq!(r.envelopes[4]["data"]["case_id"], "staff-001");
    assert_eq!(r.envelopes[4]["state_revision"], 2);
}

#[test]
fn driver_input_errors_name_the_line_and_reference() {
    let r = run(
        built(),
        &[
            call("okf_get_state", json!({})),
            call(
                "okf_get_evidence",
                json!({"ref": "$5.data.items.0.ref", "section": "passage"}),
            ),
        ],
    );
    assert!(!r.success);
    assert!(
        r.stderr.contains("line 2") && r.stderr.contains("$5.data.items.0.ref"),
        "{}",
        r.stderr
    );
}

#[test]
fn s1_3_a_manifest_hash_changed_by_one_byte_refuses_the_package_naming_the_part() {
    let manifest = copy_of_built("one-byte");
    let mut m = manifest_json(&manifest);
    let case = large_case(&manifest);
    let q = m["questions"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|q| q["id"] == case.as_str())
        .unwrap();
    let part = q["package"]["parts"][2]["url"].as_str().unwrap().to_owned();
    let sha = q["package"]["parts"][2]["sha256"]
        .as_str()
        .unwrap()
        .to_owned();
    let first = if sha.as_bytes()[0] == b'0' { '1' } else { '0' };
    let flipped = format!("{first}{}", &sha[1..]);
    q["package"]["parts"][2]["sha256"] = json!(flipped);
    std::fs::write(&manifest, serde_json::to_vec_pretty(&m).unwrap()).unwrap();
    let r = run(
        &manifest,
        &[call(
            "okf_get_view_data",
            json!({"view": "requirements", "case_id": case}),
        )],
    );
    assert!(r.success, "{}", r.stderr);
    assert_eq!(code(&r.envelopes[0]), "package_integrity");
    assert!(
        r.envelopes[0]["error"]["message"]
            .as_str()
            .unwrap()
            .contains(&part),
        "{}",
        r.envelopes[0]
    );
}

#[test]
fn build_refuses_a_bad_question_id_naming_the_field_and_writes_nothing() {
    let dir = temp_dir("build-bad-id");
    let q = dir.join("q.json");
    std::fs::write(&q, r#"{"questions":[{"id":"Bad ID","label":"x","question":"What happens to your benefits if you go abroad?"}]}"#).unwrap();
    let out = dir.join("wb");
    let _ = std::fs::remove_dir_all(&out);
    let o = okf(&[
        "workbench",
        "build",
        "--index",
        &shared("dwp/full-dmg/context/assembly-index.json"),
        "--questions",
        q.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("questions[0].id"), "{}", stderr(&o));
    assert!(!out.exists());
    assert_eq!(
        std::fs::read_dir(&dir).unwrap().count(),
        1,
        "no staging directory is left behind"
    );
}

/// Resolves `"$N.path"` strings against earlier envelopes, as `okf workbench run` does.
fn resolve(value: &Value, printed: &[Value]) -> Value {
    match value {
        Value::String(s) if s.starts_with('$') => {
            let mut steps = s[1..].split('.');
            let n: usize = steps.next().unwrap().parse().unwrap();
            steps.fold(printed[n].clone(), |cur, step| {
                match step.parse::<usize>() {
                    Ok(i) if cur.is_array() => cur[i].clone(),
                    _ => cur[step].clone(),
                }
            })
        }
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, v)| (k.clone(), resolve(v, printed)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// Plays a journey through the page's WebAssembly interface (natively compiled), fetching
/// files from the workbench directory the way the page's adapter does: begin, fetch what the
/// call may need, check again, finish.
fn module_journey(manifest: &Path, seed: &str, lines: &[Value]) -> Vec<String> {
    use okf_wasm::{Module, WorkbenchCall};
    fn call(m: &mut Module, kind: WorkbenchCall, input: &[u8]) -> (u32, String) {
        m.input(input.len()).copy_from_slice(input);
        let status = m.workbench(kind);
        (status, String::from_utf8(m.output().to_vec()).unwrap())
    }
    let dir = manifest.parent().unwrap();
    let mut m = Module::default();
    let open = json!({"manifest_id": "dwp-staff", "seed": seed, "manifest": std::fs::read_to_string(manifest).unwrap()});
    let (status, text) = call(&mut m, WorkbenchCall::Open, open.to_string().as_bytes());
    assert_eq!(status, 0, "{text}");
    let mut printed: Vec<Value> = Vec::new();
    let mut out = Vec::new();
    for line in lines {
        let request =
            json!({"tool": line["tool"], "arguments": resolve(&line["arguments"], &printed)});
        let (status, text) = call(&mut m, WorkbenchCall::Begin, request.to_string().as_bytes());
        let envelope = if status == 2 {
            text
        } else {
            assert_eq!(status, 0, "{text}");
            let ticket = serde_json::from_str::<Value>(&text).unwrap()["ticket"].clone();
            loop {
                let (_, text) = call(
                    &mut m,
                    WorkbenchCall::Fetch,
                    json!({"ticket": ticket}).to_string().as_bytes(),
                );
                let fetch: Value = serde_json::from_str(&text).unwrap();
                let files = fetch["fetch"].as_array().unwrap();
                if files.is_empty() {
                    break;
                }
                for f in files {
                    let path = f["path"].as_str().unwrap();
                    let mut input = path.as_bytes().to_vec();
                    input.extend(std::fs::read(dir.join(path)).unwrap());
                    m.input(input.len()).copy_from_slice(&input);
                    assert_eq!(m.workbench_put(path.len(), true), 0);
                }
            }
            let (status, text) = call(
                &mut m,
                WorkbenchCall::Finish,
                json!({"ticket": ticket}).to_string().as_bytes(),
            );
            assert_eq!(status, 2, "{text}");
            text
        };
        printed.push(serde_json::from_str(&envelope).unwrap());
        out.push(envelope);
    }
    out
}

/// A journey through all seven tools over one case with selected evidence.
fn seven_tool_journey(case: &Value) -> Vec<Value> {
    let id = &case["id"];
    vec![
        call("okf_get_state", json!({})),
        call("okf_search_evidence", json!({"query": case["question"]})),
        call(
            "okf_search_evidence",
            json!({"query": "pension credit", "scope": "evidence", "case_id": id, "limit": 2}),
        ),
        call(
            "okf_get_evidence",
            json!({"ref": "$2.data.items.0.ref", "section": "passage", "max_bytes": 32768}),
        ),
        call(
            "okf_get_evidence",
            json!({"ref": "$2.data.items.0.ref", "section": "provenance"}),
        ),
        call(
            "okf_get_relationships",
            json!({"ref": "$2.data.items.0.ref"}),
        ),
        call(
            "okf_get_view_data",
            json!({"view": "graph", "case_id": id, "max_bytes": 32768}),
        ),
        call(
            "okf_get_view_data",
            json!({"view": "requirements", "case_id": id}),
        ),
        call(
            "okf_show_view",
            json!({"expected_revision": 0, "snapshot_id": "$0.snapshot_id", "result_id": "$6.result_id"}),
        ),
        call("okf_get_calculation", json!({"case_id": id})),
        call("okf_get_view_data", json!({"view": "rates"})),
        call("okf_get_state", json!({})),
    ]
}

#[test]
fn s1_1_the_page_module_replies_with_the_same_envelopes_as_okf_workbench_run() {
    let manifest = built();
    let m = manifest_json(manifest);
    let case = &m["questions"][9];
    let lines = seven_tool_journey(case);
    let r = run_with(
        manifest,
        &["--seed", "journey-seed", "--link-manifest", "dwp-staff"],
        &lines,
    );
    assert!(r.success, "{}", r.stderr);
    let cli = r.lines;
    let page = module_journey(manifest, "journey-seed", &lines);
    assert_eq!(cli.len(), lines.len());
    for (i, (a, b)) in cli.iter().zip(&page).enumerate() {
        assert_eq!(a, b, "envelope {i} differs");
    }
    // The journey really exercised every tool successfully, and the show_view deep link
    // names the manifest, case and tab, never a ref.
    let envelopes = r.envelopes;
    for (i, e) in envelopes.iter().enumerate() {
        assert!(e.get("error").is_none(), "call {i}: {e}");
    }
    let link = envelopes[8]["data"]["deep_link"].as_str().unwrap();
    assert_eq!(
        link,
        format!(
            "?manifest=dwp-staff&case={}&tab=graph",
            case["id"].as_str().unwrap()
        )
    );
    assert_eq!(envelopes[11]["state_revision"], 1);
    // A different seed gives different ids, so the equality above is not vacuous.
    let other = module_journey(manifest, "another-seed", &lines);
    assert_ne!(other[2], page[2]);
}

#[test]
fn a_part_symlinked_out_of_the_workbench_directory_is_not_read_even_with_the_right_bytes() {
    let manifest = copy_of_built("symlinked");
    let m = manifest_json(&manifest);
    let case = &m["questions"][0];
    let part = case["package"]["parts"][0]["url"].as_str().unwrap();
    let part_path = manifest.parent().unwrap().join(part);
    // The same bytes, outside the directory: digests match, so only the confinement refuses.
    let outside = temp_dir("symlinked-outside").join("part.json");
    std::fs::copy(&part_path, &outside).unwrap();
    std::fs::remove_file(&part_path).unwrap();
    std::os::unix::fs::symlink(&outside, &part_path).unwrap();
    let view = call(
        "okf_get_view_data",
        json!({"view": "rates", "case_id": case["id"]}),
    );
    let r = run(&manifest, &[view]);
    let refused = &r.envelopes[0];
    assert!(refused.get("error").is_some(), "{refused}");
    assert!(
        refused["error"]["message"].as_str().unwrap().contains(part),
        "{refused}"
    );
}
