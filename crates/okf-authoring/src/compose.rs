//! A compiled profile composed onto a published base index (`okf build --base`).
//!
//! The base file is checked against the digest the profile pins and against the engine's
//! rules, then kept whole: its records, assertions, requirements, gaps and regimes come first,
//! unchanged, and the profile's follow. An id the profile shares with the base is an error
//! naming the profile's line and what the base holds under it. The composed index lists its
//! parts (base and profile) with their concepts, so a phrase both declare is read by the part
//! the rest of the question comes from (okf-engine `parts`).

use crate::error::Rule;
use crate::origin::{Origin, Origins};
use crate::profile::ComposeDecl;
use okf_engine::ContextIndex;
use okf_engine::dmg::{five_digits, paragraphs_held};
use okf_engine::model::{IndexDocument, Part, RecordKind};
use std::collections::{BTreeSet, HashMap};

/// Where the profile's items start in each list of the composed index: the base's counts.
#[derive(Debug, Default)]
pub(crate) struct Shift {
    pub records: usize,
    pub assertions: usize,
    pub requirements: usize,
    pub gaps: usize,
    pub regimes: usize,
}

/// The composed index, where the profile's items start in it, and the profile gaps the base
/// turned out to hold.
pub(crate) struct Composed {
    pub index: IndexDocument,
    pub shift: Shift,
    pub resolved: Vec<ResolvedGap>,
}

/// A declared gap of the profile whose paragraphs the base holds: in the composed index it is
/// no longer a gap; what required or pointed at it requires or points at these base records.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvedGap {
    /// The gap id (dropped from the composed index's gaps).
    pub gap: String,
    /// The base records that hold its paragraphs, in paragraph order, each once.
    pub records: Vec<String>,
}

/// Why a composition failed: a rule about the `[compose]` section as a whole, or about one
/// profile item.
pub(crate) enum Failure {
    Whole(Rule),
    At(Origin, Rule),
}

/// Composes `profile` (the profile's own compiled index) onto the base index file `base`.
pub(crate) fn onto(
    profile: IndexDocument,
    base: &[u8],
    decl: &ComposeDecl,
    base_regime: Option<String>,
    origins: &Origins,
) -> Result<Composed, Failure> {
    let actual = okf_engine::canonical::sha256_hex(base);
    if actual != decl.base_sha256 {
        return Err(Failure::Whole(Rule::DigestMismatch {
            what: "[compose] base_sha256",
            declared: decl.base_sha256.clone(),
            actual,
        }));
    }
    let base = ContextIndex::from_json_slice(base)
        .map_err(|e| Failure::Whole(Rule::BaseIndex(e.to_string())))?
        .document()
        .clone();
    check_collisions(&base, &profile, origins)?;
    let mut profile = profile;
    let resolved = resolve_held_gaps(&base, &mut profile, origins)?;
    let shift = Shift {
        records: base.records.len(),
        assertions: base.assertions.len(),
        requirements: base.requirements.len(),
        gaps: base.gaps.as_ref().map_or(0, Vec::len),
        regimes: base.regimes.as_ref().map_or(0, Vec::len),
    };
    let concepts_of = |doc: &IndexDocument| -> Vec<String> {
        doc.records
            .iter()
            .filter(|r| r.kind == RecordKind::Concept)
            .map(|r| r.id.clone())
            .collect()
    };
    // A base that is itself composed keeps its parts; otherwise it is one part.
    let mut parts = base.parts.clone().unwrap_or_else(|| {
        vec![Part {
            concepts: concepts_of(&base),
            id: base.bundle.id.clone(),
            index_sha256: Some(decl.base_sha256.clone()),
            label: decl.base_label.clone(),
            regime: base_regime,
        }]
    });
    parts.push(Part {
        concepts: concepts_of(&profile),
        id: profile.bundle.id.clone(),
        index_sha256: None,
        label: decl.label.clone(),
        regime: None,
    });
    let mut limitations = base.limitations;
    for l in profile
        .limitations
        .into_iter()
        .chain(decl.limitations.iter().cloned())
    {
        if !limitations.contains(&l) {
            limitations.push(l);
        }
    }
    let index = IndexDocument {
        assertions: [base.assertions, profile.assertions].concat(),
        bundle: decl.bundle.clone(),
        gaps: joined(base.gaps, profile.gaps),
        limitations,
        parts: Some(parts),
        records: [base.records, profile.records].concat(),
        regimes: joined(base.regimes, profile.regimes),
        requirements: [base.requirements, profile.requirements].concat(),
        // The base's items are kept as published, so its recorded reviews still hold.
        reviews: base.reviews,
        schema: profile.schema,
        scope: decl.scope.clone(),
        // A word neutral in either part is neutral in the composed index.
        vocabulary: crate::profile::vocabulary_from(match (base.vocabulary, profile.vocabulary) {
            (None, None) => None,
            (b, p) => Some(b.into_iter().chain(p).flat_map(|v| v.neutral).collect()),
        }),
    };
    Ok(Composed {
        index,
        shift,
        resolved,
    })
}

/// Every profile gap that declares `paragraphs` all of which a base record holds (the same
/// reading of page text as `okf lint`'s gap-held-in-index) is resolved: each `required` list
/// and regime `absent_evidence` that names it names the holding base records instead, each
/// assertion that points at it points at the first holder (and a copy of it, with the id
/// suffixed by the paragraph, at each further holder), and the gap is dropped. A gap the base
/// holds only in part is an error at its line. Gaps without `paragraphs` are kept.
fn resolve_held_gaps(
    base: &IndexDocument,
    profile: &mut IndexDocument,
    origins: &Origins,
) -> Result<Vec<ResolvedGap>, Failure> {
    let held: Vec<(&str, BTreeSet<u32>)> = base
        .records
        .iter()
        .filter(|r| !r.text.is_empty())
        .map(|r| (r.id.as_str(), paragraphs_held(&r.text)))
        .collect();
    let holder = |p: u32| held.iter().find(|(_, h)| h.contains(&p)).map(|(id, _)| *id);
    let mut resolved = Vec::new();
    let mut keep = Vec::new();
    for (i, gap) in profile.gaps.take().into_iter().flatten().enumerate() {
        let paragraphs: Vec<u32> = gap
            .paragraphs
            .iter()
            .flatten()
            .filter_map(|p| five_digits(p))
            .collect();
        let holders: Vec<(u32, Option<&str>)> =
            paragraphs.iter().map(|&p| (p, holder(p))).collect();
        let first_held = holders.iter().find_map(|&(p, r)| r.map(|r| (p, r)));
        let first_missing = holders.iter().find(|(_, r)| r.is_none());
        match (first_held, first_missing) {
            (None, _) => keep.push(gap),
            (Some((p, r)), Some((q, _))) => {
                let at = origins.gaps.get(i).cloned();
                let rule = Rule::GapPartlyInBase {
                    gap: gap.id.clone(),
                    held: Box::new((p.to_string(), r.to_owned())),
                    missing: q.to_string(),
                };
                return Err(match at {
                    Some(at) => Failure::At(at, rule),
                    None => Failure::Whole(rule),
                });
            }
            (Some(_), None) => {
                let mut records: Vec<(u32, String)> = Vec::new();
                for (p, r) in holders {
                    let r = r.unwrap_or_default().to_owned();
                    if !records.iter().any(|(_, x)| *x == r) {
                        records.push((p, r));
                    }
                }
                replace_gap(profile, &gap.id, &records);
                resolved.push(ResolvedGap {
                    gap: gap.id,
                    records: records.into_iter().map(|(_, r)| r).collect(),
                });
            }
        }
    }
    profile.gaps = (!keep.is_empty()).then_some(keep);
    Ok(resolved)
}

/// Names `records` (each with the first paragraph it holds) wherever the profile names `gap`.
fn replace_gap(profile: &mut IndexDocument, gap: &str, records: &[(u32, String)]) {
    let splice = |list: &mut Vec<String>| {
        if let Some(at) = list.iter().position(|id| id == gap) {
            list.remove(at);
            let mut k = at;
            for (_, r) in records {
                if !list.contains(r) {
                    list.insert(k, r.clone());
                    k += 1;
                }
            }
        }
    };
    for q in &mut profile.requirements {
        splice(&mut q.required);
    }
    for r in profile.regimes.iter_mut().flatten() {
        if let Some(list) = r.absent_evidence.as_mut() {
            splice(list);
        }
    }
    let mut assertions = Vec::with_capacity(profile.assertions.len());
    for a in std::mem::take(&mut profile.assertions) {
        if a.target != gap {
            assertions.push(a);
            continue;
        }
        for (k, (p, r)) in records.iter().enumerate() {
            let mut copy = a.clone();
            copy.target = r.clone();
            copy.label = format!(
                "{} (composed index: DMG {p} is held by the base record {r})",
                a.label
            );
            if k > 0 {
                copy.id = format!("{}-{p}", a.id);
            }
            assertions.push(copy);
        }
    }
    profile.assertions = assertions;
}

/// The base's list then the profile's; absent when both are.
fn joined<T>(base: Option<Vec<T>>, profile: Option<Vec<T>>) -> Option<Vec<T>> {
    let all: Vec<T> = base
        .into_iter()
        .flatten()
        .chain(profile.into_iter().flatten())
        .collect();
    (!all.is_empty()).then_some(all)
}

/// Every profile id that the base already uses, as an error at the profile item's line.
fn check_collisions(
    base: &IndexDocument,
    profile: &IndexDocument,
    origins: &Origins,
) -> Result<(), Failure> {
    let mut taken: HashMap<&str, &'static str> = HashMap::new();
    let lists: [(&'static str, Vec<&str>); 6] = [
        (
            "record",
            base.records.iter().map(|r| r.id.as_str()).collect(),
        ),
        (
            "assertion",
            base.assertions.iter().map(|a| a.id.as_str()).collect(),
        ),
        (
            "requirement",
            base.requirements.iter().map(|q| q.id.as_str()).collect(),
        ),
        (
            "gap",
            base.gaps.iter().flatten().map(|g| g.id.as_str()).collect(),
        ),
        (
            "regime",
            base.regimes
                .iter()
                .flatten()
                .map(|r| r.id.as_str())
                .collect(),
        ),
        (
            "part",
            base.parts.iter().flatten().map(|p| p.id.as_str()).collect(),
        ),
    ];
    for (what, ids) in lists {
        for id in ids {
            taken.insert(id, what);
        }
    }
    taken.entry(base.bundle.id.as_str()).or_insert("bundle");
    // Parts are named by bundle id, so the profile's bundle must be its own.
    if let Some(&base_item) = taken.get(profile.bundle.id.as_str()) {
        return Err(Failure::Whole(Rule::CollidesWithBase {
            id: profile.bundle.id.clone(),
            base_item,
        }));
    }
    let declared: [(Vec<&str>, &[Origin]); 5] = [
        (
            profile.records.iter().map(|r| r.id.as_str()).collect(),
            origins.records,
        ),
        (
            profile.assertions.iter().map(|a| a.id.as_str()).collect(),
            origins.assertions,
        ),
        (
            profile.requirements.iter().map(|q| q.id.as_str()).collect(),
            origins.requirements,
        ),
        (
            profile
                .gaps
                .iter()
                .flatten()
                .map(|g| g.id.as_str())
                .collect(),
            origins.gaps,
        ),
        (
            profile
                .regimes
                .iter()
                .flatten()
                .map(|r| r.id.as_str())
                .collect(),
            origins.regimes,
        ),
    ];
    for (ids, at) in declared {
        for (i, id) in ids.into_iter().enumerate() {
            if let (Some(&base_item), Some(origin)) = (taken.get(id), at.get(i)) {
                return Err(Failure::At(
                    origin.clone(),
                    Rule::CollidesWithBase {
                        id: id.to_owned(),
                        base_item,
                    },
                ));
            }
        }
    }
    Ok(())
}
