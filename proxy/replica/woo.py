"""Replica of the open.overheid.nl Woo JSON API for tests and `make run`.

Real service: the keyless API behind https://open.overheid.nl, base
`https://open.overheid.nl/overheid/openbaarmakingen/api/v0` (undocumented; the request and answer
shapes follow research §6 and client code that calls the live service). Served at the same paths:

* `GET /zoek`: `zoektekst` (every word must occur, case and accents ignored as PLOOI's Solr schema folds them;
  ranked by occurrences, title first), `start`
  (offset), `aantalResultaten` (only 10, 20 or 50; anything else is 400 `{"detail": …}`), `sort`
  (`publicatiedatum`, newest first unless `order=asc`; `laatst-gewijzigd`), `publicatiedatumVan` /
  `publicatiedatumTot` (DD-MM-YYYY, inclusive) and the filters `documentsoort`,
  `informatiecategorie`, `thema`, `organisatie`, whose values arrive double URL-encoded and are
  decoded twice (case-insensitive exact labels). Unknown parameters (`zoekterm=`) are ignored, as on
  the real site. Answer: `{"totaal", "resultaten": [{"document": {…}, "bestandsgrootte",
  "aantalPaginas", "bestandsType", "highlightedText"}], "filters": {…}}`; hit ids carry `_<version>`.
* `GET /zoek/{id}`: the detail document (`document`, `plooiIntern`, `documentrelaties`,
  `versies`); only the bare id resolves, a suffixed or unknown id is 404 `{"detail": …}`.
* `GET /documenten/{id}`: a small PDF.

Data (provenance in `data/woo/SOURCES.md`). No recorded response of this API is in public material, so:

* `plooi_ronl_documents.json`: twelve real publications as the platform's own normaliser builds them
  (MinBZK/woo-besluit-broncode-PLOOI, the open.overheid.nl back end) from real rijksoverheid.nl records:
  the `document` and `plooiIntern` objects, their relations and files, as that code's tests record them.
* `tkconv_quoted_answer.json`: one real live answer (search hit and detail of `eef2edec-…`, "Kaart
  Oudemolen 10km", March 2026), quoted in a comment of berthubert/tkconv; the tools' example.

What rests on documentation only (the quoted answer and research §6), not on a recording: how a
normalised document becomes a search hit (`id` = dcnId + `_1`, `titel`, `omschrijving`, `publisher` =
the publisher's label, `openbaarmakingsdatum`, `aanbieder`), that a PLOOI document without a version
list is published on its `geldigheid.begindatum` (its `versies` here hold that date and its recorded
files), which field the `organisatie` facet counts (here the `verantwoordelijke`), the page sizes and
the double encoding. One made-up record, marked "Voorbeeld" in its title, carries `<script>`/`<img
onerror>` payloads for the inertness test.
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass, field
from datetime import date, datetime
from functools import lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from aiohttp import web

from proxy.replica.provenance import Provenance, tally

__all__ = ["KNOWN_ID", "PUBLICATIONS", "RECORDED_ON", "XSS_TITLE", "Publication", "build_publications",
           "create_app", "provenance"]

DATA = Path(__file__).resolve().parent / "data" / "woo"
BASE_PATH = "/overheid/openbaarmakingen/api/v0"
PUBLICATIONS = web.AppKey("woo_publications", dict)
PAGE_SIZES = (10, 20, 50)
DOCUMENT_PAGE = "https://open.overheid.nl/documenten/"
KNOWN_ID = "eef2edec-019e-4085-8e2e-4d3f42686431"
# The newest recording behind this sample: the live answer quoted in tkconv (March 2026).
RECORDED_ON = "2026-03-21"
XSS_TITLE = "Voorbeeld (geen echte publicatie): Besluit op Woo-verzoek over <script>alert(1)</script> in zaaksystemen"
XSS_DESCRIPTION = "Besluit en inventarislijst <img src=x onerror=alert(1)> over zaaksystemen van de gemeente"
SAMPLE_WHY = "script/img payloads for the inertness test; no real record carries them (title says 'Voorbeeld')"


def fold(text: str) -> str:
    """Lower case without accents, as the platform's Solr text fields index (LowerCase and ASCIIFolding filters in
    PLOOI's schema.xml)."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


@dataclass
class Publication:
    """One publication (a 'document' in the platform's words): its detail answer and what search reads from it."""

    id: str
    detail: dict[str, Any]
    published: date
    origin: str = ""  # the data file it comes from; "" for the made-up sample
    hit_document: dict[str, Any] = field(default_factory=dict)  # a recorded search hit's document, if any
    hit_extra: dict[str, Any] = field(default_factory=dict)  # bestandsgrootte, aantalPaginas, bestandsType

    @property
    def document(self) -> dict[str, Any]:
        document: dict[str, Any] = self.detail["document"]
        return document

    @property
    def pid(self) -> str:
        return str(self.document.get("pid") or DOCUMENT_PAGE + self.id)

    @property
    def title(self) -> str:
        return str((self.document.get("titelcollectie") or {}).get("officieleTitel") or self.id)

    @property
    def description(self) -> str:
        return " ".join(str(d) for d in self.document.get("omschrijvingen") or [])

    def labels(self, key: str) -> list[str]:
        return [str(i["label"]) for i in (self.document.get("classificatiecollectie") or {}).get(key) or []
                if isinstance(i, dict) and i.get("label")]

    def party(self, role: str) -> str:
        return str((self.document.get(role) or {}).get("label") or "")

    @property
    def modified(self) -> str:
        return str(self.hit_document.get("mutatiedatumtijd") or self.document.get("mutatiedatumtijd") or "")

    @property
    def search_text(self) -> str:
        return fold(" ".join([self.title, self.description, self.party("verantwoordelijke"),
                              *self.labels("documentsoorten")]))


# --------------------------------------------------------------------------- data


def _url(relation: str) -> str:
    return relation if relation.startswith("http") else DOCUMENT_PAGE + relation


def _relations(raw: Any) -> list[dict[str, Any]]:
    """The recorded relations as a list, each `relation` a full link (PLOOI's tests also write bare ids)."""
    rows = raw.get("documentrelaties") if isinstance(raw, dict) else raw
    return [{**r, "relation": _url(str(r["relation"]))} for r in rows or [] if isinstance(r, dict)]


def _ronl() -> list[Publication]:
    name = "plooi_ronl_documents.json"
    out = []
    for row in json.loads((DATA / name).read_text(encoding="utf-8"))["records"]:
        document = row["document"]
        published = date.fromisoformat(str((document.get("geldigheid") or {}).get("begindatum")
                                           or document["creatiedatum"])[:10])
        files = [{**f, "id": f.get("url") or f.get("id")} for f in row.get("bestanden") or []]
        detail = {"document": document, "plooiIntern": row["plooiIntern"],
                  "documentrelaties": _relations(row.get("documentrelaties")),
                  "versies": [{"nummer": 1, "openbaarmakingsdatum": published.isoformat(), "bestanden": files}]}
        out.append(Publication(id=row["plooiIntern"]["dcnId"], detail=detail, published=published, origin=name))
    return out


def _quoted() -> Publication:
    name = "tkconv_quoted_answer.json"
    data = json.loads((DATA / name).read_text(encoding="utf-8"))
    hit = data["hit"]
    return Publication(id=KNOWN_ID, detail=data["detail"], origin=name, hit_document=hit["document"],
                       published=date.fromisoformat(hit["document"]["openbaarmakingsdatum"]),
                       hit_extra={k: v for k, v in hit.items() if k != "document"})


def _sample() -> Publication:
    """The one made-up record, marked as a sample in its title."""
    body = {"type": "overheid:Gemeente", "id": "https://identifier.overheid.nl/tooi/id/gemeente/gm0513",
            "label": "gemeente Gouda"}
    document = {"pid": DOCUMENT_PAGE + "voorbeeld-0000-woo-xss", "verantwoordelijke": body, "publisher": body,
                "omschrijvingen": [XSS_DESCRIPTION], "titelcollectie": {"officieleTitel": XSS_TITLE},
                "classificatiecollectie": {"documentsoorten": [{"label": "besluit"}]}}
    detail = {"document": document, "plooiIntern": {"dcnId": "voorbeeld-0000-woo-xss"}, "documentrelaties": [],
              "versies": [{"nummer": 1, "openbaarmakingsdatum": "2024-01-15", "bestanden": []}]}
    return Publication(id="voorbeeld-0000-woo-xss", detail=detail, published=date(2024, 1, 15))


@lru_cache(maxsize=4)
def build_publications(anchor: date, *, fixtures: bool = False) -> dict[str, Publication]:
    """Every publication by id (real dates: the anchor changes nothing); the test fixture when asked for."""
    return {p.id: p for p in [*_ronl(), _quoted(), *([_sample()] if fixtures else [])]}


def provenance(anchor: date, *, fixtures: bool = False) -> Provenance:
    """Served publications counted by the data file each comes from; the sample named."""
    counts: dict[str, int] = {}
    invented: list[str] = []
    for pub in build_publications(anchor, fixtures=fixtures).values():
        if pub.origin:
            counts[pub.origin] = counts.get(pub.origin, 0) + 1
        else:
            invented.append(f"{pub.id}: {SAMPLE_WHY}")
    real = [p for p in build_publications(anchor, fixtures=fixtures).values() if p.origin]
    holds = tally(f"from {(p.document.get('verantwoordelijke') or {}).get('label', '?')}" for p in real)
    return Provenance(recorded=counts, invented=tuple(invented), recorded_on=RECORDED_ON, holds=holds)


# --------------------------------------------------------------------------- HTTP


def create_app(anchor: date, *, fixtures: bool = False) -> web.Application:
    app = web.Application()
    app[PUBLICATIONS] = build_publications(anchor, fixtures=fixtures)
    app.router.add_get(BASE_PATH + "/zoek", _search)
    app.router.add_get(BASE_PATH + "/zoek/{id}", _detail)
    app.router.add_get(BASE_PATH + "/documenten/{id}", _file)
    return app


def _bad(detail: str, status: int = 400) -> web.Response:
    return web.json_response({"detail": detail}, status=status)


def _dutch_date(value: str | None, name: str) -> date | str | None:
    if value in (None, ""):
        return None
    try:
        return datetime.strptime(str(value), "%d-%m-%Y").date()
    except ValueError:
        return f"{name} moet de vorm dd-mm-jjjj hebben, niet {value!r}"


def _facets(pub: Publication, name: str) -> list[str]:
    """The facet values of a publication; `organisatie` counts the responsible body (documentation only)."""
    if name == "organisatie":
        return [pub.party("verantwoordelijke")] if pub.party("verantwoordelijke") else []
    return pub.labels({"documentsoort": "documentsoorten", "informatiecategorie": "informatiecategorieen",
                       "thema": "themas"}[name])


async def _search(request: web.Request) -> web.Response:
    q = request.query
    size = q.get("aantalResultaten", "10")
    if size not in {str(s) for s in PAGE_SIZES}:
        return _bad(f"aantalResultaten moet 10, 20 of 50 zijn, niet {size!r}")
    if not q.get("start", "0").isdigit():
        return _bad("start moet een niet-negatief geheel getal zijn")
    sort = q.get("sort")
    if sort not in (None, "publicatiedatum", "laatst-gewijzigd"):
        return _bad(f"onbekende sortering {sort!r}")
    low, high = _dutch_date(q.get("publicatiedatumVan"), "publicatiedatumVan"), \
        _dutch_date(q.get("publicatiedatumTot"), "publicatiedatumTot")
    for checked in (low, high):
        if isinstance(checked, str):
            return _bad(checked)
    words = [w for w in fold(q.get("zoektekst", "")).split() if w]
    # The site double-encodes filter values; aiohttp decoded once, so decode once more.
    filters = {name: {unquote(v).lower() for v in q.getall(name, [])}
               for name in ("documentsoort", "informatiecategorie", "thema", "organisatie") if name in q}

    def keep(p: Publication) -> bool:
        if (isinstance(low, date) and p.published < low) or (isinstance(high, date) and p.published > high):
            return False
        if any(not {v.lower() for v in _facets(p, name)} & values for name, values in filters.items()):
            return False
        return all(w in p.search_text for w in words)

    found = [p for p in request.app[PUBLICATIONS].values() if keep(p)]
    if sort == "publicatiedatum":
        found.sort(key=lambda p: (p.published, p.modified, p.id), reverse=q.get("order") != "asc")
    elif sort == "laatst-gewijzigd":
        found.sort(key=lambda p: (p.modified, p.id), reverse=True)
    elif words:
        found.sort(key=lambda p: (-sum(3 * fold(p.title).count(w) + p.search_text.count(w) for w in words),
                                  -p.published.toordinal(), p.id))
    else:
        found.sort(key=lambda p: (p.published, p.id), reverse=True)
    start = int(q.get("start", "0"))
    facets = {name: _counts(found, name) for name in ("documentsoort", "informatiecategorie", "thema", "organisatie")}
    return web.json_response({
        "totaal": len(found),
        "resultaten": [_hit(p, words) for p in found[start:start + int(size)]],
        "filters": facets,
    })


def _counts(found: list[Publication], name: str) -> list[dict[str, Any]]:
    counts: dict[str, int] = {}
    for p in found:
        for value in _facets(p, name):
            counts[value] = counts.get(value, 0) + 1
    return [{"naam": k, "aantal": v} for k, v in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]


def _highlight(p: Publication, words: list[str]) -> str | None:
    if not words:
        return None
    text = f"{p.title}. {p.description}"
    for w in words:
        text = re.sub(re.escape(w), lambda m: f"<b>{m.group(0)}</b>", text, flags=re.IGNORECASE)
    return f"… {text} …"


def _hit(p: Publication, words: list[str]) -> dict[str, Any]:
    """A search hit: the recorded one where there is one, else read from the document as the quoted hit shows."""
    doc = dict(p.hit_document) or {
        "id": f"{p.id}_1", "pid": p.pid, "titel": p.title, "omschrijving": p.description or None,
        "openbaarmakingsdatum": p.published.isoformat(), "publisher": p.party("publisher") or None,
        "aanbieder": (p.detail.get("plooiIntern") or {}).get("aanbieder")}
    doc = {k: v for k, v in doc.items() if v is not None}
    hit: dict[str, Any] = {"document": doc, **p.hit_extra}
    files = [f for f in p.detail["versies"][-1]["bestanden"] if f.get("gepubliceerd") is not False]
    if files and "bestandsType" not in hit:
        hit["bestandsType"] = files[0].get("mime-type")
    highlighted = _highlight(p, words)
    if highlighted:
        hit["highlightedText"] = highlighted
    return hit


async def _detail(request: web.Request) -> web.Response:
    pub = request.app[PUBLICATIONS].get(request.match_info["id"])
    if pub is None:
        return _bad(f"Document {request.match_info['id']} niet gevonden", status=404)
    return web.json_response(pub.detail)


async def _file(request: web.Request) -> web.Response:
    if request.match_info["id"] not in request.app[PUBLICATIONS]:
        return _bad("Document niet gevonden", status=404)
    return web.Response(body=b"%PDF-1.4\n% open.overheid.nl replica\n%%EOF\n", content_type="application/pdf")
