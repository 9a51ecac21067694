//! UTF-16 positions over a Rust string: where each code unit starts in UTF-8, and how many bytes
//! the text takes once escaped inside a JSON string, so a slice's response size is known
//! without writing it.

/// Marks a position between the two halves of a surrogate pair.
const INSIDE_PAIR: u32 = u32::MAX;

/// Per-UTF-16-position byte offsets and escaped-length prefix sums of one text.
#[derive(Debug)]
pub(crate) struct Utf16Index {
    /// `byte_at[i]`: UTF-8 offset of UTF-16 position `i` (`INSIDE_PAIR` inside a pair).
    byte_at: Vec<u32>,
    /// `escaped_at[i]`: bytes of `text[..i]` escaped as JSON string content.
    escaped_at: Vec<u32>,
}

/// Bytes a character takes inside a JSON string literal (spec §4.1 escaping).
fn escaped_len(c: char) -> u32 {
    match c {
        '"' | '\\' | '\u{08}' | '\u{0c}' | '\n' | '\r' | '\t' => 2,
        '\u{00}'..='\u{1f}' => 6,
        // A char is at most 4 bytes long.
        _ => c.len_utf8() as u32,
    }
}

impl Utf16Index {
    /// Indexes `text`, which callers keep below 4 GiB (packages are at most 512 KiB).
    pub(crate) fn new(text: &str) -> Self {
        let units = text.encode_utf16().count();
        let mut byte_at = Vec::with_capacity(units + 1);
        let mut escaped_at = Vec::with_capacity(units + 1);
        let mut escaped = 0u32;
        for (byte, c) in text.char_indices() {
            byte_at.push(byte as u32);
            escaped_at.push(escaped);
            if c.len_utf16() == 2 {
                byte_at.push(INSIDE_PAIR);
                escaped_at.push(escaped);
            }
            escaped += escaped_len(c);
        }
        byte_at.push(text.len() as u32);
        escaped_at.push(escaped);
        Utf16Index {
            byte_at,
            escaped_at,
        }
    }

    /// Length in UTF-16 code units.
    pub(crate) fn len(&self) -> u64 {
        (self.byte_at.len() - 1) as u64
    }

    /// Whether a position falls inside a surrogate pair.
    pub(crate) fn splits_pair(&self, pos: u64) -> bool {
        self.byte_at.get(pos as usize) == Some(&INSIDE_PAIR)
    }

    /// Escaped JSON length of the slice `[start, end)`.
    pub(crate) fn escaped_len(&self, start: u64, end: u64) -> u64 {
        u64::from(self.escaped_at[end as usize] - self.escaped_at[start as usize])
    }

    /// The slice `[start, end)` of the indexed `text`; both ends must be character boundaries.
    pub(crate) fn slice<'t>(&self, text: &'t str, start: u64, end: u64) -> &'t str {
        let from = self.byte_at[start as usize] as usize;
        let to = self.byte_at[end as usize] as usize;
        &text[from..to]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_count_utf16_units_and_mark_pairs() {
        let text = "a💷\"é";
        let t = Utf16Index::new(text);
        assert_eq!(t.len(), 5);
        assert!(t.splits_pair(2));
        assert!(!t.splits_pair(1) && !t.splits_pair(3));
        assert_eq!(t.slice(text, 1, 3), "💷");
        assert_eq!(t.escaped_len(0, 5), 1 + 4 + 2 + 2);
        assert_eq!(t.escaped_len(3, 4), 2);
    }
}
