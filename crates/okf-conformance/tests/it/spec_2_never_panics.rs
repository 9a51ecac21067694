//! Spec §2 (validation and rejection behaviour): whatever the input, the engine either
//! rejects it with an error or produces a package; it never panics. Property tests mutate the
//! §7.0 study-club index (field deletions, type swaps, random strings in ids, routes, URLs and
//! texts, extra edges with random predicates and guards, extra aliases and required paths) and
//! pair it with random budgets and questions (unicode, blank and very long ones).
//!
//! Whenever assembly succeeds the package must satisfy the invariants of §3.10 and §4:
//! `used_bytes == json.len() <= max_bytes`, `ai_answer` is null, and `verify_package` accepts
//! the parsed package.
//!
//! Skipped: corpus inputs, lexical seeds and lazy guard decisions (not implemented yet).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::*;
use okf_engine::{Budget, ContextIndex, assemble, explain, verify_package};
use proptest::prelude::*;
use proptest::sample::Index;
use serde_json::{Map, Number, Value, json};

/// One step of a JSON path.
#[derive(Debug, Clone)]
enum Seg {
    Key(String),
    At(usize),
}

fn collect_paths(v: &Value, prefix: &mut Vec<Seg>, out: &mut Vec<Vec<Seg>>) {
    out.push(prefix.clone());
    match v {
        Value::Object(map) => {
            for (k, child) in map {
                prefix.push(Seg::Key(k.clone()));
                collect_paths(child, prefix, out);
                prefix.pop();
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                prefix.push(Seg::At(i));
                collect_paths(child, prefix, out);
                prefix.pop();
            }
        }
        _ => {}
    }
}

fn all_paths(v: &Value) -> Vec<Vec<Seg>> {
    let mut out = Vec::new();
    collect_paths(v, &mut Vec::new(), &mut out);
    out
}

fn at_mut<'v>(v: &'v mut Value, path: &[Seg]) -> Option<&'v mut Value> {
    let mut cur = v;
    for seg in path {
        cur = match seg {
            Seg::Key(k) => cur.get_mut(k.as_str())?,
            Seg::At(i) => cur.get_mut(*i)?,
        };
    }
    Some(cur)
}

fn at<'v>(v: &'v Value, path: &[Seg]) -> Option<&'v Value> {
    let mut cur = v;
    for seg in path {
        cur = match seg {
            Seg::Key(k) => cur.get(k.as_str())?,
            Seg::At(i) => cur.get(*i)?,
        };
    }
    Some(cur)
}

/// Every id-like string of the fixture, to build duplicates, cycles and dangling references.
fn id_pool(ix: &Value) -> Vec<String> {
    let mut pool: Vec<String> = ["records", "assertions", "requirements"]
        .iter()
        .flat_map(|list| {
            ix[*list]
                .as_array()
                .map(|items| {
                    items
                        .iter()
                        .filter_map(|r| r["id"].as_str().map(str::to_owned))
                        .collect::<Vec<_>>()
                })
                .unwrap_or_default()
        })
        .collect();
    pool.push("https://example.test/concept/absent".into());
    pool.push("urn:x".into());
    pool
}

const PREDICATES: [&str; 7] = [
    "http://purl.org/dc/terms/references",
    "http://purl.org/dc/terms/requires",
    "http://www.w3.org/2004/02/skos/core#related",
    "http://www.w3.org/2004/02/skos/core#narrower",
    "http://www.w3.org/2004/02/skos/core#broader",
    "https://evil.example/execute",
    "",
];

#[derive(Debug, Clone)]
enum Mutation {
    /// Remove the value at a random path (object key or array element).
    Delete(Index),
    /// Replace the value at a random path with an arbitrary JSON value (a type swap).
    Replace(Index, Value),
    /// Replace a random string value (ids, routes, URLs, texts, digests…) with another string.
    SetString(Index, String),
    /// Replace a random string value with an existing id.
    SetId(Index, Index),
    /// Add an edge between ids of the pool, maybe guarded. A `strict` edge has a non-empty
    /// predicate IRI and a guard without repeats, so the index stays valid.
    AddEdge {
        source: Index,
        target: Index,
        predicate: Index,
        guard: Option<Vec<Index>>,
        strict: bool,
    },
    /// Add an alias to a random record.
    AddAlias {
        record: Index,
        alias: String,
        case_sensitive: Option<bool>,
    },
    /// Add a required path of pool ids to a random requirement.
    AddRequiredPath { requirement: Index, ids: Vec<Index> },
    /// Add a conflict to a random record.
    AddConflict { record: Index, other: Index },
    /// Replace a record's text with a (possibly long) string, keeping its digests.
    SetText { record: Index, text: String },
}

fn arb_leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<u64>().prop_map(|n| json!(n)),
        any::<f64>()
            .prop_filter_map("finite", Number::from_f64)
            .prop_map(Value::Number),
        "\\PC{0,20}".prop_map(Value::String),
    ]
}

fn arb_json() -> impl Strategy<Value = Value> {
    arb_leaf().prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec(("[a-z_]{1,12}", inner), 0..4)
                .prop_map(|kv| Value::Object(kv.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

fn arb_string() -> impl Strategy<Value = String> {
    prop_oneof![
        "\\PC{0,30}",
        "[a-z]{1,8}:[!-~]{0,20}",
        "https?://[a-z.@:]{0,12}/[!-~]{0,20}",
        "[a-z][a-z0-9-]{0,6}(/[A-Za-z0-9._~-]{1,6}){0,3}",
        "[0-9a-f]{64}",
        "[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z",
        Just(String::new()),
        Just(" ".to_owned()),
        ("[a-zé完 ]{1,4}", 100usize..700).prop_map(|(s, n)| s.repeat(n)),
    ]
}

fn arb_mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        1 => any::<Index>().prop_map(Mutation::Delete),
        1 => (any::<Index>(), arb_json()).prop_map(|(i, v)| Mutation::Replace(i, v)),
        3 => (any::<Index>(), arb_string()).prop_map(|(i, s)| Mutation::SetString(i, s)),
        2 => (any::<Index>(), any::<Index>()).prop_map(|(i, j)| Mutation::SetId(i, j)),
        3 => (
            any::<Index>(),
            any::<Index>(),
            any::<Index>(),
            prop::option::of(prop::collection::vec(any::<Index>(), 0..10)),
        )
            .prop_map(|(source, target, predicate, guard)| Mutation::AddEdge {
                source,
                target,
                predicate,
                guard,
                strict: false,
            }),
        1 => (any::<Index>(), "[A-Za-z ]{0,20}|\\PC{0,10}", prop::option::of(any::<bool>())).prop_map(
            |(record, alias, case_sensitive)| Mutation::AddAlias {
                record,
                alias,
                case_sensitive,
            }
        ),
        1 => (any::<Index>(), prop::collection::vec(any::<Index>(), 1..8))
            .prop_map(|(requirement, ids)| Mutation::AddRequiredPath { requirement, ids }),
        1 => (any::<Index>(), any::<Index>())
            .prop_map(|(record, other)| Mutation::AddConflict { record, other }),
        1 => (any::<Index>(), arb_string()).prop_map(|(record, text)| Mutation::SetText { record, text }),
    ]
}

fn pick<'a, T>(items: &'a [T], i: &Index) -> Option<&'a T> {
    (!items.is_empty()).then(|| i.get(items))
}

fn list_len(ix: &Value, list: &str) -> usize {
    ix[list].as_array().map_or(0, Vec::len)
}

fn apply(ix: &mut Value, m: &Mutation) {
    let pool = id_pool(ix);
    match m {
        Mutation::Delete(i) => {
            let paths = all_paths(ix);
            let Some(path) = pick(&paths, i) else { return };
            let Some((last, parent)) = path.split_last() else {
                *ix = Value::Null;
                return;
            };
            match (at_mut(ix, parent), last) {
                (Some(Value::Object(map)), Seg::Key(k)) => {
                    map.remove(k);
                }
                (Some(Value::Array(items)), Seg::At(n)) if *n < items.len() => {
                    items.remove(*n);
                }
                _ => {}
            }
        }
        Mutation::Replace(i, v) => {
            let paths = all_paths(ix);
            if let Some(slot) = pick(&paths, i).cloned().and_then(|p| at_mut(ix, &p)) {
                *slot = v.clone();
            }
        }
        Mutation::SetString(i, value) => set_string(ix, i, value.clone()),
        Mutation::SetId(i, j) => {
            if let Some(value) = pick(&pool, j).cloned() {
                set_string(ix, i, value);
            }
        }
        Mutation::AddEdge {
            source,
            target,
            predicate,
            guard,
            strict,
        } => {
            let Some(items) = ix.get_mut("assertions").and_then(Value::as_array_mut) else {
                return;
            };
            if pool.is_empty() {
                return;
            }
            let n = items.len();
            let mut edge = extra_assertion(
                &format!("{BASE}assertion/fuzz-{n}"),
                &pool[source.index(pool.len())],
                &pool[target.index(pool.len())],
            );
            let predicates = if *strict {
                &PREDICATES[..PREDICATES.len() - 1]
            } else {
                &PREDICATES[..]
            };
            edge["predicate"] = json!(predicates[predicate.index(predicates.len())]);
            if let Some(guard) = guard {
                let mut ids: Vec<&String> =
                    guard.iter().map(|g| &pool[g.index(pool.len())]).collect();
                if *strict {
                    ids.sort();
                    ids.dedup();
                }
                edge["context_guard"] = json!({ "when_all": ids });
            }
            items.push(edge);
        }
        Mutation::AddAlias {
            record,
            alias,
            case_sensitive,
        } => {
            let n = list_len(ix, "records");
            if n == 0 {
                return;
            }
            let r = &mut ix["records"][record.index(n)];
            if !r.is_object() {
                return;
            }
            let alias = match case_sensitive {
                Some(cs) => json!({"label": alias, "case_sensitive": cs}),
                None => json!(alias),
            };
            match r.get_mut("aliases").and_then(Value::as_array_mut) {
                Some(list) => list.push(alias),
                None => r["aliases"] = json!([alias]),
            }
        }
        Mutation::AddRequiredPath { requirement, ids } => {
            let n = list_len(ix, "requirements");
            if n == 0 || pool.is_empty() {
                return;
            }
            let picked: Vec<String> = ids
                .iter()
                .map(|i| pool[i.index(pool.len())].clone())
                .collect();
            // A path of k ids becomes k-1 hops when the lengths line up; otherwise it is
            // left malformed on purpose.
            let (records, assertions) = picked.split_at(picked.len().div_ceil(2));
            let path = json!({
                "seed": records[0],
                "assertions": assertions,
                "records": records,
            });
            let r = &mut ix["requirements"][requirement.index(n)];
            if !r.is_object() {
                return;
            }
            match r.get_mut("required_paths").and_then(Value::as_array_mut) {
                Some(list) => list.push(path),
                None => r["required_paths"] = json!([path]),
            }
        }
        Mutation::AddConflict { record, other } => {
            let n = list_len(ix, "records");
            if n == 0 || pool.is_empty() {
                return;
            }
            let other = pool[other.index(pool.len())].clone();
            let r = &mut ix["records"][record.index(n)];
            if r.is_object() {
                r["conflicts_with"] = json!([other]);
            }
        }
        Mutation::SetText { record, text } => {
            let n = list_len(ix, "records");
            if n == 0 {
                return;
            }
            let r = &mut ix["records"][record.index(n)];
            // Units bind their text to spans; changing it is covered by the other mutations.
            if !r.is_object() || r.get("evidence_unit").is_some() {
                return;
            }
            r["text"] = json!(text);
            let digest = sha(text);
            for p in r
                .get_mut("provenance")
                .and_then(Value::as_array_mut)
                .into_iter()
                .flatten()
            {
                if p.is_object() {
                    p["source_sha256"] = json!(digest);
                    p["literal_sha256"] = json!(digest);
                }
            }
        }
    }
}

/// Replaces a random string value (ids, routes, URLs, texts, digests…).
fn set_string(ix: &mut Value, i: &Index, value: String) {
    let strings: Vec<Vec<Seg>> = all_paths(ix)
        .into_iter()
        .filter(|p| at(ix, p).is_some_and(Value::is_string))
        .collect();
    if let Some(slot) = pick(&strings, i).cloned().and_then(|p| at_mut(ix, &p)) {
        *slot = Value::String(value);
    }
}

fn arb_base() -> impl Strategy<Value = Value> {
    prop_oneof![
        3 => Just(study_club()),
        1 => Just(study_club_with_unit(&UNIT_TEXTS)),
    ]
}

fn arb_index() -> impl Strategy<Value = Value> {
    (arb_base(), prop::collection::vec(arb_mutation(), 0..6)).prop_map(|(mut ix, ms)| {
        for m in &ms {
            apply(&mut ix, m);
        }
        ix
    })
}

fn arb_question() -> impl Strategy<Value = String> {
    let words = vec![
        "Reading circle",
        "Repair demonstration",
        "Library room",
        "Booking",
        "Workshop room",
        "RC",
        "rc",
        "alpha",
        "the",
        "what",
        "Explain",
        "完整",
        "Café",
        "ΟΔΟΣ",
        "😀",
        "teleportation",
        "and",
        "?",
    ];
    prop_oneof![
        4 => prop::sample::subsequence(words, 0..8).prop_map(|w| w.join(" ")),
        2 => "\\PC{0,80}",
        1 => "\\p{L}{0,5}[ \\t\\n]{0,3}\\p{N}{0,3}",
        1 => ("[a-zA-Zé ]{1,8}", 1usize..1200).prop_map(|(s, n)| s.repeat(n)),
        1 => Just(String::new()),
        1 => Just(" \u{3000}\n".to_owned()),
    ]
}

fn arb_budget() -> impl Strategy<Value = Value> {
    let valid = (
        prop::option::of(1u64..=200),
        prop::option::of(1u64..=1000),
        prop::option::of(0u64..=8),
        prop::option::of(8192u64..=524_288),
    )
        .prop_map(|(n, r, d, b)| {
            let mut m = Map::new();
            for (k, v) in [
                ("max_nodes", n),
                ("max_relationships", r),
                ("max_depth", d),
                ("max_bytes", b),
            ] {
                if let Some(v) = v {
                    m.insert(k.into(), json!(v));
                }
            }
            Value::Object(m)
        });
    let key = prop::sample::select(vec![
        "max_nodes",
        "max_relationships",
        "max_depth",
        "max_bytes",
        "constructor",
        "__proto__",
    ]);
    let random = prop::collection::vec((key, arb_leaf()), 0..5)
        .prop_map(|kv| Value::Object(kv.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()));
    prop_oneof![4 => valid, 1 => random, 1 => arb_json()]
}

/// Runs one case; only returns when nothing panicked, checking package invariants on success.
fn check(ix: Value, question: &str, budget: &Value) -> Result<(), TestCaseError> {
    let text = serde_json::to_string(&ix).unwrap();
    let _ = ContextIndex::from_json_str(&text);
    let mut half = text.len() / 2;
    while !text.is_char_boundary(half) {
        half -= 1;
    }
    let _ = ContextIndex::from_json_str(&text[..half]);
    let Ok(index) = ContextIndex::from_value(ix, None) else {
        return Ok(());
    };
    let _ = okf_engine::resolve(&index, question);
    let Ok(budget) = Budget::from_json(budget) else {
        return Ok(());
    };
    let Ok(assembled) = assemble(&index, question, &budget, None) else {
        return Ok(());
    };
    prop_assert_eq!(assembled.used_bytes, assembled.json.len() as u64);
    prop_assert!(assembled.used_bytes <= budget.max_bytes);
    let pkg: Value = serde_json::from_str(&assembled.json).unwrap();
    prop_assert!(pkg["ai_answer"].is_null());
    prop_assert_eq!(&pkg["budget"]["used_bytes"], &json!(assembled.used_bytes));
    let identity = verify_package(&pkg);
    prop_assert!(identity.is_ok(), "{:?}", identity);
    prop_assert_eq!(&pkg["question"], &json!(question));
    for sel in pkg["selected"].as_array().unwrap() {
        let _ = explain(&pkg, sel["record"]["id"].as_str());
    }
    let _ = explain(&pkg, Some(question));
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(192))]

    #[test]
    fn mutated_indexes_never_panic(ix in arb_index(), question in arb_question(), budget in arb_budget()) {
        check(ix, &question, &budget)?;
    }

    #[test]
    fn valid_index_with_random_questions_and_budgets_never_panics(
        base in arb_base(),
        question in arb_question(),
        budget in arb_budget(),
    ) {
        check(base, &question, &budget)?;
    }
}

const GRAPH_WORDS: [&str; 8] = [
    "Reading circle",
    "Repair demonstration",
    "Library room",
    "Booking",
    "Alpha",
    "Shared topic",
    "RC",
    "rc",
];

/// Questions made of labels and of the aliases `random_graphs_assemble_within_budget` adds.
fn graph_question() -> impl Strategy<Value = String> {
    prop::sample::subsequence(GRAPH_WORDS.to_vec(), 1..4).prop_map(|w| w.join(" and "))
}

/// Small valid budgets, so that node, relationship, depth and byte pressure are common.
fn graph_budget() -> impl Strategy<Value = Value> {
    (1u64..12, 1u64..12, 0u64..5, 8192u64..40_000).prop_map(|(n, r, d, b)| {
        json!({"max_nodes": n, "max_relationships": r, "max_depth": d, "max_bytes": b})
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// Graph-heavy mutations only (edges, guards, paths, aliases, conflicts, long texts),
    /// which keep the index valid and so exercise traversal, allocation and trimming.
    #[test]
    fn random_graphs_assemble_within_budget(
        base in arb_base(),
        edges in prop::collection::vec(
            (any::<Index>(), any::<Index>(), any::<Index>(), prop::option::of(prop::collection::vec(any::<Index>(), 1..4))),
            0..24,
        ),
        extra in prop::collection::vec(
            prop_oneof![
                (any::<Index>(), prop::sample::select(GRAPH_WORDS.to_vec()), prop::option::of(any::<bool>())).prop_map(
                    |(record, alias, case_sensitive)| Mutation::AddAlias { record, alias: alias.to_owned(), case_sensitive }
                ),
                (any::<Index>(), prop::collection::vec(any::<Index>(), 3..4)).prop_map(
                    |(requirement, ids)| Mutation::AddRequiredPath { requirement, ids }
                ),
                (any::<Index>(), any::<Index>()).prop_map(|(record, other)| Mutation::AddConflict { record, other }),
                (any::<Index>(), ("[a-z ]{1,6}", 1usize..3000).prop_map(|(s, n)| s.repeat(n)))
                    .prop_map(|(record, text)| Mutation::SetText { record, text }),
            ],
            0..8,
        ),
        question in prop_oneof![4 => graph_question(), 1 => arb_question()],
        budget in prop_oneof![4 => graph_budget(), 1 => arb_budget()],
    ) {
        let mut ix = base;
        for (source, target, predicate, guard) in edges {
            apply(&mut ix, &Mutation::AddEdge { source, target, predicate, guard, strict: true });
        }
        for m in &extra {
            apply(&mut ix, m);
        }
        check(ix, &question, &budget)?;
    }
}
