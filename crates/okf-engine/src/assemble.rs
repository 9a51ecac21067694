//! Context assembly (spec §3): traversal, requirement evaluation, byte trimming and the
//! bounded second pass for declared required paths.

use crate::budget::Budget;
use crate::canonical::{self, cmp_utf16};
use crate::discovery::Discovery;
use crate::error::{Error, QuestionRule};
use crate::index::{ContextIndex, index_u32};
pub use crate::model::Issue;
use crate::model::{Binding, REQUIRES_PREDICATE, RecordKind};
use crate::package::{self, Assembled, PackageView};
use crate::parts;
pub use crate::pass::{AssembleOptions, EvidenceStatus, OutsideVersions};
use crate::pass::{
    GuardDecision, IssueList, Pass, Path, Plan, RequirementResult, Selection, Setup, limits, msg,
};
use crate::regime;
use crate::resolve::resolve;
use crate::validate::{is_http_url, utf16_len};
use std::collections::{HashMap, HashSet, VecDeque};
use std::rc::Rc;

/// Most paths kept per selected record.
pub const MAX_PATHS_PER_RECORD: usize = 4;
/// Longest question, in UTF-16 code units.
pub const MAX_QUESTION_UNITS: usize = 4000;
/// Bytes kept free while trimming for the final `context_id` and `used_bytes` digits.
const IDENTITY_HEADROOM: u64 = 100;

struct Item {
    target: Option<u32>,
    target_id: String,
    path: Path,
    reason: String,
    alternative: Option<Rc<str>>,
    priority: Option<u32>,
}

/// Assembles the evidence package for a question with default options.
///
/// `binding` defaults to the index's own binding (spec §1.2). Fails only for an invalid
/// question or binding, or when not even the metadata-only refusal fits `budget.max_bytes`.
pub fn assemble(
    index: &ContextIndex,
    question: &str,
    budget: &Budget,
    binding: Option<&Binding>,
) -> Result<Assembled, Error> {
    assemble_with_options(
        index,
        question,
        budget,
        binding,
        &AssembleOptions::default(),
    )
}

/// Assembles the evidence package for a question with explicit options.
pub fn assemble_with_options(
    index: &ContextIndex,
    question: &str,
    budget: &Budget,
    binding: Option<&Binding>,
    options: &AssembleOptions,
) -> Result<Assembled, Error> {
    assemble_inner(index, question, budget, binding, options, None)
}

/// Assembles the package for a corpus: the working index `index` plus the lexical seeds and
/// retrieval section a corpus reader produced (spec §3.2 step 8, §3.4 step 1).
pub fn assemble_with_discovery(
    index: &ContextIndex,
    question: &str,
    budget: &Budget,
    binding: Option<&Binding>,
    options: &AssembleOptions,
    discovery: &Discovery,
) -> Result<Assembled, Error> {
    assemble_inner(index, question, budget, binding, options, Some(discovery))
}

fn assemble_inner(
    index: &ContextIndex,
    question: &str,
    budget: &Budget,
    binding: Option<&Binding>,
    options: &AssembleOptions,
    discovery: Option<&Discovery>,
) -> Result<Assembled, Error> {
    check_question(question)?;
    let binding = match binding {
        Some(b) => {
            check_binding(b)?;
            b.clone()
        }
        None => index.default_binding().clone(),
    };
    let mut setup = Setup::new(index, question, *budget, binding, *options);
    setup.discovery = discovery;
    let baseline = setup.run(None);
    match setup.allocation_plan(&baseline) {
        Some(plan) => package::finalize(&PackageView::new(&setup.run(Some(&plan)))),
        None => package::finalize(&PackageView::new(&baseline)),
    }
}

/// Checks the question rule of spec §2.2.
pub fn check_question(question: &str) -> Result<(), Error> {
    if question.trim().is_empty() {
        return Err(Error::Question(QuestionRule::Blank));
    }
    let units = utf16_len(question);
    if units > MAX_QUESTION_UNITS {
        return Err(Error::Question(QuestionRule::TooLong(units)));
    }
    Ok(())
}

/// Checks a caller-supplied binding (spec §1.2).
pub fn check_binding(binding: &Binding) -> Result<(), Error> {
    if !is_http_url(&binding.index_url) {
        return Err(Error::Binding {
            field: "index_url",
            reason: "must be an http(s) URL",
        });
    }
    if !canonical::is_hex64(&binding.index_sha256) {
        return Err(Error::Binding {
            field: "index_sha256",
            reason: "must be 64 lowercase hex characters",
        });
    }
    Ok(())
}

impl<'a> Setup<'a> {
    fn new(
        index: &'a ContextIndex,
        question: &'a str,
        budget: Budget,
        binding: Binding,
        options: AssembleOptions,
    ) -> Self {
        let mut resolution = resolve(index, question);
        parts::narrow(index, &mut resolution);
        let regimes = regime::apply(index, question, options.as_of, &mut resolution);
        let doc = index.document();
        let mut is_resolved = vec![false; doc.records.len()];
        for c in &resolution.concepts {
            is_resolved[c.record as usize] = true;
        }
        let resolved_id = |id: &String| index.record_index(id).is_some_and(|i| is_resolved[i]);
        let applicable = doc
            .requirements
            .iter()
            .enumerate()
            .filter(|(_, r)| r.when_all.iter().all(resolved_id))
            .filter(|(_, r)| regime::admits(regimes.as_ref(), r.regime.as_deref()))
            .map(|(i, _)| index_u32(i))
            .collect();
        let mut alternatives = Vec::new();
        for a in &resolution.ambiguities {
            let mut phrase = String::new();
            canonical::write_str(&mut phrase, &a.phrase);
            for candidate in &a.candidates {
                if let Some(r) = index.record_index(candidate) {
                    let label: Rc<str> =
                        format!("Alternative meaning of {phrase}: {candidate}").into();
                    alternatives.push((label, index_u32(r)));
                }
            }
        }
        let assertion_in_force = (0..doc.assertions.len())
            .map(|a| regime::assertion_in_force(index, regimes.as_ref(), a))
            .collect();
        Setup {
            assertion_in_force,
            index,
            question,
            budget,
            binding,
            resolution,
            is_resolved,
            applicable,
            alternatives,
            options,
            regimes,
            discovery: None,
        }
    }

    fn record_id(&self, r: u32) -> &'a str {
        &self.index.document().records[r as usize].id
    }

    fn assertion_id(&self, a: u32) -> &'a str {
        &self.index.document().assertions[a as usize].id
    }

    /// The guard decision for an assertion, if it is guarded.
    fn guard_decision(&self, a: u32) -> Option<GuardDecision> {
        let guard = self.index.document().assertions[a as usize]
            .context_guard
            .as_ref()?;
        let mut when_all = guard.when_all.clone();
        when_all.sort_by(|x, y| cmp_utf16(x, y));
        let unavailable: Vec<String> = when_all
            .iter()
            .filter(|id| !self.index.is_public_concept(id))
            .cloned()
            .collect();
        let missing: Vec<String> = when_all
            .iter()
            .filter(|id| {
                !self
                    .index
                    .record_index(id)
                    .is_some_and(|i| self.is_resolved[i])
                    || unavailable.contains(id)
            })
            .cloned()
            .collect();
        let matched = missing.is_empty();
        Some(GuardDecision {
            when_all,
            missing,
            unavailable,
            matched,
        })
    }

    fn run<'s>(&'s self, plan: Option<&'s Plan>) -> Pass<'s, 'a> {
        let doc = self.index.document();
        let mut pass = Pass {
            setup: self,
            plan,
            selections: Vec::new(),
            selection_of: vec![None; doc.records.len()],
            held: Vec::new(),
            is_held: vec![false; doc.assertions.len()],
            missing_evidence: IssueList::new(self.options.group_issues),
            omissions: IssueList::new(self.options.group_issues),
            conflicts: IssueList::default(),
            guard_decisions: vec![None; doc.assertions.len()],
            reached_depth: 0,
            requirements: Vec::new(),
            status: EvidenceStatus::Insufficient,
            second_pass: plan.is_some(),
            fallback: false,
        };
        for issue in self
            .discovery
            .iter()
            .flat_map(|d| &d.retrieval.budget_omissions)
        {
            pass.omissions
                .push(issue.code, issue.message.clone(), issue.ids.clone());
        }
        if self.resolution.truncated {
            pass.omissions
                .push("resolution_budget", msg::RESOLUTION_BUDGET, Vec::new());
        }
        pass.traverse();
        pass.add_task_issues();
        pass.refresh();
        pass.trim();
        pass
    }

    /// Decides whether the second pass runs and with which declared paths (spec §3.5.4).
    fn allocation_plan(&self, baseline: &Pass<'_, '_>) -> Option<Plan> {
        const PRESSURE: [&str; 4] = [
            "node_budget",
            "relationship_budget",
            "relationship_byte_budget",
            "byte_budget",
        ];
        if baseline.fallback || self.resolution.concepts.is_empty() {
            return None;
        }
        let pressure: Vec<&Issue> = baseline
            .omissions
            .items
            .iter()
            .filter(|i| PRESSURE.contains(&i.code))
            .collect();
        if pressure.is_empty() {
            return None;
        }
        let doc = self.index.document();
        let mut requirements: Vec<u32> = self.applicable.clone();
        requirements.sort_by(|&a, &b| {
            cmp_utf16(
                &doc.requirements[a as usize].id,
                &doc.requirements[b as usize].id,
            )
        });
        let mut plan = Plan::default();
        let mut seen_paths: HashSet<Vec<u32>> = HashSet::new();
        let mut record_ok: HashMap<u32, bool> = HashMap::new();
        for &req in &requirements {
            for spec in doc.requirements[req as usize]
                .required_paths
                .iter()
                .flatten()
            {
                let Some(path) = self.eligible_path(spec, &mut record_ok) else {
                    continue;
                };
                let key = path.key();
                for k in 0..=path.assertions.len() {
                    plan.prefixes.entry(key[..=k].to_vec()).or_insert(req);
                }
                if seen_paths.insert(key) {
                    plan.records.extend(path.records.iter().copied());
                    plan.paths.push(path);
                }
            }
        }
        let retained = |p: &Path| {
            p.records
                .iter()
                .all(|&r| baseline.selection_of[r as usize].is_some())
                && p.assertions.iter().all(|&a| baseline.is_held[a as usize])
        };
        let names_path = |p: &Path| {
            pressure.iter().any(|issue| {
                issue.ids.iter().any(|id| {
                    p.records.iter().any(|&r| self.record_id(r) == id)
                        || p.assertions.iter().any(|&a| self.assertion_id(a) == id)
                })
            })
        };
        plan.paths
            .iter()
            .any(|p| !retained(p) && names_path(p))
            .then_some(plan)
    }

    /// A declared required path that may receive priority, as indices, or `None`.
    fn eligible_path(
        &self,
        spec: &crate::model::PathSpec,
        record_ok: &mut HashMap<u32, bool>,
    ) -> Option<Path> {
        let index = self.index;
        let seed = u32::try_from(index.record_index(&spec.seed)?).ok()?;
        if !self.is_resolved[seed as usize] || spec.assertions.len() as u64 > self.budget.max_depth
        {
            return None;
        }
        let records: Vec<u32> = spec
            .records
            .iter()
            .map(|id| index.record_index(id).map(index_u32))
            .collect::<Option<_>>()?;
        let distinct: HashSet<u32> = records.iter().copied().collect();
        if distinct.len() != records.len() {
            return None;
        }
        for &r in &records {
            let ok = *record_ok.entry(r).or_insert_with(|| {
                let rec = &index.document().records[r as usize];
                let r = r as usize;
                index.may_quote(rec)
                    && index.record_governance(r).is_empty()
                    && !(rec.kind == RecordKind::Evidence
                        && (index.record_digest_mismatch(r)
                            || index.record_unit_integrity_failed(r)))
            });
            if !ok {
                return None;
            }
        }
        let mut assertions = Vec::with_capacity(spec.assertions.len());
        for (hop, id) in spec.assertions.iter().enumerate() {
            let a = index.assertion_index(id)?;
            let a32 = index_u32(a);
            if index.assertion_source[a] != Some(records[hop])
                || index.assertion_target[a] != Some(records[hop + 1])
                || !index.assertion_supported[a]
                || !self.assertion_in_force[a]
                || !index.assertion_governance(a).is_empty()
                || self.guard_decision(a32).is_some_and(|d| !d.matched)
            {
                return None;
            }
            assertions.push(a32);
        }
        Some(Path {
            seed,
            assertions,
            records,
        })
    }
}

impl<'s, 'a> Pass<'s, 'a> {
    fn priority_of(&self, path: &Path, alternative: bool) -> Option<u32> {
        if alternative {
            return None;
        }
        self.plan.and_then(|p| p.prefixes.get(&path.key()).copied())
    }

    fn traverse(&mut self) {
        let setup = self.setup;
        let mut main: VecDeque<Item> = VecDeque::new();
        let mut priority: VecDeque<Item> = VecDeque::new();
        let doc = setup.index.document();
        for seed in setup.discovery.iter().flat_map(|d| &d.seeds) {
            let target = setup.index.record_index(&seed.id).map(index_u32);
            let path = Path {
                seed: target.unwrap_or(u32::MAX),
                assertions: Vec::new(),
                records: target.into_iter().collect(),
            };
            main.push_back(Item {
                target,
                target_id: seed.id.clone(),
                path,
                reason: seed.reason.clone(),
                alternative: None,
                priority: None,
            });
        }
        for c in &setup.resolution.concepts {
            let path = Path {
                seed: c.record,
                assertions: Vec::new(),
                records: vec![c.record],
            };
            let prio = self.priority_of(&path, false);
            let item = Item {
                target: Some(c.record),
                target_id: doc.records[c.record as usize].id.clone(),
                path,
                reason: format!("Matched declared phrase: {}", c.matched.join(", ")),
                alternative: None,
                priority: prio,
            };
            if prio.is_some() {
                priority.push_back(item)
            } else {
                main.push_back(item)
            }
        }
        for (label, r) in &setup.alternatives {
            main.push_back(Item {
                target: Some(*r),
                target_id: doc.records[*r as usize].id.clone(),
                path: Path {
                    seed: *r,
                    assertions: Vec::new(),
                    records: vec![*r],
                },
                reason: format!(
                    "{label}. No candidate meaning was chosen; this branch stays unresolved."
                ),
                alternative: Some(Rc::clone(label)),
                priority: None,
            });
        }
        let mut deferred: Vec<(u32, Item)> = Vec::new();
        loop {
            if priority.is_empty() && !deferred.is_empty() {
                for (edge, next) in std::mem::take(&mut deferred) {
                    self.admit(edge, next, &mut main, &mut priority);
                }
                continue;
            }
            let Some(item) = priority.pop_front().or_else(|| main.pop_front()) else {
                break;
            };
            self.visit(item, &mut main, &mut priority, &mut deferred);
        }
    }

    fn visit(
        &mut self,
        mut item: Item,
        main: &mut VecDeque<Item>,
        priority: &mut VecDeque<Item>,
        deferred: &mut Vec<(u32, Item)>,
    ) {
        let setup = self.setup;
        let index = setup.index;
        if let Some(req) = item.priority {
            let req_id = &index.document().requirements[req as usize].id;
            item.reason.push_str(&format!(
                " Given budget priority as a required path declared by {req_id}; its authority is unchanged."
            ));
        }
        let special = item.alternative.is_some() || item.priority.is_some();
        let Some(record) = item.target else {
            self.missing_evidence
                .push("missing_record", msg::MISSING_RECORD, vec![item.target_id]);
            return;
        };
        let r = record as usize;
        if let Some(pos) = self.selection_of[r] {
            let sel = &mut self.selections[pos];
            let unseen = !sel
                .paths
                .iter()
                .any(|p| p.seed == item.path.seed && p.assertions == item.path.assertions);
            if sel.paths.len() >= MAX_PATHS_PER_RECORD && unseen && special {
                let (code, message) = if item.alternative.is_some() {
                    ("alternative_path_budget", msg::ALTERNATIVE_PATH_BUDGET)
                } else {
                    ("required_path_budget", msg::REQUIRED_PATH_BUDGET)
                };
                let seed = setup.record_id(item.path.seed).to_owned();
                self.omissions
                    .push(code, message, vec![item.target_id.clone(), seed]);
            }
            let mut stored = false;
            if sel.paths.len() < MAX_PATHS_PER_RECORD && unseen {
                sel.paths.push(item.path.clone());
                if !sel.reasons.contains(&item.reason) {
                    sel.reasons.push(item.reason.clone());
                }
                stored = true;
            }
            if !(special && stored) {
                return;
            }
            self.reached_depth = self.reached_depth.max(item.path.assertions.len() as u64);
        } else {
            let rec = &index.document().records[r];
            if !index.may_quote(rec) {
                self.missing_evidence.push(
                    "restricted_evidence",
                    msg::RESTRICTED,
                    vec![item.target_id],
                );
                return;
            }
            if self.selections.len() as u64 >= setup.budget.max_nodes {
                self.omissions
                    .push("node_budget", msg::NODE_BUDGET, vec![item.target_id]);
                return;
            }
            self.selection_of[r] = Some(self.selections.len());
            self.selections.push(Selection {
                record,
                reasons: vec![item.reason.clone()],
                paths: vec![item.path.clone()],
            });
            self.reached_depth = self.reached_depth.max(item.path.assertions.len() as u64);
            for &g in index.record_governance(r) {
                self.missing_evidence
                    .push(g.code(), msg::governance(g), vec![rec.id.clone()]);
            }
            if rec.kind == RecordKind::Evidence {
                if index.record_digest_mismatch(r) {
                    self.missing_evidence.push(
                        "evidence_digest_mismatch",
                        msg::DIGEST_MISMATCH,
                        vec![rec.id.clone()],
                    );
                }
                if index.record_unit_integrity_failed(r) {
                    self.missing_evidence.push(
                        "unit_fragment_integrity",
                        msg::UNIT_INTEGRITY,
                        vec![rec.id.clone()],
                    );
                }
            }
        }
        self.expand(&item, record, main, priority, deferred);
    }

    fn expand(
        &mut self,
        item: &Item,
        record: u32,
        main: &mut VecDeque<Item>,
        priority: &mut VecDeque<Item>,
        deferred: &mut Vec<(u32, Item)>,
    ) {
        let setup = self.setup;
        let index = setup.index;
        let doc = index.document();
        let record_id = setup.record_id(record);
        for &a in &index.outgoing[record as usize] {
            let assertion = &doc.assertions[a as usize];
            if !setup.assertion_in_force[a as usize] {
                // A dependency of a regime the question neither establishes nor leaves open.
                continue;
            }
            if !index.assertion_supported[a as usize] {
                if !assertion.predicate.is_empty() {
                    self.missing_evidence.push(
                        "unsupported_predicate",
                        msg::UNSUPPORTED_PREDICATE,
                        vec![assertion.id.clone()],
                    );
                }
                continue;
            }
            if let Some(decision) = setup.guard_decision(a) {
                let matched = decision.matched;
                self.guard_decisions[a as usize] = Some(decision);
                if !matched {
                    continue;
                }
            }
            let target = index.assertion_target[a as usize];
            if target.is_some_and(|t| item.path.records.contains(&t)) {
                continue;
            }
            if item.path.assertions.len() as u64 >= setup.budget.max_depth {
                self.omissions.push(
                    "depth_budget",
                    msg::DEPTH_BUDGET,
                    vec![assertion.id.clone(), assertion.target.clone()],
                );
                continue;
            }
            let mut path = item.path.clone();
            path.assertions.push(a);
            if let Some(t) = target {
                path.records.push(t);
            }
            let followed = format!(
                "Reached by following {} from {record_id}",
                assertion.predicate
            );
            let reason = match &item.alternative {
                Some(label) => format!("{label}; {followed}"),
                None => followed,
            };
            let prio = self.priority_of(&path, item.alternative.is_some());
            let next = Item {
                target,
                target_id: assertion.target.clone(),
                path,
                reason,
                alternative: item.alternative.clone(),
                priority: prio,
            };
            if item.priority.is_some() && next.priority.is_none() {
                deferred.push((a, next));
            } else {
                self.admit(a, next, main, priority);
            }
        }
    }

    fn admit(
        &mut self,
        a: u32,
        next: Item,
        main: &mut VecDeque<Item>,
        priority: &mut VecDeque<Item>,
    ) {
        let setup = self.setup;
        let index = setup.index;
        let assertion = &index.document().assertions[a as usize];
        if !self.is_held[a as usize] {
            if self.held.len() as u64 >= setup.budget.max_relationships {
                self.omissions.push(
                    "relationship_budget",
                    msg::RELATIONSHIP_BUDGET,
                    vec![assertion.id.clone(), assertion.target.clone()],
                );
                return;
            }
            self.is_held[a as usize] = true;
            self.held.push(a);
        }
        for &g in index.assertion_governance(a as usize) {
            self.missing_evidence
                .push(g.code(), msg::governance(g), vec![assertion.id.clone()]);
        }
        if next.priority.is_some() {
            priority.push_back(next)
        } else {
            main.push_back(next)
        }
    }

    /// Task-level issues added once after traversal (spec §3.8, items 1–6).
    fn add_task_issues(&mut self) {
        let setup = self.setup;
        let doc = setup.index.document();
        // An index that declares its question vocabulary (issue 44) gets the plain split
        // between a topic the bundle does not cover and a word it does not recognise; other
        // indexes keep exactly the reference's issues (DEVIATIONS A12).
        let declares_vocabulary = doc.vocabulary.is_some();
        if setup.applicable.is_empty() {
            self.missing_evidence.push(
                "no_evidence_requirements",
                msg::NO_REQUIREMENTS,
                Vec::new(),
            );
            if declares_vocabulary {
                self.missing_evidence.push(
                    msg::TOPIC_NOT_COVERED_CODE,
                    msg::TOPIC_NOT_COVERED,
                    Vec::new(),
                );
            }
        }
        let covered: HashSet<&str> = setup
            .applicable
            .iter()
            .flat_map(|&r| {
                let req = &doc.requirements[r as usize];
                req.when_all
                    .iter()
                    .chain(req.covers.iter().flatten())
                    .map(String::as_str)
            })
            .collect();
        for c in &setup.resolution.concepts {
            let id = setup.record_id(c.record);
            if !covered.contains(id) {
                self.missing_evidence.push(
                    "uncovered_resolved_concept",
                    msg::UNCOVERED_CONCEPT,
                    vec![id.to_owned()],
                );
            }
        }
        if doc.scope.trim().is_empty()
            || setup
                .applicable
                .iter()
                .any(|&r| doc.requirements[r as usize].scope.trim().is_empty())
        {
            self.missing_evidence
                .push("missing_scope", msg::MISSING_SCOPE_PACKAGE, Vec::new());
        }
        if setup.resolution.concepts.is_empty() {
            // Matched phrases that were all ambiguous are not "no alias matched".
            let message = if setup.resolution.ambiguities.is_empty() {
                msg::UNRESOLVED_TASK
            } else {
                msg::UNRESOLVED_TASK_AMBIGUOUS
            };
            self.missing_evidence
                .push("unresolved_task", message, Vec::new());
        }
        if !setup.resolution.unresolved_terms.is_empty() {
            let message = if declares_vocabulary {
                msg::UNRECOGNISED_TERMS
            } else {
                msg::UNRESOLVED_TERMS
            };
            self.missing_evidence
                .push("unresolved_terms", message, Vec::new());
        }
        if !setup.resolution.ambiguities.is_empty() {
            let ids = setup
                .resolution
                .ambiguities
                .iter()
                .flat_map(|a| a.candidates.iter().cloned())
                .collect();
            self.missing_evidence
                .push("ambiguous_concepts", msg::AMBIGUOUS, ids);
        }
        for ids in setup.regimes.iter().flat_map(|r| &r.ambiguous) {
            self.missing_evidence
                .push("ambiguous_regime", msg::AMBIGUOUS_REGIME, ids.clone());
        }
        for ids in setup.regimes.iter().flat_map(|r| &r.missing) {
            self.missing_evidence
                .push("missing_regime_evidence", msg::MISSING_REGIME, ids.clone());
        }
        if let (Some(dates), Some(as_of)) = (setup.options.outside_versions, setup.options.as_of) {
            let served = dates
                .served_published
                .map_or("no published date".to_owned(), |d| {
                    format!("published {}", d.to_date_string())
                });
            self.missing_evidence.push(
                msg::OUTSIDE_VERSIONS_CODE,
                format!(
                    "The question is about {}, before every version of this bundle that is held (the earliest was published {}), so no version in force on that date is held; this package is assembled on the version served by default ({served}, bundle snapshot {}), whose guidance may not be what applied on {}.",
                    as_of.to_date_string(),
                    dates.earliest_published.to_date_string(),
                    doc.bundle.snapshot,
                    as_of.to_date_string(),
                ),
                Vec::new(),
            );
        }
    }

    fn is_selected(&self, id: &str) -> bool {
        self.setup
            .index
            .record_index(id)
            .is_some_and(|i| self.selection_of[i].is_some())
    }

    /// Rebuilds dependencies, requirement results, conflicts and the status (spec §3.8 refresh).
    fn refresh(&mut self) {
        let setup = self.setup;
        let index = setup.index;
        let doc = index.document();
        self.missing_evidence
            .retain(|i| i.code != "missing_required_evidence" && i.code != "missing_dependency");

        let selected = |r: Option<u32>| r.is_some_and(|r| self.selection_of[r as usize].is_some());
        let held_then_rest = self
            .held
            .iter()
            .copied()
            .chain((0..index_u32(doc.assertions.len())).filter(|&a| !self.is_held[a as usize]));
        let mut dependencies = Vec::new();
        for a in held_then_rest {
            let assertion = &doc.assertions[a as usize];
            if assertion.predicate == REQUIRES_PREDICATE
                && setup.assertion_in_force[a as usize]
                && selected(index.assertion_source[a as usize])
                && !selected(index.assertion_target[a as usize])
                && setup.guard_decision(a).is_none_or(|d| d.matched)
            {
                dependencies.push(vec![assertion.source.clone(), assertion.target.clone()]);
            }
        }
        for ids in dependencies {
            self.missing_evidence
                .push("missing_dependency", msg::MISSING_DEPENDENCY, ids);
        }
        let mentioned: HashSet<&str> = self
            .missing_evidence
            .items
            .iter()
            .flat_map(|i| i.ids.iter().map(String::as_str))
            .collect();

        self.requirements = setup
            .applicable
            .iter()
            .map(|&r| {
                let req = &doc.requirements[r as usize];
                let mut missing: Vec<String> = req
                    .required
                    .iter()
                    .filter(|id| !self.is_selected(id) || mentioned.contains(id.as_str()))
                    .cloned()
                    .collect();
                for path in req.required_paths.iter().flatten() {
                    for id in &path.records {
                        if !self.is_selected(id) {
                            missing.push(id.clone());
                        }
                    }
                    for (hop, id) in path.assertions.iter().enumerate() {
                        let intact = index.assertion_index(id).is_some_and(|a| {
                            let assertion = &doc.assertions[a];
                            self.is_held[a]
                                && Some(&assertion.source) == path.records.get(hop)
                                && Some(&assertion.target) == path.records.get(hop + 1)
                        });
                        if !intact || mentioned.contains(id.as_str()) {
                            missing.push(id.clone());
                        }
                    }
                }
                missing.sort_by(|a, b| cmp_utf16(a, b));
                missing.dedup();
                RequirementResult {
                    requirement: r,
                    missing,
                }
            })
            .collect();

        self.conflicts = IssueList::default();
        for sel in &self.selections {
            let rec = &doc.records[sel.record as usize];
            for other in rec.conflicts_with.iter().flatten() {
                let mut ids = vec![rec.id.clone(), other.clone()];
                ids.sort_by(|a, b| cmp_utf16(a, b));
                self.conflicts
                    .push("declared_conflict", msg::DECLARED_CONFLICT, ids);
            }
        }

        self.status = if !self.conflicts.items.is_empty() {
            EvidenceStatus::Conflicting
        } else if self.missing_evidence.items.is_empty()
            && self.omissions.items.is_empty()
            && !self.requirements.is_empty()
            && self.requirements.iter().all(|r| r.missing.is_empty())
        {
            EvidenceStatus::Sufficient
        } else {
            EvidenceStatus::Insufficient
        };

        for result in &self.requirements {
            if !result.missing.is_empty() {
                let label = &doc.requirements[result.requirement as usize].label;
                self.missing_evidence.push(
                    "missing_required_evidence",
                    format!("Evidence required by \"{label}\" is absent, omitted or ungoverned."),
                    result.missing.clone(),
                );
            }
        }
    }

    fn size_with_headroom(&self) -> u64 {
        package::measure(&PackageView::new(self)) + IDENTITY_HEADROOM
    }

    /// Drops whole records until the package fits (spec §3.10), then falls back to metadata.
    fn trim(&mut self) {
        let max = self.setup.budget.max_bytes;
        let mut size = self.size_with_headroom();
        while size > max && !self.selections.is_empty() {
            let plan_records = self.plan.map(|p| &p.records);
            let victim = self
                .selections
                .iter()
                .rposition(|s| !plan_records.is_some_and(|set| set.contains(&s.record)))
                .unwrap_or(self.selections.len() - 1);
            let dropped = self.selections[victim].record;
            self.unselect(victim);
            let dropped_id = self.setup.record_id(dropped);
            let doc = self.setup.index.document();
            let is_held = &mut self.is_held;
            self.held.retain(|&a| {
                let assertion = &doc.assertions[a as usize];
                let keep = assertion.source != dropped_id && assertion.target != dropped_id;
                if !keep {
                    is_held[a as usize] = false;
                }
                keep
            });
            let mut pos = 0;
            while pos < self.selections.len() {
                let selection_of = &self.selection_of;
                self.selections[pos].paths.retain(|p| {
                    p.records
                        .iter()
                        .all(|&r| selection_of[r as usize].is_some())
                });
                if self.selections[pos].paths.is_empty() {
                    self.unselect(pos);
                } else {
                    pos += 1;
                }
            }
            self.omissions
                .push("byte_budget", msg::BYTE_BUDGET, vec![dropped_id.to_owned()]);
            self.refresh();
            size = self.size_with_headroom();
        }
        self.fallback = size > max;
    }

    fn unselect(&mut self, pos: usize) {
        let removed = self.selections.remove(pos);
        self.selection_of[removed.record as usize] = None;
        for (i, s) in self.selections.iter().enumerate().skip(pos) {
            self.selection_of[s.record as usize] = Some(i);
        }
    }

    /// Guard decisions inspected during traversal, sorted by assertion id.
    pub(crate) fn routing_guards(&self) -> Vec<(u32, &GuardDecision)> {
        let mut rows: Vec<(u32, &GuardDecision)> = self
            .guard_decisions
            .iter()
            .enumerate()
            .filter_map(|(a, d)| d.as_ref().map(|d| (index_u32(a), d)))
            .collect();
        rows.sort_by(|x, y| cmp_utf16(self.setup.assertion_id(x.0), self.setup.assertion_id(y.0)));
        rows
    }

    /// The package's limitation sentences (spec §3.11).
    pub(crate) fn limitations(&self) -> Vec<&str> {
        if self.fallback {
            return vec![limits::FALLBACK];
        }
        let mut out: Vec<&str> = self
            .setup
            .index
            .document()
            .limitations
            .iter()
            .map(String::as_str)
            .collect();
        out.extend([
            limits::SUFFICIENCY,
            limits::VOCABULARY,
            limits::CONFLICTS,
            limits::UNTRUSTED,
        ]);
        if self.second_pass {
            out.push(limits::ALLOCATION);
        }
        if self.setup.discovery.is_some() {
            out.push(limits::DISCOVERY);
        }
        if !self.setup.resolution.ambiguities.is_empty() {
            out.push(limits::AMBIGUITY);
        }
        out
    }
}
