// The serving plan through the WebAssembly module: the same "serving" object as the native CLI,
// and one servingSweep call for the inference charts. No figure is written here: the CLI
// (tests/test_serving.cpp checks it against published measurements) is the reference.

import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { cliEstimate, WASM_MODULE } from './native_cli.mjs';
import { LLAMA_CPP as LLAMA, LLAMA_CPP_CPU, VLLM } from './serving_workloads.mjs';

let engine;
before(async () => {
  const { default: createDlcostModule } = await import(WASM_MODULE);
  engine = await createDlcostModule();
});

const doc = (workload) => ({ model: { preset: 'llama-3.1-8b' }, workload });

describe('serving plans', () => {
  for (const workload of [VLLM, LLAMA, LLAMA_CPP_CPU]) {
    test(`${workload.engine} on ${workload.gpu}: wasm's serving object equals the CLI's`, () => {
      const wasm = JSON.parse(engine.estimate(JSON.stringify(doc(workload))));
      assert.ok(wasm.serving, 'the report carries a serving plan');
      assert.deepEqual(wasm.serving, cliEstimate(doc(workload)).json.serving);
    });
  }

  test('servingSweep: one point per (users, context), memory growing with users', () => {
    const out = JSON.parse(engine.servingSweep(JSON.stringify(doc(VLLM)), '[1,8,64]', '[2048,8192]'));
    assert.equal(out.schema, 'dlcost.serving_sweep/1');
    assert.equal(out.points.length, 6);
    const at8k = out.points.filter((p) => p.context === 8192);
    assert.deepEqual(
      at8k.map((p) => p.users),
      [1, 8, 64],
    );
    assert.ok(at8k[2].speed.tokens_per_s > at8k[0].speed.tokens_per_s);
  });

  test('servingSweep "auto" contexts: powers of two up to the model\'s context', () => {
    const out = JSON.parse(engine.servingSweep(JSON.stringify(doc(VLLM)), '[1]', '"auto"'));
    // Llama 3.1's max_position_embeddings is 131072: 1024, 2048, ..., 65536, 131072.
    assert.deepEqual(
      out.points.map((p) => p.context),
      [1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072],
    );
  });

  test('a CPU device: the plan is in system RAM, and a RAM size of 0 is an error at its field', () => {
    const r = JSON.parse(engine.estimate(JSON.stringify(doc(LLAMA_CPP_CPU))));
    assert.equal(r.serving.on_cpu, true);
    assert.equal(r.serving.host.total, 0);
    const bad = JSON.parse(engine.estimate(JSON.stringify(doc({ ...LLAMA_CPP_CPU, system_ram_gib: 0 }))));
    assert.equal(bad.error.path, '/workload/system_ram_gib');
  });

  test('bad input comes back as an error naming the field', () => {
    const bad = JSON.parse(engine.estimate(JSON.stringify(doc({ ...VLLM, context: 10000000 }))));
    assert.equal(bad.error.path, '/workload/context');
    const sweep = JSON.parse(engine.servingSweep(JSON.stringify(doc(VLLM)), '[1,0]', 'null'));
    assert.equal(sweep.error.path, '/users/1');
  });
});
