//! Authoring checks: what the engine tolerates in a valid index but an author should fix.
//!
//! Each finding has a severity, a stable `kind` (see [`kinds`]), the JSON path it concerns and
//! the ids involved. Governance and digest findings reuse the engine's own per-item results
//! (`ContextIndex::record_governance`, `assertion_governance`, `record_digest_mismatch`,
//! `record_unit_integrity_failed`), so lint and assembly can never disagree about them.

use okf_engine::dmg::five_digits;
pub use okf_engine::dmg::paragraphs_held;
use okf_engine::model::{Access, Requirement, SUPPORTED_PREDICATES};
use okf_engine::{ContextIndex, Governance};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet, HashSet, VecDeque};

/// How much a finding matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Broken: a reference that cannot resolve, a digest that cannot match, an ungoverned
    /// item. Packages that reach it can never be `sufficient`, or a declaration never works.
    Error,
    /// Legal but almost certainly unintended: dead edges, guaranteed ambiguity, records no
    /// question can reach.
    Warning,
    /// Worth knowing, possibly deliberate: concepts no requirement covers.
    Info,
}

impl Severity {
    /// The wire value.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
        }
    }
}

/// The stable finding kinds.
pub mod kinds {
    /// An assertion's source or target is not a record (error).
    pub const DANGLING_ASSERTION_ENDPOINT: &str = "dangling-assertion-endpoint";
    /// A requirement's `when_all`, `required` or `covers` id is not a record (error).
    pub const REQUIREMENT_ID_NOT_RECORD: &str = "requirement-id-not-record";
    /// A `when_all` id is a record but not a public concept, so the requirement never applies
    /// (error).
    pub const WHEN_ALL_NOT_PUBLIC_CONCEPT: &str = "when-all-not-public-concept";
    /// A required-path record (or seed) is not a record (error).
    pub const REQUIRED_PATH_RECORD_NOT_RECORD: &str = "required-path-record-not-record";
    /// A required-path hop is not an assertion in the index (error).
    pub const REQUIRED_PATH_HOP_NOT_ASSERTION: &str = "required-path-hop-not-assertion";
    /// A required-path hop is an assertion with other endpoints, or one traversal never
    /// follows (error).
    pub const REQUIRED_PATH_HOP_MISMATCH: &str = "required-path-hop-mismatch";
    /// An assertion endpoint or required id is a declared gap: guidance the bundle knowingly
    /// does not hold, reported missing whenever it is reached or required (info).
    pub const DECLARED_GAP: &str = "declared-gap";
    /// A `conflicts_with` target is not a record (error).
    pub const CONFLICT_TARGET_NOT_RECORD: &str = "conflict-target-not-record";
    /// An evidence record's text does not hash to a declared `literal_sha256` (error).
    pub const LITERAL_DIGEST_MISMATCH: &str = "literal-digest-mismatch";
    /// An evidence-unit span does not hash to its declared fragment digest (error).
    pub const UNIT_DIGEST_MISMATCH: &str = "unit-digest-mismatch";
    /// A record or assertion has no usable provenance (error).
    pub const PROVENANCE_GAP: &str = "provenance-gap";
    /// A record or assertion has another governance gap: scope, authority, rights, evidence
    /// text or unit boundary; `code` names it (error).
    pub const GOVERNANCE_GAP: &str = "governance-gap";
    /// An assertion's predicate is not one of the five traversal follows (warning).
    pub const UNSUPPORTED_PREDICATE: &str = "unsupported-predicate";
    /// One alias (or label) belongs to several public concepts: asking it is always ambiguous
    /// (warning).
    pub const SHARED_ALIAS: &str = "shared-alias";
    /// A public concept that no requirement's `when_all` or `covers` names: a question that
    /// resolves it is never `sufficient` (info: it may be deliberate).
    pub const UNCOVERED_CONCEPT: &str = "uncovered-concept";
    /// A record no traversal from a public concept can reach (warning).
    pub const UNREACHABLE_RECORD: &str = "unreachable-record";
    /// A requirement cites a record whose running text refers to DMG paragraphs ("see DMG
    /// nnnnn", a range, "paragraphs nnnnn to mmmmm"; never a contents line), or that defines a
    /// term ("A long-term patient means") used by paragraphs of its chapter, that a captured
    /// page holds but the requirement neither requires nor names by a declared gap's
    /// `paragraphs` (warning; needs the captures).
    pub const UNCITED_CROSS_REFERENCE: &str = "uncited-cross-reference";
    /// A declared gap stands for DMG paragraphs that a record of the index holds: the gap is
    /// stale, cite the record (warning).
    pub const GAP_HELD_IN_INDEX: &str = "gap-held-in-index";
    /// A review decision (recorded in the index: error; a decision file: warning) whose
    /// `item_sha256` no longer matches the item: the item changed since it was reviewed.
    pub const STALE_REVIEW: &str = "stale-review";
    /// A recorded review or a decision file names no record, assertion, requirement or gap
    /// of the index (error).
    pub const REVIEW_UNKNOWN_ITEM: &str = "review-unknown-item";
    /// Two decision files name one item (error): `okf build` refuses them.
    pub const CONFLICTING_REVIEWS: &str = "conflicting-reviews";
    /// A current decision file the index does not record yet: rebuild (warning).
    pub const REVIEW_NOT_IN_INDEX: &str = "review-not-in-index";
    /// An item no current review covers (info; reported only once reviews are in play: the
    /// index records some, or decision files are given).
    pub const UNREVIEWED_ITEM: &str = "unreviewed-item";
}

/// A decision file as lint checks it against the index (`okf lint --reviews DIR`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReviewClaim {
    /// The decision file.
    pub file: String,
    /// The item it names.
    pub item: String,
    /// The item digest it states.
    pub item_sha256: String,
}

/// A captured page the cross-reference check reads: where it is (for the message) and its
/// text. Only the paragraphs it holds are used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CapturedPage {
    /// Where the page is, such as `dmg-vol4-ch23 p78`.
    pub label: String,
    /// The page text.
    pub text: String,
}

/// One lint finding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// Error, warning or info.
    pub severity: Severity,
    /// Stable kind (see [`kinds`]).
    pub kind: &'static str,
    /// Governance issue code, for governance and provenance gaps.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<&'static str>,
    /// JSON path in the index, such as `assertions[3].target`.
    pub path: String,
    /// The ids concerned; the item the path points into comes first.
    pub ids: Vec<String>,
    /// What is wrong, in words.
    pub message: String,
}

/// Every finding for an index, errors first, then warnings, then infos, each in index order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LintReport {
    /// The findings.
    pub findings: Vec<Finding>,
}

impl LintReport {
    /// Number of findings with this severity.
    pub fn count(&self, severity: Severity) -> usize {
        self.findings
            .iter()
            .filter(|f| f.severity == severity)
            .count()
    }

    /// True when any finding is an error.
    pub fn has_errors(&self) -> bool {
        self.count(Severity::Error) > 0
    }

    /// `(severity, kind, count)` rows in a stable order.
    pub fn counts_by_kind(&self) -> Vec<(Severity, &'static str, usize)> {
        let mut rows: Vec<(Severity, &'static str, usize)> = Vec::new();
        for f in &self.findings {
            match rows
                .iter_mut()
                .find(|(s, k, _)| *s == f.severity && *k == f.kind)
            {
                Some(row) => row.2 += 1,
                None => rows.push((f.severity, f.kind, 1)),
            }
        }
        rows.sort_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)));
        rows
    }
}

struct Out(Vec<Finding>);

impl Out {
    fn push(
        &mut self,
        severity: Severity,
        kind: &'static str,
        path: String,
        ids: Vec<String>,
        message: String,
    ) {
        self.0.push(Finding {
            severity,
            kind,
            code: None,
            path,
            ids,
            message,
        });
    }
}

/// Lints a validated index: records, assertions and requirements in document order, then
/// the whole-index checks; findings sorted by severity (stable, so document order stays).
pub fn lint(index: &ContextIndex) -> LintReport {
    lint_with_captures(index, &[])
}

/// [`lint`], and the cross-reference check of every requirement against the paragraphs the
/// captured pages hold (no captures: no cross-reference findings).
pub fn lint_with_captures(index: &ContextIndex, captures: &[CapturedPage]) -> LintReport {
    lint_reviewed(index, captures, None)
}

/// [`lint_with_captures`], and the review checks: the reviews the index records and, with
/// `claims`, the decision files, against the items as the index holds them (stale, unknown,
/// conflicting, not yet recorded), then every item without a current review. Without
/// recorded reviews and without `claims` there are no review findings.
pub fn lint_reviewed(
    index: &ContextIndex,
    captures: &[CapturedPage],
    claims: Option<&[ReviewClaim]>,
) -> LintReport {
    let mut out = Out(Vec::new());
    lint_records(index, &mut out);
    lint_assertions(index, &mut out);
    lint_requirements(index, &mut out);
    uncited_cross_references(index, captures, &mut out);
    gaps_held_in_index(index, &mut out);
    shared_aliases(index, &mut out);
    uncovered_concepts(index, &mut out);
    unreachable_records(index, &mut out);
    reviews(index, claims, &mut out);
    let mut findings = out.0;
    findings.sort_by_key(|f| f.severity);
    LintReport { findings }
}

fn is_record(index: &ContextIndex, id: &str) -> bool {
    index.record_index(id).is_some()
}

fn supported(predicate: &str) -> bool {
    SUPPORTED_PREDICATES.contains(&predicate)
}

/// Conflict targets, literal and evidence-unit digests and governance of every record.
fn lint_records(index: &ContextIndex, out: &mut Out) {
    let doc = index.document();
    for (i, r) in doc.records.iter().enumerate() {
        for (j, target) in r.conflicts_with.iter().flatten().enumerate() {
            if !is_record(index, target) {
                out.push(
                    Severity::Error,
                    kinds::CONFLICT_TARGET_NOT_RECORD,
                    format!("records[{i}].conflicts_with[{j}]"),
                    vec![r.id.clone(), target.clone()],
                    format!("declares a conflict with {target}, which is not a record; the conflict can never be reported"),
                );
            }
        }
        if index.record_digest_mismatch(i) {
            out.push(
                Severity::Error,
                kinds::LITERAL_DIGEST_MISMATCH,
                format!("records[{i}].text"),
                vec![r.id.clone()],
                "the text does not hash to a literal_sha256 its provenance declares; the engine reports evidence_digest_mismatch".into(),
            );
        }
        if index.record_unit_integrity_failed(i) {
            out.push(
                Severity::Error,
                kinds::UNIT_DIGEST_MISMATCH,
                format!("records[{i}].evidence_unit"),
                vec![r.id.clone()],
                "an evidence-unit span does not hash to its declared fragment digest".into(),
            );
        }
        governance(
            out,
            index.record_governance(i),
            format!("records[{i}]"),
            &r.id,
        );
    }
}

/// Endpoints, predicates and governance of every assertion.
fn lint_assertions(index: &ContextIndex, out: &mut Out) {
    let doc = index.document();
    for (i, a) in doc.assertions.iter().enumerate() {
        for (end, id) in [("source", &a.source), ("target", &a.target)] {
            if index.is_declared_gap(id) {
                out.push(
                    Severity::Info,
                    kinds::DECLARED_GAP,
                    format!("assertions[{i}].{end}"),
                    vec![a.id.clone(), id.clone()],
                    format!("the {end} {id} is a declared gap; traversal reports it missing"),
                );
            } else if !is_record(index, id) {
                out.push(
                    Severity::Error,
                    kinds::DANGLING_ASSERTION_ENDPOINT,
                    format!("assertions[{i}].{end}"),
                    vec![a.id.clone(), id.clone()],
                    format!(
                        "the {end} {id} is not a record; traversal reports missing_record there"
                    ),
                );
            }
        }
        if !supported(&a.predicate) {
            out.push(
                Severity::Warning,
                kinds::UNSUPPORTED_PREDICATE,
                format!("assertions[{i}].predicate"),
                vec![a.id.clone()],
                format!("predicate {} is never followed by traversal", a.predicate),
            );
        }
        governance(
            out,
            index.assertion_governance(i),
            format!("assertions[{i}]"),
            &a.id,
        );
    }
}

/// The ids every requirement names, and its required paths.
fn lint_requirements(index: &ContextIndex, out: &mut Out) {
    let doc = index.document();
    for (i, req) in doc.requirements.iter().enumerate() {
        let lists = [
            ("when_all", req.when_all.as_slice()),
            ("required", req.required.as_slice()),
            ("covers", req.covers.as_deref().unwrap_or_default()),
        ];
        for (field, ids) in lists {
            for (j, id) in ids.iter().enumerate() {
                let path = format!("requirements[{i}].{field}[{j}]");
                if field == "required" && index.is_declared_gap(id) {
                    out.push(
                        Severity::Info,
                        kinds::DECLARED_GAP,
                        path,
                        vec![req.id.clone(), id.clone()],
                        format!("requires the declared gap {id}; the requirement stays unmet"),
                    );
                } else if !is_record(index, id) {
                    out.push(
                        Severity::Error,
                        kinds::REQUIREMENT_ID_NOT_RECORD,
                        path,
                        vec![req.id.clone(), id.clone()],
                        format!("{field} names {id}, which is not a record"),
                    );
                } else if field == "when_all" && !index.is_public_concept(id) {
                    out.push(
                        Severity::Error,
                        kinds::WHEN_ALL_NOT_PUBLIC_CONCEPT,
                        path,
                        vec![req.id.clone(), id.clone()],
                        format!("when_all names {id}, which is not a public concept; no question resolves it, so the requirement never applies"),
                    );
                }
            }
        }
        required_paths(index, out, i, req);
    }
}

/// Each required path of requirement `i`: its records exist and each hop is an assertion
/// from one record to the next with a predicate traversal follows.
fn required_paths(index: &ContextIndex, out: &mut Out, i: usize, req: &Requirement) {
    for (k, p) in req.required_paths.iter().flatten().enumerate() {
        let base = format!("requirements[{i}].required_paths[{k}]");
        for (j, id) in p.records.iter().enumerate() {
            if !is_record(index, id) {
                out.push(
                    Severity::Error,
                    kinds::REQUIRED_PATH_RECORD_NOT_RECORD,
                    format!("{base}.records[{j}]"),
                    vec![req.id.clone(), id.clone()],
                    format!("the required path passes through {id}, which is not a record"),
                );
            }
        }
        for (j, hop) in p.assertions.iter().enumerate() {
            let path = format!("{base}.assertions[{j}]");
            let (from, to) = (p.records.get(j), p.records.get(j + 1));
            match index.assertion(hop) {
                None => out.push(
                    Severity::Error,
                    kinds::REQUIRED_PATH_HOP_NOT_ASSERTION,
                    path,
                    vec![req.id.clone(), hop.clone()],
                    format!(
                        "hop {hop} is not an assertion in the index; the path can never be retained"
                    ),
                ),
                Some(a) if Some(&a.source) != from || Some(&a.target) != to => out.push(
                    Severity::Error,
                    kinds::REQUIRED_PATH_HOP_MISMATCH,
                    path,
                    vec![req.id.clone(), hop.clone()],
                    format!(
                        "hop {hop} runs from {} to {}, but the path needs {} to {}",
                        a.source,
                        a.target,
                        from.map_or("(nothing)", String::as_str),
                        to.map_or("(nothing)", String::as_str)
                    ),
                ),
                Some(a) if !supported(&a.predicate) => out.push(
                    Severity::Error,
                    kinds::REQUIRED_PATH_HOP_MISMATCH,
                    path,
                    vec![req.id.clone(), hop.clone()],
                    format!(
                        "hop {hop} has predicate {}, which traversal never follows",
                        a.predicate
                    ),
                ),
                Some(_) => {}
            }
        }
    }
}

fn governance(out: &mut Out, codes: &[Governance], path: String, id: &str) {
    for &g in codes {
        let (kind, message) = match g {
            Governance::MissingProvenance => (
                kinds::PROVENANCE_GAP,
                "provenance is absent or incomplete (an http(s) url, a source_sha256, a locator and a captured_at are needed)".to_owned(),
            ),
            other => (
                kinds::GOVERNANCE_GAP,
                format!("governance gap {}: any package that reaches this item is insufficient", other.code()),
            ),
        };
        out.0.push(Finding {
            severity: Severity::Error,
            kind,
            code: Some(g.code()),
            path: path.clone(),
            ids: vec![id.to_owned()],
            message,
        });
    }
}

/// Alias groups of the engine's own alias table that name several public concepts.
fn shared_aliases(index: &ContextIndex, out: &mut Out) {
    let doc = index.document();
    for group in index
        .alias_groups()
        .iter()
        .filter(|g| g.records().len() > 1)
    {
        let (text, records) = (group.label(), group.records());
        let ids: Vec<String> = records
            .iter()
            .map(|&i| doc.records[i as usize].id.clone())
            .collect();
        out.push(
            Severity::Warning,
            kinds::SHARED_ALIAS,
            format!("records[{}]", records[0]),
            ids.clone(),
            format!(
                "\"{text}\" is an alias or label of {} public concepts ({}); a question using it is always ambiguous",
                ids.len(),
                ids.join(", ")
            ),
        );
    }
}

fn uncovered_concepts(index: &ContextIndex, out: &mut Out) {
    let doc = index.document();
    let covered: HashSet<&str> = doc
        .requirements
        .iter()
        .flat_map(|r| r.when_all.iter().chain(r.covers.iter().flatten()))
        .map(String::as_str)
        .collect();
    for (i, r) in doc.records.iter().enumerate() {
        if index.is_public_concept(&r.id) && !covered.contains(r.id.as_str()) {
            out.push(
                Severity::Info,
                kinds::UNCOVERED_CONCEPT,
                format!("records[{i}]"),
                vec![r.id.clone()],
                "no requirement names this concept in when_all or covers; a question that resolves it is never sufficient".into(),
            );
        }
    }
}

/// Breadth-first over supported edges from every public concept (the only possible seeds).
/// Restricted records are reached but never expanded, as in traversal; guards are ignored, so
/// this over-approximates what any one question reaches.
fn unreachable_records(index: &ContextIndex, out: &mut Out) {
    let doc = index.document();
    let mut outgoing: Vec<Vec<usize>> = vec![Vec::new(); doc.records.len()];
    for a in &doc.assertions {
        if !SUPPORTED_PREDICATES.contains(&a.predicate.as_str()) {
            continue;
        }
        if let (Some(s), Some(t)) = (index.record_index(&a.source), index.record_index(&a.target)) {
            outgoing[s].push(t);
        }
    }
    let mut reached = vec![false; doc.records.len()];
    let mut queue: VecDeque<usize> = VecDeque::new();
    for (i, r) in doc.records.iter().enumerate() {
        if index.is_public_concept(&r.id) {
            reached[i] = true;
            queue.push_back(i);
        }
    }
    while let Some(i) = queue.pop_front() {
        if doc.records[i].access == Access::Restricted {
            continue;
        }
        for &t in &outgoing[i] {
            if !reached[t] {
                reached[t] = true;
                queue.push_back(t);
            }
        }
    }
    for (i, r) in doc.records.iter().enumerate() {
        if !reached[i] {
            out.push(
                Severity::Warning,
                kinds::UNREACHABLE_RECORD,
                format!("records[{i}]"),
                vec![r.id.clone()],
                "no supported edge from any public concept reaches this record; no package can contain it".into(),
            );
        }
    }
}

/// A range after a reference word: `nnnnn`, `nnnnn - mmmmm`, `nnnnn – mmmmm` or
/// `nnnnn to mmmmm`, with what follows it.
fn range_at(rest: &str) -> Option<((u32, u32), &str)> {
    let rest = rest.trim_start();
    let a = five_digits(rest)?;
    let after = &rest[5..];
    let tail = after.trim_start();
    let joined = tail
        .strip_prefix('-')
        .or_else(|| tail.strip_prefix('–'))
        .or_else(|| {
            tail.strip_prefix("to")
                .filter(|t| t.starts_with(char::is_whitespace))
        });
    if let Some(t) = joined {
        let t = t.trim_start();
        if let Some(b) = five_digits(t).filter(|&b| b >= a) {
            return Some(((a, b), &t[5..]));
        }
    }
    Some(((a, a), after))
}

/// The paragraph ranges the running text of a page refers to: "DMG nnnnn" (also "DMG
/// paragraph nnnnn"), "paragraph nnnnn" and "paragraphs nnnnn to mmmmm", a range written
/// with "to" or a dash, and a list continued with commas or "and" ("DMG 77118, 77119 or",
/// "DMG 78795 and 78840 et seq"). A single reference is the range `(n, n)`. A contents line
/// ("Disability premium 23282 - 23284") is navigation, not a reference, and is not read.
pub fn cross_references(text: &str) -> BTreeSet<(u32, u32)> {
    let mut refs = BTreeSet::new();
    let mut starts: Vec<usize> = text.match_indices("DMG ").map(|(at, _)| at + 4).collect();
    for word in ["paragraph ", "paragraphs ", "Paragraph ", "Paragraphs "] {
        starts.extend(text.match_indices(word).map(|(at, _)| at + word.len()));
    }
    for at in starts {
        let rest = &text[at..];
        let rest = rest
            .strip_prefix("paragraphs ")
            .or_else(|| rest.strip_prefix("paragraph "))
            .unwrap_or(rest);
        let Some((range, mut tail)) = range_at(rest) else {
            continue;
        };
        refs.insert(range);
        // A list: ", nnnnn" or " and nnnnn", each possibly a range.
        loop {
            let t = tail.trim_start();
            let Some(next) = t.strip_prefix(',').or_else(|| t.strip_prefix("and ")) else {
                break;
            };
            let Some((range, rest)) = range_at(next) else {
                break;
            };
            refs.insert(range);
            tail = rest;
        }
    }
    refs
}

/// True when requirement `req` belongs to a published base of a composed index (all its
/// `when_all` concepts come from a part with an `index_sha256`): the base is kept as
/// published, so its requirements are not this profile's to correct.
fn in_published_base(index: &ContextIndex, req: &Requirement) -> bool {
    let Some(parts) = index.document().parts.as_ref() else {
        return false;
    };
    !req.when_all.is_empty()
        && req.when_all.iter().all(|c| {
            parts
                .iter()
                .any(|p| p.index_sha256.is_some() && p.concepts.contains(c))
        })
}

/// A page's paragraphs with their text (number removed): each runs from the line that starts
/// it (as [`paragraphs_held`] reads a line) to the next. Text before the first is the end of
/// a paragraph on an earlier page and is not read.
pub fn paragraph_texts(text: &str) -> Vec<(u32, String)> {
    let mut paragraphs: Vec<(u32, String)> = Vec::new();
    for line in text.lines() {
        // The engine's own reading of a paragraph start, so both always agree.
        if let Some(&n) = paragraphs_held(line).first() {
            paragraphs.push((n, line.trim_start()[5..].trim_start().to_owned()));
        } else if let Some((_, body)) = paragraphs.last_mut() {
            body.push('\n');
            body.push_str(line);
        }
    }
    paragraphs
}

/// Lower case, hyphens and dashes read as spaces ("long-term" is "long term"), one space
/// between words.
fn normalized(text: &str) -> String {
    text.to_lowercase()
        .replace(['-', '–', '—'], " ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// The term a paragraph defines: its text opens with at most four words, after an optional
/// article, then "means" ("A long-term patient means a person who", "“Day of recovery”
/// means", "Week means"); normalized, quotes removed.
pub fn defined_term(paragraph: &str) -> Option<String> {
    let text = normalized(paragraph);
    let quote = |c: char| matches!(c, '"' | '“' | '”' | '\'' | '‘' | '’');
    let words: Vec<&str> = text
        .split(' ')
        .map(|w| w.trim_matches(quote))
        .take(6)
        .collect();
    let words = match words.first() {
        Some(&("a" | "an" | "the")) => &words[1..],
        _ => &words[..],
    };
    let at = words.iter().position(|w| *w == "means")?;
    let term = &words[..at];
    let is_word = |w: &&str| !w.is_empty() && w.chars().all(|c| c.is_alphabetic() || c == '\'');
    (!term.is_empty() && term.len() <= 4 && term.iter().all(is_word)).then(|| term.join(" "))
}

/// True when the paragraph uses `term` (a [`defined_term`] of paragraph `definition`), or its
/// plural, as words in its running text. A line that is only the term is a heading, and a use
/// followed by a reference to the definition ("a patient (see DMG 54003)", a scope list) is
/// navigation to it; neither is a use.
fn uses_term(paragraph: &str, term: &str, definition: u32) -> bool {
    let plural = format!("{term}s");
    let text: Vec<String> = paragraph
        .lines()
        .map(normalized)
        .filter(|l| *l != term && *l != plural)
        .collect();
    let text = text.join(" ");
    let pointer = format!("see dmg {definition}");
    text.match_indices(term).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let rest = text[at + term.len()..].trim_start_matches('s');
        // "patient1" (a footnote marker) is a use; "outpatient" and "patienthood" are not.
        let word = !before.is_some_and(char::is_alphanumeric)
            && !rest.chars().next().is_some_and(char::is_alphabetic);
        let to_definition = rest
            .trim_start()
            .trim_start_matches('(')
            .starts_with(&pointer);
        word && !to_definition
    })
}

fn uncited_cross_references(index: &ContextIndex, captures: &[CapturedPage], out: &mut Out) {
    if captures.is_empty() {
        return;
    }
    // Paragraph -> the first captured page (in the order given) that holds it, and its text
    // there.
    let mut captured: BTreeMap<u32, &str> = BTreeMap::new();
    let mut texts: BTreeMap<u32, String> = BTreeMap::new();
    for page in captures {
        for p in paragraphs_held(&page.text) {
            captured.entry(p).or_insert(page.label.as_str());
        }
        for (p, text) in paragraph_texts(&page.text) {
            texts.entry(p).or_insert(text);
        }
    }
    let doc = index.document();
    let gap_paragraphs: BTreeMap<&str, BTreeSet<u32>> = doc
        .gaps
        .iter()
        .flatten()
        .map(|g| {
            let held = g
                .paragraphs
                .iter()
                .flatten()
                .filter_map(|p| five_digits(p))
                .collect();
            (g.id.as_str(), held)
        })
        .collect();
    for (i, req) in doc.requirements.iter().enumerate() {
        if in_published_base(index, req) {
            continue;
        }
        let mut held: BTreeSet<u32> = BTreeSet::new();
        for id in &req.required {
            if let Some(r) = index.record(id) {
                held.extend(paragraphs_held(&r.text));
            } else if let Some(g) = gap_paragraphs.get(id.as_str()) {
                held.extend(g);
            }
        }
        // One warning: requirement `i` cites `id` (its `j`th required item), which `why`.
        let uncited = |out: &mut Out, j: usize, id: &String, why: String| {
            out.push(
                Severity::Warning,
                kinds::UNCITED_CROSS_REFERENCE,
                format!("requirements[{i}].required[{j}]"),
                vec![req.id.clone(), id.clone()],
                format!("cites {id}, {why}; captured but neither required nor named by a declared gap's paragraphs"),
            );
        };
        for (j, id) in req.required.iter().enumerate() {
            let Some(r) = index.record(id) else { continue };
            let mut missed: BTreeMap<u32, &str> = BTreeMap::new();
            for (a, b) in cross_references(&r.text) {
                for (&p, &at) in captured.range(a..=b) {
                    if !held.contains(&p) {
                        missed.insert(p, at);
                    }
                }
            }
            if missed.is_empty() {
                continue;
            }
            let listed: Vec<String> = missed.iter().map(|(p, at)| format!("{p} ({at})")).collect();
            uncited(
                out,
                j,
                id,
                format!("whose text refers to DMG {}", listed.join(", ")),
            );
        }
        // A cited definition: the paragraphs of its chapter (DMG numbers share the chapter's
        // leading digits) that use the defined term state what the term does, which the
        // definition alone does not ("long-term patient" in 23256; HPP stops in 23280). Such
        // paragraphs are often reached only through a contents line, which is not a reference.
        for (j, id) in req.required.iter().enumerate() {
            let Some(r) = index.record(id) else { continue };
            for (d, definition) in paragraph_texts(&r.text) {
                let Some(term) = defined_term(&definition) else {
                    continue;
                };
                let chapter = d / 1000 * 1000;
                let missed: Vec<String> = texts
                    .range(chapter..chapter + 1000)
                    .filter(|(p, text)| !held.contains(p) && uses_term(text, &term, d))
                    .filter_map(|(p, _)| captured.get(p).map(|at| format!("{p} ({at})")))
                    .collect();
                if missed.is_empty() {
                    continue;
                }
                let why = format!(
                    "whose DMG {d} defines '{term}', used by DMG {}",
                    missed.join(", ")
                );
                uncited(out, j, id, why);
            }
        }
    }
}

fn gaps_held_in_index(index: &ContextIndex, out: &mut Out) {
    let doc = index.document();
    let held: Vec<(usize, BTreeSet<u32>)> = doc
        .records
        .iter()
        .enumerate()
        .filter(|(_, r)| !r.text.is_empty())
        .map(|(i, r)| (i, paragraphs_held(&r.text)))
        .collect();
    for (i, g) in doc.gaps.iter().flatten().enumerate() {
        let wanted: BTreeSet<u32> = g
            .paragraphs
            .iter()
            .flatten()
            .filter_map(|p| five_digits(p))
            .collect();
        let holders: Vec<(u32, &str)> = wanted
            .iter()
            .filter_map(|p| {
                held.iter()
                    .find(|(_, h)| h.contains(p))
                    .map(|(r, _)| (*p, doc.records[*r].id.as_str()))
            })
            .collect();
        if holders.is_empty() {
            continue;
        }
        let mut ids = vec![g.id.clone()];
        ids.extend(holders.iter().map(|(_, r)| (*r).to_owned()));
        ids.dedup();
        let listed: Vec<String> = holders
            .iter()
            .map(|(p, r)| format!("DMG {p} is held by {r}"))
            .collect();
        out.push(
            Severity::Warning,
            kinds::GAP_HELD_IN_INDEX,
            format!("gaps[{i}]"),
            ids,
            format!(
                "the declared gap stands for paragraphs the index holds ({}); cite the record instead of the gap",
                listed.join("; ")
            ),
        );
    }
}

/// The review checks (issue 45; docs/authoring.md "The review loop").
fn reviews(index: &ContextIndex, claims: Option<&[ReviewClaim]>, out: &mut Out) {
    let doc = index.document();
    if doc.reviews.is_none() && claims.is_none() {
        return;
    }
    let mut items: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    let mut paths: Vec<(String, &str)> = Vec::new();
    let mut position: BTreeMap<&'static str, usize> = BTreeMap::new();
    for (id, kind, digest) in okf_engine::review::reviewable_items(doc) {
        let list = match kind {
            okf_engine::review::ReviewedKind::Record => "records",
            okf_engine::review::ReviewedKind::Assertion => "assertions",
            okf_engine::review::ReviewedKind::Requirement => "requirements",
            okf_engine::review::ReviewedKind::Gap => "gaps",
        };
        let n = position.entry(list).or_default();
        paths.push((format!("{list}[{n}]"), id));
        *n += 1;
        items.entry(id).or_default().push(digest);
    }
    let current_digest = |item: &str| -> Option<&str> {
        match items.get(item).map(Vec::as_slice) {
            Some([digest]) => Some(digest.as_str()),
            _ => None,
        }
    };
    let mut reviewed: HashSet<&str> = HashSet::new();
    for (i, r) in doc.reviews.iter().flatten().enumerate() {
        match current_digest(&r.item) {
            None => out.push(
                Severity::Error,
                kinds::REVIEW_UNKNOWN_ITEM,
                format!("reviews[{i}].item"),
                vec![r.item.clone()],
                format!("records a {} review of {}, which is not exactly one record, assertion, requirement or gap of the index", r.decision.as_str(), r.item),
            ),
            Some(actual) if actual != r.item_sha256 => out.push(
                Severity::Error,
                kinds::STALE_REVIEW,
                format!("reviews[{i}].item_sha256"),
                vec![r.item.clone()],
                format!("records a {} review of {} made for item_sha256 {}, but the item now hashes to {actual}; the review does not cover it", r.decision.as_str(), r.item, r.item_sha256),
            ),
            Some(_) => {
                reviewed.insert(r.item.as_str());
            }
        }
    }
    let claims = claims.unwrap_or_default();
    let mut by_item: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for c in claims {
        by_item
            .entry(c.item.as_str())
            .or_default()
            .push(c.file.as_str());
    }
    for (item, files) in &by_item {
        if files.len() > 1 {
            let mut ids = vec![(*item).to_owned()];
            ids.extend(files.iter().map(|f| (*f).to_owned()));
            out.push(
                Severity::Error,
                kinds::CONFLICTING_REVIEWS,
                files[0].to_owned(),
                ids,
                format!(
                    "{} decision files name {item}: {}; keep one (okf build refuses them)",
                    files.len(),
                    files.join(", ")
                ),
            );
        }
    }
    for c in claims {
        match current_digest(&c.item) {
            None => out.push(
                Severity::Error,
                kinds::REVIEW_UNKNOWN_ITEM,
                c.file.clone(),
                vec![c.item.clone(), c.file.clone()],
                format!("names {}, which is not exactly one record, assertion, requirement or gap of the index", c.item),
            ),
            Some(actual) if actual != c.item_sha256 => out.push(
                Severity::Warning,
                kinds::STALE_REVIEW,
                c.file.clone(),
                vec![c.item.clone(), c.file.clone()],
                format!("was made for item_sha256 {}, but {} now hashes to {actual}; review it again (okf build does not apply it)", c.item_sha256, c.item),
            ),
            Some(_) => {
                let recorded = doc
                    .reviews
                    .iter()
                    .flatten()
                    .any(|r| r.item == c.item && r.item_sha256 == c.item_sha256);
                if !recorded {
                    out.push(
                        Severity::Warning,
                        kinds::REVIEW_NOT_IN_INDEX,
                        c.file.clone(),
                        vec![c.item.clone(), c.file.clone()],
                        format!("is current for {} but the index does not record it; rebuild the index", c.item),
                    );
                }
            }
        }
    }
    for (path, id) in paths {
        if !reviewed.contains(id) {
            out.push(
                Severity::Info,
                kinds::UNREVIEWED_ITEM,
                path,
                vec![id.to_owned()],
                "no current review decision covers this item".into(),
            );
        }
    }
}
