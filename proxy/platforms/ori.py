"""Open Raadsinformatie (ORI): council documents, meetings and agenda items of Dutch gemeenten, provincies
and waterschappen, collected by the Open State Foundation (with VNG).

Upstream: the Elasticsearch 7 cluster that nginx exposes read-only at
`https://api.openraadsinformatie.nl/v1/elastic/` (API docs:
https://github.com/openstate/open-raadsinformatie/blob/master/API-docs.md). nginx allows GET, and POST only
to `*_search`/`*_msearch`. There is one index per governing body (`ori_*` gemeenten, `osi_*` provincies,
`owi_*` waterschappen) with a timestamp suffix and a stable alias; slugs are irregular, so organisation
names are resolved against `GET /_aliases` plus each index's `Organization` record, never built.

Every search here is `POST /<indices>/_search?ignore_unavailable=true&allow_no_indices=true` with a JSON
body that always carries a `_source` include list (documents hold their full text three times) and a
`timeout` below ours, so a slow cluster answers `timed_out: true` instead of nothing. Precision comes from
what ES reports: `hits.total.relation` `eq` → exact, `gte` (ES stops counting at 10,000) → lower bound;
`timed_out` or `_shards.failed > 0` → partial. ES pages `from + size` only up to 10,000 hits; beyond, the
tools hand out a `search_after` cursor (sort values with an `_id` tiebreaker), as Open State's own bulk
scripts do (scroll is disabled).
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import difflib
import json
import re
import unicodedata
from collections.abc import Awaitable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any, TypeVar
from urllib.parse import quote

from proxy.caller import SYSTEM_CALLER
from proxy.clock import AMSTERDAM as TZ
from proxy.clock import is_stalled
from proxy.errors import ToolInputError
from proxy.platforms._common import (
    CHUNK_PROPS,
    DATE_RANGE_PROPS,
    PAGE_PROPS,
    chunk,
    chunk_output_props,
    cite,
    date_range,
    page,
)
from proxy.results import CITATION_SCHEMA, object_schema, precision, result_list_schema
from proxy.toolkit import About, LoadReport, OrganLoad, PlatformContext, PlatformPlugin, ToolCall, ToolImpl
from proxy.upstream import as_json

__all__ = ["PLATFORM", "TOOLS", "measure_load"]

A = TypeVar("A")
B = TypeVar("B")


ALL_INDICES = "ori_*,osi_*,owi_*"
SEARCH_QUERY = "?ignore_unavailable=true&allow_no_indices=true"
MAX_RESULT_WINDOW = 10_000  # ES index.max_result_window: from + size beyond it is a 400
ES_TIMEOUT = "15s"  # below the registry's 20 s total timeout, so ES answers partially rather than not at all
# The registry's load_status.stalled_after_days (60) drives the Laadstatus page; a tool cannot read the
# registry, so it uses the same default here (60 days also covers the summer recess).
LD_BASE = "https://id.openraadsinformatie.nl/"
SEARCH_UI = "https://openbesluitvorming.nl/"
MEDIA: Mapping[str, str] = {"Municipality": "gemeente", "Province": "provincie", "Water board": "waterschap"}
PREFIX_MEDIUM: Mapping[str, str] = {"ori": "gemeente", "osi": "provincie", "owi": "waterschap"}
_TIMESTAMP = re.compile(r"_(\d{14})$")
# The ORI resolver answers 404 for documents of these hosts (research §1.7): cite the original there.
RESOLVER_404_HOSTS = ("raad.hardinxveld-giessendam.nl", "ris.gemeenteraadhuizen.nl")
_KIND_WORDS = ("gemeente ", "provincie ", "waterschap ", "hoogheemraadschap van ", "hoogheemraadschap ",
               "wetterskip ", "stadsdeel ")

DOCUMENT_FIELDS = ["@id", "@type", "name", "file_name", "url", "original_url", "content_type", "size_in_bytes",
                   "last_discussed_at", "date_modified", "has_organization_name"]
MEETING_FIELDS = ["@id", "@type", "name", "start_date", "end_date", "last_discussed_at", "location", "status",
                  "committee", "parent", "position", "attachment", "has_organization_name"]
# Document kinds are not a field in ORI: they are recognised by words in the title (ORI's own advice for
# motions: search `name:motie`). The Dutch analyser stems plurals.
DOCUMENT_TYPES: Mapping[str, str] = {
    "motie": "motie",
    "amendement": "amendement",
    "raadsvoorstel": "raadsvoorstel statenvoorstel voordracht voorstel",
    "besluit": "raadsbesluit statenbesluit besluit",
    "besluitenlijst": "besluitenlijst",
    "notulen": "notulen verslag",
    "informatiebrief": "raadsinformatiebrief statenbrief informatiebrief raadsbrief collegebrief informatiememo",
    "schriftelijke_vragen": "vragen beantwoording",
    "agenda": "agenda",
    "bijlage": "bijlage",
}


# =========================================================================== transport


@dataclass(frozen=True, slots=True)
class _Api:
    """ORI calls on behalf of one caller (a tool call, or the load-status measurement)."""

    ctx: PlatformContext
    caller: str
    tool: str | None

    async def search(self, indices: str, body: Mapping[str, Any]) -> dict[str, Any]:
        # A search is a read: safe to retry on a dropped connection.
        return await self.ctx.upstream.post_json(f"/{indices}/_search{SEARCH_QUERY}", body, _parse_search,
                                                 caller=self.caller, tool=self.tool, idempotent=True)

    async def aliases(self) -> dict[str, list[str]]:
        return await self.ctx.upstream.get("/_aliases", _parse_aliases, caller=self.caller, tool=self.tool)


def _api(call: ToolCall) -> _Api:
    return _Api(call.ctx, call.caller, call.tool)


async def _both(first: Awaitable[A], second: Awaitable[B]) -> tuple[A, B]:
    """Two calls at once; both finish (nothing keeps running after the tool returns), then the first error wins."""
    a, b = await asyncio.gather(first, second, return_exceptions=True)
    for outcome in (a, b):
        if isinstance(outcome, BaseException):
            raise outcome
    return a, b  # type: ignore[return-value]


def _parse_search(body: bytes) -> dict[str, Any]:
    reply = as_json(body)
    if not isinstance(reply, dict) or not isinstance(reply.get("hits"), dict) \
            or not isinstance(reply["hits"].get("hits"), list):
        raise ValueError("not an Elasticsearch search reply")
    return reply


def _parse_aliases(body: bytes) -> dict[str, list[str]]:
    reply = as_json(body)
    if not isinstance(reply, dict):
        raise ValueError("not an Elasticsearch _aliases reply")
    return {index: sorted((entry or {}).get("aliases") or {}) for index, entry in reply.items()}


# =========================================================================== organisations


@dataclass(frozen=True, slots=True)
class Organisation:
    """One governing body: its stable index name (alias, or the concrete index when it has none)."""

    index: str
    indices: tuple[str, ...]
    name: str
    medium: str
    classification: str | None
    homepage: str | None
    superseded_by: str | None = None  # an older unaliased index beside the current one


@dataclass(frozen=True, slots=True)
class _Catalogue:
    organisations: tuple[Organisation, ...]  # current ones, sorted by name
    superseded: tuple[Organisation, ...]
    by_index: Mapping[str, Organisation]  # concrete index → organisation
    records_complete: bool

    def of_index(self, concrete: str) -> Organisation:
        found = self.by_index.get(concrete)
        if found is not None:
            return found
        base = _TIMESTAMP.sub("", concrete)
        return Organisation(index=base, indices=(concrete,), name=_pretty(base), medium=_medium_of(base, None),
                            classification=None, homepage=None)

    def resolve(self, wanted: Sequence[str]) -> list[Organisation]:
        """Organisations named by index or name; a clear ToolInputError for unknown or ambiguous names."""
        out: list[Organisation] = []
        for value in wanted:
            org = self._resolve_one(value)
            if org not in out:
                out.append(org)
        return out

    def _resolve_one(self, value: str) -> Organisation:
        raw = value.strip().lower()
        everything = (*self.organisations, *self.superseded)
        for org in everything:
            if raw == org.index or raw in org.indices:
                return org
        wanted = _norm(value)
        full = [o for o in self.organisations if _norm(o.name) == wanted]
        if len(full) == 1:
            return full[0]
        short = [o for o in self.organisations if wanted in _short_keys(o)]
        if len(short) == 1:
            return short[0]
        if short:
            options = ", ".join(f"{o.name} ({o.index})" for o in short)
            raise ToolInputError(f"{value!r} matches several organisations: {options}; pass the full name or the index")
        keys = {k: o for o in self.organisations for k in (*_short_keys(o), _norm(o.name))}
        close = difflib.get_close_matches(wanted, list(keys), n=3, cutoff=0.75)
        hint = "; did you mean " + ", ".join(f"{keys[k].name} ({keys[k].index})" for k in close) + "?" if close else ""
        raise ToolInputError(f"unknown organisation {value!r}{hint} list_organisations lists the "
                             f"{len(self.organisations)} organisations with their index")


def _norm(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    plain = "".join(c for c in decomposed if not unicodedata.combining(c))
    return " ".join(re.sub(r"[^a-z0-9]+", " ", plain).split())


def _short_keys(org: Organisation) -> set[str]:
    slug = org.index.split("_", 1)[1] if "_" in org.index else org.index
    keys = {_norm(slug)}
    name = _norm(org.name)
    for word in _KIND_WORDS:
        if name.startswith(_norm(word) + " "):
            keys.add(name[len(_norm(word)) + 1:])
    return keys


def _pretty(index: str) -> str:
    slug = index.split("_", 1)[1] if "_" in index else index
    return " ".join(part.capitalize() for part in re.split(r"[_-]+", slug))


def _medium_of(index: str, classification: str | None) -> str:
    if classification in MEDIA:
        return MEDIA[classification]
    return PREFIX_MEDIUM.get(index.split("_", 1)[0], "gemeente")


async def _catalogue(api: _Api) -> _Catalogue:
    """`GET /_aliases` plus every index's top-level Organization record (both cached upstream)."""
    body = {"size": 1000, "_source": ["name", "classification", "collection", "homepage"],
            "query": {"bool": {"filter": [
                {"term": {"@type": "Organization"}},
                {"terms": {"classification.keyword": list(MEDIA)}}]}}}
    aliases, records = await _both(api.aliases(), api.search(ALL_INDICES, body))
    by_concrete: dict[str, dict[str, Any]] = {}
    for hit in records["hits"]["hits"]:
        by_concrete.setdefault(hit["_index"], hit.get("_source") or {})
    ours = {i: a for i, a in aliases.items() if i.split("_", 1)[0] in PREFIX_MEDIUM}
    alias_names = {a for names in ours.values() for a in names}
    grouped: dict[str, list[str]] = {}
    superseded: list[Organisation] = []
    for concrete, names in sorted(ours.items()):
        if names:
            grouped.setdefault(names[0], []).append(concrete)
            continue
        base = _TIMESTAMP.sub("", concrete)
        if base in alias_names:
            superseded.append(_organisation(concrete, (concrete,), by_concrete, superseded_by=base))
        else:
            grouped.setdefault(concrete, []).append(concrete)
    organisations = [_organisation(index, tuple(indices), by_concrete) for index, indices in grouped.items()]
    organisations.sort(key=lambda o: (_norm(o.name), o.index))
    by_index = {c: o for o in (*organisations, *superseded) for c in o.indices}
    total = records["hits"].get("total")
    complete = len(records["hits"]["hits"]) >= (total.get("value", 0) if isinstance(total, dict) else total or 0)
    return _Catalogue(tuple(organisations), tuple(superseded), by_index, complete and not _is_partial(records))


def _organisation(index: str, indices: tuple[str, ...], records: Mapping[str, Mapping[str, Any]], *,
                  superseded_by: str | None = None) -> Organisation:
    record = next((records[i] for i in indices if i in records), {})
    classification = record.get("classification")
    classification = classification[0] if isinstance(classification, list) and classification else classification
    return Organisation(index=index, indices=indices, name=str(record.get("name") or _pretty(index)),
                        medium=_medium_of(index, classification if isinstance(classification, str) else None),
                        classification=classification if isinstance(classification, str) else None,
                        homepage=record.get("homepage"), superseded_by=superseded_by)


@dataclass(frozen=True, slots=True)
class _Newest:
    """The newest meeting date (not in the future) per concrete index, from one aggregation."""

    by_index: Mapping[str, date]
    partial: bool

    def of(self, org: Organisation) -> date | None:
        dates = [self.by_index[i] for i in org.indices if i in self.by_index]
        return max(dates) if dates else None


async def _newest(api: _Api, indices: str, today: date) -> _Newest:
    """Meetings and agenda items stop exactly where ingestion stopped; documents may carry future dates."""
    body = {"size": 0, "timeout": ES_TIMEOUT,
            "query": {"bool": {"filter": [
                {"terms": {"@type": ["Meeting", "AgendaItem"]}},
                {"range": {"last_discussed_at": _day_range(lte=today)}}]}},
            "aggs": {"per_index": {"terms": {"field": "_index", "size": 1000},
                                   "aggs": {"newest": {"max": {"field": "last_discussed_at"}}}}}}
    reply = await api.search(indices, body)
    by_index: dict[str, date] = {}
    for bucket in reply.get("aggregations", {}).get("per_index", {}).get("buckets", []):
        value = (bucket.get("newest") or {}).get("value")
        if isinstance(value, int | float):
            by_index[str(bucket["key"])] = datetime.fromtimestamp(value / 1000, TZ).date()
    return _Newest(by_index, _is_partial(reply))


def _org_status(org: Organisation, newest: _Newest, today: date, days: int) -> dict[str, Any]:
    through = newest.of(org)
    return {"name": org.name, "index": org.index, "medium": org.medium,
            "current_through": through.isoformat() if through else None, "stalled": is_stalled(through, today, days)}


def _stall_notes(statuses: Iterable[Mapping[str, Any]]) -> list[str]:
    return [f"{s['name']} ({s['index']}) stands still: its newest meeting in ORI is {s['current_through'] or 'missing'}"
            f"; an empty or short result there is no proof that nothing exists" for s in statuses if s["stalled"]]


# =========================================================================== shared request pieces


def _day_range(*, gte: date | None = None, lte: date | None = None) -> dict[str, Any]:
    """A whole-day range in Dutch time; `format` is required because ORI maps dates as strict_date_time."""
    out: dict[str, Any] = {}
    if gte:
        out["gte"] = f"{gte.isoformat()}||/d"
    if lte:
        out["lte"] = f"{lte.isoformat()}||/d"
    return {**out, "format": "strict_date_optional_time", "time_zone": "Europe/Amsterdam"}


def _sort(order: str, date_field: str) -> list[dict[str, Any]]:
    # `_id` breaks ties so search_after cursors are stable.
    if order == "relevance":
        return [{"_score": {"order": "desc"}}, {"_id": {"order": "asc"}}]
    return [{date_field: {"order": "desc" if order == "newest" else "asc", "unmapped_type": "date"}},
            {"_id": {"order": "asc"}}]


def _paging(call: ToolCall) -> tuple[int, int, list[Any] | None, list[str]]:
    """(limit, offset, search_after, notes); ES refuses from + size beyond 10,000, so say so first."""
    limit, offset, notes = page(call)
    cursor = call.arguments.get("cursor")
    after = _decode_cursor(cursor) if cursor else None
    if after is not None and offset:
        raise ToolInputError("pass either offset or cursor, not both (cursor continues where the last page ended)")
    if offset + limit > MAX_RESULT_WINDOW:
        raise ToolInputError(f"ORI pages only through the first {MAX_RESULT_WINDOW:,} hits (offset {offset} + limit "
                             f"{limit}); continue with next_cursor from the previous page, or narrow the search")
    return limit, offset, after, notes


def _decode_cursor(cursor: str) -> list[Any]:
    try:
        values = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
    except (binascii.Error, ValueError) as exc:
        raise ToolInputError("cursor is not one this tool returned; start again without it") from exc
    if not isinstance(values, list) or not values:
        raise ToolInputError("cursor is not one this tool returned; start again without it")
    return values


def _encode_cursor(values: list[Any]) -> str:
    return base64.urlsafe_b64encode(json.dumps(values, separators=(",", ":")).encode()).decode().rstrip("=")


def _is_partial(reply: Mapping[str, Any]) -> bool:
    return bool(reply.get("timed_out")) or int((reply.get("_shards") or {}).get("failed") or 0) > 0


def _precision(reply: Mapping[str, Any], *, returned: int, offset: int, limit: int, cursor_used: bool,
               matched: str, not_applied: list[str]) -> tuple[dict[str, Any], str | None]:
    """Zoekprecisie from the ES reply, plus the search_after cursor for the next page (or None)."""
    total = reply["hits"].get("total")
    if isinstance(total, dict):
        value: int | None = int(total.get("value", 0))
        relation = "exact" if total.get("relation") == "eq" else "lower_bound"
    elif isinstance(total, int):  # ES 6 style
        value, relation = total, "exact"
    else:
        value, relation = None, "unknown"
    seen = offset + returned
    if cursor_used or value is None:
        more = returned == limit and returned > 0
    else:
        more = value > seen or (relation == "lower_bound" and returned == limit)
    shards = reply.get("_shards") or {}
    notes = list(not_applied)
    if reply.get("timed_out"):
        notes.append(f"ORI stopped searching after {ES_TIMEOUT}: the hits are what it found in time")
    if int(shards.get("failed") or 0):
        notes.append(f"{shards['failed']} of {shards.get('total')} ORI index shards failed: their hits are missing")
    hits = reply["hits"]["hits"]
    cursor = _encode_cursor(hits[-1]["sort"]) if more and hits and hits[-1].get("sort") else None
    next_offset = seen if more and not cursor_used and seen < MAX_RESULT_WINDOW else None
    return precision(total=value, total_relation=relation, returned=returned, truncated=more, matched=matched,
                     not_applied=notes, partial=_is_partial(reply), next_offset=next_offset), cursor


def _moment(value: Any) -> datetime | None:
    if not isinstance(value, str) or not value:
        return None
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=TZ)


def _day(value: Any) -> str | None:
    moment = _moment(value)
    return moment.astimezone(TZ).date().isoformat() if moment else None


def _status(uri: Any) -> str | None:
    """`https://argu.co/ns/meeting/EventCompleted` → `completed`."""
    if not isinstance(uri, str) or not uri:
        return None
    last = re.split(r"[/#]", uri)[-1]
    return last[5:].lower() if last.startswith("Event") else last.lower()


def _ids(value: Any) -> list[str]:
    if isinstance(value, dict):
        value = value.get("@list", [])
    if value is None:
        return []
    return [str(v) for v in (value if isinstance(value, list) else [value])]


def _one(value: Any) -> str | None:
    items = _ids(value)
    return items[0] if items else None


def _ld(ori_id: str) -> str:
    return LD_BASE + ori_id


def _search_ui(ori_id: str, index: str) -> str:
    """openbesluitvorming.nl showing one resource (the value of showResource is encoded twice, as the UI does)."""
    shown = quote(quote(_ld(ori_id), safe=""), safe="")
    return f"{SEARCH_UI}?organisaties={quote(json.dumps([index]), safe='')}&showResource={shown}"


def _document_link(source: Mapping[str, Any], ori_id: str) -> str:
    """The resolver link, the original where the resolver is known to fail, else the Linked Data id."""
    url, original = source.get("url"), source.get("original_url")
    if isinstance(url, str) and url and not any(f"/resolve/{host}/" in url for host in RESOLVER_404_HOSTS):
        return url
    return str(original or url or _ld(ori_id))


def _clean(text: str) -> str:
    return " ".join(text.replace("\uf0b7", " ").split())


def _text_query(query: str, fields: list[str]) -> dict[str, Any]:
    return {"simple_query_string": {"query": query, "fields": fields, "default_operator": "and"}}


def _where(orgs: Sequence[Organisation], catalogue: _Catalogue) -> tuple[str, list[dict[str, Any]]]:
    """The index path to search, and the must_not that keeps superseded copies out of an all-index search."""
    if orgs:
        return ",".join(dict.fromkeys(o.index for o in orgs)), []
    old = [c for o in catalogue.superseded for c in o.indices]
    return ALL_INDICES, ([{"terms": {"_index": old}}] if old else [])


async def _scope(call: ToolCall, api: _Api, names: Sequence[str]) -> tuple[_Catalogue, list[Organisation],
                                                                             list[dict[str, Any]]]:
    """Resolve the organisation filter; with one, also how current each is (an aggregation, cached)."""
    catalogue = await _catalogue(api)
    orgs = catalogue.resolve(names)
    if not orgs:
        return catalogue, orgs, []
    today = call.ctx.today()
    newest = await _newest(api, ",".join(dict.fromkeys(o.index for o in orgs)), today)
    return catalogue, orgs, [_org_status(o, newest, today, call.ctx.stalled_after_days) for o in orgs]


# =========================================================================== schemas

ORGANISATIONS_PROP: dict[str, Any] = {
    "type": "array", "maxItems": 20, "uniqueItems": True,
    "items": {"type": "string", "minLength": 2, "maxLength": 120},
    "description": "Organisations to search, by name ('Utrecht', 'Provincie Gelderland', 'Hoogheemraadschap van "
                   "Delfland') or index ('ori_utrecht'); list_organisations has them all. Leave out to search all.",
}
SORT_PROP: dict[str, Any] = {
    "enum": ["relevance", "newest", "oldest"], "default": "relevance",
    "description": "Order: best match first, or by meeting date.",
}
CURSOR_PROP: dict[str, Any] = {
    "type": "string", "maxLength": 2000,
    "description": "next_cursor from the previous page, to read on past 10,000 hits (use instead of offset).",
}
MEETING_DATE_PROPS: dict[str, Any] = {
    "date_from": {**DATE_RANGE_PROPS["date_from"], "description": "Earliest meeting date, YYYY-MM-DD (inclusive)."},
    "date_to": {**DATE_RANGE_PROPS["date_to"], "description": "Latest meeting date, YYYY-MM-DD (inclusive)."},
}
_NULLABLE_STR: dict[str, Any] = {"type": ["string", "null"]}
_ORG_STATUS_SCHEMA = object_schema({
    "name": {"type": "string"},
    "index": {"type": "string", "description": "ORI index (alias) of the organisation."},
    "medium": {"enum": ["gemeente", "provincie", "waterschap"]},
    "current_through": {**_NULLABLE_STR, "description": "Newest meeting date in ORI, not in the future."},
    "stalled": {"type": "boolean",
                "description": "No meeting within the installation's stalled_after_days (see platform_status)."},
})
_SEARCH_EXTRA: dict[str, Any] = {
    "searched": object_schema({
        "all_organisations": {"type": "boolean"},
        "organisations": {"type": "array", "items": _ORG_STATUS_SCHEMA,
                          "description": "The organisations searched, with how current each is."},
    }, description="Where the search looked: every organisation, or these."),
    "notes": {"type": "array", "items": {"type": "string"}},
    "next_cursor": {**_NULLABLE_STR, "description": "Pass as cursor for the next page; null at the end."},
}


def _input(properties: Mapping[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": dict(properties), "required": required, "additionalProperties": False}


# =========================================================================== search_documents

SEARCH_DOCUMENTS_INPUT = _input({
    "query": {"type": "string", "minLength": 1, "maxLength": 500,
              "description": "Words to find in the text and title. All words must occur; \"quotes\" for a phrase, "
                             "-word to exclude, word* for a prefix, | for OR. Dutch stemming applies."},
    "organisations": ORGANISATIONS_PROP,
    **MEETING_DATE_PROPS,
    "document_type": {"enum": list(DOCUMENT_TYPES),
                      "description": "Kind of document, recognised by words in its title (ORI has no type field)."},
    "sort": SORT_PROP,
    **PAGE_PROPS,
    "cursor": CURSOR_PROP,
}, ["query"])

SEARCH_DOCUMENTS_OUTPUT = result_list_schema({
    "id": {"type": "string", "description": "ORI id; read it with read_document."},
    "title": {"type": "string"},
    "organisation": {"type": "string"},
    "index": {"type": "string"},
    "medium": {"enum": ["gemeente", "provincie", "waterschap"]},
    "date": {**_NULLABLE_STR, "description": "Date of the last meeting that discussed the document."},
    "date_modified": _NULLABLE_STR,
    "content_type": _NULLABLE_STR,
    "size_in_bytes": {"type": ["integer", "null"]},
    "url": {**_NULLABLE_STR, "description": "ORI resolver link to the file."},
    "original_url": {**_NULLABLE_STR, "description": "The file at the council information system."},
    "snippet": {"type": "string"},
    "score": {"type": ["number", "null"]},
}, extra=_SEARCH_EXTRA)


async def search_documents(call: ToolCall) -> dict[str, Any]:
    args = call.arguments
    api = _api(call)
    limit, offset, after, notes = _paging(call)
    start, end = date_range(call)
    order = str(args.get("sort", "relevance"))
    catalogue, orgs, statuses = await _scope(call, api, args.get("organisations") or [])
    path, must_not = _where(orgs, catalogue)
    query = str(args["query"])
    filters: list[dict[str, Any]] = [{"term": {"@type": "MediaObject"}}]
    matched = [f'simple_query_string "{query}" (all words; Dutch stemming) in the text, title, description and '
               "name of documents (MediaObject)"]
    if start or end:
        filters.append({"range": {"last_discussed_at": _day_range(gte=start, lte=end)}})
        matched.append(f"meeting date (last_discussed_at) {start or '…'} to {end or '…'}")
    kind = args.get("document_type")
    if kind:
        filters.append({"match": {"name": {"query": DOCUMENT_TYPES[kind], "operator": "or"}}})
        matched.append(f"document type '{kind}': the title holds one of: {DOCUMENT_TYPES[kind].replace(' ', ', ')}")
    body: dict[str, Any] = {
        "size": limit, "timeout": ES_TIMEOUT, "_source": DOCUMENT_FIELDS,
        "query": {"bool": {"must": [_text_query(query, ["text", "title", "description", "name"])],
                           "filter": filters, **({"must_not": must_not} if must_not else {})}},
        "sort": _sort(order, "last_discussed_at"),
        "highlight": {"pre_tags": [""], "post_tags": [""],
                      "fields": {"text": {"fragment_size": 220, "number_of_fragments": 2, "no_match_size": 220}}},
    }
    body.update({"search_after": after} if after is not None else {"from": offset})
    reply = await api.search(path, body)
    results = [_document_hit(call.ctx, hit, catalogue) for hit in reply["hits"]["hits"]]
    matched.append(f"sorted by {order}")
    prec, cursor = _precision(reply, returned=len(results), offset=offset, limit=limit, cursor_used=after is not None,
                              matched="; ".join(matched), not_applied=notes)
    return {"results": results, "precision": prec, "searched": _searched(statuses),
            "notes": _stall_notes(statuses), "next_cursor": cursor}


def _searched(statuses: list[dict[str, Any]]) -> dict[str, Any]:
    return {"all_organisations": not statuses, "organisations": statuses}


def _document_hit(ctx: PlatformContext, hit: Mapping[str, Any], catalogue: _Catalogue) -> dict[str, Any]:
    source = hit.get("_source") or {}
    org = catalogue.of_index(str(hit.get("_index")))
    ori_id = str(source.get("@id") or hit.get("_id"))
    title = _clean(str(source.get("name") or source.get("file_name") or f"document {ori_id}"))
    fragments = (hit.get("highlight") or {}).get("text") or []
    snippet = _clean(" … ".join(fragments)) or title
    day = _day(source.get("last_discussed_at"))
    size = source.get("size_in_bytes")
    url, original = source.get("url"), source.get("original_url")
    return {
        "id": ori_id, "title": title, "organisation": org.name, "index": org.index, "medium": org.medium,
        "date": day, "date_modified": _day(source.get("date_modified")),
        "content_type": source.get("content_type"), "size_in_bytes": size if isinstance(size, int) else None,
        "url": url, "original_url": original, "snippet": snippet,
        "score": hit.get("_score") if isinstance(hit.get("_score"), int | float) else None,
        "citation": cite(ctx, uri=_document_link(source, ori_id),
                         title=f"{title} ({org.name}, {day or 'no meeting date'})", text=snippet),
    }


# =========================================================================== read_document

READ_DOCUMENT_INPUT = _input({
    "id": {"type": "string", "pattern": r"^\s*(https?://id\.openraadsinformatie\.nl/)?[0-9]{1,15}\s*$",
           "description": "ORI document id from search_documents (or its https://id.openraadsinformatie.nl/ link)."},
    **CHUNK_PROPS,
}, ["id"])

READ_DOCUMENT_OUTPUT = object_schema({
    "id": {"type": "string"},
    "title": {"type": "string"},
    "organisation": {"type": "string"},
    "index": {"type": "string"},
    "date": {**_NULLABLE_STR, "description": "Date of the last meeting that discussed the document."},
    "content_type": _NULLABLE_STR,
    "url": _NULLABLE_STR,
    "original_url": _NULLABLE_STR,
    "page_count": {"type": "integer", "description": "Pages of extracted text."},
    "page_from": {"type": ["integer", "null"], "description": "Page where this chunk starts."},
    "page_to": {"type": ["integer", "null"], "description": "Page where this chunk ends."},
    **chunk_output_props(),
    "citation": CITATION_SCHEMA,
})
PAGE_BREAK = "\n\n"


async def read_document(call: ToolCall) -> dict[str, Any]:
    raw = str(call.arguments["id"]).strip()
    ori_id = raw.removeprefix("https://").removeprefix("http://").removeprefix("id.openraadsinformatie.nl/")
    if not ori_id.isdigit():
        raise ToolInputError(f"id must be an ORI id such as '6074541' (from search_documents), got {raw!r}")
    api = _api(call)
    body = {"size": 1, "_source": [*DOCUMENT_FIELDS, "text"], "query": {"ids": {"values": [ori_id]}}}
    reply, catalogue = await _both(api.search(ALL_INDICES, body), _catalogue(api))
    hits = reply["hits"]["hits"]
    if not hits:
        raise ToolInputError(f"ORI has no record with id {ori_id}; take ids from search_documents")
    hit = hits[0]
    source = hit.get("_source") or {}
    if source.get("@type") != "MediaObject":
        raise ToolInputError(f"id {ori_id} is a {source.get('@type')}, not a document; search_meetings shows "
                             "meetings and agenda items, and their attachments are document ids")
    pages = source.get("text") or []
    pages = [str(p) for p in (pages if isinstance(pages, list) else [pages])]
    text = PAGE_BREAK.join(pages)
    part = chunk(text, call)
    starts, position = [], 0
    for content in pages:
        starts.append(position)
        position += len(content) + len(PAGE_BREAK)
    page_from = _page_at(starts, part["offset"]) if pages else None
    page_to = _page_at(starts, max(part["offset"], part["offset"] + part["length"] - 1)) if pages else None
    org = catalogue.of_index(str(hit.get("_index")))
    title = _clean(str(source.get("name") or source.get("file_name") or f"document {ori_id}"))
    day = _day(source.get("last_discussed_at"))
    url, original = source.get("url"), source.get("original_url")
    where = f", p. {page_from}" + (f"–{page_to}" if page_to != page_from else "") if page_from else ""
    return {
        "id": ori_id, "title": title, "organisation": org.name, "index": org.index, "date": day,
        "content_type": source.get("content_type"), "url": url, "original_url": original,
        "page_count": len(pages), "page_from": page_from, "page_to": page_to, **part,
        "citation": cite(call.ctx, uri=_document_link(source, ori_id),
                         title=f"{title} ({org.name}, {day or 'no meeting date'}{where})",
                         text=_clean(part["text"][:300]) or title),
    }


def _page_at(starts: list[int], offset: int) -> int:
    number = 1
    for i, start in enumerate(starts, start=1):
        if start <= offset:
            number = i
    return number


# =========================================================================== meetings: shared

_AGENDA_ITEM_SCHEMA = object_schema({
    "id": {"type": "string"},
    "title": {"type": "string"},
    "position": {"type": ["number", "null"]},
    "attachments": {"type": "array", "items": {"type": "string"}, "description": "Document ids (read_document)."},
})


async def _lookup(api: _Api, path: str, ids: Iterable[str]) -> dict[str, Mapping[str, Any]]:
    """Records by id in one call (agenda items, committees, parent meetings)."""
    wanted = list(dict.fromkeys(ids))[:1000]
    if not wanted:
        return {}
    body = {"size": len(wanted), "_source": ["@id", "@type", "name", "start_date", "position", "attachment"],
            "query": {"ids": {"values": wanted}}}
    reply = await api.search(path, body)
    return {str(h["_id"]): h.get("_source") or {} for h in reply["hits"]["hits"]}


def _agenda(meeting: Mapping[str, Any], records: Mapping[str, Mapping[str, Any]]) -> list[dict[str, Any]]:
    items = []
    for item_id in _ids(meeting.get("agenda")):
        record = records.get(item_id)
        if record is None:
            continue
        position = record.get("position")
        items.append({"id": item_id, "title": _clean(str(record.get("name") or "")),
                      "position": position if isinstance(position, int | float) else None,
                      "attachments": _ids(record.get("attachment"))})
    return items


# =========================================================================== upcoming_meetings

UPCOMING_INPUT = _input({
    "organisation": {"type": "string", "minLength": 2, "maxLength": 120,
                     "description": "Organisation by name ('Utrecht', 'Provincie Gelderland') or index "
                                    "('ori_utrecht')."},
    "days": {"type": "integer", "minimum": 1, "maximum": 366, "default": 30,
             "description": "How far ahead to look, in days from today (server clock, Dutch time)."},
    **PAGE_PROPS,
}, ["organisation"])

UPCOMING_OUTPUT = result_list_schema({
    "id": {"type": "string"},
    "title": {"type": "string"},
    "start": _NULLABLE_STR,
    "end": _NULLABLE_STR,
    "location": _NULLABLE_STR,
    "status": {**_NULLABLE_STR, "description": "confirmed, scheduled, cancelled, ... as the council system says."},
    "committee": _NULLABLE_STR,
    "agenda": {"type": "array", "items": _AGENDA_ITEM_SCHEMA},
}, extra={
    "organisation": _ORG_STATUS_SCHEMA,
    "period": object_schema({"from": {"type": "string"}, "to": {"type": "string"}}),
    "notes": {"type": "array", "items": {"type": "string"}},
})


async def upcoming_meetings(call: ToolCall) -> dict[str, Any]:
    args = call.arguments
    api = _api(call)
    limit, offset, notes = page(call)
    if offset + limit > MAX_RESULT_WINDOW:
        raise ToolInputError(f"ORI pages only through the first {MAX_RESULT_WINDOW:,} hits; lower offset or days")
    _, orgs, statuses = await _scope(call, api, [str(args["organisation"])])
    org = orgs[0]
    today = call.ctx.today()
    until = today + timedelta(days=int(args.get("days", 30)))
    body = {"size": limit, "from": offset, "timeout": ES_TIMEOUT, "_source": [*MEETING_FIELDS, "agenda"],
            "query": {"bool": {"filter": [{"term": {"@type": "Meeting"}},
                                          {"range": {"start_date": _day_range(gte=today, lte=until)}}]}},
            "sort": _sort("oldest", "start_date")}
    reply = await api.search(org.index, body)
    hits = reply["hits"]["hits"]
    sources = [h.get("_source") or {} for h in hits]
    records = await _lookup(api, org.index, [*(i for s in sources for i in _ids(s.get("agenda"))),
                                             *(c for s in sources if (c := _one(s.get("committee"))))])
    results = []
    for hit, source in zip(hits, sources, strict=True):
        ori_id = str(source.get("@id") or hit.get("_id"))
        title = _clean(str(source.get("name") or "vergadering"))
        committee = records.get(_one(source.get("committee")) or "", {}).get("name")
        agenda = _agenda(source, records)
        start = source.get("start_date")
        summary = "; ".join(a["title"] for a in agenda[:6]) or title
        results.append({
            "id": ori_id, "title": title, "start": start, "end": source.get("end_date"),
            "location": source.get("location"), "status": _status(source.get("status")),
            "committee": committee, "agenda": agenda,
            "citation": cite(call.ctx, uri=_search_ui(ori_id, org.index),
                             title=f"{title} ({org.name}, {_day(start) or 'no date'})", text=summary),
        })
    matched = (f"meetings of {org.name} ({org.index}) starting {today} to {until} (Dutch time), by start time; "
               "ORI lists what the council information system published so far")
    prec, _ = _precision(reply, returned=len(results), offset=offset, limit=limit, cursor_used=False,
                         matched=matched, not_applied=notes)
    return {"results": results, "precision": prec, "organisation": statuses[0],
            "period": {"from": today.isoformat(), "to": until.isoformat()}, "notes": _stall_notes(statuses)}


# =========================================================================== search_meetings

KINDS: Mapping[str, list[str]] = {"all": ["Meeting", "AgendaItem"], "meetings": ["Meeting"],
                                  "agenda_items": ["AgendaItem"]}

SEARCH_MEETINGS_INPUT = _input({
    "query": {"type": "string", "minLength": 1, "maxLength": 500,
              "description": "Words in the meeting or agenda item title; all must occur. Leave out to list by date."},
    "organisations": ORGANISATIONS_PROP,
    **MEETING_DATE_PROPS,
    "kind": {"enum": list(KINDS), "default": "all", "description": "Meetings, agenda items, or both."},
    "sort": {**SORT_PROP, "description": "Order: best match first (the default with a query), or by meeting date "
                                         "(newest is the default without a query)."},
    **PAGE_PROPS,
    "cursor": CURSOR_PROP,
}, [])

SEARCH_MEETINGS_OUTPUT = result_list_schema({
    "id": {"type": "string"},
    "type": {"enum": ["meeting", "agenda_item"]},
    "title": {"type": "string"},
    "start": _NULLABLE_STR,
    "date": _NULLABLE_STR,
    "organisation": {"type": "string"},
    "index": {"type": "string"},
    "meeting": {"anyOf": [{"type": "null"}, object_schema({
        "id": {"type": "string"}, "title": _NULLABLE_STR, "start": _NULLABLE_STR})],
        "description": "For an agenda item: the meeting it belongs to."},
    "status": _NULLABLE_STR,
    "location": _NULLABLE_STR,
    "attachments": {"type": "array", "items": {"type": "string"}, "description": "Document ids (read_document)."},
}, extra=_SEARCH_EXTRA)


async def search_meetings(call: ToolCall) -> dict[str, Any]:
    args = call.arguments
    api = _api(call)
    limit, offset, after, notes = _paging(call)
    start, end = date_range(call)
    query = args.get("query")
    order = str(args.get("sort") or ("relevance" if query else "newest"))
    kind = str(args.get("kind", "all"))
    catalogue, orgs, statuses = await _scope(call, api, args.get("organisations") or [])
    path, must_not = _where(orgs, catalogue)
    filters: list[dict[str, Any]] = [{"terms": {"@type": KINDS[kind]}}]
    matched = [f"{' and '.join(KINDS[kind])} records"]
    if query:
        matched.append(f'simple_query_string "{query}" (all words; Dutch stemming) in name and description')
    if start or end:
        filters.append({"range": {"last_discussed_at": _day_range(gte=start, lte=end)}})
        matched.append(f"meeting date {start or '…'} to {end or '…'}")
    if order == "relevance" and not query:
        notes.append("sort 'relevance' needs a query; sorted newest first instead")
        order = "newest"
    bool_query: dict[str, Any] = {"filter": filters, **({"must_not": must_not} if must_not else {})}
    if query:
        bool_query["must"] = [_text_query(str(query), ["name", "description"])]
    body: dict[str, Any] = {"size": limit, "timeout": ES_TIMEOUT, "_source": MEETING_FIELDS,
                            "query": {"bool": bool_query}, "sort": _sort(order, "last_discussed_at")}
    body.update({"search_after": after} if after is not None else {"from": offset})
    reply = await api.search(path, body)
    hits = reply["hits"]["hits"]
    found = {str(h["_id"]) for h in hits}
    parents = [p for h in hits if (p := _one((h.get("_source") or {}).get("parent"))) and p not in found]
    records = await _lookup(api, path, parents)
    records.update({str(h["_id"]): h.get("_source") or {} for h in hits})
    results = [_meeting_hit(call.ctx, hit, catalogue, records) for hit in hits]
    matched.append(f"sorted by {order}")
    prec, cursor = _precision(reply, returned=len(results), offset=offset, limit=limit, cursor_used=after is not None,
                              matched="; ".join(matched), not_applied=notes)
    return {"results": results, "precision": prec, "searched": _searched(statuses),
            "notes": _stall_notes(statuses), "next_cursor": cursor}


def _meeting_hit(ctx: PlatformContext, hit: Mapping[str, Any], catalogue: _Catalogue,
                 records: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    source = hit.get("_source") or {}
    org = catalogue.of_index(str(hit.get("_index")))
    ori_id = str(source.get("@id") or hit.get("_id"))
    is_item = source.get("@type") == "AgendaItem"
    title = _clean(str(source.get("name") or ("agendapunt" if is_item else "vergadering")))
    start = source.get("start_date") or source.get("last_discussed_at")
    meeting = None
    if is_item:
        parent_id = _one(source.get("parent"))
        parent = records.get(parent_id or "", {})
        meeting = {"id": parent_id, "title": _clean(str(parent["name"])) if parent.get("name") else None,
                   "start": parent.get("start_date")} if parent_id else None
    context = f" in {meeting['title']}" if meeting and meeting["title"] else ""
    return {
        "id": ori_id, "type": "agenda_item" if is_item else "meeting", "title": title, "start": start,
        "date": _day(start), "organisation": org.name, "index": org.index, "meeting": meeting,
        "status": _status(source.get("status")), "location": source.get("location"),
        "attachments": _ids(source.get("attachment")),
        "citation": cite(ctx, uri=_search_ui(ori_id, org.index),
                         title=f"{title}{context} ({org.name}, {_day(start) or 'no date'})", text=title),
    }


# =========================================================================== list_organisations

LIST_ORGANISATIONS_INPUT = _input({
    "name": {"type": "string", "minLength": 1, "maxLength": 120,
             "description": "Part of the name or index to look for, e.g. 'utrecht' or 'delfland'."},
    "medium": {"enum": ["gemeente", "provincie", "waterschap"], "description": "Only this kind of organisation."},
    "only_stalled": {"type": "boolean", "default": False,
                     "description": "Only organisations without a meeting within stalled_after_days."},
    **PAGE_PROPS,
}, [])

LIST_ORGANISATIONS_OUTPUT = result_list_schema({
    "name": {"type": "string"},
    "index": {"type": "string", "description": "Pass this (or the name) as organisation(s) to the other tools."},
    "indices": {"type": "array", "items": {"type": "string"}, "description": "The concrete, timestamped indices."},
    "medium": {"enum": ["gemeente", "provincie", "waterschap"]},
    "classification": _NULLABLE_STR,
    "homepage": _NULLABLE_STR,
    "current_through": {**_NULLABLE_STR, "description": "Newest meeting date in ORI, not in the future."},
    "days_since": {"type": ["integer", "null"], "description": "Days from current_through to today."},
    "stalled": {"type": "boolean"},
}, extra={
    "as_of": {"type": "string", "description": "Today's date (server clock, Dutch time)."},
    "stalled_after_days": {"type": "integer"},
    "notes": {"type": "array", "items": {"type": "string"}},
})


async def list_organisations(call: ToolCall) -> dict[str, Any]:
    args = call.arguments
    api = _api(call)
    limit, offset, notes = page(call)
    today = call.ctx.today()
    catalogue, newest = await _both(_catalogue(api), _newest(api, ALL_INDICES, today))
    wanted = _norm(str(args.get("name") or ""))
    medium = args.get("medium")
    rows = []
    for org in catalogue.organisations:
        if wanted and wanted not in _norm(org.name) and wanted not in _norm(org.index):
            continue
        if medium and org.medium != medium:
            continue
        through = newest.of(org)
        stalled = is_stalled(through, today, call.ctx.stalled_after_days)
        if args.get("only_stalled") and not stalled:
            continue
        rows.append((org, through, stalled))
    shown = rows[offset:offset + limit]
    results = []
    for org, through, stalled in shown:
        state = f"stands still since {through}" if stalled and through else (
            "no meetings in ORI" if stalled else f"meetings through {through}")
        results.append({
            "name": org.name, "index": org.index, "indices": list(org.indices), "medium": org.medium,
            "classification": org.classification, "homepage": org.homepage,
            "current_through": through.isoformat() if through else None,
            "days_since": (today - through).days if through else None, "stalled": stalled,
            "citation": cite(call.ctx, uri=f"{SEARCH_UI}?organisaties={quote(json.dumps([org.index]), safe='')}",
                             title=f"{org.name} ({org.index})", text=f"{org.name}: {state}"),
        })
    filters = [f"name or index contains '{args['name']}'"] if args.get("name") else []
    filters += [f"medium {medium}"] if medium else []
    filters += [f"stalled (no meeting for over {call.ctx.stalled_after_days} days)"] if args.get("only_stalled") else []
    matched = ("every index with an alias (GET _aliases) and its Organization record; newest meeting per index from "
               "one aggregation" + (f"; filtered: {', '.join(filters)}" if filters else "") + "; sorted by name")
    seen = offset + len(results)
    partial = newest.partial or not catalogue.records_complete
    prec = precision(total=len(rows), total_relation="exact" if not partial else "lower_bound",
                     returned=len(results), truncated=seen < len(rows), matched=matched, not_applied=notes,
                     partial=partial, next_offset=seen if seen < len(rows) else None)
    extra_notes = [f"{o.indices[0]} is an older unaliased copy of {o.superseded_by}; it is left out of searches "
                   "over all organisations" for o in catalogue.superseded]
    return {"results": results, "precision": prec, "as_of": today.isoformat(),
            "stalled_after_days": call.ctx.stalled_after_days, "notes": extra_notes}


# =========================================================================== load status


async def measure_load(ctx: PlatformContext) -> LoadReport:
    """Per organisation (index) the newest meeting date not in the future, from one aggregation."""
    api = _Api(ctx, SYSTEM_CALLER, None)
    today = ctx.today()
    catalogue, newest = await _both(_catalogue(api), _newest(api, ALL_INDICES, today))
    organs = tuple(OrganLoad(organ=o.index, name=o.name, current_through=newest.of(o), medium=o.medium)
                   for o in catalogue.organisations)
    dates = [o.current_through for o in organs if o.current_through]
    per_medium: dict[str, date | None] = {}
    for medium in PREFIX_MEDIUM.values():
        of_medium = [o.current_through for o in organs if o.medium == medium and o.current_through]
        per_medium[medium] = max(of_medium) if of_medium else None
    notes = []
    if catalogue.superseded:
        notes.append("left out, older unaliased copies: " + ", ".join(
            f"{o.indices[0]} (of {o.superseded_by})" for o in catalogue.superseded))
    if newest.partial:
        notes.append("the aggregation was partial (timed out or failed shards); some organisations may be missing")
    return LoadReport(current_through=max(dates) if dates else None, organs=organs, per_medium=per_medium,
                      note="; ".join(notes) or None)


# The examples work against the replica for any anchor date (the recorded hits are fixed; names resolve).
TOOLS: tuple[ToolImpl, ...] = (
    ToolImpl("search_documents", SEARCH_DOCUMENTS_INPUT, SEARCH_DOCUMENTS_OUTPUT, search_documents,
             example={"query": "begrippenlijst", "limit": 5}),
    ToolImpl("read_document", READ_DOCUMENT_INPUT, READ_DOCUMENT_OUTPUT, read_document,
             example={"id": "51225", "length": 2000}),
    ToolImpl("upcoming_meetings", UPCOMING_INPUT, UPCOMING_OUTPUT, upcoming_meetings,
             example={"organisation": "Gemeente Utrecht", "days": 30}),
    ToolImpl("search_meetings", SEARCH_MEETINGS_INPUT, SEARCH_MEETINGS_OUTPUT, search_meetings,
             example={"query": "jaarrekening", "limit": 5}),
    ToolImpl("list_organisations", LIST_ORGANISATIONS_INPUT, LIST_ORGANISATIONS_OUTPUT, list_organisations,
             example={"medium": "waterschap"}),
)


PLATFORM = PlatformPlugin(key="ori", tools=TOOLS, measure_load=measure_load, about=About(
    documentation="https://github.com/openstate/open-raadsinformatie/blob/master/API-docs.md",
    licence="No licence stated by the platform",
    cannot=("no exact totals above 10,000 hits", "paging beyond 10,000 hits only with a search_after cursor"),
    quirks=("index slugs are irregular: organisations are resolved from /_aliases, never built",
            "older unaliased copies of an index duplicate documents")))
