//! The items a review decision may name, and the digest that binds a decision to an item
//! (issue 45): SHA-256 of the item's canonical JSON as the index holds it, so any change to
//! the item makes an earlier decision stale.

use crate::canonical::cmp_utf16;
use crate::canonical::sha256_hex;
use crate::model::{IndexDocument, Requirement};
use serde::Serialize;
use std::collections::{HashMap, HashSet};

/// What kind of item a review names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ReviewedKind {
    /// A record (concept, evidence or scope).
    Record,
    /// An assertion.
    Assertion,
    /// A requirement.
    Requirement,
    /// A declared gap.
    Gap,
}

impl ReviewedKind {
    /// The word for it.
    pub fn as_str(self) -> &'static str {
        match self {
            ReviewedKind::Record => "record",
            ReviewedKind::Assertion => "assertion",
            ReviewedKind::Requirement => "requirement",
            ReviewedKind::Gap => "gap",
        }
    }
}

fn digest<T: Serialize>(item: &T) -> String {
    // Model fields are declared in canonical key order, so this is the item's canonical JSON;
    // a typed item always serialises.
    sha256_hex(serde_json::to_string(item).unwrap_or_default().as_bytes())
}

/// Every item of the index with `id`, with its kind and `item_sha256`: none for an id the
/// index does not hold, more than one when kinds share an id (a review cannot name it).
pub fn item_digests(doc: &IndexDocument, id: &str) -> Vec<(ReviewedKind, String)> {
    let mut out = Vec::new();
    out.extend(
        doc.records
            .iter()
            .filter(|r| r.id == id)
            .map(|r| (ReviewedKind::Record, digest(r))),
    );
    out.extend(
        doc.assertions
            .iter()
            .filter(|a| a.id == id)
            .map(|a| (ReviewedKind::Assertion, digest(a))),
    );
    out.extend(
        doc.requirements
            .iter()
            .filter(|q| q.id == id)
            .map(|q| (ReviewedKind::Requirement, digest(q))),
    );
    out.extend(
        doc.gaps
            .iter()
            .flatten()
            .filter(|g| g.id == id)
            .map(|g| (ReviewedKind::Gap, digest(g))),
    );
    out
}

/// The closure of the requirement `id` (the requirement itself, its `required` ids and the
/// assertions of its `required_paths`, each once, in code-unit order): the items whose
/// reviews decide the requirement's `review` in a richer-profile package. `None` when the
/// index holds no requirement with that id.
pub fn requirement_closure<'a>(doc: &'a IndexDocument, id: &str) -> Option<Vec<&'a str>> {
    doc.requirements.iter().find(|q| q.id == id).map(closure)
}

/// Every reviewable item in index order (records, assertions, requirements, gaps) with its
/// kind and `item_sha256`.
pub fn reviewable_items(doc: &IndexDocument) -> Vec<(&str, ReviewedKind, String)> {
    let mut out = Vec::new();
    out.extend(
        doc.records
            .iter()
            .map(|r| (r.id.as_str(), ReviewedKind::Record, digest(r))),
    );
    out.extend(
        doc.assertions
            .iter()
            .map(|a| (a.id.as_str(), ReviewedKind::Assertion, digest(a))),
    );
    out.extend(
        doc.requirements
            .iter()
            .map(|q| (q.id.as_str(), ReviewedKind::Requirement, digest(q))),
    );
    out.extend(
        doc.gaps
            .iter()
            .flatten()
            .map(|g| (g.id.as_str(), ReviewedKind::Gap, digest(g))),
    );
    out
}

/// Whether each recorded review (`doc.reviews`, in order) still binds its item: the id names
/// exactly one item and that item's digest is the `item_sha256` the decision was made on. A
/// review that does not is stale and is never counted as a decision (issue 45). Empty for an
/// index without reviews. One pass over the items, then one digest per reviewed item.
pub fn reviews_current(doc: &IndexDocument) -> Vec<bool> {
    let Some(reviews) = doc.reviews.as_deref() else {
        return Vec::new();
    };
    let wanted: HashSet<&str> = reviews.iter().map(|r| r.item.as_str()).collect();
    // Every item whose id a review names, with its digest (several when kinds share an id).
    let mut found: HashMap<&str, Vec<String>> = HashMap::new();
    let mut note = |id: &'_ str, digest: &dyn Fn() -> String| {
        if let Some(&key) = wanted.get(id) {
            found.entry(key).or_default().push(digest());
        }
    };
    for r in &doc.records {
        note(&r.id, &|| self::digest(r));
    }
    for a in &doc.assertions {
        note(&a.id, &|| self::digest(a));
    }
    for q in &doc.requirements {
        note(&q.id, &|| self::digest(q));
    }
    for g in doc.gaps.iter().flatten() {
        note(&g.id, &|| self::digest(g));
    }
    reviews
        .iter()
        .map(|r| match found.get(r.item.as_str()).map(Vec::as_slice) {
            Some([only]) => *only == r.item_sha256,
            _ => false,
        })
        .collect()
}

/// The closure of a requirement: its id, its required ids and the assertions of its required
/// paths, each once, in code-unit order.
pub(crate) fn closure(req: &Requirement) -> Vec<&str> {
    let mut ids: Vec<&str> = std::iter::once(req.id.as_str())
        .chain(req.required.iter().map(String::as_str))
        .chain(
            req.required_paths
                .iter()
                .flatten()
                .flat_map(|p| p.assertions.iter().map(String::as_str)),
        )
        .collect();
    ids.sort_unstable_by(|a, b| cmp_utf16(a, b));
    ids.dedup();
    ids
}
