// Loading and error states: a bad question is refused before any request, an unknown bundle
// and a rate-limited request show the server's error (with Retry-After).

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { launch, openPage, screenshot, startServer } from './harness.mjs';

let server;
let limited;
let browser;

before(async () => {
  server = await startServer();
  limited = await startServer(['--rate-limit-per-minute', '12']);
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await server?.stop();
  await limited?.stop();
});

function countRequests(page) {
  const seen = [];
  const listener = (request) => seen.push(`${request.method()} ${new URL(request.url()).pathname}`);
  page.on('request', listener);
  return { seen, stop: () => page.off('request', listener) };
}

test('a blank or over-long question is refused on the page, without a request', async () => {
  const { page } = browser;
  await openPage(page, server.base);
  const requests = countRequests(page);
  await page.fill('#question', '   ');
  await page.click('#submit');
  await page.waitForSelector('#error:not([hidden])');
  assert.match(await page.textContent('#error'), /question: type a question/);
  assert.equal(await page.getAttribute('#question', 'aria-invalid'), 'true');
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'question', 'focus moves to the field at fault');
  // maxlength stops typing but not a script (or a pasted permalink); the page still checks.
  await page.$eval('#question', (q) => {
    q.value = 'x'.repeat(4001);
  });
  await page.click('#submit');
  await page.waitForFunction(() => document.getElementById('error').textContent.includes('4001'));
  await page.fill('#question', 'How do I borrow books?');
  await page.click('#budget-box summary');
  await page.fill('#max_bytes', '42');
  await page.click('#submit');
  await page.waitForFunction(() => document.getElementById('error').textContent.includes('budget.max_bytes'));
  assert.equal(await page.getAttribute('#max_bytes', 'aria-invalid'), 'true');
  requests.stop();
  assert.deepEqual(requests.seen, [], 'nothing was sent');
  await page.fill('#max_bytes', '');
  assert.deepEqual(browser.problems, []);
});

test('an unknown bundle shows the server error', async () => {
  const { page } = browser;
  const requests = countRequests(page);
  await page.goto(`${server.base}/#bundle=nope&q=${encodeURIComponent('How do I borrow books?')}`);
  await page.waitForSelector('#error:not([hidden])');
  requests.stop();
  assert.equal(await page.getAttribute('#error', 'data-code'), 'unknown_bundle');
  assert.match(await page.textContent('#error h3'), /Unknown bundle/);
  assert.match(await page.textContent('#error'), /"nope" is not served here/);
  assert.ok(await page.isHidden('#results'));
  assert.ok(requests.seen.includes('POST /api/ask'));
  await screenshot(page, 'error-unknown-bundle');
  // A 404 for the ask is expected console noise from Chromium; nothing else.
  assert.deepEqual(browser.problems.filter((p) => !/status of 404/.test(p)), []);
  browser.problems.length = 0;
});

test('a rate-limited request says when to retry', async () => {
  const { page } = browser;
  await openPage(page, limited.base);
  await page.fill('#question', 'How do I borrow books?');
  let code = null;
  for (let i = 0; i < 15 && code !== 'rate_limited'; i += 1) {
    await page.click('#submit');
    await page.waitForFunction(() => document.getElementById('ask-form').getAttribute('aria-busy') === 'false');
    code = await page.evaluate(() => (document.getElementById('error').hidden ? null : document.getElementById('error').dataset.code));
  }
  assert.equal(code, 'rate_limited');
  const retry = Number(await page.getAttribute('#error', 'data-retry-after'));
  assert.ok(retry >= 1 && retry <= 60, `Retry-After ${retry}`);
  assert.match(await page.textContent('#error'), new RegExp(`Try again in ${retry} second`));
  assert.match(await page.textContent('#error h3'), /rate limited/);
  assert.deepEqual(browser.problems.filter((p) => !/status of 429/.test(p)), []);
});
