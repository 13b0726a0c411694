"""Rechtspraak: published rulings of Dutch courts, from the Rechtspraak open-data service.

Upstream: `https://data.rechtspraak.nl` ("Technische documentatie Open Data van de Rechtspraak",
https://www.rechtspraak.nl/Uitspraken/paginas/open-data.aspx; research §5):

* `GET /uitspraken/zoeken` searches the **metadata** index and answers Atom: `type`
  (Uitspraak|Conclusie), `creator` (court URI), `subject` (area-of-law URI), `date` (one value: that
  day; two values: a range), `return=DOC` (only ECLIs with a document), `max` (≤ 1000), `from`
  (offset) and `sort` (ASC|DESC by modification). The subtitle "Aantal gevonden ECLI's: N" is an
  exact count for that filter. It has **no free-text search**: unknown parameters such as `q=` are
  silently ignored and the whole corpus comes back. Words therefore go to the website's own search
  (`POST uitspraken.rechtspraak.nl/api/zoek`, best effort: proxy.platforms.rechtspraak_words); when
  that does not answer, this feed answers and the words are listed in `precision.not_applied`.
* `GET /uitspraken/content?id=<ECLI>` answers `<open-rechtspraak>`: an RDF block with the metadata,
  then `inhoudsindicatie` and `uitspraak` or `conclusie`; an unknown ECLI is HTTP 404.

Unknown ECLIs can also be answered by a redirect to an HTML notice (mededeling.rechtspraak.nl/404):
the final answer being HTML means "unknown ECLI". A summary of "-" means none, everywhere. Courts
and areas of law are accepted in plain words through `rechtspraak_courts.json` and
`rechtspraak_areas.json` (the platform's fixed URI lists), or refused with the closest.

The human page of a ruling is `https://uitspraken.rechtspraak.nl/details?id=<ECLI>`. XML is parsed
with defusedxml only.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit
from xml.etree.ElementTree import Element

from proxy.core.caller import SYSTEM_CALLER
from proxy.core.errors import NotHeld, ToolInputError, UpstreamError, UpstreamStatusError
from proxy.core.schema_atoms import NDATE, NSTR, STRINGS
from proxy.platforms._common import (
    CHUNK_PROPS,
    PAGE_PROPS,
    aligned,
    chunk,
    chunk_output_props,
    cite,
    date_range,
    date_range_props,
    page,
    parse_xml,
)
from proxy.platforms._resolve import Entry, Resolved, Table, norm
from proxy.platforms.rechtspraak_words import FILTERED_PAGE, ZOEK_URL, Hit, Narrowing, read_zoek, zoek_body, zoek_url
from proxy.plugin.canary import DAY, ISO_START, Probe, check_load
from proxy.plugin.toolkit import About, LoadReport, PlatformContext, PlatformPlugin, SourceRoute, ToolCall, ToolImpl
from proxy.results.outputs import CITATION_SCHEMA, object_schema, precision, result_list_schema

__all__ = ["PLATFORM", "TOOLS", "measure_load"]

ATOM = "{http://www.w3.org/2005/Atom}"
RS = "{http://www.rechtspraak.nl/schema/rechtspraak-1.0}"
RDF = "{http://www.w3.org/1999/02/22-rdf-syntax-ns#}"
DCT = "{http://purl.org/dc/terms/}"
PSI = "{http://psi.rechtspraak.nl/}"
RDFS = "{http://www.w3.org/2000/01/rdf-schema#}"
COURT_BASE = "http://standaarden.overheid.nl/owms/terms/"
AREA_BASE = "http://psi.rechtspraak.nl/rechtsgebied#"
DETAILS = "https://uitspraken.rechtspraak.nl/details?id="
EARLIEST = date(1913, 1, 1)  # the oldest published ruling; the lower end of an open date range
ECLI_RE = re.compile(r"^ECLI:[A-Z]{2}:[A-Z0-9]{1,7}:[0-9]{4}:[A-Z0-9.]{1,25}$")
COUNT_RE = re.compile(r"([0-9][0-9.]*)")
TITLE_DATE_RE = re.compile(r"\b([0-3][0-9])-([01][0-9])-([0-9]{4})\b")
PLACEHOLDERS = frozenset({"-", "–", "—"})



# --------------------------------------------------------------------------- arguments


AREAS = Table.load(Path(__file__).with_name("rechtspraak_areas.json"), argument="area_of_law")
COURT_TABLE = Table.load(Path(__file__).with_name("rechtspraak_courts.json"), argument="court")
MAX_CHOSEN = 12  # a word several names share ("Amsterdam") may stand for this many courts or areas, sent OR'ed
# A kind of court named alone means every court of that kind (the list's Type).
COURT_KINDS = {"rechtbank": "Rechtbank", "rechtbanken": "Rechtbank", "gerechtshof": "Gerechtshof",
               "gerechtshoven": "Gerechtshof", "hof": "Gerechtshof", "kantongerecht": "Kantongerecht",
               "kantongerechten": "Kantongerecht", "tuchtrecht": "TuchtrechtelijkeInstantie",
               "tuchtcollege": "TuchtrechtelijkeInstantie", "tuchtcolleges": "TuchtrechtelijkeInstantie",
               "caribisch nederland": "Koninkrijksinstantie", "koninkrijk": "Koninkrijksinstantie"}


def _sends(entry: Entry, base: str) -> list[str]:
    return list(entry.values) if entry.values else [base + entry.key]


def _resolve_many(table: Table, value: str, base: str) -> tuple[list[str], str]:
    """URIs for a value as people write it, and what it was read as.

    A URI is sent as given; a name, code or alias is its one entry; a word that several entries share
    ("Gerechtshof", "mededingingsrecht") stands for all of them (the feed ORs repeated values) and the
    answer says so; anything else is refused with the closest candidates."""
    value = " ".join(value.split())
    if value.startswith(("http://", "https://")):
        return [value], value
    entry = table.find(value)
    if entry is not None:
        note = Resolved(value, entry).note
        said = entry.label + (f" ({note})" if note else "")
        if entry.extra.get("continues"):
            said += " with the courts it continues: " + ", ".join(entry.extra["continues"])
        return _sends(entry, base), said
    several = table.partial(value)
    if 1 < len(several) <= MAX_CHOSEN:
        return _flat(several, base), f"{value!r} read as any of: " + ", ".join(e.label for e in several)
    if len(several) == 1:
        return _sends(several[0], base), f"{several[0].label} ({value!r} read as it)"
    raise table.refusal(value, hint=" (a name, code or key as listed), or the URI itself")


def _flat(entries: list[Entry], base: str) -> list[str]:
    return list(dict.fromkeys(uri for e in entries for uri in _sends(e, base)))


def court_uris(value: str) -> tuple[list[str], str]:
    """A court name ('Raad van State', 'Hof Den Haag'), ECLI code ('RVS') or creator URI → creator URIs.

    A court of today also sends the courts it continues (Gerechtshof Den Haag: 's-Gravenhage), since the
    platform files each ruling under the court that gave it; a kind of court alone ('Rechtbank') is every
    court of that kind in the platform's list."""
    kind = COURT_KINDS.get(norm(value))
    if kind is not None:
        courts = [e for e in COURT_TABLE.entries if e.extra.get("type") == kind]
        today = sum(1 for e in courts if not e.extra.get("until"))
        return _flat(courts, COURT_BASE), (f"{value.strip()!r} read as every {kind} in the platform's court list "
                                           f"({len(courts)}: {today} of today and {len(courts) - today} that ended)")
    return _resolve_many(COURT_TABLE, value, COURT_BASE)


def area_uris(value: str) -> tuple[list[str], str]:
    """An area of law in plain words ('socialezekerheidsrecht'), its key or URI → subject URIs."""
    return _resolve_many(AREAS, value, AREA_BASE)


def _no_placeholder(text: str) -> str:
    """The platform writes "-" where a ruling has no summary (inhoudsindicatie)."""
    return "" if text.strip() in PLACEHOLDERS else text


def normal_ecli(value: str) -> str:
    ecli = value.strip().upper().replace(" ", "")
    if not ECLI_RE.match(ecli):
        raise ToolInputError(f"ecli must look like ECLI:NL:HR:2014:952, got {value!r}")
    return ecli


# --------------------------------------------------------------------------- the Atom feed


# The most entries one /uitspraken/zoeken is asked for (the platform's own maximum is 1000).
FEED_MOST = 1000


@dataclass(frozen=True, slots=True)
class Feed:
    """One page of the feed: every position in order, a withdrawn (deleted) entry as None."""

    total: int | None
    positions: list[dict[str, Any] | None]

    @property
    def entries(self) -> list[dict[str, Any]]:
        return [e for e in self.positions if e is not None]

    @property
    def deleted(self) -> int:
        return sum(e is None for e in self.positions)


def _text(el: Element | None) -> str:
    return " ".join("".join(el.itertext()).split()) if el is not None else ""


def read_feed(body: bytes) -> Feed:
    root = parse_xml(body)
    if root.tag != f"{ATOM}feed":
        raise ValueError("a /uitspraken/zoeken answer is an Atom feed")
    match = COUNT_RE.search(_text(root.find(f"{ATOM}subtitle")))
    total = int(match.group(1).replace(".", "")) if match else None
    positions: list[dict[str, Any] | None] = [
        None if entry.get("deleted") else
        {"ecli": _text(entry.find(f"{ATOM}id")), "title": _text(entry.find(f"{ATOM}title")),
         "summary": _text(entry.find(f"{ATOM}summary")), "updated": _text(entry.find(f"{ATOM}updated"))}
        for entry in root.findall(f"{ATOM}entry")]
    return Feed(total=total, positions=positions)


def _title_parts(title: str) -> tuple[str | None, str | None, str | None]:
    """'ECLI:…, Raad van State, 25-03-2026, 202403456/1/R4' → (court, ruling date, case number)."""
    parts = [p.strip() for p in title.split(",")]
    court = parts[1] if len(parts) > 1 else None
    found = TITLE_DATE_RE.search(title)
    day = f"{found.group(3)}-{found.group(2)}-{found.group(1)}" if found else None
    case = ", ".join(parts[3:]) if len(parts) > 3 else None
    return court, day, case


def _day(value: str) -> str | None:
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00")).date().isoformat() if value else None
    except ValueError:
        return None


RULING_ITEM = {
    "ecli": {"type": "string", "description": "European Case Law Identifier (read_ruling accepts it)."},
    "title": {"type": "string"},
    "court": NSTR,
    "date": {**NDATE, "description": "Date of the ruling (from the title)."},
    "case_number": NSTR,
    "summary": {"type": "string", "description": "Inhoudsindicatie; empty when the court gave none."},
    "modified": {**NDATE, "description": "Last modification (publication or change)."},
    "url": {"type": "string"},
}


def _ruling_item(ctx: PlatformContext, entry: dict[str, Any]) -> dict[str, Any]:
    court, day, case = _title_parts(entry["title"])
    summary = _no_placeholder(entry["summary"])
    url = DETAILS + entry["ecli"]
    return {
        "ecli": entry["ecli"], "title": entry["title"], "court": court, "date": day, "case_number": case,
        "summary": summary, "modified": _day(entry["updated"]), "url": url,
        "citation": cite(ctx, uri=url, title=entry["title"] or entry["ecli"],
                         text=f"{court or 'Rechtspraak'}, {day or 'datum onbekend'}, {entry['ecli']}"
                              + (f": {summary}" if summary else "")),
    }


# --------------------------------------------------------------------------- search_rulings


async def _search_rulings(call: ToolCall) -> dict[str, Any]:
    query = " ".join(str(call.arguments.get("query") or "").split())
    if query:
        try:
            return await _search_words(call, query)
        except UpstreamError as exc:  # best effort: the metadata feed answers instead, and says what was lost
            return await _search_feed(call, dropped=f"search words {query!r}: the full-text search of "
                                      f"uitspraken.rechtspraak.nl did not answer ({exc}), so they were not applied; "
                                      "only the metadata filter was")
    return await _search_feed(call)


async def _search_feed(call: ToolCall, dropped: str = "") -> dict[str, Any]:
    args = call.arguments
    limit, offset, notes = page(call)
    start, end = date_range(call)
    params: list[tuple[str, str]] = []
    matched = []
    if args.get("type"):
        params.append(("type", str(args["type"])))
        matched.append(f"type {args['type']}")
    if args.get("court"):
        uris, said = court_uris(str(args["court"]))
        params += [("creator", uri) for uri in uris]
        matched.append(f"court {said}")
    if args.get("area_of_law"):
        uris, said = area_uris(str(args["area_of_law"]))
        params += [("subject", uri) for uri in uris]
        matched.append(f"area of law {said}")
    if start or end:
        today = call.ctx.today()
        low, high = start or EARLIEST, end or today
        params += [("date", low.isoformat()), ("date", high.isoformat())]
        matched.append(f"ruling date {low} to {high}")
    window = aligned(offset, limit, most=FEED_MOST)
    params += [("return", "DOC"), ("max", str(window.size)), ("from", str(window.start)), ("sort", "DESC")]
    if dropped:
        notes = [dropped, *notes]
    feed = await call.get("/uitspraken/zoeken", read_feed, params=params)
    held = window.cut(feed.positions)
    items = [_ruling_item(call.ctx, e) for e in held if e is not None]
    withdrawn = len(held) - len(items)
    consumed = len(held)
    truncated = (offset + consumed < feed.total if feed.total is not None
                 else window.more_held(feed.positions) or consumed >= limit)
    described = "metadata filter only (" + ("; ".join(matched) or "no filter: every published ruling") + ")"
    if dropped:
        described += "; the search words were NOT applied (the full-text search did not answer)"
    described += "; rulings with a published document; most recently modified first"
    if withdrawn:
        described += f"; {withdrawn} withdrawn entr{'y' if withdrawn == 1 else 'ies'} on this page skipped"
    return {"results": items, "precision": precision(
        total=feed.total, total_relation="exact" if feed.total is not None else "unknown", returned=len(items),
        truncated=truncated, matched=described, not_applied=notes,
        next_offset=offset + consumed if truncated else None)}


# The ECLI court code of each creator URI in the platform's list (a court's own URI is its first value).
CODE_OF_URI = {(e.values[0] if e.values else COURT_BASE + e.key): e.key for e in COURT_TABLE.entries}
AREA_LABEL_OF_URI = {AREA_BASE + e.key: e.label for e in AREAS.entries}


def _narrowing(call: ToolCall) -> Narrowing:
    """The metadata filters, as applied here to the full-text hits (see proxy.platforms.rechtspraak_words)."""
    args = call.arguments
    start, end = date_range(call)
    said: list[str] = []
    courts: set[str] = set()
    labels: list[str] = []
    if args.get("court"):
        uris, text = court_uris(str(args["court"]))
        courts = {CODE_OF_URI[u] for u in uris if u in CODE_OF_URI}
        if not courts:
            raise ToolInputError(f"court {args['court']!r} is not in the platform's court list, so the full-text "
                                 "search cannot be narrowed to it; give its name or ECLI code")
        said.append(f"court {text}")
    if args.get("area_of_law"):
        uris, text = area_uris(str(args["area_of_law"]))
        labels = [AREA_LABEL_OF_URI[u] for u in uris if u in AREA_LABEL_OF_URI]
        if not labels:
            raise ToolInputError(f"area_of_law {args['area_of_law']!r} is not in the platform's list of areas, so "
                                 "the full-text search cannot be narrowed to it; give its name or key")
        said.append(f"area of law {text}")
    kind = str(args.get("type") or "").lower()
    if kind:
        said.append(f"type {args['type']}")
    if start or end:
        said.append(f"ruling date {start or EARLIEST} to {end or call.ctx.today()}")
    return Narrowing(courts=frozenset(courts), areas=tuple(labels), kind=kind, start=start, end=end, said=said)


def _hit_item(ctx: PlatformContext, hit: Hit) -> dict[str, Any]:
    entry = COURT_TABLE.find(hit.court_code)
    court = entry.label if entry is not None else None
    day = hit.date.isoformat() if hit.date else None
    title = hit.title or ", ".join(p for p in (hit.ecli, court, f"{hit.date:%d-%m-%Y}" if hit.date else "") if p)
    url = DETAILS + hit.ecli
    return {
        "ecli": hit.ecli, "title": title, "court": court, "date": day, "case_number": None,
        "summary": hit.fragment, "modified": hit.published.isoformat() if hit.published else None, "url": url,
        "citation": cite(ctx, uri=url, title=title, text=f"{court or 'Rechtspraak'}, {day or 'datum onbekend'}, "
                                                       f"{hit.ecli}" + (f": {hit.fragment}" if hit.fragment else "")),
    }


async def _search_words(call: ToolCall, query: str) -> dict[str, Any]:
    limit, offset, notes = page(call)
    narrowing = _narrowing(call)
    url = zoek_url(call.ctx.upstream.platform.base_url)
    start, size = (0, FILTERED_PAGE) if narrowing else (offset, limit)
    total, hits = await call.post_json(url, zoek_body(query, start, size), read_zoek, idempotent=True)
    described = (f"full text {query!r} through the search of uitspraken.rechtspraak.nl (best effort: Rechtspraak "
                 "does not document it as an API); rulings holding any of the words, the most relevant first "
                 "(put a phrase in double quotes to match it whole)")
    if narrowing:
        kept = [h for h in hits if narrowing.keeps(h)]
        found = kept[offset:offset + limit]
        more_upstream = total is not None and total > len(hits)
        truncated = offset + len(found) < len(kept)
        described += (f"; then {'; '.join(narrowing.said)}, applied here to the {len(hits)} most relevant hits"
                      + (f" of {total}" if total is not None else ""))
        if more_upstream:
            notes = [f"court, area, type and period were applied to the {len(hits)} most relevant of {total} hits "
                     "only: less relevant rulings that match them are not listed; add words to narrow the search",
                     *notes]
        items = [_hit_item(call.ctx, h) for h in found]
        return {"results": items, "precision": precision(
            total=len(kept) if not more_upstream else None,
            total_relation="exact" if not more_upstream else "unknown", returned=len(items),
            truncated=truncated or (more_upstream and bool(kept)), matched=described, not_applied=notes,
            next_offset=offset + len(found) if truncated else None)}
    items = [_hit_item(call.ctx, h) for h in hits[:limit]]
    truncated = offset + len(items) < total if total is not None else len(hits) >= limit
    return {"results": items, "precision": precision(
        total=total, total_relation="exact" if total is not None else "unknown", returned=len(items),
        truncated=truncated, matched=described, not_applied=notes,
        next_offset=offset + len(items) if truncated else None)}


SEARCH_INPUT = object_schema({
    "court": {"type": "string", "maxLength": 120,
              "description": "Court (instantie) as people write it: 'Raad van State', 'Hoge Raad', 'Hof Den Haag', "
                             "'Rechtbank Den Bosch', an ECLI court code ('HR', 'RVS', 'CRVB', 'RBAMS', 'OGEAA') or "
                             "the creator URI; any court of the platform's list, also those that ended and the "
                             "Caribbean ones. A court of today includes the courts it continues (Hof Den Haag: "
                             "'s-Gravenhage before 2013); 'Gerechtshof' or 'Rechtbank' alone means all of them. "
                             "What was read is said in precision.matched; an unknown name is refused with the "
                             "closest courts."},
    "area_of_law": {"type": "string", "maxLength": 120,
                    "description": "Area of law (rechtsgebied) in plain words, e.g. 'bestuursrecht', 'strafrecht', "
                                   "'omgevingsrecht', 'socialezekerheidsrecht', 'familierecht', 'belastingrecht', its "
                                   "key such as 'bestuursrecht_omgevingsrecht', or its psi.rechtspraak.nl URI; an "
                                   "unknown word is refused with the closest areas."},
    "type": {"enum": ["Uitspraak", "Conclusie"],
             "description": "Uitspraak (a ruling) or Conclusie (an Advocate General's opinion)."},
    **date_range_props("Applies to the date of the ruling."),
    "query": {"type": "string", "maxLength": 200,
              "description": "Words to find in the rulings' full text, through uitspraken.rechtspraak.nl's own "
                             "search (best effort): rulings holding any of the words, most relevant first; put a "
                             "phrase in double quotes. With words, court, area, type and dates narrow the 100 most "
                             "relevant hits. Without words: the metadata feed, newest first."},
    **PAGE_PROPS,
}, required=[])
SEARCH_OUTPUT = result_list_schema(RULING_ITEM)


# --------------------------------------------------------------------------- read_ruling


def _block_text(el: Element | None) -> str:
    """The text of an inhoudsindicatie/uitspraak block: a line per innermost para or title, blank lines kept once."""
    if el is None:
        return ""
    blocks = ("para", "title")
    lines: list[str] = []
    for node in el.iter():
        if node.tag.rsplit("}", 1)[-1] not in blocks:
            continue
        if any(inner is not node and inner.tag.rsplit("}", 1)[-1] in blocks for inner in node.iter()):
            continue
        lines.append(" ".join("".join(node.itertext()).split()))
    if not lines:
        return _text(el)
    out: list[str] = []
    for line in lines:
        if line or (out and out[-1]):
            out.append(line)
    return "\n".join(out).strip()


def _is_html(body: bytes) -> bool:
    head = body[:512].lstrip().lower()
    return head.startswith((b"<!doctype html", b"<html"))


def content_parser(ecli: str) -> Callable[[bytes], dict[str, Any]]:
    """read_content for one ECLI. An unknown ECLI may be answered by a redirect to an HTML notice
    (https://mededeling.rechtspraak.nl/404, as openstate/open-rechtspraak's scraper handles): the
    final answer is then HTML, which means "no such ruling", not a garbled reply."""
    def parse(body: bytes) -> dict[str, Any]:
        if _is_html(body):
            raise NotHeld("Rechtspraak", f"published ruling {ecli}", url=f"{DETAILS}{ecli}",
                          advice="it answered with its 'not found' notice; check the ECLI (search_rulings finds them)")
        return read_content(body)
    return parse


def read_content(body: bytes) -> dict[str, Any]:
    root = parse_xml(body)
    if root.tag.rsplit("}", 1)[-1] != "open-rechtspraak":
        raise ValueError("a /uitspraken/content answer is an <open-rechtspraak> document")
    descriptions = root.findall(f"{RDF}RDF/{RDF}Description")
    if not descriptions:
        raise ValueError("the content document has no rdf:Description")
    meta = descriptions[0]

    def one(tag: str) -> str | None:
        el = meta.find(tag)
        return _text(el) or None if el is not None else None

    title = None
    for desc in descriptions:
        el = desc.find(f"{DCT}title")
        if el is not None:
            title = _text(el)
    creator = meta.find(f"{DCT}creator")
    body_el = root.find(f"{RS}uitspraak")
    if body_el is None:
        body_el = root.find(f"{RS}conclusie")
    return {
        "ecli": one(f"{DCT}identifier"),
        "title": title,
        "type": one(f"{DCT}type"),
        "court": _text(creator) or None if creator is not None else None,
        "court_uri": creator.get("resourceIdentifier") if creator is not None else None,
        "date": one(f"{DCT}date"),
        "published": one(f"{DCT}issued"),
        "modified": one(f"{DCT}modified"),
        "case_numbers": [_text(e) for e in meta.findall(f"{PSI}zaaknummer") if _text(e)],
        "procedure": [_text(e) for e in meta.findall(f"{PSI}procedure") if _text(e)],
        "areas_of_law": [_text(e) for e in meta.findall(f"{DCT}subject") if _text(e)],
        "seat": one(f"{DCT}spatial"),
        "references": [_text(e) for e in meta.findall(f"{DCT}references") if _text(e)],
        "relations": [_text(e) for e in meta.findall(f"{DCT}relation") if _text(e)],
        "found_in": [_text(e) for e in meta.iter(f"{RDF}li") if _text(e)],
        "summary": _no_placeholder(_block_text(root.find(f"{RS}inhoudsindicatie"))),
        "text": _block_text(body_el),
    }


async def _read_ruling(call: ToolCall) -> dict[str, Any]:
    ecli = normal_ecli(str(call.arguments.get("ecli") or ""))
    try:
        doc = await call.get("/uitspraken/content", content_parser(ecli), params=[("id", ecli)])
    except UpstreamStatusError as exc:
        if exc.status == 404:
            raise NotHeld("Rechtspraak", f"published ruling {ecli}", url=f"{DETAILS}{ecli}",
                          advice="check the ECLI (search_rulings finds them)") from exc
        raise
    text = doc.pop("text")
    part = chunk(text, call)
    url = DETAILS + ecli
    court, day = doc["court"] or "Rechtspraak", doc["date"] or "datum onbekend"
    doc["ecli"] = doc["ecli"] or ecli
    return {
        **doc,
        **part,
        "has_text": bool(text),
        "url": url,
        "citation": cite(call.ctx, uri=url, title=doc["title"] or ecli,
                         text=f"{court}, {day}, {ecli} (publicatiedatum {doc['published'] or 'onbekend'})"
                              + (f": {doc['summary'][:300]}" if doc["summary"] else "")),
    }


READ_INPUT = object_schema({
    "ecli": {"type": "string", "minLength": 10, "maxLength": 60,
             "description": "The ruling's ECLI, e.g. ECLI:NL:HR:2014:952 (search_rulings returns them)."},
    **CHUNK_PROPS,
}, required=["ecli"])
READ_OUTPUT = object_schema({
    "ecli": {"type": "string"},
    "title": NSTR,
    "type": {**NSTR, "description": "Uitspraak or Conclusie."},
    "court": NSTR,
    "court_uri": NSTR,
    "date": {**NDATE, "description": "Date of the ruling."},
    "published": {**NDATE, "description": "Publication date on rechtspraak.nl."},
    "modified": NSTR,
    "case_numbers": STRINGS,
    "procedure": STRINGS,
    "areas_of_law": STRINGS,
    "seat": {**NSTR, "description": "Zittingsplaats."},
    "references": {**STRINGS, "description": "Statutes referred to (wetsverwijzingen)."},
    "relations": {**STRINGS, "description": "Formal relations to other rulings (appeal, opinion)."},
    "found_in": {**STRINGS, "description": "Vindplaatsen: where the ruling is published."},
    "summary": {"type": "string", "description": "Inhoudsindicatie; empty when the court gave none."},
    **chunk_output_props(),
    "has_text": {"type": "boolean", "description": "False for a metadata-only ruling (no published text)."},
    "url": {"type": "string"},
    "citation": CITATION_SCHEMA,
})


# --------------------------------------------------------------------------- registration and load status

TOOLS: tuple[ToolImpl, ...] = (
    ToolImpl(name="search_rulings", input_schema=SEARCH_INPUT, output_schema=SEARCH_OUTPUT, handler=_search_rulings,
             example={"court": "Raad van State", "area_of_law": "bestuursrecht_omgevingsrecht", "limit": 5}),
    ToolImpl(name="read_ruling", input_schema=READ_INPUT, output_schema=READ_OUTPUT, handler=_read_ruling,
             example={"ecli": "ECLI:NL:RBAMS:2010:BO3979", "length": 2000}),
)


async def measure_load(ctx: PlatformContext) -> LoadReport:
    """The newest modification among the 20 most recently modified rulings (publications count as one)."""
    params = [("type", "Uitspraak"), ("return", "DOC"), ("max", "20"), ("from", "0"), ("sort", "DESC")]
    feed = await ctx.upstream.get("/uitspraken/zoeken", read_feed, params=params, caller=SYSTEM_CALLER)
    modified = [d for d in (_day(e["updated"]) for e in feed.entries) if d]
    rulings = [d for d in (_title_parts(e["title"])[1] for e in feed.entries) if d]
    if not modified:
        return LoadReport(current_through=None, note="the feed returned no rulings")
    return LoadReport(current_through=date.fromisoformat(max(modified)),
                      note=f"newest publication or change {max(modified)}; newest ruling date among them "
                           f"{max(rulings) if rulings else 'unknown'}")

# --------------------------------------------------------------------------- live contract check


async def canary(probe: Probe, plugin: PlatformPlugin) -> None:

    search = await probe.get("search", "/uitspraken/zoeken", read_feed, params=[
        ("type", "Uitspraak"), ("return", "DOC"), ("max", "5"), ("from", "0"), ("sort", "DESC")])
    probe.count(search.total, len(search.entries), "search: subtitle \"Aantal gevonden ECLI's\"")
    probe.expect(0 < len(search.entries) <= 5, "search", f"{len(search.entries)} entries for max=5")
    for n, entry in enumerate(search.entries):
        where = f"search: entry {n + 1}"
        probe.expect(bool(ECLI_RE.match(entry["ecli"])), where, f"id {entry['ecli']!r} is not an ECLI")
        probe.expect(bool(TITLE_DATE_RE.search(entry["title"])), where,
                     f"title {entry['title'][:80]!r} has no ruling date as dd-mm-yyyy")
        probe.expect(bool(ISO_START.match(entry["updated"])), where, f"updated {entry['updated']!r} is not ISO")
    probe.check()
    ecli = search.entries[0]["ecli"]
    doc = await probe.get("read", "/uitspraken/content", content_parser(ecli), params=[("id", ecli)])
    probe.expect(doc.get("ecli") == ecli, "read", f"dcterms:identifier is {doc.get('ecli')!r}, expected {ecli}")
    probe.expect(bool(DAY.match(doc.get("date") or "")), "read", f"dcterms:date {doc.get('date')!r} is not a date")
    probe.expect(bool(doc.get("court")), "read", "no dcterms:creator (court)")
    probe.check()
    total, hits = await probe.post_json("full text", zoek_url(probe.ctx.upstream.platform.base_url),
                                        zoek_body("uitspraak", 0, 3), read_zoek)
    probe.expect(isinstance(total, int) and total > 0, "full text", f"ResultCount is {total!r}")
    probe.expect(0 < len(hits) <= 3, "full text", f"{len(hits)} results with an ECLI in TitelEmphasis for PageSize 3")
    probe.expect(all(h.date for h in hits), "full text", "a result's Uitspraakdatum is not a dd-mm-yyyy date")
    probe.check()
    await check_load(probe, plugin)


# How search and fetch (proxy.serving.crosssearch) reach this source.
SEARCH_ROUTE = SourceRoute("search_rulings", "query", "ecli",
    ((re.compile(r"^ECLI:NL:[A-Z0-9]+:\d{4}:[A-Z0-9]+$", re.IGNORECASE), "read_ruling", "ecli"),),
    "ECLI:NL:HR:2024:1273")


PLATFORM = PlatformPlugin(key="rechtspraak", tools=TOOLS,
                          measure_load=measure_load, canary=canary, search_route=SEARCH_ROUTE,
                          about=About(
    search_words=(
        ("uitspraak", "uitspraken", "rechter", "rechtspraak", "ecli", "vonnis", "arrest"),
        ("ruling", "court", "judgment", "case law")),
    documentation="https://www.rechtspraak.nl/Uitspraken/paginas/open-data.aspx",
    hosts=(urlsplit(ZOEK_URL).netloc,),
    cannot=("the open-data feed has no free-text search (unknown parameters are ignored and the whole corpus comes "
            "back); words go to the website's undocumented search, best effort",),
    quirks=("a summary of \"-\" is a placeholder for no summary",),
    cannot_nl=("de opendatafeed kan niet zoeken in de volledige tekst (onbekende parameters worden genegeerd en het "
               "hele bestand komt terug); woorden gaan naar de niet-gedocumenteerde zoekfunctie van de website, naar "
               "beste vermogen",),
    quirks_nl=("een samenvatting \"-\" staat voor: geen samenvatting",)))
