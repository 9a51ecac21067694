//! Corpus tokenisation (`nfkd-lowercase-ascii-alphanumeric-min2-v1`) and the bucket function
//! (`fnv1a32-high-byte-hex-v1`) of spec §3.12.

use unicode_normalization::UnicodeNormalization;
use unicode_properties::{GeneralCategoryGroup, UnicodeGeneralCategory};

/// Identifier of the corpus tokenisation.
pub const TOKENISATION: &str = "nfkd-lowercase-ascii-alphanumeric-min2-v1";
/// Identifier of the bucket function.
pub const BUCKET_ALGORITHM: &str = "fnv1a32-high-byte-hex-v1";

/// All tokens of `text` in order, repeats kept: NFKD, marks stripped, lowercased, then runs
/// of ASCII `[a-z0-9]` of at least two characters.
pub fn corpus_tokens(text: &str) -> Vec<String> {
    let folded: String = text
        .nfkd()
        .filter(|c| c.general_category_group() != GeneralCategoryGroup::Mark)
        .collect::<String>()
        .to_lowercase();
    let mut out = Vec::new();
    let mut current = String::new();
    for c in folded.chars().chain(std::iter::once(' ')) {
        if c.is_ascii_lowercase() || c.is_ascii_digit() {
            current.push(c);
        } else {
            if current.len() >= 2 {
                out.push(std::mem::take(&mut current));
            }
            current.clear();
        }
    }
    out
}

/// Query tokens: corpus tokens, deduplicated in first-seen order, without question scaffolding.
pub fn query_tokens(question: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for t in corpus_tokens(question) {
        if !okf_engine::text::is_scaffolding(&t) && !out.contains(&t) {
            out.push(t);
        }
    }
    out
}

/// The bucket of a token: the high byte of its FNV-1a 32-bit hash, as two lowercase hex digits.
pub fn bucket(token: &str) -> String {
    let mut hash: u32 = 0x811c_9dc5;
    for b in token.bytes() {
        hash ^= u32::from(b);
        hash = hash.wrapping_mul(0x0100_0193);
    }
    format!("{:02x}", hash >> 24)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_7_11_corpus_tokens_fold_and_deduplicate() {
        assert_eq!(query_tokens("Café CAFÉ x 1 APpLes"), ["cafe", "apples"]);
    }

    #[test]
    fn spec_7_12_discovery_tokens_keep_repeats() {
        assert_eq!(
            corpus_tokens("Café café x ESA(IR)"),
            ["cafe", "cafe", "esa", "ir"]
        );
    }

    #[test]
    fn spec_3_12_bucket_vector() {
        assert_eq!(bucket("hello"), "4f");
    }
}
