"""What each major MCP client is documented or known to apply to a tool list, as data with its source.

`tests/test_client_profiles.py` fetches every address's tools/list through the SDK client and runs
these rules over it; a breach names the client, the address, the tool and the rule. A rule whose
`check` is None needs requests of its own (a second listing, a refused header) and is checked by the
test over the wire; it is listed here so that every rule has one place with its source.

Sources (read December 2026; "secondary" marks a claim only a third party makes):

Microsoft Copilot Studio
  [MS-TS] learn.microsoft.com/microsoft-copilot-studio/mcp-troubleshooting, "Known issues and
          workarounds": tools with reference types are filtered from the tool list ("Reference type
          inputs and outputs aren't supported"); the input schema is truncated when a `type` is an
          array of types ("Make the values for type fields a single type"); an integer
          `exclusiveMinimum` in an input schema throws a System.FormatException; enum inputs are read
          as strings (no rule: nothing to change here, the server checks the value).
  [MS-EXT] learn.microsoft.com/microsoft-copilot-studio/agent-extend-action-mcp: name, description,
          inputs and outputs are taken from the server; generative orchestration required.
  [MS-COMMUNITY] github/awesome-copilot, instructions/power-platform-mcp-development.instructions.md
          (secondary): no `$ref`, single types in inputs and outputs, flatten `anyOf`/`oneOf`.
  Output schemas: Microsoft documents only `$ref` for outputs. Whether a type list in an output
  schema breaks anything is not documented, so the listing uses the form every client accepts
  (one type, or no `type` where null is allowed; see proxy.catalog.build.listed_output_schema).

ChatGPT (deep research, company knowledge)
  [OAI-MCP] platform.openai.com/docs/mcp: `search(query)` returns `{results: [{id, title, url}]}`,
          `fetch(id)` returns `{id, title, text, url, metadata}`, each as structured content plus the
          JSON as one text item; since June 2026 "ChatGPT creates citation metadata only when `url` is
          a non-empty string" (the doc's diff of 2026-06-16..22, recorded on spybara.com).

Claude (connector directory)
  [CL-REVIEW] claude.com/docs/connectors/building/review-criteria: "Every tool must include a title
          and the applicable hint: readOnlyHint: true for read-only tools, destructiveHint: true for
          tools that modify or delete data"; "Tool names must be 64 characters or fewer."
  [CL-CHECK] anthropics/claude-plugins-official, plugins/mcp-server-dev/.../directory-checklist.md:
          the same hints, names of 64 characters or fewer.

VS Code / Cursor / Claude Code (names, counts, ranking)
  [VSC-64] microsoft/vscode#243602: VS Code prefixes tool names with the server, and names over 64
          characters are refused by the model API (400). Claude Code's prefix is `mcp__<server>__`
          (anthropics/claude-code#19882, cloudflare/skills#11); the same 64-character limit.
  [NAME-CHARS] OpenAI function names `^[a-zA-Z0-9_-]{1,64}$` (the 400 quoted in
          microsoft/foundry-dev-tools#201); github/copilot-cli#1879 refuses `.` and `/`.
  [CURSOR-40] docs.cursor.com/context/model-context-protocol#tool-quantity: "Cursor will only send the
          first 40 tools to the Agent" (quoted in getsentry/sentry-mcp-stdio#3 and
          RyanCardin15/AzureDevOps-MCP#8; Snowflake-Labs/mcp#77 reports a later 80 across servers).
  [VSC-128] 128 tools per request in VS Code (microsoft/vscode#261213,
          microsoft/vscode-copilot-release#13065); Copilot Studio 128 per agent, 25-30 advised
          (zuplo.com/learn/mcp/compatibility/clients/copilot-studio, secondary). Smallest cap: 40.
  [VSC-SEARCH] microsoft/vscode-docs#9695 ("Solving MCP Tool Overload"): about 30 tools are sent in
          full, the rest deferred and found by an embedding search over names and descriptions;
          Cursor loads MCP tools by name only (cursor.com/blog/dynamic-context-discovery). So a tool
          is found only if its name, title or description carries the words people search with.

MCP 2026-07-28
  [SPEC] modelcontextprotocol/modelcontextprotocol docs/specification/2026-07-28 (changelog, tools,
          transport): `ttlMs` and `cacheScope` required on lists; tools SHOULD be listed in a
          deterministic order; an unsupported version is 400 with -32022
          (UnsupportedProtocolVersion); a header that disagrees with the body is 400 with -32020
          (HeaderMismatch). A tool list here is the same for every client until a reload, so it is
          `public` with a positive `ttlMs` (proxy.web.transport.LISTING_TTL_MS says why five minutes).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

__all__ = ["CLIENT_PREFIX", "NAME_MAX", "RULES", "TOOL_CAP", "Breach", "Listing", "Rule",
           "breaches", "prefixed_name"]

NAME_MAX: Final = 64
CLIENT_PREFIX: Final = "mcp__{server}__"  # Claude Code's, the longest of the prefixes clients add
TOOL_CAP: Final = 40  # the smallest documented per-request cap (Cursor); VS Code and Copilot Studio: 128
_NAME_CHARS: Final = re.compile(r"^[A-Za-z0-9_-]+$")
_REFERENCES: Final = frozenset({"$ref", "$dynamicRef", "$defs", "definitions"})
_COMPOSITIONS: Final = frozenset({"anyOf", "oneOf", "allOf"})

@dataclass(frozen=True)
class Listing:
    """One address's tools/list as a client received it: the result and its tools in wire form."""

    address: str  # the connector slug: the server name a person gives it in a client
    era: str  # "legacy" or "2026-07-28"
    result: Mapping[str, Any]
    platforms: Mapping[str, str | None] = field(default_factory=dict)  # tool name → its source (None: ours)
    # source → the words people search it with (Dutch, English): its plug-in's About.search_words
    search_words: Mapping[str, tuple[tuple[str, ...], tuple[str, ...]]] = field(default_factory=dict)

    @property
    def tools(self) -> Sequence[Mapping[str, Any]]:
        tools: Sequence[Mapping[str, Any]] = self.result.get("tools", [])
        return tools


@dataclass(frozen=True)
class Breach:
    tool: str | None  # None: the list as a whole
    detail: str


@dataclass(frozen=True)
class Rule:
    client: str
    key: str
    says: str
    sources: tuple[str, ...]
    check: Callable[[Listing], Iterator[Breach]] | None  # None: checked over the wire by the test
    era: str | None = None  # only on this era's listings (None: both)


def prefixed_name(address: str, tool: str) -> str:
    return CLIENT_PREFIX.format(server=address) + tool


def breaches(rule: Rule, listing: Listing) -> list[Breach]:
    if rule.check is None or (rule.era is not None and rule.era != listing.era):
        return []
    return list(rule.check(listing))


# --------------------------------------------------------------------------- schema walking


def _nodes(node: Any, path: str = "#") -> Iterator[tuple[str, Mapping[str, Any]]]:
    """Every schema object under `node` with its JSON pointer (keys of `properties` are names, not keywords)."""
    if isinstance(node, Mapping):
        yield path, node
        for key, value in node.items():
            if key in ("properties", "patternProperties", "$defs", "definitions") and isinstance(value, Mapping):
                for name, sub in value.items():
                    yield from _nodes(sub, f"{path}/{key}/{name}")
            elif isinstance(value, Mapping | list):
                yield from _nodes(value, f"{path}/{key}")
    elif isinstance(node, list):
        for i, item in enumerate(node):
            yield from _nodes(item, f"{path}/{i}")


def _schemas(tool: Mapping[str, Any], which: Sequence[str]) -> Iterator[tuple[str, Mapping[str, Any]]]:
    for key in which:
        schema = tool.get(key)
        if isinstance(schema, Mapping):
            for path, node in _nodes(schema):
                yield f"{key}{path[1:]}", node


def _each_tool(find: Callable[[Mapping[str, Any]], Iterator[str]]) -> Callable[[Listing], Iterator[Breach]]:
    def check(listing: Listing) -> Iterator[Breach]:
        for tool in listing.tools:
            for detail in find(tool):
                yield Breach(tool.get("name"), detail)
    return check


# --------------------------------------------------------------------------- Copilot Studio


def _no_references(tool: Mapping[str, Any]) -> Iterator[str]:
    for path, node in _schemas(tool, ("inputSchema", "outputSchema")):
        for key in _REFERENCES & node.keys():
            yield f"{path} has {key}: Copilot Studio drops a tool with a reference type"


def _single_types(which: str) -> Callable[[Mapping[str, Any]], Iterator[str]]:
    def find(tool: Mapping[str, Any]) -> Iterator[str]:
        for path, node in _schemas(tool, (which,)):
            if isinstance(node.get("type"), list):
                yield f"{path} has type {node['type']}: one type per property"
    return find


def _no_compositions(which: str) -> Callable[[Mapping[str, Any]], Iterator[str]]:
    def find(tool: Mapping[str, Any]) -> Iterator[str]:
        for path, node in _schemas(tool, (which,)):
            for key in sorted(_COMPOSITIONS & node.keys()):
                yield f"{path} has {key}"
    return find


def _no_numeric_exclusive(tool: Mapping[str, Any]) -> Iterator[str]:
    for path, node in _schemas(tool, ("inputSchema",)):
        for key in ("exclusiveMinimum", "exclusiveMaximum"):
            if isinstance(node.get(key), int | float) and not isinstance(node.get(key), bool):
                yield f"{path} has a numeric {key}: Copilot Studio throws a FormatException"


# --------------------------------------------------------------------------- ChatGPT


def _tool(listing: Listing, name: str) -> Mapping[str, Any] | None:
    return next((t for t in listing.tools if t.get("name") == name), None)


def _string_field(schema: Any, name: str) -> bool:
    prop = schema.get("properties", {}).get(name) if isinstance(schema, Mapping) else None
    return isinstance(prop, Mapping) and prop.get("type") == "string"


def _deep_research_tools(listing: Listing) -> Iterator[Breach]:
    search, fetch = _tool(listing, "search"), _tool(listing, "fetch")
    for name, tool, argument in (("search", search, "query"), ("fetch", fetch, "id")):
        if tool is None:
            yield Breach(None, f"no `{name}` tool: deep research and company knowledge use only search and fetch")
        elif not _string_field(tool.get("inputSchema"), argument) \
                or argument not in tool.get("inputSchema", {}).get("required", []):
            yield Breach(name, f"`{name}` must take a required string `{argument}`")
    if search is not None:
        results = (search.get("outputSchema") or {}).get("properties", {}).get("results", {})
        item = results.get("items", {}) if isinstance(results, Mapping) else {}
        missing = [f for f in ("id", "title", "url") if not _string_field(item, f)]
        if results.get("type") != "array" or missing:
            yield Breach("search", f"output must be {{results: [{{id, title, url}}]}} (strings); missing {missing}")
    if fetch is not None:
        schema = fetch.get("outputSchema") or {}
        missing = [f for f in ("id", "title", "text", "url") if not _string_field(schema, f)]
        if missing or "metadata" not in schema.get("properties", {}):
            yield Breach("fetch", f"output must be {{id, title, text, url, metadata}}; missing {missing}")


# --------------------------------------------------------------------------- Claude


def _title_and_hints(tool: Mapping[str, Any]) -> Iterator[str]:
    annotations = tool.get("annotations") or {}
    if not (tool.get("title") or annotations.get("title")):
        yield "no title"
    read_only, destructive = annotations.get("readOnlyHint"), annotations.get("destructiveHint")
    if read_only is not True and not isinstance(destructive, bool):
        yield "neither readOnlyHint: true nor an explicit destructiveHint"


# --------------------------------------------------------------------------- VS Code / Cursor


def _names_fit(listing: Listing) -> Iterator[Breach]:
    for tool in listing.tools:
        name = str(tool.get("name", ""))
        full = prefixed_name(listing.address, name)
        if len(full) > NAME_MAX:
            yield Breach(name, f"{full} is {len(full)} characters with the client prefix (at most {NAME_MAX})")
        if not _NAME_CHARS.match(name):
            yield Breach(name, "a name of letters, digits, '_' and '-' only")


def _count_fits(listing: Listing) -> Iterator[Breach]:
    if len(listing.tools) > TOOL_CAP:
        yield Breach(None, f"{len(listing.tools)} tools; Cursor sends only the first {TOOL_CAP}")


def _has_word(text: str, words: Sequence[str]) -> bool:
    return any(re.search(r"(?<![a-z])" + re.escape(word), text) for word in words)


def _found_by_words(listing: Listing) -> Iterator[Breach]:
    for tool in listing.tools:
        platform = listing.platforms.get(str(tool.get("name")))
        if platform is None:
            continue  # the meta tools and search/fetch are named by the instructions, not found by topic
        if platform not in listing.search_words:
            continue
        dutch, english = listing.search_words[platform]
        text = " ".join([str(tool.get("name", "")).replace("_", " "), str(tool.get("title", "")),
                         str(tool.get("description", ""))]).lower()
        for language, words in (("Dutch", dutch), ("English", english)):
            if not _has_word(text, words):
                yield Breach(tool.get("name"), f"no {language} search word of {platform} ({', '.join(words)})")


# --------------------------------------------------------------------------- MCP 2026-07-28


def _cache_hints(listing: Listing) -> Iterator[Breach]:
    scope, ttl = listing.result.get("cacheScope"), listing.result.get("ttlMs")
    if scope != "public":
        yield Breach(None, f"cacheScope is {scope!r}: the list is the same for every client, so 'public'")
    if not isinstance(ttl, int) or ttl <= 0:
        yield Breach(None, f"ttlMs is {ttl!r}: a positive time a client may keep the list")


_COPILOT = "Microsoft Copilot Studio"
_CHATGPT = "ChatGPT deep research"
_CLAUDE = "Claude connector directory"
_EDITORS = "VS Code / Cursor"
_SPEC = "MCP 2026-07-28"

RULES: Final[tuple[Rule, ...]] = (
    Rule(_COPILOT, "no-ref", "no $ref (or $defs) in input or output schemas", ("MS-TS", "MS-COMMUNITY"),
         _each_tool(_no_references)),
    Rule(_COPILOT, "input-single-type", "one type per input property, never a list of types", ("MS-TS",),
         _each_tool(_single_types("inputSchema"))),
    Rule(_COPILOT, "input-no-anyof", "no anyOf / oneOf / allOf in input schemas", ("MS-COMMUNITY",),
         _each_tool(_no_compositions("inputSchema"))),
    Rule(_COPILOT, "input-exclusive-bound", "no numeric exclusiveMinimum / exclusiveMaximum in input schemas",
         ("MS-TS",), _each_tool(_no_numeric_exclusive)),
    Rule(_COPILOT, "output-single-type", "output schemas in a form every client accepts: no type lists",
         ("MS-TS", "MS-COMMUNITY"), _each_tool(_single_types("outputSchema"))),
    Rule(_COPILOT, "output-no-anyof", "output schemas in a form every client accepts: no anyOf / oneOf / allOf",
         ("MS-COMMUNITY",), _each_tool(_no_compositions("outputSchema"))),
    Rule(_CHATGPT, "search-fetch", "search(query) → {results: [{id, title, url}]}; fetch(id) → "
         "{id, title, text, url, metadata}", ("OAI-MCP",), _deep_research_tools),
    Rule(_CHATGPT, "non-empty-url", "every search result and fetched document has a non-empty url",
         ("OAI-MCP",), None),
    Rule(_CLAUDE, "title-and-hints", "a title and readOnlyHint: true (or an explicit destructiveHint) on every "
         "tool", ("CL-REVIEW", "CL-CHECK"), _each_tool(_title_and_hints)),
    Rule(_EDITORS, "name-length", f"names of at most {NAME_MAX} characters with the client prefix "
         f"{CLIENT_PREFIX}, letters, digits, '_' and '-'", ("VSC-64", "CL-REVIEW", "NAME-CHARS"), _names_fit),
    Rule(_EDITORS, "tool-count", f"at most {TOOL_CAP} tools per address", ("CURSOR-40", "VSC-128"), _count_fits),
    Rule(_EDITORS, "search-words", "each source tool's name, title or description carries a Dutch and an "
         "English word people search that source with", ("VSC-SEARCH",), _found_by_words),
    Rule(_SPEC, "cache-hints", "tools/list carries cacheScope 'public' and a positive ttlMs", ("SPEC",),
         _cache_hints, era="2026-07-28"),
    Rule(_SPEC, "deterministic", "the same tools in the same order for every client and every listing",
         ("SPEC",), None),
    Rule(_SPEC, "error-codes", "an unsupported version is 400/-32022, a header mismatch 400/-32020", ("SPEC",),
         None),
)
