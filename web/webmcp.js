// WebMCP page tools. When the browser (or a polyfill) offers `document.modelContext` with a
// `registerTool` function, the page registers five read-only tools (okf_build_context,
// okf_explain_context, okf_context_manifest, okf_read_evidence, okf_check_answer) that call the
// same HTTP API as the form. Without it the page works as usual.

import { listBundles } from './api.js';
import { CONTRACT } from './contract.js';

const ANNOTATIONS = Object.freeze({ readOnlyHint: true, untrustedContentHint: true });

/** A page tool's descriptor (name, title, description, inputSchema) from the contract. */
const pageTool = (name) => Object.freeze({ ...CONTRACT.page_tools[name], annotations: ANNOTATIONS });

export const BUILD_TOOL = pageTool('okf_build_context');
export const EXPLAIN_TOOL = pageTool('okf_explain_context');
export const MANIFEST_TOOL = pageTool('okf_context_manifest');
export const READ_TOOL = pageTool('okf_read_evidence');
export const CHECK_TOOL = pageTool('okf_check_answer');

/**
 * BUILD_TOOL's input schema with `bundle` narrowed to an enum of the bundles the server lists
 * (GET /api/bundles), as the server's own MCP tools list them. Without a list (the request
 * failed) the id pattern stays.
 */
export function buildSchemaFor(bundles, tool = BUILD_TOOL) {
  if (!Array.isArray(bundles) || bundles.length === 0) return tool.inputSchema;
  const served = bundles.map((b) =>
    b.corpus
      ? `${b.id} (a corpus, assembled on the server${b.state === 'ready' ? '' : '; refused at start-up'})`
      : `${b.id} (default version ${b.default_version}${b.state === 'ready' ? '' : ', refused at start-up'})`,
  );
  const bundle = {
    type: 'string',
    enum: bundles.map((b) => b.id),
    description: `Id of a bundle this server serves: ${served.join('; ')}. Always one of these logical ids, never a URL or a path.`,
  };
  const { properties } = tool.inputSchema;
  return { ...tool.inputSchema, properties: { ...properties, bundle } };
}

/** The served bundles and corpora, from `listed` (a GET /api/bundles body already asked for) or fetched. */
async function servedBundles(signal, listed) {
  try {
    const value = listed ? await listed : (await listBundles(signal)).value;
    const bundles = Array.isArray(value?.bundles) ? value.bundles : [];
    const corpora = (Array.isArray(value?.corpora) ? value.corpora : []).map((c) => ({ ...c, corpus: true }));
    return [...bundles, ...corpora].filter((b) => typeof b?.id === 'string');
  } catch {
    return [];
  }
}

/**
 * The signal a tool call runs under: the page's lifetime, joined with the host's per-call
 * signal (`execute(input, {signal})`) when it gives one, so a host that cancels a call stops
 * its requests.
 */
function callSignal(lifetime, options) {
  const host = options?.signal;
  return host instanceof AbortSignal ? AbortSignal.any([lifetime, host]) : lifetime;
}

/** The page-tool registry: `document.modelContext` with `registerTool`, else null. */
export function registry() {
  try {
    const mc = document.modelContext;
    return mc && typeof mc.registerTool === 'function' ? mc : null;
  } catch {
    return null;
  }
}

/**
 * Registers the tools with a signal tied to the page's lifetime (aborted on pagehide).
 * `build(input, signal)` and `explain(input, signal)` validate their input before any
 * request. `listed`, if given, is a promise of the GET /api/bundles body the page already
 * asked for (null if that failed), so the list is fetched once. Resolves to `{available, message}`.
 */
export async function registerPageTools({ build, explain, manifest, read, check, listed }) {
  const mc = registry();
  if (!mc) {
    return { available: false, message: 'This browser offers no page-tool registry (WebMCP); Ask OKF works as usual.' };
  }
  const lifetime = new AbortController();
  window.addEventListener('pagehide', () => lifetime.abort(new DOMException('The page was closed', 'AbortError')), { once: true });
  const { signal } = lifetime;
  try {
    const bundles = await servedBundles(signal, listed);
    await mc.registerTool({ ...BUILD_TOOL, inputSchema: buildSchemaFor(bundles), execute: (input, options) => build(input, callSignal(signal, options)) }, { signal });
    await mc.registerTool({ ...EXPLAIN_TOOL, execute: (input, options) => explain(input, callSignal(signal, options)) }, { signal });
    await mc.registerTool(
      { ...MANIFEST_TOOL, inputSchema: buildSchemaFor(bundles, MANIFEST_TOOL), execute: (input, options) => manifest(input, callSignal(signal, options)) },
      { signal },
    );
    await mc.registerTool({ ...READ_TOOL, inputSchema: buildSchemaFor(bundles, READ_TOOL), execute: (input, options) => read(input, callSignal(signal, options)) }, { signal });
    await mc.registerTool({ ...CHECK_TOOL, execute: (input, options) => check(input, callSignal(signal, options)) }, { signal });
  } catch (e) {
    lifetime.abort();
    return { available: false, message: `Registering the page tools failed (${e?.name ?? 'Error'}); Ask OKF works as usual.` };
  }
  return {
    available: true,
    message:
      'Read-only page tools okf_build_context, okf_explain_context, okf_context_manifest, okf_read_evidence and okf_check_answer are registered; an AI host must support WebMCP to call them.',
  };
}
