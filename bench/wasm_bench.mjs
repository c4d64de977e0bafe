// Timings of the WebAssembly module under Node, on the inputs bench/bench_estimate.cpp times
// natively (every preset in train and infer at batch 32, chains of 100 / 1,000 / 10,000
// layers), plus the sweeps a page makes: memory over batch sizes 1...4096 in one sweepBatch
// call, step time over batch (one estimate per point: the roofline is not linear in batch),
// and, for the transformer presets, memory and step time over context lengths 1...128k (one
// estimate per point: the engine has no context sweep; KV cache and attention are not
// linear in tokens either).
//
//   node bench/wasm_bench.mjs [--json] [--min-ms 200] [--module PATH]
//
// Each figure is the mean over as many calls as fit in --min-ms (after one warm-up call).

import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
};
const asJson = args.includes('--json');
const minMs = Number(opt('--min-ms', '200'));
const modulePath = opt('--module', [join(ROOT, 'build-wasm', 'wasm', 'dlcost_wasm.mjs'), join(ROOT, 'dist', 'js', 'dlcost_wasm.mjs')].find(existsSync));
if (!modulePath) {
  console.error('wasm_bench: no module; run scripts/build-web first');
  process.exit(2);
}

const { default: createDlcostModule } = await import(pathToFileURL(modulePath).href);
const engine = await createDlcostModule();

/** Mean microseconds per call of fn over at least minMs (and at least 3 calls). */
function time(fn) {
  fn();
  let calls = 0;
  const start = process.hrtime.bigint();
  let elapsed = 0;
  while (calls < 3 || elapsed < minMs * 1e6) {
    fn();
    calls += 1;
    elapsed = Number(process.hrtime.bigint() - start);
  }
  return { us: elapsed / calls / 1e3, calls };
}

function mustParse(text, what) {
  const out = JSON.parse(text);
  if (out.error) throw new Error(`${what}: ${out.error.path} ${out.error.message}`);
  return out;
}

const results = { module: modulePath, presets: [], chains: [], sweeps: [] };

const presets = JSON.parse(engine.presets());
for (const { name, family } of presets) {
  const row = { name, family };
  for (const mode of ['train', 'infer']) {
    const doc = JSON.stringify({ model: { preset: name }, workload: { mode, batch: 32 } });
    mustParse(engine.estimate(doc), name);
    row[mode] = time(() => engine.estimate(doc)).us;
  }
  results.presets.push(row);
}

// The native benchmark's chains: linear + relu pairs on a 512-wide input.
for (const n of [100, 1000, 10000]) {
  const layers = Array.from({ length: n }, (_, i) => (i % 2 === 0 ? { type: 'linear', out_features: 512 } : { type: 'relu', inplace: true }));
  const doc = JSON.stringify({ model: { input: [512], layers }, workload: { batch: 32 } });
  mustParse(engine.estimate(doc), `chain ${n}`);
  results.chains.push({ layers: n, us: time(() => engine.estimate(doc)).us });
}

// Memory over 1,024 batch sizes spread over 1...4096: one call, as the page's chart does it.
const batches = JSON.stringify(Array.from({ length: 1024 }, (_, i) => Math.round(1 + (i * 4095) / 1023)));
const powers = (limit) => Array.from({ length: Math.log2(limit) + 1 }, (_, i) => 2 ** i);
const sweepModels = ['resnet50', presets.find((p) => p.family === 'hf' && p.name === 'llama-2-7b')?.name].filter(Boolean);
for (const name of sweepModels) {
  const doc = JSON.stringify({ model: { preset: name }, workload: { mode: 'train', batch: 32, gpu: 'h100-sxm' } });
  mustParse(engine.sweepBatch(doc, batches), `${name} sweep`);
  results.sweeps.push({ name, kind: 'memory vs batch 1..4096 (1,024 points, 1 call)', us: time(() => engine.sweepBatch(doc, batches)).us });
  const docs = powers(4096).map((batch) => JSON.stringify({ model: { preset: name }, workload: { mode: 'train', batch, gpu: 'h100-sxm' } }));
  results.sweeps.push({
    name, kind: 'step time vs batch 1..4096 (13 points, 1 estimate each)',
    us: time(() => { for (const d of docs) engine.estimate(d); }).us,
  });
}

// Context lengths for every transformer preset: prompt tokens 1...128k (18 points).
for (const { name, family } of presets) {
  if (family !== 'hf') continue;
  const docs = powers(131072).map((tokens) => JSON.stringify({
    model: { preset: name }, workload: { mode: 'infer', batch: 1, prompt_tokens: tokens, gpu: 'h100-sxm' },
  }));
  const ok = docs.filter((d) => !JSON.parse(engine.estimate(d)).error);
  results.sweeps.push({
    name, kind: `memory + step time vs context 1..128k (${ok.length} points, 1 estimate each)`,
    us: time(() => { for (const d of ok) engine.estimate(d); }).us,
  });
}

if (asJson) {
  console.log(JSON.stringify(results));
} else {
  for (const p of results.presets) console.log(`${p.name.padEnd(24)} train ${p.train.toFixed(1).padStart(9)} µs  infer ${p.infer.toFixed(1).padStart(9)} µs`);
  for (const c of results.chains) console.log(`chain ${String(c.layers).padEnd(18)} ${c.us.toFixed(1).padStart(9)} µs`);
  for (const s of results.sweeps) console.log(`${s.name.padEnd(24)} ${s.kind.padEnd(60)} ${s.us.toFixed(1).padStart(10)} µs`);
}
