// 7. Accessibility and the Ask page review: axe-core (WCAG 2.2 A/AA and best
//    practice) finds no serious or critical violation on desktop and at 390 px with every
//    section expanded; the review's defects stay fixed (error without a stray "null" and
//    without the older package; the skip link keeps the permalink; scope and limitations
//    once; an insufficient package says in words what is missing; reasons show labels; the
//    graph is drawn at its own size with a heading over every column and is one tab stop;
//    a filter over records); and a keyboard-only journey.

import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { hospitalQuestion, askThroughForm, dwpRegistry, imprisonmentQuestion, launch, openPage, screenshot, seriousViolations, shared, startServer, tempDir, waitForPackage } from './harness.mjs';


let dir;
let server;
let desktop;
let phone;

before(async () => {
  dir = tempDir('a11y');
  server = await startServer(['--registry', dwpRegistry(dir)]);
  desktop = await launch();
  phone = await launch({ viewport: { width: 390, height: 844 } });
});

after(async () => {
  await desktop?.close();
  await phone?.close();
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});


/** Opens every details element (records, record texts, units, tables, budget) and waits for the lazily filled texts. */
async function expandEverything(page) {
  await page.evaluate(() => {
    for (const d of document.querySelectorAll('details')) d.open = true;
  });
  // Every DWP record has text; it is filled on each details element's toggle event.
  await page.waitForFunction(() => [...document.querySelectorAll('details.record-text pre')].every((p) => p.textContent !== ''));
}

for (const [name, getBrowser] of [
  ['desktop', () => desktop],
  ['390 px', () => phone],
]) {
  test(`axe-core: no serious or critical violation on the Ask page (${name}), every section expanded`, async () => {
    const browser = getBrowser();
    const { page } = browser;
    await openPage(page, server.base);
    assert.deepEqual(await seriousViolations(page), [], 'empty page');
    for (const question of [imprisonmentQuestion(), hospitalQuestion()]) {
      await askThroughForm(page, 'okf-dwp', question);
      await expandEverything(page);
      assert.deepEqual(await seriousViolations(page), [], `package for ${question.slice(0, 40)}…`);
    }
    // The error state.
    await page.fill('#question', ' ');
    await page.click('#submit');
    await page.waitForSelector('#error:not([hidden])');
    assert.deepEqual(await seriousViolations(page), [], 'error state');
    assert.deepEqual(browser.problems, []);
  });
}

test('the review defects of the Ask page stay fixed', async () => {
  const { page } = desktop;
  await openPage(page, server.base);
  const api = await server.ask({ bundle: 'okf-dwp', question: imprisonmentQuestion() });
  await askThroughForm(page, 'okf-dwp', imprisonmentQuestion());

  // Focus and scroll go to the status after a build.
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'status');
  assert.ok(await page.evaluate(() => Math.abs(document.getElementById('status').getBoundingClientRect().top) < 5), 'the status is scrolled to the top');

  // Scope and limitations once, not under every requirement row.
  assert.equal(api.json.requirements.length, 4);
  assert.equal(await page.locator('#requirements .req-scope').count(), 1);
  assert.equal(await page.locator('#requirements-table tbody .req-scope').count(), 0);

  // Reasons name records and predicates by label, not by IRI.
  const reasons = await page.$$eval('ul.reasons li', (lis) => lis.map((li) => li.textContent));
  assert.ok(reasons.length >= api.json.selected.length);
  assert.deepEqual(reasons.filter((r) => /https?:\/\//.test(r)), [], 'no raw IRI in "why selected"');
  assert.ok(reasons.some((r) => /Reached by following (requires|references|related|narrower|broader) from “/.test(r)));

  // The graph is drawn at its own size, every column has a heading, one tab stop.
  const graph = await page.evaluate(() => {
    const s = document.getElementById('graph-svg');
    const xs = new Set([...s.querySelectorAll('g.node')].map((g) => g.transform.baseVal[0].matrix.e));
    return {
      scale: s.getBoundingClientRect().width / Number(s.getAttribute('width')),
      columns: xs.size,
      headings: s.querySelectorAll('text.depth-label').length,
      tabStops: s.querySelectorAll('g.node[tabindex="0"]').length,
      fontPx: Number.parseFloat(getComputedStyle(s.querySelector('g.node text')).fontSize),
    };
  });
  assert.equal(graph.scale, 1, 'not shrunk');
  assert.equal(graph.fontPx, 12);
  assert.equal(graph.headings, graph.columns, 'a heading over every column');
  assert.equal(graph.tabStops, 1);
  // Labels are cut only between words: every visible line is made of whole words of the label.
  const cut = await page.$$eval('#graph-svg g.node', (gs) =>
    gs.flatMap((g) => {
      const words = new Set(g.querySelector('title').textContent.split(/\s+/));
      return [...g.querySelectorAll('tspan')].flatMap((t) => t.textContent.split(' ').filter((w) => w !== '' && w !== '…' && !words.has(w)));
    }),
  );
  assert.deepEqual(cut, [], 'no word cut in the middle');

  // The filter over records.
  await page.fill('#record-filter', 'concept');
  const visible = await page.locator('details.record:not([hidden])').count();
  const concepts = api.json.selected.filter((s) => `${s.record.label} ${s.record.id} ${s.record.kind} ${s.record.assertion_status} ${s.record.review_status ?? ''}`.toLowerCase().includes('concept')).length;
  assert.equal(visible, concepts);
  assert.ok(visible > 0 && visible < api.json.selected.length);
  assert.match(await page.textContent('#record-filter-note'), new RegExp(`Showing ${concepts} of ${api.json.selected.length} records`));
  await page.fill('#record-filter', '');

  // An insufficient package says in words what is missing, with the unresolved terms.
  const hospital = await server.ask({ bundle: 'okf-dwp', question: hospitalQuestion() });
  await askThroughForm(page, 'okf-dwp', hospitalQuestion());
  const reasonsShown = await page.$$eval('#why-not > li', (lis) => lis.map((li) => li.dataset.reason));
  assert.ok(reasonsShown.includes('unresolved_terms') && reasonsShown.includes('no_evidence_requirements'), reasonsShown.join());
  const terms = await page.$$eval('#why-not li[data-reason="unresolved_terms"] mark', (ms) => ms.map((m) => m.textContent));
  assert.deepEqual(terms, hospital.json.unresolved_terms);
  assert.ok(terms.includes('hospital'));
  await screenshot(page.locator('#status'), 'insufficient-why');

  // A form error: no stray "null", and the older package is not left under it.
  await page.fill('#question', ' ');
  await page.click('#submit');
  await page.waitForSelector('#error:not([hidden])');
  assert.doesNotMatch(await page.textContent('#error'), /null/);
  assert.ok(await page.isHidden('#results'), 'no stale package under the error');

  // The skip link keeps the permalink in the address bar.
  await askThroughForm(page, 'okf-dwp', imprisonmentQuestion());
  const hash = await page.evaluate(() => location.hash);
  assert.match(hash, /^#bundle=okf-dwp&q=/);
  await page.focus('a.skip');
  await page.keyboard.press('Enter');
  assert.equal(await page.evaluate(() => location.hash), hash);
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'results');
  assert.deepEqual(desktop.problems, []);
});

test('keyboard only: skip link, ask, land on the status, the graph is one stop, open a record', async () => {
  const { page } = phone;
  await openPage(page, server.base);
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement?.className), 'skip', 'the skip link comes first');
  await page.keyboard.press('Enter');
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'question', 'without results the skip link goes to the question');
  await page.keyboard.type(imprisonmentQuestion());
  await page.keyboard.press('Enter');
  await waitForPackage(page);
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'status');
  await screenshot(page, 'phone-status');
  // The review measured the requirements table at 6,600 px on this phone (scope and
  // limitations under every row); said once, the section is a fraction of that.
  const requirementsHeight = await page.evaluate(() => document.getElementById('requirements').getBoundingClientRect().height);
  assert.ok(requirementsHeight < 2000, `requirements section is ${requirementsHeight} px tall at 390 px`);

  // Tab from the status to the first record: the graph costs one stop, not one per box.
  let tabs = 0;
  let graphStops = 0;
  while (tabs < 60) {
    await page.keyboard.press('Tab');
    tabs += 1;
    // Records sit in closed groups by branch; a group's summary is the first stop there.
    const here = await page.evaluate(() => ({ node: Boolean(document.activeElement?.closest('#graph-svg')), record: Boolean(document.activeElement?.closest('details.record, details.record-group')) }));
    if (here.node) graphStops += 1;
    if (here.record) break;
  }
  assert.equal(graphStops, 1);
  assert.ok(tabs < 30, `${tabs} tabs from the status to the first record`);

  // Back to the graph with Shift+Tab until a box has focus, move with the arrows, open with Enter.
  for (let i = 0; i < 40 && !(await page.evaluate(() => Boolean(document.activeElement?.closest('#graph-svg')))); i += 1) {
    await page.keyboard.press('Shift+Tab');
  }
  const first = await page.evaluate(() => document.activeElement?.dataset.id);
  await page.keyboard.press('ArrowDown');
  const second = await page.evaluate(() => document.activeElement?.dataset.id);
  assert.notEqual(second, first);
  await page.keyboard.press('Enter');
  assert.equal(await page.evaluate(() => document.activeElement?.closest('details.record')?.dataset.id), second);
  assert.deepEqual(phone.problems, []);
});
