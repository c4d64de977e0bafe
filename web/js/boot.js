// Starts compiling the engine's first module as soon as the page has fetched this file: an
// async module with no imports runs at once, while the page's own modules are still arriving
// and before they are evaluated (dlcost.js's load() would start the compile only then).
// dlcost.js imports this module (the same instance: one module per URL in a document) and
// instantiates what it compiled; outside a page (Node, the tests' imports) it loads the
// engine as before. Nothing is left on the global object. Where streaming compilation is refused
// (a server that does not send application/wasm), the bytes are compiled as a whole, as the
// Emscripten loader itself falls back.
// @ts-check

const url = new URL('dlcost_wasm.wasm', import.meta.url);

/** The engine's first module, compiled. @type {Promise<WebAssembly.Module>} */
export const engineModule = WebAssembly.compileStreaming(fetch(url)).catch(() =>
  fetch(url)
    .then((r) => r.arrayBuffer())
    .then((bytes) => WebAssembly.compile(bytes)),
);
