//! `okf corpus build|generate`, `okf ask --corpus` and `okf bench --corpus`: wiring between the
//! `okf-corpus` crate, local directories and standard output.

use crate::{BenchArgs, CliError, print};
use clap::{Args, Subcommand};
use okf_corpus::source::DirSource;
use okf_corpus::{BuiltCorpus, Corpus, build_v3};
use okf_engine::ContextIndex;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// `okf corpus …`.
#[derive(Args)]
pub(crate) struct CorpusArgs {
    #[command(subcommand)]
    command: CorpusCommand,
}

#[derive(Subcommand)]
enum CorpusCommand {
    /// Shard an index into an okf-context-corpus.v3 corpus (DIR/manifest.json and its shards).
    Build {
        /// Index file (okf-context-index.v1).
        index: PathBuf,
        /// Output directory; must not exist yet.
        #[arg(long)]
        out: PathBuf,
        /// Evidence units per record shard (1-10000); shards also close at 128 KiB.
        #[arg(long, default_value_t = 1000)]
        units_per_shard: usize,
    },
    /// Write the deterministic synthetic scale corpus used by the benchmarks. It is built in
    /// memory before it is written: about 15 KB per unit at peak (100,000 units: 1.5 GB).
    Generate {
        /// Evidence units (at least 5).
        #[arg(long)]
        units: u64,
        /// Output directory; must not exist yet.
        #[arg(long)]
        out: PathBuf,
        /// Evidence units per record shard (1-10000); shards also close at 128 KiB.
        #[arg(long, default_value_t = 1000)]
        units_per_shard: usize,
    },
}

fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> CliError + '_ {
    move |source| CliError::Read {
        path: path.to_owned(),
        source,
    }
}

/// Writes a built corpus into a fresh directory: everything goes to a sibling temporary
/// directory first and is renamed into place, so a failure leaves no partial corpus.
fn write(built: &BuiltCorpus, out: &Path) -> Result<(), CliError> {
    if out.exists() {
        return Err(CliError::Failed(format!(
            "{} already exists; corpus build writes a new directory",
            out.display()
        )));
    }
    let mut files: Vec<(&str, &[u8])> = built
        .files
        .iter()
        .map(|(path, bytes)| (path.as_str(), bytes.as_slice()))
        .collect();
    files.push(("manifest.json", &built.manifest_bytes));
    crate::staged::write_dir(out, &files, |_| Ok(()))
}

/// Opens `DIR/manifest.json` (or any manifest path) with its directory as the source root.
pub(crate) fn open(manifest: &Path) -> Result<Corpus, CliError> {
    let dir = manifest
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = manifest
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let source = DirSource::new(dir).map_err(io_error(dir))?;
    Ok(Corpus::open(Box::new(source), &name)?)
}

pub(crate) fn run(args: &CorpusArgs) -> Result<(), CliError> {
    match &args.command {
        CorpusCommand::Build {
            index,
            out,
            units_per_shard,
        } => {
            let bytes = std::fs::read(index).map_err(io_error(index))?;
            let index = ContextIndex::from_json_slice(&bytes)?;
            let built = build_v3(&index, *units_per_shard)?;
            write(&built, out)?;
            print(&summary(&built, out))
        }
        CorpusCommand::Generate {
            units,
            out,
            units_per_shard,
        } => {
            let built = okf_corpus::generate::generate(*units, *units_per_shard)?;
            write(&built, out)?;
            print(&summary(&built, out))
        }
    }
}

fn summary(built: &BuiltCorpus, out: &Path) -> String {
    let bytes: usize =
        built.files.values().map(Vec::len).sum::<usize>() + built.manifest_bytes.len();
    format!(
        "wrote {} ({} units, {} files, {bytes} bytes); manifest sha256 {}",
        out.join("manifest.json").display(),
        built.manifest.records.count,
        built.files.len() + 1,
        okf_engine::canonical::sha256_hex(&built.manifest_bytes)
    )
}

/// The middle sample (the upper one of an even count).
fn median(samples: &mut [u64]) -> u64 {
    samples.sort_unstable();
    samples.get(samples.len() / 2).copied().unwrap_or(0)
}

fn micros(d: std::time::Duration) -> u64 {
    u64::try_from(d.as_micros()).unwrap_or(u64::MAX)
}

/// Peak resident memory of this process in KiB (Linux), for the benchmark report.
fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Fresh opens after the first, for the cold medians: one cold sample per process is at the
/// mercy of the machine (BENCHMARKS.md "Corpora").
const COLD_REPEATS: usize = 10;

/// `okf bench --corpus`: cold question (empty shard cache), then warm repeats, then cold
/// repeats on fresh opens of the same manifest.
pub(crate) fn bench(args: &BenchArgs, manifest: &Path) -> Result<(), CliError> {
    let budget = args.source.budget()?;
    let binding = args.source.binding();
    let started = Instant::now();
    let corpus = open(manifest)?;
    let first_open_us = micros(started.elapsed());
    let first = corpus.assemble(&args.question, &budget, binding.as_ref())?;
    let cold_us = micros(started.elapsed());
    let stats = corpus.load_stats();
    for _ in 0..args.warmup {
        corpus.assemble(&args.question, &budget, binding.as_ref())?;
    }
    let n = args.n.max(1);
    let mut samples = Vec::with_capacity(n as usize);
    for _ in 0..n {
        let t = Instant::now();
        corpus.assemble(&args.question, &budget, binding.as_ref())?;
        samples.push(micros(t.elapsed()));
    }
    let rss = peak_rss_kib().unwrap_or(0);
    let (mut opens, mut questions) = (Vec::new(), Vec::new());
    for _ in 0..COLD_REPEATS {
        let t = Instant::now();
        let fresh = open(manifest)?;
        opens.push(micros(t.elapsed()));
        let t = Instant::now();
        fresh.assemble(&args.question, &budget, binding.as_ref())?;
        questions.push(micros(t.elapsed()));
    }
    let (open_median, question_median) = (median(&mut opens), median(&mut questions));
    samples.sort_unstable();
    let at = |q_num: usize, q_den: usize| samples[((samples.len() - 1) * q_num).div_ceil(q_den)];
    let (min, median, p95) = (samples[0], at(1, 2), at(95, 100));
    let units = corpus.manifest().records.count;
    let files = first.files_read.len();
    let id = &first.assembled.context_id;
    if args.json {
        print(&format!(
            "{{\"units\":{units},\"cold_us\":{cold_us},\"first_open_us\":{first_open_us},\"cold_open_median_us\":{open_median},\"cold_question_median_us\":{question_median},\"n\":{n},\"min_us\":{min},\"median_us\":{median},\"p95_us\":{p95},\"files_read\":{files},\"shard_bytes_loaded\":{},\"decoded_bytes_loaded\":{},\"peak_rss_kib\":{rss},\"context_id\":\"{id}\"}}",
            stats.bytes, stats.decoded_bytes
        ))
    } else {
        print(&format!(
            "corpus {units} units\nopen+first question (cold) {cold_us} us (open {first_open_us} us); files read {files}, {} bytes ({} decoded)\ncold again x{COLD_REPEATS} (fresh opens): open median {open_median} us, question median {question_median} us\nassemble x{n} (warm): min {min} us, median {median} us, p95 {p95} us\npeak RSS {rss} KiB\ncontext_id {id}",
            stats.bytes, stats.decoded_bytes
        ))
    }
}
