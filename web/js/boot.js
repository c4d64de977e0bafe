// Starts compiling the engine's first module as soon as the page has fetched this file. It is
// a classic async script, not a module: an async classic script runs the moment it arrives,
// while the page's module scripts are still arriving or being evaluated; as an async module
// script it ran only after them, 50 to 110 ms later on this project's 2-core machine, and the
// compile waited with it (docs/benchmarks.md, "Session 7: the page's first result").
// dlcost.js instantiates what this compiled; outside a page (Node, the tests' imports), or
// when this script has not run yet, the engine's own loader fetches and compiles the module.
// Where streaming compilation is refused (a server that does not send application/wasm), the
// bytes are compiled as a whole, as the Emscripten loader itself falls back.
// The promise is left under one registered symbol: no name a page script could meet by chance.
// @ts-check

(() => {
  const script = /** @type {HTMLScriptElement} */ (document.currentScript);
  const url = new URL('dlcost_wasm.wasm', script.src);
  /** @type {Promise<WebAssembly.Module>} */
  const compiled = WebAssembly.compileStreaming(fetch(url)).catch(() =>
    fetch(url)
      .then((r) => r.arrayBuffer())
      .then((bytes) => WebAssembly.compile(bytes)),
  );
  compiled.catch(() => {}); // a failure is the loader's to report (dlcost.js falls back to it)
  /** @type {any} */ (globalThis)[Symbol.for('dlcost.engineModule')] = compiled;
})();
