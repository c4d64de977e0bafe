// web/js/types.d.ts describes what the engine returns: real outputs of the wasm module (through
// the page's wrapper, dist/js/dlcost.js) are written as typed constants and checked by tsc with
// --strict, so a field the engine adds, drops or renames fails here until the types follow
// (object literals may carry no property the type lacks, and must carry every required one).

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, test } from 'node:test';
import { ROOT } from './native_cli.mjs';
import { LLAMA_CPP, LLAMA_CPP_CPU, VLLM } from './serving_workloads.mjs';

const TSC = join(ROOT, 'node_modules', '.bin', 'tsc');
const TYPES = join(ROOT, 'web', 'js', 'types.d.ts');

let api;

before(async () => {
  const dist = join(ROOT, 'dist', 'js', 'dlcost.js');
  readFileSync(dist); // built by scripts/build-web
  const module = await import(dist);
  await module.ready();
  await module.loadExtra(); // compare, explain and sweepThroughput are in the second module
  api = module.default;
});

/** A PyTorch memory snapshot (tests/measured/make_snapshots.py) for the MeasuredTimeline case. */
const SNAPSHOT = new Uint8Array(readFileSync(join(ROOT, 'tests', 'fixtures', 'memory-snapshots', 'train_step.pickle')));

/** Each case: a type of types.d.ts and the engine's value for it. Chosen so that every optional
 *  part appears at least once: memory_fit, transformer, gpu_fit with advice, sweep saturation,
 *  serving with a paged cache (vLLM) and with host memory (llama.cpp, as tests/js/serving). */
function cases() {
  const cnnOnMemory = { model: { preset: 'resnet50' }, workload: { batch: 32, memory_bytes: 25769803776 } };
  const cnnOverT4 = { model: { preset: 'resnet50' }, workload: { batch: 512, gpu: 't4' } };
  const llmInfer = { model: { preset: 'llama-2-7b' }, workload: { mode: 'infer', gpu: 'h100-sxm' } };
  const llmQlora = { model: { preset: 'llama-2-7b' }, workload: { finetune: 'qlora', gpu: 'h100-sxm' } };
  const overT4 = api.estimate(cnnOverT4);
  // The advice case must have advice, or the Advice type goes unchecked.
  assert.ok(overT4.gpu_fit.advice.length > 0, 'resnet50 at batch 512 on a T4 gets advice');
  return [
    ['Report', api.estimate(cnnOnMemory)],
    ['Report', overT4],
    ['Report', api.estimate(llmInfer)],
    ['Report', api.estimate(llmQlora)],
    ['Report', api.estimate({ model: { preset: 'llama-3.1-8b' }, workload: VLLM })],
    ['Report', api.estimate({ model: { preset: 'llama-3.1-8b' }, workload: LLAMA_CPP })],
    ['Report', api.estimate({ model: { preset: 'llama-3.1-8b' }, workload: LLAMA_CPP_CPU })],
    ['ReportWithSweep', api.estimateWithSweep(cnnOverT4)],
    ['Sweep', api.sweepThroughput(cnnOverT4, [1, 8, 64])],
    ['Comparison', api.compare(llmInfer)],
    ['Explain', api.explain(cnnOnMemory)],
    ['WorkloadSchema', api.workloadSchema()],
    ['NumberUnits', api.numberUnits()],
    ['Gpu[]', api.gpus()],
    ['PresetEntry[]', api.presets()],
    ['Timeline', api.timeline(cnnOnMemory)],
    ['MeasuredTimeline', api.measuredTimeline(cnnOnMemory, SNAPSHOT, SNAPSHOT.length)],
  ];
}

test('types.d.ts describes the engine outputs exactly (tsc --strict)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'dlcost-types-'));
  try {
    const lines = [`import type * as T from ${JSON.stringify(TYPES.replace(/\.d\.ts$/, ''))};`];
    cases().forEach(([type, value], i) => {
      const name = type.endsWith('[]') ? `T.${type.slice(0, -2)}[]` : `T.${type}`;
      lines.push(`export const v${i}: ${name} = ${JSON.stringify(value)};`);
    });
    const file = join(dir, 'outputs.ts');
    writeFileSync(file, lines.join('\n'));
    const args = ['--noEmit', '--strict', '--target', 'es2020', '--module', 'esnext', '--types', '', file];
    const r = spawnSync(TSC, args, { encoding: 'utf8', timeout: 120000 });
    if (r.error) throw r.error;
    assert.equal(r.status, 0, r.stdout + r.stderr);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** The keys of `export interface NAME { ... }` in types.d.ts (its own members, not nested). */
function interfaceKeys(text, name) {
  const start = text.indexOf(`export interface ${name} {`);
  assert.ok(start >= 0, `types.d.ts declares ${name}`);
  const body = text.slice(start, text.indexOf('\n}\n', start));
  return [...body.matchAll(/^ {2}(\w+)\??:/gm)].map((m) => m[1]);
}

// A workload field lives in two places: its struct field with one schema row in core, and its
// line in types.d.ts. This keeps the second in step with the first: the Workload interface
// lists exactly the schema's fields, except a field the engine writes back under another key.
test('types.d.ts Workload has exactly the workload schema fields', () => {
  const writtenBackAs = { memory_gib: 'memory_bytes' };
  const schema = api
    .workloadSchema()
    .fields.map((f) => f.key)
    .filter((k) => !(k in writtenBackAs));
  const typed = interfaceKeys(readFileSync(TYPES, 'utf8'), 'Workload');
  assert.deepEqual([...typed].sort(), [...schema].sort());
});
