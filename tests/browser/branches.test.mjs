// 12. What a decision maker reads first: the branch table names each branch's paragraphs and,
//     for an unmet branch, the declared gap's label (its reason once, in the status box); an off-scope question
//     opens with what the bundle does not cover and keeps the unrelated records collapsed; the
//     table is a few tab stops from the result; axe finds nothing serious in these states.
//     Desktop and 390 px.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import {
  dwpAndHospitalBundles,
  hospitalQuestion,
  DWP_INDEX,
  DWP_SHA,
  DWP_TITLE,
  DWP_URL,
  askThroughForm,
  imprisonmentQuestion,
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

const OFF_SCOPE = 'How is capital treated for Income Support and JSA?';

let dir;
let server;
let desktop;
let phone;

before(async () => {
  dir = tempDir('branches');
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

/** Each requirement row: its id, status, and the gaps shown in it with their words. */
const rowsOf = (page) =>
  page.$$eval('#requirements-table tbody tr', (trs) =>
    trs.map((tr) => ({
      id: tr.dataset.requirement,
      status: tr.dataset.status,
      gaps: [...tr.querySelectorAll('.gap')].map((g) => ({ id: g.dataset.gap, label: g.querySelector('.gap-label').textContent })),
      text: tr.textContent,
    })),
  );

/** How many times `needle` occurs in `hay`. */
const occurrences = (hay, needle) => hay.split(needle).length - 1;

for (const [name, getBrowser] of [
  ['desktop', () => desktop],
  ['390 px', () => phone],
]) {
  test(`hospital profile: each unmet branch names its gaps once; each gap's reason is in the status box once (${name})`, async () => {
    const { page, problems } = getBrowser();
    const question = hospitalQuestion();
    await openPage(page, server.base);
    await askThroughForm(page, 'dwp-hospital', question);
    const pkg = (await server.ask({ bundle: 'dwp-hospital', question })).json;
    assert.equal(pkg.evidence_status, 'insufficient');
    const gaps = new Map(pkg.declared_gaps.map((g) => [g.id, g]));
    // Issue 41: seven gaps (ADM JSA/ESA, 77119, 78720, the chapter 43 household rule, memo 06/20,
    // the household facts the question does not state); no chapter 53 gap.
    assert.equal(gaps.size, 7);

    const rows = await rowsOf(page);
    assert.deepEqual(rows.map((r) => r.id), pkg.requirements.map((r) => r.id));
    for (const [i, requirement] of pkg.requirements.entries()) {
      const row = rows[i];
      const expected = requirement.missing.filter((id) => gaps.has(id));
      assert.deepEqual(row.gaps.map((g) => g.id), expected, requirement.id);
      for (const g of row.gaps) {
        assert.equal(g.label, gaps.get(g.id).label);
        assert.equal(occurrences(row.text, gaps.get(g.id).reason), 0, `${requirement.id}: the reason is in the status box, not the row`);
        assert.equal(occurrences(row.text, gaps.get(g.id).label), 1, `${requirement.id}: the label once`);
      }
      if (requirement.missing.length === 0) assert.match(row.text, /nothing$/, `${requirement.id}: nothing missing says nothing`);
      else assert.equal(row.status, 'unmet');
    }
    // The household-exception row carries the source/version mismatch in the author's words.
    const spc = await page.textContent('#status [data-requirement$="hospital-state-pension-credit"]');
    assert.match(spc, /78827 points to 77119, but the captured 77119 \(chapter 77 page 22, cited\) concerns temporary absence abroad/);

    // "Why it is not sufficient" gives each gap's reason once, not generic per-code counts.
    const why = await page.$$eval('#why-not > li', (lis) => lis.map((li) => ({ code: li.dataset.reason, text: li.textContent })));
    const gapLine = why.find((w) => w.code === 'unmet_requirements');
    for (const g of gaps.values()) assert.equal(occurrences(gapLine.text, g.reason), 1);
    assert.ok(!why.some((w) => /A record reached by traversal is not in the index/.test(w.text)), JSON.stringify(why));
    assert.equal(why.filter((w) => w.code === 'ambiguous_regime').length, 2);
    assert.match(await page.textContent('#guidance-regime'), /New Style ADM left open/);

    assert.deepEqual(await seriousViolations(page), []);
    await screenshot(page, `hospital-branches-${name === 'desktop' ? 'desktop' : 'phone'}`, { fullPage: false });

    // Assembled in this browser, the bundle's richer profile (its registry setting) is kept.
    const again = `${question} `;
    const served = (await server.ask({ bundle: 'dwp-hospital', question: again })).json;
    assert.equal(served.profile, 'okf-governed-context.v1+regimes.v1');
    await page.check('#where-browser');
    await askThroughForm(page, 'dwp-hospital', again);
    assert.equal(await page.textContent('#context-id'), served.context_id);
    await page.check('#where-server');
    assert.deepEqual(problems, []);
  });

  test(`an off-scope question opens with what the bundle does not cover (${name})`, async () => {
    const { page, problems } = getBrowser();
    await openPage(page, server.base);
    await askThroughForm(page, 'okf-dwp', OFF_SCOPE);
    const pkg = (await server.ask({ bundle: 'okf-dwp', question: OFF_SCOPE })).json;
    assert.deepEqual(pkg.requirements, []);
    assert.ok(pkg.unresolved_terms.includes('capital'));
    assert.ok(pkg.selected.length > 40, 'records reached from the benefit names');

    // The first element of the result, above the status, and the one focused.
    const first = await page.$eval('#results', (r) => [...r.children].find((c) => c.tagName !== 'H2')?.id);
    assert.equal(first, 'off-scope');
    const notice = await page.textContent('#off-scope');
    assert.match(notice, /^!This bundle does not cover “capital”, “treated”\. It covers: /);
    assert.ok(notice.includes(pkg.scope));
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'off-scope');
    const box = await page.$eval('#off-scope', (e) => e.getBoundingClientRect().top + window.scrollY);
    const status = await page.$eval('#status', (e) => e.getBoundingClientRect().top + window.scrollY);
    assert.ok(box < status);

    // The unrelated records are behind one closed disclosure that says how many.
    assert.equal(await page.$eval('#off-scope-records', (d) => d.open), false);
    assert.match(await page.textContent('#off-scope-records > summary'), new RegExp(`^${pkg.selected.length} records reached from .*, none about “capital”, “treated”$`));

    assert.deepEqual(await seriousViolations(page), []);
    assert.deepEqual(problems, []);
  });

  test(`the branch table is within 10 tab stops of the result (${name})`, async () => {
    const { page } = getBrowser();
    const question = hospitalQuestion();
    await openPage(page, server.base);
    await askThroughForm(page, 'dwp-hospital', question);
    // The page focuses the status after a result; count Tab presses from there.
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'status');
    let stops = 0;
    while (stops < 10) {
      await page.keyboard.press('Tab');
      stops += 1;
      if (await page.evaluate(() => Boolean(document.activeElement?.closest('#requirements .table-wrap')))) break;
    }
    assert.ok(await page.evaluate(() => Boolean(document.activeElement?.closest('#requirements .table-wrap'))), `not reached in ${stops} tab stops`);
  });
}

test('the bundle picker names each bundle by its title and says what it covers and when its sources were captured', async () => {
  const { page, problems } = desktop;
  await openPage(page, server.base);
  const options = await page.$$eval('#bundle option', (os) => os.map((o) => [o.value, o.textContent]));
  assert.deepEqual(options, [
    ['dwp-hospital', 'dwp-hospital'],
    ['okf-dwp', `${DWP_TITLE} (okf-dwp)`],
  ]);
  await page.selectOption('#bundle', 'okf-dwp');
  const listing = JSON.parse((await server.get('/api/bundles')).text).bundles.find((b) => b.id === 'okf-dwp').versions[0];
  assert.deepEqual(listing.captured, { first: '2026-09-15', last: '2026-09-16' });
  const scope = await page.textContent('#bundle-scope');
  assert.ok(scope.startsWith(`Covers: ${listing.scope}`), scope);
  assert.match(scope, /Sources captured: 15 September 2026 to 16 September 2026 \(not a publication or effective date\)/);
  assert.equal(await page.getAttribute('#bundle', 'aria-describedby'), 'bundle-note bundle-scope');
  assert.deepEqual(problems, []);
});

test('imprisonment at 390 px: four branches with their DMG paragraphs; status, branch table and what is missing within two screens', async (t) => {
  const { page, problems } = phone;
  const question = imprisonmentQuestion();
  await openPage(page, server.base);
  await askThroughForm(page, 'okf-dwp', question);
  const pkg = (await server.ask({ bundle: 'okf-dwp', question })).json;
  assert.equal(pkg.evidence_status, 'sufficient');
  const rows = await page.$$eval('#requirements-table tbody tr', (trs) =>
    trs.map((tr) => ({ label: tr.querySelector('.req-label').textContent, paragraphs: [...tr.querySelectorAll('.paragraphs')].map((p) => p.textContent.trim()) })),
  );
  assert.equal(rows.length, 4);
  for (const [benefit, pattern] of [['JSA', /JSA/], ['IS', /Income Support/], ['SPC', /State Pension Credit|prisoner credit/], ['ESA', /ESA/]]) {
    const row = rows.find((r) => pattern.test(r.label));
    assert.ok(row, `${benefit} row: ${JSON.stringify(rows.map((r) => r.label))}`);
    assert.ok(row.paragraphs.every((p) => /^paragraphs \d{5}(–\d{5})?$/.test(p)) && row.paragraphs.length > 0, `${benefit}: ${row.paragraphs}`);
  }
  // The page scrolls to the status; from there, two screens hold the status (with what is
  // missing: nothing), the whole branch table and the start of "What is missing".
  const layout = await page.evaluate(() => {
    const top = (s) => document.querySelector(s).getBoundingClientRect().top + scrollY;
    const bottom = (s) => document.querySelector(s).getBoundingClientRect().bottom + scrollY;
    const status = top('#status');
    return { screen: innerHeight, nothing: bottom('#nothing-missing') - status, table: bottom('#requirements') - status, missing: top('#missing') - status, page: document.documentElement.scrollHeight };
  });
  t.diagnostic(`the whole result at 390 px, sections collapsed: ${layout.page} px (docs/web.md)`);
  assert.ok(layout.nothing < layout.screen, JSON.stringify(layout));
  assert.ok(layout.table <= 2 * layout.screen, JSON.stringify(layout));
  assert.ok(layout.missing <= 2 * layout.screen, JSON.stringify(layout));
  // The graph shows one branch at a time on request, its table following.
  const all = await page.$$eval('#graph-svg g.node', (gs) => gs.length);
  const spc = pkg.requirements.findIndex((r) => /prisoner credit/.test(r.label));
  await page.selectOption('#graph-branch', String(spc));
  const named = new Set([...pkg.requirements[spc].required, ...(pkg.requirements[spc].required_paths ?? []).flatMap((p) => p.records ?? [])]);
  const kept = pkg.selected.filter((s) => named.has(s.record.id)).map((s) => s.record.id);
  const drawn = await page.$$eval('#graph-svg g.node', (gs) => gs.map((g) => g.dataset.id));
  assert.deepEqual(drawn, kept);
  assert.ok(drawn.length < all, `${drawn.length} of ${all}`);
  const between = pkg.relationships.filter((r) => named.has(r.source) && named.has(r.target)).length;
  assert.equal(await page.locator('#graph-table tbody tr').count(), between);
  const width = await page.$eval('#graph-svg', (svg) => Number(svg.getAttribute('width')));
  layout.branchGraphWidth = width;
  await page.selectOption('#graph-branch', '');
  assert.equal(await page.$$eval('#graph-svg g.node', (gs) => gs.length), all);

  // "On this page" goes to a section without replacing the permalink in the address bar.
  const before = page.url();
  await page.click('#contents > details > summary');
  await page.click('#contents a[data-section="records"]');
  assert.equal(page.url(), before);
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'records');
  assert.deepEqual(await seriousViolations(page), []);
  await screenshot(page, 'phone-branches', { fullPage: false });
  assert.deepEqual(problems, []);
});
