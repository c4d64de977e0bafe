// The native CLI as the reference: the wasm module and the page must print what
// `build/dlcost estimate FILE --json` prints for the same document.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
export const CLI = process.env.DLCOST_CLI || join(ROOT, 'build', 'dlcost');
// Both engine modules behind one factory (engine_modules.mjs); DLCOST_WASM names another one.
export const WASM_MODULE = process.env.DLCOST_WASM || join(ROOT, 'tests', 'js', 'engine_modules.mjs');

/** Runs the CLI; returns {status, json} where json is its parsed stdout. */
export function runCli(args) {
  const r = spawnSync(CLI, args, { encoding: 'utf8', timeout: 30000 });
  if (r.error) throw r.error;
  return { status: r.status, json: r.stdout.trim() ? JSON.parse(r.stdout) : null, stderr: r.stderr };
}

/** `dlcost COMMAND FILE --json` for a document given as an object or as text. */
export function cliOnDocument(command, document) {
  const dir = mkdtempSync(join(tmpdir(), 'dlcost-doc-'));
  try {
    const file = join(dir, 'doc.json');
    writeFileSync(file, typeof document === 'string' ? document : JSON.stringify(document));
    return runCli([command, file, '--json']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `dlcost estimate FILE --json` for a document given as an object or as text. */
export const cliEstimate = (document) => cliOnDocument('estimate', document);

export function cliPresets() {
  return runCli(['presets', '--json']).json;
}
