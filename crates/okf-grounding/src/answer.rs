//! The answer contract, `okf-grounded-answer.v1`, and its strict decoder.

use crate::GroundingError;
use serde::Deserialize;
use serde_json::Value;
use unicode_properties::{GeneralCategory, UnicodeGeneralCategory};

/// The `schema` of an answer.
pub const ANSWER_SCHEMA: &str = "okf-grounded-answer.v1";

/// Most claims an answer may make.
const MAX_CLAIMS: usize = 256;
/// Most citations a claim may carry.
const MAX_CITATIONS: usize = 32;

/// An answer written from one package.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Answer {
    /// Always [`ANSWER_SCHEMA`].
    pub schema: String,
    /// The package the answer was written from.
    pub context_id: String,
    /// The status the answer assumes the package has.
    pub evidence_status: String,
    /// What the answer says, claim by claim.
    pub claims: Vec<Claim>,
}

/// One claim of an answer.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Claim {
    /// Unique within the answer.
    pub id: String,
    /// The claim's words (checked only for being present).
    pub text: String,
    /// The requirement (branch) the claim answers, if it says.
    #[serde(default)]
    pub requirement: Option<String>,
    /// The evidence it rests on.
    pub citations: Vec<Citation>,
}

/// One citation: a record of the package and text copied from it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Citation {
    /// The cited record's id.
    pub record: String,
    /// Text copied exactly from that record.
    pub quote: String,
}

/// Is `s` blank: nothing left once white space (Unicode `White_Space`) and invisible format
/// characters (general category Cf: U+200B, U+200C, U+200D, U+2060, U+FEFF, …) are removed?
/// The one rule of every "must not be blank" field of an answer.
pub fn is_blank(s: &str) -> bool {
    s.chars()
        .all(|c| c.is_whitespace() || c.general_category() == GeneralCategory::Format)
}

fn bad(field: impl Into<String>, rule: impl Into<String>) -> GroundingError {
    GroundingError::Answer {
        field: field.into(),
        rule: rule.into(),
    }
}

impl Answer {
    /// Decodes and checks an answer's shape: closed objects, the schema, ids and texts that are
    /// not blank ([`is_blank`]), at least one claim, unique claim ids, bounded counts. What it says about the
    /// package is [`crate::check`]'s business.
    pub fn from_value(value: &Value) -> Result<Answer, GroundingError> {
        let answer: Answer = serde_path_to_error::deserialize(value).map_err(|e| {
            let path = e.path().to_string();
            bad(
                if path == "." {
                    "answer".to_owned()
                } else {
                    path
                },
                e.into_inner().to_string(),
            )
        })?;
        if answer.schema != ANSWER_SCHEMA {
            return Err(bad("schema", format!("must be {ANSWER_SCHEMA:?}")));
        }
        if answer.claims.is_empty() {
            return Err(bad("claims", "must hold at least one claim"));
        }
        if answer.claims.len() > MAX_CLAIMS {
            return Err(bad("claims", format!("at most {MAX_CLAIMS} claims")));
        }
        for (i, claim) in answer.claims.iter().enumerate() {
            let at = |f: &str| format!("claims[{i}].{f}");
            if is_blank(&claim.id) {
                return Err(bad(at("id"), "must not be blank"));
            }
            if answer.claims[..i].iter().any(|c| c.id == claim.id) {
                return Err(bad(
                    at("id"),
                    format!("{:?} is the id of an earlier claim", claim.id),
                ));
            }
            if is_blank(&claim.text) {
                return Err(bad(at("text"), "must not be blank"));
            }
            if claim.citations.len() > MAX_CITATIONS {
                return Err(bad(
                    at("citations"),
                    format!("at most {MAX_CITATIONS} citations"),
                ));
            }
        }
        Ok(answer)
    }
}
