//! The README's commands, run as written: every `sh` block that README.md marks as run by this
//! test is split into commands (comments dropped, `\` continuations joined) and each one runs
//! in `sh` from the repository root with the freshly built `okf` first on `PATH`, as after
//! `cargo install --path crates/okf`. Each must exit 0.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::path::{Path, PathBuf};
use std::process::Command;

const MARKER: &str = "crates/okf/tests/it/readme_tour.rs runs every command of the next block";

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The commands of every marked `sh` block, in order.
fn marked_commands(readme: &str) -> Vec<String> {
    let mut commands = Vec::new();
    let mut lines = readme.lines();
    while let Some(line) = lines.next() {
        if !line.contains(MARKER) {
            continue;
        }
        assert_eq!(lines.next(), Some("```sh"), "a marked block is a sh block");
        let mut pending = String::new();
        for line in lines.by_ref().take_while(|l| *l != "```") {
            let code = strip_comment(line).trim_end();
            if code.trim().is_empty() && pending.is_empty() {
                continue;
            }
            match code.strip_suffix('\\') {
                Some(head) => pending.push_str(head),
                None => {
                    pending.push_str(code);
                    commands.push(std::mem::take(&mut pending).trim().to_owned());
                }
            }
        }
        assert!(pending.is_empty(), "unfinished continuation: {pending}");
    }
    commands
}

/// The line without a `#` comment outside quotes.
fn strip_comment(line: &str) -> &str {
    let mut quote = None;
    for (i, c) in line.char_indices() {
        match (quote, c) {
            (None, '"' | '\'') => quote = Some(c),
            (Some(q), _) if c == q => quote = None,
            (None, '#') if i == 0 || line[..i].ends_with(' ') => return &line[..i],
            _ => {}
        }
    }
    line
}

#[test]
fn comment_and_continuation_handling() {
    let text = format!(
        "<!-- {MARKER} -->\n```sh\n# intro\nokf ask \"a # b\"   # note\nokf x \\\n  --y 1 \\\n  z > f\n\n```\n"
    );
    assert_eq!(
        marked_commands(&text),
        ["okf ask \"a # b\"", "okf x   --y 1   z > f"]
    );
}

#[test]
fn the_readme_tour_runs_as_written() {
    let root = repo_root();
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let commands = marked_commands(&readme);
    assert!(
        commands.len() >= 9,
        "the README marks its first command and the tour: {commands:?}"
    );
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_okf")).parent().unwrap();
    let path = std::env::join_paths(std::iter::once(bin_dir.to_path_buf()).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .unwrap();
    // The tour writes package.json into the repository root (ignored by git); leave no trace.
    let written = root.join("package.json");
    let existed = written.exists();
    let mut failures = Vec::new();
    for command in &commands {
        assert!(
            command.starts_with("okf "),
            "the tour uses the installed okf only: {command}"
        );
        let out = Command::new("sh")
            .arg("-c")
            .arg(command)
            .current_dir(&root)
            .env("PATH", &path)
            .output()
            .unwrap();
        if !out.status.success() {
            failures.push(format!(
                "{command}\n  exit {:?}: {}",
                out.status.code(),
                String::from_utf8_lossy(&out.stderr)
            ));
        }
    }
    if !existed {
        let _ = std::fs::remove_file(&written);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
