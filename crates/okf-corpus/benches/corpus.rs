//! Corpus benchmarks (BENCHMARKS.md): the same question on generated corpora of
//! 1,000, 10,000 and 100,000 units, warm (shards cached by digest) and cold (a fresh corpus
//! with an empty cache: every shard the question needs is read, verified and parsed).
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use okf_corpus::generate::{QUESTION, generate};
use okf_corpus::{Corpus, CorpusSource, MemorySource, SourceError};
use okf_engine::Budget;
use std::hint::black_box;
use std::sync::Arc;

/// Units per shard as `okf corpus generate` defaults to; the builder's 128 KiB shard target
/// closes shards at about 150 generated units, so the five matching units sit in five different
/// shards at every size and only what grows with the corpus (manifest, posting buckets) differs.
const UNITS_PER_SHARD: usize = 1000;

/// The generated files, shared so a cold iteration's setup does not copy the corpus.
#[derive(Clone)]
struct Shared(Arc<MemorySource>);

impl CorpusSource for Shared {
    fn read(&self, path: &str, limit: u64) -> Result<Vec<u8>, SourceError> {
        self.0.read(path, limit)
    }
}

fn source(units: u64) -> Shared {
    let built = generate(units, UNITS_PER_SHARD).unwrap();
    let mut source = MemorySource::new();
    for (path, bytes) in built.files {
        source.insert(path, bytes);
    }
    source.insert("manifest.json", built.manifest_bytes);
    Shared(Arc::new(source))
}

fn benches(c: &mut Criterion) {
    let mut group = c.benchmark_group("corpus_question");
    group.sample_size(20);
    for units in [1_000u64, 10_000, 100_000] {
        let files = source(units);
        let corpus = Corpus::open(Box::new(files.clone()), "manifest.json").unwrap();
        let first = corpus.assemble(QUESTION, &Budget::default(), None).unwrap();
        let stats = corpus.load_stats();
        eprintln!(
            "units {units}: files read {} ({} stored bytes, {} decoded bytes loaded into the cache); status {:?}",
            first.files_read.len(),
            stats.bytes,
            stats.decoded_bytes,
            first.assembled.evidence_status
        );
        group.bench_function(format!("warm_{units}"), |b| {
            b.iter(|| {
                corpus
                    .assemble(black_box(QUESTION), &Budget::default(), None)
                    .unwrap()
            })
        });
        // Opening alone: reading, hashing, parsing and checking the manifest, whose shard
        // table grows with the corpus.
        group.bench_function(format!("open_{units}"), |b| {
            b.iter(|| Corpus::open(Box::new(files.clone()), "manifest.json").unwrap())
        });
        group.bench_function(format!("cold_{units}"), |b| {
            b.iter_batched(
                || Corpus::open(Box::new(files.clone()), "manifest.json").unwrap(),
                |fresh| {
                    fresh
                        .assemble(black_box(QUESTION), &Budget::default(), None)
                        .unwrap()
                },
                BatchSize::LargeInput,
            )
        });
    }
    group.finish();
}

criterion_group!(corpus, benches);
criterion_main!(corpus);
