//! Review decisions (`okf-review-decision.v1`, issue 45): one JSON file per decision, read
//! strictly, and folded into the built index's additive `reviews` list
//! (docs/authoring.md "The review loop").
//!
//! A decision names an item (record, assertion, requirement or declared gap) by id and binds
//! itself to the item's canonical JSON by `item_sha256`. A decision whose digest no longer
//! matches the item as built is stale: never applied, reported by name. A decision never
//! changes an item's `assertion_status` or `authority`.

use crate::error::{Error, Rule, line_of};
use okf_engine::canonical::{cmp_utf16, is_hex64};
use okf_engine::model::{IndexDocument, Review, ReviewDecision, Reviewer};
use okf_engine::review::item_digests;
use okf_engine::validate::{date_number, is_iri, utf16_len};
use serde::Deserialize;
use std::collections::BTreeMap;

/// The `schema` value of a decision file.
pub const REVIEW_DECISION_SCHEMA: &str = "okf-review-decision.v1";
/// The largest decision file read (bytes).
pub const MAX_DECISION_BYTES: usize = 64 * 1024;

/// One decision file as the caller read it.
#[derive(Debug, Clone)]
pub struct ReviewFile {
    /// Name used in errors and recorded in warnings (`reviews/<file>.json`); decisions are
    /// applied in byte order of these names.
    pub name: String,
    /// The file's bytes.
    pub bytes: Vec<u8>,
}

/// A decoded decision file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decision {
    /// The file it was read from.
    pub file: String,
    /// SHA-256 of the file's bytes.
    pub file_sha256: String,
    /// Id of the reviewed item.
    pub item: String,
    /// The item's digest when it was reviewed.
    pub item_sha256: String,
    /// What was decided.
    pub decision: ReviewDecision,
    /// Who decided.
    pub reviewer: Reviewer,
    /// When (`YYYY-MM-DD`).
    pub date: String,
    /// Why.
    pub reason: String,
}

/// A decision that was not applied because its item changed since it was reviewed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StaleReview {
    /// The decision file.
    pub file: String,
    /// The item it names.
    pub item: String,
    /// `item_sha256` as the decision states it.
    pub declared: String,
    /// The digest of the item as built (what a new decision must state).
    pub actual: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Wire {
    schema: String,
    item: String,
    item_sha256: String,
    decision: String,
    reviewer: WireReviewer,
    date: String,
    reason: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WireReviewer {
    role: String,
    id: String,
}

/// The error for `field` of a decision file, at the line where the field is written.
fn field_error(file: &ReviewFile, field: &str, problem: impl Into<String>) -> Error {
    let key = field.rsplit('.').next().unwrap_or(field);
    let text = String::from_utf8_lossy(&file.bytes);
    let line = text
        .find(&format!("\"{key}\""))
        .map_or(1, |at| line_of(&text, at));
    Error {
        file: file.name.clone(),
        line,
        rule: Rule::ReviewDecision {
            field: field.to_owned(),
            problem: problem.into(),
        },
    }
}

/// The name between the first pair of backticks of a serde message (`missing field `x``).
fn backticked(message: &str) -> Option<&str> {
    let start = message.find('`')? + 1;
    let len = message[start..].find('`')?;
    Some(&message[start..start + len])
}

/// A structural error (not JSON, wrong type, missing, unknown or repeated key) as a decision
/// error naming the field.
fn shape_error(file: &ReviewFile, e: &serde_path_to_error::Error<serde_json::Error>) -> Error {
    let message = e.inner().to_string();
    let path = e.path().to_string();
    let path = if path == "." || path == "?" {
        String::new()
    } else {
        path
    };
    let named = backticked(&message).filter(|_| message.contains(" field `"));
    let field = match named {
        Some(name) if path.is_empty() => name.to_owned(),
        Some(name) if !path.ends_with(name) => format!("{path}.{name}"),
        _ if path.is_empty() => "(file)".to_owned(),
        _ => path,
    };
    let problem = if message.starts_with("missing field") {
        "is required".to_owned()
    } else if message.starts_with("unknown field") {
        "is not a field of okf-review-decision.v1 (the object is closed)".to_owned()
    } else if message.starts_with("duplicate field") {
        "is given more than once".to_owned()
    } else if field == "(file)" {
        format!("not a JSON decision object: {message}")
    } else {
        format!("has the wrong type: {message}")
    };
    Error {
        file: file.name.clone(),
        line: e.inner().line().max(1),
        rule: Rule::ReviewDecision { field, problem },
    }
}

fn not_blank(file: &ReviewFile, field: &str, value: &str, max: usize) -> Result<(), Error> {
    if value.trim().is_empty() {
        return Err(field_error(
            file,
            field,
            "is required and must not be empty or only whitespace",
        ));
    }
    if utf16_len(value) > max {
        return Err(field_error(
            file,
            field,
            format!("is longer than {max} characters"),
        ));
    }
    Ok(())
}

/// Reads one decision file strictly: a closed object (no other key, no key twice, every key
/// present) of the documented types and values. Every error names the file, the field and
/// the rule.
pub fn decode_decision(file: &ReviewFile) -> Result<Decision, Error> {
    if file.bytes.len() > MAX_DECISION_BYTES {
        return Err(field_error(
            file,
            "(file)",
            format!("a decision file is at most {MAX_DECISION_BYTES} bytes"),
        ));
    }
    let mut de = serde_json::Deserializer::from_slice(&file.bytes);
    let wire: Wire =
        serde_path_to_error::deserialize(&mut de).map_err(|e| shape_error(file, &e))?;
    de.end().map_err(|e| Error {
        file: file.name.clone(),
        line: e.line().max(1),
        rule: Rule::ReviewDecision {
            field: "(file)".into(),
            problem: format!("not a JSON decision object: {e}"),
        },
    })?;
    if wire.schema != REVIEW_DECISION_SCHEMA {
        return Err(field_error(
            file,
            "schema",
            format!("must be \"{REVIEW_DECISION_SCHEMA}\""),
        ));
    }
    if !is_iri(&wire.item) {
        return Err(field_error(
            file,
            "item",
            "must be the id (an IRI) of a record, assertion, requirement or declared gap",
        ));
    }
    if !is_hex64(&wire.item_sha256) {
        return Err(field_error(
            file,
            "item_sha256",
            "must be a SHA-256 digest: 64 lowercase hexadecimal digits (okf review digest prints it)",
        ));
    }
    let decision = match wire.decision.as_str() {
        "approved" => ReviewDecision::Approved,
        "changes-required" => ReviewDecision::ChangesRequired,
        "rejected" => ReviewDecision::Rejected,
        other => {
            return Err(field_error(
                file,
                "decision",
                format!("must be approved, changes-required or rejected, not {other:?}"),
            ));
        }
    };
    not_blank(file, "reviewer.role", &wire.reviewer.role, 500)?;
    not_blank(file, "reviewer.id", &wire.reviewer.id, 200)?;
    if date_number(&wire.date).is_none() {
        return Err(field_error(
            file,
            "date",
            format!("must be a YYYY-MM-DD calendar date, not {:?}", wire.date),
        ));
    }
    not_blank(file, "reason", &wire.reason, 4000)?;
    Ok(Decision {
        file: file.name.clone(),
        file_sha256: okf_engine::canonical::sha256_hex(&file.bytes),
        item: wire.item,
        item_sha256: wire.item_sha256,
        decision,
        reviewer: Reviewer {
            id: wire.reviewer.id,
            role: wire.reviewer.role,
        },
        date: wire.date,
        reason: wire.reason,
    })
}

/// Folds decision files into a built index: every file is decoded (in byte order of names),
/// each must name exactly one item of `index`, and no item may be decided twice (by two files,
/// or by a file and a review the index already records). Decisions whose `item_sha256` no
/// longer matches the item are returned as stale and not applied; the others are added to
/// `reviews`, sorted by item. On error `index` is unchanged.
pub(crate) fn apply(
    index: &mut IndexDocument,
    files: &[ReviewFile],
) -> Result<Vec<StaleReview>, Error> {
    let mut ordered: Vec<&ReviewFile> = files.iter().collect();
    ordered.sort_by(|a, b| a.name.as_bytes().cmp(b.name.as_bytes()));
    let decisions = ordered
        .iter()
        .map(|f| decode_decision(f).map(|d| (*f, d)))
        .collect::<Result<Vec<_>, _>>()?;
    let mut seen: BTreeMap<&str, &str> = BTreeMap::new();
    let recorded: Vec<Review> = index.reviews.clone().unwrap_or_default();
    let mut applied = Vec::new();
    let mut stale = Vec::new();
    for (file, d) in &decisions {
        if let Some(first) = seen.insert(d.item.as_str(), d.file.as_str()) {
            return Err(field_error(
                file,
                "item",
                format!(
                    "{} is also decided by {first}; one decision per item (to change a decision, replace its file)",
                    d.item
                ),
            ));
        }
        if recorded.iter().any(|r| r.item == d.item) {
            return Err(field_error(
                file,
                "item",
                format!(
                    "the base index already records a review of {}; one decision per item",
                    d.item
                ),
            ));
        }
        let digests = item_digests(index, &d.item);
        let actual = match digests.as_slice() {
            [] => {
                return Err(field_error(
                    file,
                    "item",
                    format!(
                        "{} is not a record, assertion, requirement or declared gap of the built index",
                        d.item
                    ),
                ));
            }
            [(_, digest)] => digest.clone(),
            _ => {
                let kinds: Vec<&str> = digests.iter().map(|(k, _)| k.as_str()).collect();
                return Err(field_error(
                    file,
                    "item",
                    format!(
                        "{} names more than one item ({}); it cannot be reviewed by id",
                        d.item,
                        kinds.join(", ")
                    ),
                ));
            }
        };
        if actual != d.item_sha256 {
            stale.push(StaleReview {
                file: d.file.clone(),
                item: d.item.clone(),
                declared: d.item_sha256.clone(),
                actual,
            });
            continue;
        }
        applied.push(Review {
            date: d.date.clone(),
            decision: d.decision,
            decision_sha256: d.file_sha256.clone(),
            item: d.item.clone(),
            item_sha256: d.item_sha256.clone(),
            reason: d.reason.clone(),
            reviewer: d.reviewer.clone(),
        });
    }
    let mut reviews = recorded;
    reviews.extend(applied);
    reviews.sort_by(|a, b| cmp_utf16(&a.item, &b.item));
    index.reviews = (!reviews.is_empty()).then_some(reviews);
    Ok(stale)
}

/// The `item_sha256` a decision about `id` must state, computed from the index as it is
/// (`okf review digest`). An error names the id when the index holds no such item or more
/// than one.
pub fn item_sha256(index: &IndexDocument, id: &str) -> Result<String, String> {
    match item_digests(index, id).as_slice() {
        [(_, digest)] => Ok(digest.clone()),
        [] => Err(format!(
            "{id} is not a record, assertion, requirement or declared gap of the index"
        )),
        more => Err(format!(
            "{id} names more than one item ({})",
            more.iter()
                .map(|(k, _)| k.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}
