// The Vercel AI SDK's Gemini path against a real `okf serve`, offline: @ai-sdk/mcp's client loads
// every tool over Streamable HTTP, generateText hands them to @ai-sdk/google's Gemini model whose
// fetch is replaced by a local function (no API key is used, nothing leaves the machine), and:
// - every function declaration the request to Gemini carries must describe its tool without
//   loss: every property, its type, its nullability (Gemini's `nullable: true`, a `type` list or
//   `anyOf` with null), its enum, description, pattern and bounds, the `required` list and the
//   nested objects (`budget`, the answer's claims and citations), compared with the schema as
//   served (gemini-schema.mjs); and it must stay inside the keywords Gemini's function
//   declarations take (no `type` list, no `null` in an enum, no `format` or `$schema`);
// - the canned Gemini responses then call every tool once with the unused optional fields null,
//   and once with them omitted, and each call must reach the server and succeed.
// On the example and on the DWP registry with a workbench (so okf_workbench_case is listed).
// Run by run-ts.sh.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { createMCPClient } from '@ai-sdk/mcp';
import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { generateText, isStepCount } from 'ai';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

import { geminiLosses, outsideGemini } from './gemini-schema.mjs';
import { SERVED_BUNDLES, TOOL_CALLS, TOOL_ORDER, WORKBENCH, learn, nullArguments, startServer } from './server.mjs';

/** Every tool, in call order (ids flow from earlier results into later calls). */

const MODEL = 'gemini-2.5-flash';
const ENDPOINT = `https://generativelanguage.googleapis.com/v1beta/models/${MODEL}:generateContent`;

/** A Gemini generateContent response: one candidate with these parts. */
function geminiResponse(parts) {
  const body = {
    responseId: 'offline',
    candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP' }],
    usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 1, totalTokenCount: 2 },
  };
  return new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } });
}


for (const served of SERVED_BUNDLES) {
  describe(`bundle ${served.bundle}`, () => {
    let server;
    let mcpUrl;
    /** The input schemas as served (official SDK client), by name. */
    let schemas;
    let expected;
    before(async () => {
      server = await startServer(served.args());
      mcpUrl = `${server.url}/mcp`;
      const client = new Client({ name: 'okf-gemini-hosts', version: '0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl)));
      try {
        const { tools } = await client.listTools();
        schemas = Object.fromEntries(tools.map((t) => [t.name, t.inputSchema]));
      } finally {
        await client.close();
      }
      expected = TOOL_ORDER.filter((n) => served.workbench || n !== 'okf_workbench_case');
      assert.deepEqual(Object.keys(schemas).sort(), [...expected].sort(), 'the tools listed are the ones this test calls');
    });
    after(() => server?.stop());

    /**
     * Every tool through generateText with @ai-sdk/google's model, its fetch replaced: the
     * canned responses call each tool in turn with `argsFor(name, schema, plain)`, then answer
     * "done". Returns the request bodies the model sent and the tool results.
     */
    async function driveEveryTool(argsFor) {
      const mcp = await createMCPClient({ transport: { type: 'http', url: mcpUrl } });
      try {
        const tools = await mcp.tools();
        assert.deepEqual(Object.keys(tools).sort(), [...expected].sort());
        const ctx = { bundle: served.bundle, question: served.question };
        const bodies = [];
        let step = 0;
        const fetch = async (url, init) => {
          assert.equal(String(url), ENDPOINT);
          assert.equal(new Headers(init.headers).get('x-goog-api-key'), 'offline');
          bodies.push(JSON.parse(init.body));
          const name = expected[step];
          step += 1;
          if (!name) return geminiResponse([{ text: 'done' }]);
          const args = argsFor(name, schemas[name], TOOL_CALLS[name](ctx));
          return geminiResponse([{ functionCall: { name, args } }]);
        };
        const google = createGoogleGenerativeAI({ apiKey: 'offline', fetch });
        const result = await generateText({
          model: google(MODEL),
          tools,
          prompt: served.question,
          stopWhen: isStepCount(expected.length + 1),
          onStepFinish: (s) => {
            for (const r of s.toolResults) learn(ctx, r.toolName, r.output.structuredContent);
          },
        });
        assert.equal(result.text, 'done');
        assert.equal(bodies.length, expected.length + 1, 'one Gemini request per step');
        const errors = result.steps.flatMap((s) => s.content.filter((c) => c.type === 'tool-error'));
        assert.deepEqual(errors, [], 'no tool errors');
        const calls = result.steps.flatMap((s) => s.toolResults);
        assert.deepEqual(calls.map((r) => r.toolName), expected, 'one call per tool, in order');
        for (const r of calls) {
          assert.notEqual(r.output.isError, true, `${r.toolName}: ${r.output.content?.[0]?.text}`);
          assert.equal(typeof r.output.structuredContent, 'object', `${r.toolName}: structuredContent`);
          if (r.toolName === 'ask_okf' || r.toolName === 'okf_get_context' || r.toolName === 'okf_explain_context') assert.equal(r.output.structuredContent.context_id, ctx.contextId, r.toolName);
          if (r.toolName === 'search') assert.equal(r.output.structuredContent.results[1].id, ctx.firstRecordResult);
          if (r.toolName === 'fetch') assert.equal(r.output.structuredContent.text, ctx.recordText);
          if (r.toolName === 'okf_check_answer') assert.equal(r.output.structuredContent.status.ok, true, JSON.stringify(r.output.structuredContent.status));
          if (r.toolName === 'okf_workbench_case') assert.equal(r.output.structuredContent.case.id, WORKBENCH.caseId);
        }
        return { bodies, calls };
      } finally {
        await mcp.close();
      }
    }

    test('Vercel AI SDK with @ai-sdk/google 4.0.129 (fetch replaced, no network): every function declaration describes its tool without loss, inside Gemini\'s subset; every tool called with the optional fields null', async (t) => {
      const { bodies, calls } = await driveEveryTool((name, schema, plain) => nullArguments(schema, plain));
      for (const r of calls) {
        assert.deepEqual(Object.keys(r.input).sort(), Object.keys(schemas[r.toolName].properties).sort(), `${r.toolName}: every field sent`);
        const needed = Object.keys(TOOL_CALLS[r.toolName]({}));
        for (const [field, value] of Object.entries(r.input)) if (!needed.includes(field)) assert.equal(value, null, `${r.toolName}: ${field} sent as null`);
      }
      for (const body of bodies) {
        const declarations = body.tools.flatMap((x) => x.functionDeclarations ?? []);
        assert.deepEqual(declarations.map((d) => d.name).sort(), [...expected].sort(), 'every tool declared, and nothing else');
      }
      // The first request's declarations (the later ones carry the same tools).
      const declarations = bodies[0].tools.flatMap((x) => x.functionDeclarations);
      for (const name of expected) {
        await t.test(`${name}: its function declaration keeps the served schema whole`, () => {
          const declaration = declarations.find((d) => d.name === name);
          // The declaration carries the parameters one of two ways: Gemini's OpenAPI-subset
          // `parameters` or the JSON Schema `parametersJsonSchema`; 4.0.129 sends the latter.
          const parameters = declaration.parameters ?? declaration.parametersJsonSchema;
          assert.ok(parameters, `${name}: parameters declared`);
          assert.deepEqual(geminiLosses(schemas[name], parameters, name), [], `${name}: nothing lost`);
          assert.deepEqual(outsideGemini(parameters, name), [], `${name}: inside Gemini's declaration subset`);
        });
      }
    });

    test('Vercel AI SDK with @ai-sdk/google 4.0.129 (fetch replaced, no network): every tool called with the optional fields omitted', async () => {
      const { calls } = await driveEveryTool((name, schema, plain) => plain);
      for (const r of calls) {
        assert.deepEqual(Object.keys(r.input).sort(), Object.keys(TOOL_CALLS[r.toolName]({})).sort(), `${r.toolName}: only the needed fields sent`);
      }
      // The optional fields were left out of at least one call.
      assert.ok(calls.some((r) => Object.keys(r.input).length < Object.keys(schemas[r.toolName].properties).length));
    });
  });
}
