// The reviewer's page (issue 45 item 4): a specialist walks one branch's closure (the
// requirement, its required records and the assertions of its required paths) item by item,
// sees each item's exact text, source and locator as the index holds it, decides it with a
// reason, and downloads one `okf-review-decision.v1` file per decided item for the profile's
// `reviews/` folder, which `okf build` reads. The page writes nothing on the server and
// publishes nothing: the decision files are made in this browser. Each item's `item_sha256`
// comes from the engine (the WebAssembly module over the server's verified index), never from
// this script. Every text from the index reaches the page through textContent.

import { clear, el, httpsLink } from './dom.js';

const SCHEMA = 'okf-review-decision.v1';
const DECISIONS = [
  ['approved', 'Approved'],
  ['changes-required', 'Changes required'],
  ['rejected', 'Rejected'],
];
// okf build's limits (crates/okf-authoring/src/review.rs), in UTF-16 code units.
const MAX = { role: 500, id: 200, reason: 4000 };
const KIND_ORDER = { record: 0, assertion: 1, gap: 2, requirement: 3 };
const KIND_WORDS = { record: 'Record', assertion: 'Assertion', requirement: 'Requirement', gap: 'Declared gap' };

// The reviewer's role, id and date are asked once for the session (kept in this tab only).
const session = { role: '', id: '', date: '' };
try {
  Object.assign(session, JSON.parse(sessionStorage.getItem('okf-reviewer') ?? '{}'));
} catch {
  /* no session storage: ask again */
}
function remember() {
  try {
    sessionStorage.setItem('okf-reviewer', JSON.stringify(session));
  } catch {
    /* not kept */
  }
}

/** Today in the browser's calendar as YYYY-MM-DD. */
function today() {
  const d = new Date();
  const pad = (n) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

/** Whether `s` is a YYYY-MM-DD calendar date (what okf build accepts). */
export function isCalendarDate(s) {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/u.exec(s);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (mo < 1 || mo > 12 || d < 1) return false;
  const days = [31, (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0 ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
  return d <= days[mo - 1];
}

/**
 * The decision file's name: the item id without its scheme, every run of other characters
 * than ASCII letters and digits as one hyphen, its last 100 characters. One item, one name,
 * so a new decision replaces the old file ("one decision per item").
 */
export function decisionFileName(id) {
  const slug = String(id).replace(/^[a-z][a-z0-9+.-]*:\/\//iu, '').replace(/[^A-Za-z0-9]+/gu, '-').replace(/^-+|-+$/gu, '').toLowerCase();
  return `${slug.slice(-100).replace(/^-+/u, '') || 'item'}.json`;
}

/** The decision file's bytes, keys in the documented order (docs/authoring.md). */
export function decisionFile(item, decision, reviewer, date, reason) {
  return `${JSON.stringify({ schema: SCHEMA, item: item.id, item_sha256: item.item_sha256, decision, reviewer: { role: reviewer.role, id: reviewer.id }, date, reason }, null, 2)}\n`;
}

const utf16 = (s) => String(s).length;
const arr = (v) => (Array.isArray(v) ? v : []);

function field(id, label, hint, control) {
  control.setAttribute('aria-describedby', `${hint ? `${id}-hint ` : ''}${id}-error`);
  return el('div', { class: 'field' },
    el('label', { for: id, text: label }),
    hint ? el('p', { id: `${id}-hint`, class: 'note field-hint', text: hint }) : null,
    el('p', { id: `${id}-error`, class: 'govuk-error-message', hidden: true }),
    control);
}

function provenanceList(item) {
  const list = arr(item.provenance);
  if (!list.length) return null;
  return el('dl', { class: 'review-source' }, list.map((p) => [
    el('dt', { text: 'Source' }), el('dd', {}, httpsLink(p.url)),
    el('dt', { text: 'Locator' }), el('dd', {}, el('code', { class: 'locator', text: String(p.locator ?? '') })),
    p.captured_at ? [el('dt', { text: 'Captured' }), el('dd', { text: String(p.captured_at) })] : null,
  ]));
}

/** What the reviewer reads about one item: its exact text, source, locator, assertion. */
function itemBody(entry, nameOf, restsOn) {
  const item = entry.item;
  if (entry.restricted) {
    return [el('p', { class: 'note', text: 'This record is restricted: the page does not show it and cannot state the digest a decision needs. Review it with okf review digest on the full index.' })];
  }
  if (!item) {
    return [el('p', { class: 'note', text: 'The index holds no single item with this id, so no decision can name it.' })];
  }
  const status = item.assertion_status ? el('p', { class: 'note' }, `Status: ${item.assertion_status}`, item.authority?.label ? `; authority: ${item.authority.label}` : '') : null;
  switch (entry.kind) {
    case 'record':
      return [
        el('h4', { class: 'review-sub', text: 'Exact text' }),
        el('blockquote', { class: 'review-text', text: String(item.text ?? '') }),
        provenanceList(item),
        status,
        el('h4', { class: 'review-sub', text: 'The assertion it rests on' }),
        restsOn.length
          ? el('ul', { class: 'rests-on' }, restsOn.map((a) => el('li', { 'data-assertion': a.id }, `${a.label} (${nameOf(a.source)} ${a.predicate} ${nameOf(a.target)})`)))
          : el('p', { class: 'note', text: 'None: the requirement names this record directly.' }),
      ];
    case 'assertion':
      return [
        el('h4', { class: 'review-sub', text: 'What it asserts' }),
        el('p', { class: 'review-text' }, el('strong', { text: nameOf(item.source) }), ` ${item.predicate} `, el('strong', { text: nameOf(item.target) })),
        el('p', { class: 'note', text: `Scope: ${item.scope ?? ''}` }),
        provenanceList(item),
        status,
      ];
    case 'requirement':
      return [
        el('h4', { class: 'review-sub', text: 'What it requires' }),
        el('ul', {}, arr(item.required).map((id) => el('li', { text: nameOf(id) }))),
        arr(item.required_paths).length ? el('p', { class: 'note', text: `and ${arr(item.required_paths).length} required path(s) of assertions, listed above.` }) : null,
        el('p', { class: 'note', text: `Scope: ${item.scope ?? ''}` }),
      ];
    default:
      return [el('p', { class: 'review-text', text: String(item.reason ?? '') })];
  }
}

/**
 * Renders the reviewer's view of one requirement into `container`.
 * `closure`: what `okf_review_closure` returns ({requirement, items}).
 * `labels`: id -> label from the package; `onBack`: returns to the package.
 */
export function renderReviewer(container, { requirement, closure, labels, onBack }) {
  clear(container);
  const items = [...arr(closure.items)].sort((a, b) => (KIND_ORDER[a.kind] ?? 9) - (KIND_ORDER[b.kind] ?? 9));
  const names = new Map(labels);
  for (const e of items) if (e.item?.label) names.set(e.id, e.item.label);
  const nameOf = (id) => names.get(id) ?? String(id);
  const assertions = items.filter((e) => e.kind === 'assertion' && e.item).map((e) => e.item);

  const back = el('button', { type: 'button', class: 'link', id: 'reviewer-back', text: 'Back to the evidence package' });
  back.addEventListener('click', () => onBack());
  const errors = el('div', { id: 'reviewer-errors' });
  const role = el('input', { id: 'reviewer-role', name: 'reviewer-role', type: 'text', autocomplete: 'off', spellcheck: 'false' });
  const rid = el('input', { id: 'reviewer-id', name: 'reviewer-id', type: 'text', autocomplete: 'off', spellcheck: 'false' });
  const date = el('input', { id: 'reviewer-date', name: 'reviewer-date', type: 'text', inputmode: 'numeric', autocomplete: 'off', spellcheck: 'false' });
  role.value = session.role;
  rid.value = session.id;
  date.value = session.date || today();

  const rows = items.map((entry, i) => {
    const n = i + 1;
    const decidable = Boolean(entry.item && entry.item_sha256);
    const heading = `Item ${n} of ${items.length}: ${KIND_WORDS[entry.kind] ?? 'Item'}: ${entry.item?.label ?? entry.id}`;
    const restsOn = entry.kind === 'record' ? assertions.filter((a) => a.source === entry.id || a.target === entry.id) : [];
    const radios = decidable
      ? el('fieldset', { class: 'review-decision', id: `decision-${n}`, 'aria-describedby': `decision-${n}-error` },
        el('legend', { text: `Your decision on item ${n}` }),
        el('p', { id: `decision-${n}-error`, class: 'govuk-error-message', hidden: true }),
        DECISIONS.map(([value, words]) => el('div', { class: 'choice' },
          el('input', { type: 'radio', id: `decision-${n}-${value}`, name: `decision-${n}`, value }),
          el('label', { for: `decision-${n}-${value}`, text: words }))))
      : null;
    const reason = decidable ? el('textarea', { id: `reason-${n}`, name: `reason-${n}`, rows: '3' }) : null;
    return {
      entry, n, radios, reason,
      node: el('li', { class: 'review-item', 'data-item': entry.id, 'data-kind': String(entry.kind ?? '') },
        el('h3', { class: 'review-item-heading', text: heading }),
        itemBody(entry, nameOf, restsOn),
        el('details', { class: 'govuk-details' },
          el('summary', { class: 'govuk-details__summary' }, el('span', { class: 'govuk-details__summary-text', text: 'Technical details' })),
          el('div', { class: 'govuk-details__text' },
            el('p', {}, 'Id: ', el('code', { class: 'item-id', text: entry.id })),
            el('p', {}, 'item_sha256: ', el('code', { class: 'item-sha256', text: entry.item_sha256 ?? 'none' })))),
        radios,
        reason ? field(`reason-${n}`, `Reason for your decision on item ${n}`, 'Required with a decision: what you checked and why.', reason) : null),
    };
  });

  const files = el('div', { id: 'reviewer-files', role: 'status' });
  const download = el('button', { type: 'button', id: 'reviewer-download', text: 'Download decision files' });
  let urls = [];

  const clearErrors = () => {
    clear(errors);
    for (const node of container.querySelectorAll('[aria-invalid]')) node.removeAttribute('aria-invalid');
    for (const m of container.querySelectorAll('.govuk-error-message')) { m.hidden = true; m.textContent = ''; }
  };
  const refuse = (problems) => {
    clear(files);
    for (const [node, message, target] of problems) {
      (target ?? node).setAttribute('aria-invalid', 'true');
      const inline = container.querySelector(`#${node.id}-error`);
      if (inline) { inline.hidden = false; inline.textContent = message; }
    }
    const summary = el('div', { class: 'govuk-error-summary', role: 'alert', tabindex: '-1', 'aria-labelledby': 'reviewer-error-title' },
      el('h3', { id: 'reviewer-error-title', class: 'govuk-error-summary__title', text: 'There is a problem' }),
      el('ul', { class: 'govuk-error-summary__list' }, problems.map(([node, message, target]) => {
        const to = target ?? node;
        const link = el('a', { href: `#${to.id}`, 'data-field': to.id, text: message });
        link.addEventListener('click', (event) => {
          event.preventDefault();
          to.focus();
          to.scrollIntoView({ block: 'center' });
        });
        return el('li', {}, link);
      })));
    errors.append(summary);
    summary.focus();
  };

  download.addEventListener('click', () => {
    clearErrors();
    const reviewer = { role: role.value.trim(), id: rid.value.trim() };
    const day = date.value.trim();
    const problems = [];
    if (!reviewer.role) problems.push([role, 'Enter your reviewer role']);
    else if (utf16(reviewer.role) > MAX.role) problems.push([role, `Reviewer role must be ${MAX.role} characters or fewer`]);
    if (!reviewer.id) problems.push([rid, 'Enter your reviewer id']);
    else if (utf16(reviewer.id) > MAX.id) problems.push([rid, `Reviewer id must be ${MAX.id} characters or fewer`]);
    if (!isCalendarDate(day)) problems.push([date, 'Enter the date of your decisions as a real date in the form YYYY-MM-DD, for example 2026-12-01']);
    const decided = [];
    for (const row of rows) {
      if (!row.radios) continue;
      const chosen = row.radios.querySelector('input:checked')?.value;
      const reason = row.reason.value;
      const first = row.radios.querySelector('input');
      if (chosen && !reason.trim()) problems.push([row.reason, `Enter a reason for your decision on item ${row.n}`]);
      else if (chosen && utf16(reason) > MAX.reason) problems.push([row.reason, `The reason for item ${row.n} must be ${MAX.reason} characters or fewer`]);
      else if (!chosen && reason.trim()) problems.push([row.radios, `Choose a decision on item ${row.n}, or clear its reason`, first]);
      if (chosen) decided.push({ row, decision: chosen, reason });
    }
    if (!decided.length && !problems.some(([, , t]) => t)) {
      const row = rows.find((r) => r.radios);
      if (row) problems.push([row.radios, 'Choose a decision on at least one item', row.radios.querySelector('input')]);
    }
    if (problems.length) {
      refuse(problems);
      return;
    }
    Object.assign(session, { role: reviewer.role, id: reviewer.id, date: day });
    remember();
    for (const u of urls) URL.revokeObjectURL(u);
    urls = [];
    const links = decided.map(({ row, decision, reason }) => {
      const name = decisionFileName(row.entry.id);
      const url = URL.createObjectURL(new Blob([decisionFile(row.entry, decision, reviewer, day, reason)], { type: 'application/json' }));
      urls.push(url);
      return el('a', { href: url, download: name, class: 'decision-file', 'data-item': row.entry.id, text: name });
    });
    clear(files);
    files.append(
      el('h3', { text: `${links.length} decision ${links.length === 1 ? 'file' : 'files'}` }),
      el('p', { text: 'Your browser saves each file. If it asked and you refused, save them one by one here:' }),
      el('ul', { class: 'decision-files' }, links.map((a) => el('li', {}, a))),
      el('p', {}, 'Put them in the profile’s ', el('code', { text: 'reviews/' }), ' folder and run ', el('code', { text: 'okf build' }),
        ': it applies each decision that still matches its item (a file of the same name replaces an earlier decision on that item). Nothing was sent to the server.'),
    );
    for (const a of links) a.click();
  });

  container.append(
    el('p', {}, back),
    el('h2', { id: 'reviewer-heading', tabindex: '-1', text: 'Review this branch' }),
    el('p', { class: 'lead req-label', 'data-requirement': requirement.id, text: requirement.label ?? requirement.id }),
    el('div', { class: 'inset' },
      el('p', { text: `Decide each of the ${items.length} items this branch rests on, as the index holds them: the requirement, the records it requires and the assertions of its paths. A branch reads as reviewed when every item is approved.` }),
      el('p', { text: 'Nothing you write here is sent to the server or published: the page makes the decision files in this browser for you to download.' })),
    errors,
    el('fieldset', { class: 'reviewer-who' },
      el('legend', { text: 'You, for every decision' }),
      field('reviewer-role', 'Reviewer role', 'Your role, for example DWP decision-making policy specialist. No name or other personal data.', role),
      field('reviewer-id', 'Reviewer id', 'An opaque id, for example r-017.', rid),
      field('reviewer-date', 'Date of your decisions', 'YYYY-MM-DD, today unless you change it.', date)),
    el('ol', { class: 'review-items' }, rows.map((r) => r.node)),
    el('div', { class: 'actions' }, download),
    files,
  );
}
