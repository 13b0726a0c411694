"""The live contract check: `python -m proxy check-live [SLUG ...]`.

The replicas are written from the same knowledge as the adapters, so a platform that changes its
answers breaks nothing in the tests. This sends a few small canary requests per platform (one search,
one read, the load-status query), checks each answer against what the adapter relies on (fields,
types, formats, counts that must be consistent) and reports per platform "ok" or exactly what
drifted. It runs where the platforms can be reached; the tests run it against the replicas, once as
they are and once switched to a drifted shape (`Faults.drift`).

Each platform's canaries are one async function in `CANARIES`; a platform without one is reported as
skipped.
"""

from __future__ import annotations

import re
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date
from typing import Any, Literal
from urllib.parse import quote

from proxy.caller import Caller
from proxy.clock import utc_now
from proxy.errors import ToolInputError, UpstreamBadReply, UpstreamError, UpstreamStatusError
from proxy.toolkit import PlatformContext, PlatformPlugin, ToolCall

__all__ = ["CANARIES", "SKIPPED", "CheckResult", "Probe", "check_platform", "check_platforms", "render",
           "summary_record"]

CHECK_CALLER = Caller("system", "checklive")
Status = Literal["ok", "drift", "unreachable", "skipped"]

SKIPPED: dict[str, str] = {}  # platform key → why it has no canaries

GUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
DTO = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?([+-]\d{2}:\d{2}|Z)$")
DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")
ISO_START = re.compile(r"^\d{4}-\d{2}-\d{2}")


class Drift(Exception):
    """An answer whose shape the adapter cannot rely on any more; stops that platform's remaining canaries."""


class _Stop(Exception):
    """Findings are recorded; the remaining canaries would only build on a broken answer."""


@dataclass
class Probe:
    """One platform's canary run: its context, the requests sent and what drifted."""

    ctx: PlatformContext
    findings: list[str] = field(default_factory=list)
    requests: int = 0

    async def get(self, step: str, path: str, parse: Callable[[bytes], Any], **kwargs: Any) -> Any:
        """GET through the platform's own upstream client; an unreadable answer or a refusal is drift."""
        self.requests += 1
        try:
            return await self.ctx.upstream.get(path, parse, caller=CHECK_CALLER, **kwargs)
        except UpstreamBadReply as exc:
            raise Drift(f"{step}: the answer cannot be read the way the adapter reads it "
                        f"({exc.__cause__ or exc})") from exc
        except ToolInputError as exc:
            raise Drift(f"{step}: the platform refused the request the adapter sends ({exc})") from exc
        except UpstreamStatusError as exc:
            if 400 <= exc.status < 500:
                raise Drift(f"{step}: the platform refused the request the adapter sends (HTTP {exc.status}: "
                            f"{exc})") from exc
            raise

    def expect(self, ok: bool, where: str, message: str) -> bool:
        if not ok:
            self.findings.append(f"{where}: {message}")
        return ok

    def field(self, row: Mapping[str, Any], name: str, where: str, *, kind: type | tuple[type, ...] = str,
              pattern: re.Pattern[str] | None = None, nullable: bool = False, example: str = "") -> Any:
        """Check one field of a record: present, of `kind` (or null when `nullable`), matching `pattern`."""
        if name not in row:
            self.findings.append(f"{where}: field {name!r} is missing")
            return None
        value = row[name]
        if value is None:
            self.expect(nullable, where, f"{name} is null")
            return None
        if not self.expect(isinstance(value, kind), where, f"{name} is {type(value).__name__}, expected "
                                                           f"{_kinds(kind)}"):
            return None
        if pattern is not None and isinstance(value, str):
            self.expect(bool(pattern.search(value)), where,
                        f"{name} {value[:60]!r} is not in the expected form" + (f" (like {example})" if example
                                                                                 else ""))
        return value

    def count(self, total: Any, shown: int, where: str) -> None:
        """A reported total must be a non-negative integer at least as large as what came back."""
        if self.expect(isinstance(total, int) and not isinstance(total, bool), where,
                       f"the total is {total!r}, expected an integer"):
            self.expect(total >= shown, where, f"the total {total} is smaller than the {shown} records returned")

    def check(self) -> None:
        """Stop here when something drifted, so later canaries do not build on a broken answer."""
        if self.findings:
            raise _Stop


def _kinds(kind: type | tuple[type, ...]) -> str:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return " or ".join(k.__name__ for k in kinds)


# --------------------------------------------------------------------------- canaries per platform


async def _load(probe: Probe, plugin: PlatformPlugin) -> None:
    """The load-status query, through the adapter's own measurement."""
    probe.requests += 1
    try:
        report = await plugin.measure_load(probe.ctx)
    except UpstreamBadReply as exc:
        raise Drift(f"load status: the answer cannot be read the way the adapter reads it "
                    f"({exc.__cause__ or exc})") from exc
    probe.expect(isinstance(report.current_through, date), "load status",
                 "the measurement found no dated material (current_through is empty)")


async def _tweedekamer(probe: Probe, plugin: PlatformPlugin) -> None:
    from proxy.platforms._odata import read_page

    select = "Id,DocumentNummer,Soort,Titel,Onderwerp,Datum,GewijzigdOp,Verwijderd"
    search = await probe.get("search", "/Document", read_page, headers={"Accept": "application/json"}, params={
        "$filter": "Verwijderd eq false", "$orderby": "Datum desc,Id desc", "$select": select, "$top": "3",
        "$count": "true"})
    probe.count(search.count, len(search.rows), "search: @odata.count")
    probe.expect(0 < len(search.rows) <= 3, "search", f"{len(search.rows)} documents for $top=3")
    for n, row in enumerate(search.rows):
        where = f"search: value[{n}]"
        probe.field(row, "Id", where, pattern=GUID, example="7a9b77f1-d230-4a00-9856-2f0f8e967e62")
        probe.field(row, "DocumentNummer", where, pattern=re.compile(r"^\d{4}D\d+$"), nullable=True,
                    example="2026D44984")
        probe.field(row, "Datum", where, pattern=DTO, nullable=True, example="2026-10-06T00:00:00+02:00")
        probe.field(row, "GewijzigdOp", where, pattern=DTO, example="2026-10-06T10:02:11.123+02:00")
        probe.expect(row.get("Verwijderd") is False, where, f"Verwijderd is {row.get('Verwijderd')!r} although "
                                                            "the filter asked for false")
    probe.check()
    first = search.rows[0]["Id"]
    read = await probe.get("read", "/Document", read_page, headers={"Accept": "application/json"}, params={
        "$filter": f"Verwijderd eq false and Id eq {first}", "$select": "Id,DocumentNummer,Soort,Titel",
        "$expand": "Zaak($filter=Verwijderd eq false;$select=Id,Nummer)", "$top": "1"})
    if probe.expect(len(read.rows) == 1, "read", f"{len(read.rows)} documents for Id {first}"):
        row = read.rows[0]
        probe.expect(row.get("Id") == first, "read", f"asked for Id {first}, got {row.get('Id')!r}")
        cases = row.get("Zaak")
        if probe.expect(isinstance(cases, list), "read: Zaak", f"the expansion is {type(cases).__name__}, "
                                                               "expected a list"):
            for n, case in enumerate(cases):
                probe.field(case, "Nummer", f"read: Zaak[{n}]", pattern=re.compile(r"^\d{4}Z\d+$"),
                            nullable=True, example="2025Z17647")
    probe.check()
    await _load(probe, plugin)


async def _wetten(probe: Probe, plugin: PlatformPlugin) -> None:
    from proxy.platforms import wetten
    from proxy.platforms._sru import XML_ACCEPT, as_element, fetch_linked, reply_parser

    ctx = probe.ctx
    parse = reply_parser(ctx.platform.key, ctx.platform.title.en, default_relation="exact")
    today = ctx.today().isoformat()
    search = await probe.get("search", "", parse, headers=XML_ACCEPT, params=wetten.bwb_params(
        f'overheidbwb.titel all "omzetbelasting" and overheidbwb.geldigheidsdatum=={today}', start=1, maximum=5))
    probe.count(search.total, len(search.records), "search: numberOfRecords")
    probe.expect(bool(search.records), "search", "no regulation with 'omzetbelasting' in its title is in force today")
    records = [wetten.record_fields(r) for r in search.records]
    for n, rec in enumerate(records):
        _bwb_record(probe, rec, f"search: record {n + 1}")
    probe.check()
    read = await probe.get("read", "", parse, headers=XML_ACCEPT, params=wetten.bwb_params(
        f"dcterms.identifier=={records[0]['identifier']} and overheidbwb.geldigheidsdatum=={today}", start=1,
        maximum=8))
    newest = wetten.newest_per_regulation([wetten.record_fields(r) for r in read.records])
    if probe.expect(len(newest) == 1, "read", f"{len(newest)} regulations for one identifier on {today}"):
        probe.requests += 1
        try:
            call = ToolCall(tool="check-live", arguments={}, caller=CHECK_CALLER, ctx=ctx)
            root = await fetch_linked(call, newest[0]["text_url"], as_element, real_base=wetten.BWB_BASE,
                                      hosts=wetten.BWB_DOCUMENT_HOSTS)
        except UpstreamBadReply as exc:
            raise Drift(f"read: the text at locatie_toestand is not XML ({exc.__cause__ or exc})") from exc
        articles = [e for e in root.iter() if e.tag.rsplit("}", 1)[-1] == "artikel"]
        probe.expect(bool(articles), "read: toestand", "the text has no <artikel> elements")
    probe.check()
    await _load(probe, plugin)


def _bwb_record(probe: Probe, rec: Mapping[str, Any], where: str) -> None:
    probe.expect(bool(re.fullmatch(r"BWB[RV]\d{7}", rec.get("identifier") or "")), where,
                 f"identifier {rec.get('identifier')!r} is not a BWB identifier")
    probe.expect(bool(rec.get("title")), where, "no title")
    probe.expect(bool(DAY.match(rec.get("valid_from") or "")), where,
                 f"geldigheidsperiode_startdatum {rec.get('valid_from')!r} is not a date")
    end = rec.get("valid_to")
    probe.expect(end is None or bool(DAY.match(end)), where, f"geldigheidsperiode_einddatum {end!r} is not a date")
    probe.expect(str(rec.get("text_url") or "").startswith("https://"), where,
                 f"locatie_toestand {rec.get('text_url')!r} is not an https URL")


async def _rechtspraak(probe: Probe, plugin: PlatformPlugin) -> None:
    from proxy.platforms import rechtspraak

    search = await probe.get("search", "/uitspraken/zoeken", rechtspraak.read_feed, params=[
        ("type", "Uitspraak"), ("return", "DOC"), ("max", "5"), ("from", "0"), ("sort", "DESC")])
    probe.count(search.total, len(search.entries), "search: subtitle \"Aantal gevonden ECLI's\"")
    probe.expect(0 < len(search.entries) <= 5, "search", f"{len(search.entries)} entries for max=5")
    for n, entry in enumerate(search.entries):
        where = f"search: entry {n + 1}"
        probe.expect(bool(rechtspraak.ECLI_RE.match(entry["ecli"])), where, f"id {entry['ecli']!r} is not an ECLI")
        probe.expect(bool(rechtspraak.TITLE_DATE_RE.search(entry["title"])), where,
                     f"title {entry['title'][:80]!r} has no ruling date as dd-mm-yyyy")
        probe.expect(bool(ISO_START.match(entry["updated"])), where, f"updated {entry['updated']!r} is not ISO")
    probe.check()
    ecli = search.entries[0]["ecli"]
    doc = await probe.get("read", "/uitspraken/content", rechtspraak.content_parser(ecli), params=[("id", ecli)])
    probe.expect(doc.get("ecli") == ecli, "read", f"dcterms:identifier is {doc.get('ecli')!r}, expected {ecli}")
    probe.expect(bool(DAY.match(doc.get("date") or "")), "read", f"dcterms:date {doc.get('date')!r} is not a date")
    probe.expect(bool(doc.get("court")), "read", "no dcterms:creator (court)")
    probe.check()
    await _load(probe, plugin)


async def _woo(probe: Probe, plugin: PlatformPlugin) -> None:
    from proxy.platforms import woo

    accept = {"Accept": "application/json"}
    search = await probe.get("search", "/zoek?" + woo.query_string([("zoektekst", ""), ("start", "0"),
                                                                      ("aantalResultaten", "10"),
                                                                      ("sort", "publicatiedatum")]),
                             woo.read_search, headers=accept)
    hits = [h for h in search["resultaten"] if isinstance(h, dict)]
    probe.count(search.get("totaal"), len(hits), "search: totaal")
    probe.expect(0 < len(hits) <= 10, "search", f"{len(hits)} results for aantalResultaten=10")
    for n, hit in enumerate(hits):
        where = f"search: resultaten[{n}].document"
        doc = hit.get("document")
        if not probe.expect(isinstance(doc, dict), where, "missing"):
            continue
        probe.field(doc, "id", where, pattern=re.compile(r"^[A-Za-z0-9][A-Za-z0-9.-]+(_\d+)?$"),
                    example="oep-0b03…_1")
        probe.field(doc, "titel", where)
        probe.field(doc, "openbaarmakingsdatum", where, pattern=DAY, example="2026-09-30")
    facets = search.get("filters")
    organisations = facets.get("organisatie") if isinstance(facets, dict) else None
    if probe.expect(isinstance(organisations, list) and bool(organisations), "search: filters.organisatie",
                    "the list of publishing bodies (used to resolve organisation names) is missing"):
        for n, item in enumerate(organisations[:5]):
            probe.field(item, "naam", f"search: filters.organisatie[{n}]")
            probe.field(item, "aantal", f"search: filters.organisatie[{n}]", kind=int)
    probe.check()
    bare = woo.publication_id(str(hits[0]["document"]["id"]))
    detail = await probe.get("read", "/zoek/" + quote(bare, safe=""), woo.read_detail, headers=accept)
    document = detail["document"]
    titles = document.get("titelcollectie")
    probe.expect(isinstance(titles, dict) and isinstance(titles.get("officieleTitel"), str), "read: document",
                 "titelcollectie.officieleTitel is missing")
    probe.expect(isinstance(detail.get("versies"), list), "read", "versies is not a list")
    probe.check()
    await _load(probe, plugin)


async def _koop(probe: Probe, plugin: PlatformPlugin) -> None:
    from proxy.platforms import _sru
    from proxy.platforms.lokaal import SOURCE as LOCAL
    from proxy.platforms.officieel import SOURCE as NATIONAL

    ctx = probe.ctx
    source = LOCAL if ctx.platform.key == "lokaal" else NATIONAL
    parse = _sru.reply_parser(ctx.platform.key, ctx.platform.title.en)
    query = _sru.and_join([_sru.PRODUCT_AREA, source.scope()]) + " " + _sru.NEWEST_FIRST
    search = await probe.get("search", "", parse, headers=_sru.XML_ACCEPT,
                             params=_sru.koop_params(query, start=1, maximum=3))
    probe.count(search.total, len(search.records), "search: numberOfRecords")
    probe.expect(search.relation == "estimate", "search: resultCountPrecision",
                 f"the count is said to be {search.relation!r}; the adapter reports KOOP's 'estimate'")
    probe.expect(0 < len(search.records) <= 3, "search", f"{len(search.records)} records for maximumRecords=3")
    pubs = [_sru.read_publication_record(r, source) for r in search.records]
    for n, pub in enumerate(pubs):
        where = f"search: record {n + 1}"
        probe.expect(bool(re.fullmatch(r"[a-z]+(-[A-Za-z0-9]+)+", pub["identifier"])), where,
                     f"identifier {pub['identifier']!r} is not a KOOP identifier")
        probe.expect(bool(DAY.match(pub.get("published") or "")), where,
                     f"dt.available {pub.get('published')!r} is not a date")
        probe.expect(pub.get("medium") is not None, where,
                     f"publicatienaam {pub.get('publication_name')!r} is none of this connector's gazettes")
        probe.expect(bool(pub.get("xml_url") or pub.get("pdf_url")), where, "no XML or PDF manifestation")
    dates = [p["published"] for p in pubs if p.get("published")]
    probe.expect(dates == sorted(dates, reverse=True), "search", "not newest first although sortBy asked for it")
    probe.check()
    identifier = pubs[0]["identifier"]
    read = await probe.get("read", "", parse, headers=_sru.XML_ACCEPT, params=_sru.koop_params(
        _sru.and_join([_sru.PRODUCT_AREA, f"dt.identifier=={_sru.cql_quote(identifier)}"]), start=1, maximum=1))
    if probe.expect(len(read.records) == 1, "read", f"{len(read.records)} records for dt.identifier=={identifier}"):
        got = _sru.read_publication_record(read.records[0], source)["identifier"]
        probe.expect(got == identifier, "read", f"asked for {identifier}, got {got!r}")
    probe.check()
    await _load(probe, plugin)


async def _ori(probe: Probe, plugin: PlatformPlugin) -> None:
    """OpenBesluitvorming: the organisation catalogue, one search, one entity, then /api/status via the load."""
    from proxy.platforms import ori
    from proxy.upstream import as_json

    sources = await probe.get("sources", "/api/sources", as_json)
    rows = sources.get("sources") if isinstance(sources, dict) else None
    if probe.expect(isinstance(rows, list) and bool(rows), "sources", "no 'sources' list"):
        for n, row in enumerate(rows[:400]):
            where = f"sources: sources[{n}]"
            key = probe.field(row, "key", where)
            probe.field(row, "label", where)
            kind = probe.field(row, "organizationType", where)
            aggregate = bool(row.get("isAggregate")) or str(key or "").startswith("all_")
            probe.expect(aggregate or kind in ori.KINDS, where, f"organizationType {kind!r} is none of "
                                                                f"{', '.join(ori.KINDS)}")
    probe.check()
    search = await probe.get("search", "/api/search", as_json, params=[
        ("query", "begroting"), ("entityType", "Document"), ("sort", "date_desc"), ("offset", "0"), ("limit", "3")])
    results = search.get("results") if isinstance(search, dict) else None
    if probe.expect(isinstance(results, list) and bool(results), "search", "no results for 'begroting'"):
        probe.count(search.get("totalCount"), len(results), "search: totalCount")
        probe.field(search, "totalIsApproximate", "search", kind=bool)
        probe.field(search, "hasMore", "search", kind=bool)
        for n, hit in enumerate(results):
            where = f"search: results[{n}]"
            probe.field(hit, "entityId", where, pattern=ori.ENTITY_ID, example="document:notubiz:gemeente:soest:1")
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
    await _load(probe, plugin)


Canary = Callable[[Probe, PlatformPlugin], Awaitable[None]]
CANARIES: dict[str, Canary] = {
    "ori": _ori,
    "tweedekamer": _tweedekamer,
    "wetten": _wetten,
    "rechtspraak": _rechtspraak,
    "woo": _woo,
    "officieel": _koop,
    "lokaal": _koop,
}


# --------------------------------------------------------------------------- running and reporting


@dataclass(frozen=True, slots=True)
class CheckResult:
    key: str
    status: Status
    findings: tuple[str, ...]
    requests: int
    seconds: float


async def check_platform(plugin: PlatformPlugin, ctx: PlatformContext) -> CheckResult:
    """Run one platform's canaries; never raises for what the platform answers."""
    key = ctx.platform.key
    canary = CANARIES.get(key)
    if canary is None:
        return CheckResult(key, "skipped", (SKIPPED.get(key, "no canaries defined for this platform"),), 0, 0.0)
    probe = Probe(ctx)
    started = time.perf_counter()
    try:
        await canary(probe, plugin)
    except Drift as exc:
        probe.findings.append(str(exc))
    except _Stop:
        pass
    except UpstreamError as exc:
        return CheckResult(key, "unreachable", (str(exc),), probe.requests, time.perf_counter() - started)
    status: Status = "drift" if probe.findings else "ok"
    return CheckResult(key, status, tuple(probe.findings), probe.requests, time.perf_counter() - started)


async def check_platforms(plugins: Mapping[str, PlatformPlugin], contexts: Mapping[str, PlatformContext],
                          keys: Iterable[str]) -> list[CheckResult]:
    return [await check_platform(plugins[key], contexts[key]) for key in keys]


def render(results: Iterable[CheckResult]) -> str:
    lines = []
    for r in results:
        head = {"ok": "ok", "drift": "DRIFT", "unreachable": "UNREACHABLE", "skipped": "skipped"}[r.status]
        timing = f" ({r.requests} requests, {r.seconds:.1f} s)" if r.requests else ""
        lines.append(f"{r.key}: {head}{timing}")
        lines += [f"  - {finding}" for finding in r.findings]
    return "\n".join(lines)


def summary_record(results: Iterable[CheckResult]) -> dict[str, Any]:
    """What the state store keeps and /status shows: when the check ran and what it found per platform."""
    listed = list(results)
    return {
        "checked_at": utc_now().isoformat(timespec="seconds"),
        "ok": all(r.status in ("ok", "skipped") for r in listed),
        "platforms": {r.key: {"status": r.status, "findings": list(r.findings)} for r in listed},
    }
