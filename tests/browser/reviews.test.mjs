// 15. Specialist review on the page (issue 45 item 3): the hospital profile built with decisions
//     approving the chapter 18 branch's closure and refusing one assertion of the Income Support
//     branch, served in the richer profile. Each requirement row says its review in the
//     package's words ("Reviewed by a <role> on <date>.", "Not reviewed by a specialist.") and
//     a refused item with who refused it, when and why; axe finds nothing serious. Desktop and
//     390 px.

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
const ROLE = 'DWP decision-making policy specialist';
const REASON = 'Chapter 18 routes Income Support to chapter 24 only for the downrating rules it revoked; the edge must name the paragraph it rests on.';
const COMMON = ['assertion/hospital-ch18-0003', 'page/dmg-vol3-ch18/0003', 'page/dmg-vol3-ch18/0005', 'requirement/hospital-common'];
const REFUSED = 'assertion/hospital-routes-is-to-ch24';

let dir;
let server;
let desktop;
let phone;

/** The hospital profile copied into `dir` with decision files, built; returns the index path. */
function reviewedHospital(dir) {
  const sources = shared('dwp/source');
  const plain = path.join(dir, 'plain.json');
  const profile = path.join(dir, 'profile');
  mkdirSync(path.join(profile, 'reviews'), { recursive: true });
  for (const f of readdirSync(path.join(repoRoot, 'profiles/dwp-hospital'))) {
    if (f.endsWith('.toml')) copyFileSync(path.join(repoRoot, 'profiles/dwp-hospital', f), path.join(profile, f));
  }
  execFileSync(okfBin, ['build', profile, '--sources', sources, '--out', plain], { stdio: 'pipe' });
  const decide = (n, route, decision, date, reason) => {
    const item = `${B}${route}`;
    const digest = execFileSync(okfBin, ['review', 'digest', '--index', plain, '--item', item], { encoding: 'utf8' }).trim();
    writeFileSync(path.join(profile, 'reviews', `${String(n).padStart(3, '0')}.json`), JSON.stringify({
      schema: 'okf-review-decision.v1', item, item_sha256: digest, decision,
      reviewer: { role: ROLE, id: `r-${n}` }, date, reason,
    }));
  };
  COMMON.forEach((route, i) => decide(i + 1, route, 'approved', i === 2 ? '2026-12-03' : '2026-12-01', 'Checked against the captured DMG chapter 18 pages.'));
  decide(9, REFUSED, 'rejected', '2026-12-04', REASON);
  const out = path.join(dir, 'reviewed.json');
  execFileSync(okfBin, ['build', profile, '--sources', sources, '--out', out], { stdio: 'pipe' });
  return out;
}

before(async () => {
  dir = tempDir('reviews');
  const index = reviewedHospital(dir);
  const registry = path.join(dir, 'registry.toml');
  writeFileSync(registry, `[[bundle]]\nid = "dwp-hospital"\nindex = ${JSON.stringify(index)}\nsha256 = "${sha256Hex(readFileSync(index))}"\n` +
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

for (const [name, getBrowser] of [
  ['desktop', () => desktop],
  ['390 px', () => phone],
]) {
  test(`each requirement row says who reviewed it and when, or that no specialist did, and a refusal with its reason (${name})`, async () => {
    const { page, problems } = getBrowser();
    const question = hospitalQuestion();
    await openPage(page, server.base);
    await askThroughForm(page, 'dwp-hospital', question);
    const pkg = (await server.ask({ bundle: 'dwp-hospital', question })).json;
    assert.ok(pkg.review_basis, 'the package carries review facts');

    const rows = await page.$$eval('#requirements-table tbody tr', (trs) =>
      trs.map((tr) => ({
        id: tr.dataset.requirement,
        state: tr.querySelector('.req-review')?.dataset.review ?? null,
        statement: tr.querySelector('.req-review .review-statement')?.textContent ?? null,
        refusals: [...tr.querySelectorAll('.req-review li.refusal')].map((li) => ({ item: li.dataset.item, text: li.textContent })),
      })),
    );
    assert.deepEqual(rows.map((r) => r.id), pkg.requirements.map((r) => r.id));
    for (const [i, r] of pkg.requirements.entries()) {
      assert.equal(rows[i].statement, r.review.statement, r.id);
      assert.equal(rows[i].state, r.review.state, r.id);
    }
    const row = (route) => rows.find((r) => r.id === `${B}${route}`);
    assert.equal(row('requirement/hospital-common').statement, `Reviewed by a ${ROLE} on 2026-12-03.`);
    assert.equal(row('requirement/hospital-common').state, 'approved');
    const is = row('requirement/hospital-income-support');
    assert.equal(is.state, 'refused');
    assert.match(is.statement, /^Not approved by a specialist: 1 of \d+ items refused\.$/);
    assert.deepEqual(is.refusals, [{
      item: `${B}${REFUSED}`,
      text: `Refused by a ${ROLE} on 2026-12-04: ${REASON} (Chapter 18 routes the effect of hospital on IS to chapter 24)`,
    }]);
    assert.equal(row('requirement/hospital-state-pension-credit').statement, 'Not reviewed by a specialist.');

    // The refusal is visible, not hidden behind a disclosure.
    assert.ok(await page.isVisible(`#requirements-table tr[data-requirement="${B}requirement/hospital-income-support"] li.refusal`));
    assert.deepEqual(await seriousViolations(page), []);
    await screenshot(page, `hospital-reviews-${name === 'desktop' ? 'desktop' : 'phone'}`, { fullPage: false });
    assert.deepEqual(problems, []);
  });
}
