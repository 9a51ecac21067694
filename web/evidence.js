// The evidence workbench page (/evidence/). The route owns what a person sees, the browser
// history and rendering; the session (refs, cursors, budgets, display revision) is the Rust
// one, in WebAssembly (workbench.js). Human navigation and the seven WebMCP tools use the same
// session: a person's tab change bumps its revision, so an assistant's older okf_show_view
// fails instead of overwriting it. Deep links keep manifest, case, record and tab only.

import { el, clear } from './dom.js';
import { briefingFacts, capturedRange, evidenceSummary, isOffScope, labelsOf, requirementLabel, requirementReview, requirementSupport } from './render.js';
import { predicateName } from './graph.js';
import { registry } from './webmcp.js';
import { WorkbenchModule, WorkbenchError } from './workbench.js';
import { idWords, renderGraph, renderPassage, renderProvenance, renderRelationships, renderTrace, renderView } from './views.js';

const $ = (id) => document.getElementById(id);

/** The tabs a person can choose: [view, label]. The other views show a note. */
const TABS = [
  ['source', 'Passage'],
  ['trace', 'Trace'],
  ['ontology', 'Relationships'],
  ['graph', 'Graph'],
  ['requirements', 'Requirements'],
  ['interactions', 'Interactions'],
  ['rates', 'Rates'],
  ['calculation', 'Calculation'],
];
const TABLE_VIEWS = new Set(['requirements', 'interactions', 'rates', 'calculation']);
/** The twelve views the session knows (deep links may name any of them). */
const VIEWS = ['source', 'extraction', 'passage', 'ontology', 'definitions', 'trace', 'review', 'graph', 'interactions', 'requirements', 'rates', 'calculation'];
const viewOr = (v) => (VIEWS.includes(v) ? v : 'source');

let wb = null; // WorkbenchModule
let summary = null; // the open manifest's summary
let records = []; // the shown case's records [{ref, record_id, title, kind}]
let recordsCase = null;
let renderSeq = 0;
let lastPresented = 0;
let toolsRegistered = false;
let captured = null; // the shown case's capture dates, for every view's dates
let shownPackage = null; // the shown case's verified package (null when unavailable)
const statuses = new Map(); // case id -> evidence status, once its package has been verified
const reasons = new Map(); // case id -> a short reason for that status, in words

const MET = 'supported-within-declared-scope';
const arr = (v) => (Array.isArray(v) ? v : []);
const quote = (words, most = 3) => {
  const list = arr(words).map((w) => `“${w}”`);
  return list.length > most ? `${list.slice(0, most).join(', ')} and ${list.length - most} more` : list.join(', ');
};

/**
 * Why a case has its status, in a few words, from its verified package: the first unmet
 * requirement, what the bundle does not cover, an ambiguity, a conflict or a budget omission.
 */
function caseReason(pkg) {
  if (!pkg) return 'the package could not be verified';
  const requirements = arr(pkg.requirements);
  const unmet = requirements.filter((r) => r.status !== MET);
  const concepts = arr(pkg.resolved_concepts);
  const terms = arr(pkg.unresolved_terms);
  if (pkg.evidence_status === 'sufficient') return `every requirement met (${requirements.length})`;
  if (arr(pkg.conflicts).length) return `${arr(pkg.conflicts).length} declared conflict${arr(pkg.conflicts).length === 1 ? '' : 's'} between selected records`;
  if (unmet.length) {
    const first = unmet[0];
    return `${requirementLabel(first)}: ${requirementSupport(first, pkg).text}${unmet.length > 1 ? ` (and ${unmet.length - 1} more requirement${unmet.length === 2 ? '' : 's'} not met)` : ''}`;
  }
  const ambiguous = arr(pkg.ambiguities)[0];
  if (ambiguous) return `ambiguous: “${ambiguous.phrase}” can mean more than one thing`;
  if (!requirements.length && !concepts.length) {
    return terms.length ? `off scope: the question names no concept the bundle knows (${quote(terms)})` : 'the question names no concept the bundle knows';
  }
  if (!requirements.length) {
    const names = concepts.map((c) => c.label ?? idWords(c.id));
    return `off scope: no requirement covers ${quote(names, 2)}${terms.length ? `; words outside the bundle: ${quote(terms)}` : ''}`;
  }
  const omissions = arr(pkg.budget?.omissions).length;
  if (omissions) return `the budget left out ${omissions} item${omissions === 1 ? '' : 's'}`;
  const issue = arr(pkg.missing_evidence)[0];
  return issue?.message ? String(issue.message) : 'the package does not say why';
}

/** What the trace and requirement views need to name ids: labels, relationship names. */
function namesOf(pkg) {
  if (!pkg) return { labels: new Map(records.map((r) => [r.record_id, r.title])), relationships: new Map(), predicates: new Map() };
  const labels = labelsOf(pkg);
  for (const r of arr(pkg.requirements)) if (!labels.has(r.id)) labels.set(r.id, requirementLabel(r));
  const relationships = new Map(arr(pkg.relationships).map((a) => [a.id, String(a.label ?? predicateName(a.predicate))]));
  const predicates = new Map(arr(pkg.relationships).map((a) => [a.predicate, predicateName(a.predicate)]).filter(([iri, name]) => iri !== name));
  return { labels, relationships, predicates };
}

/** The requirements view's status and missing cells in the status box's words. */
function requirementWords(pkg) {
  if (!pkg) return null;
  const byLabel = new Map(arr(pkg.requirements).map((r) => [String(r.label ?? ''), r]));
  const { labels } = namesOf(pkg);
  return {
    status: (row) => {
      const r = byLabel.get(String(row.requirement ?? ''));
      if (r) return requirementSupport(r, pkg);
      return row.status === MET ? { state: 'met', text: 'met' } : { state: 'none', text: 'not met' };
    },
    missing: (row) => String(row.missing).split('; ').map((id) => labels.get(id) ?? idWords(id)).join('; '),
    review: (row) => requirementReview(byLabel.get(String(row.requirement ?? ''))),
  };
}

function showError(message) {
  const box = $('wb-error');
  box.hidden = !message;
  box.textContent = message ?? '';
}

function params() {
  const q = new URLSearchParams(location.search);
  return { manifest: q.get('manifest'), case: q.get('case'), record: q.get('record'), tab: q.get('tab') };
}

/** The deep link of the page state (never a ref, cursor or result id). */
function linkOf(state) {
  const q = new URLSearchParams();
  if (wb?.workbenchId) q.set('manifest', wb.workbenchId);
  if (state.case_id) q.set('case', state.case_id);
  if (state.record_id) q.set('record', state.record_id);
  if (state.view) q.set('tab', state.view);
  return `?${q.toString()}`;
}

function updateSessionStatus() {
  if (!wb?.workbenchId) return;
  const p = wb.page();
  const line = $('session-status');
  line.textContent = `Session: revision ${p.revision}; assistant calls ${p.usage.calls} of ${p.usage.max_calls}, ${p.usage.bytes} of ${p.usage.max_bytes} bytes.`;
  // Calls that reached the session (refusals included), for diagnostics and tests.
  line.dataset.sessionCalls = String(p.session_calls);
  line.dataset.revision = String(p.revision);
  line.dataset.pending = String(p.pending);
}

// ---- manifests ---------------------------------------------------------------------------

async function loadWorkbenches() {
  const select = $('manifest');
  const note = $('manifest-note');
  let list = [];
  try {
    const response = await fetch('/api/workbenches', { credentials: 'same-origin', cache: 'no-store' });
    list = (await response.json())?.workbenches ?? [];
  } catch {
    list = [];
  }
  clear(select);
  for (const w of list) {
    const text = w.error ? `${w.id} (refused at start-up)` : `${w.title} (${w.id}, ${w.questions} questions)`;
    select.append(el('option', { value: w.id, text, disabled: Boolean(w.error) }));
  }
  note.textContent = list.length
    ? `${list.length} served workbench${list.length === 1 ? '' : 'es'}. Opening one verifies each package against the manifest's hashes.`
    : 'This server serves no evidence workbench (add a [[workbench]] entry to its registry).';
  $('open').disabled = list.length === 0;
  return list;
}

async function openManifest(id, { keepLocation = false } = {}) {
  showError(null);
  const note = $('manifest-note');
  note.textContent = `Opening ${id}…`;
  try {
    wb ??= await WorkbenchModule.load();
    const response = await fetch(`/workbench/${encodeURIComponent(id)}/manifest.json`, { credentials: 'same-origin', cache: 'no-store' });
    if (!response.ok) throw new WorkbenchError('unavailable', `The manifest of ${id} could not be fetched (HTTP ${response.status}).`);
    summary = wb.open(id, await response.text());
  } catch (e) {
    summary = null;
    note.textContent = 'No manifest is open.';
    showError(`The workbench could not be opened: ${e.message}`);
    return;
  }
  records = [];
  recordsCase = null;
  shownPackage = null;
  lastPresented = 0;
  statuses.clear();
  reasons.clear();
  $('check-all-note').textContent = '';
  note.textContent = `Opened ${id}: a new session.`;
  const facts = $('manifest-facts');
  clear(facts).append(
    el('div', {}, el('dt', { text: 'Title' }), el('dd', { text: summary.title })),
    el('div', {}, el('dt', { text: 'Snapshot' }), el('dd', {}, el('code', { text: summary.snapshot_id }))),
    el('div', {}, el('dt', { text: 'Questions' }), el('dd', { text: String(summary.cases.length) })),
  );
  facts.hidden = false;
  renderCases();
  $('cases-panel').hidden = false;
  await registerTools();
  const p = params();
  if (keepLocation && p.case) {
    wb.navigate({ case_id: p.case, record_id: p.record, view: viewOr(p.tab) });
  } else {
    history.replaceState(null, '', `?manifest=${encodeURIComponent(id)}`);
  }
  await render();
}

// ---- cases -------------------------------------------------------------------------------

function renderCases() {
  const list = $('cases');
  const filter = $('case-filter').value.trim().toLowerCase();
  const shown = summary.cases.filter((c) => !filter || `${c.id} ${c.label} ${c.question}`.toLowerCase().includes(filter));
  clear(list).append(
    ...shown.map((c) =>
      el(
        'li',
        {},
        el('button', { type: 'button', class: 'link case-link', 'data-case': c.id }, el('strong', { text: c.label }), el('span', { class: 'note', text: ` ${c.question}` })),
        ' ',
        statuses.has(c.id)
          ? [el('span', { class: `badge status-tag ${statuses.get(c.id)}`, 'data-status': statuses.get(c.id), text: statuses.get(c.id) }),
            el('span', { class: 'case-reason', text: ` ${reasons.get(c.id) ?? ''}` })]
          : el('span', { class: 'note status-tag', text: 'status not checked yet (open the question, or show every question’s status)' }),
      ),
    ),
  );
  $('case-count').textContent = `${shown.length} of ${summary.cases.length} questions shown.`;
}

/** A person's navigation: the session's revision moves, the URL follows. */
async function navigate(selection, { focus = null } = {}) {
  const state = wb.navigate(selection);
  history.pushState(null, '', linkOf(state));
  await render({ focus });
}

// ---- the case ----------------------------------------------------------------------------

function caseOf(id) {
  return summary?.cases.find((c) => c.id === id) ?? null;
}

/** The case's facts: why its package is unavailable, if it is, then the questions file's briefing. */
function renderCaseFacts(c, r) {
  const facts = clear($('case-facts'));
  if (r.error) facts.append(el('div', {}, el('dt', { text: 'Evidence status' }), el('dd', { text: `not available (${r.error.code}: ${r.error.message})` })));
  facts.append(...briefingFacts(c));
}

/** Loads and verifies every case's package in turn, so the question list shows each status. */
async function checkAll() {
  const button = $('check-all');
  const note = $('check-all-note');
  button.disabled = true;
  try {
    for (const [i, c] of summary.cases.entries()) {
      note.textContent = `Checking ${i + 1} of ${summary.cases.length}…`;
      const r = await wb.records(c.id);
      statuses.set(c.id, r.error ? 'unavailable' : String(r.package?.evidence_status));
      reasons.set(c.id, r.error ? `not available: ${r.error.message}` : caseReason(r.package));
      renderCases();
    }
    const counts = new Map();
    for (const s of statuses.values()) counts.set(s, (counts.get(s) ?? 0) + 1);
    note.textContent = `Checked ${summary.cases.length}: ${[...counts].map(([s, n]) => `${n} ${s}`).join(', ')}.`;
  } finally {
    button.disabled = false;
  }
}

function renderRecords(current) {
  const filter = $('record-filter').value.trim().toLowerCase();
  const shown = records.filter((r) => !filter || `${r.title} ${r.record_id} ${r.kind}`.toLowerCase().includes(filter));
  clear($('records')).append(
    ...shown.map((r) =>
      el(
        'li',
        {},
        el('button', { type: 'button', class: 'link', 'data-record': r.record_id, 'aria-current': r.record_id === current ? 'true' : undefined, text: r.title }),
        el('span', { class: 'note', text: ` ${r.kind ?? ''}` }),
      ),
    ),
  );
  if (shown.length === 0) $('records').append(el('li', { class: 'none', text: records.length ? 'No record matches the filter.' : 'This package selected no record.' }));
}

function renderTabs(view) {
  const tabs = $('tabs');
  clear(tabs).append(
    ...TABS.map(([v, label]) =>
      el('button', { type: 'button', role: 'tab', id: `tab-${v}`, 'data-view': v, 'aria-selected': String(v === view), 'aria-controls': 'panel', tabindex: v === view ? '0' : '-1', text: label }),
    ),
  );
  $('panel').setAttribute('aria-labelledby', TABS.some(([v]) => v === view) ? `tab-${view}` : 'case-heading');
}

function refOf(recordId) {
  return records.find((r) => r.record_id === recordId)?.ref ?? null;
}

async function viewBody(state) {
  const view = state.view || 'source';
  const caseId = state.case_id;
  const ref = state.record_id ? refOf(state.record_id) : null;
  const needRecord = () => el('p', { class: 'none', text: 'Choose a record from the list above to see this view.' });
  const failed = (env) => el('p', { class: 'error', text: `${env.error.code}: ${env.error.message}` });
  if (view === 'source' || view === 'trace') {
    if (!ref) return needRecord();
    if (view === 'trace') {
      let env = await wb.read('okf_get_evidence', { ref, section: 'trace' });
      if (env.error) return failed(env);
      // The session delivers a trace a few steps at a time; the page follows each cursor.
      const items = [...(env.data.items ?? [])];
      const first = env;
      for (let pages = 1; env.delivery?.next_cursor && pages < 100; pages += 1) {
        env = await wb.read('okf_get_evidence', { ref, section: 'trace', cursor: env.delivery.next_cursor });
        if (env.error) return failed(env);
        items.push(...(env.data.items ?? []));
      }
      return renderTrace({ ...first.data, items }, namesOf(shownPackage));
    }
    const passage = await wb.read('okf_get_evidence', { ref, section: 'passage' });
    if (passage.error) return failed(passage);
    const prov = await wb.read('okf_get_evidence', { ref, section: 'provenance' });
    return el('div', {}, el('h3', { text: 'Passage' }), renderPassage(passage.data), el('h3', { text: 'Provenance' }), prov.error ? failed(prov) : renderProvenance(prov.data));
  }
  if (view === 'ontology') {
    const items = [];
    let args = ref ? { ref, depth: 1, limit: 10 } : { case_id: caseId, depth: 1, limit: 10 };
    for (let pages = 0; pages < 20; pages += 1) {
      const env = await wb.read('okf_get_relationships', args);
      if (env.error) return failed(env);
      items.push(...(env.data.items ?? []));
      if (!env.delivery.next_cursor) break;
      args = { ...args, cursor: env.delivery.next_cursor };
    }
    return el('div', {}, el('h3', { text: ref ? 'Relationships around the record' : 'Relationships around the first selected records' }), renderRelationships(items));
  }
  if (view === 'graph') {
    const env = await wb.read('okf_get_view_data', ref ? { view: 'graph', case_id: caseId, ref } : { view: 'graph', case_id: caseId });
    if (env.error) return failed(env);
    return renderGraph(env.data, { open: (r) => openRef(r), captured });
  }
  if (TABLE_VIEWS.has(view)) {
    const env = await allRows({ view, case_id: caseId });
    if (env.error) return failed(env);
    return renderView(env.data, { inspect: (r) => openRef(r), captured, words: view === 'requirements' ? requirementWords(shownPackage) : null });
  }
  return el('p', { class: 'note', text: `The ${view} view is not part of retained packages in this workbench; choose one of the tabs above.` });
}

/**
 * A table view with every row: the session pages rows, and the page follows each cursor (at
 * most 100 pages), so no row is left behind a "more rows" note.
 */
async function allRows(args) {
  let env = await wb.read('okf_get_view_data', args);
  if (env.error) return env;
  const rows = [...(env.data.rows ?? [])];
  const first = env;
  for (let pages = 1; env.delivery?.next_cursor && pages < 100; pages += 1) {
    env = await wb.read('okf_get_view_data', { ...args, cursor: env.delivery.next_cursor });
    if (env.error) return env;
    rows.push(...(env.data.rows ?? []));
  }
  const complete = !env.delivery?.next_cursor;
  const coverage = { ...(first.data.coverage ?? {}), offset: 0, delivered_rows: rows.length, complete };
  return { ...first, data: { ...first.data, rows, coverage } };
}

async function openRef(ref) {
  const record = records.find((r) => r.ref === ref);
  if (record) await navigate({ case_id: recordsCase, record_id: record.record_id, view: 'source' }, { focus: 'panel' });
}

/** Renders what the session's page state says (human navigation or a tool presentation). */
async function render({ focus = null } = {}) {
  const seq = ++renderSeq;
  updateSessionStatus();
  const state = wb.page();
  lastPresented = state.presented;
  const section = $('case');
  const c = caseOf(state.case_id);
  if (!c) {
    section.hidden = true;
    return;
  }
  section.hidden = false;
  $('case-heading').textContent = `${c.label}: ${c.question}`;
  if (recordsCase !== c.id) {
    const r = await wb.records(c.id);
    if (seq !== renderSeq) return;
    records = Array.isArray(r.records) ? r.records : [];
    recordsCase = c.id;
    const pkg = r.error ? null : r.package;
    captured = pkg ? capturedRange(pkg) : null;
    shownPackage = pkg;
    if (pkg) {
      statuses.set(c.id, String(pkg.evidence_status));
      reasons.set(c.id, caseReason(pkg));
      renderCases();
    }
    renderCaseFacts(c, r);
    // The status box's own headings are h4: an h3 above it keeps the page's outline in order.
    clear($('case-evidence')).append(...(pkg ? [el('h3', { id: 'case-status-heading', text: 'The verified package' }), ...evidenceSummary(pkg)] : []));
    // Off scope, the records come from other words of the question; the heading says so.
    $('records-heading').textContent = pkg && isOffScope(pkg)
      ? `Records reached from other words of the question (${records.length}), none about what it asks`
      : `Selected records (${records.length})`;
  }
  renderRecords(state.record_id);
  renderTabs(state.view || 'source');
  const panel = $('panel');
  panel.setAttribute('aria-busy', 'true');
  const body = await viewBody(state);
  if (seq !== renderSeq) return;
  clear(panel).append(body);
  panel.setAttribute('aria-busy', 'false');
  panel.dataset.revision = String(state.revision);
  updateSessionStatus();
  if (focus === 'case') section.focus();
  if (focus === 'panel') panel.focus();
  if (focus === 'tab') $(`tab-${state.view}`)?.focus();
}

// ---- WebMCP ------------------------------------------------------------------------------

function abortError() {
  return new DOMException('The call was aborted', 'AbortError');
}

/** A tool's execute: checks, validation (no session call on invalid input), the call. */
function executor(name, lifetime) {
  return async (input, options) => {
    const signal = options?.signal;
    if (lifetime.aborted || signal?.aborted) throw abortError();
    if (!wb?.workbenchId) throw new Error('No workbench manifest is open on this page.');
    const args = input === undefined ? {} : input;
    try {
      wb.validate(name, args);
    } catch (e) {
      throw new TypeError(`Invalid input for ${name}: ${e.message}`);
    }
    const controller = new AbortController();
    const abort = () => controller.abort();
    lifetime.addEventListener('abort', abort, { once: true });
    signal?.addEventListener('abort', abort, { once: true });
    try {
      const aborted = new Promise((_, reject) => controller.signal.addEventListener('abort', () => reject(abortError()), { once: true }));
      const call = wb.toolCall(name, args, controller.signal);
      // An aborted call still finishes in the session (releasing its reservation); the
      // status line follows it either way.
      call.then(updateSessionStatus, updateSessionStatus);
      const text = await Promise.race([call, aborted]);
      if (controller.signal.aborted) throw abortError();
      // The status line already follows the call (above); a presentation also moves the page.
      const state = wb.page();
      if (state.presented !== lastPresented) {
        history.pushState(null, '', linkOf(state));
        await render();
      }
      return JSON.parse(text);
    } finally {
      lifetime.removeEventListener('abort', abort);
      signal?.removeEventListener('abort', abort);
    }
  };
}

async function registerTools() {
  if (toolsRegistered) return;
  toolsRegistered = true;
  const line = $('webmcp-status');
  const mc = registry();
  if (!mc) {
    line.textContent = 'Page tools (WebMCP): this browser offers no page-tool registry; the workbench works as usual.';
    line.dataset.available = 'false';
    return;
  }
  const lifetime = new AbortController();
  window.addEventListener('pagehide', () => lifetime.abort(), { once: true });
  try {
    for (const d of wb.descriptors()) {
      await mc.registerTool({ ...d, execute: executor(d.name, lifetime.signal) }, { signal: lifetime.signal });
    }
  } catch (e) {
    lifetime.abort();
    line.textContent = `Page tools (WebMCP): registration failed (${e?.name ?? 'Error'}); the workbench itself stays usable.`;
    line.dataset.available = 'false';
    return;
  }
  line.textContent = 'Page tools (WebMCP): the seven workbench tools are registered; whether an assistant host can use them is a separate question.';
  line.dataset.available = 'true';
}

// ---- events ------------------------------------------------------------------------------

$('manifest-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const id = $('manifest').value;
  if (id) openManifest(id);
});
$('case-filter').addEventListener('input', () => renderCases());
$('check-all').addEventListener('click', () => {
  if (summary) checkAll();
});
$('record-filter').addEventListener('input', () => renderRecords(wb?.page().record_id ?? null));
$('cases').addEventListener('click', (event) => {
  const id = event.target?.closest?.('button[data-case]')?.dataset.case;
  if (id) navigate({ case_id: id, record_id: null, view: 'source' }, { focus: 'case' });
});
$('records').addEventListener('click', (event) => {
  const id = event.target?.closest?.('button[data-record]')?.dataset.record;
  if (id) navigate({ case_id: recordsCase, record_id: id, view: wb.page().view || 'source' }, { focus: 'panel' });
});
$('tabs').addEventListener('click', (event) => {
  const view = event.target?.closest?.('button[data-view]')?.dataset.view;
  const p = wb.page();
  if (view) navigate({ case_id: p.case_id, record_id: p.record_id, view }, { focus: 'tab' });
});
$('tabs').addEventListener('keydown', (event) => {
  const keys = { ArrowRight: 1, ArrowLeft: -1, Home: -Infinity, End: Infinity };
  if (!(event.key in keys)) return;
  event.preventDefault();
  const p = wb.page();
  const i = TABS.findIndex(([v]) => v === p.view);
  const step = keys[event.key];
  const next = step === -Infinity ? 0 : step === Infinity ? TABS.length - 1 : (i + step + TABS.length) % TABS.length;
  navigate({ case_id: p.case_id, record_id: p.record_id, view: TABS[next][0] }, { focus: 'tab' });
});
window.addEventListener('popstate', () => {
  const p = params();
  if (!wb?.workbenchId || !p.case) return;
  wb.navigate({ case_id: p.case, record_id: p.record, view: viewOr(p.tab) });
  render();
});

(async () => {
  const list = await loadWorkbenches();
  const wanted = params().manifest;
  const pick = list.find((w) => w.id === wanted && !w.error) ?? (list.length === 1 && !list[0].error ? list[0] : null);
  if (pick) {
    $('manifest').value = pick.id;
    await openManifest(pick.id, { keepLocation: pick.id === wanted });
  }
})();
