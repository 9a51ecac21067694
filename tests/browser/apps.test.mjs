// 14. MCP Apps: the package view inside an AI host. A test host built on ext-apps's AppBridge
//     and the official TypeScript client renders the view ask_okf links to, in a sandboxed
//     double iframe, under the CSP the extension prescribes: the branch table is the page's
//     own (one renderer), an unmet branch shows its gap's reason, a record's exact text
//     arrives through the app-only read in bounded slices, hostile text stays inert, links
//     open only through the host, axe finds nothing serious (desktop and 390 px, light and
//     dark). The same view draws an okf_check_answer report (each found quote marked in its
//     record) and an ask_okf_manifest catalogue (paged, and the whole package read in
//     slices, through the app-only tools) and an okf_workbench_case result (a case's briefing
//     and verified package, the other cases opened through the host). A client that does
//     not declare the extension sees no trace of it; a 2025-11-25 host that declares it at
//     initialize renders the same view.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { dwpAndHospitalBundles, hospitalQuestion, DWP_INDEX, DWP_SHA, DWP_TITLE, DWP_URL, askThroughForm, buildDwpWorkbench, imprisonmentQuestion, launch, okfBin, openPage, repoRoot, seriousViolations, sha256Hex, shared, startServer, strayValueTexts, tempDir, workbenchEntry } from './harness.mjs';
import { connect, showTool, startHostServer, viewFrame } from './apps-host.mjs';

const PAYLOAD = 'Members may borrow 12 books. <script>parent.__pwned=1</script><img src=x onerror="parent.__pwned=2">';
const RULES = 'https://example.org/okf-example/evidence/lending-rules';

let dir;
let server;
let hostServer;
let desktop;
let phone;
let client;
let workbench;

before(async () => {
  dir = tempDir('apps');
  workbench = buildDwpWorkbench(dir);
  const index = JSON.parse(readFileSync(path.join(repoRoot, 'crates/okf/example/index.json'), 'utf8'));
  const rules = index.records.find((r) => r.id === RULES);
  rules.text = PAYLOAD;
  rules.provenance[0].literal_sha256 = sha256Hex(Buffer.from(PAYLOAD, 'utf8'));
  const hostile = Buffer.from(JSON.stringify(index), 'utf8');
  writeFileSync(path.join(dir, 'hostile.json'), hostile);
  const registry = path.join(dir, 'registry.toml');
  writeFileSync(
    registry,
    `${dwpAndHospitalBundles(dir)}\n` +
      `[[bundle]]\nid = "hostile"\nindex = "hostile.json"\nsha256 = "${sha256Hex(hostile)}"\nindex_url = "https://example.org/okf-example/hostile/index.json"\n` +
      workbenchEntry('dwp-test', workbench.manifest),
  );
  server = await startServer(['--registry', registry]);
  hostServer = await startHostServer();
  client = await connect(server.base);
  desktop = await launch();
  phone = await launch({ viewport: { width: 390, height: 844 } });
});

after(async () => {
  await client?.close();
  await desktop?.close();
  await phone?.close();
  await hostServer?.stop();
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** Each branch row: id, status, gaps (id, reason) and its text. */
/** Opens the record with this id and every details around it, in the view. */
const openIn = (frame, id) =>
  frame.evaluate((wanted) => {
    const d = [...document.querySelectorAll('details.record')].find((x) => x.dataset.id === wanted);
    for (let n = d; n; n = n.parentElement?.closest('details')) n.open = true;
    for (const inner of d?.querySelectorAll('details') ?? []) inner.open = true;
  }, id);

const rowsOf = (frame) =>
  frame.locator('#requirements-table tbody tr').evaluateAll((trs) =>
    trs.map((tr) => ({
      id: tr.dataset.requirement,
      status: tr.dataset.status,
      gaps: [...tr.querySelectorAll('.gap')].map((g) => ({ id: g.dataset.gap, reason: g.querySelector('.gap-reason')?.textContent })),
      text: tr.textContent,
    })),
  );

async function freshPage(browser) {
  const page = await browser.context.newPage();
  const problems = [];
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  return { page, problems };
}

for (const [name, getBrowser, theme] of [
  ['desktop, light', () => desktop, 'light'],
  ['390 px, dark', () => phone, 'dark'],
]) {
  test(`ask_okf's view shows the four DWP branch rows with their paragraphs, as the page does (${name})`, async () => {
    const browser = getBrowser();
    const { page, problems } = await freshPage(browser);
    const args = { bundle: 'okf-dwp', question: imprisonmentQuestion() };
    const shown = await showTool({ client, page, hostServer, name: 'ask_okf', args, theme });
    const pkg = shown.result.structuredContent;
    assert.equal(pkg.requirements.length, 4);
    await shown.frame.locator('#requirements-table tbody tr').first().waitFor();
    const rows = await rowsOf(shown.frame);
    assert.deepEqual(rows.map((r) => r.id), pkg.requirements.map((r) => r.id));
    for (const row of rows) assert.match(row.text, /\d{5}/, `${row.id} names its DMG paragraphs`);

    // One renderer: the page's branch table for the same question reads the same.
    const { page: ask } = await freshPage(browser);
    await openPage(ask, server.base);
    await askThroughForm(ask, 'okf-dwp', args.question);
    const pageRows = await ask.$$eval('#requirements-table tbody tr', (trs) => trs.map((tr) => tr.textContent));
    assert.deepEqual(rows.map((r) => r.text), pageRows);
    await ask.close();

    // The host's theme reaches the view.
    const frame = await viewFrame(page);
    assert.deepEqual(await strayValueTexts(frame), [], 'no empty value is written out as text');
    await assertNoSidewaysScroll(page);
    assert.equal(await frame.evaluate(() => document.documentElement.dataset.theme), theme);
    assert.deepEqual(await seriousViolations(frame), []);

    // A record's exact text comes through the app-only read, in slices, joined to the package's.
    const first = pkg.selected.find((s) => String(s.record?.text ?? '').length > 0);
    const record = shown.frame.locator(`details.record[data-id="${first.record.id}"]`).first();
    await openIn(frame, first.record.id);
    // Dispatched on the button itself: the host resizes the frame as the view grows, so a click
    // at screen coordinates can land beside it.
    await record.locator('button.read-exact').dispatchEvent('click');
    const exact = record.locator('pre.exact-text');
    await exact.waitFor({ state: 'visible' });
    assert.equal(await exact.textContent(), first.record.text);
    const reads = shown.calls.filter((c) => c.name === 'okf_view_read_evidence');
    assert.ok(reads.length >= 1);
    assert.ok(reads.every((c) => c.arguments.section === 'record_text' && c.arguments.record_id === first.record.id));

    // Links open only through the host: the view asks, the frame stays where it is.
    const link = shown.frame.locator('a.url[href^="https://"]').first();
    const href = await link.getAttribute('href');
    await link.dispatchEvent('click');
    await expectSoon(() => shown.opened.includes(new URL(href).href));
    assert.equal(frame.url(), 'about:srcdoc');
    assert.equal(page.context().pages().length, 2, 'no window was opened by the view');
    assert.deepEqual(problems, []);
    await page.close();
  });
}

/** The view is no wider than its frame (nothing scrolls sideways at a phone's width). */
async function assertNoSidewaysScroll(page) {
  const overflow = await (await viewFrame(page)).evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.ok(overflow <= 0, `the view is ${overflow} px wider than its frame`);
}

async function expectSoon(check) {
  for (let i = 0; i < 100; i++) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.fail('not within 5 s');
}

test("on the hospital profile, each unmet branch in the view names its gaps; the status box gives each gap's reason once", async () => {
  const { page, problems } = await freshPage(desktop);
  const shown = await showTool({ client, page, hostServer, name: 'ask_okf', args: { bundle: 'dwp-hospital', question: hospitalQuestion() } });
  const pkg = shown.result.structuredContent;
  assert.equal(pkg.evidence_status, 'insufficient');
  const gaps = new Map(pkg.declared_gaps.map((g) => [g.id, g]));
  await shown.frame.locator('#requirements-table tbody tr').first().waitFor();
  const rows = await rowsOf(shown.frame);
  let unmet = 0;
  for (const [i, requirement] of pkg.requirements.entries()) {
    const expected = requirement.missing.filter((id) => gaps.has(id));
    assert.deepEqual(rows[i].gaps.map((g) => g.id), expected);
    for (const g of rows[i].gaps) assert.equal(g.reason, undefined, 'the reason is in the status box, not repeated in the row');
    if (expected.length) unmet += 1;
  }
  assert.ok(unmet >= 1);
  const status = await shown.frame.locator('#status').textContent();
  for (const g of gaps.values()) assert.equal(status.split(g.reason).length - 1, 1, `${g.id}: its reason once in the status box`);
  assert.deepEqual(await seriousViolations(await viewFrame(page)), []);
  assert.deepEqual(problems, []);
  await page.close();
});

test("okf_check_answer's view shows each claim's verdict and marks each found quote in its record", async () => {
  const { page, problems } = await freshPage(desktop);
  const asked = await client.callTool({ name: 'ask_okf', arguments: { bundle: 'okf-dwp', question: imprisonmentQuestion() } });
  const pkg = asked.structuredContent;
  const record = pkg.selected.find((s) => String(s.record?.text ?? '').length >= 60).record;
  const answer = {
    schema: 'okf-grounded-answer.v1',
    context_id: pkg.context_id,
    evidence_status: pkg.evidence_status,
    claims: [
      { id: 'c1', text: 'Quoted exactly.', requirement: null, citations: [{ record: record.id, quote: record.text.trim() }] },
      { id: 'c2', text: 'A quote that is not there.', requirement: null, citations: [{ record: record.id, quote: 'this sentence is not in the record at all' }] },
    ],
  };
  const shown = await showTool({ client, page, hostServer, name: 'okf_check_answer', args: { answer } });
  const report = shown.result.structuredContent;
  assert.equal(report.schema, 'okf-answer-check.v1');
  await shown.frame.locator('#answer-claims li').first().waitFor();
  const claims = await shown.frame.locator('#answer-claims li').evaluateAll((lis) => lis.map((li) => ({ id: li.dataset.claim, text: li.textContent })));
  assert.deepEqual(claims.map((c) => c.id), ['c1', 'c2']);
  assert.match(claims[0].text, /every citation found/);
  assert.doesNotMatch(claims[1].text, /every citation found/);
  assert.equal(await shown.frame.locator('[data-verdict]').getAttribute('data-verdict'), report.verdict);

  // Each claim's own words, and the found quote marked in its record's text (read through the
  // host by the record's id alone: the view was opened on the report, not on the package).
  assert.equal(await shown.frame.locator('li[data-claim="c1"] .claim-text').textContent(), 'Quoted exactly.');
  const mark = shown.frame.locator('li[data-claim="c1"] .citation-ok mark.quote');
  await mark.waitFor();
  const found = report.claims[0].citations[0];
  assert.equal(await mark.textContent(), record.text.slice(found.start, found.end));
  assert.equal(await mark.textContent(), answer.claims[0].citations[0].quote);
  const passage = await shown.frame.locator('li[data-claim="c1"] blockquote.quote-passage').textContent();
  assert.ok(record.text.startsWith(passage.replace(/…$/, '')), 'the quote is shown inside its own record text');
  assert.ok(shown.calls.some((c) => c.name === 'okf_explain_context' && c.arguments.record_id === record.id));
  // A quote not found is shown as the answer gave it, flagged, never marked.
  assert.equal(await shown.frame.locator('li[data-claim="c2"] .citation-bad').getAttribute('data-error'), 'quote_not_found');
  assert.match(await shown.frame.locator('li[data-claim="c2"] .citation-bad .citation-words').textContent(), /Quote not found on the record cited/);
  assert.equal(await shown.frame.locator('li[data-claim="c2"] blockquote.quote-missing').textContent(), answer.claims[1].citations[0].quote);
  assert.equal(await shown.frame.locator('li[data-claim="c2"] mark').count(), 0);
  assert.deepEqual(await seriousViolations(await viewFrame(page)), []);
  assert.deepEqual(problems, []);
  await page.close();
});

test("ask_okf_manifest's view pages the catalogue and reads the whole package through the app-only tools", async () => {
  const { page, problems } = await freshPage(phone);
  const args = { bundle: 'okf-dwp', question: imprisonmentQuestion(), delivery_bytes: 16384 };
  const shown = await showTool({ client, page, hostServer, name: 'ask_okf_manifest', args, theme: 'dark' });
  const first = shown.result.structuredContent;
  assert.equal(first.schema, 'okf-context-manifest.v1');
  assert.equal(typeof first.delivery.next_offset, 'number', 'the DWP catalogue takes more than one page at 16 KiB');
  const listed = shown.frame.locator('#catalogue-records li');
  await listed.first().waitFor();
  assert.equal(await listed.count(), first.records.length);
  assert.equal(await shown.frame.locator('#status').getAttribute('data-status'), first.evidence_status);
  assert.equal(await shown.frame.locator('[data-count="selected_records"] dd').textContent(), String(first.summary.selected_records));

  // The next page comes through the app-only okf_view_catalogue, from where the first ended.
  // A click event on the button itself: the frame is resized as the view reports its height,
  // so a click at screen coordinates may land beside it.
  await shown.frame.locator('#next-records').dispatchEvent('click');
  const second = await client.callTool({ name: 'ask_okf_manifest', arguments: { ...args, context_id: first.context_id, offset: first.delivery.next_offset } });
  const ids = [...first.records, ...second.structuredContent.records].map((r) => r.id);
  await shown.frame.locator(`#catalogue-records li:nth-child(${ids.length})`).waitFor();
  assert.deepEqual(await listed.evaluateAll((lis) => lis.map((li) => li.dataset.id)), ids);
  const pageCall = shown.calls.find((c) => c.name === 'okf_view_catalogue');
  assert.equal(pageCall.arguments.offset, first.delivery.next_offset);
  assert.equal(pageCall.arguments.context_id, first.context_id);

  // The branch table, what is missing and every record: the package read in bounded slices.
  await shown.frame.locator('#open-package').dispatchEvent('click');
  await shown.frame.locator('#requirements-table tbody tr').first().waitFor();
  const asked = (await client.callTool({ name: 'ask_okf', arguments: { bundle: args.bundle, question: args.question } })).structuredContent;
  const rows = await rowsOf(shown.frame);
  assert.deepEqual(rows.map((r) => r.id), asked.requirements.map((r) => r.id));
  const slices = shown.calls.filter((c) => c.name === 'okf_view_read_evidence' && c.arguments.section === 'package');
  assert.ok(slices.length > 1, `the package came in ${slices.length} slices`);
  assert.ok(slices.every((c) => c.arguments.context_id === first.context_id));
  assert.equal(await shown.frame.locator('#context-id').textContent(), first.context_id);
  await assertNoSidewaysScroll(page);
  assert.deepEqual(await seriousViolations(await viewFrame(page)), []);
  assert.deepEqual(problems, []);
  await page.close();
});

test("okf_workbench_case's view shows a case's briefing and branch table, and opens another case through the host (390 px)", async () => {
  const { page, problems } = await freshPage(phone);
  const shown = await showTool({ client, page, hostServer, name: 'okf_workbench_case', args: { workbench: 'dwp-test', case_id: 'imprisonment' } });
  const result = shown.result.structuredContent;
  assert.equal(result.schema, 'okf-workbench-case.v1');
  assert.deepEqual(result.cases.map((c) => c.id), workbench.questions.map((q) => q.id));
  const pkg = result.package;
  assert.equal(pkg.question, imprisonmentQuestion());
  // The retained package selects what the server selects for the same question over the same
  // index (its binding names the file the workbench was built from, so its context_id differs).
  const asked = (await client.callTool({ name: 'ask_okf', arguments: { bundle: 'okf-dwp', question: imprisonmentQuestion() } })).structuredContent;
  assert.deepEqual(pkg.selected.map((s) => s.record.id), asked.selected.map((s) => s.record.id));
  assert.deepEqual(pkg.requirements, asked.requirements);

  await shown.frame.locator('#requirements-table tbody tr').first().waitFor();
  const rows = await rowsOf(shown.frame);
  assert.deepEqual(rows.map((r) => r.id), pkg.requirements.map((r) => r.id));
  for (const row of rows) assert.match(row.text, /\d{5}/, `${row.id} names its DMG paragraphs`);
  assert.equal(await shown.frame.locator('#status').getAttribute('data-status'), pkg.evidence_status);
  // The questions file gave this case no briefing: said as the file's, not as the package's.
  assert.equal(await shown.frame.locator('#case-facts .none').count(), 3);
  assert.deepEqual(await strayValueTexts(await viewFrame(page)), [], 'no empty value is written out as text');
  await assertNoSidewaysScroll(page);
  // A workbench's retained package is not replayed: no answer box, no replaying reads.
  assert.equal(await shown.frame.locator('#answer-box').count(), 0);
  assert.equal(await shown.frame.locator('button.read-exact').count(), 0);

  // Another case, opened through the host with okf_workbench_case: its briefing, its package.
  const other = workbench.questions[0];
  await shown.frame.locator(`#workbench-cases button[data-case="${other.id}"]`).dispatchEvent('click');
  await shown.frame.locator('#case-heading', { hasText: other.question }).waitFor();
  assert.ok(shown.calls.some((c) => c.name === 'okf_workbench_case' && c.arguments.case_id === other.id));
  const briefing = await shown.frame.locator('#case-facts dd').evaluateAll((dds) => dds.map((dd) => [...dd.querySelectorAll('li')].map((li) => li.textContent)));
  assert.deepEqual(briefing, [other.ambiguities ?? [], other.required_evidence ?? [], other.scope_gaps ?? []]);
  assert.equal(await shown.frame.locator('#workbench-cases button[aria-current="true"]').getAttribute('data-case'), other.id);
  await shown.frame.locator('#status').waitFor();
  assert.deepEqual(await seriousViolations(await viewFrame(page)), []);
  assert.deepEqual(problems, []);
  await page.close();
});

test('hostile record text renders inert in the view', async () => {
  const { page } = await freshPage(desktop);
  const shown = await showTool({ client, page, hostServer, name: 'ask_okf', args: { bundle: 'hostile', question: 'How do I borrow books?' } });
  const record = shown.frame.locator(`details.record[data-id="${RULES}"]`).first();
  await record.waitFor({ state: 'attached' });
  const frame = await viewFrame(page);
  await openIn(frame, RULES);
  assert.equal(await frame.evaluate(() => document.querySelectorAll('#view script, #view img[src="x"]').length), 0);
  assert.ok((await frame.evaluate(() => document.getElementById('view').textContent)).includes('<script>parent.__pwned=1</script>'));
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(await page.evaluate(() => window.__pwned), undefined);
  await page.close();
});

test('a client that does not declare the extension gets no view, no resources and the same tool list', async () => {
  const plain = await connect(server.base, {});
  const apps = await client.listTools();
  const { tools } = await plain.listTools();
  for (const t of tools) assert.equal(t._meta?.ui, undefined, t.name);
  // The app-only tools are listed (for the view, hidden from the model) only with the extension.
  const APP_ONLY = ['okf_view_read_evidence', 'okf_view_catalogue'];
  const appOnly = apps.tools.filter((t) => APP_ONLY.includes(t.name));
  assert.deepEqual(appOnly.map((t) => [t.name, t._meta.ui.visibility]), APP_ONLY.map((n) => [n, ['app']]));
  assert.ok(!tools.some((t) => APP_ONLY.includes(t.name)));
  const stripped = apps.tools
    .filter((t) => !APP_ONLY.includes(t.name))
    .map((t) => {
      const { ui, ...meta } = t._meta ?? {};
      return { ...t, _meta: meta };
    });
  assert.deepEqual(tools, stripped, 'otherwise the only difference is _meta.ui');
  assert.equal(apps.tools.find((t) => t.name === 'ask_okf')._meta.ui.resourceUri, 'ui://ask-okf/package-view.html');
  // A 2026-07-28 request that declares capabilities without the extension gets no view. (A
  // 2025-11-25 request carries no capabilities, so it is served the view when it asks for it;
  // DEVIATIONS M11.)
  const meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': {},
    'io.modelcontextprotocol/clientInfo': { name: 'plain', version: '1' },
  };
  for (const [method, params] of [['resources/list', {}], ['resources/read', { uri: 'ui://ask-okf/package-view.html' }]]) {
    const headers = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': method };
    if (params.uri) headers['Mcp-Name'] = params.uri;
    const response = await fetch(`${server.base}/mcp`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: meta } }),
    });
    const body = await response.json();
    assert.equal(body.error?.code, -32601, `${method}: ${JSON.stringify(body)}`);
  }
  assert.equal(plain.getServerCapabilities()?.resources, undefined);
  assert.equal(plain.getServerCapabilities()?.extensions, undefined);
  assert.ok(client.getServerCapabilities()?.extensions?.['io.modelcontextprotocol/ui']);
  await plain.close();
});

test('a 2025-11-25 host that declares the extension at initialize renders the same package view', async () => {
  const legacy = await connect(server.base, undefined, { mode: 'legacy' });
  assert.ok(legacy.getServerCapabilities()?.extensions?.['io.modelcontextprotocol/ui'], 'initialize offers the extension');
  assert.ok(legacy.getServerCapabilities()?.resources);
  const { tools } = await legacy.listTools();
  // No app-only tool is listed on the legacy revision; the view calls them by name.
  assert.ok(!tools.some((t) => ['okf_view_read_evidence', 'okf_view_catalogue'].includes(t.name)));
  const { page, problems } = await freshPage(desktop);
  const args = { bundle: 'okf-dwp', question: imprisonmentQuestion() };
  const shown = await showTool({ client: legacy, page, hostServer, name: 'ask_okf', args });
  const pkg = shown.result.structuredContent;
  await shown.frame.locator('#requirements-table tbody tr').first().waitFor();
  assert.deepEqual((await rowsOf(shown.frame)).map((r) => r.id), pkg.requirements.map((r) => r.id));
  // A record's exact text through the app-only read, called by name on the legacy revision.
  const first = pkg.selected.find((s) => String(s.record?.text ?? '').length > 0);
  const record = shown.frame.locator(`details.record[data-id="${first.record.id}"]`).first();
  await openIn(await viewFrame(page), first.record.id);
  await record.locator('button.read-exact').click();
  const exact = record.locator('pre.exact-text');
  await exact.waitFor({ state: 'visible' });
  assert.equal(await exact.textContent(), first.record.text);
  assert.ok(shown.calls.some((c) => c.name === 'okf_view_read_evidence'));
  assert.deepEqual(problems, []);
  await page.close();
  await legacy.close();
});
