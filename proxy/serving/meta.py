"""Behaviour of the three meta tools every connector carries (schemas: `proxy.results.meta_schemas`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from proxy import __version__
from proxy.catalog.build import CatalogConnector, listing_bytes
from proxy.core.caller import Caller
from proxy.core.errors import ToolInputError
from proxy.core.shapes import JsonDict
from proxy.core.trace import TRACE_META_KEY, TraceSigner
from proxy.results.domainpolicy import context_urls
from proxy.results.sample import SampleData
from proxy.serving.loadstatus import stored_status
from proxy.state.store import StateStore

if TYPE_CHECKING:
    from proxy.catalog.generation import Generation

__all__ = ["META_RUNS", "MetaCall", "list_capabilities", "list_platform_calls", "platform_status"]



async def list_capabilities(generation: Generation, store: StateStore, connector: CatalogConnector,
                            sample: SampleData | None = None) -> JsonDict:
    """The tools at this address and six facts about the installation, per source (C5)."""
    registry = generation.registry
    sources = []
    for key in connector.platforms:
        platform = registry.platforms[key]
        load = await store.load_status(key)
        availability = await store.availability(key)
        sources.append({
            "source": key,
            "title": platform.title.nl,
            "current_through": load.get("current_through") if load else None,
            # The same answer platform_status gives: a source can answer calls (available) and stand still.
            "receiving": load.get("receiving") if load else None,
            "current_through_per_medium": load.get("current_through_per_medium", {}) if load else {},
            "current_through_reason": None if load and load.get("current_through") else (
                (load.get("reason") if load else None)
                or "not measured yet: the load-status measurement has not completed"),
            # Read from the same settings object the upstream layer enforces.
            "limits": {
                "results_per_call": platform.limits.results_per_call,
                "requests_per_minute": platform.limits.requests_per_minute,
                "cache_ttl_seconds": platform.cache_ttl_seconds,
                "timeout_seconds": platform.timeouts.total_seconds,
            },
            "attribution": {
                "required": platform.attribution.required,
                "label": platform.attribution.label.nl,
                "cite": platform.attribution.cite.nl,
                "license": platform.attribution.license.nl,
                "url": platform.attribution.url,
            },
            "availability": {
                "available": availability["available"] if availability else None,
                "last_live_call_utc": availability["last_live_call_utc"] if availability else None,
                "last_error": availability["last_error"] if availability else None,
                "reason": None if availability else "no live call to this platform yet (cache hits do not count)",
            },
        })
    return {
        "server": registry.server.name,
        "server_version": __version__,
        "server_time_utc": datetime.now(UTC).isoformat(timespec="seconds"),
        "address": connector.path,
        "tool_count": len(connector.tools),
        "tool_list_bytes": listing_bytes([t.to_mcp() for t in connector.tools]),
        "tools": [
            {"name": t.name, "title": t.title.nl, "question": t.words.question.nl, "source": t.platform}
            for t in connector.tools
        ],
        "sources": sources,
        "context_urls": context_urls(registry.domain_policy),
        "sample_data": _sample_data(sample, connector.platforms),
    }


async def list_platform_calls(store: StateStore, signer: TraceSigner, caller: Caller,
                              arguments: Mapping[str, Any]) -> JsonDict:
    """This caller's platform calls, newest last. Another caller's calls are never visible."""
    caller = _log_owner(signer, caller, arguments.get("trace"))
    limit = int(arguments.get("limit", 100))
    calls, total = await store.calls(caller.key, limit)
    return {"trace": caller.trace_handle, "calls": calls, "total": total, "truncated": total > len(calls)}


def _log_owner(signer: TraceSigner, caller: Caller, trace: Any) -> Caller:
    """The call log to read: an explicit, validly signed `trace` argument wins over the transport's."""
    if trace is None:
        return caller
    if not signer.verify(trace):
        raise ToolInputError("trace is not a handle this server issued; pass the value of "
                             f"_meta['{TRACE_META_KEY}'] from one of your own tool results")
    return Caller.trace(trace)


async def platform_status(generation: Generation, store: StateStore, connector: CatalogConnector,
                          arguments: Mapping[str, Any], sample: SampleData | None = None) -> JsonDict:
    """Whether each source behind this address still receives material (C7)."""
    wanted = arguments.get("source")
    keys = list(connector.platforms)
    if wanted is not None:
        if wanted not in keys:
            raise ToolInputError(f"source must be one of {', '.join(keys)}; got {wanted!r}")
        keys = [wanted]
    sources = [await stored_status(generation, store, key, organs="stalled") for key in keys]
    return {"stalled_after_days": generation.registry.load_status.stalled_after_days, "sources": sources,
            "sample_data": _sample_data(sample, keys)}


def _sample_data(sample: SampleData | None, keys: Iterable[str]) -> JsonDict | None:
    """The sample notice for the sources of `keys` that answer from the offline sample, if any do."""
    sampled = [key for key in keys if sample and sample.covers(key)]
    return sample.describe(sampled) if sample and sampled else None


# --------------------------------------------------------------------------- dispatch


@dataclass(frozen=True, slots=True)
class MetaCall:
    """Everything a meta tool may read, for one call at one address."""

    generation: Generation
    store: StateStore
    connector: CatalogConnector
    signer: TraceSigner
    caller: Caller
    arguments: Mapping[str, Any]
    sample: SampleData | None = None


# The meta tools by name, the one place their behaviour is chosen (their names: registry.META_TOOL_NAMES).
META_RUNS: Mapping[str, Callable[[MetaCall], Awaitable[JsonDict]]] = {
    "list_capabilities": lambda m: list_capabilities(m.generation, m.store, m.connector, m.sample),
    "list_platform_calls": lambda m: list_platform_calls(m.store, m.signer, m.caller, m.arguments),
    "platform_status": lambda m: platform_status(m.generation, m.store, m.connector, m.arguments, m.sample),
}
