// Bytes a browser transfers to load `/` and `/evidence/` of a running `okf serve`, on a first
// visit and on a repeat visit (same browser profile, so its HTTP cache is warm). Debian's
// Chromium through tests/browser's playwright-core. Prints JSON. Usage:
//   node bench/page-weight.mjs http://127.0.0.1:PORT
import { createRequire } from 'node:module';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(path.join(root, 'tests', 'browser', 'package.json'));
const { chromium } = require('playwright-core');
const base = process.argv[2];
if (!base) throw new Error('usage: node bench/page-weight.mjs http://127.0.0.1:PORT');

const profile = mkdtempSync(path.join(tmpdir(), 'okf-weight-'));
const context = await chromium.launchPersistentContext(profile, { executablePath: process.env.OKF_CHROMIUM ?? '/usr/bin/chromium', headless: true });
const page = context.pages()[0] ?? (await context.newPage());
const cdp = await context.newCDPSession(page);
await cdp.send('Network.enable');
let bytes = 0;
let requests = 0;
cdp.on('Network.loadingFinished', (e) => {
  bytes += e.encodedDataLength;
  requests += 1;
});

/** Loads `route`, waits for `ready`, then fetches the engine module as the page does. */
async function visit(route, ready) {
  bytes = 0;
  requests = 0;
  await page.goto(`${base}${route}`, { waitUntil: 'networkidle' });
  await page.waitForFunction(ready);
  await page.waitForLoadState('networkidle');
  const page_only = { requests, transferred_bytes: bytes };
  // The module sits beside the page's scripts (what wasm.js fetches for local assembly and
  // the workbench).
  await page.evaluate(async () => {
    const src = document.querySelector('script[type=module]').src;
    await (await fetch(new URL('okf.wasm', src), { credentials: 'same-origin' })).arrayBuffer();
  });
  await page.waitForLoadState('networkidle');
  return { page: page_only, with_module: { requests, transferred_bytes: bytes } };
}

// The Ask page is ready when it has listed the bundles; the workbench when its module is loaded.
const askReady = () => document.getElementById('bundle-note')?.textContent?.includes('served bundles');
const workbenchReady = () => document.readyState === 'complete';
const result = {
  '/': { first: await visit('/', askReady), repeat: await visit('/', askReady) },
  '/evidence/': { first: await visit('/evidence/', workbenchReady), repeat: await visit('/evidence/', workbenchReady) },
};
console.log(JSON.stringify(result, null, 1));
await context.close();
rmSync(profile, { recursive: true, force: true });
