"""Tweede Kamer: documents, cases, activities, votes and members from the Gegevensmagazijn.

Upstream: the Gegevensmagazijn OData v4 API, `https://gegevensmagazijn.tweedekamer.nl/OData/v4/2.0`
(docs: https://opendata.tweedekamer.nl/documentatie/odata-api; information model:
https://opendata.tweedekamer.nl/documentatie/informatiemodel). JSON only, no key, CC0.

Every query filters `Verwijderd eq false` (soft deletes), asks `$count=true` (an exact count from
the database, research §0) and pages with `$top`/`$skip` itself, because the service sends no
`@odata.nextLink` once `$top` is given (TK issue #70). A page holds at most 250 entities.

Human links are on www.tweedekamer.nl: `/downloads/document?id=<DocumentNummer>` (the file),
`/kamerstukken/detail?id=<Zaak.Nummer>&did=<DocumentNummer>` (a case), and the activity pages under
`/debat_en_vergadering/…/details?id=<Activiteit.Nummer>` (inferred from the site, research §2.4).
A member's citation is the member page on tweedekamer.nl (its URL pattern inferred from the site), the
OData record goes in `api_url`. Names are matched as people write them: a tussenvoegsel ("van der") is its
own field upstream and is matched there; a party by abbreviation, NaamNL, NaamEN or a hand-kept name
(`tweedekamer_parties.json`), checked against the platform's own Fractie list. A
`$filter` over the service's node limit (100, TK issue #187) is refused here with an input error
naming what to drop, before anything is sent. Decisions are tied to their agenda item and meeting.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from datetime import date, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import quote_plus

from proxy.core.caller import SYSTEM_CALLER
from proxy.core.errors import NotHeld, ToolInputError
from proxy.core.schema_atoms import NBOOL, NDATE, NINT, NSTR, STR, STRINGS
from proxy.core.shapes import Precision
from proxy.platforms._common import (
    DATE_RANGE_PROPS,
    PAGE_PROPS,
    aligned,
    cite,
    date_range,
    date_range_props,
    object_at,
    page,
)
from proxy.platforms._odata import (
    GUID_RE,
    MAX_FILTER_NODES,
    ODataPage,
    day_start,
    filter_nodes,
    local_date,
    quote,
    read_page,
    words,
)
from proxy.platforms._resolve import Entry, Table, norm
from proxy.plugin.canary import DTO, GUID, Probe, check_load
from proxy.plugin.toolkit import About, LoadReport, PlatformContext, PlatformPlugin, SourceRoute, ToolCall, ToolImpl
from proxy.results.outputs import CITATION_SCHEMA, object_schema, precision, result_list_schema

__all__ = ["PLATFORM", "TOOLS", "measure_load"]

SITE = "https://www.tweedekamer.nl"
PAGE_MAX = 250  # the service never returns more entities in one answer
ACCEPT = {"Accept": "application/json"}
NOT_DELETED = "Verwijderd eq false"
DOCUMENT_NUMBER = r"^[0-9]{4}D[0-9]{3,6}$"
CASE_NUMBER = r"^[0-9]{4}Z[0-9]{3,6}$"



# --------------------------------------------------------------------------- request building


def _params(filters: Sequence[str], *, orderby: str | None = None, select: Sequence[str] = (),
            expand: str | None = None, top: int | None = None, skip: int = 0,
            count: bool = True, drop: str = "fewer search words") -> dict[str, str]:
    text = " and ".join(filters)
    size = filter_nodes(text)
    if size > MAX_FILTER_NODES:
        # The service answers HTTP 400 above its node limit (TK issue #187); say what to send instead.
        raise ToolInputError(f"this search is too large for the Gegevensmagazijn: its filter has about {size} nodes "
                             f"and the service refuses more than {MAX_FILTER_NODES}; send {drop}")
    params = {"$filter": text}
    if orderby:
        params["$orderby"] = orderby
    if select:
        params["$select"] = ",".join(select)
    if expand:
        params["$expand"] = expand
    if top is not None:
        params["$top"] = str(top)
    if skip:
        params["$skip"] = str(skip)
    if count:
        params["$count"] = "true"
    return params


def _date_filters(field: str, start: date | None, end: date | None) -> list[str]:
    clauses = []
    if start:
        clauses.append(f"{field} ge {day_start(start)}")
    if end:
        clauses.append(f"{field} lt {day_start(end + timedelta(days=1))}")
    return clauses


DOCUMENT_KINDS = Table.load(Path(__file__).with_name("tweedekamer_document_kinds.json"), argument="kind")
CASE_KINDS = Table.load(Path(__file__).with_name("tweedekamer_case_kinds.json"), argument="kind")
ACTIVITY_KINDS = Table.load(Path(__file__).with_name("tweedekamer_activity_kinds.json"), argument="kind")
# How alike a written kind and a known one must be to be called a misspelling of it (difflib ratio).
MISSPELLED = 0.8


def _kind_filter(call: ToolCall, kinds: Table) -> tuple[list[str], list[str]]:
    """The Soort filter and its description for the `kind` as people write it ('moties', 'kamervragen').

    A known kind or one of its names is sent exactly; a near miss of one is refused naming it; anything
    else is sent as written, any case, since the platform's list of kinds is longer than the table's."""
    written = str(call.arguments.get("kind") or "").strip()
    if not written:
        return [], []
    entry = kinds.find(written)
    if entry is not None and entry.values:  # a family of kinds: 'plenair debat' is every 'Plenair debat (…)'
        sent = " or ".join(f"Soort eq {quote(v)}" for v in entry.values)
        return [f"({sent})"], [f"Soort is any of {', '.join(map(repr, entry.values))} ({written!r} read as "
                               f"{entry.label})"]
    if entry is not None:
        read = "" if norm(written) == norm(entry.key) else f" ({written!r} read as {entry.key!r})"
        return [f"Soort eq {quote(entry.key)}"], [f"Soort is exactly {entry.key!r}{read}"]
    if kinds.closest(written, cutoff=MISSPELLED):
        raise kinds.refusal(written, hint=" (or another Soort exactly as the Gegevensmagazijn writes it)")
    return [f"tolower(Soort) eq {quote(written.lower())}"], [f"Soort is {written!r} (any case)"]


def _list_precision(result: ODataPage, *, offset: int, returned: int, matched: str,
                    notes: list[str]) -> Precision:
    total = result.count
    truncated = offset + returned < total if total is not None else returned > 0
    return precision(total=total, total_relation="exact" if total is not None else "unknown", returned=returned,
                     truncated=truncated, matched=matched, not_applied=notes,
                     next_offset=offset + returned if truncated else None)


def fold(text: str) -> str:
    """`text` lower-cased without its accents, as people type it: 'Yeşilgöz' → 'yesilgoz', 'Yıldız' → 'yildiz'."""
    plain = unicodedata.normalize("NFKD", text.lower().translate(UNACCENTED))
    return "".join(c for c in plain if not unicodedata.combining(c))


# Letters that Unicode does not decompose into a plain letter and an accent.
UNACCENTED = str.maketrans({"ı": "i", "ø": "o", "ł": "l", "đ": "d", "ß": "ss", "æ": "ae", "œ": "oe"})
# The one matching rule of every search word here, as the descriptions and `matched` say it.
WORD_RULE = "all words, any order, any case, as substrings (no stemming)"


def spellings(term: str) -> list[str]:
    """A search word as written and, when written with accents, without them: 'curaçao' also finds 'curacao'."""
    return list(dict.fromkeys((term, fold(term))))


def spelled_filter(fields: Sequence[str], terms: Sequence[Sequence[str]]) -> list[str]:
    """One clause per word: one of its spellings occurs (case-insensitively) in at least one of `fields`."""
    return ["(" + " or ".join(f"contains(tolower({f}),{quote(w)})" for w in forms for f in fields) + ")"
            for forms in terms]


def _matched(terms: list[str], fields: str, extra: list[str]) -> str:
    parts = []
    if terms:
        parts.append(f"{WORD_RULE}: every word ({', '.join(terms)}) occurs in {fields}; a word written with accents "
                     "also matches without them (OData contains, no relevance ranking)")
    parts.extend(extra)
    return "; ".join(parts) if parts else "no search terms: all records"


def _titled_search(call: ToolCall, date_field: str, kinds: Table, fields: Sequence[str] = ("Titel", "Onderwerp")
                   ) -> tuple[list[str], str]:
    """Filters and their description for the `query`, `kind` and date range of a document, case or activity
    search: every word in one of `fields`, Soort as `kind` reads in `kinds`, `date_field` within the Dutch
    calendar days."""
    start, end = date_range(call)
    terms = words(call.arguments.get("query"))
    kind_filters, extra = _kind_filter(call, kinds)
    filters = [NOT_DELETED, *spelled_filter(fields, [spellings(t) for t in terms]), *kind_filters,
               *_date_filters(date_field, start, end)]
    if start or end:
        extra.append(f"{date_field} from {start or 'any'} to {end or 'any'} (Dutch calendar days)")
    return filters, _matched(terms, " or ".join(fields), extra)


PART_WORDS_ITEM = {"words_inside_longer_words": {
    **STRINGS, "description": "Search words this row holds only inside a longer word ('plas' in 'plastic'): "
                              "a weaker match, often not what was meant."}}


def mark_part_words(items: list[dict[str, Any]], terms: Sequence[str]) -> str:
    """Mark in each row the words it holds only inside longer words (OData `contains` matches any part of a
    word), and say how many rows that is; an empty string when none."""
    marked = 0
    for item in items:
        text = fold(f"{item.get('title') or ''} {item.get('subject') or ''}")
        inside = [t for t in terms if fold(t) in text and not re.search(rf"(?<!\w){re.escape(fold(t))}(?!\w)", text)]
        item["words_inside_longer_words"] = inside
        marked += bool(inside)
    if not marked:
        return ""
    return (f"; {marked} of these {len(items)} rows hold a search word only inside a longer word (see "
            "words_inside_longer_words)")


def _listing(result: ODataPage, items: list[dict[str, Any]], *, offset: int, matched: str,
             notes: list[str]) -> dict[str, Any]:
    """`results` and their `precision` for one page of entities."""
    return {"results": items, "precision": _list_precision(result, offset=offset, returned=len(items),
                                                           matched=matched, notes=notes)}


DROP_TITLED = "fewer words in query (keep the most specific ones), or leave out kind or the date range"

TITLE_WORDS_PROP = {"type": "string", "maxLength": 200,
                    "description": f"Words in the title or subject: {WORD_RULE}; 'Oekraïne' also finds 'Oekraine'."}


# --------------------------------------------------------------------------- links and shared pieces


def _document_url(number: str | None) -> str:
    return f"{SITE}/downloads/document?id={quote_plus(number or '')}"


def _case_url(case_number: str | None, document_number: str | None = None) -> str:
    url = f"{SITE}/kamerstukken/detail?id={quote_plus(case_number or '')}"
    return url + f"&did={quote_plus(document_number)}" if document_number else url


def _activity_url(number: str | None, kind: str | None) -> str:
    section = "plenaire_vergaderingen" if (kind or "").lower().startswith("plenair") else "commissievergaderingen"
    return f"{SITE}/debat_en_vergadering/{section}/details?id={quote_plus(number or '')}"


def _changed(row: Mapping[str, Any]) -> str:
    changed = local_date(row.get("GewijzigdOp"))
    return f", gewijzigd {changed.isoformat()}" if changed else ""


def _iso(value: Any) -> str | None:
    day = local_date(value)
    return day.isoformat() if day else None


def _rows(value: Any) -> list[dict[str, Any]]:
    return [r for r in value if isinstance(r, dict)] if isinstance(value, list) else []


def _titled_fields(row: Mapping[str, Any], number: str | None) -> dict[str, Any]:
    """The first fields of a document and of a case: both are titled, numbered records of a Soort."""
    return {"id": str(row.get("Id")), "number": number, "kind": row.get("Soort"), "title": row.get("Titel"),
            "subject": row.get("Onderwerp")}


# --------------------------------------------------------------------------- outcome and submitters

SUBMITTER_ROLES = ("Indiener", "Medeindiener")
SUBMITTING = "(" + " or ".join(f"Relatie eq {quote(r)}" for r in SUBMITTER_ROLES) + ")"
# The submitters of a case as the Gegevensmagazijn links them (ZaakActor); ActorFractie is the party as vote rows
# write it ("NSC", where the Fractie's own Afkorting is "Nieuw Sociaal Contract").
SUBMITTERS_EXPAND = f"ZaakActor($filter={NOT_DELETED} and {SUBMITTING};$select=ActorNaam,ActorFractie,Relatie)"
# Decisions that settle a motion or amendment: a vote ("Stemmen - aangenomen/verworpen/aangehouden/ingetrokken/
# uitstellen") or its adoption without one ("Overgenomen"); procedural ones ("Ingediend") say nothing of the outcome.
OUTCOME_FILTER = f"{NOT_DELETED} and (startswith(BesluitSoort,'Stemmen') or BesluitSoort eq 'Overgenomen')"
OUTCOME_SELECT = "$select=Id,BesluitSoort,BesluitTekst,StemmingsSoort,GewijzigdOp;$orderby=GewijzigdOp desc"
# The settling decisions with the day of the meeting that took each: the outcome is the last one decided,
# not the last one edited (a decision is edited long after, e.g. when its vote is corrected).
DECISIONS_EXPAND = (f"Besluit($filter={OUTCOME_FILTER};{OUTCOME_SELECT};"
                    "$expand=Agendapunt($select=Id;$expand=Activiteit($select=Id,Datum)))")

SUBMITTER = object_schema({"name": NSTR, "party": NSTR, "role": {**NSTR, "description": "Indiener or Medeindiener."}})
OUTCOME_ITEM = {
    "voted": {"type": "boolean", "description": "A vote was held on it (case_votes gives the votes per party)."},
    "outcome": {**NSTR, "description": "BesluitTekst of its last vote or settling decision, e.g. Aangenomen., "
                                       "Verworpen., Aangehouden., Ingetrokken.; null when none was taken."},
    "outcome_kind": {**NSTR, "description": "BesluitSoort, e.g. Stemmen - aangenomen."},
    "decided_on": {**NDATE, "description": "Date of the meeting that took that decision."},
    "submitters": {"type": "array", "items": SUBMITTER, "description": "Submitter and co-submitters, with party."},
}


def _submitters(cases: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The submitter first, then the co-submitters, each once, from the cases' ZaakActor rows."""
    seen: dict[tuple[Any, Any], dict[str, Any]] = {}
    for zaak in cases:
        for actor in _rows(zaak.get("ZaakActor")):
            if actor.get("Relatie") in SUBMITTER_ROLES:
                seen.setdefault((actor.get("ActorNaam"), actor.get("ActorFractie")), {
                    "name": actor.get("ActorNaam"), "party": actor.get("ActorFractie"), "role": actor.get("Relatie")})
    return sorted(seen.values(), key=lambda a: SUBMITTER_ROLES.index(a["role"]))


def _decision_day(besluit: Mapping[str, Any]) -> str:
    point = object_at(besluit, "Agendapunt")
    meeting = object_at(point, "Activiteit")
    return _iso(meeting.get("Datum")) or ""


def _outcome(cases: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Whether the cases were voted on and what the last settling decision says, as the platform words it."""
    decisions = [b for zaak in cases for b in _rows(zaak.get("Besluit"))]
    last = max(decisions, key=lambda b: (_decision_day(b), str(b.get("GewijzigdOp") or "")), default={})
    return {"voted": any(b.get("StemmingsSoort") for b in decisions), "outcome": last.get("BesluitTekst"),
            "outcome_kind": last.get("BesluitSoort"), "decided_on": _decision_day(last) or None,
            "submitters": _submitters(cases)}


def _outcome_text(outcome: Mapping[str, Any]) -> str:
    """The outcome and submitters for a citation: ' — Aangenomen.; ingediend door D.A. Ergin (DENK)'."""
    said = outcome["outcome"] or ("" if outcome["voted"] else "niet in stemming geweest")
    names = ", ".join(f"{a['name']} ({a['party']})" if a["party"] else str(a["name"]) for a in outcome["submitters"])
    parts = [said] if said else []
    if names:
        parts.append(f"ingediend door {names}")
    return f" — {'; '.join(parts)}" if parts else ""


# --------------------------------------------------------------------------- search_documents

DOCUMENT_SELECT = ("Id", "DocumentNummer", "Soort", "Titel", "Onderwerp", "Datum", "Vergaderjaar", "GewijzigdOp")
DOCUMENT_ITEM = {
    "id": {"type": "string", "description": "Document GUID (read_document accepts it)."},
    "number": {**NSTR, "description": "DocumentNummer, e.g. 2026D44984."},
    "kind": {**NSTR, "description": "Soort, e.g. Motie, Brief regering."},
    "title": NSTR,
    "subject": {**NSTR, "description": "Onderwerp: what the document is about."},
    "date": NDATE,
    "session_year": {**NSTR, "description": "Vergaderjaar, e.g. 2026-2027."},
    "changed": NDATE,
    "cases": {**STRINGS, "description": "Numbers of the cases (zaken) it belongs to."},
    "url": {"type": "string", "description": "The document file on tweedekamer.nl."},
}
DOCUMENT_LIST_ITEM = {**DOCUMENT_ITEM, **OUTCOME_ITEM, **PART_WORDS_ITEM}


def _document_item(ctx: PlatformContext, row: Mapping[str, Any]) -> dict[str, Any]:
    cases = _rows(row.get("Zaak"))
    number = row.get("DocumentNummer")
    kind = row.get("Soort") or "Document"
    subject = row.get("Onderwerp") or row.get("Titel") or ""
    first_case = cases[0].get("Nummer") if cases else None
    uri = _case_url(first_case, number) if first_case and number else _document_url(number)
    return {
        **_titled_fields(row, number),
        "date": _iso(row.get("Datum")),
        "session_year": row.get("Vergaderjaar"),
        "changed": _iso(row.get("GewijzigdOp")),
        "cases": [str(z.get("Nummer")) for z in cases if z.get("Nummer")],
        "url": _document_url(number),
        "citation": cite(ctx, uri=uri, title=f"{kind} {number or ''}".strip() + f": {row.get('Titel') or subject}",
                         text=f"{kind} {number or ''}{_changed(row)}: {subject}"),
    }


# A document's outcome and submitters are its case's (a motion's document belongs to the motion's case).
DOCUMENT_CASES_EXPAND = f"Zaak($filter={NOT_DELETED};$select=Id,Nummer;$expand={SUBMITTERS_EXPAND},{DECISIONS_EXPAND})"


def _document_list_item(ctx: PlatformContext, row: Mapping[str, Any]) -> dict[str, Any]:
    item = _document_item(ctx, row)
    outcome = _outcome(_rows(row.get("Zaak")))
    item["citation"]["text"] += _outcome_text(outcome)
    return {**item, **outcome}


async def _search_documents(call: ToolCall) -> dict[str, Any]:
    limit, offset, notes = page(call)
    filters, matched = _titled_search(call, "Datum", DOCUMENT_KINDS)
    window = aligned(offset, limit, most=PAGE_MAX)
    params = _params(filters, orderby="Datum desc,Id desc", select=DOCUMENT_SELECT, expand=DOCUMENT_CASES_EXPAND,
                     top=window.size, skip=window.start, drop=DROP_TITLED)
    result = await call.get("/Document", read_page, params=params, headers=ACCEPT)
    items = [_document_list_item(call.ctx, row) for row in window.cut(result.rows)]
    matched += mark_part_words(items, words(call.arguments.get("query")))
    return _listing(result, items, offset=offset, matched=matched + "; newest first", notes=notes)


KIND_DOC = ("Soort of the document as people write it, e.g. 'Motie', 'moties', 'Amendement', 'kamerbrief', "
            "'kamervragen', 'wetsvoorstel', 'Verslag'.")

SEARCH_DOCUMENTS_INPUT = object_schema({
    "query": TITLE_WORDS_PROP,
    "kind": {"type": "string", "maxLength": 80, "description": KIND_DOC},
    **DATE_RANGE_PROPS,
    **PAGE_PROPS,
}, required=[])
SEARCH_DOCUMENTS_OUTPUT = result_list_schema(DOCUMENT_LIST_ITEM)


# --------------------------------------------------------------------------- read_document

CASE_ITEM = {
    "id": {"type": "string", "description": "Zaak GUID."},
    "number": {**NSTR, "description": "Zaak number, e.g. 2025Z17647 (case_votes accepts it)."},
    "kind": {**NSTR, "description": "Soort, e.g. Motie, Wetgeving, Amendement."},
    "title": NSTR,
    "subject": NSTR,
    "started": NDATE,
    "status": NSTR,
    "url": {"type": "string", "description": "The case page on tweedekamer.nl."},
}


def _case_item(ctx: PlatformContext, row: Mapping[str, Any], document_number: str | None) -> dict[str, Any]:
    number = row.get("Nummer")
    kind = row.get("Soort") or "Zaak"
    subject = row.get("Onderwerp") or row.get("Titel") or ""
    return {
        **_titled_fields(row, number),
        "started": _iso(row.get("GestartOp")),
        "status": row.get("Status"),
        "url": _case_url(number, document_number),
        "citation": cite(ctx, uri=_case_url(number, document_number), title=f"{kind} {number or ''}".strip(),
                         text=f"{kind} {number or ''}{_changed(row)}: {subject}"),
    }


def _document_lookup(value: str) -> str:
    value = value.strip()
    if GUID_RE.match(value):
        return f"Id eq {value.lower()}"
    if value and value[:4].isdigit() and value[4:5].upper() == "D" and value[5:].isdigit():
        return f"DocumentNummer eq {quote(value.upper())}"
    raise ToolInputError(f"id must be a document GUID or a DocumentNummer such as 2026D44984, got {value!r}")


READ_SELECT = (*DOCUMENT_SELECT, "Citeertitel", "Volgnummer", "Organisatie", "DatumRegistratie", "Aanhangselnummer")
OFFICIAL = "https://zoek.officielebekendmakingen.nl/"


def official_text(row: Mapping[str, Any]) -> str | None:
    """The id of a Kamervragen document's text in Officiële bekendmakingen (KOOP), as KOOP names it.

    Questions are `kv-tk-<the case's number>` (Kamervragen zonder antwoord, the questions as asked); an answer is
    `ah-tk-<session year without its dash>-<its number in the Aanhangsel>`, the number being the last five digits
    of the document's Aanhangselnummer (`151601580` in 2015-2016 is ah-tk-20152016-1580), as openkamer's
    client derives it."""
    kind = str(row.get("Soort") or "").lower()
    if kind == "schriftelijke vragen":
        case = next((z.get("Nummer") for z in _rows(row.get("Zaak")) if z.get("Nummer")), None)
        return f"kv-tk-{case}" if case else None
    if kind in ("antwoord schriftelijke vragen", "antwoord schriftelijke vragen (nader)"):
        number, year = str(row.get("Aanhangselnummer") or ""), str(row.get("Vergaderjaar") or "")
        if len(number) == 9 and number.isdigit() and re.fullmatch(r"\d{4}-\d{4}", year):
            return f"ah-tk-{year.replace('-', '')}-{int(number[4:])}"
    return None


async def _read_document(call: ToolCall) -> dict[str, Any]:
    lookup = _document_lookup(str(call.arguments.get("id") or ""))
    expand = (f"Zaak($filter={NOT_DELETED};$select=Id,Nummer,Soort,Titel,Onderwerp,GestartOp,Status,GewijzigdOp),"
              f"DocumentActor($filter={NOT_DELETED};$select=ActorNaam,ActorFractie,Functie,Relatie)")
    params = _params([NOT_DELETED, lookup], select=READ_SELECT, expand=expand, top=1, count=False)
    result = await call.get("/Document", read_page, params=params, headers=ACCEPT)
    if not result.rows:
        raise NotHeld("the Tweede Kamer", f"(undeleted) document {call.arguments.get('id')!r}",
                      url="https://www.tweedekamer.nl/kamerstukken", advice="search_documents finds ids and numbers")
    row = result.rows[0]
    item = _document_item(call.ctx, row)
    document = {key: value for key, value in item.items() if key != "cases"}
    document.update({
        "citation_title": row.get("Citeertitel"),
        "organisation": row.get("Organisatie"),
        "actors": [{"name": a.get("ActorNaam"), "party": a.get("ActorFractie"), "role": a.get("Relatie"),
                    "function": a.get("Functie")} for a in _rows(row.get("DocumentActor"))],
        "text_url": f"{call.ctx.platform.base_url}/Document({row.get('Id')})/resource",
        "official_text": official_text(row),
    })
    cases = [_case_item(call.ctx, z, row.get("DocumentNummer")) for z in _rows(row.get("Zaak"))]
    return {
        "document": document,
        "results": cases,
        "precision": precision(total=len(cases), total_relation="exact", returned=len(cases), truncated=False,
                               matched="the cases (zaken) this document belongs to, as linked in the Gegevensmagazijn"),
    }


ACTOR = object_schema({"name": NSTR, "party": NSTR, "role": {**NSTR, "description": "Relatie, e.g. Indiener."},
                       "function": NSTR})
DOCUMENT_RECORD = object_schema({
    **{k: v for k, v in DOCUMENT_ITEM.items() if k != "cases"},
    "citation_title": NSTR,
    "organisation": NSTR,
    "actors": {"type": "array", "items": ACTOR, "description": "Submitters, signatories and senders."},
    "text_url": {"type": "string", "description": "The file (PDF or Word) in the Gegevensmagazijn."},
    "official_text": {**NSTR, "description": "Kamervragen: their text in Officiële bekendmakingen (kv-tk-…, or "
                                             f"ah-tk-… with the answer), at {OFFICIAL}<id>.html."},
    "citation": CITATION_SCHEMA,
}, description="The document itself.")

READ_DOCUMENT_INPUT = object_schema({
    "id": {"type": "string", "minLength": 8, "maxLength": 40,
           "description": "Document GUID or DocumentNummer (e.g. 2026D44984), as search_documents returns them."},
})
READ_DOCUMENT_OUTPUT = result_list_schema(CASE_ITEM, extra={"document": DOCUMENT_RECORD})


# --------------------------------------------------------------------------- upcoming_activities

ACTIVITY_SELECT = ("Id", "Nummer", "Soort", "Onderwerp", "Datum", "Aanvangstijd", "Eindtijd", "Status", "Besloten",
                   "Locatie", "Voortouwnaam", "Voortouwafkorting", "GewijzigdOp")
ACTIVITY_ITEM = {
    "id": STR,
    "number": {**NSTR, "description": "Activiteit number, e.g. 2026A05428."},
    "kind": {**NSTR, "description": "Soort, e.g. Commissiedebat, Plenair debat."},
    "subject": NSTR,
    "date": NDATE,
    "start": {**NSTR, "description": "Start (Dutch local time with offset)."},
    "end": NSTR,
    "status": {**NSTR, "description": "Gepland, Verplaatst, Uitgevoerd or Geannuleerd."},
    "closed": {**NBOOL, "description": "Besloten: not open to the public."},
    "location": NSTR,
    "committee": {**NSTR, "description": "Voortouw: the committee (or TK) in charge."},
    "committee_abbreviation": NSTR,
    "agenda": {**STRINGS, "description": "Agenda items in order."},
}


def _activity_item(ctx: PlatformContext, row: Mapping[str, Any]) -> dict[str, Any]:
    points = sorted(_rows(row.get("Agendapunt")), key=lambda p: (p.get("Volgorde") is None, p.get("Volgorde") or 0))
    kind = row.get("Soort") or "Activiteit"
    subject = row.get("Onderwerp") or ""
    when = _iso(row.get("Datum")) or "datum onbekend"
    return {
        "id": str(row.get("Id")),
        "number": row.get("Nummer"),
        "kind": row.get("Soort"),
        "subject": row.get("Onderwerp"),
        "date": _iso(row.get("Datum")),
        "start": row.get("Aanvangstijd"),
        "end": row.get("Eindtijd"),
        "status": row.get("Status"),
        "closed": row.get("Besloten"),
        "location": row.get("Locatie"),
        "committee": row.get("Voortouwnaam"),
        "committee_abbreviation": row.get("Voortouwafkorting"),
        "agenda": [str(p.get("Onderwerp") or "").strip() for p in points if p.get("Onderwerp")],
        "citation": cite(ctx, uri=_activity_url(row.get("Nummer"), row.get("Soort")),
                         title=f"{kind} {row.get('Nummer') or ''}".strip() + f": {subject}",
                         text=f"{kind} op {when} ({row.get('Voortouwnaam') or 'TK'}), status "
                              f"{row.get('Status') or 'onbekend'}: {subject}"),
    }


def _committee_spellings(written: str) -> list[str]:
    """A committee abbreviation as written and as the platform writes it: people write 'IenW' or 'JenV', the
    Voortouwafkorting is 'I&W', 'J&V' (and 'K&GG', 'A&M'), so 'en' between capitals also reads as '&'."""
    spellings = [written]
    for other in (re.sub(r"(?<=[a-z])en(?=[a-z])", "&", written) if len(written) <= 5 else written,
                  written.replace("&", "en")):
        if other not in spellings:
            spellings.append(other)
    return spellings


def _activity_filters(call: ToolCall, *, kind: bool) -> tuple[list[str], list[str]]:
    """The filters both activity tools share, and their description: cancelled and closed left out unless
    asked, the kind (unless the caller's search reads it), the committee."""
    args = call.arguments
    filters: list[str] = []
    extra: list[str] = []
    if not args.get("include_cancelled", False):
        filters.append("Status ne 'Geannuleerd'")
        extra.append("cancelled activities left out")
    if not args.get("include_closed", False):
        filters.append("Besloten eq false")
        extra.append("closed (besloten) activities left out")
    if kind:
        kind_filters, kind_matched = _kind_filter(call, ACTIVITY_KINDS)
        filters.extend(kind_filters)
        extra.extend(kind_matched)
    committee = str(args.get("committee") or "").strip().lower()
    if committee:
        spellings = _committee_spellings(committee)
        filters.append(f"(contains(tolower(Voortouwnaam),{quote(committee)}) or "
                       + " or ".join(f"tolower(Voortouwafkorting) eq {quote(s)}" for s in spellings) + ")")
        extra.append(f"committee name contains {committee!r} or its abbreviation is "
                     + " or ".join(repr(s) for s in spellings))
    return filters, extra


ACTIVITY_EXPAND = f"Agendapunt($filter={NOT_DELETED};$select=Id,Onderwerp,Volgorde;$orderby=Volgorde asc)"


async def _upcoming_activities(call: ToolCall) -> dict[str, Any]:
    limit, offset, notes = page(call)
    days = int(call.arguments.get("days", 7))
    today = call.ctx.today()
    last = today + timedelta(days=days - 1)
    shared, described = _activity_filters(call, kind=True)
    filters = [NOT_DELETED, *_date_filters("Datum", today, last), *shared]
    extra = [f"Datum from {today} to {last} inclusive (Dutch calendar days, from the server clock)", *described]
    params = _params(filters, orderby="Aanvangstijd asc,Id asc", select=ACTIVITY_SELECT, expand=ACTIVITY_EXPAND,
                     top=limit, skip=offset)
    result = await call.get("/Activiteit", read_page, params=params, headers=ACCEPT)
    items = [_activity_item(call.ctx, row) for row in result.rows]
    return {"period": {"from": today.isoformat(), "to": last.isoformat()},
            **_listing(result, items, offset=offset, matched="; ".join(extra) + "; earliest start first", notes=notes)}


async def _search_activities(call: ToolCall) -> dict[str, Any]:
    """Activities of any date, past ones too: by words in the subject, kind, committee and period."""
    limit, offset, notes = page(call)
    if not any(call.arguments.get(a) for a in ("query", "kind", "committee", "date_from", "date_to")):
        raise ToolInputError("give words, a kind, a committee or a period (date_from, date_to)")
    filters, matched = _titled_search(call, "Datum", ACTIVITY_KINDS, fields=("Onderwerp",))
    shared, described = _activity_filters(call, kind=False)
    filters += shared
    window = aligned(offset, limit, most=PAGE_MAX)
    params = _params(filters, orderby="Aanvangstijd desc,Id desc", select=ACTIVITY_SELECT, expand=ACTIVITY_EXPAND,
                     top=window.size, skip=window.start, drop=DROP_TITLED.replace("kind or the date range",
                                                                                  "kind, committee or the period"))
    result = await call.get("/Activiteit", read_page, params=params, headers=ACCEPT)
    items = [_activity_item(call.ctx, row) for row in window.cut(result.rows)]
    matched = "; ".join([matched, *described]) + "; newest first"
    matched += mark_part_words(items, words(call.arguments.get("query")))
    answer = _listing(result, items, offset=offset, matched=matched, notes=notes)
    if not items and not offset and not call.arguments.get("include_cancelled"):
        cancelled = await _cancelled_only(call)
        if cancelled:
            answer["precision"]["hint"] = (
                f"every activity that matches was cancelled ({cancelled} found with include_cancelled=true): "
                "ask again with include_cancelled=true to list them; their status says Geannuleerd")
    return answer


async def _cancelled_only(call: ToolCall) -> int:
    """How many activities this search finds once cancelled ones count (one row read): an empty list is then
    explained by cancellation, not by the words."""
    again = ToolCall(tool=call.tool, arguments={**call.arguments, "include_cancelled": True}, caller=call.caller,
                     ctx=call.ctx)
    filters, _ = _titled_search(again, "Datum", ACTIVITY_KINDS, fields=("Onderwerp",))
    shared, _ = _activity_filters(again, kind=False)
    params = _params([*filters, *shared], orderby="Aanvangstijd desc,Id desc", select=ACTIVITY_SELECT,
                     expand=ACTIVITY_EXPAND, top=1, skip=0, drop=DROP_TITLED)
    result = await call.get("/Activiteit", read_page, params=params, headers=ACCEPT)
    return (result.count if isinstance(result.count, int) else len(result.rows)) if result.rows else 0


UPCOMING_INPUT = object_schema({
    "days": {"type": "integer", "minimum": 1, "maximum": 60, "default": 7,
             "description": "How many days from today (server clock, Dutch date) to include; 7 is this week."},
    "kind": {"type": "string", "maxLength": 80,
             "description": "Soort as people write it, e.g. 'Commissiedebat', 'Plenair debat', 'Rondetafelgesprek', "
                            "'Wetgevingsoverleg', 'tweeminutendebat'."},
    "committee": {"type": "string", "maxLength": 120,
                  "description": "Committee in charge: part of its name (e.g. 'Infrastructuur') or its "
                                 "abbreviation (e.g. 'IenW')."},
    "include_closed": {"type": "boolean", "default": False,
                       "description": "Also list closed (besloten) meetings such as procedure meetings."},
    "include_cancelled": {"type": "boolean", "default": False, "description": "Also list cancelled activities."},
    **PAGE_PROPS,
}, required=[])
UPCOMING_OUTPUT = result_list_schema(ACTIVITY_ITEM, extra={"period": object_schema(
    {"from": {"type": "string"}, "to": {"type": "string"}}, description="The days searched, inclusive.")})

SEARCH_ACTIVITIES_INPUT = object_schema({
    "query": {"type": "string", "maxLength": 200,
              "description": f"Words in the subject (Onderwerp): {WORD_RULE}; 'Oekraïne' also finds 'Oekraine'."},
    "kind": UPCOMING_INPUT["properties"]["kind"],
    "committee": UPCOMING_INPUT["properties"]["committee"],
    **date_range_props("Applies to the activity's date (Datum), past or future."),
    "include_closed": UPCOMING_INPUT["properties"]["include_closed"],
    "include_cancelled": UPCOMING_INPUT["properties"]["include_cancelled"],
    **PAGE_PROPS,
}, required=[])
SEARCH_ACTIVITIES_OUTPUT = result_list_schema({**ACTIVITY_ITEM, **PART_WORDS_ITEM})


# --------------------------------------------------------------------------- search_cases

CASE_SELECT = ("Id", "Nummer", "Soort", "Titel", "Onderwerp", "GestartOp", "Status", "Afgedaan",
               "Kabinetsappreciatie", "Vergaderjaar", "GewijzigdOp")
CASE_LIST_ITEM = {
    **CASE_ITEM,
    "settled": {**NBOOL, "description": "Afgedaan: the case is closed."},
    "cabinet_appraisal": {**NSTR, "description": "Kabinetsappreciatie of a motion, e.g. Oordeel Kamer, Ontraden."},
    "session_year": NSTR,
    "document_number": {**NSTR, "description": "Its first document (read_document accepts it)."},
    **OUTCOME_ITEM,
    **PART_WORDS_ITEM,
}
CASE_EXPAND = (f"Document($filter={NOT_DELETED};$select=Id,DocumentNummer;$orderby=Datum asc;$top=1),"
               f"{SUBMITTERS_EXPAND},{DECISIONS_EXPAND}")


def _submitted_by(fractie_id: str) -> str:
    """Cases submitted or co-submitted by a member of the party: by its Fractie_Id, since ActorFractie writes
    some parties otherwise than their Afkorting ('NSC' for 'Nieuw Sociaal Contract')."""
    return (f"ZaakActor/any(a:a/Verwijderd eq false and a/Fractie_Id eq {fractie_id} and "
            f"{SUBMITTING.replace('Relatie', 'a/Relatie')})")


MAX_SUBMITTERS = 5  # members one submitter name may stand for; more is refused as too vague


async def _submitter_filter(call: ToolCall) -> tuple[list[str], list[str]]:
    """Cases a member submitted or co-submitted, by the member's Persoon_Id: the name is read as
    search_members reads it (initials, tussenvoegsel, accents), current and former members, so 'Van der Plas'
    finds her motions and never a motion about 'plastic'."""
    written = " ".join(str(call.arguments.get("submitter") or "").split())
    if not written:
        return [], []
    words(written)
    initials, terms = initials_of(written)
    filters, read = _name_filters(terms, await member_names(call, current=False), initials)
    params = _params([NOT_DELETED, MEMBERS_IN_SCOPE[False], *filters], orderby="Achternaam asc,Id asc",
                     select=("Id", "Initialen", "Roepnaam", "Tussenvoegsel", "Achternaam"), top=MAX_SUBMITTERS + 1,
                     drop="fewer name words in submitter (the surname alone usually suffices)")
    members = (await call.get("/Persoon", read_page, params=params, headers=ACCEPT)).rows
    members = [m for m in members if GUID_RE.match(str(m.get("Id")))]
    named = [f"{m.get('Initialen') or ''} {_name(m)}".strip() for m in members]
    if not members:
        raise ToolInputError(f"submitter {written!r} names no current or former member ({read}); search_members "
                             "finds the name as the Kamer writes it")
    if len(members) > MAX_SUBMITTERS:
        raise ToolInputError(f"submitter {written!r} could be more than {MAX_SUBMITTERS} members (e.g. "
                             f"{', '.join(named[:MAX_SUBMITTERS])}); add initials or the first name")
    ids = " or ".join(f"a/Persoon_Id eq {m['Id']}" for m in members)
    clause = (f"ZaakActor/any(a:a/Verwijderd eq false and ({ids}) and "
              f"{SUBMITTING.replace('Relatie', 'a/Relatie')})")
    return [clause], [f"submitted or co-submitted by {' or '.join(named)} (ZaakActor Indiener or Medeindiener; "
                      f"{written!r} read as {read})"]


async def _party_filter(call: ToolCall) -> tuple[list[str], list[str]]:
    written = str(call.arguments.get("party") or "").strip()
    if not written:
        return [], []
    entry, notes = await resolve_party_entry(call, written, current=False)
    fractie_id = str(entry.extra.get("id") or "")
    if not GUID_RE.match(fractie_id):
        raise ToolInputError(f"the Gegevensmagazijn lists no id for party {entry.key}; search without party and "
                             "read the submitters of each case")
    return [_submitted_by(fractie_id)], [*notes, f"submitted or co-submitted by a member of {entry.key} (ZaakActor "
                                                 "Indiener or Medeindiener)"]


def _case_list_item(ctx: PlatformContext, row: Mapping[str, Any]) -> dict[str, Any]:
    docs = _rows(row.get("Document"))
    document_number = docs[0].get("DocumentNummer") if docs else None
    item = _case_item(ctx, row, document_number)
    outcome = _outcome([row])
    item["citation"]["text"] += _outcome_text(outcome)
    return {**item, "settled": row.get("Afgedaan"), "cabinet_appraisal": row.get("Kabinetsappreciatie"),
            "session_year": row.get("Vergaderjaar"), "document_number": document_number, **outcome}


async def _search_cases(call: ToolCall) -> dict[str, Any]:
    limit, offset, notes = page(call)
    filters, matched = _titled_search(call, "GestartOp", CASE_KINDS)
    drop = DROP_TITLED + (", or party" if call.arguments.get("party") else "")
    _params(filters, drop=drop)  # a filter over the node limit is refused before the party list is read
    party_filters, party_matched = await _party_filter(call)
    submitter_filters, submitter_matched = await _submitter_filter(call)
    window = aligned(offset, limit, most=PAGE_MAX)
    params = _params([*filters, *party_filters, *submitter_filters], orderby="GestartOp desc,Id desc",
                     select=CASE_SELECT, expand=CASE_EXPAND, top=window.size, skip=window.start, drop=drop)
    result = await call.get("/Zaak", read_page, params=params, headers=ACCEPT)
    items = [_case_list_item(call.ctx, row) for row in window.cut(result.rows)]
    matched = "; ".join([matched, *party_matched, *submitter_matched])
    matched += mark_part_words(items, words(call.arguments.get("query")))
    return _listing(result, items, offset=offset, matched=matched + "; most recently started first", notes=notes)


SEARCH_CASES_INPUT = object_schema({
    "query": TITLE_WORDS_PROP,
    "kind": {"type": "string", "maxLength": 80,
             "description": "Soort of the case as people write it, e.g. 'Motie', 'Amendement', 'wetsvoorstel', "
                            "'Initiatiefwetgeving', 'kamervragen', 'Brief regering'."},
    "party": {"type": "string", "maxLength": 60,
              "description": "Cases submitted or co-submitted by a member of this party, as people write it: 'D66', "
                             "'GL-PvdA', 'NSC'."},
    "submitter": {"type": "string", "maxLength": 120,
                  "description": "Cases (motions, amendments, bills) a member submitted or co-submitted, the name "
                                 "as people write it: 'Van der Plas', 'D.A. Ergin', 'Thijssen'. Use this, not query, "
                                 "for a person: query words match inside longer words."},
    **date_range_props("Applies to the start date (GestartOp)."),
    **PAGE_PROPS,
}, required=[])
SEARCH_CASES_OUTPUT = result_list_schema(CASE_LIST_ITEM)


# --------------------------------------------------------------------------- case_votes

VOTE_ITEM = {
    "decision_id": {"type": "string", "description": "The Besluit this vote belongs to (see decisions)."},
    "party": {**NSTR, "description": "ActorFractie: the party (fractie) that voted."},
    "party_name": NSTR,
    "member": {**NSTR, "description": "The member, for a roll-call (hoofdelijke) vote; null for a party vote."},
    "vote": {**NSTR, "description": "Voor, Tegen or Niet deelgenomen."},
    "seats": {**NINT, "description": "FractieGrootte: the seats this vote carried (1 per member in a roll call)."},
    "mistake": {**NBOOL, "description": "Vergissing: the party said afterwards it voted by mistake."},
}
DECISION = object_schema({
    "id": STR,
    "outcome": {**NSTR, "description": "BesluitTekst, e.g. Aangenomen. / Verworpen."},
    "kind": {**NSTR, "description": "BesluitSoort, e.g. Stemmen - aangenomen."},
    "method": {**NSTR, "description": "StemmingsSoort: Met handopsteken or Hoofdelijk."},
    "changed": NDATE,
    "cases": STRINGS,
    "for_seats": {"type": "integer"},
    "against_seats": {"type": "integer"},
    "other_seats": {"type": "integer", "description": "Seats that did not take part."},
    "parties_for": STRINGS,
    "parties_against": STRINGS,
    "agenda_item": {"anyOf": [{"type": "null"}, object_schema({
        "id": STR, "number": NSTR, "subject": {**NSTR, "description": "Onderwerp of the agenda item."},
        "meeting": {**NSTR, "description": "Number of the meeting (Activiteit) it was on."},
        "meeting_kind": {**NSTR, "description": "E.g. Stemmingen, Plenair debat."},
        "date": NDATE})],
        "description": "The agenda item (Agendapunt) the decision was taken on; null when the service links none."},
    "complete": {"type": "boolean",
                 "description": "True when every vote row of this search was counted (at most 250)."},
    "citation": CITATION_SCHEMA,
})
CASE_SUMMARY = {"anyOf": [{"type": "null"}, object_schema(
    {"id": STR, "number": NSTR, "kind": NSTR, "title": NSTR, "subject": NSTR})],
    "description": "The case voted on (null when no votes were found)."}


def _case_clause(value: str) -> tuple[str, str]:
    value = value.strip()
    # A soft-deleted Zaak keeps its number, so the lambda must skip deleted cases too.
    if GUID_RE.match(value):
        return f"z/Verwijderd eq false and z/Id eq {value.lower()}", f"the case with Id {value.lower()}"
    if value[:4].isdigit() and value[4:5].upper() == "Z" and value[5:].isdigit():
        return f"z/Verwijderd eq false and z/Nummer eq {quote(value.upper())}", f"case {value.upper()}"
    raise ToolInputError(f"case must be a case number such as 2025Z17647 or a case GUID, got {value!r}; "
                         "search_cases finds them")


def _agenda_item(value: Any) -> dict[str, Any] | None:
    """The agenda item (Agendapunt) a decision hangs off, with the meeting (Activiteit) it was on."""
    if not isinstance(value, dict):
        return None
    meeting = object_at(value, "Activiteit")
    return {"id": str(value.get("Id")), "number": value.get("Nummer"), "subject": value.get("Onderwerp"),
            "meeting": meeting.get("Nummer"), "meeting_kind": meeting.get("Soort"),
            "date": _iso(meeting.get("Datum") or value.get("Aanvangstijd"))}


ROLL_CALL = "hoofdelijk"


def _is_member_vote(row: Mapping[str, Any], method: Any) -> bool:
    """A member's own vote: every row of a roll call (hoofdelijke stemming), or any row naming a member."""
    return str(method or "").strip().lower() == ROLL_CALL or bool(row.get("Persoon_Id"))


def _vote_weight(row: Mapping[str, Any], method: Any) -> int:
    """What one vote row weighs: one member's vote in a roll call, whose rows still carry the party's size in
    FractieGrootte; the party's seats in a vote by show of hands (Met handopsteken)."""
    return 1 if _is_member_vote(row, method) else int(row.get("FractieGrootte") or 0)


def _tally(ctx: PlatformContext, rows: list[dict[str, Any]], complete: bool) -> list[dict[str, Any]]:
    decisions: dict[str, dict[str, Any]] = {}
    for row in rows:
        besluit = object_at(row, "Besluit")
        key = str(row.get("Besluit_Id") or besluit.get("Id"))
        cases = _rows(besluit.get("Zaak"))
        entry = decisions.setdefault(key, {
            "id": key, "outcome": besluit.get("BesluitTekst"), "kind": besluit.get("BesluitSoort"),
            "method": besluit.get("StemmingsSoort"), "changed": _iso(besluit.get("GewijzigdOp")),
            "agenda_item": _agenda_item(besluit.get("Agendapunt")),
            "cases": [str(z.get("Nummer")) for z in cases if z.get("Nummer")],
            "for_seats": 0, "against_seats": 0, "other_seats": 0, "parties_for": [], "parties_against": [],
            "complete": complete,
        })
        seats = _vote_weight(row, besluit.get("StemmingsSoort"))
        vote = str(row.get("Soort") or "")
        party = str(row.get("ActorFractie") or row.get("ActorNaam") or "")
        if vote == "Voor":
            entry["for_seats"] += seats
            if party not in entry["parties_for"]:
                entry["parties_for"].append(party)
        elif vote == "Tegen":
            entry["against_seats"] += seats
            if party not in entry["parties_against"]:
                entry["parties_against"].append(party)
        else:
            entry["other_seats"] += seats
    for entry in decisions.values():
        number = entry["cases"][0] if entry["cases"] else None
        item = entry["agenda_item"]
        held = f" op {item['date']}" if item and item.get("date") else ""
        entry["citation"] = cite(
            ctx, uri=_case_url(number), title=f"Stemming over {number or 'besluit ' + entry['id']}",
            text=f"{entry['outcome'] or entry['kind'] or 'Besluit'} ({entry['method'] or 'stemming'}{held}): "
                 f"{entry['for_seats']} zetels voor, {entry['against_seats']} tegen"
                 f"{'' if entry['complete'] else ' (deeltelling)'}")
    return list(decisions.values())


async def _case_votes(call: ToolCall) -> dict[str, Any]:
    clause, described = _case_clause(str(call.arguments.get("case") or ""))
    requested = int(call.arguments.get("limit", 50))
    cap = call.ctx.platform.limits.results_per_call
    limit = min(requested, cap)
    notes = [f"limit {requested} lowered to this installation's results_per_call of {cap}"] if requested > cap else []
    offset = int(call.arguments.get("offset", 0))
    filters = [NOT_DELETED, "Besluit/Verwijderd eq false", f"Besluit/Zaak/any(z:{clause})"]
    select = ("Id", "Besluit_Id", "Soort", "FractieGrootte", "ActorNaam", "ActorFractie", "Vergissing", "Persoon_Id",
              "Fractie_Id", "GewijzigdOp")
    expand = ("Besluit($select=Id,BesluitSoort,BesluitTekst,StemmingsSoort,GewijzigdOp;"
              f"$expand=Zaak($filter={NOT_DELETED};$select=Id,Nummer,Soort,Titel,Onderwerp),"
              "Agendapunt($select=Id,Nummer,Onderwerp,Aanvangstijd;$expand=Activiteit($select=Id,Nummer,Soort,Datum)))"
              ",Fractie($select=Id,Afkorting,NaamNL)")
    # One full page upstream so the tally covers every vote; the caller gets `limit` rows of it.
    params = _params(filters, orderby="Besluit/GewijzigdOp desc,ActorFractie asc,Id asc", select=select,
                     expand=expand, top=PAGE_MAX, skip=offset)
    result = await call.get("/Stemming", read_page, params=params, headers=ACCEPT)
    complete = offset == 0 and result.count is not None and result.count <= len(result.rows)
    decisions = _tally(call.ctx, result.rows, complete)
    by_id = {d["id"]: d for d in decisions}
    case: dict[str, Any] | None = None
    items = []
    for row in result.rows[:limit]:
        decision = by_id[str(row.get("Besluit_Id") or (row.get("Besluit") or {}).get("Id"))]
        besluit = object_at(row, "Besluit")
        zaken = _rows(besluit.get("Zaak"))
        if case is None and zaken:
            z = zaken[0]
            case = {"id": str(z.get("Id")), "number": z.get("Nummer"), "kind": z.get("Soort"),
                    "title": z.get("Titel"), "subject": z.get("Onderwerp")}
        fractie = object_at(row, "Fractie")
        party = row.get("ActorFractie")
        member = row.get("ActorNaam") if _is_member_vote(row, decision["method"]) else None
        seats = _vote_weight(row, decision["method"])
        number = decision["cases"][0] if decision["cases"] else None
        weight = f"{member}, {party}: 1 stem" if member else f"{party}: {seats} zetels"
        items.append({
            "decision_id": decision["id"],
            "party": party,
            "party_name": fractie.get("NaamNL"),
            "member": member,
            "vote": row.get("Soort"),
            "seats": seats,
            "mistake": row.get("Vergissing"),
            "citation": cite(call.ctx, uri=_case_url(number),
                             title=f"Stemming {number or ''}: {member or party}".strip(),
                             text=f"{weight}, stemde {row.get('Soort')}"
                                  f" — {decision['outcome'] or decision['kind'] or 'besluit'}{_changed(row)}"),
        })
    matched = (f"votes (Stemming) on every decision (Besluit) about {described}; ordered by decision, newest "
               "first, then party. The decisions summarise " + ("all votes" if complete else
                                                                "only the votes fetched (at most 250 from offset)"))
    listing = _listing(result, items, offset=offset, matched=matched, notes=notes)
    if not result.rows and offset == 0:
        case, listing["precision"]["hint"] = await _why_no_votes(call, clause, described)
    return {"case": case, "decisions": decisions, **listing}


async def _why_no_votes(call: ToolCall, clause: str, described: str) -> tuple[dict[str, Any], str]:
    """A case without votes: refuse a case that does not exist, else say what the case is and why it may lack votes."""
    params = _params([clause.replace("z/", "")], orderby="Id asc",  # the lambda's clause, on Zaak itself
                     select=("Id", "Nummer", "Soort", "Titel", "Onderwerp", "Status", "Afgedaan"), top=1, count=False)
    found = (await call.get("/Zaak", read_page, params=params, headers=ACCEPT)).rows
    if not found:
        raise ToolInputError(f"there is no {described}; find the case number with search_cases "
                             "(a motion is a case of kind Motie, numbered like 2025Z17647)")
    z = found[0]
    case = {"id": str(z.get("Id")), "number": z.get("Nummer"), "kind": z.get("Soort"), "title": z.get("Titel"),
            "subject": z.get("Onderwerp")}
    state = "settled" if z.get("Afgedaan") else "not settled"
    return case, (f"{z.get('Soort') or 'case'} {z.get('Nummer')} exists ({state}, status {z.get('Status')!r}) but "
                  "has no recorded votes: it has not been put to a vote yet, was held over (aangehouden) or "
                  "withdrawn, or was decided without a vote. Its documents: search_documents with its subject")


CASE_VOTES_INPUT = object_schema({
    "case": {"type": "string", "minLength": 9, "maxLength": 40,
             "description": "Case (zaak) number such as 2025Z17647, or its GUID; a motion is a case of kind Motie."},
    "limit": {**PAGE_PROPS["limit"], "default": 50,
              "description": "Vote rows to return (one per party, or per member in a roll call); capped by "
                             "results_per_call. The decisions summary counts all votes regardless."},
    "offset": PAGE_PROPS["offset"],
}, required=["case"])
CASE_VOTES_OUTPUT = result_list_schema(VOTE_ITEM, extra={
    "case": CASE_SUMMARY,
    "decisions": {"type": "array", "items": DECISION, "description": "Per decision: outcome and seat totals."},
})


# --------------------------------------------------------------------------- search_members

MEMBER_SELECT = ("Id", "Nummer", "Titels", "Initialen", "Roepnaam", "Voornamen", "Tussenvoegsel", "Achternaam",
                 "Geslacht", "Functie", "Woonplaats", "Fractielabel", "GewijzigdOp")
MEMBER_ITEM = {
    "id": STR,
    "name": {"type": "string", "description": "Roepnaam, tussenvoegsel and achternaam."},
    "initials": NSTR,
    "role": {**NSTR, "description": "Functie: Tweede Kamerlid or Oud Kamerlid."},
    "party": {**NSTR, "description": "Current party (fractie) abbreviation; the last one for former members."},
    "party_name": NSTR,
    "party_role": {**NSTR, "description": "Role in the party group, e.g. Lid, Fractievoorzitter."},
    "member_since": NDATE,
    "member_until": NDATE,
    "residence": NSTR,
    "gender": NSTR,
    "api_url": {"type": "string", "description": "The Persoon entity in the Open Data API."},
    "committees": {**STRINGS, "description": "With committee: the seat and role held there ('I&W: Voorzitter')."},
}


def _name(row: Mapping[str, Any]) -> str:
    first = row.get("Roepnaam") or row.get("Initialen") or ""
    return " ".join(str(p) for p in (first, row.get("Tussenvoegsel"), row.get("Achternaam")) if p)


def _member_page(row: Mapping[str, Any]) -> str:
    """The member's page on tweedekamer.nl, which names members by surname and initials (alle_kamerleden/<slug>)."""
    parts = (row.get("Achternaam"), row.get("Tussenvoegsel"), str(row.get("Initialen") or "").replace(".", ""))
    plain = unicodedata.normalize("NFKD", " ".join(str(p) for p in parts if p)).encode("ascii", "ignore").decode()
    return f"{SITE}/kamerleden_en_commissies/alle_kamerleden/{re.sub(r'[^a-z0-9]+', '-', plain.lower()).strip('-')}"


def _member_item(ctx: PlatformContext, row: Mapping[str, Any], *, committee: bool = False) -> dict[str, Any]:
    seats = _rows(row.get("FractieZetelPersoon"))
    seats.sort(key=lambda s: (s.get("TotEnMet") is None, str(s.get("Van") or "")), reverse=True)
    seat = seats[0] if seats else {}
    zetel = object_at(seat, "FractieZetel")
    fractie = object_at(zetel, "Fractie")
    party = fractie.get("Afkorting") or row.get("Fractielabel")
    name = _name(row)
    role = row.get("Functie") or "Persoon"
    return {
        "id": str(row.get("Id")),
        "name": name,
        "initials": row.get("Initialen"),
        "role": row.get("Functie"),
        "party": party,
        "party_name": fractie.get("NaamNL"),
        "party_role": seat.get("Functie"),
        "member_since": _iso(seat.get("Van")),
        "member_until": _iso(seat.get("TotEnMet")),
        "residence": row.get("Woonplaats"),
        "gender": row.get("Geslacht"),
        "api_url": f"{ctx.platform.base_url}/Persoon({row.get('Id')})",
        "committees": [f"{object_at(object_at(c, 'CommissieZetel'), 'Commissie').get('Afkorting') or '?'}: "
                       f"{c.get('Functie') or 'Lid'}" for c in _rows(row.get("CommissieZetelVastPersoon"))]
        if committee else [],
        "citation": cite(ctx, uri=_member_page(row),
                         title=f"{name} ({party or 'geen fractie'})",
                         text=f"{role} {name}, fractie {party or 'onbekend'}{_changed(row)}"),
    }


# Tussenvoegsels: the Gegevensmagazijn keeps them apart from the surname ("Tussenvoegsel": "van der",
# "Achternaam": "Burg"), so "Eric van der Burg" or "Van der Plas" must match them as a group of their own.
PARTICLES = frozenset({"van", "von", "de", "der", "den", "des", "het", "'t", "t", "te", "ter", "ten", "in", "op",
                       "aan", "uit", "la", "le", "l'", "du", "da", "di", "dos", "el", "al"})
NAME_FIELDS = ("Achternaam", "Roepnaam", "Voornamen")


# Initials as names are displayed ("D.A. Ergin", "Th.C. de Graaf") or typed ("AAM van Agt", "J Thijssen").
DOTTED_INITIALS = re.compile(r"^(?:[A-Za-z][a-z]?\.)+$")
CAPITAL_INITIALS = re.compile(r"^[A-Z]{1,4}$")


def initials_of(written: str) -> tuple[str | None, list[str]]:
    """(the initials as the Gegevensmagazijn writes them, lower case: 'a.a.m.', the other words lower-cased).

    A word of dotted letters, or of capitals alone ('AAM') before a surname, is the member's initials (Initialen),
    not a name word: 'AAM van Agt' matched no member when 'aam' had to occur in a name."""
    found: str | None = None
    rest: list[str] = []
    tokens = written.split()
    for index, token in enumerate(tokens):
        last = index == len(tokens) - 1
        if found is None and not last and (DOTTED_INITIALS.match(token) or CAPITAL_INITIALS.match(token)):
            found = token.lower() if "." in token else "".join(f"{c}." for c in token.lower())
            continue
        rest.append(token.lower())
    return found, rest


def name_parts(terms: Sequence[str]) -> tuple[list[str], list[str]]:
    """(name words, tussenvoegsels): consecutive particles ("van", "der") form one tussenvoegsel ("van der")."""
    plain: list[str] = []
    prefixes: list[str] = []
    run: list[str] = []
    for term in terms:
        if term in PARTICLES:
            run.append(term)
            continue
        if run:
            prefixes.append(" ".join(run))
            run = []
        plain.append(term)
    if run:
        prefixes.append(" ".join(run))
    return plain, prefixes


NAME_RULE = "all name words, any order, any case, accents folded"


def spelled_as(term: str, names: Iterable[str]) -> list[str]:
    """`term` as written and as `names` spell it: 'yesilgoz' is 'yeşilgöz' in 'Yeşilgöz-Zegerius'. OData cannot
    fold accents, so each spelling the member list holds is sent."""
    wanted = fold(term)
    forms = dict.fromkeys([term])
    for name in names:
        low = name.lower()
        starts: dict[int, int] = {}
        at = 0
        for index, char in enumerate(low):
            starts.setdefault(at, index)
            at += len(fold(char))
        starts[at] = len(low)
        joined = "".join(fold(char) for char in low)
        found = joined.find(wanted)
        while found >= 0:
            end = found + len(wanted)
            if found in starts and end in starts:
                forms[low[starts[found]:starts[end]]] = None
            found = joined.find(wanted, found + 1)
    return list(forms)


def _name_filters(terms: Sequence[str], names: Sequence[str] = (), initials: str | None = None
                  ) -> tuple[list[str], str]:
    """Filters and their description for the name as people write it, tussenvoegsel and initials included; each
    word also in the spellings that `names` (the member list) gives it."""
    plain, prefixes = name_parts(terms)
    forms = [spelled_as(term, names) for term in plain]
    # A tussenvoegsel is its own field; some rows carry it inside Achternaam instead.
    filters = [*spelled_filter(NAME_FIELDS, forms),
               *(f"(tolower(Tussenvoegsel) eq {quote(p)} or contains(tolower(Achternaam),{quote(p)}))"
                 for p in prefixes)]
    if initials:  # mostly dotted ('D.A.'), but some rows have them bare ('AAM' for Van Agt)
        bare = dict.fromkeys((initials, initials.replace(".", "")))
        filters.append("(" + " or ".join(f"startswith(tolower(Initialen),{quote(f)})" for f in bare) + ")")
    parts = [f"the initials begin {initials.upper()!r}"] if initials else []
    if plain:
        spelled = [f"{f[0]!r} as {' or '.join(repr(x) for x in f[1:])}" for f in forms if len(f) > 1]
        parts.append(f"{NAME_RULE}: every name word ({', '.join(plain)}) occurs in Achternaam, Roepnaam or Voornamen"
                     + (f" (spelled as the member list has it: {', '.join(spelled)})" if spelled else ""))
    if prefixes:
        parts.append("the tussenvoegsel is " + " and ".join(repr(p) for p in prefixes) + " (any case)")
    return filters, "; ".join(parts)


MEMBERS_IN_SCOPE = {True: "Functie eq 'Tweede Kamerlid'",
                    False: "(Functie eq 'Tweede Kamerlid' or Functie eq 'Oud Kamerlid')"}
# Pages of the member list read to learn how names are spelled: every sitting member fits in one; the former
# members since 2008 in a few (the upstream cache keeps them).
NAME_LIST_PAGES = 12


async def member_names(call: ToolCall, *, current: bool) -> list[str]:
    """Every name field of the members in scope, as the platform spells them."""
    names: list[str] = []
    for number in range(NAME_LIST_PAGES):
        params = _params([NOT_DELETED, MEMBERS_IN_SCOPE[current]], orderby="Id asc", select=NAME_FIELDS,
                         top=PAGE_MAX, skip=number * PAGE_MAX, count=number == 0)
        result = await call.get("/Persoon", read_page, params=params, headers=ACCEPT)
        names.extend(str(row.get(f)) for row in result.rows for f in NAME_FIELDS if row.get(f))
        if len(result.rows) < PAGE_MAX:
            break
    return names


PARTY_NAMES = Table.load(Path(__file__).with_name("tweedekamer_parties.json"), argument="party")


def _initials(name: str) -> str:
    """The short name of a party whose Afkorting is its full name, as vote rows and people write it: the
    platform's Fractie row for NSC has Afkorting "Nieuw Sociaal Contract", its votes say "NSC"."""
    words = name.split()
    return "".join(w[0] for w in words).upper() if len(words) > 1 and all(w[:1].isupper() for w in words) else ""


async def platform_parties(call: ToolCall) -> Table:
    """The Gegevensmagazijn's own parties (fracties), current ones first, with the names people use for them:
    Afkorting, NaamNL, NaamEN and the hand-kept names of `tweedekamer_parties.json`."""
    params = _params([NOT_DELETED], orderby="DatumInactief asc,Afkorting asc",
                     select=("Id", "Afkorting", "NaamNL", "NaamEN", "DatumInactief"), top=PAGE_MAX, count=False)
    rows = (await call.get("/Fractie", read_page, params=params, headers=ACCEPT)).rows
    rows.sort(key=lambda row: row.get("DatumInactief") is not None)  # sitting parties first
    claimed: set[str] = set()
    entries = []
    for row in rows:
        abbreviation = str(row.get("Afkorting") or "").strip()
        if not abbreviation or norm(abbreviation) in claimed:
            continue
        kept = PARTY_NAMES.find(abbreviation)
        names = [n for n in (str(row.get("NaamNL") or ""), str(row.get("NaamEN") or ""), _initials(abbreviation),
                             *(kept.names if kept else ())) if n.strip() and norm(n) not in claimed]
        claimed.update(norm(n) for n in (abbreviation, *names))
        entries.append(Entry(key=abbreviation, label=str(row.get("NaamNL") or abbreviation), names=tuple(names),
                             extra={"sitting": row.get("DatumInactief") is None, "id": row.get("Id")}))
    return Table("party (fractie)", "party", entries)


async def resolve_party(call: ToolCall, written: str, *, current: bool) -> tuple[str, list[str]]:
    """The party abbreviation (Afkorting) to filter on, and notes on how `written` was read."""
    entry, notes = await resolve_party_entry(call, written, current=current)
    return entry.key, notes


async def resolve_party_entry(call: ToolCall, written: str, *, current: bool) -> tuple[Entry, list[str]]:
    """The platform's party (Fractie) that `written` names, and notes on how it was read.

    People write 'VVD', 'vvd', 'Partij voor de Vrijheid', 'GL-PvdA' or 'Groen'; the filter needs the
    Afkorting. Names are checked against the platform's own Fractie list: one partial match (or one sitting
    party among several) is taken and said; several sitting ones, or none, are refused naming candidates."""
    parties = await platform_parties(call)
    if not parties.entries:
        return Entry(key=written, label=written, names=()), []  # no list to check against: send it as written
    several = parties.partial(written)
    sitting = [e for e in several if e.extra.get("sitting")]
    entry = parties.find(written)
    if entry is None and (len(several) == 1 or len(sitting) == 1):
        entry = (sitting or several)[0]
    if entry is None:
        if len(sitting) > 1:
            raise ToolInputError(f"party {written!r} could mean {', '.join(f'{e.key} ({e.label})' for e in sitting)}"
                                 "; send one of these abbreviations")
        raise parties.refusal(written, hint=" (abbreviation or full name)")
    notes = [] if norm(written) == norm(entry.key) else [f"party {written!r} read as {entry.key} ({entry.label})"]
    others = [e.key for e in several if e is not entry]
    if others and notes:
        notes.append(f"party {written!r} could also mean {', '.join(others)}")
    if current and not entry.extra.get("sitting"):
        successor = [e.key for e in sitting if e is not entry]
        notes.append(f"{entry.key} no longer sits in the Kamer: send current_only false for its former members"
                     + (f", or party {successor[0]} for the sitting party" if successor else ""))
    return entry, notes


async def _search_members(call: ToolCall) -> dict[str, Any]:
    limit, offset, notes = page(call)
    args = call.arguments
    written = str(args.get("name") or "")
    words(written)  # more words than a filter holds are refused here
    initials, terms = initials_of(written)
    current = bool(args.get("current_only", True))
    name_filters, name_matched = _name_filters(terms, initials=initials)
    filters = [NOT_DELETED, MEMBERS_IN_SCOPE[current], *name_filters]
    expand = (f"FractieZetelPersoon($filter={NOT_DELETED};$select=Functie,Van,TotEnMet;$orderby=Van desc;"
              "$expand=FractieZetel($select=Id;$expand=Fractie($select=Id,Afkorting,NaamNL)))")
    seat_now = "f/TotEnMet eq null and " if current else ""

    def params_for(party: str) -> dict[str, str]:
        party_filter = [f"FractieZetelPersoon/any(f:f/Verwijderd eq false and {seat_now}"
                        f"tolower(f/FractieZetel/Fractie/Afkorting) eq {quote(party.lower())})"] if party else []
        return _params([*filters, *party_filter], orderby="Achternaam asc,Id asc", select=MEMBER_SELECT,
                       expand=expand, top=limit, skip=offset,
                       drop="fewer name words (the surname alone usually suffices)"
                            + (" or leave out party" if party else ""))

    committee = str(args.get("committee") or "").strip().lower()
    seated: list[str] = []
    if committee:  # members now holding a seat (vast) in that committee; the seat's Functie is their role there
        spellings = _committee_spellings(committee)
        named = (f"contains(tolower(c/CommissieZetel/Commissie/NaamNL),{quote(committee)}) or "
                 + " or ".join(f"tolower(c/CommissieZetel/Commissie/Afkorting) eq {quote(x)}" for x in spellings))
        seated = [f"CommissieZetelVastPersoon/any(c:c/Verwijderd eq false and c/TotEnMet eq null and ({named}))"]
        filters += seated
        expand += (f",CommissieZetelVastPersoon($filter={NOT_DELETED} and TotEnMet eq null;$select=Functie;"
                   "$expand=CommissieZetel($select=Id;$expand=Commissie($select=Afkorting,NaamNL)))")
    party = str(args.get("party") or "").strip()
    params = params_for(party)  # a filter over the node limit is refused before anything is sent
    if terms:  # the member list gives the words' spellings; initials need none
        name_filters, name_matched = _name_filters(terms, await member_names(call, current=current), initials)
        filters = [NOT_DELETED, MEMBERS_IN_SCOPE[current], *name_filters, *seated]
        params = params_for(party)
    extra = [name_matched] if name_matched else []
    extra.append("current members only (Functie is Tweede Kamerlid)" if current else "current and former members")
    if party:
        party, read_as = await resolve_party(call, party, current=current)
        params = params_for(party)
        extra.extend(read_as)
        extra.append(f"{'now ' if current else 'ever '}in the party whose abbreviation is {party!r} (any case)")
    if committee:
        extra.append(f"now in a seat of the committee whose name contains {committee!r} or whose abbreviation is "
                     + " or ".join(repr(x) for x in _committee_spellings(committee)))
    result = await call.get("/Persoon", read_page, params=params, headers=ACCEPT)
    items = [_member_item(call.ctx, row, committee=bool(committee)) for row in result.rows]
    matched = "; ".join(extra) + "; by surname"
    return _listing(result, items, offset=offset, matched=matched, notes=notes)


SEARCH_MEMBERS_INPUT = object_schema({
    "name": {"type": "string", "maxLength": 120,
             "description": "The name as people write it, e.g. 'Van der Plas', 'Eric van der Burg', 'Yesilgoz', "
                            f"'D.A. Ergin'; {NAME_RULE}; a tussenvoegsel (van der, de) as the member's tussenvoegsel, "
                            "initials ('D.A.', 'AAM') as the member's initials."},
    "party": {"type": "string", "maxLength": 60,
              "description": "Party (fractie) as people write it: abbreviation or name, e.g. 'VVD', 'GL-PvdA', "
                             "'Partij voor de Vrijheid'."},
    "current_only": {"type": "boolean", "default": True,
                     "description": "Only sitting members (default); false also finds former members."},
    "committee": {"type": "string", "maxLength": 120, "description": "Members now on this committee ('IenW')."},
    **PAGE_PROPS,
}, required=[])
SEARCH_MEMBERS_OUTPUT = result_list_schema(MEMBER_ITEM)


# --------------------------------------------------------------------------- registration and load status

TOOLS: tuple[ToolImpl, ...] = (
    ToolImpl(name="search_documents", input_schema=SEARCH_DOCUMENTS_INPUT, output_schema=SEARCH_DOCUMENTS_OUTPUT,
             handler=_search_documents, example={"query": "Gaza", "kind": "Motie", "limit": 5}),
    ToolImpl(name="read_document", input_schema=READ_DOCUMENT_INPUT, output_schema=READ_DOCUMENT_OUTPUT,
             handler=_read_document, example={"id": "2025D42637"}),
    ToolImpl(name="upcoming_activities", input_schema=UPCOMING_INPUT, output_schema=UPCOMING_OUTPUT,
             handler=_upcoming_activities, example={"days": 7, "limit": 10}),
    ToolImpl(name="search_activities", input_schema=SEARCH_ACTIVITIES_INPUT, output_schema=SEARCH_ACTIVITIES_OUTPUT,
             handler=_search_activities, example={"kind": "plenair debat", "date_from": "2025-09-01", "limit": 5}),
    ToolImpl(name="search_cases", input_schema=SEARCH_CASES_INPUT, output_schema=SEARCH_CASES_OUTPUT,
             handler=_search_cases, example={"query": "Roma", "kind": "Motie", "limit": 5}),
    ToolImpl(name="case_votes", input_schema=CASE_VOTES_INPUT, output_schema=CASE_VOTES_OUTPUT,
             handler=_case_votes, example={"case": "2025Z18247"}),
    ToolImpl(name="search_members", input_schema=SEARCH_MEMBERS_INPUT, output_schema=SEARCH_MEMBERS_OUTPUT,
             handler=_search_members, example={"party": "SP"}),
)


async def measure_load(ctx: PlatformContext) -> LoadReport:
    """The newest change (GewijzigdOp) of any document: one call, newest first."""
    params = _params([NOT_DELETED], orderby="GewijzigdOp desc", select=("Id", "DocumentNummer", "Soort", "Datum",
                                                                        "GewijzigdOp"), top=1, count=False)
    result = await ctx.upstream.get("/Document", read_page, params=params, headers=ACCEPT,
                                    caller=SYSTEM_CALLER)
    if not result.rows:
        return LoadReport(current_through=None, note="the Gegevensmagazijn returned no documents")
    row = result.rows[0]
    return LoadReport(current_through=local_date(row.get("GewijzigdOp")),
                      note=f"newest document change: {row.get('Soort')} {row.get('DocumentNummer')} "
                           f"(dated {_iso(row.get('Datum'))})")

# --------------------------------------------------------------------------- live contract check


async def canary(probe: Probe, plugin: PlatformPlugin) -> None:
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
    await check_load(probe, plugin)


# How search and fetch (proxy.serving.crosssearch) reach this source.
SEARCH_ROUTE = SourceRoute("search_documents", "query", "number",
    ((re.compile(r"^\d{4}D\d{4,6}$", re.IGNORECASE), "read_document", "id"),),
    "2025D42637 (a document number)")


PLATFORM = PlatformPlugin(key="tweedekamer", tools=TOOLS,
                          measure_load=measure_load, canary=canary, search_route=SEARCH_ROUTE,
                          about=About(
    search_words=(
        ("kamer", "kamerstuk", "motie", "stemming", "kamerlid", "kamerleden", "fractie", "vergadering", "zaak",
         "zaken"),
        ("parliament", "motion", "vote", "member", "document", "case", "activities")),
    documentation="https://opendata.tweedekamer.nl/documentatie/odata-api",
    cannot=("no full-text search over document content", "at most 250 entities per page"),
    quirks=("soft-deleted rows stay in every entity set (Verwijderd: true)", "no @odata.nextLink once $top is given",
            "a filter with too many nodes is refused with HTTP 400"),
    cannot_nl=("geen zoeken in de volledige tekst van documenten", "hooguit 250 entiteiten per pagina"),
    quirks_nl=("verwijderde rijen blijven in elke entiteitenset staan (Verwijderd: true)",
               "geen @odata.nextLink zodra $top is meegegeven",
               "een filter met te veel onderdelen wordt geweigerd met HTTP 400")))
