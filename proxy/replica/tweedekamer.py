"""Replica of the Tweede Kamer Gegevensmagazijn (OData v4 JSON) for tests and `make run`.

Real service: https://gegevensmagazijn.tweedekamer.nl/OData/v4/2.0 (docs:
https://opendata.tweedekamer.nl/documentatie/odata-api). Served at the same paths under
`/OData/v4/2.0`:

* `GET /{Set}`: a collection with `$filter`, `$select`, `$expand` (nested options), `$orderby`,
  `$top`, `$skip`, `$count`, `$skiptoken` (the engine in `proxy/replica/_odata.py` documents the
  exact subset). At most 250 entities per answer; without `$top` a longer result ends in
  `@odata.nextLink` with `$skiptoken=Id-<guid>`, with `$top` it is simply cut (TK issue #70).
* `GET /{Set}({guid})`, `GET /{Set}/$count`, `GET /Document({guid})/resource` (a small PDF).
* Unknown `$` options, bad syntax, unknown properties and type clashes answer HTTP 400 with
  `{"error": {"code": "", "message": "The query specified in the URI is not valid. …"}}`; a
  `guid'…'` key is a 400; other (non-`$`) parameters are ignored, as the real service ignores them.

Entity sets: Document, DocumentActor, Zaak, Besluit, Stemming, Agendapunt, Activiteit, Persoon,
Fractie, FractieZetel, FractieZetelPersoon. The data is generated from a fixed seed around
`anchor` (today) and seeded with the real records in `proxy/replica/data/tweedekamer/`: about
150 sitting and 60 former members, 15 parties (plus 5 former ones), 300 cases, 380 documents, 2,600
votes (one roll call) and 120 activities, of which about half lie in the coming 30 days. Case
2026Z15738 with documents 2026D35294/5 mirrors a letter on the public site (the tools' example).
The source looks current: the newest document change is on the anchor day. One motion carries
`<script>`/`<img onerror>` payloads in its subject, for the site's inertness test.

Constraints and quirks of the real service, and what each rests on:

* a `$filter` over the validator's node limit is HTTP 400 "The node count limit of '100' has been
  exceeded" (documentation only: TK OpenDataPortaal issue #187 measured 19 or-clauses passing and
  20 failing; the engine's node weights are calibrated to that, see `_odata.MAX_NODE_COUNT`);
* every entity set holds soft-deleted rows (`Verwijderd: true`), a third of each set, that keep the
  fields and links of the row they replaced (documentation only: the findings count 127 deleted rows
  in a recorded page of 250 Documents; that page itself is not in our fixtures);
* each decision (Besluit) hangs off an agenda item (Agendapunt) of that day's "Stemmingen" meeting
  (recorded: the `Stemming(Besluit(Agendapunt(Zaak())))` expansion in `data/tweedekamer/`);
* all-null Persoon rows with `Verwijderd: null` (recorded: `Persoon_top3.json`).
"""

from __future__ import annotations

import json
import random
import re
import uuid
from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta
from functools import lru_cache
from pathlib import Path
from typing import Any

from aiohttp import web

from proxy.replica._odata import (
    EntityType,
    ODataError,
    Store,
    many_back,
    many_link,
    one,
    query_collection,
    query_count,
    query_entity,
)

__all__ = ["BASE_PATH", "STORE", "build_store", "create_app"]

BASE_PATH = "/OData/v4/2.0"
STORE = web.AppKey("tweedekamer_store", Store)
DATA = Path(__file__).parent / "data" / "tweedekamer"
SEED = 20260705
JSON_TYPE = "application/json; odata.metadata=minimal; odata.streaming=true; charset=utf-8"
XSS_SUBJECT = ("Motie van het lid Veldman over <script>alert(1)</script> en <img src=x onerror=alert(1)> "
               "in webformulieren van de overheid")
Row = dict[str, Any]


# --------------------------------------------------------------------------- HTTP


def create_app(anchor: date) -> web.Application:
    app = web.Application()
    app[STORE] = build_store(anchor)
    app.router.add_get(BASE_PATH, _service_document)
    app.router.add_get(BASE_PATH + "/", _service_document)
    app.router.add_get(BASE_PATH + "/{resource:.+}", _resource)
    return app


def _base(request: web.Request) -> str:
    path = request.path
    return f"{request.url.origin()}{path[:path.index(BASE_PATH) + len(BASE_PATH)]}"


def _json(body: Any, status: int = 200) -> web.Response:
    return web.Response(status=status, body=json.dumps(body, ensure_ascii=False).encode(),
                        headers={"Content-Type": JSON_TYPE, "OData-Version": "4.0"})


async def _service_document(request: web.Request) -> web.Response:
    store = request.app[STORE]
    return _json({"@odata.context": f"{_base(request)}/$metadata",
                  "value": [{"name": n, "kind": "EntitySet", "url": n} for n in store.types]})


async def _resource(request: web.Request) -> web.StreamResponse:
    store = request.app[STORE]
    resource = request.match_info["resource"]
    query: dict[str, list[str]] = {}
    for key, value in request.query.items():
        query.setdefault(key, []).append(value)
    try:
        if m := re.fullmatch(r"([A-Za-z]+)", resource):
            return _json(query_collection(store, m.group(1), query, base=_base(request)))
        if m := re.fullmatch(r"([A-Za-z]+)/\$count", resource):
            return web.Response(text=str(query_count(store, m.group(1), query)), content_type="text/plain")
        if m := re.fullmatch(r"([A-Za-z]+)\((.+)\)", resource):
            return _json(query_entity(store, m.group(1), m.group(2), query, base=_base(request)))
        if m := re.fullmatch(r"Document\((.+)\)/resource", resource):
            query_entity(store, "Document", m.group(1), {}, base="")
            return web.Response(body=_pdf(m.group(1)), content_type="application/pdf")
        raise ODataError(f"No HTTP resource was found that matches the request URI '{request.url}'.", status=404)
    except ODataError as exc:
        return _json({"error": {"code": "", "message": str(exc)}}, status=exc.status)


def _pdf(name: str) -> bytes:
    return (b"%PDF-1.4\n1 0 obj<</Type/Catalog>>endobj\n% Gegevensmagazijn replica document " + name.encode()
            + b"\ntrailer<</Root 1 0 R>>\n%%EOF\n")


# --------------------------------------------------------------------------- entity model

DTO, STR, INT, BOOL, GUID, DATE = "dto", "str", "int", "bool", "guid", "date"
CHANGE = {"GewijzigdOp": DTO, "ApiGewijzigdOp": DTO, "Verwijderd": BOOL}

TYPES = (
    EntityType("Document", {
        "Id": GUID, "Soort": STR, "DocumentNummer": STR, "Titel": STR, "Onderwerp": STR, "Datum": DTO,
        "Volgnummer": INT, "Afzender": STR, "Vergaderjaar": STR, "Kamer": INT, "Citeertitel": STR, "Alias": STR,
        "DatumRegistratie": DTO, "DatumOntvangst": DTO, "Aanhangselnummer": STR, "KenmerkAfzender": STR,
        "Organisatie": STR, "ContentType": STR, "ContentLength": INT, "HuidigeDocumentVersie_Id": GUID, **CHANGE,
    }, {"Zaak": many_link("Zaak", "document_zaak"), "DocumentActor": many_back("DocumentActor", "Document_Id")}),
    EntityType("DocumentActor", {
        "Id": GUID, "ActorNaam": STR, "ActorFractie": STR, "Functie": STR, "Relatie": STR, "SidActor": STR,
        "Document_Id": GUID, "Persoon_Id": GUID, "Fractie_Id": GUID, "Commissie_Id": GUID, **CHANGE,
    }, {"Document": one("Document", "Document_Id"), "Persoon": one("Persoon", "Persoon_Id"),
        "Fractie": one("Fractie", "Fractie_Id")}),
    EntityType("Zaak", {
        "Id": GUID, "Nummer": STR, "Soort": STR, "Titel": STR, "Citeertitel": STR, "Alias": STR, "Status": STR,
        "Onderwerp": STR, "GestartOp": DTO, "Organisatie": STR, "Grondslagvoorhang": STR, "Termijn": DTO,
        "Vergaderjaar": STR, "Volgnummer": INT, "HuidigeBehandelstatus": STR, "Afgedaan": BOOL,
        "GrootProject": BOOL, **CHANGE, "Kabinetsappreciatie": STR,
    }, {"Document": many_link("Document", "zaak_document"), "Besluit": many_link("Besluit", "zaak_besluit"),
        "Agendapunt": many_link("Agendapunt", "zaak_agendapunt")}),
    EntityType("Besluit", {
        "Id": GUID, "Agendapunt_Id": GUID, "StemmingsSoort": STR, "BesluitSoort": STR, "BesluitTekst": STR,
        "Opmerking": STR, "Status": STR, "AgendapuntZaakBesluitVolgorde": INT, **CHANGE,
    }, {"Agendapunt": one("Agendapunt", "Agendapunt_Id"), "Stemming": many_back("Stemming", "Besluit_Id"),
        "Zaak": many_link("Zaak", "besluit_zaak")}),
    EntityType("Stemming", {
        "Id": GUID, "Besluit_Id": GUID, "Soort": STR, "FractieGrootte": INT, "ActorNaam": STR, "ActorFractie": STR,
        "Vergissing": BOOL, "SidActorLid": STR, "SidActorFractie": STR, "Persoon_Id": GUID, "Fractie_Id": GUID,
        **CHANGE,
    }, {"Besluit": one("Besluit", "Besluit_Id"), "Fractie": one("Fractie", "Fractie_Id"),
        "Persoon": one("Persoon", "Persoon_Id")}),
    EntityType("Agendapunt", {
        "Id": GUID, "Nummer": STR, "Onderwerp": STR, "Aanvangstijd": DTO, "Eindtijd": DTO, "Volgorde": INT,
        "Rubriek": STR, "Noot": STR, "Status": STR, **CHANGE, "Activiteit_Id": GUID,
    }, {"Activiteit": one("Activiteit", "Activiteit_Id"), "Besluit": many_back("Besluit", "Agendapunt_Id"),
        "Zaak": many_link("Zaak", "agendapunt_zaak")}),
    EntityType("Activiteit", {
        "Id": GUID, "Soort": STR, "Nummer": STR, "Onderwerp": STR, "DatumSoort": STR, "Datum": DTO,
        "Aanvangstijd": DTO, "Eindtijd": DTO, "Locatie": STR, "Besloten": BOOL, "Status": STR,
        "Vergaderjaar": STR, "Kamer": STR, "Noot": STR, "VRSNummer": STR, "SidVoortouw": STR, "Voortouwnaam": STR,
        "Voortouwafkorting": STR, "Voortouwkortenaam": STR, "Voortouwcommissie_Id": GUID, "Aanvraagdatum": DTO,
        "DatumVerzoekEersteVerlenging": DTO, "DatumMededelingEersteVerlenging": DTO,
        "DatumVerzoekTweedeVerlenging": DTO, "DatumMededelingTweedeVerlenging": DTO, "Vervaldatum": DTO, **CHANGE,
    }, {"Agendapunt": many_back("Agendapunt", "Activiteit_Id")}),
    EntityType("Persoon", {
        "Id": GUID, "Nummer": INT, "Titels": STR, "Initialen": STR, "Tussenvoegsel": STR, "Achternaam": STR,
        "Voornamen": STR, "Roepnaam": STR, "Geslacht": STR, "Functie": STR, "Geboortedatum": DATE,
        "Geboorteplaats": STR, "Geboorteland": STR, "Overlijdensdatum": DATE, "Overlijdensplaats": STR,
        "Woonplaats": STR, "Land": STR, "ContentType": STR, "ContentLength": INT, **CHANGE, "Fractielabel": STR,
    }, {"FractieZetelPersoon": many_back("FractieZetelPersoon", "Persoon_Id")}),
    EntityType("Fractie", {
        "Id": GUID, "Nummer": INT, "Afkorting": STR, "NaamNL": STR, "NaamEN": STR, "AantalZetels": INT,
        "AantalStemmen": INT, "DatumActief": DTO, "DatumInactief": DTO, "ContentType": STR, "ContentLength": INT,
        **CHANGE,
    }, {"FractieZetel": many_back("FractieZetel", "Fractie_Id")}),
    EntityType("FractieZetel", {"Id": GUID, "Gewicht": INT, "Fractie_Id": GUID, **CHANGE},
               {"Fractie": one("Fractie", "Fractie_Id"),
                "FractieZetelPersoon": many_back("FractieZetelPersoon", "FractieZetel_Id")}),
    EntityType("FractieZetelPersoon", {
        "Id": GUID, "FractieZetel_Id": GUID, "Persoon_Id": GUID, "Functie": STR, "Van": DTO, "TotEnMet": DTO,
        **CHANGE,
    }, {"FractieZetel": one("FractieZetel", "FractieZetel_Id"), "Persoon": one("Persoon", "Persoon_Id")}),
)


# --------------------------------------------------------------------------- time helpers


def _last_sunday(year: int, month: int) -> date:
    last = date(year, month, 31)
    return last - timedelta(days=(last.weekday() + 1) % 7)


def _offset_hours(day: date) -> int:
    """CET or CEST on this calendar day (from its noon; switches happen at night)."""
    return 2 if _last_sunday(day.year, 3) <= day < _last_sunday(day.year, 10) else 1


def local(day: date, hour: int = 0, minute: int = 0, second: int = 0, ms: int = 0) -> str:
    """A Dutch local DateTimeOffset string as the Gegevensmagazijn writes it."""
    frac = f".{ms:03d}" if ms else ""
    return f"{day.isoformat()}T{hour:02d}:{minute:02d}:{second:02d}{frac}+{_offset_hours(day):02d}:00"


def _api_changed(local_value: str) -> str:
    moment = datetime.fromisoformat(local_value).astimezone(UTC) + timedelta(seconds=4)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%f") + "1Z"


def _session_year(day: date) -> str:
    start = day.year if day.month >= 9 else day.year - 1
    return f"{start}-{start + 1}"


# --------------------------------------------------------------------------- vocabulary

# (Afkorting, NaamNL, NaamEN, seats, recorded Id or None)
PARTIES = (
    ("PVV", "Partij voor de Vrijheid", "Party for Freedom", 37, "65129918-f256-4975-9da4-488da34d6695"),
    ("GroenLinks-PvdA", "GroenLinks-PvdA", "Green Left-Labour Party", 25, "0208097d-ef04-438a-8c29-eebb84956204"),
    ("VVD", "Volkspartij voor Vrijheid en Democratie", "People's Party for Freedom and Democracy", 24,
     "7476e97a-3243-4122-9df6-ba7d82a5279b"),
    ("NSC", "Nieuw Sociaal Contract", "Nieuw Sociaal Contract", 19, "ad182a43-bc8c-40b3-894d-4a92515e70e7"),
    ("D66", "Democraten 66", "Democrats 66", 9, None),
    ("BBB", "BoerBurgerBeweging", "Farmer-Citizen Movement", 7, "626555ac-e836-44e3-9978-a6a7f0abc3ce"),
    ("CDA", "Christen-Democratisch Appèl", "Christian Democratic Appeal", 5, None),
    ("SP", "Socialistische Partij", "Socialist Party", 5, "a3689bb6-3914-4d5c-a6a8-42e24582e299"),
    ("DENK", "DENK", "DENK", 3, "deb74bb5-63a9-4ffc-98ed-af577167452e"),
    ("PvdD", "Partij voor de Dieren", "Party for the Animals", 3, "d3b4d880-ef37-4ce6-99ec-4940266ac466"),
    ("FVD", "Forum voor Democratie", "Forum for Democracy", 3, "e0b7b638-de3c-47cc-85bd-341dd65ea33d"),
    ("SGP", "Staatkundig Gereformeerde Partij", "Reformed Political Party", 3, "77f9b6f1-b1a9-4d1b-a05e-9936e79d8fa5"),
    ("ChristenUnie", "ChristenUnie", "Christian Union", 3, "d720f5af-0516-408a-b830-0b6ffb8a581c"),
    ("Volt", "Volt", "Volt", 2, "ae48391e-ce4d-47e0-86e3-ee310282f66f"),
    ("JA21", "JA21", "JA21", 2, None),
)
FORMER_PARTIES = (
    ("50PLUS", "50PLUS", "50PLUS", "a34bf6c8-834e-4dba-b4d2-f2f1b3957bd2"),
    ("GroenLinks", "GroenLinks", "Green Left", "8fd1a907-0355-4d27-8dc1-fd5a531b471e"),
    ("PvdA", "Partij van de Arbeid", "Labour Party", "8d46d23c-4f20-49be-b279-5439a2ef8d17"),
    ("Groep Van Haga", "Groep Van Haga", "Group Van Haga", "7113623f-909d-4a24-a48e-c7577f851e63"),
    ("Monasch", "Monasch", "Monasch", "2833a04a-0b87-4f74-bd9e-6597f695db43"),
)
# Left-right lean per party, to make votes look like votes (0 = left, 1 = right).
LEAN = {"PVV": .85, "GroenLinks-PvdA": .1, "VVD": .75, "NSC": .55, "D66": .3, "BBB": .7, "CDA": .55, "SP": .15,
        "DENK": .2, "PvdD": .1, "FVD": .95, "SGP": .8, "ChristenUnie": .45, "Volt": .25, "JA21": .9}

FIRST_F = ("Anne", "Femke", "Sanne", "Lisa", "Esther", "Marieke", "Fleur", "Ingrid", "Mona", "Sophie", "Lotte", "Eline",
           "Julia", "Caroline", "Dilan", "Rosanne", "Mirjam", "Hanneke", "Nathalie", "Kirsten")
FIRST_M = ("Jan", "Pieter", "Thijs", "Daan", "Bram", "Joost", "Mark", "Henk", "Ruben", "Tom", "Sander", "Jesse",
           "Frank", "Kees", "Laurens", "Bart", "Wouter", "Gert-Jan", "Olger", "Stephan")
SURNAMES = (("", "Jansen"), ("de", "Vries"), ("van den", "Berg"), ("", "Bakker"), ("", "Visser"), ("", "Smit"),
            ("", "Meijer"), ("de", "Boer"), ("", "Mulder"), ("de", "Groot"), ("", "Bos"), ("", "Vos"),
            ("", "Peters"), ("", "Hendriks"), ("van", "Leeuwen"), ("", "Dekker"), ("", "Brouwer"), ("de", "Wit"),
            ("", "Dijkstra"), ("", "Smits"), ("de", "Graaf"), ("van der", "Meer"), ("van der", "Linden"),
            ("", "Kok"), ("", "Jacobs"), ("de", "Haan"), ("", "Vermeulen"), ("van den", "Heuvel"),
            ("van der", "Veen"), ("van den", "Broek"), ("de", "Bruijn"), ("", "Schouten"), ("", "Willems"),
            ("van", "Dam"), ("", "Hoekstra"), ("", "Koster"), ("", "Prins"), ("", "Huisman"), ("", "Veldman"),
            ("", "Kuipers"), ("van", "Wijk"), ("", "Postma"), ("", "Kramer"), ("", "Wolters"), ("", "Yıldız"),
            ("", "El Khatib"), ("", "Tseggai"), ("", "Çelik"), ("", "Agema"), ("", "Omtzigt"))
CITIES = ("Amsterdam", "Rotterdam", "Den Haag", "Utrecht", "Eindhoven", "Groningen", "Tilburg", "Almere", "Breda",
          "Nijmegen", "Zwolle", "Leeuwarden", "Maastricht", "Assen", "Middelburg", "Lelystad", "Haarlem", "Arnhem")

# (dossier title, ministry, committee index, subjects)
TOPICS = (
    ("Stikstofbeleid", "Landbouw, Visserij, Voedselzekerheid en Natuur", 0,
     ("stikstofdepositie rond Natura 2000-gebieden", "de opkoopregeling voor piekbelasters",
      "rekenkundige ondergrens voor stikstof")),
    ("Woningmarkt", "Volkshuisvesting en Ruimtelijke Ordening", 1,
     ("betaalbare huurwoningen voor starters", "de bouw van flexwoningen", "huurbevriezing in de sociale sector")),
    ("Klimaat en energie", "Klimaat en Groene Groei", 2,
     ("netcongestie bij bedrijventerreinen", "subsidie voor warmtepompen", "windparken op zee")),
    ("Zorgverzekeringsstelsel", "Volksgezondheid, Welzijn en Sport", 3,
     ("het eigen risico in de zorg", "wachtlijsten in de ggz", "personeelstekorten in de ouderenzorg")),
    ("Vreemdelingenbeleid", "Asiel en Migratie", 4,
     ("de opvang van asielzoekers in Ter Apel", "de spreidingswet", "gezinshereniging")),
    ("Defensie", "Defensie", 5, ("de aanschaf van F-35-onderdelen", "het personeelstekort bij Defensie",
                                 "steun aan Oekraïne")),
    ("Digitale overheid", "Binnenlandse Zaken en Koninkrijksrelaties", 6,
     ("cloudgebruik door de Rijksoverheid", "algoritmes bij uitvoeringsorganisaties", "digitale inclusie")),
    ("Mijnbouw Groningen", "Economische Zaken", 7, ("schadeafhandeling in Groningen", "versterking van woningen",
                                                    "het Nij Begun-programma")),
    ("Spoor en openbaar vervoer", "Infrastructuur en Waterstaat", 8,
     ("de dienstregeling van de NS", "een tweede Schipholtunnel", "betaalbaar openbaar vervoer in de regio")),
    ("Funderend onderwijs", "Onderwijs, Cultuur en Wetenschap", 9,
     ("het lerarentekort", "leesvaardigheid van leerlingen", "passend onderwijs")),
    ("Belastingdienst", "Financiën", 10, ("de herstelregeling toeslagen", "box 3-heffing", "de btw op sport")),
    ("Racisme en Discriminatie", "Sociale Zaken en Werkgelegenheid", 11,
     ("arbeidsmarktdiscriminatie", "discriminatie door algoritmes", "een nationaal coördinator")),
    ("Politie", "Justitie en Veiligheid", 12, ("wijkagenten in elke gemeente", "cybercrime", "explosies bij woningen")),
    ("Jeugdzorg", "Volksgezondheid, Welzijn en Sport", 3, ("de hervormingsagenda jeugd", "gesloten jeugdzorg",
                                                           "wachtlijsten in de jeugdzorg")),
    ("Pensioenen", "Sociale Zaken en Werkgelegenheid", 11, ("de overstap naar het nieuwe pensioenstelsel",
                                                            "het invaren van pensioenen", "de AOW-leeftijd")),
)
# (Voortouwnaam, Voortouwafkorting, Voortouwkortenaam)
COMMITTEES = (
    ("vaste commissie voor Landbouw, Visserij, Voedselzekerheid en Natuur", "LVVN", "LVVN"),
    ("vaste commissie voor Volkshuisvesting en Ruimtelijke Ordening", "VRO", "VRO"),
    ("vaste commissie voor Klimaat en Groene Groei", "KGG", "KGG"),
    ("vaste commissie voor Volksgezondheid, Welzijn en Sport", "VWS", "VWS"),
    ("vaste commissie voor Asiel en Migratie", "AenM", "Asiel en Migratie"),
    ("vaste commissie voor Defensie", "DEF", "Defensie"),
    ("vaste commissie voor Digitale Zaken", "DiZa", "Digitale Zaken"),
    ("vaste commissie voor Economische Zaken", "EZ", "Economische Zaken"),
    ("vaste commissie voor Infrastructuur en Waterstaat", "IenW", "IenW"),
    ("vaste commissie voor Onderwijs, Cultuur en Wetenschap", "OCW", "OCW"),
    ("vaste commissie voor Financiën", "FIN", "Financiën"),
    ("vaste commissie voor Sociale Zaken en Werkgelegenheid", "SZW", "SZW"),
    ("vaste commissie voor Justitie en Veiligheid", "JenV", "JenV"),
)
ROOMS = ("Thorbeckezaal", "Groen van Prinstererzaal", "Troelstrazaal", "Suze Groenewegzaal", "Klompézaal",
         "Max van der Stoelzaal", "Schrijfsalon")
COMMITTEE_KINDS = ("Commissiedebat", "Commissiedebat", "Commissiedebat", "Procedurevergadering", "Rondetafelgesprek",
                   "Technische briefing", "Wetgevingsoverleg", "Notaoverleg", "Gesprek")


# --------------------------------------------------------------------------- generation


class _Gen:
    """Builds every entity set from one seeded random source."""

    def __init__(self, anchor: date) -> None:
        self.anchor = anchor
        self.rng = random.Random(SEED)
        self.rows: dict[str, list[Row]] = {t.name: [] for t in TYPES}
        self.links: dict[str, dict[str, list[str]]] = {}
        self.serial = {"Z": 10000, "D": 30000, "A": 4000}
        self.parties: dict[str, Row] = {}
        self.members: list[Row] = []  # sitting members

    def uid(self) -> str:
        return str(uuid.UUID(int=self.rng.getrandbits(128), version=4))

    def number(self, kind: str, day: date) -> str:
        self.serial[kind] += self.rng.randint(1, 9)
        return f"{day.year}{kind}{self.serial[kind]:05d}"

    def link(self, name: str, source: str, target: str, back: str | None = None) -> None:
        self.links.setdefault(name, {}).setdefault(source, []).append(target)
        if back:
            self.links.setdefault(back, {}).setdefault(target, []).append(source)

    def changed(self, day: date, row: Row) -> Row:
        stamp = local(min(day, self.anchor), self.rng.randint(8, 22), self.rng.randint(0, 59), self.rng.randint(0, 59),
                      self.rng.randint(1, 999))
        row.update({"GewijzigdOp": stamp, "ApiGewijzigdOp": _api_changed(stamp), "Verwijderd": False})
        return row

    def day_before(self, max_days: int, min_days: int = 1) -> date:
        # Skewed towards recent days, the way a busy house produces material.
        return self.anchor - timedelta(days=min_days + int((max_days - min_days) * self.rng.random() ** 1.6))

    # ----------------------------------------------------------------------- parties and members

    def build_parties(self) -> None:
        start = date(2023, 12, 6)
        for n, (abbr, name, name_en, seats, known) in enumerate(PARTIES):
            self.parties[abbr] = self.changed(start, {
                "Id": known or self.uid(), "Nummer": 58000 + n * 37, "Afkorting": abbr, "NaamNL": name,
                "NaamEN": name_en, "AantalZetels": seats, "AantalStemmen": seats * 70500 + self.rng.randint(0, 9999),
                "DatumActief": local(start), "DatumInactief": None, "ContentType": "image/jpeg",
                "ContentLength": self.rng.randint(20000, 60000)})
        for n, (abbr, name, name_en, known) in enumerate(FORMER_PARTIES):
            self.parties[abbr] = self.changed(start, {
                "Id": known, "Nummer": 41000 + n * 53, "Afkorting": abbr, "NaamNL": name, "NaamEN": name_en,
                "AantalZetels": 0, "AantalStemmen": None, "DatumActief": local(date(2017, 3, 23)),
                "DatumInactief": local(start - timedelta(days=1)), "ContentType": None, "ContentLength": None})
        self.rows["Fractie"] = list(self.parties.values())

    def person(self, functie: str, party: str | None) -> Row:
        female = self.rng.random() < 0.45
        first = self.rng.choice(FIRST_F if female else FIRST_M)
        prefix, surname = self.rng.choice(SURNAMES)
        born = date(self.rng.randint(1955, 1998), self.rng.randint(1, 12), self.rng.randint(1, 28))
        return self.changed(self.day_before(700), {
            "Id": self.uid(), "Nummer": self.rng.randint(1500, 9999), "Titels": self.rng.choice((None, "Drs.", "Mr.",
                                                                                                  "Dr.", None)),
            "Initialen": f"{first[0]}.", "Tussenvoegsel": prefix or None, "Achternaam": surname,
            "Voornamen": f"{first} {self.rng.choice(FIRST_F if female else FIRST_M)}", "Roepnaam": first,
            "Geslacht": "vrouw" if female else "man", "Functie": functie, "Geboortedatum": born.isoformat(),
            "Geboorteplaats": self.rng.choice(CITIES), "Geboorteland": "Nederland", "Overlijdensdatum": None,
            "Overlijdensplaats": None, "Woonplaats": self.rng.choice(CITIES), "Land": "NL",
            "ContentType": "image/jpeg", "ContentLength": self.rng.randint(9000, 40000), "Fractielabel": party})

    def seat(self, person: Row, party: str, start: date, end: date | None, role: str) -> None:
        zetel = self.changed(start, {"Id": self.uid(), "Gewicht": 1, "Fractie_Id": self.parties[party]["Id"]})
        self.rows["FractieZetel"].append(zetel)
        self.rows["FractieZetelPersoon"].append(self.changed(end or start, {
            "Id": self.uid(), "FractieZetel_Id": zetel["Id"], "Persoon_Id": person["Id"], "Functie": role,
            "Van": local(start), "TotEnMet": local(end) if end else None}))

    def build_members(self) -> None:
        start = date(2023, 12, 6)
        for abbr, *_, seats, _known in PARTIES:
            for n in range(seats):
                member = self.person("Tweede Kamerlid", abbr)
                self.members.append(member)
                if self.rng.random() < 0.08:  # switched parties earlier in the term
                    other = self.rng.choice([p for p in LEAN if p != abbr])
                    switch = start + timedelta(days=self.rng.randint(60, 500))
                    self.seat(member, other, start, switch, "Lid")
                    self.seat(member, abbr, switch, None, "Lid")
                else:
                    self.seat(member, abbr, start, None, "Fractievoorzitter" if n == 0 else "Lid")
        formers = []
        for _ in range(60):
            party = self.rng.choice([p[0] for p in FORMER_PARTIES] + list(LEAN))
            former = self.person("Oud Kamerlid", None)
            formers.append(former)
            begin = date(self.rng.randint(2006, 2019), self.rng.choice((3, 6, 10)), 1)
            self.seat(former, party, begin, begin + timedelta(days=self.rng.randint(400, 2500)), "Lid")
        recorded = json.loads((DATA / "Persoon_top3.json").read_text(encoding="utf-8"))["value"]
        self.rows["Persoon"] = [*self.members, *formers, *recorded]

    # ----------------------------------------------------------------------- cases, documents, votes

    def subject(self, kind: str, topic: tuple[Any, ...], member: Row) -> str:
        phrase = self.rng.choice(topic[3])
        name = member["Achternaam"] if not member["Tussenvoegsel"] else f"{member['Tussenvoegsel']} " \
                                                                          f"{member['Achternaam']}"
        return {
            "Motie": f"Motie van het lid {name} c.s. over {phrase}",
            "Amendement": f"Amendement van het lid {name} over {phrase}",
            "Wetgeving": f"Wijziging van enkele wetten in verband met {phrase}",
            "Schriftelijke vragen": f"Vragen van het lid {name} aan de minister van {topic[1]} over {phrase}",
            "Brief regering": f"Brief van de minister van {topic[1]} over {phrase}",
        }[kind]

    def case(self, kind: str, day: date, topic: tuple[Any, ...], subject: str, row_id: str | None = None) -> Row:
        zaak = self.changed(day + timedelta(days=self.rng.randint(0, 6)), {
            "Id": row_id or self.uid(), "Nummer": self.number("Z", day), "Soort": kind, "Titel": topic[0],
            "Citeertitel": None, "Alias": None, "Status": "Vrijgegeven", "Onderwerp": subject, "GestartOp": local(day),
            "Organisatie": "Tweede Kamer", "Grondslagvoorhang": None, "Termijn": None,
            "Vergaderjaar": _session_year(day), "Volgnummer": self.rng.randint(1, 600), "HuidigeBehandelstatus": None,
            "Afgedaan": (self.anchor - day).days > 30, "GrootProject": False,
            "Kabinetsappreciatie": self.rng.choice(("Oordeel Kamer", "Ontraden", "Overbodig",
                                                    "Verzocht motie aan te houden")) if kind == "Motie" else None})
        self.rows["Zaak"].append(zaak)
        return zaak

    def document(self, zaak: Row, kind: str, day: date, submitter: Row | None, subject: str | None = None) -> Row:
        doc = self.changed(day + timedelta(days=self.rng.randint(0, 2)), {
            "Id": self.uid(), "Soort": kind, "DocumentNummer": self.number("D", day), "Titel": zaak["Titel"],
            "Onderwerp": subject or zaak["Onderwerp"], "Datum": local(day), "Volgnummer": self.rng.randint(1, 400),
            "Afzender": None, "Vergaderjaar": _session_year(day), "Kamer": 2, "Citeertitel": None, "Alias": None,
            "DatumRegistratie": local(day, 10, 12), "DatumOntvangst": None, "Aanhangselnummer": None,
            "KenmerkAfzender": None, "Organisatie": "Tweede Kamer", "ContentType": "application/pdf",
            "ContentLength": self.rng.randint(40000, 900000), "HuidigeDocumentVersie_Id": self.uid()})
        self.rows["Document"].append(doc)
        self.link("document_zaak", doc["Id"], zaak["Id"], back="zaak_document")
        if submitter is not None:
            self.rows["DocumentActor"].append(self.changed(day, {
                "Id": self.uid(), "ActorNaam": f"{submitter['Initialen']} {submitter['Achternaam']}",
                "ActorFractie": submitter["Fractielabel"], "Functie": "Tweede Kamerlid", "Relatie": "Indiener",
                "SidActor": None, "Document_Id": doc["Id"], "Persoon_Id": submitter["Id"],
                "Fractie_Id": self.parties[submitter["Fractielabel"]]["Id"], "Commissie_Id": None}))
        return doc

    def decision(self, zaken: list[Row], day: date, votes: dict[str, str], *, outcome: str | None = None,
                 row_id: str | None = None, agendapunt: str | None = None) -> Row:
        seats_for = sum(self.parties[p]["AantalZetels"] for p, v in votes.items() if v == "Voor")
        passed = outcome == "Aangenomen." if outcome else seats_for >= 76
        besluit = self.changed(day, {
            "Id": row_id or self.uid(), "Agendapunt_Id": agendapunt, "StemmingsSoort": "Met handopsteken",
            "BesluitSoort": "Stemmen - aangenomen" if passed else "Stemmen - verworpen",
            "BesluitTekst": "Aangenomen." if passed else "Verworpen.", "Opmerking": None, "Status": "Besluit",
            "AgendapuntZaakBesluitVolgorde": 1})
        self.rows["Besluit"].append(besluit)
        for zaak in zaken:
            self.link("besluit_zaak", besluit["Id"], zaak["Id"], back="zaak_besluit")
        return besluit

    def party_votes(self, besluit: Row, votes: dict[str, str], day: date) -> None:
        for abbr, vote in votes.items():
            party = self.parties[abbr]
            self.rows["Stemming"].append(self.changed(day, {
                "Id": self.uid(), "Besluit_Id": besluit["Id"], "Soort": vote, "FractieGrootte": party["AantalZetels"],
                "ActorNaam": abbr, "ActorFractie": abbr, "Vergissing": self.rng.random() < 0.01, "SidActorLid": None,
                "SidActorFractie": f"S-1-365867521-{self.rng.getrandbits(32)}", "Persoon_Id": None,
                "Fractie_Id": party["Id"]}))

    def random_votes(self) -> dict[str, str]:
        left_wing = self.rng.random() < 0.5
        votes = {}
        for abbr, lean in LEAN.items():
            p_for = (1 - lean) if left_wing else lean
            votes[abbr] = "Voor" if self.rng.random() < 0.15 + 0.7 * p_for else "Tegen"
        if self.rng.random() < 0.1:
            votes[self.rng.choice(list(LEAN))] = "Niet deelgenomen"
        return votes

    def build_cases(self) -> None:
        kinds = ("Motie",) * 10 + ("Amendement",) * 2 + ("Wetgeving",) * 2 + ("Schriftelijke vragen",) * 3 + \
                ("Brief regering",) * 3
        for _ in range(275):
            kind = self.rng.choice(kinds)
            topic = self.rng.choice(TOPICS)
            member = self.rng.choice(self.members)
            day = self.day_before(540)
            zaak = self.case(kind, day, topic, self.subject(kind, topic, member))
            submitter = member if kind in ("Motie", "Amendement", "Schriftelijke vragen") else None
            if kind == "Wetgeving":
                for doc_kind in ("Voorstel van wet", "Memorie van toelichting", "Advies Raad van State"):
                    self.document(zaak, doc_kind, day, None)
            else:
                self.document(zaak, kind, day, submitter)
            if kind == "Schriftelijke vragen" and (self.anchor - day).days > 25:
                self.document(zaak, "Antwoord schriftelijke vragen", day + timedelta(days=21), None,
                              f"Antwoord op vragen van het lid {member['Achternaam']} over {zaak['Onderwerp']}")
            vote_age = 60 if kind == "Wetgeving" else 5
            if kind in ("Motie", "Amendement", "Wetgeving") and (self.anchor - day).days > vote_age \
                    and self.rng.random() < 0.85:
                vote_day = min(day + timedelta(days=self.rng.randint(2, 9)), self.anchor - timedelta(days=1))
                votes = self.random_votes()
                self.party_votes(self.decision([zaak], vote_day, votes), votes, vote_day)
        self.xss_case()
        self.roll_call()

    def xss_case(self) -> None:
        day = self.anchor - timedelta(days=3)
        topic = TOPICS[6]
        zaak = self.case("Motie", day, topic, XSS_SUBJECT)
        self.document(zaak, "Motie", day, self.members[0])

    def roll_call(self) -> None:
        """One roll-call (hoofdelijke) vote: a row per member."""
        motions = [z for z in self.rows["Zaak"] if z["Soort"] == "Motie" and not self.links.get("zaak_besluit", {})
                   .get(z["Id"]) and (self.anchor - date.fromisoformat(z["GestartOp"][:10])).days > 10]
        zaak = motions[0]
        day = date.fromisoformat(zaak["GestartOp"][:10]) + timedelta(days=7)
        besluit = self.decision([zaak], day, {})
        besluit["StemmingsSoort"] = "Hoofdelijk"
        seats_for = 0
        for member in self.members:
            vote = "Voor" if self.rng.random() < 0.15 + 0.7 * (1 - LEAN[member["Fractielabel"]]) else "Tegen"
            seats_for += vote == "Voor"
            self.rows["Stemming"].append(self.changed(day, {
                "Id": self.uid(), "Besluit_Id": besluit["Id"], "Soort": vote, "FractieGrootte": 1,
                "ActorNaam": f"{member['Initialen']} {member['Achternaam']}", "ActorFractie": member["Fractielabel"],
                "Vergissing": False, "SidActorLid": f"S-1-365867521-{self.rng.getrandbits(32)}",
                "SidActorFractie": None, "Persoon_Id": member["Id"],
                "Fractie_Id": self.parties[member["Fractielabel"]]["Id"]}))
        passed = seats_for >= 76
        besluit.update({"BesluitSoort": "Stemmen - aangenomen" if passed else "Stemmen - verworpen",
                        "BesluitTekst": "Aangenomen." if passed else "Verworpen."})

    def recorded_cases(self) -> None:
        """The real motions, the real expanded votes (completed for every party) and a real vote page."""
        motions = json.loads((DATA / "Zaak_value-array-only_trimmed20of250.json").read_text(encoding="utf-8"))
        expanded = json.loads((DATA / "Stemming_expand_Besluit-Agendapunt-Zaak_Fractie_Persoon.json")
                              .read_text(encoding="utf-8"))["value"]
        zaak = dict(expanded[0]["Besluit"]["Agendapunt"]["Zaak"][0])
        for row in [*motions, zaak]:
            self.rows["Zaak"].append(row)
            day = date.fromisoformat(row["GestartOp"][:10])
            member = self.rng.choice(self.members)
            self.document(row, "Motie", day, member)
        agendapunt = {k: v for k, v in expanded[0]["Besluit"]["Agendapunt"].items() if k != "Zaak"}
        self.rows["Agendapunt"].append(agendapunt)
        self.link("agendapunt_zaak", agendapunt["Id"], zaak["Id"], back="zaak_agendapunt")
        besluit = {k: v for k, v in expanded[0]["Besluit"].items() if k != "Agendapunt"}
        self.rows["Besluit"].append(besluit)
        self.link("besluit_zaak", besluit["Id"], zaak["Id"], back="zaak_besluit")
        recorded = {r["ActorFractie"] for r in expanded}
        for row in expanded:
            self.rows["Stemming"].append({k: v for k, v in row.items() if k not in ("Besluit", "Fractie", "Persoon")})
        voted_for = {"VVD", "D66", "CDA", "ChristenUnie", "Volt", "PvdD", "DENK"}
        rest = {p: ("Voor" if p in voted_for else "Tegen") for p in LEAN if p not in recorded}
        day = date.fromisoformat(besluit["GewijzigdOp"][:10])
        self.party_votes(besluit, rest, day)
        page = json.loads((DATA / "Stemming_page1_trimmed20of250.json").read_text(encoding="utf-8"))["value"]
        for row in page:
            self.rows["Stemming"].append(row)
            if row["Besluit_Id"] not in {b["Id"] for b in self.rows["Besluit"]}:
                self.rows["Besluit"].append({
                    "Id": row["Besluit_Id"], "Agendapunt_Id": None, "StemmingsSoort": "Met handopsteken",
                    "BesluitSoort": "Stemmen - aangenomen", "BesluitTekst": "Aangenomen.", "Opmerking": None,
                    "Status": "Besluit", "AgendapuntZaakBesluitVolgorde": 1, "GewijzigdOp": row["GewijzigdOp"],
                    "ApiGewijzigdOp": row["ApiGewijzigdOp"], "Verwijderd": False})

    def cloud_letter(self) -> None:
        """A letter known from the public site (case 2026Z15738, documents 2026D35294/5), used as the example."""
        day = date(2026, 7, 3)
        zaak = self.case("Brief regering", day, ("Herziening rijksbreed cloudbeleid 2026", "", 6, ()),
                         "Brief van de staatssecretaris van Binnenlandse Zaken en Koninkrijksrelaties over de "
                         "herziening van het rijksbrede cloudbeleid 2026")
        zaak["Nummer"] = "2026Z15738"
        letter = self.document(zaak, "Brief regering", day, None)
        annex = self.document(zaak, "Bijlage", day, None, "Herziening rijksbreed cloudbeleid 2026")
        letter.update({"DocumentNummer": "2026D35294", "Volgnummer": 1541})
        annex["DocumentNummer"] = "2026D35295"

    # ----------------------------------------------------------------------- activities

    def activity(self, day: date, *, past: bool) -> None:
        plenary = self.rng.random() < 0.3
        committee = ("TK", "TK", "TK") if plenary else COMMITTEES[self.rng.randrange(len(COMMITTEES))]
        kind = self.rng.choice(("Plenair debat", "Plenair debat (tweeminutendebat)", "Stemmingen")) if plenary \
            else self.rng.choice(COMMITTEE_KINDS)
        own = [t for t in TOPICS if not plenary and COMMITTEES[t[2]] == committee]
        topic = own[0] if own else self.rng.choice(TOPICS)
        hour = self.rng.choice((10, 13, 14, 16, 19)) if kind != "Stemmingen" else 15
        minute = self.rng.choice((0, 0, 15, 30))
        start = local(day, hour, minute)
        status = "Uitgevoerd" if past else self.rng.choices(("Gepland", "Geannuleerd", "Verplaatst"), (18, 1, 1))[0]
        subject = {"Stemmingen": "Stemmingen", "Procedurevergadering": f"Procedurevergadering {committee[2]}"}.get(
            kind, f"{topic[0]}: {self.rng.choice(topic[3])}")
        act = self.changed(min(day, self.anchor) - timedelta(days=0 if past else self.rng.randint(1, 20)), {
            "Id": self.uid(), "Soort": kind, "Nummer": self.number("A", day), "Onderwerp": subject,
            "DatumSoort": "Dag", "Datum": start, "Aanvangstijd": start,
            "Eindtijd": local(day, min(hour + self.rng.randint(1, 4), 23), minute), "Locatie":
                "Plenaire zaal" if plenary else self.rng.choice(ROOMS), "Besloten": kind == "Procedurevergadering",
            "Status": status, "Vergaderjaar": _session_year(day), "Kamer": "Tweede Kamer", "Noot": None,
            "VRSNummer": None, "SidVoortouw": f"S-1-365867521-{self.rng.getrandbits(32)}",
            "Voortouwnaam": committee[0], "Voortouwafkorting": committee[1], "Voortouwkortenaam": committee[2],
            "Voortouwcommissie_Id": self.uid(), "Aanvraagdatum": None, "DatumVerzoekEersteVerlenging": None,
            "DatumMededelingEersteVerlenging": None, "DatumVerzoekTweedeVerlenging": None,
            "DatumMededelingTweedeVerlenging": None, "Vervaldatum": None})
        self.rows["Activiteit"].append(act)
        points = 1 if plenary and kind != "Stemmingen" else self.rng.randint(2, 6)
        for n in range(1, points + 1):
            self.rows["Agendapunt"].append(self.changed(min(day, self.anchor), {
                "Id": self.uid(), "Nummer": f"{day.year}P{self.rng.randint(10000, 99999)}",
                "Onderwerp": subject if points == 1 else f"Brief van de minister over {self.rng.choice(topic[3])}",
                "Aanvangstijd": None, "Eindtijd": None, "Volgorde": n, "Rubriek": None, "Noot": None,
                "Status": "Vrijgegeven", "Activiteit_Id": act["Id"]}))

    def build_activities(self) -> None:
        for _ in range(60):
            self.activity(self.anchor - timedelta(days=self.rng.randint(1, 60)), past=True)
        for n in range(60):
            day = self.anchor + timedelta(days=n % 3 if n < 12 else self.rng.randint(0, 30))
            self.activity(day, past=False)
        recorded = json.loads((DATA / "Activiteit_top3.json").read_text(encoding="utf-8"))["value"]
        self.rows["Activiteit"].extend(recorded)

    def finish(self) -> None:
        """The newest document change lands on the anchor day: the source looks current."""
        newest = max((d for d in self.rows["Document"]), key=lambda d: d["Datum"])
        stamp = local(self.anchor, 8, 15, 2, 307)
        newest.update({"GewijzigdOp": stamp, "ApiGewijzigdOp": _api_changed(stamp)})


    # ----------------------------------------------------------------------- what the real data also has
    # These steps draw from their own random sources, so the records generated above stay as they were.

    def tie_decisions(self) -> None:
        """Every decision hangs off an agenda item of that day's Stemmingen meeting, as in the real data
        (the recorded Stemming → Besluit → Agendapunt → Zaak expansion)."""
        rng = random.Random(SEED + 1)
        meetings: dict[date, Row] = {}
        points_on: dict[str, int] = {}
        by_id = {z["Id"]: z for z in self.rows["Zaak"]}
        serial = 9000
        for besluit in self.rows["Besluit"]:
            if besluit.get("Agendapunt_Id"):
                continue
            day = date.fromisoformat(str(besluit["GewijzigdOp"])[:10])
            meeting = meetings.get(day)
            if meeting is None:
                serial += rng.randint(1, 5)
                start = local(day, 15)
                meeting = meetings[day] = {
                    **{name: None for name in TYPES[6].props},
                    "Id": str(uuid.UUID(int=rng.getrandbits(128), version=4)),
                    "Soort": "Stemmingen", "Nummer": f"{day.year}A{serial:05d}", "Onderwerp": "Stemmingen",
                    "DatumSoort": "Dag", "Datum": start, "Aanvangstijd": start, "Eindtijd": local(day, 16),
                    "Locatie": "Plenaire zaal", "Besloten": False, "Status": "Uitgevoerd",
                    "Vergaderjaar": _session_year(day), "Kamer": "Tweede Kamer", "Voortouwnaam": "Tweede Kamer",
                    "Voortouwafkorting": "TK", "Voortouwkortenaam": "TK", "GewijzigdOp": besluit["GewijzigdOp"],
                    "ApiGewijzigdOp": besluit["ApiGewijzigdOp"], "Verwijderd": False}
                self.rows["Activiteit"].append(meeting)
            zaken = self.links.get("besluit_zaak", {}).get(besluit["Id"], [])
            points_on[meeting["Id"]] = points_on.get(meeting["Id"], 0) + 1
            titles = [by_id[z]["Titel"] for z in zaken if z in by_id]
            point = {**{name: None for name in TYPES[5].props},
                     "Id": str(uuid.UUID(int=rng.getrandbits(128), version=4)),
                     "Nummer": f"{day.year}P{rng.randint(10000, 99999)}",
                     "Onderwerp": "Stemmingen over " + (titles[0] if titles else "moties en amendementen"),
                     "Volgorde": points_on[meeting["Id"]],
                     "Status": "Vrijgegeven", "Activiteit_Id": meeting["Id"], "GewijzigdOp": besluit["GewijzigdOp"],
                     "ApiGewijzigdOp": besluit["ApiGewijzigdOp"], "Verwijderd": False}
            self.rows["Agendapunt"].append(point)
            for zaak in zaken:
                self.link("agendapunt_zaak", point["Id"], zaak, back="zaak_agendapunt")
            besluit["Agendapunt_Id"] = point["Id"]

    def soft_deletes(self) -> None:
        """A third of every entity set again as soft-deleted rows (`Verwijderd: true`) that keep the fields and
        links of the row they replaced, so a query without `Verwijderd eq false` sees stale duplicates."""
        rng = random.Random(SEED + 2)
        copies_of: dict[str, list[str]] = {}
        for etype in TYPES:
            rows = self.rows[etype.name]
            copies = []
            for row in rng.sample(rows, len(rows) // 3):
                copy = {**row, "Id": str(uuid.UUID(int=rng.getrandbits(128), version=4)), "Verwijderd": True}
                copies.append(copy)
                copies_of.setdefault(row["Id"], []).append(copy["Id"])
            rows.extend(copies)
        for table in self.links.values():  # a copy is linked wherever the row it replaced is
            for targets in table.values():
                targets.extend([c for t in list(targets) for c in copies_of.get(t, ())])
            for source in [s for s in table if s in copies_of]:
                for copy_id in copies_of[source]:
                    table[copy_id] = list(table[source])


@lru_cache(maxsize=4)
def build_store(anchor: date) -> Store:
    """Every entity set for this anchor (deterministic: the same anchor gives the same data)."""
    gen = _Gen(anchor)
    steps: tuple[Callable[[], None], ...] = (gen.build_parties, gen.build_members, gen.build_cases,
                                             gen.recorded_cases, gen.cloud_letter, gen.build_activities, gen.finish,
                                             gen.tie_decisions, gen.soft_deletes)
    for step in steps:
        step()
    return Store(TYPES, gen.rows, gen.links)
