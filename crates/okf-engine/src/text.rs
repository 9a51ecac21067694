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
    /// Per token: an `s` that only marks a possessive or a contraction (`claimant's`,
    /// `it’s`), so it never counts as an unresolved term (this project's addition, issue 44).
    pub possessive: Vec<bool>,
}

impl TokenStreams {
    /// Tokenises a question once for both streams.
    pub fn new(text: &str) -> Self {
        let decomposed = decompose(text);
        let lowered = decomposed.to_lowercase();
        TokenStreams {
            folded: split_tokens(&lowered),
            exact: split_tokens(&decomposed),
            // Marked on the folded text, so the marks line up with `folded`.
            possessive: possessive_marks(&lowered),
        }
    }
}

/// Apostrophes that mark a possessive: ASCII `'`, the right single quotation mark and the
/// modifier-letter apostrophe.
fn is_apostrophe(c: char) -> bool {
    matches!(c, '\'' | '\u{2019}' | '\u{02BC}')
}

/// For each token of `text` (as [`split_tokens`] splits it): true when the token is `s` or `S`
/// and the two characters before it are the end of a token and an apostrophe.
fn possessive_marks(text: &str) -> Vec<bool> {
    let mut marks = Vec::new();
    let mut current = String::new();
    // The token being read began right after "<token><apostrophe>".
    let mut after_apostrophe = false;
    // The last character was an apostrophe right after a token.
    let mut pending = false;
    let mut prev_was_token = false;
    for c in text.chars() {
        if is_token_char(c) {
            if current.is_empty() {
                after_apostrophe = pending;
            }
            current.push(c);
            prev_was_token = true;
        } else {
            if !current.is_empty() {
                marks.push(after_apostrophe && (current == "s" || current == "S"));
                current.clear();
            }
            pending = prev_was_token && is_apostrophe(c);
            prev_was_token = false;
        }
    }
    if !current.is_empty() {
        marks.push(after_apostrophe && (current == "s" || current == "S"));
    }
    marks
}

/// Shortest alias word the inflection rules apply to.
const MIN_INFLECTED_BASE: usize = 3;

fn is_vowel(b: u8) -> bool {
    matches!(b, b'a' | b'e' | b'i' | b'o' | b'u')
}

/// True when the question word `word` is an English inflection of the alias word `base` under
/// the engine's fixed rules (docs/authoring.md, "Inflections and possessives"); never when they
/// are equal. Both must be lowercase ASCII letters, `base` at least three long.
///
/// Plural (every alias, on its last word): `base`+`s` (base not ending in `s`, nor in
/// consonant+`y`), `base`+`es` (base ending in `s`, `x`, `z`, `ch`, `sh`), consonant+`y` →
/// `ies`. With `verb` (single-word aliases only): `base`+`ed`/`ing`; a base ending in `e` takes
/// `d` and drops the `e` before `ing` (`ee` keeps it); consonant+`y` → `ied`, `ying`; a base
/// ending consonant-vowel-consonant (not `w`, `x`, `y`) may double its last letter (`admit` →
/// `admitted`, `admitting`).
pub fn inflects(word: &str, base: &str, verb: bool) -> bool {
    let (w, b) = (word.as_bytes(), base.as_bytes());
    let letters = |x: &[u8]| x.iter().all(u8::is_ascii_lowercase);
    if b.len() < MIN_INFLECTED_BASE || w.len() <= b.len() || !letters(w) || !letters(b) {
        return false;
    }
    let last = b[b.len() - 1];
    let consonant_y = last == b'y' && !is_vowel(b[b.len() - 2]);
    let stem = &base[..base.len() - 1];
    let is = |parts: &[&str]| word == parts.concat();
    let plural = if consonant_y {
        is(&[stem, "ies"])
    } else {
        (last != b's' && is(&[base, "s"]))
            || ((matches!(last, b's' | b'x' | b'z')
                || base.ends_with("ch")
                || base.ends_with("sh"))
                && is(&[base, "es"]))
    };
    if plural || !verb {
        return plural;
    }
    if consonant_y {
        return is(&[stem, "ied"]) || is(&[base, "ing"]);
    }
    if last == b'e' {
        return is(&[base, "d"])
            || if base.ends_with("ee") {
                is(&[base, "ing"])
            } else {
                is(&[stem, "ing"])
            };
    }
    let cvc = !is_vowel(last)
        && !matches!(last, b'w' | b'x' | b'y')
        && is_vowel(b[b.len() - 2])
        && !is_vowel(b[b.len() - 3]);
    let doubled = String::from(char::from(last));
    is(&[base, "ed"])
        || is(&[base, "ing"])
        || (cvc && (is(&[base, &doubled, "ed"]) || is(&[base, &doubled, "ing"])))
}

/// The alias words a question word could be an inflection of under [`inflects`]'s rules, in a
/// fixed order; each is still to be confirmed with [`inflects`].
pub fn uninflected_candidates(word: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    if !word.bytes().all(|b| b.is_ascii_lowercase()) {
        return out;
    }
    let mut add = |s: String| {
        if s.len() >= MIN_INFLECTED_BASE && !out.contains(&s) {
            out.push(s);
        }
    };
    if let Some(s) = word
        .strip_suffix("ies")
        .or_else(|| word.strip_suffix("ied"))
    {
        add(format!("{s}y"));
    }
    for suffix in ["s", "es", "d", "ed", "ing"] {
        if let Some(s) = word.strip_suffix(suffix) {
            add(s.to_owned());
            if suffix == "ing" {
                add(format!("{s}e"));
            }
            let b = s.as_bytes();
            if matches!(suffix, "ed" | "ing") && b.len() >= 2 && b[b.len() - 1] == b[b.len() - 2] {
                add(s[..s.len() - 1].to_owned());
            }
        }
    }
    out
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
    fn a_possessive_or_contracted_s_is_marked_and_nothing_else() {
        let q = "The claimant's and claimants\u{2019} rights; it's s S's X 's";
        assert_eq!(
            split_tokens(q),
            [
                "The",
                "claimant",
                "s",
                "and",
                "claimants",
                "rights",
                "it",
                "s",
                "s",
                "S",
                "s",
                "X",
                "s"
            ]
        );
        assert_eq!(
            possessive_marks(q),
            [
                false, false, true, false, false, false, false, true, false, false, true, false,
                false
            ]
        );
    }

    #[test]
    fn inflection_rules_match_plurals_always_and_verb_forms_only_when_asked() {
        for (word, base) in [
            ("claimants", "claimant"),
            ("taxes", "tax"),
            ("churches", "church"),
            ("studies", "study"),
            ("changes", "change"),
        ] {
            assert!(inflects(word, base, false), "{word} {base}");
            assert!(
                uninflected_candidates(word).contains(&base.to_owned()),
                "{word}"
            );
        }
        for (word, base) in [
            ("admitted", "admit"),
            ("admitting", "admit"),
            ("lived", "live"),
            ("living", "live"),
            ("claimed", "claim"),
            ("claiming", "claim"),
            ("studied", "study"),
            ("studying", "study"),
            ("agreeing", "agree"),
            ("showed", "show"),
        ] {
            assert!(inflects(word, base, true), "{word} {base}");
            assert!(!inflects(word, base, false), "{word} {base}");
            assert!(
                uninflected_candidates(word).contains(&base.to_owned()),
                "{word}"
            );
        }
        for (word, base, verb) in [
            ("claimant", "claimant", true),
            ("studys", "study", true),
            ("loss", "los", true),
            ("gas", "ga", true),
            ("Claimants", "claimant", true),
            ("caf\u{e9}s", "caf\u{e9}", true),
            ("showwed", "show", true),
            ("livinged", "live", true),
        ] {
            assert!(!inflects(word, base, verb), "{word} {base}");
        }
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
