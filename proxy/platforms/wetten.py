"""Wetten: consolidated national legislation from the Basiswettenbestand (BWB), as on wetten.overheid.nl.

Upstream: the zoekservice SRU at https://zoekservice.overheid.nl/sru/Search with `x-connection=BWB`
and `version=1.2` (KOOP's SRU use cases: https://www.overheid.nl/help/wet-en-regelgeving/open-data
and the "Handleiding SRU" of the BWB dataset on data.overheid.nl). A record there is a *version*
(toestand) of a regulation, so every search filters on `overheidbwb.geldigheidsdatum==<date>`,
which leaves one record per regulation in force on that date; search is on titles only
(`overheidbwb.titel`). The text of a version is the XML at the record's `overheidbwb:locatie_toestand`
on https://repository.officiele-overheidspublicaties.nl/bwb/.

Fields read from a record are only those that clients of the real service read from real records
(identifier, title, type, authority, modified, rechtsgebied, toestand, geldigheidsperiode_start/einddatum,
locatie_toestand; sources in `proxy/replica/wetten.py` and its SOURCES.md); each may be absent and is then
None. No zicht date is read from a record: none is shown to be there (`zichtdatum_*` are manifest fields).

A date can still answer several records of one regulation, one per "zicht" generation of the same
toestand (`<date>_0…_2`; a later generation corrects the text): reading keeps the newest generation,
told by the `_<n>` of its `locatie_toestand` (the repository numbers generations in zicht order), and a
search lists each regulation once, its total said to count records. An open end date arrives as
9999-12-31 and reads as no end. Regulations are also found by the names people use (Awb, Sr,
Gemeentewet, Woo, BW6) through `wetten_regulations.json`, checked when the module loads and, against a
recorded list of real BWB ids and titles, by the tests.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path
from typing import Any
from xml.etree.ElementTree import Element

from proxy.core.caller import SYSTEM_CALLER
from proxy.core.errors import NotHeld, ToolInputError, UpstreamBadReply, UpstreamStatusError
from proxy.core.schema_atoms import NSTR
from proxy.platforms._common import CHUNK_PROPS, PAGE_PROPS, chunk, chunk_output_props, cite, page, parse_date
from proxy.platforms._resolve import Table
from proxy.platforms._sru import (
    XML_ACCEPT,
    SruReply,
    all_texts,
    as_element,
    child,
    cql_quote,
    fetch_linked,
    first_text,
    local,
    reply_parser,
    xml_text,
)
from proxy.plugin.canary import CHECK_CALLER, DAY, Drift, Probe, check_load
from proxy.plugin.toolkit import About, LoadReport, PlatformContext, PlatformPlugin, SourceRoute, ToolCall, ToolImpl
from proxy.results.outputs import CITATION_SCHEMA, object_schema, precision, result_list_schema

__all__ = ["PLATFORM", "TOOLS", "bwb_params", "measure_load", "newest_per_regulation", "record_fields", "regulation"]

BWB_BASE = "https://zoekservice.overheid.nl/sru/Search"
BWB_DOCUMENT_HOSTS = frozenset({"repository.officiele-overheidspublicaties.nl"})
BWB_ID = re.compile(r"BWB[RV]\d{7}")
KIND = re.compile(r"[A-Za-z][A-Za-z-]{0,40}")
# Structural units of a BWB toestand, outermost first; `artikel` is where the text lives.
_UNITS = ("boek", "deel", "titeldeel", "hoofdstuk", "afdeling", "paragraaf", "sub-paragraaf", "artikel", "bijlage")
# dcterms.modified windows (days back) tried in turn by the load measurement. The live platform changes
# versions daily; the last window finds the newest date of a source that stopped (or of an old sample).
_LOAD_WINDOWS = (0, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 4096)


def bwb_params(query: str, *, start: int, maximum: int) -> list[tuple[str, str]]:
    """searchRetrieve parameters for the BWB connection, in the order of research §4.2."""
    return [("operation", "searchRetrieve"), ("version", "1.2"), ("x-connection", "BWB"),
            ("maximumRecords", str(maximum)), ("startRecord", str(start)), ("query", query)]


# --------------------------------------------------------------------------- records


OPEN_END = "9999-12-31"  # the BWB's "no end date"
GENERATION_RE = re.compile(r"_(\d+)(?:/|\.xml$)")


def _end(value: str | None) -> str | None:
    """An end date; the BWB writes an open end as 9999-12-31 (or leaves it empty)."""
    return None if not value or value.startswith(OPEN_END) else value


def _generation(record: dict[str, Any]) -> int:
    """How recent a record's zicht generation is: the `_<n>` of its text's repository label (no zicht date is
    shown to be in a record, so none is relied on)."""
    found = GENERATION_RE.search(str(record.get("text_url") or ""))
    return int(found.group(1)) if found else 0


def newest_per_regulation(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One record per BWB id, in first-seen order: the newest zicht generation of each (a query on a date can
    answer one record per generation of the same toestand; the older ones are superseded text)."""
    best: dict[str, dict[str, Any]] = {}
    for record in records:
        known = best.get(record["identifier"])
        if known is None or _generation(record) > _generation(known):
            best[record["identifier"]] = record
    return list(best.values())


def record_fields(gzd: Element) -> dict[str, Any]:
    original = child(gzd, "originalData")
    enriched = child(gzd, "enrichedData")
    identifier = first_text(original, "identifier") or ""
    return {
        "identifier": identifier,
        "title": first_text(original, "title") or identifier,
        "kind": first_text(original, "type"),
        "authority": first_text(original, "authority"),
        "areas": all_texts(original, "rechtsgebied"),
        "valid_from": first_text(original, "geldigheidsperiode_startdatum"),
        "valid_to": _end(first_text(original, "geldigheidsperiode_einddatum")),
        "version": first_text(original, "toestand"),
        "modified": first_text(original, "modified"),
        "text_url": first_text(enriched, "locatie_toestand"),
    }


def _cite_text(reg: dict[str, Any], on: str) -> str:
    """Research §4.2 attribution: citation title, BWB id, the date it applies, the version."""
    version = f", toestand {reg['version']}" if reg.get("version") else ""
    return f"{reg['title']} ({reg['identifier']}), geldend op {on}{version}"


def _url(identifier: str, on: str) -> str:
    return f"https://wetten.overheid.nl/{identifier}/{on}"


def _parser(ctx: PlatformContext) -> Callable[[bytes], SruReply]:
    # BWB's SRU reports no resultCountPrecision; its numberOfRecords is an exact count of records.
    return reply_parser(ctx.platform.key, ctx.platform.title.en, default_relation="exact")


def _on_date(call: ToolCall, name: str) -> date:
    return parse_date(call.arguments.get(name), name) or call.ctx.today()


REGULATIONS = Table.load(Path(__file__).with_name("wetten_regulations.json"), argument="identifier")


def regulation(raw: Any, article: str | None = None) -> tuple[str, str | None]:
    """A BWB identifier, or a regulation as people name it ('Awb', 'Gemeentewet', 'BW6') → (BWB id, how it was
    read). The Burgerlijk Wetboek is ten regulations: an article number such as 6:162 picks its book."""
    text = " ".join(str(raw or "").split())
    if BWB_ID.fullmatch(text.upper()):
        return text.upper(), None
    entry = REGULATIONS.find(text)
    if entry is None:
        raise REGULATIONS.refusal(text, hint=" (an abbreviation or short title as listed, or a BWB identifier such "
                                             "as BWBR0005537), or find it with search_regulations")
    if len(entry.sends) == 1:
        return entry.sends[0], f"{text!r} read as {entry.label} ({entry.sends[0]})"
    books: dict[str, str] = dict(entry.extra.get("books") or {})
    book = (article or "").split(":")[0].upper() if article and ":" in article else ""
    if book in books:
        return books[book], f"{text!r} with article {article} read as {entry.label} Boek {book} ({books[book]})"
    listed = ", ".join(f"BW{nr} ({bwb})" for nr, bwb in books.items())
    raise ToolInputError(f"{text!r} is the {entry.label}, which the BWB keeps as {len(books)} regulations (one per "
                         f"book); send one of {listed}, or with read_article an article number such as 6:162, "
                         "whose book number picks the book")


# --------------------------------------------------------------------------- search_regulations

REGULATION_HIT = {
    "identifier": {"type": "string", "description": "BWB identifier, e.g. BWBR0005537."},
    "title": {"type": "string", "description": "Citation title."},
    "kind": {"type": ["string", "null"], "description": "wet, AMvB, ministeriele-regeling, …"},
    "authority": {"type": ["string", "null"], "description": "Responsible ministry."},
    "areas": {"type": "array", "items": {"type": "string"}, "description": "Fields of law (rechtsgebied)."},
    "valid_from": {"type": ["string", "null"], "description": "Start of this version's validity."},
    "valid_to": {"type": ["string", "null"], "description": "End of this version's validity; null if open."},
    "version": {"type": ["string", "null"], "description": "The version (toestand) identifier."},
    "url": {"type": "string", "description": "The text on wetten.overheid.nl as in force on valid_on."},
}

SEARCH_INPUT = {
    "type": "object",
    "properties": {
        "title": {"type": "string", "maxLength": 300,
                  "description": "Words that must all occur in the title (overheidbwb.titel); titles only, not the "
                                 "text. An abbreviation or short title people use ('Awb', 'Woo', 'Sr', "
                                 "'Gemeentewet', 'BW') finds that regulation itself."},
        "kind": {"type": "string", "maxLength": 40, "pattern": r"^[A-Za-z][A-Za-z-]*$",
                 "description": "Kind of regulation (dcterms.type), e.g. wet, AMvB, ministeriele-regeling, "
                                "rijkswet, wet-BES."},
        "valid_on": {"type": "string", "format": "date", "maxLength": 10,
                     "description": "Regulations in force on this date, YYYY-MM-DD (default: today)."},
        **PAGE_PROPS,
    },
    "additionalProperties": False,
}

SEARCH_OUTPUT = result_list_schema(REGULATION_HIT, extra={"valid_on": {"type": "string"}})


async def _search(call: ToolCall) -> dict[str, Any]:
    title = " ".join(str(call.arguments.get("title") or "").split())
    kind = str(call.arguments.get("kind") or "").strip()
    if not title and not kind:
        raise ToolInputError("give title words or a kind (or both)")
    if kind and not KIND.fullmatch(kind):
        raise ToolInputError(f"kind {kind!r} is not a BWB kind; use e.g. wet, AMvB or ministeriele-regeling")
    on = _on_date(call, "valid_on").isoformat()
    limit, offset, notes = page(call)
    clauses, words = [], []
    named = REGULATIONS.find(title) if title else None
    if named is not None:
        # 'Awb', 'Woo', 'BW': the regulation people mean, by its identifier rather than by title words.
        ids = named.sends
        clauses.append(ids_clause(ids))
        words.append(f"{title!r} read as {named.label} ({', '.join(ids)}), by identifier")
    elif title:
        # Also the official abbreviation (overheidbwb.afkorting), as real clients search it: 'Wob', 'Pw'.
        clauses.append(f"(overheidbwb.titel all {cql_quote(title)} or overheidbwb.afkorting=={cql_quote(title)})")
        words.append(f"title contains all of the words {title!r}, or {title!r} is its official abbreviation "
                     "(titles only, no full-text search)")
    if kind:
        clauses.append(f"dcterms.type=={kind}")
        words.append(f"kind is {kind!r}")
    undated = list(clauses)  # what the hint asks again without the date, when nothing is in force on it
    clauses.append(f"overheidbwb.geldigheidsdatum=={on}")
    # The zicht generation shown today: one record per version instead of one per generation.
    clauses.append(f"overheidbwb.zichtdatum=={call.ctx.today().isoformat()}")
    words.append(f"the version in force on {on}, as the repository shows it today, one per regulation")
    query = " and ".join(clauses)  # lower-case booleans, as in the documented BWB examples
    # A regulation can answer several records on one date (one per zicht generation): fetch more records than
    # regulations wanted and keep the newest generation of each; `offset` counts records, as the service does.
    fetch = min(limit * RECORDS_PER_REGULATION, MAX_RECORDS)
    reply = await call.get("", _parser(call.ctx), params=bwb_params(query, start=offset + 1, maximum=fetch),
                           headers=XML_ACCEPT)
    records = [record_fields(gzd) for gzd in reply.records]
    used, consumed = _take_regulations(records, limit, page_full=len(records) >= fetch)
    results = []
    for reg in newest_per_regulation(used):
        results.append({**{k: reg[k] for k in REGULATION_HIT if k != "url"},
                        "url": _url(reg["identifier"], on),
                        "citation": cite(call.ctx, uri=_url(reg["identifier"], on), title=reg["title"],
                                         text=_cite_text(reg, on))})
    seen = offset + consumed
    truncated = reply.total is not None and seen < reply.total
    not_applied = [*notes, *(f"the platform ignored part of the query: {t}" for t in reply.ignored)]
    total, relation = reply.total, reply.relation
    if total is not None and offset == 0 and not truncated:
        total, relation = len(results), "exact"  # every record seen: the regulations are counted
    elif total is not None:
        relation = "estimate"
        words.append(f"the total ({reply.total}) counts the platform's records, one per version and zicht "
                     "generation, so it can exceed the number of regulations; next_offset counts records too")
    words.append("each regulation once, its newest zicht generation")
    hint = await _out_of_force(call, undated, on) if not results and offset == 0 else None
    return {"results": results, "valid_on": on,
            "precision": precision(total=total, total_relation=relation, returned=len(results),
                                   truncated=truncated, matched="; ".join(words), not_applied=not_applied,
                                   next_offset=seen if truncated else None, hint=hint)}


async def _out_of_force(call: ToolCall, clauses: list[str], on: str) -> str | None:
    """An empty search whose regulations exist, but not in force on the date asked: that date is the cause."""
    reply = await call.get("", _parser(call.ctx), params=bwb_params(" and ".join(clauses), start=1, maximum=10),
                           headers=XML_ACCEPT)
    versions = [record_fields(gzd) for gzd in reply.records]
    if not versions:
        return None
    named = sorted({f"{v['title']} ({v['identifier']})" for v in versions})
    spans = sorted(f"{v['valid_from'] or '…'} to {v['valid_to'] or 'now'}" for v in versions)
    return (f"nothing in force on {on}: {'; '.join(named[:3])} exists, in versions valid {', '.join(spans[:4])}. "
            "Pass valid_on with a date in one of those periods for that version's text")


def ids_clause(ids: tuple[str, ...]) -> str:
    clauses = [f"dcterms.identifier=={i}" for i in ids]
    return clauses[0] if len(clauses) == 1 else "(" + " or ".join(clauses) + ")"


RECORDS_PER_REGULATION = 4  # zicht generations seen on one date (BWBR0011353 has four)
MAX_RECORDS = 200


def _take_regulations(records: list[dict[str, Any]], limit: int, *,
                      page_full: bool) -> tuple[list[dict[str, Any]], int]:
    """The records of the first `limit` regulations and how many records that is. A regulation whose records
    may go on past a full page is left for the next page (unless it is the only one), so none is listed twice."""
    groups: list[list[dict[str, Any]]] = []
    for record in records:
        if groups and groups[-1][0]["identifier"] == record["identifier"]:
            groups[-1].append(record)
        elif len(groups) < limit:
            groups.append([record])
        else:
            break
    if page_full and len(groups) > 1 and sum(map(len, groups)) == len(records):
        groups.pop()
    used = [r for group in groups for r in group]
    return used, len(used)


# --------------------------------------------------------------------------- reading a version


@dataclass(frozen=True, slots=True)
class Unit:
    """A structural unit of the text (hoofdstuk, afdeling, artikel, …) with where it sits."""

    element: Element
    kind: str
    number: str
    heading: str
    depth: int
    path: tuple[str, ...]

    @property
    def label(self) -> str:
        return f"{self.kind.capitalize()} {self.number}".strip()


def _units(root: Element) -> Iterator[Unit]:
    def walk(node: Element, depth: int, path: tuple[str, ...]) -> Iterator[Unit]:
        for sub in node:
            name = local(sub.tag)
            if name in _UNITS:
                kop = child(sub, "kop")
                number = (first_text(kop, "nr") or "") if kop is not None else ""
                heading = (first_text(kop, "titel") or "") if kop is not None else ""
                kind = (first_text(kop, "label") or name) if kop is not None else name
                unit = Unit(sub, kind.lower(), number, heading, depth, path)
                yield unit
                yield from walk(sub, depth + 1, (*path, unit.label + (f" {heading}" if heading else "")))
            elif name not in ("kop", "meta-data"):
                yield from walk(sub, depth, path)
    yield from walk(root, 0, ())


def _norm_article(value: str) -> str:
    text = value.strip().lower()
    text = re.sub(r"^(artikel|art\.?)\s*", "", text)
    return re.sub(r"\s+", "", text)


@dataclass(frozen=True, slots=True)
class Version:
    record: dict[str, Any]
    root: Element
    on: str

    @property
    def wetgeving(self) -> Element:
        return next((e for e in self.root.iter() if local(e.tag) == "wetgeving"), self.root)


async def _version(call: ToolCall, identifier: str, on: date) -> Version:
    """The SRU record of the version in force on `on`, then its XML text."""
    parse = _parser(call.ctx)
    query = f"dcterms.identifier=={identifier} and overheidbwb.geldigheidsdatum=={on.isoformat()}"
    # Several records can answer (one per zicht generation); the newest generation is the current text.
    reply = await call.get("", parse, params=bwb_params(query, start=1, maximum=RECORDS_PER_REGULATION * 2),
                           headers=XML_ACCEPT)
    if not reply.records:
        exists = await call.get("", parse, params=bwb_params(f"dcterms.identifier=={identifier}", start=1, maximum=1),
                                headers=XML_ACCEPT)
        if not exists.records:
            raise NotHeld("the Basiswettenbestand", f"regulation {identifier}",
                          url=f"https://wetten.overheid.nl/{identifier}",
                          advice="check the identifier (search_regulations finds them)")
        first = record_fields(exists.records[0])
        raise NotHeld("the Basiswettenbestand",
                      f"version of {identifier} ({first['title']}) in force on {on.isoformat()}",
                      url=f"https://wetten.overheid.nl/{identifier}/{on.isoformat()}",
                      cause="it was not yet in force or already repealed then",
                      advice=f"try another date (one of its versions starts {first['valid_from']})",
                      sample_advice=f"the sample holds a version starting {first['valid_from']}; search_regulations "
                                    "with this identifier lists the versions it holds")
    record = newest_per_regulation([record_fields(r) for r in reply.records])[0]
    if not record["text_url"]:
        raise ToolInputError(f"the Basiswettenbestand gives no text location for {identifier} on {on.isoformat()}")
    try:
        root = await fetch_linked(call, record["text_url"], as_element, real_base=BWB_BASE, hosts=BWB_DOCUMENT_HOSTS)
    except UpstreamStatusError as exc:
        if exc.status != 404:
            raise
        raise NotHeld("the Basiswettenbestand", f"text of {identifier} ({record['title']}) in force on "
                      f"{on.isoformat()} at {record['text_url']}",
                      url=f"https://wetten.overheid.nl/{identifier}/{on.isoformat()}",
                      advice=f"that version starts {record['valid_from']}",
                      sample_advice=f"the version itself is known (in force from {record['valid_from']}), only its "
                                    "text was not recorded; search_regulations with this identifier lists the "
                                    "versions, and an earlier date may find a recorded text (not the current law)"
                      ) from exc
    return Version(record=record, root=root, on=on.isoformat())


REGULATION_META = {
    "identifier": {"type": "string"},
    "title": {"type": "string"},
    "kind": NSTR,
    "authority": NSTR,
    "valid_on": {"type": "string", "description": "The date asked for."},
    "valid_from": NSTR,
    "valid_to": NSTR,
    "version": {"type": ["string", "null"], "description": "The version (toestand) in force on valid_on."},
    "url": {"type": "string"},
    "resolved": {"type": ["string", "null"],
                 "description": "How a name was read, e.g. \"'Awb' read as Algemene wet bestuursrecht "
                                "(BWBR0005537)\"; null when a BWB identifier was given."},
}

READ_INPUT: dict[str, Any] = {
    "type": "object",
    "properties": {
        "identifier": {"type": "string", "minLength": 1, "maxLength": 120,
                       "description": "BWB identifier (e.g. BWBR0005537) or the regulation as people name it: an "
                                      "abbreviation or short title such as 'Awb', 'Gemeentewet', 'Woo', 'Sr', 'BW6' "
                                      "(Boek 6 BW). An unknown name is refused with the closest ones."},
        "date": {"type": "string", "format": "date", "maxLength": 10,
                 "description": "Read the regulation as in force on this date, YYYY-MM-DD (default: today)."},
        **CHUNK_PROPS,
    },
    "required": ["identifier"],
    "additionalProperties": False,
}

READ_OUTPUT = object_schema({
    **REGULATION_META,
    "toc": {"type": "array", "items": {"type": "string"},
            "description": "Table of contents, one line per unit, indented by level."},
    "articles": {"type": "array", "items": {"type": "string"},
                 "description": "Article numbers in order; pass one to read_article."},
    **chunk_output_props(),
    "citation": CITATION_SCHEMA,
})


def _meta(version: Version, title: str, resolved: str | None) -> dict[str, Any]:
    rec = version.record
    return {"identifier": rec["identifier"], "title": title, "kind": rec["kind"] or version.wetgeving.get("soort"),
            "authority": rec["authority"], "valid_on": version.on, "valid_from": rec["valid_from"],
            "valid_to": rec["valid_to"], "version": rec["version"], "url": _url(rec["identifier"], version.on),
            "resolved": resolved}


def _citeertitel(version: Version) -> str:
    for name in ("citeertitel", "intitule"):
        element = child(version.wetgeving, name)
        text = " ".join(xml_text(element).split()) if element is not None else ""
        if text:
            return text
    return str(version.record["title"])


async def _read_regulation(call: ToolCall) -> dict[str, Any]:
    identifier, resolved = regulation(call.arguments.get("identifier"))
    version = await _version(call, identifier, _on_date(call, "date"))
    title = _citeertitel(version)
    units = list(_units(version.wetgeving))
    toc = ["  " * u.depth + u.label + (f" {u.heading}" if u.heading else "") for u in units]
    articles = [u.number for u in units if u.kind == "artikel" and u.number]
    meta = _meta(version, title, resolved)
    return {**meta, "toc": toc, "articles": articles, **chunk(xml_text(version.wetgeving), call),
            "citation": cite(call.ctx, uri=meta["url"], title=title, text=_cite_text(meta, version.on))}


ARTICLE_INPUT = {
    "type": "object",
    "properties": {
        "identifier": READ_INPUT["properties"]["identifier"],
        "article": {"type": "string", "minLength": 1, "maxLength": 40,
                    "description": "Article number as the regulation numbers it, e.g. 1, 3a or 8:1."},
        "date": READ_INPUT["properties"]["date"],
    },
    "required": ["identifier", "article"],
    "additionalProperties": False,
}

ARTICLE_OUTPUT = object_schema({
    **REGULATION_META,
    "article": {"type": "string"},
    "label": {"type": "string", "description": "E.g. 'Artikel 8:1'."},
    "path": {"type": "string", "description": "Where the article sits, e.g. 'Hoofdstuk 8 > Afdeling 8.1'."},
    "text": {"type": "string"},
    "citation": CITATION_SCHEMA,
})


async def _read_article(call: ToolCall) -> dict[str, Any]:
    wanted = _norm_article(str(call.arguments.get("article") or ""))
    if not wanted:
        raise ToolInputError("give an article number, e.g. 1 or 8:1")
    identifier, resolved = regulation(call.arguments.get("identifier"), wanted)
    version = await _version(call, identifier, _on_date(call, "date"))
    articles = [u for u in _units(version.wetgeving) if u.kind == "artikel"]
    unit = next((u for u in articles if _norm_article(u.number) == wanted), None)
    title = _citeertitel(version)
    if unit is None:
        known = ", ".join(u.number for u in articles[:30]) + (" …" if len(articles) > 30 else "")
        raise NotHeld("the Basiswettenbestand",
                      f"article {call.arguments.get('article')!r} in {title} ({identifier}) on {version.on}",
                      url=f"https://wetten.overheid.nl/{identifier}/{version.on}",
                      advice=f"its articles are {known or 'none'}",
                      sample_advice=f"the recorded text (which may be trimmed) has the articles {known or 'none'}")
    meta = _meta(version, title, resolved)
    url = f"https://wetten.overheid.nl/jci1.3:c:{identifier}&artikel={unit.number}&g={version.on}"
    text = xml_text(unit.element)
    return {**meta, "url": url, "article": unit.number, "label": unit.label, "path": " > ".join(unit.path),
            "text": text, "citation": cite(call.ctx, uri=url, title=f"{title}, {unit.label}",
                                           text=f"{unit.label}, {_cite_text(meta, version.on)}")}


TOOLS: tuple[ToolImpl, ...] = (
    ToolImpl(name="search_regulations", input_schema=SEARCH_INPUT, output_schema=SEARCH_OUTPUT, handler=_search,
             example={"title": "omzetbelasting", "limit": 5}),
    ToolImpl(name="read_regulation", input_schema=READ_INPUT, output_schema=READ_OUTPUT, handler=_read_regulation,
             example={"identifier": "BWBR0002629", "length": 2000}),
    ToolImpl(name="read_article", input_schema=ARTICLE_INPUT, output_schema=ARTICLE_OUTPUT, handler=_read_article,
             example={"identifier": "BWBR0003984", "article": "1"}),
)


# --------------------------------------------------------------------------- load status


async def measure_load(ctx: PlatformContext) -> LoadReport:
    """Newest version date: the latest `dcterms.modified`, found with widening windows back from today."""
    today = ctx.today()
    for days in _LOAD_WINDOWS:
        since = (today - timedelta(days=days)).isoformat()
        reply = await ctx.upstream.get("", _parser(ctx), params=bwb_params(f"dcterms.modified>={since}", start=1,
                                                                           maximum=50),
                                       headers=XML_ACCEPT, caller=SYSTEM_CALLER)
        dates = [d for d in (record_fields(r)["modified"] for r in reply.records) if d]
        if dates:
            return LoadReport(current_through=date.fromisoformat(max(dates)[:10]),
                              note=f"newest version date (dcterms.modified) among versions changed since {since}")
    return LoadReport(current_through=None, note=f"no version changed in the last {_LOAD_WINDOWS[-1]} days")

# --------------------------------------------------------------------------- live contract check


async def canary(probe: Probe, plugin: PlatformPlugin) -> None:
    ctx = probe.ctx
    parse = reply_parser(ctx.platform.key, ctx.platform.title.en, default_relation="exact")
    today = ctx.today().isoformat()
    search = await probe.get("search", "", parse, headers=XML_ACCEPT, params=bwb_params(
        f'overheidbwb.titel all "omzetbelasting" and overheidbwb.geldigheidsdatum=={today}', start=1, maximum=5))
    probe.count(search.total, len(search.records), "search: numberOfRecords")
    probe.expect(bool(search.records), "search", "no regulation with 'omzetbelasting' in its title is in force today")
    records = [record_fields(r) for r in search.records]
    for n, rec in enumerate(records):
        _canary_record(probe, rec, f"search: record {n + 1}")
    probe.check()
    read = await probe.get("read", "", parse, headers=XML_ACCEPT, params=bwb_params(
        f"dcterms.identifier=={records[0]['identifier']} and overheidbwb.geldigheidsdatum=={today}", start=1,
        maximum=8))
    newest = newest_per_regulation([record_fields(r) for r in read.records])
    if probe.expect(len(newest) == 1, "read", f"{len(newest)} regulations for one identifier on {today}"):
        probe.requests += 1
        try:
            call = ToolCall(tool="check-live", arguments={}, caller=CHECK_CALLER, ctx=ctx)
            root = await fetch_linked(call, newest[0]["text_url"], as_element, real_base=BWB_BASE,
                                      hosts=BWB_DOCUMENT_HOSTS)
        except UpstreamBadReply as exc:
            raise Drift(f"read: the text at locatie_toestand is not XML ({exc.__cause__ or exc})") from exc
        articles = [e for e in root.iter() if e.tag.rsplit("}", 1)[-1] == "artikel"]
        probe.expect(bool(articles), "read: toestand", "the text has no <artikel> elements")
    probe.check()
    await check_load(probe, plugin)


def _canary_record(probe: Probe, rec: Mapping[str, Any], where: str) -> None:
    probe.expect(bool(re.fullmatch(r"BWB[RV]\d{7}", rec.get("identifier") or "")), where,
                 f"identifier {rec.get('identifier')!r} is not a BWB identifier")
    probe.expect(bool(rec.get("title")), where, "no title")
    probe.expect(bool(DAY.match(rec.get("valid_from") or "")), where,
                 f"geldigheidsperiode_startdatum {rec.get('valid_from')!r} is not a date")
    end = rec.get("valid_to")
    probe.expect(end is None or bool(DAY.match(end)), where, f"geldigheidsperiode_einddatum {end!r} is not a date")
    probe.expect(str(rec.get("text_url") or "").startswith("https://"), where,
                 f"locatie_toestand {rec.get('text_url')!r} is not an https URL")


# How search and fetch (proxy.serving.crosssearch) reach this source.
SEARCH_ROUTE = SourceRoute("search_regulations", "title", "identifier",
    ((re.compile(r"^BWB[RV]\d{7}$", re.IGNORECASE), "read_regulation", "identifier"),),
    "BWBR0002629", period=False)


PLATFORM = PlatformPlugin(key="wetten", tools=TOOLS,
                          measure_load=measure_load, canary=canary, search_route=SEARCH_ROUTE,
                          about=About(
    search_words=(
        ("wet", "regeling", "artikel"),
        ("law", "regulation", "article", "act", "statute")),
    documentation="https://www.overheid.nl/help/wet-en-regelgeving/open-data",
    cannot=("search on titles only, not on the text of regulations",),
    quirks=("a record is a version (toestand) of a regulation, so one regulation has many records",
            "one version can answer as several records, one per zicht generation; the newest is the current text",
            "an open end date is written 9999-12-31"),
    hosts=tuple(sorted(BWB_DOCUMENT_HOSTS)),
    cannot_nl=("zoeken alleen op titels, niet in de tekst van regelingen",),
    quirks_nl=("een record is een versie (toestand) van een regeling, dus één regeling heeft veel records",
               "één versie kan als meerdere records antwoorden, één per zichtgeneratie; de nieuwste is de huidige "
               "tekst",
               "een open einddatum staat als 9999-12-31")))
