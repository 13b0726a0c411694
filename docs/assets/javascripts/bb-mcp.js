// BesluitBron: a minimal MCP client for the browser, stateless protocol era 2026-07-28.
// One POST per request; the `_meta` envelope on every request; Mcp-Method (and Mcp-Name for
// tools/call) headers that mirror the body; answers as application/json or text/event-stream.

export const PROTOCOL_VERSION = "2026-07-28";
export const TRACE_META_KEY = "nl.besluitbron/trace";
const CLIENT_INFO = {name: "besluitbron-site-explorer", version: "1"};
const TIMEOUT_MS = 20000;

/** The server could not be reached, or what answered was not an MCP server. */
export class McpUnreachable extends Error {}

/** The server answered with a JSON-RPC error. */
export class McpError extends Error {
  constructor(code, message, data) {
    super(message);
    this.code = code;
    this.data = data;
  }
}

let nextId = 1;

/** One request to the MCP endpoint `url`; resolves with its `result`. */
export async function request(url, method, params = {}, {timeoutMs = TIMEOUT_MS} = {}) {
  const id = nextId++;
  const meta = {
    ...(params._meta || {}),
    "io.modelcontextprotocol/protocolVersion": PROTOCOL_VERSION,
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": CLIENT_INFO,
  };
  const body = {jsonrpc: "2.0", id, method, params: {...params, _meta: meta}};
  const headers = {
    "Content-Type": "application/json",
    "Accept": "application/json, text/event-stream",
    "MCP-Protocol-Version": PROTOCOL_VERSION,
    "Mcp-Method": method,
  };
  if (method === "tools/call") headers["Mcp-Name"] = params.name;

  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  let response;
  let text;
  try {
    response = await fetch(url, {
      method: "POST", headers, body: JSON.stringify(body), signal: controller.signal,
      credentials: "omit", cache: "no-store", redirect: "error",
    });
    text = await response.text();
  } catch (err) {
    throw new McpUnreachable(err && err.name === "AbortError" ? "timeout" : String(err && err.message || err));
  } finally {
    clearTimeout(timer);
  }
  const message = pickMessage(response.headers.get("Content-Type") || "", text, id);
  if (!message) throw new McpUnreachable(`HTTP ${response.status}: no MCP answer`);
  if (message.error) throw new McpError(message.error.code, message.error.message, message.error.data);
  if (!response.ok) throw new McpUnreachable(`HTTP ${response.status}`);
  return message.result;
}

/** The JSON-RPC response with `id` from a JSON or SSE body, or null. */
function pickMessage(contentType, text, id) {
  const type = contentType.split(";")[0].trim().toLowerCase();
  const candidates = [];
  if (type === "text/event-stream") {
    for (const event of text.split(/\r?\n\r?\n/)) {
      const data = event.split(/\r?\n/).filter((line) => line.startsWith("data:"))
        .map((line) => line.slice(5).replace(/^ /, "")).join("\n");
      if (data) candidates.push(data);
    }
  } else if (type === "application/json") {
    candidates.push(text);
  }
  for (const candidate of candidates) {
    let parsed;
    try {
      parsed = JSON.parse(candidate);
    } catch {
      continue;
    }
    if (parsed && typeof parsed === "object" && parsed.jsonrpc === "2.0" && ("result" in parsed || "error" in parsed)
        && (parsed.id === id || (parsed.id === null && "error" in parsed))) {
      return parsed;
    }
  }
  return null;
}

/** Every tool of the endpoint (follows nextCursor). */
export async function listTools(url, options) {
  const tools = [];
  let cursor;
  for (let page = 0; page < 50; page++) {
    const result = await request(url, "tools/list", cursor ? {cursor} : {}, options);
    tools.push(...(result.tools || []));
    cursor = result.nextCursor;
    if (!cursor) break;
  }
  return tools;
}

/** Call a tool; resolves with {result, trace} (trace: the handle for list_platform_calls, or null). */
export async function callTool(url, name, args, options) {
  const result = await request(url, "tools/call", {name, arguments: args}, options);
  const trace = result && result._meta && typeof result._meta[TRACE_META_KEY] === "string"
    ? result._meta[TRACE_META_KEY] : null;
  return {result, trace};
}
