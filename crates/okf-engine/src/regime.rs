//! Guidance regimes (this project's additive extension, docs/authoring.md "Regimes").
//!
//! An index may declare regimes (legacy DMG, New Style ADM, …), the concepts that belong to
//! each, phrases that establish one, and the dates it applies between. After resolution:
//!
//! - a resolved concept that belongs to several regimes in force on the request's `as_of`
//!   date (a broad "JSA") is a regime ambiguity unless the question establishes exactly one of
//!   them by phrase: reported as `ambiguous_regime`, never a silent choice;
//! - an alias ambiguity whose candidates all belong to regimes is narrowed the same way
//!   (regimes in force, then the established one); exactly one candidate left resolves;
//! - the words of an established phrase are declared vocabulary, not unresolved terms;
//! - every regime the question establishes or leaves open whose guidance the bundle does not
//!   hold (`absent_evidence`) is named as missing.
//!
//! Indexes without `regimes` are untouched.

use crate::error::Error;
use crate::index::ContextIndex;
use crate::model::Regime;
use crate::resolve::Resolution;
use crate::text::folded_tokens;
use crate::validate::date_number;

/// A request's `as_of` date (`YYYY-MM-DD`), kept as the number `YYYYMMDD`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct AsOf(u32);

impl AsOf {
    /// Parses a `YYYY-MM-DD` calendar date.
    pub fn parse(value: &str) -> Result<Self, Error> {
        date_number(value).map(AsOf).ok_or_else(|| Error::AsOf {
            value: value.to_owned(),
        })
    }

    /// The date as `YYYY-MM-DD`.
    pub fn to_date_string(self) -> String {
        let n = self.0;
        format!("{:04}-{:02}-{:02}", n / 10000, n / 100 % 100, n % 100)
    }
}

/// What the regime declarations established for one question.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RegimeOutcome {
    /// Regime ids the question establishes (a member concept resolved), declaration order.
    pub resolved: Vec<String>,
    /// Regime ids left open by a remaining regime ambiguity, declaration order.
    pub unresolved: Vec<String>,
    /// For each resolved concept whose regime stays open: its id, then the candidate regimes.
    pub ambiguous: Vec<Vec<String>>,
    /// For each established or open regime whose guidance is absent: its id, then its gap ids
    /// (a gap that declares `concepts` only when the question resolves one or leaves one open).
    pub missing: Vec<Vec<String>>,
    /// Regime ids in force on the question's date that the question neither establishes nor
    /// leaves open: the package holds none of their guidance (declaration order).
    pub not_held: Vec<String>,
}

fn in_force(r: &Regime, as_of: Option<AsOf>) -> bool {
    let Some(AsOf(day)) = as_of else {
        return true;
    };
    let from = r.valid_from.as_deref().and_then(date_number);
    let until = r.valid_until.as_deref().and_then(date_number);
    from.is_none_or(|f| f <= day) && until.is_none_or(|u| day < u)
}

fn contains_run(haystack: &[String], needle: &[String]) -> Option<usize> {
    if needle.is_empty() {
        return None;
    }
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// Applies the index's regimes to a resolution; `None` when the index declares none.
pub(crate) fn apply(
    index: &ContextIndex,
    question: &str,
    as_of: Option<AsOf>,
    resolution: &mut Resolution,
) -> Option<RegimeOutcome> {
    let regimes = index
        .document()
        .regimes
        .as_deref()
        .filter(|r| !r.is_empty())?;
    let tokens = folded_tokens(question);
    let mut phrase_words: Vec<String> = Vec::new();
    let established: Vec<bool> = regimes
        .iter()
        .map(|r| {
            let mut hit = false;
            for phrase in &r.phrases {
                let words = folded_tokens(phrase);
                if contains_run(&tokens, &words).is_some() {
                    hit = true;
                    phrase_words.extend(words);
                }
            }
            hit && in_force(r, as_of)
        })
        .collect();
    // A concept belongs to a regime that lists it, and to the regime of the part it comes from.
    let part_regimes: Vec<(&str, &str)> = index
        .document()
        .parts
        .iter()
        .flatten()
        .filter_map(|p| p.regime.as_deref().map(|r| (p, r)))
        .flat_map(|(p, r)| p.concepts.iter().map(move |c| (c.as_str(), r)))
        .collect();
    let regimes_of = |id: &str| -> Vec<usize> {
        (0..regimes.len())
            .filter(|&i| {
                regimes[i].concepts.iter().any(|c| c == id)
                    || part_regimes
                        .iter()
                        .any(|&(c, r)| c == id && r == regimes[i].id)
            })
            .collect()
    };

    let mut open: Vec<bool> = vec![false; regimes.len()];
    let mut promoted: Vec<(String, String)> = Vec::new();
    resolution.ambiguities.retain_mut(|a| {
        if a.candidates.iter().any(|c| regimes_of(c).is_empty()) {
            return true;
        }
        let mut keep: Vec<String> = a
            .candidates
            .iter()
            .filter(|c| regimes_of(c).iter().any(|&r| in_force(&regimes[r], as_of)))
            .cloned()
            .collect();
        let pinned: Vec<String> = keep
            .iter()
            .filter(|c| regimes_of(c).iter().any(|&r| established[r]))
            .cloned()
            .collect();
        if !pinned.is_empty() {
            keep = pinned;
        }
        match keep.as_slice() {
            [one] => {
                promoted.push((one.clone(), a.phrase.clone()));
                false
            }
            [] => true,
            _ => {
                for c in &keep {
                    for r in regimes_of(c) {
                        open[r] = true;
                    }
                }
                a.candidates = keep;
                true
            }
        }
    });
    resolution.promote(index, promoted);
    resolution
        .unresolved_terms
        .retain(|t| !phrase_words.contains(t));

    let doc = index.document();
    let mut outcome = RegimeOutcome::default();
    let mut resolved = vec![false; regimes.len()];
    for c in &resolution.concepts {
        let id = &doc.records[c.record as usize].id;
        let candidates: Vec<usize> = regimes_of(id)
            .into_iter()
            .filter(|&r| in_force(&regimes[r], as_of))
            .collect();
        let pinned: Vec<usize> = candidates
            .iter()
            .copied()
            .filter(|&r| established[r])
            .collect();
        match (candidates.as_slice(), pinned.as_slice()) {
            ([one], _) | (_, [one]) => resolved[*one] = true,
            ([], _) => {}
            (many, _) => {
                for &r in many {
                    open[r] = true;
                }
                outcome.ambiguous.push(
                    std::iter::once(id.clone())
                        .chain(many.iter().map(|&r| regimes[r].id.clone()))
                        .collect(),
                );
            }
        }
    }
    // The concepts the question is about: resolved, or a candidate of an ambiguity kept open.
    let mut about: Vec<&str> = resolution
        .concepts
        .iter()
        .map(|c| doc.records[c.record as usize].id.as_str())
        .collect();
    about.extend(
        resolution
            .ambiguities
            .iter()
            .flat_map(|a| a.candidates.iter().map(String::as_str)),
    );
    let gap_applies = |gap: &str| {
        doc.gaps
            .iter()
            .flatten()
            .find(|g| g.id == gap)
            .and_then(|g| g.concepts.as_deref())
            .is_none_or(|concepts| concepts.iter().any(|c| about.contains(&c.as_str())))
    };
    for (i, r) in regimes.iter().enumerate() {
        if resolved[i] {
            outcome.resolved.push(r.id.clone());
        }
        if open[i] && !resolved[i] {
            outcome.unresolved.push(r.id.clone());
        }
        if !resolved[i] && !open[i] && in_force(r, as_of) {
            outcome.not_held.push(r.id.clone());
        }
        let absent: Vec<String> = r
            .absent_evidence
            .iter()
            .flatten()
            .filter(|g| gap_applies(g))
            .cloned()
            .collect();
        if (resolved[i] || open[i]) && !absent.is_empty() {
            outcome
                .missing
                .push(std::iter::once(r.id.clone()).chain(absent).collect());
        }
    }
    Some(outcome)
}

/// Whether assertion `a` is in force for the question: always without regimes; otherwise
/// neither its own `regime` nor that of the gap it points at (when it points at one) may be a
/// regime the question neither establishes nor leaves open (issue 40).
pub(crate) fn assertion_in_force(
    index: &ContextIndex,
    outcome: Option<&RegimeOutcome>,
    a: usize,
) -> bool {
    let Some(outcome) = outcome else {
        return true;
    };
    let doc = index.document();
    let Some(assertion) = doc.assertions.get(a) else {
        return true;
    };
    let gap_regime = doc
        .gaps
        .iter()
        .flatten()
        .find(|g| g.id == assertion.target)
        .and_then(|g| g.regime.as_deref());
    [assertion.regime.as_deref(), gap_regime]
        .into_iter()
        .all(|r| admits(Some(outcome), r))
}

/// Whether a requirement of `regime` may apply: always without regimes or without a declared
/// regime; otherwise only when the question establishes the regime or leaves it open.
pub(crate) fn admits(outcome: Option<&RegimeOutcome>, regime: Option<&str>) -> bool {
    match (outcome, regime) {
        (Some(o), Some(r)) => o.resolved.iter().chain(&o.unresolved).any(|id| id == r),
        _ => true,
    }
}
