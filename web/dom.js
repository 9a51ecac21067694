// Small DOM helpers. Every piece of text reaches the page through textContent or
// setAttribute and is never parsed as markup: labels, record text, ids and messages come
// from bundles and servers and are untrusted.

const SVG_NS = 'http://www.w3.org/2000/svg';

function fill(node, attrs, children) {
  for (const [name, value] of Object.entries(attrs ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name === 'text') node.textContent = String(value);
    else node.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    node.append(typeof child === 'string' || typeof child === 'number' ? document.createTextNode(String(child)) : child);
  }
  return node;
}

/** Creates an HTML element; `attrs.text` sets textContent, other keys are attributes. */
export function el(tag, attrs, ...children) {
  return fill(document.createElement(tag), attrs, children);
}

/** Creates an SVG element the same way. */
export function svg(tag, attrs, ...children) {
  return fill(document.createElementNS(SVG_NS, tag), attrs, children);
}

/** Removes every child of a node. */
export function clear(node) {
  while (node.firstChild) node.firstChild.remove();
  return node;
}

/**
 * A link only for a credential-free `https` URL (opened without opener or referrer);
 * anything else is shown as plain text.
 */
export function httpsLink(url, text) {
  let parsed = null;
  try {
    parsed = new URL(String(url));
  } catch {
    parsed = null;
  }
  if (!parsed || parsed.protocol !== 'https:' || parsed.username || parsed.password) {
    return el('span', { class: 'url', text: text ?? String(url) });
  }
  return el('a', {
    class: 'url',
    href: parsed.href,
    rel: 'noopener noreferrer',
    target: '_blank',
    text: text ?? String(url),
  });
}

/** Shortens text to at most `max` characters (code points) with an ellipsis. */
export function shorten(text, max) {
  const chars = Array.from(String(text));
  return chars.length <= max ? chars.join('') : `${chars.slice(0, max - 1).join('')}…`;
}

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/**
 * A date or timestamp (`2026-09-15`, `2026-09-15T19:45:22.073369Z`) as GOV.UK writes dates
 * (`15 September 2026`), independent of the browser's locale; anything else unchanged.
 */
export function readableDate(value) {
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:$|T)/u.exec(String(value ?? ''));
  const month = m ? MONTHS[Number(m[2]) - 1] : undefined;
  if (!m || !month || Number(m[3]) < 1 || Number(m[3]) > 31) return String(value ?? '');
  return `${Number(m[3])} ${month} ${m[1]}`;
}

/** Two days as one readable date or a range (`15 September 2026 to 16 September 2026`). */
export function readableDays(first, last) {
  return first === last ? readableDate(first) : `${readableDate(first)} to ${readableDate(last)}`;
}
