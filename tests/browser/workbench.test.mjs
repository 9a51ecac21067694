// 8. The evidence workbench page (/evidence/) over a served DWP workbench built by
//    `okf workbench build`: the seven WebMCP tools (polyfill) register in order with the
//    session's schemas; a journey through all seven returns the same envelopes as
//    `okf workbench run` for the same calls, seed and clock; 64 parallel 32 KiB calls give
//    exactly 32 successes; a person's tab change makes an older okf_show_view fail with
//    stale_revision; invalid input never reaches the session; axe-core finds no serious or
//    critical violation (desktop and 390 px, every tab); a keyboard-only journey; screenshots.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { dwpWorkbench, imprisonmentQuestion, launch, okfBin, screenshot, seriousViolations, startServer, strayValueTexts, tempDir } from './harness.mjs';

const SEED = 'browser-journey-seed';
const TABS = ['source', 'trace', 'ontology', 'graph', 'requirements', 'interactions', 'rates', 'calculation'];

let dir;
let built;
let server;
let browser;
let plain; // no polyfill: the keyboard journey and the hand-made registries, one page each

before(async () => {
  dir = tempDir('workbench');
  built = dwpWorkbench(dir);
  server = await startServer(['--registry', built.registry]);
  browser = await launch({ polyfill: true });
  plain = await launch();
  // The test host: a fixed seed and a clock that stays at 0, as `okf workbench run` has.
  await browser.context.addInitScript((seed) => {
    window.okfWorkbenchTestHost = { seed, now: () => 0 };
    const registered = [];
    window.__registeredTools = registered;
    const mc = document.modelContext;
    if (mc && typeof mc.registerTool === 'function') {
      const original = mc.registerTool.bind(mc);
      mc.registerTool = (tool, options) => {
        registered.push({ name: tool.name, hasSignal: options?.signal instanceof AbortSignal, outputSchema: 'outputSchema' in tool });
        return original(tool, options);
      };
    }
  }, SEED);
});

after(async () => {
  await browser?.close();
  await plain?.close();
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function openWorkbench(page, query = '?manifest=dwp-test') {
  await page.goto(`${server.base}/evidence/${query}`);
  await page.waitForSelector('#webmcp-status[data-available]');
  await page.waitForSelector('#cases-panel:not([hidden])');
}

function execute(page, name, args) {
  return page.evaluate(
    async ([n, a]) => {
      try {
        return { ok: true, text: await navigator.modelContextTesting.executeTool(n, a) };
      } catch (e) {
        return { ok: false, name: e?.name, message: String(e?.message ?? e) };
      }
    },
    [name, typeof args === 'string' ? args : JSON.stringify(args)],
  );
}

/** Resolves "$N.path" strings against earlier envelopes, as `okf workbench run` does. */
function resolve(value, printed) {
  if (typeof value === 'string' && value.startsWith('$')) {
    const [n, ...steps] = value.slice(1).split('.');
    return steps.reduce((cur, step) => cur?.[step], printed[Number(n)]);
  }
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolve(v, printed)]));
  }
  return value;
}

const JOURNEY = [
  { tool: 'okf_get_state', arguments: {} },
  { tool: 'okf_search_evidence', arguments: { query: 'imprisoned claimant custody' } },
  { tool: 'okf_search_evidence', arguments: { query: 'prison', scope: 'evidence', case_id: 'imprisonment', limit: 2 } },
  { tool: 'okf_get_evidence', arguments: { ref: '$2.data.items.0.ref', section: 'passage', max_bytes: 32768 } },
  { tool: 'okf_get_evidence', arguments: { ref: '$2.data.items.0.ref', section: 'provenance' } },
  { tool: 'okf_get_relationships', arguments: { ref: '$2.data.items.0.ref' } },
  { tool: 'okf_get_view_data', arguments: { view: 'graph', case_id: 'imprisonment', max_bytes: 32768 } },
  { tool: 'okf_get_view_data', arguments: { view: 'requirements', case_id: 'imprisonment', max_bytes: 8192 } },
  { tool: 'okf_show_view', arguments: { expected_revision: 0, snapshot_id: '$0.snapshot_id', result_id: '$6.result_id' } },
  { tool: 'okf_get_calculation', arguments: { case_id: 'imprisonment' } },
  { tool: 'okf_search_evidence', arguments: { query: 'prison', scope: 'evidence', case_id: 'imprisonment', limit: 2, cursor: '$2.delivery.next_cursor' } },
  { tool: 'okf_get_state', arguments: {} },
];

test('the seven tools register in order, each with the lifetime signal, closed schemas and no outputSchema', async () => {
  const { page } = browser;
  await openWorkbench(page);
  assert.equal(await page.getAttribute('#webmcp-status', 'data-available'), 'true');
  const registered = await page.evaluate(() => window.__registeredTools);
  assert.deepEqual(
    registered.map((r) => r.name),
    ['okf_get_state', 'okf_search_evidence', 'okf_get_evidence', 'okf_get_relationships', 'okf_get_view_data', 'okf_show_view', 'okf_get_calculation'],
  );
  assert.ok(registered.every((r) => r.hasSignal && !r.outputSchema));
  const tools = await page.evaluate(async () => (await document.modelContext.getTools()).map((t) => ({ name: t.name, inputSchema: t.inputSchema, annotations: t.annotations, description: t.description })));
  assert.equal(tools.length, 7);
  for (const t of tools) {
    const schema = typeof t.inputSchema === 'string' ? JSON.parse(t.inputSchema) : t.inputSchema;
    assert.equal(schema.type, 'object', t.name);
    assert.equal(schema.additionalProperties, false, t.name);
    assert.equal(t.annotations.readOnlyHint, t.name !== 'okf_show_view', t.name);
    assert.equal(t.annotations.untrustedContentHint, true, t.name);
    assert.ok(t.description.length <= 500, t.name);
  }
  assert.ok(JSON.stringify(tools).length < 13000);
});

test('a journey through all seven tools returns the same envelopes as okf workbench run', async () => {
  const { page } = browser;
  await openWorkbench(page);
  const printed = [];
  const pageLines = [];
  for (const line of JOURNEY) {
    const r = await execute(page, line.tool, resolve(line.arguments, printed));
    assert.ok(r.ok, `${line.tool}: ${r.message}`);
    pageLines.push(r.text);
    printed.push(JSON.parse(r.text));
  }
  const cli = spawnSync(okfBin, ['workbench', 'run', '--manifest', built.manifest, '--seed', SEED, '--link-manifest', 'dwp-test'], {
    input: `${JOURNEY.map((l) => JSON.stringify(l)).join('\n')}\n`,
    encoding: 'utf8',
  });
  assert.equal(cli.status, 0, cli.stderr);
  const cliLines = cli.stdout.trimEnd().split('\n');
  assert.equal(cliLines.length, JOURNEY.length);
  for (let i = 0; i < JOURNEY.length; i += 1) assert.equal(pageLines[i], cliLines[i], `envelope ${i} (${JOURNEY[i].tool})`);
  // Every call succeeded, the presentation moved the page, and its deep link has no ref.
  for (const [i, e] of printed.entries()) assert.equal(e.error, undefined, `call ${i}: ${JSON.stringify(e.error)}`);
  assert.equal(printed[8].data.deep_link, '?manifest=dwp-test&case=imprisonment&tab=graph');
  await page.waitForSelector('#tab-graph[aria-selected="true"]');
  assert.match(page.url(), /\?manifest=dwp-test&case=imprisonment&tab=graph$/);
  assert.equal(await page.getAttribute('#panel', 'data-revision'), '1');
  assert.deepEqual(browser.problems, []);
});

test('64 parallel max_bytes 32768 calls in the page give exactly 32 successes', async () => {
  const { page } = browser;
  await openWorkbench(page);
  const outcomes = await page.evaluate(async () => {
    const args = JSON.stringify({ query: 'pension credit', max_bytes: 32768 });
    const texts = await Promise.all(Array.from({ length: 64 }, () => navigator.modelContextTesting.executeTool('okf_search_evidence', args)));
    return texts.map((t) => JSON.parse(t).error?.code ?? 'ok');
  });
  assert.equal(outcomes.filter((o) => o === 'ok').length, 32);
  assert.equal(outcomes.filter((o) => o === 'journey_budget').length, 32);
});

test('a person changing the tab makes an older okf_show_view fail with stale_revision', async () => {
  const { page } = browser;
  await openWorkbench(page, '?manifest=dwp-test&case=imprisonment&tab=requirements');
  await page.waitForSelector('#panel[aria-busy="false"][data-revision]');
  const state = JSON.parse((await execute(page, 'okf_get_state', {})).text);
  const seen = state.state_revision;
  await page.click('#tab-rates');
  await page.waitForSelector('#tab-rates[aria-selected="true"]');
  const stale = JSON.parse((await execute(page, 'okf_show_view', { expected_revision: seen, snapshot_id: state.snapshot_id, case_id: 'imprisonment', view: 'graph' })).text);
  assert.equal(stale.error?.code, 'stale_revision');
  assert.equal(await page.getAttribute('#tab-rates', 'aria-selected'), 'true', 'the page is not touched');
  // With the current revision the presentation goes through and the page shows it.
  const now = JSON.parse((await execute(page, 'okf_get_state', {})).text).state_revision;
  assert.equal(now, seen + 1);
  const shown = JSON.parse((await execute(page, 'okf_show_view', { expected_revision: now, snapshot_id: state.snapshot_id, case_id: 'imprisonment', view: 'graph' })).text);
  assert.equal(shown.error, undefined, JSON.stringify(shown.error));
  assert.equal(shown.data.rendered_revision, now + 1);
  await page.waitForSelector('#tab-graph[aria-selected="true"]');
});

test('opening the manifest again starts a new session', async () => {
  const { page } = browser;
  await openWorkbench(page);
  await execute(page, 'okf_get_state', {});
  const second = JSON.parse((await execute(page, 'okf_get_state', {})).text);
  assert.equal(second.data.usage.calls, 2);
  await page.click('#open');
  await page.waitForFunction(() => document.getElementById('manifest-note').textContent.startsWith('Opened'));
  const fresh = JSON.parse((await execute(page, 'okf_get_state', {})).text);
  assert.equal(fresh.data.usage.calls, 1);
  assert.equal(fresh.snapshot_id, second.snapshot_id);
});

test('invalid tool input is rejected before the session is called', async () => {
  const { page } = browser;
  await openWorkbench(page);
  const first = JSON.parse((await execute(page, 'okf_get_state', {})).text);
  const before = Number(await page.getAttribute('#session-status', 'data-session-calls'));
  const invalid = [
    ['okf_get_state', { hidden: 1 }],
    ['okf_get_state', 'null'],
    ['okf_get_state', '[]'],
    ['okf_search_evidence', { query: ' ' }],
    ['okf_search_evidence', { query: 'x'.repeat(501) }],
    ['okf_search_evidence', { query: 'pension', limit: 11 }],
    ['okf_get_evidence', { ref: 'e-1', section: 'full' }],
    ['okf_show_view', { expected_revision: -1, snapshot_id: first.snapshot_id, case_id: 'imprisonment' }],
    ['okf_show_view', { expected_revision: 0, snapshot_id: first.snapshot_id }],
    ['okf_get_relationships', {}],
    ['okf_get_view_data', { view: 'rates', assessment_date: '2026-02-30' }],
  ];
  for (const [tool, args] of invalid) {
    const r = await execute(page, tool, args);
    assert.equal(r.ok, false, `${tool} ${JSON.stringify(args)} was accepted`);
  }
  const after = JSON.parse((await execute(page, 'okf_get_state', {})).text);
  assert.equal(Number(await page.getAttribute('#session-status', 'data-session-calls')), before + 1, 'only the valid call reached the session');
  assert.equal(after.data.usage.calls, first.data.usage.calls + 1);
});

for (const [name, viewport, shot] of [
  ['desktop', { width: 1280, height: 900 }, 'workbench-desktop'],
  ['390 px', { width: 390, height: 844 }, 'workbench-phone'],
]) {
  test(`axe-core: no serious or critical violation on the workbench page (${name}), every tab`, async () => {
    const b = await launch({ viewport });
    try {
      const { page } = b;
      await openWorkbench(page);
      assert.deepEqual(await seriousViolations(page), [], 'manifest and questions');
      await page.click('button[data-case="imprisonment"]');
      await page.waitForSelector('#panel[aria-busy="false"][data-revision]');
      await page.click('#records button >> nth=2');
      for (const tab of TABS) {
        await page.click(`#tab-${tab}`);
        await page.waitForSelector(`#tab-${tab}[aria-selected="true"]`);
        await page.waitForSelector('#panel[aria-busy="false"]');
        assert.deepEqual(await seriousViolations(page), [], `tab ${tab}`);
        if (tab === 'graph') {
          await page.evaluate(() => document.getElementById('case-heading').scrollIntoView());
          await screenshot(page, shot, { fullPage: false });
        }
      }
      assert.deepEqual(b.problems, []);
    } finally {
      await b.close();
    }
  });
}

async function tabTo(page, predicate, limit = 60) {
  for (let i = 0; i < limit; i += 1) {
    if (await page.evaluate(predicate)) return;
    await page.keyboard.press('Tab');
  }
  throw new Error(`could not reach ${predicate} with Tab`);
}

test('the workbench can be used with the keyboard alone', async () => {
  const page = await plain.context.newPage();
  const seen = plain.problems.length;
  try {
    await openWorkbench(page);
    await tabTo(page, () => document.activeElement?.id === 'case-filter');
    await page.keyboard.type('imprison');
    assert.equal(await page.locator('#cases li').count(), 1);
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#panel[aria-busy="false"][data-revision]');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'case', 'focus moves to the case');
    await tabTo(page, () => document.activeElement?.dataset?.record !== undefined);
    await page.keyboard.press('Enter');
    await page.waitForSelector('#panel blockquote.record-text');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'panel', 'focus moves to the passage');
    // From the passage, Tab wraps round the page (footer, Technical details, every record) to the tabs: 80 presses.
    await tabTo(page, () => document.activeElement?.getAttribute('role') === 'tab', 90);
    await page.keyboard.press('ArrowRight');
    await page.waitForSelector('#tab-trace[aria-selected="true"]');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'tab-trace');
    await page.keyboard.press('End');
    await page.waitForSelector('#tab-calculation[aria-selected="true"]');
    assert.match(page.url(), /tab=calculation$/);
    assert.ok(!/ref=|e-[0-9a-f]{8}-/.test(page.url()), 'the deep link holds no ref');
    assert.deepEqual(plain.problems.slice(seen), []);
  } finally {
    await page.close();
  }
});

/** A page with a hand-made registry (no polyfill) installed by `script` before page scripts. */
async function withRegistry(script, arg, body) {
  const page = await plain.context.newPage();
  try {
    await page.addInitScript(script, arg);
    await openWorkbench(page);
    await body(page);
  } finally {
    await page.close();
  }
}

test('a failed registration disposes every registered tool; navigator.modelContext is not a registry', async () => {
  const fake = (failAt) => {
    const tools = [];
    window.__fakeTools = tools;
    const registry = {
      async registerTool(tool, options) {
        if (tools.length + 1 === failAt) throw new Error('refused by the host');
        tools.push({ name: tool.name, signal: options.signal });
      },
    };
    if (failAt === 0) Object.defineProperty(navigator, 'modelContext', { value: registry });
    else Object.defineProperty(document, 'modelContext', { value: registry });
  };
  await withRegistry(fake, 3, async (page) => {
    assert.equal(await page.getAttribute('#webmcp-status', 'data-available'), 'false');
    assert.match(await page.textContent('#webmcp-status'), /registration failed/);
    const left = await page.evaluate(() => window.__fakeTools.filter((t) => !t.signal.aborted).length);
    assert.equal(left, 0, 'every registration is withdrawn');
  });
  await withRegistry(fake, 0, async (page) => {
    assert.equal(await page.getAttribute('#webmcp-status', 'data-available'), 'false');
    assert.match(await page.textContent('#webmcp-status'), /no page-tool registry/);
  });
});

test('an aborted host signal rejects with AbortError and the reservation is released', async () => {
  const capture = () => {
    const tools = {};
    window.__fakeTools = tools;
    Object.defineProperty(document, 'modelContext', {
      value: {
        async registerTool(tool) {
          tools[tool.name] = tool;
        },
      },
    });
  };
  await withRegistry(capture, undefined, async (page) => {
    const outcome = await page.evaluate(async () => {
      const t = window.__fakeTools;
      const early = new AbortController();
      early.abort();
      const r1 = await t.okf_get_state.execute({}, { signal: early.signal }).then(
        () => 'resolved',
        (e) => e.name,
      );
      // Aborted while the case's files are being fetched.
      const late = new AbortController();
      const pending = t.okf_get_view_data.execute({ view: 'graph', case_id: 'imprisonment', max_bytes: 32768 }, { signal: late.signal });
      late.abort();
      const r2 = await pending.then(
        () => 'resolved',
        (e) => e.name,
      );
      return { r1, r2 };
    });
    assert.equal(outcome.r1, 'AbortError');
    assert.equal(outcome.r2, 'AbortError');
    // The aborted call still finishes in the session, so nothing stays reserved; it passed the
    // gate (one call) and delivered nothing (no bytes).
    await page.waitForSelector('#session-status[data-pending="0"][data-session-calls="1"]', { state: 'attached' });
    const state = await page.evaluate(() => window.__fakeTools.okf_get_state.execute({}, {}));
    assert.equal(state.data.usage.calls, 2);
    assert.equal(state.data.usage.bytes, 0);
  });
});

test('a case says why: its branch table and reasons, every requirement row, no Unknown where the package has a value', async () => {
  const page = await plain.context.newPage();
  const seen = plain.problems.length;
  try {
    const pkg = (await server.ask({ bundle: 'okf-dwp', question: imprisonmentQuestion() })).json;
    assert.equal(pkg.requirements.length, 4, 'JSA, IS, SPC and ESA');
    await openWorkbench(page, '?manifest=dwp-test&case=imprisonment&tab=requirements');
    await page.waitForSelector('#panel[aria-busy="false"] table.view-table');

    // The case opens with the same branch table as the Ask page, one row per requirement,
    // each naming its DMG paragraphs.
    const branches = await page.$$eval('#case-evidence #requirements-table tbody tr', (trs) =>
      trs.map((tr) => ({ id: tr.dataset.requirement, paragraphs: [...tr.querySelectorAll('.paragraphs')].map((p) => p.textContent) })),
    );
    assert.deepEqual(branches.map((b) => b.id), pkg.requirements.map((r) => r.id));
    for (const b of branches) assert.ok(b.paragraphs.some((p) => /paragraphs \d{4,5}/.test(p)), JSON.stringify(b));
    assert.equal(await page.getAttribute('#case-evidence .status', 'data-status'), pkg.evidence_status);
    assert.deepEqual(await strayValueTexts(page), [], 'no empty value is written out as text');
    const days = pkg.selected.flatMap((s) => s.record.provenance ?? []).map((p) => p.captured_at?.slice(0, 10)).filter(Boolean).sort();
    assert.deepEqual([days[0], days.at(-1)], ['2026-09-15', '2026-09-16']);
    assert.match(await page.textContent('#case-evidence #captured'), /^Sources captured: 15 September 2026 to 16 September 2026 \(when the text was copied; not a publication or effective date\)\.$/);

    // The Requirements tab shows every row (the session pages three at a time).
    const rows = await page.$$eval('#panel table.view-table tbody tr', (trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent)));
    assert.equal(rows.length, pkg.requirements.length);
    assert.equal(await page.locator('#panel .coverage').count(), 0, 'no "more rows can be fetched" note');
    const headers = await page.$$eval('#panel table.view-table thead th', (ths) => ths.map((th) => th.textContent));
    const missingColumn = headers.indexOf('Missing');
    for (const [i, r] of pkg.requirements.entries()) {
      assert.equal(rows[i][missingColumn], r.missing.length ? r.missing.join('; ') : 'none', r.id);
      assert.ok(!rows[i].includes('Unknown'), `${r.id}: ${JSON.stringify(rows[i])}`);
    }
    // The qualification, the same for every row here, is said once above the table.
    assert.ok(!headers.includes('Qualification'));
    assert.equal(await page.locator('#panel .shared-field').count(), 1);
    // The view's dates: no assessment date was asked for (said so); capture known.
    assert.match(await page.textContent('#panel dl.dates'), /Sources captured15 September 2026 to 16 September 2026/);

    // The question list shows the status of each case once its package has been verified.
    assert.equal(await page.getAttribute('#cases button[data-case="imprisonment"] ~ .status-tag', 'data-status'), pkg.evidence_status);
    await page.click('#check-all');
    await page.waitForFunction(() => document.getElementById('check-all-note')?.textContent.startsWith('Checked'));
    const tags = await page.$$eval('#cases .status-tag', (ts) => ts.map((t) => t.dataset.status ?? null));
    assert.equal(tags.length, 4);
    assert.ok(tags.every((t) => t === 'sufficient' || t === 'insufficient' || t === 'conflicting'), JSON.stringify(tags));

    // An off-scope case (going abroad, on the imprisonment index) opens with what the bundle does not cover.
    await page.click('#cases button[data-case="staff-001"]');
    await page.waitForSelector('#case-evidence #off-scope');
    assert.match(await page.textContent('#case-evidence #off-scope'), /This bundle does not cover “abroad”, “benefits”\./);
    assert.deepEqual(plain.problems.slice(seen), []);
  } finally {
    await page.close();
  }
});

/** Headings of the page in document order whose level is more than one below the previous one. */
function skippedHeadings(page) {
  return page.evaluate(() => {
    const shown = [...document.querySelectorAll('h1, h2, h3, h4, h5, h6')].filter((h) => h.getClientRects().length > 0);
    const skips = [];
    let previous = 0;
    for (const h of shown) {
      const level = Number(h.tagName[1]);
      if (level > previous + 1) skips.push(`${h.tagName}${h.id ? `#${h.id}` : ''} "${h.textContent.slice(0, 40)}" after h${previous}`);
      previous = level;
    }
    return skips;
  });
}

/** The text a person sees in an element (closed details hide their content). */
const seen = (page, selector) => page.$eval(selector, (e) => e.innerText);

async function showTab(page, tab) {
  await page.click(`#tab-${tab}`);
  await page.waitForSelector(`#tab-${tab}[aria-selected="true"]`);
  await page.waitForSelector('#panel[aria-busy="false"]');
}

for (const [name, viewport] of [
  ['desktop', { width: 1280, height: 900 }],
  ['390 px', { width: 390, height: 844 }],
]) {
  test(`the workbench in words (${name}): a trace in steps, requirements in words, a reason per case, headings in order, counters behind Technical details`, async (t) => {
    const b = await launch({ viewport });
    try {
      const { page } = b;
      await openWorkbench(page);

      // The session's counters are for diagnostics: not shown until Technical details is opened.
      assert.equal(await page.isVisible('#session-status'), false, 'the counters start hidden');
      assert.doesNotMatch(await seen(page, 'footer'), /assistant calls|revision/);
      assert.ok(await page.getAttribute('#session-status', 'data-revision'), 'the data attributes stay');
      await page.click('#session-details > summary');
      assert.equal(await page.isVisible('#session-status'), true);
      assert.match(await seen(page, 'footer'), /assistant calls/);
      await page.click('#session-details > summary');

      // Each case in the list says why it has its status, once its package has been verified.
      await page.click('#check-all');
      await page.waitForFunction(() => document.getElementById('check-all-note')?.textContent.startsWith('Checked'));
      const cases = await page.$$eval('#cases > li', (lis) => lis.map((li) => ({ id: li.querySelector('[data-case]').dataset.case, status: li.querySelector('.status-tag')?.dataset.status, reason: li.querySelector('.case-reason')?.textContent.trim() ?? '' })));
      assert.equal(cases.length, 4);
      for (const c of cases) assert.ok(c.reason.length >= 10 && !/https?:|\{|undefined|null/.test(c.reason), JSON.stringify(c));
      assert.match(cases.find((c) => c.id === 'imprisonment').reason, /^every requirement met/);
      assert.match(cases.find((c) => c.id === 'staff-001').reason, /^off scope: the question names no concept the bundle knows \(“abroad”, “benefits”\)$/);
      assert.deepEqual(await seriousViolations(page), [], 'the case list with reasons');

      for (const id of ['imprisonment', 'staff-002']) {
        await page.click(`button[data-case="${id}"]`);
        await page.waitForSelector('#panel[aria-busy="false"][data-revision]');
        await page.waitForFunction((c) => document.getElementById('case-heading').textContent.length > 4 && location.search.includes(`case=${c}`), id);
        assert.deepEqual(await skippedHeadings(page), [], `${id}: headings`);
        if (id !== 'imprisonment') assert.ok(await page.isVisible('#why-not-heading'), 'an insufficient case says why, under its own heading');
        await page.click('#records button >> nth=0');
        await page.waitForSelector('#panel blockquote.record-text');

        // The trace: numbered steps in words, never JSON; ids and codes behind Technical details.
        await showTab(page, 'trace');
        await page.waitForSelector('#panel ol.trace-steps > li');
        const trace = await seen(page, '#panel');
        assert.doesNotMatch(trace, /[{}]|"kind"/, `${id}: ${trace}`);
        const steps = await page.$$eval('#panel ol.trace-steps > li', (lis) => lis.map((li) => li.innerText));
        assert.ok(steps.every((s) => !/https?:\/\/|[{}]/.test(s)), `${id}: ${steps.join('\n')}`);
        assert.match(trace, /Matched words of the question|Reached through|Selected directly/, trace);
        if (id === 'staff-002') assert.match(trace, /Missing: /, trace);
        assert.equal(await page.locator('#panel details.technical-details').count(), 1);
        assert.equal(await page.isVisible('#panel .trace-ids'), false);
        assert.deepEqual(await skippedHeadings(page), [], `${id}: headings, trace`);
        assert.deepEqual(await seriousViolations(page), [], `${id}: trace`);

        // The requirements: status and authority in words, no unknown effective date.
        await showTab(page, 'requirements');
        const reqs = await seen(page, '#panel');
        for (const code of ['supported-within-declared-scope', 'retained-evidence-projection', '? Unknown', 'Effective from', 'Effective to']) {
          assert.ok(!reqs.includes(code), `${id}: "${code}" in ${reqs}`);
        }
        assert.match(reqs, /Authority: taken from the retained evidence package/);
        assert.equal(await page.locator('#panel dl.dates .unknown').count(), 0, `${id}: no "? Unknown" date`);
        if (id === 'imprisonment') {
          const statuses = await page.$$eval('#panel table.view-table tbody tr .badge', (bs) => bs.map((x) => x.textContent));
          assert.deepEqual(statuses, ['met', 'met', 'met', 'met']);
        }
        assert.deepEqual(await skippedHeadings(page), [], `${id}: headings, requirements`);
        assert.deepEqual(await seriousViolations(page), [], `${id}: requirements`);
      }
      if (viewport.width === 390) {
        // docs/web.md: the workbench page's height at 390 px with the imprisonment case open.
        await page.click('button[data-case="imprisonment"]');
        await page.waitForSelector('#panel[aria-busy="false"][data-revision]');
        await page.waitForFunction(() => location.search.includes('case=imprisonment'));
        t.diagnostic(`workbench page at 390 px, imprisonment case, Passage tab: ${await page.evaluate(() => document.documentElement.scrollHeight)} px`);
      }
      assert.deepEqual(b.problems, []);
    } finally {
      await b.close();
    }
  });
}
