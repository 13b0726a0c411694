// BesluitBron: the visitor's standing approvals, kept in this browser's localStorage.
// Shape: {"<connector slug>": {"all": "<ISO time>" | undefined, "tools": {"<tool>": "<ISO time>"}}}.
// Only "always" choices are stored; "allow once" is never remembered.

export const STORAGE_KEY = "besluitbron.approvals.v1";

function read(storage) {
  try {
    const parsed = JSON.parse(storage.getItem(STORAGE_KEY) || "{}");
    return parsed && typeof parsed === "object" && !Array.isArray(parsed) ? parsed : {};
  } catch {
    return {};
  }
}

function write(storage, data) {
  const pruned = {};
  for (const [slug, entry] of Object.entries(data)) {
    const tools = Object.fromEntries(Object.entries(entry.tools || {}).filter(([, at]) => typeof at === "string"));
    if (entry.all || Object.keys(tools).length) pruned[slug] = {...(entry.all ? {all: entry.all} : {}), tools};
  }
  try {
    if (Object.keys(pruned).length) storage.setItem(STORAGE_KEY, JSON.stringify(pruned));
    else storage.removeItem(STORAGE_KEY);
  } catch {
    // Storage full or blocked: the choice then holds for this page only, which is the safe side.
  }
}

export class Approvals {
  constructor(storage = window.localStorage) {
    this.storage = storage;
    this.listeners = new Set();
  }

  /** "connector", "tool" or null: why `tool` on `slug` may run without a card. */
  standing(slug, tool) {
    const entry = read(this.storage)[slug];
    if (!entry) return null;
    if (typeof entry.all === "string") return "connector";
    if (entry.tools && typeof entry.tools[tool] === "string") return "tool";
    return null;
  }

  allowTool(slug, tool) {
    this.update((data) => {
      const entry = data[slug] || (data[slug] = {tools: {}});
      entry.tools = {...(entry.tools || {}), [tool]: new Date().toISOString()};
    });
  }

  setConnector(slug, on) {
    this.update((data) => {
      const entry = data[slug] || (data[slug] = {tools: {}});
      if (on) entry.all = new Date().toISOString();
      else delete entry.all;
    });
  }

  connectorAllowed(slug) {
    return this.standing(slug, "\u0000") === "connector";
  }

  revokeTool(slug, tool) {
    this.update((data) => {
      if (data[slug] && data[slug].tools) delete data[slug].tools[tool];
    });
  }

  revokeAll() {
    this.update((data) => {
      for (const slug of Object.keys(data)) delete data[slug];
    });
  }

  /** Every stored approval: [{slug, tool (null = all tools), at}], connector-wide first. */
  list() {
    const out = [];
    for (const [slug, entry] of Object.entries(read(this.storage))) {
      if (typeof entry.all === "string") out.push({slug, tool: null, at: entry.all});
      for (const [tool, at] of Object.entries(entry.tools || {})) out.push({slug, tool, at});
    }
    return out;
  }

  onChange(listener) {
    this.listeners.add(listener);
  }

  update(change) {
    const data = read(this.storage);
    change(data);
    write(this.storage, data);
    for (const listener of this.listeners) listener();
  }
}
