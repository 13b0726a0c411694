"""Open Raadsinformatie, served by OpenBesluitvorming (`https://openbesluitvorming.nl`): council documents,
meetings with their agendas, and motions of Dutch gemeenten, provincies and waterschappen.

API docs: https://openbesluitvorming.nl/docs/api (source: github.com/ontola/openbesluitvorming, `API.md`).
The Classic Elasticsearch API of Open Raadsinformatie was switched off on 1 November 2026; OpenBesluitvorming
holds the same material under new ids (`document:<supplier>:<kind>:<source key>:<native id>`), so a Classic
numeric id gets an error that says how to find the document again.

Calls: `GET /api/search` (one page, `limit` ≤ 100), `GET /api/entities/{id}` (text as `markdownText`, a
meeting's agenda tree and motions), `GET /api/sources` (organisation keys and labels; aggregate `all_<supplier>`
rows match nothing and are dropped), `GET /api/status` (import freshness per organisation). Totals are an
estimate when the platform says `totalIsApproximate` (it scans at most about 6,000 index rows), so precision
says "estimate". The tools never page deep: bulk reading belongs to the platform's export API, not to search.

The platform rate-limits per client (a token bucket of 60 units, 1 unit/s) and says how much is left in
`RateLimit-*` headers; `proxy.plugin.upstream` honours those and `Retry-After`. Its 400s carry a `code` (since late
August 2026; before that only Dutch text): each code maps to the argument to change.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from datetime import time as dtime
from typing import Any
from urllib.parse import parse_qs, quote, unquote, urlencode, urlsplit

from proxy.core.caller import SYSTEM_CALLER, Caller
from proxy.core.clock import AMSTERDAM as TZ
from proxy.core.errors import NotHeld, ToolInputError, UpstreamError, UpstreamStatusError
from proxy.core.schema_atoms import NINT, NSTR
from proxy.core.shapes import Precision
from proxy.platforms._common import (
    CHUNK_PROPS,
    PAGE_PROPS,
    chunk,
    chunk_output_props,
    cite,
    date_range,
    object_at,
    page,
)
from proxy.platforms._ori_names import KINDS, Organisation, compact, organisations_from, resolve, words
from proxy.plugin.canary import Probe, check_load
from proxy.plugin.toolkit import (
    About,
    LoadReport,
    OrganLoad,
    PlatformContext,
    PlatformPlugin,
    SourceRoute,
    ToolCall,
    ToolImpl,
    as_json,
)
from proxy.results.outputs import CITATION_SCHEMA, object_schema, precision, result_list_schema

__all__ = ["PLATFORM", "TOOLS", "measure_load"]

SITE = "https://openbesluitvorming.nl/"
PLATFORM_MAX_LIMIT = 100  # the platform clamps larger pages to 100
MAX_DEPTH = 500  # offset + limit: deeper paging is harvesting, which the platform asks to do by export
BROWSE_DEPTH = 100  # without words: the items one platform request can hold, read from the start
# The platform's 400 codes (web/api_errors.ts) and the argument of ours that each one is about.
ERROR_ARGUMENTS: Mapping[str, str] = {
    "unknown_organization": "organisation", "unknown_entity_type": "kind", "unknown_sort": "sort",
    "invalid_date": "date_from or date_to", "invalid_limit": "limit", "invalid_offset": "offset",
    "unsupported_phrase_slop": "query",
}
CLASSIC_ID = re.compile(r"^\s*(?:https?://id\.openraadsinformatie\.nl/)?(\d{1,15})\s*$")
ENTITY_ID = re.compile(r"^(meeting|document|motion|agenda_item|recording):[a-z]+:(gemeente|provincie|waterschap|"
                       r"[a-z]+):[^:\s]+:[^\s]+$")


# =========================================================================== transport


@dataclass(frozen=True, slots=True)
class _Api:
    """OpenBesluitvorming calls on behalf of one caller (a tool call, or the load-status measurement)."""

    ctx: PlatformContext
    caller: Caller
    tool: str | None

    async def _get(self, path: str, params: list[tuple[str, str]] | None = None,
                   parse: Callable[[bytes], Any] | None = None) -> Any:
        try:
            return await self.ctx.upstream.get(path, parse or _parse_json, params=params, caller=self.caller,
                                               tool=self.tool)
        except UpstreamStatusError as exc:
            refused = _input_error(exc, params)
            if refused is None:
                raise
            raise refused from exc

    async def search(self, params: list[tuple[str, str]]) -> dict[str, Any]:
        reply = await self._get("/api/search", params)
        if not isinstance(reply, dict) or not isinstance(reply.get("results"), list):
            raise ValueError("not a /api/search reply")
        return reply

    async def page(self, params: list[tuple[str, str]], offset: int, limit: int) -> dict[str, Any]:
        """One page of results, `offset` counted in results.

        With words the platform's `offset` counts results. Without (browsing an organisation by date) it counts
        raw index rows, several per item (one per version), deduplicated after the window is cut, so paging on
        its offset repeats or skips items. A browse therefore always reads from the start, and goes at most
        BROWSE_DEPTH items deep; past that, a date bound moves the window (the reply says which)."""
        if any(name == "query" for name, _ in params):
            return await self.search([*params, ("offset", str(offset)), ("limit", str(limit))])
        if offset >= BROWSE_DEPTH:
            raise ToolInputError(f"without words OpenBesluitvorming lists only the newest {BROWSE_DEPTH} items in "
                                 "order; for older ones pass date_to (or date_from with sort 'oldest') instead of "
                                 "offset")
        reply = await self.search([*params, ("offset", "0"), ("limit", str(min(BROWSE_DEPTH, offset + limit)))])
        results = reply["results"]
        more = len(results) > offset + limit or bool(reply.get("hasMore"))
        return {**reply, "results": results[offset:offset + limit], "hasMore": more,
                "_browse_end": offset + limit >= BROWSE_DEPTH}

    async def entity(self, entity_id: str) -> dict[str, Any]:
        try:
            reply = await self._get(f"/api/entities/{quote(entity_id, safe='')}")
        except UpstreamStatusError as exc:
            if exc.status == 404:
                raise NotHeld("OpenBesluitvorming", f"item with id '{entity_id}'", url=SITE,
                              advice="take ids from search_documents or search_meetings") from exc
            raise
        if not isinstance(reply, dict) or "entityId" not in reply:
            raise ValueError("not a /api/entities reply")
        return reply

    async def organisations(self) -> tuple[Organisation, ...]:
        return (await self.catalogue())[0]

    async def catalogue(self) -> tuple[tuple[Organisation, ...], bytes, UpstreamError | None]:
        """`/api/sources` joined with `/api/status`, which carries each one's CBS code and merger; built once
        per pair of replies (both are cached), so a name resolves without rebuilding 330 organisations. Also
        the status reply, or one without rows and why, when it fails: names then resolve on the sources
        alone, and codes, mergers and freshness wait for the status."""
        sources = await self._get("/api/sources", parse=_json_body)
        try:
            status, failed = await self._get("/api/status", parse=_json_body), None
        except UpstreamError as exc:
            status, failed = NO_STATUS, exc
        return _organisations(sources, status), status, failed

    async def status(self) -> dict[str, dict[str, Any]]:
        """Import freshness per source key (read-only: shared by every call until the reply changes)."""
        return _status(await self._get("/api/status", parse=_json_body))


NO_STATUS = b'{"sources": []}'  # an /api/status reply with no rows, when the real one fails


def _json_body(body: bytes) -> bytes:
    """The reply itself, once it is known to be JSON: the catalog and status are built once per reply."""
    _json(body)
    return body


@functools.lru_cache(maxsize=8)
def _json(body: bytes) -> Any:
    return as_json(body)


@functools.lru_cache(maxsize=4)
def _organisations(sources: bytes, status: bytes) -> tuple[Organisation, ...]:
    return organisations_from(_json(sources), _status(status))


@functools.lru_cache(maxsize=4)
def _status(body: bytes) -> dict[str, dict[str, Any]]:
    """`/api/status` rows by source key."""
    reply = _json(body)
    rows = reply.get("sources") if isinstance(reply, dict) else None
    if not isinstance(rows, list):
        raise ValueError("not a /api/status reply")
    # Without its search index the platform omits latestContentDate everywhere; the last successful
    # import is then the best date it gives (marked, so the load note can say so).
    blind = reply.get("indexActivityAvailable") is False
    return {str(r["sourceKey"]): {**r, INDEX_BLIND: blind}
            for r in rows if isinstance(r, dict) and r.get("sourceKey")}


def _api(call: ToolCall) -> _Api:
    return _Api(call.ctx, call.caller, call.tool)


def _parse_json(body: bytes) -> Any:
    return as_json(body)


def _input_error(exc: UpstreamStatusError, params: list[tuple[str, str]] | None) -> ToolInputError | None:
    """A 400 names the argument to change: by the platform's `code`, or (before it sent codes) every one sent."""
    if exc.status != 400:
        return None
    try:
        body = json.loads(exc.body)
    except ValueError:
        body = {}
    said = " ".join(str(body.get(k) or "") for k in ("error", "hint")).strip() if isinstance(body, dict) else ""
    code = body.get("code") if isinstance(body, dict) else None
    if isinstance(code, str) and code in ERROR_ARGUMENTS:
        return ToolInputError(f"OpenBesluitvorming refused {ERROR_ARGUMENTS[code]} ({code}): {said}; change "
                              f"{ERROR_ARGUMENTS[code]} and try again")
    sent = [name for name, param in (("query", "query"), ("organisation", "organization"), ("kind", "entityType"),
                                     ("sort", "sort"), ("date_from", "dateFrom"), ("date_to", "dateTo"))
            if any(p == param for p, _ in params or [])]
    return ToolInputError(f"OpenBesluitvorming refused the request (HTTP 400{f', {code}' if code else ''}): "
                          f"{said or 'no reason given'}; check {', '.join(sent) or 'the arguments'}")


# =========================================================================== shared pieces


def view_url(entity_id: str, page_number: int | None = None) -> str:
    """The page a person opens: the site's single-page app showing one item (and one PDF page)."""
    return f"{SITE}?{urlencode({'view': entity_id, **({'page': page_number} if page_number else {})})}"


def _moment(value: Any) -> datetime | None:
    """`sortDate`: UTC, as `2024-11-07T19:30:00Z` (current) or `2024-11-07 00:00:00` (older docs)."""
    if not isinstance(value, str) or not value:
        return None
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00").replace(" ", "T"))
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _dutch(value: Any) -> tuple[str | None, str | None]:
    """(date, start) in Dutch time from a `sortDate`: YYYY-MM-DD and YYYY-MM-DDTHH:MM.

    Midnight UTC exactly is a day without a time (the platform stores iBabs dates as `2026-01-29T00:00:00Z`):
    its date is that day and it has no start, never 01:00 or 02:00 Dutch time."""
    moment = _moment(value)
    if moment is None:
        return None, None
    if moment.utcoffset() == timedelta(0) and moment.time() == dtime(0):
        return moment.date().isoformat(), None
    local = moment.astimezone(TZ)
    return local.date().isoformat(), local.strftime("%Y-%m-%dT%H:%M")


def _key_of(entity_id: str) -> str:
    parts = entity_id.split(":")
    return parts[3] if len(parts) > 4 else ""


def _type_of(entity_id: str) -> str:
    return entity_id.split(":", 1)[0]


def _entity_id(raw: str, expected: tuple[str, ...], tool: str) -> str:
    """An entity id from what a person pastes: the id, a `?view=` page, or an `/api/entities/` URL."""
    text = raw.strip()
    if CLASSIC_ID.match(text):
        raise ToolInputError(
            f"'{text}' is an id of the old Open Raadsinformatie (Classic), which was switched off on 1 November 2026. "
            "Its successor OpenBesluitvorming gives every item a new id, like "
            "'document:notubiz:gemeente:soest:12345'; there is no table from old to new ids. Find the item again "
            "with search_documents (words from its title, and the organisation); a Classic original_url is the "
            "new download_url")
    if text.startswith(("http://", "https://")):
        parts = urlsplit(text)
        view = parse_qs(parts.query).get("view")
        if view:
            text = view[0]
        elif "/api/entities/" in parts.path:
            text = unquote(parts.path.split("/api/entities/", 1)[1].split("/", 1)[0])
    if not ENTITY_ID.match(text):
        raise ToolInputError(f"id must be an OpenBesluitvorming id such as '{expected[0]}:notubiz:gemeente:soest:"
                             f"12345' (from search results), got '{raw.strip()[:80]}'")
    kind = _type_of(text)
    if kind not in expected:
        other = "read_meeting" if kind == "meeting" else "read_document"
        raise ToolInputError(f"'{text}' is a {kind.replace('_', ' ')}, which {tool} does not read; "
                             + (f"use {other}" if kind in ("meeting", "document", "motion")
                                else "read_meeting shows agenda items with their documents"))
    return text


def _limit(call: ToolCall) -> tuple[int, int, list[str]]:
    limit, offset, notes = page(call)
    if limit > PLATFORM_MAX_LIMIT:
        notes.append(f"limit lowered to {PLATFORM_MAX_LIMIT}, the most OpenBesluitvorming returns per page")
        limit = PLATFORM_MAX_LIMIT
    if offset + limit > MAX_DEPTH:
        raise ToolInputError(f"this tool reads at most the first {MAX_DEPTH} results (offset {offset} + limit "
                             f"{limit}); narrow the search (organisation, dates, more words) instead of paging on")
    return limit, offset, notes


@dataclass(frozen=True, slots=True)
class _Scope:
    organisation: Organisation | None
    status: dict[str, Any] | None  # the organisation's how-current object (output), or None
    notes: list[str]


async def _scope(call: ToolCall, api: _Api, name: str | None) -> _Scope:
    """Resolve an organisation by name; with one, also how current it is (`/api/status`, cached)."""
    if not name:
        return _Scope(None, None, [])
    organisations, reply, failed = await api.catalogue()  # the status read once, also when it fails
    resolved = resolve(str(name), organisations)
    org = resolved.organisation
    notes = [resolved.note] if resolved.note else []
    if failed:  # the search itself can still answer: say what is not known
        notes.append(f"OpenBesluitvorming's import status (/api/status) did not answer ({failed}): how current "
                     f"{org.name}'s material is, is unknown for now")
    status = _org_status(call.ctx, org, _status(reply).get(org.key, {}))
    notes += _status_notes(status, call.ctx.sample_on)
    return _Scope(org, status, notes)


INDEX_BLIND = "_index_activity_unavailable"


# States in which the platform's imports are not keeping up (web/status_api.ts `sourceState`).
BEHIND = ("failing", "stale", "never_imported")


def _org_status(ctx: PlatformContext, org: Organisation, row: Mapping[str, Any]) -> dict[str, Any]:
    """How current one organisation is. `latestContentDate` runs ahead (agendas are published before the meeting),
    so material is held only up to the last successful import, and never past today."""
    latest = _moment(row.get("latestContentDate"))
    if latest is None and row.get(INDEX_BLIND):
        latest = _moment(row.get("lastSuccessAt"))
    latest_day = latest.astimezone(TZ).date() if latest else None
    success = _moment(row.get("lastSuccessAt"))
    success_day = success.astimezone(TZ).date() if success else None
    state = str(row.get("state") or "unknown")
    bounds = [d for d in (latest_day, ctx.as_of(), success_day if state in BEHIND else None) if d]
    through = min(bounds) if latest_day else None
    successor = object_at(row, "succeededBy")
    return {
        "name": org.name, "key": org.key, "kind": org.kind, "cbs_code": org.cbs, "supplier": org.supplier,
        "state": state,
        "current_through": through.isoformat() if through else None,
        "latest_content_date": latest_day.isoformat() if latest_day else None,
        "last_import": success_day.isoformat() if success_day else None,
        "stalled": ctx.is_stalled(through) if row else False,  # no status row: how current it is is unknown
        "discontinued_at": row.get("discontinuedAt") if isinstance(row.get("discontinuedAt"), str) else None,
        "succeeded_by": successor.get("sourceKey") or successor.get("label") or None,
    }


def _status_notes(status: Mapping[str, Any], sample_on: date | None = None) -> list[str]:
    """What a reader must know about how current an organisation is (a merger is said where it is resolved).
    From the offline sample (`sample_on`, its recording day) that is said of the sample, not of the platform."""
    if status["discontinued_at"]:
        return []
    if sample_on is not None:
        return [_sample_freshness(status, sample_on)] if status["stalled"] else []
    notes = []
    if status["state"] in BEHIND:
        since = f" since {status['last_import']}" if status["last_import"] else ""
        notes.append(f"OpenBesluitvorming's imports for {status['name']} are {status['state'].replace('_', ' ')}"
                     f"{since}: material published after that is missing, even where agendas run ahead")
    if status["stalled"]:
        notes.append(f"{status['name']} stands still: its newest material in OpenBesluitvorming is from "
                     f"{status['current_through'] or 'no date'}; an empty or short result there is no proof that "
                     "nothing exists")
    return notes


def _sample_freshness(status: Mapping[str, Any], sample_on: date) -> str:
    """How far the offline sample reaches for one organisation: a fact of the sample, none of the platform."""
    if not status["current_through"]:
        return (f"no material from {status['name']} in BesluitBron's offline sample (recorded on {sample_on}); "
                "the live platform may hold plenty")
    return (f"BesluitBron's offline sample (recorded on {sample_on}) holds material of {status['name']} up to "
            f"{status['current_through']}; the live platform may hold newer")


def _precision(reply: Mapping[str, Any], *, offset: int, returned: int, matched: str,
               notes: list[str]) -> Precision:
    total = reply.get("totalCount")
    approximate = bool(reply.get("totalIsApproximate"))
    more = truncated = bool(reply.get("hasMore"))
    if not returned and offset and approximate:
        notes.append("no results this deep: OpenBesluitvorming reads only its best-matching index rows (about "
                     "6,000) per search; narrow the search instead of paging on")
    if more and reply.get("_browse_end"):
        last = reply["results"][-1] if reply["results"] else {}
        day = _dutch(last.get("sortDate"))[0] if isinstance(last, dict) else None
        notes.append(f"without words only the newest {BROWSE_DEPTH} items are listed in order; for older ones pass "
                     f"date_to {day or '(an earlier date)'} (date_from with sort 'oldest') instead of a larger offset")
        more = False
    return precision(total=int(total) if isinstance(total, int) else None,
                     total_relation=("estimate" if approximate else "exact") if isinstance(total, int) else "unknown",
                     returned=returned, truncated=truncated, matched=matched, not_applied=notes,
                     next_offset=offset + returned if more else None)


def _order(call: ToolCall, query: str | None, notes: list[str]) -> tuple[str, str]:
    """(our sort word, the platform's): relevance needs words to rank by."""
    order = str(call.arguments.get("sort") or ("relevance" if query else "newest"))
    if order == "relevance" and not query:
        notes.append("sort 'relevance' needs a query; sorted newest first instead")
        order = "newest"
    return order, {"relevance": "relevance", "newest": "date_desc", "oldest": "date_asc"}[order]


def _search_params(*, query: str | None, org: Organisation | None, entity_type: str, sort: str,
                   start: date | None, end: date | None) -> list[tuple[str, str]]:
    params = [("query", query)] if query else []
    params += [("organization", org.key)] if org else []
    params += [("entityType", entity_type), ("sort", sort)]
    params += [("dateFrom", start.isoformat())] if start else []
    params += [("dateTo", end.isoformat())] if end else []
    return params


# Compound words the platform widens with their stem words (web/search_api.ts expandDutchGovernanceTerms).
# (ending, stem words, also when the word is the ending itself)
GOVERNANCE_STEMS: tuple[tuple[str, tuple[str, ...], bool], ...] = (
    ("raadsvergadering", ("raad", "vergadering"), True), ("commissievergadering", ("commissie", "vergadering"), True),
    ("vergadering", ("vergadering",), False), ("besluitenlijst", ("besluitenlijst",), False),
)


def widened(query: str) -> list[str]:
    """The stem words the platform ORs in for a query (none for a quoted phrase, which it keeps exact)."""
    if any(len(words(p).split()) > 1 for p in re.findall(r'"([^"]*)"', query)):
        return []
    stems: list[str] = []
    for word in query.lower().split():
        for ending, extra, itself in GOVERNANCE_STEMS:
            if word.endswith(ending) and (itself or word != ending):
                stems += [e for e in extra if e not in stems]
    return stems


def _matched(what: str, query: str | None, org: Organisation | None, start: date | None, end: date | None,
             order: str) -> str:
    parts = [what]
    if query:
        stems = widened(query)
        rule = (f'"{query}": every word (lower-cased, split at punctuation) in the title, the kind of document '
                'or the text; "…" is a phrase in title or text')
        if stems:
            rule += (f"; OR any item with the word {' or '.join(repr(s) for s in stems)}: the platform widens "
                     f"{', '.join(w for w in query.lower().split() if widened(w))} with its stem words, so hits "
                     "need not hold your other words (put the words in quotes to search them exactly)")
        parts.append(rule)
    parts.append(f"organisation {org.name} (key {org.key})" if org else "every organisation")
    if start or end:
        parts.append(f"date {start or '…'} to {end or '…'} (whole days, UTC, on the meeting date)")
    parts.append(f"sorted {order}")
    return "; ".join(parts)


# =========================================================================== schemas

ORGANISATION_PROP: dict[str, Any] = {
    "type": "string", "minLength": 2, "maxLength": 120,
    "description": "One organisation as you would write it ('Utrecht' is the gemeente, 'Provincie Utrecht', "
                   "\"'s-Gravenhage\", 'Bergen (NH)', 'Hoogheemraadschap van Delfland') or its key from "
                   "list_organisations.",
}
SORT_PROP: dict[str, Any] = {
    "enum": ["relevance", "newest", "oldest"],
    "description": "Order: best match first (default with a query) or by meeting date (newest is the default "
                   "without a query).",
}
DATE_PROPS: dict[str, Any] = {
    "date_from": {"type": "string", "format": "date", "maxLength": 10,
                  "description": "Earliest meeting date, YYYY-MM-DD (inclusive)."},
    "date_to": {"type": "string", "format": "date", "maxLength": 10,
                "description": "Latest meeting date, YYYY-MM-DD (inclusive)."},
}
STATUS_SCHEMA = object_schema({
    "name": {"type": "string"},
    "key": {"type": "string", "description": "Pass as organisation to the other tools."},
    "kind": {"enum": list(KINDS)},
    "cbs_code": {**NSTR, "description": "CBS municipality code (GM….), for a gemeente."},
    "supplier": {"type": "string", "description": "The council information system it is imported from."},
    "state": {"type": "string", "description": "Import state: ok, stale, failing, never_imported, not_implemented, "
                                                "discontinued."},
    "current_through": {**NSTR, "description": "Newest meeting date held, not after today."},
    "latest_content_date": {**NSTR, "description": "Newest meeting date held (agendas run ahead)."},
    "last_import": {**NSTR, "description": "Date of the last successful import."},
    "stalled": {"type": "boolean", "description": "No material within stalled_after_days (see platform_status)."},
    "discontinued_at": {**NSTR, "description": "Date the organisation was merged away."},
    "succeeded_by": {**NSTR, "description": "Key (or name) of the organisation that took over."},
}, shape="Organisatie")
_SEARCH_EXTRA: dict[str, Any] = {
    "organisation": {"anyOf": [{"type": "null"}, STATUS_SCHEMA],
                     "description": "The organisation searched and how current it is; null for all."},
    "notes": {"type": "array", "items": {"type": "string"}},
}


def _input(properties: Mapping[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": dict(properties), "required": required, "additionalProperties": False}


# =========================================================================== search_documents

SEARCH_DOCUMENTS_INPUT = _input({
    "query": {"type": "string", "minLength": 1, "maxLength": 500,
              "description": "Whole words in the title, kind or text; every word must occur (no stemming: 'parkeren' "
                             "misses 'parkeerbeleid'), \"quotes\" for a phrase. Compounds such as "
                             "'raadsvergadering' also match their stem words. Leave out with an organisation to list "
                             "its newest documents."},
    "organisation": ORGANISATION_PROP,
    **DATE_PROPS,
    "kind": {"enum": ["document", "motion"], "default": "document",
             "description": "Documents (raadsstukken, attachments), or motions and amendments; a search hit carries no "
                            "outcome: read_document gives a motion's, read_meeting those of a whole meeting."},
    "sort": SORT_PROP,
    **PAGE_PROPS,
}, [])

SEARCH_DOCUMENTS_OUTPUT = result_list_schema({
    "id": {"type": "string", "description": "Read it with read_document."},
    "type": {"enum": ["document", "motion"]},
    "title": {"type": "string"},
    "organisation": {"type": "string"},
    "organisation_key": {"type": "string"},
    "date": {**NSTR, "description": "The platform's date for it (Dutch time): the meeting that last discussed it, "
                                    "or, where it knows none, the supplier's last change to the file."},
    "matched_page": {"type": ["integer", "null"], "description": "The page where the words were found."},
    "page_count": NINT,
    "download_url": {**NSTR, "description": "The file at the council information system."},
    "url": {"type": "string", "description": "The page that shows it on openbesluitvorming.nl."},
}, extra=_SEARCH_EXTRA)


@dataclass(frozen=True, slots=True)
class _Search:
    """What both searches read from their arguments before they differ: words, paging, dates, scope, order."""

    api: _Api
    query: str | None
    limit: int
    offset: int
    notes: list[str]
    start: date | None
    end: date | None
    scope: _Scope
    order: str
    sort: str

    def params(self, entity_type: str) -> list[tuple[str, str]]:
        return _search_params(query=self.query, org=self.scope.organisation, entity_type=entity_type, sort=self.sort,
                              start=self.start, end=self.end)

    async def page(self, entity_type: str) -> dict[str, Any]:
        return await self.api.page(self.params(entity_type), self.offset, self.limit)

    def answer(self, reply: Mapping[str, Any], results: list[dict[str, Any]], what: str) -> dict[str, Any]:
        matched = _matched(what, self.query, self.scope.organisation, self.start, self.end, self.order)
        return {"results": results, "precision": _precision(reply, offset=self.offset, returned=len(results),
                                                            matched=matched, notes=self.notes),
                "organisation": self.scope.status, "notes": self.scope.notes}


async def _search(call: ToolCall) -> _Search:
    args = call.arguments
    api = _api(call)
    query = str(args["query"]).strip() if args.get("query") else None
    if not query and not args.get("organisation"):
        raise ToolInputError("give a query, an organisation, or both (OpenBesluitvorming answers nothing without)")
    limit, offset, notes = _limit(call)
    start, end = date_range(call)
    scope = await _scope(call, api, args.get("organisation"))
    order, sort = _order(call, query, notes)
    return _Search(api, query, limit, offset, notes, start, end, scope, order, sort)


async def search_documents(call: ToolCall) -> dict[str, Any]:
    search = await _search(call)
    kind = str(call.arguments.get("kind") or "document")
    reply = await search.page(kind.capitalize())
    results = [_document_hit(call.ctx, hit) for hit in reply["results"] if isinstance(hit, dict)]
    if search.query and (search.start or search.end):
        search.notes.append("with words and dates together, the platform applies the dates within its best-matching "
                            "rows: a broad query over an old period can miss hits; add words or an organisation")
    return search.answer(reply, results, f"{kind}s")


def _document_hit(ctx: PlatformContext, hit: Mapping[str, Any]) -> dict[str, Any]:
    entity_id = str(hit.get("entityId"))
    title = _clean(str(hit.get("title") or "Ongetiteld document"))
    day, _ = _dutch(hit.get("sortDate"))
    organisation = str(hit.get("organization") or _key_of(entity_id))
    matched_page = hit.get("matchedPage") if isinstance(hit.get("matchedPage"), int) else None
    snippet = _clean(str(hit.get("summary") or "")) or title
    where = f", p. {matched_page}" if matched_page else ""
    return {
        "id": entity_id, "type": "motion" if _type_of(entity_id) == "motion" else "document", "title": title,
        "organisation": organisation, "organisation_key": _key_of(entity_id), "date": day,
        "matched_page": matched_page, "page_count": hit.get("pageCount") if isinstance(hit.get("pageCount"), int)
        else None, "download_url": hit.get("downloadUrl") or None,
        "url": view_url(entity_id),
        "citation": cite(ctx, uri=view_url(entity_id, matched_page),
                         title=f"{title} ({organisation}, vergadering van {day or 'onbekende datum'}{where})",
                         text=snippet),
    }


def _clean(text: str) -> str:
    return " ".join(text.split())


# =========================================================================== read_document

READ_DOCUMENT_INPUT = _input({
    "id": {"type": "string", "minLength": 1, "maxLength": 400,
           "description": "Document or motion id from search_documents or read_meeting (or its openbesluitvorming.nl "
                          "link)."},
    **CHUNK_PROPS,
}, ["id"])

PARTIES = {"type": "array", "items": {"type": "string"}}
VOTES_BY_PARTY = {"type": "array", "items": object_schema({
    "party": {"type": "string"}, "in_favour": {"type": "integer"}, "against": {"type": "integer"}}),
    "description": "How each party's members voted, counted from the votes the council published; empty when it "
                   "published none."}
_MEETING_REF = {"anyOf": [{"type": "null"}, object_schema({
    "id": {"type": "string"}, "title": {"type": "string"}, "date": NSTR, "url": {"type": "string"}})],
    "description": "The meeting that discussed it (read_meeting gives its agenda)."}
_MOTION_SCHEMA = {"anyOf": [{"type": "null"}, object_schema({
    "result": {**NSTR, "description": "aangenomen, verworpen, ingetrokken, aangehouden or overig."},
    "status": NSTR,
    "proposers": PARTIES,
    "co_proposers": PARTIES,
    "proposer_parties": {**PARTIES, "description": "The parties of its proposers and co-proposers (not how "
                                                   "parties voted: see votes_by_party)."},
    "in_favour": NINT,
    "against": NINT,
    "votes_by_party": VOTES_BY_PARTY,
    "votes_note": {"type": "string", "description": "Where the per-party votes come from, or why there are none."},
    "vote_summary": {**NSTR, "description": "The vote as the council published it, e.g. 'Stemmen voor: 23 …'."},
})], "description": "For a motion: its outcome, vote count and votes per party."}

READ_DOCUMENT_OUTPUT = object_schema({
    "id": {"type": "string"},
    "type": {"enum": ["document", "motion"]},
    "title": {"type": "string"},
    "organisation": {"type": "string"},
    "organisation_key": {"type": "string"},
    "date": NSTR,
    "content_type": NSTR,
    "download_url": NSTR,
    "url": {"type": "string"},
    "meeting": _MEETING_REF,
    "attached_to": {"anyOf": [{"type": "null"}, object_schema({
        "id": {"type": "string"}, "kind": {"enum": ["motion", "agenda item"]}, "title": NSTR})],
        "description": "The motion this is the text of, or the agenda item it belongs to."},
    "motion": _MOTION_SCHEMA,
    **chunk_output_props(),
    "notes": {"type": "array", "items": {"type": "string"}},
    "citation": CITATION_SCHEMA,
})


async def read_document(call: ToolCall) -> dict[str, Any]:
    entity_id = _entity_id(str(call.arguments["id"]), ("document", "motion"), "read_document")
    api = _api(call)
    detail = await api.entity(entity_id)
    day, _ = _dutch(detail.get("sortDate"))
    link = await _linked(api, entity_id, detail.get("meetingId"), day)
    text = str(detail.get("markdownText") or "")
    notes = [] if text else ["OpenBesluitvorming holds no extracted text for this item; open download_url"]
    notes += link.notes
    part: dict[str, Any] = chunk(text, call) if text else {"text": "", "offset": 0, "length": 0, "total_length": 0,
                                           "next_offset": None}
    title = _clean(str(detail.get("title") or "Ongetiteld document"))
    organisation = str(detail.get("organization") or _key_of(entity_id))
    meeting = link.meeting
    where = f"{meeting['title']}, {meeting['date'] or 'unknown date'}" if meeting else f"{day or 'no meeting date'}"
    return {
        "id": entity_id, "type": "motion" if _type_of(entity_id) == "motion" else "document", "title": title,
        "organisation": organisation, "organisation_key": _key_of(entity_id), "date": day,
        "content_type": detail.get("contentType") or None,
        "download_url": detail.get("downloadUrl") or None, "url": view_url(entity_id), "meeting": meeting,
        "attached_to": link.attached_to, "motion": _motion(detail.get("motion")), **part, "notes": notes,
        "citation": cite(call.ctx, uri=view_url(entity_id), title=f"{title} ({organisation}, {where})",
                         text=_clean(part["text"][:300]) or title),
    }


@dataclass(frozen=True, slots=True)
class _Link:
    meeting: dict[str, Any] | None = None
    attached_to: dict[str, Any] | None = None
    notes: tuple[str, ...] = ()


MAX_MEETINGS_PER_DAY = 5


async def _linked(api: _Api, entity_id: str, referenced_by: Any, day: str | None) -> _Link:
    """What a document hangs off. The platform's `meetingId` is the supplier's `is_referenced_by`: a meeting for
    most documents, the motion for a motion's attachment (iBabs, Notubiz), and an agenda item for every Parlaeus
    document (src/parlaeus/normalize.ts), which `/api/entities/` does not answer."""
    if not isinstance(referenced_by, str) or not referenced_by or referenced_by == entity_id:
        return _Link()
    kind = _type_of(referenced_by)
    if kind == "meeting":
        return _Link(meeting=_meeting_ref(referenced_by, await api.entity(referenced_by)))
    if kind == "motion":
        motion = await api.entity(referenced_by)
        name = _clean(str(motion.get("title") or "Motie"))
        attached = {"id": referenced_by, "kind": "motion", "title": name}
        link = await _linked(api, referenced_by, motion.get("meetingId"), day)
        notes = [f"this is the text of the motion '{name}' ({referenced_by}): read_document on that id gives its "
                 "outcome and vote"]
        hint = (motion.get("motion") or {}).get("agenda_item_hint") if isinstance(motion.get("motion"), dict) else None
        if link.meeting is None and hint:
            notes.append(f"the platform links the motion to no meeting; the council information system says it "
                         f"was submitted in: {_clean(str(hint))}")
        return _Link(meeting=link.meeting, attached_to=attached, notes=(*notes, *link.notes))
    if kind == "agenda_item":
        return await _meeting_of_item(api, referenced_by, day)
    return _Link(notes=(f"the platform links this item to '{referenced_by}', which is not a meeting",))


async def _meeting_of_item(api: _Api, item_id: str, day: str | None) -> _Link:
    """A Parlaeus document names only its agenda item: find the organisation's meeting that day holding it."""
    key = _key_of(item_id)
    if day and key:
        reply = await api.search([("organization", key), ("entityType", "Meeting"), ("sort", "date_asc"),
                                  ("dateFrom", day), ("dateTo", day), ("offset", "0"),
                                  ("limit", str(MAX_MEETINGS_PER_DAY))])
        for hit in reply["results"][:MAX_MEETINGS_PER_DAY]:
            meeting_id = str(hit.get("entityId") or "") if isinstance(hit, dict) else ""
            if not meeting_id:
                continue
            detail = await api.entity(meeting_id)
            items: list[dict[str, Any]] = []
            _flatten(detail.get("agenda"), 0, items)
            found = next((i for i in items if i["id"] == item_id), None)
            if found:
                return _Link(meeting=_meeting_ref(meeting_id, detail),
                             attached_to={"id": item_id, "kind": "agenda item", "title": found["title"]})
    return _Link(attached_to={"id": item_id, "kind": "agenda item", "title": None},
                 notes=(f"the platform links this document to agenda item {item_id} only, and no meeting of that day "
                        "holds it; search_meetings with the organisation and date finds the meeting",))


def _meeting_ref(meeting_id: str, about: Mapping[str, Any]) -> dict[str, Any]:
    return {"id": meeting_id, "title": _clean(str(about.get("title") or "Ongetitelde vergadering")),
            "date": _dutch(about.get("sortDate"))[0], "url": view_url(meeting_id)}


def votes_by_party(value: Mapping[str, Any]) -> tuple[list[dict[str, Any]], str]:
    """Per-party tallies from a motion's `votes[]` (one row per member, voor or tegen, with its group), and where
    they come from. The platform's `parties` are the proposers' parties, never how anyone voted."""
    rows = [v for v in value.get("votes") or [] if isinstance(v, dict) and v.get("option") in ("voor", "tegen")]
    if not rows:
        why = ("the council published no per-member votes for this motion (Notubiz councils and many iBabs ones "
               "publish only the outcome"
               + (", and vote_summary as text)" if value.get("vote_summary") else ")"))
        return [], why
    parties: dict[str, dict[str, Any]] = {}
    for vote in rows:
        party = str(vote.get("group_name") or "onbekende fractie")
        tally = parties.setdefault(party, {"party": party, "in_favour": 0, "against": 0})
        tally["in_favour" if vote["option"] == "voor" else "against"] += 1
    ordered = sorted(parties.values(), key=lambda t: (-(t["in_favour"] + t["against"]), t["party"]))
    return ordered, (f"counted from the {len(rows)} member votes the council published (voor or tegen; a member "
                     "who did not vote is not listed, so abstentions and absences are not told apart)")


def _count(tally: Mapping[str, Any], key: str) -> int | None:
    return tally.get(key) if isinstance(tally.get(key), int) else None


def _motion(value: Any) -> dict[str, Any] | None:
    if not isinstance(value, dict):
        return None
    tally = object_at(value, "tally")
    by_party, note = votes_by_party(value)
    return {"result": value.get("result") or None, "status": value.get("status") or None,
            "proposers": [str(p) for p in value.get("proposers") or []],
            "co_proposers": [str(p) for p in value.get("co_proposers") or []],
            "proposer_parties": [str(p) for p in value.get("parties") or []],
            "in_favour": _count(tally, "in_favour"), "against": _count(tally, "against"),
            "votes_by_party": by_party, "votes_note": note,
            "vote_summary": _clean(str(value["vote_summary"])) if value.get("vote_summary") else None}


# =========================================================================== search_meetings

SEARCH_MEETINGS_INPUT = _input({
    "query": {"type": "string", "minLength": 1, "maxLength": 500,
              "description": "Words in the meeting's title and agenda, or what was said when spoken is true. Leave "
                             "out with an organisation to list its meetings by date."},
    "organisation": ORGANISATION_PROP,
    **DATE_PROPS,
    "spoken": {"type": "boolean", "default": False,
               "description": "Search the transcripts of meeting recordings (speech recognition) instead."},
    "sort": SORT_PROP,
    **PAGE_PROPS,
}, [])

_MEETING_ITEM = {
    "id": {"type": "string", "description": "Read it with read_meeting."},
    "title": {"type": "string"},
    "organisation": {"type": "string"},
    "organisation_key": {"type": "string"},
    "date": NSTR,
    "start": {**NSTR, "description": "Start, Dutch time (YYYY-MM-DDTHH:MM)."},
    "url": {"type": "string"},
}
SEARCH_MEETINGS_OUTPUT = result_list_schema(_MEETING_ITEM, extra=_SEARCH_EXTRA)


async def search_meetings(call: ToolCall) -> dict[str, Any]:
    search = await _search(call)
    spoken = bool(call.arguments.get("spoken"))
    reply = await search.page("Recording" if spoken else "Meeting")
    results = [_meeting_hit(call.ctx, hit) for hit in reply["results"] if isinstance(hit, dict)]
    search.notes.append("agenda items are not search hits: read_meeting shows a meeting's agenda and documents")
    return search.answer(reply, results, "meetings whose recording transcript matches" if spoken else "meetings")


def _meeting_hit(ctx: PlatformContext, hit: Mapping[str, Any]) -> dict[str, Any]:
    entity_id = str(hit.get("entityId"))
    title = _clean(str(hit.get("title") or "Ongetitelde vergadering"))
    day, start = _dutch(hit.get("sortDate"))
    organisation = str(hit.get("organization") or _key_of(entity_id))
    summary = _clean(str(hit.get("summary") or ""))
    snippet = title if not summary or summary == "Geen samenvatting beschikbaar." else summary
    return {
        "id": entity_id, "title": title, "organisation": organisation, "organisation_key": _key_of(entity_id),
        "date": day, "start": start, "url": view_url(entity_id),
        "citation": cite(ctx, uri=view_url(entity_id), title=f"{title} ({organisation}, {day or 'onbekende datum'})",
                         text=snippet),
    }


# =========================================================================== read_meeting

MAX_AGENDA_ITEMS = 300

READ_MEETING_INPUT = _input({
    "id": {"type": "string", "minLength": 1, "maxLength": 400,
           "description": "Meeting id from search_meetings or upcoming_meetings (or its openbesluitvorming.nl link)."},
}, ["id"])

_AGENDA_ITEM: dict[str, Any] = {
    "id": {"type": "string"},
    "number": {**NSTR, "description": "The number the agenda gives it (e.g. '3.1'), where it has one."},
    "title": {"type": "string"},
    "description": NSTR,
    "level": {"type": "integer", "description": "0 for a top-level item, 1 for a sub-item, …"},
    "documents": {"type": "array", "items": object_schema({
        "id": {"type": "string", "description": "Read it with read_document."},
        "name": {"type": "string"},
        "download_url": NSTR,
    })},
}
_MEETING_MOTION = object_schema({
    "id": {"type": "string", "description": "Read it (with its text, where there is one) with read_document."},
    "title": {"type": "string"},
    "result": NSTR,
    "in_favour": NINT,
    "against": NINT,
    "proposer_parties": {**PARTIES, "description": "The parties of its proposers (not how parties voted)."},
    "votes_by_party": VOTES_BY_PARTY,
    "citation": CITATION_SCHEMA,
})
READ_MEETING_OUTPUT = result_list_schema(_AGENDA_ITEM, extra={
    "meeting": object_schema({
        "id": {"type": "string"},
        "title": {"type": "string"},
        "organisation": {"type": "string"},
        "organisation_key": {"type": "string"},
        "date": NSTR,
        "start": NSTR,
        "url": {"type": "string"},
        "recordings": {"type": "integer", "description": "Video or audio registrations of this meeting."},
        "citation": CITATION_SCHEMA,
    }, description="The meeting; results are its agenda items in agenda order."),
    "motions": {"type": "array", "items": _MEETING_MOTION, "description": "Motions decided in this meeting."},
    "notes": {"type": "array", "items": {"type": "string"}},
})


async def read_meeting(call: ToolCall) -> dict[str, Any]:
    entity_id = _entity_id(str(call.arguments["id"]), ("meeting",), "read_meeting")
    detail = await _api(call).entity(entity_id)
    title = _clean(str(detail.get("title") or "Ongetitelde vergadering"))
    organisation = str(detail.get("organization") or _key_of(entity_id))
    day, start = _dutch(detail.get("sortDate"))
    named = f"{title} ({organisation}, {day or 'unknown date'})"
    agenda: list[dict[str, Any]] = []
    _flatten(detail.get("agenda"), 0, agenda)
    total = len(agenda)
    notes = []
    if total > MAX_AGENDA_ITEMS:
        notes.append(f"the agenda has {total} items; the first {MAX_AGENDA_ITEMS} are shown")
        agenda = agenda[:MAX_AGENDA_ITEMS]
    if not agenda:
        notes.append("OpenBesluitvorming holds no agenda for this meeting")
    for item in agenda:
        label = f"{item['number']}. {item['title']}" if item["number"] else item["title"]
        item["citation"] = cite(call.ctx, uri=view_url(entity_id), title=f"Agendapunt {label}, {named}",
                                text=item["description"] or label)
    motions = []
    for m in detail.get("motions") or []:
        if isinstance(m, dict) and m.get("id"):
            tally = object_at(m, "tally")
            name = _clean(str(m.get("name") or "Motie"))
            result = m.get("result") or None
            motions.append({"id": str(m["id"]), "title": name, "result": result,
                            "in_favour": _count(tally, "in_favour"), "against": _count(tally, "against"),
                            "proposer_parties": [str(p) for p in m.get("parties") or []],
                            "votes_by_party": votes_by_party(m)[0],
                            "citation": cite(call.ctx, uri=view_url(str(m["id"])), title=f"{name}, {named}",
                                             text=f"{name}: {result or 'no outcome recorded'}")})
    summary = "; ".join(f"{i['number'] + ' ' if i['number'] else ''}{i['title']}" for i in agenda[:8]) or title
    matched = "the meeting's agenda as the council information system published it, in agenda order"
    return {
        "results": agenda,
        "precision": precision(total=total, total_relation="exact", returned=len(agenda),
                               truncated=len(agenda) < total, matched=matched, not_applied=[]),
        "meeting": {"id": entity_id, "title": title, "organisation": organisation,
                    "organisation_key": _key_of(entity_id), "date": day, "start": start, "url": view_url(entity_id),
                    "recordings": len([r for r in detail.get("recordings") or [] if isinstance(r, dict)]),
                    "citation": cite(call.ctx, uri=view_url(entity_id), title=named, text=summary)},
        "motions": motions, "notes": notes,
    }


def _flatten(items: Any, level: int, out: list[dict[str, Any]]) -> None:
    """The agenda tree (Notubiz nests, iBabs is flat) as a list in agenda order, each with its level."""
    if not isinstance(items, list):
        return
    ordered = sorted((i for i in items if isinstance(i, dict)), key=lambda i: (i.get("order") is None,
                                                                                i.get("order") or 0))
    for item in ordered:
        out.append({
            "id": str(item.get("id") or ""), "number": str(item["number"]) if item.get("number") else None,
            "title": _clean(str(item.get("title") or "")), "description": item.get("description") or None,
            "level": level,
            "documents": [{"id": str(d.get("id")), "name": _clean(str(d.get("name") or d.get("file_name") or "")),
                           "download_url": d.get("original_url") or None}
                          for d in item.get("documents") or [] if isinstance(d, dict) and d.get("id")],
        })
        _flatten(item.get("agenda_items"), level + 1, out)


# =========================================================================== upcoming_meetings

UPCOMING_INPUT = _input({
    "organisation": ORGANISATION_PROP,
    "days": {"type": "integer", "minimum": 1, "maximum": 366, "default": 30,
             "description": "How far ahead to look, in days from today (Dutch time)."},
    **PAGE_PROPS,
}, ["organisation"])

UPCOMING_OUTPUT = result_list_schema(_MEETING_ITEM, extra={
    "organisation": STATUS_SCHEMA,
    "period": object_schema({"from": {"type": "string"}, "to": {"type": "string"}}),
    "notes": {"type": "array", "items": {"type": "string"}},
})


async def upcoming_meetings(call: ToolCall) -> dict[str, Any]:
    args = call.arguments
    api = _api(call)
    limit, offset, notes = _limit(call)
    scope = await _scope(call, api, str(args["organisation"]))
    assert scope.organisation is not None and scope.status is not None
    today = call.ctx.today()
    until = today + timedelta(days=int(args.get("days", 30)))
    params = _search_params(query=None, org=scope.organisation, entity_type="Meeting", sort="date_asc", start=today,
                            end=until)
    reply = await api.page(params, offset, limit)
    results = [_meeting_hit(call.ctx, hit) for hit in reply["results"] if isinstance(hit, dict)]
    matched = (f"meetings of {scope.organisation.name} (key {scope.organisation.key}) from {today} to {until}, "
               "earliest first; OpenBesluitvorming lists what the council information system published so far")
    notes.append("read_meeting gives each meeting's agenda and documents")
    return {"results": results, "precision": _precision(reply, offset=offset, returned=len(results), matched=matched,
                                                        notes=notes),
            "organisation": scope.status, "period": {"from": today.isoformat(), "to": until.isoformat()},
            "notes": scope.notes}


# =========================================================================== list_organisations

LIST_ORGANISATIONS_INPUT = _input({
    "name": {"type": "string", "minLength": 1, "maxLength": 120,
             "description": "Part of the name or key, e.g. 'utrecht' or 'delfland'."},
    "kind": {"enum": list(KINDS), "description": "Only this kind of organisation."},
    "only_stalled": {"type": "boolean", "default": False,
                     "description": "Only organisations without new material within stalled_after_days."},
    **PAGE_PROPS,
}, [])

LIST_ORGANISATIONS_OUTPUT = result_list_schema({
    **STATUS_SCHEMA["properties"],
    "implemented": {"type": "boolean", "description": "False: no longer imported; its material stays searchable."},
}, extra={
    "as_of": {"type": "string", "description": "The day the statuses are measured against: today (Dutch time), "
                                               "or the recording day of an offline sample."},
    "stalled_after_days": {"type": "integer"},
    "notes": {"type": "array", "items": {"type": "string"}},
})


async def list_organisations(call: ToolCall) -> dict[str, Any]:
    args = call.arguments
    api = _api(call)
    limit, offset, notes = page(call)
    organisations, reply, failed = await api.catalogue()  # without /api/status: names and keys, states unknown
    status = _status(reply)
    unknown = [f"OpenBesluitvorming's import status (/api/status) did not answer ({failed}): every state is "
               "'unknown' and how current each organisation is, is not known for now"] if failed else []
    wanted = compact(str(args.get("name") or ""))
    rows = []
    for org in sorted(organisations, key=lambda o: words(o.name)):
        if wanted and not any(wanted in compact(name) for name in (org.label, org.key, org.official) if name):
            continue
        if args.get("kind") and org.kind != args["kind"]:
            continue
        row = _org_status(call.ctx, org, status.get(org.key, {}))
        if args.get("only_stalled") and not row["stalled"]:
            continue
        rows.append({**row, "implemented": org.implemented})
    shown = rows[offset:offset + limit]
    results = []
    for row in shown:
        sample_on = call.ctx.sample_on
        state = (f"merged away on {row['discontinued_at']}" if row["discontinued_at"] else
                 _sample_freshness(row, sample_on) if sample_on and row["stalled"] else
                 f"stands still since {row['current_through']}" if row["stalled"] and row["current_through"] else
                 "no material" if row["stalled"] else f"material through {row['current_through']}"
                 if row["current_through"] else "how current is unknown")
        results.append({**row, "citation": cite(
            call.ctx, uri=f"{SITE}?{urlencode({'organization': row['key']})}",
            title=f"{row['name']} ({row['kind']}, key {row['key']})",
            text=f"{row['name']}: {state}; import state {row['state']}")})
    filters = [f"name or key contains '{args['name']}'"] if args.get("name") else []
    filters += [f"kind {args['kind']}"] if args.get("kind") else []
    if args.get("only_stalled"):
        filters.append(f"stalled (no material for over {call.ctx.stalled_after_days} days)")
    matched = ("every organisation of /api/sources (supplier aggregates left out) with its import state from "
               "/api/status" + (f"; filtered: {', '.join(filters)}" if filters else "") + "; sorted by name")
    seen = offset + len(results)
    prec = precision(total=len(rows), total_relation="exact", returned=len(results), truncated=seen < len(rows),
                     matched=matched, not_applied=notes, next_offset=seen if seen < len(rows) else None)
    return {"results": results, "precision": prec, "as_of": call.ctx.as_of().isoformat(),
            "stalled_after_days": call.ctx.stalled_after_days, "notes": unknown}


# =========================================================================== load status


async def measure_load(ctx: PlatformContext) -> LoadReport:
    """Per organisation its newest meeting date (not after today) from `/api/status`; merged-away ones left out."""
    api = _Api(ctx, SYSTEM_CALLER, None)
    organisations = await api.organisations()
    status = await api.status()
    organs = []
    gone = []
    for org in organisations:
        row = _org_status(ctx, org, status.get(org.key, {}))
        if row["discontinued_at"]:
            gone.append(org.name)
            continue
        through = date.fromisoformat(row["current_through"]) if row["current_through"] else None
        organs.append(OrganLoad(organ=org.key, name=org.name, current_through=through, medium=org.kind))
    per_medium: dict[str, date | None] = {}
    for kind in KINDS:
        dates = [o.current_through for o in organs if o.medium == kind and o.current_through]
        per_medium[kind] = max(dates) if dates else None
    dates = [o.current_through for o in organs if o.current_through]
    notes = [f"left out, merged away: {', '.join(sorted(gone))}"] if gone else []
    if any(row.get(INDEX_BLIND) for row in status.values()):
        notes.append("OpenBesluitvorming could not read its search index: dates are of the last successful import")
    return LoadReport(current_through=max(dates) if dates else None, organs=tuple(organs), per_medium=per_medium,
                      note="; ".join(notes) or None)


# The examples work against the replica for any anchor date: they name real recorded records (and the one
# meeting whose id the recording lacks), proxy/replica/data/ori/.
TOOLS: tuple[ToolImpl, ...] = (
    ToolImpl("search_documents", SEARCH_DOCUMENTS_INPUT, SEARCH_DOCUMENTS_OUTPUT, search_documents,
             example={"query": "sociale basis", "organisation": "Amsterdam", "limit": 5}),
    ToolImpl("read_document", READ_DOCUMENT_INPUT, READ_DOCUMENT_OUTPUT, read_document,
             example={"id": "https://openbesluitvorming.nl/?view=document%3Anotubiz%3Agemeente%3Aamsterdam%3A7636790",
                      "length": 2000}),
    ToolImpl("search_meetings", SEARCH_MEETINGS_INPUT, SEARCH_MEETINGS_OUTPUT, search_meetings,
             example={"query": "raadsvergadering", "organisation": "Altena", "limit": 5}),
    ToolImpl("read_meeting", READ_MEETING_INPUT, READ_MEETING_OUTPUT, read_meeting,
             example={"id": "meeting:notubiz:gemeente:alkmaar:zonder-id-20260122"}),
    ToolImpl("upcoming_meetings", UPCOMING_INPUT, UPCOMING_OUTPUT, upcoming_meetings,
             example={"organisation": "Utrecht", "days": 30}),
    ToolImpl("list_organisations", LIST_ORGANISATIONS_INPUT, LIST_ORGANISATIONS_OUTPUT, list_organisations,
             example={"kind": "waterschap"}),
)

# --------------------------------------------------------------------------- live contract check


async def canary(probe: Probe, plugin: PlatformPlugin) -> None:
    """OpenBesluitvorming: the organisation catalog, one search, one entity, then /api/status via the load."""

    sources = await probe.get("sources", "/api/sources", as_json)
    rows = sources.get("sources", []) if isinstance(sources, dict) else []
    if probe.expect(isinstance(rows, list) and bool(rows), "sources", "no 'sources' list"):
        for n, row in enumerate(rows[:400]):
            where = f"sources: sources[{n}]"
            key = probe.field(row, "key", where)
            probe.field(row, "label", where)
            kind = probe.field(row, "organizationType", where)
            aggregate = bool(row.get("isAggregate")) or str(key or "").startswith("all_")
            probe.expect(aggregate or kind in KINDS, where, f"organizationType {kind!r} is none of "
                                                                f"{', '.join(KINDS)}")
    probe.check()
    search = await probe.get("search", "/api/search", as_json, params=[
        ("query", "begroting"), ("entityType", "Document"), ("sort", "date_desc"), ("offset", "0"), ("limit", "3")])
    results = search.get("results", []) if isinstance(search, dict) else []
    if probe.expect(isinstance(results, list) and bool(results), "search", "no results for 'begroting'"):
        probe.count(search.get("totalCount"), len(results), "search: totalCount")
        probe.field(search, "totalIsApproximate", "search", kind=bool)
        probe.field(search, "hasMore", "search", kind=bool)
        for n, hit in enumerate(results):
            where = f"search: results[{n}]"
            probe.field(hit, "entityId", where, pattern=ENTITY_ID, example="document:notubiz:gemeente:soest:1")
            probe.field(hit, "title", where)
            probe.field(hit, "organization", where)
            if "sortDate" in hit:
                probe.field(hit, "sortDate", where, pattern=re.compile(r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}"),
                            example="2026-11-07T19:30:00Z")
    probe.check()
    first = results[0]["entityId"]
    read = await probe.get("read", f"/api/entities/{quote(first, safe='')}", as_json)
    if probe.expect(isinstance(read, dict), "read", "not an object"):
        probe.expect(read.get("entityId") == first, "read", f"asked for {first}, got {read.get('entityId')!r}")
        if "markdownText" in read:
            probe.field(read, "markdownText", "read")
        if "meetingId" in read:
            probe.field(read, "meetingId", "read", pattern=re.compile(r"^meeting:"), example="meeting:…")
    probe.check()
    await check_load(probe, plugin)


# How search and fetch (proxy.serving.crosssearch) reach this source.
SEARCH_ROUTE = SourceRoute("search_documents", "query", "id",
    ((re.compile(r"^(document|motion):", re.IGNORECASE), "read_document", "id"),
    (re.compile(r"^meeting:", re.IGNORECASE), "read_meeting", "id")),
    "document:notubiz:gemeente:altena:17194168, motion:…, meeting:…", organisation=True)


PLATFORM = PlatformPlugin(
    key="ori",
    tools=TOOLS,
    measure_load=measure_load,
    canary=canary,
    search_route=SEARCH_ROUTE,
    about=About(
    search_words=(
        ("raad", "raadsstuk", "motie", "vergadering", "agenda", "gemeente", "organisatie"),
        ("council", "meeting", "motion", "document", "agenda", "organisation")),
        documentation="https://openbesluitvorming.nl/docs/api",
        cannot=(
            "no exact totals for broad searches: totalIsApproximate marks an estimate",
            "no deep paging: a search reads at most about 6,000 index rows; bulk reading is by export only",
            "agenda items are not search hits: they come with a meeting's detail",
            "no mapping from Classic (numeric) Open Raadsinformatie ids to the new ids",
        ),
        quirks=(
            "organisation keys mix '_' and '-' and labels can be odd ('Bergen Nh'): names are resolved from "
            "/api/sources plus ori_aliases.json",
            "/api/sources starts with all_<supplier> rows that pass validation but match nothing",
            "date filters use whole UTC days while meetings are in Dutch time",
            "a token-bucket rate limit (60 units, 1/s) with RateLimit-* headers on every reply",
        ),
        cannot_nl=(
            "geen exacte totalen bij brede zoekvragen: totalIsApproximate markeert een schatting",
            "geen diep bladeren: een zoekvraag leest hooguit zo'n 6.000 indexrijen; alles uitlezen kan alleen via de "
            "export",
            "agendapunten zijn geen zoektreffers: ze komen mee met de details van een vergadering",
            "geen omzetting van de numerieke ids van het klassieke Open Raadsinformatie naar de nieuwe ids",
        ),
        quirks_nl=(
            "sleutels van organisaties mengen '_' en '-', en namen zijn soms vreemd ('Bergen Nh'): namen worden "
            "opgezocht in /api/sources plus ori_aliases.json",
            "/api/sources begint met rijen all_<leverancier> die door de controle komen maar niets vinden",
            "datumfilters rekenen in hele UTC-dagen, terwijl vergaderingen in Nederlandse tijd staan",
            "een snelheidslimiet (60 eenheden, één per seconde erbij) met RateLimit-*-headers bij elk antwoord",
        ),
    ),
)
