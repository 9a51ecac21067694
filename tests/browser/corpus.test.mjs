// 9. A served corpus on the Ask page: listed in the bundle menu from GET
//    /api/bundles, asked on the server with the same bytes as POST /api/ask (the package has
//    a retrieval section), refused for in-browser assembly with a clear message, and named in
//    the page tool's bundle enum.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { DWP_INDEX, askThroughForm, launch, okfBin, openPage, sha256Hex, startServer, tempDir } from './harness.mjs';

const QUESTION = 'A claimant is imprisoned. What happens to JSA?';
let dir;
let server;
let browser;

before(async () => {
  dir = tempDir('corpus');
  execFileSync(okfBin, ['corpus', 'build', DWP_INDEX, '--out', path.join(dir, 'dwp')], { stdio: ['ignore', 'ignore', 'pipe'] });
  const sha = sha256Hex(readFileSync(path.join(dir, 'dwp', 'manifest.json')));
  writeFileSync(
    path.join(dir, 'registry.toml'),
    `[[corpus]]\nid = "dwp-corpus"\nmanifest = "dwp/manifest.json"\nsha256 = "${sha}"\nindex_url = "https://example.test/dwp/manifest.json"\n`,
  );
  server = await startServer(['--registry', path.join(dir, 'registry.toml')]);
  browser = await launch({ polyfill: true });
});

after(async () => {
  await browser?.close();
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

test('a served corpus is listed, asked on the server with the /api/ask bytes, and refused in the browser', async () => {
  const { page } = browser;
  await openPage(page, server.base);
  assert.match(await page.textContent('#bundle option[value="dwp-corpus"]'), /corpus \(assembled on the server\)/);
  const api = await server.ask({ bundle: 'dwp-corpus', question: QUESTION });
  assert.equal(api.status, 200);
  assert.equal(api.json.retrieval.method, 'source-bound-discovery-bm25.v1');
  await askThroughForm(page, 'dwp-corpus', QUESTION);
  assert.equal(await page.textContent('#context-id'), api.json.context_id);
  // In this browser: refused with the reason, no wrong package shown.
  await page.check('#where-browser');
  await page.click('#submit');
  await page.waitForSelector('#error:not([hidden])');
  assert.match(await page.textContent('#error'), /is a corpus, which is assembled on the server only/);
  // The page tool's bundle enum names the corpus.
  const tools = await page.evaluate(async () => (await document.modelContext.getTools()).map((t) => ({ name: t.name, inputSchema: t.inputSchema })));
  const build = tools.find((t) => t.name === 'okf_build_context');
  const schema = typeof build.inputSchema === 'string' ? JSON.parse(build.inputSchema) : build.inputSchema;
  assert.deepEqual(schema.properties.bundle.enum, ['dwp-corpus']);
  assert.deepEqual(browser.problems, []);
});
