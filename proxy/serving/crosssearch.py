"""`search` and `fetch`: one question to every source behind an address, one read for any id they return.

`search` asks every source at the address that can search free text, in parallel under one deadline, each through
its own search tool (so its rules, caches, rate limits and call records apply), and merges the lists by reciprocal
rank fusion (score Σ 1/(60 + rank), ties by newest date); the same record reached twice (one ECLI, BWB id or page)
is kept once. Each result carries a routable `id` (`<source>:<the source's own id>`), `title`, `url` (the page a
person opens), `source`, `date` and a short `text`, the shape of OpenAI's search contract plus what a citation
needs. `precision.sources` says per source whether it was asked, answered, how many it found, whether the
deadline cut it off and whether it stands still.

`fetch(id)` routes an id to its source's read tool and answers `id, title, text, url, metadata` (OpenAI's fetch
contract; the source's own fields in `metadata`). An id without its source prefix is recognised by its form.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from proxy.core.errors import ToolInputError, UpstreamError
from proxy.plugin.toolkit import SourceRoute
from proxy.results.outputs import precision

__all__ = ["DEADLINE_SECONDS", "fetch", "search", "split_id"]

DEADLINE_SECONDS = 8.0  # below every platform's own timeout, so one slow source never holds the answer
PER_SOURCE = 10
RRF_K = 60
TEXT_CHARS = 300


# Runs a platform tool by (platform key, tool name, arguments); the endpoint supplies it.
Run = Callable[[str, str, Mapping[str, Any]], Awaitable[dict[str, Any]]]
# Whether a source stands still (receiving False), for precision.
Standing = Callable[[str], Awaitable[bool | None]]
_ECLI = re.compile(r"ECLI:NL:[A-Z0-9]+:\d{4}:[A-Z0-9]+", re.IGNORECASE)
_BWB = re.compile(r"BWB[RV]\d{7}")


# --------------------------------------------------------------------------- search


@dataclass(slots=True)
class _Hit:
    id: str
    source: str
    rank: int
    item: dict[str, Any]
    score: float = 0.0


def _asked(routes: Mapping[str, SourceRoute], arguments: Mapping[str, Any]) -> tuple[list[str], dict[str, str]]:
    """(sources to ask, reason per source left out)."""
    include = set(arguments.get("sources") or routes)
    exclude = set(arguments.get("exclude") or ())
    unknown = sorted((include | exclude) - set(routes))
    if unknown:
        raise ToolInputError(f"sources {unknown} are not at this address; it has {', '.join(routes)}")
    asked, left = [], {}
    for key in routes:
        route = routes.get(key)
        if key not in include or key in exclude:
            left[key] = "left out as asked"
        elif route is None or route.search is None:
            left[key] = route.why_not if route else "no search route for this source"
        elif arguments.get("organisation") and not route.organisation:
            left[key] = "it takes no organisation"
        elif (arguments.get("date_from") or arguments.get("date_to")) and not route.period:
            left[key] = "it takes no period"
        else:
            asked.append(key)
    return asked, left


def _source_arguments(route: SourceRoute, arguments: Mapping[str, Any], size: int) -> dict[str, Any]:
    out: dict[str, Any] = {route.words: arguments["query"], "limit": size}
    if route.organisation and arguments.get("organisation"):
        out["organisation"] = arguments["organisation"]
    if route.period:
        out.update({k: arguments[k] for k in ("date_from", "date_to") if arguments.get(k)})
    return out


def _date(item: Mapping[str, Any]) -> str | None:
    for key in ("date", "published", "started", "valid_from", "modified"):
        value = item.get(key)
        if isinstance(value, str) and re.match(r"^\d{4}-\d{2}-\d{2}", value):
            return value[:10]
    return None


def _same_record(hit: _Hit) -> str:
    """What makes two hits one record: an ECLI, a BWB id, else the page a person opens."""
    text = f"{hit.id} {hit.item.get('url') or ''}"
    for pattern in (_ECLI, _BWB):
        found = pattern.search(text)
        if found:
            return found.group(0).upper()
    return str(hit.item.get("url") or hit.id)


def _result(hit: _Hit, title: str) -> dict[str, Any]:
    item = hit.item
    cited = item.get("citation") if isinstance(item.get("citation"), Mapping) else None
    text = str((cited or {}).get("text") or item.get("summary") or item.get("abstract") or item.get("subject") or "")
    out: dict[str, Any] = {
        "id": hit.id, "title": str(item.get("title") or item.get("subject") or (cited or {}).get("title") or hit.id),
        "url": str(item.get("url") or (cited or {}).get("uri") or ""), "source": hit.source, "source_title": title,
        "date": _date(item), "text": text[:TEXT_CHARS],
    }
    if cited:
        out["citation"] = dict(cited)
    return out


async def search(routes: Mapping[str, SourceRoute], titles: Mapping[str, str], arguments: Mapping[str, Any], run: Run,
                 standing: Standing, deadline: float = DEADLINE_SECONDS) -> dict[str, Any]:
    """Every free-text source at the address, at once, merged (see the module docstring)."""
    query = str(arguments.get("query") or "").strip()
    if not query:
        raise ToolInputError("give query: the words to look for in every source")
    limit = int(arguments.get("limit", 10))
    asked, left = _asked(routes, arguments)
    if not asked:
        why = "; ".join(f"{k}: {v}" for k, v in left.items())
        raise ToolInputError(f"no source here can answer this search: {why}")
    size = min(PER_SOURCE, limit)
    tasks = {}
    for key in asked:
        route = routes[key]
        assert route.search is not None
        tasks[key] = asyncio.ensure_future(run(key, route.search,
                                               _source_arguments(route, {**arguments, "query": query}, size)))
    done, pending = await asyncio.wait(tasks.values(), timeout=deadline)
    task: asyncio.Task[dict[str, Any]] | None
    for task in pending:
        task.cancel()
    hits: list[_Hit] = []
    report: dict[str, dict[str, Any]] = {}
    for key in routes:
        entry: dict[str, Any] = {"title": titles.get(key, key), "asked": key in tasks,
                                 "answered": False, "found": None, "returned": 0, "cut_off": False,
                                 "stands_still": await standing(key), "note": left.get(key)}
        task = tasks.get(key)
        if task is not None and task in done:
            try:
                data = task.result()
            except (ToolInputError, UpstreamError) as exc:
                entry["note"] = str(exc)
            else:
                route = routes[key]
                results = [r for r in data.get("results") or [] if isinstance(r, Mapping)]
                entry.update(answered=True, found=(data.get("precision") or {}).get("total"), returned=len(results))
                hint = (data.get("precision") or {}).get("hint")
                if hint:
                    entry["note"] = hint
                hits += [_Hit(f"{key}:{r.get(route.native_id)}", key, n, dict(r))
                         for n, r in enumerate(results, start=1)
                         if r.get(route.native_id) and isinstance(r.get("citation"), Mapping)]
        elif task is not None:
            entry.update(cut_off=True, note=f"no answer within {deadline:g} s; ask it alone with its own tool")
        report[key] = entry
    merged: dict[str, _Hit] = {}
    for hit in hits:
        hit.score = 1 / (RRF_K + hit.rank)
        key = _same_record(hit)
        if key in merged:
            merged[key].score += hit.score  # reached twice: one record, ranked by both
        else:
            merged[key] = hit
    # Newest first, then by score: the stable second sort keeps the newer of two equal scores ahead.
    ordered = sorted(merged.values(), key=lambda h: _date(h.item) or "", reverse=True)
    ordered.sort(key=lambda h: -h.score)
    results = [_result(h, titles.get(h.source, h.source)) for h in ordered[:limit]]
    answered = [k for k, e in report.items() if e["answered"]]
    matched = (f"{query!r} asked of {', '.join(k for k, e in report.items() if e['asked'])}, each by its own rule "
               "for words (see its search tool), merged by reciprocal rank (ties: newest first), one record once")
    notes = [f"{k}: {e['note']}" for k, e in report.items() if e["note"]]
    matched += f"; {len(answered)} of {len(tasks)} sources asked answered"
    # Empty: a source's own hint says why where it set one; the period alone is probed again (once per source,
    # under the same deadline), since words found outside it mean "nothing then", not "check the spelling".
    hint = None
    if not results:
        outside = await _outside_period(routes, report, arguments, query, run, deadline)
        hint = _empty_hint(query, report, arguments, outside)
    return {"results": results,
            "precision": precision(total=None, total_relation="unknown", returned=len(results),
                                   truncated=len(ordered) > limit or any(e["cut_off"] for e in report.values()),
                                   matched=matched, not_applied=notes, hint=hint),
            "sources": report}


async def _outside_period(routes: Mapping[str, SourceRoute], report: Mapping[str, Mapping[str, Any]],
                          arguments: Mapping[str, Any], query: str, run: Run, deadline: float) -> dict[str, list[str]]:
    """For an empty search with a period: per source that answered, the dates it finds without the period."""
    if not (arguments.get("date_from") or arguments.get("date_to")):
        return {}
    answered = [k for k, e in report.items() if e["answered"]]
    undated = {k: v for k, v in arguments.items() if k not in ("date_from", "date_to")}
    tasks = {k: asyncio.ensure_future(run(k, str(routes[k].search),
                                          _source_arguments(routes[k], {**undated, "query": query}, PER_SOURCE)))
             for k in answered}
    if not tasks:
        return {}
    done, pending = await asyncio.wait(tasks.values(), timeout=deadline)
    for task in pending:
        task.cancel()
    out: dict[str, list[str]] = {}
    for key, task in tasks.items():
        if task in done and task.exception() is None:
            days = [d for r in task.result().get("results") or [] if isinstance(r, Mapping) and (d := _date(r))]
            if task.result().get("results"):
                out[key] = days
    return out


def _empty_hint(query: str, report: Mapping[str, Mapping[str, Any]], arguments: Mapping[str, Any],
                outside: Mapping[str, list[str]]) -> str:
    asked = [k for k, e in report.items() if e["asked"]]
    late = [k for k, e in report.items() if e["cut_off"] or (e["asked"] and not e["answered"])]
    still = [k for k, e in report.items() if e["stands_still"]]
    if late:
        return (f"{', '.join(late)} did not answer in time or failed, so this empty list proves nothing there; ask "
                "it alone with its own search tool")
    if outside:  # the words are found, outside the period: the period is the answer, not the spelling
        start, end = arguments.get("date_from"), arguments.get("date_to")
        period = f"{start or '…'} to {end or '…'}"
        found = []
        for key, days in outside.items():
            before = max((d for d in days if start and d < start), default=None)
            after = min((d for d in days if end and d > end), default=None)
            near = " and ".join(n for n in (f"before it ({before})" if before else "",
                                            f"after it ({after})" if after else "") if n)
            found.append(f"{key} holds it {near or 'outside it'}")
        return (f"nothing in the period {period}: without it, {'; '.join(found)}. So for {period} the answer is that "
                "nothing was found; material from another period answers another question")
    if still:
        others = (f"; nothing holds query={query!r} in the other sources either" if len(asked) > len(still) else "")
        return (f"{', '.join(still)} stand{'s' if len(still) == 1 else ''} still: an empty list from it is no proof "
                f"that nothing exists{others} (each source's rule for words is in its note or its search tool)")
    where = "in any source asked" if len(asked) > 1 else f"in {asked[0]}" if asked else "here"
    return (f"nothing holds query={query!r} {where} (each source's rule for words is in its note or its search "
            "tool); try other or fewer words, a synonym, and check the spelling")


# --------------------------------------------------------------------------- fetch


def split_id(raw: str, routes: Mapping[str, SourceRoute]) -> tuple[str, str]:
    """(source, the source's own id) for `<source>:<id>`, or an id recognised by its form."""
    text = raw.strip()
    head, _, rest = text.partition(":")
    if head in routes and rest:
        return head, rest
    for key in routes:
        route = routes.get(key)
        if route and any(pattern.search(text) for pattern, _, _ in route.reads):
            return key, text
    raise ToolInputError(f"'{text[:80]}' is not an id of a source here; ids look like {_forms(routes)} (the id "
                         "of a search result works as it is)")


def _forms(routes: Mapping[str, SourceRoute]) -> str:
    return "; ".join(f"{k}:{routes[k].id_form}" for k in routes if k in routes)


def _text(read: Mapping[str, Any]) -> str:
    """The readable text of a read tool's answer: its own text, else the record's words and its list's titles."""
    if isinstance(read.get("text"), str) and read["text"]:
        return str(read["text"])
    record: Mapping[str, Any] = next(
        (read[k] for k in ("document", "publication", "meeting") if isinstance(read.get(k), Mapping)), {})
    lines = [f"{k}: {v}" for k, v in record.items() if isinstance(v, str) and v and k not in ("url", "id")]
    for item in read.get("results") or []:
        if isinstance(item, Mapping):
            lines.append(" ".join(str(item[k]) for k in ("number", "title", "name") if item.get(k)))
    return "\n".join(line for line in lines if line.strip())


async def fetch(routes: Mapping[str, SourceRoute], arguments: Mapping[str, Any], run: Run) -> dict[str, Any]:
    raw = str(arguments.get("id") or "")
    key, native = split_id(raw, routes)
    route = routes[key]
    read = next(((tool, arg) for pattern, tool, arg in route.reads if pattern.search(native)), None)
    if read is None:
        raise ToolInputError(f"'{native[:80]}' is not an id {key} reads; ids here look like {_forms(routes)}")
    tool, arg = read
    extra = {k: arguments[k] for k in ("offset", "length") if k in arguments and tool != "read_meeting"}
    data = await run(key, tool, {arg: native, **extra})
    record = next((data[k] for k in ("document", "publication", "meeting") if isinstance(data.get(k), Mapping)), data)
    cited = data.get("citation") or record.get("citation") or {}
    text = _text(data)
    metadata = {k: v for k, v in data.items() if k not in ("text", "citation", "results", "precision")}
    return {
        "id": f"{key}:{native}", "title": str(record.get("title") or record.get("subject") or cited.get("title")
                                              or native),
        "text": text, "url": str(record.get("url") or cited.get("uri") or data.get("url") or ""),
        "source": key, "metadata": metadata,
        **({"citation": dict(cited)} if isinstance(cited, Mapping) and cited else {}),
        **{k: data[k] for k in ("offset", "length", "total_length", "next_offset") if k in data},
    }
