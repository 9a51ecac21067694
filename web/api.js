// The HTTP API of `okf serve`, called with same-origin fetch only. Packages are kept as the
// exact response bytes (for download and comparison) next to their parsed value.

/** An HTTP or network failure, with the server's error code, message and field. */
export class ApiError extends Error {
  constructor({ status, code, message, field, retryAfter }) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.field = field;
    this.retryAfter = retryAfter;
  }
}

const decoder = new TextDecoder('utf-8', { fatal: true });

async function call(path, init, signal) {
  let response;
  try {
    response = await fetch(path, { ...init, signal, credentials: 'same-origin', cache: 'no-store', redirect: 'error' });
  } catch (e) {
    if (e?.name === 'AbortError') throw e;
    throw new ApiError({ status: 0, code: 'network', message: 'The server could not be reached. Is okf serve still running?' });
  }
  const bytes = new Uint8Array(await response.arrayBuffer());
  let text = null;
  try {
    text = decoder.decode(bytes);
  } catch {
    text = null;
  }
  if (!response.ok) {
    let error = null;
    try {
      error = JSON.parse(text ?? '')?.error;
    } catch {
      error = null;
    }
    const retry = response.headers.get('Retry-After');
    const retryAfter = retry !== null && /^\d+$/.test(retry.trim()) ? Number(retry.trim()) : undefined;
    throw new ApiError({
      status: response.status,
      code: typeof error?.code === 'string' ? error.code : `http_${response.status}`,
      message: typeof error?.message === 'string' ? error.message : `The server answered ${response.status}.`,
      field: typeof error?.field === 'string' ? error.field : undefined,
      retryAfter,
    });
  }
  if (text === null) throw new ApiError({ status: response.status, code: 'bad_response', message: 'The response is not UTF-8 text.' });
  let value;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ApiError({ status: response.status, code: 'bad_response', message: 'The response is not JSON.' });
  }
  return { bytes, text, value };
}

/** POST /api/ask: `{bytes, text, value}` of the package. */
export function ask(body, signal) {
  return call('/api/ask', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) }, signal);
}

/** POST /api/check-answer: the okf-answer-check.v1 report of an answer (`{bytes, text, value}`). */
export function checkAnswer(body, signal) {
  return call('/api/check-answer', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) }, signal);
}

/** POST /api/catalogue: one catalogue page of the replayed context. */
export function catalogue(body, signal) {
  return call('/api/catalogue', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) }, signal);
}

/** POST /api/read: one exact slice of a section of the replayed context. */
export function readEvidence(body, signal) {
  return call('/api/read', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) }, signal);
}

/** GET /api/context/{id}: a package this server retained. */
export function getContext(contextId, signal) {
  return call(`/api/context/${encodeURIComponent(contextId)}`, { method: 'GET' }, signal);
}

/** GET /api/bundles. */
export function listBundles(signal) {
  return call('/api/bundles', { method: 'GET' }, signal);
}

/**
 * The explanation view of one record, as `okf explain --record` and the MCP tool compute it:
 * the record's selection (or null), the routing-guard rows and missing-evidence issues that
 * name it. Without a record id the package itself.
 */
export function explainView(pkg, recordId) {
  if (recordId === undefined) return pkg;
  const names = (row, keys) => keys.some((k) => row?.[k] === recordId);
  const selected = Array.isArray(pkg.selected) ? pkg.selected : [];
  const view = {
    context_id: pkg.context_id ?? null,
    evidence_status: pkg.evidence_status ?? null,
    item: selected.find((s) => names(s?.record, ['id'])) ?? null,
    missing_evidence: (Array.isArray(pkg.missing_evidence) ? pkg.missing_evidence : []).filter(
      (i) => Array.isArray(i?.ids) && i.ids.includes(recordId),
    ),
  };
  if (Array.isArray(pkg.routing_guards)) {
    view.routing_guards = pkg.routing_guards.filter((g) => names(g, ['source', 'target', 'assertion_id']));
  }
  return view;
}
