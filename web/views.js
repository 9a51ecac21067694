// Renderers of the evidence workbench (spec §1.15): okf-workbench-view.v1 values, passages,
// provenance, traces and relationships. Every value reaches the page as text (dom.js), only
// credential-free https URLs become links, unknown values are marked as unknown (never 0 or
// "no"), and every view shows its authority, limitations and three dates.

import { el, svg, httpsLink, readableDate, shorten } from './dom.js';

const UNKNOWN = 'Unknown';
const UNKNOWN_NOTE = 'An unknown rate or readiness value does not mean zero.';

/** `httpsLink`, with a no-link marker after anything that did not become a link. */
function safeLink(url, text) {
  const link = httpsLink(url, text);
  return link.tagName === 'A' ? link : el('span', {}, link, el('span', { class: 'note', text: ' (no link)' }));
}

function unknown() {
  return el('span', { class: 'unknown', text: UNKNOWN });
}

/** A view's authority in words; the code itself is kept for Technical details. */
const AUTHORITY_WORDS = {
  'retained-evidence-projection': 'taken from the retained evidence package, as verified against the manifest; not reviewed guidance',
  'authored-unreviewed-proposal': 'proposed by the bundle author and not yet reviewed',
  'local-unreviewed-proposal': 'a local proposal, not yet reviewed',
};

export function authorityWords(authority) {
  if (authority === undefined || authority === null || authority === '') return 'not stated';
  return AUTHORITY_WORDS[authority] ?? String(authority).replaceAll('-', ' ');
}

function authorityLine(view) {
  return el('p', { class: 'authority' }, el('strong', { text: 'Authority: ' }), authorityWords(view.authority));
}

/** GOV.UK details ("Technical details"): codes, ids and IRIs for those who need them. */
export function technicalDetails(...content) {
  return el(
    'details',
    { class: 'govuk-details technical-details' },
    el('summary', { class: 'govuk-details__summary' }, el('span', { class: 'govuk-details__summary-text', text: 'Technical details' })),
    el('div', { class: 'govuk-details__text' }, ...content),
  );
}

/** A term and its code, for a Technical details list. */
const codeItem = (term, value) => el('li', {}, `${term}: `, el('code', { text: String(value) }));

/** A cell value: null/absent is Unknown; booleans are Yes/No; arrays are joined. */
function cellText(value) {
  if (value === null || value === undefined || value === '') return unknown();
  if (typeof value === 'boolean') return value ? 'Yes' : 'No';
  if (Array.isArray(value)) return value.map(String).join('; ');
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/**
 * The view's three dates (unknown stays unknown: capture is not publication or effect), and
 * when the case's sources were captured, when the package says.
 */
function dates(view, captured) {
  const t = view.time_basis ?? {};
  const row = (label, value) => el('div', {}, el('dt', { text: label }), el('dd', {}, value ? readableDate(value) : unknown()));
  // An effective date the view does not know is left out: capture is not effect, and a row
  // reading "Unknown" says nothing a person can use.
  return el(
    'dl',
    { class: 'dates' },
    t.assessment_date
      ? row('Assessment date', t.assessment_date)
      : el('div', {}, el('dt', { text: 'Assessment date' }), el('dd', { class: 'none', text: 'none asked for: the view is not for a particular date' })),
    t.effective_from ? row('Effective from', t.effective_from) : null,
    t.effective_to ? row('Effective to', t.effective_to) : null,
    captured ? el('div', {}, el('dt', { text: 'Sources captured' }), el('dd', { text: captured })) : null,
  );
}

/**
 * Fields whose value is the same long text in every row (a requirement's qualification, often
 * ~900 characters): said once above the table instead of in each row.
 */
function sharedFields(fields, rows) {
  if (rows.length < 2) return [];
  return fields.filter((f) => {
    const v = rows[0][f.key];
    return typeof v === 'string' && v.length > 120 && rows.every((r) => r[f.key] === v);
  });
}

/** A cell of a view: in the requirements view an empty `missing` is "none" (nothing is missing). */
function viewCell(view, row, key, words) {
  if (view.kind === 'requirements' && key === 'missing' && row.missing === '') return el('span', { class: 'none', text: 'none' });
  if (view.kind === 'requirements' && key === 'status' && words?.status) {
    const said = words.status(row);
    const badge = el('span', { class: `badge ${said.state === 'met' ? 'met' : said.state === 'partial' ? 'partial' : 'unmet'}`, 'data-support': said.state, text: said.text });
    // The package's specialist review of the branch, when it carries one (issue 45).
    const review = words.review?.(row);
    return review ? [badge, review] : badge;
  }
  if (view.kind === 'requirements' && key === 'missing' && words?.missing) return words.missing(row);
  return cellText(row[key]);
}

function limitations(list) {
  if (!Array.isArray(list) || list.length === 0) return el('p', { class: 'none', text: 'No limitation was supplied.' });
  return el('ul', { class: 'limitations' }, list.map((l) => el('li', { text: String(l) })));
}

function provenance(list) {
  if (!Array.isArray(list) || list.length === 0) return el('p', { class: 'none', text: 'This view cites no sources.' });
  return el(
    'ul',
    { class: 'provenance' },
    list.map((p) => el('li', {}, safeLink(p.url, p.url), p.locator ? ` — ${p.locator}` : '', p.source_date ? ` (source date ${p.source_date})` : '')),
  );
}

function coverage(view) {
  const c = view.coverage ?? {};
  const total = Number(c.total_rows ?? 0);
  const delivered = Number(c.delivered_rows ?? 0);
  if (c.complete || delivered >= total) return null;
  const first = Number(c.offset ?? 0) + 1;
  return el('p', { class: 'coverage', text: `Rows ${first}–${first + delivered - 1} of ${total} are shown; this is part of the view, and more rows can be fetched.` });
}

/**
 * A view table with its header facts. `inspect(ref)` opens a referenced record; each
 * reference in a row becomes an "Inspect source n" button.
 */
export function renderView(view, { inspect, headingLevel = 3, captured = null, words = null } = {}) {
  const box = el('div', { class: 'view' });
  box.append(el(`h${headingLevel}`, { text: String(view.title ?? view.kind ?? 'View') }));
  box.append(authorityLine(view));
  box.append(dates(view, captured));
  const rows = Array.isArray(view.rows) ? view.rows : [];
  const shared = sharedFields(Array.isArray(view.fields) ? view.fields : [], rows);
  for (const f of shared) box.append(el('p', { class: 'shared-field' }, el('strong', { text: `${f.label} (the same for every row): ` }), String(rows[0][f.key])));
  const fields = (Array.isArray(view.fields) ? view.fields : []).filter((f) => !shared.includes(f));
  if (rows.length === 0) {
    box.append(
      el(
        'ul',
        { class: 'empty-view' },
        el('li', { text: 'This view has no entries; unknown does not mean zero.' }),
        el('li', { text: 'This view neither calculates an award nor decides entitlement.' }),
      ),
    );
  } else {
    const hasRefs = rows.some((r) => Array.isArray(r.references) && r.references.length > 0);
    const table = el('table', { class: 'view-table' });
    table.append(el('caption', { text: String(view.title ?? 'View') }));
    const head = el('tr', {}, fields.map((f) => el('th', { scope: 'col', text: f.unit ? `${f.label} (${f.unit})` : String(f.label) })));
    if (hasRefs) head.append(el('th', { scope: 'col', text: 'Sources' }));
    table.append(el('thead', {}, head));
    const body = el('tbody');
    let n = 0;
    for (const row of rows) {
      const tr = el('tr', {}, fields.map((f) => el('td', {}, viewCell(view, row, f.key, words), row.unit && f.key === 'value' ? ` (${row.unit})` : '')));
      if (hasRefs) {
        const refs = Array.isArray(row.references) ? row.references : [];
        tr.append(
          el(
            'td',
            {},
            refs.map((r) => {
              n += 1;
              return el('button', { type: 'button', class: 'link', 'data-ref': String(r), text: `Inspect source ${n}` });
            }),
          ),
        );
      }
      body.append(tr);
    }
    table.append(body);
    box.append(el('div', { class: 'table-scroll', tabindex: '0', role: 'region', 'aria-label': `${view.title ?? 'View'} table` }, table));
    box.addEventListener('click', (event) => {
      const ref = event.target?.closest?.('button[data-ref]')?.dataset.ref;
      if (ref && inspect) inspect(ref);
    });
  }
  if (rows.some((r) => Object.values(r).some((v) => v === null)) || view.kind === 'rates') box.append(el('p', { class: 'note', text: UNKNOWN_NOTE }));
  const cov = coverage(view);
  if (cov) box.append(cov);
  box.append(el('h4', { text: 'Limitations' }), limitations(view.limitations));
  box.append(el('h4', { text: 'Sources' }), provenance(view.provenance));
  const statuses = view.kind === 'requirements' ? [...new Set(rows.map((r) => r.status).filter(Boolean))] : [];
  box.append(technicalDetails(el('ul', {}, codeItem('Authority', view.authority ?? 'not stated'), statuses.map((st) => codeItem('Requirement status', st)))));
  return box;
}

const NODE_W = 200;
const NODE_H = 44;
const COLUMNS = 3;

/**
 * The bounded graph: an SVG with arrowheads, announced in a sentence, followed by node and
 * connection tables with a keyboard button per node (`open(ref)`).
 */
export function renderGraph(view, { open, captured = null } = {}) {
  const nodes = Array.isArray(view.nodes) ? view.nodes : [];
  const edges = Array.isArray(view.edges) ? view.edges : [];
  const box = el('div', { class: 'view graph-view' });
  box.append(el('h3', { text: String(view.title ?? 'Graph') }));
  box.append(authorityLine(view));
  box.append(dates(view, captured));
  const sentence = `Directed graph with ${nodes.length} nodes and ${edges.length} displayed connections; arrows run from source to target.`;
  const rows = Math.ceil(nodes.length / COLUMNS);
  const width = COLUMNS * (NODE_W + 60) + 20;
  const height = Math.max(1, rows) * (NODE_H + 30) + 20;
  const at = new Map(nodes.map((n, i) => [n.ref, { x: 20 + (i % COLUMNS) * (NODE_W + 60), y: 20 + Math.floor(i / COLUMNS) * (NODE_H + 30) }]));
  const picture = svg('svg', { viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-label': sentence, class: 'wb-graph' });
  picture.append(
    svg('defs', {}, svg('marker', { id: 'wb-arrow', viewBox: '0 0 10 10', refX: '10', refY: '5', markerWidth: '8', markerHeight: '8', orient: 'auto-start-reverse' }, svg('path', { d: 'M 0 0 L 10 5 L 0 10 z' }))),
  );
  // Each arrow runs along the line between the two box centres, from border to border, so
  // its head is never hidden under a box.
  const border = (box, dx, dy) => {
    const t = Math.min(dx ? NODE_W / 2 / Math.abs(dx) : Infinity, dy ? NODE_H / 2 / Math.abs(dy) : Infinity);
    return [box.x + NODE_W / 2 + dx * t, box.y + NODE_H / 2 + dy * t];
  };
  for (const e of edges) {
    const a = at.get(e.source);
    const b = at.get(e.target);
    if (!a || !b || a === b) continue;
    const dx = b.x - a.x;
    const dy = b.y - a.y;
    const [x1, y1] = border(a, dx, dy);
    const [x2, y2] = border(b, -dx, -dy);
    picture.append(svg('line', { x1, y1, x2, y2, class: 'edge', 'marker-end': 'url(#wb-arrow)' }));
  }
  for (const n of nodes) {
    const p = at.get(n.ref);
    picture.append(
      svg('g', {}, svg('rect', { x: p.x, y: p.y, width: NODE_W, height: NODE_H, rx: 6, class: 'node' }), svg('text', { x: p.x + 8, y: p.y + 26, text: shorten(n.label ?? n.ref, 28) })),
    );
  }
  box.append(el('p', { class: 'graph-sentence', text: sentence }));
  box.append(el('div', { class: 'graph-scroll', tabindex: '0', role: 'region', 'aria-label': 'Graph drawing' }, picture));
  const labelOf = new Map(nodes.map((n) => [n.ref, String(n.label ?? n.ref)]));
  const nodeTable = el(
    'table',
    { class: 'view-table' },
    el('caption', { text: 'Nodes' }),
    el('thead', {}, el('tr', {}, el('th', { scope: 'col', text: 'Record' }), el('th', { scope: 'col', text: 'Status' }))),
    el(
      'tbody',
      {},
      nodes.map((n) =>
        el(
          'tr',
          {},
          el('td', {}, el('button', { type: 'button', class: 'link', 'data-ref': String(n.ref), text: String(n.label ?? n.ref) })),
          el('td', {}, cellText(n.status)),
        ),
      ),
    ),
  );
  const edgeTable = el(
    'table',
    { class: 'view-table' },
    el('caption', { text: 'Connections' }),
    el('thead', {}, el('tr', {}, ['Source', 'Relationship', 'Target', 'Status'].map((h) => el('th', { scope: 'col', text: h })))),
    el(
      'tbody',
      {},
      edges.map((e) =>
        el('tr', {}, el('td', { text: labelOf.get(e.source) ?? 'endpoint not available' }), el('td', {}, cellText(e.label)), el('td', { text: labelOf.get(e.target) ?? 'endpoint not available' }), el('td', {}, cellText(e.status))),
      ),
    ),
  );
  box.append(el('div', { class: 'table-scroll', tabindex: '0', role: 'region', 'aria-label': 'Graph nodes' }, nodeTable));
  box.append(el('div', { class: 'table-scroll', tabindex: '0', role: 'region', 'aria-label': 'Graph connections' }, edgeTable));
  box.addEventListener('click', (event) => {
    const ref = event.target?.closest?.('button[data-ref]')?.dataset.ref;
    if (ref && open) open(ref);
  });
  box.append(el('h4', { text: 'Limitations' }), limitations(view.limitations));
  box.append(technicalDetails(el('ul', {}, codeItem('Authority', view.authority ?? 'not stated'))));
  return box;
}

/** A record's assertion or review status in words (`unreviewed-specialist-review-required` gives "not reviewed: specialist review required"). */
function statusWords(value) {
  if (value === undefined || value === null || value === '') return null;
  const words = { 'unreviewed-specialist-review-required': 'not reviewed: specialist review required', 'model-derived': 'derived by a model from the source', 'not-supplied': 'not supplied' };
  return words[value] ?? String(value).replaceAll('-', ' ');
}

/** Key facts of a record reply (passage, provenance, trace), shown above its body. */
function recordFacts(data) {
  const row = (label, value) => el('div', {}, el('dt', { text: label }), el('dd', {}, value === undefined || value === null ? unknown() : value));
  return el(
    'dl',
    { class: 'facts' },
    row('Kind', data.kind),
    row('Locator', data.locator),
    row('Assertion status', statusWords(data.assertion_status)),
    row('Review status', statusWords(data.review_status)),
    row('Source', data.source_url ? safeLink(data.source_url, data.source_url) : null),
    row('Scope', data.scope),
  );
}

/** The passage with its segmentation notice and range. */
export function renderPassage(data) {
  const box = el('div', { class: 'passage' });
  box.append(recordFacts(data));
  if (data.segmentation) box.append(el('p', { class: 'segmentation note', text: String(data.segmentation) }));
  const r = data.range ?? {};
  box.append(el('p', { class: 'note', text: `Characters ${r.start ?? 0}–${r.end ?? 0} of ${r.total ?? 0} (${r.unit ?? 'UTF-16 code units'}).` }));
  box.append(el('blockquote', { class: 'record-text', text: String(data.text ?? '') }));
  return box;
}

/** Provenance entries of a record. */
export function renderProvenance(data) {
  const items = Array.isArray(data.items) ? data.items : [];
  if (items.length === 0) return el('p', { class: 'none', text: 'No provenance is recorded for this record.' });
  return el(
    'ul',
    { class: 'provenance' },
    items.map((p) =>
      el(
        'li',
        {},
        safeLink(p.url, p.url),
        el('span', { class: 'note', text: ` — ${p.locator ?? 'no locator'}; captured ${p.captured_at ?? UNKNOWN}; source date ${p.source_date ?? UNKNOWN}` }),
      ),
    ),
  );
}

const IRI = /(https?:\/\/[^\s,;]+)/u;

/** The last path segment of an id, read as words (`…/term/benefit-entitlement` gives "benefit entitlement"). */
export function idWords(id) {
  const tail = String(id ?? '').replace(/[.)]+$/u, '').split(/[/#]/u).filter(Boolean).pop() ?? '';
  return tail.replaceAll(/[-_]+/gu, ' ').trim() || 'an unnamed record';
}

/** A name for an id: its label where the page knows it, else its last segment in words. */
function nameOf(id, ctx) {
  const label = ctx.labels?.get(id);
  return label ? `“${label}”` : `“${idWords(id)}”`;
}

/**
 * A selection reason or diagnostic message in words: every IRI it mentions becomes the
 * record's label, a relationship's name, or the id's last segment; the ids go to `ids`.
 */
function inWords(value, ctx, ids) {
  let said = String(value ?? '').replace(/^Matched declared phrase: (.*)$/u, (_, words) => `Matched words of the question: ${words.split(', ').map((w) => `“${w}”`).join(', ')}`);
  said = said.split(IRI).map((part) => {
    if (!IRI.test(part)) return part;
    const trail = /[.)]+$/u.exec(part)?.[0] ?? '';
    const iri = trail ? part.slice(0, -trail.length) : part;
    ids.push(iri);
    if (ctx.labels?.has(iri)) return `${nameOf(iri, ctx)}${trail}`;
    if (ctx.predicates?.has(iri)) return `“${ctx.predicates.get(iri)}”${trail}`;
    return `${nameOf(iri, ctx)}${trail}`;
  });
  return said.join('');
}

/** One step of a record's trace, in words, with its technical details (kind, codes, ids). */
function traceStep(item, ctx) {
  const ids = [];
  const codes = [];
  let words;
  switch (item?.kind) {
    case 'selection_reason':
      words = inWords(item.reason, ctx, ids);
      break;
    case 'path': {
      const path = item.path ?? {};
      const records = Array.isArray(path.records) ? path.records.map(String) : [];
      const hops = Array.isArray(path.assertions) ? path.assertions.map(String) : [];
      const seed = String(path.seed ?? records[0] ?? '');
      ids.push(...records, ...hops);
      if (!hops.length) {
        words = `Selected directly: ${nameOf(seed, ctx)} is where the search started; no relationship was followed.`;
      } else {
        const chain = records.map((r, i) => {
          const name = i === records.length - 1 ? 'this record' : nameOf(r, ctx);
          if (i === 0) return name;
          const link = ctx.relationships?.get(hops[i - 1]);
          return `${link ? ` —${link}→ ` : ' → '}${name}`;
        });
        words = `Reached through ${hops.length} relationship${hops.length === 1 ? '' : 's'}, starting from ${chain.join('')}.`;
      }
      break;
    }
    case 'missing_evidence':
    case 'conflict':
    case 'omission': {
      const d = item.diagnostic ?? {};
      const lead = { missing_evidence: 'Missing', conflict: 'Conflict', omission: 'Left out by the budget' }[item.kind];
      if (d.code) codes.push(String(d.code));
      const names = (Array.isArray(d.ids) ? d.ids : []).map((id) => {
        ids.push(String(id));
        return nameOf(String(id), ctx);
      });
      words = `${lead}: ${inWords(d.message ?? 'no message was given', ctx, ids)}${names.length ? ` (${names.join(', ')})` : ''}`;
      break;
    }
    default:
      words = 'A step of a kind this page does not know how to describe; see the technical details.';
  }
  return { words, kind: String(item?.kind ?? 'unknown'), codes, ids: [...new Set(ids)] };
}

/**
 * Why a record was selected, as numbered steps in words: how the question matched, the path
 * of relationships that reached it, and what the package says is missing, in conflict or left
 * out. Ids, IRIs and codes are kept under "Technical details". `ctx` holds what the page knows
 * of the package: `labels` (id → label), `predicates` and `relationships` (id → name).
 */
export function renderTrace(data, ctx = {}) {
  const box = el('div', { class: 'trace' });
  box.append(recordFacts(data));
  const items = Array.isArray(data.items) ? data.items : [];
  if (!items.length) {
    box.append(el('p', { class: 'none', text: 'No selection reason is recorded.' }));
    return box;
  }
  const steps = items.map((i) => traceStep(i, ctx));
  box.append(el('ol', { class: 'trace-steps' }, steps.map((st) => el('li', { 'data-kind': st.kind, text: st.words }))));
  box.append(
    technicalDetails(
      el('ol', { class: 'trace-ids' },
        steps.map((st) => el('li', {}, el('code', { text: st.kind }), st.codes.map((c) => [' ', el('code', { text: c })]),
          st.ids.length ? el('ul', { class: 'ids' }, st.ids.map((id) => el('li', {}, el('code', { text: id })))) : null))),
    ),
  );
  return box;
}

/** Directed relationships around a record or case. */
export function renderRelationships(items) {
  if (items.length === 0) return el('p', { class: 'none', text: 'No relationship is retained around this record.' });
  const table = el(
    'table',
    { class: 'view-table' },
    el('caption', { text: 'Directed relationships (source → target)' }),
    el('thead', {}, el('tr', {}, ['From', 'Relationship', 'To', 'Authority'].map((h) => el('th', { scope: 'col', text: h })))),
    el(
      'tbody',
      {},
      items.map((i) => el('tr', {}, el('td', { text: String(i.from ?? '') }), el('td', { text: String(i.label ?? i.predicate ?? '') }), el('td', { text: String(i.to ?? '') }), el('td', { text: String(i.authority?.label ?? UNKNOWN) }))),
    ),
  );
  return el('div', { class: 'table-scroll', tabindex: '0', role: 'region', 'aria-label': 'Relationships' }, table);
}

