// Adds a <link rel="modulepreload"> for every chunk a page's entry module imports statically
// (esbuild's metafile names them; their names carry a content hash), so the browser fetches
// them with the entry instead of after parsing it: one round trip less before the first result.
//
//   node scripts/modulepreload.mjs META.json dist/index.html:js/main.js dist/embed.html:js/embed.js

import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, relative } from 'node:path';

const [metaFile, ...pages] = process.argv.slice(2);
const { outputs } = JSON.parse(readFileSync(metaFile, 'utf8'));

/** The outputs `entry` imports statically, directly or through another chunk, in order. */
function staticImports(entry, seen = new Set()) {
  for (const { path, kind } of outputs[entry]?.imports ?? []) {
    if (kind !== 'import-statement' || seen.has(path) || !outputs[path]) continue;
    seen.add(path);
    staticImports(path, seen);
  }
  return [...seen];
}

for (const spec of pages) {
  const [html, entry] = spec.split(':');
  const root = dirname(html);
  const key = Object.keys(outputs).find((out) => relative(root, out) === entry);
  if (!key) throw new Error(`modulepreload: ${entry} is not in ${metaFile}`);
  const links = staticImports(key).map((out) => `  <link rel="modulepreload" href="${relative(root, out)}">\n`);
  const text = readFileSync(html, 'utf8');
  const at = text.indexOf(`  <script type="module" src="${entry}"></script>\n`);
  if (at < 0) throw new Error(`modulepreload: ${html} does not load ${entry}`);
  writeFileSync(html, text.slice(0, at) + links.join('') + text.slice(at));
}
