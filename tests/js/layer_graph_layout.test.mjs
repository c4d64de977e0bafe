// The layer graph's layout (web/js/layer_graph_layout.js) on hand-made report rows: ranks are
// the longest path from the input, a residual add lands below both its inputs, and a
// transformer's identical blocks fold into one drawn block with its count.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { blockLayout, graphLayout, heaviestNodes, layoutOf } from '../../web/js/layer_graph_layout.js';

const row = (name, inputs, bytes = 0, extra = {}) => ({
  name,
  type: 'x',
  output_shape: [1],
  params: 0,
  buffers: 0,
  macs: 0,
  activation_bytes: bytes,
  inplace: false,
  bytes_accessed: 0,
  ...(inputs ? { inputs } : {}),
  ...extra,
});

test('a residual block: the add is ranked below the longer branch, the skip beside it', () => {
  const layers = [
    row('input', []),
    row('conv1', [0], 30),
    row('relu', [1], 10),
    row('conv2', [2], 20),
    row('sum', [0, 3], 5),
  ];
  const g = graphLayout(layers);
  assert.deepEqual(
    g.nodes.map((n) => n.rank),
    [0, 1, 2, 3, 4],
  );
  assert.deepEqual(g.edges, [
    [0, 1],
    [1, 2],
    [2, 3],
    [0, 4],
    [3, 4],
  ]);
  assert.ok(g.nodes[4].y > g.nodes[3].y);
  assert.deepEqual(heaviestNodes(g, layers, 2), [1, 3]);
  assert.equal(layoutOf(layers).groups.length, 0);
});

test('two branches of one rank sit side by side', () => {
  const layers = [row('input', []), row('a', [0]), row('b', [0]), row('cat', [1, 2])];
  const g = graphLayout(layers);
  assert.equal(g.ranks[1].length, 2);
  assert.ok(g.nodes[2].x > g.nodes[1].x);
});

test('a transformer: 32 identical blocks fold into one, drawn once with × 32', () => {
  const layers = [row('embeddings')];
  for (let i = 0; i < 32; i += 1) layers.push(row(`layers.${i}.attention`, null, 7), row(`layers.${i}.mlp`, null, 9));
  layers.push(row('lm_head', null, 3));
  const g = layoutOf(layers);
  assert.equal(g.nodes.length, 4); // embeddings, attention, mlp, lm_head
  assert.deepEqual(g.groups, [{ first: 1, last: 2, repeat: 32, label: 'layers.0–31' }]);
  assert.equal(g.nodeOfRow[3 + 2 * 10], 1); // layers.10.attention is drawn as block 0's
  assert.equal(g.nodeOfRow[layers.length - 1], 3);
});

test('blocks that differ are not folded together', () => {
  const layers = [row('layers.0.mlp', null, 1), row('layers.1.mlp', null, 1), row('layers.2.moe', null, 2)];
  const g = blockLayout(layers);
  assert.deepEqual(
    g.groups.map((x) => x.repeat),
    [2, 1],
  );
});
