//! `okf build` on the DWP hospital profile, `okf eval` on the result, and the richer package
//! profile (`okf ask --regime-profile`) checked by `okf verify` and the published schema.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use crate::common::pdf::{require_pdftotext, small_pdf};
use crate::common::{Server, okf, shared, stderr, stdout, temp_dir};
use serde_json::{Value, json};
use std::path::Path;

const QUESTION: &str = "A claimant is admitted to hospital. Explain the effect on JSA, Income Support, State Pension Credit and ESA, distinguishing entitlement, payment and changes in amount, and trace each conclusion to the applicable DWP guidance.";

fn root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

fn build_hospital(dir: &Path) -> String {
    let out = dir.join("hospital.json");
    let o = okf(&[
        "build",
        root().join("profiles/dwp-hospital").to_str().unwrap(),
        "--sources",
        &shared("dwp/source"),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    out.to_string_lossy().into_owned()
}

fn schema() -> jsonschema::Validator {
    let text = std::fs::read_to_string(root().join("schemas/package.schema.json")).unwrap();
    jsonschema::validator_for(&serde_json::from_str(&text).unwrap()).unwrap()
}

fn assert_valid(v: &jsonschema::Validator, instance: &Value) {
    let errors: Vec<String> = v
        .iter_errors(instance)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
}

#[test]
fn okf_build_then_okf_eval_and_self_check_on_the_hospital_profile() {
    let dir = temp_dir("authoring-eval");
    let index = build_hospital(&dir);
    let eval = |extra: &[&str]| {
        let mut args = vec!["eval", "--index", &index];
        args.extend_from_slice(extra);
        okf(&args)
    };
    let case = root().join("profiles/dwp-hospital/eval/case.json");
    let controls = root().join("profiles/dwp-hospital/eval/controls.json");
    let o = eval(&[
        "--case",
        case.to_str().unwrap(),
        "--controls",
        controls.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    assert!(
        stdout(&o).contains("controls: 8 passed, 0 failed"),
        "{}",
        stdout(&o)
    );
    let o = eval(&["--self-check"]);
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    let o = okf(&["lint", "--index", &index]);
    assert!(o.status.success(), "{}", stdout(&o));
}

#[test]
fn regime_profile_is_opt_in_verified_and_schema_valid() {
    let dir = temp_dir("authoring-profile");
    let index = build_hospital(&dir);
    let v = schema();
    let ask = |extra: &[&str]| -> (String, Value) {
        let mut args = vec!["ask", "--index", &index];
        args.extend_from_slice(extra);
        args.push(QUESTION);
        let o = okf(&args);
        assert!(o.status.success(), "{}", stderr(&o));
        let text = stdout(&o).trim_end().to_owned();
        let value = serde_json::from_str(&text).unwrap();
        (text, value)
    };
    let (_, plain) = ask(&[]);
    assert!(plain.get("profile").is_none());
    assert!(plain.get("guidance_regime").is_none());
    assert!(plain.get("status_basis").is_none());
    assert_valid(&v, &plain);

    let (text, rich) = ask(&["--regime-profile", "--as-of", "2026-09-15"]);
    assert_eq!(rich["profile"], "okf-governed-context.v1+regimes.v1");
    let b = "https://example.invalid/ask-okf/dwp-hospital/id/";
    assert_eq!(
        rich["guidance_regime"],
        serde_json::json!({"as_of": "2026-09-15", "not_held": [], "resolved": [format!("{b}regime/legacy-dmg")], "unresolved": [format!("{b}regime/new-style-adm")]})
    );
    let basis = &rich["status_basis"];
    let total = rich["requirements"].as_array().unwrap().len() as u64;
    let met = rich["requirements"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["status"] == "supported-within-declared-scope")
        .count() as u64;
    assert_eq!(basis["requirements_total"], total);
    assert_eq!(basis["requirements_met"], met);
    assert_eq!(basis["requirements_unmet"], total - met);
    assert_eq!(basis["conflicts_blocking"], 0);
    assert_eq!(basis["truncated"], false);
    assert_valid(&v, &rich);
    // The richer package is identified by its own content: okf verify recomputes it.
    let file = dir.join("rich.json");
    std::fs::write(&file, &text).unwrap();
    let o = okf(&["verify", file.to_str().unwrap()]);
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    assert_ne!(rich["context_id"], plain["context_id"]);
    // A default package of the reference DWP index is unchanged by the option's existence.
    let o = okf(&[
        "ask",
        "--index",
        &shared("dwp/full-dmg/context/assembly-index.json"),
        "--as-of",
        "2026-09-15",
        "A claimant is imprisoned.",
    ]);
    let p = okf(&[
        "ask",
        "--index",
        &shared("dwp/full-dmg/context/assembly-index.json"),
        "A claimant is imprisoned.",
    ]);
    assert_eq!(stdout(&o), stdout(&p));
    let bad = okf(&["ask", "--as-of", "2026-02-30", "How do I borrow books?"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        stderr(&bad).contains("as_of: \"2026-02-30\" must be a YYYY-MM-DD calendar date"),
        "{}",
        stderr(&bad)
    );
}

#[test]
fn a_served_version_and_a_question_date_go_together_and_the_date_reaches_the_regimes() {
    let dir = temp_dir("authoring-as-of");
    let index = build_hospital(&dir);
    let sha = okf_engine::canonical::sha256_hex(&std::fs::read(&index).unwrap());
    let registry = dir.join("registry.toml");
    std::fs::write(
        &registry,
        format!("[[bundle]]\nid = \"dwp-hospital\"\nindex = {index:?}\nsha256 = \"{sha}\"\nindex_url = \"https://example.invalid/hospital.json\"\nversion_name = \"2026-09\"\npublished = \"2026-09-15\"\npackage_profile = \"regimes\"\n"),
    )
    .unwrap();
    let server = Server::start(&["--registry", registry.to_str().unwrap()]);
    let question = "A claimant on ESA is admitted to hospital";
    // The version fixed, the date about 2012 (before New Style): ESA is legacy only.
    let body = json!({"bundle": "dwp-hospital", "question": question, "version": "2026-09", "as_of": "2012-06-01"});
    let http = server.ask(&body);
    assert_eq!(http.status, 200, "{}", http.text());
    let p = http.json();
    assert_eq!(p["guidance_regime"]["as_of"], "2012-06-01");
    let ambiguous: Vec<&Value> = p["missing_evidence"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["code"] == "ambiguous_regime")
        .collect();
    assert!(ambiguous.is_empty(), "{ambiguous:?}");
    // MCP takes the same arguments and gives the same package.
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "ask_okf", "arguments": body}});
    let reply = server.mcp(&call, &[]).json();
    assert_eq!(reply["result"]["structuredContent"], p);
    // Without a version, a date before the only dated version (issue 40; was a 404 naming
    // as_of): the default version's package, insufficient, with an issue naming both dates,
    // and the date still reaches the regimes (nothing of New Style is named).
    let early =
        server.ask(&json!({"bundle": "dwp-hospital", "question": question, "as_of": "2012-06-01"}));
    assert_eq!(early.status, 200, "{}", early.text());
    let early = early.json();
    assert_eq!(early["evidence_status"], "insufficient");
    assert_eq!(early["guidance_regime"]["as_of"], "2012-06-01");
    let outside: Vec<&Value> = early["missing_evidence"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["code"] == "question_date_outside_versions")
        .collect();
    assert_eq!(outside.len(), 1, "{}", early["missing_evidence"]);
    let message = outside[0]["message"].as_str().unwrap();
    assert!(
        message.contains("2012-06-01") && message.contains("published 2026-09-15"),
        "{message}"
    );
    assert!(
        !early["missing_evidence"].to_string().contains("new-style"),
        "{}",
        early["missing_evidence"]
    );
    // The date in force: the version published then, the regime left open.
    let now =
        server.ask(&json!({"bundle": "dwp-hospital", "question": question, "as_of": "2026-09-15"}));
    assert_eq!(now.status, 200);
    assert_eq!(now.json()["guidance_regime"]["as_of"], "2026-09-15");
    server.stop();
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn okf_dwp_serves_a_composed_version_that_answers_both_topics() {
    let dir = temp_dir("authoring-composed");
    let base = shared("dwp/full-dmg/context/assembly-index.json");
    let composed = dir.join("composed.json");
    let o = okf(&[
        "build",
        root().join("profiles/dwp-hospital").to_str().unwrap(),
        "--sources",
        &shared("dwp/source"),
        "--base",
        &base,
        "--out",
        composed.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    // Issue 41: the corrected profile (75 records, 121 assertions, 26 requirements) on the
    // base's 52, 127 and 6; the three transfer gaps the base holds are resolved to its pages
    // (78651 to three of them, so two more assertions).
    assert!(
        stdout(&o).contains("127 records, 250 assertions, 32 requirements in 2 parts"),
        "{}",
        stdout(&o)
    );
    assert_eq!(
        stdout(&o)
            .matches("is held by the base: resolved to")
            .count(),
        3
    );
    let sha = |p: &str| okf_engine::canonical::sha256_hex(&std::fs::read(p).unwrap());
    let composed = composed.to_string_lossy().into_owned();
    let registry = dir.join("registry.toml");
    std::fs::write(
        &registry,
        format!(
            "[[bundle]]\nid = \"okf-dwp\"\nindex = {base:?}\nsha256 = \"{}\"\nindex_url = \"https://example.invalid/dwp.json\"\nversion_name = \"efb05c6\"\npublished = \"2026-09-16\"\ndefault_version = \"efb05c6-hospital\"\npackage_profile = \"regimes\"\n\n[[bundle.versions]]\nname = \"efb05c6-hospital\"\nindex = {composed:?}\nsha256 = \"{}\"\npublished = \"2026-09-17\"\n",
            sha(&base),
            sha(&composed)
        ),
    )
    .unwrap();
    let server = Server::start(&["--registry", registry.to_str().unwrap()]);
    let imprisonment: Value = serde_json::from_slice(
        &std::fs::read(shared(
            "dwp/evaluation/context-assembly/imprisonment-case.json",
        ))
        .unwrap(),
    )
    .unwrap();
    let outcomes = |p: &Value| {
        (
            p["evidence_status"].clone(),
            p["selected"].clone(),
            p["requirements"].clone(),
        )
    };
    let ask = |version: &str, question: &str| {
        let r = server.ask(&json!({"bundle": "okf-dwp", "version": version, "question": question}));
        assert_eq!(r.status, 200, "{}", r.text());
        r.json()
    };
    let question = imprisonment["question"].as_str().unwrap();
    let on_composed = ask("efb05c6-hospital", question);
    assert_eq!(on_composed["evidence_status"], "sufficient");
    assert_eq!(on_composed["selected"].as_array().unwrap().len(), 52);
    assert_eq!(outcomes(&on_composed), outcomes(&ask("efb05c6", question)));
    // The hospital question is read by the hospital part: its four branches, the regime left open.
    let hospital = ask("efb05c6-hospital", QUESTION);
    assert_eq!(hospital["evidence_status"], "insufficient");
    let terms: Vec<&str> = hospital["ambiguities"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|a| a["phrase"].as_str())
        .collect();
    assert_eq!(terms, ["ESA", "JSA"], "{}", hospital["ambiguities"]);
    assert!(
        hospital["resolved_concepts"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["id"]
                .as_str()
                .unwrap()
                .starts_with("https://example.invalid/ask-okf/dwp-hospital/")),
        "{}",
        hospital["resolved_concepts"]
    );
    server.stop();
    let _ = std::fs::remove_dir_all(dir);
}

/// A one-page profile in `dir` whose capture says `rule` (the loan rule's sentence), with its
/// sources in `dir/sources`.
fn tiny_profile(dir: &Path, rule: &str) {
    let authority = r#"authority = { class = "synthetic", label = "Test", source = "https://x.example/authority" }"#;
    let defaults = |kind: &str, rights: bool| {
        let rights = if rights { "rights = \"CC0-1.0\"\n" } else { "" };
        format!(
            "[defaults.{kind}]\nassertion_status = \"normalized\"\n{authority}\nscope = \"Test scope.\"\n{rights}"
        )
    };
    let profile = format!(
        "[index]\nbase = \"https://x.example/\"\nscope = \"A tiny test bundle.\"\nlimitations = [\"Test data.\"]\nbundle = {{ id = \"https://x.example/bundle\", snapshot = \"t1\", source_url = \"https://x.example/index.json\" }}\n\n{}\n{}\n{}\n[[document]]\nid = \"doc\"\ncaptured_at = \"2026-01-01T00:00:00Z\"\n",
        defaults("concept", true),
        defaults("evidence", true),
        defaults("assertion", false)
    );
    let graph = std::fs::read_to_string(
        root().join("crates/okf-authoring/tests/fixtures/loans-graph.toml"),
    )
    .unwrap();
    std::fs::create_dir_all(dir.join("sources")).unwrap();
    std::fs::write(dir.join("profile.toml"), profile).unwrap();
    std::fs::write(dir.join("graph.toml"), graph).unwrap();
    let capture = json!({"document_id": "doc", "source_url": "https://x.example/doc.html",
        "source_sha256": "0".repeat(64),
        "pages": [{"page": 1, "url": "https://x.example/doc.html#page=1",
                   "text": format!("Intro. {rule} Renewals are free.")}]});
    std::fs::write(dir.join("sources/doc.json"), capture.to_string()).unwrap();
}

#[test]
fn a_rebuild_against_the_previous_index_names_the_record_whose_page_changed() {
    let dir = temp_dir("build-previous");
    tiny_profile(&dir, "Loans last three weeks.");
    let first = dir.join("first.json");
    let build = |out: &str, previous: &[&str]| {
        let out = dir.join(out);
        let args = [
            &[
                "build",
                dir.to_str().unwrap(),
                "--out",
                out.to_str().unwrap(),
            ],
            previous,
        ]
        .concat();
        let o = okf(&args);
        assert!(o.status.success(), "{}", stderr(&o));
        stdout(&o)
    };
    build("first.json", &[]);
    let previous = ["--previous", first.to_str().unwrap()];
    // The same page again: nothing changed.
    let out = build("again.json", &previous);
    assert!(
        out.contains("0 record(s) changed text, 0 appeared, 0 disappeared"),
        "{out}"
    );
    // The page is republished with a different period: the build still succeeds, and says so.
    tiny_profile(&dir, "Loans last four weeks.");
    let out = build("second.json", &previous);
    assert!(
        out.contains("1 record(s) changed text, 0 appeared, 0 disappeared"),
        "{out}"
    );
    assert!(
        out.contains("changed: https://x.example/evidence/rule"),
        "{out}"
    );
}

#[test]
fn a_build_whose_index_lint_refuses_writes_nothing_unless_allowed() {
    let dir = temp_dir("build-lint");
    tiny_profile(&dir, "Loans last three weeks.");
    // An official status with a synthetic authority: ungoverned, and a lint error.
    let profile = std::fs::read_to_string(dir.join("profile.toml")).unwrap();
    std::fs::write(
        dir.join("profile.toml"),
        profile.replacen(
            "assertion_status = \"normalized\"",
            "assertion_status = \"official\"",
            2,
        ),
    )
    .unwrap();
    let out = dir.join("index.json");
    let o = okf(&[
        "build",
        dir.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(!o.status.success(), "{}", stdout(&o));
    assert!(stderr(&o).contains("lint found"), "{}", stderr(&o));
    assert!(stdout(&o).contains("authority"), "{}", stdout(&o));
    assert!(!out.exists(), "nothing is written");
    let o = okf(&[
        "build",
        dir.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--allow-lint",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(out.exists());
}

#[test]
fn okf_init_writes_a_profile_that_builds_lint_clean_and_answers_its_first_topic() {
    let dir = temp_dir("init").join("council");
    let sources = root().join("profiles/example/sources");
    let (dir_s, sources_s) = (dir.to_str().unwrap(), sources.to_str().unwrap());
    let o = okf(&[
        "init",
        dir_s,
        "--sources",
        sources_s,
        "--captured-on",
        "2026-12-01",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let profile = std::fs::read_to_string(dir.join("profile.toml")).unwrap();
    for id in ["homework-club", "lending-policy", "rooms-guide"] {
        assert!(
            profile.contains(&format!("[[document]]\nid = \"{id}\"")),
            "{profile}"
        );
    }
    let index = dir.join("index.json");
    let o = okf(&[
        "build",
        dir_s,
        "--sources",
        sources_s,
        "--out",
        index.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = okf(&[
        "lint",
        "--index",
        index.to_str().unwrap(),
        "--sources",
        sources_s,
    ]);
    assert!(
        stdout(&o).contains("0 errors, 0 warnings"),
        "{}",
        stdout(&o)
    );
    let o = okf(&[
        "ask",
        "--index",
        index.to_str().unwrap(),
        "--json",
        "first topic",
    ]);
    let package: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(package["evidence_status"], "sufficient");
    // A second init never overwrites a profile.
    let o = okf(&[
        "init",
        dir_s,
        "--sources",
        sources_s,
        "--captured-on",
        "2026-12-01",
    ]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("not empty"), "{}", stderr(&o));
    let o = okf(&[
        "init",
        dir_s,
        "--sources",
        sources_s,
        "--captured-on",
        "1 December",
    ]);
    assert!(stderr(&o).contains("--captured-on"), "{}", stderr(&o));
}

#[test]
fn okf_capture_of_an_html_publication_is_one_page_per_section_and_the_same_bytes_twice() {
    let dir = temp_dir("capture-html");
    let html = dir.join("council-tax-reduction.html");
    std::fs::copy(
        root().join("crates/okf/tests/fixtures/council-tax-reduction.html"),
        &html,
    )
    .unwrap();
    let url = "https://council.example/council-tax-reduction";
    let capture = |out: &Path| {
        let o = okf(&[
            "capture",
            html.to_str().unwrap(),
            "--url",
            url,
            "--out",
            out.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        std::fs::read(out).unwrap()
    };
    std::fs::create_dir_all(dir.join("sources")).unwrap();
    let first = capture(&dir.join("sources/ctr.json"));
    assert_eq!(
        first,
        capture(&dir.join("again.json")),
        "the same file gives the same bytes"
    );
    let value: Value = serde_json::from_slice(&first).unwrap();
    let urls: Vec<&str> = value["pages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["url"].as_str().unwrap())
        .collect();
    assert_eq!(
        urls,
        [
            url.to_owned(),
            format!("{url}#short-stays"),
            format!("{url}#long-stays"),
            format!("{url}#students")
        ]
    );
    let text: String = value["pages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["text"].as_str().unwrap())
        .collect();
    for outside in [
        "cookies",
        "Bins and recycling",
        "Skip to main content",
        "Contents",
        "track(",
        "Accessibility statement",
        "Home",
    ] {
        assert!(
            !text.contains(outside),
            "{outside:?} is not main content: {text}"
        );
    }
    assert_eq!(
        value["source_sha256"],
        okf_engine::canonical::sha256_hex(&std::fs::read(&html).unwrap())
    );
    // The capture builds (every page's literal_sha256 is checked), and an edit to the
    // publication shows up as a changed record on the next build.
    let profile = dir.join("profile");
    let sources = dir.join("sources");
    let o = okf(&[
        "init",
        profile.to_str().unwrap(),
        "--sources",
        sources.to_str().unwrap(),
        "--captured-on",
        "2026-12-01",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let build = |out: &str, previous: Option<&str>| {
        let out = dir.join(out);
        let mut args = vec![
            "build",
            profile.to_str().unwrap(),
            "--sources",
            sources.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ];
        if let Some(p) = previous {
            args.extend(["--previous", p]);
        }
        let o = okf(&args);
        assert!(o.status.success(), "{}", stderr(&o));
        (out, stdout(&o))
    };
    let (before, _) = build("before.json", None);
    let edited = std::fs::read_to_string(&html).unwrap().replace(
        "published on 1 October 2026",
        "published on 1 November 2026",
    );
    std::fs::write(&html, edited).unwrap();
    capture(&dir.join("sources/ctr.json"));
    let (_, report) = build("after.json", Some(before.to_str().unwrap()));
    assert!(report.contains("1 record(s) changed text"), "{report}");
    assert!(
        report.contains("changed: https://example.invalid/profile/evidence/first-page"),
        "{report}"
    );
}

#[test]
fn a_case_drafted_from_a_package_is_written_and_passes_on_its_index() {
    let dir = temp_dir("eval-draft");
    tiny_profile(&dir, "Loans last three weeks.");
    let index = dir.join("index.json");
    let o = okf(&[
        "build",
        dir.to_str().unwrap(),
        "--out",
        index.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = okf(&["ask", "--index", index.to_str().unwrap(), "--json", "Loans"]);
    let package = dir.join("package.json");
    std::fs::write(&package, &o.stdout).unwrap();
    let case = dir.join("case.json");
    let o = okf(&[
        "eval",
        "--index",
        index.to_str().unwrap(),
        "--draft-from",
        package.to_str().unwrap(),
        "--out",
        case.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    let drafted: Value = serde_json::from_slice(&std::fs::read(&case).unwrap()).unwrap();
    assert_eq!(drafted["schema"], "okf-context-evaluation-case.v1");
    assert_eq!(drafted["expected"]["evidence_status"], "sufficient");
    assert_eq!(
        drafted["expected"]["sources"][0]["record_id"],
        "https://x.example/evidence/rule"
    );
    // The written case runs on its own, as any case does.
    let o = okf(&[
        "eval",
        "--index",
        index.to_str().unwrap(),
        "--case",
        case.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stdout(&o));
}

/// A copy of the review fixture profile (`crates/okf-authoring/tests/fixtures/review-profile`)
/// in `dir`, so decisions and the profile can be edited.
fn review_profile(dir: &Path) -> std::path::PathBuf {
    let from = root().join("crates/okf-authoring/tests/fixtures/review-profile");
    let to = dir.join("review-profile");
    for sub in ["", "sources", "reviews"] {
        std::fs::create_dir_all(to.join(sub)).unwrap();
        for entry in std::fs::read_dir(from.join(sub)).unwrap() {
            let path = entry.unwrap().path();
            if path.is_file() {
                std::fs::copy(&path, to.join(sub).join(path.file_name().unwrap())).unwrap();
            }
        }
    }
    to
}

#[test]
fn okf_build_records_review_decisions_refuses_a_bad_one_writing_nothing_and_warns_on_a_stale_one() {
    let dir = temp_dir("reviews");
    let profile = review_profile(&dir);
    let p = profile.to_str().unwrap();
    let out = dir.join("index.json");
    let o = okf(&["build", p, "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("1 requirements, 3 reviews"),
        "{}",
        stdout(&o)
    );
    let built = std::fs::read(&out).unwrap();

    // In the richer profile the package carries the requirement's review and review_basis
    // (issue 45 item 3), valid against the published schema; the brief says it.
    let ask = |extra: &[&str]| {
        let mut args = vec!["ask", "--index", out.to_str().unwrap(), "--regime-profile"];
        args.extend_from_slice(extra);
        args.push("How long is a loan?");
        let o = okf(&args);
        assert!(o.status.success(), "{}", stderr(&o));
        stdout(&o)
    };
    let package: Value = serde_json::from_str(&ask(&[])).unwrap();
    assert_valid(&schema(), &package);
    let review = &package["requirements"][0]["review"];
    assert_eq!(review["state"], "refused");
    assert_eq!(
        review["statement"],
        "Not approved by a specialist: 1 of 3 items refused."
    );
    assert_eq!(
        review["refusals"][0]["reason"],
        "The rule governs the loan period only; renewals are a separate rule the edge does not reach."
    );
    assert_eq!(package["review_basis"]["approved"], 1);
    let brief = ask(&["--brief"]);
    assert!(
        brief.contains("    - Refused by a Library policy specialist on 2026-12-02: The rule governs the loan period only; renewals are a separate rule the edge does not reach. (“Loans are governed by the rule”)\n"),
        "{brief}"
    );

    // The digest tool prints what the fixture's decision states.
    let concept = "https://x.example/concept/loans";
    let o = okf(&[
        "review",
        "digest",
        "--index",
        out.to_str().unwrap(),
        "--item",
        concept,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let decision: Value = serde_json::from_slice(
        &std::fs::read(profile.join("reviews/001-concept-loans.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(stdout(&o).trim(), decision["item_sha256"]);

    // Every fixture decision is valid against the published schema.
    let text = std::fs::read_to_string(root().join("schemas/review-decision.schema.json")).unwrap();
    let v = jsonschema::validator_for(&serde_json::from_str(&text).unwrap()).unwrap();
    assert_valid(&v, &decision);

    // A bad decision: exit 2 naming the file, field and rule; the index is not rewritten.
    let bad = std::fs::read_to_string(profile.join("reviews/001-concept-loans.json"))
        .unwrap()
        .replace("\"approved\"", "\"approve\"");
    std::fs::write(profile.join("reviews/004-bad.json"), bad).unwrap();
    let o = okf(&["build", p, "--out", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("reviews/004-bad.json:5: review decision field `decision` must be approved, changes-required or rejected, not \"approve\""),
        "{}",
        stderr(&o)
    );
    assert_eq!(std::fs::read(&out).unwrap(), built, "nothing is written");
    std::fs::remove_file(profile.join("reviews/004-bad.json")).unwrap();

    // Editing the approved concept: the build warns naming the file, and lint names it.
    let graph = std::fs::read_to_string(profile.join("graph.toml")).unwrap();
    std::fs::write(
        profile.join("graph.toml"),
        graph.replace("Navigation concept.", "Navigation concept for loans."),
    )
    .unwrap();
    let o = okf(&["build", p, "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("2 reviews"), "{}", stdout(&o));
    assert!(
        stderr(&o).contains("reviews/001-concept-loans.json: stale review decision not applied"),
        "{}",
        stderr(&o)
    );
    let reviews = profile.join("reviews");
    let o = okf(&[
        "lint",
        "--index",
        out.to_str().unwrap(),
        "--reviews",
        reviews.to_str().unwrap(),
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let report: Value = serde_json::from_str(&stdout(&o)).unwrap();
    let stale: Vec<&Value> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["kind"] == "stale-review")
        .collect();
    assert_eq!(stale.len(), 1);
    assert!(
        stale[0]["path"]
            .as_str()
            .unwrap()
            .ends_with("001-concept-loans.json")
    );
    assert_eq!(stale[0]["ids"][0], json!(concept));
}

#[test]
fn okf_capture_of_a_pdf_is_one_page_per_pdf_page_and_the_same_bytes_twice() {
    require_pdftotext();
    let dir = temp_dir("capture-pdf");
    let pdf = dir.join("leaflet.pdf");
    let bytes = small_pdf(&[
        &["Council Tax Reduction", "A short guide (2026)"],
        &[],
        &[
            "Students",
            "Full-time students cannot usually get a reduction.",
        ],
    ]);
    std::fs::write(&pdf, &bytes).unwrap();
    let url = "https://council.example/leaflet.pdf";
    let capture = |out: &Path| {
        let o = okf(&[
            "capture",
            pdf.to_str().unwrap(),
            "--url",
            url,
            "--id",
            "ctr-leaflet",
            "--out",
            out.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        assert!(
            stdout(&o).contains("3 page(s) (one per PDF page)"),
            "{}",
            stdout(&o)
        );
        std::fs::read(out).unwrap()
    };
    let first = capture(&dir.join("leaflet.json"));
    assert_eq!(
        first,
        capture(&dir.join("again.json")),
        "the same file gives the same bytes"
    );
    let value: Value = serde_json::from_slice(&first).unwrap();
    assert_eq!(value["document_id"], "ctr-leaflet");
    assert_eq!(value["source_url"], url);
    assert_eq!(
        value["source_sha256"],
        okf_engine::canonical::sha256_hex(&bytes)
    );
    // The DWP captures' convention: `pdftotext -layout -enc UTF-8`, the text between form
    // feeds with the trailing one dropped, empty pages kept, `#page=N` links.
    let extraction = &value["extraction"];
    assert_eq!(extraction["method"], "pdftotext -layout -enc UTF-8");
    assert_eq!(extraction["extractor"], "okf-authoring pdf-pages/1");
    let tool = std::process::Command::new("pdftotext")
        .arg("-v")
        .output()
        .unwrap();
    let version = String::from_utf8_lossy(&tool.stderr)
        .lines()
        .next()
        .unwrap()
        .trim()
        .to_owned();
    assert_eq!(extraction["tool"], version);
    let direct = std::process::Command::new("pdftotext")
        .args(["-layout", "-enc", "UTF-8", pdf.to_str().unwrap(), "-"])
        .output()
        .unwrap();
    let direct = String::from_utf8(direct.stdout).unwrap();
    let expected: Vec<&str> = direct
        .strip_suffix('\u{c}')
        .unwrap()
        .split('\u{c}')
        .collect();
    let pages = value["pages"].as_array().unwrap();
    let texts: Vec<&str> = pages.iter().map(|p| p["text"].as_str().unwrap()).collect();
    assert_eq!(texts, expected);
    assert_eq!(
        texts[1], "",
        "an empty page is kept, so page N is PDF page N"
    );
    assert!(
        texts[2].contains("Full-time students cannot usually get a reduction."),
        "{texts:?}"
    );
    for (i, p) in pages.iter().enumerate() {
        assert_eq!(p["page"], i + 1);
        assert_eq!(p["url"], format!("{url}#page={}", i + 1));
        let text = p["text"].as_str().unwrap();
        assert_eq!(
            p["literal_sha256"],
            okf_engine::canonical::sha256_hex(text.as_bytes())
        );
    }
    // Not a PDF inside: refused before anything runs.
    std::fs::write(dir.join("fake.pdf"), b"<html></html>").unwrap();
    let o = okf(&[
        "capture",
        dir.join("fake.pdf").to_str().unwrap(),
        "--url",
        url,
        "--out",
        dir.join("fake.json").to_str().unwrap(),
    ]);
    assert!(
        !o.status.success() && stderr(&o).contains("not a PDF"),
        "{}",
        stderr(&o)
    );
    assert!(!dir.join("fake.json").exists());
}

#[test]
fn okf_capture_of_a_pdf_names_poppler_when_pdftotext_is_missing() {
    let dir = temp_dir("capture-pdf-missing");
    std::fs::create_dir_all(dir.join("empty-path")).unwrap();
    std::fs::write(dir.join("a.pdf"), small_pdf(&[&["Text"]])).unwrap();
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_okf"))
        .args([
            "capture",
            dir.join("a.pdf").to_str().unwrap(),
            "--url",
            "https://council.example/a.pdf",
            "--out",
            dir.join("a.json").to_str().unwrap(),
        ])
        .env("PATH", dir.join("empty-path"))
        .output()
        .unwrap();
    assert!(!o.status.success());
    let said = stderr(&o);
    assert!(
        said.contains("pdftotext") && said.contains("poppler-utils"),
        "{said}"
    );
    assert!(!dir.join("a.json").exists());
}
