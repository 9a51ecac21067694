//! Where the sentences of a record's text begin and end, so a quote can be required to be whole
//! sentences (docs/grounding.md, "Whole sentences").
//!
//! The rule, deterministic and in UTF-16 offsets of the original text:
//!
//! - Unicode sentence boundaries (UAX #29, the `unicode-segmentation` crate) of the text once
//!   every run of white space is one space, so a PDF line wrap never ends a sentence.
//! - A line that begins with a paragraph number or list marker (`78773`, `(1)`, `(a)`, `1.`,
//!   `1.3.a`, a bullet) followed by a word that does not begin with a lower-case letter begins
//!   a sentence, at the marker and right after each marker; so does a line after a blank line
//!   (a heading, a new paragraph) whose first word is not lower case. The text before it ends
//!   a sentence there.
//! - A list item whose words begin in lower case (`1. police detention … or`) continues the
//!   sentence of its lead-in: the sentence runs on to its full stop.
//! - A quote may leave off the end of its last sentence only the full stop (or other closing
//!   punctuation), a footnote marker glued to the last word (`benefit2.`) and a trailing
//!   `and`/`or` of a sub-paragraph.
//! - The text's first and last characters always bound a sentence (a page may begin or end in
//!   the middle of one; nothing before or after it can be quoted from this record).

use std::collections::BTreeSet;
use unicode_segmentation::UnicodeSegmentation;

/// The sentence starts and ends of one text.
#[derive(Debug, Clone, Default)]
pub(crate) struct Sentences {
    /// UTF-16 offsets of the first character of a sentence.
    starts: BTreeSet<usize>,
    /// UTF-16 offsets one past the last character of a sentence.
    ends: BTreeSet<usize>,
    /// `ends`, and where a quote may stop short of one (its closing punctuation, a glued
    /// footnote marker or a trailing connective left off).
    quote_ends: BTreeSet<usize>,
}

/// Is `c` a line break (a paragraph separator of UAX #29)?
fn is_line_break(c: char) -> bool {
    matches!(
        c,
        '\n' | '\r' | '\u{0B}' | '\u{0C}' | '\u{85}' | '\u{2028}' | '\u{2029}'
    )
}

/// Closing punctuation a quote may leave off the end of a sentence.
fn is_closing(c: char) -> bool {
    matches!(
        c,
        '.' | '!' | '?' | ';' | ':' | ',' | ')' | ']' | '"' | '\'' | '”' | '’' | '…'
    )
}

/// The length in chars of a paragraph number or list marker at the start of `chars`, if any:
/// `78773`, `1`, `1.`, `1.1`, `1.3.a`, `(1)`, `(a)`, `(iv)`, `(A)`, or a bullet.
fn marker_len(chars: &[char]) -> Option<usize> {
    let first = *chars.first()?;
    if matches!(first, '•' | '◦' | '▪' | '-' | '–' | '—' | '*') {
        return Some(1);
    }
    if first == '(' {
        let inner = chars[1..]
            .iter()
            .take_while(|c| c.is_ascii_alphanumeric())
            .count();
        let all_digits = chars[1..=inner].iter().all(char::is_ascii_digit);
        let all_lower = chars[1..=inner].iter().all(char::is_ascii_lowercase);
        let one_upper = inner == 1 && chars[1].is_ascii_uppercase();
        let fits = (all_digits && inner <= 3) || (all_lower && inner <= 4) || one_upper;
        return (inner > 0 && fits && chars.get(inner + 1) == Some(&')')).then_some(inner + 2);
    }
    // digits ( "." digits )* ( "." [a-z] )? "."?
    let digits = |at: usize| {
        chars[at..]
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .count()
    };
    let mut at = digits(0);
    if at == 0 || at > 6 {
        return None;
    }
    while chars.get(at) == Some(&'.') {
        let n = digits(at + 1);
        if n > 0 && n <= 6 {
            at += 1 + n;
        } else {
            break;
        }
    }
    if chars.get(at) == Some(&'.')
        && chars.get(at + 1).is_some_and(char::is_ascii_lowercase)
        && !chars.get(at + 2).is_some_and(|c| c.is_alphanumeric())
    {
        at += 2;
    }
    if chars.get(at) == Some(&'.') {
        at += 1;
    }
    Some(at)
}

/// The markers at `i` (each followed by white space on the same line): the char index after
/// each marker and its white space, and the index after the last.
fn markers(chars: &[char], i: usize) -> (Vec<usize>, usize) {
    let mut after = Vec::new();
    let mut j = i;
    while let Some(n) = chars.get(j..).and_then(marker_len) {
        let gap = chars[j + n..]
            .iter()
            .take_while(|c| c.is_whitespace() && !is_line_break(**c))
            .count();
        if gap == 0 || after.len() == 4 {
            break;
        }
        j += n + gap;
        after.push(j);
    }
    (after, j)
}

impl Sentences {
    /// The sentences of `text`.
    pub(crate) fn of(text: &str) -> Sentences {
        // Each char with its UTF-16 offset; `units` is the text's length in UTF-16 units.
        let mut chars: Vec<char> = Vec::with_capacity(text.len());
        let mut at: Vec<usize> = Vec::with_capacity(text.len() + 1);
        let mut unit = 0;
        for c in text.chars() {
            chars.push(c);
            at.push(unit);
            unit += c.len_utf16();
        }
        at.push(unit);
        let mut s = Sentences::default();

        // Unicode sentence boundaries of the text with white space collapsed.
        let (flat, spans) = crate::quote::collapsed(text);
        for (byte, segment) in flat.split_sentence_bound_indices() {
            let lead = segment.len() - segment.trim_start_matches(' ').len();
            let body = segment.trim_matches(' ');
            if body.is_empty() {
                continue;
            }
            if let (Some(first), Some(last)) = (
                spans.get(byte + lead),
                spans.get(byte + lead + body.len() - 1),
            ) {
                s.starts.insert(first.0);
                s.ends.insert(last.1);
            }
        }

        // Lines: a marker, or a blank line before, with a word not in lower case after.
        let mut breaks = usize::MAX; // line breaks since the last non-white char
        let mut line_start = true;
        let mut content_end: Option<usize> = None;
        let mut i = 0;
        while i < chars.len() {
            let c = chars[i];
            if is_line_break(c) {
                // CR LF is one break.
                if !(c == '\n' && i > 0 && chars[i - 1] == '\r') {
                    breaks = breaks.saturating_add(1);
                }
                line_start = true;
                i += 1;
                continue;
            }
            if c.is_whitespace() {
                i += 1;
                continue;
            }
            if line_start {
                let block = breaks >= 2;
                let (after, j) = markers(&chars, i);
                let word_ok = chars
                    .get(j)
                    .is_some_and(|c| !is_line_break(*c) && !c.is_lowercase());
                if word_ok && (block || !after.is_empty()) {
                    s.starts.insert(at[i]);
                    s.starts.extend(after.iter().map(|&k| at[k]));
                    if let Some(end) = content_end {
                        s.ends.insert(end);
                    }
                }
                line_start = false;
            }
            breaks = 0;
            content_end = Some(at[i + 1]);
            i += 1;
        }
        // The text's first and last characters bound a sentence.
        if let Some(first) = chars.iter().position(|c| !c.is_whitespace()) {
            s.starts.insert(at[first]);
        }
        if let Some(end) = content_end {
            s.ends.insert(end);
        }
        // Markers at any start ("… custody. 78773 (1) A claimant"): the words after them begin
        // the sentence too.
        let mid_line: Vec<usize> = s.starts.iter().copied().collect();
        for start in mid_line {
            let Ok(i) = at.binary_search(&start) else {
                continue;
            };
            let (after, j) = markers(&chars, i);
            if chars.get(j).is_some_and(|c| !c.is_lowercase()) {
                s.starts.extend(after.iter().map(|&k| at[k]));
            }
        }

        // Where a quote may stop short of a sentence end.
        for &end in &s.ends {
            let Ok(mut k) = at.binary_search(&end) else {
                continue;
            };
            s.quote_ends.insert(end);
            // A trailing connective of a sub-paragraph: "…; and".
            for word in ["and", "or"] {
                let n = word.chars().count();
                if k > n
                    && chars[k - n..k].iter().copied().eq(word.chars())
                    && chars[k - n - 1].is_whitespace()
                {
                    let mut b = k - n;
                    while b > 0 && chars[b - 1].is_whitespace() {
                        b -= 1;
                    }
                    k = b;
                    s.quote_ends.insert(at[k]);
                    break;
                }
            }
            // Closing punctuation, then a footnote marker glued to the last word, then
            // closing punctuation again ("nil1.", "benefit2.").
            let closing = |k: &mut usize, s: &mut BTreeSet<usize>| {
                while *k > 0 && is_closing(chars[*k - 1]) {
                    *k -= 1;
                    s.insert(at[*k]);
                }
            };
            closing(&mut k, &mut s.quote_ends);
            let digits = chars[..k]
                .iter()
                .rev()
                .take_while(|c| c.is_ascii_digit())
                .count();
            if (1..=2).contains(&digits) && k > digits && chars[k - digits - 1].is_alphabetic() {
                k -= digits;
                s.quote_ends.insert(at[k]);
                closing(&mut k, &mut s.quote_ends);
            }
        }
        s
    }

    /// Does the span `start..end` (UTF-16) begin and end on sentence bounds?
    pub(crate) fn is_whole(&self, start: usize, end: usize) -> bool {
        self.starts.contains(&start) && self.quote_ends.contains(&end)
    }

    /// The whole sentences the span `start..end` lies in: from the last sentence start at or
    /// before `start` to the first sentence end at or after `end`.
    pub(crate) fn around(&self, start: usize, end: usize) -> (usize, usize) {
        let from = self
            .starts
            .range(..=start)
            .next_back()
            .copied()
            .unwrap_or(0);
        let to = self.ends.range(end..).next().copied().unwrap_or(end);
        (from, to)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_are_numbers_list_numbers_bracketed_letters_and_bullets() {
        let m = |s: &str| marker_len(&s.chars().collect::<Vec<_>>());
        assert_eq!(m("78773 A"), Some(5));
        assert_eq!(m("1. police"), Some(2));
        assert_eq!(m("1.3.a home"), Some(5));
        assert_eq!(m("2.1 trial"), Some(3));
        assert_eq!(m("(1) A"), Some(3));
        assert_eq!(m("(iv) the"), Some(4));
        assert_eq!(m("(A) The"), Some(3));
        assert_eq!(m("• item"), Some(1));
        assert_eq!(m("(see DMG)"), None);
        assert_eq!(m("Members"), None);
        assert_eq!(m("1234567 x"), None);
    }
}
