"""Replica of the open.overheid.nl Woo JSON API for tests and `make run`.

Real service: the keyless API behind https://open.overheid.nl, base
`https://open.overheid.nl/overheid/openbaarmakingen/api/v0` (undocumented; the request and answer
shapes follow research §6 and client code that calls the live service). Served at the same paths:

* `GET /zoek`: `zoektekst` (every word must occur; ranked by occurrences, title first), `start`
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

Data: no real response was ever recorded, so nearly everything is generated from a fixed seed: 110
Woo decisions with their inventory lists and document bundles (linked both ways as "heeft bijlage"
/ "is bijlage van"), 120 other publications of 16 bodies, and one record quoted from a live answer
in client code (`eef2edec-…`, "Kaart Oudemolen 10km", the tools' example). The source is deliberately
**stalled**: the newest date of disclosure is 75 days before `anchor`, so the load status shows it.
One decision's title and description carry `<script>`/`<img onerror>` payloads.
"""

from __future__ import annotations

import hashlib
import random
import re
import uuid
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from functools import lru_cache
from typing import Any
from urllib.parse import unquote

from aiohttp import web

__all__ = ["KNOWN_ID", "PUBLICATIONS", "STALLED_DAYS", "Publication", "build_publications", "create_app"]

BASE_PATH = "/overheid/openbaarmakingen/api/v0"
PUBLICATIONS = web.AppKey("woo_publications", dict)
SEED = 20220501
STALLED_DAYS = 75
PAGE_SIZES = (10, 20, 50)
KERN = "https://identifier.overheid.nl/tooi/def/thes/kern/"
HAS_ATTACHMENT, IS_ATTACHMENT = KERN + "c_05f4a5f3", KERN + "c_4d1ea9ba"
KNOWN_ID = "eef2edec-019e-4085-8e2e-4d3f42686431"
XSS_TITLE = "Besluit op Woo-verzoek over <script>alert(1)</script> in zaaksystemen"
XSS_DESCRIPTION = "Besluit en inventarislijst <img src=x onerror=alert(1)> over zaaksystemen van de gemeente"

# label, TOOI type, TOOI id suffix, publishes to rijksoverheid.nl
BODIES = (
    ("ministerie van Landbouw, Visserij, Voedselzekerheid en Natuur", "Ministerie", "ministerie/mnre1153", True),
    ("ministerie van Binnenlandse Zaken en Koninkrijksrelaties", "Ministerie", "ministerie/mnre1034", True),
    ("ministerie van Infrastructuur en Waterstaat", "Ministerie", "ministerie/mnre1130", True),
    ("ministerie van Volksgezondheid, Welzijn en Sport", "Ministerie", "ministerie/mnre1025", True),
    ("ministerie van Justitie en Veiligheid", "Ministerie", "ministerie/mnre1058", True),
    ("ministerie van Financiën", "Ministerie", "ministerie/mnre1090", True),
    ("ministerie van Algemene Zaken", "Ministerie", "ministerie/mnre1010", True),
    ("ministerie van Onderwijs, Cultuur en Wetenschap", "Ministerie", "ministerie/mnre1109", True),
    ("gemeente Utrecht", "Gemeente", "gemeente/gm0344", False),
    ("gemeente Amsterdam", "Gemeente", "gemeente/gm0363", False),
    ("gemeente Zwolle", "Gemeente", "gemeente/gm0193", False),
    ("gemeente Groningen", "Gemeente", "gemeente/gm0014", False),
    ("provincie Gelderland", "Provincie", "provincie/pv25", False),
    ("provincie Utrecht", "Provincie", "provincie/pv26", False),
    ("waterschap Vallei en Veluwe", "Waterschap", "waterschap/ws0662", False),
    ("Rijkswaterstaat", "Agentschap", "organisatie/oorg10229", True),
)
# label, TOOI code
CATEGORIES = {
    "woo": ("Woo-verzoeken en -besluiten", "c_3baef532"),
    "advies": ("adviezen", "c_99a836c7"),
    "convenant": ("convenanten", "c_8fc2335c"),
    "onderzoek": ("onderzoeksrapporten", "c_fdaee95e"),
    "jaarplan": ("jaarplannen en jaarverslagen", "c_c76862ab"),
    "agenda": ("agenda’s en besluitenlijsten bestuurscolleges", "c_c6cd1213"),
    "vergader": ("vergaderstukken decentrale overheden", "c_89ee6784"),
    "beschikking": ("beschikkingen", "c_46a81018"),
    "klacht": ("klachtoordelen", "c_a870c43d"),
    "subsidie": ("subsidieverplichtingen anders dan met beschikking", "c_54ba9f9a"),
    "ontwerp": ("ontwerpen van wet- en regelgeving met adviesaanvraag", "c_759721e2"),
}
# category key → (document kind, title pattern, description pattern)
OTHER_KINDS = {
    "advies": ("advies", "Advies over {t}", "Advies van de adviescommissie over {t}."),
    "convenant": ("convenant", "Convenant over {t}", "Afspraken tussen partijen over {t}."),
    "onderzoek": ("rapport", "Onderzoeksrapport {t}", "Rapport van een extern onderzoek naar {t}."),
    "jaarplan": ("jaarverslag", "Jaarverslag met aandacht voor {t}", "Verantwoording over het afgelopen jaar."),
    "agenda": ("besluitenlijst", "Besluitenlijst college over {t}", "Besluitenlijst van de collegevergadering."),
    "vergader": ("vergaderstuk", "Raadsvoorstel over {t}", "Voorstel aan de raad over {t}."),
    "beschikking": ("beschikking", "Beschikking inzake {t}", "Beschikking op een aanvraag over {t}."),
    "klacht": ("klachtoordeel", "Klachtoordeel over {t}", "Oordeel op een klacht over {t}."),
    "subsidie": ("subsidieverplichting", "Subsidie voor {t}", "Subsidieverplichting aangegaan voor {t}."),
}
TOPICS = ("stikstofdepositie rond Natura 2000-gebieden", "de opvang van asielzoekers", "windturbines op land",
          "de coronamaatregelen in 2021", "geluidshinder rond Schiphol", "de herstelregeling toeslagen",
          "de vaccinatiecampagne", "PFAS-lozingen", "gaswinning in Groningen", "Lelystad Airport",
          "jeugdzorg in de regio", "de aanbesteding van het openbaar vervoer", "cameratoezicht in de binnenstad",
          "de huisvesting van statushouders", "subsidies voor culturele instellingen", "het klimaatakkoord",
          "de sluiting van een zwembad", "de herinrichting van een kruispunt", "de eikenprocessierups",
          "drugsoverlast", "energiearmoede", "verduurzaming van maatschappelijk vastgoed",
          "de uitbreiding van een bedrijventerrein", "hoogwaterbescherming", "cybersecurity van systemen")
THEMES = ("natuur en milieu", "migratie en integratie", "ruimte en infrastructuur", "zorg en gezondheid", "bestuur",
          "openbare orde en veiligheid", "financiën", "economie", "verkeer", "onderwijs en wetenschap", "cultuur en "
          "recreatie", "sociale zekerheid")


@dataclass
class Publication:
    """One publication (a 'document' in the platform's words) with its files and relations."""

    id: str
    title: str
    description: str
    body: tuple[str, str, str, bool]
    category: str
    kind: str
    theme: str
    published: date
    created: date
    modified: datetime
    version: int
    pages: int
    size: int
    relations: list[tuple[str, str]] = field(default_factory=list)  # (role, other id)
    web_location: str | None = None

    @property
    def pid(self) -> str:
        return f"https://open.overheid.nl/documenten/{self.id}"

    @property
    def search_text(self) -> str:
        return f"{self.title} {self.description} {self.body[0]} {self.kind}".lower()


# --------------------------------------------------------------------------- data


class _Gen:
    def __init__(self, anchor: date) -> None:
        self.anchor = anchor
        self.rng = random.Random(SEED)
        self.out: list[Publication] = []

    def new_id(self, body: tuple[str, str, str, bool]) -> str:
        style = self.rng.random()
        if body[3] and style < 0.35:
            return "ronl-" + uuid.UUID(int=self.rng.getrandbits(128)).hex
        if style < 0.7:
            return "oep-" + hashlib.sha1(str(self.rng.getrandbits(64)).encode()).hexdigest()
        return str(uuid.UUID(int=self.rng.getrandbits(128), version=4))

    def day(self) -> date:
        newest = self.anchor - timedelta(days=STALLED_DAYS)
        return newest - timedelta(days=int(650 * self.rng.random() ** 1.5))

    def make(self, body: tuple[str, str, str, bool], category: str, kind: str, title: str, description: str,
             published: date, theme: str) -> Publication:
        modified = datetime.combine(published, datetime.min.time()) + timedelta(
            hours=self.rng.randint(7, 18), minutes=self.rng.randint(0, 59), seconds=self.rng.randint(0, 59))
        pub = Publication(
            id=self.new_id(body), title=title, description=description, body=body, category=category, kind=kind,
            theme=theme, published=published, created=published - timedelta(days=self.rng.randint(0, 20)),
            modified=modified, version=2 if self.rng.random() < 0.1 else 1, pages=self.rng.randint(1, 240),
            size=self.rng.randint(60_000, 9_000_000))
        if body[3]:
            pub.web_location = (f"https://www.rijksoverheid.nl/documenten/{kind}en/{published:%Y/%m/%d}/"
                                f"{re.sub(r'[^a-z0-9]+', '-', title.lower()).strip('-')[:60]}")
        self.out.append(pub)
        return pub

    def decisions(self) -> None:
        for n in range(110):
            body = self.rng.choice(BODIES)
            topic = self.rng.choice(TOPICS)
            published = self.day()
            theme = self.rng.choice(THEMES)
            title, description = f"Besluit op Woo-verzoek over {topic}", f"Besluit en inventarislijst over {topic}"
            if n == 7:
                body, published, topic = BODIES[8], self.anchor - timedelta(days=STALLED_DAYS + 3), "zaaksystemen"
                title, description = XSS_TITLE, XSS_DESCRIPTION
            main = self.make(body, "woo", "besluit", title, description, published, theme)
            parts = [("inventarislijst", f"Inventarislijst bij Woo-besluit over {topic}",
                      f"Inventarislijst van de documenten over {topic}")]
            parts += [("bijlage", f"Documenten deel {k} bij Woo-besluit over {topic}",
                       f"Openbaar gemaakte documenten over {topic}, deel {k}")
                      for k in range(1, self.rng.randint(1, 4))]
            for kind, part_title, part_description in parts:
                part = self.make(body, "woo", kind, part_title, part_description, published, theme)
                main.relations.append((HAS_ATTACHMENT, part.id))
                part.relations.append((IS_ATTACHMENT, main.id))

    def others(self) -> None:
        keys = list(OTHER_KINDS)
        for _ in range(120):
            key = self.rng.choice(keys)
            kind, title, description = OTHER_KINDS[key]
            body = self.rng.choice(BODIES)
            if key in ("agenda", "vergader") and body[1] == "Ministerie":
                body = self.rng.choice(BODIES[8:15])
            topic = self.rng.choice(TOPICS)
            self.make(body, key, kind, title.format(t=topic), description.format(t=topic), self.day(),
                      self.rng.choice(THEMES))


    def known(self) -> None:
        """A publication quoted from a live answer in client code (berthubert/tkconv), used as the example."""
        published = min(date(2026, 3, 21), self.anchor - timedelta(days=STALLED_DAYS))
        pub = self.make(BODIES[0], "ontwerp", "kaart", "Kaart Oudemolen 10km",
                        "Deze kaart toont het vervoersbeperkingsgebied 10 km in verband met een besmetting "
                        "vogelgriep op een locatie in Oudemolen.", published, "natuur en milieu")
        pub.id, pub.pages, pub.size, pub.version, pub.web_location = KNOWN_ID, 1, 985738, 1, None
        pub.relations.append((IS_ATTACHMENT, "b2e91e90-a433-4985-91ed-5c1bffbc72a4"))


@lru_cache(maxsize=4)
def build_publications(anchor: date) -> dict[str, Publication]:
    """Every publication by id (deterministic for an anchor)."""
    gen = _Gen(anchor)
    gen.decisions()
    gen.others()
    gen.known()
    return {p.id: p for p in gen.out}


# --------------------------------------------------------------------------- HTTP


def create_app(anchor: date) -> web.Application:
    app = web.Application()
    app[PUBLICATIONS] = build_publications(anchor)
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


def _facet(pub: Publication, name: str) -> str:
    return {"documentsoort": pub.kind, "informatiecategorie": CATEGORIES[pub.category][0], "thema": pub.theme,
            "organisatie": pub.body[0]}[name]


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
    words = [w for w in q.get("zoektekst", "").lower().split() if w]
    # The site double-encodes filter values; aiohttp decoded once, so decode once more.
    filters = {name: {unquote(v).lower() for v in q.getall(name, [])}
               for name in ("documentsoort", "informatiecategorie", "thema", "organisatie") if name in q}

    def keep(p: Publication) -> bool:
        if (isinstance(low, date) and p.published < low) or (isinstance(high, date) and p.published > high):
            return False
        if any(_facet(p, name).lower() not in values for name, values in filters.items()):
            return False
        return all(w in p.search_text for w in words)

    found = [p for p in request.app[PUBLICATIONS].values() if keep(p)]
    if sort == "publicatiedatum":
        found.sort(key=lambda p: (p.published, p.modified, p.id), reverse=q.get("order") != "asc")
    elif sort == "laatst-gewijzigd":
        found.sort(key=lambda p: (p.modified, p.id), reverse=True)
    elif words:
        found.sort(key=lambda p: (-sum(3 * p.title.lower().count(w) + p.search_text.count(w) for w in words),
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
        counts[_facet(p, name)] = counts.get(_facet(p, name), 0) + 1
    return [{"naam": k, "aantal": v} for k, v in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]


def _highlight(p: Publication, words: list[str]) -> str | None:
    if not words:
        return None
    text = f"{p.title}. {p.description}"
    for w in words:
        text = re.sub(re.escape(w), lambda m: f"<b>{m.group(0)}</b>", text, flags=re.IGNORECASE)
    return f"… {text} …"


def _hit(p: Publication, words: list[str]) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "id": f"{p.id}_{p.version}", "pid": p.pid, "titel": p.title, "omschrijving": p.description,
        "openbaarmakingsdatum": p.published.isoformat(), "publisher": p.body[0], "aanbieder": "Aanleverloket",
        "mutatiedatumtijd": f"{p.modified:%Y-%m-%dT%H:%M:%S}.{p.size % 1000:03d}Z"}
    if p.web_location:
        doc["weblocatie"] = p.web_location
    hit: dict[str, Any] = {"document": doc, "bestandsgrootte": f"{p.size / 1_048_576:.2f} MB",
                           "aantalPaginas": p.pages, "bestandsType": "application/pdf"}
    highlighted = _highlight(p, words)
    if highlighted:
        hit["highlightedText"] = highlighted
    return hit


async def _detail(request: web.Request) -> web.Response:
    pub = request.app[PUBLICATIONS].get(request.match_info["id"])
    if pub is None:
        return _bad(f"Document {request.match_info['id']} niet gevonden", status=404)
    body_label, body_type, body_id, _ = pub.body
    body = {"type": f"overheid:{body_type}", "id": f"https://identifier.overheid.nl/tooi/id/{body_id}",
            "label": body_label}
    category, code = CATEGORIES[pub.category]
    versions = []
    for n in range(1, pub.version + 1):
        stamp = pub.modified + timedelta(days=30 * (n - 1))
        versions.append({
            "nummer": n, "oorzaak": "aanlevering" if n == 1 else "correctie",
            "openbaarmakingsdatum": (pub.published + timedelta(days=30 * (n - 1))).isoformat(),
            "mutatiedatumtijd": f"{stamp:%Y-%m-%dT%H:%M:%S}.{pub.size % 997:03d}641713Z", "blokkades": [],
            "bestanden": [{
                "id": f"{pub.pid}/file", "gepubliceerd": True, "label": "file", "mime-type": "application/pdf",
                "bestandsnaam": re.sub(r"[^A-Za-z0-9]+", "_", pub.title)[:60].strip("_") + ".pdf",
                "mutatiedatumtijd": f"{stamp:%Y-%m-%dT%H:%M:%S}.515964209Z", "grootte": pub.size,
                "paginas": pub.pages, "hash": hashlib.sha1(f"{pub.id}{n}".encode()).hexdigest()}]})
    document: dict[str, Any] = {
        "pid": pub.pid, "identifiers": ["nvt"], "verantwoordelijke": body, "medeverantwoordelijken": [],
        "publisher": body, "opsteller": {"id": "https://identifier.overheid.nl/tooi/id/organisatie_onbekend",
                                         "label": "Onbekend"},
        "language": {"type": "eu:Taal", "id": "http://publications.europa.eu/resource/authority/language/NLD",
                     "label": "Nederlands"},
        "onderwerpen": [], "omschrijvingen": [pub.description],
        "titelcollectie": {"officieleTitel": pub.title, "verkorteTitels": [], "alternatieveTitels": []},
        "classificatiecollectie": {
            "documentsoorten": [{"type": "overheid:Informatietype", "id": f"{KERN}c_{pub.kind[:8]}",
                                 "label": pub.kind}],
            "themas": [{"id": f"https://identifier.overheid.nl/tooi/def/thes/top/{pub.theme[:6]}", "label": pub.theme}],
            "informatiecategorieen": [{"type": "woo:Informatiecategorie", "id": KERN + code, "label": category}],
            "trefwoorden": [], "wooinformatiecategorie": []},
        "creatiedatum": pub.created.isoformat(), "hasParts": [],
        "documenthandelingen": [{"soortHandeling": {"id": KERN + "c_641ecd76", "label": "vaststelling"},
                                 "atTime": f"{pub.modified:%Y-%m-%dT%H:%M:%S}.961Z", "wasAssociatedWith": body}],
        "extraMetadata": [], "publicatiebestemming": ["rijksoverheid.nl"] if pub.web_location else [],
        "mutatiedatumtijd": versions[-1]["mutatiedatumtijd"]}
    if pub.web_location:
        document["weblocatie"] = pub.web_location
    return web.json_response({
        "document": document,
        "plooiIntern": {"dcnId": pub.id if pub.id.startswith(("oep-", "ronl-")) else f"plooi-api-{pub.id}",
                        "aanbieder": "Aanleverloket", "extId": [pub.id], "sourceLabel": "plooi-api",
                        "publicatiestatus": "gepubliceerd"},
        "documentrelaties": [{"relation": f"https://open.overheid.nl/documenten/{other}", "role": role}
                             for role, other in pub.relations],
        "versies": versions,
    })


async def _file(request: web.Request) -> web.Response:
    if request.match_info["id"] not in request.app[PUBLICATIONS]:
        return _bad("Document niet gevonden", status=404)
    return web.Response(body=b"%PDF-1.4\n% open.overheid.nl replica\n%%EOF\n", content_type="application/pdf")
