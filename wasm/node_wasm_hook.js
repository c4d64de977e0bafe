// --pre-js, inside the factory: hands the module's options to node_wasm_binary.js.
if (typeof dlcostNodeWasm == 'function') dlcostNodeWasm(Module);
