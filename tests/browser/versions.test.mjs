// 13. A version or a date on the form and in okf_build_context: the page asks for exactly what
//     POST /api/ask gives for the same version, as_of or both, keeps them in the permalink,
//     shows the default version's package (with an issue naming the dates) when no version
//     was in force on the date, and assembles a version with a date in
//     the browser too (a date alone picks the version, which the server does). The page
//     tools honour the host's per-call abort signal: an aborted call rejects with AbortError
//     and makes no request (or stops the one in flight).

import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { DWP_INDEX, DWP_SHA, DWP_URL, imprisonmentQuestion, launch, openPage, startServer, tempDir, waitForPackage } from './harness.mjs';

const OLDER_URL = 'https://example.invalid/okf-dwp/2026-01/assembly-index.json';

let dir;
let server;
let browser;

before(async () => {
  dir = tempDir('versions');
  // One file served as two versions with different bindings, so the chosen version shows in
  // the package's context_id.
  const registry = path.join(dir, 'registry.toml');
  writeFileSync(
    registry,
    `[[bundle]]\nid = "okf-dwp"\nindex = ${JSON.stringify(DWP_INDEX)}\nsha256 = "${DWP_SHA}"\nindex_url = "${DWP_URL}"\n` +
      `version_name = "2026-09"\npublished = "2026-09-16"\n\n` +
      `[[bundle.versions]]\nname = "2026-01"\nindex = ${JSON.stringify(DWP_INDEX)}\nsha256 = "${DWP_SHA}"\nindex_url = "${OLDER_URL}"\npublished = "2026-01-01"\n`,
  );
  server = await startServer(['--registry', registry]);
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function submit(page) {
  const previous = await page.evaluate(() => document.getElementById('context-id')?.textContent ?? null);
  await page.click('#submit');
  return previous;
}

test('the form asks for a version or a date and gets what the API gives for it', async () => {
  const { page, problems } = browser;
  const question = imprisonmentQuestion();
  await openPage(page, server.base);
  await page.fill('#question', question);
  await page.click('#when-box > summary');
  const options = await page.$$eval('#version option', (os) => os.map((o) => [o.value, o.textContent]));
  assert.deepEqual(options, [
    ['', 'Default version (2026-09)'],
    ['2026-01', '2026-01, published 1 January 2026'],
    ['2026-09', '2026-09, published 16 September 2026'],
  ]);

  const older = await server.ask({ bundle: 'okf-dwp', question, version: '2026-01' });
  const current = await server.ask({ bundle: 'okf-dwp', question });
  assert.notEqual(older.json.context_id, current.json.context_id);
  assert.equal(older.json.binding.index_url, OLDER_URL);

  await page.selectOption('#version', '2026-01');
  await waitForPackage(page, await submit(page));
  assert.equal(await page.textContent('#context-id'), older.json.context_id);
  assert.match(await page.getAttribute('#permalink', 'href'), /[#&]version=2026-01(&|$)/);

  // A date chooses the version published by then.
  const dated = await server.ask({ bundle: 'okf-dwp', question, as_of: '2026-06-30' });
  assert.equal(dated.json.context_id, older.json.context_id);
  await page.selectOption('#version', '');
  await page.fill('#as_of', '2026-06-30');
  await page.fill('#question', `${question} `);
  const trailing = await server.ask({ bundle: 'okf-dwp', question: `${question} `, as_of: '2026-06-30' });
  await waitForPackage(page, await submit(page));
  assert.equal(await page.textContent('#context-id'), trailing.json.context_id);
  assert.match(await page.getAttribute('#permalink', 'href'), /[#&]as_of=2026-06-30(&|$)/);

  // The permalink asks again with the same date.
  const link = await page.getAttribute('#permalink', 'href');
  await page.goto(link);
  await page.waitForFunction((id) => document.getElementById('context-id')?.textContent === id, trailing.json.context_id);
  assert.equal(await page.inputValue('#as_of'), '2026-06-30');

  // Both: the version is fixed and the date only decides which regimes apply.
  await page.selectOption('#version', '2026-09');
  const both = await server.ask({ bundle: 'okf-dwp', question: `${question} `, version: '2026-09', as_of: '2026-06-30' });
  assert.equal(both.status, 200);
  assert.equal(both.json.binding.index_url, current.json.binding.index_url);
  await waitForPackage(page, await submit(page));
  assert.equal(await page.textContent('#context-id'), both.json.context_id);

  // No version in effect on the date (issue 40; was a 404 unknown_version naming as_of): the
  // package of the version served by default, insufficient, with an issue naming the date, the
  // earliest version's date and the served version's date.
  await page.selectOption('#version', '');
  await page.fill('#as_of', '2025-06-30');
  const early = await server.ask({ bundle: 'okf-dwp', question: `${question} `, as_of: '2025-06-30' });
  assert.equal(early.status, 200);
  assert.equal(early.json.evidence_status, 'insufficient');
  assert.equal(early.json.binding.index_url, current.json.binding.index_url);
  const outside = early.json.missing_evidence.find((i) => i.code === 'question_date_outside_versions');
  assert.match(outside.message, /2025-06-30.*the earliest was published 2026-01-01.*published 2026-09-16/);
  await waitForPackage(page, await submit(page));
  assert.equal(await page.textContent('#context-id'), early.json.context_id);

  // In this browser: a version with a date assembles the same bytes; a date alone (which
  // picks the version) is the server's to apply.
  const local = await server.ask({ bundle: 'okf-dwp', question: `${question}  `, version: '2026-09', as_of: '2026-06-30' });
  await page.fill('#question', `${question}  `);
  await page.fill('#as_of', '2026-06-30');
  await page.selectOption('#version', '2026-09');
  await page.check('#where-browser');
  await waitForPackage(page, await submit(page));
  assert.equal(await page.textContent('#context-id'), local.json.context_id);
  assert.match(await page.textContent('#results'), /in this browser/i);
  await page.selectOption('#version', '');
  await page.click('#submit');
  await page.waitForFunction(() => document.getElementById('error')?.dataset.code === 'local_unavailable');
  assert.match(await page.textContent('#error'), /choose “On the server”, or name a version too/);
  assert.deepEqual(problems.filter((p) => !/status of 404|Failed to load resource/.test(p)), []);
});

test('okf_build_context takes version, as_of and profile and honours the host abort signal', async () => {
  const page = await browser.context.newPage();
  try {
    await page.addInitScript(() => {
      const tools = {};
      window.__tools = tools;
      Object.defineProperty(document, 'modelContext', {
        value: {
          async registerTool(tool) {
            tools[tool.name] = tool;
          },
        },
      });
    });
    await openPage(page, server.base);
    await page.waitForFunction(() => Boolean(window.__tools.okf_build_context));
    const question = imprisonmentQuestion();
    const schema = await page.evaluate(() => window.__tools.okf_build_context.inputSchema);
    assert.deepEqual(Object.keys(schema.properties).sort(), ['as_of', 'budget', 'bundle', 'profile', 'question', 'version']);
    assert.deepEqual(schema.required, ['bundle', 'question']);

    const older = await server.ask({ bundle: 'okf-dwp', question, version: '2026-01' });
    for (const args of [{ version: '2026-01' }, { as_of: '2026-06-30' }]) {
      const id = await page.evaluate(async ([q, a]) => (await window.__tools.okf_build_context.execute({ bundle: 'okf-dwp', question: q, ...a }, {}))?.context_id, [question, args]);
      assert.equal(id, older.json.context_id, JSON.stringify(args));
    }

    const asks = [];
    page.on('request', (r) => {
      if (r.url().endsWith('/api/ask')) asks.push(r.url());
    });
    const outcome = await page.evaluate(async (q) => {
      const run = (signal) =>
        window.__tools.okf_build_context.execute({ bundle: 'okf-dwp', question: q, version: '2026-09' }, { signal }).then(
          () => 'resolved',
          (e) => e.name,
        );
      const early = new AbortController();
      early.abort();
      const before = await run(early.signal);
      const late = new AbortController();
      const pending = run(late.signal);
      await new Promise((resolve) => setTimeout(resolve, 0));
      late.abort();
      return { before, during: await pending };
    }, question);
    assert.deepEqual(outcome, { before: 'AbortError', during: 'AbortError' });
    assert.ok(asks.length <= 1, `the aborted-before call made no request: ${asks.length}`);
  } finally {
    await page.close();
  }
});
