"""Replica of Rechtspraak open data (data.rechtspraak.nl) for tests and `make run`.

Real service: https://data.rechtspraak.nl ("Technische documentatie Open Data van de Rechtspraak",
https://www.rechtspraak.nl/Uitspraken/paginas/open-data.aspx). Served at the same paths:

* `GET /uitspraken/zoeken`: Atom, subtitle "Aantal gevonden ECLI's: N" (the exact count), entries
  `id/title/summary/updated/link`, withdrawn ECLIs as `<entry deleted="ecli">`. Parameters: `type`
  (Uitspraak|Conclusie), `creator` and `subject` (repeatable, OR'ed), `date` (one value: that day;
  two: a range), `modified` (one value: from; two: a range), `return=DOC`, `max` (1–1000, default
  1000), `from`, `sort` (ASC|DESC by modification, default ASC). Invalid values answer 400 with an
  explanation; unknown parameters such as `q=` are silently ignored, as the real service does.
* `GET /uitspraken/content?id=<ECLI>[&return=META]`: `<open-rechtspraak>` (RDF metadata,
  `inhoudsindicatie`, `uitspraak`/`conclusie`). An unknown or withdrawn ECLI is a 302 redirect to
  an HTML "not found" notice (documentation only: the real target is
  https://mededeling.rechtspraak.nl/404, handled in openstate/open-rechtspraak's scraper; the
  replica serves the notice on its own host at `/mededeling/404`).

Quirks and where they come from: a summary of `-` where a ruling has none, in the feed and in the
document's `inhoudsindicatie` (documentation only: research §5.2 and the findings; every seventh
generated ruling has it, the recorded 2016 feed has empty summaries instead); areas of law are the
fixed psi.rechtspraak.nl list (`strafrecht`, `civielRecht_personenEnFamilierecht`, … as
digitalheir/rechtspraak-js accepts them); an unknown subject or creator URI simply matches nothing.

Data: about 300 rulings of 18 courts, generated from a fixed seed around `anchor` (the newest is
published the day before), plus the real records in `proxy/replica/data/rechtspraak/`: three
content documents served verbatim and ten 2004–2005 entries of the Rechtbank Assen, a court that
no longer exists (stale material). One ruling's summary carries `<script>`/`<img onerror>` payloads.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from functools import lru_cache
from pathlib import Path
from xml.sax.saxutils import escape, quoteattr

from aiohttp import web
from defusedxml import ElementTree as SafeET

__all__ = ["RULINGS", "Ruling", "build_rulings", "create_app"]

DATA = Path(__file__).parent / "data" / "rechtspraak"
SEED = 19991213
RULINGS = web.AppKey("rechtspraak_rulings", dict)
COURT_BASE = "http://standaarden.overheid.nl/owms/terms/"
AREA_BASE = "http://psi.rechtspraak.nl/rechtsgebied#"
XSS_SUMMARY = ("Weigering omgevingsvergunning voor een dakopbouw; het bouwplan vermeldt "
               "<script>alert(1)</script> en <img src=x onerror=alert(1)>. Beroep ongegrond.")
PLACEHOLDER = "-"
NOT_FOUND_PATH = "/mededeling/404"
NOT_FOUND_PAGE = (  # the shape of the notice page; deliberately HTML, not XML (meta and br are not closed)
    '<!DOCTYPE html>\n<html lang="nl"><head><meta charset="utf-8"><title>Pagina niet gevonden - Rechtspraak</title>'
    "</head><body><h1>Deze pagina bestaat niet</h1><p>De uitspraak die u zoekt is niet gevonden.<br>"
    "Controleer het ECLI-nummer.</p></body></html>\n")
RECORDED = ("content_ECLI_NL_PHR_2011_BP5608.xml", "content_ECLI_NL_CBB_1997_ZG0125.xml",
            "content_ECLI_NL_RBAMS_2010_BO3979.xml")

# code, name, seat, areas, share of Conclusie, case-number style
COURTS = (
    ("HR", "Hoge Raad der Nederlanden", "Den Haag", ("civielRecht", "strafrecht", "bestuursrecht_belastingrecht"),
     0.0, "{yy}/{n:05d}"),
    ("PHR", "Parket bij de Hoge Raad", "Den Haag", ("civielRecht", "strafrecht"), 1.0, "{yy}/{n:05d}"),
    ("RVS", "Raad van State", "Den Haag", ("bestuursrecht_omgevingsrecht", "bestuursrecht_vreemdelingenrecht",
                                           "bestuursrecht"), 0.0, "20{yy}0{n:04d}/1/R{r}"),
    ("CRVB", "Centrale Raad van Beroep", "Utrecht", ("bestuursrecht_socialezekerheidsrecht",
                                                     "bestuursrecht_ambtenarenrecht"), 0.0, "{yy}/{n} WIA"),
    ("CBB", "College van Beroep voor het bedrijfsleven", "Den Haag", ("bestuursrecht",), 0.0, "{yy}/{n}"),
    ("GHAMS", "Gerechtshof Amsterdam", "Amsterdam", ("civielRecht", "strafrecht", "bestuursrecht_belastingrecht"),
     0.0, "200.{n:03d}.{yy}0"),
    ("GHARL", "Gerechtshof Arnhem-Leeuwarden", "Arnhem", ("civielRecht", "strafrecht"), 0.0, "200.{n:03d}.{yy}1"),
    ("GHDHA", "Gerechtshof Den Haag", "Den Haag", ("civielRecht", "strafrecht", "bestuursrecht_belastingrecht"),
     0.0, "BK-{yy}/{n:05d}"),
    ("GHSHE", "Gerechtshof 's-Hertogenbosch", "'s-Hertogenbosch", ("civielRecht", "strafrecht"), 0.0,
     "200.{n:03d}.{yy}2"),
    ("RBAMS", "Rechtbank Amsterdam", "Amsterdam", ("civielRecht_arbeidsrecht", "strafrecht",
                                                   "bestuursrecht_vreemdelingenrecht",
                                                   "civielRecht_personenEnFamilierecht"),
     0.0, "AMS {yy}/{n}"),
    ("RBDHA", "Rechtbank Den Haag", "Den Haag", ("bestuursrecht_vreemdelingenrecht", "civielRecht", "strafrecht"),
     0.0, "NL{yy}.{n:05d}"),
    ("RBROT", "Rechtbank Rotterdam", "Rotterdam", ("strafrecht", "civielRecht_verbintenissenrecht",
                                                   "bestuursrecht"), 0.0, "ROT {yy}/{n}"),
    ("RBMNE", "Rechtbank Midden-Nederland", "Utrecht", ("civielRecht_personenEnFamilierecht", "strafrecht"), 0.0,
     "C/16/{n:06d}"),
    ("RBGEL", "Rechtbank Gelderland", "Arnhem", ("civielRecht_arbeidsrecht", "bestuursrecht_omgevingsrecht"), 0.0,
     "C/05/{n:06d}"),
    ("RBNNE", "Rechtbank Noord-Nederland", "Groningen", ("bestuursrecht_omgevingsrecht", "strafrecht"), 0.0,
     "LEE {yy}/{n}"),
    ("RBOBR", "Rechtbank Oost-Brabant", "'s-Hertogenbosch", ("strafrecht", "civielRecht_verbintenissenrecht"), 0.0,
     "01/{n:06d}-{yy}"),
    ("RBLIM", "Rechtbank Limburg", "Maastricht", ("civielRecht", "bestuursrecht_socialezekerheidsrecht"), 0.0,
     "C/03/{n:06d}"),
)
AREAS = {
    "bestuursrecht": "Bestuursrecht", "civielRecht": "Civiel recht", "strafrecht": "Strafrecht",
    "bestuursrecht_omgevingsrecht": "Bestuursrecht; Omgevingsrecht",
    "bestuursrecht_vreemdelingenrecht": "Bestuursrecht; Vreemdelingenrecht",
    "bestuursrecht_socialezekerheidsrecht": "Bestuursrecht; Socialezekerheidsrecht",
    "bestuursrecht_ambtenarenrecht": "Bestuursrecht; Ambtenarenrecht",
    "bestuursrecht_belastingrecht": "Bestuursrecht; Belastingrecht",
    "civielRecht_arbeidsrecht": "Civiel recht; Arbeidsrecht",
    "civielRecht_personenEnFamilierecht": "Civiel recht; Personen- en familierecht",
    "civielRecht_verbintenissenrecht": "Civiel recht; Verbintenissenrecht",
}
SUMMARIES = {
    "bestuursrecht": ("Besluit op bezwaar; onvoldoende gemotiveerd. Beroep gegrond.",
                      "Last onder dwangsom; overtreding niet aangetoond. Beroep gegrond, besluit vernietigd."),
    "civielRecht": ("Tussenuitspraak; bewijsopdracht over de totstandkoming van de koopovereenkomst.",
                    "Art. 81 RO. Verwerping cassatieberoep over de uitleg van een vaststellingsovereenkomst."),
    "strafrecht": ("Diefstal met geweld; bewezenverklaring, strafoplegging gevangenisstraf.",
                   "Witwassen; vrijspraak wegens onvoldoende wettig en overtuigend bewijs."),
    "bestuursrecht_omgevingsrecht": ("Omgevingsvergunning voor een windturbine; geluidsnormen; beroep ongegrond.",
                                     "Bestemmingsplan; stikstofdepositie op een Natura 2000-gebied niet uitgesloten."),
    "bestuursrecht_vreemdelingenrecht": ("Asielaanvraag afgewezen; geloofwaardigheid van het relaas.",
                                         "Bewaring; voortvarendheid bij het uitzetten. Beroep ongegrond."),
    "bestuursrecht_socialezekerheidsrecht": ("WIA-uitkering; medische beoordeling zorgvuldig. Hoger beroep faalt.",
                                             "Terugvordering bijstand; schending van de inlichtingenplicht."),
    "bestuursrecht_ambtenarenrecht": ("Ontslag van een ambtenaar wegens plichtsverzuim; evenredigheid.",),
    "bestuursrecht_belastingrecht": ("Box 3; forfaitair rendement in strijd met art. 1 EP EVRM. Rechtsherstel.",
                                     "Naheffingsaanslag parkeerbelasting; parkeerrecht niet aangetoond."),
    "civielRecht_arbeidsrecht": ("Ontbinding arbeidsovereenkomst wegens verstoorde arbeidsverhouding; "
                                 "transitievergoeding.", "Ontslag op staande voet; dringende reden ontbreekt."),
    "civielRecht_personenEnFamilierecht": ("Partneralimentatie; behoefte en draagkracht.",
                                           "Omgangsregeling na scheiding."),
    "civielRecht_verbintenissenrecht": ("Wanprestatie bij aanneming van werk; schadevergoeding.",),
}
PROCEDURES = {"HR": "Cassatie", "PHR": "Cassatie", "RVS": "Hoger beroep", "CRVB": "Hoger beroep",
              "CBB": "Eerste aanleg - meervoudig", "GH": "Hoger beroep"}
SENTENCES = (
    "Partijen hebben hun standpunten ter zitting toegelicht.",
    "De rechtbank stelt vast dat het bestreden besluit berust op een onvoldoende zorgvuldig onderzoek.",
    "Het betoog van appellant slaagt niet.",
    "Niet in geschil is dat de overeenkomst op de genoemde datum tot stand is gekomen.",
    "Gelet op het voorgaande is het beroep gegrond en vernietigt de rechtbank het bestreden besluit.",
    "Verweerder heeft zich in redelijkheid op het standpunt kunnen stellen dat de aanvraag moet worden afgewezen.",
    "De verklaringen van de getuigen vinden steun in de overige bewijsmiddelen.",
    "Het hof neemt de overwegingen van de rechtbank over en maakt die tot de zijne.",
    "De Afdeling ziet geen aanleiding voor het oordeel dat de zienswijze onjuist is beoordeeld.",
    "Voor een proceskostenveroordeling bestaat aanleiding.",
    "De redelijke termijn is met ruim vier maanden overschreden.",
    "Het deskundigenrapport is inzichtelijk en consistent en er is geen reden om daaraan te twijfelen.",
)
CITIES = ("Amsterdam", "Utrecht", "Zwolle", "Groningen", "Almere", "Tilburg", "Arnhem", "Leiden", "Venlo", "Delft")


@dataclass
class Ruling:
    """One ruling of the replica's index."""

    ecli: str
    court: str
    court_code: str
    date: date
    issued: date
    modified: datetime
    case_number: str
    type: str = "Uitspraak"
    area: str = "bestuursrecht"
    seat: str | None = None
    summary: str = ""
    paragraphs: list[str] = field(default_factory=list)
    has_doc: bool = True
    deleted: bool = False
    recorded_xml: str | None = None
    title: str = ""

    def __post_init__(self) -> None:
        self.title = self.title or f"{self.ecli}, {self.court}, {self.date:%d-%m-%Y}, {self.case_number}"


# --------------------------------------------------------------------------- data


def _generated(anchor: date) -> list[Ruling]:
    rng = random.Random(SEED)
    serial: dict[tuple[str, int], int] = {}
    out = []
    for i in range(300):
        code, name, seat, areas, conclusie, style = COURTS[i % len(COURTS)] if i < len(COURTS) else \
            rng.choice(COURTS)
        age = 1 + int(700 * rng.random() ** 1.8)
        issued = anchor - timedelta(days=age)
        decided = issued - timedelta(days=rng.randint(0, 30))
        key = (code, decided.year)
        serial[key] = serial.get(key, rng.randint(100, 900)) + rng.randint(1, 40)
        area = rng.choice(areas)
        base = area if area in SUMMARIES else area.split("_")[0]
        modified = datetime.combine(issued, datetime.min.time()) + timedelta(hours=rng.randint(6, 20),
                                                                            minutes=rng.randint(0, 59))
        if rng.random() < 0.08:
            modified += timedelta(days=rng.randint(1, age))
        yy = decided.year % 100
        case = style.format(yy=yy, n=rng.randint(100, 99999), r=rng.randint(1, 6))
        out.append(Ruling(
            ecli=f"ECLI:NL:{code}:{decided.year}:{serial[key]}", court=name, court_code=code, date=decided,
            issued=issued, modified=min(modified, datetime.combine(anchor, datetime.min.time())), case_number=case,
            type="Conclusie" if rng.random() < conclusie else "Uitspraak", area=area, seat=seat,
            summary=rng.choice(SUMMARIES[base]),
            paragraphs=[" ".join(rng.sample(SENTENCES, rng.randint(2, 5))) for _ in range(rng.randint(6, 22))]))
    newest = min(out, key=lambda r: (anchor - r.issued).days)
    newest.issued = anchor - timedelta(days=1)
    newest.modified = datetime.combine(newest.issued, datetime.min.time()) + timedelta(hours=9, minutes=12)
    xss = next(r for r in out if r.court_code == "RVS" and r.area == "bestuursrecht_omgevingsrecht")
    xss.summary = XSS_SUMMARY
    return out


def _recorded() -> list[Ruling]:
    out = []
    feed = SafeET.parse(DATA / "zoeken_atom_feed_10entries_2016.xml").getroot()
    atom = "{http://www.w3.org/2005/Atom}"
    for entry in feed.findall(f"{atom}entry"):
        title = " ".join("".join(entry.find(f"{atom}title").itertext()).split())  # type: ignore[union-attr]
        ecli, court, day, case = (p.strip() for p in title.split(",", 3))
        updated = datetime.fromisoformat(entry.findtext(f"{atom}updated") or "").replace(tzinfo=None)
        decided = datetime.strptime(day, "%d-%m-%Y").date()
        out.append(Ruling(ecli=ecli, court=court, court_code="RBASS", date=decided, issued=updated.date(),
                          modified=updated, case_number=case, area="bestuursrecht_vreemdelingenrecht", seat="Assen",
                          paragraphs=[SENTENCES[0], SENTENCES[5]], title=title))
    ns = {"rdf": "http://www.w3.org/1999/02/22-rdf-syntax-ns#", "dcterms": "http://purl.org/dc/terms/"}
    for name in RECORDED:
        text = (DATA / name).read_text(encoding="utf-8")
        root = SafeET.fromstring(text.encode())
        desc = root.find("rdf:RDF/rdf:Description", ns)
        assert desc is not None
        ecli = desc.findtext("dcterms:identifier", namespaces=ns) or ""
        creator = desc.findtext("dcterms:creator", namespaces=ns) or ""
        has_doc = "<uitspraak" in text or "<conclusie" in text
        inh = root.find("{http://www.rechtspraak.nl/schema/rechtspraak-1.0}inhoudsindicatie")
        out.append(Ruling(
            ecli=ecli, court=creator, court_code=ecli.split(":")[2],
            date=date.fromisoformat(desc.findtext("dcterms:date", namespaces=ns) or ""),
            issued=date.fromisoformat(desc.findtext("dcterms:issued", namespaces=ns) or ""),
            modified=datetime.fromisoformat(desc.findtext("dcterms:modified", namespaces=ns) or ""),
            case_number="", type=desc.findtext("dcterms:type", namespaces=ns) or "Uitspraak", has_doc=has_doc,
            summary=" ".join("".join(inh.itertext()).split()) if inh is not None else "", recorded_xml=text,
            title=" ".join((d.findtext("dcterms:title", namespaces=ns) or "") for d in root.iterfind(
                "rdf:RDF/rdf:Description", ns)).strip() or ecli))
    return out


@lru_cache(maxsize=4)
def build_rulings(anchor: date) -> dict[str, Ruling]:
    """Every ruling by ECLI (deterministic for an anchor), withdrawn ones included."""
    generated = _generated(anchor)
    for n, ruling in enumerate(generated):
        # The platform writes "-" where a ruling has no summary, in the feed and in the document.
        if n % 7 == 3 and ruling.summary != XSS_SUMMARY:
            ruling.summary = PLACEHOLDER
    rulings = [*generated, *_recorded()]
    for n, days in enumerate((4, 40)):
        stamp = datetime.combine(anchor - timedelta(days=days), datetime.min.time()) + timedelta(hours=7)
        rulings.append(Ruling(ecli=f"ECLI:NL:RBDHA:{anchor.year - 1}:{90000 + n}", court="Rechtbank Den Haag",
                              court_code="RBDHA", date=stamp.date(), issued=stamp.date(), modified=stamp,
                              case_number="", deleted=True))
    return {r.ecli: r for r in rulings}


# --------------------------------------------------------------------------- HTTP


def create_app(anchor: date) -> web.Application:
    app = web.Application()
    app[RULINGS] = build_rulings(anchor)
    app.router.add_get("/uitspraken/zoeken", _search)
    app.router.add_get("/uitspraken/content", _content)
    app.router.add_get(NOT_FOUND_PATH, _not_found_page)
    return app


def _bad(message: str) -> web.Response:
    return web.Response(status=400, text=f"Ongeldige parameter: {message}", content_type="text/plain")


def _dates(values: list[str], name: str, pattern: str) -> tuple[datetime, datetime] | str:
    if len(values) > 2:
        return f"{name} mag hoogstens twee keer voorkomen"
    try:
        parsed = [datetime.strptime(v, pattern) for v in values]
    except ValueError:
        return f"{name} heeft de vorm {pattern.replace('%Y', 'jjjj').replace('%m', 'mm').replace('%d', 'dd')}"
    if len(parsed) == 1:
        return (parsed[0], parsed[0]) if name == "date" else (parsed[0], datetime.max)
    return parsed[0], parsed[1]


async def _search(request: web.Request) -> web.Response:
    q = request.query
    kinds, creators, subjects = q.getall("type", []), q.getall("creator", []), q.getall("subject", [])
    if any(k not in ("Uitspraak", "Conclusie") for k in kinds):
        return _bad("type is Uitspraak of Conclusie")
    try:
        limit = int(q.get("max", "1000"))
        start = int(q.get("from", "0"))
    except ValueError:
        return _bad("max en from zijn gehele getallen")
    if not 0 < limit <= 1000 or start < 0:
        return _bad("max ligt tussen 1 en 1000, from is niet negatief")
    sort = q.get("sort", "ASC").upper()
    if sort not in ("ASC", "DESC"):
        return _bad("sort is ASC of DESC")
    if q.get("return", "DOC") not in ("DOC", "META"):
        return _bad("return is DOC")
    ruling_dates = _dates(q.getall("date", []), "date", "%Y-%m-%d") if "date" in q else None
    modified = _dates(q.getall("modified", []), "modified", "%Y-%m-%dT%H:%M:%S") if "modified" in q else None
    for checked in (ruling_dates, modified):
        if isinstance(checked, str):
            return _bad(checked)
    only_live = bool(kinds or creators or subjects or ruling_dates)  # withdrawn ECLIs carry no metadata

    def keep(r: Ruling) -> bool:
        if r.deleted:
            return not only_live and (modified is None or modified[0] <= r.modified <= modified[1])  # type: ignore
        if q.get("return") == "DOC" and not r.has_doc:
            return False
        if kinds and r.type not in kinds:
            return False
        if creators and COURT_BASE + "_".join(r.court.split()) not in creators:
            return False
        if subjects and AREA_BASE + r.area not in subjects:
            return False
        if ruling_dates and not ruling_dates[0].date() <= r.date <= ruling_dates[1].date():  # type: ignore[index]
            return False
        return not (modified and not modified[0] <= r.modified <= modified[1])  # type: ignore[index]

    found = sorted((r for r in request.app[RULINGS].values() if keep(r)), key=lambda r: (r.modified, r.ecli),
                   reverse=sort == "DESC")
    return web.Response(text=_feed(request, found, start, limit), content_type="application/atom+xml",
                        charset="utf-8")


def _feed(request: web.Request, found: list[Ruling], start: int, limit: int) -> str:
    now = max((r.modified for r in found), default=datetime(2000, 1, 1))
    parts = ['<?xml version="1.0" encoding="utf-8"?><feed xmlns="http://www.w3.org/2005/Atom">',
             '<title type="text">Rechtspraak Open Data (Uitspraken)</title>',
             f"<subtitle type=\"text\">Aantal gevonden ECLI's: {len(found)}</subtitle>",
             f"<id>uuid:replica;id={len(found)}</id>",
             f"<rights type=\"text\">Copyright {now.year} Rechtspraak.</rights>",
             f"<updated>{now:%Y-%m-%dT%H:%M:%S}+01:00</updated>",
             f"<link rel=\"self\" href={quoteattr(str(request.url))}/>"]
    for r in found[start:start + limit]:
        stamp = f"{r.modified:%Y-%m-%dT%H:%M:%S}+01:00"
        if r.deleted:
            parts.append(f'<entry deleted="ecli"><id>{r.ecli}</id><updated>{stamp}</updated></entry>')
            continue
        parts.append(
            f"<entry><id>{r.ecli}</id><title type=\"text\">{escape(r.title)}</title>"
            f"<summary type=\"text\">{escape(r.summary)}</summary><updated>{stamp}</updated>"
            f"<link rel=\"alternate\" type=\"text/html\" "
            f"href=\"https://uitspraken.rechtspraak.nl/details?id={r.ecli}\"/></entry>")
    parts.append("</feed>")
    return "\n".join(parts)


async def _content(request: web.Request) -> web.Response:
    ecli = request.query.get("id", "")
    if not ecli:
        return _bad("id (een ECLI) ontbreekt")
    ruling = request.app[RULINGS].get(ecli.upper())
    if ruling is None or ruling.deleted:
        # The real service redirects an unknown ECLI to an HTML notice on mededeling.rechtspraak.nl/404; the
        # replica keeps the notice on its own host (tests run offline) at the same path.
        mount = request.path[:request.path.index("/uitspraken/content")]
        raise web.HTTPFound(f"{request.url.origin()}{mount}{NOT_FOUND_PATH}")
    xml = ruling.recorded_xml or _document(ruling)
    if request.query.get("return") == "META":
        xml = re.sub(r"\s*<(inhoudsindicatie|uitspraak|conclusie)\b.*?</\1>", "", xml, flags=re.DOTALL)
    return web.Response(text=xml, content_type="application/xml", charset="utf-8")


async def _not_found_page(request: web.Request) -> web.Response:
    return web.Response(text=NOT_FOUND_PAGE, content_type="text/html", charset="utf-8")


def _document(r: Ruling) -> str:
    label = "Datum genomen" if r.type == "Conclusie" else "Uitspraakdatum"
    type_uri = "http://psi.rechtspraak.nl/" + r.type.lower()
    procedure = PROCEDURES.get(r.court_code, PROCEDURES.get(r.court_code[:2], "Eerste aanleg - enkelvoudig"))
    court_uri = COURT_BASE + "_".join(r.court.split())
    meta = f"""<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:dcterms="http://purl.org/dc/terms/"
      xmlns:psi="http://psi.rechtspraak.nl/" xmlns:rdfs="http://www.w3.org/2000/01/rdf-schema#" xmlns:bwb="bwb-dl"
      xmlns:ecli="https://e-justice.europa.eu/ecli">
    <rdf:Description>
      <dcterms:identifier>{r.ecli}</dcterms:identifier>
      <dcterms:format>text/xml</dcterms:format>
      <dcterms:accessRights>public</dcterms:accessRights>
      <dcterms:modified>{r.modified:%Y-%m-%dT%H:%M:%S}</dcterms:modified>
      <dcterms:issued rdfs:label="Publicatiedatum">{r.issued.isoformat()}</dcterms:issued>
      <dcterms:publisher resourceIdentifier="http://rechtspraak.nl/">Raad voor de Rechtspraak</dcterms:publisher>
      <dcterms:language>nl</dcterms:language>
      <dcterms:creator rdfs:label="Instantie" resourceIdentifier={quoteattr(court_uri)}
        scheme="overheid.RechterlijkeMacht">{escape(r.court)}</dcterms:creator>
      <dcterms:date rdfs:label="{label}">{r.date.isoformat()}</dcterms:date>
      <psi:zaaknummer rdfs:label="Zaaknr">{escape(r.case_number)}</psi:zaaknummer>
      <dcterms:type rdf:language="nl" resourceIdentifier="{type_uri}">{r.type}</dcterms:type>
      <psi:procedure rdf:language="nl" rdfs:label="Procedure"
        resourceIdentifier="http://psi.rechtspraak.nl/procedure#replica">{procedure}</psi:procedure>
      <dcterms:coverage>NL</dcterms:coverage>
      <dcterms:spatial rdfs:label="Zittingsplaats">{escape(r.seat or "")}</dcterms:spatial>
      <dcterms:subject rdfs:label="Rechtsgebied"
        resourceIdentifier="{AREA_BASE}{r.area}">{AREAS.get(r.area, r.area)}</dcterms:subject>
      <dcterms:references rdfs:label="Wetsverwijzing"
        bwb:resourceIdentifier="1.0:v:BWB:BWBR0005537&amp;artikel=3:46">Algemene wet bestuursrecht 3:46
      </dcterms:references>
      <dcterms:hasVersion rdfs:label="Vindplaatsen" resourceIdentifier="http://psi.rechtspraak.nl/vindplaats">
        <rdf:list><rdf:li>Rechtspraak.nl</rdf:li></rdf:list>
      </dcterms:hasVersion>
    </rdf:Description>
    <rdf:Description rdf:about="http://deeplink.rechtspraak.nl/uitspraak?id={r.ecli}">
      <dcterms:identifier>http://deeplink.rechtspraak.nl/uitspraak?id={r.ecli}</dcterms:identifier>
      <dcterms:format>text/html</dcterms:format>
      <dcterms:issued rdfs:label="Publicatiedatum">{r.issued.isoformat()}</dcterms:issued>
      <dcterms:title rdf:language="nl">{escape(r.ecli)} {escape(r.court)} , {r.date:%d-%m-%Y} / {escape(
          r.case_number)}</dcterms:title>
      <dcterms:abstract resourceIdentifier="../../rs:inhoudsindicatie"/>
    </rdf:Description>
  </rdf:RDF>"""
    ns = 'xmlns="http://www.rechtspraak.nl/schema/rechtspraak-1.0"'
    body = r.type.lower()
    paras = "\n".join(f"      <para>{n}. {escape(p)}</para>" for n, p in enumerate(r.paragraphs, 1))
    inh = (f'  <inhoudsindicatie id="{r.ecli}:INH" lang="nl" {ns}><para>{escape(r.summary)}</para>'
           "</inhoudsindicatie>\n") if r.summary else ""
    return f"""<?xml version="1.0" encoding="utf-8"?>
<open-rechtspraak>
  {meta}
{inh}  <{body} id="{r.ecli}:DOC" lang="nl" {ns}>
    <parablock><para>{escape(r.court.upper())}</para><para>zaaknummer: {escape(r.case_number)}</para></parablock>
    <para/>
    <para>{"conclusie in de zaak" if body == "conclusie" else "uitspraak in de zaak"} tussen</para>
    <para>[eiser], te {CITIES[len(r.ecli) % len(CITIES)]},</para>
    <para>en</para>
    <para>het college van burgemeester en wethouders van {CITIES[len(r.case_number) % len(CITIES)]}.</para>
    <section role="procesverloop"><title>Procesverloop</title>
      <para>Het onderzoek ter zitting heeft plaatsgevonden op {r.date - timedelta(days=21):%d-%m-%Y}.</para>
    </section>
    <section role="overwegingen"><title>Overwegingen</title>
{paras}
    </section>
    <section role="beslissing"><title>Beslissing</title>
      <para>De {r.court} beslist als volgt en doet uitspraak op {r.date:%d-%m-%Y}.</para>
    </section>
  </{body}>
</open-rechtspraak>
"""
