//! Parts of a composed index (this project's additive extension, docs/authoring.md
//! "Composition").
//!
//! A profile composed onto a published index keeps the base's records byte for byte, so where
//! both declare a concept for one phrase ("JSA", "claimant") the phrase matches two concepts.
//! The index lists which concepts each part contributed; after resolution, a phrase ambiguous
//! only between concepts of *different* parts is narrowed to the part that every concept the
//! question resolved unambiguously comes from. A question about imprisonment ("imprisoned")
//! then reads "JSA" as the base's concept, one about hospital ("hospital") as the profile's.
//!
//! Nothing is narrowed when the resolved concepts come from several parts (or none, or a
//! concept outside every part), or when the candidates share a part: those ambiguities stay
//! and are reported. Indexes without `parts` are untouched.

use crate::index::ContextIndex;
use crate::resolve::Resolution;
use std::collections::HashMap;

/// Narrows cross-part phrase ambiguities to the one part the question's resolved concepts
/// come from.
pub(crate) fn narrow(index: &ContextIndex, resolution: &mut Resolution) {
    let doc = index.document();
    let Some(parts) = doc.parts.as_deref() else {
        return;
    };
    let part_of: HashMap<&str, usize> = parts
        .iter()
        .enumerate()
        .flat_map(|(i, p)| p.concepts.iter().map(move |c| (c.as_str(), i)))
        .collect();
    let mut only: Option<usize> = None;
    for c in &resolution.concepts {
        match (
            part_of.get(doc.records[c.record as usize].id.as_str()),
            only,
        ) {
            (None, _) => return,
            (Some(&p), Some(q)) if p != q => return,
            (Some(&p), _) => only = Some(p),
        }
    }
    let Some(part) = only else {
        return;
    };
    let mut promoted: Vec<(String, String)> = Vec::new();
    resolution.ambiguities.retain_mut(|a| {
        let mut candidate_parts = a.candidates.iter().map(|c| part_of.get(c.as_str()));
        let Some(Some(first)) = candidate_parts.next() else {
            return true;
        };
        let mut across = false;
        for p in candidate_parts {
            match p {
                None => return true,
                Some(p) => across |= p != first,
            }
        }
        if !across {
            return true;
        }
        let keep: Vec<String> = a
            .candidates
            .iter()
            .filter(|c| part_of.get(c.as_str()) == Some(&part))
            .cloned()
            .collect();
        match keep.len() {
            0 => true,
            1 => {
                promoted.extend(keep.into_iter().map(|id| (id, a.phrase.clone())));
                false
            }
            _ => {
                a.candidates = keep;
                true
            }
        }
    });
    resolution.promote(index, promoted);
}
