//! `okf ask`: assemble a package and print it. A pipe or file receives the canonical compact
//! JSON (the bytes `context_id` and `used_bytes` are computed over); a person at a terminal gets
//! a short summary instead unless `--json` or `--pretty` asks for the package itself. With
//! `--brief` it prints the package's evidence brief (`okf_brief::render`), the text a language
//! model reads, byte for byte as the library renders it.

use crate::{CliError, Source, print};
use clap::Args;
use okf_engine::Error;
use serde_json::Value;
use std::fmt::Write as _;
use std::io::IsTerminal;

#[derive(Args)]
pub(crate) struct AskArgs {
    #[command(flatten)]
    pub(crate) source: Source,
    /// Print the canonical compact JSON even on a terminal (what a pipe or file always gets).
    #[arg(long, conflicts_with = "pretty")]
    json: bool,
    /// Pretty-print the package instead of canonical compact JSON (the identity is unchanged).
    #[arg(long)]
    pretty: bool,
    /// Print the evidence brief (Markdown for a language model: status, branches, gaps, whole
    /// records within a character budget, how to answer) instead of the package.
    #[arg(long, conflicts_with_all = ["json", "pretty"])]
    brief: bool,
    /// The brief's budget in characters (Unicode scalar values), 2000-1000000; default 90000.
    #[arg(
        long,
        value_name = "N",
        requires = "brief",
        value_parser = clap::value_parser!(u64).range(okf_brief::MIN_MAX_CHARS as u64..=okf_brief::MAX_MAX_CHARS as u64)
    )]
    brief_chars: Option<u64>,
    /// The date the question is about (YYYY-MM-DD); guidance regimes not in force on it are
    /// not candidates (only indexes that declare regimes are affected).
    #[arg(long)]
    as_of: Option<String>,
    /// Write the richer package profile (guidance_regime, status_basis); off by default.
    #[arg(long)]
    regime_profile: bool,
    /// Also write the execution receipt (okf-execution.v1: when and where this build ran,
    /// never part of the package) to this file.
    #[arg(long, value_name = "FILE")]
    receipt: Option<std::path::PathBuf>,
    /// The question (quote it: okf ask "How do I borrow books?").
    pub(crate) question: String,
}

/// What `okf ask` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Output {
    /// The canonical compact JSON.
    Canonical,
    /// Indented JSON of the same package.
    Pretty,
    /// The human summary of [`summary`].
    Summary,
}

/// The output for the flags and whether standard output is a terminal.
pub(crate) fn output(json: bool, pretty: bool, stdout_is_terminal: bool) -> Output {
    match (json, pretty) {
        (_, true) => Output::Pretty,
        (true, false) => Output::Canonical,
        (false, false) if stdout_is_terminal => Output::Summary,
        (false, false) => Output::Canonical,
    }
}

pub(crate) fn run(args: &AskArgs) -> Result<(), CliError> {
    let started = okf_server::execution::Started::now();
    let assembled = build_package(
        &args.source,
        &args.question,
        args.as_of.as_deref(),
        args.regime_profile,
    )?;
    if let Some(path) = &args.receipt {
        write_receipt(path, started, args, &assembled)?;
    }
    let json = assembled.json;
    if args.brief {
        let max_chars = args
            .brief_chars
            .map_or(okf_brief::DEFAULT_MAX_CHARS, |n| n as usize);
        let options = okf_brief::BriefOptions::with_max_chars(max_chars)
            .map_err(|e| CliError::Input(format!("--brief-chars: {e}")))?;
        let brief = okf_brief::render(&json, &options)
            .map_err(|e| CliError::Input(format!("--brief: {e}")))?;
        return crate::print_exact(&brief.text);
    }
    let parsed = || -> Result<Value, CliError> {
        serde_json::from_str(&json).map_err(|e| {
            CliError::Engine(Error::Json {
                what: "package",
                message: e.to_string(),
            })
        })
    };
    match output(args.json, args.pretty, std::io::stdout().is_terminal()) {
        Output::Canonical => print(&json),
        Output::Pretty => print(&crate::pretty(&parsed()?)),
        Output::Summary => print(&summary(&parsed()?)),
    }
}

/// Writes the receipt of this build to `path` (whole or not at all). The CLI has no registry,
/// so its bundle is `example` (the embedded bundle) or `local` (a file), its version is
/// `embedded`, `file` or `corpus`, and its instance is `okf-cli`.
fn write_receipt(
    path: &std::path::Path,
    started: okf_server::execution::Started,
    args: &AskArgs,
    package: &okf_engine::Assembled,
) -> Result<(), CliError> {
    let parsed: Value = serde_json::from_str(&package.json).unwrap_or_default();
    let index_sha256 = parsed["binding"]["index_sha256"]
        .as_str()
        .unwrap_or_default();
    let (bundle, version) = match (&args.source.corpus, &args.source.index) {
        (Some(_), _) => ("local", "corpus"),
        (None, Some(_)) => ("local", "file"),
        (None, None) => ("example", "embedded"),
    };
    let receipt = started.receipt("okf-cli", bundle, version, index_sha256, package);
    crate::staged::write_file(path, receipt.to_json().as_bytes())
}

/// The package `okf ask` prints for `question` from `source` (an index file, the embedded
/// example or a corpus manifest), with its budget, binding, date and profile; `okf
/// check-answer` replays a package the same way.
pub(crate) fn build_package(
    source: &Source,
    question: &str,
    as_of: Option<&str>,
    regime_profile: bool,
) -> Result<okf_engine::Assembled, CliError> {
    let budget = source.budget()?;
    let binding = source.binding();
    if let Some(manifest) = &source.corpus {
        let corpus = crate::corpus_cmd::open(manifest)?;
        return Ok(corpus
            .assemble(question, &budget, binding.as_ref())?
            .assembled);
    }
    let index = source.load()?;
    let options = okf_engine::AssembleOptions {
        as_of: as_of.map(okf_engine::AsOf::parse).transpose()?,
        regime_profile,
        ..okf_engine::AssembleOptions::default()
    };
    Ok(okf_engine::assemble_with_options(
        &index,
        question,
        &budget,
        binding.as_ref(),
        &options,
    )?)
}

/// The array at `key`, or nothing.
pub(crate) fn items<'a>(package: &'a Value, key: &str) -> &'a [Value] {
    package
        .get(key)
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

/// A string of the package (index text is untrusted) made safe for a terminal: control and
/// bidirectional-override characters are shown escaped, never sent to the terminal.
pub(crate) fn text(value: &Value, key: &str) -> String {
    plain(value.get(key).and_then(Value::as_str).unwrap_or(""))
}

/// `s` with control and bidirectional-override characters escaped.
pub(crate) fn plain(s: &str) -> String {
    s.chars()
        .map(|c| {
            let bidi = matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}');
            if c.is_control() || bidi {
                c.escape_unicode().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

fn number(value: &Value, key: &str) -> u64 {
    value.get(key).and_then(Value::as_u64).unwrap_or(0)
}

/// `1 record`, `2 records`.
fn counted(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("{n} {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// What each evidence status means for the reader.
fn meaning(status: &str) -> &'static str {
    match status {
        "sufficient" => "every evidence requirement that applies is met within its declared scope",
        "insufficient" => "evidence is missing; the package says what (below)",
        "conflicting" => "the bundle declares evidence in conflict; settle it before concluding",
        _ => "not a status this version of okf knows",
    }
}

/// A short human summary of a package: status, identity, counts and everything missing.
pub(crate) fn summary(package: &Value) -> String {
    let mut out = package_lines(package);
    let _ = write!(
        out,
        "\nai_answer is null: this is evidence, not an answer. The whole package: add --pretty, or\n\
         --json for the canonical bytes (what a pipe or file always receives)."
    );
    out
}

/// The lines of [`summary`] before its closing note (`okf explain` closes its own way).
pub(crate) fn package_lines(package: &Value) -> String {
    let mut out = String::new();
    let status = text(package, "evidence_status");
    let _ = writeln!(out, "evidence_status  {status}: {}", meaning(&status));
    let _ = writeln!(out, "context_id       {}", text(package, "context_id"));
    let _ = writeln!(out, "question         {}", text(package, "question"));

    let concepts: Vec<String> = items(package, "resolved_concepts")
        .iter()
        .map(|c| text(c, "label"))
        .collect();
    if !concepts.is_empty() {
        let _ = writeln!(out, "resolved         {}", concepts.join("; "));
    }
    let unresolved: Vec<String> = items(package, "unresolved_terms")
        .iter()
        .filter_map(Value::as_str)
        .map(plain)
        .collect();
    if !unresolved.is_empty() {
        let _ = writeln!(out, "unresolved       {}", unresolved.join(", "));
    }
    for a in items(package, "ambiguities") {
        let _ = writeln!(
            out,
            "ambiguous        \"{}\" names {} (none chosen)",
            text(a, "phrase"),
            counted(items(a, "candidates").len(), "concept")
        );
    }

    let requirements = items(package, "requirements");
    let met = requirements
        .iter()
        .filter(|r| text(r, "status") == "supported-within-declared-scope")
        .count();
    let _ = writeln!(out, "requirements     {met} of {} met", requirements.len());
    let budget = package.get("budget").unwrap_or(&Value::Null);
    let _ = writeln!(
        out,
        "selected         {}, {} (depth {})",
        counted(items(package, "selected").len(), "record"),
        counted(items(package, "relationships").len(), "relationship"),
        number(budget, "reached_depth")
    );
    let _ = writeln!(
        out,
        "budget           {} of {} bytes{}",
        number(budget, "used_bytes"),
        number(budget, "max_bytes"),
        if budget.get("truncated") == Some(&Value::Bool(true)) {
            format!(
                ", trimmed ({} left out)",
                counted(items(budget, "omissions").len(), "item")
            )
        } else {
            String::new()
        }
    );

    for (key, title) in [
        ("missing_evidence", "missing evidence"),
        ("conflicts", "conflicts"),
    ] {
        let issues = items(package, key);
        if issues.is_empty() {
            continue;
        }
        let _ = writeln!(out, "\n{title} ({}):", issues.len());
        for issue in issues {
            let _ = writeln!(out, "  {}: {}", text(issue, "code"), text(issue, "message"));
            let ids: Vec<&str> = items(issue, "ids")
                .iter()
                .filter_map(Value::as_str)
                .collect();
            if !ids.is_empty() {
                let _ = writeln!(out, "    {}", ids.join("\n    "));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terminal_gets_the_summary_unless_json_or_pretty_is_asked_for() {
        assert_eq!(output(false, false, true), Output::Summary);
        assert_eq!(output(true, false, true), Output::Canonical);
        assert_eq!(output(false, true, true), Output::Pretty);
    }

    #[test]
    fn pipe_or_file_always_gets_the_package() {
        assert_eq!(output(false, false, false), Output::Canonical);
        assert_eq!(output(true, false, false), Output::Canonical);
        assert_eq!(output(false, true, false), Output::Pretty);
    }

    fn example(question: &str) -> Value {
        let index = okf_engine::ContextIndex::from_json_str(crate::example::INDEX_JSON)
            .unwrap_or_else(|e| panic!("example index: {e}"));
        let package = okf_engine::assemble(&index, question, &okf_engine::Budget::default(), None)
            .unwrap_or_else(|e| panic!("assemble: {e}"));
        serde_json::from_str(&package.json).unwrap_or_else(|e| panic!("package JSON: {e}"))
    }

    #[test]
    fn summary_names_status_identity_and_counts() {
        let package = example("How do I borrow books?");
        let s = summary(&package);
        assert!(s.starts_with("evidence_status  sufficient: "), "{s}");
        assert!(
            s.contains(&format!(
                "context_id       {}\n",
                text(&package, "context_id")
            )),
            "{s}"
        );
        let requirements = items(&package, "requirements").len();
        assert!(
            s.contains(&format!(
                "requirements     {requirements} of {requirements} met"
            )),
            "{s}"
        );
        assert!(!s.contains("missing evidence"), "{s}");
    }

    #[test]
    fn summary_lists_what_is_missing_with_its_ids() {
        let package = example("Explain overdue fines for DVDs");
        let s = summary(&package);
        assert!(s.starts_with("evidence_status  insufficient: "), "{s}");
        assert!(s.contains("unresolved       dvds\n"), "{s}");
        assert!(
            s.contains("missing evidence (1):\n  unresolved_terms: "),
            "{s}"
        );

        let ambiguous = summary(&example("Explain room booking"));
        assert!(
            ambiguous.contains("ambiguous        \"room booking\" names 2 concepts"),
            "{ambiguous}"
        );
        assert!(
            ambiguous.contains("    https://example.org/okf-example/concept/meeting-room\n"),
            "{ambiguous}"
        );

        let conflicting = summary(&example("What are the opening hours?"));
        assert!(
            conflicting.contains("conflicts (1):\n  declared_conflict: "),
            "{conflicting}"
        );
    }

    #[test]
    fn summary_never_sends_control_characters_to_the_terminal() {
        let mut package = example("Explain overdue fines for DVDs");
        package["question"] = Value::String("a\u{1b}[2Jb\u{202e}c\nd é".into());
        package["unresolved_terms"] = serde_json::json!(["x\u{7}y"]);
        let s = summary(&package);
        assert!(
            s.contains("question         a\\u{1b}[2Jb\\u{202e}c\\u{a}d é\n"),
            "{s}"
        );
        assert!(s.contains("unresolved       x\\u{7}y\n"), "{s}");
        assert!(!s.contains('\u{1b}') && !s.contains('\u{7}') && !s.contains('\u{202e}'));
    }

    #[test]
    fn summary_reports_a_trimmed_budget() {
        let index = okf_engine::ContextIndex::from_json_str(crate::example::INDEX_JSON)
            .unwrap_or_else(|e| panic!("example index: {e}"));
        let budget = okf_engine::Budget::with_overrides(None, None, None, Some(8192))
            .unwrap_or_else(|e| panic!("budget: {e}"));
        let package = okf_engine::assemble(&index, "How do I borrow books?", &budget, None)
            .unwrap_or_else(|e| panic!("assemble: {e}"));
        let value: Value = serde_json::from_str(&package.json).unwrap_or_else(|e| panic!("{e}"));
        let s = summary(&value);
        let omitted = items(&value["budget"], "omissions").len();
        assert!(
            s.contains(&format!(
                " of 8192 bytes, trimmed ({omitted} items left out)"
            )),
            "{s}"
        );
    }
}
