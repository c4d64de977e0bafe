// Compares the speed of two or more builds of the WebAssembly module on the same inputs,
// interleaved (each input in every module in turn, best of --rounds rounds of --ms CPU
// milliseconds), so that the load of a shared machine hits them alike. The inputs are the
// native benchmark's (bench/bench_estimate.cpp): every preset in train and infer at batch 32,
// one `estimate()` call each (document text in, report text out). Times are CPU time of this
// process (process.cpuUsage), after --warmup-ms of calls over every input: V8 compiles its
// optimised tier in background threads, whose CPU time would otherwise land on the first inputs.
// Every module must return the same text for every input (checked; exit 1 otherwise).
//
// Prints per-input µs, each module's median and worst ratio to the first module and, given
// --native (the JSON of `build/bench/dlcost_bench --benchmark_filter=^estimate/
// --benchmark_format=json`), each module's median and worst ratio to native CPU time.
//   node bench/wasm_compare.mjs [--native native.json] [--rounds 5] [--ms 20] A.mjs B.mjs ...
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const args = process.argv.slice(2);
const options = { '--native': '', '--rounds': '5', '--ms': '20', '--warmup-ms': '4000', '--batch': '32' };
const paths = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] in options) options[args[i]] = args[++i];
  else paths.push(args[i]);
}
const rounds = Number(options['--rounds']);
const cpuMs = Number(options['--ms']);

const engines = [];
for (const p of paths) {
  const { default: f } = await import(pathToFileURL(resolve(p)).href);
  engines.push(await f({ wasmBinary: readFileSync(p.replace(/\.mjs$/, '.wasm')) }));
}

/** CPU microseconds of this process (user + system). */
const cpuNow = () => {
  const { user, system } = process.cpuUsage();
  return user + system;
};

const inputs = [];
for (const name of JSON.parse(engines[0].presets()).map((p) => p.name)) {
  for (const mode of ['train', 'infer']) {
    const doc = JSON.stringify({ model: { preset: name }, workload: { mode, batch: Number(options['--batch']) } });
    inputs.push({ name, mode, doc });
  }
}

let mismatches = 0;
for (const { name, mode, doc } of inputs) {
  const first = engines[0].estimate(doc);
  engines.forEach((e, i) => {
    if (e.estimate(doc) !== first) {
      mismatches += 1;
      console.error(`${name} ${mode}: ${paths[i]} returns a different report from ${paths[0]}`);
    }
  });
}

const warmupEnd = performance.now() + Number(options['--warmup-ms']);
while (performance.now() < warmupEnd) for (const e of engines) for (const { doc } of inputs) e.estimate(doc);

const native = new Map();
if (options['--native']) {
  for (const b of JSON.parse(readFileSync(options['--native'], 'utf8')).benchmarks) {
    if (b.run_type === 'aggregate') continue;
    const us = b.cpu_time * { ns: 1e-3, us: 1, ms: 1e3, s: 1e6 }[b.time_unit];
    native.set(b.name, Math.min(native.get(b.name) ?? Infinity, us));
  }
}

const ratios = paths.map(() => []);
const nativeRatios = paths.map(() => []);
console.log(['input', 'mode', ...(native.size ? ['native'] : []), ...paths.map((_, i) => `module ${i + 1}`)].join('\t'));
for (const { name, mode, doc } of inputs) {
  const best = engines.map(() => Infinity);
  for (let round = 0; round < rounds; round++) {
    engines.forEach((e, i) => {
      for (let k = 0; k < 3; k++) e.estimate(doc);
      const t0 = cpuNow();
      let n = 0;
      let spent = 0;
      while (spent < cpuMs * 1000) {
        e.estimate(doc);
        n += 1;
        spent = cpuNow() - t0;
      }
      best[i] = Math.min(best[i], spent / n);
    });
  }
  const n = native.get(`estimate/${name}/${mode}`);
  console.log([name, mode, ...(native.size ? [n ? n.toFixed(1) : '-'] : []), ...best.map((b) => b.toFixed(1))].join('\t'));
  best.forEach((b, i) => {
    ratios[i].push(b / best[0]);
    if (n) nativeRatios[i].push(b / n);
  });
}
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
paths.forEach((p, i) => {
  let line = `${p}: median ratio to first ${median(ratios[i]).toFixed(3)}, worst ${Math.max(...ratios[i]).toFixed(3)}`;
  if (nativeRatios[i].length) {
    line += `; wasm/native median ${median(nativeRatios[i]).toFixed(2)}, worst ${Math.max(...nativeRatios[i]).toFixed(2)}`;
  }
  console.log(line);
});
if (mismatches) {
  console.error(`${mismatches} reports differ between modules`);
  process.exit(1);
}
