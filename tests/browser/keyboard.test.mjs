// 4. Keyboard only: Tab to the question, type, Enter; Tab to the button, Space; open a
//    record from the graph with Enter. No mouse event is used.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { launch, openPage, startServer, waitForPackage } from './harness.mjs';

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

async function tabTo(page, id, limit = 40) {
  for (let i = 0; i < limit; i += 1) {
    if ((await page.evaluate(() => document.activeElement?.id)) === id) return;
    await page.keyboard.press('Tab');
  }
  throw new Error(`could not reach #${id} with Tab`);
}

const contextId = (page) => page.evaluate(() => document.getElementById('context-id')?.textContent ?? null);

test('the form can be used with the keyboard alone', async () => {
  const { page } = browser;
  await openPage(page, server.base);

  // Tab from the top of the page to the question, type, press Enter.
  await tabTo(page, 'question');
  await page.keyboard.type('How do I borrow');
  await page.keyboard.press('Shift+Enter'); // a new line, not a submission
  assert.equal(await contextId(page), null);
  await page.keyboard.type('books?');
  assert.equal(await page.inputValue('#question'), 'How do I borrow\nbooks?');
  await page.keyboard.press('Enter');
  await waitForPackage(page);
  const first = await server.ask({ bundle: 'example', question: 'How do I borrow\nbooks?' });
  assert.equal(await contextId(page), first.json.context_id);
  assert.equal(await page.getAttribute('#status', 'data-status'), 'sufficient');

  // Replace the question, Tab to the button and press Space.
  await page.focus('#question');
  await page.keyboard.press('Control+A');
  await page.keyboard.type('Explain room booking');
  await tabTo(page, 'submit');
  const before = await contextId(page);
  await page.keyboard.press('Space');
  await waitForPackage(page, before);
  const second = await server.ask({ bundle: 'example', question: 'Explain room booking' });
  assert.equal(await contextId(page), second.json.context_id);
  assert.equal(await page.getAttribute('#status', 'data-status'), 'insufficient');

  // The budget fields open and take values from the keyboard.
  await page.focus('#question');
  await page.keyboard.press('Control+A');
  await page.keyboard.type('How do I borrow books?');
  // Past the bundle's example questions (buttons under the question) to the Budget summary.
  for (let i = 0; !(await page.evaluate(() => document.activeElement?.matches('#budget-box summary'))); i += 1) {
    assert.ok(i < 10, 'the Budget summary is a few tab stops after the question');
    await page.keyboard.press('Tab');
  }
  await page.keyboard.press('Enter'); // opens it
  await tabTo(page, 'max_nodes');
  await page.keyboard.type('3');
  await tabTo(page, 'submit');
  const previous = await contextId(page);
  await page.keyboard.press('Enter');
  await waitForPackage(page, previous);
  const third = await server.ask({ bundle: 'example', question: 'How do I borrow books?', budget: { max_nodes: 3 } });
  assert.equal(await contextId(page), third.json.context_id);
  assert.equal(await page.getAttribute('#status', 'data-status'), third.json.evidence_status);

  // A graph node is reachable with Tab and opens its record with Enter; focus follows.
  const nodeId = await page.$eval('#graph-svg g.node', (g) => g.dataset.id);
  await page.focus('#graph-svg g.node');
  await page.keyboard.press('Enter');
  assert.equal(await page.evaluate(() => document.activeElement?.closest('details.record')?.dataset.id), nodeId);
  assert.equal(await page.getAttribute(`details.record[data-id="${nodeId}"]`, 'open'), '');

  // The copy button works from the keyboard (or says how to copy when the clipboard is unavailable).
  await page.focus('#copy-id');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.getElementById('copy-note')?.textContent !== '');
  assert.match(await page.textContent('#copy-note'), /Copied\.|select the id/);
  assert.deepEqual(browser.problems, []);
});

test('an ambiguous phrase offers each meaning as a button that asks again with it', async () => {
  const { page } = browser;
  await openPage(page, server.base);
  await page.fill('#question', 'Explain room booking');
  await page.keyboard.press('Enter');
  await waitForPackage(page);
  const first = await server.ask({ bundle: 'example', question: 'Explain room booking' });
  assert.deepEqual(first.json.ambiguities.map((a) => a.phrase), ['room booking']);
  const buttons = await page.$$eval('#why-not .choices button', (bs) => bs.map((b) => [b.textContent, b.dataset.question]));
  assert.deepEqual(buttons, [
    ['Ask about “Meeting room hire”', 'Explain meeting room'],
    ['Ask about “Study room booking”', 'Explain study room'],
  ]);
  const before = await contextId(page);
  await page.focus('#why-not .choices button:nth-of-type(2)');
  await page.keyboard.press('Enter');
  await waitForPackage(page, before);
  const chosen = await server.ask({ bundle: 'example', question: 'Explain study room' });
  assert.deepEqual(chosen.json.ambiguities, []);
  assert.equal(await contextId(page), chosen.json.context_id);
  assert.equal(await page.inputValue('#question'), 'Explain study room');
  assert.deepEqual(browser.problems, []);
});

test('an AI answer pasted under the package is checked, with the same report bytes as the HTTP API', async () => {
  const { page } = browser;
  await openPage(page, server.base);
  await page.fill('#question', 'How do I borrow books?');
  await page.keyboard.press('Enter');
  await waitForPackage(page);
  const pkg = (await server.ask({ bundle: 'example', question: 'How do I borrow books?' })).json;
  const record = (end) => pkg.selected.find((s) => s.record.id.endsWith(end)).record;
  // Quotes must be whole sentences: each record's first.
  const firstSentence = (text) => `${text.split('. ')[0]}.`;
  const answer = {
    schema: 'okf-grounded-answer.v1',
    context_id: pkg.context_id,
    evidence_status: pkg.evidence_status,
    claims: [
      { id: 'c1', text: 'Up to 12 books.', requirement: pkg.requirements[0].id, citations: [{ record: record('lending-rules').id, quote: firstSentence(record('lending-rules').text) }] },
      { id: 'c2', text: 'Residents can join.', requirement: null, citations: [{ record: record('card-eligibility').id, quote: firstSentence(record('card-eligibility').text) }] },
    ],
  };
  const viaHttp = await fetch(`${server.base}/api/check-answer`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ answer }) });
  const expected = await viaHttp.text();
  await page.click('#answer-box > summary');
  await page.click('#answer-json-box > summary');
  await page.fill('#answer-input', JSON.stringify(answer));
  await page.click('#answer-check');
  await page.waitForSelector('#answer-report [data-verdict]');
  assert.equal(await page.getAttribute('#answer-report [data-verdict]', 'data-verdict'), 'grounded');
  assert.equal(await page.textContent('#answer-report-json'), expected, 'the page shows the API report bytes');
  assert.equal(await page.getAttribute('#answer-branches li', 'data-covered'), 'true');
  // The branch table says which branches the answer covers.
  assert.equal(await page.getAttribute('#requirements-table tbody tr', 'data-answer-covered'), 'true');
  assert.equal(await page.textContent('#requirements-table tbody tr .answer-coverage'), 'Answer covers it (c1, c2)');

  // One word changed in a quote: not grounded, and the claim says why.
  answer.claims[0].citations[0].quote = answer.claims[0].citations[0].quote.replace('12', '15');
  await page.fill('#answer-input', JSON.stringify(answer));
  await page.click('#answer-check');
  await page.waitForSelector('#answer-report [data-verdict="not_grounded"]');
  assert.match(await page.textContent('#answer-report [data-verdict]'), /Not grounded Why:.*not on the record cited/);
  assert.match(await page.textContent('#answer-technical'), /quote_not_found/);
  assert.match(await page.textContent('#answer-claims li[data-claim="c1"]'), /quote_not_found/);
  // c2's record still covers the branch; one mark per row, replaced by the latest check.
  assert.equal(await page.locator('#requirements-table tbody tr .answer-coverage').count(), 1);
  assert.equal(await page.textContent('#requirements-table tbody tr .answer-coverage'), 'Answer covers it (c2)');
  assert.deepEqual(browser.problems, []);
});
