// 2. Insufficient and ambiguous questions of the example bundle show their diagnostics;
//    the conflicting one shows its conflict. Also a narrow-screen screenshot.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { askThroughForm, expectedCounts, launch, openPage, screenshot, screenshotRegion, shownCounts, startServer } from './harness.mjs';

let server;
let browser;

before(async () => {
  server = await startServer();
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

async function issueCodes(page, id) {
  return page.$$eval(`#${id} > li`, (lis) => lis.map((li) => li.dataset.code));
}

test('an insufficient question shows its unresolved term and what is missing', async () => {
  const { page } = browser;
  const question = 'Explain overdue fines for DVDs';
  await openPage(page, server.base);
  await askThroughForm(page, 'example', question);
  const { json: pkg } = await server.ask({ bundle: 'example', question });
  assert.equal(pkg.evidence_status, 'insufficient');
  assert.deepEqual(pkg.unresolved_terms, ['dvds']);

  assert.equal(await page.getAttribute('#status', 'data-status'), 'insufficient');
  assert.match(await page.textContent('#status .status-meaning'), /say exactly what is missing/);
  assert.deepEqual(await page.$$eval('#unresolved mark', (ms) => ms.map((m) => m.textContent)), ['dvds']);
  assert.deepEqual(await issueCodes(page, 'missing-list'), pkg.missing_evidence.map((i) => i.code));
  assert.ok((await issueCodes(page, 'missing-list')).includes('unresolved_terms'));
  assert.deepEqual(await shownCounts(page), expectedCounts(pkg));
  assert.equal(await page.textContent('#context-id'), pkg.context_id);
  await screenshotRegion(page, 'insufficient', '#status', '#missing');
  assert.deepEqual(browser.problems, []);
});

test('an ambiguous question shows the phrase and every candidate, none chosen', async () => {
  const { page } = browser;
  const question = 'Explain room booking';
  await askThroughForm(page, 'example', question);
  const { json: pkg } = await server.ask({ bundle: 'example', question });
  assert.equal(await page.getAttribute('#status', 'data-status'), 'insufficient');
  const shown = await page.$$eval('#ambiguities > li', (lis) =>
    lis.map((li) => ({ phrase: li.dataset.phrase, candidates: [...li.querySelectorAll('[data-id]')].map((c) => c.dataset.id) })),
  );
  assert.deepEqual(shown, pkg.ambiguities.map((a) => ({ phrase: a.phrase, candidates: a.candidates })));
  assert.equal(shown[0].phrase, 'room booking');
  assert.deepEqual(await issueCodes(page, 'missing-list'), pkg.missing_evidence.map((i) => i.code));
  assert.ok((await issueCodes(page, 'missing-list')).includes('ambiguous_concepts'));
  assert.ok((await issueCodes(page, 'missing-list')).includes('restricted_evidence'));
  assert.match(await page.textContent('#requirements'), /No declared evidence requirement applies/);
  // The relationship to the restricted record is listed in the table as not selected.
  assert.match(await page.textContent('#graph-table'), /\(not selected\)/);
  assert.match(await page.textContent('#graph-note'), /point to items that were not selected/);
  assert.deepEqual(await shownCounts(page), expectedCounts(pkg));
  await screenshotRegion(page, 'ambiguous', '#status', '#missing');
  assert.deepEqual(browser.problems, []);
});

test('a conflicting question shows the declared conflict', async () => {
  const { page } = browser;
  const question = 'What are the opening hours?';
  await askThroughForm(page, 'example', question);
  const { json: pkg } = await server.ask({ bundle: 'example', question });
  assert.equal(pkg.evidence_status, 'conflicting');
  assert.equal(await page.getAttribute('#status', 'data-status'), 'conflicting');
  assert.deepEqual(await issueCodes(page, 'conflicts-list'), pkg.conflicts.map((c) => c.code));
  const ids = await page.$$eval('#conflicts-list code:not(.issue-code)', (cs) => cs.map((c) => c.textContent));
  assert.deepEqual(ids, pkg.conflicts.flatMap((c) => c.ids));
  assert.deepEqual(browser.problems, []);
});

test('the page is readable on a narrow screen', async () => {
  const narrow = await launch({ viewport: { width: 390, height: 844 } });
  try {
    const { page } = narrow;
    await openPage(page, server.base);
    await askThroughForm(page, 'example', 'How do I borrow books?');
    assert.equal(await page.getAttribute('#status', 'data-status'), 'sufficient');
    // Nothing but the graph and wide tables (inside their own scroll boxes) is wider than the screen.
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(overflow <= 0, `page scrolls sideways by ${overflow}px`);
    await screenshot(page, 'narrow');
    assert.deepEqual(narrow.problems, []);
  } finally {
    await narrow.close();
  }
});

test('the form states the served contract’s limits and the page says what it is not', async () => {
  const { page } = browser;
  await openPage(page, server.base);
  // The limits come from /assets/contract.js (generated from the server's own crate), not the HTML.
  const contract = await page.evaluate(async () => (await import('/assets/contract.js')).CONTRACT);
  assert.equal(await page.$eval('#question', (q) => q.maxLength), contract.limits.max_question);
  assert.match(await page.textContent('#question-note'), new RegExp(`^1–${contract.limits.max_question} characters\\. `));
  for (const [key, min, max, value] of contract.limits.budget) {
    const input = await page.$eval(`#${key}`, (i) => ({ min: i.min, max: i.max, placeholder: i.placeholder }));
    assert.deepEqual(input, { min: String(min), max: String(max), placeholder: `default ${value}` }, key);
  }
  assert.match(await page.textContent('.phase-banner'), /Experimental.*not official guidance, not advice and not a decision/s);
});
