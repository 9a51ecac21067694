//! A deterministic synthetic corpus of any size for scale tests and benchmarks.
//!
//! Every unit is a valid public evidence record with a literal digest; most text is drawn from
//! a 4,096-word filler vocabulary by a fixed-seed xorshift generator. Five units, spread evenly
//! over the ordinals, mention an orchard permit; a concept resolves "orchard permit" and a
//! requirement needs the first of them through a `requires` edge, so a question exercises
//! ranking, card checks, adjacency and requirement evaluation. The question's words have the
//! same document frequency at every size, so only the shards a question touches grow.

use crate::Error;
use crate::build::{BuiltCorpus, build_from_document};
use okf_engine::canonical::sha256_hex;
use serde_json::{Value, json};

/// The question the benchmarks ask of a generated corpus.
pub const QUESTION: &str = "orchard permit";

const BASE: &str = "https://example.test/scale/";
const SEED: u64 = 0x9e37_79b9_7f4a_7c15;

struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
}

fn filler(i: u64) -> String {
    // Letters only, so each word is one corpus token.
    let mut n = i;
    let mut w = String::from("w");
    for _ in 0..3 {
        w.push(char::from(b'a' + (n % 26) as u8));
        n /= 26;
    }
    w.push(char::from(b'a' + (n % 7) as u8));
    w
}

fn governed(id: &str, kind: &str, label: &str, text: &str) -> Value {
    json!({
        "id": id,
        "kind": kind,
        "label": label,
        "text": text,
        "route": id.trim_start_matches(BASE),
        "assertion_status": "normalized",
        "authority": {"class": "synthetic", "label": "Generated scale fixture", "source": BASE},
        "scope": "Generated scale data. No real service.",
        "provenance": [{
            "url": format!("{BASE}source.md"),
            "source_sha256": sha256_hex(b"scale"),
            "locator": label,
            "captured_at": "2026-09-16T00:00:00Z",
            "literal_sha256": sha256_hex(text.as_bytes()),
        }],
        "rights": "CC0 synthetic fixture",
        "access": "public",
    })
}

/// Builds a v3 corpus of `units` evidence units (at least 5).
pub fn generate(units: u64, units_per_shard: usize) -> Result<BuiltCorpus, Error> {
    let units = units.max(5);
    let mut rng = XorShift(SEED);
    let permit_every = units / 5;
    let mut records = Vec::with_capacity(units as usize + 2);
    for i in 0..units {
        let mut words: Vec<String> = (0..12).map(|_| filler(rng.next() % 4096)).collect();
        if i % permit_every == 7 % permit_every {
            words.extend(
                ["orchard", "permit", "renewal", "deadline"]
                    .iter()
                    .map(|s| (*s).to_owned()),
            );
        }
        let text = format!("{}.", words.join(" "));
        let id = format!("{BASE}unit/{i:07}");
        records.push(governed(&id, "evidence", &format!("Unit {i}"), &text));
    }
    let first_permit = format!("{BASE}unit/{:07}", 7 % permit_every);
    let concept = format!("{BASE}concept/orchard-permit");
    let mut c = governed(&concept, "concept", "Orchard permit", "The orchard permit.");
    c["aliases"] = json!(["orchard permit"]);
    records.push(c);
    let assertion = json!({
        "id": format!("{BASE}assertion/permit-rules"),
        "source": concept,
        "target": first_permit,
        "predicate": "http://purl.org/dc/terms/requires",
        "label": "requires",
        "assertion_status": "normalized",
        "authority": {"class": "synthetic", "label": "Generated scale fixture", "source": BASE},
        "scope": "Generated scale data. No real service.",
        "provenance": [{
            "url": format!("{BASE}source.md"),
            "source_sha256": sha256_hex(b"scale"),
            "locator": "permit rules",
            "captured_at": "2026-09-16T00:00:00Z",
        }],
    });
    let doc = json!({
        "schema": "okf-context-index.v1",
        "bundle": {"id": format!("{BASE}bundle"), "snapshot": "scale-v1", "source_url": format!("{BASE}index.json")},
        "scope": "Generated scale corpus for benchmarks.",
        "limitations": ["Synthetic benchmark data; not real service information."],
        "records": records,
        "assertions": [assertion],
        "requirements": [{
            "id": format!("{BASE}requirement/permit"),
            "label": "Orchard permit rules",
            "scope": "Generated scale data. No real service.",
            "when_all": [concept],
            "required": [first_permit],
        }],
    });
    build_from_document(&doc, units_per_shard)
}
