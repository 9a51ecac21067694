// The evidence workbench session, which lives in the WebAssembly module (crates/okf-wasm over
// crates/okf-workbench): refs, cursors, budgets and the page's display state are Rust's.
// JavaScript here only moves bytes: it fetches the files a call may need from the server's
// read-only workbench route and hands them to the module, which verifies every hash itself.

import { callModule, instantiateModule } from './wasm.js';

const decoder = new TextDecoder('utf-8', { fatal: true });
const encoder = new TextEncoder();

/** A refusal from the module (bad input, no manifest, a refused manifest). */
export class WorkbenchError extends Error {
  constructor(code, message) {
    super(message);
    this.name = 'WorkbenchError';
    this.code = code;
  }
}

/** The clock and id seed: the page's own, unless a test host defined them before loading. */
function hostOverrides() {
  const host = globalThis.okfWorkbenchTestHost;
  return host && typeof host === 'object' ? host : {};
}

function nowMs() {
  const host = hostOverrides();
  const t = typeof host.now === 'function' ? host.now() : performance.now();
  return Math.max(0, Math.floor(Number(t) || 0));
}

function freshSeed() {
  const host = hostOverrides();
  return typeof host.seed === 'string' ? host.seed : crypto.randomUUID();
}

export class WorkbenchModule {
  /** Instantiates the module (a separate instance from the Ask page's). */
  static async load() {
    const exports = await instantiateModule();
    if (!exports) throw new WorkbenchError('wasm_unavailable', 'The WebAssembly module could not be loaded.');
    return new WorkbenchModule(exports);
  }

  constructor(exports) {
    this.exports = exports;
    this.workbenchId = null;
  }

  /** Writes bytes into the module, calls `fn`, returns `{status, text}`. */
  raw(fn, bytes, ...args) {
    const { status, bytes: out } = callModule(this.exports, fn, bytes, ...args);
    return { status, text: decoder.decode(out) };
  }

  /** A JSON call: 0 → parsed JSON, 2 → `{envelope: text}`, 1 → throws WorkbenchError. */
  call(fn, input = {}) {
    const { status, text } = this.raw(fn, encoder.encode(JSON.stringify(input)));
    if (status === 2) return { envelope: text };
    const value = JSON.parse(text);
    if (status === 1) throw new WorkbenchError(value?.error?.code ?? 'error', value?.error?.message ?? 'refused');
    return value;
  }

  /** Admits a manifest and starts new sessions; returns its summary. */
  open(workbenchId, manifestText) {
    const summary = this.call('okf_wb_open', { manifest_id: workbenchId, seed: freshSeed(), manifest: manifestText });
    this.workbenchId = workbenchId;
    return summary;
  }

  descriptors() {
    return this.call('okf_wb_descriptors');
  }

  /** Throws a WorkbenchError naming the field and rule when the input breaks the schema. */
  validate(tool, args) {
    this.call('okf_wb_validate', { tool, arguments: args });
  }

  page() {
    return this.call('okf_wb_page');
  }

  /** A person's navigation (bumps the revision). */
  navigate(selection) {
    return this.call('okf_wb_navigate', selection);
  }

  /** Fetches manifest-relative files from the server's workbench route into the module. */
  async fetchFiles(files, signal) {
    await Promise.all(
      files.map(async ({ path }) => {
        let body;
        let fetched = 0;
        try {
          const response = await fetch(`/workbench/${encodeURIComponent(this.workbenchId)}/${path}`, {
            signal,
            credentials: 'same-origin',
            redirect: 'error',
          });
          if (response.ok) {
            body = new Uint8Array(await response.arrayBuffer());
            fetched = 1;
          } else {
            body = encoder.encode(`${path} could not be fetched (HTTP ${response.status})`);
          }
        } catch (e) {
          if (signal?.aborted) throw e;
          body = encoder.encode(`${path} could not be fetched (${e?.name ?? 'network error'})`);
        }
        const name = encoder.encode(path);
        const input = new Uint8Array(name.length + body.length);
        input.set(name);
        input.set(body, name.length);
        this.raw('okf_wb_put', input, name.length, fetched);
      }),
    );
  }

  /**
   * One tool call of the shared session: the gate and reservation now (so concurrent calls
   * reserve before any runs), the files it may need, then the tool body. Returns the
   * envelope text.
   */
  async toolCall(tool, args, signal) {
    const begun = this.call('okf_wb_begin', { tool, arguments: args, now_ms: nowMs() });
    if (begun.envelope !== undefined) return begun.envelope;
    const ticket = begun.ticket;
    let fetch = begun.fetch;
    let failure = null;
    try {
      // The body runs in a later task, as a host's concurrent calls expect: every call
      // started together passes the gate and reserves its bytes before any of them runs.
      await new Promise((resolve) => setTimeout(resolve, 0));
      while (fetch.length > 0) {
        await this.fetchFiles(fetch, signal);
        ({ fetch } = this.call('okf_wb_fetch', { ticket }));
      }
    } catch (e) {
      failure = e;
    }
    // Even an aborted call finishes, so its reservation is released.
    const { envelope } = this.call('okf_wb_finish', { ticket, now_ms: nowMs() });
    if (failure) throw failure;
    return envelope;
  }

  /** The page's own (unmetered) rendering call; returns the parsed envelope. */
  async read(tool, args) {
    for (;;) {
      const r = this.call('okf_wb_read', { tool, arguments: args, now_ms: nowMs() });
      if (r.envelope !== undefined) return JSON.parse(r.envelope);
      await this.fetchFiles(r.fetch);
    }
  }

  /** A case's selected records for the record list. */
  async records(caseId) {
    for (;;) {
      const r = this.call('okf_wb_records', { case_id: caseId, now_ms: nowMs() });
      if (!r.fetch) return r;
      await this.fetchFiles(r.fetch);
    }
  }
}
