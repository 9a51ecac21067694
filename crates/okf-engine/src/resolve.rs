//! Declared-phrase resolution of a question (spec §3.3).

use crate::canonical::cmp_utf16;
use crate::index::{ContextIndex, index_u32};
use crate::text::{TokenStreams, inflects, is_scaffolding, uninflected_candidates};
use std::collections::{HashMap, HashSet};

/// Comparison operations resolution may spend before it stops (spec §2.4).
pub const RESOLUTION_WORK_LIMIT: u64 = 500_000;

/// A concept the question resolved to unambiguously.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvedConcept {
    /// Record index of the concept.
    pub record: u32,
    /// The alias or label texts that matched, first match first.
    pub matched: Vec<String>,
}

/// A phrase that matched several concepts; none is chosen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ambiguity {
    /// The matched alias text.
    pub phrase: String,
    /// Candidate concept ids, in code-unit order.
    pub candidates: Vec<String>,
}

/// What a question resolves to.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Resolution {
    /// Resolved concepts, sorted by id.
    pub concepts: Vec<ResolvedConcept>,
    /// Ambiguous phrases, sorted by phrase.
    pub ambiguities: Vec<Ambiguity>,
    /// Distinct folded tokens that no alias covered and that are not scaffolding, sorted.
    pub unresolved_terms: Vec<String>,
    /// True when the work limit stopped resolution early.
    pub truncated: bool,
}

impl Resolution {
    /// Resolves each `(concept id, phrase)` that narrowing (by part or regime) made the only
    /// candidate of an ambiguous phrase: the concept joins `concepts` in id order, or gains the
    /// phrase when it is already resolved.
    pub(crate) fn promote(&mut self, index: &ContextIndex, promoted: Vec<(String, String)>) {
        let doc = index.document();
        for (id, phrase) in promoted {
            let Some(record) = index.record_index(&id).map(index_u32) else {
                continue;
            };
            match self.concepts.iter_mut().find(|c| c.record == record) {
                Some(c) => c.matched.push(phrase),
                None => {
                    let at = self.concepts.partition_point(|c| {
                        cmp_utf16(&doc.records[c.record as usize].id, &id).is_lt()
                    });
                    self.concepts.insert(
                        at,
                        ResolvedConcept {
                            record,
                            matched: vec![phrase],
                        },
                    );
                }
            }
        }
    }
}

/// Resolves a question against the index's alias table.
// Long because its four phases (candidate spans, longest-leftmost acceptance, concepts and
// ambiguities, unresolved terms) share one work counter that bounds the whole resolution.
pub fn resolve(index: &ContextIndex, question: &str) -> Resolution {
    let streams = TokenStreams::new(question);
    let folded = &streams.folded;
    let mut work: u64 = 0;
    let mut truncated = false;

    // Candidate spans keyed by (start, length), each with the groups that matched it.
    let mut spans: Vec<(usize, usize, Vec<u32>)> = Vec::new();
    let mut span_pos: HashMap<(usize, usize), usize> = HashMap::new();
    // Matches of an inflected question word (issue 44): a plural of an alias's last word, or a
    // verb form of a single-word alias. Only case-insensitive aliases are inflected.
    let mut inflected: Vec<(usize, usize, u32)> = Vec::new();
    'matching: for s in 0..folded.len() {
        for &g in index.alias_by_first.get(&folded[s]).into_iter().flatten() {
            let group = &index.alias_groups[g as usize];
            let len = group.tokens.len();
            work += len as u64;
            if work > RESOLUTION_WORK_LIMIT {
                truncated = true;
                break 'matching;
            }
            let stream = if group.case_sensitive {
                &streams.exact
            } else {
                folded
            };
            let Some(window) = stream.get(s..s + len) else {
                continue;
            };
            if window == group.tokens.as_slice() {
                match span_pos.get(&(s, len)) {
                    Some(&p) => spans[p].2.push(g),
                    None => {
                        span_pos.insert((s, len), spans.len());
                        spans.push((s, len, vec![g]));
                    }
                }
            } else if len > 1
                && !group.case_sensitive
                && window[..len - 1] == group.tokens[..len - 1]
                && inflects(&window[len - 1], &group.tokens[len - 1], false)
            {
                inflected.push((s, len, g));
            }
        }
        for base in uninflected_candidates(&folded[s]) {
            work += 1;
            if work > RESOLUTION_WORK_LIMIT {
                truncated = true;
                break 'matching;
            }
            for &g in index.alias_by_first.get(&base).into_iter().flatten() {
                let group = &index.alias_groups[g as usize];
                if group.tokens.len() == 1
                    && !group.case_sensitive
                    && group.tokens[0] == base
                    && inflects(&folded[s], &base, true)
                {
                    inflected.push((s, 1, g));
                }
            }
        }
    }
    // A span some alias matches as written is never also read as an inflection, so a word that
    // is itself a declared alias ("payments") keeps only that alias's meaning.
    let exact_spans = spans.len();
    for (s, len, g) in inflected {
        match span_pos.get(&(s, len)) {
            Some(&p) if p < exact_spans => {}
            Some(&p) => {
                if !spans[p].2.contains(&g) {
                    spans[p].2.push(g);
                }
            }
            None => {
                span_pos.insert((s, len), spans.len());
                spans.push((s, len, vec![g]));
            }
        }
    }

    // Longest first, then leftmost; (start, length) is unique, so the label never decides.
    spans.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let mut covered = vec![false; folded.len()];
    let accepted: Vec<&(usize, usize, Vec<u32>)> = spans
        .iter()
        .filter(|(s, len, _)| {
            if covered[*s..*s + *len].iter().any(|&c| c) {
                return false;
            }
            covered[*s..*s + *len].iter_mut().for_each(|c| *c = true);
            true
        })
        .collect();

    let mut seen_phrases: HashSet<String> = HashSet::new();
    let mut concepts: Vec<ResolvedConcept> = Vec::new();
    let mut ambiguities: Vec<Ambiguity> = Vec::new();
    for (_, _, groups) in accepted {
        let mut keys: Vec<&str> = groups
            .iter()
            .map(|&g| index.alias_groups[g as usize].key.as_str())
            .collect();
        keys.sort_by(|a, b| cmp_utf16(a, b));
        if !seen_phrases.insert(keys.join("|")) {
            continue;
        }
        let ids_in_groups: u64 = groups
            .iter()
            .map(|&g| index.alias_groups[g as usize].records.len() as u64)
            .sum();
        work += ids_in_groups;
        if work > RESOLUTION_WORK_LIMIT {
            truncated = true;
            break;
        }
        let mut ids: Vec<u32> = Vec::new();
        for &g in groups {
            for &r in &index.alias_groups[g as usize].records {
                if !ids.contains(&r) {
                    ids.push(r);
                }
            }
        }
        let label = &index.alias_groups[groups[0] as usize].label;
        match ids.as_slice() {
            [only] => match concepts.iter_mut().find(|c| c.record == *only) {
                Some(c) => {
                    if !c.matched.contains(label) {
                        c.matched.push(label.clone());
                    }
                }
                None => concepts.push(ResolvedConcept {
                    record: *only,
                    matched: vec![label.clone()],
                }),
            },
            _ => {
                let records = &index.document().records;
                let mut candidates: Vec<String> = ids
                    .iter()
                    .map(|&r| records[r as usize].id.clone())
                    .collect();
                candidates.sort_by(|a, b| cmp_utf16(a, b));
                ambiguities.push(Ambiguity {
                    phrase: label.clone(),
                    candidates,
                });
            }
        }
    }

    let records = &index.document().records;
    concepts.sort_by(|a, b| {
        cmp_utf16(
            &records[a.record as usize].id,
            &records[b.record as usize].id,
        )
    });
    ambiguities.sort_by(|a, b| cmp_utf16(&a.phrase, &b.phrase));
    // The publisher's neutral words (sorted and unique: validated), dropped like scaffolding.
    let neutral: &[String] = index
        .document()
        .vocabulary
        .as_ref()
        .map_or(&[], |v| v.neutral.as_slice());
    let is_neutral = |token: &str| neutral.binary_search_by(|w| cmp_utf16(w, token)).is_ok();
    let mut unresolved_terms: Vec<String> = folded
        .iter()
        .zip(&covered)
        .zip(&streams.possessive)
        .filter(|((token, covered), possessive)| {
            !**covered && !**possessive && !is_scaffolding(token) && !is_neutral(token)
        })
        .map(|((token, _), _)| token.clone())
        .collect();
    unresolved_terms.sort_by(|a, b| cmp_utf16(a, b));
    unresolved_terms.dedup();
    Resolution {
        concepts,
        ambiguities,
        unresolved_terms,
        truncated,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use crate::model::{Alias, Vocabulary};

    const EXAMPLE: &str = include_str!("../../okf/example/index.json");
    const BORROWING: &str = "https://example.org/okf-example/concept/borrowing";
    const CARD: &str = "https://example.org/okf-example/concept/library-card";
    const HOURS: &str = "https://example.org/okf-example/concept/opening-hours";
    const ROOM: &str = "https://example.org/okf-example/concept/meeting-room";

    fn example() -> ContextIndex {
        ContextIndex::from_json_slice(EXAMPLE.as_bytes()).unwrap()
    }

    fn with(edit: impl FnOnce(&mut crate::model::IndexDocument)) -> ContextIndex {
        let mut doc = example().document().clone();
        edit(&mut doc);
        ContextIndex::new(doc).unwrap()
    }

    fn ids(index: &ContextIndex, r: &Resolution) -> Vec<String> {
        let records = &index.document().records;
        r.concepts
            .iter()
            .map(|c| records[c.record as usize].id.clone())
            .collect()
    }

    #[test]
    fn a_possessive_resolves_as_its_alias_and_leaves_no_lone_s() {
        let index = example();
        let r = resolve(&index, "What is the library card's loan period?");
        assert_eq!(ids(&index, &r), [BORROWING, CARD]);
        assert!(r.unresolved_terms.is_empty(), "{:?}", r.unresolved_terms);
        // A plural possessive is a plural: "library cards'" is the alias "library cards".
        let r = resolve(&index, "What is the library cards\u{2019} loan period?");
        assert_eq!(ids(&index, &r), [BORROWING, CARD]);
        assert!(r.unresolved_terms.is_empty());
        // An "s" that follows no apostrophe is still a word.
        let r = resolve(&index, "What is the library card s loan period?");
        assert_eq!(r.unresolved_terms, ["s"]);
    }

    #[test]
    fn a_plural_of_a_declared_alias_resolves_to_it_on_the_aliases_last_word() {
        let index = example();
        // "room hire" is declared, "room hires" is not: the longer phrase beats the
        // ambiguous "room".
        let r = resolve(&index, "Explain room hires");
        assert_eq!(ids(&index, &r), [ROOM]);
        assert!(r.unresolved_terms.is_empty() && r.ambiguities.is_empty());
        assert_eq!(r.concepts[0].matched, ["room hire"]);
        // Only the question's word is inflected, never the alias: "late returns" is declared,
        // "late return" is not a form of it.
        let r = resolve(&index, "Explain late return");
        assert!(r.concepts.is_empty());
    }

    #[test]
    fn a_verb_form_of_a_single_word_alias_resolves_and_a_multi_word_one_does_not() {
        let index = example();
        let r = resolve(&index, "What if I borrowed it?");
        assert_eq!(ids(&index, &r), [BORROWING]);
        assert!(r.unresolved_terms.is_empty());
        // "late returns" is declared; its last word is not read as a verb.
        let r = resolve(&index, "Explain late returning");
        assert!(r.concepts.is_empty());
        assert_eq!(r.unresolved_terms, ["late", "returning"]);
    }

    #[test]
    fn a_word_that_is_itself_a_declared_alias_keeps_only_that_aliases_meaning() {
        // "renewals" is an alias of borrowing; "renewal" is made an alias of opening hours.
        let index = with(|doc| {
            let hours = doc.records.iter_mut().find(|r| r.id == HOURS).unwrap();
            hours
                .aliases
                .get_or_insert_with(Vec::new)
                .push(Alias::Plain("renewal".into()));
        });
        let r = resolve(&index, "Explain renewals");
        assert_eq!(ids(&index, &r), [BORROWING]);
        assert!(r.ambiguities.is_empty());
        let r = resolve(&index, "Explain renewal");
        assert_eq!(ids(&index, &r), [HOURS]);
    }

    #[test]
    fn neutral_words_are_dropped_like_scaffolding_only_when_the_index_declares_them() {
        let question = "How do I still borrow books?";
        assert_eq!(resolve(&example(), question).unresolved_terms, ["still"]);
        let index = with(|doc| {
            doc.vocabulary = Some(Vocabulary {
                neutral: vec!["keep".into(), "still".into()],
            });
        });
        let r = resolve(&index, question);
        assert_eq!(ids(&index, &r), [BORROWING]);
        assert!(r.unresolved_terms.is_empty());
        assert_eq!(
            resolve(&index, "Do I still keep borrowing quokkas?").unresolved_terms,
            ["quokkas"]
        );
    }
}
