//! Corpus v3 assembly (spec §3.12): fixed-point two-field BM25 over evidence units and their
//! discovery cards, verified card and posting commitments, and expansion over committed
//! adjacency buckets.

use crate::build::{CARD_REFERENCE, INCIDENT_REFERENCE, card_text, term_counts};
use crate::lexical::{
    Found, References, assemble_package, cut_candidates, guard_matched, is_public, load_base,
    load_records, rank, resolved_concepts, retrieval, shard_for_ordinal, split_question,
};
use crate::loader::{Fetcher, parse_json};
use crate::manifest::{Manifest, Ranking, ShardRef};
use crate::shards::{ADJACENCY_BUCKET, PostingsV2, Shard};
use crate::working::{Added, Working, id_of};
use crate::{Corpus, Error, limits, msg, score, tokens};
use okf_engine::canonical::{cmp_utf16, sha256_hex, to_canonical_string};
use okf_engine::discovery::{Candidate, Discovery, EvidenceSeed, METHOD_SOURCE_BOUND_BM25};
use okf_engine::model::SUPPORTED_PREDICATES;
use okf_engine::{Assembled, Binding, Budget};
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

impl Scored {
    /// The seed reason of an admitted unit: which card led here, with what scores.
    fn reason(&self, ranking: Ranking, card_id: &str) -> String {
        let weighted = match ranking {
            Ranking::Bm25 => String::new(),
            Ranking::Bm25Weighted => format!(" Ranked by the declared {}.", ranking.id()),
        };
        format!(
            "Discovery card {card_id} led here: source BM25 {} for {}; discovery BM25 {} for {}.{weighted} The card is neither evidence nor a resolved concept.",
            self.source,
            words(&self.matched_source),
            self.discovery,
            words(&self.matched_discovery),
        )
    }

    /// Matched tokens: those of the source field, then the discovery field's others.
    fn matched(&self) -> Vec<String> {
        let mut matched = self.matched_source.clone();
        for t in &self.matched_discovery {
            if !matched.contains(t) {
                matched.push(t.clone());
            }
        }
        matched
    }

    /// The `discovery.candidates` entry of an admitted unit: its card reference and scores.
    fn card_entry(&self, card: &Value, card_sha: &str, id: &str, ordinal: u64) -> Value {
        json!({
            "card": {
                "schema": CARD_REFERENCE,
                "id": id_of(card),
                "evidence_id": id,
                "card_sha256": card_sha,
                "ordinal": ordinal,
            },
            "source_score": self.source,
            "discovery_score": self.discovery,
            "matched_source": self.matched_source,
            "matched_discovery": self.matched_discovery,
        })
    }
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
    refs: References,
    exhausted: bool,
}

impl<'c, 'f> State<'c, 'f> {
    /// Expansion state over `work`, with the question's resolved concepts.
    fn new(
        corpus: &'c Corpus,
        fetch: &'f mut Fetcher<'c>,
        work: Working,
        question: &str,
        max_depth: u64,
    ) -> Result<Self, Error> {
        let resolved = resolved_concepts(&work, question)?;
        Ok(State {
            corpus,
            fetch,
            work,
            resolved,
            max_depth,
            best_depth: HashMap::new(),
            inspected: BTreeSet::new(),
            incidents: Vec::new(),
            refs: References::default(),
            exhausted: false,
        })
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
            let shards = &self.corpus.manifest.records.shards;
            if !self.refs.load(shards, self.fetch, &mut self.work, &id)?
                || !is_public(&self.work, &id)
            {
                continue;
            }
            let Some(entry) = self.adjacency(&id)? else {
                continue;
            };
            for edge in entry.outgoing {
                if self.refs.examined >= limits::EXAMINED_RELATIONSHIPS {
                    self.fetch.omit(
                        "referenced_relationship_budget",
                        msg::REFERENCED_RELATIONSHIP_BUDGET,
                        Vec::new(),
                    );
                    self.exhausted = true;
                    return Ok(());
                }
                self.refs.examined += 1;
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

/// Answers `question` from a v3 corpus (spec §3.12): BM25 ranking over units and cards,
/// admission in the declared order with expansion over committed adjacency, then assembly.
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
    check_base(&m.base_index.path, &base)?;
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
    let (query, omitted) = split_question(fetch, question);
    let scored = score_postings(m, fetch, &query)?;
    let (ranked, candidate_count) = rank_candidates(&scored, ranking, fetch);

    let mut state = State::new(corpus, fetch, work, question, budget.max_depth)?;
    let out = state.admit_ranked(&scored, ranking, &ranked)?;

    let index = state.work.index()?;
    let units = state.refs.units_json(&m.schema)?;
    let discovery = discovery_json(ranking, &out.discovery, &state.incidents)?;
    let found = Found {
        query,
        omitted,
        candidate_count,
        candidates: out.candidates,
    };
    let retrieval = retrieval(
        METHOD_SOURCE_BOUND_BM25,
        m,
        state.fetch,
        found,
        Some(units),
        Some(discovery),
    );
    assemble_package(
        &index,
        question,
        budget,
        binding,
        true,
        &Discovery {
            seeds: out.seeds,
            retrieval,
        },
    )
}

/// Checks that a v3 base index holds only concept and scope records and no assertions: every
/// unit and edge is reached through the verified shards.
fn check_base(path: &str, base: &Value) -> Result<(), Error> {
    let base_ok = base.as_object().is_some_and(|o| {
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
            path,
            "$",
            "a v3 base index holds only concept and scope records and no assertions",
        ));
    }
    Ok(())
}

/// Two-field BM25 per ordinal from the posting buckets of the query, within the posting-row
/// and ranking allowances (each cut recorded once per token).
fn score_postings(
    m: &Manifest,
    fetch: &mut Fetcher<'_>,
    query: &[String],
) -> Result<BTreeMap<u64, Scored>, Error> {
    let n = m.records.count;
    let totals = m
        .search
        .total_tokens
        .as_ref()
        .map(|t| (t.source, t.discovery))
        .unwrap_or((0, 0));
    let mut scored: BTreeMap<u64, Scored> = BTreeMap::new();
    let mut rows_seen = 0u64;
    for token in query {
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
    Ok(scored)
}

/// Ranks the scored units by `source + weight × discovery` and keeps the candidate allowance;
/// the cut only concerns candidates. Returns the ranking and the count before the cut.
fn rank_candidates(
    scored: &BTreeMap<u64, Scored>,
    ranking: Ranking,
    fetch: &mut Fetcher<'_>,
) -> (Vec<(u64, u64, Vec<String>)>, u64) {
    let weight = ranking.discovery_weight();
    let mut ranked = rank(
        scored
            .iter()
            .map(|(&o, s)| (o, (s.source + weight * s.discovery, Vec::new())))
            .collect(),
    );
    fetch.candidate_phase = true;
    let candidate_count = cut_candidates(&mut ranked, fetch);
    fetch.candidate_phase = false;
    (ranked, candidate_count)
}

impl State<'_, '_> {
    /// Admits the ranked candidates in the declared order: the lexical anchor, then (weighted
    /// ranking) the anchor's dependencies, the resolved concepts' paths, the other candidates,
    /// and last the paths from every admitted unit.
    fn admit_ranked(
        &mut self,
        scored: &BTreeMap<u64, Scored>,
        ranking: Ranking,
        ranked: &[(u64, u64, Vec<String>)],
    ) -> Result<Admitted, Error> {
        let concepts: Vec<String> = self.resolved.iter().cloned().collect();
        let mut out = Admitted::default();
        let (anchor, rest) = ranked
            .split_first()
            .map_or((None, &[][..]), |(a, r)| (Some(a), r));
        if let Some((o, total, _)) = anchor {
            self.admit_candidate(&mut out, scored, ranking, *o, *total)?;
        }
        let anchor_seed: Vec<String> = out.seeds.iter().map(|s| s.id.clone()).collect();
        if ranking == Ranking::Bm25Weighted {
            self.expand(&anchor_seed)?;
        }
        self.expand(&concepts)?;
        for (o, total, _) in rest {
            self.admit_candidate(&mut out, scored, ranking, *o, *total)?;
        }
        let lexical: Vec<String> = out.seeds.iter().map(|s| s.id.clone()).collect();
        self.expand(&lexical)?;
        Ok(out)
    }

    /// [`State::admit`] with omissions marked as concerning lexical candidates only.
    fn admit_candidate(
        &mut self,
        out: &mut Admitted,
        scored: &BTreeMap<u64, Scored>,
        ranking: Ranking,
        ordinal: u64,
        total: u64,
    ) -> Result<(), Error> {
        self.fetch.candidate_phase = true;
        let admitted = self.admit(out, scored, ranking, ordinal, total);
        self.fetch.candidate_phase = false;
        admitted
    }

    /// Admits one ranked unit (spec §3.12 "v3 unit admission"): loads its unit and card,
    /// verifies the card against the unit and its postings, and adds a public unit to the
    /// working index and to `out`.
    fn admit(
        &mut self,
        out: &mut Admitted,
        scored: &BTreeMap<u64, Scored>,
        ranking: Ranking,
        ordinal: u64,
        total: u64,
    ) -> Result<(), Error> {
        let Some(s) = scored.get(&ordinal) else {
            return Ok(());
        };
        let (unit_ref, card_ref) = candidate_shards(&self.corpus.manifest, ordinal)?;
        let Some(units) = load_records(self.fetch, unit_ref)? else {
            return Ok(());
        };
        let Some(cards) = load_cards(self.fetch, card_ref)? else {
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
            self.fetch
                .omit("restricted_record", msg::RESTRICTED_RECORD, vec![id]);
            return Ok(());
        }
        if self.work.add_record(unit.clone())? == Added::OverBudget {
            self.fetch
                .omit("retrieval_index_budget", msg::INDEX_BUDGET, vec![id]);
            return Ok(());
        }
        let card_sha = to_canonical_string(card)
            .map(|c| sha256_hex(c.as_bytes()))
            .map_err(|e| Error::shard(&card_ref.path, id_of(card), e.to_string()))?;
        out.seeds.push(EvidenceSeed {
            id: id.clone(),
            reason: s.reason(ranking, id_of(card)),
        });
        out.candidates.push(Candidate {
            id: id.clone(),
            score: total,
            matched: s.matched(),
        });
        out.discovery
            .push(s.card_entry(card, &card_sha, &id, ordinal));
        Ok(())
    }
}

/// The unit shard and the card shard holding `ordinal`.
fn candidate_shards(m: &Manifest, ordinal: u64) -> Result<(&ShardRef, &ShardRef), Error> {
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
    Ok((unit_ref, card_ref))
}

/// The canonical JSON of the retrieval record's `discovery` object.
fn discovery_json(
    ranking: Ranking,
    candidates: &[Value],
    adjacency: &[Value],
) -> Result<String, Error> {
    let admission_order = match ranking {
        Ranking::Bm25 => ORDER_V1,
        Ranking::Bm25Weighted => ORDER_V2,
    };
    to_canonical_string(&json!({
        "ranking": ranking.id(),
        "limits": {
            "posting_rows": limits::POSTING_ROWS,
            "ranking_records": limits::RANKING_RECORDS,
            "path_prefixes": limits::PATH_PREFIXES,
        },
        "candidates": candidates,
        "adjacency": adjacency,
        "admission_order": admission_order,
    }))
    .map_err(|e| Error::manifest("discovery", e.to_string()))
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
