//! `okf workbench build` (assemble, retain as parts, write and re-admit a workbench) and
//! `okf workbench run` (a JSON-lines driver of one workbench session for scripts and tests).

use crate::{CliError, Source, read};
use clap::{Args, Subcommand};
use okf_corpus::source::{CorpusSource, DirSource, SourceError};
use okf_workbench::build::{Built, QuestionsFile};
use okf_workbench::manifest::{self, MAX_MANIFEST_BYTES};
use okf_workbench::ports::{
    Clock, IdSource, LoadFailure, Loader, MemoryPage, PageState, PresentationPort, SeededIds,
    Selection,
};
use okf_workbench::{Session, WorkbenchError, package};
use serde_json::{Value, json};
use std::cell::Cell;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

/// `okf workbench …`
#[derive(Subcommand)]
pub(crate) enum WorkbenchCommand {
    /// Assemble a package per question, retain each as parts and write DIR/manifest.json.
    Build(BuildArgs),
    /// Drive one workbench session: one JSON object per input line, one envelope per tool call.
    Run(RunArgs),
}

/// Options of `okf workbench build`.
#[derive(Args)]
pub(crate) struct BuildArgs {
    #[command(flatten)]
    source: Source,
    /// Questions file: {"questions": [{id, label, question, ambiguities?, required_evidence?, scope_gaps?}], "title"?, "publication"?}.
    #[arg(long)]
    questions: PathBuf,
    /// Output directory (must not exist yet, or be empty).
    #[arg(long)]
    out: PathBuf,
}

/// Options of `okf workbench run`.
#[derive(Args)]
pub(crate) struct RunArgs {
    /// The workbench manifest (okf-evidence-workbench.v1); packages and parts are read beside it.
    #[arg(long)]
    manifest: PathBuf,
    /// Seed of the session's ids (default: random). The web page given the same seed, clock
    /// and calls replies with the same envelopes.
    #[arg(long)]
    seed: Option<String>,
    /// The workbench id deep links name in their `manifest` parameter, as the page does.
    #[arg(long)]
    link_manifest: Option<String>,
}

pub(crate) fn run(command: WorkbenchCommand) -> Result<(), CliError> {
    match command {
        WorkbenchCommand::Build(args) => build(&args),
        WorkbenchCommand::Run(args) => drive(&args),
    }
}

fn failed(message: impl Into<String>) -> CliError {
    CliError::Workbench(message.into())
}

fn build(args: &BuildArgs) -> Result<(), CliError> {
    let spec: QuestionsFile = serde_json::from_slice(&read(&args.questions)?)
        .map_err(|e| failed(format!("questions file {}: {e}", args.questions.display())))?;
    let index = args.source.load()?;
    let budget = args.source.budget()?;
    let binding = args.source.binding();
    let Built {
        manifest_text,
        files,
        admitted,
    } = okf_workbench::build::build(spec, &index, &budget, binding.as_ref()).map_err(
        |e| match e {
            WorkbenchError::Manifest { .. } => {
                failed(format!("the manifest would be refused: {e}"))
            }
            other => failed(other.to_string()),
        },
    )?;
    // Write beside the target, re-admit and verify from disk, then move into place: a failed
    // build leaves no partial workbench behind.
    let mut listed: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(path, text)| (path.as_str(), text.as_bytes()))
        .collect();
    listed.push(("manifest.json", manifest_text.as_bytes()));
    crate::staged::write_dir(&args.out, &listed, |staging| {
        let reread = manifest::admit(&read(&staging.join("manifest.json"))?)
            .map_err(|e| failed(format!("re-admission failed: {e}")))?;
        let loader = FileLoader::new(staging)?;
        for case in &reread.cases {
            package::load_package(case, &loader)
                .map_err(|e| failed(format!("re-admission of {} failed: {e}", case.id)))?;
        }
        Ok(())
    })?;
    let bytes: usize = files
        .iter()
        .filter(|(p, _)| p.starts_with("packages/"))
        .map(|(_, t)| t.len())
        .sum();
    let parts = files.len() - admitted.cases.len();
    eprintln!(
        "okf workbench build: {} questions, {bytes} package bytes, {parts} parts, snapshot {}",
        admitted.cases.len(),
        admitted.snapshot_id
    );
    Ok(())
}

/// Reads manifest-relative files from a directory (paths already passed the path rule)
/// through the corpus reader's confined source: the real path must stay inside the directory
/// and be a regular file, as `okf serve` reads workbench files.
struct FileLoader {
    source: DirSource,
    loads: Cell<u64>,
}

impl FileLoader {
    fn new(dir: &Path) -> Result<Self, CliError> {
        let source = DirSource::new(dir)
            .map_err(|e| failed(format!("cannot open {}: {e}", dir.display())))?;
        Ok(FileLoader {
            source,
            loads: Cell::new(0),
        })
    }
}

impl Loader for FileLoader {
    fn load(&self, path: &str, cap: usize) -> Result<Vec<u8>, LoadFailure> {
        self.loads.set(self.loads.get() + 1);
        let relative = manifest::decode_path(path)?;
        self.source.read(&relative, cap as u64).map_err(|e| {
            LoadFailure::Unavailable(match e {
                SourceError::NotFound => format!("{path} is missing"),
                SourceError::TooLarge => format!("{path} is over its {cap}-byte limit"),
                SourceError::Other(reason) => format!("{path} is unreadable ({reason})"),
            })
        })
    }
}

/// The driver's host: files beside the manifest, a clock moved only by `advance_ms`, random
/// UUIDs and an in-memory page.
struct DriverHost {
    files: FileLoader,
    now: u64,
    ids: SeededIds,
    page: MemoryPage,
}

impl Loader for DriverHost {
    fn load(&self, path: &str, cap: usize) -> Result<Vec<u8>, LoadFailure> {
        self.files.load(path, cap)
    }
}
impl Clock for DriverHost {
    fn now_ms(&self) -> u64 {
        self.now
    }
}
impl IdSource for DriverHost {
    fn next_id(&mut self) -> String {
        self.ids.next_id()
    }
}
impl PresentationPort for DriverHost {
    fn state(&self) -> PageState {
        self.page.state()
    }
    fn present(&mut self, selection: &Selection, expected: u64) -> Result<(), String> {
        self.page.present(selection, expected)
    }
    fn deep_link(&self, selection: &Selection) -> String {
        self.page.deep_link(selection)
    }
}

fn random_seed() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let stack = 0u8;
    format!("{nanos}:{}:{:p}", std::process::id(), &stack)
}

fn load_manifest_bytes(path: &Path) -> Result<Vec<u8>, CliError> {
    let len = std::fs::metadata(path)
        .map_err(|source| CliError::Read {
            path: path.to_owned(),
            source,
        })?
        .len();
    if len > MAX_MANIFEST_BYTES as u64 {
        return Err(failed(format!(
            "{} is {len} bytes, over the {MAX_MANIFEST_BYTES}-byte manifest limit",
            path.display()
        )));
    }
    read(path)
}

/// Replaces every `"$N.path.to.value"` string by that value of the N-th printed envelope.
fn substitute(value: &mut Value, printed: &[Value], line: usize) -> Result<(), CliError> {
    match value {
        Value::String(s) if s.starts_with('$') => {
            let mut steps = s[1..].split('.');
            let n: usize = steps
                .next()
                .and_then(|n| n.parse().ok())
                .ok_or_else(|| failed(format!("line {line}: {s} is not a $N.path reference")))?;
            let mut cur = printed.get(n).ok_or_else(|| {
                failed(format!(
                    "line {line}: {s} refers to envelope {n}, but only {} were printed",
                    printed.len()
                ))
            })?;
            for step in steps {
                let next = match cur {
                    Value::Array(a) => step.parse::<usize>().ok().and_then(|i| a.get(i)),
                    Value::Object(m) => m.get(step),
                    _ => None,
                };
                cur =
                    next.ok_or_else(|| failed(format!("line {line}: {s} has no value at {step}")))?;
            }
            *value = cur.clone();
        }
        Value::Array(items) => {
            for item in items {
                substitute(item, printed, line)?;
            }
        }
        Value::Object(map) => {
            for (_, v) in map.iter_mut() {
                substitute(v, printed, line)?;
            }
        }
        _ => {}
    }
    Ok(())
}

fn tool_call(v: &Value, printed: &[Value], line: usize) -> Result<(String, Value), CliError> {
    let obj = v
        .as_object()
        .ok_or_else(|| failed(format!("line {line}: a call must be an object")))?;
    if let Some(k) = obj.keys().find(|k| *k != "tool" && *k != "arguments") {
        return Err(failed(format!(
            "line {line}: unsupported field {k} in a tool call"
        )));
    }
    let tool = obj
        .get("tool")
        .and_then(Value::as_str)
        .ok_or_else(|| failed(format!("line {line}: tool must be a string")))?;
    let mut arguments = obj.get("arguments").cloned().unwrap_or_else(|| json!({}));
    substitute(&mut arguments, printed, line)?;
    Ok((tool.to_owned(), arguments))
}

fn drive(args: &RunArgs) -> Result<(), CliError> {
    let bytes = load_manifest_bytes(&args.manifest)?;
    let dir = args
        .manifest
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let host = DriverHost {
        files: FileLoader::new(dir)?,
        now: 0,
        ids: SeededIds::new(args.seed.clone().unwrap_or_else(random_seed)),
        page: MemoryPage {
            manifest: args.link_manifest.clone(),
            ..MemoryPage::default()
        },
    };
    let mut session = Session::new(host);
    session
        .load_manifest(&bytes)
        .map_err(|e| failed(format!("{}: {e}", args.manifest.display())))?;
    let mut printed: Vec<Value> = Vec::new();
    let mut out = std::io::stdout().lock();
    let mut emit = |text: String, printed: &mut Vec<Value>| -> Result<(), CliError> {
        printed.push(serde_json::from_str(&text).unwrap_or(Value::Null));
        writeln!(out, "{text}")
            .and_then(|()| out.flush())
            .map_err(CliError::Write)
    };
    for (i, line) in std::io::stdin().lock().lines().enumerate() {
        let line_no = i + 1;
        let line = line.map_err(CliError::Write)?;
        if line.trim().is_empty() {
            continue;
        }
        let v: Value = serde_json::from_str(&line)
            .map_err(|e| failed(format!("line {line_no}: not JSON: {e}")))?;
        if let Some(calls) = v.get("parallel") {
            let calls = calls
                .as_array()
                .ok_or_else(|| failed(format!("line {line_no}: parallel must be an array")))?;
            let parsed = calls
                .iter()
                .map(|c| tool_call(c, &printed, line_no))
                .collect::<Result<Vec<_>, _>>()?;
            // Every call passes the gate and reserves before any tool body runs.
            let started: Vec<_> = parsed
                .iter()
                .map(|(tool, a)| session.begin(tool, a))
                .collect();
            for s in started {
                let text = match s {
                    Ok(ticket) => session.finish(ticket),
                    Err(text) => text,
                };
                emit(text, &mut printed)?;
            }
        } else if v.get("tool").is_some() {
            let (tool, a) = tool_call(&v, &printed, line_no)?;
            let text = session.invoke(&tool, &a);
            emit(text, &mut printed)?;
        } else if let Some(ms) = v.get("advance_ms") {
            let ms = ms.as_u64().ok_or_else(|| {
                failed(format!(
                    "line {line_no}: advance_ms must be a non-negative integer"
                ))
            })?;
            session.host_mut().now += ms;
        } else if v.get("reload").is_some() {
            let bytes = load_manifest_bytes(&args.manifest)?;
            session.reset();
            session
                .load_manifest(&bytes)
                .map_err(|e| failed(format!("line {line_no}: reload refused: {e}")))?;
        } else if let Some(p) = v.get("present") {
            let s = |k: &str| p.get(k).and_then(Value::as_str).map(str::to_owned);
            session
                .host_mut()
                .page
                .navigate(s("case_id"), s("record_id"), s("view"));
        } else {
            return Err(failed(format!(
                "line {line_no}: expected tool, parallel, advance_ms, reload or present"
            )));
        }
    }
    let m = session.metrics();
    eprintln!(
        "okf workbench run: envelopes {}, calls {}, bytes {}, estimated_tokens {}, verified_loads {}, file_loads {}",
        printed.len(),
        m.calls,
        m.bytes,
        m.estimated_tokens,
        session.verified_loads(),
        session.host().files.loads.get()
    );
    Ok(())
}
