// Application-side validation of every request the page (or a page tool) makes, run before
// any network request. Every limit and pattern comes from the wire contract (contract.js,
// generated from the okf-api crate), so a rejected argument never reaches the server and the
// page restates no rule.

import { CONTRACT } from './contract.js';

const { limits, patterns } = CONTRACT;
export const BUNDLE_ID = new RegExp(patterns.logical_id, 'u');
export const CONTEXT_ID = new RegExp(patterns.context_id, 'u');
export const DATE = new RegExp(patterns.date, 'u');
/** Longest record id, in characters (code points, as JSON Schema's maxLength counts). */
export const MAX_RECORD_ID_CHARS = limits.max_record_id_chars;
export const MAX_QUESTION = limits.max_question;
/** Budget keys in the engine's order, each with its inclusive range. */
export const BUDGET_LIMITS = Object.freeze(Object.fromEntries(limits.budget.map(([key, min, max]) => [key, [min, max]])));
/** The engine's default for each budget key. */
export const BUDGET_DEFAULTS = Object.freeze(Object.fromEntries(limits.budget.map(([key, , , value]) => [key, value])));

/** The arguments a page tool takes: its published schema's properties, a closed list. */
const toolFields = (name) => Object.keys(CONTRACT.page_tools[name].inputSchema.properties);
/** The package profiles a request may name. */
const PROFILES = CONTRACT.page_tools.okf_build_context.inputSchema.properties.profile.enum;

/** A rejected argument: `field` names it (e.g. `budget.max_bytes`). */
export class ArgumentError extends Error {
  constructor(field, message) {
    super(`${field}: ${message}`);
    this.name = 'ArgumentError';
    this.field = field;
    this.detail = message;
  }
}

function isPlainObject(value) {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function closedObject(value, field, allowed) {
  if (!isPlainObject(value)) throw new ArgumentError(field, 'must be an object');
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) {
      throw new ArgumentError(field === 'arguments' ? key : `${field}.${key}`, `unknown key; allowed keys are ${allowed.join(', ')}`);
    }
  }
}

export function checkBundle(bundle) {
  if (typeof bundle !== 'string' || bundle === '') throw new ArgumentError('bundle', 'choose a bundle');
  if (!BUNDLE_ID.test(bundle)) {
    throw new ArgumentError('bundle', `must be a logical bundle id matching ${BUNDLE_ID.source}, never a URL or path`);
  }
  return bundle;
}

export function checkQuestion(question) {
  if (typeof question !== 'string') throw new ArgumentError('question', 'must be a string');
  if (question.length === 0 || question.trim() === '') throw new ArgumentError('question', 'type a question (it cannot be empty or only spaces)');
  if (question.length > MAX_QUESTION) {
    throw new ArgumentError('question', `is ${question.length} characters; the limit is ${MAX_QUESTION}`);
  }
  return question;
}

export function checkBudget(budget) {
  closedObject(budget, 'budget', Object.keys(BUDGET_LIMITS));
  const out = {};
  for (const [key, [min, max]] of Object.entries(BUDGET_LIMITS)) {
    if (!(key in budget)) continue;
    const value = budget[key];
    if (!Number.isSafeInteger(value) || value < min || value > max) {
      throw new ArgumentError(`budget.${key}`, `must be a whole number from ${min} to ${max}`);
    }
    out[key] = value;
  }
  return out;
}

/** Checks `okf_build_context` arguments; returns the request body for POST /api/ask. */
export function checkBuildArgs(input) {
  closedObject(input, 'arguments', toolFields('okf_build_context'));
  const body = { bundle: checkBundle(input.bundle), question: checkQuestion(input.question) };
  if (input.budget !== undefined) {
    const budget = checkBudget(input.budget);
    if (Object.keys(budget).length > 0) body.budget = budget;
  }
  if (input.version !== undefined) {
    if (typeof input.version !== 'string' || !BUNDLE_ID.test(input.version)) throw new ArgumentError('version', `must match ${BUNDLE_ID.source}`);
    body.version = input.version;
  }
  if (input.as_of !== undefined) {
    if (typeof input.as_of !== 'string' || !DATE.test(input.as_of)) throw new ArgumentError('as_of', 'must be a date written YYYY-MM-DD');
    body.as_of = input.as_of;
  }
  if (input.profile !== undefined) {
    if (!PROFILES.includes(input.profile)) throw new ArgumentError('profile', `must be ${PROFILES.map((p) => JSON.stringify(p)).join(' or ')} when given`);
    body.profile = input.profile;
  }
  return body;
}

/** Refuses a record id that is not a string of 1 to MAX_RECORD_ID_CHARS characters. */
function checkRecordId(recordId) {
  if (typeof recordId !== 'string' || recordId.length < 1 || [...recordId].length > MAX_RECORD_ID_CHARS) {
    throw new ArgumentError('record_id', `must be a string of 1-${MAX_RECORD_ID_CHARS} characters`);
  }
}

/** Checks `okf_explain_context` arguments. */
export function checkExplainArgs(input) {
  closedObject(input, 'arguments', toolFields('okf_explain_context'));
  const { context_id: contextId, record_id: recordId } = input;
  if (typeof contextId !== 'string' || !CONTEXT_ID.test(contextId)) {
    throw new ArgumentError('context_id', `must match ${CONTEXT_ID.source}`);
  }
  if (recordId !== undefined) checkRecordId(recordId);
  return { contextId, recordId };
}

/** Sections an exact read can name; the first two need a record_id. */
export const SECTIONS = CONTRACT.sections;
/** Largest offset a delivery call may send. */
export const MAX_OFFSET = limits.max_offset;

function checkRange(value, field, min, max) {
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new ArgumentError(field, `must be a whole number from ${min} to ${max}`);
  }
  return value;
}

function checkContextId(contextId) {
  if (typeof contextId !== 'string' || !CONTEXT_ID.test(contextId)) {
    throw new ArgumentError('context_id', `must match ${CONTEXT_ID.source}`);
  }
  return contextId;
}

/** The replayed request (bundle, question, budget) shared by the two delivery tools. */
function replayBody(input) {
  const body = { bundle: checkBundle(input.bundle), question: checkQuestion(input.question) };
  if (input.budget !== undefined) {
    const budget = checkBudget(input.budget);
    if (Object.keys(budget).length > 0) body.budget = budget;
  }
  return body;
}

/** Checks `okf_context_manifest` arguments; returns the body for POST /api/catalogue. */
export function checkManifestArgs(input) {
  closedObject(input, 'arguments', toolFields('okf_context_manifest'));
  const body = replayBody(input);
  if (input.context_id !== undefined) body.context_id = checkContextId(input.context_id);
  if (input.offset !== undefined) body.offset = checkRange(input.offset, 'offset', 0, MAX_OFFSET);
  if (input.delivery_bytes !== undefined) body.delivery_bytes = checkRange(input.delivery_bytes, 'delivery_bytes', ...limits.catalogue_delivery_bytes);
  if ((body.offset ?? 0) > 0 && body.context_id === undefined) {
    throw new ArgumentError('context_id', 'a continuation page (offset > 0) needs the context_id of the first page');
  }
  return body;
}

/** Checks `okf_read_evidence` arguments; returns the body for POST /api/read. */
export function checkReadArgs(input) {
  closedObject(input, 'arguments', toolFields('okf_read_evidence'));
  const body = replayBody(input);
  body.context_id = checkContextId(input.context_id);
  if (!SECTIONS.includes(input.section)) throw new ArgumentError('section', `must be one of ${SECTIONS.join(', ')}`);
  body.section = input.section;
  const recordSection = input.section === 'record_text' || input.section === 'record_metadata';
  if (recordSection !== (input.record_id !== undefined)) {
    throw new ArgumentError('record_id', recordSection ? `is required for section ${input.section}` : `is only allowed with record_text and record_metadata`);
  }
  if (input.record_id !== undefined) {
    checkRecordId(input.record_id);
    body.record_id = input.record_id;
  }
  if (input.offset !== undefined) body.offset = checkRange(input.offset, 'offset', 0, MAX_OFFSET);
  if (input.delivery_bytes !== undefined) body.delivery_bytes = checkRange(input.delivery_bytes, 'delivery_bytes', ...limits.read_delivery_bytes);
  return body;
}
