// 5. WebMCP page tools with the @mcp-b/webmcp-polyfill injected by the test (the page never
//    loads it). Both tools are registered read-only with closed input schemas; a build returns
//    the POST /api/ask package and shows it on the page; invalid arguments are refused before
//    any request.
//
// Byte identity: the tool returns the parsed package object, so the polyfill's testing shim
// hands back JSON.stringify of it. The test compares that string with the POST /api/ask
// bytes directly (the server's canonical JSON is what JSON.stringify writes for a parsed
// package: sorted keys stay in order, integers only, same string escapes), and also compares
// the exact bytes the page kept (its download) with the API bytes.

import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { dwpRegistry, imprisonmentQuestion, launch, openPage, startServer, tempDir } from './harness.mjs';

let dir;
let server;
let browser;

before(async () => {
  dir = tempDir('webmcp');
  server = await startServer(['--registry', dwpRegistry(dir)]);
  browser = await launch({ polyfill: true });
});

after(async () => {
  await browser?.close();
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

function execute(page, name, args) {
  return page.evaluate(
    async ([n, a]) => {
      try {
        return { ok: true, result: await navigator.modelContextTesting.executeTool(n, typeof a === 'string' ? a : JSON.stringify(a)) };
      } catch (e) {
        return { ok: false, name: e?.name, message: String(e?.message ?? e) };
      }
    },
    [name, args],
  );
}

async function mcpCall(name, args) {
  const response = await fetch(`${server.base}/mcp`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'MCP-Protocol-Version': '2025-11-25' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
  });
  return (await response.json()).result;
}

test('the five page tools are registered read-only with closed input schemas', async () => {
  const { page } = browser;
  const listings = [];
  const count = (request) => {
    if (new URL(request.url()).pathname === '/api/bundles') listings.push(request.url());
  };
  page.on('request', count);
  await openPage(page, server.base);
  await page.waitForSelector('#webmcp-status[data-available="true"]');
  page.off('request', count);
  assert.equal(listings.length, 1, 'the Bundle menu and the page tools share one GET /api/bundles');
  const tools = await page.evaluate(async () =>
    (await document.modelContext.getTools()).map((t) => ({ name: t.name, annotations: t.annotations, inputSchema: t.inputSchema })),
  );
  // The polyfill lists tools sorted by name.
  assert.deepEqual(tools.map((t) => t.name), ['okf_build_context', 'okf_check_answer', 'okf_context_manifest', 'okf_explain_context', 'okf_read_evidence']);
  for (const t of tools) {
    assert.deepEqual(t.annotations, { readOnlyHint: true, untrustedContentHint: true }, t.name);
    assert.equal(t.inputSchema.type, 'object');
    assert.equal(t.inputSchema.additionalProperties, false, t.name);
  }
  const build = tools[0].inputSchema;
  assert.deepEqual(build.required, ['bundle', 'question']);
  assert.deepEqual(build.properties.bundle.enum, ['okf-dwp'], 'the served bundles, from GET /api/bundles');
  assert.match(build.properties.bundle.description, /^Id of a bundle this server serves: okf-dwp \(default version current\)/);
  assert.equal(build.properties.budget.additionalProperties, false);
  assert.deepEqual(build.properties.budget.properties.max_bytes, { type: 'integer', minimum: 8192, maximum: 524288 });
  assert.deepEqual(tools[1].inputSchema.required, ['answer']);
  assert.deepEqual(tools[3].inputSchema.required, ['context_id']);
  const listed = await page.evaluate(() => navigator.modelContextTesting.listTools().map((t) => t.name).sort());
  assert.deepEqual(listed, ['okf_build_context', 'okf_check_answer', 'okf_context_manifest', 'okf_explain_context', 'okf_read_evidence']);
  assert.deepEqual(tools[2].inputSchema.properties.bundle.enum, ['okf-dwp']);
  assert.deepEqual(tools[4].inputSchema.required, ['bundle', 'question', 'context_id', 'section']);
});

test('okf_build_context returns the /api/ask package and shows it on the page', async () => {
  const { page } = browser;
  const question = imprisonmentQuestion();
  const input = { bundle: 'okf-dwp', question, budget: { max_nodes: 60 } };
  const api = await server.ask(input);
  assert.equal(api.status, 200);

  const call = await execute(page, 'okf_build_context', input);
  assert.ok(call.ok, JSON.stringify(call));
  assert.equal(call.result, api.text, 'the tool result is byte-identical to POST /api/ask');

  // The page shows it, with the form filled in from the tool's arguments.
  await page.waitForFunction((id) => document.getElementById('context-id')?.textContent === id, api.json.context_id);
  assert.equal(await page.getAttribute('#status', 'data-status'), api.json.evidence_status);
  assert.equal(await page.inputValue('#bundle'), 'okf-dwp');
  assert.equal(await page.inputValue('#question'), question);
  assert.equal(await page.inputValue('#max_nodes'), '60');
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#download')]);
  assert.ok(readFileSync(await download.path()).equals(Buffer.from(api.text, 'utf8')), 'the raw bytes the page kept equal the API bytes');

  // okf_explain_context: the package itself, and one record's view as the server's MCP tool computes it.
  const whole = await execute(page, 'okf_explain_context', { context_id: api.json.context_id });
  assert.ok(whole.ok, JSON.stringify(whole));
  assert.equal(whole.result, api.text);
  const recordId = api.json.selected[3].record.id;
  const one = await execute(page, 'okf_explain_context', { context_id: api.json.context_id, record_id: recordId });
  assert.ok(one.ok, JSON.stringify(one));
  const fromServer = await mcpCall('okf_explain_context', { context_id: api.json.context_id, record_id: recordId });
  assert.deepEqual(JSON.parse(one.result), fromServer.structuredContent);
  assert.equal(JSON.parse(one.result).item.record.id, recordId);
  assert.deepEqual(browser.problems, []);
});

test('okf_check_answer checks an answer against the package the page built, with the HTTP report bytes', async () => {
  const { page } = browser;
  const question = imprisonmentQuestion();
  const input = { bundle: 'okf-dwp', question };
  const built = await execute(page, 'okf_build_context', input);
  assert.ok(built.ok, JSON.stringify(built));
  const pkg = JSON.parse(built.result);
  const record = pkg.selected.find((s) => s.record.kind === 'evidence').record;
  const answer = {
    schema: 'okf-grounded-answer.v1',
    context_id: pkg.context_id,
    evidence_status: pkg.evidence_status,
    claims: [{ id: 'c1', text: 'A claim.', requirement: null, citations: [{ record: record.id, quote: record.text.trim() }] }],
  };
  const checked = await execute(page, 'okf_check_answer', { answer });
  assert.ok(checked.ok, JSON.stringify(checked));
  const viaHttp = await fetch(`${server.base}/api/check-answer`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ ...input, answer }) });
  assert.equal(checked.result, await viaHttp.text(), 'the tool result is the HTTP report');
  const report = JSON.parse(checked.result);
  assert.equal(report.claims[0].citations[0].ok, true);
  assert.equal(report.verdict, 'not_grounded', 'one claim covers none of the four branches');
  const refused = await execute(page, 'okf_check_answer', { answer, extra: 1 });
  assert.equal(refused.ok, false);
  assert.match(refused.message, /arguments/);
  assert.deepEqual(browser.problems, []);
});

test('invalid arguments are refused without any request', async () => {
  const { page } = browser;
  const shown = await page.textContent('#context-id');
  const requests = [];
  const listener = (r) => requests.push(`${r.method()} ${r.url()}`);
  page.on('request', listener);
  const q = 'How do I borrow books?';
  const cases = [
    ['okf_build_context', { bundle: 'okf-dwp', question: q, extra: 1 }, /extra: unknown key/],
    ['okf_build_context', { bundle: 'okf-dwp', question: '' }, /question/],
    ['okf_build_context', { bundle: 'okf-dwp', question: '   \n ' }, /question/],
    ['okf_build_context', { bundle: 'okf-dwp', question: 'x'.repeat(4001) }, /question/],
    ['okf_build_context', { bundle: 'https://x', question: q }, /bundle/],
    ['okf_build_context', { bundle: '../index.json', question: q }, /bundle/],
    ['okf_build_context', { question: q }, /bundle/],
    ['okf_build_context', { bundle: 'okf-dwp', question: q, budget: { max_bytes: 42 } }, /budget\.max_bytes/],
    ['okf_build_context', { bundle: 'okf-dwp', question: q, budget: { max_nodes: 1.5 } }, /budget\.max_nodes/],
    ['okf_build_context', { bundle: 'okf-dwp', question: q, budget: { max_depth: 9 } }, /budget\.max_depth/],
    ['okf_build_context', { bundle: 'okf-dwp', question: q, budget: { max_relationships: '5' } }, /budget\.max_relationships/],
    ['okf_build_context', { bundle: 'okf-dwp', question: q, budget: { url: 'https://x' } }, /budget\.url: unknown key/],
    ['okf_build_context', [], /arguments: must be an object/],
    ['okf_explain_context', { context_id: 'urn:sha256:abc' }, /context_id/],
    ['okf_explain_context', { context_id: `urn:sha256:${'0'.repeat(64)}`, record_id: '' }, /record_id/],
    ['okf_explain_context', { context_id: `urn:sha256:${'0'.repeat(64)}`, extra: true }, /extra: unknown key/],
  ];
  for (const [name, args, message] of cases) {
    const call = await execute(page, name, args);
    assert.equal(call.ok, false, `${name} ${JSON.stringify(args).slice(0, 80)} must be refused`);
    assert.match(call.message, message, JSON.stringify(args).slice(0, 80));
  }
  page.off('request', listener);
  assert.deepEqual(requests, [], 'no request was made for an invalid argument');
  assert.equal(await page.textContent('#context-id'), shown, 'the page is unchanged');
  assert.ok(await page.isHidden('#error'), 'tool argument errors do not disturb the page');
  assert.deepEqual(browser.problems, []);
});

test('the tools are unregistered when the page goes away', async () => {
  const { page } = browser;
  // Navigating away fires pagehide, which aborts the registration signal.
  const before = await page.evaluate(() => navigator.modelContextTesting.listTools().length);
  assert.equal(before, 5);
  await page.evaluate(() => window.dispatchEvent(new PageTransitionEvent('pagehide', { persisted: false })));
  const afterCount = await page.evaluate(() => navigator.modelContextTesting.listTools().length);
  assert.equal(afterCount, 0);
});

test('okf_context_manifest and okf_read_evidence rebuild the /api/ask package bytes in bounded pieces', async () => {
  const { page } = browser;
  await openPage(page, server.base);
  await page.waitForSelector('#webmcp-status[data-available="true"]');
  const question = imprisonmentQuestion();
  const api = await fetch(`${server.base}/api/ask`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ bundle: 'okf-dwp', question }),
  });
  const expected = await api.text();
  const pkg = JSON.parse(expected);

  const ids = [];
  let offset = 0;
  let contextId;
  for (;;) {
    const args = { bundle: 'okf-dwp', question, offset, delivery_bytes: 16384, ...(contextId ? { context_id: contextId } : {}) };
    const r = await execute(page, 'okf_context_manifest', args);
    assert.ok(r.ok, r.message);
    const catalogue = JSON.parse(r.result);
    assert.ok(catalogue.response_bytes <= 16384);
    contextId = catalogue.context_id;
    ids.push(...catalogue.records.map((rec) => rec.id));
    if (catalogue.delivery.next_offset === null) break;
    offset = catalogue.delivery.next_offset;
  }
  assert.equal(contextId, pkg.context_id);
  assert.deepEqual(ids, pkg.selected.map((s) => s.record.id), 'every selected record once, in package order');

  let joined = '';
  let at = 0;
  let calls = 0;
  while (at !== null) {
    const r = await execute(page, 'okf_read_evidence', { bundle: 'okf-dwp', question, context_id: contextId, section: 'package', offset: at, delivery_bytes: 65536 });
    assert.ok(r.ok, r.message);
    const slice = JSON.parse(r.result);
    assert.ok(slice.delivery.used_bytes <= 65536);
    joined += slice.data;
    at = slice.next_offset;
    calls += 1;
  }
  assert.ok(calls > 1, 'a 0.5 MB package needs several reads');
  assert.equal(joined, expected, 'the joined slices are the /api/ask bytes');

  const before = await page.evaluate(() => performance.getEntriesByType('resource').filter((e) => e.name.includes('/api/')).length);
  for (const bad of [
    { bundle: 'okf-dwp', question, offset: 1 },
    { bundle: 'okf-dwp', question, delivery_bytes: 9000.5 },
    { bundle: 'okf-dwp', question, url: 'https://evil.example' },
  ]) {
    const r = await execute(page, 'okf_context_manifest', bad);
    assert.equal(r.ok, false, JSON.stringify(bad));
  }
  for (const bad of [
    { bundle: 'okf-dwp', question, context_id: contextId, section: 'full' },
    { bundle: 'okf-dwp', question, context_id: contextId, section: 'package', record_id: 'x' },
    { bundle: 'okf-dwp', question, context_id: contextId, section: 'record_text' },
  ]) {
    const r = await execute(page, 'okf_read_evidence', bad);
    assert.equal(r.ok, false, JSON.stringify(bad));
  }
  const afterCount = await page.evaluate(() => performance.getEntriesByType('resource').filter((e) => e.name.includes('/api/')).length);
  assert.equal(afterCount, before, 'invalid arguments make no request');
});
