//! Grounded answers: an AI writes an answer from an evidence package as claims, each citing
//! records of the package with exact quotes (`okf-grounded-answer.v1`); [`check`] decides,
//! deterministically and before the answer is shown, whether it is grounded in that package
//! (`okf-answer-check.v1`).
//!
//! A citation is `ok` when its record is selected in the package and its quote, at least
//! [`MIN_QUOTE_CHARS`] characters, is a substring of the record's text once every run of white
//! space is collapsed to one space on both sides (nothing else is normalised); the report gives
//! the quote's UTF-16 offsets in the original text. A requirement is covered when some `ok`
//! citation names one of its records that not every applicable requirement names (with one
//! applicable requirement, any of its records). The verdict is `grounded` only when no claim or
//! citation has an error, every applicable requirement is covered and the answer assumes the
//! package's own `evidence_status`.
//!
//! Pure: the package and the answer are values the adapter has already read and decoded; the
//! report is canonical JSON, so every adapter returns the same bytes.

mod answer;
mod check;
mod error;
mod quote;
mod sentence;

pub use answer::{ANSWER_SCHEMA, Answer, Citation, Claim, is_blank};
pub use check::{REPORT_SCHEMA, check, check_json};
pub use error::GroundingError;
pub use quote::{MIN_QUOTE_CHARS, QuoteMatch, find_quote};
