//! # okf-authoring
//!
//! Compiles an authoring profile (a folder of TOML files, docs/authoring.md) and the captured
//! page files it cites into an `okf-context-index.v1` producer index. Evidence text is never
//! written in a profile: a record cites a document, a page and an exact excerpt selector, and
//! the compiler copies the text from the capture and computes its `literal_sha256`.
//!
//! The crate is pure: the caller reads the files and passes their contents in. The output is
//! canonical JSON plus a newline, so the same inputs give the same bytes on every run.

mod capture;
mod compile;
mod compose;
mod error;
mod html;
mod origin;
mod pdf;
mod profile;
mod review;
mod scaffold;

pub use capture::{CaptureFile, captured_pages};
pub use compile::{Built, PROFILE_FILE, build, build_onto, build_reviewed};
pub use compose::ResolvedGap;
pub use error::{Error, Rule};
pub use html::{HTML_EXTRACTOR, capture_html};
pub use pdf::{PDF_EXTRACTOR, PDFTOTEXT_ARGS, PDFTOTEXT_METHOD, capture_pdf, pdf_pages};
pub use review::{
    Decision, MAX_DECISION_BYTES, REVIEW_DECISION_SCHEMA, ReviewFile, StaleReview, decode_decision,
    item_sha256,
};
pub use scaffold::{ScaffoldOptions, scaffold};

/// One profile file as the caller read it.
#[derive(Debug, Clone)]
pub struct ProfileFile {
    /// Name relative to the profile folder (`profile.toml`, `concepts.toml`, …); it orders
    /// the files and names them in errors.
    pub name: String,
    /// The file's text.
    pub text: String,
}

pub(crate) fn sha256_hex(text: &str) -> String {
    okf_engine::canonical::sha256_hex(text.as_bytes())
}
