// Shared helpers of the browser tests: a real `okf serve` on an ephemeral loopback port and
// Debian's Chromium driven by playwright-core (no browser download).

import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = path.dirname(fileURLToPath(import.meta.url));
export const repoRoot = path.resolve(here, '..', '..');

/** Where cargo puts build output: `cargo metadata` knows (CARGO_TARGET_DIR, config files). */
function cargoTargetDir() {
  try {
    const meta = execFileSync('cargo', ['metadata', '--format-version', '1', '--no-deps'], { cwd: repoRoot, encoding: 'utf8', maxBuffer: 64 << 20 });
    return JSON.parse(meta).target_directory;
  } catch {
    return process.env.CARGO_TARGET_DIR ?? path.join(repoRoot, 'target');
  }
}

/** The okf binary under test: $OKF_BIN, else debug/okf in cargo's target directory. */
export const okfBin = process.env.OKF_BIN || path.join(cargoTargetDir(), 'debug', 'okf');
export const chromiumPath = process.env.OKF_CHROMIUM ?? '/usr/bin/chromium';
// Screenshots go to a scratch folder so that a test run never writes into the tree;
// `OKF_SCREENSHOT_DIR=docs/screenshots npm --prefix tests/browser test` refreshes the ones
// the README shows.
export const screenshotDir = process.env.OKF_SCREENSHOT_DIR
  ? path.resolve(repoRoot, process.env.OKF_SCREENSHOT_DIR)
  : path.join(tmpdir(), `okf-screenshots-${process.pid}`);

/** A path under ../shared (read only; never copied into the repository). */
export function shared(rel) {
  return path.resolve(repoRoot, '..', 'shared', rel);
}

export const DWP_INDEX = shared('dwp/full-dmg/context/assembly-index.json');
export const DWP_SHA = '38159445a60d4bcabc23cb2cf728e14cbd0a4b55013276c291356e7a1452ff54';
export const DWP_URL =
  'https://raw.githubusercontent.com/chris-page-gov/okf-dwp/efb05c66616a9cd4328a86cf412780fe7bc7cf0b/full-dmg/context/assembly-index.json';

/** The DWP imprisonment question of the evaluation case. */
export function imprisonmentQuestion() {
  return JSON.parse(readFileSync(shared('dwp/evaluation/context-assembly/imprisonment-case.json'), 'utf8')).question;
}

/** A fresh temporary directory, removed by `cleanup()`. */
export function tempDir(name) {
  return mkdtempSync(path.join(tmpdir(), `okf-browser-${name}-`));
}

export function sha256Hex(data) {
  return createHash('sha256').update(data).digest('hex');
}

/** The title the test registries give the DWP bundle. */
export const DWP_TITLE = 'DWP Decision Makers’ Guide: imprisonment (frozen research copy)';

/** The question of the reference hospital package. */
export const hospitalQuestion = () => JSON.parse(readFileSync(shared('dwp/reference/hospital-package.json'), 'utf8')).question;

/**
 * Registry TOML serving the DWP index as `okf-dwp` and, as `dwp-hospital` in the richer
 * profile, the hospital profile built into `dir` from the frozen captures.
 */
export function dwpAndHospitalBundles(dir) {
  const hospital = path.join(dir, 'hospital.json');
  execFileSync(okfBin, ['build', path.join(repoRoot, 'profiles/dwp-hospital'), '--sources', shared('dwp/source'), '--out', hospital], { stdio: 'pipe' });
  return `[[bundle]]\nid = "okf-dwp"\nindex = ${JSON.stringify(DWP_INDEX)}\nsha256 = "${DWP_SHA}"\nindex_url = "${DWP_URL}"\ntitle = "${DWP_TITLE}"\n\n` +
    `[[bundle]]\nid = "dwp-hospital"\nindex = ${JSON.stringify(hospital)}\nsha256 = "${sha256Hex(readFileSync(hospital))}"\n` +
    `index_url = "https://example.invalid/ask-okf/dwp-hospital/index.json"\npackage_profile = "regimes"\n`;
}

/** A registry TOML in `dir` serving the DWP index as bundle `okf-dwp`. */
export function dwpRegistry(dir) {
  const file = path.join(dir, 'registry.toml');
  writeFileSync(
    file,
    `[[bundle]]\nid = "okf-dwp"\nindex = ${JSON.stringify(DWP_INDEX)}\nsha256 = "${DWP_SHA}"\nindex_url = "${DWP_URL}"\ntitle = "${DWP_TITLE}"\n`,
  );
  return file;
}

/**
 * Starts `okf serve --listen 127.0.0.1:0 ...args` and waits for its listening line.
 * Returns `{base, ask(body), get(path), stop()}`.
 */
export async function startServer(args = []) {
  if (!existsSync(okfBin)) {
    throw new Error(`cannot start okf serve: ${okfBin} does not exist (build it with cargo build -p okf, or set OKF_BIN)`);
  }
  const child = spawn(okfBin, ['serve', '--listen', '127.0.0.1:0', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk) => {
    log += chunk;
  });
  const lines = createInterface({ input: child.stdout });
  const first = await new Promise((resolve, reject) => {
    const logged = () => (log ? `:\n${log}` : ' (it logged nothing)');
    const timer = setTimeout(() => reject(new Error(`${okfBin} serve did not print its listening line within 60 s${logged()}`)), 60_000);
    lines.once('line', (line) => {
      clearTimeout(timer);
      resolve(line);
    });
    child.once('error', (e) => {
      clearTimeout(timer);
      reject(new Error(`cannot start ${okfBin} serve: ${e.message}`));
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${okfBin} serve exited with ${code ?? signal} before listening${logged()}`));
    });
  });
  const match = /^listening on (http:\/\/127\.0\.0\.1:\d+)$/.exec(first.trim());
  if (!match) throw new Error(`unexpected first line ${JSON.stringify(first)}`);
  const base = match[1];
  return {
    base,
    /** POST /api/ask from the test (not the browser): `{status, text, json}`. */
    async ask(body) {
      const response = await fetch(`${base}/api/ask`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
      const text = await response.text();
      return { status: response.status, text, json: JSON.parse(text) };
    },
    async get(p) {
      const response = await fetch(`${base}${p}`);
      return { status: response.status, headers: response.headers, text: await response.text() };
    },
    log: () => log,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * Launches Debian's Chromium with a fresh user-data directory. With `polyfill: true` the
 * WebMCP polyfill from node_modules is injected before any page script (with its testing
 * shim); the page itself never loads it. Console errors (CSP violations included) and page
 * errors are collected in `problems`.
 */
export async function launch({ polyfill = false, viewport = { width: 1280, height: 900 } } = {}) {
  const userDataDir = tempDir('profile');
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: chromiumPath,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport,
    acceptDownloads: true,
    reducedMotion: 'reduce',
  });
  if (polyfill) {
    const iife = readFileSync(path.join(here, 'node_modules', '@mcp-b', 'webmcp-polyfill', 'dist', 'index.iife.js'), 'utf8');
    await context.addInitScript({ content: `window.__webMCPPolyfillOptions = { installTestingShim: true };\n${iife}` });
  }
  const problems = [];
  const page = context.pages()[0] ?? (await context.newPage());
  const watch = (p) => {
    p.on('console', (m) => {
      if (m.type() === 'error') problems.push(`console: ${m.text()}`);
    });
    p.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  };
  watch(page);
  context.on('page', watch);
  return {
    context,
    page,
    problems,
    async close() {
      await context.close();
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

/** Opens the page and waits until the bundle list has loaded. */
export async function openPage(page, base, hash = '') {
  await page.goto(`${base}/${hash}`);
  await page.waitForFunction(() => document.getElementById('bundle-note')?.textContent?.includes('served bundles'));
}

/** Submits the form with a bundle and question (mouse-free: fills and clicks the button). */
export async function askThroughForm(page, bundle, question) {
  await page.selectOption('#bundle', bundle);
  await page.fill('#question', question);
  const previous = await page.evaluate(() => document.getElementById('context-id')?.textContent ?? null);
  await page.click('#submit');
  await waitForPackage(page, previous);
}

/** Waits until a package (different from `previous` context id) is shown. */
export async function waitForPackage(page, previous = null) {
  await page.waitForFunction(
    (prev) => {
      const id = document.getElementById('context-id')?.textContent;
      return Boolean(id) && id !== prev && document.getElementById('results')?.getAttribute('aria-busy') === 'false';
    },
    previous,
  );
}

/** Writes a PNG screenshot to screenshotDir/NAME.png. */
export async function screenshot(target, name, options = {}) {
  mkdirSync(screenshotDir, { recursive: true });
  const file = path.join(screenshotDir, `${name}.png`);
  await target.screenshot({ path: file, animations: 'disabled', ...options });
  return file;
}

/** Writes a full-width screenshot of the page from the top of `from` to the bottom of `to`. */
export async function screenshotRegion(page, name, from, to) {
  const box = await page.evaluate(
    ([a, b]) => {
      const top = document.querySelector(a).getBoundingClientRect().top + window.scrollY;
      const bottom = document.querySelector(b).getBoundingClientRect().bottom + window.scrollY;
      return { top, bottom, width: document.documentElement.clientWidth };
    },
    [from, to],
  );
  const y = Math.max(0, Math.floor(box.top) - 12);
  return screenshot(page, name, { fullPage: true, clip: { x: 0, y, width: box.width, height: Math.ceil(box.bottom) + 12 - y } });
}

/** What the page's counts panel shows, by key. */
export async function shownCounts(page) {
  return page.$$eval('#counts [data-count]', (rows) => Object.fromEntries(rows.map((r) => [r.dataset.count, Number(r.querySelector('dd').textContent)])));
}

/** The counts the page must show for a package. */
export function expectedCounts(pkg) {
  return {
    selected: pkg.selected.length,
    relationships: pkg.relationships.length,
    requirements: pkg.requirements.length,
    requirements_met: pkg.requirements.filter((r) => r.status === 'supported-within-declared-scope').length,
    resolved_concepts: pkg.resolved_concepts.length,
    ambiguities: pkg.ambiguities.length,
    unresolved_terms: pkg.unresolved_terms.length,
    missing_evidence: pkg.missing_evidence.length,
    conflicts: pkg.conflicts.length,
    omissions: pkg.budget.omissions.length,
  };
}

/**
 * The graph the page must draw for a package (its documented bound): the first 60 selected
 * records and the first 120 relationships whose two ends are both among them.
 */
export function expectedGraph(pkg) {
  const nodes = pkg.selected.slice(0, 60).map((s) => s.record.id);
  const drawn = new Set(nodes);
  const edges = pkg.relationships.filter((r) => drawn.has(r.source) && drawn.has(r.target)).slice(0, 120);
  return { nodes: nodes.length, edges: edges.length };
}

/**
 * Builds a small DWP evidence workbench with `okf workbench build` (the first three DWP staff
 * questions with their briefs, and the imprisonment question) under `dir/wb`. Returns the
 * manifest's path and the questions it was built from.
 */
export function buildDwpWorkbench(dir) {
  const staff = JSON.parse(readFileSync(shared('dwp/evaluation/evidence-workbench/manifest.json'), 'utf8'));
  const questions = staff.questions.slice(0, 3).map((q) => ({
    id: q.id,
    label: q.label,
    question: q.question,
    ambiguities: q.ambiguities,
    required_evidence: q.required_evidence,
    scope_gaps: q.scope_gaps,
  }));
  questions.push({ id: 'imprisonment', label: 'Imprisonment', question: imprisonmentQuestion() });
  const file = path.join(dir, 'questions.json');
  writeFileSync(file, JSON.stringify({ title: 'DWP questions over the DMG index', publication: staff.publication, questions }));
  const out = path.join(dir, 'wb');
  execFileSync(okfBin, ['workbench', 'build', '--index', DWP_INDEX, '--questions', file, '--out', out], { stdio: ['ignore', 'ignore', 'pipe'] });
  return { manifest: path.join(out, 'manifest.json'), questions };
}

/** The `[[workbench]]` entry of a registry serving `manifest` as `id`. */
export const workbenchEntry = (id, manifest) => `\n[[workbench]]\nid = "${id}"\nmanifest = ${JSON.stringify(manifest)}\n`;

/**
 * The workbench of {@link buildDwpWorkbench}, served as `dwp-test` by a registry beside the
 * DWP bundle. Returns `{registry, manifest}`.
 */
export function dwpWorkbench(dir) {
  const { manifest } = buildDwpWorkbench(dir);
  const registry = dwpRegistry(dir);
  writeFileSync(registry, `${readFileSync(registry, 'utf8')}${workbenchEntry('dwp-test', manifest)}`);
  return { registry, manifest };
}

/**
 * The text nodes of a page or frame that read "null", "undefined" or "[object Object]": a value
 * that reached the DOM as a string where it should have been left out.
 */
export function strayValueTexts(pageOrFrame) {
  return pageOrFrame.evaluate(() => {
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    const found = [];
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = node.nodeValue.trim();
      if (text === 'null' || text === 'undefined' || text === '[object Object]') found.push(`${node.parentElement?.id || node.parentElement?.tagName}: ${text}`);
    }
    return found;
  });
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'];

/** Runs axe-core in the page (evaluate is not subject to the page's CSP) and returns serious and critical violations. */
export async function seriousViolations(page) {
  const results = await page.evaluate(
    async ([source, tags]) => {
      if (!window.axe) (0, eval)(source);
      const r = await window.axe.run(document, { runOnly: { type: 'tag', values: tags }, resultTypes: ['violations'] });
      return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 5).map((n) => n.target.join(' ')) }));
    },
    [AXE_SOURCE, AXE_TAGS],
  );
  return results.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

