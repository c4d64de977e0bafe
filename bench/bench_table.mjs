// Prints scripts/bench's one table from the three runs' JSON: the native Google Benchmark
// output, bench/wasm_bench.mjs --json and bench/page_bench.mjs --json; and the size of each
// engine module in dist/js (raw and gzip -9).
//   node bench/bench_table.mjs NATIVE.json WASM.json PAGE.json

import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const [nativeFile, wasmFile, pageFile] = process.argv.slice(2);
const native = JSON.parse(readFileSync(nativeFile, 'utf8'));
const wasm = JSON.parse(readFileSync(wasmFile, 'utf8'));
const page = pageFile ? JSON.parse(readFileSync(pageFile, 'utf8')) : null;

// Google Benchmark reports real_time in the benchmark's unit (µs here).
const nativeUs = new Map(native.benchmarks.map((b) => [b.name, b.real_time]));
const f = (x) => (x === undefined ? '-' : x >= 100 ? x.toFixed(0) : x.toFixed(1));
const ratio = (w, n) => (w && n ? `${(w / n).toFixed(2)}x` : '-');

const rows = [['input', 'mode', 'native µs', 'wasm µs', 'wasm/native']];
for (const p of wasm.presets) {
  for (const mode of ['train', 'infer']) {
    const n = nativeUs.get(`estimate/${p.name}/${mode}`);
    rows.push([p.name, mode, f(n), f(p[mode]), ratio(p[mode], n)]);
  }
}
for (const c of wasm.chains) {
  const n = nativeUs.get(`estimate/chain/${c.layers}_layers`);
  rows.push([`chain of ${c.layers} layers`, 'train', f(n), f(c.us), ratio(c.us, n)]);
}
for (const s of wasm.sweeps) rows.push([s.name, s.kind, '', f(s.us), '']);
// The simulation under load: Google Benchmark's unit is ms there.
for (const b of native.benchmarks.filter((x) => x.name.startsWith('serve_sim/'))) {
  rows.push([b.name, 'serve-sim', f(b.real_time * 1000), '', '']);
}
const distJs = fileURLToPath(new URL('../dist/js', import.meta.url));
if (existsSync(distJs)) {
  for (const name of readdirSync(distJs).filter((n) => n.endsWith('.wasm')).sort()) {
    const bytes = readFileSync(join(distJs, name));
    rows.push([`module js/${name}`, 'engine module', '', `${bytes.length} B raw, ${gzipSync(bytes, { level: 9 }).length} B gzip`, '']);
  }
}
if (page) {
  for (const t of page.transfers) {
    const at = `page ${t.path.split('#')[0] || 'index.html'}`;
    const { first_result: first, idle } = t;
    rows.push([at, `until the first result: ${first.files} files`, '', `${first.raw} B raw, ${first.gzip} B gzip`, '']);
    rows.push([at, `until the network is idle: ${idle.files} files`, '', `${idle.raw} B raw, ${idle.gzip} B gzip`, '']);
    if (typeof t.layout_shift_total === 'number') rows.push([at, 'layout shift from navigation until idle (CLS)', '', t.layout_shift_total.toFixed(4), '']);
  }
  rows.push(['page', `navigation to first correct result (median of ${page.first_result_ms.length})`, '', `${page.first_result_median_ms} ms`, '']);
  for (const [stage, ms] of Object.entries(page.stage_median_ms ?? {})) rows.push(['page', `  stage "${stage}" (median ms after navigation)`, '', `${ms} ms`, '']);
  for (const r of [page.input_to_redraw, page.input_to_redraw_llm].filter(Boolean)) {
    rows.push(['page', `input change to redraw, ${r.preset} (${r.layers} rows, median of ${r.reps})`, '', `${r.median_ms.toFixed(1)} ms`, '']);
    // The frame's own work (page_bench.mjs: without the wait for the next 60 Hz frame).
    if (typeof r.drawn_median_ms === 'number') rows.push(['page', `input change until drawn, ${r.preset} (median of ${r.reps})`, '', `${r.drawn_median_ms.toFixed(1)} ms`, '']);
  }
}

const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => String(r[i]).length)));
const line = (r) => `| ${r.map((c, i) => (i >= 2 ? String(c).padStart(widths[i]) : String(c).padEnd(widths[i]))).join(' | ')} |`;
console.log(line(rows[0]));
console.log(`|${widths.map((w, i) => (i >= 2 ? `${'-'.repeat(w + 1)}:` : '-'.repeat(w + 2))).join('|')}|`);
for (const r of rows.slice(1)) console.log(line(r));
