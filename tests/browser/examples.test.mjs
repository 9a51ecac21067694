// Each bundle's own example questions: the question box's placeholder and a list of examples
// come from the chosen bundle's registry entry (never another bundle's), and a broad question
// that uses a word of the bundle's examples gets advice on how to ask it, not "does not cover".

import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import {
  DWP_INDEX, DWP_SHA, DWP_TITLE, DWP_URL, askThroughForm, launch, openPage, repoRoot, seriousViolations,
  sha256Hex, startServer, tempDir,
} from './harness.mjs';

const DWP_EXAMPLE = 'A claimant on income-based JSA is sent to prison. What happens to their benefit?';
let server;
let browser;

before(async () => {
  const dir = tempDir('examples');
  const example = path.join(repoRoot, 'crates', 'okf', 'example', 'index.json');
  const registry = path.join(dir, 'registry.toml');
  writeFileSync(
    registry,
    `[[bundle]]\nid = "okf-dwp"\nindex = ${JSON.stringify(DWP_INDEX)}\nsha256 = "${DWP_SHA}"\nindex_url = "${DWP_URL}"\ntitle = "${DWP_TITLE}"\n` +
      `examples = [${JSON.stringify(DWP_EXAMPLE)}, "A claimant on income support is remanded in custody. Is their benefit affected?"]\n\n` +
      `[[bundle]]\nid = "plain"\nindex = ${JSON.stringify(example)}\nsha256 = "${sha256Hex(readFileSync(example))}"\nindex_url = "https://example.org/okf-example/index.json"\n`,
  );
  server = await startServer(['--registry', registry]);
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

test("the placeholder and the examples are the chosen bundle's own", async () => {
  const { page } = browser;
  await openPage(page, server.base);
  await page.selectOption('#bundle', 'okf-dwp');
  assert.equal(await page.getAttribute('#question', 'placeholder'), `e.g. ${DWP_EXAMPLE}`);
  const listed = await page.$$eval('#examples button', (bs) => bs.map((b) => b.textContent));
  assert.equal(listed.length, 2);
  assert.equal(listed[0], DWP_EXAMPLE);
  await page.click('#examples li:nth-child(2) button');
  assert.equal(await page.inputValue('#question'), listed[1]);
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'question', 'focus goes to the question');
  // A bundle that declares no example gets a plain prompt, not another bundle's question.
  await page.selectOption('#bundle', 'plain');
  assert.equal(await page.getAttribute('#question', 'placeholder'), 'Type your question');
  assert.ok(await page.isHidden('#examples'));
  assert.deepEqual(browser.problems, []);
});

for (const viewport of [{ width: 1280, height: 900 }, { width: 390, height: 844 }]) {
  test(`a broad question gets advice and an off-topic one says what is not covered (${viewport.width} px)`, async () => {
    const { page } = browser;
    await page.setViewportSize(viewport);
    await openPage(page, server.base);
    await askThroughForm(page, 'okf-dwp', 'benefits');
    assert.equal(await page.getAttribute('#off-scope', 'data-kind'), 'broad');
    const advice = await page.textContent('#off-scope');
    assert.match(advice, /too broad/);
    assert.ok(advice.includes(DWP_EXAMPLE), advice);
    assert.doesNotMatch(advice, /does not cover/);
    assert.deepEqual(await seriousViolations(page), []);
    await askThroughForm(page, 'okf-dwp', 'How do I borrow books?');
    assert.equal(await page.getAttribute('#off-scope', 'data-kind'), 'not-covered');
    assert.match(await page.textContent('#off-scope'), /does not cover/);
    assert.deepEqual(await seriousViolations(page), []);
    assert.deepEqual(browser.problems, []);
  });
}
