// Ask OKF page: the form, the permalink, loading and error states, and the page tools. All
// data comes from this server's HTTP API (same bytes as `okf ask`), or is assembled in this
// page by the same engine compiled to WebAssembly over the server's verified index bytes
// (local.js; same bytes again), and the page says which.

import { ApiError, ask, catalogue, checkAnswer, explainView, getContext, listBundles, readEvidence } from './api.js';
import { clear, el, readableDate, readableDays } from './dom.js';
import { CONTRACT } from './contract.js';
import { labelsOf, renderPackage } from './render.js';
import { ArgumentError, BUDGET_DEFAULTS, BUDGET_LIMITS, MAX_QUESTION, checkBuildArgs, checkExplainArgs, checkManifestArgs, checkReadArgs } from './validate.js';
import { registerPageTools } from './webmcp.js';
import { assembleLocally, localAvailable, reviewClosure } from './local.js';
import { renderReviewer } from './reviewer.js';
import { callModule, instantiateModule } from './wasm.js';

const $ = (id) => document.getElementById(id);
const form = $('ask-form');
const bundleSelect = $('bundle');
const question = $('question');
const submit = $('submit');
const progress = $('progress');
const errorBox = $('error');
const results = $('results');
const reviewer = $('reviewer');
const askSection = document.querySelector('section.ask');
const BUDGET_KEYS = Object.keys(BUDGET_LIMITS);

// The form states the contract's limits (contract.js), not limits of its own.
question.maxLength = MAX_QUESTION;
$('question-note').prepend(`1–${MAX_QUESTION} characters. `);
for (const [key, [min, max]] of Object.entries(BUDGET_LIMITS)) {
  Object.assign($(key), { min: String(min), max: String(max), placeholder: `default ${BUDGET_DEFAULTS[key]}` });
}

let sequence = 0; // the latest build started; older ones do not overwrite the page
let busy = false;
let downloadUrl = null;
let bundlesReady = null;
const defaultVersions = new Map(); // bundle id -> the version a request without one gets
const corpora = new Set(); // ids of served corpora: asked like bundles, on the server only
const localPackages = new Map(); // context id -> package assembled in this page (bounded)
const LOCAL_RETAINED = 16;

// ---- bundles ---------------------------------------------------------------------------

function ensureBundleOption(id) {
  if ([...bundleSelect.options].some((o) => o.value === id)) return;
  bundleSelect.append(el('option', { value: id, text: `${id} (not listed by this server)` }));
}

bundleSelect.addEventListener('change', () => {
  showBundleScope();
  showVersions();
  showExamples();
});

/** Each bundle's example questions, as its registry entry declares them. */
const bundleExamples = new Map();

/**
 * The question box's placeholder and the example questions under it, for the chosen bundle:
 * its registry's examples, or a plain prompt when it declares none (never another bundle's).
 */
function showExamples() {
  const examples = bundleExamples.get(bundleSelect.value) ?? [];
  question.placeholder = examples.length ? `e.g. ${examples[0]}` : 'Type your question';
  const box = $('examples');
  clear(box);
  box.hidden = examples.length === 0;
  if (!examples.length) return;
  box.append(
    el('p', { class: 'note', id: 'examples-heading', text: 'Example questions for this bundle:' }),
    el('ul', { class: 'examples', 'aria-labelledby': 'examples-heading' }, examples.map((q) => {
      const use = el('button', { type: 'button', class: 'link', text: q });
      use.addEventListener('click', () => {
        question.value = q;
        question.focus();
      });
      return el('li', {}, use);
    })),
  );
}

/** The Version menu for the chosen bundle: its default, then each servable version. */
function showVersions() {
  const select = $('version');
  const chosen = select.value;
  const versions = bundleVersions.get(bundleSelect.value) ?? [];
  const fallback = defaultVersions.get(bundleSelect.value);
  clear(select).append(el('option', { value: '', text: fallback ? `Default version (${fallback})` : 'Default version' }));
  for (const v of versions) {
    if (v.state !== 'ready') continue;
    select.append(el('option', { value: v.name, text: v.published ? `${v.name}, published ${readableDate(v.published)}` : v.name }));
  }
  if ([...select.options].some((o) => o.value === chosen)) select.value = chosen;
}

/** Every version each bundle lists, by bundle id. */
const bundleVersions = new Map();

/** The default version's listing of each bundle (scope, capture days, snapshot), by id. */
const bundleFacts = new Map();

/** Under the picker: what the chosen bundle covers and when its sources were captured. */
function showBundleScope() {
  const box = $('bundle-scope');
  const v = bundleFacts.get(bundleSelect.value);
  clear(box);
  box.hidden = !v?.scope;
  if (!v?.scope) return;
  const days = v.captured ? readableDays(v.captured.first, v.captured.last) : null;
  box.append(
    el('strong', { text: 'Covers: ' }),
    v.scope,
    days ? el('span', {}, el('br'), el('strong', { text: 'Sources captured: ' }), `${days} (not a publication or effective date)`) : null,
    v.snapshot ? el('span', {}, el('br'), el('strong', { text: 'Snapshot: ' }), v.snapshot) : null,
  );
}

/** Fills the Bundle menu; resolves to the GET /api/bundles body (null when it failed). */
async function loadBundles() {
  const note = $('bundle-note');
  try {
    const { value } = await listBundles();
    const bundles = Array.isArray(value?.bundles) ? value.bundles : [];
    clear(bundleSelect);
    for (const b of bundles) {
      const version = (Array.isArray(b.versions) ? b.versions : []).find((v) => v.name === b.default_version);
      if (typeof b.default_version === 'string') defaultVersions.set(b.id, b.default_version);
      const ready = b.state === 'ready';
      const name = typeof b.title === 'string' ? `${b.title} (${b.id})` : b.id;
      const label = ready ? name : `${name} (refused: ${version?.reason ?? 'failed verification'})`;
      bundleSelect.append(el('option', { value: b.id, disabled: !ready, text: label }));
      if (version) bundleFacts.set(b.id, version);
      bundleExamples.set(b.id, Array.isArray(b.examples) ? b.examples.filter((q) => typeof q === 'string') : []);
      bundleVersions.set(b.id, Array.isArray(b.versions) ? b.versions : []);
    }
    const corpusList = Array.isArray(value?.corpora) ? value.corpora : [];
    for (const c of corpusList) {
      corpora.add(c.id);
      const ready = c.state === 'ready';
      const label = ready ? `${c.id} — corpus (assembled on the server)` : `${c.id} (corpus refused: ${c.reason ?? 'failed verification'})`;
      bundleSelect.append(el('option', { value: c.id, disabled: !ready, text: label }));
    }
    const all = [...bundles, ...corpusList];
    const firstReady = all.find((b) => b.state === 'ready');
    if (firstReady) bundleSelect.value = firstReady.id;
    note.textContent = all.length
      ? `${all.filter((b) => b.state === 'ready').length} of ${all.length} served bundles are ready.`
      : 'This server serves no bundle.';
    showBundleScope();
    showVersions();
    showExamples();
    return value;
  } catch (e) {
    note.textContent = `The list of bundles could not be loaded: ${e instanceof ApiError ? e.message : 'unexpected error'}`;
    return null;
  }
}

// ---- form <-> request ------------------------------------------------------------------

function formInput() {
  const input = { bundle: bundleSelect.value, question: question.value };
  if ($('version').value) input.version = $('version').value;
  if ($('as_of').value.trim()) input.as_of = $('as_of').value.trim();
  const budget = {};
  for (const key of BUDGET_KEYS) {
    const field = $(key);
    const raw = field.value.trim();
    if (field.validity.badInput) {
      budget[key] = Number.NaN; // typed text that is not a number: refuse, do not ignore
      continue;
    }
    if (raw === '') continue;
    budget[key] = /^-?\d+$/.test(raw) ? Number(raw) : Number.NaN;
  }
  if (Object.keys(budget).length) input.budget = budget;
  return input;
}

function setForm(body) {
  ensureBundleOption(body.bundle);
  bundleSelect.value = body.bundle;
  question.value = body.question;
  for (const key of BUDGET_KEYS) $(key).value = body.budget?.[key] !== undefined ? String(body.budget[key]) : '';
  if (body.budget && Object.keys(body.budget).length) $('budget-box').open = true;
  showVersions();
  if (body.version !== undefined && ![...$('version').options].some((o) => o.value === body.version)) {
    $('version').append(el('option', { value: body.version, text: `${body.version} (not listed by this server)` }));
  }
  $('version').value = body.version ?? '';
  $('as_of').value = body.as_of ?? '';
  if (body.version !== undefined || body.as_of !== undefined) $('when-box').open = true;
}

/** Where the form asks for the package to be assembled: 'server' or 'browser'. */
function chosenWhere() {
  return form.elements.namedItem('where')?.value === 'browser' ? 'browser' : 'server';
}

function setWhere(where) {
  const radio = $(where === 'browser' ? 'where-browser' : 'where-server');
  if (radio && !radio.disabled) radio.checked = true;
}

function permalinkHash(body, where = 'server') {
  const params = new URLSearchParams();
  params.set('bundle', body.bundle);
  params.set('q', body.question);
  for (const key of BUDGET_KEYS) if (body.budget?.[key] !== undefined) params.set(key, String(body.budget[key]));
  for (const key of ['version', 'as_of', 'profile']) if (body[key] !== undefined) params.set(key, body[key]);
  if (where === 'browser') params.set('where', 'browser');
  return `#${params.toString()}`;
}

function requestFromHash(hash) {
  if (!hash || hash.length < 2) return null;
  const params = new URLSearchParams(hash.slice(1));
  if (!params.has('q')) return null;
  const input = { bundle: params.get('bundle') ?? bundleSelect.value, question: params.get('q') ?? '' };
  const budget = {};
  for (const key of BUDGET_KEYS) {
    if (params.has(key)) budget[key] = /^-?\d+$/.test(params.get(key)) ? Number(params.get(key)) : Number.NaN;
  }
  if (Object.keys(budget).length) input.budget = budget;
  for (const key of ['version', 'as_of', 'profile']) if (params.has(key)) input[key] = params.get(key);
  return input;
}

// ---- states ----------------------------------------------------------------------------

function clearFieldErrors() {
  for (const node of form.querySelectorAll('[aria-invalid]')) node.removeAttribute('aria-invalid');
}

function showError(e) {
  clear(errorBox);
  let title = 'The package could not be built';
  let detail = e?.message ?? String(e);
  let field = e?.field;
  if (e instanceof ArgumentError) {
    title = 'Please check the form';
    detail = e.message;
  } else if (e instanceof ApiError) {
    if (e.status === 429) {
      title = 'The server is busy (rate limited)';
      const seconds = e.retryAfter ?? 1;
      detail = `Too many requests right now. Try again in ${seconds} second${seconds === 1 ? '' : 's'}. (${e.message})`;
    } else if (e.code === CONTRACT.error_codes.unknown_bundle) {
      title = 'Unknown bundle';
    } else if (e.code === 'invalid_question') {
      title = 'The question was not accepted';
    } else if (e.code === 'network') {
      title = 'No connection to the server';
    }
  }
  // Only nodes: Element.append would print a null as the text "null".
  errorBox.append(
    ...[
      el('h3', { text: title }),
      el('p', { class: 'error-message', text: detail }),
      e instanceof ApiError ? el('p', { class: 'note' }, 'Code ', el('code', { class: 'error-code', text: e.code }), field ? ` · field ${field}` : '', e.status ? ` · HTTP ${e.status}` : '') : null,
    ].filter(Boolean),
  );
  errorBox.dataset.code = e instanceof ApiError ? e.code : 'invalid_argument';
  if (e instanceof ApiError && e.retryAfter !== undefined) errorBox.dataset.retryAfter = String(e.retryAfter);
  else delete errorBox.dataset.retryAfter;
  errorBox.hidden = false;
  // Point at the offending field, if it is on the form: marked invalid, and linked from the
  // summary by its label (GOV.UK error summary), the link moving focus to it.
  const name = typeof field === 'string' ? field.replace(/^budget\./, '') : '';
  const input = name && form.elements.namedItem(name);
  if (input instanceof HTMLElement) {
    input.setAttribute('aria-invalid', 'true');
    if (name in BUDGET_LIMITS) $('budget-box').open = true;
    if (name === 'version' || name === 'as_of') $('when-box').open = true;
    const label = form.querySelector(`label[for="${CSS.escape(input.id)}"]`)?.textContent ?? name;
    const link = el('a', { href: `#${input.id}`, class: 'error-link', text: `Go to “${label}”` });
    link.addEventListener('click', (event) => {
      event.preventDefault(); // the hash is the permalink; keep it
      input.focus();
    });
    errorBox.append(el('p', { class: 'error-field' }, link));
  }
}

function setBusy(on, message) {
  busy = on;
  form.setAttribute('aria-busy', on ? 'true' : 'false');
  submit.textContent = on ? 'Building…' : 'Build evidence package';
  progress.textContent = message;
  results.setAttribute('aria-busy', on ? 'true' : 'false');
}

function copyText(textValue, note) {
  const done = (ok) => {
    note.textContent = ok ? 'Copied.' : 'Copy is not available here: select the id and copy it.';
  };
  if (navigator.clipboard?.writeText) {
    navigator.clipboard.writeText(textValue).then(() => done(true), () => done(false));
  } else {
    done(false);
  }
}

function assembledBy(response) {
  const local = response.where === 'browser';
  return el(
    'p',
    { id: 'assembled-by', class: 'assembled-by', 'data-where': local ? 'browser' : 'server' },
    el('strong', { text: local ? 'Assembled in this browser' : 'Assembled by the server' }),
    local
      ? ` by the engine compiled to WebAssembly, from the server’s verified index (version ${response.version}, bound to SHA-256 ${String(response.binding?.index_sha256 ?? '').slice(0, 12)}…). The bytes are the same as POST /api/ask would return.`
      : ' (POST /api/ask).',
  );
}

function actionsFor(body, bytes, pkg, where) {
  if (downloadUrl) URL.revokeObjectURL(downloadUrl);
  downloadUrl = URL.createObjectURL(new Blob([bytes], { type: 'application/json' }));
  const hex = String(pkg.context_id ?? '').replace(/^urn:sha256:/, '').slice(0, 12);
  const hash = permalinkHash(body, where);
  const copied = el('span', { id: 'brief-copied', class: 'note', role: 'status' });
  const copyBrief = el('button', { id: 'copy-brief', type: 'button', class: 'button secondary', text: 'Copy for an AI' });
  copyBrief.addEventListener('click', () => copyEvidenceBrief(bytes, copied));
  return el(
    'p',
    { class: 'actions-row' },
    el('a', { id: 'download', class: 'button', href: downloadUrl, download: `okf-package-${hex || 'context'}.json`, text: 'Download package JSON' }),
    ' ',
    el('a', { id: 'permalink', class: 'button secondary', href: `${location.origin}/${hash}`, text: 'Permalink (asks again when opened)' }),
    ' ',
    copyBrief,
    ' ',
    copied,
  );
}

let briefModule = null;

/**
 * Copies the package's evidence brief: what an AI should read to answer from it (status,
 * branches, what is missing, the records, how to answer). Rendered by the WebAssembly module,
 * so it is the same text as `okf ask --brief`, the MCP text block and the MCP prompt.
 */
async function copyEvidenceBrief(bytes, note) {
  briefModule ??= instantiateModule();
  const exports = await briefModule;
  if (!exports) {
    note.textContent = 'The evidence brief is not available here.';
    return;
  }
  const input = typeof bytes === 'string' ? new TextEncoder().encode(bytes) : new Uint8Array(bytes);
  const { status, bytes: out } = callModule(exports, 'okf_brief', input, 0);
  const text = new TextDecoder().decode(out);
  if (status !== 0) {
    note.textContent = 'The evidence brief could not be made for this package.';
    return;
  }
  copyText(text, note);
  note.dataset.briefChars = String([...text].length);
}

function focusStatus() {
  // An off-scope result opens with what the bundle does not cover; read that first.
  const status = $('off-scope') ?? $('status');
  if (!status) return;
  status.setAttribute('tabindex', '-1');
  status.focus({ preventScroll: true });
  status.scrollIntoView({ block: 'start' });
}

function show(body, response) {
  const pkg = response.value;
  builtRequests.set(pkg.context_id, body);
  while (builtRequests.size > LOCAL_RETAINED) builtRequests.delete(builtRequests.keys().next().value);
  results.hidden = false;
  if (!reviewer.hidden) {
    reviewer.hidden = true;
    clear(reviewer);
    askSection.hidden = false;
  }
  renderPackage(results, pkg, [assembledBy(response), actionsFor(body, response.bytes, pkg, response.where)], {
    examples: bundleExamples.get(body.bundle) ?? [],
    copy: copyText,
    reask: (text) => askAgain(body, text),
    // The request beside the answer replays the package, so a package assembled in this
    // browser (which the server never retained) is checked too.
    checkAnswer: (answer) => checkAnswer({ ...body, answer }),
    review: (requirement, button) => openReviewer(body, response, requirement, button),
  });
  history.replaceState(null, '', permalinkHash(body, response.where));
}

// ---- the reviewer's page ----------------------------------------------------------------

/** Back from the reviewer's page to the package, focus on the branch's button. */
function closeReviewer(button) {
  reviewer.hidden = true;
  clear(reviewer);
  askSection.hidden = false;
  results.hidden = false;
  (button?.isConnected ? button : results).focus();
}

/**
 * The reviewer's page for one branch of the shown package (web/reviewer.js). The closure's
 * items and their digests come from the engine in this page over the server's verified index
 * of the package's bundle version, refused unless it is the index the package is bound to.
 * Nothing is sent to the server except that read-only index request.
 */
async function openReviewer(body, response, requirement, button) {
  const pkg = response.value;
  const version = response.version ?? body.version ?? defaultVersions.get(body.bundle);
  askSection.hidden = true;
  results.hidden = true;
  reviewer.hidden = false;
  clear(reviewer);
  const back = el('button', { type: 'button', class: 'link', id: 'reviewer-back', text: 'Back to the evidence package' });
  back.addEventListener('click', () => closeReviewer(button));
  const note = el('p', { id: 'reviewer-loading', role: 'status', text: 'Loading the items this branch rests on…' });
  reviewer.append(el('p', {}, back), el('h2', { id: 'reviewer-heading', tabindex: '-1', text: 'Review this branch' }), note);
  reviewer.querySelector('#reviewer-heading').focus();
  try {
    if (version === undefined) throw new ApiError({ status: 0, code: CONTRACT.error_codes.unknown_version, message: 'The bundle version of this package is not known to the page.' });
    const closure = await reviewClosure(body.bundle, version, requirement.id);
    if (closure.binding?.index_sha256 !== pkg.binding?.index_sha256) {
      throw new ApiError({ status: 0, code: CONTRACT.error_codes.binding_mismatch, message: 'The served index is not the one this package is bound to; ask again, then review.' });
    }
    renderReviewer(reviewer, { requirement, closure, labels: labelsOf(pkg), onBack: () => closeReviewer(button) });
    reviewer.querySelector('#reviewer-heading')?.focus();
  } catch (e) {
    note.removeAttribute('role');
    note.className = 'error';
    note.setAttribute('role', 'alert');
    note.textContent = `The items of this branch could not be loaded: ${e?.message ?? e}`;
  }
}

// ---- building --------------------------------------------------------------------------

function retainLocal(response) {
  localPackages.delete(response.value.context_id);
  localPackages.set(response.value.context_id, response);
  while (localPackages.size > LOCAL_RETAINED) localPackages.delete(localPackages.keys().next().value);
}

/** Asks the server, or assembles in this page, for a checked body. */
async function assemble(body, where, signal) {
  if (where !== 'browser') return { ...(await ask(body, signal)), where: 'server' };
  await bundlesReady;
  if (corpora.has(body.bundle)) {
    throw new ApiError({ status: 0, code: 'local_unavailable', field: 'bundle', message: `${body.bundle} is a corpus, which is assembled on the server only; choose “On the server”.` });
  }
  if (body.as_of !== undefined && body.version === undefined) {
    throw new ApiError({ status: 0, code: 'local_unavailable', field: 'as_of', message: 'A date without a version chooses the version on the server; choose “On the server”, or name a version too.' });
  }
  const version = body.version ?? defaultVersions.get(body.bundle);
  if (version === undefined) {
    throw new ApiError({ status: 0, code: CONTRACT.error_codes.unknown_bundle, field: 'bundle', message: `bundle ${JSON.stringify(body.bundle)} is not served here; GET /api/bundles lists the served bundles` });
  }
  const listed = (bundleVersions.get(body.bundle) ?? []).find((v) => v.name === version);
  const regimeProfile = body.profile === 'regimes' || listed?.package_profile === 'regimes';
  const response = await assembleLocally(body, version, signal, { regimeProfile });
  retainLocal(response);
  return response;
}

/** Validates, assembles (server or browser) and shows the package; resolves to the response. */
async function build(input, { signal, origin, where = 'server' }) {
  clearFieldErrors();
  const body = checkBuildArgs(input); // throws ArgumentError before any request
  const mine = ++sequence;
  errorBox.hidden = true;
  setBusy(true, origin === 'tool' ? 'A page tool is assembling the evidence package…' : 'Assembling the evidence package…');
  try {
    const response = await assemble(body, where, signal);
    if (mine === sequence) {
      if (origin === 'tool') setForm(body);
      show(body, response);
      setBusy(false, `Package built: ${response.value.evidence_status}.`);
      // A person who asked is taken to the answer's status (on a phone it is below the
      // form); a page tool's build leaves focus where the person is.
      if (origin !== 'tool') focusStatus();
    }
    return response;
  } catch (e) {
    if (mine === sequence) {
      setBusy(false, '');
      if (e?.name !== 'AbortError') {
        results.hidden = true; // never leave an older package looking like the answer to this request
        showError(e);
      }
    }
    throw e;
  }
}

/** Asks `body` again with another question text (a chosen meaning), as a person's submission. */
function askAgain(body, text) {
  setForm({ ...body, question: text });
  submitForm();
}

async function submitForm() {
  if (busy) return;
  try {
    await build(formInput(), { origin: 'form', where: chosenWhere() });
  } catch (e) {
    if (e instanceof ArgumentError) {
      results.hidden = true; // the older package is not the answer to this request
      showError(e);
      const name = e.field.replace(/^budget\./, '');
      const input = form.elements.namedItem(name);
      if (input instanceof HTMLElement) {
        input.setAttribute('aria-invalid', 'true');
        input.focus();
      }
    }
  }
}

form.addEventListener('submit', (event) => {
  event.preventDefault();
  submitForm();
});

question.addEventListener('keydown', (event) => {
  if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
    event.preventDefault();
    form.requestSubmit();
  }
});

async function askFromHash() {
  const input = requestFromHash(location.hash);
  if (!input) return;
  await bundlesReady;
  setForm({ ...input, budget: input.budget });
  const where = new URLSearchParams(location.hash.slice(1)).get('where') === 'browser' ? 'browser' : 'server';
  setWhere(where);
  try {
    await build(input, { origin: 'permalink', where });
  } catch (e) {
    if (e instanceof ArgumentError) {
      results.hidden = true;
      showError(e);
    }
  }
}

window.addEventListener('hashchange', askFromHash);

// The skip link moves focus to the results (or the form when there are none yet) without
// touching the URL, so the permalink in the address bar stays intact.
document.querySelector('a.skip')?.addEventListener('click', (event) => {
  event.preventDefault();
  const target = results.hidden ? question : results;
  target.focus({ preventScroll: true });
  target.scrollIntoView({ block: 'start' });
});

// ---- page tools --------------------------------------------------------------------------

async function toolBuild(input, signal) {
  const response = await build(input, { signal, origin: 'tool', where: chosenWhere() });
  return response.value; // the package, unchanged
}

async function toolExplain(input, signal) {
  const { contextId, recordId } = checkExplainArgs(input); // before any request
  const response = localPackages.get(contextId) ?? (await getContext(contextId, signal));
  return explainView(response.value, recordId);
}

async function toolManifest(input, signal) {
  const body = checkManifestArgs(input); // before any request
  return (await catalogue(body, signal)).value;
}

async function toolRead(input, signal) {
  const body = checkReadArgs(input); // before any request
  return (await readEvidence(body, signal)).value;
}

/**
 * Checks an answer against a package: the one this page built with the answer's context_id
 * (replayed from its request, so a package assembled in this browser is found too), else the
 * one the server retained.
 */
async function toolCheck(input, signal) {
  if (typeof input !== 'object' || input === null || Array.isArray(input) || Object.keys(input).some((k) => k !== 'answer')) {
    throw new ArgumentError('arguments', 'must be {"answer": <okf-grounded-answer.v1>} and nothing else');
  }
  if (typeof input.answer !== 'object' || input.answer === null || Array.isArray(input.answer)) {
    throw new ArgumentError('answer', 'must be an okf-grounded-answer.v1 object');
  }
  const request = builtRequests.get(input.answer.context_id);
  return (await checkAnswer(request ? { ...request, answer: input.answer } : { answer: input.answer }, signal)).value;
}

/** The request of each package this page showed, by context_id (the answer check replays it). */
const builtRequests = new Map();

/** `listed`: the bundle list the menu already fetched; without it the tools fetch their own. */
async function startPageTools(listed) {
  const status = await registerPageTools({ build: toolBuild, explain: toolExplain, manifest: toolManifest, read: toolRead, check: toolCheck, listed });
  const line = $('webmcp-status');
  line.textContent = `Page tools (WebMCP): ${status.message}`;
  line.dataset.available = String(status.available);
}

window.addEventListener('pageshow', (event) => {
  if (event.persisted) startPageTools();
});

if (!localAvailable()) {
  $('where-browser').disabled = true;
  $('where-note').textContent = 'This browser cannot run WebAssembly, so packages are assembled on the server.';
}
bundlesReady = loadBundles();
startPageTools(bundlesReady);
askFromHash();
