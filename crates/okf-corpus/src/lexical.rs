//! Corpus v1/v2 assembly (spec §3.12): integer IDF ranking over posting buckets, admission of
//! the top candidates, and (v2) breadth-first loading of referenced units.
//! Also the steps v3 assembly shares: loading the base index and shards, query splitting,
//! the candidate cut, referenced-unit loading, and the retrieval record.

use crate::loader::{Fetcher, parse_json};
use crate::manifest::{Manifest, ShardRef, Version};
use crate::shards::{PostingsV1, Shard};
use crate::working::{Added, Working, id_of};
use crate::{Corpus, Error, limits, msg, score, split_query, tokens};
use okf_engine::canonical::{cmp_utf16, to_canonical_string};
use okf_engine::discovery::{
    Candidate, Discovery, EvidenceSeed, METHOD_INDEXED_LEXICAL, Retrieval, RetrievalLimits,
};
use okf_engine::model::SUPPORTED_PREDICATES;
use okf_engine::{
    AssembleOptions, Assembled, Binding, Budget, ContextIndex, assemble_with_discovery, resolve,
};
use serde_json::{Value, json};
use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::sync::Arc;

/// Working-index sentence of v1/v2 corpora (spec §3.11).
const LEXICAL_SENTENCE: &str = "Lexical ranking reads only the words of the question and is separate from concept resolution; it uses integer inverse document frequency, and ties go to canonical record order.";

/// The limits echoed in every retrieval section.
pub(crate) const RETRIEVAL_LIMITS: RetrievalLimits = RetrievalLimits {
    query_tokens: limits::QUERY_TOKENS as u64,
    candidates: limits::CANDIDATES as u64,
    files: limits::FILES,
    fetched_bytes: limits::FETCHED_BYTES,
    decoded_bytes: limits::DECODED_BYTES,
};

/// Loads and verifies the base index (as JSON) through the fetcher.
pub(crate) fn load_base(corpus: &Corpus, fetch: &mut Fetcher<'_>) -> Result<Arc<Value>, Error> {
    let r = &corpus.manifest.base_index;
    let path = r.path.clone();
    fetch
        .load("base-index", r, |b| parse_json::<Value>(&path, &b))?
        .ok_or_else(|| Error::Integrity {
            path: r.path.clone(),
            rule: "the base index does not fit the per-question allowance".into(),
        })
}

/// The record shard holding an ordinal.
pub(crate) fn shard_for_ordinal(shards: &[ShardRef], ordinal: u64) -> Option<&ShardRef> {
    let i = shards.partition_point(|s| s.first_ordinal <= ordinal);
    shards.get(i.checked_sub(1)?).filter(|s| s.holds(ordinal))
}

/// The unit shard whose id range holds an id.
pub(crate) fn shard_for_id<'m>(shards: &'m [ShardRef], id: &str) -> Option<&'m ShardRef> {
    shards.iter().find(|s| {
        matches!((&s.first_id, &s.last_id), (Some(f), Some(l))
            if cmp_utf16(f, id) != Ordering::Greater && cmp_utf16(id, l) != Ordering::Greater)
    })
}

/// Loads a record shard (verified and checked against its reference).
pub(crate) fn load_records(
    fetch: &mut Fetcher<'_>,
    shard: &ShardRef,
) -> Result<Option<Arc<Shard>>, Error> {
    let path = shard.path.clone();
    fetch.load("records", &shard.file(), |b| {
        Shard::parse(&path, b, false, shard)
    })
}

/// Ranks ordinals: score descending, then ordinal ascending (a total order).
pub(crate) fn rank(scores: BTreeMap<u64, (u64, Vec<String>)>) -> Vec<(u64, u64, Vec<String>)> {
    let mut ranked: Vec<(u64, u64, Vec<String>)> =
        scores.into_iter().map(|(o, (s, m))| (o, s, m)).collect();
    ranked.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    ranked
}

/// The question's query tokens and the tokens left out of ranking, recording the omission.
pub(crate) fn split_question(
    fetch: &mut Fetcher<'_>,
    question: &str,
) -> (Vec<String>, Vec<String>) {
    let (query, omitted) = split_query(tokens::query_tokens(question));
    if !omitted.is_empty() {
        fetch.omit("retrieval_query_budget", msg::QUERY_BUDGET, Vec::new());
    }
    (query, omitted)
}

/// Keeps the candidate allowance of a ranking, recording the cut; returns the count before it.
pub(crate) fn cut_candidates(
    ranked: &mut Vec<(u64, u64, Vec<String>)>,
    fetch: &mut Fetcher<'_>,
) -> u64 {
    let candidate_count = ranked.len() as u64;
    if ranked.len() > limits::CANDIDATES {
        ranked.truncate(limits::CANDIDATES);
        fetch.omit(
            "retrieval_candidate_budget",
            msg::CANDIDATE_BUDGET,
            Vec::new(),
        );
    }
    candidate_count
}

/// Ids of the concepts the question resolves to in the working index as it stands.
pub(crate) fn resolved_concepts(work: &Working, question: &str) -> Result<BTreeSet<String>, Error> {
    let index = work.index()?;
    let resolution = resolve(&index, question);
    let doc = index.document();
    Ok(resolution
        .concepts
        .iter()
        .map(|c| doc.records[c.record as usize].id.clone())
        .collect())
}

/// What a question's ranking and admission found, for its retrieval record.
pub(crate) struct Found {
    pub query: Vec<String>,
    pub omitted: Vec<String>,
    pub candidate_count: u64,
    pub candidates: Vec<Candidate>,
}

/// The retrieval record of a call: what was found, and what the fetcher read and omitted.
pub(crate) fn retrieval(
    method: &'static str,
    m: &Manifest,
    fetch: &Fetcher<'_>,
    found: Found,
    units_json: Option<String>,
    discovery_json: Option<String>,
) -> Retrieval {
    Retrieval {
        method,
        corpus_records: m.records.count,
        corpus_pages: m.counts.pages,
        empty_pages: m.counts.empty_pages,
        query_tokens: found.query,
        omitted_query_tokens: found.omitted,
        candidate_count: found.candidate_count,
        candidates: found.candidates,
        fetched_files: fetch.files,
        fetched_bytes: fetch.fetched_bytes,
        decoded_bytes: fetch.decoded_bytes,
        limits: RETRIEVAL_LIMITS,
        truncated: fetch.truncated,
        omissions: fetch.omissions(),
        budget_omissions: fetch.budget_omissions(),
        units_json,
        discovery_json,
    }
}

/// Assembles the package from the working index and what retrieval found.
pub(crate) fn assemble_package(
    index: &ContextIndex,
    question: &str,
    budget: &Budget,
    binding: &Binding,
    group_issues: bool,
    discovery: &Discovery,
) -> Result<Assembled, Error> {
    let options = AssembleOptions {
        group_issues,
        ..AssembleOptions::default()
    };
    Ok(assemble_with_discovery(
        index,
        question,
        budget,
        Some(binding),
        &options,
        discovery,
    )?)
}

/// Answers `question` from a v1 or v2 corpus (spec §3.12): integer IDF ranking, admission of
/// the top candidates, (v2) reference loading, then assembly.
pub(crate) fn assemble(
    corpus: &Corpus,
    fetch: &mut Fetcher<'_>,
    question: &str,
    budget: &Budget,
    binding: &Binding,
) -> Result<Assembled, Error> {
    let m = &corpus.manifest;
    let version = m.version()?;
    let base = load_base(corpus, fetch)?;
    let max_records = (version == Version::V2).then_some(limits::WORKING_RECORDS);
    let mut work = Working::new(
        &base,
        m,
        &[LEXICAL_SENTENCE],
        max_records,
        &m.base_index.path,
    )?;
    let (query, omitted) = split_question(fetch, question);
    let mut ranked = rank(score_idf(m, fetch, &query)?);
    fetch.candidate_phase = true;
    let candidate_count = cut_candidates(&mut ranked, fetch);
    let (seeds, candidates) = admit_candidates(m, fetch, &mut work, version, ranked)?;
    fetch.candidate_phase = false;
    let units = if version == Version::V2 {
        let seed_ids: Vec<String> = seeds.iter().map(|s| s.id.clone()).collect();
        Some(load_references(
            corpus, fetch, &mut work, question, budget, &seed_ids,
        )?)
    } else {
        None
    };

    let index = work.index()?;
    let found = Found {
        query,
        omitted,
        candidate_count,
        candidates,
    };
    let retrieval = retrieval(METHOD_INDEXED_LEXICAL, m, fetch, found, units, None);
    assemble_package(
        &index,
        question,
        budget,
        binding,
        version != Version::V1,
        &Discovery { seeds, retrieval },
    )
}

/// Integer IDF points and matched tokens per ordinal, from the posting buckets of the query.
fn score_idf(
    m: &Manifest,
    fetch: &mut Fetcher<'_>,
    query: &[String],
) -> Result<BTreeMap<u64, (u64, Vec<String>)>, Error> {
    let n = m.records.count;
    let mut scores: BTreeMap<u64, (u64, Vec<String>)> = BTreeMap::new();
    for token in query {
        let Some(r) = m.search.shards.get(&tokens::bucket(token)) else {
            continue;
        };
        let path = r.path.clone();
        let Some(postings) = fetch.load("postings-v1", r, |b| PostingsV1::parse(&path, &b, n))?
        else {
            continue;
        };
        let Some(list) = postings.postings.get(token) else {
            continue;
        };
        let points = score::idf_points(n, list.len() as u64);
        for &o in list {
            let entry = scores.entry(o).or_insert_with(|| (0, Vec::new()));
            entry.0 += points;
            entry.1.push(token.clone());
        }
    }
    Ok(scores)
}

/// Admits the ranked candidates into the working index, in rank order: their seeds and
/// candidate entries.
fn admit_candidates(
    m: &Manifest,
    fetch: &mut Fetcher<'_>,
    work: &mut Working,
    version: Version,
    ranked: Vec<(u64, u64, Vec<String>)>,
) -> Result<(Vec<EvidenceSeed>, Vec<Candidate>), Error> {
    let whole = if version == Version::V1 {
        "page"
    } else {
        "unit"
    };
    let mut seeds = Vec::new();
    let mut candidates = Vec::new();
    for (ordinal, points, matched) in ranked {
        let Some(record) = candidate_record(m, fetch, ordinal)? else {
            continue;
        };
        let id = id_of(&record).to_owned();
        if work.add_record(record)? == Added::OverBudget {
            fetch.omit("retrieval_index_budget", msg::INDEX_BUDGET, vec![id]);
            continue;
        }
        seeds.push(EvidenceSeed {
            id: id.clone(),
            reason: format!(
                "Lexical candidate (whole {whole}) for {}; score {points}. A word match asserts neither applicability nor completeness.",
                matched.join(", ")
            ),
        });
        candidates.push(Candidate {
            id,
            score: points,
            matched,
        });
    }
    Ok((seeds, candidates))
}

/// The evidence record at a candidate's ordinal, or `None` when the allowance denies its shard.
fn candidate_record(
    m: &Manifest,
    fetch: &mut Fetcher<'_>,
    ordinal: u64,
) -> Result<Option<Value>, Error> {
    let Some(shard_ref) = shard_for_ordinal(&m.records.shards, ordinal) else {
        return Err(Error::shard(
            "records",
            "ordinal",
            format!("ordinal {ordinal} is in no record shard"),
        ));
    };
    let Some(shard) = load_records(fetch, shard_ref)? else {
        return Ok(None);
    };
    let Some(record) = shard.at(ordinal)? else {
        return Err(Error::shard(
            &shard_ref.path,
            "records",
            format!("ordinal {ordinal} is not in the shard"),
        ));
    };
    if record.get("kind").and_then(Value::as_str) != Some("evidence") {
        return Err(Error::shard(
            &shard_ref.path,
            format!("records[{}]", ordinal - shard.first_ordinal),
            "lexical candidates must be evidence records",
        ));
    }
    Ok(Some(record.clone()))
}

/// The guard decision of an assertion: `true` when unguarded or every `when_all` id is a
/// resolved concept.
pub(crate) fn guard_matched(assertion: &Value, resolved: &BTreeSet<String>) -> bool {
    assertion
        .get("context_guard")
        .and_then(|g| g.get("when_all"))
        .and_then(Value::as_array)
        .is_none_or(|ids| {
            ids.iter()
                .all(|id| id.as_str().is_some_and(|s| resolved.contains(s)))
        })
}

/// Units loaded beyond the candidate list, and the relationships examined to reach them,
/// against their per-question allowances.
#[derive(Default)]
pub(crate) struct References {
    /// Loads attempted (each counts against the allowance, found or not).
    attempts: u64,
    /// Relationships examined.
    pub examined: u64,
    /// Ids of the units loaded, in load order.
    pub loaded: Vec<String>,
}

impl References {
    /// Makes sure unit `id` is in the working index, loading it from the record shard whose id
    /// range holds it. `false`, with the omission recorded, when the allowance, the corpus or
    /// the working-index budget denies it.
    pub(crate) fn load(
        &mut self,
        shards: &[ShardRef],
        fetch: &mut Fetcher<'_>,
        work: &mut Working,
        id: &str,
    ) -> Result<bool, Error> {
        if work.has_record(id) {
            return Ok(true);
        }
        if self.attempts >= limits::REFERENCED_RECORDS {
            fetch.omit(
                "referenced_record_budget",
                msg::REFERENCED_RECORD_BUDGET,
                vec![id.to_owned()],
            );
            return Ok(false);
        }
        self.attempts += 1;
        let Some(shard_ref) = shard_for_id(shards, id) else {
            fetch.omit(
                "referenced_record_missing",
                msg::REFERENCED_RECORD_MISSING,
                vec![id.to_owned()],
            );
            return Ok(false);
        };
        let Some(shard) = load_records(fetch, shard_ref)? else {
            return Ok(false);
        };
        let Some(record) = shard.find(id)? else {
            fetch.omit(
                "referenced_record_missing",
                msg::REFERENCED_RECORD_MISSING,
                vec![id.to_owned()],
            );
            return Ok(false);
        };
        if work.add_record(record.clone())? == Added::OverBudget {
            fetch.omit(
                "retrieval_index_budget",
                msg::INDEX_BUDGET,
                vec![id.to_owned()],
            );
            return Ok(false);
        }
        self.loaded.push(id.to_owned());
        Ok(true)
    }

    /// The canonical JSON of the retrieval record's `units` object.
    pub(crate) fn units_json(&self, corpus_schema: &str) -> Result<String, Error> {
        to_canonical_string(&json!({
            "corpus_schema": corpus_schema,
            "referenced_records": self.loaded,
            "examined_relationships": self.examined,
            "limits": {
                "referenced_records": limits::REFERENCED_RECORDS,
                "examined_relationships": limits::EXAMINED_RELATIONSHIPS,
            },
        }))
        .map_err(|e| Error::manifest("units", e.to_string()))
    }
}

/// Whether the working index holds `id` as a public record (only those are expanded from).
pub(crate) fn is_public(work: &Working, id: &str) -> bool {
    work.record(id)
        .and_then(|r| r.get("access"))
        .and_then(Value::as_str)
        == Some("public")
}

/// v2 reference loading (spec §3.12): breadth-first from the resolved concepts and lexical
/// seeds over the declared edges, loading units beyond the candidate list. Returns the
/// canonical JSON of the `units` object.
fn load_references(
    corpus: &Corpus,
    fetch: &mut Fetcher<'_>,
    work: &mut Working,
    question: &str,
    budget: &Budget,
    lexical: &[String],
) -> Result<String, Error> {
    let m = &corpus.manifest;
    let resolved = resolved_concepts(work, question)?;
    let mut seeds: Vec<String> = resolved
        .iter()
        .cloned()
        .chain(lexical.iter().cloned())
        .collect();
    seeds.sort_by(|a, b| cmp_utf16(a, b));
    seeds.dedup();
    let outgoing: BTreeMap<String, Vec<Value>> = work
        .outgoing()
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v.into_iter().cloned().collect()))
        .collect();

    let mut queue: VecDeque<(String, u64)> = seeds.into_iter().map(|s| (s, 0)).collect();
    let mut visited = BTreeSet::new();
    let mut refs = References::default();
    'bfs: while let Some((id, depth)) = queue.pop_front() {
        if !visited.insert(id.clone()) {
            continue;
        }
        if !refs.load(&m.records.shards, fetch, work, &id)? || !is_public(work, &id) {
            continue;
        }
        for edge in outgoing.get(&id).into_iter().flatten() {
            if refs.examined >= limits::EXAMINED_RELATIONSHIPS {
                fetch.omit(
                    "referenced_relationship_budget",
                    msg::REFERENCED_RELATIONSHIP_BUDGET,
                    Vec::new(),
                );
                break 'bfs;
            }
            refs.examined += 1;
            let predicate = edge.get("predicate").and_then(Value::as_str).unwrap_or("");
            if !SUPPORTED_PREDICATES.contains(&predicate) || !guard_matched(edge, &resolved) {
                continue;
            }
            let target = edge.get("target").and_then(Value::as_str).unwrap_or("");
            if depth >= budget.max_depth {
                if !work.has_record(target) {
                    fetch.omit(
                        "referenced_depth_budget",
                        msg::REFERENCED_DEPTH_BUDGET,
                        vec![id_of(edge).to_owned(), target.to_owned()],
                    );
                }
                continue;
            }
            queue.push_back((target.to_owned(), depth + 1));
        }
    }
    refs.units_json(&m.schema)
}
