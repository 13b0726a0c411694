"""Local regulations in force (CVDR, Centrale Voorziening Decentrale Regelgeving, KOOP), on the Lokale
bekendmakingen address: the Gemeenteblad publishes a verordening; CVDR holds it as it reads, version by version.

Upstream (research §7): KOOP's SRU 1.2, `GET https://zoekservice.overheid.nl/sru/Search?operation=searchRetrieve
&version=1.2&x-connection=cvdr&query=<CQL>&maximumRecords=N&startRecord=M`. CQL used here: `keyword all "…"`
(words anywhere), `dcterms.creator="Kampen"` (the body's name without its kind), `dcterms.identifier=CVDR…_*`
(every version of one regulation) and `overheidrg.inwerkingtredingDatum<=D`, with `sortby
overheidrg.inwerkingtredingDatum/descending`. Each record's `originalData` is the regulation's own `meta` (owmskern,
owmsmantel, cvdripm); `enrichedData` links its XML and its page. Ids are versioned: `CVDR100394_2` is version 2 of
CVDR100394 (older exports write the number alone, `112779_1`). The text is at
`https://repository.officiele-overheidspublicaties.nl/cvdr/CVDR<n>/<v>/xml/CVDR<n>_<v>.xml`, a `<cvdr>` document with
the same `meta` and a `body` of `regeling` with `artikel` (`kop` with `nr` and `titel`, then `al` paragraphs).
Elements are read by local name: the `overheidrg` namespace differs between exports.

Off the real hosts (a replica or mirror standing in for the platform's base URL), the search is asked at
`<root>/zoekservice/sru/Search` and a text at `<root>/cvdr/…` (`_sru.fetch_linked`), where `<root>` stands in for
the real base.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import date
from typing import Any
from urllib.parse import urlencode, urlsplit
from xml.etree.ElementTree import Element

from proxy.core.errors import NotHeld, ToolInputError
from proxy.core.schema_atoms import NDATE, NSTR, STRINGS
from proxy.platforms._common import (
    CHUNK_PROPS,
    PAGE_PROPS,
    chunk,
    chunk_output_props,
    cite,
    page,
    parse_date,
    parse_xml,
)
from proxy.platforms._organisations import REGISTER
from proxy.platforms._sru import cql_quote, fetch_linked
from proxy.plugin.toolkit import PlatformContext, ToolCall, ToolImpl
from proxy.results.outputs import CITATION_SCHEMA, object_schema, precision, result_list_schema

__all__ = ["TOOLS", "cvdr_id", "read_records"]

SEARCH_URL = "https://zoekservice.overheid.nl/sru/Search"
TEXT_HOST = "https://repository.officiele-overheidspublicaties.nl"
PAGE_URL = "https://lokaleregelgeving.overheid.nl/"
REAL_BASE = "https://repository.overheid.nl/sru"  # the Lokale bekendmakingen platform's own base URL
TEXT_HOSTS = frozenset({"repository.officiele-overheidspublicaties.nl"})
ID_RE = re.compile(r"^(?:CVDR)?(\d{1,9})(?:_(\d{1,4}))?$", re.IGNORECASE)
TEXT_BLOCKS = ("al", "li", "entry", "intitule", "aanhef", "slotformulering", "ondertekenaar", "label")


def cvdr_id(value: str) -> tuple[str, int | None]:
    """'CVDR100394_2', '100394_2', 'CVDR100394' or a lokaleregelgeving.overheid.nl link → ('CVDR100394', 2|None)."""
    text = value.strip().rstrip("/")
    if text.startswith(("http://", "https://")):
        parts = [p for p in urlsplit(text).path.split("/") if p]
        text = "_".join(parts[-2:]) if len(parts) >= 2 and parts[-1].isdigit() else (parts[-1] if parts else "")
    found = ID_RE.match(text)
    if not found:
        raise ToolInputError(f"id must be a CVDR id such as CVDR100394_2 (a version) or CVDR100394 (the regulation), "
                             f"or its lokaleregelgeving.overheid.nl link; got {value!r}")
    return f"CVDR{found.group(1)}", int(found.group(2)) if found.group(2) else None


def _local(el: Element) -> str:
    return el.tag.rsplit("}", 1)[-1]


def _find(el: Element | None, name: str) -> Element | None:
    return next((e for e in el.iter() if _local(e) == name), None) if el is not None else None


def _text(el: Element | None) -> str:
    return " ".join("".join(el.itertext()).split()) if el is not None else ""


def _day(value: str) -> str | None:
    return value[:10] if re.match(r"^\d{4}-\d{2}-\d{2}", value) else None


@dataclass(frozen=True, slots=True)
class Regulation:
    """One version of a regulation, from its `meta` (in a search record or in the document itself)."""

    work: str
    version: int | None
    title: str
    organisation: str | None
    organisation_type: str | None
    in_force_from: str | None
    in_force_until: str | None
    issued: str | None
    modified: str | None
    subjects: tuple[str, ...]
    published_in: tuple[str, ...]  # the gazette publications it comes from (gmb-2016-146361)
    based_on: tuple[str, ...]  # the regulations it rests on (dcterms.source)
    xml_url: str | None

    @property
    def id(self) -> str:
        return f"{self.work}_{self.version}" if self.version is not None else self.work

    @property
    def url(self) -> str:
        return f"{PAGE_URL}{self.work}/{self.version}" if self.version is not None else f"{PAGE_URL}{self.work}"

    def in_force_on(self, day: date) -> bool:
        start, end = self.in_force_from, self.in_force_until
        return (start is None or start <= day.isoformat()) and (end is None or day.isoformat() <= end)


def regulation_of(meta: Element, xml_url: str | None = None) -> Regulation:
    raw = _text(_find(meta, "identifier"))
    work, version = cvdr_id(raw) if ID_RE.match(raw.strip()) else (raw, None)
    creator = _find(meta, "creator")
    kind = (creator.get("scheme") or "").split(":")[-1] if creator is not None else ""
    return Regulation(
        work=work, version=version, title=_text(_find(meta, "title")), organisation=_text(creator) or None,
        organisation_type=kind.lower() or None, in_force_from=_day(_text(_find(meta, "inwerkingtredingDatum"))),
        in_force_until=_day(_text(_find(meta, "uitwerkingtredingDatum"))), issued=_day(_text(_find(meta, "issued"))),
        modified=_day(_text(_find(meta, "modified"))),
        subjects=tuple(_text(e) for e in meta.iter() if _local(e) == "subject" and _text(e)),
        published_in=tuple(_text(e) for e in meta.iter() if _local(e) == "isFormatOf" and _text(e)),
        based_on=tuple(_text(e) for e in meta.iter() if _local(e) == "source" and _text(e)),
        xml_url=xml_url or (f"{TEXT_HOST}/cvdr/{work}/{version}/xml/{work}_{version}.xml" if version else None))


@dataclass(frozen=True, slots=True)
class Records:
    total: int | None
    regulations: list[Regulation]


def read_records(body: bytes) -> Records:
    """A CVDR searchRetrieve answer (SRU 1.2); an SRU diagnostic is the platform refusing the query."""
    root = parse_xml(body)
    if _local(root) != "searchRetrieveResponse":
        raise ValueError("a CVDR search answers searchRetrieveResponse")
    diagnostic = _find(root, "diagnostic")
    if diagnostic is not None:
        raise ToolInputError(f"CVDR refused the search: {_text(_find(diagnostic, 'message')) or _text(diagnostic)}")
    # By local name: clients report both the SRU 1.2 and the 2.0 envelope namespace for this service.
    count = _text(_find(root, "numberOfRecords"))
    out = []
    for record in (e for e in root.iter() if _local(e) == "record"):
        meta = _find(_find(record, "originalData"), "meta")
        if meta is None:
            continue
        out.append(regulation_of(meta, _text(_find(_find(record, "enrichedData"), "publicatieurl_xml")) or None))
    return Records(total=int(count) if count.isdigit() else None, regulations=out)


def _root(ctx: PlatformContext) -> str | None:
    """What stands in for the real hosts; None on the real platform."""
    base = ctx.upstream.platform.base_url.rstrip("/")
    return None if base == REAL_BASE else base.removesuffix("/sru")


def _search_url(ctx: PlatformContext) -> str:
    root = _root(ctx)
    return SEARCH_URL if root is None else f"{root}/zoekservice/sru/Search"


async def _search(call: ToolCall, cql: str, limit: int, offset: int) -> Records:
    params = [("operation", "searchRetrieve"), ("version", "1.2"), ("x-connection", "cvdr"), ("query", cql),
              ("maximumRecords", str(limit)), ("startRecord", str(offset + 1))]
    url = _search_url(call.ctx)
    return await call.ctx.upstream.get_url(f"{url}?{urlencode(params)}", read_records, caller=call.caller,
                                           tool=call.tool)


def _organisation(written: str) -> tuple[str, str]:
    """CVDR's creator is the body's name without its kind ("Kampen", "Zuid-Holland")."""
    _, found = REGISTER.matches(written, ("gemeente", "provincie", "waterschap"))
    if not found:
        return written.strip(), f"organisation {written.strip()!r} as written (not in the government's register)"
    org = REGISTER.resolve(written, ("gemeente", "provincie", "waterschap")).org
    return org.name, f"organisation {written!r} read as the {org.full_name} (creator {org.name!r})"


# --------------------------------------------------------------------------- search_regulations

ITEM = {
    "id": {"type": "string", "description": "This version's id, e.g. CVDR100394_2 (read_regulation accepts it)."},
    "title": {"type": "string"},
    "organisation": NSTR,
    "organisation_type": NSTR,
    "in_force_from": NDATE,
    "in_force_until": {**NDATE, "description": "Null while in force."},
    "issued": {**NDATE, "description": "Adopted on (dcterms.issued)."},
    "published_in": {**STRINGS, "description": "Where it was published (a gmb-… id: read_publication reads it)."},
    "url": {"type": "string", "description": "Its page on lokaleregelgeving.overheid.nl."},
}


def _item(ctx: PlatformContext, r: Regulation) -> dict[str, Any]:
    return {"id": r.id, "title": r.title, "organisation": r.organisation, "organisation_type": r.organisation_type,
            "in_force_from": r.in_force_from, "in_force_until": r.in_force_until, "issued": r.issued,
            "published_in": list(r.published_in), "url": r.url,
            "citation": cite(ctx, uri=r.url, title=f"{r.title} ({r.id})",
                             text=f"{r.title}, {r.organisation or 'onbekend'}, in werking "
                                  f"{r.in_force_from or 'onbekend'}" + (f" tot {r.in_force_until}"
                                                                         if r.in_force_until else ""))}


async def _search_regulations(call: ToolCall) -> dict[str, Any]:
    args = call.arguments
    limit, offset, notes = page(call)
    day = parse_date(args.get("in_force_on"), "in_force_on") or call.ctx.today()
    words = " ".join(str(args.get("query") or "").split())
    clauses, matched = [], []
    if words:
        clauses.append(f"keyword all {cql_quote(words)}")
        matched.append(f"every word of {words!r} in the regulation (CVDR's keyword index)")
    if args.get("organisation"):
        name, said = _organisation(str(args["organisation"]))
        clauses.append(f"dcterms.creator={cql_quote(name)}")
        matched.append(said)
    if not clauses:
        raise ToolInputError("give query (words), organisation, or both")
    clauses.append(f"overheidrg.inwerkingtredingDatum<={day.isoformat()}")
    cql = " and ".join(clauses) + " sortby overheidrg.inwerkingtredingDatum/descending"
    records = await _search(call, cql, limit, offset)
    kept = [r for r in records.regulations if r.in_force_on(day)]
    dropped = len(records.regulations) - len(kept)
    matched.append(f"in force on {day} (in force from on or before it; those that ended before it left out here, "
                   f"{dropped} on this page)")
    truncated = offset + len(records.regulations) < records.total if records.total is not None else False
    return {"results": [_item(call.ctx, r) for r in kept], "in_force_on": day.isoformat(), "precision": precision(
        total=records.total if not dropped else None, total_relation="exact" if not dropped else "unknown",
        returned=len(kept), truncated=truncated, matched="; ".join(matched) + "; newest in force first",
        not_applied=notes, next_offset=offset + len(records.regulations) if truncated else None)}


SEARCH_INPUT = object_schema({
    "query": {"type": "string", "maxLength": 200, "description": "Words in the regulation, e.g. 'hondenbelasting', "
                                                                "'parkeren', 'APV'; every word must occur."},
    "organisation": {"type": "string", "maxLength": 120,
                     "description": "Gemeente, provincie or waterschap as people write it ('Kampen', 'gemeente "
                                    "Den Haag', 'provincie Utrecht')."},
    "in_force_on": {"type": "string", "format": "date", "maxLength": 10,
                    "description": "YYYY-MM-DD: the versions in force that day (default today)."},
    **PAGE_PROPS,
}, required=[])
SEARCH_OUTPUT = result_list_schema(ITEM, extra={"in_force_on": {"type": "string"}})


# --------------------------------------------------------------------------- read_regulation


def _body_text(root: Element) -> str:
    """The regulation's text: a line per heading (its number and title together) and per paragraph, in order."""
    lines: list[str] = []

    def walk(el: Element) -> None:
        name = _local(el)
        if name == "kop":
            lines.append(" ".join(_text(c) for c in el if _text(c)) or _text(el))
        elif name in TEXT_BLOCKS:
            lines.append(_text(el))
        else:
            for child in el:
                walk(child)

    body = _find(root, "body")
    if body is not None:
        walk(body)
    return "\n".join(line for line in lines if line)


async def _versions(call: ToolCall, work: str) -> list[Regulation]:
    records = await _search(call, f"dcterms.identifier={work}_* sortby overheidrg.inwerkingtredingDatum/descending",
                            50, 0)
    return records.regulations


async def _read_regulation(call: ToolCall) -> dict[str, Any]:
    work, version = cvdr_id(str(call.arguments.get("id") or ""))
    day = parse_date(call.arguments.get("date"), "date") or call.ctx.today()
    notes: list[str] = []
    versions: list[Regulation] = []
    if version is None:
        versions = await _versions(call, work)
        if not versions:
            raise NotHeld("CVDR", f"regulation {work}", url=f"{PAGE_URL}{work}",
                          advice="search_regulations finds ids")
        chosen = next((v for v in versions if v.in_force_on(day)), None)
        if chosen is None:
            chosen = versions[0]
            notes.append(f"no version of {work} is in force on {day}; this is the newest, in force from "
                         f"{chosen.in_force_from or 'unknown'}" + (f" until {chosen.in_force_until}"
                                                                   if chosen.in_force_until else ""))
        version = chosen.version
    link = f"{TEXT_HOST}/cvdr/{work}/{version}/xml/{work}_{version}.xml"
    # The same mapping of a linked text onto a replica or mirror as the gazettes' texts use.
    root = await fetch_linked(call, link, parse_xml, real_base=REAL_BASE, hosts=TEXT_HOSTS)
    meta = _find(root, "meta")
    if _local(root) != "cvdr" or meta is None:
        raise ValueError("a CVDR text is a <cvdr> document with its meta")
    reg = replace(regulation_of(meta), work=work, version=version)  # older exports write the number alone
    text = _body_text(root)
    part = chunk(text, call)
    return {
        "id": reg.id, "title": reg.title, "organisation": reg.organisation, "in_force_from": reg.in_force_from,
        "in_force_until": reg.in_force_until, "issued": reg.issued, "subjects": list(reg.subjects),
        "published_in": list(reg.published_in), "based_on": list(reg.based_on),
        "versions": [f"{v.id}: in force {v.in_force_from or '?'} to {v.in_force_until or 'now'}" for v in versions],
        **part, "url": reg.url, "notes": notes,
        "citation": cite(call.ctx, uri=reg.url, title=f"{reg.title} ({reg.id})",
                         text=f"{reg.title}, {reg.organisation or 'onbekend'}, in werking {reg.in_force_from or '?'}"
                              + (f": {part['text'][:200]}" if part["text"] else "")),
    }


READ_INPUT = object_schema({
    "id": {"type": "string", "minLength": 4, "maxLength": 120,
           "description": "CVDR100394_2 (that version) or CVDR100394 (the version in force on date)."},
    "date": {"type": "string", "format": "date", "maxLength": 10, "description": "YYYY-MM-DD; default today."},
    **CHUNK_PROPS,
}, required=["id"])
READ_OUTPUT = object_schema({
    "id": {"type": "string"}, "title": {"type": "string"}, "organisation": NSTR, "in_force_from": NDATE,
    "in_force_until": NDATE, "issued": NDATE, "subjects": STRINGS,
    "published_in": {**STRINGS, "description": "Where it was published (a gmb-… id: read_publication reads it)."},
    "based_on": {**STRINGS, "description": "What it rests on (dcterms.source)."},
    "versions": {**STRINGS, "description": "Every version ('CVDR100394_2: in force 2016-10-27 to now'), when asked "
                                           "by the regulation's id."},
    **chunk_output_props(), "url": {"type": "string"}, "notes": STRINGS, "citation": CITATION_SCHEMA,
})

TOOLS: tuple[ToolImpl, ...] = (
    ToolImpl(name="search_regulations", input_schema=SEARCH_INPUT, output_schema=SEARCH_OUTPUT,
             handler=_search_regulations, example={"organisation": "Kampen", "query": "parkeren", "limit": 5}),
    ToolImpl(name="read_regulation", input_schema=READ_INPUT, output_schema=READ_OUTPUT, handler=_read_regulation,
             example={"id": "CVDR100394_2", "length": 2000}),
)
