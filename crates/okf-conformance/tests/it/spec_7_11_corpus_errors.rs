//! Spec §1.3, §1.6, §2.4, §7.11 and §7.12: corpus files are checked before they are parsed,
//! and every broken corpus gives a clear error naming the file or field, never a panic.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use okf_corpus::{Corpus, CorpusSource, Error, MemorySource, SourceError, build_v3};
use okf_engine::canonical::sha256_hex;
use okf_engine::{Budget, ContextIndex};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

fn shared() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared")
}

/// A source that records every path it is asked for.
struct Counting {
    inner: MemorySource,
    reads: Arc<Mutex<Vec<String>>>,
}

impl CorpusSource for Counting {
    fn read(&self, path: &str, limit: u64) -> Result<Vec<u8>, SourceError> {
        self.reads.lock().unwrap().push(path.to_owned());
        self.inner.read(path, limit)
    }
}

/// The v1 golden corpus as (manifest value, files).
fn v1() -> (Value, MemorySource) {
    let inputs: Value = serde_json::from_slice(
        &std::fs::read(shared().join("okf-explorer/fixtures/context-corpus-v1-74e29-inputs.json"))
            .unwrap(),
    )
    .unwrap();
    let mut source = MemorySource::new();
    for (path, bytes) in inputs["files"].as_object().unwrap() {
        let bytes: Vec<u8> = bytes
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b.as_u64().unwrap() as u8)
            .collect();
        source.insert(path.clone(), bytes);
    }
    (inputs["manifest"].clone(), source)
}

fn open_with(
    manifest: &Value,
    mut source: MemorySource,
) -> (Result<Corpus, Error>, Arc<Mutex<Vec<String>>>) {
    source.insert("manifest.json", serde_json::to_vec(manifest).unwrap());
    let reads = Arc::new(Mutex::new(Vec::new()));
    let corpus = Corpus::open(
        Box::new(Counting {
            inner: source,
            reads: Arc::clone(&reads),
        }),
        "manifest.json",
    );
    (corpus, reads)
}

fn ask(corpus: &Corpus, question: &str) -> Result<Value, Error> {
    corpus
        .assemble(question, &Budget::default(), None)
        .map(|a| serde_json::from_str(&a.assembled.json).unwrap())
}

#[test]
fn spec_7_11_tampered_shard_is_an_integrity_error_before_parsing() {
    let (manifest, mut source) = v1();
    let mut bytes = source.get("records/0000.json.gz").unwrap().clone();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    source.insert("records/0000.json.gz", bytes);
    let (corpus, _) = open_with(&manifest, source);
    let err = ask(&corpus.unwrap(), "apples").unwrap_err();
    assert!(
        matches!(&err, Error::Integrity { path, .. } if path == "records/0000.json.gz"),
        "{err}"
    );
    assert!(err.to_string().contains("SHA-256"), "{err}");
}

#[test]
fn spec_7_11_longer_file_than_declared_is_refused() {
    let (manifest, mut source) = v1();
    let mut bytes = source.get("search/24.json.gz").unwrap().clone();
    bytes.push(0);
    source.insert("search/24.json.gz", bytes);
    let (corpus, _) = open_with(&manifest, source);
    let err = ask(&corpus.unwrap(), "apples").unwrap_err();
    assert!(
        matches!(&err, Error::Integrity { path, .. } if path == "search/24.json.gz"),
        "{err}"
    );
}

#[test]
fn spec_7_11_shard_over_its_limit_is_rejected_without_a_fetch() {
    for (pointer, limit) in [
        ("/search/shards/24/bytes", 4_194_304u64),
        ("/records/shards/0/bytes", 4_194_304),
        ("/base_index/bytes", 8_388_608),
    ] {
        let (mut manifest, source) = v1();
        *manifest.pointer_mut(pointer).unwrap() = (limit + 1).into();
        let (corpus, reads) = open_with(&manifest, source);
        let err = corpus.unwrap_err();
        assert!(matches!(err, Error::Manifest { .. }), "{err}");
        assert!(err.to_string().contains(&limit.to_string()), "{err}");
        assert_eq!(
            *reads.lock().unwrap(),
            ["manifest.json"],
            "no shard is fetched"
        );
        // Exactly at the limit is allowed by the manifest rules.
        let (mut manifest, source) = v1();
        *manifest.pointer_mut(pointer).unwrap() = limit.into();
        assert!(open_with(&manifest, source).0.is_ok(), "{pointer}");
    }
}

#[test]
fn spec_7_11_paths_outside_the_corpus_directory_are_unsafe_without_a_fetch() {
    for bad in [
        "../outside",
        "https://evil.test/data",
        "/outside",
        "records/%2e%2e/x",
        "records/../x",
        "records\\x",
    ] {
        let (mut manifest, source) = v1();
        manifest["records"]["shards"][0]["path"] = bad.into();
        let (corpus, reads) = open_with(&manifest, source);
        let err = corpus.unwrap_err();
        assert!(matches!(err, Error::UnsafePath { .. }), "{bad}: {err}");
        assert_eq!(*reads.lock().unwrap(), ["manifest.json"]);
    }
    let err = Corpus::open(Box::new(MemorySource::new()), "../manifest.json").unwrap_err();
    assert!(matches!(err, Error::UnsafePath { .. }));
}

#[test]
fn spec_7_11_missing_shard_is_a_clear_error() {
    let (manifest, mut source) = v1();
    source.remove("records/0000.json.gz");
    let (corpus, _) = open_with(&manifest, source);
    let err = ask(&corpus.unwrap(), "apples").unwrap_err();
    assert_eq!(
        err.to_string(),
        "corpus file records/0000.json.gz is missing"
    );
}

#[test]
fn spec_7_11_nothing_is_fetched_until_needed() {
    let (manifest, source) = v1();
    let (corpus, reads) = open_with(&manifest, source);
    let corpus = corpus.unwrap();
    assert_eq!(reads.lock().unwrap().len(), 1);
    // A question with no corpus token reads only the base index.
    let p = ask(&corpus, "a the").unwrap();
    assert_eq!(p["retrieval"]["fetched_files"], 1);
    // The shard cache is keyed by digest: a repeated question reads nothing new.
    ask(&corpus, "apples").unwrap();
    let before = reads.lock().unwrap().len();
    let again = ask(&corpus, "apples").unwrap();
    assert_eq!(reads.lock().unwrap().len(), before);
    assert_eq!(
        again["retrieval"]["fetched_files"], 3,
        "accounting is per question"
    );
}

#[test]
fn spec_7_11_gzip_decoded_binding_is_checked() {
    let (mut manifest, source) = v1();
    manifest["records"]["shards"][0]["decoded_bytes"] = 100.into();
    let (corpus, _) = open_with(&manifest, source);
    let err = ask(&corpus.unwrap(), "apples").unwrap_err();
    assert!(
        err.to_string()
            .contains("exceeds or differs from its binding"),
        "{err}"
    );
}

#[test]
fn spec_7_11_ordinal_outside_the_corpus_is_rejected() {
    let (mut manifest, mut source) = v1();
    let postings = br#"{"schema":"okf-context-postings.v1","postings":{"apples":[999]}}"#.to_vec();
    manifest["search"]["shards"]["24"] = serde_json::json!({
        "path": "search/24.json", "bytes": postings.len(), "sha256": sha256_hex(&postings)
    });
    source.insert("search/24.json", postings);
    let (corpus, _) = open_with(&manifest, source);
    let err = ask(&corpus.unwrap(), "apples").unwrap_err();
    assert!(err.to_string().contains("ordinal outside"), "{err}");
}

#[test]
fn spec_7_11_record_shard_gaps_and_census_mismatch_are_rejected() {
    let (mut manifest, source) = v1();
    manifest["records"]["shards"][0]["first_ordinal"] = 1.into();
    let err = open_with(&manifest, source).0.unwrap_err();
    assert!(err.to_string().contains("contiguous"), "{err}");
    let (mut manifest, source) = v1();
    manifest["counts"]["nonempty_pages"] = 1.into();
    manifest["counts"]["empty_pages"] = 2.into();
    let err = open_with(&manifest, source).0.unwrap_err();
    assert!(err.to_string().contains("census"), "{err}");
}

#[test]
fn spec_1_3_base_snapshot_must_match_the_manifest() {
    let (mut manifest, source) = v1();
    manifest["semantic_source_snapshot"] = "other".into();
    let (corpus, _) = open_with(&manifest, source);
    let err = ask(&corpus.unwrap(), "apples").unwrap_err();
    assert!(
        err.to_string().contains("semantic_source_snapshot"),
        "{err}"
    );
}

fn dwp_v3() -> (Value, MemorySource) {
    let index = ContextIndex::from_json_slice(
        &std::fs::read(shared().join("dwp/full-dmg/context/assembly-index.json")).unwrap(),
    )
    .unwrap();
    let built = build_v3(&index, 8).unwrap();
    let mut source = MemorySource::new();
    for (path, bytes) in built.files {
        source.insert(path, bytes);
    }
    (
        serde_json::from_slice(&built.manifest_bytes).unwrap(),
        source,
    )
}

/// Rewrites one JSON file of a corpus and its manifest reference.
fn rewrite(
    manifest: &mut Value,
    source: &mut MemorySource,
    pointer: &str,
    edit: impl Fn(&mut Value),
) {
    let path = manifest
        .pointer(&format!("{pointer}/path"))
        .unwrap()
        .as_str()
        .unwrap()
        .to_owned();
    let mut content: Value = serde_json::from_slice(source.get(&path).unwrap()).unwrap();
    edit(&mut content);
    let bytes = serde_json::to_vec(&content).unwrap();
    *manifest.pointer_mut(&format!("{pointer}/bytes")).unwrap() = bytes.len().into();
    *manifest.pointer_mut(&format!("{pointer}/sha256")).unwrap() = sha256_hex(&bytes).into();
    source.insert(path, bytes);
}

const IMPRISONED: &str = "A claimant is imprisoned. Explain the effect on JSA";

#[test]
fn spec_7_12_stale_card_is_rejected() {
    let (mut manifest, mut source) = dwp_v3();
    rewrite(&mut manifest, &mut source, "/discovery/shards/0", |c| {
        for card in c["cards"].as_array_mut().unwrap() {
            card["evidence_sha256"] = "0".repeat(64).into();
        }
    });
    let (corpus, _) = open_with(&manifest, source);
    let err = ask(&corpus.unwrap(), "imprisonment adm m1 spare").unwrap_err();
    assert!(err.to_string().contains("stale card"), "{err}");
}

#[test]
fn spec_7_12_dishonest_term_frequency_is_rejected() {
    let (mut manifest, mut source) = dwp_v3();
    let bucket = okf_corpus::tokens::bucket("spare");
    rewrite(
        &mut manifest,
        &mut source,
        &format!("/search/shards/{bucket}"),
        |p| {
            for row in p["postings"]["spare"].as_array_mut().unwrap() {
                row[1] = (row[1].as_u64().unwrap() + 1).into();
                row[2] = (row[2].as_u64().unwrap() + 1).into();
            }
        },
    );
    let (corpus, _) = open_with(&manifest, source);
    let err = ask(&corpus.unwrap(), "spare").unwrap_err();
    assert!(err.to_string().contains("postings differ"), "{err}");
}

#[test]
fn spec_7_12_adjacency_commitments_are_checked() {
    let (manifest, source) = dwp_v3();
    // Break the count of the first entry of each non-empty bucket in turn.
    let corpus_ok = open_with(&manifest, source.clone()).0.unwrap();
    assert!(ask(&corpus_ok, IMPRISONED).is_ok());
    let mut broken = 0;
    for b in 0..=255u32 {
        let name = format!("{b:02x}");
        let pointer = format!("/relationships/shards/{name}");
        let path = manifest
            .pointer(&format!("{pointer}/path"))
            .unwrap()
            .as_str()
            .unwrap()
            .to_owned();
        let content: Value = serde_json::from_slice(source.get(&path).unwrap()).unwrap();
        if content["entries"].as_array().unwrap().is_empty() {
            continue;
        }
        let (mut m, mut s) = (manifest.clone(), source.clone());
        rewrite(&mut m, &mut s, &pointer, |c| {
            let e = &mut c["entries"][0];
            e["outgoing_count"] = (e["outgoing_count"].as_u64().unwrap() + 1).into();
        });
        let (corpus, _) = open_with(&m, s);
        if let Err(err) = ask(&corpus.unwrap(), IMPRISONED) {
            assert!(err.to_string().contains("direction count"), "{err}");
            broken += 1;
            break;
        }
    }
    assert!(broken > 0, "some tampered bucket is read by the question");
}

#[test]
fn spec_7_12_undeclared_ranking_parameters_are_rejected_before_any_fetch() {
    let (mut manifest, source) = dwp_v3();
    manifest["search"]["ranking"]["k1"] = 2.into();
    let (corpus, reads) = open_with(&manifest, source);
    let err = corpus.unwrap_err();
    assert!(
        err.to_string().contains("unsupported ranking parameters"),
        "{err}"
    );
    assert_eq!(reads.lock().unwrap().len(), 1);
    let (mut manifest, source) = dwp_v3();
    manifest["commands"] = serde_json::json!({});
    assert!(open_with(&manifest, source).0.is_err());
}

/// Pads the posting bucket holding `token` with trailing spaces (still valid JSON) past the
/// size whose digest is checked on a second thread while the question goes on (256 KiB), and
/// rebinds it in the manifest. Returns the bucket's path.
fn pad_bucket(manifest: &mut Value, source: &mut MemorySource, token: &str) -> String {
    let pointer = format!("/search/shards/{}", okf_corpus::tokens::bucket(token));
    let path = manifest.pointer(&format!("{pointer}/path")).unwrap();
    let path = path.as_str().unwrap().to_owned();
    let mut bytes = source.get(&path).unwrap().clone();
    bytes.resize(bytes.len() + 300 * 1024, b' ');
    *manifest.pointer_mut(&format!("{pointer}/bytes")).unwrap() = bytes.len().into();
    *manifest.pointer_mut(&format!("{pointer}/sha256")).unwrap() = sha256_hex(&bytes).into();
    source.insert(path.clone(), bytes);
    path
}

#[test]
fn spec_3_12_a_large_bucket_is_cached_only_after_its_digest_matches() {
    let (plain_manifest, plain_source) = dwp_v3();
    let (plain, _) = open_with(&plain_manifest, plain_source);
    let plain = ask(&plain.unwrap(), "spare").unwrap();
    let (mut manifest, mut source) = dwp_v3();
    pad_bucket(&mut manifest, &mut source, "spare");
    let (corpus, _) = open_with(&manifest, source);
    let corpus = corpus.unwrap();
    let padded = ask(&corpus, "spare").unwrap();
    assert_eq!(padded["evidence_status"], plain["evidence_status"]);
    assert_eq!(
        padded["retrieval"]["candidates"],
        plain["retrieval"]["candidates"]
    );
    // The verified bucket joined the cache: asking again reads nothing.
    let files = corpus.load_stats().files;
    assert_eq!(ask(&corpus, "spare").unwrap(), padded);
    assert_eq!(corpus.load_stats().files, files);
}

#[test]
fn spec_7_11_a_large_bucket_whose_digest_differs_is_an_error_though_its_content_parses() {
    let (mut manifest, mut source) = dwp_v3();
    let path = pad_bucket(&mut manifest, &mut source, "spare");
    // A space becomes a newline: still valid JSON with the same postings, but not the bound bytes.
    let mut bytes = source.get(&path).unwrap().clone();
    let last = bytes.len() - 1;
    bytes[last] = b'\n';
    source.insert(path.clone(), bytes);
    let (corpus, _) = open_with(&manifest, source);
    let corpus = corpus.unwrap();
    for _ in 0..2 {
        // The second time proves the unverified bucket was not cached.
        let err = ask(&corpus, "spare").unwrap_err();
        assert!(
            matches!(&err, Error::Integrity { path: p, .. } if *p == path),
            "{err}"
        );
        assert!(err.to_string().contains("SHA-256"), "{err}");
    }
}

#[test]
fn spec_7_11_a_large_bucket_that_does_not_parse_reports_its_digest_first() {
    let (mut manifest, mut source) = dwp_v3();
    let path = pad_bucket(&mut manifest, &mut source, "spare");
    let mut bytes = source.get(&path).unwrap().clone();
    bytes[0] = b'x';
    source.insert(path.clone(), bytes.clone());
    let (corpus, _) = open_with(&manifest, source.clone());
    let err = ask(&corpus.unwrap(), "spare").unwrap_err();
    assert!(err.to_string().contains("SHA-256"), "{err}");
    // Bound as it is, the same bytes are a parse error; invalid UTF-8 likewise is named.
    for (at, byte, expect) in [(0, b'x', "search"), (1, 0xff, "UTF-8")] {
        let mut bytes = bytes.clone();
        bytes[0] = b'{';
        bytes[at] = byte;
        let mut manifest = manifest.clone();
        let pointer = format!("/search/shards/{}", okf_corpus::tokens::bucket("spare"));
        *manifest.pointer_mut(&format!("{pointer}/sha256")).unwrap() = sha256_hex(&bytes).into();
        let mut source = source.clone();
        source.insert(path.clone(), bytes);
        let (corpus, _) = open_with(&manifest, source);
        let err = ask(&corpus.unwrap(), "spare").unwrap_err();
        assert!(!err.to_string().contains("SHA-256"), "{err}");
        assert!(err.to_string().contains(expect), "{err}");
    }
}
