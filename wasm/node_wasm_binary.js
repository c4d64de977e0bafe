// Put before the module's glue, outside its factory (--extern-pre-js: not minified, so it may
// use import.meta and import()). The glue is built for the web only, and Node 20's fetch()
// cannot read a file: URL, so under Node a caller that passes neither `wasmBinary` nor
// `instantiateWasm` gets the .wasm beside this module (same name, .wasm for .mjs) read from
// disk. Does nothing in a browser.
const dlcostNodeWasm = typeof process === 'object' && process.versions && process.versions.node
  ? (Module) => {
    if (Module.wasmBinary || Module.instantiateWasm) return;
    Module.instantiateWasm = (imports, receive) => {
      import('node:fs/promises')
        .then((fs) => fs.readFile(new URL(import.meta.url.replace(/\.mjs$/, '.wasm'))))
        .then((bytes) => WebAssembly.instantiate(bytes, imports))
        .then((result) => receive(result.instance, result.module));
      return {};
    };
  }
  : null;
