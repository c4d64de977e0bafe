// The page's own design (issue 13, item 6), kept by a scan of web/js/:
// - one store: only state.js writes the state; the others call its update(), and there is no
//   "silent" update that skips the render (each action is one update and one render);
// - no module-level mutable state besides the few listed below, each with why it is not UI
//   state (the UI state lives in the store);
// - one formatting module: only units.js turns numbers into text (toPrecision, toFixed,
//   toLocaleString, Intl), except the drawing and labels listed below.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const WEB_JS = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'web', 'js');
const files = readdirSync(WEB_JS).filter((f) => f.endsWith('.js'));
const read = (f) => readFileSync(join(WEB_JS, f), 'utf8');

/** The code of a line without comments and quoted strings (template literals are kept: their
 *  ${...} parts are code). */
function codeOf(line) {
  return line
    .replace(/'(?:[^'\\]|\\.)*'/g, "''")
    .replace(/\/\/.*$/, '')
    .replace(/\/\*.*?\*\//g, '');
}

/** [file, line number, code] of every code line of web/js (JSDoc lines left out). */
function* codeLines() {
  for (const f of files) {
    const lines = read(f).split('\n');
    for (let i = 0; i < lines.length; i += 1) {
      if (/^\s*(\*|\/\*\*)/.test(lines[i])) continue;
      yield [f, i + 1, codeOf(lines[i])];
    }
  }
}

test('no module writes the state but the store (state.js)', () => {
  // An assignment to a member of the state: getState().x =, s.workload[k] =, state.sort.dir++.
  const write = /\b(?:getState\(\)|state|s)((?:\.\w+|\[[^\]]+\])+)\s*(?:[-+*/]?=(?!=)|\+\+|--)/;
  const found = [];
  for (const [f, n, code] of codeLines()) {
    if (f !== 'state.js' && write.test(code)) found.push(`${f}:${n}: ${code.trim()}`);
  }
  assert.deepEqual(found, [], 'write through update(patch) instead');
});

test('no silent update: every update is rendered', () => {
  const found = [];
  for (const [f, n, code] of codeLines()) if (/\bsilent\b/.test(code)) found.push(`${f}:${n}: ${code.trim()}`);
  assert.deepEqual(found, []);
});

/** Module-level `let`s that are not UI state, by file, and why. */
const MODULE_LETS = {
  'state.js': ['notifying', 'again'], // the store's own bookkeeping: one render pass at a time
  'dlcost.js': ['enginePromise', 'engine', 'extraPromise', 'extra'], // the loaded WebAssembly modules (first, second)
  'i18n.js': ['lang'], // the dictionary t() reads: set by the render from state.lang (the widget has no store)
  'llm_fields.js': ['fields'], // the engine's workload schema, stored once when the engine loads
  'tasks.js': ['table'], // the engine's task table, stored once when the engine loads
  'units.js': ['tables'], // the engine's unit tables (numberUnits), stored once when the engine loads
  // Engine results and their DOM, derived from the state: explain()'s explanations by id, the
  // panel element, the marked dominant layers.
  'explain.js': ['byIdMap', 'panel', 'dominantNames'],
  // The comparisons' scheduler: the engine calls run a moment after the report (timer), on the
  // last estimated document and report (last), counted for the tests (generation); the preset
  // list and loader it was given once.
  'insights.js': ['presets', 'loadPreset', 'timer', 'generation', 'last'],
  // The layer picked in the layer graph, the per-layer table or the timeline: a view's place
  // within one report, like the timeline slider's position (kept in the DOM); not in the store,
  // whose every update re-estimates (main.js's render calls the engine), and cleared on a new model.
  'selection.js': ['current'],
};

test('module-level mutable state is only the listed engine data and caches', () => {
  const found = {};
  for (const f of files) {
    const names = [...read(f).matchAll(/^(?:let|var)\s+(\w+)/gm)].map((m) => m[1]);
    if (names.length) found[f] = names;
  }
  assert.deepEqual(found, MODULE_LETS, 'UI state goes into the store (state.js); list engine caches here with why');
});

/** Number-to-text calls outside units.js that are drawing or a chart's own label, and why. */
const FORMAT_ALLOWED = [
  ['charts.js', '${x.toFixed(1)},${y.toFixed(1)}', "SVG path coordinates (linePath: every chart's lines)"],
  ['compare.js', 'Number(v.toPrecision(12))', 'rounding an axis tick (float steps)'],
  ['compare.js', 'xv(r).toFixed(2)', "the CNN chart's axis in GMACs and top-1 %, as the sources publish them"],
  ['compare.js', 'yv(r).toFixed(2)', "the CNN chart's axis in GMACs and top-1 %, as the sources publish them"],
  ['results.js', '.toFixed(1)}%', 'a bar width in CSS'],
  ['model_file.js', 'bits_per_weight.toFixed(4)', 'a file-format ratio, not an engine figure'],
];

test('units.js is the only module that formats numbers', () => {
  const used = new Set();
  const found = [];
  for (const [f, n, code] of codeLines()) {
    if (f === 'units.js' || !/\.(?:toPrecision|toFixed|toLocaleString)\(|\bIntl\./.test(code)) continue;
    const ok = FORMAT_ALLOWED.find(([file, fragment]) => file === f && code.includes(fragment));
    if (ok) used.add(ok);
    else found.push(`${f}:${n}: ${code.trim()}`);
  }
  assert.deepEqual(found, [], 'format in units.js');
  assert.deepEqual(
    FORMAT_ALLOWED.filter((a) => !used.has(a)),
    [],
    'allowed lines that no longer exist',
  );
});

test('every page module is type-checked', () => {
  const unchecked = files.filter((f) => !read(f).includes('// @ts-check'));
  assert.deepEqual(unchecked, [], 'add // @ts-check (scripts/test runs tsc -p web/jsconfig.json)');
});

test('the store: an update merges into new parts, keeps the others, and renders once', async () => {
  const { getState, subscribe, update } = await import('../../web/js/state.js');
  const before = { ...getState() };
  const calls = [];
  const stop = subscribe((s) => calls.push({ ...s }));
  try {
    update({ workload: { batch: '7' } });
    assert.equal(calls.length, 1, 'one update, one render');
    const after = getState();
    assert.notEqual(
      after.workload,
      before.workload,
      'a changed part is a new object (the render compares by identity)',
    );
    assert.equal(after.workload.batch, '7');
    assert.equal(after.workload.mode, before.workload.mode, 'merged one level');
    assert.equal(after.gpu, before.gpu, 'an unchanged part keeps its identity');

    // The model is replaced whole; `replace` replaces nested parts instead of merging them.
    update({ model: { preset: null, doc: { name: 'm' } } });
    assert.deepEqual(getState().model, { preset: null, doc: { name: 'm' } });
    update({ workload: { mode: 'infer' } }, { replace: true });
    assert.deepEqual(getState().workload, { mode: 'infer' });

    // An update made by a subscriber is drawn by one more pass, after the current one.
    calls.length = 0;
    let depth = 0;
    const order = [];
    const stop2 = subscribe((s) => {
      depth += 1;
      order.push([s.sort.key, depth]);
      if (s.sort.key === 'a') update({ sort: { key: 'b' } });
      depth -= 1;
    });
    update({ sort: { key: 'a', dir: 1 } });
    stop2();
    assert.deepEqual(order, [
      ['a', 1],
      ['b', 1],
    ]);
    assert.equal(calls.length, 2);
  } finally {
    stop();
    update(before, { replace: true });
  }
});
