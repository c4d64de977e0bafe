// Compares the speed of two or more builds of the WebAssembly module on the same inputs,
// interleaved (each preset in every module in turn, best of 5 rounds of 20 ms), so that the load
// of a shared machine hits them alike. Prints per-preset µs and each module's median and worst
// ratio to the first. Used for the wasm flag choices in docs/benchmarks.md.
//   node bench/wasm_compare.mjs A/dlcost_wasm.mjs B/dlcost_wasm.mjs ...
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const paths = process.argv.slice(2);
const engines = [];
for (const p of paths) {
  const { default: f } = await import(pathToFileURL(resolve(p)).href);
  engines.push(await f({ wasmBinary: readFileSync(p.replace(/\.mjs$/, '.wasm')) }));
}
const presets = JSON.parse(engines[0].presets()).map((p) => p.name);
const ratios = paths.map(() => []);
const rows = [];
for (const name of presets) for (const mode of ['train', 'infer']) {
  const doc = JSON.stringify({ model: { preset: name }, workload: { mode } });
  const best = engines.map(() => Infinity);
  for (let round = 0; round < 5; round++) engines.forEach((e, i) => {
    for (let k = 0; k < 3; k++) e.estimate(doc);
    const t0 = performance.now(); let n = 0;
    while (performance.now() - t0 < 20) { e.estimate(doc); n++; }
    best[i] = Math.min(best[i], (performance.now() - t0) * 1000 / n);
  });
  rows.push([name, mode, ...best.map((b) => b.toFixed(1))]);
  best.forEach((b, i) => ratios[i].push(b / best[0]));
}
const med = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };
for (const r of rows) console.log(r.join('\t'));
paths.forEach((p, i) => console.log(p, 'median ratio to first', med(ratios[i]).toFixed(3), 'max', Math.max(...ratios[i]).toFixed(3)));
