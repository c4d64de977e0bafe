// Share links made in the browser (the wasm module) and by `dlcost link` are the same text
// for the same state, and each side reads the other's: the page and scripts share one codec
// (core/include/dlcost/share_link.hpp). No figure is written here: the CLI is the reference.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { CLI, ROOT, WASM_MODULE } from './native_cli.mjs';

let engine;
const dir = mkdtempSync(join(tmpdir(), 'dlcost-link-'));
before(async () => {
  const { default: createDlcostModule } = await import(WASM_MODULE);
  engine = await createDlcostModule();
});
after(() => rmSync(dir, { recursive: true, force: true }));

/** `dlcost ARGS` -> stdout without the newline (exit status checked). */
function cliText(args) {
  const r = spawnSync(CLI, args, { encoding: 'utf8', timeout: 30000 });
  if (r.error) throw r.error;
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.trim();
}

function fileOf(name, doc) {
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify(doc));
  return file;
}

const alexnet = JSON.parse(readFileSync(join(ROOT, 'core/presets/cnn/alexnet.json'), 'utf8'));
const mlpModel = {
  name: 'mlp3', input: [784],
  layers: [{ type: 'linear', out_features: 256 }, { type: 'relu' }, { type: 'linear', out_features: 10 }],
};
const mlp = { ...mlpModel, workload: { batch: 128, dtype: 'bf16', optimizer: 'sgd' } };

// [what, CLI arguments, the state the page would encode for the same thing]
const CASES = [
  ['a preset by name with flags', ['--preset', 'resnet50', '--batch', '64', '--dtype', 'mixed', '--gpu', 'rtx-4090', '--lang', 'zh'],
    { doc: { model: { preset: 'resnet50' }, workload: { batch: 64, dtype: 'mixed', gpu: 'rtx-4090' } }, ui: { lang: 'zh' } }],
  ['a preset with decimal units', ['--preset', 'vgg16', '--units', 'decimal'],
    { doc: { model: { preset: 'vgg16' } }, ui: { units: 'decimal' } }],
  ['a full custom model (alexnet.json)', ['FILE:alexnet', '--lang', 'en', '--units', 'binary'],
    { doc: alexnet, ui: { lang: 'en', units: 'binary' } }],
  ['a bare model with its own workload', ['FILE:mlp'], { doc: mlp }],
  // 24.5, not 24: the CLI reads --memory-gib as a double, which JSON writes as 24.0.
  ['a {model, workload} document', ['FILE:wrapped', '--memory-gib', '24.5'],
    { doc: { model: mlpModel, workload: { mode: 'infer', batch: 3, memory_gib: 24.5 } } }],
];

function cliArgs(args) {
  const files = { alexnet, mlp, wrapped: { model: mlpModel, workload: { mode: 'infer', batch: 3 } } };
  return args.map((a) => (a.startsWith('FILE:') ? fileOf(`${a.slice(5)}.json`, files[a.slice(5)]) : a));
}

describe('share links: wasm and CLI', () => {
  for (const [what, args, asWritten] of CASES) {
    test(`${what}: the wasm encoding equals \`dlcost link\``, () => {
      const fragment = cliText(['link', ...cliArgs(args)]);
      assert.match(fragment, /^#d1\.[A-Za-z0-9_-]+$/);
      // The CLI starts the workload from the task it implies, as the page's first screen does.
      const state = { ...asWritten, doc: JSON.parse(engine.startingDocument(JSON.stringify(asWritten.doc))) };
      const wasm = JSON.parse(engine.shareLinkEncode(JSON.stringify(state)));
      assert.equal(wasm.fragment, fragment);
      // And each reads the other's: the decoded states are equal.
      const decoded = JSON.parse(engine.shareLinkDecode(fragment)).state;
      assert.deepEqual(decoded, JSON.parse(cliText(['link', '--decode', fragment])));
      assert.deepEqual(decoded, JSON.parse(JSON.stringify(state)));
    });
  }

  test('a tampered, truncated or foreign fragment is an error object, as in the CLI', () => {
    const good = cliText(['link', '--preset', 'alexnet']);
    const flip = (s, i) => s.slice(0, i) + (s[i] === 'A' ? 'B' : 'A') + s.slice(i + 1);
    for (const bad of [good.slice(0, -6), flip(good, 10), '#x1.abc', '#d1.', '#results', '#d1.!!']) {
      const out = JSON.parse(engine.shareLinkDecode(bad));
      assert.ok(out.error, bad);
      assert.match(out.error.message, /^share link: /);
      const r = spawnSync(CLI, ['link', '--decode', bad], { encoding: 'utf8' });
      assert.equal(r.status, 2, bad);
      assert.ok(r.stderr.includes(out.error.message), `${bad}: ${r.stderr}`);
    }
    assert.ok(JSON.parse(engine.shareLinkEncode('[1]')).error, 'a state must be an object');
  });
});
