//! `okf build` on the DWP hospital profile, `okf eval` on the result, and the richer package
//! profile (`okf ask --regime-profile`) checked by `okf verify` and the published schema.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use crate::common::{okf, shared, stderr, stdout, temp_dir};
use serde_json::Value;
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
        serde_json::json!({"as_of": "2026-09-15", "resolved": [format!("{b}regime/legacy-dmg")], "unresolved": [format!("{b}regime/new-style-adm")]})
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
