// The second engine module (wasm/bindings.cpp, built into dist/js/dlcost_extra.mjs): the same
// factory type as dlcost_wasm.d.mts.
export * from './dlcost_wasm.mjs';
export { default } from './dlcost_wasm.mjs';
