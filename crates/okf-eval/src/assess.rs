//! The A–H assessor (spec §0, §2): judges an assembled package against a case and the index it
//! was assembled from.
//!
//! The assessor reads the package as plain JSON, so it judges any `okf-governed-context.v1`
//! package, and never trusts the package to be well formed: a missing or mistyped field fails
//! the checks that read it. It never feeds the case into the engine.

use crate::case::{Case, ExpectedIssue, ExpectedSource, IssueArea};
use okf_engine::ContextIndex;
use okf_engine::canonical::{is_hex64, sha256_hex, to_canonical_string};
use okf_engine::package_identity;
use serde::Serialize;
use serde_json::{Value, json};
use std::collections::{HashMap, HashSet};

/// The eight evaluation stages, in report order.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, serde::Deserialize,
)]
pub enum StageId {
    /// `source`: source and passage identities are present, exact and unaltered.
    A,
    /// `semantic`: concepts and typed, directed assertions keep their identities.
    B,
    /// `retrieval`: the question resolved the concepts; ambiguity and unknown terms stay explicit.
    C,
    /// `traversal`: required paths and chains exist; every selection is reached from a seed.
    D,
    /// `assembly`: evidence retained whole; counters and budgets exact and bounded.
    E,
    /// `provenance`: binding, package identity, complete provenance and passage digests.
    F,
    /// `boundaries`: exclusions, scope, limitations, access, boundaries and issues survive.
    G,
    /// `answerability`: outcome, requirement declarations, missing items, sufficiency.
    H,
    /// `review`: the specialist review a case requires (only when it requires one; never part
    /// of [`StageId::ALL`], the reference's eight).
    R,
}

impl StageId {
    /// All stages in order.
    pub const ALL: [StageId; 8] = [
        StageId::A,
        StageId::B,
        StageId::C,
        StageId::D,
        StageId::E,
        StageId::F,
        StageId::G,
        StageId::H,
    ];

    /// The stage letter.
    pub fn letter(self) -> &'static str {
        match self {
            StageId::A => "A",
            StageId::B => "B",
            StageId::C => "C",
            StageId::D => "D",
            StageId::E => "E",
            StageId::F => "F",
            StageId::G => "G",
            StageId::H => "H",
            StageId::R => "R",
        }
    }

    /// The fixed stage label.
    pub fn label(self) -> &'static str {
        match self {
            StageId::A => "source",
            StageId::B => "semantic",
            StageId::C => "retrieval",
            StageId::D => "traversal",
            StageId::E => "assembly",
            StageId::F => "provenance",
            StageId::G => "boundaries",
            StageId::H => "answerability",
            StageId::R => "review",
        }
    }

    fn position(self) -> usize {
        self as usize
    }
}

/// `passed` or `failed`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Every check held.
    Passed,
    /// At least one check failed.
    Failed,
}

impl Status {
    /// `Passed` when `ok`.
    pub fn from_bool(ok: bool) -> Self {
        if ok { Status::Passed } else { Status::Failed }
    }

    /// The wire value.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Passed => "passed",
            Status::Failed => "failed",
        }
    }

    /// True for `Passed`.
    pub fn passed(self) -> bool {
        self == Status::Passed
    }
}

/// One check `{id, status, expected, actual}` (spec §0.7); absent members are omitted.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Check {
    /// Stable prefix plus identities, e.g. `required-source:<record_id>:<locator>`.
    pub id: String,
    /// Whether it held.
    pub status: Status,
    /// What was required.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expected: Option<Value>,
    /// What the package holds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub actual: Option<Value>,
}

impl Check {
    /// A check with both members present.
    pub fn new(id: impl Into<String>, ok: bool, expected: Value, actual: Value) -> Self {
        Check {
            id: id.into(),
            status: Status::from_bool(ok),
            expected: Some(expected),
            actual: Some(actual),
        }
    }

    /// A check whose members may be absent.
    pub fn maybe(
        id: impl Into<String>,
        ok: bool,
        expected: Option<Value>,
        actual: Option<Value>,
    ) -> Self {
        Check {
            id: id.into(),
            status: Status::from_bool(ok),
            expected,
            actual,
        }
    }
}

/// One stage with its checks.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Stage {
    /// A–H.
    pub id: StageId,
    /// The fixed label.
    pub label: &'static str,
    /// Checks in spec order.
    pub checks: Vec<Check>,
    /// `passed` when every check passed (a stage without checks passes).
    pub status: Status,
}

/// The result of assessing one package against one case.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Assessment {
    /// The case id.
    pub case_id: String,
    /// `passed` when every stage passed.
    pub status: Status,
    /// The eight stages, A to H, then R when the case requires review.
    pub stages: Vec<Stage>,
}

impl Assessment {
    /// Adds a stage after the others; the status then includes it.
    pub(crate) fn push_stage(&mut self, id: StageId, checks: Vec<Check>) {
        self.stages.push(Stage {
            id,
            label: id.label(),
            status: Status::from_bool(checks.iter().all(|c| c.status.passed())),
            checks,
        });
        self.status = Status::from_bool(self.stages.iter().all(|s| s.status.passed()));
    }

    /// A stage by id.
    pub fn stage(&self, id: StageId) -> Option<&Stage> {
        self.stages.iter().find(|s| s.id == id)
    }

    /// Stages that failed, in order.
    pub fn failed_stages(&self) -> Vec<StageId> {
        self.stages
            .iter()
            .filter(|s| !s.status.passed())
            .map(|s| s.id)
            .collect()
    }

    /// Every failed check with its stage.
    pub fn failed_checks(&self) -> impl Iterator<Item = (StageId, &Check)> {
        self.stages.iter().flat_map(|s| {
            s.checks
                .iter()
                .filter(|c| !c.status.passed())
                .map(move |c| (s.id, c))
        })
    }
}

// Notes used where the reference writes a sentence instead of a value (our wording).
const NOTE_EXACT_RECORD: &str = "the record exactly as the index declares it";
const NOTE_EXACT_ASSERTION: &str = "the assertion exactly as the index declares it";
const NOTE_COMPARED: &str = "found in the index and compared";
const NOTE_NOT_IN_INDEX: &str = "not in the index";
const NOTE_HAS_PATH: &str = "at least one retained path from a resolved seed";
const NOTE_VALID_PATH: &str =
    "a resolved seed and exact retained directed assertions leading to this record";
const NOTE_WHOLE_EVIDENCE: &str = "the whole evidence record, selected";
const NOTE_BINDING: &str = "a 64-hex index_sha256 and an index_url";
const NOTE_COMPLETE_PROVENANCE: &str = "a matching provenance row with an http(s) url, a 64-hex source_sha256, a locator and a parseable captured_at";
const NOTE_EXCLUDED: &str = "not selected";
const NOTE_ASSESSED: &str = "assessed in the package";
const NOTE_HAS_REQUIREMENT: &str = "at least one applicable requirement";
const NOTE_REQUIRED_RETAINED: &str =
    "every applicable requirement supported, nothing missing, every required record selected";
const NOTE_PATHS_RETAINED: &str = "every declared required path retained as an included chain";
const NOTE_NOTHING_OMITTED: &str = "nothing truncated, missing, conflicting or ambiguous";

/// Insertion-ordered map with the reference's duplicate-id rule (spec §0.4): the position of the
/// first occurrence, the value of the last.
struct OrderedMap<'p> {
    entries: Vec<(&'p str, &'p Value)>,
    pos: HashMap<&'p str, usize>,
}

impl<'p> OrderedMap<'p> {
    fn new() -> Self {
        OrderedMap {
            entries: Vec::new(),
            pos: HashMap::new(),
        }
    }

    fn insert(&mut self, key: &'p str, value: &'p Value) {
        match self.pos.get(key) {
            Some(&i) => self.entries[i].1 = value,
            None => {
                self.pos.insert(key, self.entries.len());
                self.entries.push((key, value));
            }
        }
    }

    fn get(&self, key: &str) -> Option<&'p Value> {
        self.pos.get(key).map(|&i| self.entries[i].1)
    }

    fn contains(&self, key: &str) -> bool {
        self.pos.contains_key(key)
    }

    fn len(&self) -> usize {
        self.entries.len()
    }

    fn iter(&self) -> impl Iterator<Item = (&'p str, &'p Value)> + '_ {
        self.entries.iter().copied()
    }
}

/// The key JavaScript would use for a missing id.
const UNDEFINED: &str = "undefined";

fn str_of<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

fn items(v: Option<&Value>) -> &[Value] {
    v.and_then(Value::as_array).map_or(&[], Vec::as_slice)
}

fn canonical(v: &Value) -> Option<String> {
    to_canonical_string(v).ok()
}

/// Canonical equality (spec §0.1): absent equals absent only, never `null`.
fn canon_eq(a: Option<&Value>, b: Option<&Value>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => matches!((canonical(a), canonical(b)), (Some(x), Some(y)) if x == y),
        _ => false,
    }
}

fn strings(values: &[Value]) -> impl Iterator<Item = &str> {
    values.iter().filter_map(Value::as_str)
}

/// A path object read from JSON; `None` when it is not `{seed, assertions, records}` of strings.
struct PathView<'a> {
    seed: &'a str,
    assertions: Vec<&'a str>,
    records: Vec<&'a str>,
}

impl<'a> PathView<'a> {
    fn read(v: &'a Value) -> Option<Self> {
        let list = |key| -> Option<Vec<&'a str>> {
            v.get(key)?.as_array()?.iter().map(Value::as_str).collect()
        };
        Some(PathView {
            seed: str_of(v, "seed")?,
            assertions: list("assertions")?,
            records: list("records")?,
        })
    }

    /// Every hop `i` is a retained relationship from `records[i]` to `records[i+1]`.
    fn hops_retained(&self, relations: &OrderedMap<'_>) -> bool {
        self.records.len() == self.assertions.len() + 1
            && self.assertions.iter().enumerate().all(|(i, a)| {
                relations.get(a).is_some_and(|rel| {
                    str_of(rel, "source") == Some(self.records[i])
                        && str_of(rel, "target") == Some(self.records[i + 1])
                })
            })
    }
}

/// `<seed>:<last>` of a path for check ids; `undefined` stands for a missing member.
fn path_label(v: &Value) -> String {
    let seed = str_of(v, "seed").unwrap_or(UNDEFINED);
    let last = items(v.get("records"))
        .last()
        .and_then(Value::as_str)
        .unwrap_or(UNDEFINED);
    format!("{seed}:{last}")
}

/// The lookup tables of spec §0.4.
struct Tables<'p> {
    rows: &'p [Value],
    selected: OrderedMap<'p>,
    relations: OrderedMap<'p>,
    relation_rows: usize,
    resolutions: Vec<&'p str>,
    resolved: HashSet<&'p str>,
    requirements: OrderedMap<'p>,
}

impl<'p> Tables<'p> {
    fn new(p: &'p Value) -> Self {
        let rows = items(p.get("selected"));
        let mut selected = OrderedMap::new();
        for row in rows {
            if let Some(record) = row.get("record") {
                selected.insert(str_of(record, "id").unwrap_or(UNDEFINED), record);
            }
        }
        let relationship_rows = items(p.get("relationships"));
        let mut relations = OrderedMap::new();
        for a in relationship_rows {
            relations.insert(str_of(a, "id").unwrap_or(UNDEFINED), a);
        }
        let mut resolutions = Vec::new();
        let mut resolved = HashSet::new();
        for c in items(p.get("resolved_concepts")) {
            let id = str_of(c, "id").unwrap_or(UNDEFINED);
            if resolved.insert(id) {
                resolutions.push(id);
            }
        }
        let mut requirements = OrderedMap::new();
        for r in items(p.get("requirements")) {
            requirements.insert(str_of(r, "id").unwrap_or(UNDEFINED), r);
        }
        Tables {
            rows,
            selected,
            relations,
            relation_rows: relationship_rows.len(),
            resolutions,
            resolved,
            requirements,
        }
    }

    /// An included chain (spec §0.6).
    fn included_chain(&self, path: &Value) -> bool {
        PathView::read(path).is_some_and(|v| {
            v.records.first() == Some(&v.seed)
                && v.records.iter().all(|r| self.selected.contains(r))
                && v.hops_retained(&self.relations)
        })
    }

    fn kind_of(&self, id: &str) -> Option<&'p str> {
        self.selected.get(id).and_then(|r| str_of(r, "kind"))
    }

    fn resolution_ids(&self) -> Value {
        json!(self.resolutions)
    }
}

/// Provenance row matches a required source (spec §0.5).
fn source_row_matches(row: &Value, req: &ExpectedSource) -> bool {
    str_of(row, "source_sha256") == Some(req.source_sha256.as_str())
        && str_of(row, "locator") == Some(req.locator.as_str())
        && req
            .optional_keys()
            .iter()
            .all(|(key, want)| want.is_none_or(|w| str_of(row, key) == Some(w)))
}

/// Rows of a package area (`budget.omissions` for omissions).
fn area_rows(p: &Value, area: IssueArea) -> Option<&Value> {
    match area {
        IssueArea::Omissions => p.get("budget").and_then(|b| b.get("omissions")),
        IssueArea::MissingEvidence => p.get("missing_evidence"),
        IssueArea::Conflicts => p.get("conflicts"),
    }
}

/// A row with the issue's code whose ids include every expected id.
pub(crate) fn issue_hits<'p>(p: &'p Value, issue: &ExpectedIssue) -> Vec<&'p Value> {
    items(area_rows(p, issue.area))
        .iter()
        .filter(|row| {
            str_of(row, "code") == Some(issue.code.as_str()) && {
                let ids: HashSet<&str> = strings(items(row.get("ids"))).collect();
                issue.ids.iter().all(|id| ids.contains(id.as_str()))
            }
        })
        .collect()
}

/// All rows of an issue's area, for the control `diagnostic:` check.
pub(crate) fn area_value(p: &Value, area: IssueArea) -> Value {
    area_rows(p, area).cloned().unwrap_or(Value::Null)
}

/// Actual package bytes (spec §0.3): the length of its canonical (equivalently compact) JSON.
pub(crate) fn package_bytes(p: &Value) -> Option<u64> {
    canonical(p).map(|s| s.len() as u64)
}

/// Whether `captured_at` is a date ECMAScript's `Date.parse` accepts: the ECMAScript date-time
/// string format (`YYYY`, `YYYY-MM`, `YYYY-MM-DD`, optionally `THH:mm`, `:ss`, `.sss` and `Z`
/// or `±HH:mm`), which covers RFC 3339. Implementation-specific fallbacks (`Sep 15 2026`) are
/// not accepted; see DEVIATIONS.md.
pub fn is_parseable_date(s: &str) -> bool {
    let b = s.as_bytes();
    let num = |r: std::ops::Range<usize>| okf_engine::validate::ascii_number(b, r);
    let mut i = 0;
    let (year_len, signed) = match b.first() {
        Some(b'+' | b'-') => (6, true),
        _ => (4, false),
    };
    let start = usize::from(signed);
    if num(start..start + year_len).is_none() {
        return false;
    }
    if signed && b.get(1..7) == Some(b"000000") && b[0] == b'-' {
        return false;
    }
    i += start + year_len;
    let mut month = 1;
    let mut day = 1;
    if b.get(i) == Some(&b'-') {
        let Some(m) = num(i + 1..i + 3) else {
            return false;
        };
        month = m;
        i += 3;
        if b.get(i) == Some(&b'-') {
            let Some(d) = num(i + 1..i + 3) else {
                return false;
            };
            day = d;
            i += 3;
        }
    }
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) {
        return false;
    }
    if i == b.len() {
        return true;
    }
    if b.get(i) != Some(&b'T') {
        return false;
    }
    let (Some(hour), Some(minute)) = (num(i + 1..i + 3), num(i + 4..i + 6)) else {
        return false;
    };
    if b.get(i + 3) != Some(&b':') || hour > 24 || minute > 59 {
        return false;
    }
    i += 6;
    if b.get(i) == Some(&b':') {
        match num(i + 1..i + 3) {
            Some(sec) if sec <= 59 => i += 3,
            _ => return false,
        }
        if b.get(i) == Some(&b'.') {
            let digits = b[i + 1..].iter().take_while(|c| c.is_ascii_digit()).count();
            if digits == 0 {
                return false;
            }
            i += 1 + digits;
        }
    }
    i == b.len() || okf_engine::validate::is_utc_offset_suffix(b, i)
}

/// Assesses package `p` against `case` and the index `index` it was assembled from.
///
/// `binding_sha256` is the binding override `B.index_sha256` (spec §1.5): when given and
/// non-empty, `P.binding.index_sha256` must equal it; otherwise it must equal the canonical
/// digest of the index.
pub fn assess(
    p: &Value,
    case: &Case,
    index: &ContextIndex,
    binding_sha256: Option<&str>,
) -> Assessment {
    let inputs = Inputs {
        package: p,
        case,
        index,
        tables: Tables::new(p),
        // One canonical pass gives both the actual byte count (E) and the recomputed
        // identity (F).
        identity: package_identity(p).ok(),
    };
    // The typed assertion checks of B are reported under G, after nothing else of G.
    let (semantic, assertion_boundaries) = semantic_checks(&inputs);
    let mut stages: [Vec<Check>; 8] = Default::default();
    stages[StageId::A.position()] = source_checks(&inputs);
    stages[StageId::B.position()] = semantic;
    stages[StageId::C.position()] = retrieval_checks(&inputs);
    stages[StageId::D.position()] = traversal_checks(&inputs);
    stages[StageId::E.position()] = assembly_checks(&inputs);
    stages[StageId::F.position()] = provenance_checks(&inputs, binding_sha256);
    stages[StageId::G.position()] = boundary_checks(&inputs, assertion_boundaries);
    stages[StageId::H.position()] = answerability_checks(&inputs);
    let stages: Vec<Stage> = StageId::ALL
        .into_iter()
        .zip(stages)
        .map(|(id, checks)| Stage {
            id,
            label: id.label(),
            status: Status::from_bool(checks.iter().all(|c| c.status.passed())),
            checks,
        })
        .collect();
    Assessment {
        case_id: case.id.clone(),
        status: Status::from_bool(stages.iter().all(|s| s.status.passed())),
        stages,
    }
}

/// What every stage reads.
struct Inputs<'p> {
    /// The package judged, as plain JSON.
    package: &'p Value,
    /// The case it is judged against.
    case: &'p Case,
    /// The index it was assembled from.
    index: &'p ContextIndex,
    /// The package's selections, relationships and requirements, by id.
    tables: Tables<'p>,
    /// The package's identity recomputed from its content, when it has one.
    identity: Option<okf_engine::PackageIdentity>,
}

/// Stage A, source: source and passage identities are present, exact and unaltered.
fn source_checks(x: &Inputs<'_>) -> Vec<Check> {
    let Inputs {
        package,
        index,
        tables,
        ..
    } = x;
    let expected = &x.case.expected;
    let doc = index.document();
    let mut checks = Vec::new();
    let bundle = serde_json::to_value(&doc.bundle).unwrap_or(Value::Null);
    checks.push(Check::maybe(
        "same-bundle-identity",
        canon_eq(package.get("bundle"), Some(&bundle)),
        Some(bundle.clone()),
        package.get("bundle").cloned(),
    ));
    checks.push(Check::new(
        "unique-selected-records",
        tables.selected.len() == tables.rows.len(),
        json!(tables.rows.len()),
        json!(tables.selected.len()),
    ));
    for (id, record) in tables.selected.iter() {
        let indexed = index.record_index(id);
        let ok = indexed.is_some_and(|i| {
            canonical(record).is_some_and(|c| c == index.record_canonical_json(i))
        });
        let note = if indexed.is_some() {
            NOTE_COMPARED
        } else {
            NOTE_NOT_IN_INDEX
        };
        checks.push(Check::new(
            format!("source-record:{id}"),
            ok,
            json!(NOTE_EXACT_RECORD),
            json!(note),
        ));
    }
    for req in &expected.sources {
        let record = tables.selected.get(&req.record_id);
        let ok = record.is_some_and(|r| {
            str_of(r, "route") == Some(req.route.as_str())
                && items(r.get("provenance"))
                    .iter()
                    .any(|row| source_row_matches(row, req))
        });
        let actual = record.map_or(Value::Null, |r| {
            let mut m = serde_json::Map::new();
            for key in ["route", "provenance"] {
                if let Some(v) = r.get(key) {
                    m.insert(key.into(), v.clone());
                }
            }
            Value::Object(m)
        });
        checks.push(Check::new(
            format!("required-source:{}:{}", req.record_id, req.locator),
            ok,
            serde_json::to_value(req).unwrap_or(Value::Null),
            actual,
        ));
    }
    checks
}

/// Stage B, semantic: concepts and typed, directed assertions keep their identities.
/// Also returns the typed assertion checks (status, authority, scope), reported under G.
fn semantic_checks(x: &Inputs<'_>) -> (Vec<Check>, Vec<Check>) {
    let Inputs { index, tables, .. } = x;
    let expected = &x.case.expected;
    let mut checks = Vec::new();
    let mut boundaries = Vec::new();
    for id in &expected.selected_concepts {
        let kind = tables.kind_of(id);
        checks.push(Check::new(
            format!("selected-concept:{id}"),
            kind == Some("concept"),
            json!("concept"),
            json!(kind),
        ));
    }
    checks.push(Check::new(
        "unique-assertions",
        tables.relations.len() == tables.relation_rows,
        json!(tables.relation_rows),
        json!(tables.relations.len()),
    ));
    for (id, rel) in tables.relations.iter() {
        let indexed = index.assertion_index(id);
        let ok = indexed.is_some_and(|i| {
            canonical(rel).is_some_and(|c| c == index.assertion_canonical_json(i))
        });
        let note = if indexed.is_some() {
            NOTE_COMPARED
        } else {
            NOTE_NOT_IN_INDEX
        };
        checks.push(Check::new(
            format!("input-assertion:{id}"),
            ok,
            json!(NOTE_EXACT_ASSERTION),
            json!(note),
        ));
    }
    for req in &expected.assertions {
        let label = req.label();
        let matches: Vec<&Value> = tables
            .relations
            .iter()
            .map(|(_, row)| row)
            .filter(|row| {
                req.id
                    .as_deref()
                    .is_none_or(|id| str_of(row, "id") == Some(id))
                    && str_of(row, "source") == Some(req.source.as_str())
                    && str_of(row, "target") == Some(req.target.as_str())
                    && str_of(row, "predicate") == Some(req.predicate.as_str())
            })
            .collect();
        let ids: Vec<Value> = matches
            .iter()
            .map(|row| row.get("id").cloned().unwrap_or(Value::Null))
            .collect();
        checks.push(Check::new(
            format!("required-assertion:{label}"),
            !matches.is_empty(),
            serde_json::to_value(req).unwrap_or(Value::Null),
            Value::Array(ids),
        ));
        let fields = [
            ("assertion_status", req.assertion_status.map(|s| s.as_str())),
            ("authority_class", req.authority_class.as_deref()),
            ("scope", req.scope.as_deref()),
        ];
        for (field, want) in fields {
            let Some(want) = want else { continue };
            let values: Vec<Value> = matches
                .iter()
                .map(|row| {
                    let v = if field == "authority_class" {
                        row.get("authority").and_then(|a| a.get("class"))
                    } else {
                        row.get(field)
                    };
                    v.cloned().unwrap_or(Value::Null)
                })
                .collect();
            let ok = !values.is_empty() && values.iter().all(|v| v.as_str() == Some(want));
            boundaries.push(Check::new(
                format!("assertion-boundary:{label}:{field}"),
                ok,
                json!(want),
                Value::Array(values),
            ));
        }
    }
    (checks, boundaries)
}

/// Stage C, retrieval: the question resolved the concepts; ambiguity and unknown terms stay explicit.
fn retrieval_checks(x: &Inputs<'_>) -> Vec<Check> {
    let Inputs {
        package,
        case,
        tables,
        ..
    } = x;
    let expected = &case.expected;
    let mut checks = Vec::new();
    let question = str_of(package, "question");
    checks.push(Check::maybe(
        "actual-question",
        question == Some(case.question.as_str()),
        Some(json!(case.question)),
        package.get("question").cloned(),
    ));
    for id in &expected.resolved_concepts {
        checks.push(Check::new(
            format!("resolved-concept:{id}"),
            tables.resolved.contains(id.as_str()),
            json!(id),
            tables.resolution_ids(),
        ));
    }
    for phrase in &expected.ambiguity_phrases {
        let ok = items(package.get("ambiguities"))
            .iter()
            .any(|a| str_of(a, "phrase") == Some(phrase.as_str()));
        checks.push(Check::maybe(
            format!("ambiguous:{phrase}"),
            ok,
            Some(json!(phrase)),
            package.get("ambiguities").cloned(),
        ));
    }
    for term in &expected.unresolved_terms {
        let ok = strings(items(package.get("unresolved_terms"))).any(|t| t == term);
        checks.push(Check::maybe(
            format!("unresolved:{term}"),
            ok,
            Some(json!(term)),
            package.get("unresolved_terms").cloned(),
        ));
    }
    checks
}

/// Stage D, traversal: required paths and chains exist; every selection is reached from a seed.
fn traversal_checks(x: &Inputs<'_>) -> Vec<Check> {
    let Inputs { tables, .. } = x;
    let expected = &x.case.expected;
    let mut checks = Vec::new();
    for path in &expected.assertion_paths {
        let value = serde_json::to_value(path).unwrap_or(Value::Null);
        let actual: Vec<Value> = path
            .assertions
            .iter()
            .map(|a| tables.relations.get(a).cloned().unwrap_or(Value::Null))
            .collect();
        checks.push(Check::new(
            format!("required-directed-chain:{}", path_label(&value)),
            tables.included_chain(&value),
            value,
            Value::Array(actual),
        ));
    }
    let all_paths: Vec<&Value> = tables
        .rows
        .iter()
        .flat_map(|row| items(row.get("paths")))
        .collect();
    let all_canonical: Vec<Option<String>> = if expected.paths.is_empty() {
        Vec::new()
    } else {
        all_paths.iter().map(|v| canonical(v)).collect()
    };
    for req in &expected.paths {
        let value = serde_json::to_value(req).unwrap_or(Value::Null);
        let want = canonical(&value);
        let ok = want.is_some() && all_canonical.contains(&want);
        let same_seed: Vec<Value> = all_paths
            .iter()
            .filter(|v| str_of(v, "seed") == Some(req.seed.as_str()))
            .map(|v| (*v).clone())
            .collect();
        checks.push(Check::new(
            format!("required-path:{}", path_label(&value)),
            ok,
            value,
            Value::Array(same_seed),
        ));
    }
    for (r, row) in tables.rows.iter().enumerate() {
        let record_id = row.get("record").and_then(|rec| str_of(rec, "id"));
        let paths = row.get("paths").and_then(Value::as_array);
        let count = paths.map_or(0, Vec::len);
        checks.push(Check::new(
            format!("selection-has-path:{}", record_id.unwrap_or(UNDEFINED)),
            count > 0,
            json!(NOTE_HAS_PATH),
            json!(count),
        ));
        for (pi, path) in paths.into_iter().flatten().enumerate() {
            let ok = PathView::read(path).is_some_and(|v| {
                v.records.first() == Some(&v.seed)
                    && record_id.is_some()
                    && v.records.last().copied() == record_id
                    && tables.resolved.contains(v.seed)
                    && v.hops_retained(&tables.relations)
            });
            checks.push(Check::new(
                format!("valid-directed-path:{r}:{pi}"),
                ok,
                json!(NOTE_VALID_PATH),
                path.clone(),
            ));
        }
    }
    checks
}

/// Stage E, assembly: evidence retained whole; counters and budgets exact and bounded.
fn assembly_checks(x: &Inputs<'_>) -> Vec<Check> {
    let Inputs {
        package,
        tables,
        identity,
        ..
    } = x;
    let expected = &x.case.expected;
    let mut checks = Vec::new();
    for id in &expected.evidence {
        let kind = tables.kind_of(id);
        checks.push(Check::new(
            format!("required-evidence:{id}"),
            kind == Some("evidence"),
            json!(NOTE_WHOLE_EVIDENCE),
            json!(kind),
        ));
    }
    let budget = package.get("budget");
    let budget_field = |key: &str| budget.and_then(|b| b.get(key));
    let used_nodes = budget_field("used_nodes");
    checks.push(Check::maybe(
        "selected-count",
        used_nodes.and_then(Value::as_u64) == Some(tables.rows.len() as u64),
        Some(json!(tables.rows.len())),
        used_nodes.cloned(),
    ));
    let used_relationships = budget_field("used_relationships");
    checks.push(Check::maybe(
        "relationship-count",
        used_relationships.and_then(Value::as_u64) == Some(tables.relations.len() as u64),
        Some(json!(tables.relations.len())),
        used_relationships.cloned(),
    ));
    let actual_bytes = identity.as_ref().map(|i| i.used_bytes);
    let used_bytes = budget_field("used_bytes");
    checks.push(Check::maybe(
        "exact-package-byte-count",
        actual_bytes.is_some() && used_bytes.and_then(Value::as_u64) == actual_bytes,
        actual_bytes.map(|n| json!(n)),
        used_bytes.cloned(),
    ));
    for (used, max) in [
        ("used_nodes", "max_nodes"),
        ("used_relationships", "max_relationships"),
        ("used_bytes", "max_bytes"),
        ("reached_depth", "max_depth"),
    ] {
        let u = budget_field(used);
        let m = budget_field(max);
        let ok = matches!((u.and_then(Value::as_f64), m.and_then(Value::as_f64)), (Some(u), Some(m)) if u <= m);
        checks.push(Check::maybe(
            format!("bounded:{used}"),
            ok,
            Some(json!({ "maximum": m.cloned().unwrap_or(Value::Null) })),
            u.cloned(),
        ));
    }
    if let Some(want) = expected.budget_truncated {
        let truncated = budget_field("truncated");
        checks.push(Check::maybe(
            "budget-truncation",
            truncated.and_then(Value::as_bool) == Some(want),
            Some(json!(want)),
            truncated.cloned(),
        ));
    }
    checks
}

/// Stage F, provenance: binding, package identity, complete provenance and passage digests.
fn provenance_checks(x: &Inputs<'_>, binding_sha256: Option<&str>) -> Vec<Check> {
    let Inputs {
        package,
        index,
        tables,
        identity,
        ..
    } = x;
    let expected = &x.case.expected;
    let mut checks = Vec::new();
    let binding = package.get("binding");
    let bound_sha = binding.and_then(|b| str_of(b, "index_sha256"));
    let bound_url = binding.and_then(|b| b.get("index_url"));
    checks.push(Check::maybe(
        "index-binding-present",
        is_hex64(bound_sha.unwrap_or("")) && bound_url.is_some_and(Value::is_string),
        Some(json!(NOTE_BINDING)),
        binding.cloned(),
    ));
    let expected_sha = match binding_sha256.filter(|s| !s.is_empty()) {
        Some(s) => s,
        None => index.default_binding().index_sha256.as_str(),
    };
    checks.push(Check::maybe(
        "index-binding-exact",
        bound_sha == Some(expected_sha),
        Some(json!(expected_sha)),
        binding.and_then(|b| b.get("index_sha256")).cloned(),
    ));
    let recomputed = identity.as_ref().map(|i| i.context_id.clone());
    let context_id = package.get("context_id");
    checks.push(Check::maybe(
        "context-identity-recomputed",
        recomputed.is_some() && context_id.and_then(Value::as_str) == recomputed.as_deref(),
        recomputed.as_ref().map(|c| json!(c)),
        context_id.cloned(),
    ));
    for req in &expected.sources {
        let record = tables.selected.get(&req.record_id);
        let matching: Vec<&Value> = record
            .map(|r| {
                items(r.get("provenance"))
                    .iter()
                    .filter(|row| source_row_matches(row, req))
                    .collect()
            })
            .unwrap_or_default();
        let complete = matching.iter().any(|row| {
            str_of(row, "url")
                .is_some_and(|u| u.starts_with("http://") || u.starts_with("https://"))
                && str_of(row, "source_sha256").is_some_and(is_hex64)
                && str_of(row, "locator").is_some_and(|l| !l.is_empty())
                && str_of(row, "captured_at").is_some_and(|c| !c.is_empty() && is_parseable_date(c))
        });
        checks.push(Check::new(
            format!(
                "complete-source-provenance:{}:{}",
                req.record_id, req.locator
            ),
            complete,
            json!(NOTE_COMPLETE_PROVENANCE),
            json!(matching),
        ));
        let digest = record
            .and_then(|r| str_of(r, "text"))
            .map(|text| sha256_hex(text.as_bytes()));
        checks.push(Check::new(
            format!("exact-source-passage:{}", req.record_id),
            digest.as_deref() == Some(req.literal_sha256.as_str()),
            json!(req.literal_sha256),
            json!(digest),
        ));
    }
    checks
}

/// Stage G, boundaries: exclusions, scope, limitations, access, boundaries and issues survive.
fn boundary_checks(x: &Inputs<'_>, mut assertion_boundaries: Vec<Check>) -> Vec<Check> {
    let Inputs {
        package,
        case,
        index,
        tables,
        ..
    } = x;
    let expected = &case.expected;
    let doc = index.document();
    let mut checks = Vec::new();
    checks.append(&mut assertion_boundaries);
    for id in &expected.forbidden_records {
        let present = tables.selected.contains(id);
        checks.push(Check::new(
            format!("excluded:{id}"),
            !present,
            json!(NOTE_EXCLUDED),
            json!(present),
        ));
    }
    let metadata_budget = items(package.get("missing_evidence"))
        .iter()
        .any(|row| str_of(row, "code") == Some("metadata_budget"));
    checks.push(Check::maybe(
        "declared-scope-retained",
        str_of(package, "scope") == Some(doc.scope.as_str()) || metadata_budget,
        Some(json!(doc.scope)),
        package.get("scope").cloned(),
    ));
    let package_limitations: HashSet<&str> = strings(items(package.get("limitations"))).collect();
    checks.push(Check::maybe(
        "declared-limitations-retained",
        doc.limitations
            .iter()
            .all(|l| package_limitations.contains(l.as_str()))
            || metadata_budget,
        Some(json!(doc.limitations)),
        package.get("limitations").cloned(),
    ));
    for (id, record) in tables.selected.iter() {
        let access = record.get("access");
        checks.push(Check::maybe(
            format!("public-access:{id}"),
            access.and_then(Value::as_str) == Some("public"),
            Some(json!("public")),
            access.cloned(),
        ));
    }
    for boundary in &expected.boundaries {
        let record = tables.selected.get(&boundary.record_id);
        for (field, want) in &boundary.fields {
            let actual = record.and_then(|r| match field {
                crate::case::BoundaryField::AuthorityClass => {
                    r.get("authority").and_then(|a| a.get("class"))
                }
                other => r.get(other.name()),
            });
            let want = json!(want);
            checks.push(Check::new(
                format!("boundary:{}:{}", boundary.record_id, field.name()),
                canon_eq(actual, Some(&want)),
                want,
                actual.cloned().unwrap_or(Value::Null),
            ));
        }
    }
    for issue in &expected.issues {
        let hits = issue_hits(package, issue);
        checks.push(Check::new(
            format!(
                "issue:{}:{}:{}",
                issue.area.as_str(),
                issue.code,
                issue.ids.join(",")
            ),
            !hits.is_empty(),
            serde_json::to_value(issue).unwrap_or(Value::Null),
            json!(hits),
        ));
    }
    checks
}

/// Stage H, answerability: outcome, requirement declarations, missing items, sufficiency.
fn answerability_checks(x: &Inputs<'_>) -> Vec<Check> {
    let Inputs {
        package,
        index,
        tables,
        ..
    } = x;
    let expected = &x.case.expected;
    let doc = index.document();
    let mut checks = Vec::new();
    let status = package.get("evidence_status");
    checks.push(Check::maybe(
        "evidence-status",
        status.and_then(Value::as_str) == Some(expected.evidence_status.as_str()),
        Some(json!(expected.evidence_status.as_str())),
        status.cloned(),
    ));
    let ai_answer = package.get("ai_answer");
    checks.push(Check::maybe(
        "no-model-answer",
        ai_answer.is_some_and(Value::is_null),
        Some(Value::Null),
        ai_answer.cloned(),
    ));
    for id in &expected.requirements {
        let row = tables.requirements.get(id);
        checks.push(Check::new(
            format!("requirement:{id}"),
            row.is_some(),
            json!(NOTE_ASSESSED),
            row.cloned().unwrap_or(Value::Null),
        ));
    }
    for (id, row) in tables.requirements.iter() {
        let declaration = match row {
            Value::Object(m) => {
                let mut m = m.clone();
                m.remove("status");
                m.remove("missing");
                Value::Object(m)
            }
            other => other.clone(),
        };
        let indexed = doc
            .requirements
            .iter()
            .rev()
            .find(|r| r.id == id)
            .and_then(|r| serde_json::to_value(r).ok());
        checks.push(Check::new(
            format!("requirement-declaration:{id}"),
            indexed
                .as_ref()
                .is_some_and(|i| canon_eq(Some(i), Some(&declaration))),
            indexed.unwrap_or(Value::Null),
            declaration,
        ));
    }
    for req in &expected.requirement_missing {
        let row = tables.requirements.get(&req.id);
        let ok = row.is_some_and(|r| {
            str_of(r, "status") == Some("insufficient") && {
                let missing: HashSet<&str> = strings(items(r.get("missing"))).collect();
                req.missing.iter().all(|m| missing.contains(m.as_str()))
            }
        });
        checks.push(Check::new(
            format!("missing-requirement:{}", req.id),
            ok,
            serde_json::to_value(req).unwrap_or(Value::Null),
            row.cloned().unwrap_or(Value::Null),
        ));
    }
    if status.and_then(Value::as_str) == Some("sufficient") {
        sufficiency_checks(package, tables, &mut checks);
    }
    checks
}

/// The five preconditions of a `sufficient` package (spec §2.8 step 6).
fn sufficiency_checks(package: &Value, tables: &Tables<'_>, checks: &mut Vec<Check>) {
    let mut covered: Vec<&str> = Vec::new();
    let mut seen: HashSet<&str> = HashSet::new();
    for (_, row) in tables.requirements.iter() {
        for id in strings(items(row.get("when_all"))).chain(strings(items(row.get("covers")))) {
            if seen.insert(id) {
                covered.push(id);
            }
        }
    }
    checks.push(Check::new(
        "sufficiency-covers-all-resolved-concepts",
        tables.resolutions.iter().all(|id| seen.contains(id)),
        tables.resolution_ids(),
        json!(covered),
    ));
    checks.push(Check::new(
        "sufficiency-has-declared-requirement",
        tables.requirements.len() > 0,
        json!(NOTE_HAS_REQUIREMENT),
        json!(tables.requirements.len()),
    ));
    let rows: Vec<Value> = tables.requirements.iter().map(|(_, r)| r.clone()).collect();
    let retained = tables.requirements.iter().all(|(_, r)| {
        str_of(r, "status") == Some("supported-within-declared-scope")
            && r.get("missing")
                .and_then(Value::as_array)
                .is_some_and(Vec::is_empty)
            && strings(items(r.get("required"))).all(|id| tables.selected.contains(id))
            && items(r.get("required")).iter().all(Value::is_string)
    });
    checks.push(Check::new(
        "sufficiency-retains-required-evidence",
        retained,
        json!(NOTE_REQUIRED_RETAINED),
        Value::Array(rows),
    ));
    let required_paths: Vec<&Value> = tables
        .requirements
        .iter()
        .flat_map(|(_, r)| items(r.get("required_paths")))
        .collect();
    checks.push(Check::new(
        "sufficiency-retains-required-paths",
        required_paths
            .iter()
            .all(|path| tables.included_chain(path)),
        json!(NOTE_PATHS_RETAINED),
        json!(required_paths),
    ));
    let budget = package.get("budget");
    let truncated = budget.and_then(|b| b.get("truncated"));
    let empty = |v: Option<&Value>| v.and_then(Value::as_array).is_some_and(Vec::is_empty);
    let missing = package.get("missing_evidence");
    let conflicts = package.get("conflicts");
    let ambiguities = package.get("ambiguities");
    checks.push(Check::new(
        "sufficiency-without-omissions-or-conflicts",
        truncated.and_then(Value::as_bool) == Some(false)
            && empty(missing)
            && empty(conflicts)
            && empty(ambiguities),
        json!(NOTE_NOTHING_OMITTED),
        json!({
            "truncated": truncated,
            "missing": missing,
            "conflicts": conflicts,
            "ambiguities": ambiguities,
        }),
    ));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordered_map_keeps_first_position_and_last_value() {
        let a = json!(1);
        let b = json!(2);
        let c = json!(3);
        let mut m = OrderedMap::new();
        m.insert("x", &a);
        m.insert("y", &b);
        m.insert("x", &c);
        let entries: Vec<(&str, &Value)> = m.iter().collect();
        assert_eq!(entries, vec![("x", &c), ("y", &b)]);
    }

    #[test]
    fn captured_at_accepts_the_ecmascript_date_time_format() {
        for ok in [
            "2026-09-15T19:45:22.073369Z",
            "2026-09-15T14:21:01Z",
            "2026-09-15",
            "2026-09",
            "2026",
            "2026-09-15T14:21",
            "2026-09-15T14:21:01+01:00",
            "+002026-09-15",
        ] {
            assert!(is_parseable_date(ok), "{ok}");
        }
        for bad in [
            "",
            "yesterday",
            "2026-13-01",
            "2026-09-15 14:21:01",
            "2026-09-15T25:00",
            "15/09/2026",
            "2026-09-15T14:21:01.Z",
            "-000000-01-01",
        ] {
            assert!(!is_parseable_date(bad), "{bad}");
        }
    }

    #[test]
    fn canonical_equality_treats_absent_and_null_apart() {
        assert!(canon_eq(None, None));
        assert!(!canon_eq(None, Some(&Value::Null)));
        assert!(canon_eq(
            Some(&json!({"a":1,"b":2})),
            Some(&json!({"b":2,"a":1}))
        ));
        assert!(!canon_eq(Some(&json!([1, 2])), Some(&json!([2, 1]))));
    }
}
