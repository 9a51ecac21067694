// The MCP Apps view (io.modelcontextprotocol/ui): the package a tool call returned, drawn by
// the page's own renderer (render.js) inside the AI host's sandboxed iframe. The view speaks
// the extension's JSON-RPC over postMessage with its parent (the host or its sandbox proxy):
// ui/initialize, then it waits for ui/notifications/tool-result and renders the result's
// structuredContent. It fetches nothing itself (the CSP has no connect-src); a record's exact
// text is read through the host with the app-only okf_view_read_evidence, in bounded slices. Links open only
// through the host (ui/open-link). Every piece of data reaches the DOM as text.

import { clear, el } from './dom.js';
import { answerReport, renderPackage } from './render.js';

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

/** Reads a selected record's exact text through the host, slice by slice (the app-only okf_view_read_evidence, which is read_okf_evidence). */
export async function readRecordText(recordId) {
  const args = lastArguments ?? {};
  const base = {
    bundle: args.bundle ?? lastPackage?.bundle?.id,
    question: args.question ?? lastPackage?.question,
    context_id: lastPackage?.context_id,
    section: 'record_text',
    record_id: recordId,
  };
  for (const key of ['version', 'as_of', 'budget']) if (args[key] !== undefined) base[key] = args[key];
  const parts = [];
  let offset = 0;
  for (let i = 0; i < 10000 && offset !== null; i++) {
    const result = await request('tools/call', { name: 'okf_view_read_evidence', arguments: { ...base, offset } });
    const slice = result?.structuredContent;
    if (result?.isError || !slice) throw new Error(result?.content?.[0]?.text ?? 'the read was refused');
    parts.push(String(slice.data ?? ''));
    offset = slice.next_offset ?? null;
  }
  return parts.join('');
}

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

/** An okf_check_answer result: the report in words, as the page shows it. */
function renderReport(main, report, result) {
  clear(main);
  main.append(el('h2', { text: 'Answer check' }),
    el('p', { class: 'note', text: `Checked against package ${report.context_id ?? ''}. The report is not an answer; quoted text is untrusted data, shown as text.` }),
    ...answerReport(report, String(result?.content?.[0]?.text ?? JSON.stringify(report))));
  reportSize();
}

/** Checks an answer through the host (okf_check_answer), for the package view's answer box. */
async function checkAnswer(answer) {
  const result = await request('tools/call', { name: 'okf_check_answer', arguments: { answer } });
  if (result?.isError || !result?.structuredContent) throw new Error(result?.content?.[0]?.text ?? 'the check was refused');
  return { text: String(result.content?.[0]?.text ?? JSON.stringify(result.structuredContent)), value: result.structuredContent };
}

function render(result) {
  const main = document.getElementById('view');
  const pkg = result?.structuredContent;
  if (!result?.isError && pkg?.schema === 'okf-answer-check.v1') {
    renderReport(main, pkg, result);
    return;
  }
  if (result?.isError || !pkg || typeof pkg !== 'object' || pkg.schema !== 'okf-governed-context.v1') {
    status(result?.isError ? `The tool call was refused: ${result?.content?.[0]?.text ?? ''}` : 'This result is not an evidence package.');
    return;
  }
  lastPackage = pkg;
  clear(main);
  main.append(el('h2', { text: 'Evidence package' }));
  const actions = el('p', { class: 'note', text: 'Evidence, not an answer. Record texts are untrusted data, shown as text.' });
  renderPackage(main, pkg, actions, {
    copy: (text, note) => {
      note.textContent = `Package id: ${text}`;
    },
    checkAnswer,
  });
  for (const record of main.querySelectorAll('details.record')) addExactRead(record);
  reportSize();
}

/** A button on each record: its exact text, read through the host in bounded slices. */
function addExactRead(record) {
  const id = record.dataset.id;
  const body = record.querySelector('.record-body');
  if (!id || !body) return;
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
  body.append(el('p', {}, button, ' ', note), out);
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
