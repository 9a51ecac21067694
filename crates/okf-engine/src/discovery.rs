//! Lexical discovery input from a corpus reader (spec §3.4 step 1, §3.12): evidence seeds that
//! start traversal before the resolved concepts, and the package's `retrieval` section.
//!
//! The engine never ranks or fetches anything itself; a corpus reader (the `okf-corpus` crate)
//! does, builds the working index, and hands the outcome over in a [`Discovery`].

use crate::canonical::{Sink, write_str, write_strs, write_u64};
use crate::model::{Issue, write_issue, write_issues};

/// Method of corpus v1/v2 retrieval.
pub const METHOD_INDEXED_LEXICAL: &str = "indexed-lexical-candidates.v1";
/// Method of corpus v3 retrieval.
pub const METHOD_SOURCE_BOUND_BM25: &str = "source-bound-discovery-bm25.v1";

/// A record that lexical discovery asks traversal to start from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvidenceSeed {
    /// Record id in the working index.
    pub id: String,
    /// Selection reason written for the seed's 0-hop path.
    pub reason: String,
}

/// One ranked candidate of the retrieval section.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    /// Record id.
    pub id: String,
    /// Integer score (v1/v2 IDF points, v3 scaled BM25).
    pub score: u64,
    /// Query tokens that matched the record, in query order.
    pub matched: Vec<String>,
}

/// The per-call resource limits echoed in the retrieval section.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetrievalLimits {
    /// Query tokens kept.
    pub query_tokens: u64,
    /// Candidates kept.
    pub candidates: u64,
    /// Files read per call.
    pub files: u64,
    /// Bytes read per call.
    pub fetched_bytes: u64,
    /// Bytes after decoding per call.
    pub decoded_bytes: u64,
}

/// The `retrieval` section of a corpus package (spec §1.5).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Retrieval {
    /// `indexed-lexical-candidates.v1` or `source-bound-discovery-bm25.v1`.
    pub method: &'static str,
    /// Records (pages or units) in the corpus.
    pub corpus_records: u64,
    /// Pages in the corpus.
    pub corpus_pages: u64,
    /// Pages without text.
    pub empty_pages: u64,
    /// Query tokens used for ranking.
    pub query_tokens: Vec<String>,
    /// Query tokens beyond the token limit.
    pub omitted_query_tokens: Vec<String>,
    /// Records that scored before the candidate cut-off.
    pub candidate_count: u64,
    /// Admitted candidates, best first.
    pub candidates: Vec<Candidate>,
    /// Files read for this call.
    pub fetched_files: u64,
    /// Bytes read for this call.
    pub fetched_bytes: u64,
    /// Bytes after decoding for this call.
    pub decoded_bytes: u64,
    /// The fixed per-call limits.
    pub limits: RetrievalLimits,
    /// Whether any retrieval limit cut something off.
    pub truncated: bool,
    /// Retrieval omissions, as written in the section.
    pub omissions: Vec<Issue>,
    /// The retrieval omissions that are also copied into `budget.omissions` (spec §3.2 step 8)
    /// and so make the package insufficient. A reader may leave out cut-offs that only concern
    /// lexical candidates, which are never required evidence (DEVIATIONS.md, spec W10).
    pub budget_omissions: Vec<Issue>,
    /// Canonical JSON of the optional `units` object (corpus v2/v3).
    pub units_json: Option<String>,
    /// Canonical JSON of the optional `discovery` object (corpus v3).
    pub discovery_json: Option<String>,
}

/// Everything a corpus reader passes to assembly besides the working index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Discovery {
    /// Seeds, in admission order; they precede the resolved concepts in the queue.
    pub seeds: Vec<EvidenceSeed>,
    /// The package's retrieval section.
    pub retrieval: Retrieval,
}

const METADATA_RETRIEVAL: &str =
    "Retrieval details were left out so that the package fits max_bytes.";

impl Retrieval {
    /// Writes the section in canonical key order; `fallback` applies the metadata-fallback
    /// reductions of spec §3.10.
    pub(crate) fn write<S: Sink + ?Sized>(&self, out: &mut S, fallback: bool) {
        out.raw("{\"candidate_count\":");
        write_u64(out, self.candidate_count);
        out.raw(",\"candidates\":[");
        if !fallback {
            for (i, c) in self.candidates.iter().enumerate() {
                if i > 0 {
                    out.byte(b',');
                }
                out.raw("{\"id\":");
                write_str(out, &c.id);
                out.raw(",\"matched\":");
                write_strs(out, &c.matched);
                out.raw(",\"score\":");
                write_u64(out, c.score);
                out.byte(b'}');
            }
        }
        out.raw("],\"corpus_pages\":");
        write_u64(out, self.corpus_pages);
        out.raw(",\"corpus_records\":");
        write_u64(out, self.corpus_records);
        out.raw(",\"decoded_bytes\":");
        write_u64(out, self.decoded_bytes);
        if let (Some(d), false) = (&self.discovery_json, fallback) {
            out.raw(",\"discovery\":");
            out.raw(d);
        }
        out.raw(",\"empty_pages\":");
        write_u64(out, self.empty_pages);
        out.raw(",\"fetched_bytes\":");
        write_u64(out, self.fetched_bytes);
        out.raw(",\"fetched_files\":");
        write_u64(out, self.fetched_files);
        let l = &self.limits;
        out.raw(",\"limits\":{\"candidates\":");
        write_u64(out, l.candidates);
        out.raw(",\"decoded_bytes\":");
        write_u64(out, l.decoded_bytes);
        out.raw(",\"fetched_bytes\":");
        write_u64(out, l.fetched_bytes);
        out.raw(",\"files\":");
        write_u64(out, l.files);
        out.raw(",\"query_tokens\":");
        write_u64(out, l.query_tokens);
        out.raw("},\"method\":");
        write_str(out, self.method);
        out.raw(",\"omissions\":");
        if fallback {
            out.byte(b'[');
            write_issue(out, "metadata_budget", &[], METADATA_RETRIEVAL);
            out.byte(b']');
        } else {
            write_issues(out, &self.omissions);
        }
        out.raw(",\"omitted_query_tokens\":");
        write_strs(
            out,
            if fallback {
                &[][..]
            } else {
                &self.omitted_query_tokens
            },
        );
        out.raw(",\"query_tokens\":");
        write_strs(
            out,
            if fallback {
                &[][..]
            } else {
                &self.query_tokens
            },
        );
        out.raw(",\"truncated\":");
        out.raw(if fallback || self.truncated {
            "true"
        } else {
            "false"
        });
        if let Some(u) = &self.units_json {
            out.raw(",\"units\":");
            out.raw(u);
        }
        out.byte(b'}');
    }
}
