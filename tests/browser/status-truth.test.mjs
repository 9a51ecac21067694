// 13. The whole truth to a decision maker (issue 40): on the hospital question the status box
//     names every unmet requirement and every declared gap with its reason, each exactly once,
//     in the order of the requirements table below it; a requirement with some of its evidence
//     present reads "partly supported"; a warning says nothing was reviewed by a specialist;
//     the guidance regime is in words; no IRI, issue code, `null` or `ai_answer` is in the
//     visible text outside "Technical details". Desktop and 390 px, axe 0 serious/critical.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { dwpAndHospitalBundles, hospitalQuestion, askThroughForm, imprisonmentQuestion, DWP_INDEX, DWP_SHA, DWP_TITLE, DWP_URL, launch, okfBin, openPage, repoRoot, screenshot, screenshotRegion, seriousViolations, sha256Hex, shared, startServer, tempDir } from './harness.mjs';

const MET = 'supported-within-declared-scope';

let dir;
let server;
let desktop;
let phone;

before(async () => {
  dir = tempDir('status-truth');
  const registry = path.join(dir, 'registry.toml');
  // The hospital profile, built from the frozen captures, served with the richer profile.
  writeFileSync(registry, dwpAndHospitalBundles(dir));
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

/** How many times `needle` occurs in `hay`. */
const occurrences = (hay, needle) => hay.split(needle).length - 1;

/** The rendered text of `selector` with every "Technical details" disclosure left out. */
const visibleText = (page, selector) =>
  page.evaluate((sel) => {
    const hidden = [...document.querySelectorAll(`${sel} details.govuk-details`)];
    for (const d of hidden) d.style.display = 'none';
    const out = document.querySelector(sel)?.innerText ?? '';
    for (const d of hidden) d.style.display = '';
    return out;
  }, selector);

/** Internal words a reader must not meet: IRIs, the package's issue codes, field names. */
function internalWords(text, pkg) {
  const codes = new Set([...pkg.missing_evidence.map((i) => i.code), ...(pkg.declared_gaps ?? []).flatMap((g) => g.codes)]);
  const found = [];
  for (const m of text.matchAll(/https?:\/\/\S+/g)) found.push(m[0]);
  for (const c of codes) if (text.includes(c)) found.push(c);
  for (const word of ['ai_answer', 'unreviewed-specialist-review-required', 'supported-within-declared-scope']) if (text.includes(word)) found.push(word);
  // A value written out where it should be words: "null", or "none" standing for an empty list.
  for (const m of text.matchAll(/\bnull\b|(?:^|:\s*|established |left open )none\.?$/gim)) found.push(`${m[0]} …${text.slice(Math.max(0, m.index - 40), m.index + 10)}`);
  return found;
}

for (const [name, getBrowser] of [
  ['desktop', () => desktop],
  ['390 px', () => phone],
]) {
  test(`hospital: the status box gives every unmet requirement and every declared gap with its reason once, in table order (${name})`, async () => {
    const { page, problems } = getBrowser();
    const question = hospitalQuestion();
    await openPage(page, server.base);
    await askThroughForm(page, 'dwp-hospital', question);
    const pkg = (await server.ask({ bundle: 'dwp-hospital', question })).json;
    assert.equal(pkg.evidence_status, 'insufficient');

    const status = await visibleText(page, '#status');
    const unmet = pkg.requirements.filter((r) => r.status !== MET);
    assert.ok(unmet.length >= 2);
    // Each unmet requirement once, in the table's order.
    const listed = await page.$$eval('#status [data-requirement]', (els) => els.map((e) => e.dataset.requirement));
    assert.deepEqual(listed, unmet.map((r) => r.id));
    const tableOrder = await page.$$eval('#requirements-table tbody tr', (trs) => trs.map((tr) => tr.dataset.requirement));
    assert.deepEqual(listed, tableOrder.filter((id) => listed.includes(id)));
    for (const r of unmet) assert.equal(occurrences(status, r.label.replace(/ evidence profile v\d+$/, '')), 1, `${r.label}: once in the status box`);
    // Every declared gap's reason exactly once in the status box, its label at least once.
    for (const g of pkg.declared_gaps) {
      assert.equal(occurrences(status, g.reason), 1, `${g.id}: the reason once in the status box`);
      assert.ok(status.includes(g.label), `${g.id}: named`);
    }
    assert.match(status, /the table below/);
    assert.doesNotMatch(status, /table above/);

    // Warning beside the status: nothing selected has been reviewed by a specialist.
    const warning = page.locator('#status .govuk-warning-text');
    assert.equal(await warning.count(), 1);
    assert.match(await warning.innerText(), /Not reviewed by a specialist/);
    // The guidance regime in words, never "none".
    const regime = await page.textContent('#guidance-regime');
    assert.match(regime, /Legacy DMG/);
    assert.match(regime, /New Style/);
    assert.doesNotMatch(regime, /\bnone\b/);
    assert.deepEqual(internalWords(status, pkg), [], 'status box');

    // A row with some required evidence present and some missing reads "partly supported".
    const rows = await page.$$eval('#requirements-table tbody tr', (trs) =>
      trs.map((tr) => ({ id: tr.dataset.requirement, badge: tr.querySelector('.req-status').innerText.trim(), missing: tr.querySelector('.req-missing').innerText })),
    );
    const spc = rows.find((r) => r.id.endsWith('hospital-state-pension-credit'));
    assert.equal(spc.badge, 'partly supported');
    const jsaNew = rows.find((r) => r.id.endsWith('hospital-jsa-new-style-reading'));
    assert.equal(jsaNew.badge, 'not met', 'nothing of it present');
    assert.match(await page.innerText('#status [data-requirement$="hospital-state-pension-credit"]'), /partly supported/);
    // A gap's reason is given in the status box, not repeated in the rows.
    for (const g of pkg.declared_gaps) for (const row of rows) assert.equal(occurrences(row.missing, g.reason), 0, `${row.id}: ${g.id}`);

    // "What is missing" is in words grouped by branch; the codes are behind Technical details.
    const missing = await visibleText(page, '#missing');
    assert.deepEqual(internalWords(missing, pkg), [], 'what is missing');
    assert.doesNotMatch(missing, /A record reached by traversal is not in the index/);
    const groups = await page.$$eval('#missing .missing-group', (gs) => gs.map((g) => g.dataset.requirement ?? g.dataset.group));
    assert.deepEqual(groups.filter((g) => g.startsWith('http')), unmet.map((r) => r.id));
    const details = page.locator('#missing details.govuk-details');
    assert.equal(await details.count(), 1);
    await details.locator('summary').click();
    assert.match(await details.innerText(), /missing_record/);

    // Nothing internal anywhere in the visible result outside Technical details.
    assert.deepEqual(internalWords(await visibleText(page, '#results'), pkg), [], 'whole result');
    const shot = name === 'desktop' ? 'desktop' : 'phone';
    await screenshot(page.locator('#status'), `status-truth-${shot}`);
    await screenshotRegion(page, `status-truth-table-${shot}`, '#requirements', '#missing');
    assert.deepEqual(await seriousViolations(page), []);
    assert.deepEqual(problems, []);
  });
}

test('imprisonment (sufficient): the warning stands beside "sufficient"; labels lose "evidence profile v1"; no internal words shown', async () => {
  const { page, problems } = desktop;
  const question = imprisonmentQuestion();
  await openPage(page, server.base);
  await askThroughForm(page, 'okf-dwp', question);
  const pkg = (await server.ask({ bundle: 'okf-dwp', question })).json;
  assert.equal(pkg.evidence_status, 'sufficient');
  assert.match(await page.locator('#status .govuk-warning-text').innerText(), /Not reviewed by a specialist/);
  const labels = await page.$$eval('#requirements-table .req-label', (ls) => ls.map((l) => l.textContent));
  assert.equal(labels.length, pkg.requirements.length);
  for (const l of labels) assert.doesNotMatch(l, /evidence profile v\d+$/);
  assert.equal(await page.locator('#guidance-regime').count(), 0, 'no regime line when the package has none');
  assert.deepEqual(internalWords(await visibleText(page, '#results'), pkg), []);
  assert.deepEqual(await seriousViolations(page), []);
  assert.deepEqual(problems, []);
});
