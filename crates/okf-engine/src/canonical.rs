//! Canonical JSON (spec §4.1) and SHA-256 helpers.
//!
//! Canonical JSON is what ECMAScript `JSON.stringify` writes for the same value, with object
//! keys sorted by UTF-16 code unit and no whitespace. Its byte length equals the length of the
//! compact serialisation in any key order, which is why `budget.used_bytes` can be computed
//! from it.

use serde_json::Value;
use sha2::{Digest, Sha256};
use std::cmp::Ordering;

/// The largest integer that ECMAScript numbers represent exactly (2^53 − 1).
pub const MAX_SAFE_INTEGER: u64 = 9_007_199_254_740_991;

/// A value that cannot be written as canonical JSON without changing its meaning.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CanonicalError {
    /// An integer outside ±(2^53 − 1), which ECMAScript would silently round.
    #[error("number {0} is outside the exactly representable integer range ±(2^53-1)")]
    UnsafeInteger(String),
    /// NaN or an infinity, which JSON cannot carry.
    #[error("number is not finite")]
    NonFiniteNumber,
}

/// Somewhere canonical JSON can be written: a growing string, or a byte counter.
pub trait Sink {
    /// Appends raw, already-valid JSON text.
    fn raw(&mut self, text: &str);
    /// Appends one ASCII byte.
    fn byte(&mut self, b: u8);
}

impl Sink for String {
    fn raw(&mut self, text: &str) {
        self.push_str(text);
    }
    fn byte(&mut self, b: u8) {
        self.push(char::from(b));
    }
}

/// A sink that only counts UTF-8 bytes; used to size packages without building them.
#[derive(Debug, Default, Clone, Copy)]
pub struct ByteCounter(pub usize);

impl Sink for ByteCounter {
    fn raw(&mut self, text: &str) {
        self.0 += text.len();
    }
    fn byte(&mut self, _b: u8) {
        self.0 += 1;
    }
}

/// A sink that feeds SHA-256 directly, so identity needs no package-sized buffer. Small writes
/// are batched because the hasher's per-call overhead dominates for one-byte updates.
#[derive(Debug, Clone)]
pub struct HashSink {
    hasher: Sha256,
    buffer: Vec<u8>,
    len: usize,
}

const HASH_BATCH: usize = 16 * 1024;

impl Default for HashSink {
    fn default() -> Self {
        HashSink {
            hasher: Sha256::new(),
            buffer: Vec::with_capacity(HASH_BATCH),
            len: 0,
        }
    }
}

impl HashSink {
    /// Finishes the digest: lowercase hex and the number of bytes hashed.
    pub fn finish(mut self) -> (String, usize) {
        self.hasher.update(&self.buffer);
        (hex_lower(&self.hasher.finalize()), self.len)
    }

    fn flush(&mut self) {
        self.hasher.update(&self.buffer);
        self.buffer.clear();
    }
}

impl Sink for HashSink {
    fn raw(&mut self, text: &str) {
        self.len += text.len();
        if self.buffer.len() + text.len() > HASH_BATCH {
            self.flush();
            if text.len() > HASH_BATCH {
                self.hasher.update(text.as_bytes());
                return;
            }
        }
        self.buffer.extend_from_slice(text.as_bytes());
    }
    fn byte(&mut self, b: u8) {
        self.len += 1;
        if self.buffer.len() == HASH_BATCH {
            self.flush();
        }
        self.buffer.push(b);
    }
}

/// Writes a JSON string literal exactly as `JSON.stringify` does: only `"`, `\` and
/// U+0000–U+001F are escaped; everything else is raw UTF-8.
pub fn write_str<S: Sink + ?Sized>(out: &mut S, s: &str) {
    out.byte(b'"');
    let bytes = s.as_bytes();
    // Most strings need no escaping; a branch-free scan lets the compiler vectorise the check.
    let needs_escape = bytes.iter().fold(false, |acc, &b| {
        acc | (b < 0x20) | (b == b'"') | (b == b'\\')
    });
    if !needs_escape {
        out.raw(s);
        out.byte(b'"');
        return;
    }
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let short = match b {
            b'"' => Some("\\\""),
            b'\\' => Some("\\\\"),
            0x08 => Some("\\b"),
            0x0c => Some("\\f"),
            b'\n' => Some("\\n"),
            b'\r' => Some("\\r"),
            b'\t' => Some("\\t"),
            0x00..=0x1f => None,
            _ => continue,
        };
        if start < i {
            out.raw(&s[start..i]);
        }
        match short {
            Some(esc) => out.raw(esc),
            None => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                out.raw("\\u00");
                out.byte(HEX[usize::from(b >> 4)]);
                out.byte(HEX[usize::from(b & 0xf)]);
            }
        }
        start = i + 1;
    }
    if start < bytes.len() {
        out.raw(&s[start..]);
    }
    out.byte(b'"');
}

/// Writes a JSON array of strings.
pub fn write_strs<S: Sink + ?Sized, T: AsRef<str>>(
    out: &mut S,
    items: impl IntoIterator<Item = T>,
) {
    out.byte(b'[');
    for (i, s) in items.into_iter().enumerate() {
        if i > 0 {
            out.byte(b',');
        }
        write_str(out, s.as_ref());
    }
    out.byte(b']');
}

/// Writes an unsigned integer.
pub fn write_u64<S: Sink + ?Sized>(out: &mut S, n: u64) {
    let mut buf = [0u8; 20];
    let mut i = buf.len();
    let mut v = n;
    loop {
        i -= 1;
        // `v % 10` is below 10, so the cast cannot truncate.
        buf[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    for &b in &buf[i..] {
        out.byte(b);
    }
}

/// Compares two strings by UTF-16 code units (the default JavaScript sort order).
pub fn cmp_utf16(a: &str, b: &str) -> Ordering {
    // Code-point order equals UTF-16 order except that U+E000..=U+FFFF sort after
    // supplementary characters in UTF-16; only strings with such characters need the slow path.
    let mut ai = a.encode_utf16();
    let mut bi = b.encode_utf16();
    if a.is_ascii() || b.is_ascii() {
        return a.as_bytes().cmp(b.as_bytes());
    }
    loop {
        match (ai.next(), bi.next()) {
            (None, None) => return Ordering::Equal,
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (Some(x), Some(y)) => match x.cmp(&y) {
                Ordering::Equal => {}
                other => return other,
            },
        }
    }
}

/// Writes any JSON value canonically.
pub fn write_value<S: Sink + ?Sized>(out: &mut S, value: &Value) -> Result<(), CanonicalError> {
    match value {
        Value::Null => out.raw("null"),
        Value::Bool(true) => out.raw("true"),
        Value::Bool(false) => out.raw("false"),
        Value::Number(n) => write_number(out, n)?,
        Value::String(s) => write_str(out, s),
        Value::Array(items) => {
            out.byte(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.byte(b',');
                }
                write_value(out, item)?;
            }
            out.byte(b']');
        }
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_by(|a, b| cmp_utf16(a.0, b.0));
            out.byte(b'{');
            for (i, (k, v)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.byte(b',');
                }
                write_str(out, k);
                out.byte(b':');
                write_value(out, v)?;
            }
            out.byte(b'}');
        }
    }
    Ok(())
}

fn write_number<S: Sink + ?Sized>(
    out: &mut S,
    n: &serde_json::Number,
) -> Result<(), CanonicalError> {
    if let Some(u) = n.as_u64() {
        if u > MAX_SAFE_INTEGER {
            return Err(CanonicalError::UnsafeInteger(n.to_string()));
        }
        write_u64(out, u);
    } else if let Some(i) = n.as_i64() {
        if i.unsigned_abs() > MAX_SAFE_INTEGER {
            return Err(CanonicalError::UnsafeInteger(n.to_string()));
        }
        out.byte(b'-');
        write_u64(out, i.unsigned_abs());
    } else if let Some(f) = n.as_f64() {
        if !f.is_finite() {
            return Err(CanonicalError::NonFiniteNumber);
        }
        // Declared constants such as BM25's k1 = 1.2 are formatted the ECMAScript way;
        // nothing computed by the engine is a float.
        let mut buf = ryu_js::Buffer::new();
        out.raw(buf.format_finite(f));
    }
    Ok(())
}

/// Canonical JSON of a value as a string.
pub fn to_canonical_string(value: &Value) -> Result<String, CanonicalError> {
    let mut out = String::new();
    write_value(&mut out, value)?;
    Ok(out)
}

/// Lowercase hex SHA-256 of some bytes.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex_lower(&Sha256::digest(bytes))
}

/// Lowercase hex of a byte slice.
pub fn hex_lower(bytes: &[u8]) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for &b in bytes {
        s.push(char::from(HEX[usize::from(b >> 4)]));
        s.push(char::from(HEX[usize::from(b & 0xf)]));
    }
    s
}

/// True when `s` is exactly 64 lowercase hex characters.
pub fn is_hex64(s: &str) -> bool {
    s.len() == 64
        && s.bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn strings_escape_like_json_stringify() {
        let mut s = String::new();
        write_str(
            &mut s,
            "a\"b\\c\u{8}\u{c}\n\r\t\u{0}\u{1f}\u{7f}é/\u{2028}😀",
        );
        assert_eq!(
            s,
            "\"a\\\"b\\\\c\\b\\f\\n\\r\\t\\u0000\\u001f\u{7f}é/\u{2028}😀\""
        );
    }

    #[test]
    fn keys_sort_by_utf16_code_unit() {
        let v = json!({"\u{20ac}":1,"\r":2,"😀":3,"\u{fb33}":4,"1":5,"a":6});
        assert_eq!(
            to_canonical_string(&v).unwrap_or_default(),
            "{\"\\r\":2,\"1\":5,\"a\":6,\"€\":1,\"😀\":3,\"\u{fb33}\":4}"
        );
    }

    #[test]
    fn numbers_follow_ecmascript() {
        let v: Value = serde_json::from_str("[0,-3,1.2,0.75,1000000,1e21,8.0]").unwrap_or_default();
        assert_eq!(
            to_canonical_string(&v).unwrap_or_default(),
            "[0,-3,1.2,0.75,1000000,1e+21,8]"
        );
        let big: Value = serde_json::from_str("9007199254740993").unwrap_or_default();
        assert!(matches!(
            to_canonical_string(&big),
            Err(CanonicalError::UnsafeInteger(_))
        ));
    }

    #[test]
    fn byte_counter_matches_string_length() {
        let v = json!({"b":[1,"x\u{0}y",{"z":null}],"a":"漢字"});
        let mut c = ByteCounter::default();
        write_value(&mut c, &v).unwrap_or_default();
        assert_eq!(c.0, to_canonical_string(&v).unwrap_or_default().len());
    }

    #[test]
    fn sha256_of_empty_string() {
        assert_eq!(
            sha256_hex(b""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }
}
