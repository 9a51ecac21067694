// Local assembly: the engine itself, compiled to WebAssembly (crates/okf-wasm), run in this
// page over the verified index bytes the server serves read-only. The module returns the
// engine's exact package bytes, so a local package is byte-identical to POST /api/ask for the
// same bundle version, question, budget and binding (the binding is the one the server
// records, sent with the index as response headers). JavaScript only moves bytes.

import { ApiError } from './api.js';
import { callModule as call, instantiateModule } from './wasm.js';

const decoder = new TextDecoder('utf-8', { fatal: true });
const encoder = new TextEncoder();

let modulePromise = null;
let loadedKey = null; // `${bundle}/${version}` of the index inside the module

async function instantiate() {
  const exports = await instantiateModule();
  if (!exports) throw new ApiError({ status: 0, code: 'wasm_unavailable', message: 'The WebAssembly engine could not be loaded.' });
  return exports;
}

/** The module's exports, instantiated once per page. */
function engine() {
  modulePromise ??= instantiate().catch((e) => {
    modulePromise = null;
    throw e;
  });
  return modulePromise;
}

function moduleError(bytes) {
  let error = null;
  try {
    error = JSON.parse(decoder.decode(bytes))?.error;
  } catch {
    error = null;
  }
  return new ApiError({
    status: 0,
    code: typeof error?.code === 'string' ? error.code : 'engine_error',
    message: typeof error?.message === 'string' ? error.message : 'The WebAssembly engine refused the request.',
    field: typeof error?.field === 'string' ? error.field : undefined,
  });
}

async function fetchIndex(bundle, version, signal) {
  const path = `/api/bundles/${encodeURIComponent(bundle)}/versions/${encodeURIComponent(version)}/index`;
  let response;
  try {
    response = await fetch(path, { signal, credentials: 'same-origin', cache: 'no-store', redirect: 'error' });
  } catch (e) {
    if (e?.name === 'AbortError') throw e;
    throw new ApiError({ status: 0, code: 'network', message: 'The server could not be reached. Is okf serve still running?' });
  }
  const bytes = new Uint8Array(await response.arrayBuffer());
  if (!response.ok) {
    let error = null;
    try {
      error = JSON.parse(decoder.decode(bytes))?.error;
    } catch {
      error = null;
    }
    throw new ApiError({
      status: response.status,
      code: typeof error?.code === 'string' ? error.code : `http_${response.status}`,
      message: typeof error?.message === 'string' ? error.message : `The server answered ${response.status}.`,
      field: typeof error?.field === 'string' ? error.field : undefined,
    });
  }
  const binding = { index_url: response.headers.get('okf-binding-url'), index_sha256: response.headers.get('okf-binding-sha256') };
  if (!binding.index_url || !binding.index_sha256) {
    throw new ApiError({ status: response.status, code: 'bad_response', message: 'The index came without the binding the server records.' });
  }
  return { bytes, binding };
}

const bindings = new Map(); // `${bundle}/${version}` -> binding of the loaded index

/** Loads the bundle version's served index into the module unless it is loaded; its binding. */
async function ensureLoaded(exports, bundle, version, signal) {
  const key = `${bundle}/${version}`;
  if (loadedKey !== key) {
    const { bytes, binding } = await fetchIndex(bundle, version, signal);
    signal?.throwIfAborted();
    const loaded = call(exports, 'okf_load_index', bytes);
    if (loaded.status !== 0) throw moduleError(loaded.bytes);
    loadedKey = key;
    bindings.set(key, binding);
  }
  signal?.throwIfAborted();
  return bindings.get(key);
}

/**
 * Assembles `body` ({bundle, question, budget?, as_of?}) in this page for the bundle's `version`,
 * with the richer profile when the server's listing says the version uses it.
 * Resolves to `{bytes, text, value, where: 'browser', binding, version}` like api.ask.
 */
export async function assembleLocally(body, version, signal, { regimeProfile = false } = {}) {
  const exports = await engine();
  const binding = await ensureLoaded(exports, body.bundle, version, signal);
  const request = { question: body.question, binding };
  if (body.budget) request.budget = body.budget;
  if (body.as_of !== undefined) request.as_of = body.as_of;
  if (regimeProfile) request.regime_profile = true;
  const out = call(exports, 'okf_ask', encoder.encode(JSON.stringify(request)));
  if (out.status !== 0) throw moduleError(out.bytes);
  const text = decoder.decode(out.bytes);
  return { bytes: out.bytes, text, value: JSON.parse(text), where: 'browser', binding, version };
}

/**
 * A requirement's closure for a reviewer: each item as the bundle version's served index holds
 * it, with its `item_sha256` computed by the engine in this page (`okf_review_closure`, the
 * digest `okf review digest` prints and `okf build` checks a decision against). Restricted
 * records come without content or digest. Resolves to `{requirement, items, binding}`; nothing
 * is sent to the server but the read-only index request.
 */
export async function reviewClosure(bundle, version, requirement, signal) {
  const exports = await engine();
  const binding = await ensureLoaded(exports, bundle, version, signal);
  const out = call(exports, 'okf_review_closure', encoder.encode(JSON.stringify({ requirement })));
  if (out.status !== 0) throw moduleError(out.bytes);
  return { ...JSON.parse(decoder.decode(out.bytes)), binding };
}

/** Whether this browser can run WebAssembly at all (the module itself loads on first use). */
export function localAvailable() {
  return typeof WebAssembly === 'object' && typeof WebAssembly.instantiate === 'function';
}
