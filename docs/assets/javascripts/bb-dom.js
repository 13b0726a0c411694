// BesluitBron: building DOM without HTML strings. Every string becomes a text node; nothing here
// parses markup, so text from a tool or a source platform can never turn into elements or scripts.

/**
 * el("p", {class: "x", dataset: {state: "open"}, attrs: {"aria-live": "polite"}}, "text", childNode, ...)
 * Strings, numbers and booleans become text nodes; null/undefined/false children are skipped.
 */
export function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "dataset") Object.assign(node.dataset, value);
    else if (key === "attrs") for (const [name, v] of Object.entries(value)) {
      if (v !== undefined && v !== null && v !== false) node.setAttribute(name, v === true ? "" : String(v));
    }
    else if (key === "on") for (const [event, handler] of Object.entries(value)) node.addEventListener(event, handler);
    else node[key] = value; // DOM properties only: id, type, value, checked, disabled, htmlFor, ...
  }
  append(node, ...children);
  return node;
}

/** Append children (text or nodes, arrays flattened) to `node`. */
export function append(node, ...children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

/** Remove every child of `node`. */
export function clear(node) {
  while (node.firstChild) node.removeChild(node.firstChild);
  return node;
}

/** A link only for http(s) URLs, set through the href property; anything else is plain text. */
export function safeLink(uri, text, props = {}) {
  let url = null;
  try {
    url = new URL(String(uri));
  } catch {
    url = null;
  }
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:")) return el("span", {}, text);
  const link = el("a", {...props, rel: "noopener noreferrer nofollow", target: "_blank"}, text);
  link.href = url.href;
  return link;
}

let counter = 0;
/** A page-unique id with a readable prefix. */
export function uid(prefix) {
  counter += 1;
  return `${prefix}-${counter}`;
}

const ADDRESS = /https?:\/\/[^\s"'<>]+/g;
const PART_BREAK = /(?<=[^/:]\/)(?=[^/])|(?<=\w)(?=[.-]\w)/g;

/**
 * `text` as children for el()/append(): every web address in it gets <wbr> after each "/" (but the scheme's) and
 * before each "." and "-", so a narrow screen wraps it between parts, never mid-word (site_hooks/site_breaks.py
 * does the same for the built pages). Copying the text is unchanged.
 */
export function withBreaks(text) {
  const out = [];
  let last = 0;
  for (const match of String(text).matchAll(ADDRESS)) {
    out.push(text.slice(last, match.index));
    const [scheme, rest] = [match[0].slice(0, match[0].indexOf("//") + 2), match[0].slice(match[0].indexOf("//") + 2)];
    const parts = rest.split(PART_BREAK);
    out.push(scheme, ...parts.flatMap((part, i) => (i ? [document.createElement("wbr"), part] : [part])));
    last = match.index + match[0].length;
  }
  out.push(String(text).slice(last));
  return out.filter((part) => part !== "");
}
