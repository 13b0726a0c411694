"""SRU plumbing shared by the three KOOP sources: request parameters, CQL quoting, reading replies.

Two SRU services stand behind them:

* KOOP's SRU 2.0 at `https://repository.overheid.nl/sru` (officiële bekendmakingen, lokale
  bekendmakingen); guide: "HandleidingSRU2.0.pdf" in the data.overheid.nl dataset
  "officiele-bekendmakingen" (https://data.overheid.nl/dataset/officiele-bekendmakingen).
* The zoekservice SRU at `https://zoekservice.overheid.nl/sru/Search?x-connection=BWB` (wetten).

Both answer `searchRetrieve` in XML; the namespace depends on the version asked for, so replies
are read by local name. Facts this module encodes (research §0, §3, §4):

* `numberOfRecords` with `resultCountPrecision` → `precision.total_relation` (KOOP says `estimate`);
* a diagnostic in an HTTP 200 without a count is fatal: a query diagnostic (SRU 1/10–1/49, 1/61)
  is the question's fault → `ToolInputError` with the platform's words; any other →
  `UpstreamBadReply`. A diagnostic next to results (KOOP's SEARCH-IGNOREDQTEXT: a clause it
  ignored) goes to `precision.not_applied`;
* KOOP pages only through the first 10,000 hits (`startRecord >= 10000` is an nginx 504).

XML is parsed only with defusedxml.
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, TypeVar
from urllib.parse import urlsplit
from xml.etree.ElementTree import Element

from proxy.core.caller import SYSTEM_CALLER
from proxy.core.errors import NotHeld, ToolInputError, UpstreamBadReply
from proxy.core.schema_atoms import NSTR
from proxy.platforms._common import (
    CHUNK_PROPS,
    PAGE_PROPS,
    aligned,
    chunk,
    chunk_output_props,
    cite,
    date_range,
    page,
    parse_xml,
)
from proxy.platforms._organisations import REGISTER, GovOrg, compact, kind_of
from proxy.plugin.canary import DAY, Probe, check_load
from proxy.plugin.toolkit import About, MeasureLoad, PlatformContext, PlatformPlugin, SourceRoute, ToolCall, ToolImpl
from proxy.results.outputs import CITATION_SCHEMA, TotalRelation, object_schema, precision, result_list_schema

__all__ = [
    "KOOP_PAGING_LIMIT",
    "XML_ACCEPT",
    "SruReply",
    "all_texts",
    "and_join",
    "as_element",
    "child",
    "children",
    "cql_quote",
    "descendants",
    "fetch_linked",
    "first_text",
    "koop_params",
    "koop_tools",
    "local",
    "or_join",
    "parse_reply",
    "reply_parser",
    "xml_text",
]

# KOOP documents its SRU service and publishes the gazettes as open data under CC0.
KOOP_SRU_ABOUT = About(documentation="https://data.overheid.nl/dataset/officiele-bekendmakingen")

T = TypeVar("T")

XML_ACCEPT = {"Accept": "application/xml"}
# startRecord >= 10000 answers an nginx 504 at repository.overheid.nl (research §3.1).
KOOP_PAGING_LIMIT = 10_000
# The most records one searchRetrieve is asked for (clients use up to 200; 1000 is the inferred ceiling, §3.2).
KOOP_MOST_RECORDS = 200
_PRECISION_PREFIX = "info:srw/vocabulary/resultCountPrecision/1/"
_RELATIONS: dict[str, TotalRelation] = {"exact": "exact", "estimate": "estimate", "minimum": "lower_bound",
                                        "maximum": "estimate", "unknown": "unknown"}


# --------------------------------------------------------------------------- building requests


def cql_quote(value: str) -> str:
    """A CQL string literal: double quotes around, backslash and quote escaped, whitespace collapsed."""
    text = " ".join(str(value).split())
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def and_join(clauses: Iterable[str]) -> str:
    return " AND ".join(c for c in clauses if c)


def or_join(clauses: Iterable[str]) -> str:
    parts = [c for c in clauses if c]
    return parts[0] if len(parts) == 1 else "(" + " OR ".join(parts) + ")"


def koop_params(query: str, *, start: int, maximum: int, facets: str | None = None) -> list[tuple[str, str]]:
    """searchRetrieve parameters for repository.overheid.nl/sru, in the order of research §3.2."""
    params = [("operation", "searchRetrieve"), ("version", "2.0"), ("recordSchema", "gzd"),
              ("startRecord", str(start)), ("maximumRecords", str(maximum)), ("query", query)]
    if facets:
        params.append(("facetLimit", facets))
    return params


# --------------------------------------------------------------------------- reading replies


def local(tag: str) -> str:
    """The local name of an ElementTree tag (`{ns}name` → `name`)."""
    return tag.rsplit("}", 1)[-1]


def children(el: Element, name: str) -> Iterator[Element]:
    return (c for c in el if local(c.tag) == name)


def child(el: Element, name: str) -> Element | None:
    return next(children(el, name), None)


def descendants(el: Element, name: str) -> Iterator[Element]:
    return (d for d in el.iter() if local(d.tag) == name)


def first_text(el: Element | None, name: str) -> str | None:
    """Stripped text of the first descendant with this local name; None when absent or empty."""
    if el is None:
        return None
    for d in descendants(el, name):
        text = "".join(d.itertext()).strip()
        if text:
            return " ".join(text.split())
    return None


def all_texts(el: Element | None, name: str) -> list[str]:
    if el is None:
        return []
    out = [" ".join("".join(d.itertext()).split()) for d in descendants(el, name)]
    return [t for t in out if t]


@dataclass(frozen=True, slots=True)
class SruReply:
    """One searchRetrieve answer: the records' `recordData` contents and how far to trust the count."""

    total: int | None
    relation: TotalRelation
    records: list[Element]
    next_position: int | None
    ignored: list[str] = field(default_factory=list)
    facets: dict[str, list[tuple[str, int]]] = field(default_factory=dict)


def _diagnostic_text(diag: Element) -> tuple[str, str]:
    uri = first_text(diag, "uri") or ""
    words = [w for w in (first_text(diag, "message"), first_text(diag, "details")) if w]
    return uri, ": ".join(dict.fromkeys(words)) or uri or "unspecified diagnostic"


def _is_query_diagnostic(uri: str) -> bool:
    match = re.search(r"diagnostic/1/(\d+)$", uri)
    if not match:
        return False
    number = int(match.group(1))
    return 10 <= number <= 49 or number == 61


def parse_reply(body: bytes, *, platform: str, name: str, default_relation: TotalRelation = "unknown") -> SruReply:
    """Read a searchRetrieve reply; raises ToolInputError / UpstreamBadReply for fatal diagnostics."""
    root = parse_xml(body)
    diagnostics = [d for d in root.iter() if local(d.tag) == "diagnostic"]
    count_el = next((e for e in root if local(e.tag) == "numberOfRecords"), None)
    if count_el is None or (count_el.text or "").strip() == "":
        if diagnostics:
            uri, text = _diagnostic_text(diagnostics[0])
            if _is_query_diagnostic(uri):
                raise ToolInputError(f"{name} rejected the search: {text}")
            raise UpstreamBadReply(platform, f"{name} answered with an error ({uri or 'no code'}): {text}")
        if local(root.tag) != "searchRetrieveResponse":
            raise ValueError(f"not an SRU reply: <{local(root.tag)}>")
        raise ValueError("SRU reply without numberOfRecords")
    total = int((count_el.text or "0").strip())
    precision_el = next((e for e in root if local(e.tag) == "resultCountPrecision"), None)
    relation = default_relation
    if precision_el is not None and precision_el.text:
        word = precision_el.text.strip().removeprefix(_PRECISION_PREFIX)
        relation = _RELATIONS.get(word, "unknown")
    records_el = next((e for e in root if local(e.tag) == "records"), None)
    records: list[Element] = []
    for record in children(records_el, "record") if records_el is not None else ():
        data = child(record, "recordData")
        if data is not None and len(data):
            records.append(data[0])
    next_el = next((e for e in root if local(e.tag) == "nextRecordPosition"), None)
    next_position = int(text) if next_el is not None and (text := (next_el.text or "").strip()) else None
    ignored = [_diagnostic_text(d)[1] for d in diagnostics]
    return SruReply(total=total, relation=relation, records=records, next_position=next_position,
                    ignored=ignored, facets=_facets(root))


def reply_parser(platform: str, name: str, default_relation: TotalRelation = "unknown") -> Callable[[bytes], SruReply]:
    """A `parse` function for `ToolCall.get`."""
    def parse(body: bytes) -> SruReply:
        return parse_reply(body, platform=platform, name=name, default_relation=default_relation)
    return parse


def _facets(root: Element) -> dict[str, list[tuple[str, int]]]:
    """SRU 2.0 `facetedResults`: per index the (term, count) pairs."""
    out: dict[str, list[tuple[str, int]]] = {}
    for facet in descendants(root, "facet"):
        index = first_text(facet, "index")
        if not index:
            continue
        terms = out.setdefault(index, [])
        for term in descendants(facet, "term"):
            actual = first_text(term, "actualTerm")
            count = first_text(term, "count")
            if actual is not None:
                terms.append((actual, int(count) if count and count.isdigit() else 0))
    return out


# --------------------------------------------------------------------------- documents a record links to

_BLOCK = frozenset({
    "al", "p", "kop", "titel", "tussenkop", "li", "regel", "lid", "artikel", "intitule", "citeertitel",
    "alinea", "tr", "row", "dt", "dd", "h1", "h2", "h3", "h4", "div", "aanhef", "wie", "slotformulering",
    "ondertekening", "naam", "functie", "considerans.al", "specificatie-item", "lijst", "table", "tgroup",
})
_SKIP = frozenset({"metadata", "meta-data", "meta", "bwb-inputbestand", "bwb-wijzigingen",
                   "redactionele-correcties", "head", "script", "style"})


def xml_text(el: Element, *, skip: frozenset[str] = _SKIP) -> str:
    """Readable plain text of a publication or regulation XML: one line per paragraph-like element."""
    pieces: list[str] = []

    def flat(text: str | None) -> None:
        # Source line breaks are layout, not structure: only block elements end a line.
        if text:
            lead = " " if text[0].isspace() else ""
            trail = " " if text[-1].isspace() else ""
            pieces.append(f"{lead}{' '.join(text.split())}{trail}" if text.strip() else " ")

    def walk(node: Element) -> None:
        name = local(node.tag)
        if name not in skip:
            flat(node.text)
            for sub in node:
                walk(sub)
            pieces.append("\n" if name in _BLOCK else " ")
        flat(node.tail)

    walk(el)
    lines = (" ".join(line.split()) for line in "".join(pieces).split("\n"))
    text = "\n".join(line for line in lines if line)
    return re.sub(r" ([,.;:)])", r"\1", text)


async def fetch_linked(call: ToolCall, url: str, parse: Callable[[bytes], T], *, real_base: str,
                       hosts: frozenset[str]) -> T:
    """GET a document that a record links to (its full text in KOOP's repository).

    The link names the real host. When the platform's base URL is the real one, the document is
    fetched there; when it points elsewhere (a replica, a mirror), the document is fetched from the
    same root that stands in for the real base URL (`<root><real base path>` → `<root><link path>`).
    Only links to the repository hosts in `hosts` are followed.
    """
    link = urlsplit(url)
    if link.scheme not in ("http", "https") or link.hostname not in hosts or not link.path.startswith("/"):
        raise UpstreamBadReply(call.ctx.platform.key, f"{call.ctx.platform.title.en} linked the text at an "
                               f"unexpected address ({url}); it was not followed")
    upstream = call.ctx.upstream
    base = upstream.platform.base_url.rstrip("/")
    real_path = urlsplit(real_base).path.rstrip("/")
    if base == real_base.rstrip("/"):
        root = f"{link.scheme}://{link.netloc}"
    elif real_path and base.endswith(real_path):
        root = base[: -len(real_path)]
    else:
        root = base
    path = link.path + (f"?{link.query}" if link.query else "")
    # Same call log, cache, rate limit and availability as the platform's own search calls.
    return await upstream.get_url(root + path, parse, headers=XML_ACCEPT, caller=call.caller, tool=call.tool)


def as_element(body: bytes) -> Element:
    """Parse a linked XML document (defusedxml: no entities, no external references)."""
    return parse_xml(body)


# --------------------------------------------------------------------------- KOOP publications (gzd records)
# Shared by `lokaal` and `officieel`: both search repository.overheid.nl/sru within
# c.product-area "officielepublicaties", scoped to their own gazettes (w.publicatienaam).

KOOP_BASE = "https://repository.overheid.nl/sru"
KOOP_DOCUMENT_HOSTS = frozenset({"repository.overheid.nl"})
PRODUCT_AREA = 'c.product-area=="officielepublicaties"'
NEWEST_FIRST = "sortBy dt.available/sort.descending"


@dataclass(frozen=True, slots=True)
class OwnCreator:
    """A publisher under its KOOP creator name that the government's register does not hold (the chambers)."""

    creator: str
    organisation_type: str
    names: tuple[str, ...] = ()

    def named(self, written: str) -> bool:
        return compact(written) in {compact(n) for n in (self.creator, *self.names)}


@dataclass(frozen=True, slots=True)
class KoopSource:
    """One connector's slice of the KOOP repository: its gazettes and identifier families."""

    media: Mapping[str, str]  # medium code → w.publicatienaam
    medium_titles: Mapping[str, str]  # medium code → how a person names it
    prefixes: Mapping[str, str | None]  # identifier prefix → medium code (None: read-only family)
    id_pattern: re.Pattern[str]
    id_examples: str
    type_examples: str
    organisation_examples: str
    elsewhere: str  # where identifiers of the other KOOP connector belong
    # Which kinds of organisation the register may read a name as, and the gazette each kind publishes in
    # (lokaal: a gemeente in the Gemeenteblad); publishers KOOP names that the register does not hold.
    organisation_kinds: tuple[str, ...] = ("gemeente", "provincie", "waterschap")
    kind_media: Mapping[str, str] = field(default_factory=dict)
    own_creators: tuple[OwnCreator, ...] = ()
    # More creator names a kind publishes under in this index, as templates ("gemeente {}"), sent OR'ed.
    kind_creator_forms: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def scope(self, codes: Iterable[str] | None = None) -> str:
        chosen = list(codes or self.media)
        return or_join(f"w.publicatienaam=={cql_quote(self.media[c])}" for c in chosen)

    def medium_of(self, publication_name: str | None, identifier: str) -> str | None:
        for code, name in self.media.items():
            if publication_name and publication_name.lower() == name.lower():
                return code
        return self.prefixes.get(identifier.split("-", 1)[0])


def read_publication_record(gzd: Element, source: KoopSource) -> dict[str, Any]:
    """The fields a person needs from one gzd record of officielepublicaties."""
    original = child(gzd, "originalData")
    enriched = child(gzd, "enrichedData")
    identifier = first_text(original, "identifier") or ""
    manifestations = {m.get("manifestation", ""): (m.text or "").strip()
                      for m in (descendants(enriched, "itemUrl") if enriched is not None else ())}
    main_url = first_text(enriched, "url")
    xml_url = manifestations.get("xml") or (main_url if main_url and main_url.endswith(".xml") else None)
    publication_name = first_text(original, "publicatienaam")
    return {
        "identifier": identifier,
        "title": first_text(original, "title") or identifier,
        "medium": source.medium_of(publication_name, identifier),
        "publication_name": publication_name,
        "type": first_text(original, "type"),
        "organisation": first_text(original, "creator"),
        "organisation_type": first_text(original, "organisatietype"),
        "date": first_text(original, "date"),
        "published": first_text(original, "available"),
        "modified": first_text(original, "modified"),
        "year": first_text(original, "jaargang"),
        "number": first_text(original, "publicatienummer") or first_text(original, "ondernummer"),
        "dossier": first_text(original, "dossiernummer"),
        "session_year": first_text(original, "vergaderjaar"),
        "item": first_text(original, "handelingenitemnummer"),
        "main_document": first_text(original, "hoofddocument"),
        "meeting_date": first_text(original, "datumVergadering"),
        "subjects": all_texts(original, "subject"),
        "abstract": first_text(original, "abstract"),
        "url": first_text(enriched, "preferredUrl") or f"https://zoek.officielebekendmakingen.nl/{identifier}.html",
        "xml_url": xml_url,
        "pdf_url": manifestations.get("pdf") or (main_url if main_url and main_url.endswith(".pdf") else None),
    }


def _short_session(year: str | None) -> str | None:
    """'2020-2021' → '2020/21', as parliamentary papers are cited."""
    found = re.fullmatch(r"(\d{4})-(\d{2})(\d{2})", year or "")
    return f"{found.group(1)}/{found.group(3)}" if found else year


def publication_cite_text(pub: Mapping[str, Any]) -> str:
    """The attribution line of research §3.4 (without the licence, which the label carries). Parliamentary
    papers as they are cited: Handelingen with chamber, session year, meeting number and item
    ("Handelingen II 2020/21, nr. 101, item 5"); an appendix (blg-) as an appendix to its main document."""
    name = pub.get("publication_name") or "Officiële bekendmakingen"
    identifier = str(pub.get("identifier") or "")
    if identifier.startswith("blg-"):
        main = str(pub.get("main_document") or "")
        found = re.fullmatch(r"kst-(.+)-([^-]+)", main)
        dossier, number = (found.group(1), found.group(2)) if found else (pub.get("dossier"), pub.get("number"))
        where = "Bijlage" + (f" bij Kamerstukken {dossier}" if dossier else "") + (f", nr. {number}" if number else "")
        number = f" ({main})" if main else ""
    elif name == "Handelingen" and identifier.startswith(("h-tk-", "h-ek-")):
        chamber = "II" if identifier.startswith("h-tk-") else "I"
        session = _short_session(pub.get("session_year")) or identifier.split("-")[2]
        where = f"Handelingen {chamber} {session}"
        number = (f", nr. {pub['number']}" if pub.get("number") else "") + \
                 (f", item {pub['item']}" if pub.get("item") else "") + \
                 (f", vergadering van {pub['meeting_date']}" if pub.get("meeting_date") else "")
    elif name == "Kamerstuk" and pub.get("dossier"):
        where, number = f"Kamerstukken {pub['dossier']}", f", nr. {pub['number']}" if pub.get("number") else ""
    else:
        where = " ".join(p for p in (name, pub.get("year")) if p)
        number = f", {pub['number']}" if pub.get("number") else ""
    who = f", {pub['organisation']}" if pub.get("organisation") else ""
    when = f", gepubliceerd {pub['published']}" if pub.get("published") else ""
    return f"{where}{number} ({pub['identifier']}){who}{when}"



PUBLICATION_HIT = {
    "identifier": {"type": "string", "description": "KOOP identifier, e.g. gmb-2023-174296; pass to read_publication."},
    "title": {"type": "string"},
    "medium": {**NSTR, "description": "Gazette code (gmb, prb, wsb, bgr, stcrt, stb, trb, kst, h)."},
    "publication_name": {**NSTR, "description": "Gazette as KOOP names it (w.publicatienaam)."},
    "type": {**NSTR, "description": "Kind of publication (dt.type), e.g. omgevingsvergunning, Kamerstuk."},
    "organisation": {**NSTR, "description": "Issuing organisation (dt.creator)."},
    "organisation_type": NSTR,
    "date": {**NSTR, "description": "Date of the document (dt.date), YYYY-MM-DD."},
    "published": {**NSTR, "description": "Publication date (dt.available), YYYY-MM-DD."},
    "abstract": NSTR,
    "url": {"type": "string", "description": "The page on zoek.officielebekendmakingen.nl."},
}


def search_input_schema(source: KoopSource, extra: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "query": {"type": "string", "maxLength": 500,
                      "description": f"Words to find in the text and metadata: {WORDS_RULE}."},
            "organisation": {"type": "string", "maxLength": 200,
                             "description": "Issuing organisation as people write it, e.g. "
                                            + source.organisation_examples + f"; {ORGANISATION_RULE}, the choice "
                                            "said in precision.matched."},
            "media": {"type": "array", "items": {"enum": list(source.media)}, "uniqueItems": True,
                      "maxItems": len(source.media),
                      "description": "Gazettes to search (default: all of them): "
                                     + ", ".join(f"{c} = {t}" for c, t in source.medium_titles.items()) + "."},
            "publication_type": {"type": "string", "maxLength": 200,
                                 "description": "Exact kind of publication (dt.type), e.g. "
                                                + source.type_examples + "."},
            **extra,
            "date_from": {"type": "string", "format": "date", "maxLength": 10,
                          "description": "Published on or after this date, YYYY-MM-DD (dt.available)."},
            "date_to": {"type": "string", "format": "date", "maxLength": 10,
                        "description": "Published on or before this date, YYYY-MM-DD (dt.available)."},
            "limit": PAGE_PROPS["limit"],
            "offset": {**PAGE_PROPS["offset"], "maximum": KOOP_PAGING_LIMIT - 2,
                       "description": "Results to skip; the platform pages only through its first 10,000 hits."},
        },
        "additionalProperties": False,
    }


SEARCH_OUTPUT = result_list_schema(PUBLICATION_HIT)


# --------------------------------------------------------------------------- organisations and words
# KOOP matches `dt.creator=` as a phrase inside the name ("Den Haag" finds "Metropoolregio Rotterdam Den Haag",
# "Utrecht" the province too) and `dt.creator==` as the whole name. So a name is read with the government's
# register and sent as the exact creator name KOOP publishes under, with the kind (w.organisatietype) that tells a
# gemeente from a provincie of the same name.

ORGANISATION_RULE = ("read with the government's register of organisations and matched exactly as KOOP's "
                     "creator name")
WORDS_RULE = ("every word must occur, in any order; a phrase only in double quotes; case and accents ignored; "
              "no stemming")
MAX_TERMS = 12


@dataclass(frozen=True, slots=True)
class CreatorChoice:
    """What an organisation argument became: CQL clauses, how it matched in words, its own gazette (if any)."""

    clauses: tuple[str, ...]
    matched: str
    medium: str | None = None


def creator_names(org: GovOrg) -> tuple[str, ...]:
    """The creator names KOOP publishes an organisation under, each matched exactly.

    Gemeenten and provincies publish under their official name without the kind ("'s-Gravenhage", "Utrecht",
    "Zuid-Holland"), ministries as "Ministerie van <name>" (real Staatsblad and Tractatenblad records), under
    each official name the ministry had (an other name of three words or more, e.g. "Economische Zaken en
    Klimaat"). For a waterschap no real record was found, so its name with and without the kind word is sent."""
    if org.kind == "ministerie":
        # An earlier official name has three words or more, and is not an abbreviation spelt out ('J en V').
        names = [org.name, *(n for n in org.other_names if len(n.split()) >= 3
                             and sum(len(w) > 2 for w in n.split()) >= 2)]
        return tuple(f"Ministerie van {n}" for n in dict.fromkeys(names))
    if org.kind == "waterschap" and kind_of(org.name)[0] is None:
        return org.name, f"Waterschap {org.name}"
    return (org.name,)


@lru_cache(maxsize=8)
def _register_forms(kinds: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(sorted({f for o in REGISTER.orgs if o.kind in kinds for f in o.full_forms() | o.short_forms()}))


def read_organisation(source: KoopSource, written: str) -> CreatorChoice:
    """The exact creator clause for an organisation as a person writes it (see `creator_names`).

    A name the register does not hold (a joint arrangement, an agency) and that is not close to one it holds is
    sent exactly as written; a near miss is refused with the register's candidates."""
    own = next((o for o in source.own_creators if o.named(written)), None)
    if own is not None:
        return CreatorChoice((f"dt.creator=={cql_quote(own.creator)}",),
                             f"organisation is exactly {own.creator!r} (KOOP's creator name)")
    kinds = source.organisation_kinds
    _, found = REGISTER.matches(written, kinds)
    if not found and not difflib.get_close_matches(compact(written), _register_forms(kinds), n=1, cutoff=0.75):
        return CreatorChoice((f"dt.creator=={cql_quote(written)}",),
                             f"organisation is exactly {written!r} as written (not a {', '.join(kinds)} in the "
                             "government's register, so matched as KOOP's creator name, whole and exact)")
    choice = REGISTER.resolve(written, kinds)  # raises with the candidates when ambiguous or unknown
    org = choice.org
    names = (*creator_names(org), *(form.format(org.name) for form in source.kind_creator_forms.get(org.kind, ())))
    creator = or_join(f"dt.creator=={cql_quote(n)}" for n in names)
    clauses = (creator, f"w.organisatietype=={cql_quote(org.kind)}")
    said = " or ".join(repr(n) for n in names)
    matched = (f"organisation {written!r} read as the {org.full_name} ({org.id}): creator exactly {said}, "
               f"organisation type {org.kind}")
    if choice.note:
        matched += f" ({choice.note})"
    return CreatorChoice(clauses, matched, source.kind_media.get(org.kind))


_PHRASE = re.compile(r'"([^"]*)"')


def search_terms(text: str) -> tuple[list[str], list[str]]:
    """(phrases the person put in double quotes, the other words), in the order written, without repeats."""
    phrases = [" ".join(p.split()) for p in _PHRASE.findall(text) if p.strip()]
    rest = _PHRASE.sub(" ", text).replace('"', " ")
    words = [w for w in rest.split() if any(c.isalnum() for c in w)]
    return list(dict.fromkeys(phrases)), list(dict.fromkeys(words))


def text_clauses(text: str) -> tuple[list[str], str]:
    """One `cql.textAndIndexes=` clause per word and per quoted phrase, ANDed: all words, any order.

    KOOP's `=` on a term of several words is a phrase; on one word, that word. Its text index ignores case and
    accents (KOOP's zoekservice folds both: LowerCase and ASCIIFolding filters in the Solr schema its PLOOI sources
    disclose) and has no stemming ("boom" does not find "bomen")."""
    phrases, words = search_terms(text)
    terms = [*phrases, *words]
    if len(terms) > MAX_TERMS:
        raise ToolInputError(f"{len(terms)} search words and phrases; use at most {MAX_TERMS}, the ones that must "
                             "occur (every word is required)")
    clauses = [f"cql.textAndIndexes={cql_quote(t)}" for t in terms]
    said = [*(f"the phrase {p!r}" for p in phrases), *(repr(w) for w in words)]
    return clauses, f"text or metadata contain {' and '.join(said)} ({WORDS_RULE})"


def build_search(source: KoopSource, call: ToolCall, extra_clauses: list[tuple[str, str]]) -> tuple[str, str]:
    """(CQL query, how it matches in words) for a publication search."""
    args = call.arguments
    clauses = [PRODUCT_AREA]
    words: list[str] = []
    organisation = str(args.get("organisation") or "").strip()
    chosen = read_organisation(source, organisation) if organisation else None
    codes = list(args.get("media") or ([chosen.medium] if chosen and chosen.medium else source.media))
    unknown = [c for c in codes if c not in source.media]
    if unknown:
        raise ToolInputError(f"unknown gazette code(s) {unknown}; use {', '.join(source.media)}")
    clauses.append(source.scope(codes))
    words.append("in " + ", ".join(source.medium_titles[c] for c in codes))
    if chosen:
        clauses.extend(chosen.clauses)
        words.append(chosen.matched)
    kind = str(args.get("publication_type") or "").strip()
    if kind:
        clauses.append(f"dt.type=={cql_quote(kind)}")
        words.append(f"publication type is exactly {kind!r}")
    for clause, word in extra_clauses:
        clauses.append(clause)
        words.append(word)
    query = str(args.get("query") or "").strip()
    if query:
        found, said = text_clauses(query)
        clauses.extend(found)
        if found:
            words.append(said)
    start, end = date_range(call)
    if start:
        clauses.append(f"dt.available>={start.isoformat()}")
    if end:
        clauses.append(f"dt.available<={end.isoformat()}")
    if start or end:
        words.append(f"published {'from ' + start.isoformat() if start else ''}"
                     f"{' ' if start and end else ''}{'up to ' + end.isoformat() if end else ''}")
    return f"{and_join(clauses)} {NEWEST_FIRST}", "; ".join(words) + "; newest first"


async def search_publications(source: KoopSource, call: ToolCall,
                              extra_clauses: list[tuple[str, str]] | None = None) -> dict[str, Any]:
    """Run one KOOP publication search and map it to results + precision."""
    limit, offset, notes = page(call)
    if offset + 1 >= KOOP_PAGING_LIMIT:
        raise ToolInputError(f"offset {offset} is beyond the first {KOOP_PAGING_LIMIT:,} hits the platform can page "
                             "through; narrow the search (organisation, type, dates) instead")
    query, matched = build_search(source, call, extra_clauses or [])
    platform = call.ctx.platform
    window = aligned(offset, limit, most=KOOP_MOST_RECORDS)
    reply = await call.get("", reply_parser(platform.key, platform.title.en),
                           params=koop_params(query, start=window.start + 1, maximum=window.size), headers=XML_ACCEPT)
    hits = [read_publication_record(r, source) for r in window.cut(reply.records)]
    results = [{**{k: hit[k] for k in PUBLICATION_HIT},
                "citation": cite(call.ctx, uri=hit["url"], title=hit["title"], text=publication_cite_text(hit))}
               for hit in hits]
    not_applied = [*notes, *(f"the platform ignored part of the query: {text}" for text in reply.ignored)]
    after = offset + len(results)
    truncated = (window.more_held(reply.records) or reply.next_position is not None
                 or (reply.total is not None and after < reply.total))
    next_offset = after if truncated and results else None
    if next_offset is not None and next_offset + 1 >= KOOP_PAGING_LIMIT:
        not_applied.append(f"hits after the first {KOOP_PAGING_LIMIT:,} cannot be paged to; narrow the search")
        next_offset = None
    return {"results": results,
            "precision": precision(total=reply.total, total_relation=reply.relation, returned=len(results),
                                   truncated=truncated, matched=matched, not_applied=not_applied,
                                   next_offset=next_offset)}


READ_INPUT_PROPS = {
    "offset": CHUNK_PROPS["offset"],
    "length": CHUNK_PROPS["length"],
}

READ_OUTPUT = object_schema({
    **PUBLICATION_HIT,
    "modified": NSTR,
    "year": NSTR,
    "number": {**NSTR, "description": "Publication number within the gazette and year."},
    "dossier": {**NSTR, "description": "Parliamentary dossier number (Kamerstukken)."},
    "session_year": {**NSTR, "description": "Parliamentary session year (vergaderjaar), e.g. 2020-2021."},
    "item": {**NSTR, "description": "Item number within a Handelingen meeting."},
    "main_document": {**NSTR, "description": "For an appendix (blg-): the document it belongs to."},
    "meeting_date": {**NSTR, "description": "For Handelingen: the date of the meeting."},
    "subjects": {"type": "array", "items": {"type": "string"}},
    "xml_url": {**NSTR, "description": "The XML text in KOOP's repository (what the text below was read from)."},
    "pdf_url": NSTR,
    "text_note": {**NSTR, "description": "Why no text is given, when it is empty."},
    **chunk_output_props(),
    "citation": CITATION_SCHEMA,
})


def read_input_schema(source: KoopSource) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "identifier": {"type": "string", "minLength": 3, "maxLength": 80,
                           "description": "KOOP identifier, e.g. " + source.id_examples + "."},
            **READ_INPUT_PROPS,
        },
        "required": ["identifier"],
        "additionalProperties": False,
    }


def check_identifier(source: KoopSource, raw: Any) -> str:
    identifier = str(raw or "").strip()
    if identifier.lower().endswith(".html"):
        identifier = identifier[:-5]
    identifier = identifier.rsplit("/", 1)[-1]
    if not source.id_pattern.fullmatch(identifier):
        prefix = identifier.split("-", 1)[0].lower()
        hint = f" {source.elsewhere}" if prefix and prefix not in source.prefixes and "-" in identifier else ""
        raise ToolInputError(f"{raw!r} is not an identifier of this source; expected e.g. "
                             f"{source.id_examples}.{hint}")
    return identifier


async def read_publication(source: KoopSource, call: ToolCall) -> dict[str, Any]:
    """Metadata by identifier, then the text from the record's XML manifestation."""
    identifier = check_identifier(source, call.arguments.get("identifier"))
    platform = call.ctx.platform
    query = and_join([PRODUCT_AREA, f"dt.identifier=={cql_quote(identifier)}"])
    reply = await call.get("", reply_parser(platform.key, platform.title.en),
                           params=koop_params(query, start=1, maximum=1), headers=XML_ACCEPT)
    if not reply.records:
        raise NotHeld(platform.title.en, f"publication {identifier!r}",
                      url=f"https://zoek.officielebekendmakingen.nl/{identifier}.html",
                      advice="check the identifier (search_publications lists them)")
    pub = read_publication_record(reply.records[0], source)
    text, note = "", None
    if pub["xml_url"]:
        root = await fetch_linked(call, pub["xml_url"], as_element, real_base=KOOP_BASE, hosts=KOOP_DOCUMENT_HOSTS)
        text = xml_text(root)
    else:
        note = "KOOP offers this publication only as PDF" + (f": {pub['pdf_url']}" if pub["pdf_url"] else "")
    if not text and note is None:
        note = "the XML text of this publication is empty"
    return {**pub, "text_note": note, **chunk(text, call),
            "citation": cite(call.ctx, uri=pub["url"], title=pub["title"], text=publication_cite_text(pub))}


def koop_tools(source: KoopSource, *, search_example: Mapping[str, Any], read_example: Mapping[str, Any],
               search_props: Mapping[str, Any] | None = None,
               search_clauses: Callable[[ToolCall], list[tuple[str, str]]] | None = None) -> tuple[ToolImpl, ...]:
    """The two tools of a KOOP connector: `search_publications` and `read_publication` over `source`.

    A connector with arguments of its own adds their schema as `search_props` and turns them into
    (CQL clause, what it matched) pairs with `search_clauses`.
    """

    async def search(call: ToolCall) -> dict[str, Any]:
        return await search_publications(source, call, search_clauses(call) if search_clauses else None)

    async def read(call: ToolCall) -> dict[str, Any]:
        return await read_publication(source, call)

    return (
        ToolImpl(name="search_publications", input_schema=search_input_schema(source, search_props or {}),
                 output_schema=SEARCH_OUTPUT, handler=search, example=search_example),
        ToolImpl(name="read_publication", input_schema=read_input_schema(source), output_schema=READ_OUTPUT,
                 handler=read, example=read_example),
    )


def newest_query(source: KoopSource, code: str, *clauses: str) -> str:
    return f"{and_join([PRODUCT_AREA, source.scope([code]), *clauses])} {NEWEST_FIRST}"


async def system_search(ctx: PlatformContext, query: str, *, maximum: int,
                        facets: str | None = None) -> SruReply:
    """A search made for the load-status measurement (recorded under the system caller)."""
    return await ctx.upstream.get("", reply_parser(ctx.platform.key, ctx.platform.title.en),
                                  params=koop_params(query, start=1, maximum=maximum, facets=facets),
                                  headers=XML_ACCEPT, caller=SYSTEM_CALLER)


# --------------------------------------------------------------------------- live contract check


async def koop_canary(probe: Probe, plugin: PlatformPlugin, source: KoopSource) -> None:
    """The live contract check of a KOOP SRU source (lokaal, officieel): newest first, then one read by id."""
    ctx = probe.ctx
    parse = reply_parser(ctx.platform.key, ctx.platform.title.en)
    query = and_join([PRODUCT_AREA, source.scope()]) + " " + NEWEST_FIRST
    search = await probe.get("search", "", parse, headers=XML_ACCEPT,
                             params=koop_params(query, start=1, maximum=3))
    probe.count(search.total, len(search.records), "search: numberOfRecords")
    probe.expect(search.relation == "estimate", "search: resultCountPrecision",
                 f"the count is said to be {search.relation!r}; the adapter reports KOOP's 'estimate'")
    probe.expect(0 < len(search.records) <= 3, "search", f"{len(search.records)} records for maximumRecords=3")
    pubs = [read_publication_record(r, source) for r in search.records]
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
    read = await probe.get("read", "", parse, headers=XML_ACCEPT, params=koop_params(
        and_join([PRODUCT_AREA, f"dt.identifier=={cql_quote(identifier)}"]), start=1, maximum=1))
    if probe.expect(len(read.records) == 1, "read", f"{len(read.records)} records for dt.identifier=={identifier}"):
        got = read_publication_record(read.records[0], source)["identifier"]
        probe.expect(got == identifier, "read", f"asked for {identifier}, got {got!r}")
    probe.check()
    await check_load(probe, plugin)


def koop_plugin(key: str, tools: tuple[ToolImpl, ...], measure_load: MeasureLoad, source: KoopSource,
                search_route: SourceRoute, *, search_words: tuple[tuple[str, ...], tuple[str, ...]],
                cannot: tuple[str, ...], quirks: tuple[str, ...], cannot_nl: tuple[str, ...],
                quirks_nl: tuple[str, ...], hosts: tuple[str, ...] = ()) -> PlatformPlugin:
    """A KOOP SRU source's plug-in (lokaal, officieel): the shared documentation and canary, its own words."""
    return PlatformPlugin(key=key, tools=tools, measure_load=measure_load,
                          canary=functools.partial(koop_canary, source=source), search_route=search_route,
                          about=dataclasses.replace(KOOP_SRU_ABOUT, search_words=search_words, cannot=cannot,
                                                    quirks=quirks, cannot_nl=cannot_nl, quirks_nl=quirks_nl,
                                                    hosts=hosts))
