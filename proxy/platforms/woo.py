"""Open Overheid: Woo publications from open.overheid.nl (Generieke Woo-voorziening, KOOP/BZK).

Upstream: the keyless JSON API behind the open.overheid.nl website,
`https://open.overheid.nl/overheid/openbaarmakingen/api/v0` (undocumented; research §6, checked
against client code that calls the live service):

* `GET /zoek?zoektekst=…&start=<offset>&aantalResultaten=10|20|50`: a full-text search ranked by
  the platform; other page sizes are a 400. Optional `sort=publicatiedatum` (newest first; with
  `order=asc` oldest first), `publicatiedatumVan`/`publicatiedatumTot` as DD-MM-YYYY, and filters
  (`informatiecategorie`, `organisatie`, …) whose values the site sends **double URL-encoded**
  (`organisatie=ministerie%2520van%2520Algemene%2520Zaken`), so this module builds the query string
  itself. The answer: `{"totaal": N, "resultaten": [{"document": {...}, ...}], "filters": {...}}`.
  Whether `totaal` is exact or capped is not documented, so precision calls it an estimate.
* `GET /zoek/{id}`: the full metadata of one publication, its versions with their files, and its
  relations to other publications (attachments). Search hits carry a version suffix (`…_1`),
  which is stripped before the lookup.

Human page of a publication: its `pid`, `https://open.overheid.nl/documenten/<id>`.

Organisations are filtered on their exact label; people write "BZK" or "ministerie van BZK", so a
name is resolved against the platform's own list (the `organisatie` facet of an unfiltered search)
with the abbreviations in `woo_organisations.json`; the choice is said in `precision.matched`.
"""

from __future__ import annotations

import asyncio
import json
import re
from datetime import date
from pathlib import Path
from typing import Any
from urllib.parse import quote

from proxy.core.caller import SYSTEM_CALLER
from proxy.core.errors import NotHeld, ToolInputError, UpstreamError, UpstreamStatusError
from proxy.core.schema_atoms import NDATE, NINT, NSTR, STRINGS
from proxy.platforms._common import PAGE_PROPS, cite, date_range, date_range_props, object_at, page
from proxy.platforms._organisations import REGISTER, Choice
from proxy.platforms._resolve import Entry, Table, norm
from proxy.plugin.canary import DAY, Probe, check_load
from proxy.plugin.toolkit import About, LoadReport, PlatformContext, PlatformPlugin, SourceRoute, ToolCall, ToolImpl
from proxy.results.outputs import CITATION_SCHEMA, object_schema, precision, result_list_schema

__all__ = ["PLATFORM", "TOOLS", "measure_load", "publication_id", "query_string", "resolve_organisation"]

PAGE_SIZES = (10, 20, 50)
# How open.overheid.nl reads `zoektekst` (its back end is PLOOI's Solr: LowerCase and ASCIIFolding filters on the text
# fields, an edismax query); how several words combine and any phrase syntax are not documented, so the text is sent
# as written and the rule says so.
WORDS_RULE = ("how several words combine is the platform's own, undocumented rule; case and accents ignored; "
              "quotes have no documented meaning")
ACCEPT = {"Accept": "application/json"}
DOCUMENT_PAGE = "https://open.overheid.nl/documenten/"
ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9.-]{5,150}$")
VERSION_RE = re.compile(r"_(\d+)$")
UUID_RE = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
ID_FAMILIES = ("oep-", "ronl-", "plooi-")
HIGHLIGHT_RE = re.compile(r"</?(?:b|em|strong)>")
ROLES = {
    "https://identifier.overheid.nl/tooi/def/thes/kern/c_05f4a5f3": "heeft bijlage",
    "https://identifier.overheid.nl/tooi/def/thes/kern/c_4d1ea9ba": "is bijlage van",
}



# --------------------------------------------------------------------------- request and reply pieces


def query_string(pairs: list[tuple[str, str]]) -> str:
    return "&".join(f"{key}={quote(value, safe='')}" for key, value in pairs)


def _filter_value(value: str) -> str:
    """A filter value as the site sends it: encoded once here, once more by `_query`."""
    return quote(value, safe="")


def _dutch(day: date) -> str:
    return day.strftime("%d-%m-%Y")


def _json_object(body: bytes) -> dict[str, Any]:
    data = json.loads(body)
    if not isinstance(data, dict):
        raise ValueError("open.overheid.nl answers a JSON object")
    return data


def read_search(body: bytes) -> dict[str, Any]:
    data = _json_object(body)
    if not isinstance(data.get("resultaten"), list):
        raise ValueError("a search answer has a 'resultaten' list")
    return data


def read_detail(body: bytes) -> dict[str, Any]:
    data = _json_object(body)
    if not isinstance(data.get("document"), dict):
        raise ValueError("a publication answer has a 'document' object")
    return data


def _split_id(raw: str) -> tuple[str, int | None]:
    match = VERSION_RE.search(raw)
    return (raw[:match.start()], int(match.group(1))) if match else (raw, None)


def publication_id(value: str) -> str:
    """An id as search returns it (`oep-…_1`), a bare id or a pid/details URL → the id to look up."""
    value = value.strip().rstrip("/")
    if value.startswith(("http://", "https://")):
        parts = [p for p in value.split("?")[0].split("/") if p]
        value = parts[-2] if parts and parts[-1] == "file" else parts[-1] if parts else ""
    bare, _ = _split_id(value)
    if UUID_RE.match(bare):
        bare = bare.lower()  # the platform's UUIDs are lower case; a pasted upper-case one is the same id
    if not ID_RE.match(bare):
        raise ToolInputError(f"id must be an open.overheid.nl publication id such as oep-0b03…, a UUID or its "
                             f"https://open.overheid.nl/documenten/… link; got {value!r}")
    return bare


def _labels(items: Any) -> list[str]:
    return [str(i["label"]) for i in items if isinstance(i, dict) and i.get("label")] if isinstance(items, list) else []


def _label(item: Any) -> str | None:
    return str(item["label"]) if isinstance(item, dict) and item.get("label") else None


# --------------------------------------------------------------------------- organisations

ABBREVIATIONS = Table.load(Path(__file__).with_name("woo_organisations.json"), argument="organisation")
_MINISTRY_PREFIX = re.compile(r"^(?:het\s+)?(?:ministerie|min\.?)\s+(?:van\s+)?", re.IGNORECASE)


async def platform_organisations(call: ToolCall) -> list[tuple[str, int]]:
    """The platform's own list of publishing bodies with their publication counts: the `organisatie` facet
    of an unfiltered search (cached like any answer; whether the live facet lists every body is not
    documented)."""
    path = "/zoek?" + query_string([("zoektekst", ""), ("start", "0"), ("aantalResultaten", "10")])
    data = await call.get(path, read_search, headers=ACCEPT)
    facets = object_at(data, "filters")
    out = []
    for item in facets.get("organisatie") or []:
        if isinstance(item, dict) and isinstance(item.get("naam"), str) and item["naam"].strip():
            count = item.get("aantal")
            out.append((item["naam"], count if isinstance(count, int) else 0))
    return out


def _same_body(choice: Choice, known: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """The platform's names for the organisation the register chose (its label can be an earlier name, e.g.
    'ministerie van Economische Zaken en Klimaat' for today's ministerie van Economische Zaken, mnre1045)."""
    return [(name, count) for name, count in known if choice.org in REGISTER.matches(name)[1]]


def _register_value(written: str, known: list[tuple[str, int]]) -> tuple[str, str] | None:
    """(facet value, what it was read as) for a name the government's register holds; None when it holds none."""
    if not REGISTER.matches(written)[1]:
        return None
    choice = REGISTER.resolve(written)  # several of one kind: refused with the candidates
    org = choice.org
    same = sorted(_same_body(choice, known), key=lambda kv: -kv[1])
    value = same[0][0] if same else org.full_name
    said = f"{written!r} read as the {org.full_name} ({org.id}), on open.overheid.nl {value!r}"
    if known and not same:
        said += "; not in the platform's current list of bodies"
    return value, said + (f" ({choice.note})" if choice.note else "")


async def resolve_organisation(call: ToolCall, written: str) -> tuple[str, str | None]:
    """The organisation name to filter on, and what it was read as (None when written exactly so).

    People write 'BZK', 'ministerie van BZK' or 'gemeente Den Haag'; the platform filters on its exact label
    ('ministerie van Binnenlandse Zaken en Koninkrijksrelaties'). A name is read with the government's register
    of organisations (the same reading as every other source) and mapped to the platform's own label of that
    organisation (the `organisatie` facet); bodies outside the register (agencies, inspectorates) by the
    abbreviation table kept as data or a part of their name: several matches, the body with the most publications,
    and the answer names the others; none: refused with the closest names."""
    known = await platform_organisations(call)
    by_norm = {norm(name): name for name, _ in known}
    if norm(written) in by_norm:
        exact = by_norm[norm(written)]
        return exact, None if exact == written else f"{written!r} read as {exact!r}"
    registered = _register_value(written, known)
    if registered is not None:
        return registered
    stripped = _MINISTRY_PREFIX.sub("", written).strip()
    entry = ABBREVIATIONS.find(written) or (ABBREVIATIONS.find(stripped) if stripped else None)
    if entry is not None:
        name = by_norm.get(norm(entry.key), entry.key)
        note = "" if norm(entry.key) in by_norm or not known else "; not in the platform's current list of bodies"
        return name, f"{written!r} read as {name!r}{note}"
    table = Table("organisation", "organisation",
                  [Entry(key=name, label=name, extra={"count": count}) for name, count in known])
    several = table.partial(stripped or written)
    if several:
        several.sort(key=lambda e: -int(e.extra.get("count") or 0))
        chosen = several[0].key
        others = [e.key for e in several[1:6]]
        return chosen, (f"{written!r} read as {chosen!r}, the body with the most publications of those it names"
                        + (f"; others: {', '.join(others)}" if others else ""))
    if not known:
        return written, None  # no list to check against: send it as written
    raise table.refusal(written, hint=" exactly as listed, or an abbreviation such as BZK or VWS")


# --------------------------------------------------------------------------- search_publications

HIT_ITEM = {
    "id": {"type": "string", "description": "Publication id (read_publication accepts it)."},
    "version": {**NINT, "description": "Version number from the search hit's id suffix."},
    "title": {"type": "string"},
    "description": NSTR,
    "published": {**NDATE, "description": "Date of disclosure (openbaarmakingsdatum)."},
    "publisher": {**NSTR, "description": "The body that published it; null where the platform says 'Onbekend'."},
    "responsible": {**NSTR, "description": "The body responsible (verantwoordelijke), read from the publication "
                                           "(the first 10 hits) or the organisation asked for."},
    "modified": NSTR,
    "file_type": NSTR,
    "pages": NINT,
    "file_size": {**NSTR, "description": "As the platform states it, e.g. '0.94 MB'."},
    "snippet": {**NSTR, "description": "Text around the search words, from the platform."},
    "url": {"type": "string", "description": "The publication page on open.overheid.nl."},
}


UNKNOWN_BODY = frozenset({"onbekend", ""})  # the platform's label for TOOI organisatie_onbekend
LOOKUPS = 10  # at most this many publications read per search to name a body the hit leaves unknown


def _known(body: Any) -> str | None:
    return str(body) if isinstance(body, str) and body.strip().lower() not in UNKNOWN_BODY else None


def _hit(ctx: PlatformContext, hit: dict[str, Any], responsible: str | None) -> dict[str, Any]:
    doc = object_at(hit, "document")
    raw = str(doc.get("id") or "")
    bare, version = _split_id(raw)
    pid = str(doc.get("pid") or "")
    if pid.startswith(DOCUMENT_PAGE) and ID_RE.match(pid.removeprefix(DOCUMENT_PAGE)):
        bare = pid.removeprefix(DOCUMENT_PAGE)  # the canonical id: what the publication's own page is named by
    url = pid or DOCUMENT_PAGE + bare
    title = str(doc.get("titel") or bare)
    snippet = hit.get("highlightedText")
    snippet = " ".join(HIGHLIGHT_RE.sub("", snippet).split()) if isinstance(snippet, str) else None
    publisher, published = _known(doc.get("publisher")), doc.get("openbaarmakingsdatum")
    body = responsible or publisher
    pages = hit.get("aantalPaginas")
    return {
        "id": bare, "version": version, "title": title, "description": doc.get("omschrijving"),
        "published": published, "publisher": publisher, "responsible": responsible,
        "modified": doc.get("mutatiedatumtijd"),
        "file_type": hit.get("bestandsType"), "pages": pages if isinstance(pages, int) else None,
        "file_size": hit.get("bestandsgrootte"), "snippet": snippet, "url": url,
        "citation": cite(ctx, uri=url, title=title,
                         text=f"{title}, {body or 'bestuursorgaan niet vermeld'}, openbaar gemaakt "
                              f"{published or 'onbekend'}" + (f": {doc['omschrijving']}" if doc.get("omschrijving")
                                                              else "")),
    }


async def _responsible(call: ToolCall, hits: list[dict[str, Any]], organisation: str | None) -> list[str | None]:
    """Per hit, the body responsible: the organisation filtered on (the platform filters on the verantwoordelijke),
    else the verantwoordelijke of the publication itself, read for the first LOOKUPS hits (cached, so a
    read_publication after it costs nothing). A hit names only its publisher: "Onbekend" for many, and for
    rijksoverheid.nl's archive the ministry of Algemene Zaken, which runs that site, not the ministry responsible."""
    if organisation:
        return [organisation] * len(hits)

    async def read(hit: dict[str, Any]) -> str | None:
        doc = object_at(hit, "document")
        bare, _ = _split_id(str(doc.get("id") or ""))
        if not ID_RE.match(bare):
            return None
        try:
            data = await call.get("/zoek/" + quote(bare, safe=""), read_detail, headers=ACCEPT)
        except UpstreamError:
            return None  # the hit is still listed; only the body stays unnamed
        return _known(_label(object_at(data, "document").get("verantwoordelijke")))

    found = await asyncio.gather(*(read(h) for h in hits[:LOOKUPS]))
    return [*found, *[None] * (len(hits) - len(found))]


async def _search_publications(call: ToolCall) -> dict[str, Any]:
    args = call.arguments
    limit, offset, notes = page(call)
    start, end = date_range(call)
    text = " ".join(str(args.get("query") or "").split())
    if limit > PAGE_SIZES[-1]:
        notes = [*notes, f"limit {limit} lowered to {PAGE_SIZES[-1]}, the largest page open.overheid.nl serves"]
        limit = PAGE_SIZES[-1]
    size = next(s for s in PAGE_SIZES if s >= limit)  # the platform serves only these page sizes
    sort = args.get("sort") or ("relevance" if text else "newest")
    pairs = [("zoektekst", text), ("start", str(offset)), ("aantalResultaten", str(size))]
    matched = [f"full-text search for {text!r} ({WORDS_RULE}; ranked by the platform)" if text
               else "no search words: every publication"]
    if sort in ("newest", "oldest"):
        pairs.append(("sort", "publicatiedatum"))
        if sort == "oldest":
            pairs.append(("order", "asc"))
    if start:
        pairs.append(("publicatiedatumVan", _dutch(start)))
    if end:
        pairs.append(("publicatiedatumTot", _dutch(end)))
    if start or end:
        matched.append(f"disclosed from {start or 'any'} to {end or 'any'}")
    category = " ".join(str(args.get("information_category") or "").split())
    if category:
        pairs.append(("informatiecategorie", _filter_value(category)))
        matched.append(f"information category is {category!r}")
    organisation = " ".join(str(args.get("organisation") or "").split())
    name = None
    if organisation:
        name, said = await resolve_organisation(call, organisation)
        pairs.append(("organisatie", _filter_value(name)))
        matched.append(f"organisation is {name!r}" + (f" ({said})" if said else ""))
    data = await call.get("/zoek?" + query_string(pairs), read_search, headers=ACCEPT)
    hits = [h for h in data["resultaten"][:limit] if isinstance(h, dict)]
    bodies = await _responsible(call, hits, name)
    items = [_hit(call.ctx, h, body) for h, body in zip(hits, bodies, strict=True)]
    total = data.get("totaal") if isinstance(data.get("totaal"), int) else None
    truncated = offset + len(items) < total if total is not None else len(items) >= limit
    matched.append({"relevance": "ranked by relevance", "newest": "newest disclosure first",
                    "oldest": "oldest disclosure first"}[sort])
    matched.append("the total is the platform's 'totaal', not documented as exact")
    return {"results": items, "precision": precision(
        total=total, total_relation="estimate" if total is not None else "unknown", returned=len(items),
        truncated=truncated, matched="; ".join(matched), not_applied=notes,
        next_offset=offset + len(items) if truncated else None)}


SEARCH_INPUT = object_schema({
    "query": {"type": "string", "maxLength": 200,
              "description": f"Words to search for in the publications' text and metadata: {WORDS_RULE}; ranked by "
                             "the platform."},
    "information_category": {"type": "string", "maxLength": 120,
                             "description": "Woo information category, lower case as the platform labels it, e.g. "
                                            "'Woo-verzoeken en -besluiten', 'adviezen', 'convenanten', "
                                            "'onderzoeksrapporten', 'jaarplannen en jaarverslagen'."},
    "organisation": {"type": "string", "maxLength": 160,
                     "description": "Publishing body as people write it ('gemeente Den Haag', 'provincie "
                                    "Gelderland', 'BZK', 'JenV', 'ministerie van OCW'); read with the government's "
                                    "register of organisations and sent as the platform's own label for it (other "
                                    "bodies by part of their name), the choice said in precision.matched, an unknown "
                                    "name refused with the closest."},
    **date_range_props("Applies to the date of disclosure."),
    "sort": {"enum": ["relevance", "newest", "oldest"],
             "description": "Order: by relevance (default with search words) or by date of disclosure (newest is "
                            "the default without words)."},
    **PAGE_PROPS,
}, required=[])
SEARCH_OUTPUT = result_list_schema(HIT_ITEM)


# --------------------------------------------------------------------------- read_publication

DOCUMENT_ITEM = {
    "kind": {"enum": ["file", "related"],
             "description": "file: a file of this publication; related: another publication linked to it."},
    "title": {"type": "string"},
    "role": {**NSTR, "description": "For related publications: e.g. 'heeft bijlage', 'is bijlage van'."},
    "id": {**NSTR, "description": "For related publications: its id (read_publication accepts it)."},
    "file_name": NSTR,
    "mime_type": NSTR,
    "size_bytes": NINT,
    "pages": NINT,
    "url": {"type": "string"},
}
PUBLICATION = object_schema({
    "id": {"type": "string"},
    "title": {"type": "string", "description": "Official title (officieleTitel)."},
    "description": NSTR,
    "document_kinds": STRINGS,
    "information_categories": STRINGS,
    "themes": STRINGS,
    "responsible": {**NSTR, "description": "The body responsible (verantwoordelijke)."},
    "publisher": NSTR,
    "created": NDATE,
    "published": {**NDATE, "description": "Date of disclosure of the newest version."},
    "modified": NSTR,
    "version": NINT,
    "status": {**NSTR, "description": "Publication status, e.g. gepubliceerd."},
    "web_location": {**NSTR, "description": "Where the body itself publishes it, if anywhere."},
    "url": {"type": "string"},
    "citation": CITATION_SCHEMA,
}, description="The publication itself.")


def _documents(ctx: PlatformContext, data: dict[str, Any], pub: dict[str, Any]) -> list[dict[str, Any]]:
    versions = [v for v in data.get("versies") or [] if isinstance(v, dict)]
    newest = max(versions, key=lambda v: v.get("nummer") or 0) if versions else {}
    context = f"'{pub['title']}', {pub['responsible'] or pub['publisher'] or 'onbekend'}, openbaar gemaakt " \
              f"{pub['published'] or 'onbekend'}"
    out = []
    for f in newest.get("bestanden") or []:
        if not isinstance(f, dict) or f.get("gepubliceerd") is False:
            continue
        link = f.get("url") or (f.get("id") if str(f.get("id") or "").startswith("http") else None)
        url = str(link or f"{pub['url']}/file")
        name = f.get("bestandsnaam")
        title = str(name or f.get("label") or "bestand")
        size, pages = f.get("grootte"), f.get("paginas")
        out.append({"kind": "file", "title": title, "role": None, "id": None, "file_name": name,
                    "mime_type": f.get("mime-type"), "size_bytes": size if isinstance(size, int) else None,
                    "pages": pages if isinstance(pages, int) else None, "url": url,
                    "citation": cite(ctx, uri=url, title=title, text=f"Bestand {title} van {context}")})
    for rel in data.get("documentrelaties") or []:
        if not isinstance(rel, dict) or not rel.get("relation"):
            continue
        url = str(rel["relation"])
        role_uri = str(rel.get("role") or "")
        role = ROLES.get(role_uri) or (role_uri.rstrip("/").rsplit("/", 1)[-1] or None)
        other = url.rstrip("/").rsplit("/", 1)[-1]
        title = str(rel.get("titel") or f"Gerelateerde publicatie {other}")
        out.append({"kind": "related", "title": title, "role": role, "id": other, "file_name": None,
                    "mime_type": None, "size_bytes": None, "pages": None, "url": url,
                    "citation": cite(ctx, uri=url, title=title, text=f"{title} ({role or 'relatie'}) bij {context}")})
    return out


async def _read_publication(call: ToolCall) -> dict[str, Any]:
    pid = publication_id(str(call.arguments.get("id") or ""))
    limit, offset, notes = page(call)
    try:
        data = await call.get("/zoek/" + quote(pid, safe=""), read_detail, headers=ACCEPT)
    except UpstreamStatusError as exc:
        if exc.status == 404:
            family = next((f for f in ID_FAMILIES if pid.startswith(f)), None)
            # One client notes that the detail service resolves only UUIDs; say so for the other families.
            extra = (f" (for {family}… ids the detail service may not resolve them; the publication's page is "
                     f"{DOCUMENT_PAGE}{pid})") if family else ""
            raise NotHeld("open.overheid.nl", f"publication {pid!r}{extra}", url=f"{DOCUMENT_PAGE}{pid}",
                          advice="search_publications finds ids") from exc
        raise
    doc = data["document"]
    versions = [v for v in data.get("versies") or [] if isinstance(v, dict)]
    newest = max(versions, key=lambda v: v.get("nummer") or 0) if versions else {}
    titles = object_at(doc, "titelcollectie")
    classes = object_at(doc, "classificatiecollectie")
    intern = object_at(data, "plooiIntern")
    descriptions = [str(d) for d in doc.get("omschrijvingen") or [] if d]
    url = str(doc.get("pid") or DOCUMENT_PAGE + pid)
    pub: dict[str, Any] = {
        "id": pid, "title": str(titles.get("officieleTitel") or pid), "description": " ".join(descriptions) or None,
        "document_kinds": _labels(classes.get("documentsoorten")),
        "information_categories": _labels(classes.get("informatiecategorieen")),
        "themes": _labels(classes.get("themas")), "responsible": _label(doc.get("verantwoordelijke")),
        "publisher": _label(doc.get("publisher")), "created": doc.get("creatiedatum"),
        "published": newest.get("openbaarmakingsdatum"),
        "modified": doc.get("mutatiedatumtijd") or newest.get("mutatiedatumtijd"),
        "version": newest.get("nummer") if isinstance(newest.get("nummer"), int) else None,
        "status": intern.get("publicatiestatus"), "web_location": doc.get("weblocatie"), "url": url,
    }
    pub["citation"] = cite(call.ctx, uri=url, title=pub["title"],
                           text=f"{pub['title']}, {pub['responsible'] or pub['publisher'] or 'onbekend'}, openbaar "
                                f"gemaakt {pub['published'] or 'onbekend'}")
    documents = _documents(call.ctx, data, pub)
    items = documents[offset:offset + limit]
    truncated = offset + len(items) < len(documents)
    return {"publication": pub, "results": items, "precision": precision(
        total=len(documents), total_relation="exact", returned=len(items), truncated=truncated,
        matched="the files of the newest version and the related publications (documentrelaties) that "
                "open.overheid.nl lists for this publication", not_applied=notes,
        next_offset=offset + len(items) if truncated else None)}


READ_INPUT = object_schema({
    "id": {"type": "string", "minLength": 6, "maxLength": 200,
           "description": "Publication id as search_publications returns it (e.g. oep-0b03…, a UUID), with or "
                          "without a version suffix such as _1, or its open.overheid.nl/documenten/… link."},
    "limit": {**PAGE_PROPS["limit"], "default": 50,
              "description": "Documents (files and related publications) to list; capped by results_per_call."},
    "offset": {**PAGE_PROPS["offset"], "description": "Documents to skip."},
}, required=["id"])
READ_OUTPUT = result_list_schema(DOCUMENT_ITEM, extra={"publication": PUBLICATION})


# --------------------------------------------------------------------------- registration and load status

TOOLS: tuple[ToolImpl, ...] = (
    ToolImpl(name="search_publications", input_schema=SEARCH_INPUT, output_schema=SEARCH_OUTPUT,
             handler=_search_publications, example={"query": "Wob-verzoek", "limit": 5}),
    ToolImpl(name="read_publication", input_schema=READ_INPUT, output_schema=READ_OUTPUT, handler=_read_publication,
             example={"id": "eef2edec-019e-4085-8e2e-4d3f42686431"}),
)


async def measure_load(ctx: PlatformContext) -> LoadReport:
    """The newest date of disclosure: one search, newest first."""
    path = "/zoek?" + query_string([("zoektekst", ""), ("start", "0"), ("aantalResultaten", "10"),
                              ("sort", "publicatiedatum")])
    data = await ctx.upstream.get(path, read_search, headers=ACCEPT, caller=SYSTEM_CALLER)
    days = []
    for hit in data["resultaten"]:
        doc = object_at(hit, "document") if isinstance(hit, dict) else {}
        try:
            days.append(date.fromisoformat(str(doc.get("openbaarmakingsdatum"))[:10]))
        except ValueError:
            continue
    if not days:
        return LoadReport(current_through=None, note="open.overheid.nl returned no publications")
    return LoadReport(current_through=max(days), note=f"newest date of disclosure {max(days)} "
                                                      f"(of {data.get('totaal')} publications)")

# --------------------------------------------------------------------------- live contract check


async def canary(probe: Probe, plugin: PlatformPlugin) -> None:

    accept = {"Accept": "application/json"}
    search = await probe.get("search", "/zoek?" + query_string([("zoektekst", ""), ("start", "0"),
                                                                      ("aantalResultaten", "10"),
                                                                      ("sort", "publicatiedatum")]),
                             read_search, headers=accept)
    hits = [h for h in search["resultaten"] if isinstance(h, dict)]
    probe.count(search.get("totaal"), len(hits), "search: totaal")
    probe.expect(0 < len(hits) <= 10, "search", f"{len(hits)} results for aantalResultaten=10")
    for n, hit in enumerate(hits):
        where = f"search: resultaten[{n}].document"
        doc = hit.get("document")
        if not isinstance(doc, dict):
            probe.expect(False, where, "missing")
            continue
        probe.field(doc, "id", where, pattern=re.compile(r"^[A-Za-z0-9][A-Za-z0-9.-]+(_\d+)?$"),
                    example="oep-0b03…_1")
        probe.field(doc, "titel", where)
        probe.field(doc, "openbaarmakingsdatum", where, pattern=DAY, example="2026-09-30")
    facets = search.get("filters")
    organisations = facets.get("organisatie", []) if isinstance(facets, dict) else []
    if probe.expect(isinstance(organisations, list) and bool(organisations), "search: filters.organisatie",
                    "the list of publishing bodies (used to resolve organisation names) is missing"):
        for n, item in enumerate(organisations[:5]):
            probe.field(item, "naam", f"search: filters.organisatie[{n}]")
            probe.field(item, "aantal", f"search: filters.organisatie[{n}]", kind=int)
    probe.check()
    bare = publication_id(str(hits[0]["document"]["id"]))
    detail = await probe.get("read", "/zoek/" + quote(bare, safe=""), read_detail, headers=accept)
    document = detail["document"]
    titles = document.get("titelcollectie")
    probe.expect(isinstance(titles, dict) and isinstance(titles.get("officieleTitel"), str), "read: document",
                 "titelcollectie.officieleTitel is missing")
    probe.expect(isinstance(detail.get("versies"), list), "read", "versies is not a list")
    probe.check()
    await check_load(probe, plugin)


# How search and fetch (proxy.serving.crosssearch) reach this source.
SEARCH_ROUTE = SourceRoute("search_publications", "query", "id",
    ((re.compile(r"^[a-z]+-[0-9a-f-]{8,}$", re.IGNORECASE), "read_publication", "id"),),
    "ronl-da6e58c6… (an open.overheid.nl id)", organisation=True)


PLATFORM = PlatformPlugin(key="woo", tools=TOOLS,
                          measure_load=measure_load, canary=canary, search_route=SEARCH_ROUTE,
                          about=About(
    search_words=(
        ("woo", "publicatie", "openbaarmaking"),
        ("publication", "freedom of information", "foi", "disclosure")),
    documentation="https://open.overheid.nl", cannot=("the API is undocumented", "page sizes 10, 20 and 50 only"),
    quirks=("filter values are sent double URL-encoded", "whether totaal is exact is not documented"),
    cannot_nl=("de API is niet gedocumenteerd", "alleen paginagroottes 10, 20 en 50"),
    quirks_nl=("filterwaarden gaan dubbel URL-gecodeerd mee", "of totaal exact is, is niet gedocumenteerd")))
