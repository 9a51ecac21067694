//! Result envelopes `okf-workbench-result.v1` and their fixed-point accounting (spec §1.5).

use serde::Serialize;
use serde_json::Value;

/// The envelope schema name.
pub const RESULT_SCHEMA: &str = "okf-workbench-result.v1";

/// The notice every envelope carries: navigation is not sufficiency.
pub const NAVIGATION_NOTICE: &str = "Navigating or delivering evidence does not make it sufficient; read each source with its qualifications.";

/// The default recovery text of an error.
pub const DEFAULT_RECOVERY: &str =
    "Call okf_get_state and retry with its snapshot_id and fresh references.";

/// Delivery accounting of an envelope.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Delivery {
    /// Whether this reply completes the requested content.
    pub complete: bool,
    /// Cursor for the next page, when incomplete.
    pub next_cursor: Option<String>,
    /// UTF-8 bytes of the compact envelope, this field included.
    pub bytes: u64,
    /// UTF-16 code units of the same text.
    pub characters: u64,
    /// `ceil(characters / 4)`: a heuristic, not a tokenizer.
    pub estimated_tokens: u64,
}

/// A tool error carried in an envelope.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ErrorBody {
    /// Machine code (§1.13).
    pub code: String,
    /// What went wrong.
    pub message: String,
    /// What to do next.
    pub recovery: String,
}

/// One tool reply.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Envelope {
    /// Always [`RESULT_SCHEMA`].
    pub schema: &'static str,
    /// `sha256:<hex>` of the admitted manifest, or null.
    pub snapshot_id: Option<String>,
    /// Page revision when the envelope was built.
    pub state_revision: u64,
    /// `sufficient`, `insufficient`, `conflicting` or `not-loaded`.
    pub evidence_status: String,
    /// The payload; absent on errors.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
    /// Accounting.
    pub delivery: Delivery,
    /// Always starts with the navigation notice.
    pub limitations: Vec<String>,
    /// Present on failure.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorBody>,
    /// Retained view result id, for view data.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result_id: Option<String>,
}

/// Compact JSON as `JSON.stringify` writes it (serde_json escapes the same characters).
pub fn compact<T: Serialize>(value: &T) -> String {
    // Envelopes hold only strings, integers, booleans and parsed JSON, so this cannot fail.
    serde_json::to_string(value).unwrap_or_default()
}

/// Bytes, UTF-16 characters and estimated tokens of a text.
pub fn measure(text: &str) -> (u64, u64, u64) {
    let bytes = text.len() as u64;
    let characters = text.encode_utf16().count() as u64;
    (bytes, characters, characters.div_ceil(4))
}

impl Envelope {
    /// Computes `delivery.bytes/characters/estimated_tokens` to their fixed point (≤ 8 rounds)
    /// and returns the compact text.
    pub fn seal(&mut self) -> String {
        let mut text = compact(self);
        for _ in 0..8 {
            let (b, c, t) = measure(&text);
            if (b, c, t)
                == (
                    self.delivery.bytes,
                    self.delivery.characters,
                    self.delivery.estimated_tokens,
                )
            {
                break;
            }
            self.delivery.bytes = b;
            self.delivery.characters = c;
            self.delivery.estimated_tokens = t;
            text = compact(self);
        }
        text
    }

    /// The sealed size in bytes (seals a copy).
    pub fn sealed_bytes(&self) -> u64 {
        let mut copy = self.clone();
        copy.seal();
        copy.delivery.bytes
    }
}

/// Checks a fixture or envelope's declared accounting against its compact serialisation:
/// returns `(declared, recomputed)` for bytes, characters and tokens.
pub fn accounting_of(value: &Value) -> ((u64, u64, u64), (u64, u64, u64)) {
    let d = &value["delivery"];
    let declared = (
        d["bytes"].as_u64().unwrap_or(u64::MAX),
        d["characters"].as_u64().unwrap_or(u64::MAX),
        d["estimated_tokens"].as_u64().unwrap_or(u64::MAX),
    );
    (declared, measure(&compact(value)))
}
