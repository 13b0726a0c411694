"""No silent zeros: a result list that came back empty says which filter emptied it and what to try.

Done once for every search tool: when a first page is empty and the request carried filters, the same
search runs again without each filter in turn (one result each, through the same upstream layer, so
the calls are cached, rate-limited and listed by list_platform_calls) and `precision.hint` says which
one emptied the list (`proxy.results.empty_hint`). A platform module that knows better sets the hint
itself, and then nothing is probed.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from proxy.errors import ToolInputError, UpstreamError
from proxy.results import empty_hint

__all__ = ["MAX_PROBES", "NOT_FILTERS", "explain_empty"]

# Arguments that page or shape a list rather than narrow it.
NOT_FILTERS = frozenset({"limit", "offset", "cursor", "sort", "length"})
MAX_PROBES = 4  # at most this many extra platform calls for one empty answer

Run = Callable[[Mapping[str, Any]], Awaitable[dict[str, Any]]]


def _empty_first_page(data: Mapping[str, Any], arguments: Mapping[str, Any]) -> bool:
    precision = data.get("precision")
    return (isinstance(precision, Mapping) and "hint" not in precision and data.get("results") == []
            and not arguments.get("offset") and not arguments.get("cursor"))


def _found(data: Mapping[str, Any]) -> str | None:
    results = data.get("results")
    if not results:
        return None
    precision = data.get("precision") or {}
    total, relation = precision.get("total"), precision.get("total_relation")
    if isinstance(total, int) and relation == "exact":
        return str(total)
    if isinstance(total, int) and relation in ("lower_bound", "estimate"):
        return f"about {total}" if relation == "estimate" else f"at least {total}"
    return f"at least {len(results)}"


async def explain_empty(data: dict[str, Any], arguments: Mapping[str, Any], input_schema: Mapping[str, Any],
                        run: Run) -> dict[str, Any]:
    """`data` with `precision.hint` when its list is empty because of the filters sent."""
    if not _empty_first_page(data, arguments):
        return data
    required = set(input_schema.get("required", []))
    filters = {k: v for k, v in arguments.items() if k not in NOT_FILTERS and k not in required}
    if not filters:
        return data
    found: dict[str, str | None] = {}
    probe_size = {"limit": 1} if "limit" in input_schema.get("properties", {}) else {}
    for name in list(filters)[:MAX_PROBES]:
        without = {k: v for k, v in arguments.items() if k != name and k != "limit"} | probe_size
        try:
            found[name] = _found(await run(without))
        except (ToolInputError, UpstreamError):
            continue  # the search cannot run without it (or failed): no evidence either way
    return {**data, "precision": {**data["precision"], "hint": empty_hint(emptied_by=filters, found_without=found)}}
