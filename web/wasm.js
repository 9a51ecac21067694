// The WebAssembly module's calling convention (crates/okf-wasm), shared by the Ask page's
// local assembly (local.js) and the evidence workbench (workbench.js): bytes in through
// `okf_input`, a status back from the export, the reply in `okf_output_*`. JavaScript only
// moves bytes; the module parses and verifies them.

// Beside this module, so it is the module of the same asset version.
const MODULE_URL = new URL('./okf.wasm', import.meta.url);

/** A fresh instance's exports, or `null` when the server does not serve the module. */
export async function instantiateModule() {
  const response = await fetch(MODULE_URL, { credentials: 'same-origin', redirect: 'error' });
  if (!response.ok) return null;
  const { instance } = await WebAssembly.instantiate(await response.arrayBuffer(), {});
  return instance.exports;
}

/** Writes `input` (bytes) into the module, calls `fn(...args)`, returns `{status, bytes}`. */
export function callModule(exports, fn, input, ...args) {
  const ptr = exports.okf_input(input.length);
  new Uint8Array(exports.memory.buffer, ptr, input.length).set(input);
  const status = exports[fn](...args);
  const out = new Uint8Array(exports.memory.buffer, exports.okf_output_ptr(), exports.okf_output_len());
  return { status, bytes: out.slice() };
}
