// Every `pattern` a client may compile is a valid ECMA-262 regular expression in Unicode
// mode (`new RegExp(p, 'u')`, what JSON Schema validators in JavaScript and the hosts'
// converters use): the published schemas in schemas/, every tool's input and output schema
// as a real `okf serve` lists them (with a workbench, so every tool is listed), and the
// page tools' schemas the page registers (web/contract.js, generated from the same table).
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import { dwpRegistry, startServer } from './server.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const SCHEMAS = resolve(here, '../../schemas');

/** Every `pattern` keyword value under `value`, with where it is. */
function patterns(value, where, out = []) {
  if (Array.isArray(value)) {
    value.forEach((v, i) => patterns(v, `${where}[${i}]`, out));
  } else if (value && typeof value === 'object') {
    for (const [key, v] of Object.entries(value)) {
      if (key === 'pattern' && typeof v === 'string') out.push({ where: `${where}.pattern`, pattern: v });
      // `properties` maps names to schemas: a property may itself be called "pattern".
      patterns(v, `${where}.${key}`, out);
    }
  }
  return out;
}

function assertCompiles(found) {
  const bad = [];
  for (const { where, pattern } of found) {
    try {
      new RegExp(pattern, 'u');
    } catch (e) {
      bad.push(`${where}: ${JSON.stringify(pattern)}: ${e.message}`);
    }
  }
  assert.deepEqual(bad, []);
}

test('the checker refuses a pattern that is invalid only in Unicode mode', () => {
  // `\-` outside a class and a lone `{` are legal in legacy mode but not with the u flag.
  assert.doesNotThrow(() => new RegExp('a\\-b'));
  assert.throws(() => assertCompiles([{ where: 'x', pattern: 'a\\-b' }]));
  assert.throws(() => assertCompiles([{ where: 'x', pattern: 'a{' }]));
});

test('every pattern of the published schemas compiles with the u flag', () => {
  const files = readdirSync(SCHEMAS).filter((f) => f.endsWith('.json'));
  assert.ok(files.length >= 10, `schemas found: ${files}`);
  const found = files.flatMap((f) => patterns(JSON.parse(readFileSync(join(SCHEMAS, f), 'utf8')), f));
  assert.ok(found.length > 0, 'the schemas have patterns to check');
  assertCompiles(found);
});

test('every pattern of the page contract (its tools and value rules) compiles with the u flag', async () => {
  const { CONTRACT } = await import(resolve(here, '../../web/contract.js'));
  const found = patterns(CONTRACT, 'web/contract.js');
  assert.ok(found.length > 0, 'the contract has patterns to check');
  assertCompiles(found);
});

let server;
before(async () => {
  server = await startServer(['--registry', dwpRegistry({ workbench: true })]);
});
after(async () => {
  await server?.stop();
});

test('every pattern of every served tool schema compiles with the u flag', async () => {
  const response = await fetch(`${server.url}/mcp`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'MCP-Protocol-Version': '2025-11-25' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
  });
  assert.equal(response.status, 200, await response.clone().text());
  const { result } = await response.json();
  assert.ok(result.tools.length >= 9, `tools listed: ${result.tools.map((t) => t.name)}`);
  const found = result.tools.flatMap((tool) => [
    ...patterns(tool.inputSchema, `${tool.name}.inputSchema`),
    ...patterns(tool.outputSchema ?? {}, `${tool.name}.outputSchema`),
  ]);
  assert.ok(found.length > 0, 'the tool schemas have patterns to check');
  assertCompiles(found);
});
