// The official TypeScript MCP clients against a real `okf serve`: SDK 1.x
// (@modelcontextprotocol/sdk) and the 2.x client package (@modelcontextprotocol/client), each
// with both of its output-schema validators (Ajv and @cfworker/json-schema), against the DWP
// registry and the embedded example. Every client lists the tools and calls EVERY listed tool
// with arguments from TOOL_CALLS, so a tool added to the server fails here until it has an
// entry. Run by tests/external/run-ts.sh.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { AjvJsonSchemaValidator as AjvV1 } from '@modelcontextprotocol/sdk/validation/ajv';
import { CfWorkerJsonSchemaValidator as CfWorkerV1 } from '@modelcontextprotocol/sdk/validation/cfworker';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { AjvJsonSchemaValidator as AjvV2 } from '@modelcontextprotocol/client/validators/ajv';
import { CfWorkerJsonSchemaValidator as CfWorkerV2 } from '@modelcontextprotocol/client/validators/cf-worker';

import { TOOL_CALLS, WORKBENCH, dwpQuestion, dwpRegistry, startServer } from './server.mjs';

const INFO = { name: 'okf-external-ts', version: '0' };

/** Wraps a validator provider and counts the validations it runs, to prove validation is on. */
function counting(provider) {
  const counts = { schemas: 0, validated: 0 };
  return {
    counts,
    getValidator(schema) {
      counts.schemas += 1;
      const validate = provider.getValidator(schema);
      return (input) => {
        counts.validated += 1;
        return validate(input);
      };
    },
  };
}

/** [label, validator, client, transport, protocol revision the client must end up on]. */
const CLIENTS = [
  ['sdk 1.32.2, Ajv', () => new AjvV1(), (v) => new ClientV1(INFO, { jsonSchemaValidator: v }), TransportV1, null],
  ['sdk 1.32.2, CfWorker', () => new CfWorkerV1(), (v) => new ClientV1(INFO, { jsonSchemaValidator: v }), TransportV1, null],
  ...[
    ['legacy', '2025-11-25'],
    ['auto', '2026-07-28'],
  ].flatMap(([mode, revision]) => [
    [`client 2.4.0 ${mode}, Ajv`, () => new AjvV2(), (v) => new ClientV2(INFO, { jsonSchemaValidator: v, versionNegotiation: { mode } }), TransportV2, revision],
    [`client 2.4.0 ${mode}, CfWorker`, () => new CfWorkerV2(), (v) => new ClientV2(INFO, { jsonSchemaValidator: v, versionNegotiation: { mode } }), TransportV2, revision],
  ]),
];

test('control: every validator under test refuses the pattern the server used to publish', () => {
  // `\"` inside a character class: an invalid escape in ECMA-262 `u` mode.
  const old = { type: 'string', pattern: '^[^<>\\"]+$' };
  for (const Provider of [AjvV1, CfWorkerV1, AjvV2, CfWorkerV2]) {
    assert.throws(() => new Provider().getValidator(old)('abc'), /Invalid regular expression/, Provider.name);
  }
});

test('control: a shared Ajv instance mis-validates two tools whose input schemas share one $id', () => {
  // What the server used to list: the three ask-based tools each carried the published
  // ask-request `$id` with different properties. Ajv caches compiled schemas by `$id`.
  const $id = 'https://example.invalid/okf-ask-request.v1.json';
  const ask = { $id, type: 'object', properties: { question: { type: 'string' } }, additionalProperties: false };
  const manifest = { ...ask, properties: { ...ask.properties, delivery_bytes: { type: 'integer' } } };
  for (const Provider of [AjvV1, AjvV2]) {
    const shared = new Provider();
    shared.getValidator(ask);
    let outcome;
    try {
      outcome = shared.getValidator(manifest)({ question: 'q', delivery_bytes: 16384 });
    } catch (e) {
      outcome = { valid: false, errorMessage: e.message };
    }
    assert.equal(outcome.valid, false, `${Provider.name}: the control no longer shows the $id collision`);
  }
});

/** Schema-valid arguments for every tool (the values need not name anything served). */
function validArguments(bundle) {
  return TOOL_CALLS_WITH({
    bundle, question: 'q', contextId: `urn:sha256:${'0'.repeat(64)}`, recordId: 'r', firstRecordResult: 'r',
  });
}

/** `plain` with every property of `schema` present, the ones it does not give null (recursively for objects it gives). */
function strictArguments(schema, plain) {
  const out = {};
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    const value = plain?.[name];
    const objectSchema = property.type === 'object' ? property : property.anyOf?.find((s) => s.type === 'object');
    out[name] = value === undefined ? null : objectSchema && value && typeof value === 'object' && !Array.isArray(value) && objectSchema.properties ? strictArguments(objectSchema, value) : value;
  }
  return out;
}

/** TOOL_CALLS' arguments for every tool, given one context. */
function TOOL_CALLS_WITH(ctx) {
  return Object.fromEntries(Object.entries(TOOL_CALLS).map(([name, make]) => [name, make(ctx)]));
}

/** What each tool's result must say beyond the generic checks. */
const TOOL_CHECKS = {
  okf_workbench_case: (_ctx, result) => {
    const opened = result.structuredContent;
    assert.equal(opened.schema, 'okf-workbench-case.v1');
    assert.equal(opened.case.id, WORKBENCH.caseId);
    assert.equal(opened.package.schema, 'okf-governed-context.v1');
    assert.equal(opened.package.question, opened.case.question);
  },
  ask_okf: (ctx, result) => {
    const pkg = result.structuredContent;
    assert.equal(pkg.schema, 'okf-governed-context.v1');
    assert.equal(pkg.ai_answer, null);
    assert.ok(['sufficient', 'insufficient', 'conflicting'].includes(pkg.evidence_status));
    assert.ok(pkg.selected.length > 0, 'the question selects records');
    ctx.contextId = pkg.context_id;
    ctx.recordId = pkg.selected[0].record.id;
    ctx.recordText = pkg.selected[0].record.text;
    ctx.evidenceStatus = pkg.evidence_status;
    ctx.selectedCount = pkg.selected.length;
  },
  okf_get_context: (ctx, result) => assert.equal(result.structuredContent.context_id, ctx.contextId),
  okf_explain_context: (ctx, result) => {
    assert.equal(result.structuredContent.context_id, ctx.contextId);
    assert.equal(result.structuredContent.item.record.id, ctx.recordId);
  },
  ask_okf_manifest: (ctx, result) => {
    const page = result.structuredContent;
    assert.equal(page.schema, 'okf-context-manifest.v1');
    assert.equal(page.context_id, ctx.contextId);
    assert.ok(page.response_bytes <= 16384);
    assert.equal(page.records[0].id, ctx.recordId);
    assert.ok(result.content.some((c) => c.type === 'resource_link' && c.uri === page.review_url));
  },
  read_okf_evidence: (ctx, result) => {
    const slice = result.structuredContent;
    assert.equal(slice.schema, 'okf-context-read.v1');
    assert.equal(slice.context_id, ctx.contextId);
    assert.equal(slice.record_id, ctx.recordId);
    assert.ok(slice.delivery.used_bytes <= 8192);
  },
  search: (ctx, result) => {
    const { results } = result.structuredContent;
    assert.equal(results[0].id, `${ctx.contextId}#package`);
    assert.equal(results.length, 1 + ctx.selectedCount, 'the package, then every selected record');
    assert.ok(results.every((r) => r.url.length > 0));
    ctx.firstRecordResult = results[1].id;
  },
  fetch: (ctx, result) => {
    const doc = result.structuredContent;
    assert.equal(doc.id, ctx.firstRecordResult);
    assert.equal(doc.metadata.record_id, ctx.recordId);
    assert.equal(doc.metadata.context_id, ctx.contextId);
    assert.equal(doc.text, ctx.recordText);
  },
  okf_check_answer: (ctx, result) => {
    const report = result.structuredContent;
    assert.equal(report.schema, 'okf-answer-check.v1');
    assert.equal(report.context_id, ctx.contextId);
    assert.equal(report.claims[0].citations[0].ok, true);
    assert.equal(report.status.ok, true);
  },
};

const BUNDLES = [
  { bundle: 'example', args: () => [], question: 'How do I borrow books?', workbench: false },
  { bundle: 'okf-dwp', args: () => ['--registry', dwpRegistry({ workbench: true })], question: dwpQuestion(), workbench: true },
];

function text(result) {
  return result.content.find((c) => c.type === 'text')?.text;
}

for (const served of BUNDLES) {
  describe(`bundle ${served.bundle}`, () => {
    let server;
    before(async () => {
      server = await startServer(served.args());
    });
    after(() => server?.stop());

    test('one Ajv instance shared across every tool accepts valid arguments in any call order', async () => {
      const client = new ClientV1(INFO);
      await client.connect(new TransportV1(new URL(`${server.url}/mcp`)));
      try {
        const { tools } = await client.listTools();
        const args = validArguments(served.bundle);
        assert.deepEqual(tools.map((t) => t.name).filter((n) => !(n in args)), []);
        // What a strict function-calling client sends: every property, the unused ones null.
        for (const tool of tools) args[tool.name] = strictArguments(tool.inputSchema, args[tool.name]);
        for (const Provider of [AjvV1, AjvV2]) {
          for (const order of [tools, [...tools].reverse()]) {
            const shared = new Provider();
            for (const tool of order) {
              const outcome = shared.getValidator(tool.inputSchema)(args[tool.name]);
              assert.equal(outcome.valid, true, `${Provider.name}, ${tool.name}: ${outcome.errorMessage}`);
            }
          }
        }
      } finally {
        await client.close();
      }
    });

    for (const [name, makeValidator, makeClient, Transport, revision] of CLIENTS) {
      test(`${name}: lists the tools and calls every one with output validation on`, async () => {
        const validator = counting(makeValidator());
        const client = makeClient(validator);
        await client.connect(new Transport(new URL(`${server.url}/mcp`)));
        try {
          if (revision) assert.equal(client.getNegotiatedProtocolVersion(), revision);
          const { tools } = await client.listTools();
          const names = tools.map((t) => t.name);
          const missing = names.filter((n) => !(n in TOOL_CALLS));
          assert.deepEqual(missing, [], `listed tools without an entry in TOOL_CALLS: ${missing}`);
          // Every tool of the table, the workbench one exactly where a workbench is served.
          const expected = Object.keys(TOOL_CALLS).filter((n) => served.workbench || n !== 'okf_workbench_case');
          assert.deepEqual(expected.filter((n) => !names.includes(n)), [], `tools listed: ${names}`);
          assert.equal(names.includes('okf_workbench_case'), served.workbench, `tools listed: ${names}`);

          const ask = tools.find((t) => t.name === 'ask_okf');
          assert.deepEqual(ask.inputSchema.properties.bundle.enum, [served.bundle]);
          assert.ok(ask.inputSchema.properties.bundle.description.includes(served.bundle));
          // Strict as served (OpenAI strict function calling): every property required, the
          // optional ones nullable (null: the default version), no keyword outside the strict
          // subset (`$schema`, `$defs`, `format`, lengths stay with the server's decoder); the
          // description sits in the non-null member, where Gemini's Schema conversion keeps it.
          const { description, ...version } = ask.inputSchema.properties.version.anyOf[0];
          assert.deepEqual([version, ...ask.inputSchema.properties.version.anyOf.slice(1)], [{ enum: ['current'], type: 'string' }, { type: 'null' }]);
          assert.match(description, /^Version of the bundle/);
          assert.deepEqual([...ask.inputSchema.required].sort(), Object.keys(ask.inputSchema.properties).sort());
          assert.equal(ask.inputSchema.$schema, undefined);
          assert.equal(ask.inputSchema.$defs, undefined);
          assert.equal(ask.inputSchema.additionalProperties, false);

          const ctx = { bundle: served.bundle, question: served.question };
          for (const toolName of Object.keys(TOOL_CALLS).filter((n) => names.includes(n))) {
            const tool = tools.find((t) => t.name === toolName);
            const before = validator.counts.validated;
            const result = await client.callTool({ name: toolName, arguments: TOOL_CALLS[toolName](ctx) });
            assert.notEqual(result.isError, true, `${toolName}: ${text(result)}`);
            assert.equal(typeof result.structuredContent, 'object', `${toolName}: structuredContent`);
            const block = text(result);
            // What a model reading only `content` gets stays within what hosts keep inline:
            // 25,000 tokens at 4 characters each; 50,000 characters for a tool that does not
            // declare a larger result (anthropic/maxResultSizeChars).
            const declared = tool._meta?.['anthropic/maxResultSizeChars'];
            assert.ok([...block].length <= (declared ? 100_000 : 50_000), `${toolName}: ${[...block].length} characters of text`);
            const pkg = result.structuredContent.schema === 'okf-governed-context.v1'
              ? result.structuredContent
              : result.structuredContent.package ?? null;
            if (pkg) {
              // A package is read as its evidence brief, never a note, however large it is.
              assert.ok(block.startsWith('# Ask OKF evidence brief\n'), `${toolName}: ${block.slice(0, 200)}`);
              assert.ok(block.includes(`context_id: ${pkg.context_id}`), `${toolName}: names its package`);
              assert.match(block, /\nbrief_sha256: [0-9a-f]{64}\n$/, `${toolName}: ends with its own digest`);
            } else if (block.startsWith('{')) {
              assert.deepEqual(JSON.parse(block), result.structuredContent, `${toolName}: text block is the same JSON`);
            } else {
              // Too large to carry twice within the hosts' 1 MB result limit: the text block says
              // where the exact content is (DEVIATIONS M8).
              assert.match(block, /is in structuredContent exactly as assembled/, `${toolName}: ${block.slice(0, 200)}`);
              assert.ok(JSON.stringify(result.structuredContent).length > 400_000, `${toolName}: only large results lose the text copy`);
            }
            if (tool.outputSchema) {
              assert.equal(validator.counts.validated, before + 1, `${toolName}: the client validated structuredContent`);
            }
            TOOL_CHECKS[toolName]?.(ctx, result);
          }
          assert.ok(validator.counts.schemas > 0 && validator.counts.validated > 0, JSON.stringify(validator.counts));

          // The prompt: its one message is the package's evidence brief, the same text the
          // ask_okf text block carries for the same question.
          const { prompts } = await client.listPrompts();
          assert.deepEqual(prompts.map((p) => p.name), ['answer_from_package']);
          const prompt = await client.getPrompt({ name: 'answer_from_package', arguments: { bundle: served.bundle, question: served.question } });
          assert.equal(prompt.messages.length, 1);
          assert.equal(prompt.messages[0].role, 'user');
          const asked = await client.callTool({ name: 'ask_okf', arguments: { bundle: served.bundle, question: served.question } });
          assert.equal(prompt.messages[0].content.text, text(asked), 'the prompt embeds the brief');

          // An unknown tool is a protocol error (JSON-RPC -32602) from the server, not a result.
          await assert.rejects(
            client.callTool({ name: 'no_such_tool', arguments: {} }),
            (e) => e.code === -32602 && /tools\/list names the tools/.test(e.message),
          );
          // A bundle the server does not serve is a tool error that names the served ones.
          const wrong = await client.callTool({ name: 'ask_okf', arguments: { bundle: 'not-served', question: 'q' } });
          assert.equal(wrong.isError, true);
          assert.match(text(wrong), new RegExp(`unknown_bundle.*${served.bundle}`));
        } finally {
          await client.close();
        }
      });
    }
  });
}
