//! Profile + captures → `okf-context-index.v1`.

use crate::capture::{self, Capture, CaptureFile};
use crate::compose::{self, ResolvedGap, Shift};
use crate::error::{Error, Rule, line_of};
use crate::origin::{Origin, Origins};
use crate::profile::{
    AssertionDecl, AssertionProvenance, Citation, ComposeDecl, Defaults, DocumentDecl, IndexDecl,
    ItemDefaults, MAX_EXCERPT_PAGES, RecordDecl, RequirementDecl, vocabulary_from,
};
use crate::review::{ReviewFile, StaleReview};
use crate::{ProfileFile, sha256_hex};
use okf_engine::ContextIndex;
use okf_engine::model::{
    Access, Assertion, ContextGuard, Gap, IndexDocument, PathSpec, Provenance, Record, RecordKind,
    Regime, Requirement,
};
use std::collections::{BTreeMap, HashMap, HashSet};
use toml::Spanned;

/// The file every profile folder must have; it alone may declare `[index]`.
pub const PROFILE_FILE: &str = "profile.toml";

/// A compiled index.
#[derive(Debug, Clone)]
pub struct Built {
    /// The typed index.
    pub index: IndexDocument,
    /// Its canonical JSON followed by a newline: the bytes to write.
    pub json: String,
    /// With a base: the profile's declared gaps whose paragraphs the base holds, resolved to
    /// the base records (empty without a base).
    pub resolved_gaps: Vec<ResolvedGap>,
    /// Review decisions not applied because their item changed since it was reviewed.
    pub stale_reviews: Vec<StaleReview>,
}

struct ParsedFile {
    name: String,
    text: String,
    body: crate::profile::ProfileFile,
}

impl ParsedFile {
    fn origin<T>(&self, item: &Spanned<T>) -> Origin {
        Origin {
            file: self.name.clone(),
            line: line_of(&self.text, item.span().start),
        }
    }
}

const PREDICATES: [(&str, &str); 5] = [
    ("requires", "http://purl.org/dc/terms/requires"),
    ("references", "http://purl.org/dc/terms/references"),
    ("related", "http://www.w3.org/2004/02/skos/core#related"),
    ("narrower", "http://www.w3.org/2004/02/skos/core#narrower"),
    ("broader", "http://www.w3.org/2004/02/skos/core#broader"),
];

/// Compiles a profile and the captures it cites. `profile` files are ordered `profile.toml`
/// first, then by name (byte order), whatever order the caller gives them in.
pub fn build(profile: &[ProfileFile], captures: &[CaptureFile]) -> Result<Built, Error> {
    build_onto(profile, captures, None)
}

/// Compiles a profile as [`build`] does and, with `base` (the bytes of a published index
/// file), composes it onto that index as the profile's `[compose]` declares: the base's items
/// are kept as they are, the profile's are added after them, and the index lists both parts
/// (docs/authoring.md "Composition").
pub fn build_onto(
    profile: &[ProfileFile],
    captures: &[CaptureFile],
    base_index: Option<&[u8]>,
) -> Result<Built, Error> {
    build_reviewed(profile, captures, base_index, &[])
}

/// Compiles (and, with `base_index`, composes) as [`build_onto`] does, then folds in the
/// profile's review decisions (`reviews/*.json`, docs/authoring.md "The review loop"): each
/// current decision is recorded in the index's `reviews`; a stale one is returned in
/// [`Built::stale_reviews`] and not applied; a decision that breaks a rule is an error naming
/// its file and field, and nothing is built. Without decisions the index is exactly
/// [`build_onto`]'s.
pub fn build_reviewed(
    profile: &[ProfileFile],
    captures: &[CaptureFile],
    base_index: Option<&[u8]>,
    reviews: &[ReviewFile],
) -> Result<Built, Error> {
    let files = parse_files(profile)?;
    let captures = capture::load(captures)?;
    let (index_decl, index_origin) = index_section(&files)?;
    let base = index_decl.base.clone();
    let profile_defaults = files[0].body.defaults.clone().unwrap_or_default();
    let mut c = Compiler {
        base,
        captures,
        documents: BTreeMap::new(),
        records: Vec::new(),
        record_origins: Vec::new(),
        record_kind: HashMap::new(),
        assertions: Vec::new(),
        assertion_origins: Vec::new(),
        assertion_ends: HashMap::new(),
        requirements: Vec::new(),
        requirement_origins: Vec::new(),
        gaps: HashSet::new(),
        regime_ids: Vec::new(),
    };
    for f in &files {
        for d in &f.body.document {
            c.declare_document(d.get_ref(), f.origin(d))?;
        }
    }
    // Each file's defaults over the profile's, merged once for its records and assertions.
    let file_defaults: Vec<Defaults> = files
        .iter()
        .map(|f| match &f.body.defaults {
            Some(d) if f.name != PROFILE_FILE => d.over(&profile_defaults),
            _ => profile_defaults.clone(),
        })
        .collect();
    for (f, defaults) in files.iter().zip(&file_defaults) {
        for r in &f.body.record {
            c.record(r.get_ref(), defaults, f.origin(r))?;
        }
    }
    c.check_conflicts()?;
    // Regime ids are known before gaps and assertions, which may name them (issue 40).
    c.regime_ids = files
        .iter()
        .flat_map(|f| &f.body.regime)
        .map(|r| c.reference(&r.get_ref().route))
        .collect();
    let mut gaps = Vec::new();
    let mut gap_origins = Vec::new();
    for f in &files {
        for g in &f.body.gap {
            gaps.push(c.gap(g.get_ref(), f.origin(g))?);
            gap_origins.push(f.origin(g));
        }
    }
    for (f, defaults) in files.iter().zip(&file_defaults) {
        for a in &f.body.assertion {
            c.assertion(a.get_ref(), &defaults.assertion, f.origin(a))?;
        }
    }
    let mut regimes = Vec::new();
    let mut regime_origins = Vec::new();
    for f in &files {
        for r in &f.body.regime {
            regimes.push(c.regime(r.get_ref(), f.origin(r))?);
            regime_origins.push(f.origin(r));
        }
    }
    c.regime_ids = regimes.iter().map(|r| r.id.clone()).collect();
    for f in &files {
        for q in &f.body.requirement {
            c.requirement(q.get_ref(), f.origin(q))?;
        }
    }
    let mut neutral: Vec<String> = Vec::new();
    let mut vocabulary_origin = None;
    for f in &files {
        if let Some(v) = &f.body.vocabulary {
            vocabulary_origin.get_or_insert_with(|| f.origin(v));
            neutral.extend(v.get_ref().neutral.iter().cloned());
        }
    }
    let base_url = c.base.clone();
    let regime_ids = c.regime_ids.clone();
    let mut index = IndexDocument {
        assertions: c.assertions,
        bundle: index_decl.bundle.clone(),
        gaps: (!gaps.is_empty()).then_some(gaps),
        limitations: index_decl.limitations.clone(),
        parts: None,
        records: c.records,
        regimes: (!regimes.is_empty()).then_some(regimes),
        requirements: c.requirements,
        reviews: None,
        schema: "okf-context-index.v1".into(),
        scope: index_decl.scope.clone(),
        vocabulary: vocabulary_from(vocabulary_origin.as_ref().map(|_| neutral)),
    };
    let origins = Origins {
        records: &c.record_origins,
        assertions: &c.assertion_origins,
        requirements: &c.requirement_origins,
        gaps: &gap_origins,
        regimes: &regime_origins,
    };
    // With a base, the profile's items follow the base's: offset the origins' positions.
    let mut shift = Shift::default();
    let mut resolved_gaps = Vec::new();
    if let Some(base_index) = base_index {
        let (decl, origin) = compose_section(&files)?;
        let base_regime = match &decl.base_regime {
            Some(route) => {
                Some(regime_reference(&base_url, &regime_ids, route).map_err(|r| origin.error(r))?)
            }
            None => None,
        };
        let composed =
            compose::onto(index, base_index, decl, base_regime, &origins).map_err(|f| match f {
                compose::Failure::Whole(rule) => origin.error(rule),
                compose::Failure::At(at, rule) => at.error(rule),
            })?;
        shift = composed.shift;
        index = composed.index;
        resolved_gaps = composed.resolved;
    }
    let stale_reviews = if reviews.is_empty() {
        Vec::new()
    } else {
        crate::review::apply(&mut index, reviews)?
    };
    if let Err(e) = ContextIndex::new(index.clone()) {
        let origin = engine_error_origin(&e, &origins, &shift)
            .or_else(|| vocabulary_origin.filter(|_| is_vocabulary_error(&e)))
            .unwrap_or(index_origin);
        return Err(origin.error(Rule::Index(e.to_string())));
    }
    // Field order of the typed model is canonical order, so this is canonical JSON.
    let json = serde_json::to_string(&index)
        .map_err(|e| index_origin_error(&files, Rule::Index(e.to_string())))?;
    Ok(Built {
        index,
        json: json + "\n",
        resolved_gaps,
        stale_reviews,
    })
}

fn is_vocabulary_error(e: &okf_engine::Error) -> bool {
    matches!(e, okf_engine::Error::Index { path, .. } if path.starts_with("vocabulary"))
}

fn index_origin_error(files: &[ParsedFile], rule: Rule) -> Error {
    Error {
        file: files
            .first()
            .map(|f| f.name.clone())
            .unwrap_or_else(|| PROFILE_FILE.into()),
        line: 1,
        rule,
    }
}

fn parse_files(profile: &[ProfileFile]) -> Result<Vec<ParsedFile>, Error> {
    let mut ordered: Vec<&ProfileFile> = profile.iter().collect();
    ordered.sort_by(|a, b| {
        (a.name != PROFILE_FILE, a.name.as_bytes())
            .cmp(&(b.name != PROFILE_FILE, b.name.as_bytes()))
    });
    if ordered.first().is_none_or(|f| f.name != PROFILE_FILE) {
        return Err(Error {
            file: PROFILE_FILE.into(),
            line: 1,
            rule: Rule::MissingProfile,
        });
    }
    ordered
        .into_iter()
        .map(|f| {
            let body = toml::from_str(&f.text).map_err(|e| Error {
                file: f.name.clone(),
                line: e.span().map_or(1, |s| line_of(&f.text, s.start)),
                rule: Rule::Syntax(e.message().trim_end().to_owned()),
            })?;
            Ok(ParsedFile {
                name: f.name.clone(),
                text: f.text.clone(),
                body,
            })
        })
        .collect()
}

fn index_section(files: &[ParsedFile]) -> Result<(&IndexDecl, Origin), Error> {
    let mut found = None;
    for f in files {
        if let Some(decl) = &f.body.index {
            let origin = f.origin(decl);
            if found.is_some() || f.name != PROFILE_FILE {
                return Err(origin.error(Rule::IndexSection));
            }
            found = Some((decl.get_ref(), origin));
        }
    }
    found.ok_or_else(|| Error {
        file: PROFILE_FILE.into(),
        line: 1,
        rule: Rule::IndexSection,
    })
}

/// The item a JSON path such as `records[3].label` names, if it is one the profile declared.
fn engine_error_origin(e: &okf_engine::Error, origins: &Origins, shift: &Shift) -> Option<Origin> {
    let path = match e {
        okf_engine::Error::Index { path, .. } | okf_engine::Error::EvidenceUnit { path, .. } => {
            path
        }
        _ => return None,
    };
    let (list, rest) = path.split_once('[')?;
    let n: usize = rest.split_once(']')?.0.parse().ok()?;
    let (declared, first) = match list {
        "records" => (origins.records, shift.records),
        "assertions" => (origins.assertions, shift.assertions),
        "requirements" => (origins.requirements, shift.requirements),
        "gaps" => (origins.gaps, shift.gaps),
        "regimes" => (origins.regimes, shift.regimes),
        _ => return None,
    };
    declared.get(n.checked_sub(first)?).cloned()
}

/// The id of a declared regime a reference names, or the rule it breaks.
fn regime_reference(base: &str, regime_ids: &[String], route: &str) -> Result<String, Rule> {
    let id = if route.contains("://") {
        route.to_owned()
    } else {
        format!("{base}{route}")
    };
    if regime_ids.contains(&id) {
        Ok(id)
    } else {
        Err(Rule::UnknownReference {
            reference: route.to_owned(),
            expected: "regime",
        })
    }
}

fn compose_section(files: &[ParsedFile]) -> Result<(&ComposeDecl, Origin), Error> {
    for f in &files[1..] {
        if let Some(decl) = &f.body.compose {
            return Err(f.origin(decl).error(Rule::ComposeSection));
        }
    }
    match &files[0].body.compose {
        Some(decl) => Ok((decl.get_ref(), files[0].origin(decl))),
        None => Err(Error {
            file: PROFILE_FILE.into(),
            line: 1,
            rule: Rule::ComposeSection,
        }),
    }
}

struct Compiler {
    base: String,
    captures: BTreeMap<String, (String, Capture)>,
    documents: BTreeMap<String, DocumentDecl>,
    records: Vec<Record>,
    record_origins: Vec<Origin>,
    record_kind: HashMap<String, (RecordKind, usize)>,
    assertions: Vec<Assertion>,
    assertion_origins: Vec<Origin>,
    /// Assertion id → (source id, target id).
    assertion_ends: HashMap<String, (String, String)>,
    requirements: Vec<Requirement>,
    requirement_origins: Vec<Origin>,
    /// Declared gap ids.
    gaps: HashSet<String>,
    /// Declared regime ids.
    regime_ids: Vec<String>,
}

/// Fills a field from the item or its defaults.
fn pick<T: Clone>(item: &Option<T>, default: &Option<T>, name: &'static str) -> Result<T, Rule> {
    item.clone()
        .or_else(|| default.clone())
        .ok_or(Rule::MissingField(name))
}

impl Compiler {
    fn id(&self, route: &str) -> String {
        format!("{}{route}", self.base)
    }

    fn declare_document(&mut self, d: &DocumentDecl, origin: Origin) -> Result<(), Error> {
        if self.documents.contains_key(&d.id) {
            return Err(origin.error(Rule::DuplicateDocument(d.id.clone())));
        }
        let Some((_, capture)) = self.captures.get(&d.id) else {
            return Err(origin.error(Rule::UnknownDocument(d.id.clone())));
        };
        if let Some(declared) = &d.source_sha256
            && *declared != capture.source_sha256
        {
            return Err(origin.error(Rule::DigestMismatch {
                what: "source_sha256",
                declared: declared.clone(),
                actual: capture.source_sha256.clone(),
            }));
        }
        self.documents.insert(
            d.id.clone(),
            DocumentDecl {
                id: d.id.clone(),
                captured_at: d.captured_at.clone(),
                source_sha256: d.source_sha256.clone(),
                source_date: d.source_date.clone(),
                source_date_kind: d.source_date_kind.clone(),
            },
        );
        Ok(())
    }

    /// A provenance entry for a citation; with `text`, the literal digest of that text.
    fn provenance(&self, c: &Citation, literal: Option<&str>) -> Result<Provenance, Rule> {
        let (Some(decl), Some((_, capture))) = (
            self.documents.get(&c.document),
            self.captures.get(&c.document),
        ) else {
            return Err(Rule::UnknownDocument(c.document.clone()));
        };
        let url = match c.page {
            Some(page) => capture
                .page(page)
                .ok_or_else(|| Rule::UnknownPage {
                    document: c.document.clone(),
                    page,
                })?
                .url
                .clone(),
            None => capture.source_url.clone(),
        };
        Ok(Provenance {
            captured_at: decl.captured_at.clone(),
            literal_sha256: literal.map(sha256_hex),
            locator: c.locator.clone(),
            source_date: decl.source_date.clone(),
            source_date_kind: decl.source_date_kind.clone(),
            source_sha256: capture.source_sha256.clone(),
            url,
        })
    }

    /// The exact text a citation selects from its page.
    fn excerpt(&self, c: &Citation) -> Result<String, Rule> {
        let capture = &self
            .captures
            .get(&c.document)
            .ok_or_else(|| Rule::UnknownDocument(c.document.clone()))?
            .1;
        let page_no = c.page.ok_or(Rule::MissingField("source.page"))?;
        let page_text = |n: u32| {
            capture
                .page(n)
                .map(|p| p.text.as_str())
                .ok_or_else(|| Rule::UnknownPage {
                    document: c.document.clone(),
                    page: n,
                })
        };
        // A paragraph across a page break: its pages' texts joined with one line break, so
        // `from` and `to` are found in the joined text (`from` must be on the first page).
        let joined;
        let text = match c.to_page {
            None => page_text(page_no)?,
            Some(to_page) => {
                let pages = Rule::ExcerptPages {
                    page: page_no,
                    to_page,
                };
                if to_page <= page_no
                    || to_page - page_no > MAX_EXCERPT_PAGES
                    || c.from.is_none()
                    || c.to.is_none()
                {
                    return Err(pages);
                }
                let mut parts = Vec::new();
                for n in page_no..=to_page {
                    parts.push(page_text(n)?);
                }
                joined = parts.join("\n");
                joined.as_str()
            }
        };
        let unique = |s: &str| -> Result<(usize, usize), Rule> {
            let hits = spans(text, s);
            match hits.as_slice() {
                [] => Err(not_found(text, s)),
                [one] => Ok(*one),
                _ => Err(Rule::ExcerptNotUnique(s.to_owned())),
            }
        };
        // The excerpt is always the page's own text (its line breaks, not the selector's).
        let selected = match (&c.quote, &c.from, &c.to) {
            (None, None, None) => text.to_owned(),
            (Some(q), None, None) => {
                let (start, end) = unique(q)?;
                text[start..end].to_owned()
            }
            (None, Some(from), Some(to)) => {
                let (start, after) = unique(from)?;
                // The first `to` that ends at or after the end of `from`.
                let end = spans(&text[start..], to)
                    .into_iter()
                    .map(|(_, end)| start + end)
                    .find(|&end| end >= after)
                    .ok_or_else(|| not_found(&text[start..], to))?;
                if let Some(to_page) = c.to_page {
                    // `from` on the first page, `to` ending on the last.
                    let first_len = page_text(page_no)?.len();
                    let before_last = text.len() - page_text(to_page)?.len();
                    if start >= first_len || end <= before_last {
                        return Err(Rule::ExcerptPages {
                            page: page_no,
                            to_page,
                        });
                    }
                }
                text[start..end].to_owned()
            }
            _ => return Err(Rule::ExcerptSelectors),
        };
        if let Some(declared) = &c.literal_sha256 {
            let actual = sha256_hex(&selected);
            if *declared != actual {
                return Err(Rule::DigestMismatch {
                    what: "literal_sha256",
                    declared: declared.clone(),
                    actual,
                });
            }
        }
        Ok(selected)
    }

    fn record(&mut self, r: &RecordDecl, defaults: &Defaults, origin: Origin) -> Result<(), Error> {
        let at = |rule| origin.error(rule);
        let d: &ItemDefaults = match r.kind {
            RecordKind::Concept => &defaults.concept,
            RecordKind::Evidence => &defaults.evidence,
            RecordKind::Scope => &defaults.scope,
        };
        let id = self.id(&r.route);
        if self.record_kind.contains_key(&id) {
            return Err(at(Rule::DuplicateId(id)));
        }
        let (text, mut provenance) = match (&r.text, &r.source) {
            (Some(_), _) if r.kind == RecordKind::Evidence => return Err(at(Rule::EvidenceText)),
            (Some(text), None) => (text.clone(), Vec::new()),
            (None, Some(source)) => {
                let text = self.excerpt(source).map_err(at)?;
                let entry = self.provenance(source, Some(&text)).map_err(at)?;
                let mut entries = vec![entry];
                // The excerpt's last page is cited too (its URL; the digest is the first's).
                if let Some(to_page) = source.to_page {
                    let last = Citation {
                        document: source.document.clone(),
                        page: Some(to_page),
                        locator: source.locator.clone(),
                        quote: None,
                        from: None,
                        to: None,
                        to_page: None,
                        literal_sha256: None,
                    };
                    entries.push(self.provenance(&last, None).map_err(at)?);
                }
                (text, entries)
            }
            _ => return Err(at(Rule::RecordText)),
        };
        for c in &r.provenance {
            if c.quote.is_some()
                || c.from.is_some()
                || c.to.is_some()
                || c.to_page.is_some()
                || c.literal_sha256.is_some()
            {
                return Err(at(Rule::ExcerptSelectors));
            }
            provenance.push(self.provenance(c, None).map_err(at)?);
        }
        let record = Record {
            access: r.access.or(d.access).unwrap_or(Access::Public),
            aliases: r.aliases.clone(),
            assertion_status: pick(&r.assertion_status, &d.assertion_status, "assertion_status")
                .map_err(at)?,
            authority: pick(&r.authority, &d.authority, "authority").map_err(at)?,
            // Resolved once every record is declared (check_conflicts).
            conflicts_with: r
                .conflicts_with
                .as_ref()
                .map(|c| c.iter().map(|route| self.reference(route)).collect()),
            evidence_unit: None,
            id: id.clone(),
            kind: r.kind,
            label: r.label.clone(),
            provenance,
            review_status: r.review_status.clone().or_else(|| d.review_status.clone()),
            rights: pick(&r.rights, &d.rights, "rights").map_err(at)?,
            route: r.route.clone(),
            scope: pick(&r.scope, &d.scope, "scope").map_err(at)?,
            text,
        };
        self.record_kind.insert(id, (r.kind, self.records.len()));
        self.records.push(record);
        self.record_origins.push(origin);
        Ok(())
    }

    /// A reference as written (a route under `base`, or a full IRI) → an id.
    fn reference(&self, reference: &str) -> String {
        if reference.contains("://") {
            reference.to_owned()
        } else {
            self.id(reference)
        }
    }

    /// Resolves a reference that must name a declared record (of `kind`, when given).
    fn declared(
        &self,
        reference: &str,
        kind: Option<RecordKind>,
        expected: &'static str,
    ) -> Result<String, Rule> {
        let id = self.reference(reference);
        match self.record_kind.get(&id) {
            Some((k, _)) if kind.is_none_or(|want| want == *k) => Ok(id),
            _ => Err(Rule::UnknownReference {
                reference: reference.to_owned(),
                expected,
            }),
        }
    }

    /// Declares a gap.
    fn gap(&mut self, g: &crate::profile::GapDecl, origin: Origin) -> Result<Gap, Error> {
        let id = self.id(&g.route);
        if self.record_kind.contains_key(&id) {
            return Err(origin.error(Rule::GapDeclared(g.route.clone())));
        }
        if !self.gaps.insert(id.clone()) {
            return Err(origin.error(Rule::DuplicateId(id)));
        }
        for p in g.paragraphs.iter().flatten() {
            if p.len() != 5 || !p.bytes().all(|b| b.is_ascii_digit()) {
                return Err(origin.error(Rule::GapParagraph(p.clone())));
            }
        }
        let at = |rule| origin.error(rule);
        let regime = match &g.regime {
            Some(route) => Some(regime_reference(&self.base, &self.regime_ids, route).map_err(at)?),
            None => None,
        };
        let concepts = match &g.concepts {
            Some(list) => Some(
                list.iter()
                    .map(|c| self.declared(c, Some(RecordKind::Concept), "concept"))
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(at)?,
            ),
            None => None,
        };
        Ok(Gap {
            concepts,
            id,
            label: g.label.clone(),
            reason: g.reason.clone(),
            paragraphs: g.paragraphs.clone(),
            regime,
        })
    }

    fn regime(&self, r: &crate::profile::RegimeDecl, origin: Origin) -> Result<Regime, Error> {
        let at = |rule| origin.error(rule);
        let concepts = r
            .concepts
            .iter()
            .map(|c| self.declared(c, Some(RecordKind::Concept), "public concept"))
            .collect::<Result<_, _>>()
            .map_err(at)?;
        let absent_evidence = match &r.absent_evidence {
            Some(list) => Some(
                list.iter()
                    .map(|g| {
                        let id = self.reference(g);
                        if self.gaps.contains(&id) {
                            Ok(id)
                        } else {
                            Err(Rule::UnknownReference {
                                reference: g.clone(),
                                expected: "gap",
                            })
                        }
                    })
                    .collect::<Result<_, _>>()
                    .map_err(at)?,
            ),
            None => None,
        };
        Ok(Regime {
            absent_evidence,
            concepts,
            id: self.id(&r.route),
            label: r.label.clone(),
            phrases: r.phrases.clone(),
            valid_from: r.valid_from.clone(),
            valid_until: r.valid_until.clone(),
        })
    }

    /// Resolves a reference to a declared record or a declared gap.
    fn declared_or_gap(&self, reference: &str) -> Result<String, Rule> {
        let id = self.reference(reference);
        if self.gaps.contains(&id) {
            return Ok(id);
        }
        self.declared(reference, None, "record or gap")
    }

    fn check_conflicts(&self) -> Result<(), Error> {
        for (record, origin) in self.records.iter().zip(&self.record_origins) {
            for id in record.conflicts_with.iter().flatten() {
                if !self.record_kind.contains_key(id) {
                    return Err(origin.error(Rule::UnknownReference {
                        reference: id.clone(),
                        expected: "record",
                    }));
                }
            }
        }
        Ok(())
    }

    fn assertion(
        &mut self,
        a: &AssertionDecl,
        d: &ItemDefaults,
        origin: Origin,
    ) -> Result<(), Error> {
        let at = |rule| origin.error(rule);
        let id = self.id(&a.route);
        if self.assertion_ends.contains_key(&id) {
            return Err(at(Rule::DuplicateId(id)));
        }
        let source = self.declared(&a.from, None, "record").map_err(at)?;
        let target = self.declared_or_gap(&a.to).map_err(at)?;
        let predicate = match PREDICATES.iter().find(|(short, _)| *short == a.predicate) {
            Some((_, iri)) => (*iri).to_owned(),
            None if a.predicate.contains("://") => a.predicate.clone(),
            None => return Err(at(Rule::UnknownPredicate(a.predicate.clone()))),
        };
        let provenance = match &a.provenance {
            AssertionProvenance::Keyword(k) if k == "target" => {
                let declared = self
                    .record_kind
                    .get(&target)
                    .map(|&(_, i)| &self.records[i]);
                declared
                    .into_iter()
                    .flat_map(|r| &r.provenance)
                    .map(|p| Provenance {
                        literal_sha256: None,
                        ..p.clone()
                    })
                    .collect()
            }
            AssertionProvenance::Keyword(k) => {
                return Err(at(Rule::Syntax(format!(
                    "provenance is \"target\" or a list of citations, not {k:?}"
                ))));
            }
            AssertionProvenance::Citations(list) => list
                .iter()
                .map(|c| self.provenance(c, None))
                .collect::<Result<_, _>>()
                .map_err(at)?,
        };
        let context_guard = match &a.guard {
            Some(g) => Some(ContextGuard {
                when_all: g
                    .iter()
                    .map(|r| self.declared(r, Some(RecordKind::Concept), "concept"))
                    .collect::<Result<_, _>>()
                    .map_err(at)?,
            }),
            None => None,
        };
        let regime = match &a.regime {
            Some(route) => Some(regime_reference(&self.base, &self.regime_ids, route).map_err(at)?),
            None => None,
        };
        self.assertion_ends
            .insert(id.clone(), (source.clone(), target.clone()));
        self.assertions.push(Assertion {
            assertion_status: pick(&a.assertion_status, &d.assertion_status, "assertion_status")
                .map_err(at)?,
            authority: pick(&a.authority, &d.authority, "authority").map_err(at)?,
            context_guard,
            id,
            label: a.label.clone(),
            original_assertion_id: None,
            predicate,
            provenance,
            regime,
            scope: pick(&a.scope, &d.scope, "scope").map_err(at)?,
            source,
            target,
        });
        self.assertion_origins.push(origin);
        Ok(())
    }

    fn path(&self, chain: &[String]) -> Result<PathSpec, Rule> {
        let mut assertions = Vec::with_capacity(chain.len());
        let mut records: Vec<String> = Vec::with_capacity(chain.len() + 1);
        for route in chain {
            let id = self.reference(route);
            let (source, target) =
                self.assertion_ends
                    .get(&id)
                    .ok_or_else(|| Rule::UnknownReference {
                        reference: route.clone(),
                        expected: "assertion",
                    })?;
            match records.last() {
                None => records.push(source.clone()),
                Some(last) if last == source => {}
                Some(last) => {
                    return Err(Rule::PathBroken(format!(
                        "{route} starts at {source}, not at {last}"
                    )));
                }
            }
            records.push(target.clone());
            assertions.push(id);
        }
        let seed = records
            .first()
            .cloned()
            .ok_or_else(|| Rule::PathBroken("a path needs at least one assertion".into()))?;
        Ok(PathSpec {
            assertions,
            records,
            seed,
        })
    }

    fn requirement(&mut self, q: &RequirementDecl, origin: Origin) -> Result<(), Error> {
        let at = |rule| origin.error(rule);
        let id = self.id(&q.route);
        if self.requirements.iter().any(|r| r.id == id) {
            return Err(at(Rule::DuplicateId(id)));
        }
        let concepts = |list: &[String]| -> Result<Vec<String>, Rule> {
            list.iter()
                .map(|r| self.declared(r, Some(RecordKind::Concept), "public concept"))
                .collect()
        };
        let when_all = concepts(&q.when_all).map_err(at)?;
        let covers = q.covers.as_deref().map(concepts).transpose().map_err(at)?;
        let required: Vec<String> = q
            .required
            .iter()
            .map(|r| self.declared_or_gap(r))
            .collect::<Result<_, _>>()
            .map_err(at)?;
        let required_paths = match &q.paths {
            Some(paths) => Some(
                paths
                    .iter()
                    .map(|chain| self.path(chain))
                    .collect::<Result<_, _>>()
                    .map_err(at)?,
            ),
            None => None,
        };
        let regime = match &q.regime {
            Some(route) => {
                let rid = self.reference(route);
                if !self.regime_ids.contains(&rid) {
                    return Err(at(Rule::UnknownReference {
                        reference: route.clone(),
                        expected: "regime",
                    }));
                }
                Some(rid)
            }
            None => None,
        };
        self.requirements.push(Requirement {
            covers,
            id,
            label: q.label.clone(),
            limitations: q.limitations.clone(),
            regime,
            required,
            required_paths,
            scope: q.scope.clone(),
            when_all,
        });
        self.requirement_origins.push(origin);
        Ok(())
    }
}
/// Where `selector` occurs in `text`, as byte ranges of `text`: word for word, with each run of
/// white space in the selector (a space, a line break) matching any run of white space in the
/// page, so a selector need not copy the extractor's line breaks. White space at either end of
/// the selector must meet white space in the page, which the range then includes.
fn spans(text: &str, selector: &str) -> Vec<(usize, usize)> {
    let words: Vec<&str> = selector.split_whitespace().collect();
    let Some((first, rest)) = words.split_first() else {
        return Vec::new();
    };
    // The end of the run of white space at `at`, when there is one.
    let after_space = |at: usize| {
        let tail = &text[at..];
        let skipped = tail.len() - tail.trim_start().len();
        (skipped > 0).then_some(at + skipped)
    };
    let mut found = Vec::new();
    for (at, _) in text.match_indices(first) {
        let mut start = at;
        if selector.starts_with(char::is_whitespace) {
            let before = text[..at].trim_end().len();
            if before == at {
                continue;
            }
            start = before;
        }
        let mut end = Some(at + first.len());
        for word in rest {
            end = end
                .and_then(after_space)
                .filter(|&e| text[e..].starts_with(word))
                .map(|e| e + word.len());
        }
        if selector.ends_with(char::is_whitespace) {
            end = end.and_then(after_space);
        }
        if let Some(end) = end {
            found.push((start, end));
        }
    }
    found
}

/// The refusal of a selector `text` does not hold, quoting the page where the selector's
/// longest matching beginning (in whole words) is, and a little after it.
fn not_found(text: &str, selector: &str) -> Rule {
    let words: Vec<&str> = selector.split_whitespace().collect();
    let nearest = (1..words.len()).rev().find_map(|k| {
        let (start, end) = *spans(text, &words[..k].join(" ")).first()?;
        let shown: String = text[start..]
            .chars()
            .take(text[start..end].chars().count() + 40)
            .collect();
        Some(shown)
    });
    Rule::ExcerptNotFound {
        selector: selector.to_owned(),
        nearest,
    }
}
