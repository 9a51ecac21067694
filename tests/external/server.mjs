// Starts a real `okf serve` on an ephemeral loopback port for the external-client tests, and
// writes the DWP registry those tests use. The binary is named by OKF_BIN (run-ts.sh sets it
// from cargo's target directory).
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
/** The reference material beside the repository (read-only). */
export const SHARED = resolve(here, '../../../shared');

export const DWP_INDEX = join(SHARED, 'dwp/full-dmg/context/assembly-index.json');
export const DWP_SHA = '38159445a60d4bcabc23cb2cf728e14cbd0a4b55013276c291356e7a1452ff54';
export const DWP_URL =
  'https://raw.githubusercontent.com/chris-page-gov/okf-dwp/efb05c66616a9cd4328a86cf412780fe7bc7cf0b/full-dmg/context/assembly-index.json';

/** The DWP evaluation case's question (the imprisonment case). */
export function dwpQuestion() {
  const path = join(SHARED, 'dwp/evaluation/context-assembly/imprisonment-case.json');
  return JSON.parse(readFileSync(path, 'utf8')).question;
}

/** The workbench id and case the external clients open with okf_workbench_case. */
export const WORKBENCH = { id: 'wb', caseId: 'borrow' };

/**
 * A registry file serving the DWP index as `okf-dwp` (README "Registry format"); with
 * `workbench`, also an evidence workbench built by `okf workbench build` over the embedded
 * example (one case, WORKBENCH.caseId), so okf_workbench_case is listed.
 */
export function dwpRegistry({ workbench = false } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'okf-ts-'));
  const path = join(dir, 'registry.toml');
  let text = `[[bundle]]\nid = "okf-dwp"\nindex = ${JSON.stringify(DWP_INDEX)}\nsha256 = "${DWP_SHA}"\nindex_url = "${DWP_URL}"\n`;
  if (workbench) {
    const questions = join(dir, 'questions.json');
    writeFileSync(questions, JSON.stringify({ questions: [{ id: WORKBENCH.caseId, label: 'Borrowing', question: 'How do I borrow books?' }] }));
    const out = join(dir, 'wb');
    const index = resolve(here, '../../crates/okf/example/index.json');
    execFileSync(process.env.OKF_BIN, ['workbench', 'build', '--index', index, '--questions', questions, '--out', out], { stdio: ['ignore', 'ignore', 'pipe'] });
    text += `\n[[workbench]]\nid = "${WORKBENCH.id}"\nmanifest = ${JSON.stringify(join(out, 'manifest.json'))}\n`;
  }
  writeFileSync(path, text);
  return path;
}

/**
 * Starts `okf serve --listen ADDR ...args` (ADDR `127.0.0.1:0` unless `listen` names one);
 * resolves to `{url, stop, log}` once it listens.
 */
export function startServer(args = [], { listen = '127.0.0.1:0' } = {}) {
  const bin = process.env.OKF_BIN;
  if (!bin) throw new Error('OKF_BIN names the okf binary; run tests/external/run-ts.sh');
  const child = spawn(bin, ['serve', '--listen', listen, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  child.stderr.on('data', (d) => {
    log += d;
  });
  return new Promise((resolveStart, reject) => {
    const lines = createInterface({ input: child.stdout });
    child.once('exit', (code) => reject(new Error(`okf serve exited with ${code} before listening:\n${log}`)));
    lines.once('line', (line) => {
      const m = /^listening on (http:\/\/\S+)$/.exec(line.trim());
      if (!m) {
        reject(new Error(`unexpected first line ${JSON.stringify(line)}`));
        return;
      }
      resolveStart({
        url: m[1],
        log: () => log,
        stop: () =>
          new Promise((done) => {
            child.removeAllListeners('exit');
            child.once('exit', () => done());
            child.kill('SIGTERM');
          }),
      });
    });
  });
}

/**
 * Arguments for every tool, in call order; `ctx` carries what earlier calls returned
 * (the context_id and a selected record id from ask_okf).
 */
export const TOOL_CALLS = {
  ask_okf: (ctx) => ({ bundle: ctx.bundle, question: ctx.question }),
  okf_get_context: (ctx) => ({ context_id: ctx.contextId }),
  okf_explain_context: (ctx) => ({ context_id: ctx.contextId, record_id: ctx.recordId }),
  ask_okf_manifest: (ctx) => ({ bundle: ctx.bundle, question: ctx.question, delivery_bytes: 16384 }),
  read_okf_evidence: (ctx) => ({
    bundle: ctx.bundle, question: ctx.question, context_id: ctx.contextId,
    section: 'record_text', record_id: ctx.recordId, delivery_bytes: 8192,
  }),
  search: (ctx) => ({ query: ctx.question }),
  fetch: (ctx) => ({ id: ctx.firstRecordResult }),
  okf_check_answer: (ctx) => ({
    answer: {
      schema: 'okf-grounded-answer.v1',
      context_id: ctx.contextId,
      evidence_status: ctx.evidenceStatus ?? 'insufficient',
      claims: [{ id: 'c1', text: 'A claim.', requirement: null, citations: [{ record: ctx.recordId, quote: (ctx.recordText ?? 'x'.repeat(30)).trim() }] }],
    },
  }),
  // Listed only where a workbench is served (the DWP registry here serves one).
  okf_workbench_case: () => ({ workbench: WORKBENCH.id, case_id: WORKBENCH.caseId }),
};

/** Takes the ids later calls need from a tool's structured result. */
export function learn(ctx, toolName, structured) {
  if (toolName === 'ask_okf') {
    assert.equal(structured.schema, 'okf-governed-context.v1');
    assert.ok(structured.selected.length > 0, 'the question selects records');
    ctx.contextId = structured.context_id;
    ctx.recordId = structured.selected[0].record.id;
    ctx.recordText = structured.selected[0].record.text;
    ctx.evidenceStatus = structured.evidence_status;
  } else if (toolName === 'search') {
    assert.equal(structured.results[0].id, `${ctx.contextId}#package`);
    ctx.firstRecordResult = structured.results[1].id;
  }
}

/** `plain` with every property of `schema` present, the ones it does not give null (recursively into the objects and arrays of objects it gives): the arguments a strict-mode model sends. */
export function nullArguments(schema, plain) {
  const objectOf = (s) => (s?.type === 'object' ? s : s?.anyOf?.find((m) => m.type === 'object'));
  const shape = (s, value) => {
    if (Array.isArray(value)) {
      const items = s?.items ?? s?.anyOf?.find((m) => m.type === 'array')?.items;
      return value.map((v) => shape(items, v));
    }
    const obj = objectOf(s);
    return obj?.properties && value && typeof value === 'object' ? nullArguments(obj, value) : value;
  };
  const out = {};
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    out[name] = plain?.[name] === undefined ? null : shape(property, plain[name]);
  }
  return out;
}

/** Every tool, in the order the strict and Gemini host tests call them. */
export const TOOL_ORDER = ['ask_okf', 'okf_get_context', 'okf_explain_context', 'ask_okf_manifest', 'read_okf_evidence', 'search', 'fetch', 'okf_check_answer', 'okf_workbench_case'];

/** The two served setups the host tests run on: the embedded example, and DWP with a workbench. */
export const SERVED_BUNDLES = [
  { bundle: 'example', args: () => [], question: 'How do I borrow books?', workbench: false },
  { bundle: 'okf-dwp', args: () => ['--registry', dwpRegistry({ workbench: true })], question: dwpQuestion(), workbench: true },
];
