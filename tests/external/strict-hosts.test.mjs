// The TypeScript hosts' strict function-calling paths against a real `okf serve`, on the embedded
// example and on the DWP registry with a workbench (so okf_workbench_case is listed too):
// - LangChain.js: @langchain/mcp-adapters loads the tools over Streamable HTTP, @langchain/core's
//   convertToOpenAITool(tool, { strict: true }) converts each one as a strict OpenAI binding does
//   (the converted parameters must be the served schema, unchanged, and strict), and every tool
//   is invoked through its LangChain tool object with strict-shaped arguments (two known
//   failures of mcp-adapters 1.1.4 are asserted as such: see LANGCHAIN_SCHEMA_KNOWN);
// - the Vercel AI SDK: @ai-sdk/mcp's client gives the tools, each marked `strict: true`, and
//   generateText drives every one, once with MockLanguageModelV4 (from `ai/test`) and once with
//   @ai-sdk/openai's Responses model whose fetch is replaced by a local function (no network):
//   the function tools it would send must carry `strict: true` and the served schema unchanged.
// Strict-shaped arguments are what a model following the served strict schema sends: every
// property present, the unused optional ones null. Ids come from earlier results: ask_okf's
// context_id and first selected record, search's first record result. Run by run-ts.sh.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { MultiServerMCPClient } from '@langchain/mcp-adapters';
import { convertToOpenAITool } from '@langchain/core/utils/function_calling';
import { createMCPClient } from '@ai-sdk/mcp';
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, isStepCount } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

import { SERVED_BUNDLES, TOOL_CALLS, TOOL_ORDER, WORKBENCH, learn, nullArguments, startServer } from './server.mjs';

/** Every tool, in call order (ids flow from earlier results into later calls). */

/** The fields each tool needs, given what earlier calls returned (the official clients' table). */
const PLAIN = TOOL_CALLS;

/** What OpenAI strict mode (and strict_schemas.py) requires of a schema, as a list of violations. */
const KEYWORDS = new Set(['type', 'properties', 'required', 'additionalProperties', 'items', 'enum', 'anyOf', 'description', 'pattern', 'minimum', 'maximum', 'minItems', 'maxItems']);
function strictViolations(schema, at = '', out = []) {
  if (!schema || typeof schema !== 'object') {
    out.push(`${at}: not a schema object`);
    return out;
  }
  for (const k of Object.keys(schema)) if (!KEYWORDS.has(k)) out.push(`${at}: keyword ${k}`);
  if (typeof schema.type !== 'string' && !schema.anyOf) out.push(`${at}: no type`);
  if (schema.enum?.includes(null)) out.push(`${at}: null in an enum`);
  schema.anyOf?.forEach((m, i) => strictViolations(m, `${at}/anyOf/${i}`, out));
  if (schema.type === 'object') {
    const names = Object.keys(schema.properties ?? {});
    if (schema.additionalProperties !== false) out.push(`${at}: not closed`);
    if (JSON.stringify([...(schema.required ?? [])].sort()) !== JSON.stringify([...names].sort())) out.push(`${at}: required is not every property`);
    for (const n of names) strictViolations(schema.properties[n], `${at}/properties/${n}`, out);
  }
  if (schema.items) strictViolations(schema.items, `${at}/items`, out);
  return out;
}

/**
 * Known failures under @langchain/mcp-adapters 1.1.4 (reported; the server is unchanged here).
 * loadMcpTools runs every input schema through simplifyJsonSchemaForLLM, which removes every
 * `anyOf` and keeps only object members: a nullable optional scalar (`anyOf: [T, {type: null}]`)
 * becomes a bare `{description}` with no type (OpenAI strict refuses a schema without `type`),
 * and the nullable `budget` object loses its null member. The DynamicStructuredTool also
 * validates input against that simplified schema, so `budget: null`, which the served strict
 * schema asks for, is refused before any MCP call ("Received tool input did not match expected
 * schema"); the same call with `budget` as an object of nulls (the schema's other branch)
 * goes through, so every tool is still called. Upstream: langchain-ai/langchainjs PR #11593
 * (preserve `anyOf: [T, null]`), issue #10905 (the simplified schema is used for runtime
 * validation). Each entry is asserted to still fail, so a fixed release shows up here: remove
 * the entry then.
 */
const LANGCHAIN_SCHEMA_KNOWN = new Set(['ask_okf', 'okf_explain_context', 'ask_okf_manifest', 'read_okf_evidence', 'okf_check_answer', 'okf_workbench_case']);
const LANGCHAIN_CALL_KNOWN = new Set(['ask_okf', 'ask_okf_manifest', 'read_okf_evidence']);


for (const served of SERVED_BUNDLES) {
  describe(`bundle ${served.bundle}`, () => {
    let server;
    let mcpUrl;
    /** The tools as served (official SDK client), by name. */
    let schemas;
    let expected;
    /** Ids from ask_okf and search through the official client, for the LangChain calls. */
    let sdkCtx;
    before(async () => {
      server = await startServer(served.args());
      mcpUrl = `${server.url}/mcp`;
      const client = new Client({ name: 'okf-strict-hosts', version: '0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl)));
      try {
        const { tools } = await client.listTools();
        schemas = Object.fromEntries(tools.map((t) => [t.name, t.inputSchema]));
        expected = TOOL_ORDER.filter((n) => served.workbench || n !== 'okf_workbench_case');
        assert.deepEqual(Object.keys(schemas).sort(), [...expected].sort(), 'the tools listed are the ones this test calls');
        for (const name of expected) assert.deepEqual(strictViolations(schemas[name], name), [], `${name} is strict as served`);
        sdkCtx = { bundle: served.bundle, question: served.question };
        for (const name of ['ask_okf', 'search']) {
          const r = await client.callTool({ name, arguments: PLAIN[name](sdkCtx) });
          assert.notEqual(r.isError, true, name);
          learn(sdkCtx, name, r.structuredContent);
        }
      } finally {
        await client.close();
      }
    });
    after(() => server?.stop());

    test('LangChain.js (@langchain/mcp-adapters 1.1.4, @langchain/core 1.4.0): convertToOpenAITool strict, then every tool invoked', async (t) => {
      const client = new MultiServerMCPClient({ mcpServers: { okf: { transport: 'http', url: mcpUrl } } });
      try {
        const tools = await client.getTools();
        assert.deepEqual(tools.map((x) => x.name).sort(), [...expected].sort());
        const ctx = { ...sdkCtx };
        for (const name of expected) {
          const tool = tools.find((x) => x.name === name);
          await t.test(`${name}: converts to a strict OpenAI tool with the served schema unchanged`, () => {
            const converted = convertToOpenAITool(tool, { strict: true });
            assert.equal(converted.type, 'function');
            assert.equal(converted.function.name, name);
            assert.equal(converted.function.strict, true);
            const check = () => {
              assert.deepEqual(strictViolations(converted.function.parameters, name), [], `${name}: the converted parameters are strict`);
              assert.deepEqual(converted.function.parameters, schemas[name], `${name}: the converted parameters are the served schema`);
            };
            if (LANGCHAIN_SCHEMA_KNOWN.has(name)) {
              // Known failure (see LANGCHAIN_SCHEMA_KNOWN): anyOf dropped, so no type.
              assert.throws(check, /no type/, `${name} converts cleanly now: remove it from LANGCHAIN_SCHEMA_KNOWN`);
            } else {
              check();
            }
          });
          await t.test(`${name}: invoked with strict-shaped arguments returns a non-error result`, async () => {
            const args = nullArguments(schemas[name], PLAIN[name](ctx));
            if (LANGCHAIN_CALL_KNOWN.has(name)) {
              // Known failure (see LANGCHAIN_CALL_KNOWN): `budget: null` refused by LangChain's own validation.
              assert.equal(args.budget, null);
              await assert.rejects(tool.invoke(args), /did not match expected schema/, `${name} accepts budget: null now: remove it from LANGCHAIN_CALL_KNOWN`);
              // The other shape the served schema allows, a budget of nulls, passes and is called.
              args.budget = nullArguments(schemas[name].properties.budget.anyOf.find((m) => m.type === 'object'), {});
            }
            // A result with isError makes the adapter throw a ToolException.
            const content = await tool.invoke(args);
            // A string, one content block (a lone text block carries structuredContent) or a list.
            const blocks = typeof content === 'string' ? [{ type: 'text', text: content }] : [content].flat();
            const text = blocks.find((b) => b.type === 'text')?.text ?? '';
            assert.ok(text.length > 0, `${name}: a text block`);
            const structured = blocks.find((b) => b.structuredContent)?.structuredContent;
            if (name === 'ask_okf' || name === 'okf_get_context' || name === 'okf_explain_context') assert.equal(structured.context_id, ctx.contextId);
            if (name === 'read_okf_evidence') assert.ok(text.includes(ctx.contextId), `${name}: ${text.slice(0, 300)}`);
            if (name === 'search') assert.equal(structured.results[1].id, ctx.firstRecordResult);
            if (name === 'fetch') assert.equal(structured.text, ctx.recordText);
            if (name === 'okf_check_answer') assert.equal(structured.status.ok, true, text);
            if (name === 'okf_workbench_case') assert.equal(structured.case.id, WORKBENCH.caseId);
          });
        }
      } finally {
        await client.close();
      }
    });

    /**
     * Drives every tool through generateText: `model` is built from `next(ctx)`, which names the
     * next tool call (or null when every tool has been called). Returns the steps.
     */
    async function driveEveryTool(makeModel) {
      const mcp = await createMCPClient({ transport: { type: 'http', url: mcpUrl } });
      try {
        const listed = await mcp.tools();
        assert.deepEqual(Object.keys(listed).sort(), [...expected].sort());
        // Strict mode on each tool (the AI SDK's per-tool setting, passed to the provider).
        const tools = Object.fromEntries(Object.entries(listed).map(([name, tool]) => [name, { ...tool, strict: true }]));
        const ctx = { bundle: served.bundle, question: served.question };
        let step = 0;
        const next = () => {
          const name = expected[step];
          step += 1;
          return name ? { toolCallId: `call-${step}`, toolName: name, input: JSON.stringify(nullArguments(schemas[name], PLAIN[name](ctx))) } : null;
        };
        const { model, sentTools } = makeModel(next);
        const result = await generateText({
          model,
          tools,
          prompt: served.question,
          stopWhen: isStepCount(expected.length + 1),
          onStepFinish: (s) => {
            for (const r of s.toolResults) learn(ctx, r.toolName, r.output.structuredContent);
          },
        });
        const calls = result.steps.flatMap((s) => s.toolResults);
        assert.deepEqual(calls.map((r) => r.toolName), expected, 'one call per tool, in order');
        const errors = result.steps.flatMap((s) => s.content.filter((c) => c.type === 'tool-error'));
        assert.deepEqual(errors, [], 'no tool errors');
        for (const r of calls) {
          assert.notEqual(r.output.isError, true, `${r.toolName}: ${r.output.content?.[0]?.text}`);
          assert.equal(typeof r.output.structuredContent, 'object', `${r.toolName}: structuredContent`);
          const sent = JSON.parse(JSON.stringify(r.input));
          assert.deepEqual(Object.keys(sent).sort(), Object.keys(schemas[r.toolName].properties).sort(), `${r.toolName}: every field sent`);
        }
        assert.equal(result.text, 'done');
        // What reached the model: every tool, strict, with its served schema.
        assert.equal(sentTools.length, expected.length + 1, 'one model call per step');
        for (const sent of sentTools) {
          assert.deepEqual(sent.map((x) => x.name).sort(), [...expected].sort());
          for (const x of sent) {
            assert.equal(x.strict, true, `${x.name}: strict`);
            assert.deepEqual(x.schema, schemas[x.name], `${x.name}: the served schema, unchanged`);
          }
        }
        return calls;
      } finally {
        await mcp.close();
      }
    }

    test('Vercel AI SDK (ai 7.0.185, @ai-sdk/mcp 2.0.99): strict tools, generateText with MockLanguageModelV4 calls every tool', async () => {
      await driveEveryTool((next) => {
        const sentTools = [];
        const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
        const model = new MockLanguageModelV4({
          doGenerate: async (options) => {
            sentTools.push(options.tools.map((x) => ({ name: x.name, strict: x.strict, schema: x.inputSchema, type: x.type })));
            assert.ok(options.tools.every((x) => x.type === 'function'));
            const call = next();
            return call
              ? { content: [{ type: 'tool-call', ...call }], finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage, warnings: [] }
              : { content: [{ type: 'text', text: 'done' }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] };
          },
        });
        return { model, sentTools };
      });
    });

    test('Vercel AI SDK with @ai-sdk/openai 4.0.126 (Responses, fetch replaced, no network): strict function tools, every tool called', async () => {
      await driveEveryTool((next) => {
        const sentTools = [];
        const fetch = async (url, init) => {
          assert.equal(String(url), 'https://api.openai.com/v1/responses');
          const body = JSON.parse(init.body);
          sentTools.push(body.tools.map((x) => ({ name: x.name, strict: x.strict, schema: x.parameters, type: x.type })));
          assert.ok(body.tools.every((x) => x.type === 'function'));
          const call = next();
          const output = call
            ? [{ type: 'function_call', id: `fc-${call.toolCallId}`, call_id: call.toolCallId, name: call.toolName, arguments: call.input }]
            : [{ type: 'message', role: 'assistant', id: 'msg-1', content: [{ type: 'output_text', text: 'done', annotations: [] }] }];
          return new Response(JSON.stringify({ id: 'resp-1', created_at: 0, model: 'gpt-offline', output, usage: null }), {
            status: 200,
            headers: { 'content-type': 'application/json' },
          });
        };
        const openai = createOpenAI({ apiKey: 'offline', fetch });
        return { model: openai.responses('gpt-offline'), sentTools };
      });
    });
  });
}
