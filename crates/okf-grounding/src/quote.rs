//! Finding a quote in a record's text: the one matching rule of the check.

/// The shortest quote that can ground a claim, in characters (code points) once leading and
/// trailing white space is trimmed and every other run of white space is one space: shorter
/// text matches by chance, and padding does not count.
pub const MIN_QUOTE_CHARS: usize = 20;

/// Where a quote was found: UTF-16 offsets into the record's original text, `start` inclusive,
/// `end` exclusive (the units the package's `record_text` slices count in).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QuoteMatch {
    /// First code unit of the match.
    pub start: usize,
    /// One past its last code unit.
    pub end: usize,
}

/// `text` with every run of white space (Unicode `White_Space`) replaced by one space, and for
/// each byte of the result the UTF-16 span of the original text it stands for.
pub(crate) fn collapsed(text: &str) -> (String, Vec<(usize, usize)>) {
    let mut out = String::with_capacity(text.len());
    let mut spans: Vec<(usize, usize)> = Vec::with_capacity(text.len());
    let mut unit = 0;
    let mut in_space = false;
    for c in text.chars() {
        let width = c.len_utf16();
        if c.is_whitespace() {
            if in_space {
                // Widen the span of the space already written.
                if let Some(last) = spans.last_mut() {
                    last.1 = unit + width;
                }
            } else {
                out.push(' ');
                spans.push((unit, unit + width));
            }
            in_space = true;
        } else {
            let mut buf = [0u8; 4];
            for _ in 0..c.encode_utf8(&mut buf).len() {
                spans.push((unit, unit + width));
            }
            out.push(c);
            in_space = false;
        }
        unit += width;
    }
    (out, spans)
}

/// The first place `quote` occurs in `text` once white space is collapsed on both sides, or
/// `None`. An empty quote is never found.
pub fn find_quote(text: &str, quote: &str) -> Option<QuoteMatch> {
    find_all(text, quote).into_iter().next()
}

/// Every place `quote` occurs in `text` once white space is collapsed on both sides, in text
/// order (overlapping places too). An empty quote is never found.
pub(crate) fn find_all(text: &str, quote: &str) -> Vec<QuoteMatch> {
    let (needle, _) = collapsed(quote);
    if needle.is_empty() {
        return Vec::new();
    }
    let (hay, spans) = collapsed(text);
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(at) = hay.get(from..).and_then(|rest| rest.find(&needle)) {
        let at = from + at;
        if let (Some(first), Some(last)) = (spans.get(at), spans.get(at + needle.len() - 1)) {
            found.push(QuoteMatch {
                start: first.0,
                end: last.1,
            });
        }
        // The next char boundary after `at`.
        from = at
            + hay
                .get(at..)
                .and_then(|r| r.chars().next())
                .map_or(1, char::len_utf8);
    }
    found
}

/// The length of `quote` in characters once trimmed and its white space collapsed: padding
/// does not count.
pub(crate) fn quote_chars(quote: &str) -> usize {
    collapsed(quote.trim()).0.chars().count()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn white_space_runs_match_one_space_and_offsets_count_utf16_units() {
        let text = "Line one\n\n   of the 😀 text  ends here.";
        let m = find_quote(text, "one of the 😀 text ends").unwrap();
        let units: Vec<u16> = text.encode_utf16().collect();
        let found = String::from_utf16(&units[m.start..m.end]).unwrap();
        assert_eq!(found, "one\n\n   of the 😀 text  ends");
        assert_eq!(find_quote(text, "one of the 😀 text  ends"), Some(m));
        // Nothing else is normalised: case and punctuation must match.
        assert_eq!(find_quote(text, "One of the"), None);
        // The first white space of the text is the one between "Line" and "one".
        assert_eq!(
            find_quote(text, "   "),
            Some(QuoteMatch { start: 4, end: 5 })
        );
        assert_eq!(find_quote(text, ""), None);
    }
}
