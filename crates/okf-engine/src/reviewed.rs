//! Specialist review in the richer package profile (issue 45, DEVIATIONS A11): for each
//! requirement, how much of its closure (the requirement itself, its required records and the
//! assertions of its required paths) a specialist approved, refused, or has still to review,
//! and which decisions no longer bind their item (stale); and the package's `review_basis`.
//!
//! Written only when the index records `reviews` and the package is written in the richer
//! profile, so every other package is byte-identical. Review never changes `evidence_status`:
//! sufficiency stays a fact about declared evidence.

use crate::canonical::{Sink, cmp_utf16, write_str, write_u64};
use crate::index::ContextIndex;
use crate::model::{Requirement, Review, ReviewDecision};
use crate::pass::Pass;
use crate::review::closure;
use std::collections::HashSet;

/// At most this many refused items are listed per requirement (the count is always whole).
pub(crate) const MAX_REFUSALS: usize = 16;
/// At most this many approving reviewer roles are named per requirement.
pub(crate) const MAX_ROLES: usize = 8;

/// Where one item of a closure stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Standing<'a> {
    /// Approved by a review that still binds the item.
    Approved(&'a Review),
    /// Rejected or sent back for changes by a review that still binds the item.
    Refused(&'a Review),
    /// A review is recorded, but the item changed since (or the id names no single item).
    Stale,
    /// No review counts for it.
    Awaiting,
}

/// The review of an item as the package may show it. A review of a restricted record the
/// package may not quote says what the record says, so it is not counted (the item awaits
/// review as far as the package tells).
fn standing<'a>(index: &'a ContextIndex, id: &str) -> Standing<'a> {
    let doc = index.document();
    if let Some(r) = index.record_index(id).map(|i| &doc.records[i])
        && !index.may_quote(r)
    {
        return Standing::Awaiting;
    }
    let Some(&at) = index.review_of.get(id) else {
        return Standing::Awaiting;
    };
    let Some(review) = doc.reviews.as_deref().and_then(|r| r.get(at as usize)) else {
        return Standing::Awaiting;
    };
    if !index
        .review_current
        .get(at as usize)
        .copied()
        .unwrap_or(false)
    {
        return Standing::Stale;
    }
    match review.decision {
        ReviewDecision::Approved => Standing::Approved(review),
        ReviewDecision::ChangesRequired | ReviewDecision::Rejected => Standing::Refused(review),
    }
}

/// The label of an item of the index by id, when it holds one (records first).
fn item_label<'a>(index: &'a ContextIndex, id: &str) -> Option<&'a str> {
    let doc = index.document();
    if let Some(i) = index.record_index(id) {
        return Some(doc.records[i].label.as_str());
    }
    if let Some(i) = index.assertion_index(id) {
        return Some(doc.assertions[i].label.as_str());
    }
    doc.requirements
        .iter()
        .map(|q| (&q.id, &q.label))
        .chain(doc.gaps.iter().flatten().map(|g| (&g.id, &g.label)))
        .find(|(i, _)| i.as_str() == id)
        .map(|(_, l)| l.as_str())
}

/// Counts over a set of closure items.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Counts {
    items: usize,
    approved: usize,
    refused: usize,
    stale: usize,
}

impl Counts {
    fn add(&mut self, s: Standing<'_>) {
        self.items += 1;
        match s {
            Standing::Approved(_) => self.approved += 1,
            Standing::Refused(_) => self.refused += 1,
            Standing::Stale => self.stale += 1,
            Standing::Awaiting => {}
        }
    }
    fn awaiting(self) -> usize {
        self.items - self.approved - self.refused - self.stale
    }
    fn all_approved(self) -> bool {
        self.items > 0 && self.approved == self.items
    }
}

/// The review facts of one requirement.
pub(crate) struct RequirementReview<'a> {
    counts: Counts,
    /// Roles of the approving reviewers, each once, in code-unit order (at most [`MAX_ROLES`]).
    roles: Vec<&'a str>,
    /// The latest date of an approval (dates are `YYYY-MM-DD`, so text order is date order).
    latest: Option<&'a str>,
    /// Refused items by id order, with their review (at most [`MAX_REFUSALS`]).
    refusals: Vec<(&'a str, &'a Review)>,
}

impl<'a> RequirementReview<'a> {
    pub(crate) fn of(index: &'a ContextIndex, req: &'a Requirement) -> Self {
        let mut counts = Counts::default();
        let mut roles: Vec<&str> = Vec::new();
        let mut latest: Option<&str> = None;
        let mut refusals = Vec::new();
        for id in closure(req) {
            let s = standing(index, id);
            counts.add(s);
            match s {
                Standing::Approved(r) => {
                    roles.push(&r.reviewer.role);
                    latest = latest.max(Some(r.date.as_str()));
                }
                Standing::Refused(r) if refusals.len() < MAX_REFUSALS => refusals.push((id, r)),
                _ => {}
            }
        }
        roles.sort_unstable_by(|a, b| cmp_utf16(a, b));
        roles.dedup();
        roles.truncate(MAX_ROLES);
        RequirementReview {
            counts,
            roles,
            latest,
            refusals,
        }
    }

    fn state(&self) -> &'static str {
        if self.counts.all_approved() {
            "approved"
        } else if self.counts.refused > 0 {
            "refused"
        } else {
            "not-reviewed"
        }
    }

    /// The one-line plain statement of the requirement's review.
    fn statement(&self) -> String {
        let c = self.counts;
        if c.all_approved() {
            let by = reviewers(&self.roles);
            let on = self.latest.unwrap_or_default();
            return if self.roles.len() > 1 {
                format!("Reviewed by {by}; the last decision on {on}.")
            } else {
                format!("Reviewed by {by} on {on}.")
            };
        }
        if c.refused > 0 {
            return format!(
                "Not approved by a specialist: {} of {} refused.",
                c.refused,
                items(c.items)
            );
        }
        if c.approved == 0 && c.stale == 0 {
            return "Not reviewed by a specialist.".to_owned();
        }
        let mut s = format!(
            "Not reviewed by a specialist as a whole: {} of {} approved",
            c.approved,
            items(c.items)
        );
        if c.stale > 0 {
            s.push_str(&format!(
                ", {} changed since {} reviewed",
                c.stale,
                if c.stale == 1 { "it was" } else { "they were" }
            ));
        }
        s.push('.');
        s
    }

    /// `,"review":{…}` (after `required_paths`, before `scope`).
    pub(crate) fn write<S: Sink + ?Sized>(&self, out: &mut S, index: &ContextIndex) {
        let c = self.counts;
        out.raw(",\"review\":{\"approved\":");
        write_u64(out, c.approved as u64);
        out.raw(",\"awaiting_review\":");
        write_u64(out, c.awaiting() as u64);
        out.raw(",\"items\":");
        write_u64(out, c.items as u64);
        out.raw(",\"latest_approval\":");
        match self.latest.filter(|_| c.approved > 0) {
            Some(d) => write_str(out, d),
            None => out.raw("null"),
        }
        out.raw(",\"refusals\":[");
        for (i, (id, r)) in self.refusals.iter().enumerate() {
            if i > 0 {
                out.byte(b',');
            }
            out.raw("{\"date\":");
            write_str(out, &r.date);
            out.raw(",\"decision\":");
            write_str(out, r.decision.as_str());
            out.raw(",\"item\":");
            write_str(out, id);
            out.raw(",\"label\":");
            match item_label(index, id) {
                Some(l) => write_str(out, l),
                None => out.raw("null"),
            }
            out.raw(",\"reason\":");
            write_str(out, &r.reason);
            out.raw(",\"role\":");
            write_str(out, &r.reviewer.role);
            out.byte(b'}');
        }
        out.raw("],\"refused\":");
        write_u64(out, c.refused as u64);
        out.raw(",\"reviewers\":[");
        for (i, role) in self.roles.iter().enumerate() {
            if i > 0 {
                out.byte(b',');
            }
            write_str(out, role);
        }
        out.raw("],\"stale\":");
        write_u64(out, c.stale as u64);
        out.raw(",\"state\":");
        write_str(out, self.state());
        out.raw(",\"statement\":");
        write_str(out, &self.statement());
        out.byte(b'}');
    }
}

/// "N item(s)".
fn items(n: usize) -> String {
    format!("{n} {}", if n == 1 { "item" } else { "items" })
}

/// "a policy specialist", "an adjudication officer and a policy specialist".
fn reviewers(roles: &[&str]) -> String {
    let named: Vec<String> = roles
        .iter()
        .map(|r| {
            let vowel = r.chars().next().is_some_and(|c| "aeiouAEIOU".contains(c));
            format!("{} {r}", if vowel { "an" } else { "a" })
        })
        .collect();
    match named.as_slice() {
        [] => "a specialist".to_owned(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// Whether `pass` writes review facts: the index records reviews and the package is written in
/// the richer profile.
pub(crate) fn shown(pass: &Pass<'_, '_>) -> bool {
    pass.setup.options.regime_profile && pass.setup.index.document().reviews.is_some()
}

/// `,"review_basis":{…}`: counts over the distinct closure items of the package's requirements,
/// how many requirements are approved as a whole, and one plain statement.
pub(crate) fn write_review_basis<S: Sink + ?Sized>(out: &mut S, pass: &Pass<'_, '_>) {
    let index = pass.setup.index;
    let doc = index.document();
    let mut counts = Counts::default();
    let mut approved_requirements = 0usize;
    let mut total = 0usize;
    if !pass.fallback {
        let mut seen: HashSet<&str> = HashSet::new();
        for r in &pass.requirements {
            let req = &doc.requirements[r.requirement as usize];
            total += 1;
            let mut own = Counts::default();
            for id in closure(req) {
                let s = standing(index, id);
                own.add(s);
                if seen.insert(id) {
                    counts.add(s);
                }
            }
            if own.all_approved() {
                approved_requirements += 1;
            }
        }
    }
    out.raw(",\"review_basis\":{\"approved\":");
    write_u64(out, counts.approved as u64);
    out.raw(",\"awaiting_review\":");
    write_u64(out, counts.awaiting() as u64);
    out.raw(",\"items\":");
    write_u64(out, counts.items as u64);
    out.raw(",\"refused\":");
    write_u64(out, counts.refused as u64);
    out.raw(",\"requirements_approved\":");
    write_u64(out, approved_requirements as u64);
    out.raw(",\"requirements_total\":");
    write_u64(out, total as u64);
    out.raw(",\"stale\":");
    write_u64(out, counts.stale as u64);
    out.raw(",\"statement\":");
    let statement = if total == 0 {
        "No requirement applies, so no specialist review is counted.".to_owned()
    } else {
        format!(
            "{approved_requirements} of {total} {} reviewed by a specialist as a whole. Of the {} {} on, {} approved, {} refused, {} changed since review and {} awaiting review. Review does not change the evidence status.",
            if total == 1 {
                "requirement"
            } else {
                "requirements"
            },
            items(counts.items),
            if total == 1 { "it rests" } else { "they rest" },
            counts.approved,
            counts.refused,
            counts.stale,
            counts.awaiting()
        )
    };
    write_str(out, &statement);
    out.byte(b'}');
}
