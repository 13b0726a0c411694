"""One connector as the MCP transport sees it: list its tools, validate arguments, run a tool and
shape its result (structuredContent + the same JSON as text), turning failures into `isError`.

Per call, arguments are checked against their schema by a compiled check (`proxy.core.schemacheck`);
a result is encoded once (`EncodedResult`, the transport splices it) and checked against its
output schema the first time that very result is built (a cached answer repeats it). A finished
result is kept (`proxy.results.resultmemo`) while the platform replies it was built from are still cached,
so a repeated call does not rebuild it.
"""

from __future__ import annotations

import difflib
import json
import logging
import secrets
from collections.abc import Hashable, Mapping, Sized
from typing import TYPE_CHECKING, Any, cast

import jsonschema
import mcp_types
import orjson

from proxy.catalog.build import CatalogConnector, CatalogTool
from proxy.core.caller import Caller
from proxy.core.errors import NotHeld, ToolInputError, UnknownToolError, UpstreamError, clipped
from proxy.core.jsonwire import encode_json
from proxy.core.schemacheck import SchemaCheck
from proxy.core.trace import TraceSigner
from proxy.observe.jsonlog import REQUEST_ID
from proxy.observe.metrics import Metrics
from proxy.plugin.toolkit import ToolCall, ToolImpl
from proxy.results.citing import cite_chunks
from proxy.results.domainpolicy import apply_policy
from proxy.results.emptied import SourceState, explain_empty
from proxy.results.encoding import EncodedResult, json_members
from proxy.results.external import external_meta, fenced_json
from proxy.results.outputs import localised
from proxy.results.resultmemo import Answer, Fetch, Memo, MemoKey, ResultMemo, collecting
from proxy.results.sample import SAMPLE_FIELD, SampleData
from proxy.serving import crosssearch, meta
from proxy.state.store import StateStore

if TYPE_CHECKING:
    from proxy.catalog.generation import Generation

__all__ = ["ConnectorEndpoint"]

log = logging.getLogger(__name__)
# Conforming results remembered per tool (equal JSON is an equal value: no need to check it again).
_CONFORMING_MAX = 256


class ConnectorEndpoint:
    """Serves one `CatalogConnector` of one generation, which it keeps: a call that started before a
    reload finishes with the tools and settings it started with."""

    def __init__(self, connector: CatalogConnector, generation: Generation, *, store: StateStore,
                 signer: TraceSigner, sample: SampleData | None = None, metrics: Metrics | None = None) -> None:
        self.connector = connector
        metrics = metrics or Metrics()
        # Bound once per generation: a call increments, it does not look labels up.
        self._counted = {t.name: metrics.tool(connector.slug, t.name) for t in connector.tools}
        self._unknown_tool = metrics.tool(connector.slug, "(unknown)").failed
        self._sample = sample
        self.slug = connector.slug
        self.generation = generation
        self._store = store
        self._signer = signer
        self._tools = [t.to_mcp() for t in connector.tools]
        self._checks = {t.name: (SchemaCheck(t.input_schema), SchemaCheck(t.served_output_schema))
                        for t in connector.tools}
        # Results already found to conform, by their JSON: a cached answer is checked when it is first built.
        self._conforming: dict[str, set[bytes]] = {t.name: set() for t in connector.tools}
        self._memo = ResultMemo()

    @property
    def results_kept(self) -> int:
        """How many finished results this endpoint keeps for reuse (`proxy.results.resultmemo`)."""
        return len(self._memo)

    def list_tools(self) -> list[mcp_types.Tool]:
        return self._tools

    def input_schema(self, name: str) -> Mapping[str, Any] | None:
        tool = self.connector.tool(name)
        return tool.input_schema if tool else None

    async def call_tool(self, name: str, arguments: Mapping[str, Any], caller: Caller
                        ) -> mcp_types.CallToolResult | EncodedResult:
        """Run one tool call, counted in /metrics by its outcome (ok, error: isError, failed: raised)."""
        counted = self._counted.get(name)
        if counted is None:
            self._unknown_tool.inc()  # one label for every unknown name: a client cannot invent series
            raise UnknownToolError(name)
        try:
            result = await self._call_tool(name, arguments, caller)
        except Exception:
            counted.failed.inc()
            raise
        # An EncodedResult is a success; asked first, as pydantic's models take the ABC way through isinstance.
        (counted.ok if isinstance(result, EncodedResult) or not result.is_error else counted.error).inc()
        return result

    async def _call_tool(self, name: str, arguments: Mapping[str, Any], caller: Caller
                         ) -> mcp_types.CallToolResult | EncodedResult:
        tool = self.connector.tool(name)
        if tool is None:
            raise UnknownToolError(name)
        if len(arguments) > MAX_ARGUMENTS or any(len(key) > MAX_ARGUMENT_NAME for key in arguments):
            # Refused before any schema or suggestion work: a megabyte of keys would cost that in CPU.
            takes = ", ".join(tool.input_schema.get("properties", {})) or "no arguments"
            return _error(f"Invalid arguments for {name}: {len(arguments):,} fields (at most {MAX_ARGUMENTS}, "
                          f"names of at most {MAX_ARGUMENT_NAME} characters); {name} takes {takes}")
        # A remembered result was built from these very arguments (the key tells types apart), which passed the
        # checks below then and, in the same generation, would pass them again: a hit skips them.
        memo_key = self._memo_key(tool, arguments)
        if memo_key is not None:
            hit = self._memo.get(memo_key)
            if hit is not None:
                if await _still_cached(hit.fetches):
                    await self._store.record_calls(caller.key, hit.hit_records(REQUEST_ID.get()))
                    return hit.answer.result()
                self._memo.drop(memo_key)
        in_check, _ = self._checks[name]
        problems = in_check.problems(dict(arguments))
        if problems:
            return _error(f"Invalid arguments for {name}: "
                          + "; ".join(_argument_problem(e, tool) for e in problems))
        broken = _unencodable(arguments)
        if broken is not None:
            return _error(f"Invalid arguments for {name}: {broken} holds text that is not valid Unicode "
                          "(a lone surrogate); send it as UTF-8 text")
        with collecting() as fetches:
            outcome = await self._build(tool, arguments, caller)
        if not isinstance(outcome, Answer):
            return outcome
        if memo_key is not None and fetches:
            self._memo.put(memo_key, Memo.of(outcome, fetches, name))
        return outcome.result()

    def _memo_key(self, tool: CatalogTool, arguments: Mapping[str, Any]) -> MemoKey | None:
        """What a platform tool's result depends on besides its fetches: name, arguments, Dutch date."""
        if tool.impl is None or tool.meta or tool.platform is None:
            return None
        return (tool.name, _arguments_key(arguments), self.generation.context(tool.platform).today())

    def _source(self, platform: str) -> str:
        return self.generation.registry.platforms[platform].title.nl

    async def _cross(self, name: str, arguments: Mapping[str, Any], caller: Caller) -> dict[str, Any]:
        """search / fetch over the sources at this address, each through its own tools (`proxy.serving.crosssearch`)."""
        generation = self.generation
        plugins = generation.catalog.plugins
        routes = {p: route for p in self.connector.platforms if (route := plugins[p].search_route) is not None}

        async def run(platform: str, tool: str, args: Mapping[str, Any]) -> dict[str, Any]:
            impl = _platform_tool(generation, platform, tool)
            call = ToolCall(tool=tool, arguments=args, caller=caller, ctx=generation.context(platform))
            return await impl.handler(call)

        async def standing(platform: str) -> bool | None:
            state = await self._source_state(platform)
            return None if state is None or state.receiving is None else not state.receiving

        if name == "search":
            titles = {p: self._source(p) for p in routes}
            return await crosssearch.search(routes, titles, arguments, run, standing,
                                            deadline=crosssearch.DEADLINE_SECONDS)
        return await crosssearch.fetch(routes, arguments, run)

    async def _source_state(self, platform: str | None) -> SourceState | None:
        """Whether the source receives material and answered its last call, for an empty answer's hint."""
        if platform is None:
            return None
        load: Mapping[str, Any] | None = await self._store.load_status(platform)
        availability = await self._store.availability(platform)
        if not load and not availability:
            return None
        return SourceState(title=self._source(platform), receiving=(load or {}).get("receiving"),
                           current_through=(load or {}).get("current_through"),
                           available=availability["available"] if availability else None,
                           last_error=availability.get("last_error") if availability else None)

    async def _build(self, tool: CatalogTool, arguments: Mapping[str, Any], caller: Caller
                     ) -> mcp_types.CallToolResult | EncodedResult | Answer:
        """Run the tool, then shape, check and encode its result: a platform tool's as an `Answer`, which a
        later call may use again."""
        name = tool.name
        _, out_check = self._checks[name]
        try:
            data = apply_policy(await self._run(tool, arguments, caller), self.generation.domain_policy)
            if not tool.meta:
                async def again(changed: Mapping[str, Any]) -> dict[str, Any]:
                    return await self._run(tool, changed, caller)

                async def state() -> SourceState | None:
                    return await self._source_state(tool.platform)

                data = cite_chunks(await explain_empty(data, arguments, tool.input_schema, again, state,
                                                       sample=self._sampled(tool.platform)))
                if self._sample and self._sample.covers(tool.platform):
                    data[SAMPLE_FIELD] = self._sample.note(tool.platform)
        except NotHeld as exc:
            sample = self._sample
            if sample and sample.covers(tool.platform):
                title = self._source(tool.platform) if tool.platform else "the platforms"
                return self._failed(tool, f"{name}: {sample.not_held(exc, tool.platform, title)}")
            return self._failed(tool, tool.localise(f"{name}: {exc}"))
        except ToolInputError as exc:
            return self._failed(tool, tool.localise(f"{name}: {exc}"))
        except UpstreamError as exc:
            return self._failed(tool, tool.localise(f"{name}: {exc}. Check platform_status and list_platform_calls "
                                                    "for details."))
        except Exception:
            incident = secrets.token_hex(4)
            log.exception("tool %s on %s failed (incident %s)", name, self.slug, incident)
            return _error(f"{name} failed inside BesluitBron (incident {incident}); please report it with the "
                          "server_version from list_capabilities.")
        encoded = encode_json(data)
        conforming = self._conforming[name]
        if encoded not in conforming:
            mismatches = out_check.problems(data)
            if mismatches or not isinstance(data, dict):
                incident = secrets.token_hex(4)
                log.error("tool %s returned data outside its outputSchema (incident %s): %s", name, incident,
                          _describe(mismatches[0]) if mismatches else f"a {type(data).__name__}, not an object")
                return _error(f"{name} produced an answer that does not match its schema (incident {incident}); "
                              "please report it.")
            if len(conforming) >= _CONFORMING_MAX:
                conforming.clear()
            conforming.add(encoded)
        if tool.meta:  # about this installation: ours, not external data (led by the sample notice, if any)
            sample = self._sample
            return EncodedResult(encoded, meta=json_members(sample.meta(None)) if sample else b"")
        platform = tool.platform
        meta_ = external_meta([platform or self.slug])
        sampled = self._sample is not None and self._sample.covers(platform)
        if self._sample and sampled:
            meta_ = {**meta_, **self._sample.meta(platform)}
        # The JSON fenced as external data, led by the sample notice when the platform is an offline replica.
        text = fenced_json(encoded.decode(), self._source(platform) if platform else self.slug,
                           lead=self._sample.note(platform) if self._sample and sampled else "")
        return Answer(encoded, text, json_members(meta_))

    def _sampled(self, platform: str | None) -> str | None:
        """The sample's words for an empty list of `platform`, when that platform answers from the sample."""
        sample = self._sample
        if not sample or not sample.covers(platform):
            return None
        return sample.empty(platform, self._source(platform) if platform else "the platforms")

    def _failed(self, tool: CatalogTool, message: str) -> mcp_types.CallToolResult:
        """An isError result; from the sample it is led by the sample notice and carries it in `_meta` too."""
        sample = self._sample
        if not sample or not sample.covers(tool.platform) or tool.meta:
            return _error(message)
        return mcp_types.CallToolResult(content=[mcp_types.TextContent(type="text", text=(
            f"{sample.note(tool.platform)}\n\n{message}"))], is_error=True, _meta=sample.meta(tool.platform))

    async def _run(self, tool: CatalogTool, arguments: Mapping[str, Any], caller: Caller) -> dict[str, Any]:
        generation = self.generation
        if tool.cross:
            return await self._cross(tool.name, arguments, caller)
        if tool.impl is None:
            return await meta.META_RUNS[tool.name](meta.MetaCall(
                generation=generation, store=self._store, connector=self.connector, signer=self._signer,
                caller=caller, arguments=arguments, sample=self._sample))
        assert tool.platform is not None
        call = ToolCall(tool=tool.name, arguments=arguments, caller=caller, ctx=generation.context(tool.platform))
        return localised(await tool.impl.handler(call), tool.localise)


def _platform_tool(generation: Generation, platform: str, name: str) -> ToolImpl:
    return next(t for t in generation.catalog.plugins[platform].tools if t.name == name)


def _arguments_key(arguments: Mapping[str, Any]) -> Hashable:
    """Arguments as a key that tells 1, 1.0, true and "1" apart, as a handler does: canonical JSON (orjson, one C
    call on every cached call). orjson writes NaN and Infinity as null, so arguments holding a null (or anything
    orjson cannot write) take the stdlib's JSON, which writes them apart."""
    try:
        key = orjson.dumps(arguments, option=orjson.OPT_SORT_KEYS)
    except TypeError:
        key = b"null"
    if key.find(b"null") == -1:  # not `in`, which on CPython 3.11 raises and clears a TypeError first
        return key
    return json.dumps(arguments, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


async def _still_cached(fetches: tuple[Fetch, ...]) -> bool:
    for fetch in fetches:
        source = fetch.upstream
        # Held in this process (no coroutine, no round trip), or else asked of the store.
        if not source.holds(fetch.target, fetch.body) and not await source.still_cached(fetch.target, fetch.body):
            return False
    return True


def _error(message: str) -> mcp_types.CallToolResult:
    return mcp_types.CallToolResult(content=[mcp_types.TextContent(type="text", text=message)], is_error=True)


def _unencodable(value: Any, where: str = "arguments") -> str | None:
    """The path of the first string that cannot be sent upstream as UTF-8, if any."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return where
        return None
    items = value.items() if isinstance(value, Mapping) else enumerate(value) if isinstance(value, list) else ()
    for key, item in items:
        found = _unencodable(item, f"{where}.{key}" if where != "arguments" else str(key))
        if found:
            return found
    return None


def _argument_problem(error: jsonschema.ValidationError, tool: CatalogTool) -> str:
    """What is wrong with an argument, and what to send instead: the parameter's own words, or the list of
    parameters the tool takes; never a bare regular expression."""
    where = ".".join(str(p) for p in error.absolute_path) or "arguments"
    param = str(error.absolute_path[0]) if error.absolute_path else None
    words = tool.words.params.get(param) if param else None
    if error.validator in _SIZES:
        unit, bound = _SIZES[error.validator]
        # A size keyword failed, so the instance is there and has a size.
        message = f"{len(cast(Sized, error.instance)):,} {unit}, {bound} {error.validator_value:,}"
    elif error.validator == "pattern":
        message = f"{clipped(repr(error.instance))} is not in the form {param} takes"
    elif error.validator == "additionalProperties":
        message = _unknown_parameters(error.instance, tool)
    else:
        message = clipped(error.message)
    expected = f" (send: {tool.localise(words.en)})" if words and error.validator != "additionalProperties" else ""
    return f"{where}: {message}{expected}"


def _unknown_parameters(arguments: Any, tool: CatalogTool) -> str:
    """Which arguments the tool does not take, the parameter each was probably meant as, and what it takes."""
    takes = list(tool.input_schema.get("properties", {}))
    unknown = [name for name in arguments if name not in takes] if isinstance(arguments, dict) else []
    said = []
    for name in unknown[:3]:
        # A likely parameter for a name of plausible length only: difflib on a 1 MB key costs 100s of ms of CPU.
        close = difflib.get_close_matches(name.lower(), takes, n=1, cutoff=0.6) if len(name) <= _NAME_GUESS_MAX else []
        said.append(f"{clipped(repr(name))} is not a parameter" + (f" (did you mean {close[0]}?)" if close else ""))
    if len(unknown) > 3:
        said.append(f"and {len(unknown) - 3} more")
    return "; ".join([*said, f"{tool.name} takes {', '.join(takes) or 'no arguments'}"])


# No tool takes more than a dozen arguments, none named in more than 40 characters.
MAX_ARGUMENTS = 64
MAX_ARGUMENT_NAME = 128
_NAME_GUESS_MAX = 64  # longer unknown argument names get no "did you mean" (none of ours is half as long)
# Size limits named by count: jsonschema's own words quote the whole value, which may be 1 MB.
_SIZES = {"maxItems": ("values", "at most"), "minItems": ("values", "at least"),
          "maxLength": ("characters", "at most"), "minLength": ("characters", "at least"),
          "maxProperties": ("fields", "at most"), "minProperties": ("fields", "at least")}


def _describe(error: jsonschema.ValidationError) -> str:
    where = ".".join(str(p) for p in error.absolute_path) or "arguments"
    return f"{where}: {error.message}"


