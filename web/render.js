// Renders an okf-governed-context.v1 package as a page for people. Every value from the
// package is untrusted and is set with textContent or setAttribute (see dom.js).

import { clear, el, httpsLink, readableDate, readableDays } from './dom.js';
import { graphLegend, graphModel, graphNote, predicateName, renderGraph } from './graph.js';

const STATUS_MEANING = {
  sufficient:
    'Every requirement the bundle author declared for this question is met, and nothing is missing, ambiguous, in conflict or cut by the budget, ' +
    'within the bundle’s declared scope. It is not an answer, and not a decision about anyone’s case.',
  insufficient:
    'The evidence is not complete. The sections below say exactly what is missing: unmet requirements, missing or restricted evidence, ' +
    'unresolved or ambiguous words and anything the budget left out. An insufficient package is still a correct, useful result.',
  conflicting:
    'The bundle declares a conflict between pieces of the selected evidence. Read the conflicts below before relying on any of it.',
};

const arr = (v) => (Array.isArray(v) ? v : []);

function section(id, title, ...content) {
  const headingId = `${id}-heading`;
  return el('section', { id, class: 'panel', 'aria-labelledby': headingId }, el('h3', { id: headingId, text: title }), ...content);
}

function none(text = 'None.') {
  return el('p', { class: 'none', text });
}

function idList(ids, labels) {
  if (!ids.length) return el('span', { class: 'none', text: 'none' });
  return el(
    'ul',
    { class: 'ids' },
    ids.map((id) => el('li', {}, labels.has(id) ? el('span', { class: 'id-label', text: `${labels.get(id)} ` }) : null, el('code', { text: id }))),
  );
}

function issueList(id, issues, labels, emptyText) {
  if (!issues.length) return none(emptyText);
  return el(
    'ul',
    { id, class: 'issues' },
    issues.map((issue) =>
      el(
        'li',
        { 'data-code': issue.code },
        el('code', { class: 'issue-code', text: issue.code }),
        el('span', { class: 'issue-message', text: ` ${issue.message}` }),
        arr(issue.ids).length ? idList(arr(issue.ids), labels) : null,
      ),
    ),
  );
}

function dl(rows) {
  return el(
    'dl',
    { class: 'facts' },
    rows.filter(Boolean).map(([term, value]) => el('div', {}, el('dt', { text: term }), el('dd', {}, value))),
  );
}

function text(value) {
  return document.createTextNode(String(value));
}

function code(value) {
  return el('code', { text: String(value) });
}

function counts(pkg) {
  const requirements = arr(pkg.requirements);
  const met = requirements.filter((r) => r.status === 'supported-within-declared-scope').length;
  const rows = [
    ['selected', 'Records selected', arr(pkg.selected).length],
    ['relationships', 'Relationships held', arr(pkg.relationships).length],
    ['requirements', 'Requirements applied', requirements.length],
    ['requirements_met', 'Requirements met', met],
    ['resolved_concepts', 'Concepts resolved', arr(pkg.resolved_concepts).length],
    ['ambiguities', 'Ambiguous phrases', arr(pkg.ambiguities).length],
    ['unresolved_terms', 'Unresolved terms', arr(pkg.unresolved_terms).length],
    ['missing_evidence', 'Missing-evidence issues', arr(pkg.missing_evidence).length],
    ['conflicts', 'Conflicts', arr(pkg.conflicts).length],
    ['omissions', 'Budget omissions', arr(pkg.budget?.omissions).length],
  ];
  return el(
    'dl',
    { id: 'counts', class: 'counts' },
    rows.map(([key, label, n]) => el('div', { 'data-count': key }, el('dt', { text: label }), el('dd', { text: String(n) }))),
  );
}

const plural = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** The declared gaps the package names (richer profile), by id: `{label, reason, codes}`. */
const gapsOf = (pkg) => new Map(arr(pkg.declared_gaps).map((g) => [g.id, g]));

/** The last path segment of an IRI (`…/regime/new-style-adm` gives `new-style-adm`). */
const lastSegment = (iri) => String(iri ?? '').split('/').filter(Boolean).pop() ?? '';

const SMALL_WORDS = new Set(['of', 'and', 'the', 'for', 'to', 'in', 'on', 'a', 'an', 'or', 'by', 'new', 'old', 'pre']);

/**
 * A regime id in words, from its last segment: each word capitalised, a short word that is no
 * English function word read as an abbreviation (`new-style-adm` gives `New Style ADM`).
 */
const regimeName = (iri) =>
  lastSegment(iri)
    .split('-')
    .filter(Boolean)
    .map((w) => (w.length <= 3 && !SMALL_WORDS.has(w) ? w.toUpperCase() : `${w[0].toUpperCase()}${w.slice(1)}`))
    .join(' ');

const MET = 'supported-within-declared-scope';
const isMet = (r) => r?.status === MET;

/**
 * A requirement's label for people. A trailing "evidence profile v1" is the authoring profile's
 * name, not the branch's: it is dropped only when the requirement's id ends with the same
 * version (`…-v1`); any other label is kept as the author wrote it.
 */
export function requirementLabel(r) {
  const label = String(r?.label ?? r?.id ?? '');
  const m = /^(.*\S)\s+evidence profile v(\d+)$/u.exec(label);
  return m && String(r?.id ?? '').endsWith(`-v${m[2]}`) ? m[1] : label;
}

/** The ids a requirement requires that the package selected (and does not list as missing). */
function presentOf(r, selectedIds) {
  const missingIds = new Set(arr(r.missing));
  return arr(r.required).filter((id) => selectedIds.has(id) && !missingIds.has(id));
}

/** `met`, `partial` (some required evidence present, some missing) or `none`. */
function supportState(r, selectedIds) {
  if (isMet(r)) return 'met';
  return presentOf(r, selectedIds).length ? 'partial' : 'none';
}

const SUPPORT_WORDS = { met: 'met', partial: 'partly supported', none: 'not met' };

const selectedIdsOf = (pkg) => new Set(arr(pkg.selected).map((s) => s.record?.id));

/** A requirement's support in the status box's words, for other views of the package: `{state, text}`. */
export function requirementSupport(r, pkg) {
  const state = supportState(r, selectedIdsOf(pkg));
  return { state, text: SUPPORT_WORDS[state] };
}

/**
 * One refused item of a requirement's closure in words: "Refused by a <role> on <date>:
 * <reason> (<item>)" ("Sent back for changes by …" for changes-required).
 */
export function refusalText(f) {
  const how = f?.decision === 'changes-required' ? 'Sent back for changes' : 'Refused';
  const role = String(f?.role ?? 'specialist');
  const article = /^[aeiou]/iu.test(role) ? 'an' : 'a';
  const what = f?.label ?? f?.item;
  return `${how} by ${article} ${role} on ${String(f?.date ?? '')}: ${String(f?.reason ?? '')}${what ? ` (${what})` : ''}`;
}

/**
 * A requirement's specialist review (richer profile from an index that records reviews): the
 * package's one-line statement ("Reviewed by a <role> on <date>.", "Not reviewed by a
 * specialist.", "Not approved by a specialist: …") and each refused item with its reason;
 * null when the package carries no review facts.
 */
export function requirementReview(r) {
  const review = r?.review;
  if (!review || typeof review.statement !== 'string') return null;
  const refusals = arr(review.refusals);
  return el('div', { class: 'req-review', 'data-review': String(review.state ?? '') },
    el('p', { class: 'review-statement', text: review.statement }),
    refusals.length
      ? el('ul', { class: 'refusals' }, refusals.map((f) => el('li', { class: 'refusal', 'data-item': String(f?.item ?? ''), text: refusalText(f) })))
      : null);
}

/**
 * "Review this branch" (the reviewer's page, web/reviewer.js), on pages that offer it
 * (`handlers.review`), for a package in the richer profile (the one that shows a branch's
 * review); its visually hidden words name the branch.
 */
function reviewButton(r, review) {
  const button = el('button', { type: 'button', class: 'small secondary review-branch', 'data-requirement': r.id },
    'Review this branch', el('span', { class: 'govuk-visually-hidden', text: `: ${requirementLabel(r)}` }));
  button.addEventListener('click', () => review(r, button));
  return el('p', { class: 'review-branch-row' }, button);
}

/** A missing id in words: a declared gap's or record's label, else what it is. */
const missingName = (id, labels) => labels.get(id) ?? 'a required record that is not in the package';

/** GOV.UK details ("Technical details"): codes, ids and IRIs for those who need them. */
function technicalDetails(id, ...content) {
  return el(
    'details',
    { class: 'govuk-details', id },
    el('summary', { class: 'govuk-details__summary' }, el('span', { class: 'govuk-details__summary-text', text: 'Technical details' })),
    el('div', { class: 'govuk-details__text' }, ...content),
  );
}

/** A review status in words (`unreviewed-specialist-review-required` gives "not reviewed: specialist review required"). */
function reviewWords(status) {
  if (status === undefined || status === null || status === '') return 'review status not stated';
  const value = String(status);
  if (value === 'unreviewed-specialist-review-required') return 'not reviewed: specialist review required';
  return value.replaceAll('-', ' ');
}

const isUnreviewed = (status) => /^unreviewed/u.test(String(status ?? ''));

/**
 * GOV.UK warning text beside the status when what the package selected has not been reviewed
 * by a specialist; null when everything it states a review status for is reviewed.
 */
function reviewWarning(pkg) {
  const records = arr(pkg.selected).map((s) => s.record).filter(Boolean);
  const links = arr(pkg.relationships);
  const records_ = records.filter((r) => isUnreviewed(r.review_status)).length;
  const links_ = links.filter((a) => isUnreviewed(a.review_status)).length;
  if (!records_ && !links_) return null;
  const parts = [];
  if (records_) parts.push(`${records_ === records.length ? `All ${plural(records_, 'selected record')}` : `${records_} of ${plural(records.length, 'selected record')}`}`);
  if (links_) parts.push(`${links_} of ${plural(links.length, 'link')} between them`);
  return el(
    'div',
    { id: 'review-warning', class: 'govuk-warning-text warning-text' },
    el('span', { class: 'govuk-warning-text__icon warning-icon', 'aria-hidden': 'true', text: '!' }),
    el('p', { class: 'govuk-warning-text__text' },
      el('strong', {}, el('span', { class: 'govuk-visually-hidden', text: 'Warning: ' }), 'Not reviewed by a specialist.'),
      text(` ${parts.join(' and ')} ${records_ + links_ === 1 ? 'awaits' : 'await'} specialist review.`)),
  );
}

/**
 * Whether the bundle does not cover the question: no requirement applies and words of the
 * question are outside its vocabulary. The records it reached then come from other words.
 */
export const isOffScope = (pkg) => !arr(pkg.requirements).length && arr(pkg.unresolved_terms).length > 0;

const quoted = (terms) => terms.map((t) => `“${t}”`).join(', ');

/** A word as the broad-question test compares it: lower case, a plural "s" dropped. */
const stem = (word) => String(word).toLowerCase().replace(/s$/u, '');

/**
 * Whether an off-scope question is broad rather than off topic: one of its unrecognised words
 * is a word of the bundle's own example questions ("benefits" where the examples ask about a
 * benefit), so the bundle is about it but the question names nothing it can look up.
 */
function isBroad(pkg, examples) {
  const known = new Set(examples.flatMap((q) => String(q).match(/\p{L}+/gu) ?? []).map(stem));
  return arr(pkg.unresolved_terms).some((t) => known.has(stem(t)));
}

/**
 * The first thing an off-scope result says: for a broad question, how to ask it (with the
 * bundle's first example); otherwise what the bundle does not cover, and what it does.
 */
function offScopeNotice(pkg, examples = []) {
  if (!isOffScope(pkg)) return null;
  const terms = quoted(arr(pkg.unresolved_terms));
  const says = isBroad(pkg, examples)
    ? [el('strong', { text: 'Your question is too broad for this bundle.' }),
      text(` ${terms} is a subject of this bundle, but the question does not say which case: name who it is about, which benefit or service, and what happened, for example “${examples[0]}”.`)]
    : [el('strong', { text: `This bundle does not cover ${terms}.` }), text(` It covers: ${pkg.scope ?? ''}`)];
  return el(
    'div',
    { id: 'off-scope', class: 'warning-text', role: 'note', 'data-kind': isBroad(pkg, examples) ? 'broad' : 'not-covered' },
    el('span', { class: 'warning-icon', 'aria-hidden': 'true', text: '!' }),
    el('p', {}, ...says),
  );
}

/**
 * When the selected records' sources were captured, as one date or a range (`captured_at` in
 * their provenance, date part); `null` when none says.
 */
export function capturedRange(pkg) {
  const days = arr(pkg.selected)
    .flatMap((s) => arr(s.record?.provenance))
    .map((p) => String(p?.captured_at ?? '').slice(0, 10))
    .filter((d) => /^\d{4}-\d{2}-\d{2}$/u.test(d))
    .sort();
  if (!days.length) return null;
  const [first, last] = [days[0], days[days.length - 1]];
  return readableDays(first, last);
}

function capturedLine(pkg) {
  const range = capturedRange(pkg);
  if (!range) return null;
  return el('p', { id: 'captured', class: 'status-scope' }, el('strong', { text: 'Sources captured: ' }),
    text(`${range} (when the text was copied; not a publication or effective date).`));
}

/** Guidance regimes the question established and left open (richer profile), in words. */
function regimeLine(pkg) {
  const regime = pkg.guidance_regime;
  if (!regime) return null;
  const names = (ids) => arr(ids).map(regimeName).join(', ');
  const parts = [
    arr(regime.resolved).length ? `${names(regime.resolved)} established by the question` : null,
    arr(regime.unresolved).length ? `${names(regime.unresolved)} left open (the question does not say whether it applies)` : null,
    arr(regime.not_held).length ? `${names(regime.not_held)} not held by this bundle` : null,
    regime.as_of ? `as of ${readableDate(regime.as_of)}` : null,
  ].filter(Boolean);
  if (!parts.length) return null;
  return el('p', { id: 'guidance-regime', class: 'status-scope' }, el('strong', { text: 'Guidance regime: ' }), text(`${parts.join('; ')}.`));
}

/** What of a requirement is present, in words: its documents and paragraphs, else a count. */
function presentWords(r, byId, selectedIds) {
  const present = presentOf(r, selectedIds);
  const lines = supportLines(present.map((id) => byId.get(id)).filter((rec) => rec?.kind === 'evidence'));
  if (!lines.length) return `${present.length} of ${plural(arr(r.required).length, 'required record')}`;
  return lines.map(({ name, paragraphs }) => `${name}${paragraphs.length ? ` paragraphs ${span(paragraphs)}` : ''}`).join('; ');
}

/**
 * One missing item of a requirement: a declared gap with the author's reason the first time
 * it is named, by its label alone (the reason given above) after that.
 */
function missingItem(id, gaps, labels, said) {
  const gap = gaps.get(id);
  if (!gap) return el('li', { class: 'missing-record', text: missingName(id, labels) });
  if (said.has(id)) return el('li', { class: 'gap gap-again', 'data-gap': id }, el('strong', { class: 'gap-label', text: gap.label }), text(' (reason given above)'));
  said.add(id);
  return el('li', { class: 'gap', 'data-gap': id }, el('strong', { class: 'gap-label', text: gap.label }), text(': '), el('span', { class: 'gap-reason', text: gap.reason }));
}

/** One unmet requirement in the status box: its name, how far it is supported, what is missing and why. */
function unmetItem(r, ctx) {
  const state = supportState(r, ctx.selectedIds);
  return el(
    'li',
    { class: 'unmet', 'data-requirement': r.id, 'data-support': state },
    el('strong', { class: 'req-name', text: requirementLabel(r) }),
    text(` — ${SUPPORT_WORDS[state]}.`),
    state === 'partial' ? el('span', { class: 'present' }, text(' Present: '), text(`${presentWords(r, ctx.byId, ctx.selectedIds)}.`)) : null,
    arr(r.missing).length
      ? [text(' Missing:'), el('ul', { class: 'missing-items' }, arr(r.missing).map((id) => missingItem(id, ctx.gaps, ctx.labels, ctx.said)))]
      : null,
  );
}

/**
 * Every unmet requirement, in the order of the table below, and every declared gap with the
 * author's reason, each reason exactly once; gaps no unmet requirement names come last.
 */
function unmetReasons(pkg, labels) {
  const list = arr(pkg.requirements);
  const unmet = list.filter((r) => !isMet(r));
  const gaps = gapsOf(pkg);
  if (!unmet.length && !gaps.size) return null;
  const ctx = { gaps, labels, said: new Set(), selectedIds: selectedIdsOf(pkg), byId: new Map(arr(pkg.selected).map((s) => [s.record?.id, s.record])) };
  const items = unmet.map((r) => unmetItem(r, ctx));
  const loose = [...gaps.keys()].filter((id) => !ctx.said.has(id));
  if (loose.length) {
    items.push(el('li', { class: 'unmet', 'data-gaps': 'other' }, el('strong', { text: 'Also declared missing by the bundle author:' }),
      el('ul', { class: 'missing-items' }, loose.map((id) => missingItem(id, gaps, labels, ctx.said)))));
  }
  const intro = unmet.length
    ? `${unmet.length} of ${plural(list.length, 'requirement')} ${unmet.length === 1 ? 'is' : 'are'} not met. ${unmet.length === 1 ? 'It is' : 'They are'} listed in the order of the table below, with the bundle author’s reason for each piece of guidance the bundle knowingly does not hold; a reason shared by several requirements is given once.`
    : 'The bundle author declares guidance the bundle knowingly does not hold:';
  return el('div', { id: 'unmet-reasons' }, el('p', { text: intro }), el('ol', { class: 'unmet-list' }, items));
}

/**
 * What keeps the package from being sufficient, in words, one reason per entry (with the
 * unresolved terms themselves); empty for a sufficient package.
 */
function missingReasons(pkg, labels, reask) {
  const gaps = gapsOf(pkg);
  // An issue that names a declared gap is said once, by the gap's own words (below).
  const issues = arr(pkg.missing_evidence).filter((i) => !arr(i.ids).some((id) => gaps.has(id)));
  const codes = new Map();
  for (const i of issues) codes.set(i.code, [...(codes.get(i.code) ?? []), i]);
  const reasons = [];
  const terms = arr(pkg.unresolved_terms);
  if (terms.length) {
    reasons.push(['unresolved_terms', el('span', {}, `${terms.length === 1 ? 'A word of the question is' : `${terms.length} words of the question are`} not in the bundle’s declared vocabulary, so nothing was looked up for ${terms.length === 1 ? 'it' : 'them'}: `,
      terms.map((t, i) => [i ? ', ' : '', el('mark', { class: 'term', text: t })]), '.')]);
  }
  if (codes.has('no_evidence_requirements') || (!arr(pkg.requirements).length && arr(pkg.resolved_concepts).length)) {
    reasons.push(['no_evidence_requirements', text('No evidence requirement declared by the bundle applies to this question, so completeness cannot be shown.')]);
  }
  const uncovered = codes.get('uncovered_resolved_concept') ?? [];
  if (uncovered.length) {
    const names = uncovered.flatMap((i) => arr(i.ids)).map((id) => labels.get(id) ?? id);
    reasons.push(['uncovered_resolved_concept', text(`${plural(uncovered.length, 'resolved concept')} ${uncovered.length === 1 ? 'is' : 'are'} covered by no applicable requirement${names.length ? `: ${names.join('; ')}` : ''}.`)]);
  }
  if (codes.has('missing_scope')) {
    reasons.push(['missing_scope', text('The question falls outside the scope the bundle declares, or the scope it needs is not declared.')]);
  }
  if (codes.has('unresolved_task')) {
    reasons.push(['unresolved_task', text('The question resolved to no declared concept, so there is no task to gather evidence for.')]);
  }
  const unmet = unmetReasons(pkg, labels);
  if (unmet) reasons.push(['unmet_requirements', unmet]);
  for (const issue of codes.get('ambiguous_regime') ?? []) {
    const [concept, ...regimes] = arr(issue.ids);
    reasons.push(['ambiguous_regime', text(`“${labels.get(concept) ?? regimeName(concept)}” can be read under more than one guidance regime (${regimes.map(regimeName).join(', ')}) and the question does not say which applies; none was chosen. Ask again naming the regime.`)]);
  }
  // A guidance-regime ambiguity (it has a reason) is said above, by its ambiguous_regime issue.
  const ambiguities = arr(pkg.ambiguities).filter((a) => a.reason === undefined);
  if (ambiguities.length) {
    reasons.push(['ambiguous_concepts', el('span', {}, 'Ambiguous phrase', ambiguities.length === 1 ? '' : 's', ' (no meaning was chosen): ',
      ambiguities.map((a, i) => [i ? ', ' : '', el('mark', { text: a.phrase })]), '.',
      reask ? ambiguities.map((a) => choices(pkg, a, reask)) : null)]);
  }
  const explained = new Set(['unresolved_terms', 'no_evidence_requirements', 'uncovered_resolved_concept', 'missing_scope', 'unresolved_task', 'ambiguous_concepts', 'ambiguous_regime']);
  for (const [code, list] of codes) {
    if (explained.has(code)) continue;
    reasons.push([code, text(`${list[0].message}${list.length > 1 ? ` (${list.length} issues)` : ''}`)]);
  }
  if (arr(pkg.conflicts).length) reasons.push(['conflicts', text(`${plural(arr(pkg.conflicts).length, 'declared conflict')} between selected records.`)]);
  const omissions = arr(pkg.budget?.omissions);
  if (omissions.length) reasons.push(['budget_omissions', text(`The budget left out ${plural(omissions.length, 'item')}; see “Left out by the budget”.`)]);
  return reasons;
}

/**
 * For an ambiguous phrase, one button per meaning that asks again with the phrase replaced by
 * words only that meaning's concept declares (an alias no other candidate has), so the new
 * question resolves to the meaning chosen. A candidate without such an alias gets no button.
 */
function choices(pkg, ambiguity, reask) {
  const byId = new Map(arr(pkg.selected).map((s) => [s.record?.id, s.record]));
  const aliasesOf = (id) => arr(byId.get(id)?.aliases).map((a) => (typeof a === 'string' ? a : a?.label)).filter((a) => typeof a === 'string' && a !== '');
  const candidates = arr(ambiguity.candidates);
  const buttons = candidates.flatMap((id) => {
    const others = new Set(candidates.filter((c) => c !== id).flatMap(aliasesOf).map((a) => a.toLowerCase()));
    const own = aliasesOf(id).find((a) => !others.has(a.toLowerCase()));
    if (!own) return [];
    const at = String(pkg.question ?? '').toLowerCase().indexOf(String(ambiguity.phrase).toLowerCase());
    if (at < 0) return [];
    const question = `${pkg.question.slice(0, at)}${own}${pkg.question.slice(at + ambiguity.phrase.length)}`;
    const button = el('button', { type: 'button', class: 'secondary small choice', 'data-question': question, text: `Ask about “${byId.get(id)?.label ?? own}”` });
    button.addEventListener('click', () => reask(question));
    return [button];
  });
  return buttons.length ? el('span', { class: 'choices', 'data-phrase': ambiguity.phrase }, ' Choose a meaning: ', buttons.map((b, i) => [i ? ' ' : '', b])) : null;
}

function missingSummary(pkg, labels, reask) {
  if (pkg.evidence_status === 'sufficient') return null;
  const reasons = missingReasons(pkg, labels, reask);
  if (!reasons.length) return null;
  return el('div', { class: 'why-not' }, el('h4', { id: 'why-not-heading', text: 'Why it is not sufficient' }),
    el('ul', { id: 'why-not', 'aria-labelledby': 'why-not-heading' }, reasons.map(([code, node]) => el('li', { 'data-reason': code }, node))));
}

/** For a sufficient package, what is missing in one line: nothing. */
function nothingMissing(pkg) {
  if (pkg.evidence_status !== 'sufficient') return null;
  return el('p', { id: 'nothing-missing' }, el('strong', { text: 'What is missing: ' }),
    text('nothing. No evidence is missing, nothing is ambiguous or in conflict, and the budget left nothing out.'));
}

/** Downloading, linking to and citing the package. */
function usePanel(pkg, actions, handlers) {
  return section('use', 'Use this package', actions, contextIdRow(pkg, handlers), handlers?.checkAnswer ? answerCheck(pkg, handlers.checkAnswer) : null);
}

/**
 * Checking an answer written from this package (okf-grounded-answer.v1) before anyone relies
 * on it. People fill a form, one row per claim (its words, the record it rests on, the quote
 * copied from that record, the branch it answers); machines paste the JSON behind "Paste JSON
 * instead". Both go through the same `checkAnswer` and the server's report (okf-answer-check.v1)
 * is shown in words, claim by claim, with focus on its heading.
 */
function answerCheck(pkg, checkAnswer) {
  const records = arr(pkg.selected).map((s) => s?.record).filter((r) => typeof r?.id === 'string');
  const requirements = arr(pkg.requirements).filter((r) => typeof r?.id === 'string');
  const names = answerNames(pkg);
  const rows = el('div', { id: 'answer-claim-rows' });
  const errors = el('div', { id: 'answer-errors' });
  const out = el('div', { id: 'answer-report' });

  const renumber = () => {
    [...rows.children].forEach((row, i) => {
      const n = i + 1;
      row.dataset.row = String(n);
      row.querySelector('legend').textContent = `Claim ${n}`;
      for (const [key, node] of Object.entries(row.fields)) {
        node.id = `claim-${n}-${key}`;
        node.closest('.field').querySelector('label').setAttribute('for', node.id);
        node.closest('.field').querySelector('.govuk-error-message').id = `claim-${n}-${key}-error`;
      }
      row.querySelector('.remove-claim').textContent = `Remove claim ${n}`;
      row.querySelector('.remove-claim').hidden = rows.children.length === 1;
    });
  };
  const field = (labelText, control, hint) => el('div', { class: 'field' },
    el('label', { text: labelText }), hint ? el('span', { class: 'note field-hint', text: hint }) : null,
    el('p', { class: 'govuk-error-message', hidden: true }), control);
  const addRow = () => {
    const fields = {
      text: el('textarea', { rows: '2', class: 'claim-text-input' }),
      record: el('select', { class: 'claim-record' },
        el('option', { value: '', text: 'Choose a record' }),
        records.map((r) => el('option', { value: r.id, text: names.record(r.id) }))),
      quote: el('textarea', { rows: '3', spellcheck: 'false', class: 'claim-quote' }),
      requirement: el('select', { class: 'claim-requirement' },
        el('option', { value: '', text: 'none' }),
        requirements.map((r) => el('option', { value: r.id, text: requirementLabel(r) }))),
    };
    const remove = el('button', { type: 'button', class: 'secondary small remove-claim' });
    const row = el('fieldset', { class: 'claim-row' }, el('legend', {}),
      field('What the answer says', fields.text),
      field('The record it rests on', fields.record),
      field('Quote copied exactly from that record', fields.quote, 'Whole sentences, at least 20 characters.'),
      field('The branch (requirement) it answers (optional)', fields.requirement),
      remove);
    row.fields = fields;
    remove.addEventListener('click', () => {
      const at = [...rows.children].indexOf(row);
      row.remove();
      renumber();
      const next = rows.children[Math.min(at, rows.children.length - 1)];
      next?.fields.text.focus();
    });
    rows.append(row);
    renumber();
    return row;
  };
  addRow();
  const add = el('button', { type: 'button', id: 'answer-add-claim', class: 'secondary small', text: 'Add another claim' });
  add.addEventListener('click', () => addRow().fields.text.focus());
  const formButton = el('button', { type: 'button', id: 'answer-form-check', class: 'secondary', text: 'Check the answer' });

  const jsonInput = el('textarea', { id: 'answer-input', rows: '6', spellcheck: 'false', 'aria-describedby': 'answer-hint' });
  const jsonButton = el('button', { type: 'button', id: 'answer-check', class: 'secondary', text: 'Check the JSON' });

  const clearErrors = () => {
    clear(errors);
    for (const node of [jsonInput, ...[...rows.children].flatMap((row) => Object.values(row.fields))]) {
      node.removeAttribute('aria-invalid');
      node.removeAttribute('aria-describedby');
      const message = node.closest('.field')?.querySelector('.govuk-error-message');
      if (message) { message.hidden = true; message.textContent = ''; }
    }
    jsonInput.setAttribute('aria-describedby', 'answer-hint');
  };
  /** The GOV.UK error summary: each problem links to (and focuses) its field. */
  const refuse = (problems) => {
    clear(out);
    for (const [node, message] of problems) {
      node.setAttribute('aria-invalid', 'true');
      const inline = node.closest('.field')?.querySelector('.govuk-error-message');
      if (inline && node !== jsonInput) {
        inline.hidden = false;
        inline.textContent = message;
        node.setAttribute('aria-describedby', inline.id);
      }
    }
    const summary = el('div', { class: 'govuk-error-summary', role: 'alert', tabindex: '-1', 'aria-labelledby': 'answer-error-title' },
      el('h4', { id: 'answer-error-title', class: 'govuk-error-summary__title', text: 'There is a problem' }),
      el('ul', { class: 'govuk-error-summary__list' }, problems.map(([node, message]) => {
        const link = el('a', { href: `#${node.id}`, 'data-field': node.id, text: message });
        link.addEventListener('click', (event) => {
          event.preventDefault();
          node.closest('details')?.setAttribute('open', '');
          node.focus();
          node.scrollIntoView({ block: 'center' });
        });
        return el('li', {}, link);
      })));
    errors.append(summary);
    summary.focus();
  };

  let checking = 0;
  const run = async (answer, fieldOf) => {
    const turn = ++checking;
    clear(out);
    try {
      const { text: raw, value } = await checkAnswer(answer);
      if (turn !== checking) return;
      out.append(...answerReport(value, raw, { answer, recordName: names.record, requirementName: names.requirement, recordText: (id) => selectedText(pkg, id) }));
      out.dataset.report = raw;
      markBranches(value);
      out.querySelector('#answer-report-heading')?.focus();
    } catch (e) {
      if (turn !== checking) return;
      const message = e?.code === 'network' || String(e?.code ?? '').startsWith('http_') ? 'The server could not check the answer. Try again.' : `The answer could not be checked: ${e?.message ?? e}`;
      refuse([[fieldOf(e?.field) ?? formButton, message]]);
    }
  };

  formButton.addEventListener('click', () => {
    clearErrors();
    const problems = [];
    const claims = [...rows.children].map((row, i) => {
      const n = i + 1;
      const { text: t, record, quote, requirement } = row.fields;
      if (!t.value.trim()) problems.push([t, `Enter what claim ${n} says`]);
      if (!record.value) problems.push([record, `Choose the record claim ${n} rests on`]);
      if (!quote.value.trim()) problems.push([quote, `Enter the quote claim ${n} copies from its record`]);
      return { id: `c${n}`, text: t.value, requirement: requirement.value === '' ? null : requirement.value, citations: [{ record: record.value, quote: quote.value }] };
    });
    if (problems.length) { refuse(problems); return; }
    const answer = { schema: 'okf-grounded-answer.v1', context_id: pkg.context_id, evidence_status: pkg.evidence_status, claims };
    // A refusal naming a claim's field (`answer.claims[0].text`) links to that field.
    run(answer, (f) => {
      const m = /^answer\.claims\[(\d+)\]\.(text|id|requirement|citations(?:\[\d+\]\.(record|quote))?)/.exec(String(f ?? ''));
      const row = m ? rows.children[Number(m[1])] : null;
      if (!row) return null;
      const key = m[2] === 'id' ? 'text' : m[3] ?? (m[2] === 'requirement' ? 'requirement' : m[2] === 'text' ? 'text' : 'quote');
      return row.fields[key];
    });
  });
  jsonButton.addEventListener('click', () => {
    clearErrors();
    let answer;
    try {
      answer = JSON.parse(jsonInput.value);
    } catch {
      refuse([[jsonInput, 'The answer is not JSON: paste an okf-grounded-answer.v1 object']]);
      return;
    }
    run(answer, () => jsonInput);
  });

  return el('details', { id: 'answer-box', class: 'answer-box' }, el('summary', { text: 'Check an answer written from this package' }),
    el('p', { class: 'note', text: 'Write each claim of the answer, the record it rests on and the words copied exactly from that record. The check says, claim by claim, whether each quote is on the record cited and which branches no claim covers.' }),
    errors,
    rows, add, ' ', formButton,
    el('details', { id: 'answer-json-box', class: 'govuk-details' },
      el('summary', { class: 'govuk-details__summary' }, el('span', { class: 'govuk-details__summary-text', text: 'Paste JSON instead' })),
      el('div', { class: 'govuk-details__text' },
        el('p', { id: 'answer-hint', class: 'note', text: 'Paste the answer as okf-grounded-answer.v1 JSON (claims citing record ids with exact quotes; docs/grounding.md).' }),
        el('div', { class: 'field' }, el('label', { for: 'answer-input', text: 'Answer (JSON)' }), jsonInput), jsonButton)),
    out);
}

/** How the answer check names a package's records (label and locator) and requirements (label). */
function answerNames(pkg) {
  const recordsById = new Map(arr(pkg.selected).map((s) => [s?.record?.id, s?.record]));
  const requirementsById = new Map(arr(pkg.requirements).map((r) => [r?.id, r]));
  return {
    record: (id) => {
      const r = recordsById.get(id);
      if (!r) return null;
      const label = typeof r.label === 'string' && r.label !== '' ? r.label : id;
      const locator = arr(r.provenance)[0]?.locator;
      return typeof locator === 'string' && locator !== '' ? `${label} (${locator})` : label;
    },
    requirement: (id) => (requirementsById.has(id) ? requirementLabel(requirementsById.get(id)) : null),
  };
}

/** Marks each row of the branch table with whether the checked answer covers it. */
function markBranches(report) {
  for (const r of arr(report.requirements)) {
    const row = [...document.querySelectorAll('#requirements-table tbody tr')].find((tr) => tr.dataset.requirement === r.id);
    if (!row) continue;
    row.dataset.answerCovered = String(r.covered);
    row.querySelector('.answer-coverage')?.remove();
    row.querySelector('th')?.append(el('div', { class: `answer-coverage badge ${r.covered ? 'met' : 'unmet'}`, text: r.covered ? `Answer covers it (${arr(r.covered_by).join(', ')})` : 'The answer does not cover it' }));
  }
}

/** The text of a record the package selected, or null. */
export function selectedText(pkg, id) {
  const item = arr(pkg?.selected).find((s) => s?.record?.id === id);
  return typeof item?.record?.text === 'string' ? item.record.text : null;
}

/** Characters of record text shown on each side of a highlighted quote. */
const QUOTE_CONTEXT = 160;

/**
 * The quoted passage in its record: up to QUOTE_CONTEXT characters either side, the quote
 * itself marked. `start` and `end` are the report's UTF-16 offsets, the units JavaScript
 * strings index by; a text they do not fit is not shown rather than shown wrong.
 */
export function quotePassage(recordText, start, end) {
  if (typeof recordText !== 'string' || !Number.isInteger(start) || !Number.isInteger(end) || start < 0 || end < start || end > recordText.length) return null;
  const from = Math.max(0, start - QUOTE_CONTEXT);
  const to = Math.min(recordText.length, end + QUOTE_CONTEXT);
  return el('blockquote', { class: 'quote-passage' },
    from > 0 ? '…' : '', recordText.slice(from, start), el('mark', { class: 'quote', text: recordText.slice(start, end) }), recordText.slice(end, to), to < recordText.length ? '…' : '');
}

/** What each finding of okf-answer-check.v1 (okf-grounding) means, in words. */
export const ANSWER_FINDINGS = {
  // The answer as a whole.
  unknown_context: 'The answer was written from another package (its context_id is not this package’s).',
  uncovered_requirement: 'A branch of the package is not covered by any claim.',
  status_mismatch: 'The answer assumes an evidence status other than the package’s.',
  // A claim.
  uncited_claim: 'The claim cites no record.',
  unknown_requirement: 'The branch the claim names is not a requirement of this package.',
  claim_on_unmet_requirement: 'The claim answers a branch the package does not meet.',
  // A citation.
  unknown_record: 'The package does not name the record cited.',
  unselected_record: 'The package names the record cited but did not select it.',
  quote_too_short: 'The quote is too short: under 20 characters.',
  quote_not_found: 'The quote is not on the record cited, nor on any other selected record.',
  quote_not_whole_sentence: 'The quote is on the record cited but starts or ends inside a sentence: quote whole sentences.',
  quote_in_other_record: 'The quote is on another record of the package, not on the record cited.',
};

const findingWords = (code) => ANSWER_FINDINGS[code] ?? `Finding ${code}.`;

/** One citation in words; a found quote is shown marked in its record's text when `recordText` gives it. */
function citationLine(citation, quote, context) {
  const name = context.recordName?.(citation.record) ?? citation.record;
  if (!citation.ok) {
    let words;
    let extra = null;
    if (citation.error === 'quote_in_other_record' && citation.found_in) {
      const f = citation.found_in;
      const other = context.recordName?.(f.record) ?? (f.label ? (f.locator ? `${f.label} (${f.locator})` : f.label) : f.record);
      words = `This text is on ${other}, not on the record cited (${name}).`;
    } else if (citation.error === 'quote_not_found') {
      words = `Quote not found on the record cited (${name}), nor on any other selected record.`;
    } else if (citation.error === 'quote_not_whole_sentence') {
      words = `The quote is on ${name} but is not whole sentences: it starts or ends inside a sentence. Quote the whole sentence:`;
      if (typeof citation.sentences?.text === 'string') extra = el('blockquote', { class: 'quote-passage quote-sentence', text: citation.sentences.text });
    } else if (citation.error === 'unselected_record') {
      words = `The package names ${name} but did not select it${citation.detail ? ` (${citation.detail})` : ''}: cite a selected record.`;
    } else if (citation.error === 'unknown_record') {
      words = `The package does not name the record cited (${citation.record}).`;
    } else {
      words = `${findingWords(citation.error)} Record cited: ${name}.`;
    }
    return el('div', { class: 'citation citation-bad', 'data-record': citation.record, 'data-error': citation.error },
      el('span', { class: 'badge unmet', text: 'Not grounded' }), el('span', { class: 'citation-words', text: ` ${words}` }), extra,
      quote ? el('blockquote', { class: 'quote-passage quote-missing', text: quote }) : null);
  }
  const box = el('div', { class: 'citation citation-ok', 'data-record': citation.record },
    el('span', { class: 'badge met', text: 'Quote found' }), el('span', { class: 'citation-words', text: ` on ${name}, characters ${citation.start}–${citation.end}.` }));
  const show = (recordTextFound) => {
    const passage = quotePassage(recordTextFound, citation.start, citation.end);
    box.append(passage ?? el('blockquote', { class: 'quote-passage', text: quote ?? '' }));
  };
  const found = context.recordText ? context.recordText(citation.record) : null;
  if (found && typeof found.then === 'function') {
    const wait = el('p', { class: 'note', role: 'status', text: 'Reading the record…' });
    box.append(wait);
    found.then((t) => { wait.remove(); show(t); }, (e) => { wait.textContent = `The record could not be read: ${e?.message ?? e}`; });
  } else if (found !== null || quote) {
    show(found);
  }
  return box;
}

/**
 * A report in words: the verdict, each claim (its text when the answer is given) grounded or
 * not with each citation's finding, the quote marked in its record; then each branch covered
 * or not; codes and the exact report behind "Technical details". Also the MCP Apps view of an
 * okf_check_answer result (web/mcp-app.js). `context.answer` is the checked
 * okf-grounded-answer.v1, `context.recordText(id)` a selected record's text (or a promise of
 * it), `context.recordName(id)` / `context.requirementName(id)` names for people.
 */
export function answerReport(report, raw, context = {}) {
  const grounded = report.verdict === 'grounded';
  const claimsGiven = new Map(arr(context.answer?.claims).map((c) => [c?.id, c]));
  const requirementName = (id) => context.requirementName?.(id) ?? id;
  const reasons = arr(report.errors).map((e) => {
    if (e === 'status_mismatch' && report.status) return `The answer says the evidence is ${report.status.answer}; the package says ${report.status.package}.`;
    return findingWords(e);
  });
  return [
    el('h4', { id: 'answer-report-heading', tabindex: '-1', text: grounded ? 'The answer is grounded' : 'The answer is not grounded' }),
    el('div', { class: 'answer-verdict', 'data-verdict': report.verdict },
      el('p', {}, el('span', { class: `badge ${grounded ? 'met' : 'unmet'}`, text: grounded ? 'Grounded' : 'Not grounded' }),
        text(grounded ? ' Every quote is on the record it cites, every branch is covered and the answer keeps the package’s evidence status.' : ' Why:')),
      grounded ? null : el('ul', { class: 'answer-reasons' }, [...new Set(reasons)].map((r) => el('li', { text: r })))),
    el('h5', { text: 'Claim by claim' }),
    el('ul', { id: 'answer-claims' }, arr(report.claims).map((c) => {
      const given = claimsGiven.get(c.id);
      const ok = !arr(c.errors).length;
      const own = arr(c.errors).filter((e) => ['uncited_claim', 'unknown_requirement', 'claim_on_unmet_requirement'].includes(e));
      return el('li', { 'data-claim': c.id, 'data-grounded': String(ok) },
        el('strong', { text: `Claim ${c.id}: ` }),
        el('span', { class: 'claim-verdict', text: ok ? 'grounded: every citation found' : 'not grounded' }),
        typeof given?.text === 'string' ? el('p', { class: 'claim-text', text: given.text }) : null,
        c.requirement ? el('p', { class: 'claim-branch', text: `Answers the branch: ${requirementName(c.requirement)}` }) : null,
        own.map((e) => el('p', { class: 'claim-problem', text: findingWords(e) })),
        arr(c.citations).map((x, i) => citationLine(x, typeof given?.citations?.[i]?.quote === 'string' ? given.citations[i].quote : null, context)),
        technicalDetails(null, el('p', {}, 'Claim ', code(c.id), ': ', arr(c.errors).length ? arr(c.errors).map((e, i) => [i ? ', ' : '', code(e)]) : 'no errors'),
          arr(c.citations).map((x) => el('p', {}, 'Citation of ', code(x.record), ': ', code(x.ok ? 'ok' : x.error),
            x.found_in ? [' found_in ', code(x.found_in.record)] : null))));
    })),
    el('h5', { text: 'Branches' }),
    arr(report.requirements).length
      ? el('ul', { id: 'answer-branches' }, arr(report.requirements).map((r) => el('li', { 'data-requirement': r.id, 'data-covered': String(r.covered) },
        text(r.covered ? `Covered: ${requirementName(r.id)}, by claim ${arr(r.covered_by).join(', ')}.` : `Not covered: ${requirementName(r.id)}. No claim cites a record of this branch.`))))
      : none('The package applies no requirement.'),
    technicalDetails('answer-technical',
      el('p', {}, 'Verdict ', code(report.verdict), arr(report.errors).length ? [': ', arr(report.errors).map((e, i) => [i ? ', ' : '', code(e)])] : null),
      el('ul', {}, arr(report.requirements).map((r) => el('li', {}, code(r.id), text(` ${r.covered ? 'covered' : 'not covered'}`)))),
      el('p', { text: 'The report as JSON (okf-answer-check.v1):' }),
      el('pre', { id: 'answer-report-json', text: raw })),
  ];
}

/** What an evidence status means, in words. */
export function statusMeaning(status) {
  return STATUS_MEANING[status] ?? 'Unknown status.';
}

function statusPanel(pkg, labels, handlers) {
  const status = String(pkg.evidence_status);
  return el(
    'section',
    { id: 'status', class: `status status-${status}`, 'data-status': status, 'aria-labelledby': 'status-heading' },
    el('h3', { id: 'status-heading' }, 'Evidence status: ', el('span', { class: 'status-word', text: status })),
    reviewWarning(pkg),
    el('p', { class: 'status-meaning', text: statusMeaning(status) }),
    missingSummary(pkg, labels, handlers?.reask) ?? nothingMissing(pkg),
    regimeLine(pkg),
    capturedLine(pkg),
    el('details', { class: 'status-scope', id: 'status-scope' }, el('summary', { text: 'What the bundle covers (its declared scope)' }), el('p', { text: pkg.scope ?? '' })),
    el('p', { class: 'no-answer', text: 'This package is evidence to read, not an answer: it contains no answer.' }),
    el('details', { id: 'counts-box', class: 'counts-box' }, el('summary', { text: 'The numbers behind this status' }), counts(pkg)),
  );
}

function questionLine(pkg) {
  return el('p', { class: 'identity' }, el('strong', { text: 'Question: ' }), el('q', { id: 'asked-question', text: pkg.question ?? '' }));
}

/** The package's id (what an AI host or a colleague cites), with a copy button. */
function contextIdRow(pkg, handlers) {
  const copyNote = el('span', { id: 'copy-note', class: 'note', role: 'status', 'aria-live': 'polite' });
  const copy = el('button', { type: 'button', id: 'copy-id', class: 'small', text: 'Copy package id' });
  copy.addEventListener('click', () => handlers.copy(pkg.context_id, copyNote));
  return el('p', { class: 'context-id-row' }, el('strong', { text: 'Package id (context_id): ' }), el('code', { id: 'context-id', text: pkg.context_id ?? '' }), ' ', copy, ' ', copyNote);
}

function concepts(pkg, labels) {
  const list = arr(pkg.resolved_concepts);
  return section(
    'concepts',
    'What the question resolved to',
    list.length
      ? el(
          'ul',
          { class: 'concepts' },
          list.map((c) =>
            el(
              'li',
              { 'data-id': c.id },
              el('strong', { text: c.label }),
              ' — matched ',
              arr(c.matched).map((m, i) => [i ? ', ' : '', el('mark', { text: m })]),
            ),
          ),
        )
      : none('No declared concept was resolved from the question.'),
    list.length ? technicalDetails('concepts-technical', idList(list.map((c) => c.id), labels)) : null,
    el('h4', { text: 'Ambiguous phrases' }),
    arr(pkg.ambiguities).length
      ? el(
          'ul',
          { id: 'ambiguities', class: 'issues' },
          arr(pkg.ambiguities).map((a) =>
            el(
              'li',
              { 'data-phrase': a.phrase },
              el('mark', { text: a.phrase }),
              a.reason === undefined ? ' names several concepts; none was chosen:' : ` ${a.reason} Regimes it may be read under:`,
              el('ul', { class: 'candidates' }, arr(a.candidates).map((id) => el('li', { 'data-id': id, text: labels.get(id) ?? regimeName(id) }))),
            ),
          ),
        )
      : none('No phrase of the question is ambiguous.'),
    el('h4', { text: 'Unresolved terms' }),
    arr(pkg.unresolved_terms).length
      ? el('p', {}, 'Words outside the bundle’s declared vocabulary: ', el('span', { id: 'unresolved' }, arr(pkg.unresolved_terms).map((t, i) => [i ? ', ' : '', el('mark', { class: 'term', text: t })])))
      : none('Every word of the question is in the bundle’s declared vocabulary.'),
  );
}

/**
 * The numbered paragraphs a page of guidance holds: lines that start with a 4- or 5-digit
 * number followed by a capital letter or a bracket, as the DMG numbers its paragraphs.
 * Record text is untrusted data; only these digits are taken from it, as numbers.
 */
function paragraphNumbers(value) {
  const found = [];
  for (const m of String(value ?? '').matchAll(/^[ \t]*(\d{4,5})[ \t]+(?=[A-Z(])/gmu)) found.push(Number(m[1]));
  return found;
}

/** `first–last`, or the one number. */
const span = (numbers) => {
  const lo = Math.min(...numbers);
  const hi = Math.max(...numbers);
  return lo === hi ? String(lo) : `${lo}–${hi}`;
};

/** The document a page record belongs to: its label before “ — ”. */
const documentOf = (label) => String(label ?? '').split(' — ')[0];

/**
 * The evidence records a requirement rests on, in the package's order: those it requires and
 * those on its required paths, that the package selected.
 */
function evidenceOf(r, byId) {
  return [...namedBy(r)].map((id) => byId.get(id)).filter((rec) => rec?.kind === 'evidence');
}

/** The record ids a requirement names: required, and on its required paths, in that order. */
function namedBy(r) {
  return new Set([...arr(r.required), ...arr(r.required_paths).flatMap((p) => arr(p?.records))]);
}

/**
 * The support lines of some records: one per source document, with its records (pages), the
 * numbered paragraphs across them and a key that is the same for lines a reader sees as the
 * same (document and paragraphs).
 */
function supportLines(records) {
  const groups = new Map();
  for (const rec of records) {
    const name = documentOf(rec.label);
    if (!groups.has(name)) groups.set(name, []);
    groups.get(name).push(rec);
  }
  return [...groups].map(([name, recs]) => {
    const paragraphs = recs.flatMap((rec) => paragraphNumbers(rec.text));
    return { name, recs, paragraphs, key: `${name}\u0000${paragraphs.length ? span(paragraphs) : ''}` };
  });
}

/** A list of support lines: a link to the first page's source, the paragraphs, how many pages. */
function supportList(lines, listClass) {
  if (!lines.length) return el('span', { class: 'none', text: 'no selected evidence record' });
  return el(
    'ul',
    { class: listClass },
    lines.map(({ name, recs, paragraphs }) => {
      const url = arr(recs[0].provenance).find((p) => typeof p?.url === 'string')?.url;
      return el(
        'li',
        { 'data-document': name },
        url ? httpsLink(url, name) : el('span', { text: name }),
        paragraphs.length ? el('span', { class: 'paragraphs', text: ` paragraphs ${span(paragraphs)}` }) : null,
        recs.length > 1 ? el('span', { class: 'note', text: ` (${recs.length} pages)` }) : null,
      );
    }),
  );
}

/**
 * A requirement's missing ids by name: a declared gap by the author's label (its reason is in
 * the status box above, once), anything else by its label; "nothing" when nothing is missing.
 */
function missingCell(ids, gaps, labels) {
  if (!ids.length) return el('span', { class: 'none', text: 'nothing' });
  return ids.map((id) =>
    gaps.has(id)
      ? el('div', { class: 'gap', 'data-gap': id }, el('strong', { class: 'gap-label', text: gaps.get(id).label }))
      : el('div', { class: 'missing-record', 'data-id': id, text: missingName(id, labels) }),
  );
}

/** The requirement ids and status values behind the table, for those who need them. */
function requirementIds(list) {
  if (!list.length) return null;
  return [el('h5', { text: 'Requirements' }),
    el('ul', { id: 'requirement-ids', class: 'ids' }, list.map((r) => el('li', {}, el('span', { class: 'id-label', text: `${requirementLabel(r)} ` }), code(r.id), text(` ${r.status ?? ''}`))))];
}

function requirements(pkg, labels, handlers) {
  const list = arr(pkg.requirements);
  if (!list.length) {
    return section('requirements', 'Evidence requirements', none('No declared evidence requirement applies, so completeness cannot be shown.'));
  }
  // Scope and limitations are usually the same for every requirement: say them once, and
  // only under a row whose own differ.
  const terms = (r) => JSON.stringify([r.scope ?? '', arr(r.limitations)]);
  const shared = list.every((r) => terms(r) === terms(list[0])) ? list[0] : null;
  const scopeOf = (r) =>
    el('div', { class: 'req-scope' }, r.scope ? el('p', { class: 'note' }, el('span', { class: 'term-name', text: 'Scope: ' }), text(r.scope)) : null,
      arr(r.limitations).length ? el('ul', { class: 'note limitations' }, arr(r.limitations).map((l) => el('li', { text: l }))) : null);
  // Evidence every branch rests on (the routing pages) is said once, under the table; each
  // row names what supports that branch alone.
  const byId = new Map(arr(pkg.selected).map((x) => [x.record?.id, x.record]));
  const gaps = gapsOf(pkg);
  const lines = list.map((r) => supportLines(evidenceOf(r, byId)));
  // A line every row would show (the same document and paragraphs) is said once, under the table.
  const common = list.length > 1 ? lines[0].filter((l) => lines.every((row) => row.some((x) => x.key === l.key))) : [];
  const commonKeys = new Set(common.map((l) => l.key));
  const selectedIds = selectedIdsOf(pkg);
  const rows = list.map((r, i) => {
    const met = isMet(r);
    const state = supportState(r, selectedIds);
    const own = lines[i].filter((l) => !commonKeys.has(l.key));
    return el(
      'tr',
      { 'data-requirement': r.id, 'data-status': met ? 'met' : 'unmet', 'data-support': state },
      el('th', { scope: 'row' }, el('span', { class: 'req-label', text: requirementLabel(r) }),
        requirementReview(r),
        handlers?.review && pkg.profile ? reviewButton(r, handlers.review) : null,
        !shared && (r.scope || arr(r.limitations).length)
          ? el('details', { class: 'req-terms' }, el('summary', { text: 'Scope and limitations of this requirement' }), scopeOf(r))
          : null),
      el('td', { class: 'req-status', 'data-label': 'Status' }, el('span', { class: `badge ${met ? 'met' : state === 'partial' ? 'partial' : 'unmet'}`, text: SUPPORT_WORDS[state] })),
      el('td', { class: 'support', 'data-label': 'Supported by' }, supportList(own, 'support-list')),
      el('td', { class: 'req-missing', 'data-label': 'What is missing' }, missingCell(arr(r.missing), gaps, labels)),
    );
  });
  return section(
    'requirements',
    'Evidence requirements',
    shared && (shared.scope || arr(shared.limitations).length)
      ? el('details', { id: 'requirements-terms' }, el('summary', { text: `Scope and limitations (the same for all ${list.length} requirements)` }), scopeOf(shared))
      : null,
    el(
      'div',
      { class: 'table-wrap', tabindex: '0', role: 'region', 'aria-label': 'Evidence requirements table (scrolls sideways)' },
      el(
        'table',
        { id: 'requirements-table' },
        el('caption', { text: 'Each requirement the bundle author declared for the resolved concepts' }),
        el('thead', {}, el('tr', {}, el('th', { scope: 'col', text: 'Requirement' }), el('th', { scope: 'col', text: 'Status' }), el('th', { scope: 'col', text: 'Supported by' }), el('th', { scope: 'col', text: 'What is missing' }))),
        el('tbody', {}, rows),
      ),
    ),
    common.length
      ? el('div', { id: 'requirements-common' }, el('h4', { text: `Every requirement also rests on` }), supportList(common, 'support-list'))
      : null,
  );
}

/**
 * What one missing-evidence issue says about a missing id, in words (null when the issue says
 * nothing the item's own name does not): which evidence is missing, never a bare code.
 */
function issueWords(issue, id, labels) {
  const ids = arr(issue.ids);
  switch (issue.code) {
    case 'missing_required_evidence':
      return 'required by this branch and not in the package';
    case 'missing_record':
      return 'not held in the bundle’s index';
    case 'missing_dependency': {
      const from = ids.filter((x) => x !== id).map((x) => labels.get(x)).filter(Boolean);
      return from.length ? `evidence that “${from.join('”, “')}” is declared to depend on` : 'evidence another record is declared to depend on';
    }
    case 'missing_regime_evidence': {
      const regimes = ids.filter((x) => x !== id && !labels.has(x)).map(regimeName);
      return regimes.length ? `guidance of ${regimes.join(', ')}, which this bundle does not hold` : 'guidance of a regime this bundle does not hold';
    }
    default:
      return issue.message ? String(issue.message).replace(/\.$/u, '').toLowerCase() : null;
  }
}

/** One missing id of a branch in words: its name, then what the issues naming it say. */
function missingLine(id, issues, gaps, labels) {
  const words = [...new Set(issues.filter((i) => arr(i.ids).includes(id)).map((i) => issueWords(i, id, labels)).filter(Boolean))];
  return el('li', { 'data-id': id }, el('strong', { text: gaps.get(id)?.label ?? missingName(id, labels) }),
    gaps.has(id) ? text(' — declared missing by the bundle author (reason in the status above)') : null,
    words.length ? text(`${gaps.has(id) ? '; ' : ' — '}${words.join('; ')}.`) : text('.'));
}

/** An issue that names no branch's missing evidence, in words. */
function questionIssue(issue, labels) {
  if (issue.code === 'ambiguous_regime') {
    const [concept, ...regimes] = arr(issue.ids);
    return `“${labels.get(concept) ?? regimeName(concept)}” can be read under more than one guidance regime (${regimes.map(regimeName).join(', ')}); the question does not say which, and none was chosen.`;
  }
  const named = arr(issue.ids).map((id) => labels.get(id)).filter(Boolean);
  return `${String(issue.message ?? '').trim()}${named.length ? ` (${named.map((n) => `“${n}”`).join(', ')})` : ''}`;
}

/**
 * "What is missing" in words, grouped by branch (each unmet requirement, in table order), then
 * what concerns the question as a whole; the codes and ids stay behind Technical details.
 */
function missingInWords(pkg, labels) {
  const issues = arr(pkg.missing_evidence);
  const gaps = gapsOf(pkg);
  const unmet = arr(pkg.requirements).filter((r) => !isMet(r) && arr(r.missing).length);
  const covered = new Set(unmet.flatMap((r) => arr(r.missing)));
  const groups = unmet.map((r) =>
    el('div', { class: 'missing-group', 'data-requirement': r.id }, el('h5', { text: requirementLabel(r) }),
      el('ul', {}, arr(r.missing).map((id) => missingLine(id, issues, gaps, labels)))));
  const rest = issues.filter((i) => !arr(i.ids).some((id) => covered.has(id)));
  if (rest.length) {
    groups.push(el('div', { class: 'missing-group', 'data-group': 'question' }, el('h5', { text: unmet.length ? 'About the question as a whole' : 'Missing evidence' }),
      el('ul', {}, rest.map((i) => el('li', { 'data-code': i.code, text: questionIssue(i, labels) })))));
  }
  return groups.length ? groups : none('Nothing is reported missing.');
}

/** Conflicts or budget omissions in words: each message, with the labels of what it names. */
function wordsList(list, labels, emptyText) {
  if (!list.length) return none(emptyText);
  return el('ul', { class: 'issues' }, list.map((i) => el('li', { text: questionIssue({ ...i, code: undefined }, labels) })));
}

function missing(pkg, labels) {
  return section(
    'missing',
    'What is missing',
    missingInWords(pkg, labels),
    el('h4', { text: 'Conflicts' }),
    wordsList(arr(pkg.conflicts), labels, 'No declared conflict.'),
    el('h4', { text: 'Left out by the budget' }),
    wordsList(arr(pkg.budget?.omissions), labels, 'Nothing was left out by the budget.'),
    technicalDetails(
      'missing-technical',
      requirementIds(arr(pkg.requirements)),
      el('h5', { text: 'Missing-evidence issues' }),
      issueList('missing-list', arr(pkg.missing_evidence), labels, 'None reported.'),
      el('h5', { text: 'Conflicts' }),
      issueList('conflicts-list', arr(pkg.conflicts), labels, 'None declared.'),
      el('h5', { text: 'Budget omissions' }),
      issueList('omissions-list', arr(pkg.budget?.omissions), labels, 'None.'),
      arr(pkg.routing_guards).length
        ? [el('h5', { text: `Routing guards inspected (${arr(pkg.routing_guards).length})` }),
            el('ul', { class: 'guards' }, arr(pkg.routing_guards).map((g) => el('li', {}, code(g.assertion_id), ` ${g.status}`, arr(g.missing_concepts).length ? idList(arr(g.missing_concepts), labels) : null)))]
        : null,
    ),
  );
}

function scope(pkg) {
  return section(
    'scope',
    'Scope and limitations',
    el('p', { text: pkg.scope ?? '' }),
    arr(pkg.limitations).length ? el('ul', { class: 'limitations' }, arr(pkg.limitations).map((l) => el('li', { text: l }))) : none('No limitation is declared.'),
  );
}

function budget(pkg) {
  const b = pkg.budget ?? {};
  const row = (name, used, max) =>
    el('tr', {}, el('th', { scope: 'row', text: name }), el('td', { text: String(used) }), el('td', { text: String(max) }),
      el('td', {}, el('meter', { min: '0', max: String(max || 1), value: String(Math.min(used, max || 1)), 'aria-label': `${name} used` })));
  return section(
    'budget',
    'Budget used',
    el(
      'div',
      { class: 'table-wrap', tabindex: '0', role: 'region', 'aria-label': 'Budget table (scrolls sideways)' },
      el(
        'table',
        { id: 'budget-table' },
        el('thead', {}, el('tr', {}, el('th', { scope: 'col', text: 'Resource' }), el('th', { scope: 'col', text: 'Used' }), el('th', { scope: 'col', text: 'Allowed' }), el('th', { scope: 'col', text: 'Share used' }))),
        el('tbody', {}, row('Records', b.used_nodes, b.max_nodes), row('Relationships', b.used_relationships, b.max_relationships), row('Depth', b.reached_depth, b.max_depth), row('Bytes', b.used_bytes, b.max_bytes)),
      ),
    ),
    el('p', { text: b.truncated ? 'The budget cut the package: see “Left out by the budget”.' : 'Nothing was cut by the budget.' }),
  );
}

function graph(pkg, labels, openRecord) {
  const requirements = arr(pkg.requirements);
  const holder = el('div', { class: 'graph-holder' });
  // One branch at a time keeps the drawing readable on a phone; the table follows the choice.
  const draw = (branch) => {
    const keep = branch ? namedBy(branch) : null;
    const view = keep
      ? { ...pkg, selected: arr(pkg.selected).filter((s) => keep.has(s.record?.id)), relationships: arr(pkg.relationships).filter((r) => keep.has(r.source) && keep.has(r.target)) }
      : pkg;
    clear(holder).append(...graphBody(view, labels, openRecord));
  };
  const picker = requirements.length > 1
    ? el('div', { class: 'field graph-branch' }, el('label', { for: 'graph-branch', text: 'Show in the graph' }),
        el('select', { id: 'graph-branch' }, el('option', { value: '', text: 'Every selected record' }), requirements.map((r, i) => el('option', { value: String(i), text: `Only: ${requirementLabel(r)}` }))))
    : null;
  picker?.querySelector('select').addEventListener('change', (event) => draw(event.target.value === '' ? null : requirements[Number(event.target.value)]));
  draw(null);
  return section(
    'graph',
    'Graph of the selected evidence',
    graphLegend(),
    el('p', { class: 'note', text: 'Arrows point from the record that holds a relationship to the record it leads to. Select a box to open its record. With the keyboard the graph is one stop: Tab to it, move between boxes with the arrow keys (Home and End for the first and last) and press Enter to open one.' }),
    picker,
    holder,
  );
}

/** The note, drawing and relationships table of a package (or of one branch of it). */
function graphBody(pkg, labels, openRecord) {
  const model = graphModel(pkg);
  const selectedIds = new Set(arr(pkg.selected).map((s) => s.record.id));
  const name = (id) => el('span', {}, labels.has(id) ? el('span', { text: labels.get(id) }) : el('span', { class: 'none', text: selectedIds.has(id) ? '' : '(not selected) ' }), el('div', { class: 'small-id' }, code(id)));
  const table = el(
    'table',
    { id: 'graph-table' },
    el('caption', { text: 'Every relationship held in the package (the graph as a table)' }),
    el('thead', {}, el('tr', {}, el('th', { scope: 'col', text: 'From' }), el('th', { scope: 'col', text: 'Relation' }), el('th', { scope: 'col', text: 'To' }), el('th', { scope: 'col', text: 'Status' }))),
    el('tbody', {}, arr(pkg.relationships).map((r) => el('tr', { 'data-id': r.id }, el('td', {}, name(r.source)), el('td', {}, el('span', { text: predicateName(r.predicate) }), r.label ? el('div', { class: 'note', text: r.label }) : null), el('td', {}, name(r.target)), el('td', { text: r.assertion_status })))),
  );
  return [
    el('p', { id: 'graph-note', class: 'note', text: graphNote(model) }),
    model.nodes.length
      ? el('div', { class: 'graph-wrap', tabindex: '-1', role: 'region', 'aria-label': 'Graph drawing (scrolls in both directions)' }, renderGraph(model, openRecord))
      : none('No record was selected, so there is nothing to draw.'),
    el('details', { class: 'graph-table-box', open: arr(pkg.relationships).length <= 20 }, el('summary', { text: `Relationships as a table (${arr(pkg.relationships).length})` }),
      el('div', { class: 'table-wrap', tabindex: '0', role: 'region', 'aria-label': 'Relationships table (scrolls sideways)' }, table)),
  ];
}

function provenanceList(list) {
  if (!list.length) return none('No provenance is given.');
  return el(
    'ul',
    { class: 'provenance' },
    list.map((p) =>
      el(
        'li',
        {},
        dl([
          ['Source', httpsLink(p.url)],
          ['Locator', text(p.locator ?? '')],
          ['Source SHA-256', code(p.source_sha256 ?? '')],
          p.literal_sha256 ? ['Text SHA-256', code(p.literal_sha256)] : null,
          ['Captured', text(p.captured_at ? `${readableDate(p.captured_at)} (${p.captured_at})` : '')],
          p.source_date ? ['Source date', text(`${p.source_date}${p.source_date_kind ? ` (${p.source_date_kind})` : ''}`)] : null,
        ]),
      ),
    ),
  );
}

function evidenceUnit(unit) {
  if (!unit) return null;
  return el(
    'details',
    { class: 'unit' },
    el('summary', { text: `Evidence unit: ${unit.kind}, ${unit.completeness} (${arr(unit.spans).length} span${arr(unit.spans).length === 1 ? '' : 's'})` }),
    el(
      'ul',
      { class: 'provenance' },
      arr(unit.spans).map((s) =>
        el('li', {}, dl([
          ['Source', httpsLink(s.source_url)],
          ['Extraction', httpsLink(s.extraction_url)],
          ['Locator', text(s.locator ?? '')],
          ['Source SHA-256', code(s.source_sha256 ?? '')],
          ['Text SHA-256', code(s.literal_sha256 ?? '')],
          ['Bytes', text(`${s.source_start}–${s.source_end} of ${s.source_text_bytes}`)],
        ])),
      ),
    ),
  );
}

const IRI_TOKEN = /(https?:\/\/[^\s,;]+)/;

/**
 * A selection reason with the record ids and predicate IRIs it mentions shown by their
 * labels (the id stays available as the element's title and data-id).
 */
export function reasonText(reason, labels) {
  return String(reason)
    .split(IRI_TOKEN)
    .filter((part) => part !== '')
    .map((part) => {
      if (!IRI_TOKEN.test(part)) return text(part);
      if (labels.has(part)) return el('span', { class: 'id-label', 'data-id': part, title: part, text: `“${labels.get(part)}”` });
      const predicate = predicateName(part);
      if (predicate !== part) return el('span', { class: 'predicate', 'data-id': part, title: part, text: predicate });
      return code(part);
    });
}

function recordItem(item, index, labels) {
  const r = item.record ?? {};
  const textBox = el('pre', { class: 'record-text-body', tabindex: '0', role: 'region', 'aria-label': `Record text: ${r.label ?? r.id ?? ''}` });
  const textDetails = el(
    'details',
    { class: 'record-text' },
    el('summary', { text: `Record text (${Array.from(String(r.text ?? '')).length} characters, shown as plain text)` }),
    textBox,
  );
  // The text is filled in only when asked for, and only ever as text.
  textDetails.addEventListener('toggle', () => {
    if (textDetails.open && !textBox.textContent) textBox.textContent = String(r.text ?? '');
  });
  const depth = Math.min(...arr(item.paths).map((p) => arr(p.assertions).length), Number.POSITIVE_INFINITY);
  return el(
    'details',
    {
      class: `record record-${r.kind}`,
      id: `record-${index}`,
      'data-id': r.id,
      'data-search': [r.label, r.id, r.kind, r.assertion_status, r.review_status].map((v) => String(v ?? '').toLowerCase()).join(' '),
    },
    el('summary', {}, el('span', { class: 'record-label', text: r.label ?? '' }), ' ', el('span', { class: `badge kind-${r.kind}`, text: r.kind ?? '' }), ' ',
      el('span', { class: 'badge', text: r.assertion_status ?? '' }), ' ', el('span', { class: 'badge review', text: reviewWords(r.review_status) })),
    el(
      'div',
      { class: 'record-body' },
      dl([
        ['Id', code(r.id)],
        ['Kind', text(r.kind)],
        ['Assertion status', text(r.assertion_status)],
        ['Review status', text(reviewWords(r.review_status))],
        ['Authority', el('span', {}, text(r.authority?.label ?? ''), el('span', { class: 'note', text: ` (${r.authority?.class ?? ''}) ` }), code(r.authority?.source ?? ''))],
        ['Scope', text(r.scope ?? '')],
        ['Rights', text(r.rights ?? '')],
        ['Reached', text(Number.isFinite(depth) ? (depth === 0 ? 'directly from the question (seed)' : `after ${depth} hop${depth === 1 ? '' : 's'}`) : '')],
        arr(r.conflicts_with).length ? ['Declared conflicts', idList(arr(r.conflicts_with), new Map())] : null,
      ]),
      el('h4', { text: 'Why it was selected' }),
      el('ul', { class: 'reasons' }, arr(item.reasons).map((x) => el('li', {}, reasonText(x, labels)))),
      el('h4', { text: 'Provenance' }),
      provenanceList(arr(r.provenance)),
      evidenceUnit(r.evidence_unit),
      textDetails,
    ),
  );
}

function recordFilter(list) {
  const input = el('input', { id: 'record-filter', type: 'search', autocomplete: 'off', 'aria-describedby': 'record-filter-note' });
  const note = el('p', { id: 'record-filter-note', class: 'note', role: 'status', 'aria-live': 'polite', text: `Showing all ${list.length} records.` });
  input.addEventListener('input', () => {
    const words = input.value.toLowerCase().split(/\s+/).filter(Boolean);
    const container = input.closest('section');
    let shown = 0;
    for (const d of container.querySelectorAll('details.record')) {
      const hay = d.dataset.search ?? '';
      const match = words.every((w) => hay.includes(w));
      d.hidden = !match;
      if (match) shown += 1;
    }
    // A group shows while it holds a match, opened while a filter is typed.
    for (const g of container.querySelectorAll('details.record-group')) {
      const any = Boolean(g.querySelector('details.record:not([hidden])'));
      g.hidden = !any;
      if (words.length) g.open = any;
    }
    note.textContent = words.length ? `Showing ${shown} of ${list.length} records.` : `Showing all ${list.length} records.`;
  });
  return el('div', { class: 'field record-filter' }, el('label', { for: 'record-filter', text: 'Filter records (label, id, kind or status)' }), input, note);
}

/**
 * The selected records grouped by branch, each record once, in package order within a group:
 * a group per requirement (the records only it names), then those every requirement names,
 * then the rest (concepts, scope and routing records). One group when nothing groups them.
 */
function recordGroups(pkg) {
  const requirements = arr(pkg.requirements);
  const named = requirements.map(namedBy);
  const groups = [
    ...requirements.map((r) => ({ key: r.id, title: requirementLabel(r), items: [] })),
    { key: 'common', title: 'What every requirement rests on', items: [] },
    { key: 'other', title: requirements.length ? 'Other selected records (concepts, scope and routing)' : 'Selected records', items: [] },
  ];
  arr(pkg.selected).forEach((item, index) => {
    const id = item.record?.id;
    const holders = named.map((set, i) => (set.has(id) ? i : -1)).filter((i) => i >= 0);
    const group = holders.length === 0 ? groups.at(-1) : holders.length === named.length && named.length > 1 ? groups.at(-2) : groups[holders[0]];
    group.items.push({ item, index });
  });
  return groups.filter((g) => g.items.length);
}

function records(pkg, labels) {
  const list = arr(pkg.selected);
  const groups = recordGroups(pkg);
  const items = (g) => el('div', { class: 'record-list' }, g.items.map(({ item, index }) => recordItem(item, index, labels)));
  const body = [
    list.length > 1 ? recordFilter(list) : null,
    !list.length
      ? none('No record was selected.')
      : groups.length === 1
        ? items(groups[0])
        : groups.map((g) => el('details', { class: 'record-group', 'data-group': g.key }, el('summary', { text: `${g.title} (${plural(g.items.length, 'record')})` }), items(g))),
  ];
  // Off scope, the records come from other words of the question: keep them out of the way.
  const reachedFrom = arr(pkg.resolved_concepts).map((c) => c.label ?? c.id);
  return section(
    'records',
    `Selected records (${list.length})`,
    isOffScope(pkg) && list.length
      ? el('details', { id: 'off-scope-records' },
          el('summary', { text: `${plural(list.length, 'record')} reached from ${quoted(reachedFrom)}, none about ${quoted(arr(pkg.unresolved_terms))}` }), body)
      : body,
  );
}

/** The words this page uses, in plain English (GOV.UK summary list). */
const GLOSSARY = [
  ['Evidence package', 'What Ask OKF builds for a question: the passages of guidance the bundle links to it, what each branch needs and whether it is met, and everything missing. It never contains an answer.'],
  ['Bundle', 'A fixed, published set of guidance passages and the links between them that an author prepared; Ask OKF reads nothing else.'],
  ['Requirement (branch)', 'What the bundle author says must be present before one part of a question (for example one benefit) can be read from the evidence.'],
  ['Met / partly supported / not met', 'Met: every record the requirement names is in the package. Partly supported: some of what it names is in the package and some is missing. Not met: none of what it names is in the package.'],
  ['Declared gap', 'Guidance the author knows the bundle does not hold, with the author’s reason; it stays missing and is never guessed.'],
  ['Resolved concept', 'A word or phrase of the question that the bundle’s vocabulary recognises.'],
  ['Unresolved term', 'A word of the question outside the bundle’s vocabulary; nothing is looked up for it.'],
  ['Guidance regime', 'Which guide applies, for example the DMG for legacy benefits or ADM for New Style ones and Universal Credit.'],
  ['Package id (context_id)', 'A fingerprint of the package’s content: the same question, bundle and limits always give the same id.'],
  ['Budget', 'The limits on how many records, links and bytes a package may hold; anything they cut is listed.'],
];

function glossary() {
  return section('glossary', 'Words used on this page', el('dl', { class: 'facts glossary' }, GLOSSARY.map(([term, meaning]) => el('div', {}, el('dt', { text: term }), el('dd', { text: meaning })))));
}

function packageFacts(pkg) {
  return section(
    'package',
    'Package identity',
    el('p', { text: 'The schema, engine, bundle and index this package was built from, for checking it elsewhere.' }),
    technicalDetails('package-technical', dl([
      ['Schema', code(pkg.schema)],
      ['Engine', code(pkg.engine)],
      ['Bundle', el('span', {}, code(pkg.bundle?.id ?? ''), text(` snapshot ${pkg.bundle?.snapshot ?? ''}`))],
      ['Index', code(pkg.binding?.index_url ?? '')],
      ['Index SHA-256', code(pkg.binding?.index_sha256 ?? '')],
    ])),
  );
}

/** Opens the record with this id, scrolls to it and focuses it. */
export function openRecord(container, id) {
  const target = [...container.querySelectorAll('details.record')].find((d) => d.dataset.id === id);
  if (!target) return false;
  for (let d = target; d; d = d.parentElement?.closest('details')) d.open = true;
  target.scrollIntoView({ block: 'start' });
  target.querySelector('summary')?.focus();
  return true;
}

/**
 * Renders a package into `container`. `handlers.reask(question)` asks again with a chosen
 * meaning of an ambiguous phrase. `handlers.copy(text, noteElement)` copies the
 * context id; `actions` is the node with the download and permalink links.
 */
/** Display labels by id: selected records, resolved concepts and declared gaps. */
export function labelsOf(pkg) {
  const labels = new Map(arr(pkg.selected).map((s) => [s.record?.id, s.record?.label]));
  for (const c of arr(pkg.resolved_concepts)) if (!labels.has(c.id) && c.label) labels.set(c.id, c.label);
  for (const g of arr(pkg.declared_gaps)) if (!labels.has(g.id) && g.label) labels.set(g.id, g.label);
  return labels;
}

/**
 * A workbench case's briefing as its questions file gives it (what the question leaves open,
 * what evidence it needs, known scope gaps), each labelled as the file's, not the package's:
 * the rows of a `dl`, for the workbench page and the MCP Apps view alike.
 */
export function briefingFacts(c) {
  const list = (items) => (arr(items).length ? el('ul', {}, arr(items).map((i) => el('li', { text: i }))) : el('span', { class: 'none', text: 'none listed in the questions file' }));
  return [
    el('div', {}, el('dt', { text: 'Open points (questions file)' }), el('dd', {}, list(c?.ambiguities))),
    el('div', {}, el('dt', { text: 'Evidence needed (questions file)' }), el('dd', {}, list(c?.required_evidence))),
    el('div', {}, el('dt', { text: 'Known scope gaps (questions file)' }), el('dd', {}, list(c?.scope_gaps))),
  ];
}

/**
 * What a decision maker reads first about a package, for the workbench's case view: what the
 * bundle does not cover (off scope), the status and why it is not sufficient, the regime and
 * capture dates, then the branch table. The same blocks as the Ask page's result.
 */
export function evidenceSummary(pkg) {
  const labels = labelsOf(pkg);
  const status = String(pkg.evidence_status);
  // Nodes only (the off-scope notice is null in scope), so callers can append them as they are.
  return [
    offScopeNotice(pkg),
    el('div', { class: `status status-${status}`, 'data-status': status },
      el('p', {}, el('strong', { text: 'Evidence status: ' }), el('span', { class: 'status-word', text: status })),
      reviewWarning(pkg),
      el('p', { class: 'status-meaning', text: statusMeaning(status) }),
      missingSummary(pkg, labels),
      regimeLine(pkg),
      capturedLine(pkg)),
    requirements(pkg, labels),
  ].filter(Boolean);
}

export function renderPackage(container, pkg, actions, handlers) {
  const labels = labelsOf(pkg);
  const keep = container.querySelector('h2');
  clear(container);
  if (keep) container.append(keep);
  const sections = [
    requirements(pkg, labels, handlers),
    missing(pkg, labels),
    usePanel(pkg, actions, handlers),
    concepts(pkg, labels),
    graph(pkg, labels, (id) => openRecord(container, id)),
    records(pkg, labels),
    scope(pkg),
    budget(pkg),
    packageFacts(pkg),
    glossary(),
  ];
  // The off-scope notice is null for a package in scope: DOM append would write "null".
  container.append(...[offScopeNotice(pkg, arr(handlers?.examples)), questionLine(pkg), contents(sections), statusPanel(pkg, labels, handlers), ...sections].filter(Boolean));
}

/** "On this page" (GOV.UK contents list), closed so that it costs one line on a phone. */
function contents(sections) {
  const nav = el(
    'nav',
    { id: 'contents', class: 'contents', 'aria-label': 'On this page' },
    el(
      'details',
      {},
      el('summary', { text: 'On this page' }),
      el('ol', {}, sections.map((s) => el('li', {}, el('a', { href: `#${s.id}`, 'data-section': s.id, text: s.querySelector('h3')?.textContent ?? s.id })))),
    ),
  );
  // The location's hash is the permalink of the question; going to a section must not replace it.
  nav.addEventListener('click', (event) => {
    const id = event.target?.closest?.('a[data-section]')?.dataset.section;
    const target = id && document.getElementById(id);
    if (!target) return;
    event.preventDefault();
    target.setAttribute('tabindex', '-1');
    target.focus({ preventScroll: true });
    target.scrollIntoView({ block: 'start' });
  });
  return nav;
}
