// 16. The reviewer's page (issue 45 item 4): the hospital profile built without decisions,
//     served in the richer profile. "Review this branch" on the chapter 18 branch lists its
//     closure (the requirement, its required pages, the assertion of its path) with each
//     item's exact text, source and locator and the item_sha256 `okf review digest` prints;
//     a decision without a reason, a missing role and id and a bad date are refused in a GOV.UK
//     error summary naming each field; with every item approved with a reason, the page
//     downloads one decision file per item, nothing is sent to the server, and the files,
//     written into a copy of the profile's reviews/ folder, round-trip through `okf build` to
//     the same review state: the branch reads "Reviewed by a <role> on <date>." Keyboard only
//     on the desktop, pointer at 390 px (no sideways scrolling); axe finds nothing serious.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import {
  askThroughForm,
  hospitalQuestion,
  launch,
  okfBin,
  openPage,
  repoRoot,
  screenshot,
  seriousViolations,
  sha256Hex,
  shared,
  startServer,
  tempDir,
} from './harness.mjs';

const B = 'https://example.invalid/ask-okf/dwp-hospital/id/';
const BRANCH = `${B}requirement/hospital-common`;
const CLOSURE = ['assertion/hospital-ch18-0003', 'page/dmg-vol3-ch18/0003', 'page/dmg-vol3-ch18/0005', 'requirement/hospital-common'].map((r) => `${B}${r}`);
const ROLE = 'DWP decision-making policy specialist';

let dir;
let sources;
let plain;
let server;
let desktop;
let phone;

/** A fresh copy of the hospital profile (its .toml files) in `into`, with an empty reviews/. */
function profileCopy(into) {
  mkdirSync(path.join(into, 'reviews'), { recursive: true });
  for (const f of readdirSync(path.join(repoRoot, 'profiles/dwp-hospital'))) {
    if (f.endsWith('.toml')) copyFileSync(path.join(repoRoot, 'profiles/dwp-hospital', f), path.join(into, f));
  }
  return into;
}

before(async () => {
  dir = tempDir('reviewer');
  sources = shared('dwp/source');
  plain = path.join(dir, 'plain.json');
  execFileSync(okfBin, ['build', profileCopy(path.join(dir, 'profile')), '--sources', sources, '--out', plain], { stdio: 'pipe' });
  const registry = path.join(dir, 'registry.toml');
  writeFileSync(registry, `[[bundle]]\nid = "dwp-hospital"\nindex = ${JSON.stringify(plain)}\nsha256 = "${sha256Hex(readFileSync(plain))}"\n` +
    `index_url = "https://example.invalid/ask-okf/dwp-hospital/index.json"\npackage_profile = "regimes"\n`);
  server = await startServer(['--registry', registry]);
  desktop = await launch();
  phone = await launch({ viewport: { width: 390, height: 844 } });
});

after(async () => {
  await desktop?.close();
  await phone?.close();
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const digest = (index, item) => execFileSync(okfBin, ['review', 'digest', '--index', index, '--item', item], { encoding: 'utf8' }).trim();

function branchReview(index) {
  const out = execFileSync(okfBin, ['ask', '--index', index, '--regime-profile', '--json', hospitalQuestion()], { encoding: 'utf8', maxBuffer: 1 << 26 });
  return JSON.parse(out).requirements.find((r) => r.id === BRANCH).review;
}

for (const [name, getBrowser, keyboard] of [
  ['desktop, keyboard', () => desktop, true],
  ['390 px', () => phone, false],
]) {
  test(`the reviewer's page makes decision files that okf build applies to the same review state (${name})`, async () => {
    const { page, problems } = getBrowser();
    await openPage(page, server.base);
    await askThroughForm(page, 'dwp-hospital', hospitalQuestion());
    const button = `#requirements-table tr[data-requirement="${BRANCH}"] button.review-branch`;
    assert.equal(branchReview(plain), undefined, 'an index without decisions: no review facts');

    // Nothing but reads from here on: the page never posts what a reviewer writes.
    const sent = [];
    const watch = (request) => {
      if (request.method() !== 'GET') sent.push(`${request.method()} ${request.url()}`);
    };
    page.on('request', watch);

    if (keyboard) {
      await page.focus(button);
      await page.keyboard.press('Enter');
    } else {
      await page.click(button);
    }
    await page.waitForSelector('#reviewer .review-item');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'reviewer-heading');
    assert.ok(await page.isHidden('#results'));

    const items = await page.$$eval('#reviewer .review-item', (lis) => lis.map((li) => ({
      id: li.dataset.item,
      kind: li.dataset.kind,
      digest: li.querySelector('.item-sha256')?.textContent,
      text: li.querySelector('blockquote.review-text')?.textContent ?? null,
      sources: [...li.querySelectorAll('.review-source a.url')].map((a) => a.getAttribute('href')),
      locators: [...li.querySelectorAll('.review-source .locator')].map((c) => c.textContent),
      restsOn: [...li.querySelectorAll('.rests-on li')].map((x) => x.dataset.assertion),
      radios: li.querySelectorAll('input[type=radio]').length,
    })));
    assert.deepEqual(items.map((i) => i.id).sort(), [...CLOSURE].sort());
    // Read bottom-up: the pages, then the assertion, then the requirement.
    assert.deepEqual(items.map((i) => i.kind), ['record', 'record', 'assertion', 'requirement']);
    const index = JSON.parse(readFileSync(plain, 'utf8'));
    for (const item of items) {
      assert.equal(item.digest, digest(plain, item.id), `${item.id}: the digest okf review digest prints`);
      assert.equal(item.radios, 3);
      if (item.kind === 'record') {
        const record = index.records.find((r) => r.id === item.id);
        assert.equal(item.text, record.text, 'the exact text, as text');
        assert.deepEqual(item.locators, record.provenance.map((p) => p.locator));
        assert.deepEqual(item.sources, record.provenance.map((p) => p.url));
      }
    }
    const assertion = index.assertions.find((a) => a.id === `${B}assertion/hospital-ch18-0003`);
    for (const item of items.filter((i) => i.kind === 'record')) {
      const expected = [assertion.source, assertion.target].includes(item.id) ? [assertion.id] : [];
      assert.deepEqual(item.restsOn, expected, `${item.id}: the assertion it rests on`);
    }

    // Refusals: a decision without a reason, no role or id, a date that is not a date.
    await page.fill('#reviewer-role', '');
    await page.fill('#reviewer-id', '');
    await page.fill('#reviewer-date', '2026-02-30');
    await page.check('#decision-1-approved');
    await page.click('#reviewer-download');
    await page.waitForSelector('#reviewer .govuk-error-summary');
    assert.equal(await page.evaluate(() => document.activeElement?.classList.contains('govuk-error-summary')), true);
    const errors = await page.$$eval('#reviewer .govuk-error-summary a', (as) => as.map((a) => [a.dataset.field, a.textContent]));
    assert.deepEqual(errors.map(([f]) => f), ['reviewer-role', 'reviewer-id', 'reviewer-date', 'reason-1']);
    assert.match(errors[3][1], /^Enter a reason for your decision on item 1$/);
    assert.equal(await page.getAttribute('#reason-1', 'aria-invalid'), 'true');
    assert.equal(await page.textContent('#reason-1-error'), 'Enter a reason for your decision on item 1');
    assert.deepEqual(await seriousViolations(page), [], 'axe, with errors shown');
    // The summary's link takes focus to the field.
    await page.click('#reviewer .govuk-error-summary a[data-field="reason-1"]');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'reason-1');

    // Decide every item: approved, with a reason.
    await page.fill('#reviewer-role', ROLE);
    await page.fill('#reviewer-id', 'r-390');
    await page.fill('#reviewer-date', '2026-12-03');
    for (let n = 1; n <= items.length; n += 1) {
      if (keyboard) {
        await page.focus(`#decision-${n}-approved`);
        await page.keyboard.press('Space');
        await page.keyboard.press('Tab');
        assert.equal(await page.evaluate(() => document.activeElement?.id), `reason-${n}`, 'Tab goes from the decision to its reason');
        await page.keyboard.type(`Checked item ${n} against the captured DMG chapter 18 pages.`);
      } else {
        await page.check(`#decision-${n}-approved`);
        await page.fill(`#reason-${n}`, `Checked item ${n} against the captured DMG chapter 18 pages.`);
      }
    }
    const downloads = [];
    const onDownload = (d) => downloads.push(d);
    page.on('download', onDownload);
    if (keyboard) {
      await page.focus('#reviewer-download');
      await page.keyboard.press('Enter');
    } else {
      await page.click('#reviewer-download');
    }
    await page.waitForSelector('#reviewer-files a.decision-file');
    for (let i = 0; i < 50 && downloads.length < items.length; i += 1) await page.waitForTimeout(100);
    page.off('download', onDownload);
    assert.equal(await page.$$eval('#reviewer .govuk-error-summary', (s) => s.length), 0);
    assert.equal(downloads.length, items.length, 'one file per decided item');
    assert.deepEqual(await seriousViolations(page), [], 'axe, with the files listed');
    if (!keyboard) {
      assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), 'no sideways scrolling at 390 px');
    }
    await screenshot(page, `reviewer-${keyboard ? 'desktop' : 'phone'}`, { fullPage: false });

    // Into a fresh copy of the profile, then okf build: the branch reads approved.
    const profile = profileCopy(path.join(dir, `profile-${keyboard ? 'desktop' : 'phone'}`));
    const names = [];
    for (const d of downloads) {
      const file = path.join(profile, 'reviews', d.suggestedFilename());
      await d.saveAs(file);
      names.push(d.suggestedFilename());
      const decision = JSON.parse(readFileSync(file, 'utf8'));
      assert.deepEqual(Object.keys(decision), ['schema', 'item', 'item_sha256', 'decision', 'reviewer', 'date', 'reason']);
      assert.equal(decision.schema, 'okf-review-decision.v1');
      assert.equal(decision.decision, 'approved');
      assert.deepEqual(decision.reviewer, { role: ROLE, id: 'r-390' });
      assert.equal(decision.date, '2026-12-03');
      assert.equal(decision.item_sha256, digest(plain, decision.item));
    }
    assert.equal(new Set(names).size, names.length);
    assert.ok(names.every((n) => /^[a-z0-9-]+\.json$/u.test(n)), names.join(', '));
    const reviewed = path.join(dir, `reviewed-${keyboard ? 'desktop' : 'phone'}.json`);
    execFileSync(okfBin, ['build', profile, '--sources', sources, '--out', reviewed], { stdio: 'pipe' });
    const review = branchReview(reviewed);
    assert.equal(review.state, 'approved');
    assert.equal(review.statement, `Reviewed by a ${ROLE} on 2026-12-03.`);
    assert.equal(review.approved, CLOSURE.length);
    assert.deepEqual(review.reviewers, [ROLE]);

    page.off('request', watch);
    assert.deepEqual(sent, [], 'nothing is sent to the server');
    // Back to the package, focus on the branch's button.
    await page.click('#reviewer-back');
    assert.ok(await page.isVisible('#results'));
    assert.equal(await page.evaluate(() => document.activeElement?.dataset.requirement), BRANCH);
    assert.deepEqual(problems, []);
  });
}
