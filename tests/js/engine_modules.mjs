// The whole engine for Node tests: both WebAssembly modules (wasm/CMakeLists.txt) instantiated
// and their bindings on one object, so a test calls any binding without knowing which module
// has it. The page loads them separately (web/js/dlcost.js: ready() and loadExtra()).
//
//   const { default: createDlcostModule } = await import(WASM_MODULE);  // native_cli.mjs
//   const engine = await createDlcostModule();
// DLCOST_WASM_DIR picks another folder holding dlcost_wasm.mjs and dlcost_extra.mjs.

import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from './native_cli.mjs';

const DIR = process.env.DLCOST_WASM_DIR || join(ROOT, 'build-wasm', 'wasm');
export const MODULES = ['dlcost_wasm', 'dlcost_extra'].map((name) => join(DIR, `${name}.mjs`));

export default async function createDlcostModule(options = {}) {
  const modules = await Promise.all(
    MODULES.map(async (path) => (await import(pathToFileURL(path).href)).default({ ...options })),
  );
  // The first module's own members win (memory views and the like); the bindings of the two
  // are disjoint.
  return Object.assign({}, ...modules.slice().reverse());
}
