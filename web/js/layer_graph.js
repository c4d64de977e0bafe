// "Layer graph" (issue #28 item 2): the model's layers as a graph on a canvas, each node with
// its output shape, parameters, MACs and saved bytes, the heaviest by saved bytes highlighted.
// Only the nodes and edges in view are drawn, so a densenet's 600 nodes cost what 30 do.
// Arrow keys move between nodes, Enter (or a click) picks one: the per-layer table and the
// memory timeline show the same layer (selection.js). Drawn only while the box is open.
// Renders only; every figure is the engine's report.
// @ts-check

import { h, replace } from './dom.js';
import { DICTIONARIES, t } from './i18n.js';
import { GAP_X, NODE_H, NODE_W, PAD, ROW_H, heaviestNodes, layoutOf } from './layer_graph_layout.js';
import { onSelectLayer, selectLayer, selectedLayer } from './selection.js';
import { formatBytes, formatCount, formatShape } from './units.js';

Object.assign(DICTIONARIES.en, {
  lgTitle: 'Layer graph',
  lgCanvas: 'Graph of {n} layers: arrow keys move between layers, Enter picks one',
  lgBlocks: 'Block diagram of {n} rows: arrow keys move between blocks, Enter picks one',
  lgNode: '{name} ({type}): output {shape}, {params} parameters, {macs} MACs, saves {bytes}',
  lgHeavy: 'Heaviest by saved bytes',
  lgRepeat: '× {n}',
  lgKeys: '↑/↓ follow the graph, ←/→ move along a rank, Enter picks the layer in the table and the timeline.',
});
Object.assign(DICTIONARIES.zh, {
  lgTitle: '层结构图',
  lgCanvas: '{n} 层的结构图：方向键在层之间移动，回车选中',
  lgBlocks: '{n} 行的模块图：方向键在模块之间移动，回车选中',
  lgNode: '{name}（{type}）：输出 {shape}，参数 {params}，MAC {macs}，保存 {bytes}',
  lgHeavy: '保存字节最多的层',
  lgRepeat: '× {n}',
  lgKeys: '↑/↓ 沿图移动，←/→ 在同一层级内移动，回车在表格和时间线中选中该层。',
});

/** How many nodes the highlight marks: five, or a fifth of a small graph's (a block diagram
 *  of five nodes with all five marked would mark nothing). @param {number} nodes */
const heavyCount = (nodes) => Math.min(5, Math.ceil(nodes / 5));

/** @typedef {import('./types').Report} Report */
/** @typedef {import('./layer_graph_layout').GraphLayout} GraphLayout */
/** @typedef {{report: Report, g: GraphLayout, heavy: Set<number>, focus: number, units: string,
 *   canvas: HTMLCanvasElement, scroller: HTMLElement, said: HTMLElement, drawMs: number[]}} GraphView */

/** The open view of each box. @type {WeakMap<Element, GraphView>} */
const views = new WeakMap();

/** A node's text: name, then shape and MACs (a canvas has no ellipsis: names are cut).
 *  @param {import('./types').LayerReport} l */
function nodeLines(l) {
  const name = l.name.length > 26 ? `…${l.name.slice(-25)}` : l.name;
  return [name, `${formatShape(l.output_shape)} · ${formatCount(l.macs)}`];
}

/** The edge from node a's bottom to node b's top; an edge skipping ranks bends to the right
 *  of both, so it does not run through the nodes between them.
 *  @param {CanvasRenderingContext2D} ctx @param {import('./layer_graph_layout').GraphNode} a
 *  @param {import('./layer_graph_layout').GraphNode} b */
function edgePath(ctx, a, b) {
  const x0 = a.x + NODE_W / 2;
  const y0 = a.y + NODE_H;
  const x1 = b.x + NODE_W / 2;
  const y1 = b.y;
  ctx.moveTo(x0, y0);
  if (b.rank - a.rank <= 1) ctx.lineTo(x1, y1);
  else {
    const bend = Math.max(x0, x1) + NODE_W / 2 + Math.min(GAP_X * 2, 6 * Math.log2(b.rank - a.rank));
    ctx.bezierCurveTo(bend, y0 + ROW_H, bend, y1 - ROW_H, x1, y1);
  }
}

/** Draws what is in view: nodes of the ranks the scroller shows, edges crossing its band.
 *  @param {GraphView} v @returns {number} the milliseconds it took */
function draw(v) {
  const start = performance.now();
  const { canvas, scroller, g } = v;
  const ctx = /** @type {CanvasRenderingContext2D} */ (canvas.getContext('2d'));
  const dpr = window.devicePixelRatio || 1;
  const left = scroller.scrollLeft;
  const top = scroller.scrollTop;
  const bottom = top + canvas.height / dpr;
  ctx.setTransform(dpr, 0, 0, dpr, -left * dpr, -top * dpr);
  ctx.clearRect(left, top, canvas.width / dpr, canvas.height / dpr);
  ctx.beginPath();
  for (const [from, to] of g.edges) {
    const a = g.nodes[from];
    const b = g.nodes[to];
    if (b.y >= top && a.y + NODE_H <= bottom) edgePath(ctx, a, b);
  }
  ctx.strokeStyle = '#8a94a6';
  ctx.lineWidth = 1;
  ctx.stroke();
  drawGroups(ctx, v, top, bottom);
  const first = Math.max(0, Math.floor((top - PAD) / ROW_H));
  const last = Math.min(g.ranks.length - 1, Math.ceil((bottom - PAD) / ROW_H));
  ctx.font = '12px system-ui, sans-serif';
  ctx.textBaseline = 'middle';
  const picked = g.nodeOfRow[selectedLayer()] ?? -1;
  for (let r = first; r <= last; r += 1) {
    for (const n of g.ranks[r] ?? []) drawNode(ctx, v, n, n === picked);
  }
  const ms = performance.now() - start;
  v.drawMs.push(ms);
  if (v.drawMs.length > 50) v.drawMs.shift();
  return ms;
}

/** A node's box and two lines of text; heavy nodes filled, the picked one and the focused one
 *  outlined. @param {CanvasRenderingContext2D} ctx @param {GraphView} v @param {number} n
 *  @param {boolean} picked */
function drawNode(ctx, v, n, picked) {
  const node = v.g.nodes[n];
  const heavy = v.heavy.has(n);
  ctx.fillStyle = heavy ? '#fde3c4' : '#f4f6fa';
  ctx.strokeStyle = picked ? '#1f5fbf' : heavy ? '#c8620e' : '#9aa5b8';
  ctx.lineWidth = picked ? 3 : heavy ? 2 : 1;
  ctx.beginPath();
  ctx.rect(node.x, node.y, NODE_W, NODE_H);
  ctx.fill();
  ctx.stroke();
  if (n === v.focus) {
    ctx.setLineDash([4, 3]);
    ctx.strokeStyle = '#1f2430';
    ctx.lineWidth = 1.5;
    ctx.strokeRect(node.x - 4, node.y - 4, NODE_W + 8, NODE_H + 8);
    ctx.setLineDash([]);
  }
  const [name, figures] = nodeLines(v.report.layers[node.row]);
  ctx.fillStyle = '#1f2430';
  ctx.font = 'bold 12px system-ui, sans-serif';
  ctx.fillText(name, node.x + 8, node.y + 14, NODE_W - 16);
  ctx.font = '11px system-ui, sans-serif';
  ctx.fillText(figures, node.x + 8, node.y + 30, NODE_W - 16);
}

/** The frame of each folded block run in view, with its count ("× 32").
 *  @param {CanvasRenderingContext2D} ctx @param {GraphView} v @param {number} top @param {number} bottom */
function drawGroups(ctx, v, top, bottom) {
  for (const grp of v.g.groups) {
    const a = v.g.nodes[grp.first];
    const b = v.g.nodes[grp.last];
    if (b.y + NODE_H < top || a.y > bottom) continue;
    ctx.strokeStyle = '#6b4fbb';
    ctx.lineWidth = 1.5;
    ctx.strokeRect(a.x - 10, a.y - 12, NODE_W + 20, b.y - a.y + NODE_H + 22);
    ctx.fillStyle = '#6b4fbb';
    ctx.font = 'bold 12px system-ui, sans-serif';
    const label = `${grp.label} ${grp.repeat > 1 ? t('lgRepeat', { n: grp.repeat }) : ''}`;
    ctx.fillText(label, a.x + NODE_W + 16, a.y + 4);
  }
}

/** Redraws on the next frame (scrolls come faster than frames). @param {GraphView} v */
function schedule(v) {
  if (v.canvas.dataset.pending) return;
  v.canvas.dataset.pending = '1';
  requestAnimationFrame(() => {
    delete v.canvas.dataset.pending;
    draw(v);
  });
}

/** Sizes the canvas to the scroller's box at the screen's pixel density.
 *  @param {GraphView} v @param {number} width @param {number} height */
function resize(v, width, height) {
  const dpr = window.devicePixelRatio || 1;
  v.canvas.width = Math.max(1, Math.round(width * dpr));
  v.canvas.height = Math.max(1, Math.round(height * dpr));
  v.canvas.style.width = `${width}px`;
  v.canvas.style.height = `${height}px`;
  const space = /** @type {HTMLElement} */ (v.scroller.querySelector('.lg-space'));
  space.style.marginTop = `${-height}px`;
  draw(v);
}

/** Says which node has the focus, and scrolls it into view. @param {GraphView} v @param {boolean} scroll */
function announce(v, scroll) {
  const node = v.g.nodes[v.focus];
  if (!node) return;
  const l = v.report.layers[node.row];
  v.said.textContent = t('lgNode', {
    name: l.name,
    type: l.type,
    shape: formatShape(l.output_shape),
    params: formatCount(l.params),
    macs: formatCount(l.macs),
    bytes: formatBytes(l.activation_bytes, v.units),
  });
  v.scroller.dataset.focus = String(node.row);
  if (!scroll) return;
  const { scrollTop, scrollLeft, clientHeight, clientWidth } = v.scroller;
  if (node.y < scrollTop + 8 || node.y + NODE_H > scrollTop + clientHeight - 8) {
    v.scroller.scrollTop = Math.max(0, node.y - clientHeight / 2);
  }
  if (node.x < scrollLeft || node.x + NODE_W > scrollLeft + clientWidth) {
    v.scroller.scrollLeft = Math.max(0, node.x - (clientWidth - NODE_W) / 2);
  }
}

/** Moves the focus to node `n` and redraws. @param {GraphView} v @param {number} n */
function focusNode(v, n) {
  if (n < 0 || n >= v.g.nodes.length) return;
  v.focus = n;
  announce(v, true);
  schedule(v);
}

/** Picks the focused node's row for every view. @param {GraphView} v */
function pick(v) {
  const row = v.g.nodes[v.focus]?.row;
  if (row === undefined) return;
  selectLayer(row, 'graph');
  v.scroller.dataset.selected = String(row);
  schedule(v);
}

/** The node an arrow key leads to from `n`: down the first reader, up the first input,
 *  left and right along the rank (else the previous or next node).
 *  @param {GraphView} v @param {number} n @param {string} key @returns {number} */
function neighbour(v, n, key) {
  const { nodes, ranks, edges } = v.g;
  const node = nodes[n];
  const rank = ranks[node.rank];
  if (key === 'ArrowDown') return edges.find(([a]) => a === n)?.[1] ?? n + 1;
  if (key === 'ArrowUp') return edges.find(([, b]) => b === n)?.[0] ?? n - 1;
  if (key === 'ArrowLeft') return rank[node.slot - 1] ?? n - 1;
  if (key === 'ArrowRight') return rank[node.slot + 1] ?? n + 1;
  if (key === 'Home') return 0;
  if (key === 'End') return nodes.length - 1;
  return -1;
}

/** @param {GraphView} v @param {KeyboardEvent} e */
function onKey(v, e) {
  if (e.key === 'Enter' || e.key === ' ') {
    e.preventDefault();
    pick(v);
    return;
  }
  const next = neighbour(v, v.focus, e.key);
  if (next < 0) return;
  e.preventDefault();
  focusNode(v, next);
}

/** The node under a pointer, or -1. @param {GraphView} v @param {MouseEvent} e */
function hit(v, e) {
  const box = v.canvas.getBoundingClientRect();
  const x = e.clientX - box.left + v.scroller.scrollLeft;
  const y = e.clientY - box.top + v.scroller.scrollTop;
  const rank = v.g.ranks[Math.floor((y - PAD + (ROW_H - NODE_H) / 2) / ROW_H)] ?? [];
  return (
    rank.find((n) => {
      const node = v.g.nodes[n];
      return x >= node.x && x <= node.x + NODE_W && y >= node.y && y <= node.y + NODE_H;
    }) ?? -1
  );
}

/** The list of the heaviest nodes, each a button that focuses and picks it.
 *  @param {GraphView} v @param {number[]} heavy */
function heavyList(v, heavy) {
  const items = heavy.map((n) => {
    const l = v.report.layers[v.g.nodes[n].row];
    const button = h(
      'button',
      { type: 'button', dataset: { row: String(v.g.nodes[n].row) } },
      `${l.name} · ${formatBytes(l.activation_bytes, v.units)}`,
    );
    button.addEventListener('click', () => {
      focusNode(v, n);
      pick(v);
    });
    return h('li', {}, button);
  });
  return h('div', { class: 'lg-heavy' }, h('strong', {}, t('lgHeavy')), h('ol', { id: 'lg-heavy' }, items));
}

/** Builds the section's body for `report`. @param {HTMLElement} body @param {Report} report
 *  @param {string} units @returns {GraphView} */
function build(body, report, units) {
  const g = layoutOf(report.layers);
  const blocks = g.groups.length > 0 || !report.layers.some((l) => Array.isArray(l.inputs));
  const canvas = h('canvas', { class: 'lg-canvas', 'aria-hidden': 'true' });
  const space = h('div', { class: 'lg-space' });
  // Through the CSSOM: a style attribute would need the CSP's 'unsafe-inline'.
  space.style.width = `${g.width}px`;
  space.style.height = `${g.height}px`;
  const label = t(blocks ? 'lgBlocks' : 'lgCanvas', { n: report.layers.length });
  const scroller = h(
    'div',
    {
      class: 'lg-scroll',
      id: 'lg-graph',
      tabindex: '0',
      role: 'group',
      'aria-label': label,
      'aria-describedby': 'lg-node',
      dataset: { nodes: String(g.nodes.length), kind: blocks ? 'blocks' : 'graph' },
    },
    canvas,
    space,
  );
  const said = h('p', { id: 'lg-node', class: 'lg-node', 'aria-live': 'polite' });
  /** @type {GraphView} */
  const v = { report, g, heavy: new Set(), focus: 0, units, canvas, scroller, said, drawMs: [] };
  const heavy = heaviestNodes(g, report.layers, heavyCount(g.nodes.length));
  v.heavy = new Set(heavy);
  scroller.dataset.heavy = heavy.map((n) => g.nodes[n].row).join(',');
  if (selectedLayer() >= 0) scroller.dataset.selected = String(selectedLayer());
  scroller.addEventListener('scroll', () => schedule(v));
  scroller.addEventListener('keydown', (e) => onKey(v, e));
  scroller.addEventListener('click', (e) => {
    const n = hit(v, e);
    if (n < 0) return;
    focusNode(v, n);
    pick(v);
  });
  new ResizeObserver(([entry]) => resize(v, entry.contentRect.width, entry.contentRect.height)).observe(scroller);
  replace(body, h('p', { class: 'hint' }, t('lgKeys')), scroller, said, heavyList(v, heavy));
  announce(v, false);
  return v;
}

onSelectLayer('graph', ({ index }) => {
  for (const box of document.querySelectorAll('#graph-box')) {
    const v = views.get(box);
    if (!v || !box.isConnected) continue;
    const n = v.g.nodeOfRow[index] ?? -1;
    v.scroller.dataset.selected = String(index);
    if (n >= 0) focusNode(v, n);
  }
});

/**
 * Draws the graph of `report` into `box` (a <details>) while it is open.
 * @param {HTMLDetailsElement} box @param {Report} report @param {{units: string, lang: string}} view
 */
export function renderLayerGraph(box, report, view) {
  const body = /** @type {HTMLElement} */ (box.querySelector('.lg-body'));
  const run = () => {
    if (!box.open) return;
    const old = views.get(box);
    if (old && old.report === report && old.units === view.units && box.dataset.lang === view.lang) return;
    box.dataset.lang = view.lang;
    const v = build(body, report, view.units);
    views.set(box, v);
    // The same model again (new figures, units or language): the reader stays where they were.
    if (old && old.g.nodes.length === v.g.nodes.length) {
      v.focus = old.focus;
      v.scroller.scrollTop = old.scroller.scrollTop;
      v.scroller.scrollLeft = old.scroller.scrollLeft;
    }
    announce(v, false);
  };
  box.ontoggle = run;
  run();
}

/** Draws the open graph again at once and gives the milliseconds it took (tests, benchmarks),
 *  or null while closed. @param {Element} box */
export function redrawLayerGraph(box) {
  const v = views.get(box);
  return v ? draw(v) : null;
}
