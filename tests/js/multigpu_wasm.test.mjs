// The multi-GPU step, the run's cost and the layout advice through the wasm module equal the
// native CLI's (`dlcost estimate --json`, `dlcost layouts --json`, `dlcost links --json`), and
// the page's Run section draws only what they return. No figure is written here: the Catch2
// suite (tests/test_multigpu.cpp) checks the figures against their sources.

import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { cliEstimate, cliOnDocument, runCli, WASM_MODULE } from './native_cli.mjs';

let engine;
before(async () => {
  const { default: createDlcostModule } = await import(WASM_MODULE);
  engine = await createDlcostModule();
});

const DOC = {
  model: { preset: 'llama-2-7b' },
  workload: {
    batch: 32,
    dtype: 'bf16',
    gpu: 'h100-sxm',
    gpus: 16,
    tp: 2,
    pp: 2,
    zero: 1,
    tokens: 1e12,
    price_per_gpu_hour: 2.5,
  },
};

test('the step breakdown and the run come back from wasm as from the CLI', () => {
  const wasm = JSON.parse(engine.estimate(JSON.stringify(DOC)));
  const cli = cliEstimate(DOC).json;
  for (const key of ['step_time', 'run', 'network']) assert.deepEqual(wasm.gpu_fit[key], cli.gpu_fit[key], key);
  // The parts a chart stacks: keys in order, offsets where the previous part ends.
  const parts = wasm.gpu_fit.step_time.parts;
  assert.deepEqual(
    parts.map((p) => p.key),
    ['compute', 'tp_comm', 'pp_comm', 'ep_comm', 'cp_comm', 'dp_comm', 'bubble', 'optimizer'],
  );
});

test("layouts and links equal the CLI's", () => {
  const wasm = JSON.parse(engine.layouts(engine.startingDocument(JSON.stringify(DOC))));
  assert.deepEqual(wasm, cliOnDocument('layouts', DOC).json);
  assert.deepEqual(JSON.parse(engine.links()), runCli(['links', '--json']).json);
});

test('a zero price comes back as an error naming the field', () => {
  const bad = { ...DOC, workload: { ...DOC.workload, price_per_gpu_hour: 0 } };
  const out = JSON.parse(engine.estimate(JSON.stringify(bad)));
  assert.equal(out.error.path, '/workload/price_per_gpu_hour');
});
