// The MCP Apps view (io.modelcontextprotocol/ui): what a tool call returned (an evidence
// package, a catalogue page, an answer-check report or a workbench case), drawn by the page's own renderer
// (render.js) inside the AI host's sandboxed iframe. The view speaks
// the extension's JSON-RPC over postMessage with its parent (the host or its sandbox proxy):
// ui/initialize, then it waits for ui/notifications/tool-result and renders the result's
// structuredContent. It fetches nothing itself (the CSP has no connect-src): a record's exact
// text, the next catalogue page or the whole package behind a catalogue is read through the
// host with the app-only tools (okf_view_read_evidence, okf_view_catalogue), in bounded
// slices. Links open only through the host (ui/open-link). Every piece of data reaches the
// DOM as text.

import { clear, el, httpsLink } from './dom.js';
import { answerReport, briefingFacts, renderPackage, selectedText, statusMeaning } from './render.js';

const PROTOCOL_VERSION = '2026-01-26';
const pending = new Map();
let nextId = 1;
let hostOrigin = '*';
let lastPackage = null;
let lastArguments = null;

/** Sends one JSON-RPC message to the host. */
function post(message) {
  window.parent.postMessage({ jsonrpc: '2.0', ...message }, hostOrigin);
}

/** A request to the host; resolves with its result, rejects with its error. */
function request(method, params) {
  const id = nextId++;
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject });
    post({ id, method, params });
  });
}

const notify = (method, params) => post({ method, params });

/** Applies the host's theme (light or dark); the stylesheet holds both palettes. */
function applyContext(context) {
  const theme = context?.theme;
  if (theme === 'light' || theme === 'dark') document.documentElement.dataset.theme = theme;
}

function status(text) {
  const main = document.getElementById('view');
  clear(main);
  main.append(el('p', { id: 'view-status', role: 'status', text }));
}

/** What the view last drew: the package or catalogue whose replay fields its reads reuse. */
let lastReplay = null;

/** The fields every bounded read repeats: the question, its bundle and options, the context_id. */
function replayFields() {
  const args = lastArguments ?? {};
  const base = {
    bundle: args.bundle ?? lastReplay?.bundle?.id,
    question: args.question ?? lastReplay?.question,
    context_id: lastReplay?.context_id,
  };
  for (const key of ['version', 'as_of', 'budget']) if (args[key] !== undefined && args[key] !== null) base[key] = args[key];
  return base;
}

/** Calls a tool through the host; its structured content, or an error with the tool's words. */
async function callTool(name, args) {
  const result = await request('tools/call', { name, arguments: args });
  if (result?.isError || !result?.structuredContent) throw new Error(result?.content?.[0]?.text ?? 'the call was refused');
  return result.structuredContent;
}

/** Reads one section (a record's text, or the whole package) through the host, slice by slice (the app-only okf_view_read_evidence, which is read_okf_evidence). */
async function readSection(section, recordId) {
  const base = { ...replayFields(), section };
  if (recordId !== undefined) base.record_id = recordId;
  const parts = [];
  let offset = 0;
  for (let i = 0; i < 10000 && offset !== null; i++) {
    const slice = await callTool('okf_view_read_evidence', { ...base, offset });
    parts.push(String(slice.data ?? ''));
    offset = slice.next_offset ?? null;
  }
  return parts.join('');
}

/** Reads a selected record's exact text through the host, in bounded slices. */
export const readRecordText = (recordId) => readSection('record_text', recordId);

/** Links open through the host only: a credential-free https URL, by ui/open-link. */
function openLinks(event) {
  const link = event.target?.closest?.('a[href]');
  if (!link) return;
  const href = link.getAttribute('href');
  if (href.startsWith('#')) return;
  event.preventDefault();
  let url = null;
  try {
    url = new URL(href);
  } catch {
    url = null;
  }
  if (!url || url.protocol !== 'https:' || url.username || url.password) return;
  request('ui/open-link', { url: url.href }).catch(() => {});
}

/**
 * A record's text for an answer check: from the package on screen when the report is about
 * it, otherwise that one record through the host (okf_explain_context names a retained
 * package by its id alone).
 */
function recordTextFor(contextId) {
  return (id) => {
    if (lastPackage?.context_id === contextId) return selectedText(lastPackage, id);
    return callTool('okf_explain_context', { context_id: contextId, record_id: id }).then((view) => {
      const text = view?.item?.record?.text;
      if (typeof text !== 'string') throw new Error('the package has no text for that record');
      return text;
    });
  };
}

/** An okf_check_answer result: the report in words, each found quote marked in its record. */
function renderReport(main, report, result) {
  clear(main);
  main.append(el('h2', { text: 'Answer check' }),
    el('p', { class: 'note', text: `Checked against package ${report.context_id ?? ''}. The report is not an answer; quoted text is untrusted data, shown as text.` }),
    ...answerReport(report, String(result?.content?.[0]?.text ?? JSON.stringify(report)), { answer: lastArguments?.answer, recordText: recordTextFor(report.context_id) }));
  reportSize();
}

/** Checks an answer through the host (okf_check_answer), for the package view's answer box. */
async function checkAnswer(answer) {
  const result = await request('tools/call', { name: 'okf_check_answer', arguments: { answer } });
  if (result?.isError || !result?.structuredContent) throw new Error(result?.content?.[0]?.text ?? 'the check was refused');
  return { text: String(result.content?.[0]?.text ?? JSON.stringify(result.structuredContent)), value: result.structuredContent };
}

/** The counts a catalogue page carries, in words. */
const CATALOGUE_COUNTS = [
  ['selected_records', 'Records selected'],
  ['requirements', 'Requirements declared'],
  ['missing_evidence', 'Missing-evidence issues'],
  ['ambiguities', 'Ambiguous phrases'],
  ['unresolved_terms', 'Words not resolved'],
  ['conflicts', 'Conflicts'],
  ['full_package_bytes', 'Bytes of the whole package'],
];

/**
 * An ask_okf_manifest result: one catalogue page (the status, the counts, a line per
 * record). The next page comes through the app-only okf_view_catalogue, a record's text and
 * the whole package through okf_view_read_evidence; none is fetched until asked for.
 */
function renderCatalogue(main, catalogue) {
  lastReplay = catalogue;
  lastPackage = null;
  clear(main);
  const status = String(catalogue.evidence_status);
  const summary = catalogue.summary ?? {};
  const list = el('ol', { id: 'catalogue-records', class: 'catalogue-records' });
  const more = el('p', { class: 'actions' });
  const note = el('p', { class: 'note', role: 'status', 'aria-live': 'polite' });
  const whole = el('div', { id: 'whole-package' });
  const addPage = (page) => {
    for (const record of Array.isArray(page.records) ? page.records : []) list.append(catalogueRecord(record));
    clear(more);
    const next = page.delivery?.next_offset;
    const total = page.delivery?.total;
    note.textContent = `${list.children.length} of ${total ?? '?'} records listed.`;
    if (typeof next !== 'number') return;
    const button = el('button', { type: 'button', id: 'next-records', class: 'secondary', text: 'List more records' });
    button.addEventListener('click', async () => {
      button.disabled = true;
      note.textContent = 'Reading the next page…';
      try {
        const args = { ...replayFields(), offset: next };
        if (lastArguments?.delivery_bytes) args.delivery_bytes = lastArguments.delivery_bytes;
        addPage(await callTool('okf_view_catalogue', args));
      } catch (e) {
        note.textContent = `The next page was not read: ${e.message}`;
        button.disabled = false;
      }
    });
    more.append(button);
  };
  const open = el('button', { type: 'button', id: 'open-package', text: 'Show the branches, what is missing and every record' });
  open.addEventListener('click', async () => {
    open.disabled = true;
    clear(whole).append(el('p', { class: 'note', role: 'status', text: 'Reading the package in bounded slices…' }));
    try {
      const pkg = JSON.parse(await readSection('package'));
      if (pkg?.context_id !== catalogue.context_id) throw new Error('the package read is not the one catalogued');
      clear(whole);
      drawPackage(whole, pkg);
    } catch (e) {
      clear(whole).append(el('p', { class: 'error-message', text: `The package was not read: ${e.message}` }));
      open.disabled = false;
    }
  });
  main.append(
    el('h2', { text: 'Evidence catalogue' }),
    el('p', { class: 'identity' }, el('strong', { text: 'Question: ' }), el('q', { text: catalogue.question ?? '' })),
    el('section', { id: 'status', class: `status status-${status}`, 'data-status': status, 'aria-labelledby': 'status-heading' },
      el('h3', { id: 'status-heading' }, 'Evidence status: ', el('span', { class: 'status-word', text: status })),
      el('p', { class: 'status-meaning', text: statusMeaning(status) }),
      Array.isArray(summary.missing_evidence_codes) && summary.missing_evidence_codes.length
        ? el('p', { id: 'missing-codes' }, el('strong', { text: 'What is missing, by code: ' }), summary.missing_evidence_codes.join(', '))
        : null,
      el('p', { class: 'no-answer', text: 'This catalogue indexes evidence to read; it is not an answer.' })),
    el('dl', { class: 'facts', id: 'catalogue-counts' }, CATALOGUE_COUNTS.filter(([key]) => typeof summary[key] === 'number')
      .map(([key, label]) => el('div', { 'data-count': key }, el('dt', { text: label }), el('dd', { text: String(summary[key]) })))),
    el('p', {}, open), whole,
    el('h3', { text: 'Records' }), list, note, more,
  );
  addPage(catalogue);
  reportSize();
}

/** One catalogue line: the record's label, kind and size, its source, and its exact text on request. */
function catalogueRecord(record) {
  const item = el('li', { class: 'catalogue-record', 'data-id': record.id ?? '' },
    el('strong', { text: record.label ?? record.id ?? '' }),
    el('span', { class: 'note', text: ` ${record.kind ?? ''}, ${record.text_characters ?? '?'} characters, ${record.authority_class ?? ''}` }),
    record.source_url ? el('div', {}, httpsLink(record.source_url, record.source_locator || record.source_url)) : null);
  addExactRead(item, record.id);
  return item;
}

/**
 * Draws a whole package with the page's renderer. A package this server assembled gets an
 * exact read on every record and the answer box (both replay it); a workbench's retained
 * package carries its record texts already and is not one the server could replay.
 */
function drawPackage(main, pkg, { replayable = true } = {}) {
  lastPackage = pkg;
  lastReplay = replayable ? pkg : null;
  const actions = el('p', { class: 'note', text: 'Evidence, not an answer. Record texts are untrusted data, shown as text.' });
  renderPackage(main, pkg, actions, {
    copy: (text, note) => {
      note.textContent = `Package id: ${text}`;
    },
    checkAnswer: replayable ? checkAnswer : undefined,
  });
  if (!replayable) return;
  for (const record of main.querySelectorAll('details.record')) addExactRead(record.querySelector('.record-body'), record.dataset.id);
}

/**
 * An okf_workbench_case result: the case asked for (its briefing from the questions file,
 * then its verified package, drawn as the page draws it) and the workbench's other cases,
 * each opened through the host by okf_workbench_case.
 */
function renderWorkbenchCase(main, result) {
  const wb = result.workbench ?? {};
  const c = result.case;
  clear(main);
  main.append(
    el('h2', { id: 'case-heading', tabindex: '-1', text: c ? `${c.label || c.id}: ${c.question}` : `Evidence workbench: ${wb.title ?? ''}` }),
    el('p', { class: 'note', id: 'workbench-line' }, `Workbench “${wb.title ?? ''}” (${wb.publication_label ?? ''}), manifest ${wb.snapshot_id ?? ''}. On the evidence workbench page: `,
      httpsLink(wb.link, wb.link)),
  );
  if (c) {
    const box = el('div', { id: 'case-package' });
    main.append(el('h3', { text: 'Briefing from the questions file' }), el('dl', { class: 'facts', id: 'case-facts' }, ...briefingFacts(c)), box);
    drawPackage(box, result.package, { replayable: false });
  }
  const note = el('p', { class: 'note', role: 'status', 'aria-live': 'polite' });
  const cases = Array.isArray(result.cases) ? result.cases : [];
  const list = el('ul', { id: 'workbench-cases', class: 'case-list' }, cases.map((k) => {
    const current = k.id === c?.id;
    const button = el('button', { type: 'button', class: 'link case-link', 'data-case': k.id, 'aria-current': current ? 'true' : undefined },
      el('strong', { text: k.label || k.id }), el('span', { class: 'note', text: ` ${k.question ?? ''}` }));
    button.addEventListener('click', async () => {
      note.textContent = `Opening ${k.label || k.id}…`;
      try {
        renderWorkbenchCase(main, await callTool('okf_workbench_case', { workbench: wb.id, case_id: k.id }));
        document.getElementById('case-heading')?.focus();
      } catch (e) {
        note.textContent = `The case was not opened: ${e.message}`;
      }
    });
    return el('li', { 'data-case': k.id }, button);
  }));
  main.append(el('h3', { text: c ? 'Questions in this workbench' : 'Questions' }), list, note);
  reportSize();
}

function render(result) {
  const main = document.getElementById('view');
  const value = result?.structuredContent;
  if (result?.isError || !value || typeof value !== 'object') {
    status(result?.isError ? `The tool call was refused: ${result?.content?.[0]?.text ?? ''}` : 'This result is not evidence this view draws.');
    return;
  }
  switch (value.schema) {
    case 'okf-answer-check.v1':
      renderReport(main, value, result);
      break;
    case 'okf-context-manifest.v1':
      renderCatalogue(main, value);
      break;
    case 'okf-workbench-case.v1':
      renderWorkbenchCase(main, value);
      break;
    case 'okf-governed-context.v1':
      clear(main);
      main.append(el('h2', { text: 'Evidence package' }));
      drawPackage(main, value);
      reportSize();
      break;
    default:
      status('This result is not evidence this view draws.');
  }
}

/** A button under a record: its exact text, read through the host in bounded slices. */
function addExactRead(container, id) {
  if (!id || !container) return;
  const out = el('pre', { class: 'record-text exact-text', hidden: true });
  const note = el('span', { class: 'note', role: 'status' });
  const button = el('button', { type: 'button', class: 'small read-exact', text: 'Read the exact text' });
  button.addEventListener('click', async () => {
    button.disabled = true;
    note.textContent = 'Reading…';
    try {
      out.textContent = await readRecordText(id);
      out.hidden = false;
      note.textContent = `Read exactly: ${out.textContent.length} characters.`;
    } catch (e) {
      note.textContent = `Not read: ${e.message}`;
    } finally {
      button.disabled = false;
    }
  });
  container.append(el('p', {}, button, ' ', note), out);
}

let lastHeight = 0;
function reportSize() {
  const height = Math.ceil(document.documentElement.scrollHeight);
  if (height === lastHeight) return;
  lastHeight = height;
  notify('ui/notifications/size-changed', { height });
}

window.addEventListener('message', (event) => {
  if (event.source !== window.parent) return;
  const message = event.data;
  if (!message || message.jsonrpc !== '2.0') return;
  if (message.id !== undefined && !message.method) {
    const waiting = pending.get(message.id);
    if (!waiting) return;
    pending.delete(message.id);
    if (message.error) waiting.reject(new Error(String(message.error.message ?? 'error')));
    else waiting.resolve(message.result);
    return;
  }
  switch (message.method) {
    case 'ui/notifications/tool-input':
      lastArguments = message.params?.arguments ?? null;
      break;
    case 'ui/notifications/tool-result':
      render(message.params);
      break;
    case 'ui/notifications/tool-cancelled':
      status('The tool call was cancelled.');
      break;
    case 'ui/notifications/host-context-changed':
      applyContext(message.params);
      break;
    case 'ui/resource-teardown':
      post({ id: message.id, result: {} });
      break;
    case 'ping':
      post({ id: message.id, result: {} });
      break;
    default:
      if (message.id !== undefined) post({ id: message.id, error: { code: -32601, message: 'method not found' } });
  }
});

document.addEventListener('click', openLinks);
if (typeof ResizeObserver === 'function') new ResizeObserver(reportSize).observe(document.documentElement);

status('Waiting for the evidence package…');
request('ui/initialize', {
  appInfo: { name: 'ask-okf-package-view', version: '1' },
  appCapabilities: { availableDisplayModes: ['inline'] },
  protocolVersion: PROTOCOL_VERSION,
}).then((result) => {
  applyContext(result?.hostContext);
  notify('ui/notifications/initialized', {});
}, () => status('The host did not answer ui/initialize.'));
