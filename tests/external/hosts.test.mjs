// The bridges and tools desktop hosts and developers put between an AI host and a remote MCP
// server, against a real `okf serve` on the embedded example and the DWP registry:
// `mcp-remote` (the stdio bridge desktop hosts launch), driven over stdio by the official
// TypeScript SDK's client as a host would, and the Inspector CLI. Each lists the tools and
// calls every one; the package each sees is the one POST /api/ask returns.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

import { dwpQuestion, dwpRegistry, startServer } from './server.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const run = promisify(execFile);
const TOOLS = ['ask_okf', 'okf_get_context', 'okf_explain_context', 'ask_okf_manifest', 'read_okf_evidence', 'search', 'fetch', 'okf_check_answer'];

const BUNDLES = [
  { bundle: 'example', args: () => [], question: 'How do I borrow books?' },
  { bundle: 'okf-dwp', args: () => ['--registry', dwpRegistry()], question: dwpQuestion() },
];

/** Arguments for each tool given the package POST /api/ask returned. */
function argumentsFor(tool, served, pkg) {
  const ask = { bundle: served.bundle, question: served.question };
  return {
    ask_okf: ask,
    okf_get_context: { context_id: pkg.context_id },
    okf_explain_context: { context_id: pkg.context_id, record_id: pkg.selected[0].record.id },
    ask_okf_manifest: ask,
    read_okf_evidence: { ...ask, context_id: pkg.context_id, section: 'record_text', record_id: pkg.selected[0].record.id },
    search: { query: `${served.bundle}: ${served.question}` },
    fetch: { id: `${pkg.context_id}#record-1` },
    okf_check_answer: { answer: answerFor(pkg) },
  }[tool];
}

/** A one-claim answer quoting the package's first selected record whole (quotes must be whole sentences). */
function answerFor(pkg) {
  const record = pkg.selected[0].record;
  return {
    schema: 'okf-grounded-answer.v1',
    context_id: pkg.context_id,
    evidence_status: pkg.evidence_status,
    claims: [{ id: 'c1', text: 'A claim.', requirement: null, citations: [{ record: record.id, quote: record.text.trim() }] }],
  };
}

/** Whether a tool's structured result belongs to the package, by the shape of each tool. */
function checkResult(tool, value, pkg) {
  switch (tool) {
    case 'ask_okf':
    case 'okf_get_context':
      assert.deepEqual(value, pkg, `${tool}: the package of POST /api/ask`);
      break;
    case 'okf_explain_context':
      assert.equal(value.item.record.id, pkg.selected[0].record.id, tool);
      break;
    case 'ask_okf_manifest':
    case 'read_okf_evidence':
      assert.equal(value.context_id, pkg.context_id, tool);
      break;
    case 'search':
      assert.equal(value.results.length, 1 + pkg.selected.length, tool);
      assert.equal(value.results[0].id, `${pkg.context_id}#package`, tool);
      break;
    case 'fetch':
      assert.equal(value.text, pkg.selected[0].record.text, tool);
      break;
    case 'okf_check_answer':
      assert.equal(value.schema, 'okf-answer-check.v1', tool);
      assert.equal(value.context_id, pkg.context_id, tool);
      assert.equal(value.claims[0].citations[0].ok, true, tool);
      break;
    default:
      assert.fail(`no check for ${tool}`);
  }
}

for (const served of BUNDLES) {
  describe(`bundle ${served.bundle}`, () => {
    let server;
    let pkg;
    before(async () => {
      server = await startServer(served.args());
      const r = await fetch(`${server.url}/api/ask`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ bundle: served.bundle, question: served.question }),
      });
      assert.equal(r.status, 200);
      pkg = await r.json();
    });
    after(() => server?.stop());

    test('mcp-remote 0.15.1 over stdio: a host lists the tools and calls every one', async () => {
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [join(here, 'node_modules/mcp-remote/dist/proxy.js'), `${server.url}/mcp`, '--transport', 'http-only'],
        // Its OAuth state would go to ~/.mcp-auth; the server needs none.
        env: { ...process.env, MCP_REMOTE_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'okf-mcp-remote-')) },
        stderr: 'pipe',
      });
      let bridgeLog = '';
      transport.stderr?.on('data', (d) => {
        bridgeLog += d;
      });
      const client = new Client({ name: 'okf-host-test', version: '0' });
      await client.connect(transport);
      try {
        const { tools } = await client.listTools();
        assert.deepEqual(tools.map((t) => t.name), TOOLS, bridgeLog);
        for (const tool of TOOLS) {
          const result = await client.callTool({ name: tool, arguments: argumentsFor(tool, served, pkg) });
          assert.notEqual(result.isError, true, `${tool}: ${result.content?.[0]?.text}`);
          checkResult(tool, result.structuredContent, pkg);
        }
      } finally {
        await client.close();
      }
    });

    test('Inspector CLI 2.12.0: lists the tools and calls every one', async () => {
      // The package's `bin` (a link node follows).
      const inspector = join(here, 'node_modules/.bin/mcp-inspector');
      const cli = async (...args) => {
        const { stdout } = await run(process.execPath, [inspector, '--cli', `${server.url}/mcp`, '--transport', 'http', ...args], {
          maxBuffer: 16 * 1024 * 1024,
        });
        return JSON.parse(stdout);
      };
      const listed = await cli('--method', 'tools/list');
      assert.deepEqual(listed.tools.map((t) => t.name), TOOLS);
      for (const tool of TOOLS) {
        // The Inspector parses a value as JSON when it can: objects go as JSON text.
        const toolArgs = Object.entries(argumentsFor(tool, served, pkg)).flatMap(([k, v]) => ['--tool-arg', `${k}=${typeof v === 'object' ? JSON.stringify(v) : v}`]);
        const result = await cli('--method', 'tools/call', '--tool-name', tool, ...toolArgs);
        assert.notEqual(result.isError, true, `${tool}: ${result.content?.[0]?.text}`);
        checkResult(tool, result.structuredContent, pkg);
      }
    });
  });
}

