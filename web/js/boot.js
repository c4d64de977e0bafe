// Starts compiling the engine's first module as soon as the page has fetched this file: an
// async module with no imports runs at once, while the page's own modules are still arriving
// and before they are evaluated (dlcost.js's load() would start the compile only then).
// dlcost.js instantiates the compiled module when it finds it here; without this file (Node,
// the tests' imports) it loads the module as before. Where streaming compilation is refused
// (a server that does not send application/wasm), the bytes are compiled as a whole, as the
// Emscripten loader itself falls back.
// @ts-check

const url = new URL('dlcost_wasm.wasm', import.meta.url);
/** @type {any} */ (globalThis).dlcostWasmModule = WebAssembly.compileStreaming(fetch(url)).catch(() =>
  fetch(url)
    .then((r) => r.arrayBuffer())
    .then((bytes) => WebAssembly.compile(bytes)),
);
