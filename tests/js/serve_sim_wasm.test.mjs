// The engine under load through the WebAssembly module (the page's "Under load" section): the
// same document as `dlcost serve-sim ... --json` with the same load flags gives the same JSON,
// capacity search included. The CLI is the reference (tests/test_load_sim.cpp checks it).

import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { runCli, WASM_MODULE } from './native_cli.mjs';

let engine;
before(async () => {
  const { default: createDlcostModule } = await import(WASM_MODULE);
  engine = await createDlcostModule();
});

const WORKLOAD = { mode: 'infer', dtype: 'bf16', gpu: 'h100-sxm', engine: 'vllm' };

test("serveSim equals the CLI's serve-sim --json for one document", () => {
  const doc = {
    model: { preset: 'llama-3-8b' },
    workload: WORKLOAD,
    load: { rate: 10, requests: 400, prompt: 512, output: { uniform: [128, 384] }, seed: 7, slo_ttft_ms: 500 },
  };
  const cli = runCli([
    'serve-sim',
    '--preset',
    'llama-3-8b',
    '--mode',
    'infer',
    '--dtype',
    'bf16',
    '--gpu',
    'h100-sxm',
    '--engine',
    'vllm',
    '--rate',
    '10',
    '--requests',
    '400',
    '--prompt',
    '512',
    '--output',
    'uniform:128-384',
    '--seed',
    '7',
    '--slo-ttft-ms',
    '500',
    '--json',
  ]);
  assert.equal(cli.status, 0, cli.stderr);
  const wasm = JSON.parse(engine.serveSim(JSON.stringify(doc)));
  assert.ok(wasm.capacity && wasm.capacity.max_rate > 0, 'an objective and a rate: the capacity search ran');
  assert.deepEqual(wasm, cli.json);
});

test('a bad rate is an error at /load/rate', () => {
  const doc = { model: { preset: 'llama-3-8b' }, workload: WORKLOAD, load: { rate: -1, output: 128 } };
  const out = JSON.parse(engine.serveSim(JSON.stringify(doc)));
  assert.equal(out.error.path, '/load/rate');
});
