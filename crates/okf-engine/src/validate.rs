//! Value rules of the producer index (spec §2) and the lenient format checks of §2.3.
//!
//! Shape (types, closed objects, enums) is already enforced by serde in [`crate::model`]; this
//! module checks what serde cannot: identifier forms, lengths, counts, uniqueness, directed-path
//! shape, guards and evidence-unit tiling. The first failure is returned, naming its JSON path.

use crate::canonical::{MAX_SAFE_INTEGER, is_hex64};
use crate::error::{Error, IndexRule, UnitRule};
use crate::model::{
    Access, Assertion, Authority, EvidenceUnit, IndexDocument, Provenance, Record, RecordKind,
    Requirement,
};
use std::collections::HashSet;

/// Largest compact serialisation of an index (8 MiB).
pub const MAX_INDEX_BYTES: usize = 8 * 1024 * 1024;
/// Largest number of records.
pub const MAX_RECORDS: usize = 10_000;
/// Largest number of assertions.
pub const MAX_ASSERTIONS: usize = 30_000;
/// Largest number of requirements.
pub const MAX_REQUIREMENTS: usize = 500;

/// Length of a string as ECMAScript counts it (UTF-16 code units).
pub fn utf16_len(s: &str) -> usize {
    if s.is_ascii() {
        s.len()
    } else {
        s.encode_utf16().count()
    }
}

/// True for an IRI: an ASCII letter, then letters, digits, `+`, `.` or `-`, then `:`, then one
/// or more characters that are not whitespace, `<`, `>`, `"`, `'`, backtick or backslash.
pub fn is_iri(s: &str) -> bool {
    let Some(colon) = s.find(':') else {
        return false;
    };
    let (scheme, rest) = (&s[..colon], &s[colon + 1..]);
    let mut sb = scheme.bytes();
    match sb.next() {
        Some(b) if b.is_ascii_alphabetic() => {}
        _ => return false,
    }
    if !sb.all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'.' | b'-')) {
        return false;
    }
    !rest.is_empty()
        && rest
            .chars()
            .all(|c| !is_js_whitespace(c) && !matches!(c, '<' | '>' | '"' | '\'' | '`' | '\\'))
}

/// Whitespace as ECMAScript's `\s` sees it.
fn is_js_whitespace(c: char) -> bool {
    // Unicode White_Space, minus U+0085 (not in ECMAScript's set), plus the BOM (which is).
    (c.is_whitespace() && c != '\u{85}') || c == '\u{feff}'
}

/// The strict HTTP URL check of spec §2.3.
///
/// This is a hand-written subset of WHATWG URL parsing: it accepts only `http://` and
/// `https://` URLs with a non-empty host, no credentials, a port in 1..=65535 when one is
/// given, well-formed `%` escapes and none of the characters the reference forbids.
pub fn is_http_url(s: &str) -> bool {
    // Compare bytes: slicing the str at the prefix length could split a character.
    let rest = if let Some(rest) = strip_prefix_ignore_ascii_case(s, "https://") {
        rest
    } else if let Some(rest) = strip_prefix_ignore_ascii_case(s, "http://") {
        rest
    } else {
        return false;
    };
    if s.chars().any(|c| {
        is_js_whitespace(c)
            || c.is_control()
            || matches!(
                c,
                '<' | '>' | '"' | '\'' | '`' | '\\' | '^' | '{' | '}' | '|'
            )
    }) {
        return false;
    }
    let bytes = s.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        if b == b'%'
            && !(bytes.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
                && bytes.get(i + 2).is_some_and(u8::is_ascii_hexdigit))
        {
            return false;
        }
    }
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let authority = &rest[..authority_end];
    let host_port = match authority.rfind('@') {
        Some(at) => {
            let userinfo = &authority[..at];
            if userinfo.split(':').any(|part| !part.is_empty()) {
                return false;
            }
            &authority[at + 1..]
        }
        None => authority,
    };
    let (host, port) = if let Some(stripped) = host_port.strip_prefix('[') {
        let Some(close) = stripped.find(']') else {
            return false;
        };
        let inner = &stripped[..close];
        if inner.is_empty()
            || !inner
                .chars()
                .all(|c| c.is_ascii_hexdigit() || c == ':' || c == '.')
        {
            return false;
        }
        let after = &stripped[close + 1..];
        match after.strip_prefix(':') {
            Some(p) => (&host_port[..close + 2], Some(p)),
            None if after.is_empty() => (host_port, None),
            None => return false,
        }
    } else {
        match host_port.rfind(':') {
            Some(c) => (&host_port[..c], Some(&host_port[c + 1..])),
            None => (host_port, None),
        }
    };
    if host.is_empty() || host.contains(['%', '@', ':', '[', ']']) && !host.starts_with('[') {
        return false;
    }
    if !host.starts_with('[') && !valid_ipv4_if_numeric(host) {
        return false;
    }
    if let Some(p) = port.filter(|p| !p.is_empty()) {
        let digits = p.trim_start_matches('0');
        if !p.bytes().all(|b| b.is_ascii_digit())
            || digits.is_empty()
            || digits.len() > 5
            || digits.parse::<u32>().map_or(true, |n| n > 65_535)
        {
            return false;
        }
    }
    true
}

/// `s` without an ASCII `prefix` matched case-insensitively, or `None`.
fn strip_prefix_ignore_ascii_case<'s>(s: &'s str, prefix: &str) -> Option<&'s str> {
    let head = s.as_bytes().get(..prefix.len())?;
    // The prefix is ASCII, so a match ends on a character boundary.
    head.eq_ignore_ascii_case(prefix.as_bytes())
        .then(|| s.get(prefix.len()..))
        .flatten()
}

/// WHATWG treats a host whose last label is numeric as IPv4; such hosts must parse.
fn valid_ipv4_if_numeric(host: &str) -> bool {
    let host = host.strip_suffix('.').unwrap_or(host);
    let parts: Vec<&str> = host.split('.').collect();
    let last = parts.last().copied().unwrap_or("");
    let numeric = |p: &str| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit());
    if !numeric(last) {
        return true;
    }
    if parts.len() > 4 || !parts.iter().all(|p| numeric(p)) {
        return false;
    }
    let n = parts.len();
    parts.iter().enumerate().all(|(i, p)| {
        let v = p.parse::<u64>().unwrap_or(u64::MAX);
        if i + 1 < n {
            v <= 255
        } else {
            v < 256u64.pow(u32::try_from(5 - n).unwrap_or(4))
        }
    })
}

/// The decimal number written by `bytes[range]` if every byte there is an ASCII digit
/// (and the range is in bounds); shared by the date and timestamp checks.
pub fn ascii_number(bytes: &[u8], range: std::ops::Range<usize>) -> Option<u32> {
    let part = bytes.get(range)?;
    if part.is_empty() || !part.iter().all(u8::is_ascii_digit) {
        return None;
    }
    std::str::from_utf8(part).ok()?.parse().ok()
}

/// The timestamp check of spec §2.3: `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)` on a real
/// calendar date.
pub fn is_timestamp(s: &str) -> bool {
    let b = s.as_bytes();
    let digits = |r: std::ops::Range<usize>| ascii_number(b, r);
    if b.len() < 20
        || b[4] != b'-'
        || b[7] != b'-'
        || b[10] != b'T'
        || b[13] != b':'
        || b[16] != b':'
    {
        return false;
    }
    let (Some(year), Some(month), Some(day), Some(hour), Some(minute), Some(second)) = (
        digits(0..4),
        digits(5..7),
        digits(8..10),
        digits(11..13),
        digits(14..16),
        digits(17..19),
    ) else {
        return false;
    };
    if !(1..=12).contains(&month) || hour > 23 || minute > 59 || second > 59 {
        return false;
    }
    let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    let days = [
        31,
        if leap { 29 } else { 28 },
        31,
        30,
        31,
        30,
        31,
        31,
        30,
        31,
        30,
        31,
    ];
    if day == 0 || day > days[(month - 1) as usize] {
        return false;
    }
    let mut i = 19;
    if b.get(i) == Some(&b'.') {
        let start = i + 1;
        i = start;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        if i == start {
            return false;
        }
    }
    is_utc_offset_suffix(b, i)
}

/// True when `bytes[at..]` is exactly a UTC offset: `Z` or `±HH:MM` (hours 00–23, minutes
/// 00–59); shared by the timestamp and date checks.
pub fn is_utc_offset_suffix(bytes: &[u8], at: usize) -> bool {
    match bytes.get(at) {
        Some(b'Z') => at + 1 == bytes.len(),
        Some(b'+' | b'-') => {
            at + 6 == bytes.len()
                && bytes[at + 3] == b':'
                && ascii_number(bytes, at + 1..at + 3).is_some_and(|h| h <= 23)
                && ascii_number(bytes, at + 4..at + 6).is_some_and(|m| m <= 59)
        }
        _ => false,
    }
}

/// True for a safe route: `[a-z][a-z0-9-]*` followed by one or more `/[A-Za-z0-9._~-]+`.
pub fn is_safe_route(s: &str) -> bool {
    let mut parts = s.split('/');
    let first = parts.next().unwrap_or("");
    let mut fb = first.bytes();
    if !fb.next().is_some_and(|b| b.is_ascii_lowercase())
        || !fb.all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
    {
        return false;
    }
    let mut count = 0;
    for seg in parts {
        if seg.is_empty()
            || !seg
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'~' | b'-'))
        {
            return false;
        }
        count += 1;
    }
    count >= 1
}

fn fail(path: impl Into<String>, rule: IndexRule) -> Error {
    Error::Index {
        path: path.into(),
        rule,
    }
}

fn check_len(path: &str, s: &str, max: usize) -> Result<(), Error> {
    if s.len() > max && utf16_len(s) > max {
        Err(fail(path, IndexRule::TooLong { max }))
    } else {
        Ok(())
    }
}

fn check_count<T>(path: &str, items: &[T], min: usize, max: usize) -> Result<(), Error> {
    if items.len() > max {
        Err(fail(path, IndexRule::TooMany { max }))
    } else if items.len() < min {
        Err(fail(path, IndexRule::TooFew { min }))
    } else {
        Ok(())
    }
}

fn check_iri(path: String, s: &str) -> Result<(), Error> {
    if is_iri(s) {
        Ok(())
    } else {
        Err(fail(path, IndexRule::NotIri))
    }
}

fn check_iris(path: &str, items: &[String], min: usize, max: usize) -> Result<(), Error> {
    check_count(path, items, min, max)?;
    for (i, s) in items.iter().enumerate() {
        check_iri(format!("{path}[{i}]"), s)?;
    }
    Ok(())
}

/// Validates an index document against every value rule of spec §2.
///
/// `compact_bytes` is the length of its compact JSON serialisation; `expected_snapshot`, when
/// given, must equal `bundle.snapshot`.
pub fn validate_document(
    doc: &IndexDocument,
    compact_bytes: usize,
    expected_snapshot: Option<&str>,
) -> Result<(), Error> {
    if doc.schema != "okf-context-index.v1" {
        return Err(fail("schema", IndexRule::UnsupportedSchema));
    }
    check_iri("bundle.id".into(), &doc.bundle.id)?;
    if !is_http_url(&doc.bundle.source_url) {
        return Err(fail("bundle.source_url", IndexRule::NotHttpUrl));
    }
    if let Some(expected) = expected_snapshot.filter(|e| doc.bundle.snapshot != *e) {
        return Err(fail(
            "bundle.snapshot",
            IndexRule::SnapshotMismatch {
                expected: expected.to_owned(),
            },
        ));
    }
    check_len("scope", &doc.scope, 8000)?;
    check_count("limitations", &doc.limitations, 0, 100)?;
    for (i, l) in doc.limitations.iter().enumerate() {
        check_len(&format!("limitations[{i}]"), l, 4000)?;
    }
    check_count("records", &doc.records, 0, MAX_RECORDS)?;
    check_count("assertions", &doc.assertions, 0, MAX_ASSERTIONS)?;
    check_count("requirements", &doc.requirements, 0, MAX_REQUIREMENTS)?;
    if compact_bytes > MAX_INDEX_BYTES {
        return Err(fail(
            "",
            IndexRule::IndexTooLarge {
                bytes: compact_bytes,
            },
        ));
    }
    let mut record_ids = HashSet::with_capacity(doc.records.len());
    for (i, r) in doc.records.iter().enumerate() {
        validate_record(&format!("records[{i}]"), r)?;
        if !record_ids.insert(r.id.as_str()) {
            return Err(fail(
                format!("records[{i}].id"),
                IndexRule::DuplicateRecordId,
            ));
        }
    }
    let mut ids = HashSet::with_capacity(doc.assertions.len());
    for (i, a) in doc.assertions.iter().enumerate() {
        validate_assertion(&format!("assertions[{i}]"), a)?;
        if !ids.insert(a.id.as_str()) {
            return Err(fail(
                format!("assertions[{i}].id"),
                IndexRule::DuplicateAssertionId,
            ));
        }
    }
    let mut ids = HashSet::with_capacity(doc.requirements.len());
    for (i, r) in doc.requirements.iter().enumerate() {
        validate_requirement(&format!("requirements[{i}]"), r)?;
        if !ids.insert(r.id.as_str()) {
            return Err(fail(
                format!("requirements[{i}].id"),
                IndexRule::DuplicateRequirementId,
            ));
        }
    }
    validate_gaps_and_regimes(doc, &record_ids)?;
    validate_parts(doc)?;
    validate_reviews(doc)?;
    validate_vocabulary(doc)
}

/// Largest number of neutral words an index may declare.
pub const MAX_NEUTRAL_WORDS: usize = 1000;
/// Longest neutral word, in UTF-16 code units.
pub const MAX_NEUTRAL_WORD_LEN: usize = 64;

/// The additive `vocabulary` (issue 44): closed and typed by serde; here bounded, each word one
/// folded token that is not built-in scaffolding, sorted and unique, so the engine can search
/// it and the canonical JSON has one spelling.
fn validate_vocabulary(doc: &IndexDocument) -> Result<(), Error> {
    let Some(vocabulary) = &doc.vocabulary else {
        return Ok(());
    };
    let words = &vocabulary.neutral;
    check_count("vocabulary.neutral", words, 1, MAX_NEUTRAL_WORDS)?;
    for (i, w) in words.iter().enumerate() {
        let path = format!("vocabulary.neutral[{i}]");
        check_len(&path, w, MAX_NEUTRAL_WORD_LEN)?;
        if crate::text::folded_tokens(w) != [w.as_str()] {
            return Err(fail(path, IndexRule::NotOneFoldedWord));
        }
        if crate::text::is_scaffolding(w) {
            return Err(fail(path, IndexRule::NeutralWordIsScaffolding));
        }
        if i > 0 && crate::canonical::cmp_utf16(&words[i - 1], w) != std::cmp::Ordering::Less {
            return Err(fail(path, IndexRule::VocabularyNotSorted));
        }
    }
    Ok(())
}

/// Largest number of recorded reviews: one per item the index may hold.
pub const MAX_REVIEWS: usize = MAX_RECORDS + MAX_ASSERTIONS + 2 * MAX_REQUIREMENTS;

fn check_not_blank(path: &str, s: &str, max: usize) -> Result<(), Error> {
    if s.trim().is_empty() {
        return Err(fail(path, IndexRule::Blank));
    }
    check_len(path, s, max)
}

/// The additive `reviews` (issue 45): closed and typed by serde; here bounded, each field
/// checked, and sorted by item with one review per item. Whether each review still matches
/// its item is `okf lint`'s business, not a reason to refuse the index.
fn validate_reviews(doc: &IndexDocument) -> Result<(), Error> {
    let Some(reviews) = doc.reviews.as_deref() else {
        return Ok(());
    };
    check_count("reviews", reviews, 1, MAX_REVIEWS)?;
    for (i, r) in reviews.iter().enumerate() {
        let path = format!("reviews[{i}]");
        check_iri(format!("{path}.item"), &r.item)?;
        if i > 0
            && crate::canonical::cmp_utf16(&reviews[i - 1].item, &r.item)
                != std::cmp::Ordering::Less
        {
            return Err(fail(format!("{path}.item"), IndexRule::ReviewsNotSorted));
        }
        for (field, digest) in [
            ("item_sha256", &r.item_sha256),
            ("decision_sha256", &r.decision_sha256),
        ] {
            if !is_hex64(digest) {
                return Err(fail(format!("{path}.{field}"), IndexRule::NotSha256));
            }
        }
        if date_number(&r.date).is_none() {
            return Err(fail(format!("{path}.date"), IndexRule::NotDate));
        }
        check_not_blank(&format!("{path}.reason"), &r.reason, 4000)?;
        check_not_blank(&format!("{path}.reviewer.role"), &r.reviewer.role, 500)?;
        check_not_blank(&format!("{path}.reviewer.id"), &r.reviewer.id, 200)?;
    }
    Ok(())
}

/// The additive `parts` of a composed index: unique ids, and each concept record in at most
/// one part (the narrowing of `parts.rs` needs one part per concept).
/// The ids of the index's concept records.
fn concept_ids(doc: &IndexDocument) -> HashSet<&str> {
    doc.records
        .iter()
        .filter(|r| r.kind == RecordKind::Concept)
        .map(|r| r.id.as_str())
        .collect()
}

fn validate_parts(doc: &IndexDocument) -> Result<(), Error> {
    let Some(parts) = doc.parts.as_deref() else {
        return Ok(());
    };
    check_count("parts", parts, 1, 16)?;
    let concepts = concept_ids(doc);
    let mut ids: HashSet<&str> = HashSet::new();
    let mut placed: HashSet<&str> = HashSet::new();
    for (i, p) in parts.iter().enumerate() {
        let path = format!("parts[{i}]");
        check_iri(format!("{path}.id"), &p.id)?;
        if !ids.insert(p.id.as_str()) {
            return Err(fail(format!("{path}.id"), IndexRule::DuplicateDeclaration));
        }
        check_len(&format!("{path}.label"), &p.label, 500)?;
        if p.index_sha256.as_deref().is_some_and(|d| !is_hex64(d)) {
            return Err(fail(format!("{path}.index_sha256"), IndexRule::NotSha256));
        }
        check_count(&format!("{path}.concepts"), &p.concepts, 0, MAX_RECORDS)?;
        for (j, c) in p.concepts.iter().enumerate() {
            let at = format!("{path}.concepts[{j}]");
            if !concepts.contains(c.as_str()) {
                return Err(fail(at, IndexRule::UnknownPartMember));
            }
            if !placed.insert(c.as_str()) {
                return Err(fail(at, IndexRule::ConceptInTwoParts));
            }
        }
    }
    Ok(())
}

/// A `YYYY-MM-DD` calendar date as the number `YYYYMMDD` (so dates compare as numbers), or
/// `None` when the text is not such a date.
pub fn date_number(s: &str) -> Option<u32> {
    let b = s.as_bytes();
    let digits = |r: std::ops::Range<usize>| -> Option<u32> {
        let part = b.get(r)?;
        part.iter()
            .all(u8::is_ascii_digit)
            .then(|| part.iter().fold(0u32, |n, d| n * 10 + u32::from(d - b'0')))
    };
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let (y, m, d) = (digits(0..4)?, digits(5..7)?, digits(8..10)?);
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let days = match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return None,
    };
    (1..=days).contains(&d).then_some(y * 10000 + m * 100 + d)
}

/// The additive `gaps` and `regimes` declarations (this project's extension). `records`: the
/// (already unique) record ids.
fn validate_gaps_and_regimes(doc: &IndexDocument, records: &HashSet<&str>) -> Result<(), Error> {
    let regimes = doc.regimes.as_deref().unwrap_or_default();
    // Looked up once per regime member: a set, not a scan of every record per member.
    let public_concepts: HashSet<&str> = if regimes.is_empty() {
        HashSet::new()
    } else {
        doc.records
            .iter()
            .filter(|r| r.kind == RecordKind::Concept && r.access == Access::Public)
            .map(|r| r.id.as_str())
            .collect()
    };
    let gaps = doc.gaps.as_deref().unwrap_or_default();
    check_count("gaps", gaps, 0, MAX_REQUIREMENTS)?;
    let mut ids: HashSet<&str> = HashSet::new();
    for (i, g) in gaps.iter().enumerate() {
        let path = format!("gaps[{i}]");
        check_iri(format!("{path}.id"), &g.id)?;
        check_len(&format!("{path}.label"), &g.label, 500)?;
        check_len(&format!("{path}.reason"), &g.reason, 4000)?;
        if records.contains(g.id.as_str()) || !ids.insert(g.id.as_str()) {
            return Err(fail(format!("{path}.id"), IndexRule::DuplicateDeclaration));
        }
    }
    check_count("regimes", regimes, 0, 32)?;
    let mut regime_ids: HashSet<&str> = HashSet::new();
    for (i, r) in regimes.iter().enumerate() {
        let path = format!("regimes[{i}]");
        check_iri(format!("{path}.id"), &r.id)?;
        if !regime_ids.insert(r.id.as_str()) {
            return Err(fail(format!("{path}.id"), IndexRule::DuplicateDeclaration));
        }
        check_len(&format!("{path}.label"), &r.label, 500)?;
        check_count(&format!("{path}.concepts"), &r.concepts, 1, 200)?;
        for (j, c) in r.concepts.iter().enumerate() {
            if !public_concepts.contains(c.as_str()) {
                return Err(fail(
                    format!("{path}.concepts[{j}]"),
                    IndexRule::UnknownRegimeMember,
                ));
            }
        }
        check_count(&format!("{path}.phrases"), &r.phrases, 0, 50)?;
        for (j, p) in r.phrases.iter().enumerate() {
            check_len(&format!("{path}.phrases[{j}]"), p, 500)?;
        }
        for (j, g) in r.absent_evidence.iter().flatten().enumerate() {
            if !ids.contains(g.as_str()) {
                return Err(fail(
                    format!("{path}.absent_evidence[{j}]"),
                    IndexRule::UnknownRegimeMember,
                ));
            }
        }
        for (field, value) in [
            ("valid_from", &r.valid_from),
            ("valid_until", &r.valid_until),
        ] {
            if value.as_deref().is_some_and(|d| date_number(d).is_none()) {
                return Err(fail(format!("{path}.{field}"), IndexRule::NotDate));
            }
        }
    }
    for (i, q) in doc.requirements.iter().enumerate() {
        if q.regime.as_deref().is_some_and(|r| !regime_ids.contains(r)) {
            return Err(fail(
                format!("requirements[{i}].regime"),
                IndexRule::UnknownRegimeMember,
            ));
        }
    }
    // Issue 40: assertions, gaps and parts may name the regime they belong to, and a gap the
    // concepts it is about.
    let named = [
        doc.assertions
            .iter()
            .enumerate()
            .map(|(i, a)| (format!("assertions[{i}].regime"), a.regime.as_deref()))
            .collect::<Vec<_>>(),
        gaps.iter()
            .enumerate()
            .map(|(i, g)| (format!("gaps[{i}].regime"), g.regime.as_deref()))
            .collect(),
        doc.parts
            .iter()
            .flatten()
            .enumerate()
            .map(|(i, p)| (format!("parts[{i}].regime"), p.regime.as_deref()))
            .collect(),
    ];
    for (path, regime) in named.iter().flatten() {
        if regime.is_some_and(|r| !regime_ids.contains(r)) {
            return Err(fail(path.clone(), IndexRule::UnknownRegimeMember));
        }
    }
    let concepts = concept_ids(doc);
    for (i, g) in gaps.iter().enumerate() {
        let Some(list) = g.concepts.as_deref() else {
            continue;
        };
        check_count(&format!("gaps[{i}].concepts"), list, 1, 50)?;
        for (j, c) in list.iter().enumerate() {
            if !concepts.contains(c.as_str()) {
                return Err(fail(
                    format!("gaps[{i}].concepts[{j}]"),
                    IndexRule::UnknownRegimeMember,
                ));
            }
        }
    }
    Ok(())
}

fn validate_governance(
    path: &str,
    authority: &Authority,
    provenance: &[Provenance],
) -> Result<(), Error> {
    check_len(&format!("{path}.authority.class"), &authority.class, 8000)?;
    check_len(&format!("{path}.authority.label"), &authority.label, 8000)?;
    check_len(&format!("{path}.authority.source"), &authority.source, 8000)?;
    check_count(&format!("{path}.provenance"), provenance, 0, 32)?;
    for (i, p) in provenance.iter().enumerate() {
        let base = format!("{path}.provenance[{i}]");
        let fields = [
            ("url", Some(&p.url)),
            ("source_sha256", Some(&p.source_sha256)),
            ("locator", Some(&p.locator)),
            ("captured_at", Some(&p.captured_at)),
            ("source_date", p.source_date.as_ref()),
            ("source_date_kind", p.source_date_kind.as_ref()),
            ("literal_sha256", p.literal_sha256.as_ref()),
        ];
        for (name, value) in fields {
            if let Some(v) = value {
                check_len(&format!("{base}.{name}"), v, 8000)?;
            }
        }
    }
    Ok(())
}

fn validate_record(path: &str, r: &Record) -> Result<(), Error> {
    check_iri(format!("{path}.id"), &r.id)?;
    if !is_safe_route(&r.route) {
        return Err(fail(format!("{path}.route"), IndexRule::UnsafeRoute));
    }
    if r.label.is_empty() {
        return Err(fail(
            format!("{path}.label"),
            IndexRule::TooShort { min: 1 },
        ));
    }
    check_len(&format!("{path}.label"), &r.label, 500)?;
    check_len(&format!("{path}.text"), &r.text, 100_000)?;
    validate_governance(path, &r.authority, &r.provenance)?;
    if let Some(aliases) = &r.aliases {
        check_count(&format!("{path}.aliases"), aliases, 0, 100)?;
        for (i, a) in aliases.iter().enumerate() {
            check_len(&format!("{path}.aliases[{i}]"), a.text(), 500)?;
        }
    }
    if let Some(conflicts) = &r.conflicts_with {
        check_iris(&format!("{path}.conflicts_with"), conflicts, 0, 100)?;
    }
    if let Some(unit) = &r.evidence_unit {
        if r.kind != RecordKind::Evidence {
            return Err(fail(
                format!("{path}.evidence_unit"),
                IndexRule::UnitOnNonEvidence,
            ));
        }
        validate_unit(
            &format!("{path}.evidence_unit"),
            unit,
            &r.text,
            &r.provenance,
        )?;
    }
    Ok(())
}

fn validate_assertion(path: &str, a: &Assertion) -> Result<(), Error> {
    check_iri(format!("{path}.id"), &a.id)?;
    check_iri(format!("{path}.source"), &a.source)?;
    check_iri(format!("{path}.target"), &a.target)?;
    check_iri(format!("{path}.predicate"), &a.predicate)?;
    validate_governance(path, &a.authority, &a.provenance)?;
    if let Some(original) = &a.original_assertion_id {
        check_iri(format!("{path}.original_assertion_id"), original)?;
    }
    if let Some(guard) = &a.context_guard {
        let gpath = format!("{path}.context_guard.when_all");
        check_iris(&gpath, &guard.when_all, 1, 8)?;
        let mut seen = HashSet::new();
        for (i, id) in guard.when_all.iter().enumerate() {
            if !seen.insert(id.as_str()) {
                return Err(fail(
                    format!("{gpath}[{i}]"),
                    IndexRule::DuplicateGuardConcept,
                ));
            }
        }
    }
    Ok(())
}

fn validate_requirement(path: &str, r: &Requirement) -> Result<(), Error> {
    check_iri(format!("{path}.id"), &r.id)?;
    check_iris(&format!("{path}.when_all"), &r.when_all, 1, 100)?;
    check_iris(&format!("{path}.required"), &r.required, 1, 200)?;
    if let Some(covers) = &r.covers {
        check_iris(&format!("{path}.covers"), covers, 0, 200)?;
    }
    if let Some(paths) = &r.required_paths {
        check_count(&format!("{path}.required_paths"), paths, 0, 100)?;
        for (i, p) in paths.iter().enumerate() {
            let ppath = format!("{path}.required_paths[{i}]");
            check_iri(format!("{ppath}.seed"), &p.seed)?;
            for (j, a) in p.assertions.iter().enumerate() {
                check_iri(format!("{ppath}.assertions[{j}]"), a)?;
            }
            for (j, rec) in p.records.iter().enumerate() {
                check_iri(format!("{ppath}.records[{j}]"), rec)?;
            }
            let hops = p.assertions.len();
            if !(1..=8).contains(&hops)
                || p.records.len() != hops + 1
                || p.records.first() != Some(&p.seed)
            {
                return Err(fail(ppath, IndexRule::InvalidDirectedPath));
            }
        }
    }
    if let Some(limitations) = &r.limitations {
        check_count(&format!("{path}.limitations"), limitations, 0, 100)?;
    }
    Ok(())
}

const UNIT_KINDS: [&str; 9] = [
    "section",
    "paragraph",
    "table",
    "definition",
    "exception",
    "cross-reference",
    "compound",
    "unresolved-fragment",
    "page-fallback",
];
const MAX_SOURCE_TEXT_BYTES: u64 = 16 * 1024 * 1024;

/// Validates evidence-unit metadata against its record text and provenance (spec §1.4).
// Long because it is spec §1.4's list of rules in the spec's order, a few lines each; the
// first rule broken is the error, so the order is the behaviour.
pub fn validate_unit(
    path: &str,
    unit: &EvidenceUnit,
    text: &str,
    provenance: &[Provenance],
) -> Result<(), Error> {
    let bad = |p: String, rule: UnitRule| Error::EvidenceUnit { path: p, rule };
    if unit.schema != "okf-evidence-unit.v1" || !UNIT_KINDS.contains(&unit.kind.as_str()) {
        return Err(bad(path.to_owned(), UnitRule::UnsupportedSchemaOrKind));
    }
    if !matches!(
        unit.boundary_status.as_str(),
        "machine-detected" | "author-declared"
    ) {
        return Err(bad(
            format!("{path}.boundary_status"),
            UnitRule::BadBoundaryStatus,
        ));
    }
    if !matches!(
        unit.completeness.as_str(),
        "complete-within-declared-boundary" | "unresolved" | "fallback"
    ) {
        return Err(bad(
            format!("{path}.completeness"),
            UnitRule::BadCompleteness,
        ));
    }
    if unit.kind == "unresolved-fragment" && unit.completeness != "unresolved" {
        return Err(bad(
            format!("{path}.completeness"),
            UnitRule::UnresolvedFragmentClaimsCompleteness,
        ));
    }
    if unit.kind == "page-fallback" && unit.completeness != "fallback" {
        return Err(bad(
            format!("{path}.completeness"),
            UnitRule::FallbackClaimsCompleteness,
        ));
    }
    if unit.offset_unit != "utf-8-bytes" || !matches!(unit.joiner.as_str(), "" | "\n" | "\n\n") {
        return Err(bad(path.to_owned(), UnitRule::BadOffsetConventionOrJoiner));
    }
    if unit.spans.is_empty() || unit.spans.len() > 32 {
        return Err(bad(format!("{path}.spans"), UnitRule::BadSpanCount));
    }
    let text_len = text.len() as u64;
    let joiner = unit.joiner.as_bytes();
    // Per source selector: (source_text_sha256, source_text_bytes, last source_end).
    let mut selectors: Vec<([&str; 5], &str, u64, u64)> = Vec::new();
    let mut previous_end: Option<u64> = None;
    for (i, s) in unit.spans.iter().enumerate() {
        let sp = format!("{path}.spans[{i}]");
        for (name, url) in [
            ("source_url", &s.source_url),
            ("extraction_url", &s.extraction_url),
        ] {
            if url.len() > 8000 || !is_http_url(url) {
                return Err(bad(format!("{sp}.{name}"), UnitRule::UnsafeUrl));
            }
        }
        for (name, digest) in [
            ("source_sha256", &s.source_sha256),
            ("extraction_sha256", &s.extraction_sha256),
            ("source_text_sha256", &s.source_text_sha256),
            ("literal_sha256", &s.literal_sha256),
        ] {
            if !is_hex64(digest) {
                return Err(bad(format!("{sp}.{name}"), UnitRule::BadDigest));
            }
        }
        if s.locator.is_empty() || utf16_len(&s.locator) > 8000 {
            return Err(bad(format!("{sp}.locator"), UnitRule::BadLocator));
        }
        let offsets = [
            s.source_text_bytes,
            s.source_start,
            s.source_end,
            s.unit_start,
            s.unit_end,
        ];
        if offsets.iter().any(|&n| n > MAX_SAFE_INTEGER)
            || s.source_text_bytes > MAX_SOURCE_TEXT_BYTES
        {
            return Err(bad(sp, UnitRule::BadOffsets));
        }
        if s.source_end > s.source_text_bytes
            || s.source_start >= s.source_end
            || s.unit_start >= s.unit_end
            || s.unit_end > text_len
            || s.source_end - s.source_start != s.unit_end - s.unit_start
        {
            return Err(bad(sp, UnitRule::BadBoundsOrLengths));
        }
        let expected_start = match previous_end {
            None => 0,
            Some(end) => end + joiner.len() as u64,
        };
        if s.unit_start != expected_start {
            return Err(bad(format!("{sp}.unit_start"), UnitRule::GapOrOverlap));
        }
        // Offsets are within the text (checked above), so they fit in usize.
        let (start, end) = (
            usize::try_from(s.unit_start).unwrap_or(usize::MAX),
            usize::try_from(s.unit_end).unwrap_or(usize::MAX),
        );
        if let Some(prev) = previous_end {
            let prev = usize::try_from(prev).unwrap_or(usize::MAX);
            if text.as_bytes().get(prev..start) != Some(joiner) {
                return Err(bad(format!("{sp}.unit_start"), UnitRule::GapOrOverlap));
            }
        }
        if !text.is_char_boundary(start) || !text.is_char_boundary(end) {
            return Err(bad(sp, UnitRule::SplitsCharacter));
        }
        let key = [
            s.source_url.as_str(),
            s.source_sha256.as_str(),
            s.extraction_url.as_str(),
            s.extraction_sha256.as_str(),
            s.locator.as_str(),
        ];
        if let Some(entry) = selectors.iter_mut().find(|e| e.0 == key) {
            if entry.1 != s.source_text_sha256 || entry.2 != s.source_text_bytes {
                return Err(bad(sp, UnitRule::ConflictingTextIdentity));
            }
            if s.source_start < entry.3 {
                return Err(bad(
                    format!("{sp}.source_start"),
                    UnitRule::SourceSpansOutOfOrder,
                ));
            }
            entry.3 = s.source_end;
        } else {
            selectors.push((
                key,
                s.source_text_sha256.as_str(),
                s.source_text_bytes,
                s.source_end,
            ));
        }
        if !provenance
            .iter()
            .any(|p| p.url == s.source_url && p.source_sha256 == s.source_sha256)
        {
            return Err(bad(sp, UnitRule::MissingSourceProvenance));
        }
        if !provenance
            .iter()
            .any(|p| p.url == s.extraction_url && p.source_sha256 == s.extraction_sha256)
        {
            return Err(bad(sp, UnitRule::MissingExtractionProvenance));
        }
        previous_end = Some(s.unit_end);
    }
    if previous_end != Some(text_len) {
        return Err(bad(format!("{path}.spans"), UnitRule::TextNotCovered));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[allow(clippy::unwrap_used)]
    fn vocabulary_is_closed_bounded_folded_sorted_and_not_scaffolding() {
        let example = include_str!("../../okf/example/index.json");
        let check = |vocabulary: serde_json::Value| -> Result<(), (String, String)> {
            let mut v: serde_json::Value = serde_json::from_str(example).unwrap();
            v["vocabulary"] = vocabulary;
            crate::ContextIndex::from_json_slice(v.to_string().as_bytes())
                .map(|_| ())
                .map_err(|e| match e {
                    Error::Index { path, rule } => (path, rule.to_string()),
                    other => (String::new(), other.to_string()),
                })
        };
        assert_eq!(
            check(serde_json::json!({"neutral": ["keep", "still"]})),
            Ok(())
        );
        let refused = |v, path: &str, rule: IndexRule| {
            assert_eq!(check(v), Err((path.to_owned(), rule.to_string())));
        };
        refused(
            serde_json::json!({"neutral": ["still", "Keep"]}),
            "vocabulary.neutral[1]",
            IndexRule::NotOneFoldedWord,
        );
        refused(
            serde_json::json!({"neutral": ["keep up"]}),
            "vocabulary.neutral[0]",
            IndexRule::NotOneFoldedWord,
        );
        refused(
            serde_json::json!({"neutral": ["caf\u{e9}"]}),
            "vocabulary.neutral[0]",
            IndexRule::NotOneFoldedWord,
        );
        refused(
            serde_json::json!({"neutral": ["the"]}),
            "vocabulary.neutral[0]",
            IndexRule::NeutralWordIsScaffolding,
        );
        refused(
            serde_json::json!({"neutral": ["still", "keep"]}),
            "vocabulary.neutral[1]",
            IndexRule::VocabularyNotSorted,
        );
        refused(
            serde_json::json!({"neutral": ["keep", "keep"]}),
            "vocabulary.neutral[1]",
            IndexRule::VocabularyNotSorted,
        );
        refused(
            serde_json::json!({"neutral": []}),
            "vocabulary.neutral",
            IndexRule::TooFew { min: 1 },
        );
        refused(
            serde_json::json!({"neutral": ["x".repeat(65)]}),
            "vocabulary.neutral[0]",
            IndexRule::TooLong { max: 64 },
        );
        let many: Vec<String> = (0..=MAX_NEUTRAL_WORDS)
            .map(|i| format!("w{i:05}"))
            .collect();
        refused(
            serde_json::json!({ "neutral": many }),
            "vocabulary.neutral",
            IndexRule::TooMany { max: 1000 },
        );
        // Closed: an unknown key is refused by the typed model.
        assert!(check(serde_json::json!({"neutral": ["keep"], "stop": ["x"]})).is_err());
    }

    #[test]
    fn iri_forms() {
        assert!(is_iri("https://example.test/a"));
        assert!(is_iri("urn:x"));
        assert!(!is_iri("1abc:x"));
        assert!(!is_iri("noscheme"));
        assert!(!is_iri("a:"));
        assert!(!is_iri("a:b c"));
        assert!(!is_iri("a:b<c"));
        assert!(is_iri("a:b\u{85}c"), "U+0085 is not ECMAScript whitespace");
        assert!(!is_iri("a:b\u{feff}c"));
        assert!(!is_iri("a:b\u{3000}c"));
    }

    #[test]
    fn http_url_strict_check() {
        for ok in [
            "https://example.test/a",
            "HTTP://example.test",
            "https://example.test:8080/x?y#z",
            "http://[::1]:80/",
            "https://a.b/%20",
            "http://@example.test/",
            "http://127.0.0.1/",
        ] {
            assert!(is_http_url(ok), "{ok}");
        }
        for bad in [
            "ftp://example.test",
            "https://",
            "https://user:pw@example.test",
            "https://user@example.test",
            "https://example.test:0/",
            "https://example.test:65536/",
            "https://exa mple.test",
            "https://example.test/%zz",
            "https://example.test/%2",
            "https://example.test/{x}",
            "https://example.test/a|b",
            "https://999.1.1.1/",
            "https://example.test:x/",
        ] {
            assert!(!is_http_url(bad), "{bad}");
        }
    }

    #[test]
    fn timestamps() {
        for ok in [
            "2026-09-16T00:00:00Z",
            "2024-02-29T23:59:59.123+05:30",
            "2026-09-16T00:48:43.670101Z",
        ] {
            assert!(is_timestamp(ok), "{ok}");
        }
        for bad in [
            "3",
            "2026-02-31T00:00:00Z",
            "2026-09-16",
            "2026-09-16T25:00:00Z",
            "2023-02-29T00:00:00Z",
            "2026-09-16T00:00:00",
            "2026-09-16T00:00:00.Z",
            "2026-09-16T00:00:00+24:00",
        ] {
            assert!(!is_timestamp(bad), "{bad}");
        }
    }

    #[test]
    fn routes() {
        assert!(is_safe_route("evidence/library"));
        assert!(is_safe_route("page/dmg-vol3-ch12/0002"));
        assert!(!is_safe_route("evidence"));
        assert!(!is_safe_route("Evidence/x"));
        assert!(!is_safe_route("evidence//x"));
        assert!(!is_safe_route("evidence/a b"));
    }
}
