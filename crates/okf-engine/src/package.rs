//! Writing the `okf-governed-context.v1` package as canonical JSON, and its identity (spec §4).
//!
//! The writer emits keys already in canonical (UTF-16) order, so the bytes it produces are the
//! canonical JSON of the package without a separate sorting step. Records and assertions are
//! copied from the canonical JSON precomputed when the index was loaded.

use crate::canonical::{ByteCounter, HashSink, Sink, write_str, write_strs, write_u64};
use crate::error::Error;
use crate::index::ContextIndex;
use crate::model::Requirement;
use crate::model::{write_issue, write_issues};
use crate::pass::{EvidenceStatus, Pass, limits, msg};
use crate::reviewed::{self, RequirementReview};

/// This engine's identifier, written into every package's `engine` field. It carries the crate
/// version so that any change of output semantics changes the identifier too (spec W19).
pub const ENGINE_ID: &str = concat!("ask-okf-engine/", env!("CARGO_PKG_VERSION"));

/// Schema identifier of the package.
pub const PACKAGE_SCHEMA: &str = "okf-governed-context.v1";

/// An assembled package: its canonical JSON bytes and the facts adapters need without parsing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Assembled {
    /// Canonical compact JSON of the package; `used_bytes` is its length.
    pub json: String,
    /// `urn:sha256:` identity of the package.
    pub context_id: String,
    /// Byte length of `json`.
    pub used_bytes: u64,
    /// The package's evidence status.
    pub evidence_status: EvidenceStatus,
}

/// A read-only view of a finished pass, ready to be written.
pub(crate) struct PackageView<'p, 's, 'a> {
    pass: &'p Pass<'s, 'a>,
}

impl<'p, 's, 'a> PackageView<'p, 's, 'a> {
    pub(crate) fn new(pass: &'p Pass<'s, 'a>) -> Self {
        PackageView { pass }
    }
}

/// How the two identity fields are written.
#[derive(Clone, Copy)]
enum Identity<'x> {
    /// Both left out: the hash input of §4.3.
    Omitted,
    /// `context_id` and `used_bytes` with their final values.
    Final(&'x str, u64),
    /// An empty id and zero bytes, as measured while trimming (spec §3.10).
    Placeholder,
}

/// Bytes of the package with an empty `context_id` and `used_bytes` 0.
pub(crate) fn measure(view: &PackageView<'_, '_, '_>) -> u64 {
    let mut counter = ByteCounter::default();
    write_package(&mut counter, view, Identity::Placeholder);
    counter.0 as u64
}

/// Computes the identity and writes the final bytes (spec §3.10 finalising, §4.3).
pub(crate) fn finalize(view: &PackageView<'_, '_, '_>) -> Result<Assembled, Error> {
    let mut hash = HashSink::default();
    write_package(&mut hash, view, Identity::Omitted);
    let (digest, unsigned_len) = hash.finish();
    let context_id = format!("urn:sha256:{digest}");
    let fixed =
        (unsigned_len + "\"context_id\":\"\",".len() + context_id.len() + ",\"used_bytes\":".len())
            as u64;
    // The digit count of used_bytes feeds back into its value; iterate to the fixed point,
    // which exists because adding one digit can only be needed once (spec W14).
    let mut used = fixed + 1;
    while fixed + digits(used) != used {
        used = fixed + digits(used);
    }
    let mut json = String::with_capacity(usize::try_from(used).unwrap_or(0));
    write_package(&mut json, view, Identity::Final(&context_id, used));
    debug_assert_eq!(json.len() as u64, used);
    let max_bytes = view.pass.setup.budget.max_bytes;
    if used > max_bytes {
        return Err(Error::PackageTooSmall {
            max_bytes,
            needed: used,
        });
    }
    Ok(Assembled {
        json,
        context_id,
        used_bytes: used,
        evidence_status: view.pass_status(),
    })
}

fn digits(n: u64) -> u64 {
    let mut d = 1;
    let mut v = n;
    while v >= 10 {
        v /= 10;
        d += 1;
    }
    d
}

impl PackageView<'_, '_, '_> {
    fn pass_status(&self) -> EvidenceStatus {
        if self.pass.fallback {
            EvidenceStatus::Insufficient
        } else {
            self.pass.status
        }
    }
}

fn write_path_spec<S: Sink + ?Sized>(
    out: &mut S,
    assertions: &[&str],
    records: &[&str],
    seed: &str,
) {
    out.raw("{\"assertions\":");
    write_strs(out, assertions);
    out.raw(",\"records\":");
    write_strs(out, records);
    out.raw(",\"seed\":");
    write_str(out, seed);
    out.byte(b'}');
}

fn write_requirement<S: Sink + ?Sized>(
    out: &mut S,
    req: &Requirement,
    missing: &[String],
    review: Option<(&RequirementReview<'_>, &ContextIndex)>,
) {
    out.byte(b'{');
    if let Some(covers) = &req.covers {
        out.raw("\"covers\":");
        write_strs(out, covers);
        out.byte(b',');
    }
    out.raw("\"id\":");
    write_str(out, &req.id);
    out.raw(",\"label\":");
    write_str(out, &req.label);
    if let Some(limitations) = &req.limitations {
        out.raw(",\"limitations\":");
        write_strs(out, limitations);
    }
    out.raw(",\"missing\":");
    write_strs(out, missing);
    if let Some(regime) = &req.regime {
        out.raw(",\"regime\":");
        write_str(out, regime);
    }
    out.raw(",\"required\":");
    write_strs(out, &req.required);
    if let Some(paths) = &req.required_paths {
        out.raw(",\"required_paths\":[");
        for (i, p) in paths.iter().enumerate() {
            if i > 0 {
                out.byte(b',');
            }
            let a: Vec<&str> = p.assertions.iter().map(String::as_str).collect();
            let r: Vec<&str> = p.records.iter().map(String::as_str).collect();
            write_path_spec(out, &a, &r, &p.seed);
        }
        out.byte(b']');
    }
    if let Some((review, index)) = review {
        review.write(out, index);
    }
    out.raw(",\"scope\":");
    write_str(out, &req.scope);
    out.raw(",\"status\":");
    write_str(
        out,
        if missing.is_empty() {
            "supported-within-declared-scope"
        } else {
            "insufficient"
        },
    );
    out.raw(",\"when_all\":");
    write_strs(out, &req.when_all);
    out.byte(b'}');
}

/// The value of `profile` in a package written with the richer profile.
pub const REGIME_PROFILE: &str = "okf-governed-context.v1+regimes.v1";

/// `guidance_regime`: the regimes the question establishes and leaves open, those in force
/// whose guidance the package does not hold (`not_held`, issue 40), and `as_of`.
fn write_guidance_regime<S: Sink + ?Sized>(out: &mut S, pass: &Pass<'_, '_>) {
    let setup = pass.setup;
    let outcome = setup.regimes.as_ref().filter(|_| !pass.fallback);
    out.raw(",\"guidance_regime\":{\"as_of\":");
    match setup.options.as_of {
        Some(d) => write_str(out, &d.to_date_string()),
        None => out.raw("null"),
    }
    out.raw(",\"not_held\":");
    write_strs(out, outcome.map_or(&[][..], |o| &o.not_held));
    out.raw(",\"resolved\":");
    write_strs(out, outcome.map_or(&[][..], |o| &o.resolved));
    out.raw(",\"unresolved\":");
    write_strs(out, outcome.map_or(&[][..], |o| &o.unresolved));
    out.byte(b'}');
}

/// Richer profile: each resolved concept whose guidance regime the question leaves open, as an
/// ambiguity a client reading `ambiguities` sees (`{candidates: regime ids, phrase, reason}`),
/// after the phrase ambiguities; the `ambiguous_regime` issues stay in `missing_evidence`.
/// `after_others`: a phrase ambiguity was written before these.
fn write_regime_ambiguities<S: Sink + ?Sized>(
    out: &mut S,
    pass: &Pass<'_, '_>,
    after_others: bool,
) {
    let setup = pass.setup;
    let Some(outcome) = setup.regimes.as_ref() else {
        return;
    };
    let doc = setup.index.document();
    for (i, ambiguous) in outcome.ambiguous.iter().enumerate() {
        let Some((concept, regimes)) = ambiguous.split_first() else {
            continue;
        };
        // The words of the question that named the concept.
        let phrase = setup
            .resolution
            .concepts
            .iter()
            .find(|c| doc.records[c.record as usize].id == *concept)
            .and_then(|c| c.matched.first())
            .map_or(concept.as_str(), String::as_str);
        if after_others || i > 0 {
            out.byte(b',');
        }
        out.raw("{\"candidates\":");
        write_strs(out, regimes);
        out.raw(",\"phrase\":");
        write_str(out, phrase);
        out.raw(",\"reason\":");
        write_str(out, msg::AMBIGUOUS_REGIME_TERM);
        out.byte(b'}');
    }
}

/// `declared_gaps` (richer profile): each declared gap an issue of `missing_evidence` names,
/// once, in id order, with the author's label and reason and the codes of the issues that name
/// it. Issues name a gap by id under several codes (the record is absent, a dependency and a
/// requirement need it); this is where a reader learns what the gap is and why it is open.
fn write_declared_gaps<S: Sink + ?Sized>(out: &mut S, pass: &Pass<'_, '_>) {
    let gaps = pass
        .setup
        .index
        .document()
        .gaps
        .as_deref()
        .unwrap_or_default();
    // (gap index, code) pairs, sorted by gap id then code (byte order), without repeats.
    let mut named: Vec<(usize, &str)> = Vec::new();
    if !pass.fallback {
        for issue in &pass.missing_evidence.items {
            for id in &issue.ids {
                if let Some(g) = gaps.iter().position(|g| g.id == *id) {
                    named.push((g, issue.code));
                }
            }
        }
    }
    named.sort_unstable_by(|a, b| (gaps[a.0].id.as_str(), a.1).cmp(&(gaps[b.0].id.as_str(), b.1)));
    named.dedup();
    out.raw("\"declared_gaps\":[");
    for (i, group) in named.chunk_by(|a, b| a.0 == b.0).enumerate() {
        let gap = &gaps[group[0].0];
        if i > 0 {
            out.byte(b',');
        }
        out.raw("{\"codes\":[");
        for (j, (_, code)) in group.iter().enumerate() {
            if j > 0 {
                out.byte(b',');
            }
            write_str(out, code);
        }
        out.raw("],\"id\":");
        write_str(out, &gap.id);
        out.raw(",\"label\":");
        write_str(out, &gap.label);
        out.raw(",\"reason\":");
        write_str(out, &gap.reason);
        out.byte(b'}');
    }
    out.raw("],");
}

/// `status_basis`: the arithmetic behind `evidence_status`.
fn write_status_basis<S: Sink + ?Sized>(out: &mut S, pass: &Pass<'_, '_>) {
    let (total, met, blocking) = if pass.fallback {
        (0, 0, 0)
    } else {
        let met = pass
            .requirements
            .iter()
            .filter(|r| r.missing.is_empty())
            .count();
        (pass.requirements.len(), met, pass.conflicts.items.len())
    };
    out.raw(",\"status_basis\":{\"conflicts_blocking\":");
    write_u64(out, blocking as u64);
    out.raw(",\"requirements_met\":");
    write_u64(out, met as u64);
    out.raw(",\"requirements_total\":");
    write_u64(out, total as u64);
    out.raw(",\"requirements_unmet\":");
    write_u64(out, (total - met) as u64);
    out.raw(",\"truncated\":");
    out.raw(if pass.fallback || !pass.omissions.items.is_empty() {
        "true"
    } else {
        "false"
    });
    out.byte(b'}');
}

/// The `budget` object: the limits, what was omitted and what was used (the fallback package
/// used nothing and omitted everything for its byte budget).
fn write_budget<S: Sink>(out: &mut S, pass: &Pass<'_, '_>, identity: Identity) {
    let fallback = pass.fallback;
    let budget = &pass.setup.budget;
    out.raw("{\"max_bytes\":");
    write_u64(out, budget.max_bytes);
    out.raw(",\"max_depth\":");
    write_u64(out, budget.max_depth);
    out.raw(",\"max_nodes\":");
    write_u64(out, budget.max_nodes);
    out.raw(",\"max_relationships\":");
    write_u64(out, budget.max_relationships);
    out.raw(",\"omissions\":");
    if fallback {
        out.byte(b'[');
        write_issue(out, "byte_budget", &[], msg::METADATA_BYTE_BUDGET);
        out.byte(b']');
    } else {
        write_issues(out, &pass.omissions.items);
    }
    out.raw(",\"reached_depth\":");
    write_u64(out, pass.reached_depth);
    out.raw(",\"truncated\":");
    out.raw(if fallback || !pass.omissions.items.is_empty() {
        "true"
    } else {
        "false"
    });
    match identity {
        Identity::Omitted => {}
        Identity::Final(_, used) => {
            out.raw(",\"used_bytes\":");
            write_u64(out, used);
        }
        Identity::Placeholder => out.raw(",\"used_bytes\":0"),
    }
    let (nodes, relationships) = match fallback {
        true => (0, 0),
        false => (pass.selections.len() as u64, pass.held.len() as u64),
    };
    out.raw(",\"used_nodes\":");
    write_u64(out, nodes);
    out.raw(",\"used_relationships\":");
    write_u64(out, relationships);
    out.byte(b'}');
}

/// The `resolved_concepts` array: each concept the question's phrases resolved to.
fn write_resolved_concepts<S: Sink>(out: &mut S, pass: &Pass<'_, '_>) {
    let doc = pass.setup.index.document();
    out.byte(b'[');
    for (i, c) in pass.setup.resolution.concepts.iter().enumerate() {
        if i > 0 {
            out.byte(b',');
        }
        let rec = &doc.records[c.record as usize];
        out.raw("{\"confidence\":\"exact-alias\",\"id\":");
        write_str(out, &rec.id);
        out.raw(",\"label\":");
        write_str(out, &rec.label);
        out.raw(",\"matched\":");
        write_strs(out, &c.matched);
        out.raw(",\"method\":\"declared-phrase\"}");
    }
    out.byte(b']');
}

/// The `routing_guards` member, present only when some guarded assertion was considered.
fn write_routing_guards<S: Sink>(out: &mut S, pass: &Pass<'_, '_>) {
    let guards = pass.routing_guards();
    if guards.is_empty() {
        return;
    }
    let doc = pass.setup.index.document();
    out.raw(",\"routing_guards\":[");
    for (i, (a, d)) in guards.iter().enumerate() {
        if i > 0 {
            out.byte(b',');
        }
        let assertion = &doc.assertions[*a as usize];
        out.raw("{\"assertion_id\":");
        write_str(out, &assertion.id);
        out.raw(",\"missing_concepts\":");
        write_strs(out, &d.missing);
        out.raw(",\"source\":");
        write_str(out, &assertion.source);
        out.raw(",\"status\":");
        write_str(out, if d.matched { "matched" } else { "unmatched" });
        out.raw(",\"target\":");
        write_str(out, &assertion.target);
        out.raw(",\"unavailable_concepts\":");
        write_strs(out, &d.unavailable);
        out.raw(",\"when_all\":");
        write_strs(out, &d.when_all);
        out.byte(b'}');
    }
    out.byte(b']');
}

/// The `selected` array: each selected record with the paths that reached it and why.
fn write_selected<S: Sink>(out: &mut S, pass: &Pass<'_, '_>) {
    let index = pass.setup.index;
    let doc = index.document();
    out.byte(b'[');
    for (i, sel) in pass.selections.iter().enumerate() {
        if i > 0 {
            out.byte(b',');
        }
        out.raw("{\"paths\":[");
        for (j, p) in sel.paths.iter().enumerate() {
            if j > 0 {
                out.byte(b',');
            }
            let a: Vec<&str> = p
                .assertions
                .iter()
                .map(|&x| doc.assertions[x as usize].id.as_str())
                .collect();
            let r: Vec<&str> = p
                .records
                .iter()
                .map(|&x| doc.records[x as usize].id.as_str())
                .collect();
            write_path_spec(out, &a, &r, &doc.records[p.seed as usize].id);
        }
        out.raw("],\"reasons\":");
        write_strs(out, &sel.reasons);
        out.raw(",\"record\":");
        out.raw(&index.record_json[sel.record as usize]);
        out.byte(b'}');
    }
    out.byte(b']');
}

/// Writes the whole package in canonical key order.
// Long because the top-level members are written in one place, in canonical key order, so
// the order can be checked by reading down the function; nested members have their own.
fn write_package<S: Sink>(out: &mut S, view: &PackageView<'_, '_, '_>, identity: Identity) {
    let pass = view.pass;
    let setup = pass.setup;
    let index = setup.index;
    let doc = index.document();
    let fallback = pass.fallback;

    out.raw("{\"ai_answer\":null,\"ambiguities\":[");
    if !fallback {
        for (i, a) in setup.resolution.ambiguities.iter().enumerate() {
            if i > 0 {
                out.byte(b',');
            }
            out.raw("{\"candidates\":");
            write_strs(out, &a.candidates);
            out.raw(",\"phrase\":");
            write_str(out, &a.phrase);
            out.byte(b'}');
        }
        if setup.options.regime_profile {
            write_regime_ambiguities(out, pass, !setup.resolution.ambiguities.is_empty());
        }
    }
    out.raw("],\"binding\":{\"index_sha256\":");
    write_str(out, &setup.binding.index_sha256);
    out.raw(",\"index_url\":");
    write_str(out, &setup.binding.index_url);
    out.raw("},\"budget\":");
    write_budget(out, pass, identity);
    out.raw(",\"bundle\":{\"id\":");
    write_str(out, &doc.bundle.id);
    out.raw(",\"snapshot\":");
    write_str(out, &doc.bundle.snapshot);
    out.raw(",\"source_url\":");
    write_str(out, &doc.bundle.source_url);
    out.raw("},\"conflicts\":");
    if fallback {
        out.raw("[]");
    } else {
        write_issues(out, &pass.conflicts.items);
    }
    out.byte(b',');
    match identity {
        Identity::Omitted => {}
        Identity::Final(id, _) => {
            out.raw("\"context_id\":");
            write_str(out, id);
            out.byte(b',');
        }
        Identity::Placeholder => out.raw("\"context_id\":\"\","),
    }
    let profile = setup.options.regime_profile;
    if profile {
        write_declared_gaps(out, pass);
    }
    out.raw("\"engine\":");
    write_str(out, ENGINE_ID);
    out.raw(",\"evidence_status\":");
    write_str(
        out,
        if fallback {
            EvidenceStatus::Insufficient.as_str()
        } else {
            pass.status.as_str()
        },
    );
    if profile {
        write_guidance_regime(out, pass);
    }
    out.raw(",\"limitations\":");
    write_strs(out, pass.limitations());
    out.raw(",\"missing_evidence\":");
    if fallback {
        out.byte(b'[');
        write_issue(out, "metadata_budget", &[], msg::METADATA_BUDGET);
        out.byte(b']');
    } else {
        write_issues(out, &pass.missing_evidence.items);
    }
    if profile {
        out.raw(",\"profile\":");
        write_str(out, REGIME_PROFILE);
    }
    out.raw(",\"question\":");
    write_str(out, setup.question);
    out.raw(",\"relationships\":[");
    if !fallback {
        for (i, &a) in pass.held.iter().enumerate() {
            if i > 0 {
                out.byte(b',');
            }
            out.raw(&index.assertion_json[a as usize]);
        }
    }
    out.raw("],\"requirements\":[");
    let reviews = reviewed::shown(pass);
    if !fallback {
        for (i, r) in pass.requirements.iter().enumerate() {
            if i > 0 {
                out.byte(b',');
            }
            let req = &doc.requirements[r.requirement as usize];
            let review = reviews.then(|| RequirementReview::of(index, req));
            write_requirement(out, req, &r.missing, review.as_ref().map(|v| (v, index)));
        }
    }
    out.raw("],\"resolved_concepts\":");
    if fallback {
        out.raw("[]");
    } else {
        write_resolved_concepts(out, pass);
    }
    if let Some(discovery) = setup.discovery {
        out.raw(",\"retrieval\":");
        discovery.retrieval.write(out, fallback);
    }
    if reviews {
        reviewed::write_review_basis(out, pass);
    }
    if !fallback {
        write_routing_guards(out, pass);
    }
    out.raw(",\"schema\":");
    write_str(out, PACKAGE_SCHEMA);
    out.raw(",\"scope\":");
    write_str(
        out,
        if fallback {
            limits::FALLBACK_SCOPE
        } else {
            &doc.scope
        },
    );
    out.raw(",\"selected\":");
    if fallback {
        out.raw("[]");
    } else {
        write_selected(out, pass);
    }
    if profile {
        write_status_basis(out, pass);
    }
    out.raw(",\"unresolved_terms\":");
    if fallback {
        out.raw("[]");
    } else {
        write_strs(out, &setup.resolution.unresolved_terms);
    }
    out.byte(b'}');
}
