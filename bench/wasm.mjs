// Times the page's WebAssembly module (web/okf.wasm) in Node's V8, the engine Chromium uses:
// instantiate, load the DWP index once, then N assemblies of the imprisonment question with
// the binding the server records. Prints JSON (milliseconds). Usage:
//   node bench/wasm.mjs [N]
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const shared = (p) => path.resolve(root, '..', 'shared', p);
const n = Number(process.argv[2] ?? 50);
const ms = (t0) => Number(process.hrtime.bigint() - t0) / 1e6;

let t0 = process.hrtime.bigint();
const { instance } = await WebAssembly.instantiate(readFileSync(path.join(root, 'web', 'okf.wasm')), {});
const instantiateMs = ms(t0);
const x = instance.exports;
const call = (fn, bytes) => {
  const ptr = x.okf_input(bytes.length);
  new Uint8Array(x.memory.buffer, ptr, bytes.length).set(bytes);
  const status = x[fn]();
  return { status, out: new Uint8Array(x.memory.buffer, x.okf_output_ptr(), x.okf_output_len()).slice() };
};
const index = readFileSync(shared('dwp/full-dmg/context/assembly-index.json'));
// The first load also pays for V8 compiling the code it runs; the second is the steady cost.
const loads = [];
for (let i = 0; i < 3; i += 1) {
  t0 = process.hrtime.bigint();
  const loaded = call('okf_load_index', index);
  loads.push(ms(t0));
  if (loaded.status !== 0) throw new Error(new TextDecoder().decode(loaded.out));
}
const question = JSON.parse(readFileSync(shared('dwp/evaluation/context-assembly/imprisonment-case.json'), 'utf8')).question;
const binding = {
  index_url: 'https://raw.githubusercontent.com/chris-page-gov/okf-dwp/efb05c66616a9cd4328a86cf412780fe7bc7cf0b/full-dmg/context/assembly-index.json',
  index_sha256: '38159445a60d4bcabc23cb2cf728e14cbd0a4b55013276c291356e7a1452ff54',
};
const request = new TextEncoder().encode(JSON.stringify({ question, binding }));
const times = [];
let bytes = 0;
for (let i = 0; i < n; i += 1) {
  t0 = process.hrtime.bigint();
  const r = call('okf_ask', request);
  times.push(ms(t0));
  if (r.status !== 0) throw new Error(new TextDecoder().decode(r.out));
  bytes = r.out.length;
}
times.sort((a, b) => a - b);
const round = (v) => Math.round(v * 100) / 100;
console.log(JSON.stringify({
  instantiate_ms: round(instantiateMs),
  load_index_first_ms: round(loads[0]),
  load_index_again_ms: round(Math.min(loads[1], loads[2])),
  n,
  ask_min_ms: round(times[0]),
  ask_median_ms: round(times[Math.floor(n / 2)]),
  ask_p95_ms: round(times[Math.floor(n * 0.95)]),
  package_bytes: bytes,
}));
