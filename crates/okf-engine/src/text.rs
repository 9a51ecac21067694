//! Question and alias tokenisation (spec §3.3).
//!
//! Text is decomposed with Unicode NFKD, marks (general category M) are removed, and a token
//! is a maximal run of letters (L) or numbers (N). The *folded* stream is lowercased with the
//! default Unicode mapping (which is what `en-GB` lowercasing does, final sigma included); the
//! *exact* stream keeps case. Tables come from the pinned `unicode-normalization` and
//! `unicode-properties` crates, so results do not depend on the platform (spec W12).

use unicode_normalization::UnicodeNormalization;
use unicode_properties::{GeneralCategoryGroup, UnicodeGeneralCategory};

/// Words that frame a question and never count as unresolved terms (142 words, spec §3.3).
pub const SCAFFOLDING: [&str; 142] = [
    "a",
    "an",
    "the",
    "and",
    "or",
    "but",
    "to",
    "of",
    "for",
    "from",
    "on",
    "in",
    "into",
    "at",
    "with",
    "by",
    "as",
    "is",
    "are",
    "was",
    "were",
    "be",
    "been",
    "being",
    "has",
    "have",
    "had",
    "do",
    "does",
    "did",
    "will",
    "would",
    "can",
    "could",
    "should",
    "may",
    "might",
    "i",
    "we",
    "you",
    "they",
    "it",
    "its",
    "their",
    "this",
    "that",
    "these",
    "those",
    "what",
    "which",
    "who",
    "how",
    "why",
    "when",
    "where",
    "whether",
    "explain",
    "show",
    "describe",
    "compare",
    "find",
    "give",
    "tell",
    "please",
    "happens",
    "happen",
    "effect",
    "effects",
    "affect",
    "affects",
    "distinguish",
    "distinguishing",
    "difference",
    "differences",
    "between",
    "each",
    "all",
    "any",
    "some",
    "both",
    "trace",
    "conclusion",
    "conclusions",
    "relevant",
    "given",
    "following",
    "about",
    "against",
    "over",
    "under",
    "than",
    "then",
    "also",
    "need",
    "needed",
    "information",
    "evidence",
    "source",
    "sources",
    "question",
    "answer",
    "me",
    "my",
    "us",
    "our",
    "such",
    "so",
    "if",
    "must",
    "meaning",
    "means",
    "mean",
    "regarding",
    "relates",
    "concerning",
    "details",
    "detail",
    "during",
    "your",
    "yours",
    "yourself",
    "yourselves",
    "mine",
    "myself",
    "he",
    "him",
    "his",
    "himself",
    "she",
    "her",
    "hers",
    "herself",
    "ours",
    "ourselves",
    "them",
    "theirs",
    "themselves",
    "itself",
    "go",
    "going",
    "get",
    "getting",
];

/// True when a folded token is question scaffolding.
pub fn is_scaffolding(token: &str) -> bool {
    // The list is tiny and mostly short words; a linear scan beats hashing setup here.
    SCAFFOLDING.contains(&token)
}

/// Removes marks after compatibility decomposition.
fn decompose(text: &str) -> String {
    text.nfkd()
        .filter(|c| c.general_category_group() != GeneralCategoryGroup::Mark)
        .collect()
}

fn is_token_char(c: char) -> bool {
    c.is_ascii_alphanumeric()
        || (!c.is_ascii()
            && matches!(
                c.general_category_group(),
                GeneralCategoryGroup::Letter | GeneralCategoryGroup::Number
            ))
}

/// Splits into maximal runs of letters and numbers.
pub fn split_tokens(text: &str) -> Vec<String> {
    let mut tokens = Vec::new();
    let mut current = String::new();
    for c in text.chars() {
        if is_token_char(c) {
            current.push(c);
        } else if !current.is_empty() {
            tokens.push(std::mem::take(&mut current));
        }
    }
    if !current.is_empty() {
        tokens.push(current);
    }
    tokens
}

/// Tokens of `text` in the folded (lowercased) stream.
pub fn folded_tokens(text: &str) -> Vec<String> {
    split_tokens(&decompose(text).to_lowercase())
}

/// Tokens of `text` in the exact (case-preserving) stream.
pub fn exact_tokens(text: &str) -> Vec<String> {
    split_tokens(&decompose(text))
}

/// Both token streams of a question.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenStreams {
    /// Lowercased tokens.
    pub folded: Vec<String>,
    /// Case-preserving tokens.
    pub exact: Vec<String>,
}

impl TokenStreams {
    /// Tokenises a question once for both streams.
    pub fn new(text: &str) -> Self {
        let decomposed = decompose(text);
        TokenStreams {
            folded: split_tokens(&decomposed.to_lowercase()),
            exact: split_tokens(&decomposed),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scaffolding_list_has_no_duplicates() {
        let mut v = SCAFFOLDING.to_vec();
        v.sort_unstable();
        v.dedup();
        assert_eq!(v.len(), 142);
    }

    #[test]
    fn tokens_strip_marks_and_split_on_punctuation() {
        assert_eq!(
            folded_tokens("Café CAFÉ x 1 APpLes, e-book"),
            ["cafe", "cafe", "x", "1", "apples", "e", "book"]
        );
        assert_eq!(exact_tokens("ESA(IR)"), ["ESA", "IR"]);
        assert_eq!(folded_tokens("ＡＢＣ①"), ["abc1"]);
        assert_eq!(folded_tokens("完整 evidence"), ["完整", "evidence"]);
    }

    #[test]
    fn final_sigma_lowercases_in_context() {
        assert_eq!(folded_tokens("ΟΔΟΣ"), ["οδος"]);
    }

    /// The authoring guide lists exactly the words the engine never counts, in its order.
    #[test]
    fn the_authoring_guide_lists_the_scaffolding_words_the_engine_ignores() {
        let guide = include_str!("../../../docs/authoring.md");
        let listed = SCAFFOLDING
            .iter()
            .map(|w| format!("`{w}`"))
            .collect::<Vec<_>>()
            .join(", ");
        assert!(
            guide.contains(&format!("\n{listed}.\n")),
            "docs/authoring.md does not list the engine's scaffolding words"
        );
    }
}
