//! Stage R: the specialist review a case requires, read from the package in the richer
//! profile (each requirement's `review.state`: `approved` only when its whole closure is
//! approved and none of it changed since).

use crate::assess::Check;
use crate::case::ExpectedReview;
use serde_json::{Value, json};

/// A requirement's review state as the package says it (`null` when it says none: an index
/// without reviews, or a requirement the package does not assess).
fn state(requirement: Option<&Value>) -> Value {
    requirement
        .and_then(|r| r.pointer("/review/state"))
        .cloned()
        .unwrap_or(Value::Null)
}

/// The checks of `expected` against `package`, in the order the case names them.
pub(crate) fn checks(package: &Value, expected: &ExpectedReview) -> Vec<Check> {
    let requirements = package
        .get("requirements")
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    let by_id = |id: &str| {
        requirements
            .iter()
            .find(|r| r.get("id").and_then(Value::as_str) == Some(id))
    };
    let mut out: Vec<Check> = expected
        .approved
        .iter()
        .map(|id| {
            let actual = state(by_id(id));
            Check::new(
                format!("review-approved:{id}"),
                actual == "approved",
                json!("approved"),
                actual,
            )
        })
        .collect();
    if expected.every_requirement_approved {
        let not_approved: Vec<&str> = requirements
            .iter()
            .filter(|r| state(Some(r)) != "approved")
            .filter_map(|r| r.get("id").and_then(Value::as_str))
            .collect();
        out.push(Check::new(
            "review-every-requirement-approved",
            !requirements.is_empty() && not_approved.is_empty(),
            json!("every requirement the package assesses approved"),
            json!({"requirements": requirements.len(), "not_approved": not_approved}),
        ));
    }
    out
}
