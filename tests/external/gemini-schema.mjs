// What a Gemini function declaration must keep of a served tool schema, and the keywords it may
// use (gemini-hosts.test.mjs; tests/external/gemini_hosts.py checks the Python hosts the same way).
//
// Both sides are reduced to what a schema says of each value: its type, whether null is
// allowed, its enum, description, pattern and bounds, its properties and `required` list, its
// items. Null may be said three ways (Gemini's `nullable: true`, a `type` list holding "null",
// `anyOf` with a `{"type": "null"}` member); type names compare case-insensitively (Gemini's
// `parameters` spell them in capitals). `additionalProperties` is left out: Gemini's
// OpenAPI-subset `parameters` have no such keyword (the server refuses unknown fields itself).

/** The keywords a served schema may use inside Gemini's function-declaration subset. */
export const GEMINI_KEYWORDS = new Set([
  'type', 'nullable', 'properties', 'required', 'additionalProperties', 'items', 'enum', 'anyOf',
  'description', 'pattern', 'minimum', 'maximum', 'minItems', 'maxItems',
]);

const SAID = ['pattern', 'minimum', 'maximum', 'minItems', 'maxItems'];

const isNull = (s) => s && typeof s === 'object' && (s.type === 'null' || s.type === 'NULL') && Object.keys(s).length === 1;

/** What `schema` says, in one spelling. */
export function meaning(schema) {
  if (!schema || typeof schema !== 'object') return { invalid: schema };
  const out = { nullable: schema.nullable === true, descriptions: [] };
  if (typeof schema.description === 'string') out.descriptions.push(schema.description);
  let types = schema.type === undefined ? [] : [schema.type].flat().map((t) => String(t).toLowerCase());
  if (types.includes('null')) out.nullable = true;
  types = types.filter((t) => t !== 'null');
  if (types.length) out.type = types.join('|');
  if (Array.isArray(schema.enum)) {
    if (schema.enum.includes(null)) out.nullable = true;
    out.enum = schema.enum.filter((v) => v !== null);
  }
  for (const k of SAID) if (schema[k] !== undefined) out[k] = Number.isFinite(Number(schema[k])) && k !== 'pattern' ? Number(schema[k]) : schema[k];
  if (schema.properties) {
    out.properties = Object.fromEntries(Object.entries(schema.properties).map(([n, s]) => [n, meaning(s)]));
    out.required = [...(schema.required ?? [])].sort();
  }
  if (schema.items) out.items = meaning(schema.items);
  if (Array.isArray(schema.anyOf)) {
    const members = schema.anyOf.filter((m) => !isNull(m));
    if (members.length < schema.anyOf.length) out.nullable = true;
    if (members.length === 1) {
      // `anyOf: [X, null]` says what X says, and null.
      const inner = meaning(members[0]);
      return { ...inner, ...Object.fromEntries(Object.entries(out).filter(([k]) => k !== 'descriptions' && k !== 'nullable')), nullable: true, descriptions: [...out.descriptions, ...inner.descriptions] };
    }
    out.anyOf = members.map(meaning);
  }
  return out;
}

/** Every difference between what `served` says and what the declared `declared` says. */
export function geminiLosses(served, declared, at = '') {
  const out = [];
  const walk = (a, b, path) => {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const k of keys) {
      if (k === 'properties') {
        const names = new Set([...Object.keys(a.properties ?? {}), ...Object.keys(b.properties ?? {})]);
        for (const n of names) {
          if (!b.properties?.[n]) out.push(`${path}/properties/${n}: lost`);
          else if (!a.properties?.[n]) out.push(`${path}/properties/${n}: added`);
          else walk(a.properties[n], b.properties[n], `${path}/properties/${n}`);
        }
      } else if (k === 'items') {
        if (!a.items || !b.items) out.push(`${path}/items: ${a.items ? 'lost' : 'added'}`);
        else walk(a.items, b.items, `${path}/items`);
      } else if (k === 'anyOf') {
        if ((a.anyOf?.length ?? 0) !== (b.anyOf?.length ?? 0)) out.push(`${path}/anyOf: ${a.anyOf?.length ?? 0} members served, ${b.anyOf?.length ?? 0} declared`);
        else a.anyOf.forEach((m, i) => walk(m, b.anyOf[i], `${path}/anyOf/${i}`));
      } else if (JSON.stringify(a[k]) !== JSON.stringify(b[k])) {
        out.push(`${path}: ${k} ${JSON.stringify(a[k])} served, ${JSON.stringify(b[k])} declared`);
      }
    }
  };
  walk(meaning(served), meaning(declared), at);
  return out;
}

/** Every place `schema` leaves Gemini's declaration subset. */
export function outsideGemini(schema, at = '', out = []) {
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) {
    out.push(`${at}: not a schema object`);
    return out;
  }
  for (const k of Object.keys(schema)) if (!GEMINI_KEYWORDS.has(k)) out.push(`${at}: keyword ${k}`);
  if (schema.type !== undefined && typeof schema.type !== 'string') out.push(`${at}: type ${JSON.stringify(schema.type)} is not one type name`);
  if (schema.type === undefined && !schema.anyOf) out.push(`${at}: no type`);
  if (Array.isArray(schema.enum)) {
    if (schema.enum.includes(null)) out.push(`${at}: null in an enum`);
    if (String(schema.type).toLowerCase() !== 'string' || schema.enum.some((v) => typeof v !== 'string')) out.push(`${at}: an enum of other than strings`);
  }
  schema.anyOf?.forEach((m, i) => outsideGemini(m, `${at}/anyOf/${i}`, out));
  for (const [n, s] of Object.entries(schema.properties ?? {})) outsideGemini(s, `${at}/properties/${n}`, out);
  if (schema.items) outsideGemini(schema.items, `${at}/items`, out);
  return out;
}
