// Prints the measurements docs/web.md quotes: share-link length for every preset (by name)
// and for a few custom models, and the embed widget's transfer size (embed.html, its css, the
// JS modules it imports and the engine module; raw and gzip -9). Run after scripts/build-web:
//   node tests/js/link_lengths.mjs

import { readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { gzipSync } from 'node:zlib';
import { ROOT, WASM_MODULE } from './native_cli.mjs';

const { default: createDlcostModule } = await import(WASM_MODULE);
const engine = await createDlcostModule();

const WORKLOAD = { mode: 'train', batch: 32, dtype: 'mixed', optimizer: 'adam', gpu: 'rtx-4090' };
const UI = { units: 'binary', lang: 'en' };
const lengthOf = (doc) => {
  const out = JSON.parse(engine.shareLinkEncode(JSON.stringify({ doc, ui: UI })));
  if (out.error) throw new Error(out.error.message);
  return out.fragment.length;
};

console.log(`Share-link fragment length (characters, with '#'), workload ${JSON.stringify(WORKLOAD)}, ui ${JSON.stringify(UI)}:\n`);
console.log('| model | fragment | model JSON (minified) |');
console.log('|---|---:|---:|');
for (const { name } of JSON.parse(engine.presets())) {
  console.log(`| preset \`${name}\` (by name) | ${lengthOf({ model: { preset: name }, workload: WORKLOAD })} | — |`);
}

// A 50-layer MLP with widths from a fixed LCG, so the row is the same on every run.
let seed = 12345;
const next = () => {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed;
};
const mlpLayers = [];
for (let i = 0; i < 25; i += 1) {
  mlpLayers.push({ name: `fc${i}`, type: 'linear', out_features: 64 + (next() % 960) });
  mlpLayers.push({ name: `act${i}`, type: 'relu' });
}
const custom = [
  ['resnet50, full custom JSON (its blocks)', JSON.parse(engine.preset('resnet50'))],
  ['alexnet, full custom JSON', JSON.parse(engine.preset('alexnet'))],
  ['random 50-layer MLP (25 linear + 25 relu)', { name: 'mlp50', input: [784], layers: mlpLayers }],
];
const expand = (model) => {
  // How many layers the model has once its blocks are expanded (the report's rows).
  const r = JSON.parse(engine.estimate(JSON.stringify({ model })));
  return r.layers ? r.layers.length : 0;
};
for (const [what, model] of custom) {
  console.log(`| ${what}, ${expand(model)} report rows | ${lengthOf({ model, workload: WORKLOAD })} | ${JSON.stringify(model).length} |`);
}

// The widget's files: embed.html, its stylesheets and the import closure of js/embed.js.
const DIST = join(ROOT, 'dist');
const files = new Set(['embed.html']);
for (const m of readFileSync(join(DIST, 'embed.html'), 'utf8').matchAll(/(?:href|src)="((?:css|js)\/[^"]+)"/g)) files.add(m[1]);
const queue = ['js/embed.js'];
while (queue.length) {
  const file = queue.pop();
  const text = readFileSync(join(DIST, file), 'utf8');
  // Source or esbuild's minified output: import "./x.js", from"./x.js", import('./x.js').
  for (const m of text.matchAll(/(?:import|from)\s*\(?\s*['"](\.\/[^'"]+)['"]/g)) {
    const dep = normalize(join(dirname(file), m[1]));
    // The engine's second module is loaded on demand, never by the widget.
    if (dep.startsWith('js/dlcost_extra.')) continue;
    if (!files.has(dep)) {
      files.add(dep);
      queue.push(dep);
    }
  }
}
let raw = 0;
let gz = 0;
for (const f of files) {
  const bytes = readFileSync(join(DIST, f));
  raw += bytes.length;
  gz += gzipSync(bytes, { level: 9 }).length;
}
const module = readFileSync(join(DIST, 'js', 'dlcost_wasm.wasm'));
console.log(`\nEmbed widget transfer: ${files.size} files, ${raw} bytes raw, ${gz} bytes gzipped (gzip -9 per file);`);
console.log(`of which the engine js/dlcost_wasm.wasm: ${module.length} raw, ${gzipSync(module, { level: 9 }).length} gzipped.`);
console.log(`Files: ${[...files].sort().join(', ')}`);
