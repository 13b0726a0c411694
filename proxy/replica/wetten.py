"""Replica of the BWB SRU (https://zoekservice.overheid.nl/sru/Search?x-connection=BWB) and its repository.

Serves, under the platform's real paths:

* `GET|POST /sru/Search` with `x-connection=BWB`, `operation=searchRetrieve`, `version` 1.2 (default;
  `srw:` namespace http://www.loc.gov/zing/srw/) or 2.0 (OASIS `sruResponse`), `startRecord`,
  `maximumRecords` (≤ 1000), `query` in the CQL subset of `sru_common` over the indexes
  `dcterms.identifier`, `overheidbwb.titel`, `dcterms.type`, `dcterms.modified`, `overheid.authority`,
  `overheidbwb.rechtsgebied`, `overheidbwb.geldigheidsperiode_startdatum|einddatum` and
  `overheidbwb.geldigheidsdatum==<date>` ("in force on"). One record per version (toestand), as on the
  real service: without the date filter a regulation comes back once per version. Generic indexes
  such as `dcterms.title` or `cql.textAndIndexes` are refused (diagnostic 16), as BWB does. Bad CQL →
  an SRU diagnostic in an HTTP 200 (1.2: a bare `<diagnostics>` document, as recorded).
* `GET /bwb/<BWBR>/<date>_<n>/xml/<BWBR>_<date>_<n>.xml`: the toestand XML (the record's
  `overheidbwb:locatie_toestand` on repository.officiele-overheidspublicaties.nl).

Quirks of the real service, and what each rests on:

* one version (toestand) can come back as several records, one per "zicht" generation (labels
  `<date>_0`, `_1`, …, each with `zichtdatum_start`/`zichtdatum_eind`; a later generation corrects
  the text), in generation order, so the first record on a date can be superseded text
  (documentation only: a third-party write-up shows four records `_0…_3` for BWBR0011353 on one
  date; the `zichtdatum_*` fields come from the recorded manifest, their place in the SRU record is
  inferred). `numberOfRecords` counts these records;
* an open end date is `9999-12-31` (recorded: the manifest's `einddatum`).

Data: 31 regulations with one to five versions each (about a hundred), dated around `anchor` (some versions start in
the future, as announced versions do), articles whose text changes between versions, generated
with a seeded `random.Random`; plus the real toestand of BWBR0003984 and the real version dates of
the Wet open overheid (BWBR0045754) from `data/wetten/`. The newest `dcterms.modified` is
`NEWEST_MODIFIED_DAYS` before the anchor. Texts other than BWBR0003984 are generated.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta
from pathlib import Path

from aiohttp import web

from proxy.replica.sru_common import (
    Clause,
    Evaluation,
    Record,
    SruFault,
    SruRequest,
    check_query,
    evaluate,
    koop_diagnostic,
    parse_cql,
    request_params,
    sort_records,
    sru_request,
    x,
    xml_response,
)

__all__ = ["NEWEST_MODIFIED_DAYS", "REGULATIONS", "Version", "build_versions", "create_app"]

DATA = Path(__file__).resolve().parent / "data" / "wetten"
REPOSITORY = "https://repository.officiele-overheidspublicaties.nl"
NEWEST_MODIFIED_DAYS = 1
SRW = "http://www.loc.gov/zing/srw/"
GZD = "http://standaarden.overheid.nl/sru/"

# (BWB id, citation title, kind, ministry, field of law, topic used in generated articles)
REGULATIONS: tuple[tuple[str, str, str, str, str, str], ...] = (
    ("BWBR0005537", "Algemene wet bestuursrecht", "wet", "Justitie en Veiligheid", "Bestuursrecht", "besluiten"),
    ("BWBR0001854", "Wetboek van Strafrecht", "wet", "Justitie en Veiligheid", "Strafrecht", "strafbare feiten"),
    ("BWBR0005416", "Gemeentewet", "wet", "Binnenlandse Zaken en Koninkrijksrelaties", "Staatsrecht", "de gemeente"),
    ("BWBR0005645", "Provinciewet", "wet", "Binnenlandse Zaken en Koninkrijksrelaties", "Staatsrecht",
     "de provincie"),
    ("BWBR0005108", "Waterschapswet", "wet", "Infrastructuur en Waterstaat", "Staatsrecht", "het waterschap"),
    ("BWBR0037885", "Omgevingswet", "wet", "Volkshuisvesting en Ruimtelijke Ordening", "Omgevingsrecht",
     "de fysieke leefomgeving"),
    ("BWBR0041330", "Besluit activiteiten leefomgeving", "AMvB", "Infrastructuur en Waterstaat", "Omgevingsrecht",
     "milieubelastende activiteiten"),
    ("BWBR0045528", "Omgevingsregeling", "ministeriele-regeling", "Volkshuisvesting en Ruimtelijke Ordening",
     "Omgevingsrecht", "aanvragen om een omgevingsvergunning"),
    ("BWBR0005252", "Wet openbaarheid van bestuur", "wet", "Binnenlandse Zaken en Koninkrijksrelaties",
     "Bestuursrecht", "verzoeken om informatie"),
    ("BWBR0002320", "Algemene wet inzake rijksbelastingen", "wet", "Financiën", "Belastingrecht",
     "de heffing van rijksbelastingen"),
    ("BWBR0011353", "Wet inkomstenbelasting 2001", "wet", "Financiën", "Belastingrecht", "het belastbaar inkomen"),
    ("BWBR0002629", "Wet op de omzetbelasting 1968", "wet", "Financiën", "Belastingrecht", "leveringen van goederen"),
    ("BWBR0001840", "Grondwet", "wet", "Binnenlandse Zaken en Koninkrijksrelaties", "Staatsrecht", "grondrechten"),
    ("BWBR0001903", "Opiumwet", "wet", "Volksgezondheid, Welzijn en Sport", "Strafrecht", "middelen"),
    ("BWBR0006622", "Wegenverkeerswet 1994", "wet", "Infrastructuur en Waterstaat", "Verkeersrecht",
     "het verkeer op de weg"),
    ("BWBR0004825", "Reglement verkeersregels en verkeerstekens 1990 (RVV 1990)", "AMvB",
     "Infrastructuur en Waterstaat", "Verkeersrecht", "verkeerstekens"),
    ("BWBR0011823", "Vreemdelingenwet 2000", "wet", "Asiel en Migratie", "Vreemdelingenrecht",
     "verblijfsvergunningen"),
    ("BWBR0015703", "Participatiewet", "wet", "Sociale Zaken en Werkgelegenheid", "Sociaal recht", "bijstand"),
    ("BWBR0035362", "Wet maatschappelijke ondersteuning 2015", "wet", "Volksgezondheid, Welzijn en Sport",
     "Sociaal recht", "maatschappelijke ondersteuning"),
    ("BWBR0034925", "Jeugdwet", "wet", "Volksgezondheid, Welzijn en Sport", "Sociaal recht", "jeugdhulp"),
    ("BWBR0003420", "Wet op het primair onderwijs", "wet", "Onderwijs, Cultuur en Wetenschap", "Onderwijsrecht",
     "basisscholen"),
    ("BWBR0005682", "Wet op het hoger onderwijs en wetenschappelijk onderzoek", "wet",
     "Onderwijs, Cultuur en Wetenschap", "Onderwijsrecht", "instellingen voor hoger onderwijs"),
    ("BWBR0001830", "Wet op de rechterlijke organisatie", "wet", "Justitie en Veiligheid", "Procesrecht",
     "de gerechten"),
    ("BWBR0001827", "Wetboek van Burgerlijke Rechtsvordering", "wet", "Justitie en Veiligheid", "Procesrecht",
     "de dagvaarding"),
    ("BWBR0025028", "Mediawet 2008", "wet", "Onderwijs, Cultuur en Wetenschap", "Mediarecht",
     "de publieke mediadienst"),
    ("BWBR0004627", "Kieswet", "wet", "Binnenlandse Zaken en Koninkrijksrelaties", "Staatsrecht", "verkiezingen"),
    ("BWBR0045754", "Wet open overheid", "wet", "Binnenlandse Zaken en Koninkrijksrelaties", "Bestuursrecht",
     "openbaarmaking van publieke informatie"),
    ("BWBR0003984", "Vaststelling nummers kandidatenlijsten centrales van overheidspersoneel",
     "ministeriele-regeling", "Binnenlandse Zaken en Koninkrijksrelaties", "Ambtenarenrecht",
     "kandidatenlijsten"),
    ("BWBR0050123", "Regeling tegemoetkoming energiekosten kleine instellingen 2026", "ministeriele-regeling",
     "Klimaat en Groene Groei", "Subsidierecht", "tegemoetkomingen"),
    ("BWBR0050456", "Tijdelijke wet Groningen", "wet", "Binnenlandse Zaken en Koninkrijksrelaties",
     "Bestuursrecht", "schade door gaswinning"),
    ("BWBR0005289", "Burgerlijk Wetboek Boek 6", "wet", "Justitie en Veiligheid", "Burgerlijk recht",
     "verbintenissen"),
)
OPEN_END = "9999-12-31"  # how the BWB writes "no end" (the recorded manifest's einddatum)
# Zicht generations per version: the Wet IB 2001 has four on one date (the findings' example), every
# third other regulation two; the rest one.
_GENERATIONS = {"BWBR0011353": 4}
# Real version dates: the Wet open overheid's manifest; the Wob ended when the Woo started.
_FIXED_STARTS = {"BWBR0045754": ("2022-05-01", "2022-08-01", "2023-02-18", "2023-04-01"),
                 "BWBR0003984": ("1986-06-26",),
                 "BWBR0005252": ("2016-07-01", "2018-07-28", "2020-01-01")}
_FIXED_END = {"BWBR0005252": "2022-04-30"}
_CHAPTER_STYLE = {"BWBR0005537", "BWBR0037885", "BWBR0041330", "BWBR0045528"}  # articles numbered 1:1, 1:2, …
_BOOK_STYLE = {"BWBR0005289": "6"}  # a book of the Burgerlijk Wetboek numbers its articles 6:1, 6:2, …
_HEADINGS = ("Algemene bepalingen", "Reikwijdte en begripsbepalingen", "Bevoegdheden", "Procedures",
             "Toezicht en handhaving", "Financiële bepalingen", "Overgangs- en slotbepalingen")


@dataclass
class Version(Record):
    """One version (toestand) of a regulation: an SRU record and a text."""

    bwb: str
    title: str
    kind: str
    authority: str
    area: str
    start: str
    end: str
    modified: str
    label: str
    xml: str = field(repr=False, default="")
    generation: int = 0  # the zicht generation: a later one corrects the text of the same toestand
    zicht_start: str = ""
    zicht_end: str = OPEN_END

    def values(self, index: str) -> Sequence[str]:
        return {
            "dcterms.identifier": [self.bwb], "overheidbwb.titel": [self.title], "dcterms.type": [self.kind],
            "dcterms.modified": [self.modified], "overheid.authority": [self.authority],
            "overheidbwb.rechtsgebied": [self.area], "overheidbwb.geldigheidsperiode_startdatum": [self.start],
            "overheidbwb.geldigheidsperiode_einddatum": [self.end] if self.end else [],
        }.get(index, [])

    @property
    def text_url(self) -> str:
        return f"{REPOSITORY}/bwb/{self.bwb}/{self.label}/xml/{self.bwb}_{self.label}.xml"


# --------------------------------------------------------------------------- generated texts


def _article_xml(number: str, topic: str, version: int, rng: random.Random) -> str:
    leden = []
    count = rng.randint(1, 3)
    for lid in range(1, count + 1):
        sentence = rng.choice((
            f"Bij of krachtens algemene maatregel van bestuur worden regels gesteld over {topic}.",
            f"Het bestuursorgaan beslist binnen acht weken na ontvangst van een aanvraag over {topic}.",
            f"Onze Minister kan nadere regels stellen met betrekking tot {topic}.",
            f"Een besluit over {topic} wordt gemotiveerd en bekendgemaakt aan de belanghebbenden.",
            f"Het is verboden zonder vergunning handelingen te verrichten die {topic} betreffen.",
        ))
        if lid == count and number.endswith("1"):
            sentence += f" Het bedrag bedraagt € {100 + 25 * version},–."
        paragraph = f"<al>{x(sentence)}</al>"
        leden.append(f"<lid><lidnr>{lid}</lidnr>{paragraph}</lid>" if count > 1 else paragraph)
    return (f'<artikel label="Artikel {number}"><kop><label>Artikel</label><nr>{number}</nr></kop>'
            f"{''.join(leden)}</artikel>")


def _intitule(title: str, kind: str, topic: str) -> str:
    if kind == "wet":
        return f"Wet houdende regels over {topic} ({title})"
    if kind == "AMvB":
        return f"Besluit houdende regels over {topic} ({title})"
    return f"Regeling van Onze Minister houdende regels over {topic} ({title})"


def _toestand(bwb: str, title: str, kind: str, topic: str, start: str, version: int, seed: int) -> str:
    """A toestand XML in the BWB shape (wetgeving > wet-besluit > wettekst > hoofdstuk > artikel)."""
    # The structure and each article's wording stay put across versions; amounts change and later
    # versions insert an article, so a date makes a visible difference.
    rng = random.Random(seed)
    chapters = []
    number = 0
    for chapter in range(1, rng.randint(2, 4) + 1):
        articles = []
        for i in range(1, rng.randint(2, 5) + 1):
            number += 1
            label = f"{chapter}:{i}" if bwb in _CHAPTER_STYLE else f"{_BOOK_STYLE[bwb]}:{number}" \
                if bwb in _BOOK_STYLE else str(number)
            articles.append(_article_xml(label, topic, version, random.Random(f"{seed}:{label}")))
            if version >= 2 and i == 1:
                articles.append(_article_xml(f"{label}a", topic, version, random.Random(f"{seed}:{label}a")))
        heading = _HEADINGS[(chapter - 1) % len(_HEADINGS)] if chapter > 1 else _HEADINGS[0]
        chapters.append(f"<hoofdstuk><kop><label>Hoofdstuk</label><nr>{chapter}</nr><titel>{x(heading)}</titel></kop>"
                        f"{''.join(articles)}</hoofdstuk>")
    body_open, body_close = ("<wet-besluit><wettekst>", "</wettekst></wet-besluit>")
    if kind == "ministeriele-regeling":
        body_open, body_close = ("<regeling><regeling-tekst>", "</regeling-tekst></regeling>")
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n<toestand xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
        f'bwb-ng-vast-deel="http://wetten.overheid.nl/id/{bwb}/{start}/0" bwb-id="{bwb}" inwerkingtreding="{start}">'
        f'<bwb-inputbestand/><bwb-wijzigingen/><redactionele-correcties/><wetgeving soort="{x(kind)}" xml:lang="nl" '
        f'inwerkingtredingsdatum="{start}"><intitule>{x(_intitule(title, kind, topic))}</intitule>'
        f'<citeertitel status="officieel">{x(title)}</citeertitel>'
        f"{body_open}{''.join(chapters)}{body_close}</wetgeving></toestand>"
    )


def build_versions(anchor: date, *, seed: int = 20260303) -> list[Version]:
    """Every version of every regulation (deterministic for an anchor)."""
    rng = random.Random(seed)
    out: list[Version] = []
    for position, (bwb, title, kind, authority, area, topic) in enumerate(REGULATIONS):
        if bwb in _FIXED_STARTS:
            starts = [date.fromisoformat(s) for s in _FIXED_STARTS[bwb]]
        else:
            count = rng.randint(2, 5)
            offsets = sorted(rng.sample(range(40, 2400), count - 1), reverse=True)
            starts = [anchor - timedelta(days=o) for o in offsets]
            # A few regulations have an announced version that starts after the anchor.
            latest = anchor + timedelta(days=30) if position % 5 == 0 else anchor - timedelta(days=rng.randint(5, 39))
            starts.append(latest)
        end_last = _FIXED_END.get(bwb, "")
        for index, start in enumerate(starts):
            end = (starts[index + 1] - timedelta(days=1)).isoformat() if index + 1 < len(starts) else end_last
            modified = min(start - timedelta(days=rng.randint(3, 20)),
                           anchor - timedelta(days=NEWEST_MODIFIED_DAYS + 1))
            if start > anchor:
                modified = anchor - timedelta(days=NEWEST_MODIFIED_DAYS)
            if bwb == "BWBR0003984":
                xml = (DATA / "toestand_BWBR0003984_1986-06-26_0.xml").read_text(encoding="utf-8")
            else:
                xml = _toestand(bwb, title, kind, topic, start.isoformat(), index, seed=position * 101)
            generations = _GENERATIONS.get(bwb, 2 if position % 3 == 1 else 1)
            seen = [start + timedelta(days=9 * n) for n in range(generations)]
            for n in range(generations):
                # Generation n corrects the amounts of generation 0; each is visible from its zicht date.
                text = xml if n == 0 else re.sub(r"€ (\d+),–", lambda m, n=n: f"€ {int(m.group(1)) + n},–", xml)
                changed = modified if start > anchor else min(modified + timedelta(days=9 * n),
                                                              anchor - timedelta(days=NEWEST_MODIFIED_DAYS + 1))
                out.append(Version(bwb=bwb, title=title, kind=kind, authority=authority, area=area,
                                   start=start.isoformat(), end=end, modified=changed.isoformat(),
                                   label=f"{start.isoformat()}_{n}", xml=text, generation=n,
                                   zicht_start=seen[n].isoformat(),
                                   zicht_end=(seen[n + 1] - timedelta(days=1)).isoformat() if n + 1 < generations
                                   else OPEN_END))
    return out


# --------------------------------------------------------------------------- SRU


def _in_force(record: Record, clause: Clause) -> bool:
    if clause.relation not in ("==", "=", "exact"):
        raise SruFault(19, "Unsupported relation", f"{clause.relation} on overheidbwb.geldigheidsdatum")
    assert isinstance(record, Version)
    return record.start <= clause.term and (not record.end or clause.term <= record.end)


_INDEXES = frozenset({"dcterms.identifier", "overheidbwb.titel", "dcterms.type", "dcterms.modified",
                      "overheid.authority", "overheidbwb.rechtsgebied", "overheidbwb.geldigheidsdatum",
                      "overheidbwb.geldigheidsperiode_startdatum", "overheidbwb.geldigheidsperiode_einddatum"})


def _evaluation() -> Evaluation:
    return Evaluation(known=_INDEXES.__contains__, case_sensitive=frozenset(),
                      virtual={"overheidbwb.geldigheidsdatum": _in_force},
                      date_indexes=frozenset({"dcterms.modified", "overheidbwb.geldigheidsperiode_startdatum",
                                              "overheidbwb.geldigheidsperiode_einddatum"}))


def _gzd(v: Version) -> str:
    return (
        '<gzd xmlns="http://standaarden.overheid.nl/sru" xmlns:dcterms="http://purl.org/dc/terms/" '
        'xmlns:overheid="http://standaarden.overheid.nl/owms/terms/" '
        'xmlns:overheidbwb="http://standaarden.overheid.nl/bwb/terms/"><originalData><overheidbwb:meta><owmskern>'
        f"<dcterms:identifier>{v.bwb}</dcterms:identifier><dcterms:title>{x(v.title)}</dcterms:title>"
        f"<dcterms:type>{x(v.kind)}</dcterms:type><overheid:authority>{x(v.authority)}</overheid:authority>"
        f"<dcterms:modified>{v.modified}</dcterms:modified></owmskern><bwbipm>"
        f"<overheidbwb:toestand>http://wetten.overheid.nl/id/{v.bwb}/{v.start}/0</overheidbwb:toestand>"
        f"<overheidbwb:rechtsgebied>{x(v.area)}</overheidbwb:rechtsgebied>"
        f"<overheidbwb:geldigheidsperiode_startdatum>{v.start}</overheidbwb:geldigheidsperiode_startdatum>"
        f"<overheidbwb:geldigheidsperiode_einddatum>{v.end or OPEN_END}</overheidbwb:geldigheidsperiode_einddatum>"
        f"<overheidbwb:zichtdatum_start>{v.zicht_start}</overheidbwb:zichtdatum_start>"
        f"<overheidbwb:zichtdatum_eind>{v.zicht_end}</overheidbwb:zichtdatum_eind>"
        "</bwbipm></overheidbwb:meta></originalData><enrichedData>"
        f"<overheidbwb:locatie_toestand>{x(v.text_url)}</overheidbwb:locatie_toestand></enrichedData></gzd>"
    )


def _response(req: SruRequest, hits: Sequence[Version], version: str) -> str:
    p, ns = ("srw", SRW) if version == "1.2" else ("sru", "http://docs.oasis-open.org/ns/search-ws/sruResponse")
    shown = hits[req.start - 1:req.start - 1 + req.maximum]
    packing = f"<{p}:recordPacking>xml</{p}:recordPacking>"
    records = "".join(
        f"<{p}:record><{p}:recordSchema>{GZD}</{p}:recordSchema>{packing}<{p}:recordData>{_gzd(v)}</{p}:recordData>"
        f"<{p}:recordPosition>{req.start + i}</{p}:recordPosition></{p}:record>" for i, v in enumerate(shown))
    following = req.start + len(shown)
    nxt = f"<{p}:nextRecordPosition>{following}</{p}:nextRecordPosition>" if shown and following <= len(hits) else ""
    return (f'<?xml version="1.0" encoding="UTF-8"?>\n<{p}:searchRetrieveResponse xmlns:{p}="{ns}">'
            f"<{p}:version>{version}</{p}:version><{p}:numberOfRecords>{len(hits)}</{p}:numberOfRecords>"
            f"<{p}:records>{records}</{p}:records>{nxt}</{p}:searchRetrieveResponse>")


def _diagnostic(fault: SruFault, version: str) -> str:
    if version != "1.2":
        return koop_diagnostic(fault)
    # The SRU 1.2 service answers a bare <diagnostics> document (recorded in the fixtures).
    details = fault.details if fault.number != 10 else fault.details or fault.message
    return ('<?xml version="1.0" encoding="UTF-8"?><diagnostics xmlns:dcterms="http://purl.org/dc/terms/" '
            'xmlns:overheid="http://standaarden.overheid.nl/owms/terms/"><diagnostic '
            'xmlns="http://www.loc.gov/zing/srw/diagnostic/"><uri>info:srw/diagnostic/1/'
            f"{fault.number}</uri><details>{x(details)}</details><message>"
            f"{'Invalid parameter' if fault.number == 10 else x(fault.message)}</message></diagnostic></diagnostics>")


def create_app(anchor: date) -> web.Application:
    """The replica app; mounted by `create_replicas_app` under /wetten."""
    versions = build_versions(anchor)
    by_label = {(v.bwb, v.label): v for v in versions}
    ordered = sorted(versions, key=lambda v: (v.title, v.start, v.generation))

    async def search(request: web.Request) -> web.Response:
        params = await request_params(request)
        version = params.get("version") or "1.2"
        try:
            if params.get("x-connection", "").lower() != "bwb":
                raise SruFault(1, "General system error", f"unknown x-connection {params.get('x-connection')!r}")
            if version not in ("1.2", "2.0"):
                raise SruFault(5, "Unsupported version", version)
            req = sru_request(params, default_maximum=10, max_maximum=1000)
            if req.operation != "searchRetrieve":
                raise SruFault(4, "Unsupported operation", req.operation)
            if not req.query:
                raise SruFault(7, "Mandatory parameter not supplied", "query")
            query = parse_cql(req.query)
            evaluation = _evaluation()
            check_query(query, evaluation)
            hits = sort_records([v for v in ordered if evaluate(query.root, v, evaluation)], query.sort)
        except SruFault as fault:
            return xml_response(_diagnostic(fault, version))
        return xml_response(_response(req, hits, version))

    async def toestand(request: web.Request) -> web.Response:
        bwb, label, name = request.match_info["bwb"], request.match_info["label"], request.match_info["file"]
        found = by_label.get((bwb, label))
        if found is None or name != f"{bwb}_{label}.xml":
            raise web.HTTPNotFound(text="Not Found")
        return xml_response(found.xml)

    app = web.Application()
    app.router.add_route("GET", "/sru/Search", search)
    app.router.add_route("POST", "/sru/Search", search)
    app.router.add_route("GET", "/bwb/{bwb}/{label}/xml/{file}", toestand)
    return app

