// The official MCP conformance suite (@modelcontextprotocol/conformance, needs Node >= 22)
// against a real `okf serve`: every server scenario runs; the run must match the checked-in
// baseline of expected failures exactly, and every scenario in conformance-required.txt must
// pass with at least one passed check. Run by tests/external/run-ts.sh.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { startServer } from './server.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const suite = join(dirname(require.resolve('@modelcontextprotocol/conformance/package.json')), 'dist/index.js');

const required = readFileSync(join(here, 'conformance-required.txt'), 'utf8')
  .split('\n')
  .map((l) => l.trim())
  .filter((l) => l && !l.startsWith('#'));

/** The scenarios listed as expected failures (`  - name` lines of the YAML file). */
const expected = new Set(
  [...readFileSync(join(here, 'conformance-expected-failures.yml'), 'utf8').matchAll(/^\s+- (\S+)/gmu)].map((m) => m[1]),
);

function run(args) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [suite, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.stderr.on('data', (d) => {
      out += d;
    });
    child.on('close', (status) => resolve({ status, out }));
  });
}

describe('conformance server scenarios', () => {
  let server;
  let result;
  const summary = new Map();
  before(async () => {
    assert.ok(Number(process.versions.node.split('.')[0]) >= 22, `the suite needs Node >= 22, this is ${process.version}`);
    // The test-only switch lists the suite's fixture tool for its json-schema-2020-12
    // scenario; every other scenario sees the same tools as without it.
    server = await startServer(['--mcp-conformance-fixture']);
    result = await run([
      'server',
      '--url',
      `${server.url}/mcp`,
      '--suite',
      'all',
      '--expected-failures',
      join(here, 'conformance-expected-failures.yml'),
      '-o',
      mkdtempSync(join(tmpdir(), 'okf-conformance-')),
    ]);
    for (const m of result.out.matchAll(/^([✓✗]) (\S+): (\d+) passed, (\d+) failed$/gmu)) {
      summary.set(m[2], { ok: m[1] === '✓', passed: Number(m[3]), failed: Number(m[4]) });
    }
    // The suite prints every failing scenario with a ✗; say which of them are the expected
    // ones (and why, in the file) so the printed summary is not read as failures.
    const summaryText = result.out.slice(result.out.indexOf('=== SUMMARY ==='));
    console.log(
      summaryText.replace(/^✗ (\S+):(.*)$/gmu, (line, name, rest) =>
        expected.has(name) ? `✗ ${name}:${rest}  (expected: see conformance-expected-failures.yml)` : line,
      ),
    );
  });
  after(() => server?.stop());

  test('every scenario ran and the failures are exactly the expected ones', () => {
    assert.ok(summary.size >= 30, `scenarios in the summary: ${summary.size}\n${result.out.slice(-3000)}`);
    assert.equal(result.status, 0, result.out.slice(-3000));
  });

  for (const scenario of required) {
    test(`${scenario} passes`, () => {
      const row = summary.get(scenario);
      assert.ok(row, `${scenario} did not run`);
      assert.ok(row.ok && row.failed === 0 && row.passed > 0, `${scenario}: ${JSON.stringify(row)}`);
    });
  }
});
