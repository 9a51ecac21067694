//! engine.md §5.2 on the embedded example bundle: the homework-club passage carries
//! characters outside the Basic Multilingual Plane (mathematical alphanumerics and emoji, two
//! UTF-16 code units each). Exact reads at many `delivery_bytes` values and offsets never cut
//! between the two units of a pair, refuse an offset that falls between them, and join back
//! to the exact text.
//!
//! The passage (about 400 code units) fits in one read at the smallest budget (8,192 bytes),
//! so its `record_text` reads are checked from every offset; the cuts themselves are made in
//! the `package` section (about 24 KB), which carries the passage, including a sweep that
//! brings a cut onto every astral character of the passage.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use okf_delivery::{
    Context, DeliveryError, MAX_DELIVERY_BYTES, MIN_DELIVERY_BYTES, ReadRequest, Section, read,
};
use okf_engine::{Budget, ContextIndex, assemble};
use proptest::prelude::*;
use serde_json::Value;
use std::sync::OnceLock;

const INDEX: &str = include_str!("../../okf/example/index.json");
/// Selects the homework-club passage beside the borrowing records, so that the package is
/// larger than the smallest budget and is read in several slices.
const QUESTION: &str = "How do I borrow books, and when is the homework club?";
const RECORD: &str = "https://example.org/okf-example/evidence/homework-club";

fn context() -> &'static Context {
    static CONTEXT: OnceLock<Context> = OnceLock::new();
    CONTEXT.get_or_init(|| {
        let index = ContextIndex::from_json_str(INDEX).expect("the example index loads");
        let package =
            assemble(&index, QUESTION, &Budget::default(), None).expect("the question assembles");
        Context::from_canonical(package.json).expect("a delivery context")
    })
}

fn record_text() -> &'static str {
    context()
        .selected()
        .expect("the package parses")
        .iter()
        .find(|item| item.pointer("/record/id").and_then(Value::as_str) == Some(RECORD))
        .and_then(|item| item.pointer("/record/text"))
        .and_then(Value::as_str)
        .expect("the question selects the homework-club passage")
}

fn section_text(section: Section) -> &'static str {
    match section {
        Section::RecordText => record_text(),
        _ => context().text(),
    }
}

/// Whether UTF-16 position `pos` of `units` falls between the two halves of a pair.
fn inside_pair(units: &[u16], pos: usize) -> bool {
    pos > 0 && pos < units.len() && (0xDC00..0xE000).contains(&units[pos])
}

/// Positions (UTF-16) where an astral character of `text` starts.
fn astral_starts(text: &str) -> Vec<usize> {
    let mut pos = 0;
    let mut starts = Vec::new();
    for c in text.chars() {
        if c.len_utf16() == 2 {
            starts.push(pos);
        }
        pos += c.len_utf16();
    }
    starts
}

fn request(section: Section, offset: u64, max_bytes: u64) -> ReadRequest {
    ReadRequest {
        context_id: context().context_id().to_owned(),
        section,
        record_id: (section == Section::RecordText).then(|| RECORD.to_owned()),
        offset,
        max_bytes,
    }
}

/// Reads `section` from `offset` to its end at `max_bytes`; checks every response and
/// returns the joined data and where each slice ended.
fn read_to_end(section: Section, offset: usize, max_bytes: u64) -> (String, Vec<usize>) {
    let units: Vec<u16> = section_text(section).encode_utf16().collect();
    let mut joined = String::new();
    let mut ends = Vec::new();
    let mut at = offset;
    loop {
        let json = read(context(), &request(section, at as u64, max_bytes)).expect("a read");
        assert!(json.len() as u64 <= max_bytes, "a response fits its budget");
        let envelope: Value = serde_json::from_str(&json).expect("a read is JSON");
        let end = envelope["end_offset"].as_u64().expect("end_offset") as usize;
        assert!(
            !inside_pair(&units, end),
            "offset {at}, {max_bytes} bytes: the slice ends at {end}, inside a surrogate pair"
        );
        let data = envelope["data"].as_str().expect("data");
        assert_eq!(
            data.encode_utf16().count(),
            end - at,
            "data spans its offsets"
        );
        joined.push_str(data);
        ends.push(end);
        match envelope["next_offset"].as_u64() {
            Some(next) => {
                assert_eq!(next as usize, end);
                assert!(end > at, "every read makes progress");
                at = end;
            }
            None => {
                assert_eq!(end, units.len());
                return (joined, ends);
            }
        }
    }
}

/// A read from `offset`: refused if the offset splits a pair, else the exact rest of the text.
fn check_read_from(section: Section, offset: usize, max_bytes: u64) {
    let units: Vec<u16> = section_text(section).encode_utf16().collect();
    if inside_pair(&units, offset) {
        let err = read(context(), &request(section, offset as u64, max_bytes)).unwrap_err();
        assert_eq!(err, DeliveryError::OffsetSplitsCharacter(offset as u64));
    } else {
        let (joined, _) = read_to_end(section, offset, max_bytes);
        let rest = String::from_utf16(&units[offset..]).expect("the rest is whole characters");
        assert_eq!(joined, rest, "offset {offset}, {max_bytes} bytes");
    }
}

#[test]
fn the_example_passage_carries_astral_characters_and_the_package_needs_several_reads() {
    let starts = astral_starts(record_text());
    assert!(starts.len() >= 15, "astral characters: {}", starts.len());
    assert!(context().text().len() as u64 > 2 * MIN_DELIVERY_BYTES);
}

#[test]
fn record_text_reads_from_every_offset_at_many_budgets_never_split_a_pair() {
    let total = record_text().encode_utf16().count();
    for max_bytes in [
        MIN_DELIVERY_BYTES,
        MIN_DELIVERY_BYTES + 1,
        9_999,
        16_384,
        MAX_DELIVERY_BYTES,
    ] {
        for offset in 0..=total {
            check_read_from(Section::RecordText, offset, max_bytes);
        }
    }
}

#[test]
fn package_cuts_brought_onto_every_astral_character_of_the_passage_never_split_it() {
    let text = context().text();
    let units: Vec<u16> = text.encode_utf16().collect();
    let passage_at = units
        .windows(record_text().encode_utf16().count())
        .position(|w| w.iter().copied().eq(record_text().encode_utf16()))
        .expect("the package carries the passage");
    for start in astral_starts(record_text()) {
        let pair = passage_at + start;
        // The slice length near the pair at the smallest budget, from one probe read; then
        // offsets around `pair - length` move the cut across the pair, one unit at a time.
        let probe = pair.saturating_sub(MIN_DELIVERY_BYTES as usize / 2);
        let (_, ends) = read_to_end(Section::Package, probe, MIN_DELIVERY_BYTES);
        let length = ends[0] - probe;
        let mut stopped_before = false;
        for offset in pair.saturating_sub(length + 64)..=pair.saturating_sub(length) + 64 {
            if inside_pair(&units, offset) {
                continue;
            }
            let json = read(
                context(),
                &request(Section::Package, offset as u64, MIN_DELIVERY_BYTES),
            )
            .expect("a read");
            let envelope: Value = serde_json::from_str(&json).expect("a read is JSON");
            let end = envelope["end_offset"].as_u64().expect("end_offset") as usize;
            assert!(!inside_pair(&units, end), "offset {offset}: ends at {end}");
            assert_eq!(
                envelope["data"].as_str(),
                String::from_utf16(&units[offset..end]).ok().as_deref()
            );
            stopped_before |= end == pair;
        }
        assert!(
            stopped_before,
            "some cut stopped right before the astral character at {pair}"
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// Any budget, any offset: the package's slices join back exactly, no slice ends inside
    /// a pair, and an offset inside a pair is refused.
    #[test]
    fn package_reads_at_any_budget_and_offset_never_split_a_pair(
        max_bytes in MIN_DELIVERY_BYTES..=MAX_DELIVERY_BYTES,
        offset in any::<usize>(),
    ) {
        let total = context().text().encode_utf16().count();
        check_read_from(Section::Package, offset % (total + 1), max_bytes);
    }
}
