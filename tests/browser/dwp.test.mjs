// 1. The DWP imprisonment question asked through the form: everything the page counts equals
//    the POST /api/ask package for the same input; the download is the exact bytes; the
//    graph is bounded, clickable and has its table; the permalink asks again.

import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { after, before, test } from 'node:test';
import {
  askThroughForm,
  dwpRegistry,
  expectedCounts,
  expectedGraph,
  imprisonmentQuestion,
  launch,
  openPage,
  screenshot,
  shownCounts,
  startServer,
  strayValueTexts,
  tempDir,
  waitForPackage,
} from './harness.mjs';

let dir;
let server;
let browser;

before(async () => {
  dir = tempDir('dwp');
  server = await startServer(['--registry', dwpRegistry(dir)]);
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

test('the DWP imprisonment package shown on the page equals the /api/ask package', async () => {
  const { page } = browser;
  const question = imprisonmentQuestion();
  await openPage(page, server.base);
  assert.equal(await page.getAttribute('#webmcp-status', 'data-available'), 'false', 'no WebMCP registry without a polyfill; the page works as usual');
  await askThroughForm(page, 'okf-dwp', question);

  const api = await server.ask({ bundle: 'okf-dwp', question });
  assert.equal(api.status, 200);
  const pkg = api.json;
  assert.equal(pkg.evidence_status, 'sufficient');

  assert.equal(await page.getAttribute('#status', 'data-status'), pkg.evidence_status);
  assert.equal((await page.textContent('#status .status-word')).trim(), pkg.evidence_status);
  assert.equal(await page.textContent('#context-id'), pkg.context_id);
  assert.deepEqual(await shownCounts(page), expectedCounts(pkg));
  assert.deepEqual(await strayValueTexts(page), [], 'no empty value is written out as text');

  // Requirement rows: one per requirement, in order, met/unmet and the missing ids.
  const rows = await page.$$eval('#requirements-table tbody tr', (trs) =>
    trs.map((tr) => ({ id: tr.dataset.requirement, status: tr.dataset.status, missing: [...tr.querySelectorAll('td:last-child code')].map((c) => c.textContent) })),
  );
  assert.deepEqual(
    rows,
    pkg.requirements.map((r) => ({ id: r.id, status: r.status === 'supported-within-declared-scope' ? 'met' : 'unmet', missing: r.missing })),
  );

  // Each branch names the paragraphs that support it alone (DMG paragraph numbers read from
  // the captured pages), and the routing pages every branch rests on are named once.
  const support = await page.$$eval('#requirements-table tbody tr', (trs) =>
    trs.map((tr) => [...tr.querySelectorAll('td.support li')].map((li) => li.textContent.trim())),
  );
  const byBranch = Object.fromEntries(pkg.requirements.map((r, i) => [r.label.split(' ')[0], support[i].join(' | ')]));
  assert.match(byBranch.Both, /DMG Vol 8 Ch 41: ESA conditions of entitlement +paragraphs 41822–41832/);
  assert.match(byBranch.Both, /DMG Vol 9 Ch 54: Special cases paragraphs 54197–54215 \(4 pages\)/);
  assert.match(byBranch.Income, /DMG Vol 4 Ch 24: Special cases paragraphs 24198–24228 \(5 pages\)/);
  assert.match(byBranch.Legacy, /DMG Vol 4 Ch 24: Special cases paragraphs 24185–24192$|DMG Vol 4 Ch 24: Special cases paragraphs 24185–24192 \|/);
  assert.match(byBranch.State, /Chapter 78 paragraphs 78650–78679 \(8 pages\)/);
  for (const row of support) assert.ok(!row.some((line) => line.startsWith('DMG Vol 3 Ch 12')), 'the routing chapter is not repeated in a row');
  assert.match(await page.textContent('#requirements-common'), /DMG Vol 3 Ch 12: Imprisonment paragraphs 12001–12016 \(2 pages\)/);
  const chapter24 = page.locator('#requirements-table td.support li[data-document^="DMG Vol 4 Ch 24"] a').first();
  assert.match(await chapter24.getAttribute('href'), /^https:\/\/assets\.publishing\.service\.gov\.uk\/.*#page=\d+$/);

  // Resolved concepts with their matched phrases.
  const concepts = await page.$$eval('#concepts ul.concepts > li', (lis) => lis.map((li) => ({ id: li.dataset.id, matched: [...li.querySelectorAll('mark')].map((m) => m.textContent) })));
  assert.deepEqual(concepts, pkg.resolved_concepts.map((c) => ({ id: c.id, matched: c.matched })));

  // The graph: bounded, with as many boxes and arrows as the rule says, and a note.
  const graph = expectedGraph(pkg);
  assert.equal(graph.nodes, 52);
  assert.equal(graph.edges, 120, 'the DWP package has 127 relationships; the drawing stops at 120 arrows');
  assert.equal(Number(await page.getAttribute('#graph-svg', 'data-nodes')), graph.nodes);
  assert.equal(Number(await page.getAttribute('#graph-svg', 'data-edges')), graph.edges);
  assert.equal(await page.locator('#graph-svg g.node').count(), graph.nodes);
  assert.equal(await page.locator('#graph-svg path.edge').count(), graph.edges);
  assert.equal(await page.locator('#graph-svg path.edge[marker-end^="url(#arrow-"]').count(), graph.edges, 'every edge has an arrowhead');
  const note = await page.textContent('#graph-note');
  assert.match(note, new RegExp(`Drawn: ${graph.nodes} of ${pkg.selected.length} selected records and ${graph.edges} of ${pkg.relationships.length} relationships`));
  assert.match(note, /7 relationships between drawn records are not drawn \(limit 120 arrows\)/);
  assert.equal(await page.locator('#graph-table tbody tr').count(), pkg.relationships.length, 'the table lists every relationship');
  const size = await page.$eval('#graph-svg', (s) => ({ w: Number(s.getAttribute('width')), h: Number(s.getAttribute('height')) }));
  assert.ok(size.w <= 2400 && size.h <= 1100, `graph stays a readable size: ${JSON.stringify(size)}`);

  // Records: one per selected record, grouped by branch (a group per requirement, then what
  // every requirement rests on, then the rest), in package order within a group.
  const groups = await page.$$eval('#records details.record-group', (gs) =>
    gs.map((g) => ({ key: g.dataset.group, open: g.open, ids: [...g.querySelectorAll('details.record')].map((d) => d.dataset.id) })),
  );
  const shown = groups.flatMap((g) => g.ids);
  assert.deepEqual([...shown].sort(), pkg.selected.map((s) => s.record.id).sort(), 'every selected record once');
  const order = new Map(pkg.selected.map((s, i) => [s.record.id, i]));
  for (const g of groups) {
    assert.deepEqual(g.ids, [...g.ids].sort((a, b) => order.get(a) - order.get(b)), `${g.key}: package order`);
    assert.equal(g.open, false, `${g.key}: closed until asked for`);
  }
  assert.deepEqual(groups.map((g) => g.key).slice(0, 4), pkg.requirements.map((r) => r.id));
  for (const [i, r] of pkg.requirements.entries()) {
    const named = new Set([...r.required, ...(r.required_paths ?? []).flatMap((p) => p.records ?? [])]);
    assert.ok(groups[i].ids.every((id) => named.has(id)), `${r.id}: only records the requirement names`);
  }

  // Screenshots of the sufficient state and of the graph.
  await page.locator('#results-heading').scrollIntoViewIfNeeded();
  await page.evaluate(() => document.getElementById('results-heading').scrollIntoView({ block: 'start' }));
  await screenshot(page, 'sufficient');
  await screenshot(page.locator('#graph'), 'graph');

  // Clicking a node opens its record.
  const target = pkg.selected[pkg.selected.length - 1].record;
  await page.locator('#graph-svg g.node').filter({ has: page.locator('title', { hasText: target.label }) }).first().click();
  const opened = page.locator('details.record[open]');
  assert.equal(await opened.count(), 1);
  assert.equal(await opened.getAttribute('data-id'), target.id);
  assert.equal(await page.evaluate(() => document.activeElement?.closest('details.record')?.dataset.id), target.id, 'focus moves to the record');

  // The download is the exact response bytes.
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#download')]);
  const saved = readFileSync(await download.path());
  assert.ok(saved.equals(Buffer.from(api.text, 'utf8')), 'downloaded package is byte-identical to POST /api/ask');
  assert.match(download.suggestedFilename(), /^okf-package-[0-9a-f]{12}\.json$/);

  // The permalink asks the same bundle and question again in a fresh page.
  const permalink = await page.getAttribute('#permalink', 'href');
  assert.ok(permalink.startsWith(`${server.base}/#`), permalink);
  const again = await browser.context.newPage();
  await again.goto(permalink);
  await waitForPackage(again);
  assert.equal(await again.textContent('#context-id'), pkg.context_id);
  assert.equal(await again.inputValue('#bundle'), 'okf-dwp');
  assert.equal(await again.inputValue('#question'), question);
  await again.close();

  assert.deepEqual(browser.problems, [], 'no console errors (CSP violations included) and no page errors');
});

test('a permalink with a budget re-asks with that budget', async () => {
  const { page } = browser;
  const question = imprisonmentQuestion();
  const api = await server.ask({ bundle: 'okf-dwp', question, budget: { max_nodes: 10, max_depth: 1 } });
  const params = new URLSearchParams({ bundle: 'okf-dwp', q: question, max_nodes: '10', max_depth: '1' });
  await page.goto(`${server.base}/#${params}`);
  await waitForPackage(page);
  assert.equal(await page.textContent('#context-id'), api.json.context_id);
  assert.equal(await page.getAttribute('#status', 'data-status'), api.json.evidence_status);
  assert.deepEqual(await shownCounts(page), expectedCounts(api.json));
  assert.equal(await page.inputValue('#max_nodes'), '10');
  assert.equal(await page.inputValue('#max_depth'), '1');
  const omissions = await page.$$eval('#omissions-list > li', (lis) => lis.map((li) => li.dataset.code));
  assert.deepEqual(omissions, api.json.budget.omissions.map((o) => o.code));
  assert.deepEqual(browser.problems, []);
});
