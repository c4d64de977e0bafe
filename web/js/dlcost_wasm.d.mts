// The Embind modules' factory (wasm/bindings_core.cpp, built by scripts/build-web into
// dist/js/dlcost_wasm.mjs; dlcost_extra.d.mts is the same for wasm/bindings.cpp): the type
// web/js/dlcost.js sees when it loads the engine. Each binding returns JSON text, or UTF-8 bytes
// of it on hot paths.

/** The engine's exported calls, by name. */
export interface EngineModule {
  [name: string]: (...args: unknown[]) => string | Uint8Array;
}

/** Loads and instantiates the module (Emscripten's MODULARIZE factory). */
export default function createModule(options?: object): Promise<EngineModule>;
