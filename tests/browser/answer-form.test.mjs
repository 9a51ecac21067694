// Issue 40 item 6: an answer check people can use. Under "Use this package" a form takes the
// answer claim by claim (its words, the record chosen by label and locator, the quote, the
// branch); it is sent as okf-grounded-answer.v1 through the same check as the JSON (kept behind
// "Paste JSON instead") and gives the same report bytes. The report is in words (a quote on
// another record names that record), focus moves to its heading, and an empty form gets a
// GOV.UK error summary linking to the field. Desktop (1280 px) and 390 px, axe clean.

import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { askThroughForm, dwpRegistry, repoRoot, imprisonmentQuestion, launch, openPage, seriousViolations, startServer, tempDir } from './harness.mjs';

let dir;
let server;
let desktop;
let phone;

before(async () => {
  dir = tempDir('answer-form');
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

const squash = (s) => s.replace(/\s+/g, ' ').trim();

/** The POST /api/check-answer report of `answer` (the retained package), as bytes and value. */
async function checkViaHttp(answer) {
  const response = await fetch(`${server.base}/api/check-answer`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ answer }) });
  const text = await response.text();
  assert.equal(response.status, 200, text);
  return { text, value: JSON.parse(text) };
}

/**
 * Whole sentences of the package's selected records that the check grounds on their own record
 * and that no other selected record contains: `[{record, quote}]`, found through the API.
 */
async function groundedQuotes(pkg) {
  const found = [];
  for (const { record } of pkg.selected) {
    const pieces = String(record.text ?? '').split(/(?<=[.;:])\s+|\n\s*\n/).map((p) => p.trim()).filter((p) => p.length >= 40 && p.length <= 400);
    const candidates = pieces
      .filter((quote) => !pkg.selected.some((s) => s.record.id !== record.id && squash(String(s.record.text ?? '')).includes(squash(quote))))
      .slice(0, 8)
      .map((quote) => ({ record: record.id, quote }));
    if (!candidates.length) continue;
    const answer = {
      schema: 'okf-grounded-answer.v1',
      context_id: pkg.context_id,
      evidence_status: pkg.evidence_status,
      claims: candidates.map((c, i) => ({ id: `k${i}`, text: 'candidate', requirement: null, citations: [c] })),
    };
    const { value } = await checkViaHttp(answer);
    const ok = candidates.find((_, i) => value.claims[i].errors.length === 0);
    if (ok) found.push(ok);
    if (found.length === 2) break;
  }
  return found;
}

const recordName = (record) => `${record.label} (${record.provenance[0].locator})`;

async function reportShown(page) {
  await page.waitForSelector('#answer-report [data-verdict]');
  return page.textContent('#answer-report-json');
}

for (const [name, getBrowser] of [
  ['desktop', () => desktop],
  ['390 px', () => phone],
]) {
  test(`the answer form checks claims in words, with the JSON's report bytes (${name})`, async () => {
    const { page, problems } = getBrowser();
    const question = imprisonmentQuestion();
    await openPage(page, server.base);
    await askThroughForm(page, 'okf-dwp', question);
    const pkg = (await server.ask({ bundle: 'okf-dwp', question })).json;
    const byId = new Map(pkg.selected.map((s) => [s.record.id, s.record]));

    // Collapsed by default; opened, it is a form with one claim row.
    assert.equal(await page.getAttribute('#answer-box', 'open'), null, 'the answer check is collapsed by default');
    await page.click('#answer-box > summary');
    assert.equal(await page.locator('#answer-claim-rows fieldset.claim-row').count(), 1);
    assert.equal(await page.isVisible('#answer-input'), false, 'the JSON is behind "Paste JSON instead"');
    const recordOptions = await page.$$eval('#claim-1-record option', (os) => os.map((o) => [o.value, o.textContent]));
    assert.deepEqual(recordOptions.slice(1), pkg.selected.map((s) => [s.record.id, recordName(s.record)]), 'each selected record by label and locator');
    const requirementOptions = await page.$$eval('#claim-1-requirement option', (os) => os.map((o) => o.value));
    assert.deepEqual(requirementOptions, ['', ...pkg.requirements.map((r) => r.id)]);
    assert.equal(await page.textContent('#claim-1-requirement option:first-child'), 'none');

    // An empty form: a GOV.UK error summary linking to each field at fault.
    await page.click('#answer-form-check');
    await page.waitForSelector('#answer-errors .govuk-error-summary[role="alert"]');
    const links = await page.$$eval('#answer-errors .govuk-error-summary a', (as) => as.map((a) => a.getAttribute('href')));
    assert.deepEqual(links, ['#claim-1-text', '#claim-1-record', '#claim-1-quote']);
    assert.equal(await page.getAttribute('#claim-1-text', 'aria-invalid'), 'true');
    assert.doesNotMatch(await page.textContent('#answer-errors'), /\b[45]\d\d\b/, 'no HTTP status code');
    assert.deepEqual(await seriousViolations(page), [], 'the error summary');
    await page.click('#answer-errors a[href="#claim-1-quote"]');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'claim-1-quote', 'the link moves to the field');

    // One claim, an exact sentence of a selected record: grounded for that claim.
    const quotes = await groundedQuotes(pkg);
    assert.ok(quotes.length >= 2, `grounded sentences found: ${quotes.length}`);
    const good = quotes[0];
    const claimText = 'A person detained in custody is not entitled to the benefit.';
    await page.fill('#claim-1-text', claimText);
    await page.selectOption('#claim-1-record', good.record);
    await page.fill('#claim-1-quote', good.quote);
    await page.click('#answer-form-check');
    const viaForm = await reportShown(page);
    assert.equal(await page.locator('#answer-errors .govuk-error-summary').count(), 0, 'the error summary is gone');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'answer-report-heading', 'focus on the report heading');
    assert.equal(await page.getAttribute('#answer-report li[data-claim="c1"]', 'data-grounded'), 'true');
    assert.match(await page.textContent('#answer-report li[data-claim="c1"] .claim-verdict'), /^grounded/);
    assert.match(await page.textContent('#answer-report li[data-claim="c1"] .citation-ok'), new RegExp(`Quote found on ${recordName(byId.get(good.record)).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    assert.equal(await page.textContent('#answer-report li[data-claim="c1"] mark.quote'), byId.get(good.record).text.slice(JSON.parse(viaForm).claims[0].citations[0].start, JSON.parse(viaForm).claims[0].citations[0].end));
    assert.equal(await page.isVisible('#answer-report-json'), false, 'the report JSON is behind Technical details');
    assert.deepEqual(await seriousViolations(page), [], 'the report');

    // The same answer as JSON: the same report bytes (and the HTTP API's).
    const answer = {
      schema: 'okf-grounded-answer.v1',
      context_id: pkg.context_id,
      evidence_status: pkg.evidence_status,
      claims: [{ id: 'c1', text: claimText, requirement: null, citations: [{ record: good.record, quote: good.quote }] }],
    };
    assert.equal(viaForm, (await checkViaHttp(answer)).text, 'the form sends okf-grounded-answer.v1 exactly');
    await page.click('#answer-json-box > summary');
    await page.fill('#answer-input', JSON.stringify(answer));
    await page.click('#answer-check');
    const viaJson = await reportShown(page);
    assert.equal(viaJson, viaForm, 'form and JSON give the same report bytes');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'answer-report-heading');

    // A quote copied from record B, cited on record A: the report names B by label and locator.
    const other = quotes.find((q) => q.record !== good.record);
    await page.selectOption('#claim-1-record', good.record);
    await page.fill('#claim-1-quote', other.quote);
    await page.click('#answer-form-check');
    const misplaced = JSON.parse(await reportShown(page));
    const citation = misplaced.claims[0].citations[0];
    assert.equal(citation.error, 'quote_in_other_record');
    assert.equal(citation.found_in.record, other.record);
    const line = squash(await page.textContent('#answer-report li[data-claim="c1"] .citation-bad .citation-words'));
    assert.equal(line, squash(`This text is on ${recordName(byId.get(other.record))}, not on the record cited (${recordName(byId.get(good.record))}).`));
    assert.equal(await page.getAttribute('#answer-report li[data-claim="c1"]', 'data-grounded'), 'false');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'answer-report-heading');

    // Add another claim and remove it again.
    await page.click('#answer-add-claim');
    assert.equal(await page.locator('#answer-claim-rows fieldset.claim-row').count(), 2);
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'claim-2-text');
    await page.click('#answer-claim-rows fieldset.claim-row:nth-child(2) .remove-claim');
    assert.equal(await page.locator('#answer-claim-rows fieldset.claim-row').count(), 1);
    assert.deepEqual(problems, []);
  });
}

test('the page has words for every finding code okf-grounding emits', async () => {
  const source = readFileSync(path.join(repoRoot, 'crates/okf-grounding/src/check.rs'), 'utf8');
  // Codes are the string literals the check returns, pushes or inserts as errors.
  const emitted = new Set([...source.matchAll(/(?:=>|push\(|insert\(|^)\s*"([a-z]+(?:_[a-z]+)+)"(?!\s*[:.])/gm)].map((m) => m[1]).filter((c) => c !== 'not_grounded'));
  for (const expected of ['quote_in_other_record', 'quote_not_found', 'quote_not_whole_sentence', 'quote_too_short', 'unselected_record', 'unknown_record', 'uncited_claim', 'unknown_requirement', 'claim_on_unmet_requirement', 'unknown_context', 'uncovered_requirement', 'status_mismatch']) {
    assert.ok(emitted.has(expected), `${expected} is read from check.rs: ${[...emitted]}`);
  }
  const { page } = desktop;
  await openPage(page, server.base);
  const worded = await page.evaluate(async () => Object.keys((await import('/assets/render.js')).ANSWER_FINDINGS));
  assert.deepEqual([...emitted].filter((c) => !worded.includes(c)), [], 'every code has words');
});
