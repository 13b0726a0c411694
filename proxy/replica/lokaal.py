"""Replica of KOOP's SRU 2.0 (https://repository.overheid.nl/sru) for the four decentral gazettes.

Serves, under the platform's real paths:

* `GET|POST /sru` (and `/sru/Search`): `operation=searchRetrieve`, `version=2.0`, `recordSchema=gzd`,
  `startRecord`, `maximumRecords` (≤ 1000), `query` (the CQL subset of `sru_common`), `facetLimit`
  (`N:index,…`). Replies are SRU 2.0 `gzd` records shaped like the recorded response in
  `data/officieel/`, with `resultCountPrecision` estimate and `nextRecordPosition`. Bad CQL → an
  SRU diagnostic in an HTTP 200; `startRecord >= 10000` → nginx 504, as the real service does.
* `GET /frbr/officielepublicaties/<blad>/<jaar>/<id>/1/{xml,html}/<id>.{xml,html}`: the texts.

Data: about 1,750 publications of 43 organisations (gemeenten, provincies, waterschappen,
gemeenschappelijke regelingen) over two years before `anchor`, generated with a seeded
`random.Random`, plus the real record gmb-2023-174296 (`data/lokaal/records.json`). Three
organisations are stalled: Vlieland (210 days), Wetterskip Fryslân (75 days) and
Belastingsamenwerking Rivierenland (140 days). One Gouda notice carries script/img payloads in its
title and abstract, for the site's inertness test.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path

from aiohttp import web

from proxy.replica.sru_common import Publication, koop_app

__all__ = ["NEWEST", "STALLED", "XSS_ABSTRACT", "XSS_TITLE", "build_publications", "create_app"]

DATA = Path(__file__).resolve().parent / "data" / "lokaal" / "records.json"
XSS_TITLE = "Kennisgeving <script>alert(1)</script> ontwerpbestemmingsplan Binnenstad-Oost"
XSS_ABSTRACT = "<img src=x onerror=alert(1)> ter inzage"
# Days before the anchor of the newest publication of each stalled organisation.
STALLED = {"Vlieland": 210, "Wetterskip Fryslân": 75, "Belastingsamenwerking Rivierenland": 140}
# Days before the anchor of the newest publication per gazette.
NEWEST = {"gmb": 0, "prb": 1, "wsb": 2, "bgr": 3}


@dataclass(frozen=True, slots=True)
class Organisation:
    name: str
    medium: str
    weight: int


_MEDIA = {  # code: (publicatienaam, organisatietype, creator scheme)
    "gmb": ("Gemeenteblad", "gemeente", "OVERHEID.Gemeente"),
    "prb": ("Provinciaal blad", "provincie", "OVERHEID.Provincie"),
    "wsb": ("Waterschapsblad", "waterschap", "OVERHEID.Waterschap"),
    "bgr": ("Blad gemeenschappelijke regeling", "regionaal samenwerkingsorgaan",
            "OVERHEID.RegionaalSamenwerkingsorgaan"),
}

ORGANISATIONS = (
    *(Organisation(n, "gmb", w) for n, w in (
        ("Amsterdam", 10), ("Rotterdam", 9), ("Utrecht", 8), ("'s-Gravenhage", 8), ("Eindhoven", 6),
        ("Groningen", 6), ("Tilburg", 5), ("Almere", 4), ("Breda", 4), ("Nijmegen", 4), ("Gouda", 3),
        ("Pijnacker-Nootdorp", 3), ("Bergeijk", 2), ("Leiden", 4), ("Delft", 3), ("Zwolle", 4), ("Leeuwarden", 3),
        ("Maastricht", 3), ("Haarlem", 4), ("Arnhem", 4), ("Enschede", 3), ("Deventer", 3), ("Amersfoort", 4),
        ("Dordrecht", 3), ("Alkmaar", 3), ("Súdwest-Fryslân", 2), ("Vlieland", 1), ("Schiermonnikoog", 1))),
    *(Organisation(n, "prb", w) for n, w in (
        ("Gelderland", 3), ("Noord-Brabant", 3), ("Fryslân", 2), ("Zeeland", 2), ("Utrecht", 2))),
    *(Organisation(n, "wsb", w) for n, w in (
        ("Waterschap Rivierenland", 2), ("Hoogheemraadschap van Rijnland", 2), ("Waterschap Aa en Maas", 2),
        ("Wetterskip Fryslân", 1), ("Waterschap Vallei en Veluwe", 2))),
    *(Organisation(n, "bgr", w) for n, w in (
        ("Veiligheidsregio Utrecht", 2), ("Omgevingsdienst Regio Nijmegen", 2), ("GGD Hollands Midden", 2),
        ("Belastingsamenwerking Rivierenland", 1), ("Metropoolregio Rotterdam Den Haag", 1))),
)

_STREETS = ("Kerkstraat", "Dorpsstraat", "Molenweg", "Stationsplein", "Nieuwe Haven", "Oude Gracht", "Lindelaan",
            "Schoolstraat", "Marktplein", "Julianastraat", "Beukenlaan", "Industrieweg", "Vaartweg", "Havenkade")
_ACTIVITIES = ("het plaatsen van een dakkapel", "het kappen van een boom", "verwijderen van asbest van het dak",
               "het bouwen van een woning", "het wijzigen van een gevel", "het plaatsen van zonnepanelen",
               "het uitbreiden van een bedrijfshal", "het aanleggen van een uitrit", "het slopen van een schuur")
_GMB_TOPICS = ("afvalstoffenheffing", "onroerendezaakbelastingen", "rioolheffing", "toeristenbelasting",
               "parkeerbelastingen", "maatschappelijke ondersteuning", "jeugdhulp", "precariobelasting")
_POLICY = ("handhaving", "schuldhulpverlening", "ligplaatsen", "terrassen", "evenementen", "standplaatsen")
_SUBJECTS = {
    "omgevingsvergunning": "Ruimte en infrastructuur | Organisatie en beleid",
    "verkeersbesluit": "Verkeer | Wegen",
    "verordening": "Financiën | Belasting",
    "beleidsregel": "Bestuur | Organisatie en beleid",
    "kennisgeving": "Ruimte en infrastructuur | Ruimtelijke ordening",
    "ander besluit van algemene strekking": "Bestuur | Organisatie en beleid",
    "watervergunning": "Natuur en milieu | Water",
}
_NOTICE = ("Tegen dit besluit kunnen belanghebbenden binnen zes weken na de dag van bekendmaking bezwaar maken bij het "
           "bestuursorgaan dat het besluit heeft genomen.")


def _title_and_text(rng: random.Random, org: Organisation, kind: str, year: int) -> tuple[str, str, list[str]]:
    """(title, abstract, paragraphs) for one publication of this kind."""
    street, nr = rng.choice(_STREETS), rng.randint(1, 180)
    place = org.name
    if kind == "omgevingsvergunning":
        activity = rng.choice(_ACTIVITIES)
        verb = rng.choice(("Verleende omgevingsvergunning", "Aanvraag omgevingsvergunning", "Ingekomen melding"))
        title = f"{verb}, {street} {nr} {rng.randint(1000, 9999)}{rng.choice('ABCDHKLMNPRST')}" \
                f"{rng.choice('ABEGHJKLNRSTVX')} {place}, {activity}"
        text = [f"Het college van burgemeester en wethouders van {place} maakt bekend dat het een besluit heeft "
                f"genomen over {activity} op de locatie {street} {nr}.", _NOTICE]
        return title, activity, text
    if kind == "verkeersbesluit":
        what = rng.choice(("aanwijzen van een gehandicaptenparkeerplaats", "instellen van eenrichtingsverkeer",
                           "instellen van een inhaalverbod", "aanwijzen van een oplaadplaats voor elektrische auto's"))
        return (f"Verkeersbesluit {what}, {street} {nr}", what,
                [f"Het bevoegd gezag besluit tot het {what} ter hoogte van {street} {nr} te {place}.",
                 "Dit besluit is genomen op grond van de Wegenverkeerswet 1994.", _NOTICE])
    if kind == "verordening":
        topic = rng.choice(_GMB_TOPICS) if org.medium == "gmb" else rng.choice(
            ("watersysteemheffing", "zuiveringsheffing", "subsidies natuur en landschap", "omgeving"))
        return (f"Verordening {topic} {place} {year}", "",
                [f"Het algemeen bestuur stelt de Verordening {topic} {year} vast.",
                 "Artikel 1 Begripsbepalingen. In deze verordening wordt verstaan onder belastingplichtige: degene die "
                 "bij het begin van het belastingjaar het genot heeft van een belastbaar object.",
                 "Artikel 2 Inwerkingtreding. Deze verordening treedt in werking op de dag na bekendmaking."])
    if kind == "beleidsregel":
        topic = rng.choice(_POLICY)
        return (f"Beleidsregels {topic} {place} {year}", "",
                [f"Het college stelt beleidsregels vast voor {topic}.",
                 "De beleidsregels zijn van toepassing op aanvragen die na de inwerkingtreding worden ingediend."])
    if kind == "kennisgeving":
        what = rng.choice(("ontwerpbestemmingsplan", "vastgesteld omgevingsplan", "ontwerp-omgevingsvisie",
                           "ontwerpbesluit hogere waarden geluid"))
        return (f"Kennisgeving {what} {rng.choice(_STREETS)} {place}", "",
                [f"Met ingang van de dag na deze bekendmaking ligt het {what} zes weken ter inzage.",
                 "Iedereen kan gedurende de termijn van terinzagelegging een zienswijze naar voren brengen."])
    if kind == "watervergunning":
        activity = rng.choice(("het onttrekken van grondwater", "het aanleggen van een steiger",
                               "het dempen van een watergang", "het lozen van hemelwater"))
        return (f"Watervergunning {activity}, {street} {nr}", activity,
                [f"Het dagelijks bestuur heeft een watervergunning verleend voor {activity}.", _NOTICE])
    what = {"gmb": ("Mandaatbesluit", "Aanwijzingsbesluit toezichthouders", "Besluit vaststelling tarieven"),
            "prb": ("Subsidieregeling vitaal platteland", "Besluit ontheffing Omgevingswet soortenbescherming",
                    "Besluit aanwijzing provinciale wegen"),
            "wsb": ("Peilbesluit polder De Vlist", "Legger oppervlaktewateren", "Besluit vaststelling tarieven"),
            "bgr": ("Begroting", "Jaarrekening", "Mandaatbesluit", "Wijziging gemeenschappelijke regeling")}[org.medium]
    head = rng.choice(what)
    return (f"{head} {place} {year}", "",
            [f"Het bestuur van {place} heeft het volgende besluit genomen: {head.lower()} {year}.",
             "Dit besluit treedt in werking op de dag na bekendmaking."])


_KINDS = {
    "gmb": (("omgevingsvergunning", 45), ("verkeersbesluit", 15), ("kennisgeving", 12),
            ("ander besluit van algemene strekking", 10), ("verordening", 10), ("beleidsregel", 8)),
    "prb": (("ander besluit van algemene strekking", 50), ("verordening", 20), ("kennisgeving", 20),
            ("verkeersbesluit", 10)),
    "wsb": (("watervergunning", 40), ("ander besluit van algemene strekking", 30), ("verordening", 30)),
    "bgr": (("ander besluit van algemene strekking", 70), ("verordening", 20), ("beleidsregel", 10)),
}


def _pick_kind(rng: random.Random, medium: str) -> str:
    kinds, weights = zip(*_KINDS[medium], strict=True)
    return rng.choices(kinds, weights=weights)[0]


def _age(rng: random.Random) -> int:
    """Days before the anchor: recent material is denser, as on the real platform."""
    return int(rng.random() ** 1.6 * 730)


def build_publications(anchor: date, *, seed: int = 20260101) -> list[Publication]:
    """The replica's publications (deterministic for an anchor)."""
    rng = random.Random(seed)
    dated: list[tuple[date, Organisation, str | None]] = []
    for org in ORGANISATIONS:
        stalled = STALLED.get(org.name)
        count = org.weight * 11 + rng.randint(0, 6)
        newest = anchor - timedelta(days=stalled if stalled else NEWEST[org.medium] + rng.randint(0, 9))
        dated.append((newest, org, None))
        for _ in range(count - 1):
            day = anchor - timedelta(days=_age(rng))
            dated.append((min(day, newest), org, None))
    leaders = {m: next(o for o in ORGANISATIONS if o.medium == m) for m in NEWEST}
    dated.extend((anchor - timedelta(days=days), leaders[m], None) for m, days in NEWEST.items())
    gouda = next(o for o in ORGANISATIONS if o.name == "Gouda")
    dated.append((anchor - timedelta(days=2), gouda, "xss"))
    dated.sort(key=lambda item: (item[0], item[1].name))

    seeds = [Publication(**{**r, "formats": tuple(r["formats"]),
                            "extra_tpmeta": [tuple(t) for t in r.get("extra_tpmeta", [])]})
             for r in json.loads(DATA.read_text(encoding="utf-8"))["records"]]
    taken = {p.identifier for p in seeds}
    numbers: dict[tuple[str, int], int] = {}
    out = list(seeds)
    for available, org, special in dated:
        publicatienaam, org_type, scheme = _MEDIA[org.medium]
        key = (org.medium, available.year)
        base = 100_000 if org.medium == "gmb" else 1_000
        numbers[key] = numbers.get(key, base + rng.randint(0, 5_000)) + rng.randint(1, 40)
        identifier = f"{org.medium}-{available.year}-{numbers[key]}"
        if identifier in taken:
            continue
        taken.add(identifier)
        kind = "kennisgeving" if special else _pick_kind(rng, org.medium)
        title, abstract, paragraphs = _title_and_text(rng, org, kind, available.year)
        if special:
            title, abstract = XSS_TITLE, XSS_ABSTRACT
            paragraphs = [f"Zienswijzen: {XSS_TITLE}. {XSS_ABSTRACT}.", *paragraphs]
        signed = available - timedelta(days=rng.randint(0, 6))
        out.append(Publication(
            identifier=identifier, title=title, type=kind, creator=org.name, creator_scheme=scheme,
            organisation_type=org_type, publication_name=publicatienaam, area=f"{org.medium}/{available.year}",
            date=signed.isoformat(), available=available.isoformat(), modified=available.isoformat(),
            year=str(available.year), number=str(numbers[key]), abstract=abstract,
            subjects=[_SUBJECTS.get(kind, "Bestuur | Organisatie en beleid")], paragraphs=paragraphs))
    return out


def create_app(anchor: date) -> web.Application:
    """The replica app; mounted by `create_replicas_app` under /lokaal."""
    return koop_app(build_publications(anchor))
