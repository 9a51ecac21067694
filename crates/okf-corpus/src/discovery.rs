//! Corpus v3 assembly (spec §3.12): fixed-point two-field BM25 over evidence units and their
//! discovery cards, verified card and posting commitments, and expansion over committed
//! adjacency buckets.

use crate::build::{CARD_REFERENCE, INCIDENT_REFERENCE, card_text, term_counts};
use crate::lexical::{
    RETRIEVAL_LIMITS, guard_matched, load_base, load_records, rank, shard_for_id, shard_for_ordinal,
};
use crate::loader::{Fetcher, parse_json};
use crate::manifest::{Ranking, ShardRef};
use crate::shards::{ADJACENCY_BUCKET, PostingsV2, Shard};
use crate::working::{Added, Working, id_of};
use crate::{Corpus, Error, limits, msg, score, split_query, tokens};
use okf_engine::canonical::{cmp_utf16, sha256_hex, to_canonical_string};
use okf_engine::discovery::{
    Candidate, Discovery, EvidenceSeed, METHOD_SOURCE_BOUND_BM25, Retrieval,
};
use okf_engine::model::SUPPORTED_PREDICATES;
use okf_engine::{AssembleOptions, Assembled, Binding, Budget, assemble_with_discovery, resolve};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::sync::Arc;

const CARD_SENTENCE: &str = "Discovery cards are navigation summaries bound to their source units; a card is not source evidence, not a resolved concept and not a claim that anything applies.";
const BM25_SENTENCE: &str = "Units are ranked by two-field BM25 (k1 1.2, b 0.75) over unit text and card text with equal weight, computed in fixed-point integers; ties go to corpus ordinal order.";
const BM25_WEIGHTED_SENTENCE: &str = "Units are ranked by two-field BM25 (k1 1.2, b 0.75) over unit text and card text, card text weighted two to one, computed in fixed-point integers; ties go to corpus ordinal order.";

/// Admission order of `okf-bm25.v1`.
const ORDER_V1: &str = "lexical-anchor-then-declared-path-prefixes.v1";
/// Admission order of `okf-bm25-weighted.v2`.
const ORDER_V2: &str = "lexical-anchor-dependencies-before-concept-paths.v2";

/// One committed adjacency entry.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct AdjacencyEntry {
    id: String,
    outgoing: Vec<Value>,
    incoming: Vec<Value>,
    outgoing_count: u64,
    incoming_count: u64,
    outgoing_ids_sha256: String,
    incoming_ids_sha256: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct AdjacencyFile {
    schema: String,
    entries: Vec<AdjacencyEntry>,
}

/// A verified adjacency bucket: entries with their incident digests.
#[derive(Debug)]
pub(crate) struct AdjacencyBucket {
    entries: Vec<(AdjacencyEntry, String)>,
}

fn ids_sha(list: &[Value]) -> Result<String, Error> {
    let ids: Vec<&str> = list.iter().map(id_of).collect();
    to_canonical_string(&json!(ids))
        .map(|c| sha256_hex(c.as_bytes()))
        .map_err(|e| Error::shard("adjacency", "ids", e.to_string()))
}

impl AdjacencyBucket {
    fn parse(path: &str, text: &str, name: &str) -> Result<Self, Error> {
        let f: AdjacencyFile = parse_json(path, text)?;
        if f.schema != ADJACENCY_BUCKET {
            return Err(Error::shard(
                path,
                "schema",
                format!("must be {ADJACENCY_BUCKET}"),
            ));
        }
        if f.entries.len() > 10_000 {
            return Err(Error::shard(path, "entries", "at most 10,000 entries"));
        }
        let mut out = Vec::with_capacity(f.entries.len());
        let mut previous: Option<String> = None;
        for (i, e) in f.entries.into_iter().enumerate() {
            let field = format!("entries[{i}]");
            let bad = |rule: &str| Err(Error::shard(path, field.clone(), rule));
            if previous
                .as_deref()
                .is_some_and(|p| cmp_utf16(p, &e.id) != Ordering::Less)
            {
                return bad("entries must be sorted by id without repeats");
            }
            if tokens::bucket(&e.id) != name {
                return bad("entry id does not hash to this bucket");
            }
            for (list, count, sha, end) in [
                (
                    &e.outgoing,
                    e.outgoing_count,
                    &e.outgoing_ids_sha256,
                    "source",
                ),
                (
                    &e.incoming,
                    e.incoming_count,
                    &e.incoming_ids_sha256,
                    "target",
                ),
            ] {
                if list.len() > 30_000 || list.len() as u64 != count {
                    return bad("direction count differs from its assertions (at most 30,000)");
                }
                if list
                    .windows(2)
                    .any(|w| cmp_utf16(id_of(&w[0]), id_of(&w[1])) != Ordering::Less)
                {
                    return bad("assertions must be sorted by id");
                }
                if list
                    .iter()
                    .any(|a| a.get(end).and_then(Value::as_str) != Some(e.id.as_str()))
                {
                    return bad("an assertion is filed under the wrong direction or entry");
                }
                if ids_sha(list)? != *sha {
                    return bad("assertion-id commitment differs");
                }
            }
            let value =
                serde_json::to_value(&e).map_err(|x| Error::shard(path, &field, x.to_string()))?;
            let incident = to_canonical_string(&value)
                .map(|c| sha256_hex(c.as_bytes()))
                .map_err(|x| Error::shard(path, &field, x.to_string()))?;
            previous = Some(e.id.clone());
            out.push((e, incident));
        }
        Ok(AdjacencyBucket { entries: out })
    }

    fn find(&self, id: &str) -> Option<&(AdjacencyEntry, String)> {
        self.entries
            .binary_search_by(|(e, _)| cmp_utf16(&e.id, id))
            .ok()
            .and_then(|i| self.entries.get(i))
    }
}

/// Per-ordinal ranking state.
#[derive(Default)]
struct Scored {
    source: u64,
    discovery: u64,
    matched_source: Vec<String>,
    matched_discovery: Vec<String>,
    lengths: Option<(u64, u64)>,
    rows: Vec<(String, u64, u64)>,
}

struct State<'c, 'f> {
    corpus: &'c Corpus,
    fetch: &'f mut Fetcher<'c>,
    work: Working,
    resolved: BTreeSet<String>,
    max_depth: u64,
    best_depth: HashMap<String, u64>,
    inspected: BTreeSet<String>,
    incidents: Vec<Value>,
    attempts: u64,
    examined: u64,
    referenced: Vec<String>,
    exhausted: bool,
}

impl State<'_, '_> {
    fn load_unit(&mut self, id: &str) -> Result<bool, Error> {
        if self.work.has_record(id) {
            return Ok(true);
        }
        if self.attempts >= limits::REFERENCED_RECORDS {
            self.fetch.omit(
                "referenced_record_budget",
                msg::REFERENCED_RECORD_BUDGET,
                vec![id.to_owned()],
            );
            return Ok(false);
        }
        self.attempts += 1;
        let shards = &self.corpus.manifest.records.shards;
        let Some(shard_ref) = shard_for_id(shards, id) else {
            self.fetch.omit(
                "referenced_record_missing",
                msg::REFERENCED_RECORD_MISSING,
                vec![id.to_owned()],
            );
            return Ok(false);
        };
        let Some(shard) = load_records(self.fetch, shard_ref)? else {
            return Ok(false);
        };
        let Some(record) = shard.find(id)? else {
            self.fetch.omit(
                "referenced_record_missing",
                msg::REFERENCED_RECORD_MISSING,
                vec![id.to_owned()],
            );
            return Ok(false);
        };
        if self.work.add_record(record.clone())? == Added::OverBudget {
            self.fetch.omit(
                "retrieval_index_budget",
                msg::INDEX_BUDGET,
                vec![id.to_owned()],
            );
            return Ok(false);
        }
        self.referenced.push(id.to_owned());
        Ok(true)
    }

    fn adjacency(&mut self, id: &str) -> Result<Option<AdjacencyEntry>, Error> {
        let name = tokens::bucket(id);
        let Some(r) = self
            .corpus
            .manifest
            .relationships
            .as_ref()
            .and_then(|rel| rel.shards.get(&name))
        else {
            return Ok(None);
        };
        let path = r.path.clone();
        let Some(bucket) = self
            .fetch
            .load("adjacency", r, |b| AdjacencyBucket::parse(&path, &b, &name))?
        else {
            return Ok(None);
        };
        let Some((entry, incident)) = bucket.find(id) else {
            return Ok(None);
        };
        if self.inspected.insert(id.to_owned()) {
            self.incidents.push(json!({
                "schema": INCIDENT_REFERENCE,
                "id": id,
                "incident_sha256": incident,
                "outgoing_count": entry.outgoing_count,
                "incoming_count": entry.incoming_count,
            }));
        }
        Ok(Some(entry.clone()))
    }

    /// Breadth-first expansion from `seeds` over committed outgoing edges.
    fn expand(&mut self, seeds: &[String]) -> Result<(), Error> {
        let mut queue: VecDeque<(String, u64)> = seeds.iter().map(|s| (s.clone(), 0)).collect();
        while let Some((id, depth)) = queue.pop_front() {
            if self.exhausted {
                return Ok(());
            }
            if self.best_depth.get(&id).is_some_and(|&d| d <= depth) {
                continue;
            }
            self.best_depth.insert(id.clone(), depth);
            if !self.load_unit(&id)? {
                continue;
            }
            let public = self
                .work
                .record(&id)
                .and_then(|r| r.get("access"))
                .and_then(Value::as_str)
                == Some("public");
            if !public {
                continue;
            }
            let Some(entry) = self.adjacency(&id)? else {
                continue;
            };
            for edge in entry.outgoing {
                if self.examined >= limits::EXAMINED_RELATIONSHIPS {
                    self.fetch.omit(
                        "referenced_relationship_budget",
                        msg::REFERENCED_RELATIONSHIP_BUDGET,
                        Vec::new(),
                    );
                    self.exhausted = true;
                    return Ok(());
                }
                self.examined += 1;
                let edge_id = id_of(&edge).to_owned();
                let predicate = edge.get("predicate").and_then(Value::as_str).unwrap_or("");
                let supported = SUPPORTED_PREDICATES.contains(&predicate);
                let matched = guard_matched(&edge, &self.resolved);
                let target = edge
                    .get("target")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_owned();
                if self.work.add_assertion(edge)? == Added::OverBudget {
                    self.fetch
                        .omit("retrieval_index_budget", msg::INDEX_BUDGET, vec![edge_id]);
                    continue;
                }
                if !supported || !matched {
                    continue;
                }
                if depth >= self.max_depth {
                    if !self.work.has_record(&target) {
                        self.fetch.omit(
                            "referenced_depth_budget",
                            msg::REFERENCED_DEPTH_BUDGET,
                            vec![edge_id, target],
                        );
                    }
                    continue;
                }
                queue.push_back((target, depth + 1));
            }
        }
        Ok(())
    }
}

fn load_cards(fetch: &mut Fetcher<'_>, shard: &ShardRef) -> Result<Option<Arc<Shard>>, Error> {
    let path = shard.path.clone();
    fetch.load("cards", &shard.file(), |b| {
        Shard::parse(&path, b, true, shard)
    })
}

/// Checks a card against its unit (spec §3.12 "v3 unit admission" 2–3).
fn verify_card(path: &str, card: &Value, unit: &Value, scored: &Scored) -> Result<(), Error> {
    let bad = |rule: &str| Err(Error::shard(path, id_of(card), rule));
    let keys: BTreeSet<&str> = card
        .as_object()
        .map(|o| o.keys().map(String::as_str).collect())
        .unwrap_or_default();
    let expected: BTreeSet<&str> = [
        "id",
        "evidence_id",
        "evidence_sha256",
        "label",
        "heading_path",
        "summary",
        "search_aliases",
        "assertion_status",
        "authority",
        "scope",
        "provenance",
        "rights",
        "access",
    ]
    .into_iter()
    .collect();
    if keys != expected {
        return bad("a discovery card has exactly the closed card fields");
    }
    if !crate::manifest::is_ascii_iri(id_of(card)) || id_of(card) == id_of(unit) {
        return bad("card id must be an ASCII IRI different from its evidence id");
    }
    if card.get("evidence_id").and_then(Value::as_str) != Some(id_of(unit)) {
        return bad("card references another evidence id");
    }
    if card.get("access") != unit.get("access") {
        return bad("card access differs from its unit's");
    }
    if card.get("assertion_status").and_then(Value::as_str) == Some("official") {
        return bad("a discovery card is never official");
    }
    if card
        .get("provenance")
        .and_then(Value::as_array)
        .is_none_or(Vec::is_empty)
    {
        return bad("a discovery card needs provenance");
    }
    let unit_sha = to_canonical_string(unit)
        .map(|c| sha256_hex(c.as_bytes()))
        .map_err(|e| Error::shard(path, id_of(card), e.to_string()))?;
    if card.get("evidence_sha256").and_then(Value::as_str) != Some(unit_sha.as_str()) {
        return bad("evidence_sha256 differs from the unit's canonical digest (stale card)");
    }
    let (stf, slen) = term_counts(unit.get("text").and_then(Value::as_str).unwrap_or(""));
    let (dtf, dlen) = term_counts(&card_text(card));
    for (token, s, d) in &scored.rows {
        let ok = stf.get(token).copied().unwrap_or(0) == *s
            && dtf.get(token).copied().unwrap_or(0) == *d
            && scored.lengths == Some((slen, dlen));
        if !ok {
            return Err(Error::shard(
                path,
                id_of(card),
                format!("postings differ from the unit and card text for token {token:?}"),
            ));
        }
    }
    Ok(())
}

pub(crate) fn assemble<'c>(
    corpus: &'c Corpus,
    fetch: &mut Fetcher<'c>,
    question: &str,
    budget: &Budget,
    binding: &Binding,
) -> Result<Assembled, Error> {
    let m = &corpus.manifest;
    let ranking = m.ranking()?;
    let base = load_base(corpus, fetch)?;
    let base_obj = base.as_object();
    let base_ok = base_obj.is_some_and(|o| {
        o.get("assertions")
            .and_then(Value::as_array)
            .is_some_and(Vec::is_empty)
            && o.get("records").and_then(Value::as_array).is_some_and(|r| {
                r.iter().all(|x| {
                    matches!(
                        x.get("kind").and_then(Value::as_str),
                        Some("concept" | "scope")
                    )
                })
            })
    });
    if !base_ok {
        return Err(Error::shard(
            &m.base_index.path,
            "$",
            "a v3 base index holds only concept and scope records and no assertions",
        ));
    }
    let sentence = match ranking {
        Ranking::Bm25 => BM25_SENTENCE,
        Ranking::Bm25Weighted => BM25_WEIGHTED_SENTENCE,
    };
    let work = Working::new(
        &base,
        m,
        &[CARD_SENTENCE, sentence],
        Some(limits::WORKING_RECORDS),
        &m.base_index.path,
    )?;
    let (query, omitted) = split_query(tokens::query_tokens(question));
    if !omitted.is_empty() {
        fetch.omit("retrieval_query_budget", msg::QUERY_BUDGET, Vec::new());
    }
    let n = m.records.count;
    let totals = m
        .search
        .total_tokens
        .as_ref()
        .map(|t| (t.source, t.discovery))
        .unwrap_or((0, 0));

    // Rank.
    let mut scored: BTreeMap<u64, Scored> = BTreeMap::new();
    let mut rows_seen = 0u64;
    for token in &query {
        let Some(r) = m.search.shards.get(&tokens::bucket(token)) else {
            continue;
        };
        let path = r.path.clone();
        let Some(postings) =
            fetch.load("postings-v2", r, |b| PostingsV2::parse(&path, b, n, totals))?
        else {
            continue;
        };
        let Some(rows) = postings.rows(token)? else {
            continue;
        };
        let df_s = rows.iter().filter(|r| r[1] > 0).count() as u64;
        let df_d = rows.iter().filter(|r| r[3] > 0).count() as u64;
        for &[o, stf, slen, dtf, dlen] in rows {
            if rows_seen >= limits::POSTING_ROWS
                || (scored.len() >= limits::RANKING_RECORDS && !scored.contains_key(&o))
            {
                fetch.omit(
                    "retrieval_ranking_budget",
                    msg::RANKING_BUDGET,
                    vec![token.clone()],
                );
                break;
            }
            rows_seen += 1;
            let s = scored.entry(o).or_default();
            if s.lengths.is_some_and(|l| l != (slen, dlen)) {
                return Err(Error::shard(
                    &path,
                    format!("postings.{token}"),
                    format!("lengths of ordinal {o} disagree across tokens"),
                ));
            }
            s.lengths = Some((slen, dlen));
            s.rows.push((token.clone(), stf, dtf));
            if stf > 0 {
                s.source += score::bm25(n, df_s, stf, slen, totals.0);
                s.matched_source.push(token.clone());
            }
            if dtf > 0 {
                s.discovery += score::bm25(n, df_d, dtf, dlen, totals.1);
                s.matched_discovery.push(token.clone());
            }
        }
    }
    let weight = ranking.discovery_weight();
    let mut ranked = rank(
        scored
            .iter()
            .map(|(&o, s)| (o, (s.source + weight * s.discovery, Vec::new())))
            .collect(),
    );
    let candidate_count = ranked.len() as u64;
    if ranked.len() > limits::CANDIDATES {
        ranked.truncate(limits::CANDIDATES);
        fetch.candidate_phase = true;
        fetch.omit(
            "retrieval_candidate_budget",
            msg::CANDIDATE_BUDGET,
            Vec::new(),
        );
        fetch.candidate_phase = false;
    }

    let mut state = State {
        corpus,
        fetch,
        work,
        resolved: BTreeSet::new(),
        max_depth: budget.max_depth,
        best_depth: HashMap::new(),
        inspected: BTreeSet::new(),
        incidents: Vec::new(),
        attempts: 0,
        examined: 0,
        referenced: Vec::new(),
        exhausted: false,
    };
    let base_index = state.work.index()?;
    let resolution = resolve(&base_index, question);
    let doc = base_index.document();
    state.resolved = resolution
        .concepts
        .iter()
        .map(|c| doc.records[c.record as usize].id.clone())
        .collect();
    let concepts: Vec<String> = state.resolved.iter().cloned().collect();

    let mut out = Admitted::default();
    let admit = |state: &mut State<'_, '_>,
                 out: &mut Admitted,
                 ordinal: u64,
                 total: u64|
     -> Result<(), Error> {
        let Some(s) = scored.get(&ordinal) else {
            return Ok(());
        };
        let (Some(unit_ref), Some(card_ref)) = (
            shard_for_ordinal(&m.records.shards, ordinal),
            m.discovery
                .as_ref()
                .and_then(|d| shard_for_ordinal(&d.shards, ordinal)),
        ) else {
            return Err(Error::shard(
                "records",
                "ordinal",
                format!("ordinal {ordinal} is in no shard"),
            ));
        };
        let Some(units) = load_records(state.fetch, unit_ref)? else {
            return Ok(());
        };
        let Some(cards) = load_cards(state.fetch, card_ref)? else {
            return Ok(());
        };
        let (Some(unit), Some(card)) = (units.at(ordinal)?, cards.at(ordinal)?) else {
            return Err(Error::shard(
                &unit_ref.path,
                "records",
                format!("ordinal {ordinal} missing"),
            ));
        };
        verify_card(&card_ref.path, card, unit, s)?;
        let id = id_of(unit).to_owned();
        if unit.get("access").and_then(Value::as_str) != Some("public") {
            state
                .fetch
                .omit("restricted_record", msg::RESTRICTED_RECORD, vec![id]);
            return Ok(());
        }
        if state.work.add_record(unit.clone())? == Added::OverBudget {
            state
                .fetch
                .omit("retrieval_index_budget", msg::INDEX_BUDGET, vec![id]);
            return Ok(());
        }
        let card_sha = to_canonical_string(card)
            .map(|c| sha256_hex(c.as_bytes()))
            .map_err(|e| Error::shard(&card_ref.path, id_of(card), e.to_string()))?;
        let weighted = match ranking {
            Ranking::Bm25 => String::new(),
            Ranking::Bm25Weighted => format!(" Ranked by the declared {}.", ranking.id()),
        };
        out.seeds.push(EvidenceSeed {
            id: id.clone(),
            reason: format!(
                "Discovery card {} led here: source BM25 {} for {}; discovery BM25 {} for {}.{weighted} The card is neither evidence nor a resolved concept.",
                id_of(card),
                s.source,
                words(&s.matched_source),
                s.discovery,
                words(&s.matched_discovery),
            ),
        });
        let mut matched = s.matched_source.clone();
        for t in &s.matched_discovery {
            if !matched.contains(t) {
                matched.push(t.clone());
            }
        }
        out.candidates.push(Candidate {
            id: id.clone(),
            score: total,
            matched,
        });
        out.discovery.push(json!({
            "card": {
                "schema": CARD_REFERENCE,
                "id": id_of(card),
                "evidence_id": id,
                "card_sha256": card_sha,
                "ordinal": ordinal,
            },
            "source_score": s.source,
            "discovery_score": s.discovery,
            "matched_source": s.matched_source,
            "matched_discovery": s.matched_discovery,
        }));
        Ok(())
    };

    let (anchor, rest) = ranked
        .split_first()
        .map_or((None, &[][..]), |(a, r)| (Some(a), r));
    if let Some((o, total, _)) = anchor {
        state.fetch.candidate_phase = true;
        let admitted = admit(&mut state, &mut out, *o, *total);
        state.fetch.candidate_phase = false;
        admitted?;
    }
    let anchor_seed: Vec<String> = out.seeds.iter().map(|s| s.id.clone()).collect();
    if ranking == Ranking::Bm25Weighted {
        state.expand(&anchor_seed)?;
    }
    state.expand(&concepts)?;
    for (o, total, _) in rest {
        state.fetch.candidate_phase = true;
        let admitted = admit(&mut state, &mut out, *o, *total);
        state.fetch.candidate_phase = false;
        admitted?;
    }
    let lexical: Vec<String> = out.seeds.iter().map(|s| s.id.clone()).collect();
    state.expand(&lexical)?;

    let index = state.work.index()?;
    let units = to_canonical_string(&json!({
        "corpus_schema": m.schema,
        "referenced_records": state.referenced,
        "examined_relationships": state.examined,
        "limits": {
            "referenced_records": limits::REFERENCED_RECORDS,
            "examined_relationships": limits::EXAMINED_RELATIONSHIPS,
        },
    }))
    .map_err(|e| Error::manifest("units", e.to_string()))?;
    let discovery = to_canonical_string(&json!({
        "ranking": ranking.id(),
        "limits": {
            "posting_rows": limits::POSTING_ROWS,
            "ranking_records": limits::RANKING_RECORDS,
            "path_prefixes": limits::PATH_PREFIXES,
        },
        "candidates": out.discovery,
        "adjacency": state.incidents,
        "admission_order": match ranking { Ranking::Bm25 => ORDER_V1, Ranking::Bm25Weighted => ORDER_V2 },
    }))
    .map_err(|e| Error::manifest("discovery", e.to_string()))?;
    let fetch = state.fetch;
    let retrieval = Retrieval {
        method: METHOD_SOURCE_BOUND_BM25,
        corpus_records: n,
        corpus_pages: m.counts.pages,
        empty_pages: m.counts.empty_pages,
        query_tokens: query,
        omitted_query_tokens: omitted,
        candidate_count,
        candidates: out.candidates,
        fetched_files: fetch.files,
        fetched_bytes: fetch.fetched_bytes,
        decoded_bytes: fetch.decoded_bytes,
        limits: RETRIEVAL_LIMITS,
        truncated: fetch.truncated,
        omissions: fetch.omissions(),
        budget_omissions: fetch.budget_omissions(),
        units_json: Some(units),
        discovery_json: Some(discovery),
    };
    let options = AssembleOptions {
        group_issues: true,
        ..AssembleOptions::default()
    };
    Ok(assemble_with_discovery(
        &index,
        question,
        budget,
        Some(binding),
        &options,
        &Discovery {
            seeds: out.seeds,
            retrieval,
        },
    )?)
}

/// What admission produced, in admission order.
#[derive(Default)]
struct Admitted {
    seeds: Vec<EvidenceSeed>,
    candidates: Vec<Candidate>,
    discovery: Vec<Value>,
}

fn words(list: &[String]) -> String {
    if list.is_empty() {
        "no words".into()
    } else {
        list.join(", ")
    }
}
