//! DMG paragraph numbers in page text, shared by `okf lint` (gap-held-in-index,
//! uncited-cross-reference) and `okf build --base` (a profile gap the base holds), so the
//! check and the build step can never disagree about which paragraphs a page holds.

use std::collections::BTreeSet;

/// Five ASCII digits at the start of `s`, not followed by a sixth.
pub fn five_digits(s: &str) -> Option<u32> {
    let b = s.as_bytes();
    if b.len() < 5
        || !b[..5].iter().all(u8::is_ascii_digit)
        || b.get(5).is_some_and(u8::is_ascii_digit)
    {
        return None;
    }
    s[..5].parse().ok()
}

/// The DMG paragraphs a text holds: a line that starts (after indentation) with a five-digit
/// number followed by nothing, a capital letter or `[` (so "24003 - 24006", a spare range,
/// and a wrapped "78030 et seq" are not paragraphs).
pub fn paragraphs_held(text: &str) -> BTreeSet<u32> {
    text.lines()
        .filter_map(|line| {
            let line = line.trim_start();
            let n = five_digits(line)?;
            let rest = line[5..].trim_start();
            let starts = rest
                .chars()
                .next()
                .is_none_or(|c| c.is_ascii_uppercase() || c == '[');
            starts.then_some(n)
        })
        .collect()
}
