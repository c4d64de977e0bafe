// Where the layer graph's nodes go (layer_graph.js draws them). A layer-graph report's rows
// carry `inputs` (the rows each reads, 0 = the model input): a node's rank is its longest path
// from the input, ranks are drawn top to bottom, and a rank's nodes side by side. A transformer's
// rows carry none: they become a block diagram, runs of identical decoder blocks folded into
// one block drawn once with its count ("× 32").
// @ts-check

/** @typedef {import('./types').LayerReport} LayerReport */
/** A drawn node: the report row it shows (for a folded block, its first block's row), its
 *  rank and slot, its box's top left, and the block run it belongs to (-1: none). */
/** @typedef {{row: number, rank: number, slot: number, x: number, y: number, group: number}} GraphNode */
/** A folded run of identical blocks: its first and last node and how many blocks it stands for. */
/** @typedef {{first: number, last: number, repeat: number, label: string}} BlockGroup */
/** @typedef {{nodes: GraphNode[], ranks: number[][], edges: [number, number][],
 *   groups: BlockGroup[], nodeOfRow: Int32Array, width: number, height: number}} GraphLayout */

export const NODE_W = 184;
export const NODE_H = 42;
export const GAP_X = 28;
export const ROW_H = 66;
export const PAD = 20;

/** The longest path from the input to each row; rows read only earlier rows (the engine's
 *  rule), so one pass in order does. @param {LayerReport[]} layers @returns {number[]} */
function ranksOf(layers) {
  const rank = new Array(layers.length).fill(0);
  layers.forEach((l, i) => {
    for (const k of l.inputs ?? []) if (k < i) rank[i] = Math.max(rank[i], rank[k] + 1);
  });
  return rank;
}

/** Places nodes of the given ranks: each rank's nodes centred on the widest rank.
 *  @param {number[]} rowOf node -> report row @param {number[]} rankOf node -> rank
 *  @param {number[]} groupOf node -> block group @returns {Omit<GraphLayout, 'edges' | 'groups'>} */
function place(rowOf, rankOf, groupOf, rowCount) {
  /** @type {number[][]} */
  const ranks = [];
  rankOf.forEach((r, n) => (ranks[r] ??= []).push(n));
  const widest = Math.max(1, ...ranks.map((r) => r.length));
  const width = 2 * PAD + widest * NODE_W + (widest - 1) * GAP_X;
  const nodeOfRow = new Int32Array(rowCount).fill(-1);
  /** @type {GraphNode[]} */
  const nodes = rowOf.map((row, n) => ({ row, rank: rankOf[n], slot: 0, x: 0, y: 0, group: groupOf[n] }));
  ranks.forEach((members, r) => {
    const span = members.length * NODE_W + (members.length - 1) * GAP_X;
    members.forEach((n, slot) => {
      Object.assign(nodes[n], { slot, x: (width - span) / 2 + slot * (NODE_W + GAP_X), y: PAD + r * ROW_H });
    });
  });
  rowOf.forEach((row, n) => (nodeOfRow[row] = n));
  return { nodes, ranks, nodeOfRow, width, height: 2 * PAD + ranks.length * ROW_H - (ROW_H - NODE_H) };
}

/** The graph of a layer-graph report: one node per row (node i is row i), an edge per input.
 *  @param {LayerReport[]} layers @returns {GraphLayout} */
export function graphLayout(layers) {
  const rank = ranksOf(layers);
  const rows = layers.map((_, i) => i);
  const laid = place(
    rows,
    rank,
    rows.map(() => -1),
    layers.length,
  );
  /** @type {[number, number][]} */
  const edges = [];
  layers.forEach((l, i) => (l.inputs ?? []).forEach((k) => edges.push([k, i])));
  return { ...laid, edges, groups: [] };
}

const BLOCK_ROW = /^(.*?layers\.)(\d+)\.(.+)$/;

/** A block's rows with what makes two blocks the same (the part, type and figures).
 *  @param {LayerReport[]} layers @returns {{key: string, prefix: string, rows: number[], sig: string}[]} */
function blocksOf(layers) {
  /** @type {{key: string, prefix: string, rows: number[], sig: string}[]} */
  const items = [];
  layers.forEach((l, i) => {
    const m = BLOCK_ROW.exec(l.name);
    const key = m ? `${m[1]}${m[2]}` : `row ${i}`;
    const part = m ? `${m[3]}|${l.type}|${l.params}|${l.macs}|${l.activation_bytes}` : '';
    const last = items[items.length - 1];
    if (m && last?.key === key) {
      last.rows.push(i);
      last.sig += `;${part}`;
    } else items.push({ key, prefix: m ? m[1] : '', rows: [i], sig: m ? part : `single ${i}` });
  });
  return items;
}

/** A transformer's block diagram: single rows in order, runs of identical blocks folded into
 *  their first block (its rows are the nodes) with the run's count.
 *  @param {LayerReport[]} layers @returns {GraphLayout} */
export function blockLayout(layers) {
  /** @type {number[]} */ const rowOf = [];
  /** @type {number[]} */ const groupOf = [];
  /** @type {BlockGroup[]} */ const groups = [];
  /** @type {Map<number, number>} */ const folded = new Map(); // a later block's row -> node
  const items = blocksOf(layers);
  for (let i = 0; i < items.length;) {
    let j = i + 1;
    while (j < items.length && items[j].prefix && items[j].prefix === items[i].prefix && items[j].sig === items[i].sig)
      j += 1;
    const block = items[i];
    const g = block.prefix ? groups.length : -1;
    const first = rowOf.length;
    block.rows.forEach((row) => (rowOf.push(row), groupOf.push(g)));
    if (g >= 0) {
      const label = `${block.key}${j - i > 1 ? `–${/\d+$/.exec(items[j - 1].key)?.[0]}` : ''}`;
      groups.push({ first, last: rowOf.length - 1, repeat: j - i, label });
    }
    for (let k = i + 1; k < j; k += 1) items[k].rows.forEach((row, p) => folded.set(row, first + p));
    i = j;
  }
  const laid = place(
    rowOf,
    rowOf.map((_, n) => n),
    groupOf,
    layers.length,
  );
  folded.forEach((node, row) => (laid.nodeOfRow[row] = node));
  /** @type {[number, number][]} */
  const edges = rowOf.slice(1).map((_, n) => [n, n + 1]); // node to node, in order
  return { ...laid, edges, groups };
}

/** The layout a report's rows call for. @param {LayerReport[]} layers @returns {GraphLayout} */
export function layoutOf(layers) {
  return layers.some((l) => Array.isArray(l.inputs)) ? graphLayout(layers) : blockLayout(layers);
}

/** The `count` nodes that keep the most bytes (saved for backward in training), heaviest first.
 *  @param {GraphLayout} g @param {LayerReport[]} layers @param {number} count @returns {number[]} */
export function heaviestNodes(g, layers, count) {
  return g.nodes
    .map((n, i) => i)
    .filter((i) => layers[g.nodes[i].row].activation_bytes > 0)
    .sort((a, b) => layers[g.nodes[b].row].activation_bytes - layers[g.nodes[a].row].activation_bytes || a - b)
    .slice(0, count);
}
