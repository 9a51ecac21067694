// 6. Local assembly: the page runs the engine compiled to WebAssembly over the
//    server's verified index bytes. For the DWP imprisonment and hospital questions and the
//    example bundle's questions, the package assembled in the browser is byte-identical to
//    POST /api/ask, to `okf ask` and to MCP ask_okf's structuredContent, and its evidence
//    brief (the page's "Copy for an AI") is byte-identical to the MCP text block, `okf ask
//    --brief` and POST /api/ask with Accept: text/markdown; the page says where it was
//    assembled, sends no POST /api/ask, and the strict CSP (only 'wasm-unsafe-eval' added)
//    reports no violation.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { after, before, test } from 'node:test';
import {
  hospitalQuestion,
  DWP_INDEX,
  DWP_SHA,
  DWP_URL,
  askThroughForm,
  dwpRegistry,
  imprisonmentQuestion,
  launch,
  okfBin,
  openPage,
  repoRoot,
  screenshot,
  shared,
  startServer,
  tempDir,
  waitForPackage,
} from './harness.mjs';

let dir;
let dwp;
let example;
let browser;

before(async () => {
  dir = tempDir('local');
  dwp = await startServer(['--registry', dwpRegistry(dir)]);
  example = await startServer();
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await dwp?.stop();
  await example?.stop();
  rmSync(dir, { recursive: true, force: true });
});

function exampleQuestions() {
  return JSON.parse(readFileSync(`${repoRoot}/crates/okf/example/questions.json`, 'utf8')).map((q) => q.question);
}

function cliPackage(args) {
  return execFileSync(okfBin, ['ask', ...args], { encoding: 'utf8', maxBuffer: 1 << 24 }).replace(/\n$/, '');
}

async function mcpAsk(server, args) {
  const response = await fetch(`${server.base}/mcp`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'MCP-Protocol-Version': '2025-11-25' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'ask_okf', arguments: args } }),
  });
  assert.equal(response.status, 200);
  const { result } = await response.json();
  return { text: result.content[0].text, structured: JSON.stringify(result.structuredContent) };
}

/** POST /api/ask with Accept: text/markdown: the package's evidence brief. */
async function apiBrief(server, body) {
  const response = await fetch(`${server.base}/api/ask`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'text/markdown' },
    body: JSON.stringify(body),
  });
  assert.equal(response.status, 200);
  assert.equal(response.headers.get('content-type'), 'text/markdown; charset=utf-8');
  return response.text();
}

/** What the page's "Copy for an AI" button puts on the clipboard (captured, not read back). */
async function copiedBrief(page) {
  await page.evaluate(() => {
    window.copiedText = undefined;
    Object.defineProperty(navigator, 'clipboard', {
      configurable: true,
      value: { writeText: (text) => { window.copiedText = text; return Promise.resolve(); } },
    });
  });
  await page.click('#copy-brief');
  await page.waitForFunction(() => window.copiedText !== undefined);
  assert.equal(await page.textContent('#brief-copied'), 'Copied.');
  return page.evaluate(() => window.copiedText);
}

/** Asks through the form with "In this browser" chosen; returns the downloaded bytes. */
async function localPackage(page, server, bundle, question) {
  const posts = [];
  const listener = (request) => {
    if (request.method() === 'POST') posts.push(new URL(request.url()).pathname);
  };
  page.on('request', listener);
  await page.check('#where-browser');
  await askThroughForm(page, bundle, question);
  page.off('request', listener);
  assert.deepEqual(posts, [], 'nothing was posted: the package was assembled in the page');
  assert.equal(await page.getAttribute('#assembled-by', 'data-where'), 'browser');
  assert.match(await page.textContent('#assembled-by'), /Assembled in this browser/);
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#download')]);
  return readFileSync(await download.path());
}

async function assertSameEverywhere(page, server, bundle, question, cliArgs) {
  const local = await localPackage(page, server, bundle, question);
  const api = await server.ask({ bundle, question });
  assert.equal(api.status, 200);
  assert.ok(local.equals(Buffer.from(api.text, 'utf8')), `${bundle}: the page-assembled package is byte-identical to POST /api/ask`);
  assert.equal(await page.textContent('#context-id'), api.json.context_id);
  assert.equal(cliPackage([...cliArgs, question]), api.text, `${bundle}: okf ask prints the same bytes`);
  const mcp = await mcpAsk(server, { bundle, question });
  // What a model reads is the package's evidence brief: the MCP text block, POST /api/ask with
  // Accept: text/markdown, `okf ask --brief` and the page's "Copy for an AI" (the WebAssembly
  // module) give the same bytes.
  const brief = await apiBrief(server, { bundle, question });
  assert.ok(brief.startsWith('# Ask OKF evidence brief\n'), brief.slice(0, 80));
  assert.equal(mcp.text, brief, `${bundle}: MCP text block`);
  assert.equal(execFileSync(okfBin, ['ask', '--brief', ...cliArgs, question], { encoding: 'utf8', maxBuffer: 1 << 24 }), brief, `${bundle}: okf ask --brief`);
  assert.equal(await copiedBrief(page), brief, `${bundle}: the page's Copy for an AI`);
  assert.equal(mcp.structured, api.text, `${bundle}: MCP structuredContent (key order and escaping are canonical)`);
  return api.json;
}

test('DWP imprisonment and hospital packages assembled in the page equal /api/ask, okf ask and MCP', async () => {
  const { page } = browser;
  await openPage(page, dwp.base);
  const cli = ['--index', DWP_INDEX, '--binding-url', DWP_URL, '--binding-sha256', DWP_SHA];
  const prison = await assertSameEverywhere(page, dwp, 'okf-dwp', imprisonmentQuestion(), cli);
  assert.equal(prison.evidence_status, 'sufficient');
  assert.equal(prison.binding.index_sha256, DWP_SHA, 'bound to the file bytes as the server binds them');
  await page.evaluate(() => document.getElementById('status').scrollIntoView({ block: 'start' }));
  await screenshot(page, 'local-assembly');
  const hospital = await assertSameEverywhere(page, dwp, 'okf-dwp', hospitalQuestion(), cli);
  assert.equal(hospital.evidence_status, 'insufficient');

  // The permalink keeps the choice and assembles locally again in a fresh page.
  const permalink = await page.getAttribute('#permalink', 'href');
  assert.match(permalink, /[#&]where=browser(&|$)/);
  const again = await browser.context.newPage();
  await again.goto(permalink);
  await waitForPackage(again);
  assert.equal(await again.getAttribute('#assembled-by', 'data-where'), 'browser');
  assert.equal(await again.textContent('#context-id'), hospital.context_id);
  await again.close();
  assert.deepEqual(browser.problems, [], 'no console errors: the CSP allows compiling the module');
});

test('example bundle packages assembled in the page equal /api/ask, okf ask and MCP', async () => {
  const { page } = browser;
  await openPage(page, example.base);
  const statuses = [];
  for (const question of exampleQuestions()) {
    statuses.push((await assertSameEverywhere(page, example, 'example', question, [])).evidence_status);
  }
  assert.deepEqual([...new Set(statuses)].sort(), ['conflicting', 'insufficient', 'sufficient']);
  // The server path still works and says so.
  await page.check('#where-server');
  await askThroughForm(page, 'example', 'Explain room booking');
  assert.equal(await page.getAttribute('#assembled-by', 'data-where'), 'server');
  assert.deepEqual(browser.problems, []);
});

test('a budget reaches the module unchanged; an unknown bundle is refused locally too', async () => {
  const { page } = browser;
  await openPage(page, example.base);
  await page.check('#where-browser');
  await page.click('#budget-box summary');
  await page.fill('#question', 'How do I borrow books?');
  await page.fill('#max_bytes', '8192');
  await page.fill('#max_nodes', '1');
  const api = await example.ask({ bundle: 'example', question: 'How do I borrow books?', budget: { max_bytes: 8192, max_nodes: 1 } });
  await page.click('#submit');
  await waitForPackage(page);
  assert.equal(await page.textContent('#context-id'), api.json.context_id, 'budgets reach the module unchanged');
  await page.goto(`${example.base}/#bundle=nope&q=books&where=browser`);
  await page.waitForSelector('#error:not([hidden])');
  assert.equal(await page.getAttribute('#error', 'data-code'), 'unknown_bundle');
  assert.ok(await page.isHidden('#results'));
  assert.deepEqual(browser.problems, []);
});
