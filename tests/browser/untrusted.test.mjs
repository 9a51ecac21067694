// 3. Untrusted record text and labels are shown as text, never run; links only for https
//    provenance URLs. The bundle is a changed copy of the example index, with its record
//    text digest recomputed so that it still verifies.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { askThroughForm, launch, okfBin, openPage, repoRoot, screenshot, sha256Hex, startServer, tempDir } from './harness.mjs';

const PAYLOAD = 'Members may borrow 12 books. <script>window.__pwned=1</script><img src=x onerror="window.__pwned=2">';
const LABEL = 'Loan rules <img src=x onerror="window.__pwned=3"><b>bold?</b>';
const RULES = 'https://example.org/okf-example/evidence/lending-rules';
const CARD = 'https://example.org/okf-example/evidence/card-eligibility';

let dir;
let server;
let browser;

before(async () => {
  dir = tempDir('untrusted');
  const index = JSON.parse(readFileSync(path.join(repoRoot, 'crates/okf/example/index.json'), 'utf8'));
  const rules = index.records.find((r) => r.id === RULES);
  rules.text = PAYLOAD;
  rules.label = LABEL;
  rules.provenance[0].literal_sha256 = sha256Hex(Buffer.from(PAYLOAD, 'utf8'));
  // Provenance URLs that must never become links.
  const card = index.records.find((r) => r.id === CARD);
  card.provenance[0].url = 'javascript:window.__pwned=4';
  card.provenance.push({ ...card.provenance[0], url: 'http://example.org/okf-example/sources/plain-http.html' });
  card.provenance.push({ ...card.provenance[0], url: 'https://user:secret@example.org/okf-example/sources/with-credentials.html' });
  const bytes = Buffer.from(JSON.stringify(index), 'utf8');
  writeFileSync(path.join(dir, 'index.json'), bytes);
  // The same bundle retained as an evidence workbench, for the /evidence/ page.
  writeFileSync(path.join(dir, 'questions.json'), JSON.stringify({ questions: [{ id: 'borrow', label: 'Borrowing <i>books</i>', question: 'How do I borrow books?' }] }));
  execFileSync(okfBin, ['workbench', 'build', '--index', path.join(dir, 'index.json'), '--questions', path.join(dir, 'questions.json'), '--out', path.join(dir, 'wb')]);
  writeFileSync(
    path.join(dir, 'registry.toml'),
    `[[bundle]]\nid = "hostile"\nindex = "index.json"\nsha256 = "${sha256Hex(bytes)}"\nindex_url = "https://example.org/okf-example/hostile/index.json"\n` +
      `\n[[workbench]]\nid = "hostile-wb"\nmanifest = "wb/manifest.json"\n`,
  );
  server = await startServer(['--registry', path.join(dir, 'registry.toml')]);
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

test('record text and labels containing HTML are shown literally and never run', async () => {
  const { page } = browser;
  await openPage(page, server.base);
  await askThroughForm(page, 'hostile', 'How do I borrow books?');
  const { json: pkg } = await server.ask({ bundle: 'hostile', question: 'How do I borrow books?' });
  assert.ok(pkg.selected.some((s) => s.record.id === RULES && s.record.text === PAYLOAD), 'the package carries the payload byte for byte');
  assert.equal(await page.textContent('#context-id'), pkg.context_id);

  // Open the record from the graph, then its text.
  const record = page.locator(`details.record[data-id="${RULES}"]`);
  await page.locator(`#graph-svg g.node[data-id="${RULES}"]`).click();
  assert.equal(await record.getAttribute('open'), '');
  assert.equal(await record.locator('.record-label').textContent(), LABEL, 'the label is text');
  await record.locator('details.record-text > summary').click();
  const pre = record.locator('pre.record-text-body');
  // The text is filled on the details element's toggle event, which fires as a separate task.
  await page.waitForFunction(
    (id) => document.querySelector(`details.record[data-id="${CSS.escape(id)}"] pre.record-text-body`)?.textContent !== '',
    RULES,
  );
  assert.equal(await pre.textContent(), PAYLOAD);
  assert.ok(await pre.isVisible());
  assert.ok((await pre.innerText()).includes('<script>window.__pwned=1</script>'), 'the literal markup is visible');
  assert.equal(await page.evaluate(() => window.__pwned), undefined, 'nothing ran');

  // No element was created from the payload anywhere on the page.
  assert.equal(await page.locator('#results script').count(), 0);
  assert.equal(await page.locator('#results img').count(), 0);
  assert.equal(await page.locator('#results b').count(), 0);
  assert.ok((await page.textContent(`#graph-svg g.node[data-id="${RULES}"] title`)).includes('<img src=x'), 'graph titles are text too');

  // Links: provenance links only for https URLs, opened without opener or referrer.
  const card = page.locator(`details.record[data-id="${CARD}"]`);
  await card.locator('summary').first().click();
  const cardText = await card.textContent();
  assert.ok(cardText.includes('javascript:window.__pwned=4') && cardText.includes('http://example.org/okf-example/sources/plain-http.html'));
  const links = await page.$$eval('#results a[href]', (as) => as.map((a) => ({ id: a.id, href: a.getAttribute('href'), rel: a.getAttribute('rel'), section: a.dataset.section })));
  for (const link of links) {
    if (link.id === 'download') assert.match(link.href, /^blob:/);
    else if (link.section !== undefined) assert.equal(link.href, `#${link.section}`, 'an "On this page" link goes to a section of the page');
    else if (link.id === 'permalink') assert.ok(link.href.startsWith(`${server.base}/#`));
    else {
      assert.match(link.href, /^https:\/\//, JSON.stringify(link));
      assert.equal(link.rel, 'noopener noreferrer');
    }
  }
  assert.ok(!links.some((l) => /javascript:|^http:|@/.test(l.href) && l.id !== 'permalink'));
  await page.evaluate(() => document.querySelector('details.record[open] pre')?.scrollIntoView({ block: 'center' }));
  await screenshot(page, 'untrusted-text');
  assert.equal(await page.evaluate(() => window.__pwned), undefined);
  assert.deepEqual(browser.problems, [], 'no console errors (no blocked inline script either: none was created)');
});

test('the workbench page shows retained hostile text literally and links only credential-free https URLs', async () => {
  const { page } = browser;
  await page.goto(`${server.base}/evidence/?manifest=hostile-wb&case=borrow&record=${encodeURIComponent(RULES)}&tab=source`);
  await page.waitForSelector('#panel blockquote.record-text');
  assert.equal(await page.textContent('#panel blockquote.record-text'), PAYLOAD);
  assert.ok((await page.textContent('#case-heading')).includes('Borrowing <i>books</i>'), 'labels are text');
  assert.equal(await page.locator(`#records button[data-record="${RULES}"]`).textContent(), LABEL);
  assert.equal(await page.locator('main script, main img, main b, main i').count(), 0, 'no element from the payload');
  assert.ok((await page.$$eval('#panel a[href^="https://"]', (as) => as.length)) > 0, 'https provenance is a link');
  // The card record's provenance: javascript:, plain http and a URL with credentials are no links.
  await page.click(`#records button[data-record="${CARD}"]`);
  await page.waitForFunction(() => document.querySelector('#panel ul.provenance'));
  const text = await page.textContent('#panel ul.provenance');
  for (const url of ['javascript:window.__pwned=4', 'http://example.org/okf-example/sources/plain-http.html', 'https://user:secret@example.org/']) {
    assert.ok(text.includes(url), url);
  }
  assert.ok((text.match(/\(no link\)/g) ?? []).length >= 3);
  const hrefs = await page.$$eval('main a[href]', (as) => as.map((a) => a.getAttribute('href')));
  assert.ok(hrefs.every((h) => h.startsWith('https://') && !h.includes('@')), JSON.stringify(hrefs));
  assert.equal(await page.evaluate(() => window.__pwned), undefined, 'nothing ran');
  assert.deepEqual(browser.problems, []);
});
