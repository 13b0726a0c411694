"""Replica of KOOP's SRU 2.0 (https://repository.overheid.nl/sru) for the national gazettes and parliament.

Serves the same request subset as the `lokaal` replica (see `proxy.replica.sru_common.koop_app`):
`GET|POST /sru` with `searchRetrieve` 2.0 and the CQL subset, and the XML texts under
`/frbr/officielepublicaties/...`.

Data: the eleven recorded SRU 2.0 records in `data/officieel/` (Kamerstukken, bijlagen,
Handelingen, a Kamervraag; served verbatim), five real Staatsblad records (fields from an SRU 1.2
recording), and about 330 generated publications of Staatscourant, Staatsblad, Tractatenblad,
Kamerstukken and Handelingen over the year before `anchor` (seeded `random.Random`). The Tractatenblad
is stalled: its newest publication is `TRACTATENBLAD_STALLED_DAYS` before the anchor. One Staatscourant
record carries script/img payloads in its title and abstract, for the site's inertness test.
"""

from __future__ import annotations

import json
import random
import re
from datetime import date, timedelta
from pathlib import Path

from aiohttp import web
from defusedxml import ElementTree as SafeET

from proxy.replica.sru_common import Publication, koop_app

__all__ = ["NEWEST", "TRACTATENBLAD_STALLED_DAYS", "XSS_ABSTRACT", "XSS_TITLE", "build_publications", "create_app"]

DATA = Path(__file__).resolve().parent / "data" / "officieel"
TRACTATENBLAD_STALLED_DAYS = 75
# Days before the anchor of the newest publication per gazette.
NEWEST = {"stcrt": 0, "stb": 1, "trb": TRACTATENBLAD_STALLED_DAYS, "kst": 0, "h": 3}
XSS_TITLE = "Regeling <script>alert(1)</script> tarieven luchtvaart 2026"
XSS_ABSTRACT = "<img src=x onerror=alert(1)> toelichting"

_MINISTRIES = ("Ministerie van Binnenlandse Zaken en Koninkrijksrelaties", "Ministerie van Financiën",
               "Ministerie van Justitie en Veiligheid", "Ministerie van Infrastructuur en Waterstaat",
               "Ministerie van Volksgezondheid, Welzijn en Sport", "Ministerie van Onderwijs, Cultuur en Wetenschap",
               "Ministerie van Economische Zaken", "Ministerie van Sociale Zaken en Werkgelegenheid",
               "Ministerie van Defensie", "Ministerie van Landbouw, Visserij, Voedselzekerheid en Natuur")
_TOPICS = ("subsidieregeling energiebesparing", "tarieven kinderopvangtoeslag", "aanwijzing toezichthouders",
           "vaststelling beleidskader verkeersveiligheid", "regeling bekostiging hoger onderwijs",
           "regeling vergunningen visserij", "mandaat- en volmachtbesluit", "regeling tegemoetkoming schade",
           "uitvoeringsregeling omgevingsrecht", "regeling aanwijzing ziekten Wet publieke gezondheid")
_COUNTRIES = ("de Republiek Kenia", "het Koninkrijk België", "de Bondsrepubliek Duitsland", "Japan",
              "de Republiek Colombia", "de Verenigde Arabische Emiraten", "Canada", "de Republiek Korea")
_DOSSIERS = (("36600-VII", "Vaststelling van de begrotingsstaten van het Ministerie van Binnenlandse Zaken en "
                           "Koninkrijksrelaties (VII) voor het jaar 2025"),
             ("36410", "Wijziging van de Wet op de zorgtoeslag"),
             ("29544", "Arbeidsmarktbeleid"),
             ("31293", "Primair Onderwijs"),
             ("32813", "Kabinetsaanpak Klimaatbeleid"),
             ("36560", "Wet versterking regie volkshuisvesting"),
             ("21501-20", "Europese Raad"),
             ("28286", "Dierenwelzijn"))
_KST_KINDS = ("Brief", "Motie", "Amendement", "Memorie van toelichting", "Verslag", "Nota naar aanleiding van het "
              "verslag")
_MEMBERS = ("Bikker", "Van Baarle", "Dassen", "Kostić", "Grinwis", "Omtzigt", "Bontenbal", "Jetten", "Klaver")


def _meeting_year(day: date) -> tuple[str, str]:
    """('20252026', '2025-2026') for a date: the parliamentary year runs from September."""
    first = day.year if day.month >= 9 else day.year - 1
    return f"{first}{first + 1}", f"{first}-{first + 1}"


def _recorded() -> list[Publication]:
    """The verbatim SRU 2.0 records: index fields read from them, the <gzd:gzd> text served as it is."""
    out: list[Publication] = []
    for name in ("sru2_staten-generaal_10of76.xml", "sru2_record_kv-2989900822.xml"):
        text = (DATA / name).read_text(encoding="utf-8")
        raw_elements = re.findall(r"<gzd:gzd>.*?</gzd:gzd>", text, flags=re.S)
        parsed = [e for e in SafeET.fromstring(text.encode()).iter() if e.tag == "{http://standaarden.overheid.nl/sru}gzd"]
        for raw, gzd in zip(raw_elements, parsed, strict=True):
            fields: dict[str, str] = {}
            subjects: list[str] = []
            formats: list[str] = []
            for el in gzd.iter():
                tag = el.tag.rsplit("}", 1)[-1]
                value = " ".join((el.text or "").split())
                if tag == "subject":
                    subjects.append(value)
                elif tag == "itemUrl":
                    formats.append(el.get("manifestation", ""))
                elif value and tag not in fields:
                    fields[tag] = value
            out.append(Publication(
                identifier=fields["identifier"], title=fields["title"], type=fields["type"],
                creator=fields["creator"], publication_name=fields["publicatienaam"],
                organisation_type=fields["organisatietype"],
                area=fields["content-area"].removeprefix("officielepublicaties/"), date=fields["date"],
                available=fields["available"], modified=fields["modified"], dossier=fields.get("dossiernummer", ""),
                number=fields.get("publicatienummer", ""), status=fields.get("documentstatus", ""),
                subjects=subjects, formats=tuple(formats), raw_gzd=raw,
                paragraphs=[fields["title"] + ".", "De tekst van deze publicatie is door de replica gegenereerd."]))
    return out


def _staatsblad() -> list[Publication]:
    records = json.loads((DATA / "staatsblad_records.json").read_text(encoding="utf-8"))["records"]
    return [Publication(
        identifier=r["identifier"], title=r["title"], type=r["type"], type_scheme="OVERHEIDop.Staatsblad",
        creator=r["creator"], creator_scheme="OVERHEID.Ministerie", publication_name="Staatsblad",
        organisation_type="ministerie", area=f"stb/{r['year']}", date=r["date"], available=r["available"],
        modified=r["modified"], year=r["year"], number=r["number"], dossier=r["dossier"], subjects=r["subjects"],
        paragraphs=[r["title"] + ".", "Lasten en bevelen dat deze in het Staatsblad zal worden geplaatst en dat alle "
                    "ministeries, autoriteiten, colleges en ambtenaren wie zulks aangaat, aan de nauwkeurige "
                    "uitvoering de hand zullen houden."]) for r in records]


def _generated(anchor: date, rng: random.Random) -> list[Publication]:
    out: list[Publication] = []
    counters: dict[str, int] = {}

    def day(medium: str, span: int) -> date:
        return anchor - timedelta(days=NEWEST[medium] + int(rng.random() ** 1.3 * span))

    def next_number(key: str, start: int) -> int:
        counters[key] = counters.get(key, start) + rng.randint(1, 25)
        return counters[key]

    plan = [("stcrt", 160), ("stb", 50), ("trb", 16), ("kst", 70), ("h", 36)]
    for medium, count in plan:
        days = sorted([anchor - timedelta(days=NEWEST[medium])] + [day(medium, 360) for _ in range(count - 1)])
        for available in days:
            ministry = rng.choice(_MINISTRIES)
            iso = available.isoformat()
            year = str(available.year)
            if medium == "stcrt":
                topic = rng.choice(_TOPICS)
                number = next_number(f"stcrt{year}", 10_000)
                out.append(Publication(
                    identifier=f"stcrt-{year}-{number}", title=f"Regeling van de minister: {topic} {year}",
                    type="Regeling", type_scheme="OVERHEIDop.Staatscourant", creator=ministry,
                    creator_scheme="OVERHEID.Ministerie", publication_name="Staatscourant",
                    organisation_type="ministerie", area=f"stcrt/{year}", date=iso, available=iso, modified=iso,
                    year=year, number=str(number), subjects=["Bestuur | Organisatie en beleid"],
                    paragraphs=[f"De minister, handelende in overeenstemming met de betrokken ministers, besluit tot "
                                f"de {topic}.", "Artikel 1. Deze regeling treedt in werking met ingang van de dag na "
                                "de datum van uitgifte van de Staatscourant waarin zij wordt geplaatst."]))
            elif medium == "stb":
                number = next_number(f"stb{year}", 100)
                kind = rng.choice(("Wet", "AMvB", "Koninklijk besluit"))
                subject = rng.choice(_TOPICS)
                title = (f"Wet van {available.day} {_month(available)} {year} tot wijziging van enige wetten in "
                         f"verband met {subject}") if kind == "Wet" else (
                         f"Besluit van {available.day} {_month(available)} {year} houdende {subject}")
                out.append(Publication(
                    identifier=f"stb-{year}-{number}", title=title, type=kind, type_scheme="OVERHEIDop.Staatsblad",
                    creator=ministry, creator_scheme="OVERHEID.Ministerie", publication_name="Staatsblad",
                    organisation_type="ministerie", area=f"stb/{year}", date=iso, available=iso, modified=iso,
                    year=year, number=str(number), paragraphs=[title + ".", "Wij Willem-Alexander, bij de gratie "
                    "Gods, Koning der Nederlanden, Prins van Oranje-Nassau, enz. enz. enz."]))
            elif medium == "trb":
                number = next_number(f"trb{year}", 10)
                country = rng.choice(_COUNTRIES)
                title = f"Verdrag tussen het Koninkrijk der Nederlanden en {country} inzake luchtvervoer"
                out.append(Publication(
                    identifier=f"trb-{year}-{number}", title=title, type="Verdrag",
                    type_scheme="OVERHEIDop.Tractatenblad",
                    creator="Ministerie van Buitenlandse Zaken", creator_scheme="OVERHEID.Ministerie",
                    publication_name="Tractatenblad", organisation_type="ministerie", area=f"trb/{year}", date=iso,
                    available=iso, modified=iso, year=year, number=str(number),
                    subjects=["Internationaal | Verdragen"],
                    paragraphs=[title + ".", "Het Verdrag is ondertekend en behoeft de goedkeuring van de "
                                "Staten-Generaal."]))
            elif medium == "kst":
                dossier, dossier_title = rng.choice(_DOSSIERS)
                number = next_number(f"kst{dossier}", 1)
                kind = rng.choice(_KST_KINDS)
                member = rng.choice(_MEMBERS)
                title = f"{dossier_title}; {kind}" + (f" van het lid {member}" if kind in ("Motie", "Amendement")
                                                       else "")
                _, vergaderjaar = _meeting_year(available)
                out.append(Publication(
                    identifier=f"kst-{dossier}-{number}", title=title, type="Kamerstuk",
                    type_scheme="OVERHEIDop.Parlementair", creator="Tweede Kamer der Staten-Generaal",
                    creator_scheme="OVERHEID.StatenGeneraal", publication_name="Kamerstuk",
                    organisation_type="staten generaal", area=f"kst/{dossier}", date=iso, available=iso,
                    modified=iso, dossier=dossier, status="Opgemaakt",
                    extra_tpmeta=[("overheidwetgeving:ondernummer", str(number)),
                                  ("overheidwetgeving:vergaderjaar", vergaderjaar),
                                  ("overheidwetgeving:subrubriek", kind)],
                    paragraphs=[title + ".", f"De Kamer, gehoord de beraadslaging, verzoekt de regering "
                                f"(ingediend door het lid {member})."]))
            else:
                code, vergaderjaar = _meeting_year(available)
                meeting = next_number(f"h{code}", 1)
                item = rng.randint(1, 12)
                dossier, dossier_title = rng.choice(_DOSSIERS)
                title = f"Stemmingen {dossier_title}" if item % 3 == 0 else f"Debat over {dossier_title.lower()}"
                out.append(Publication(
                    identifier=f"h-tk-{code}-{meeting}-{item}", title=title, type="Handeling",
                    type_scheme="OVERHEIDop.Parlementair", creator="Tweede Kamer der Staten-Generaal",
                    creator_scheme="OVERHEID.StatenGeneraal", publication_name="Handelingen",
                    organisation_type="staten generaal", area=f"h-tk/{code}", date=iso, available=iso, modified=iso,
                    number=str(meeting), status="Opgemaakt",
                    extra_tpmeta=[("overheidwetgeving:vergaderjaar", vergaderjaar),
                                  ("overheidwetgeving:handelingenitemnummer", str(item)),
                                  ("overheidwetgeving:behandeldDossier", dossier)],
                    paragraphs=[title + ".", "De voorzitter: Aan de orde is de behandeling van het "
                                f"wetsvoorstel {dossier_title}."]))
    xss_day = (anchor - timedelta(days=1)).isoformat()
    number = next_number(f"stcrt{anchor.year}", 10_000)
    out.append(Publication(
        identifier=f"stcrt-{anchor.year}-{number}", title=XSS_TITLE, type="Regeling",
        type_scheme="OVERHEIDop.Staatscourant", creator="Ministerie van Infrastructuur en Waterstaat",
        creator_scheme="OVERHEID.Ministerie", publication_name="Staatscourant", organisation_type="ministerie",
        area=f"stcrt/{anchor.year}", date=xss_day, available=xss_day, modified=xss_day, year=str(anchor.year),
        number=str(number), abstract=XSS_ABSTRACT, paragraphs=[XSS_TITLE, XSS_ABSTRACT]))
    return out


def _month(day: date) -> str:
    return ("januari", "februari", "maart", "april", "mei", "juni", "juli", "augustus", "september", "oktober",
            "november", "december")[day.month - 1]


def build_publications(anchor: date, *, seed: int = 20260202) -> list[Publication]:
    """The replica's publications (deterministic for an anchor); generated identifiers never shadow recorded ones."""
    recorded = [*_recorded(), *_staatsblad()]
    taken = {p.identifier for p in recorded}
    generated = [p for p in _generated(anchor, random.Random(seed)) if p.identifier not in taken]
    unique = {p.identifier: p for p in generated}
    return [*recorded, *unique.values()]


def create_app(anchor: date) -> web.Application:
    """The replica app; mounted by `create_replicas_app` under /officieel."""
    return koop_app(build_publications(anchor))
