"""Replica of the Tweede Kamer Gegevensmagazijn (OData v4 JSON) for tests and `make run`, serving real records.

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

The records are real Gegevensmagazijn rows recorded on 2–4 October 2025 (`data/tweedekamer/`, provenance in its
SOURCES.md): the plenary votes of June–October 2025 whose agenda item names one case, one complete roll call
(hoofdelijke stemming, 150 members, 1 October 2025), the decisions, agenda items, meetings, cases and documents
they link to, 100 more motions of those weeks, the submitters (ZaakActor) and documents of 114 of those cases from
the recorded motion pages, the parties as the platform names them (NSC's Afkorting is
"Nieuw Sociaal Contract"), the members and real soft-deleted rows. Real dates stay as recorded, so "the last
30 days" of the anchor finds nothing real; the source reads as stalled since the recording.

Made up, and counted in `provenance()`: the seats (FractieZetel, FractieZetelPersoon), because the recordings
strip every `*_Id` field from seat rows (a member's party comes from the member's own roll-call vote row), and a
few activities in the coming two weeks (subject "Voorbeeld …", copied from a recorded activity) so that
`upcoming_activities` has something to find.

Constraints and quirks of the real service, and what each rests on:

* a `$filter` over the validator's node limit is HTTP 400 "The node count limit of '100' has been
  exceeded" (documentation only: TK OpenDataPortaal issue #187 measured 19 or-clauses passing and
  20 failing; the engine's node weights are calibrated to that, see `_odata.MAX_NODE_COUNT`);
* soft-deleted rows (`Verwijderd: true`) are tombstones: every field null but Id and the change stamps
  (recorded: `deleted.json`, from pages where they are half the rows);
* each decision (Besluit) hangs off an agenda item (Agendapunt) of a "Stemmingen" meeting (recorded, from the
  `Stemming(Besluit(Agendapunt(Zaak())))` expansion); the recordings carry no `Besluit/Zaak` link, so the
  replica links a decision to the one case of its agenda item (and the roll call to its motion, see SOURCES.md);
* all-null Persoon and Fractie rows with `Verwijderd: null` (recorded: the `$top=3` answers).
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Iterable
from datetime import date, timedelta
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
from proxy.replica.provenance import Provenance, tally

__all__ = ["BASE_PATH", "ROLL_CALL", "STORE", "build_store", "create_app", "provenance"]

BASE_PATH = "/OData/v4/2.0"
STORE = web.AppKey("tweedekamer_store", Store)
DATA = Path(__file__).parent / "data" / "tweedekamer"
RECORDED_ON = "2025-10-04"
JSON_TYPE = "application/json; odata.metadata=minimal; odata.streaming=true; charset=utf-8"
ROLL_CALL = "56e10506-35db-4633-9434-698165dda1d2"  # hoofdelijke stemming of 1 October 2025
# The roll call's agenda item holds two motions; its decision is the second (AgendapuntZaakBesluitVolgorde 2) and
# is about the second motion, Dobbe c.s. (the first decision, on Podt c.s., is recorded only in part).
ROLL_CALL_CASE = "2025Z18247"
TERM_START = "2023-12-06T00:00:00+01:00"  # first day of the Kamer elected on 22 November 2023
SAMPLE = uuid.UUID("5a3b1e00-0000-4000-8000-000000000000")  # namespace of the made-up rows' ids
Row = dict[str, Any]


# --------------------------------------------------------------------------- HTTP


def create_app(anchor: date, *, fixtures: bool = False) -> web.Application:
    app = web.Application()
    app[STORE] = build_store(anchor, fixtures=fixtures)
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
        "Agendapunt": many_link("Agendapunt", "zaak_agendapunt"), "ZaakActor": many_back("ZaakActor", "Zaak_Id")}),
    EntityType("ZaakActor", {
        "Id": GUID, "Zaak_Id": GUID, "ActorNaam": STR, "ActorFractie": STR, "ActorAfkorting": STR, "Functie": STR,
        "Relatie": STR, "SidActor": STR, "Persoon_Id": GUID, "Fractie_Id": GUID, "Commissie_Id": GUID, **CHANGE,
    }, {"Zaak": one("Zaak", "Zaak_Id"), "Persoon": one("Persoon", "Persoon_Id"),
        "Fractie": one("Fractie", "Fractie_Id")}),
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
    }, {"FractieZetelPersoon": many_back("FractieZetelPersoon", "Persoon_Id"),
        "CommissieZetelVastPersoon": many_back("CommissieZetelVastPersoon", "Persoon_Id")}),
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
    # Committees and their seats, with the fields of the portal's own schemas (tkData-v1-0-commissie*.xsd).
    EntityType("Commissie", {
        "Id": GUID, "Nummer": INT, "Soort": STR, "Afkorting": STR, "NaamNL": STR, "NaamEN": STR, "NaamWebNL": STR,
        "NaamWebEN": STR, "Inhoudsopgave": STR, "DatumActief": DTO, "DatumInactief": DTO, **CHANGE,
    }, {"CommissieZetel": many_back("CommissieZetel", "Commissie_Id")}),
    EntityType("CommissieZetel", {"Id": GUID, "Gewicht": INT, "Commissie_Id": GUID, **CHANGE},
               {"Commissie": one("Commissie", "Commissie_Id"),
                "CommissieZetelVastPersoon": many_back("CommissieZetelVastPersoon", "CommissieZetel_Id")}),
    EntityType("CommissieZetelVastPersoon", {
        "Id": GUID, "CommissieZetel_Id": GUID, "Persoon_Id": GUID, "Functie": STR, "Van": DTO, "TotEnMet": DTO,
        **CHANGE,
    }, {"CommissieZetel": one("CommissieZetel", "CommissieZetel_Id"), "Persoon": one("Persoon", "Persoon_Id")}),
)



# --------------------------------------------------------------------------- real records

SET_FILES = ("Fractie", "Persoon", "Stemming", "Besluit", "Agendapunt", "Activiteit", "Zaak", "ZaakActor", "Document")


def _read(name: str) -> Any:
    return json.loads((DATA / name).read_text(encoding="utf-8"))


def _records(name: str) -> list[Row]:
    """A data file's rows: a list of objects, or {fields, rows} (the vote rows, stored by column)."""
    data = _read(name)
    if isinstance(data, dict):
        return [dict(zip(data["fields"], values, strict=True)) for values in data["rows"]]
    return list(data)


def _tombstones(etype: EntityType, rows: Iterable[Row]) -> list[Row]:
    """Deleted rows as the service serves them: every field null but Id and the change stamps."""
    return [{**{name: None for name in etype.props}, **row} for row in rows]


def _link(links: dict[str, dict[str, list[str]]], name: str, back: str, source: str, target: str) -> None:
    links.setdefault(name, {}).setdefault(source, []).append(target)
    links.setdefault(back, {}).setdefault(target, []).append(source)


def _recorded_links(rows: dict[str, list[Row]]) -> dict[str, dict[str, list[str]]]:
    """Agenda item → cases and case → documents as recorded; decision → case from its agenda item."""
    recorded = _read("links.json")
    links: dict[str, dict[str, list[str]]] = {}
    for point, cases in recorded["agendapunt_zaak"].items():
        for case in cases:
            _link(links, "agendapunt_zaak", "zaak_agendapunt", point, case)
    for case, documents in recorded["zaak_document"].items():
        for document in documents:
            _link(links, "zaak_document", "document_zaak", case, document)
    by_number = {z["Nummer"]: z["Id"] for z in rows["Zaak"] if z.get("Nummer")}
    for besluit in rows["Besluit"]:
        cases = recorded["agendapunt_zaak"].get(str(besluit.get("Agendapunt_Id")), [])
        if besluit["Id"] == ROLL_CALL:
            cases = [by_number[ROLL_CALL_CASE]]
        if len(cases) == 1:
            _link(links, "besluit_zaak", "zaak_besluit", besluit["Id"], cases[0])
    return links


# --------------------------------------------------------------------------- made-up rows (counted in provenance)


def _sample_id(kind: str, key: str) -> str:
    return str(uuid.uuid5(SAMPLE, f"{kind}:{key}"))


def _seats(rows: dict[str, list[Row]]) -> tuple[list[Row], list[Row]]:
    """One seat row per party and one holding per member, from each member's own roll-call vote row."""
    votes = [v for v in rows["Stemming"] if v.get("Besluit_Id") == ROLL_CALL and v.get("Persoon_Id")]
    zetels: dict[str, Row] = {}
    holdings = []
    for vote in votes:
        party = str(vote["Fractie_Id"])
        zetel = zetels.setdefault(party, {
            "Id": _sample_id("FractieZetel", party), "Gewicht": 1, "Fractie_Id": party,
            "GewijzigdOp": TERM_START, "ApiGewijzigdOp": None, "Verwijderd": False})
        holdings.append({
            "Id": _sample_id("FractieZetelPersoon", str(vote["Persoon_Id"])), "FractieZetel_Id": zetel["Id"],
            "Persoon_Id": vote["Persoon_Id"], "Functie": "Lid", "Van": TERM_START, "TotEnMet": None,
            "GewijzigdOp": vote["GewijzigdOp"], "ApiGewijzigdOp": vote["ApiGewijzigdOp"], "Verwijderd": False})
    return list(zetels.values()), holdings


# Recorded activities that the coming days' samples copy (Soort, committee, place), with the day they fall on.
UPCOMING = ((0, "Commissiedebat", "I&W"), (1, "Procedurevergadering", "I&W"), (1, "Plenair debat (tweeminutendebat)",
            "TK"), (2, "Commissiedebat", "I&W"), (3, "Petitie", "VWS"), (4, "Stemmingen", "TK"),
            (8, "Plenair debat (debat)", "TK"), (10, "Gesprek", "J&V"))


def _offset(day: date) -> str:
    last_sunday = {m: max(d for d in (date(day.year, m, n) for n in range(25, 32)) if d.weekday() == 6)
                   for m in (3, 10)}
    return "+02:00" if last_sunday[3] <= day < last_sunday[10] else "+01:00"


def _upcoming(anchor: date, activities: list[Row]) -> tuple[list[Row], list[Row]]:
    """Activities in the coming days, each a copy of a recorded one, marked as a sample in its subject."""
    made, points = [], []
    for n, (days, kind, committee) in enumerate(UPCOMING):
        model = next(a for a in activities if a.get("Soort") == kind and a.get("Voortouwafkorting") == committee)
        day = anchor + timedelta(days=days)
        start = f"{day.isoformat()}T{10 + n % 6:02d}:00:00{_offset(day)}"
        row = {**model, "Id": _sample_id("Activiteit", f"{anchor}:{n}"), "Nummer": f"VOORBEELD-{n + 1}",
               "Onderwerp": f"Voorbeeld (geen opgenomen activiteit): {model.get('Onderwerp')}", "Datum": start,
               "Aanvangstijd": start, "Eindtijd": start.replace(f"T{10 + n % 6:02d}:", f"T{11 + n % 6:02d}:"),
               "Status": "Gepland", "Besloten": False}
        made.append(row)
        points.append({"Id": _sample_id("Agendapunt", row["Id"]), "Nummer": None, "Onderwerp": row["Onderwerp"],
                       "Aanvangstijd": None, "Eindtijd": None, "Volgorde": 1, "Rubriek": None, "Noot": None,
                       "Status": "Vrijgegeven", "GewijzigdOp": model.get("GewijzigdOp"),
                       "ApiGewijzigdOp": model.get("ApiGewijzigdOp"), "Verwijderd": False, "Activiteit_Id": row["Id"]})
    return made, points


# Kamervragen: no recorded Zaak or Document of this kind was found, so (for tests) one question and one answer are
# built from the two real KOOP records the Officiële bekendmakingen replica serves, with their real numbers, dates,
# titles and session years; the GUIDs and the answer's case are made up, and the subjects say so.
KAMERVRAGEN = (
    ("Schriftelijke vragen", "2020Z13248", "2020D28811", "2020-07-02", "2019-2020", None,
     "Huisbazen die weigeren loden leidingen te vervangen"),
    ("Antwoord schriftelijke vragen", "2021Z09845", "2021D23907", "2021-06-21", "2020-2021", "202103235",
     "Antwoord op vragen van de leden Van Weyenberg, Romke de Jong en Kat over de Tozo"),
)


def _kamervragen(links: dict[str, dict[str, list[str]]]) -> tuple[list[Row], list[Row]]:
    cases, documents = [], []
    for kind, case, number, day, year, appendix, subject in KAMERVRAGEN:
        said = f"Voorbeeld (opgebouwd uit het KOOP-record, geen opgenomen Kamerrecord): {subject}"
        stamp = f"{day}T00:00:00+02:00"
        change = {"GewijzigdOp": stamp, "ApiGewijzigdOp": f"{day}T00:00:00Z", "Verwijderd": False}
        zaak = {"Id": _sample_id("Zaak", case), "Nummer": case, "Soort": "Schriftelijke vragen", "Titel": subject,
                "Citeertitel": None, "Alias": None, "Status": "Vrijgegeven", "Onderwerp": said, "GestartOp": stamp,
                "Organisatie": "Tweede Kamer", "Grondslagvoorhang": None, "Termijn": None, "Vergaderjaar": year,
                "Volgnummer": None, "HuidigeBehandelstatus": None, "Afgedaan": kind.startswith("Antwoord"),
                "GrootProject": False, "Kabinetsappreciatie": None, **change}
        document = {"Id": _sample_id("Document", number), "Soort": kind, "DocumentNummer": number, "Titel": subject,
                    "Onderwerp": said, "Datum": stamp, "Vergaderjaar": year, "Kamer": 2, "Volgnummer": None,
                    "Citeertitel": None, "Alias": None, "DatumRegistratie": stamp, "DatumOntvangst": None,
                    "Aanhangselnummer": appendix, "KenmerkAfzender": None, "Organisatie": "Tweede Kamer",
                    "ContentType": "application/pdf", "ContentLength": None, "HuidigeDocumentVersie_Id": None,
                    **change}
        cases.append(zaak)
        documents.append(document)
        _link(links, "zaak_document", "document_zaak", _sample_id("Zaak", case), _sample_id("Document", number))
    return cases, documents


def _committees(activities: list[Row]) -> list[Row]:
    """The committees the recorded activities name (their Voortouw fields: real names and abbreviations); no
    Commissie row and no seat was recorded, so the Ids are made up and the committees have no members here."""
    seen: dict[str, Row] = {}
    for a in activities:
        short, name = a.get("Voortouwafkorting"), a.get("Voortouwnaam")
        if not short or not name or short == "TK" or short in seen:
            continue
        seen[short] = {"Id": _sample_id("Commissie", short), "Nummer": None,
                       "Soort": "Vaste commissie" if str(name).startswith("vaste commissie") else None,
                       "Afkorting": short, "NaamNL": name, "NaamEN": None, "NaamWebNL": a.get("Voortouwkortenaam"),
                       "NaamWebEN": None, "Inhoudsopgave": None, "DatumActief": None, "DatumInactief": None,
                       "GewijzigdOp": a.get("GewijzigdOp"), "ApiGewijzigdOp": a.get("ApiGewijzigdOp"),
                       "Verwijderd": False}
    return list(seen.values())


# --------------------------------------------------------------------------- the store


def _real_rows() -> dict[str, list[Row]]:
    rows: dict[str, list[Row]] = {t.name: [] for t in TYPES}
    for name in SET_FILES:
        rows[name] = _records(f"{name}.json")
    for name, deleted in _read("deleted.json").items():
        rows[name].extend(_tombstones(next(t for t in TYPES if t.name == name), deleted))
    return rows


@lru_cache(maxsize=4)
def build_store(anchor: date, *, fixtures: bool = False) -> Store:
    """Every entity set for this anchor: the recorded rows, the seats, and (for tests) the coming days' sample
    activities."""
    rows = _real_rows()
    links = _recorded_links(rows)
    rows["FractieZetel"], rows["FractieZetelPersoon"] = _seats(rows)
    rows["Commissie"] = _committees(rows["Activiteit"])
    activities, points = _upcoming(anchor, rows["Activiteit"]) if fixtures else ([], [])
    rows["Activiteit"] = [*rows["Activiteit"], *activities]
    rows["Agendapunt"] = [*rows["Agendapunt"], *points]
    if fixtures:
        cases, documents = _kamervragen(links)
        rows["Zaak"] = [*rows["Zaak"], *cases]
        rows["Document"] = [*rows["Document"], *documents]
    return Store(TYPES, rows, links)


def provenance(anchor: date, *, fixtures: bool = False) -> Provenance:
    """Served records by data file, counted from the store itself; the seats and samples named one by one."""
    store = build_store(anchor, fixtures=fixtures)
    recorded = {f"{name}.json": len(_records(f"{name}.json")) for name in SET_FILES}
    recorded["deleted.json"] = sum(len(v) for v in _read("deleted.json").values())
    made = {r["Id"] for name in ("FractieZetel", "FractieZetelPersoon", "Commissie") for r in store.rows[name]}
    made |= {r["Id"] for r in store.rows["Activiteit"] + store.rows["Agendapunt"] + store.rows["Zaak"]
             + store.rows["Document"] if str(r.get("Onderwerp") or "").startswith("Voorbeeld")}
    assert sum(recorded.values()) + len(made) == sum(len(v) for v in store.rows.values())
    invented = tuple(
        [f"FractieZetel {r['Id']}: seat of party {r['Fractie_Id']}; recorded seat rows lack their links"
         for r in store.rows["FractieZetel"]]
        + [f"FractieZetelPersoon {r['Id']}: member {r['Persoon_Id']} in a seat, from the member's roll-call vote"
           for r in store.rows["FractieZetelPersoon"]]
        + [f"Commissie {r['Id']}: {r['Afkorting']}, named by recorded activities (Voortouw); no committee row or "
           "seat was recorded, so it has no members here" for r in store.rows["Commissie"]]
        + [f"{name} {r['Id']}: {r['Nummer'] or 'agenda item'}, nothing recorded is dated after {RECORDED_ON}"
           for name in ("Activiteit", "Agendapunt") for r in store.rows[name]
           if str(r.get("Onderwerp") or "").startswith("Voorbeeld")]
        + [f"{name} {r['Id']}: {r.get('Nummer') or r.get('DocumentNummer')}, Kamervragen built from a real KOOP "
           "record; no Kamer record of this kind was found" for name in ("Zaak", "Document") for r in store.rows[name]
           if str(r.get("Onderwerp") or "").startswith("Voorbeeld")])
    real = {name: [r for r in rows if r["Id"] not in made] for name, rows in store.rows.items()}
    holds = (*tally(f"{r.get('Soort')} (Zaak)" for r in real["Zaak"] if not r.get("Verwijderd")),
             *tally(f"{r.get('Soort')} (Document)" for r in real["Document"] if not r.get("Verwijderd")),
             f"{len(real['Persoon'])} members (Persoon), {len(real['Stemming'])} votes (Stemming), "
             f"{len(real['Activiteit'])} activities")
    return Provenance(recorded=recorded, invented=invented, recorded_on=RECORDED_ON, holds=holds)
