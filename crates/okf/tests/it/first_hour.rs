//! What a new user meets first: `okf ask` on a terminal against a pipe or file, `okf explain`
//! on files that are not (or no longer) the package they claim, and the shipped registry.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use crate::common::{Server, okf, stderr, stdout, temp_dir};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn temp(name: &str) -> PathBuf {
    temp_dir("first-hour").join(name)
}

/// Runs `okf ARGS` with its standard output on a pseudo-terminal (util-linux `script`) and
/// returns what the terminal showed, with the terminal's `\r\n` turned back into `\n`.
fn okf_on_terminal(args: &[&str]) -> String {
    let quote = |s: &str| format!("'{}'", s.replace('\'', r"'\''"));
    let command = std::iter::once(env!("CARGO_BIN_EXE_okf"))
        .chain(args.iter().copied())
        .map(quote)
        .collect::<Vec<_>>()
        .join(" ");
    let out = Command::new("script")
        .args(["-q", "-e", "-c", &command, "/dev/null"])
        .stdin(Stdio::null())
        .output()
        .expect("util-linux `script` runs (it gives okf a terminal)");
    assert!(out.status.success(), "{}", stderr(&out));
    stdout(&out).replace("\r\n", "\n")
}

#[test]
fn ask_on_a_terminal_prints_a_summary_and_a_pipe_gets_the_canonical_package() {
    let question = "Explain overdue fines for DVDs";
    let piped = okf(&["ask", question]);
    assert!(piped.status.success());
    let canonical = stdout(&piped);
    let package: Value = serde_json::from_str(&canonical).unwrap();
    let context_id = package["context_id"].as_str().unwrap();
    assert_eq!(
        canonical.len() as u64 - 1,
        package["budget"]["used_bytes"].as_u64().unwrap(),
        "a pipe gets exactly the canonical bytes and one newline"
    );

    let shown = okf_on_terminal(&["ask", question]);
    assert!(
        shown.starts_with("evidence_status  insufficient: "),
        "{shown}"
    );
    assert!(
        shown.contains(&format!("context_id       {context_id}\n")),
        "{shown}"
    );
    assert!(shown.contains("unresolved       dvds\n"), "{shown}");
    assert!(
        shown.contains("missing evidence (1):\n  unresolved_terms: "),
        "{shown}"
    );
    assert!(!shown.contains("\"ai_answer\""), "no JSON on the terminal");

    // --json on a terminal, and a file, get the very bytes of the pipe.
    assert_eq!(okf_on_terminal(&["ask", "--json", question]), canonical);
    let file = temp("ask-to-file.json");
    let status = Command::new(env!("CARGO_BIN_EXE_okf"))
        .args(["ask", question])
        .stdout(std::fs::File::create(&file).unwrap())
        .status()
        .unwrap();
    assert!(status.success());
    assert_eq!(std::fs::read_to_string(&file).unwrap(), canonical);

    // --pretty on a terminal is the same package, indented.
    let pretty: Value =
        serde_json::from_str(&okf_on_terminal(&["ask", "--pretty", question])).unwrap();
    assert_eq!(pretty, package);
}

#[test]
fn an_unquoted_question_gets_a_hint_to_quote_it() {
    let out = okf(&["ask", "How", "do", "I", "borrow", "books?"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("put the question in quotes"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn an_index_that_is_not_an_object_is_refused_without_an_empty_path() {
    let file = temp("array-index.json");
    std::fs::write(&file, "[1, 2]").unwrap();
    let out = okf(&["ask", "--index", file.to_str().unwrap(), "q"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        "okf: invalid index: wrong shape: the index must be a JSON object\n"
    );
}

/// A package of the example bundle written to a file.
fn package_file(name: &str, question: &str) -> (PathBuf, Value) {
    let out = okf(&["ask", question]);
    assert!(out.status.success());
    let path = temp(name);
    std::fs::write(&path, &out.stdout).unwrap();
    (path, serde_json::from_slice(&out.stdout).unwrap())
}

fn explain(args: &[&str]) -> std::process::Output {
    okf(&[&["explain"], args].concat())
}

#[test]
fn explain_refuses_a_file_that_is_not_a_package() {
    for (name, text, names) in [
        ("empty-object.json", "{}", "schema"),
        ("array.json", "[1,2]", "JSON object"),
        (
            "other-schema.json",
            r#"{"schema": "okf-context-index.v1"}"#,
            "schema",
        ),
        ("not-json.json", "{", "not JSON"),
    ] {
        let path = temp(name);
        std::fs::write(&path, text).unwrap();
        let out = explain(&[path.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(2), "{name}: {}", stderr(&out));
        assert!(out.stdout.is_empty(), "{name}: nothing is explained");
        assert!(stderr(&out).contains(names), "{name}: {}", stderr(&out));
    }

    // A package with a field of the wrong type is refused naming that field.
    let (path, mut package) = package_file("wrong-type.json", "How do I borrow books?");
    package["selected"] = Value::String("all of them".into());
    std::fs::write(&path, package.to_string()).unwrap();
    let out = explain(&[path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("`selected`"), "{}", stderr(&out));
}

#[test]
fn explain_refuses_a_tampered_package_loudly_unless_told_to_go_on() {
    let (path, package) = package_file("tampered.json", "How do I borrow books?");
    let mut altered = package.clone();
    altered["question"] = Value::String("How do I steal books?".into());
    std::fs::write(&path, altered.to_string()).unwrap();
    let file = path.to_str().unwrap();

    let out = explain(&[file]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty(), "nothing is explained");
    let message = stderr(&out);
    assert!(
        message.contains("WARNING") && message.contains("does not verify"),
        "{message}"
    );
    assert!(message.contains("context_id"), "{message}");
    assert!(message.contains("--allow-unverified"), "{message}");

    let out = explain(&["--allow-unverified", file]);
    assert_eq!(out.status.code(), Some(0));
    assert!(stderr(&out).contains("WARNING"), "it still warns");
    assert_eq!(
        serde_json::from_slice::<Value>(&out.stdout).unwrap(),
        altered
    );

    // Only used_bytes altered: context_id holds (it excludes used_bytes), used_bytes does not.
    let mut altered = package;
    altered["budget"]["used_bytes"] = Value::from(1);
    std::fs::write(&path, altered.to_string()).unwrap();
    let out = explain(&[file]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("used_bytes"), "{}", stderr(&out));
}

#[test]
fn explain_refuses_a_record_the_package_does_not_mention() {
    let (path, package) = package_file("unknown-record.json", "Explain room booking");
    let unknown = "https://example.org/okf-example/evidence/no-such-record";
    let out = explain(&[path.to_str().unwrap(), "--record", unknown]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    assert!(stderr(&out).contains(unknown), "{}", stderr(&out));

    // A selected record, and one only an issue names, are explained.
    let selected = package["selected"][0]["record"]["id"].as_str().unwrap();
    let out = explain(&[path.to_str().unwrap(), "--record", selected]);
    assert!(out.status.success(), "{}", stderr(&out));
    let view: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(view["item"]["record"]["id"], selected);
    let named = "https://example.org/okf-example/concept/study-room";
    let out = explain(&[path.to_str().unwrap(), "--record", named]);
    assert!(out.status.success(), "{}", stderr(&out));
}

#[test]
fn the_shipped_registry_serves_every_bundle_as_is() {
    let registry = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/registry.toml");
    let server = Server::start(&["--registry", registry.to_str().unwrap()]);
    let bundles = server.request("GET", "/api/bundles", &[], b"").json();
    let list = bundles["bundles"].as_array().unwrap();
    assert!(!list.is_empty());
    for bundle in list {
        assert_eq!(bundle["state"], "ready", "{bundle}");
        for version in bundle["versions"].as_array().unwrap() {
            assert_eq!(version["state"], "ready", "{version}");
            assert!(version["published"].is_string(), "{version}");
        }
    }
    assert_eq!(server.request("GET", "/health", &[], b"").status, 200);
    // The served example equals `okf ask --index` with the registry's binding.
    let served =
        server.ask(&serde_json::json!({"bundle": "example", "question": "How do I borrow books?"}));
    assert_eq!(served.status, 200);
    let text = std::fs::read_to_string(&registry).unwrap();
    let field = |key: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(&format!("{key} = \"")))
            .and_then(|rest| rest.split('"').next())
            .unwrap()
            .to_owned()
    };
    let index = registry.parent().unwrap().join(field("index"));
    let cli = okf(&[
        "ask",
        "--index",
        index.to_str().unwrap(),
        "--binding-url",
        &field("index_url"),
        "--binding-sha256",
        &field("sha256"),
        "How do I borrow books?",
    ]);
    assert_eq!(format!("{}\n", served.text()), stdout(&cli));
}

#[test]
fn the_readme_shows_the_terminal_summary_of_its_first_command() {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md"))
            .unwrap();
    let prompt = "```console\n$ okf ask \"How do I borrow books?\"\n";
    let start = readme.find(prompt).expect("the README shows the summary") + prompt.len();
    let shown = &readme[start..start + readme[start..].find("```\n").unwrap()];
    assert_eq!(
        okf_on_terminal(&["ask", "How do I borrow books?"]),
        shown,
        "update the README's summary to what okf prints"
    );
}
