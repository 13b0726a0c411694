"""No silent zeros: an empty result list says the real cause, the first of these that holds:

1. the source stands still or did not answer (from the load status and availability the server keeps), with
   how current it is: an empty answer from a source that stopped receiving material proves nothing (unless
   the period asked for ends before its newest material: then the period, not the standing, is the cause);
2. the period asked for holds nothing: the same search without the dates finds material, and the hint says where
   the nearest lies (before or after the period), never to drop the period, which would answer another question;
3. one filter emptied it: without that filter the same search finds something ("try fewer filters" only when
   more than one was given);
4. the words matched nothing, by the rule `precision.matched` states; only here is spelling the likely cause.

Done once for every search tool, on an empty first page: each probe is the same search with one thing left out
(one result each, through the same upstream layer, so the calls are cached, rate-limited and listed by
list_platform_calls). A platform module that knows better sets `precision.hint` itself, and then nothing runs.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from proxy.core.errors import ToolInputError, UpstreamError

__all__ = ["DATES", "MAX_PROBES", "NOT_FILTERS", "WORDS", "SourceState", "explain_empty"]

# Arguments that page or shape a list rather than narrow it.
NOT_FILTERS = frozenset({"limit", "offset", "cursor", "sort", "length", "days"})  # days: a window ahead, not a filter
DATES = ("date_from", "date_to")
WORDS = ("query", "title", "name")
MAX_PROBES = 4  # at most this many extra platform calls for one empty answer
PERIOD_PROBE = 20  # results read to find the material nearest to an empty period
_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}")

Run = Callable[[Mapping[str, Any]], Awaitable[dict[str, Any]]]


@dataclass(frozen=True, slots=True)
class SourceState:
    """What the server knows of a source apart from this call: is it receiving material, did it answer."""

    title: str
    receiving: bool | None
    current_through: str | None
    available: bool | None = None
    last_error: str | None = None


State = Callable[[], Awaitable[SourceState | None]]


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


def _day(result: Mapping[str, Any]) -> str | None:
    """A result's date: its `date`, else the first field named like a date that holds one."""
    keys = ["date", *sorted(k for k in result if "date" in k and k != "date"), "started", "start", "published",
            "modified", "valid_from"]
    for key in keys:
        value = result.get(key)
        if isinstance(value, str) and _DAY.match(value):
            return value[:10]
    return None


async def _probe(run: Run, arguments: Mapping[str, Any], leave_out: tuple[str, ...], size: int | None
                 ) -> dict[str, Any] | None:
    without = {k: v for k, v in arguments.items() if k not in leave_out and k != "limit"}
    if size is not None:
        without["limit"] = size
    try:
        return await run(without)
    except (ToolInputError, UpstreamError):
        return None  # the search cannot run without it (or failed): no evidence either way


def _standing(state: SourceState | None, arguments: Mapping[str, Any], sampled: bool) -> str | None:
    if state is None:
        return None
    if sampled:
        # A sample stands still by nature: its newest record says how far it reaches, nothing of the platform.
        if state.receiving is False and state.current_through:
            return f"the sample's newest material from {state.title} is from {state.current_through}"
        return None
    if state.available is False:
        error = f" ({state.last_error})" if state.last_error else ""
        return (f"{state.title} did not answer at its last call{error}: this empty list may be that failure; "
                "platform_status tells when it answers again")
    if state.receiving is False:
        ends = arguments.get("date_to")
        if isinstance(ends, str) and state.current_through and ends <= state.current_through:
            return None  # the period lies within what the source holds: standing still cannot be why it is empty
        through = state.current_through or "an unknown date"
        later = arguments.get("date_from")
        after = (f"; the period asked for starts on {later}, after that" if isinstance(later, str)
                 and state.current_through and later > state.current_through else "")
        return (f"{state.title} stands still: its newest material is from {through}{after}. An empty list from it "
                "is no proof that nothing exists; the organisation's own site or another source may have it")
    return None


async def _period(arguments: Mapping[str, Any], run: Run, has_limit: bool) -> str | None:
    sent = {k: arguments[k] for k in DATES if arguments.get(k)}
    if not sent:
        return None
    data = await _probe(run, arguments, DATES, PERIOD_PROBE if has_limit else None)
    if not data or not data.get("results"):
        return None  # without the dates nothing either: the period is not the cause
    start, end = sent.get("date_from"), sent.get("date_to")
    days = [d for d in (_day(r) for r in data["results"] if isinstance(r, Mapping)) if d]
    before = max((d for d in days if start and d < start), default=None)
    after = min((d for d in days if end and d > end), default=None)
    nearest = [f"before it ({before})" if before else "", f"after it ({after})" if after else ""]
    where = " and ".join(n for n in nearest if n) or "outside it"
    period = f"{start or '…'} to {end or '…'}"
    return (f"nothing in the period {period}: the same search without it finds {_found(data)}, the nearest "
            f"{where}. So for {period} the answer is that nothing was found; material from another period "
            "answers another question")


async def _filters(arguments: Mapping[str, Any], filters: Mapping[str, Any], run: Run, has_limit: bool
                   ) -> str | None:
    found: dict[str, str | None] = {}
    for name in list(filters)[:MAX_PROBES]:
        data = await _probe(run, arguments, (name,), 1 if has_limit else None)
        if data is not None:
            found[name] = _found(data)
    culprits = [(name, n) for name, n in found.items() if n]
    if len(culprits) == 1:
        name, n = culprits[0]
        return (f"{name}={filters[name]!r} emptied this list: without it the same search finds {n}. How "
                f"{name} was read is in precision.matched; choose another value or leave it out")
    if culprits:
        parts = "; ".join(f"without {name}: {n}" for name, n in culprits)
        sent = ", ".join(f"{k}={v!r}" for k, v in filters.items())
        return f"nothing matches {sent} together ({parts}); widen or drop one of those filters"
    return None


def _words(arguments: Mapping[str, Any], matched: Any) -> str | None:
    written = [f"{k}={arguments[k]!r}" for k in WORDS if arguments.get(k)]
    if not written:
        return None
    rule = f" (how words match here: {matched})" if isinstance(matched, str) and matched else ""
    return (f"nothing holds {', '.join(written)}{rule}; try other or fewer words, a synonym or a shorter form, "
            "and check the spelling")


async def explain_empty(data: dict[str, Any], arguments: Mapping[str, Any], input_schema: Mapping[str, Any],
                        run: Run, state: State | None = None, *, sample: str | None = None) -> dict[str, Any]:
    """`data` with `precision.hint` naming why its list is empty (see the module's order of causes).

    `sample`: the words for an empty list from an offline sample; they lead the hint, so the cause found is read
    as a cause within the sample, never as a fact about the platform.
    """
    if not _empty_first_page(data, arguments):
        return data
    required = set(input_schema.get("required", []))
    narrowing = {k: v for k, v in arguments.items() if k not in NOT_FILTERS and k not in required}
    if not narrowing:
        return data if sample is None else _hinted(data, sample)
    has_limit = "limit" in input_schema.get("properties", {})
    others = {k: v for k, v in narrowing.items() if k not in DATES and k not in WORDS}
    standing = _standing(await state() if state else None, arguments, sample is not None)
    if sample is not None:
        cause = (await _period(arguments, run, has_limit) or await _filters(arguments, others, run, has_limit))
        return _hinted(data, "; ".join(p for p in (sample, standing, cause) if p))
    hint = (standing
            or await _period(arguments, run, has_limit)
            or await _filters(arguments, others, run, has_limit)
            or _words(arguments, data["precision"].get("matched"))
            or _nothing_without(narrowing))
    return _hinted(data, hint)


def _nothing_without(narrowing: Mapping[str, Any]) -> str:
    """No single argument is shown to be the cause (leaving one out finds nothing, or cannot be asked)."""
    if len(narrowing) == 1:
        name, value = next(iter(narrowing.items()))
        return (f"nothing matches {name}={value!r}; how it was read is in precision.matched, and platform_status "
                "says how current the source is")
    return ("nothing matches these filters together, and leaving out any one of them finds nothing either; "
            "try fewer filters")


def _hinted(data: dict[str, Any], hint: str) -> dict[str, Any]:
    return {**data, "precision": {**data["precision"], "hint": hint}}
