// The directed graph view: selected records as nodes, held relationships between them as
// arrows, laid out in columns by hop depth. Bounded to a readable size; what is left out is
// said in a note, and the table next to it lists every relationship.

import { el, svg, shorten } from './dom.js';

export const MAX_NODES = 60;
export const MAX_EDGES = 120;

const NODE_W = 232;
const NODE_H = 52;
const GAP_X = 100;
const GAP_Y = 8;
const MARGIN = 24;
const ROWS_PER_COLUMN = 16;
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

const MAX_LINES = 3;
const width = (t) => Array.from(t).length;

/**
 * Up to three lines for a box, broken between words. A label that does not fit keeps its
 * beginning and its last words (where labels such as "… — PDF page 60" differ), with an
 * ellipsis between; a single word longer than a line is the only thing ever cut.
 */
export function labelLines(label, per = LINE_CHARS) {
  const words = String(label).split(/\s+/).filter(Boolean).map((w) => (width(w) > per ? shorten(w, per) : w));
  const lines = [];
  let line = '';
  for (const w of words) {
    if (line && width(`${line} ${w}`) > per) {
      lines.push(line);
      line = w;
    } else {
      line = line ? `${line} ${w}` : w;
    }
  }
  if (line) lines.push(line);
  if (lines.length <= MAX_LINES) return lines;
  const tail = [];
  const used = lines.slice(0, MAX_LINES - 1).join(' ').split(' ').length;
  for (let j = words.length - 1; j >= used; j -= 1) {
    if (width(['…', words[j], ...tail].join(' ')) > per) break;
    tail.unshift(words[j]);
  }
  return [...lines.slice(0, MAX_LINES - 1), `… ${tail.join(' ')}`.trimEnd()];
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
  const top = NODE_H / 2 + 4 - ((lines.length - 1) * 15) / 2;
  const text = svg('text', { x: '9', y: String(top) });
  // A space ends every line but the last, so the text reads as words, not run together.
  lines.forEach((line, i) => text.append(svg('tspan', { x: '9', dy: i ? '15' : '0', text: i < lines.length - 1 ? `${line} ` : line })));
  return text;
}

/** The box's accessible name: its visible words first, then the whole label if cut. */
function accessibleName(n) {
  const shown = labelLines(n.label).filter(Boolean).join(' ');
  const whole = String(n.label).split(/\s+/).filter(Boolean).join(' ');
  return `${shown}${shown === whole ? '' : ` (in full: ${whole})`} (${n.kind}), open record`;
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

  // Column headings: hop depth, over every column (a depth may take several).
  let col = 0;
  for (const depth of depths) {
    const span = columnsFor(byDepth.get(depth).length);
    const name = depth === 0 ? 'Seeds (depth 0)' : `Depth ${depth}`;
    for (let k = 0; k < span; k += 1) {
      root.append(
        svg('text', { class: 'depth-label', x: MARGIN + (col + k) * (NODE_W + GAP_X), y: MARGIN + 6, text: k ? `${name}, continued` : name }),
      );
    }
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

  // One tab stop for the whole drawing (a roving tabindex): the arrow keys move between
  // boxes in selection order, so the records after the graph are one Tab away.
  const nodeLayer = svg('g', { class: 'nodes' });
  const boxes = [];
  const moveTo = (i) => {
    const next = boxes[Math.max(0, Math.min(boxes.length - 1, i))];
    for (const b of boxes) b.setAttribute('tabindex', b === next ? '0' : '-1');
    next.focus();
  };
  model.nodes.forEach((n, i) => {
    const p = position.get(n.id);
    const g = svg(
      'g',
      {
        class: `node node-${n.kind}`,
        transform: `translate(${p.x} ${p.y})`,
        tabindex: i === 0 ? '0' : '-1',
        role: 'button',
        'aria-label': accessibleName(n),
        'data-id': n.id,
      },
      svg('title', { text: `${n.label} (${n.kind})` }),
      svg('rect', { width: NODE_W, height: NODE_H, rx: '6', ry: '6' }),
      labelText(n.label),
    );
    g.addEventListener('click', () => onOpen(n.id));
    g.addEventListener('keydown', (event) => {
      const moves = { ArrowDown: i + 1, ArrowRight: i + 1, ArrowUp: i - 1, ArrowLeft: i - 1, Home: 0, End: boxes.length - 1 };
      if (event.key === 'Enter' || event.key === ' ') {
        event.preventDefault();
        onOpen(n.id);
      } else if (event.key in moves) {
        event.preventDefault();
        moveTo(moves[event.key]);
      }
    });
    boxes.push(g);
    nodeLayer.append(g);
  });
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
