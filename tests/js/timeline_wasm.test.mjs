// The memory timeline through the wasm module equals the native CLI's (`dlcost timeline
// --json`) for a layer graph, a transformer with recomputation and an inference run. No figure
// is written here: tests/test_timeline.cpp checks the peak against the report on every preset.

import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { cliOnDocument, WASM_MODULE } from './native_cli.mjs';

let engine;
before(async () => {
  const { default: createDlcostModule } = await import(WASM_MODULE);
  engine = await createDlcostModule();
});

const DOCS = [
  { model: { preset: 'resnet50' }, workload: { batch: 16 } },
  { model: { preset: 'gpt2' }, workload: { batch: 2, seq_len: 512, recompute: 'full' } },
  { model: { preset: 'llama-3.2-1b' }, workload: { mode: 'infer', prompt_tokens: 1024 } },
];

for (const doc of DOCS) {
  test(`${doc.model.preset} (${doc.workload.mode ?? 'train'}): wasm timeline equals the CLI's`, () => {
    const started = engine.startingDocument(JSON.stringify(doc));
    const wasm = JSON.parse(engine.timeline(started));
    assert.deepEqual(wasm, cliOnDocument('timeline', doc).json);
    assert.equal(wasm.peak.total, wasm.memory_total);
  });
}

test('a bad document is an error object naming the field', () => {
  const out = JSON.parse(engine.timeline(JSON.stringify({ model: { preset: 'resnet50' }, workload: { batch: 0 } })));
  assert.equal(out.error.path, '/workload/batch');
});
