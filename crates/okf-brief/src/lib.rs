//! # okf-brief
//!
//! The evidence brief: what a language model reads from an Ask OKF evidence package
//! (`okf-governed-context.v1`). [`render`] turns the package JSON into one Markdown text,
//! bounded by a character budget, so the command line, the HTTP API, MCP, the WebAssembly
//! module and the page give the same bytes for the same package and budget.
//!
//! Layout (docs/grounding.md, "What a model reads: the evidence brief"):
//!
//! 1. a title line, the package's `context_id`, and that this is evidence, not an answer;
//! 2. the facts a model must not get wrong: the evidence status and why, every branch
//!    (requirement) as met / partly supported / not met with its records and what is missing and
//!    why, declared gaps and other open issues, the guidance regime, how the question was read,
//!    review status, scope, capture dates and limitations;
//! 3. the selected records, whole (never cut), grouped by the branch they serve in package
//!    order, then the records that serve no branch, until the budget is reached;
//! 4. every selected record left out, listed by id, label and locator, with how to read it;
//! 5. how to answer (okf-grounded-answer.v1, whole-sentence quotes, keep the status);
//! 6. a last line `brief_sha256: <hex>`: the SHA-256 of the UTF-8 bytes of every line
//!    before it ([`check_digest`]).
//!
//! **Budget.** Counted in characters (Unicode scalar values, `str::chars`), the whole text
//! included. Records are chosen in rounds over the branches (each branch's first record not yet
//! chosen, then each one's second, and so on), each while it, the listing of all records still
//! left out and the closing sections fit; a record that does not fit ends its branch's turn.
//! So every branch gets some exact text before any gets all of its own. The chosen records are
//! written grouped by branch in package order. If the fixed facts and the listing of every record do not fit, every list of the
//! brief is cut to its first N items (the largest N that fits) with "… and M more …"; if even
//! N = 0 does not fit, [`render`] refuses with [`BriefError::TooSmall`].
//!
//! Pure and deterministic: no I/O, no clocks, no hash-map iteration, no floating point, no
//! locale. Builds for `wasm32-unknown-unknown`.
//!
//! ```
//! # let package = okf_engine::assemble(
//! #     &okf_engine::ContextIndex::from_json_str(include_str!("../../okf/example/index.json"))?,
//! #     "How do I borrow books?", &okf_engine::Budget::default(), None)?.json;
//! let brief = okf_brief::render(&package, &okf_brief::BriefOptions::default())?;
//! assert!(brief.text.starts_with("# Ask OKF evidence brief\n"));
//! assert!(brief.chars <= okf_brief::DEFAULT_MAX_CHARS);
//! okf_brief::check_digest(&brief.text)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod doc;
mod render;
mod view;

use okf_engine::canonical::sha256_hex;

/// The brief's format name, written in its header.
pub const BRIEF_FORMAT: &str = "okf-evidence-brief.v1";

/// The media type of a brief.
pub const MEDIA_TYPE: &str = "text/markdown; charset=utf-8";

/// The default budget in characters: a host's 25,000-token tool-result limit at 4 characters
/// a token is 100,000 characters; 10,000 are left for the envelope around the brief.
pub const DEFAULT_MAX_CHARS: usize = 90_000;

/// The smallest budget [`BriefOptions::max_chars`] may be.
pub const MIN_MAX_CHARS: usize = 2_000;

/// The largest budget [`BriefOptions::max_chars`] may be.
pub const MAX_MAX_CHARS: usize = 1_000_000;

/// What starts the brief's last line; the line is this, 64 lowercase hex digits and `\n`.
pub const DIGEST_PREFIX: &str = "brief_sha256: ";

/// How to render a brief.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BriefOptions {
    /// Most characters (Unicode scalar values) of the whole brief, its last line included;
    /// [`MIN_MAX_CHARS`]..=[`MAX_MAX_CHARS`], default [`DEFAULT_MAX_CHARS`].
    pub max_chars: usize,
}

impl Default for BriefOptions {
    fn default() -> Self {
        BriefOptions {
            max_chars: DEFAULT_MAX_CHARS,
        }
    }
}

impl BriefOptions {
    /// Options with a budget of `max_chars`, refused outside
    /// [`MIN_MAX_CHARS`]..=[`MAX_MAX_CHARS`].
    pub fn with_max_chars(max_chars: usize) -> Result<Self, BriefError> {
        let options = BriefOptions { max_chars };
        options.check()?;
        Ok(options)
    }

    fn check(&self) -> Result<(), BriefError> {
        if (MIN_MAX_CHARS..=MAX_MAX_CHARS).contains(&self.max_chars) {
            Ok(())
        } else {
            Err(BriefError::Budget {
                value: self.max_chars,
                min: MIN_MAX_CHARS,
                max: MAX_MAX_CHARS,
            })
        }
    }
}

/// A rendered brief.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Brief {
    /// The brief, Markdown, ending with its digest line and a newline.
    pub text: String,
    /// SHA-256 (lowercase hex) of the UTF-8 bytes of `text` before its last line; the last
    /// line carries the same value.
    pub sha256: String,
    /// The package's `context_id`, which the brief names in its header.
    pub context_id: String,
    /// The brief's length in characters (Unicode scalar values), at most the budget.
    pub chars: usize,
    /// Selected records whose whole text is in the brief.
    pub records_in_full: usize,
    /// Selected records listed by id (with label and locator) but not quoted.
    pub records_listed: usize,
    /// Selected records only counted ("… and N more records"), because the budget could not
    /// list them; 0 unless lists were shortened.
    pub records_counted: usize,
    /// Whether the fixed facts had to be shortened at list items to fit the budget.
    pub lists_shortened: bool,
}

/// Why a brief could not be rendered or checked.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BriefError {
    /// The input is not JSON of the package's shape (serde's message names the field).
    #[error("package: {message}")]
    Json {
        /// What serde reported (field, expected type, line and column).
        message: String,
    },
    /// A package field breaks a rule the brief relies on.
    #[error("package field {field}: {rule}")]
    Field {
        /// The field, as a path (`requirements[2].status`).
        field: String,
        /// The rule it breaks.
        rule: &'static str,
    },
    /// The budget is out of range.
    #[error("max_chars {value} is out of range: it must be {min} to {max} characters")]
    Budget {
        /// The budget asked for.
        value: usize,
        /// [`MIN_MAX_CHARS`].
        min: usize,
        /// [`MAX_MAX_CHARS`].
        max: usize,
    },
    /// Not even the shortest form of the brief's fixed facts fits the budget.
    #[error(
        "max_chars {max_chars} is too small for this package: its shortest brief is {needed} characters"
    )]
    TooSmall {
        /// Characters the shortest brief needs.
        needed: usize,
        /// The budget asked for.
        max_chars: usize,
    },
    /// A text given to [`check_digest`] does not carry its own digest.
    #[error("brief digest: {rule}")]
    Digest {
        /// What is wrong.
        rule: &'static str,
    },
}

/// Renders the evidence brief of the package `package_json` (an `okf-governed-context.v1`
/// package, as the engine writes it) within `options.max_chars` characters.
///
/// The package's identity is not recomputed here: pass the engine's bytes, or a stored package
/// already verified with `okf_engine::verify_package`.
pub fn render(package_json: &str, options: &BriefOptions) -> Result<Brief, BriefError> {
    options.check()?;
    let package: view::Package =
        serde_json::from_str(package_json).map_err(|e| BriefError::Json {
            message: e.to_string(),
        })?;
    let body = render::body(&package, options.max_chars)?;
    let sha256 = sha256_hex(body.text.as_bytes());
    let mut text = body.text;
    text.push_str(DIGEST_PREFIX);
    text.push_str(&sha256);
    text.push('\n');
    Ok(Brief {
        chars: text.chars().count(),
        text,
        sha256,
        context_id: package.context_id.as_str().to_owned(),
        records_in_full: body.records_in_full,
        records_listed: body.records_listed,
        records_counted: body.records_counted,
        lists_shortened: body.lists_shortened,
    })
}

/// Characters of the digest line (`DIGEST_PREFIX`, 64 hex digits, newline).
pub(crate) const DIGEST_LINE_CHARS: usize = DIGEST_PREFIX.len() + 64 + 1;

/// Checks that `brief` ends with a digest line whose value is the SHA-256 of everything
/// before that line, and returns the digest.
pub fn check_digest(brief: &str) -> Result<String, BriefError> {
    let without_newline = brief.strip_suffix('\n').ok_or(BriefError::Digest {
        rule: "must end with a newline",
    })?;
    let start = without_newline.rfind('\n').map_or(0, |i| i + 1);
    let digest =
        without_newline[start..]
            .strip_prefix(DIGEST_PREFIX)
            .ok_or(BriefError::Digest {
                rule: "the last line must be brief_sha256: <64 hex digits>",
            })?;
    if !okf_engine::canonical::is_hex64(digest) {
        return Err(BriefError::Digest {
            rule: "the last line must be brief_sha256: <64 hex digits>",
        });
    }
    if sha256_hex(&brief.as_bytes()[..start]) != digest {
        return Err(BriefError::Digest {
            rule: "the SHA-256 of the text before the last line differs from the last line",
        });
    }
    Ok(digest.to_owned())
}
