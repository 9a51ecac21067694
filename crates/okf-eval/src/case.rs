//! The evaluation case `okf-context-evaluation-case.v1` (spec §1.1–§1.2), typed.
//!
//! Every object is closed (`deny_unknown_fields`), and [`Case::from_slice`] also applies the
//! rules of the published schema that serde cannot express (the `schema` constant, non-empty
//! strings, 64-hex digests). `boundaries` entries keep their members in the order written,
//! because the boundary checks follow that order (spec §2.7 step 5).

use crate::error::EvalError;
use okf_engine::canonical::is_hex64;
use okf_engine::model::PathSpec;
use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::{Deserialize, Serialize};
use std::fmt;

/// The `schema` value of an evaluation case.
pub const CASE_SCHEMA: &str = "okf-context-evaluation-case.v1";

/// An evaluation case: a question and what the assessor expects of its package.
///
/// The expectations are never passed to the engine; they only judge what it produced.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Case {
    /// Always [`CASE_SCHEMA`].
    pub schema: String,
    /// Case id, reported with every result.
    pub id: String,
    /// Short title (not read by the assessor).
    pub title: String,
    /// The question assembled and checked (stage C `actual-question`).
    pub question: String,
    /// Description (not read by the assessor).
    pub description: String,
    /// Scope of the case (not read by the assessor).
    pub scope: String,
    /// `source-backed` or `synthetic` (not read by the assessor).
    pub fixture_kind: FixtureKind,
    /// What the package must contain.
    pub expected: Expected,
    /// Limitations of the case (not read by the assessor).
    pub limitations: Vec<String>,
}

/// Whether a case rests on real sources or on invented data.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FixtureKind {
    /// Built from captured source material.
    SourceBacked,
    /// Invented for the test.
    Synthetic,
}

/// An `evidence_status` value as written in cases and controls.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ExpectedStatus {
    /// `sufficient`.
    Sufficient,
    /// `insufficient`.
    Insufficient,
    /// `conflicting`.
    Conflicting,
}

impl ExpectedStatus {
    /// The wire value.
    pub fn as_str(self) -> &'static str {
        match self {
            ExpectedStatus::Sufficient => "sufficient",
            ExpectedStatus::Insufficient => "insufficient",
            ExpectedStatus::Conflicting => "conflicting",
        }
    }
}

/// The package area an expected issue is looked for in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IssueArea {
    /// `P.missing_evidence`.
    MissingEvidence,
    /// `P.conflicts`.
    Conflicts,
    /// `P.budget.omissions`.
    Omissions,
}

impl IssueArea {
    /// The wire value.
    pub fn as_str(self) -> &'static str {
        match self {
            IssueArea::MissingEvidence => "missing_evidence",
            IssueArea::Conflicts => "conflicts",
            IssueArea::Omissions => "omissions",
        }
    }
}

/// An expected issue `{area, code, ids}`: some row of `area` must have this code and carry
/// every one of `ids` (a subset test; empty `ids` match any row with the code).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpectedIssue {
    /// Where to look.
    pub area: IssueArea,
    /// Exact issue code.
    pub code: String,
    /// Ids the matching row must include.
    pub ids: Vec<String>,
}

/// The `expected` block of a case (spec §1.2).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expected {
    /// Concepts that must be resolved (stage C, subset).
    pub resolved_concepts: Vec<String>,
    /// Concepts that must be selected as `kind: concept` (stage B).
    pub selected_concepts: Vec<String>,
    /// Required sources (stage A route and identity, stage F completeness and digest).
    pub sources: Vec<ExpectedSource>,
    /// Required relationships (stage B) and their boundary fields (stage G).
    pub assertions: Vec<ExpectedAssertion>,
    /// Paths that must equal a retained path exactly (stage D).
    pub paths: Vec<PathSpec>,
    /// Records that must be selected as `kind: evidence` (stage E).
    pub evidence: Vec<String>,
    /// Records that must not be selected (stage G).
    pub forbidden_records: Vec<String>,
    /// Requirements that must be assessed (stage H, subset).
    pub requirements: Vec<String>,
    /// Issues that must be reported (stage G).
    pub issues: Vec<ExpectedIssue>,
    /// Record boundary fields (stage G), in the order written.
    pub boundaries: Vec<Boundary>,
    /// The exact evidence status (stage H).
    pub evidence_status: ExpectedStatus,
    /// Phrases that must be reported as ambiguous (stage C).
    #[serde(default)]
    pub ambiguity_phrases: Vec<String>,
    /// Terms that must be reported as unresolved (stage C).
    #[serde(default)]
    pub unresolved_terms: Vec<String>,
    /// Exact `budget.truncated`, when given (stage E).
    #[serde(default)]
    pub budget_truncated: Option<bool>,
    /// Chains that must be included in the retained graph (stage D).
    #[serde(default)]
    pub assertion_paths: Vec<PathSpec>,
    /// Requirements that must be insufficient with at least these missing ids (stage H).
    #[serde(default)]
    pub requirement_missing: Vec<ExpectedRequirementMissing>,
    /// Specialist review the package must carry (stage R, additive): checked on the package
    /// in the richer profile, where each requirement says how much of it is approved.
    #[serde(default)]
    pub review: Option<ExpectedReview>,
}

/// `expected.review`: which requirements a specialist must have approved as a whole (every
/// item of the requirement's closure approved, none stale). Review never changes the evidence
/// status, so this is checked apart from it, in its own stage.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpectedReview {
    /// Requirements that must read `approved`.
    #[serde(default)]
    pub approved: Vec<String>,
    /// Every requirement the package assesses must read `approved`.
    #[serde(default)]
    pub every_requirement_approved: bool,
}

/// A required source (spec §1.2 `sources`, §0.5).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpectedSource {
    /// The record that must be selected.
    pub record_id: String,
    /// Its exact route.
    pub route: String,
    /// Digest of the source document, matched against a provenance row.
    pub source_sha256: String,
    /// Locator, matched against the same provenance row.
    pub locator: String,
    /// Digest of the record text; the row must carry it and the text must hash to it.
    pub literal_sha256: String,
    /// Optional exact source URL of the row.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Optional exact capture time of the row.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub captured_at: Option<String>,
    /// Optional exact source date of the row.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_date: Option<String>,
    /// Optional exact source date kind of the row.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_date_kind: Option<String>,
}

impl ExpectedSource {
    /// The optional provenance keys a matching row must also equal, in the order of §0.5.
    pub fn optional_keys(&self) -> [(&'static str, Option<&str>); 5] {
        [
            ("literal_sha256", Some(self.literal_sha256.as_str())),
            ("url", self.url.as_deref()),
            ("captured_at", self.captured_at.as_deref()),
            ("source_date", self.source_date.as_deref()),
            ("source_date_kind", self.source_date_kind.as_deref()),
        ]
    }
}

/// A required relationship (spec §1.2 `assertions`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpectedAssertion {
    /// Exact assertion id, when given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Source record id.
    pub source: String,
    /// Target record id.
    pub target: String,
    /// Predicate IRI.
    pub predicate: String,
    /// Status every match must have.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub assertion_status: Option<AssertionStatusName>,
    /// `authority.class` every match must have.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authority_class: Option<String>,
    /// Scope every match must have.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
}

impl ExpectedAssertion {
    /// `id` if given, else `<source>-><target>` (the check label of spec §2.2 step 4).
    pub fn label(&self) -> String {
        match &self.id {
            Some(id) => id.clone(),
            None => format!("{}->{}", self.source, self.target),
        }
    }
}

/// An `assertion_status` value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AssertionStatusName {
    /// `official`.
    Official,
    /// `normalized`.
    Normalized,
    /// `inferred`.
    Inferred,
    /// `model-derived`.
    ModelDerived,
}

impl AssertionStatusName {
    /// The wire value.
    pub fn as_str(self) -> &'static str {
        match self {
            AssertionStatusName::Official => "official",
            AssertionStatusName::Normalized => "normalized",
            AssertionStatusName::Inferred => "inferred",
            AssertionStatusName::ModelDerived => "model-derived",
        }
    }
}

/// A requirement that must be insufficient with at least these missing ids.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpectedRequirementMissing {
    /// Requirement id.
    pub id: String,
    /// Ids that must be in the row's `missing`.
    pub missing: Vec<String>,
}

/// A boundary field of a record (spec §1.2 `boundaries`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BoundaryField {
    /// `record.scope`.
    Scope,
    /// `record.assertion_status`.
    AssertionStatus,
    /// `record.authority.class`.
    AuthorityClass,
    /// `record.rights`.
    Rights,
    /// `record.access`.
    Access,
    /// `record.review_status`.
    ReviewStatus,
}

impl BoundaryField {
    const ALL: [BoundaryField; 6] = [
        BoundaryField::Scope,
        BoundaryField::AssertionStatus,
        BoundaryField::AuthorityClass,
        BoundaryField::Rights,
        BoundaryField::Access,
        BoundaryField::ReviewStatus,
    ];

    /// The member name in the case file (and in check ids).
    pub fn name(self) -> &'static str {
        match self {
            BoundaryField::Scope => "scope",
            BoundaryField::AssertionStatus => "assertion_status",
            BoundaryField::AuthorityClass => "authority_class",
            BoundaryField::Rights => "rights",
            BoundaryField::Access => "access",
            BoundaryField::ReviewStatus => "review_status",
        }
    }

    /// The values the schema allows, where it restricts them.
    fn allowed(self) -> Option<&'static [&'static str]> {
        match self {
            BoundaryField::AssertionStatus => {
                Some(&["official", "normalized", "inferred", "model-derived"])
            }
            BoundaryField::Access => Some(&["public", "restricted"]),
            _ => None,
        }
    }
}

/// Expected boundary fields of one record, in the order the case file writes them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Boundary {
    /// The record.
    pub record_id: String,
    /// `(field, expected value)` pairs in document order, `record_id` excluded.
    pub fields: Vec<(BoundaryField, String)>,
}

impl<'de> Deserialize<'de> for Boundary {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct BoundaryVisitor;

        impl<'de> Visitor<'de> for BoundaryVisitor {
            type Value = Boundary;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a boundary object {record_id, scope?, assertion_status?, authority_class?, rights?, access?, review_status?}")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Boundary, A::Error> {
                const NAMES: [&str; 7] = [
                    "record_id",
                    "scope",
                    "assertion_status",
                    "authority_class",
                    "rights",
                    "access",
                    "review_status",
                ];
                let mut record_id: Option<String> = None;
                let mut fields: Vec<(BoundaryField, String)> = Vec::new();
                while let Some(key) = map.next_key::<String>()? {
                    if key == "record_id" {
                        if record_id.is_some() {
                            return Err(de::Error::duplicate_field("record_id"));
                        }
                        record_id = Some(map.next_value()?);
                        continue;
                    }
                    let Some(field) = BoundaryField::ALL.into_iter().find(|f| f.name() == key)
                    else {
                        return Err(de::Error::unknown_field(&key, &NAMES));
                    };
                    if fields.iter().any(|(f, _)| *f == field) {
                        return Err(de::Error::duplicate_field(field.name()));
                    }
                    let value: String = map.next_value()?;
                    if let Some(allowed) = field.allowed()
                        && !allowed.contains(&value.as_str())
                    {
                        return Err(de::Error::unknown_variant(&value, allowed));
                    }
                    fields.push((field, value));
                }
                let record_id = record_id.ok_or_else(|| de::Error::missing_field("record_id"))?;
                Ok(Boundary { record_id, fields })
            }
        }

        deserializer.deserialize_map(BoundaryVisitor)
    }
}

/// Parses JSON bytes into a typed document, naming the JSON path of a shape error.
pub(crate) fn parse<T: serde::de::DeserializeOwned>(
    what: &'static str,
    bytes: &[u8],
) -> Result<T, EvalError> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let value: T = serde_path_to_error::deserialize(&mut de).map_err(|e| EvalError::Shape {
        what,
        path: e.path().to_string(),
        message: e.inner().to_string(),
    })?;
    de.end().map_err(|e| EvalError::Shape {
        what,
        path: ".".into(),
        message: e.to_string(),
    })?;
    Ok(value)
}

/// Collects the first schema-rule failure of a document.
pub(crate) struct Rules {
    what: &'static str,
    first: Option<EvalError>,
}

impl Rules {
    pub(crate) fn new(what: &'static str) -> Self {
        Rules { what, first: None }
    }

    pub(crate) fn fail(&mut self, path: impl Into<String>, rule: impl Into<String>) {
        if self.first.is_none() {
            self.first = Some(EvalError::Rule {
                what: self.what,
                path: path.into(),
                rule: rule.into(),
            });
        }
    }

    pub(crate) fn require(&mut self, ok: bool, path: impl Into<String>, rule: &str) {
        if !ok {
            self.fail(path, rule);
        }
    }

    pub(crate) fn non_empty(&mut self, path: impl Into<String>, s: &str) {
        self.require(!s.is_empty(), path, "must not be empty");
    }

    pub(crate) fn non_empty_items(&mut self, path: &str, items: &[String]) {
        for (i, s) in items.iter().enumerate() {
            self.non_empty(format!("{path}[{i}]"), s);
        }
    }

    pub(crate) fn hex64(&mut self, path: impl Into<String>, s: &str) {
        self.require(is_hex64(s), path, "must be 64 lowercase hex characters");
    }

    pub(crate) fn issues(&mut self, path: &str, issues: &[ExpectedIssue]) {
        for (i, issue) in issues.iter().enumerate() {
            self.non_empty(format!("{path}[{i}].code"), &issue.code);
            self.non_empty_items(&format!("{path}[{i}].ids"), &issue.ids);
        }
    }

    pub(crate) fn finish(self) -> Result<(), EvalError> {
        match self.first {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

impl Case {
    /// Parses and checks a case file (its raw bytes).
    pub fn from_slice(bytes: &[u8]) -> Result<Case, EvalError> {
        let case: Case = parse("case", bytes)?;
        case.check()?;
        Ok(case)
    }

    /// Applies the schema rules serde does not express; returns the first failure.
    pub fn check(&self) -> Result<(), EvalError> {
        let mut r = Rules::new("case");
        r.require(
            self.schema == CASE_SCHEMA,
            "schema",
            "must be okf-context-evaluation-case.v1",
        );
        r.non_empty("id", &self.id);
        r.non_empty("title", &self.title);
        r.non_empty("question", &self.question);
        let e = &self.expected;
        for (name, items) in [
            ("resolved_concepts", &e.resolved_concepts),
            ("selected_concepts", &e.selected_concepts),
            ("evidence", &e.evidence),
            ("forbidden_records", &e.forbidden_records),
            ("requirements", &e.requirements),
        ] {
            r.non_empty_items(&format!("expected.{name}"), items);
        }
        for (i, s) in e.sources.iter().enumerate() {
            let p = format!("expected.sources[{i}]");
            r.non_empty(format!("{p}.record_id"), &s.record_id);
            r.non_empty(format!("{p}.route"), &s.route);
            r.non_empty(format!("{p}.locator"), &s.locator);
            r.hex64(format!("{p}.source_sha256"), &s.source_sha256);
            r.hex64(format!("{p}.literal_sha256"), &s.literal_sha256);
            for (key, value) in s.optional_keys().into_iter().skip(1) {
                if let Some(v) = value {
                    r.non_empty(format!("{p}.{key}"), v);
                }
            }
        }
        for (i, a) in e.assertions.iter().enumerate() {
            let p = format!("expected.assertions[{i}]");
            for (key, value) in [
                ("id", a.id.as_deref()),
                ("source", Some(a.source.as_str())),
                ("target", Some(a.target.as_str())),
                ("predicate", Some(a.predicate.as_str())),
                ("authority_class", a.authority_class.as_deref()),
                ("scope", a.scope.as_deref()),
            ] {
                if let Some(v) = value {
                    r.non_empty(format!("{p}.{key}"), v);
                }
            }
        }
        for (name, paths) in [("paths", &e.paths), ("assertion_paths", &e.assertion_paths)] {
            for (i, path) in paths.iter().enumerate() {
                let p = format!("expected.{name}[{i}]");
                r.non_empty(format!("{p}.seed"), &path.seed);
                r.non_empty_items(&format!("{p}.assertions"), &path.assertions);
                r.non_empty_items(&format!("{p}.records"), &path.records);
            }
        }
        for (i, m) in e.requirement_missing.iter().enumerate() {
            let p = format!("expected.requirement_missing[{i}]");
            r.non_empty(format!("{p}.id"), &m.id);
            r.non_empty_items(&format!("{p}.missing"), &m.missing);
        }
        r.issues("expected.issues", &e.issues);
        for (i, b) in e.boundaries.iter().enumerate() {
            r.non_empty(format!("expected.boundaries[{i}].record_id"), &b.record_id);
        }
        r.finish()
    }
}
