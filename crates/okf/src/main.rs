//! `okf`: the Ask OKF command line. It only wires the engine crate to files, arguments and
//! standard output; every decision about evidence is made by `okf-engine`.

mod ask_cmd;
mod bench;
mod build_cmd;
mod capture_cmd;
mod check_cmd;
mod corpus_cmd;
mod delivery_cmd;
mod eval_cmd;
mod example;
mod explain_cmd;
mod init_cmd;
mod lint_cmd;
mod log_lines;
mod registry_cmd;
mod review_cmd;
mod serve_cmd;
mod staged;
mod workbench_cmd;

use clap::{Args, Parser, Subcommand};
use okf_engine::{Binding, Budget, ContextIndex, Error, check_identity, package_identity};
use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "okf",
    version,
    about = "Ask OKF: bounded, deterministic evidence packages for questions about published guidance."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Assemble the evidence package for a question: a summary on a terminal, else canonical JSON.
    Ask(ask_cmd::AskArgs),
    /// Recompute context_id and used_bytes of a package; exit 0 only if both hold.
    Verify {
        /// Package JSON file.
        #[arg(required_unless_present = "parts", conflicts_with = "parts")]
        package: Option<PathBuf>,
        /// Instead of a package: a parts list (parts.json, or the folder holding it) written by
        /// `okf retain`; the parts are checked and reassembled, then the package is verified.
        #[arg(long)]
        parts: Option<PathBuf>,
    },
    /// Print one page of a package's catalogue (okf-context-manifest.v1).
    Catalogue(delivery_cmd::CatalogueArgs),
    /// Print an exact slice of one section of a package (okf-context-read.v1).
    Read(delivery_cmd::ReadArgs),
    /// Write a package as part files of at most 32,768 bytes plus a parts list.
    Retain(delivery_cmd::RetainArgs),
    /// Check a package, then print its explanation view, or that of one record in it.
    Explain(explain_cmd::ExplainArgs),
    /// Check an AI's answer (okf-grounded-answer.v1) against its package, claim by claim.
    CheckAnswer(check_cmd::CheckArgs),
    /// Time loading the index once and assembling the question N times in process.
    Bench(BenchArgs),
    /// Check an evaluation case (and mutation controls) against an index, or self-check it.
    Eval(eval_cmd::EvalArgs),
    /// Report what the engine tolerates in an index but an author should fix.
    Lint(lint_cmd::LintArgs),
    /// Serve the HTTP API and the MCP endpoint over an allow-listed bundle registry.
    Serve(serve_cmd::ServeArgs),
    /// Compile an authoring profile and its captured pages into an index.
    Build(build_cmd::BuildArgs),
    /// Write a first authoring profile for a folder of captured page files.
    Init(init_cmd::InitArgs),
    /// Make a captured page file from a published HTML publication (one page per section) or PDF (one per page).
    Capture(capture_cmd::CaptureArgs),
    /// Registry files: write a bundle's index digest into its entry (`okf registry pin`).
    #[command(subcommand)]
    Registry(registry_cmd::RegistryCommand),
    /// Review decisions: print the item_sha256 a decision about an item must state.
    #[command(subcommand)]
    Review(review_cmd::ReviewCommand),
    /// Build an evidence workbench (retained packages and parts) or drive one session of it.
    #[command(subcommand)]
    Workbench(workbench_cmd::WorkbenchCommand),
    /// Build a sharded corpus from an index, or generate the synthetic scale corpus.
    Corpus(corpus_cmd::CorpusArgs),
}

/// Where the index comes from and how packages are bound and budgeted.
#[derive(Args, Clone)]
pub(crate) struct Source {
    /// Index file (okf-context-index.v1). Without it the embedded example bundle is used.
    #[arg(long)]
    index: Option<PathBuf>,
    /// Corpus manifest (okf-context-corpus.v1/v2/v3); its directory holds the shards.
    #[arg(long, conflicts_with = "index")]
    corpus: Option<PathBuf>,
    /// Binding URL to record instead of bundle.source_url (needs --binding-sha256).
    #[arg(long, requires = "binding_sha256")]
    binding_url: Option<String>,
    /// Binding SHA-256 to record instead of the canonical-index digest (needs --binding-url).
    #[arg(long, requires = "binding_url")]
    binding_sha256: Option<String>,
    #[command(flatten)]
    budget: BudgetArgs,
}

/// The budget flags of every command that assembles; their help states the engine's ranges
/// and defaults (a test compares them with `okf_engine::BUDGET_RANGES`).
#[derive(Args, Clone)]
pub(crate) struct BudgetArgs {
    /// Most records to select (1-200, default 64).
    #[arg(long)]
    max_nodes: Option<u64>,
    /// Most relationships to hold (1-1000, default 128).
    #[arg(long)]
    max_relationships: Option<u64>,
    /// Most hops from a seed (0-8, default 6).
    #[arg(long)]
    max_depth: Option<u64>,
    /// Largest package in bytes (8192-524288, default 524288).
    #[arg(long)]
    max_bytes: Option<u64>,
}

impl BudgetArgs {
    /// The budget the flags give: the engine's defaults overridden, every range checked.
    pub(crate) fn budget(&self) -> Result<Budget, CliError> {
        Ok(Budget::with_overrides(
            self.max_nodes,
            self.max_relationships,
            self.max_depth,
            self.max_bytes,
        )?)
    }
}

#[derive(Args)]
pub(crate) struct BenchArgs {
    #[command(flatten)]
    source: Source,
    /// Timed assemblies.
    #[arg(long, default_value_t = 200)]
    n: u32,
    /// Untimed warm-up assemblies.
    #[arg(long, default_value_t = 20)]
    warmup: u32,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
    /// The question.
    question: String,
}

/// A failure the command line reports: the message and the exit code.
#[derive(Debug, thiserror::Error)]
pub(crate) enum CliError {
    /// The engine refused the input.
    #[error(transparent)]
    Engine(#[from] Error),
    /// A file could not be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// Writing to standard output failed.
    #[error("cannot write output: {0}")]
    Write(#[from] std::io::Error),
    /// The server could not start or stopped with an error.
    #[error(transparent)]
    Serve(#[from] serve_cmd::ServeFailure),
    /// `okf verify` found a mismatch.
    #[error("{0}")]
    Verification(String),
    /// `okf eval` or `okf lint` refused an input (a case, controls file or mutation).
    #[error(transparent)]
    Eval(#[from] okf_eval::EvalError),
    /// `okf build` refused a profile or capture (file, line and rule).
    #[error(transparent)]
    Authoring(#[from] okf_authoring::Error),
    /// `okf workbench` refused an input or could not write its output.
    #[error("{0}")]
    Workbench(String),
    /// An `okf eval` expectation failed or `okf lint` found an error (exit 1).
    #[error("{0}")]
    Failed(String),
    /// An input is not what the command needs (not a package; a record the package lacks).
    #[error("{0}")]
    Input(String),
    /// A corpus could not be read, built or assembled.
    #[error(transparent)]
    Corpus(#[from] okf_corpus::Error),
}

impl Source {
    /// Loads the index (from the file or the embedded example).
    pub(crate) fn load(&self) -> Result<ContextIndex, CliError> {
        match &self.index {
            Some(path) => {
                let bytes = read(path)?;
                Ok(ContextIndex::from_json_slice(&bytes)?)
            }
            None => Ok(ContextIndex::from_json_str(example::INDEX_JSON)?),
        }
    }

    pub(crate) fn binding(&self) -> Option<Binding> {
        match (&self.binding_url, &self.binding_sha256) {
            (Some(url), Some(sha)) => Some(Binding {
                index_url: url.clone(),
                index_sha256: sha.clone(),
            }),
            _ => None,
        }
    }

    pub(crate) fn budget(&self) -> Result<Budget, CliError> {
        self.budget.budget()
    }
}

fn read(path: &Path) -> Result<Vec<u8>, CliError> {
    std::fs::read(path).map_err(|source| CliError::Read {
        path: path.to_owned(),
        source,
    })
}

fn read_package(path: &Path) -> Result<Value, CliError> {
    let bytes = read(path)?;
    serde_json::from_slice(&bytes).map_err(|e| {
        CliError::Engine(Error::Json {
            what: "package",
            message: e.to_string(),
        })
    })
}

fn print(text: &str) -> Result<(), CliError> {
    let mut out = std::io::stdout().lock();
    let written = out
        .write_all(text.as_bytes())
        .and_then(|()| out.write_all(b"\n"))
        .and_then(|()| out.flush());
    match written {
        // A reader that stopped early (`okf ask … | head`) is not an error.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => Ok(other?),
    }
}

/// Writes `text` to standard output exactly (no newline added), as [`print`] does otherwise.
fn print_exact(text: &str) -> Result<(), CliError> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => Ok(other?),
    }
}

fn pretty(value: &Value) -> String {
    // Values built from parsed JSON always serialise.
    serde_json::to_string_pretty(value).unwrap_or_default()
}

fn run(cli: Cli) -> Result<(), CliError> {
    match cli.command {
        Command::Ask(args) => ask_cmd::run(&args),
        Command::Verify {
            parts: Some(list), ..
        } => {
            let context = delivery_cmd::reconstruct_from(&list)?;
            println!("parts ok: reassembled {} bytes", context.text().len());
            println!("context_id {}", context.context_id());
            println!("ok");
            Ok(())
        }
        Command::Verify { package, .. } => {
            let value = read_package(package.as_deref().unwrap_or(Path::new("-")))?;
            let computed = package_identity(&value)?;
            println!("context_id {}", computed.context_id);
            println!("used_bytes {}", computed.used_bytes);
            match check_identity(&value, &computed) {
                Ok(_) => {
                    println!("ok");
                    Ok(())
                }
                Err(e) => Err(CliError::Verification(format!("verification failed: {e}"))),
            }
        }
        Command::Explain(args) => explain_cmd::run(&args),
        Command::CheckAnswer(args) => check_cmd::run(&args),
        Command::Catalogue(args) => delivery_cmd::catalogue(&args),
        Command::Read(args) => delivery_cmd::read_section(&args),
        Command::Retain(args) => delivery_cmd::retain(&args),
        Command::Bench(args) => match &args.source.corpus {
            Some(manifest) => corpus_cmd::bench(&args, manifest),
            None => bench::run(&args),
        },
        Command::Corpus(args) => corpus_cmd::run(&args),
        Command::Eval(args) => eval_cmd::run(&args),
        Command::Lint(args) => lint_cmd::run(&args),
        Command::Serve(args) => serve_cmd::run(args),
        Command::Build(args) => build_cmd::run(&args),
        Command::Init(args) => init_cmd::run(&args),
        Command::Capture(args) => capture_cmd::run(&args),
        Command::Registry(command) => registry_cmd::run(&command),
        Command::Review(command) => review_cmd::run(command),
        Command::Workbench(command) => workbench_cmd::run(command),
    }
}

/// Parses the arguments; a question typed without quotes gets a hint to quote it.
fn parse() -> Cli {
    Cli::try_parse().unwrap_or_else(|mut e| {
        let takes_question = matches!(std::env::args().nth(1).as_deref(), Some("ask" | "bench"));
        if takes_question && e.kind() == clap::error::ErrorKind::UnknownArgument {
            e.insert(
                clap::error::ContextKind::Suggested,
                clap::error::ContextValue::StyledStrs(vec![
                    "put the question in quotes: okf ask \"How do I borrow books?\"".into(),
                ]),
            );
        }
        e.exit()
    })
}

fn main() -> ExitCode {
    match run(parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("okf: {e}");
            match e {
                CliError::Verification(_) | CliError::Failed(_) => ExitCode::from(1),
                _ => ExitCode::from(2),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::BudgetArgs;
    use clap::Args;

    #[test]
    fn the_budget_flags_state_the_engine_ranges_and_defaults() {
        let command = BudgetArgs::augment_args(clap::Command::new("okf"));
        let defaults = okf_engine::Budget::default().values();
        for ((key, min, max), default) in okf_engine::BUDGET_RANGES.iter().zip(defaults) {
            let arg = command
                .get_arguments()
                .find(|a| a.get_id() == *key)
                .unwrap_or_else(|| panic!("no flag for {key}"));
            let help = arg.get_help().map(ToString::to_string).unwrap_or_default();
            let stated = format!("({min}-{max}, default {default})");
            assert!(
                help.ends_with(&stated),
                "--{key}: {help:?} does not end {stated:?}"
            );
        }
    }
}
