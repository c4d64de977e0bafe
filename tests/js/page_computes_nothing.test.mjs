// The page computes nothing: every byte, FLOP, MAC, time or batch figure it shows comes from an
// engine call (issue 13). This scans web/js/ for arithmetic on such figures: an operator next
// to a name that holds one (bytes, total, per_sample, max_batch, ...). units.js, the one
// formatting module, is exempt; so are the lines listed below, each with why it is drawing or
// form plumbing rather than a formula.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const WEB_JS = join(ROOT, 'web', 'js');

/** Names that hold an engine figure in the report, sweep, comparison or form state. */
const FIGURES = [
  'bytes', 'total', 'per_sample', 'fixed', 'flops', 'macs', 'macs_forward', 'memory_bytes',
  'usable_bytes', 'headroom_bytes', 'per_gpu_bytes', 'memory_total', 'capacity', 'cap', 'params',
  'samples_per_s', 'step_time_s', 'max_batch', 'price_usd', 'tdp_watts', 'memory_gib',
  'samples_per_s_per_1000usd', 'samples_per_s_per_watt', 'tokens_per_s', 'share',
].join('|');
const OP = '[-+*/%](?![-+=/*])';
const ARITHMETIC = new RegExp(
  `(?:\\b(?:${FIGURES})\\b\\s*${OP}\\s*[\\w(.])|(?:[\\w).\\]]\\s*(?<![-+/*])${OP}\\s*(?:\\w+\\.)*(?:${FIGURES})\\b)`);

/** Lines that may do arithmetic on a figure, by file and a fragment of the line, and why. */
const ALLOWED = [
  // Charts: placing values on an axis (pixels, log scales, axis headroom) is drawing.
  ['compare.js', 'r.macs_forward / 1e9', 'the CNN chart\'s x axis in GMACs'],
  ['compare.js', 'b.params - a.params', 'drawing order: largest bubble first'],
  ['compare.js', 'r.step_time_s * 1000', 'the GPU chart\'s y axis in milliseconds'],
];

/** The code of a line without comments and string contents. */
function codeOf(line) {
  return line.replace(/\/\/.*$/, '').replace(/\/\*.*?\*\//g, '').replace(/'(?:[^'\\]|\\.)*'|`(?:[^`\\]|\\.)*`/g, "''");
}

const allowedUsed = new Set();

export function findArithmetic(file, text) {
  const hits = [];
  text.split('\n').forEach((line, i) => {
    if (/^\s*(\*|\/\*\*?)/.test(line)) return;  // doc comments
    if (!ARITHMETIC.test(codeOf(line))) return;
    const allowed = ALLOWED.find(([f, fragment]) => f === file && line.includes(fragment));
    if (allowed) allowedUsed.add(allowed);
    if (allowed) return;
    hits.push(`web/js/${file}:${i + 1}: ${line.trim()}`);
  });
  return hits;
}

test('web/js/ does no arithmetic on byte, FLOP or batch figures', () => {
  const hits = [];
  for (const file of readdirSync(WEB_JS).filter((f) => f.endsWith('.js') && f !== 'units.js')) {
    hits.push(...findArithmetic(file, readFileSync(join(WEB_JS, file), 'utf8')));
  }
  assert.deepEqual(hits, [], `ask the engine for these figures instead:\n${hits.join('\n')}`);
  // The exemptions stay current: each still matches a line.
  assert.deepEqual(ALLOWED.filter((a) => !allowedUsed.has(a)), []);
});

test('the scan finds the formulas it is meant to catch', () => {
  // What the page used to compute itself (issue 13): headroom, fit, a sweep point, 2 x MACs.
  for (const line of [
    'const headroom = cap - total;',
    'const fits = report.memory.total <= cap ? 1 : cap / total;',
    'const total = sweep.fixed + mb * sweep.per_sample;',
    'const flops = 2 * report.macs.forward;',
    'const pct = (100 * seg.bytes) / total;',
  ]) {
    assert.notDeepEqual(findArithmetic('x.js', line), [], line);
  }
  for (const line of ['const x = px(p.batch) + 6;', "el.textContent = `${a} - ${b}`;", '// total / 2']) {
    assert.deepEqual(findArithmetic('x.js', line), [], line);
  }
});
