// The directed graph view: selected records as nodes, held relationships between them as
// arrows, laid out in columns by hop depth. Bounded to a readable size; what is left out is
// said in a note, and the table next to it lists every relationship.

import { el, svg, shorten } from './dom.js';

export const MAX_NODES = 60;
export const MAX_EDGES = 120;

const NODE_W = 232;
const NODE_H = 40;
const GAP_X = 100;
const GAP_Y = 10;
const MARGIN = 24;
const ROWS_PER_COLUMN = 20;
const LINE_CHARS = 33;

const PREDICATES = {
  'http://purl.org/dc/terms/references': 'references',
  'http://purl.org/dc/terms/requires': 'requires',
  'http://www.w3.org/2004/02/skos/core#related': 'related',
  'http://www.w3.org/2004/02/skos/core#narrower': 'narrower',
  'http://www.w3.org/2004/02/skos/core#broader': 'broader',
};

/** A short name for a predicate IRI. */
export function predicateName(iri) {
  return PREDICATES[iri] ?? String(iri);
}

function depthOf(item) {
  const paths = Array.isArray(item.paths) ? item.paths : [];
  const hops = paths.map((p) => (Array.isArray(p.assertions) ? p.assertions.length : 0));
  return hops.length ? Math.min(...hops) : 0;
}

/**
 * What the graph draws: the first MAX_NODES selected records (selection order) and the
 * first MAX_EDGES relationships (admission order) whose two ends are both drawn.
 */
export function graphModel(pkg) {
  const selected = Array.isArray(pkg.selected) ? pkg.selected : [];
  const relationships = Array.isArray(pkg.relationships) ? pkg.relationships : [];
  const nodes = selected.slice(0, MAX_NODES).map((item, order) => ({
    id: item.record.id,
    label: item.record.label,
    kind: item.record.kind,
    depth: depthOf(item),
    order,
  }));
  const drawn = new Set(nodes.map((n) => n.id));
  const between = relationships.filter((r) => drawn.has(r.source) && drawn.has(r.target));
  const edges = between.slice(0, MAX_EDGES);
  const selectedIds = new Set(selected.map((s) => s.record.id));
  return {
    nodes,
    edges,
    totalNodes: selected.length,
    totalEdges: relationships.length,
    nodesOverLimit: selected.length - nodes.length,
    edgesOverLimit: between.length - edges.length,
    edgesToUnselected: relationships.filter((r) => !selectedIds.has(r.source) || !selectedIds.has(r.target)).length,
    edgesToUndrawn: relationships.filter(
      (r) => selectedIds.has(r.source) && selectedIds.has(r.target) && (!drawn.has(r.source) || !drawn.has(r.target)),
    ).length,
  };
}

/**
 * One or two lines for a box. A long label keeps its beginning and its end (where labels
 * such as "… — PDF page 60" differ), with an ellipsis between.
 */
export function labelLines(label, per = LINE_CHARS) {
  const words = String(label).split(/\s+/).filter(Boolean);
  const flat = words.join(' ');
  if (Array.from(flat).length <= per) return [flat];
  let first = '';
  let i = 0;
  while (i < words.length && Array.from(first ? `${first} ${words[i]}` : words[i]).length <= per) {
    first = first ? `${first} ${words[i]}` : words[i];
    i += 1;
  }
  if (!first) return [shorten(flat, per), ''];
  const rest = words.slice(i).join(' ');
  if (Array.from(rest).length <= per) return [first, rest];
  const tail = [];
  for (let j = words.length - 1; j >= i; j -= 1) {
    if (Array.from(['…', words[j], ...tail].join(' ')).length > per) break;
    tail.unshift(words[j]);
  }
  return [first, tail.length ? `… ${tail.join(' ')}` : shorten(rest, per)];
}

function columnsFor(count) {
  return Math.max(1, Math.ceil(count / ROWS_PER_COLUMN));
}

function layout(model) {
  const byDepth = new Map();
  for (const n of model.nodes) {
    if (!byDepth.has(n.depth)) byDepth.set(n.depth, []);
    byDepth.get(n.depth).push(n);
  }
  const depths = [...byDepth.keys()].sort((a, b) => a - b);
  const position = new Map();
  const incoming = new Map();
  for (const e of model.edges) {
    if (!incoming.has(e.target)) incoming.set(e.target, []);
    incoming.get(e.target).push(e.source);
  }
  let column = 0;
  let height = 0;
  for (const depth of depths) {
    const layer = byDepth.get(depth);
    // Order each layer by the mean row of its already placed predecessors (fewer crossings).
    const key = (n) => {
      const rows = (incoming.get(n.id) ?? []).map((s) => position.get(s)).filter(Boolean).map((p) => p.y);
      return rows.length ? rows.reduce((a, b) => a + b, 0) / rows.length : Number.POSITIVE_INFINITY;
    };
    const keyed = layer.map((n) => ({ n, k: key(n) }));
    keyed.sort((a, b) => (a.k === b.k ? a.n.order - b.n.order : a.k - b.k));
    const perColumn = Math.ceil(layer.length / columnsFor(layer.length));
    keyed.forEach(({ n }, i) => {
      const col = column + Math.floor(i / perColumn);
      const row = i % perColumn;
      const x = MARGIN + col * (NODE_W + GAP_X);
      const y = MARGIN + 22 + row * (NODE_H + GAP_Y);
      position.set(n.id, { x, y, col });
      height = Math.max(height, y + NODE_H + MARGIN);
    });
    column += columnsFor(layer.length);
  }
  const width = MARGIN * 2 + Math.max(1, column) * NODE_W + Math.max(0, column - 1) * GAP_X + 40;
  return { position, width, height: Math.max(height, 120), depths, byDepth };
}

function edgePath(a, b) {
  const ay = a.y + NODE_H / 2;
  const by = b.y + NODE_H / 2;
  if (b.col > a.col) {
    const x1 = a.x + NODE_W;
    const x2 = b.x - 2;
    const dx = Math.max(30, (x2 - x1) / 2);
    return `M ${x1} ${ay} C ${x1 + dx} ${ay}, ${x2 - dx} ${by}, ${x2} ${by}`;
  }
  if (b.col < a.col) {
    const x1 = a.x;
    const x2 = b.x + NODE_W + 2;
    const dx = Math.max(30, (x1 - x2) / 2);
    return `M ${x1} ${ay} C ${x1 - dx} ${ay}, ${x2 + dx} ${by}, ${x2} ${by}`;
  }
  // Same column: an arc out to the right.
  const x = a.x + NODE_W;
  const bulge = 26 + Math.min(60, Math.abs(by - ay) / 4);
  return `M ${x} ${ay} C ${x + bulge} ${ay}, ${x + bulge} ${by}, ${x + 2} ${by}`;
}

function labelText(label) {
  const lines = labelLines(label).filter(Boolean);
  const text = svg('text', { x: '9', y: lines.length === 1 ? String(NODE_H / 2 + 4) : '16' });
  lines.forEach((line, i) => text.append(svg('tspan', { x: '9', dy: i ? '15' : '0', text: line })));
  return text;
}

function marker(id, cls) {
  return svg(
    'marker',
    { id, class: cls, viewBox: '0 0 10 10', refX: '9', refY: '5', markerWidth: '7', markerHeight: '7', orient: 'auto-start-reverse' },
    svg('path', { d: 'M 0 0 L 10 5 L 0 10 z' }),
  );
}

/**
 * Draws the graph. `onOpen(id)` is called when a node is clicked or activated with Enter or
 * Space.
 */
export function renderGraph(model, onOpen) {
  const { position, width, height, depths, byDepth } = layout(model);
  const root = svg('svg', {
    id: 'graph-svg',
    class: 'graph',
    width,
    height,
    viewBox: `0 0 ${width} ${height}`,
    role: 'group',
    'aria-label': `Graph of ${model.nodes.length} records and ${model.edges.length} relationships`,
    'data-nodes': model.nodes.length,
    'data-edges': model.edges.length,
  });
  const defs = svg('defs');
  const kinds = ['references', 'requires', 'related', 'narrower', 'broader', 'other'];
  for (const k of kinds) defs.append(marker(`arrow-${k}`, `arrow arrow-${k}`));
  root.append(defs);

  // Column headings: hop depth.
  let col = 0;
  for (const depth of depths) {
    const span = columnsFor(byDepth.get(depth).length);
    root.append(
      svg('text', { class: 'depth-label', x: MARGIN + col * (NODE_W + GAP_X), y: MARGIN + 6, text: depth === 0 ? 'Seeds (depth 0)' : `Depth ${depth}` }),
    );
    col += span;
  }

  const edgeLayer = svg('g', { class: 'edges', 'aria-hidden': 'true' });
  for (const e of model.edges) {
    const a = position.get(e.source);
    const b = position.get(e.target);
    const kind = PREDICATES[e.predicate] ?? 'other';
    edgeLayer.append(
      svg(
        'path',
        { class: `edge edge-${kind}`, d: edgePath(a, b), 'marker-end': `url(#arrow-${kind})`, 'data-id': e.id },
        svg('title', { text: `${e.label || predicateName(e.predicate)} (${predicateName(e.predicate)})` }),
      ),
    );
  }
  root.append(edgeLayer);

  const nodeLayer = svg('g', { class: 'nodes' });
  for (const n of model.nodes) {
    const p = position.get(n.id);
    const g = svg(
      'g',
      {
        class: `node node-${n.kind}`,
        transform: `translate(${p.x} ${p.y})`,
        tabindex: '0',
        role: 'button',
        'aria-label': `Open record: ${n.label} (${n.kind})`,
        'data-id': n.id,
      },
      svg('title', { text: `${n.label} (${n.kind})` }),
      svg('rect', { width: NODE_W, height: NODE_H, rx: '6', ry: '6' }),
      labelText(n.label),
    );
    g.addEventListener('click', () => onOpen(n.id));
    g.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' || event.key === ' ') {
        event.preventDefault();
        onOpen(n.id);
      }
    });
    nodeLayer.append(g);
  }
  root.append(nodeLayer);
  return root;
}

/** The sentence that says what the drawing leaves out. */
export function graphNote(model) {
  const parts = [
    `Drawn: ${model.nodes.length} of ${model.totalNodes} selected records and ${model.edges.length} of ${model.totalEdges} relationships.`,
  ];
  if (model.nodesOverLimit > 0) parts.push(`${model.nodesOverLimit} records are not drawn (limit ${MAX_NODES} nodes).`);
  if (model.edgesOverLimit > 0) parts.push(`${model.edgesOverLimit} relationships between drawn records are not drawn (limit ${MAX_EDGES} arrows).`);
  if (model.edgesToUndrawn > 0) parts.push(`${model.edgesToUndrawn} relationships touch records that are not drawn.`);
  if (model.edgesToUnselected > 0) {
    parts.push(`${model.edgesToUnselected} relationships point to items that were not selected (missing, restricted or over budget).`);
  }
  if (parts.length > 1 || model.totalEdges > 0) parts.push('The table lists every relationship.');
  return parts.join(' ');
}

/** A legend of node kinds and arrow kinds. */
export function graphLegend() {
  const item = (cls, text) => el('li', {}, el('span', { class: `swatch ${cls}`, 'aria-hidden': 'true' }), text);
  return el(
    'ul',
    { class: 'legend', 'aria-label': 'Legend' },
    item('node-concept', 'concept'),
    item('node-evidence', 'evidence'),
    item('node-scope', 'scope'),
    item('edge-requires', 'requires →'),
    item('edge-references', 'references →'),
    item('edge-related', 'related →'),
  );
}
