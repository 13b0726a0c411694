"""Replica of Rechtspraak open data (data.rechtspraak.nl) for tests and `make run`, serving real rulings.

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

Data (`proxy/replica/data/rechtspraak/`, provenance in its SOURCES.md): real content documents
served verbatim (their creator and subject URIs drive the `creator`/`subject` filters, their
`inhoudsindicatie` the feed summary, so the platform's "-" for "no summary" is real here), and the
entries of two recorded search feeds (2016: Rechtbank Assen, a court that no longer exists; 2024:
three Hoge Raad rulings). A feed entry has no recorded document: its content answer carries only
the metadata the feed gave (ECLI, court, date), no text. Nothing recorded is newer than 2024, so
three rulings dated just before `anchor` are made up (ECLI and title say "VOORBEELD"), one with a
`<script>` payload in its summary, and one withdrawn ECLI; `provenance()` names them.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from functools import lru_cache
from pathlib import Path
from xml.etree.ElementTree import Element
from xml.sax.saxutils import escape, quoteattr

from aiohttp import web
from defusedxml import ElementTree as SafeET

from proxy.replica.provenance import Provenance, tally

__all__ = ["RULINGS", "XSS_SUMMARY", "Ruling", "build_rulings", "create_app", "provenance"]

DATA = Path(__file__).parent / "data" / "rechtspraak"
RULINGS = web.AppKey("rechtspraak_rulings", dict)
COURT_BASE = "http://standaarden.overheid.nl/owms/terms/"
AREA_BASE = "http://psi.rechtspraak.nl/rechtsgebied#"
ATOM = "{http://www.w3.org/2005/Atom}"
RS = "{http://www.rechtspraak.nl/schema/rechtspraak-1.0}"
NS = {"rdf": "http://www.w3.org/1999/02/22-rdf-syntax-ns#", "dcterms": "http://purl.org/dc/terms/",
      "psi": "http://psi.rechtspraak.nl/"}
COURT_LIST = "waardelijst_instanties.xml"
FEEDS = ("zoeken_atom_feed_10entries_2016.xml", "zoeken_atom_feed_3entries_2026.xml")
RECORDED_ON = "2026-09-20"  # the newest recording: the 2026 search feed's <updated>
SAMPLE = "VOORBEELD"
XSS_SUMMARY = ("Voorbeeld, geen echte uitspraak: weigering omgevingsvergunning voor een dakopbouw; het bouwplan "
               "vermeldt <script>alert(1)</script> en <img src=x onerror=alert(1)>. Beroep ongegrond.")
NOT_FOUND_PATH = "/mededeling/404"
NOT_FOUND_PAGE = (  # the shape of the notice page; deliberately HTML, not XML (meta and br are not closed)
    '<!DOCTYPE html>\n<html lang="nl"><head><meta charset="utf-8"><title>Pagina niet gevonden - Rechtspraak</title>'
    "</head><body><h1>Deze pagina bestaat niet</h1><p>De uitspraak die u zoekt is niet gevonden.<br>"
    "Controleer het ECLI-nummer.</p></body></html>\n")
# made-up rulings: code, court, area, days before anchor, summary
SAMPLES = (
    ("RVS", "Raad van State", "bestuursrecht_omgevingsrecht", 1, XSS_SUMMARY),
    ("CRVB", "Centrale Raad van Beroep", "bestuursrecht_socialezekerheidsrecht", 3,
     "Voorbeeld, geen echte uitspraak: herziening en terugvordering van bijstand; hoger beroep ongegrond."),
    ("RBAMS", "Rechtbank Amsterdam", "strafrecht", 12,
     "Voorbeeld, geen echte uitspraak: diefstal met geweld; bewezenverklaring en strafoplegging."),
)
WHY_SAMPLE = "nothing recorded is newer than 2024; the load status and 'recent' questions need a ruling near anchor"


@dataclass
class Ruling:
    """One ruling of the replica's index; `source` is the data file it comes from (None: made up)."""

    ecli: str
    court: str
    court_uri: str
    date: date
    modified: datetime
    title: str
    type: str = "Uitspraak"
    areas: tuple[str, ...] = ()  # subject URI tails, e.g. "bestuursrecht_socialezekerheidsrecht"
    summary: str = ""
    has_doc: bool = True
    deleted: bool = False
    document: str | None = None  # the content answer, verbatim where recorded
    source: str | None = None
    why_invented: str = ""
    issued: dt.date | None = None  # `date` here would name the field above

    @property
    def court_code(self) -> str:
        return self.ecli.split(":")[2]


# --------------------------------------------------------------------------- data


def _text(el: Element | None) -> str:
    return " ".join("".join(el.itertext()).split()) if el is not None else ""


def _stamp(value: str) -> datetime:
    """A recorded timestamp ('2013-04-04T12:01:02', '2024-09-20T09:05:04Z', '…+02:00') as naive local time."""
    return datetime.fromisoformat(value.strip().replace("Z", "+00:00")).replace(tzinfo=None)


@lru_cache(maxsize=1)
def court_uris_by_name() -> dict[str, str]:
    """The platform's own court list (Waardelijst/Instanties): name → creator URI."""
    root = SafeET.fromstring((DATA / COURT_LIST).read_bytes())
    return {(i.findtext("Naam") or "").strip(): (i.findtext("Identifier") or "").strip() for i in root}


def _from_document(name: str) -> Ruling:
    text = (DATA / name).read_text(encoding="utf-8")
    root = SafeET.fromstring(text.encode())
    descriptions = root.findall("rdf:RDF/rdf:Description", NS)
    meta = descriptions[0]
    creator = meta.find("dcterms:creator", NS)
    court = _text(creator)
    day = date.fromisoformat(meta.findtext("dcterms:date", namespaces=NS) or "")
    cases = ", ".join(_text(e) for e in meta.findall("psi:zaaknummer", NS) if _text(e))
    ecli = meta.findtext("dcterms:identifier", namespaces=NS) or ""
    return Ruling(
        ecli=ecli, court=court, court_uri=creator.get("resourceIdentifier", "") if creator is not None else "",
        date=day, modified=_stamp(meta.findtext("dcterms:modified", namespaces=NS) or ""),
        issued=date.fromisoformat((meta.findtext("dcterms:issued", namespaces=NS) or day.isoformat())[:10]),
        title=f"{ecli}, {court}, {day:%d-%m-%Y}" + (f", {cases}" if cases else ""),
        type=_text(meta.find("dcterms:type", NS)) or "Uitspraak",
        areas=tuple(s.get("resourceIdentifier", "").removeprefix(AREA_BASE)
                    for s in meta.findall("dcterms:subject", NS)),
        summary=_text(root.find(f"{RS}inhoudsindicatie")),
        has_doc=root.find(f"{RS}uitspraak") is not None or root.find(f"{RS}conclusie") is not None,
        document=text, source=name)


def _from_feed(name: str) -> list[Ruling]:
    """A recorded feed's entries: title 'ECLI, court, dd-mm-yyyy, case' (the editor's line breaks folded)."""
    out = []
    courts = court_uris_by_name()
    for entry in SafeET.fromstring((DATA / name).read_bytes()).findall(f"{ATOM}entry"):
        title = _text(entry.find(f"{ATOM}title"))
        ecli, court, day = (p.strip() for p in title.split(",")[:3])
        out.append(Ruling(ecli=ecli, court=court, court_uri=courts.get(court, ""),
                          date=datetime.strptime(day, "%d-%m-%Y").date(),
                          modified=_stamp(entry.findtext(f"{ATOM}updated") or ""), title=title,
                          summary=_text(entry.find(f"{ATOM}summary")), source=name))
    return out


def _samples(anchor: date) -> list[Ruling]:
    out = []
    for n, (code, court, area, days, summary) in enumerate(SAMPLES, 1):
        stamp = datetime.combine(anchor - timedelta(days=days), datetime.min.time()) + timedelta(hours=9, minutes=n)
        ecli = f"ECLI:NL:{code}:{anchor.year}:{SAMPLE}{n}"
        out.append(Ruling(ecli=ecli, court=court, court_uri=COURT_BASE + "_".join(court.split()),
                          date=stamp.date() - timedelta(days=7), modified=stamp, issued=stamp.date(),
                          title=f"{ecli}, {court}, {stamp.date() - timedelta(days=7):%d-%m-%Y}, {SAMPLE} {n}",
                          areas=(area,), summary=summary, why_invented=WHY_SAMPLE))
    stamp = datetime.combine(anchor - timedelta(days=4), datetime.min.time()) + timedelta(hours=7)
    out.append(Ruling(ecli=f"ECLI:NL:RBDHA:{anchor.year}:{SAMPLE}{len(SAMPLES) + 1}", court="Rechtbank Den Haag",
                      court_uri=COURT_BASE + "Rechtbank_Den_Haag", date=stamp.date(), modified=stamp, title="",
                      deleted=True, why_invented="no recorded feed holds a withdrawn entry; paging must step over one"))
    return out


def document_files() -> list[str]:
    return sorted(p.name for p in DATA.glob("content_*.xml"))


@lru_cache(maxsize=4)
def build_rulings(anchor: date, *, fixtures: bool = False) -> dict[str, Ruling]:
    """Every ruling by ECLI (deterministic for an anchor), withdrawn ones included; the made-up ones (dated
    near `anchor`) only when a test asks for them."""
    rulings = [*(_from_document(name) for name in document_files()), *(r for f in FEEDS for r in _from_feed(f)),
               *(_samples(anchor) if fixtures else [])]
    return {r.ecli: r for r in rulings}


def provenance(anchor: date, *, fixtures: bool = False) -> Provenance:
    """Served rulings counted by the data file they come from; the made-up ones named one by one."""
    recorded: dict[str, int] = {}
    invented = []
    for ruling in build_rulings(anchor, fixtures=fixtures).values():
        if ruling.source:
            recorded[ruling.source] = recorded.get(ruling.source, 0) + 1
        else:
            invented.append(f"{ruling.ecli}: {ruling.why_invented}")
    real = [r for r in build_rulings(anchor, fixtures=fixtures).values() if r.source]
    holds = (*tally(f"rulings of the {r.court}" + (" with full text" if r.document else "") for r in real),)
    return Provenance(recorded=recorded, invented=tuple(invented), recorded_on=RECORDED_ON, holds=holds,
                      notes=(f"{COURT_LIST} is the court list the name table is checked against, not served",))


# --------------------------------------------------------------------------- HTTP


def create_app(anchor: date, *, fixtures: bool = False) -> web.Application:
    app = web.Application()
    app[RULINGS] = build_rulings(anchor, fixtures=fixtures)
    app.router.add_get("/uitspraken/zoeken", _search)
    app.router.add_get("/uitspraken/content", _content)
    app.router.add_get(NOT_FOUND_PATH, _not_found_page)
    app.router.add_post("/api/zoek", _zoek)
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
    if isinstance(ruling_dates, str):
        return _bad(ruling_dates)
    if isinstance(modified, str):
        return _bad(modified)
    only_live = bool(kinds or creators or subjects or ruling_dates)  # withdrawn ECLIs carry no metadata

    def keep(r: Ruling) -> bool:
        if r.deleted:
            return not only_live and (modified is None or modified[0] <= r.modified <= modified[1])
        if q.get("return") == "DOC" and not r.has_doc:
            return False
        if kinds and r.type not in kinds:
            return False
        if creators and r.court_uri not in creators:
            return False
        if subjects and not any(AREA_BASE + area in subjects for area in r.areas):
            return False
        if ruling_dates and not ruling_dates[0].date() <= r.date <= ruling_dates[1].date():
            return False
        return not (modified and not modified[0] <= r.modified <= modified[1])

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
    xml = ruling.document or _document(ruling)
    if request.query.get("return") == "META":
        xml = re.sub(r"\s*<(inhoudsindicatie|uitspraak|conclusie)\b.*?</\1>", "", xml, flags=re.DOTALL)
    return web.Response(text=xml, content_type="application/xml", charset="utf-8")


# --------------------------------------------------------------------------- the website's full-text search


TERM_RE = re.compile(r'"([^"]+)"|(\S+)')
FRAGMENT_CHARS = 240


def _plain_text(r: Ruling) -> str:
    """What the full-text search looks in: title, summary and the ruling's text."""
    return _document_text(r.title, r.document) if r.document else f"{r.title} {r.summary}"


@lru_cache(maxsize=256)
def _document_text(title: str, document: str) -> str:
    root = SafeET.fromstring(document.encode())
    body = [_text(root.find(f"{RS}{tag}")) for tag in ("inhoudsindicatie", "uitspraak", "conclusie")]
    return " ".join([title, *body])


def _terms(text: str) -> list[re.Pattern[str]]:
    """A quoted phrase is one term; other words are terms of their own (the search ORs them)."""
    found = [(m.group(1) or m.group(2)).strip() for m in TERM_RE.finditer(text)]
    return [re.compile(rf"(?<!\w){re.escape(t)}(?!\w)", re.IGNORECASE) for t in found if t.strip(' "')]


def _fragment(text: str, patterns: list[re.Pattern[str]]) -> str:
    first = min((m for p in patterns if (m := p.search(text))), key=lambda m: m.start(), default=None)
    if first is None:
        return escape(text[:FRAGMENT_CHARS])
    lo = max(0, first.start() - FRAGMENT_CHARS // 3)
    piece = text[lo:lo + FRAGMENT_CHARS]
    out = escape(piece)
    for p in patterns:  # highlight as the website does when ShouldReturnHighlights is set
        out = p.sub(lambda m: f"<b>{m.group(0)}</b>", out)
    return ("…" if lo else "") + out + "…"


def _zoek_row(r: Ruling, patterns: list[re.Pattern[str]], highlight: bool) -> dict[str, object]:
    labels = court_area_labels().get(r.ecli, ())
    text = _plain_text(r)
    return {"TitelEmphasis": r.ecli, "Titel": r.title.split(", ", 1)[1] if ", " in r.title else r.title,
            "Uitspraakdatum": f"{r.date:%d-%m-%Y}", "Publicatiedatum": f"{(r.issued or r.modified.date()):%d-%m-%Y}",
            "Rechtsgebieden": list(labels), "GerechtelijkProductType": r.type.lower(),
            "Tekstfragment": _fragment(text, patterns) if highlight else escape(text[:FRAGMENT_CHARS]),
            "DeeplinkUrl": f"https://deeplink.rechtspraak.nl/uitspraak?id={r.ecli}", "Proceduresoorten": [],
            "Vindplaatsen": []}


@lru_cache(maxsize=1)
def court_area_labels() -> dict[str, tuple[str, ...]]:
    """ECLI → the labels of its areas of law as its document writes them ("Bestuursrecht; Omgevingsrecht")."""
    out = {}
    for name in document_files():
        root = SafeET.fromstring((DATA / name).read_bytes())
        meta = root.findall("rdf:RDF/rdf:Description", NS)[0]
        out[meta.findtext("dcterms:identifier", namespaces=NS) or ""] = tuple(
            _text(s) for s in meta.findall("dcterms:subject", NS) if _text(s))
    return out


async def _zoek(request: web.Request) -> web.Response:
    """POST /api/zoek: the JSON search behind uitspraken.rechtspraak.nl, built from the body and answer fields
    public clients send and read (see SOURCES.md; no recorded answer exists)."""
    try:
        body = await request.json()
    except ValueError:
        return web.json_response({"Message": "The request is invalid."}, status=400)
    terms = body.get("SearchTerms") if isinstance(body, dict) else None
    start, size = (body.get("StartRow", 0), body.get("PageSize", 10)) if isinstance(body, dict) else (None, None)
    if not isinstance(terms, list) or not isinstance(start, int) or not isinstance(size, int) \
            or start < 0 or not 0 < size <= 1000 or not all(isinstance(t, dict) for t in terms):
        return web.json_response({"Message": "The request is invalid."}, status=400)
    words = " ".join(str(t.get("Term") or "") for t in terms)
    patterns = _terms(words)
    scored = []
    for r in request.app[RULINGS].values():
        if r.deleted:
            continue
        text = _plain_text(r)
        counts = [len(p.findall(text)) for p in patterns]
        if patterns and not any(counts):
            continue
        scored.append(((sum(1 for c in counts if c), sum(counts), r.date), r))
    scored.sort(key=lambda pair: pair[0], reverse=True)
    highlight = bool(body.get("ShouldReturnHighlights"))
    rows = [_zoek_row(r, patterns, highlight) for _, r in scored[start:start + size]]
    return web.json_response({"ResultCount": len(scored), "Results": rows})


async def _not_found_page(request: web.Request) -> web.Response:
    return web.Response(text=NOT_FOUND_PAGE, content_type="text/html", charset="utf-8")


def _document(r: Ruling) -> str:
    """The content answer for a ruling without a recorded document: the metadata known of it, in the platform's
    shape. A recorded feed entry gets no text (none was recorded); a made-up ruling gets one sample paragraph."""
    label = "Datum genomen" if r.type == "Conclusie" else "Uitspraakdatum"
    subjects = "".join(
        f'\n      <dcterms:subject rdfs:label="Rechtsgebied" resourceIdentifier="{AREA_BASE}{area}">'
        f"{area}</dcterms:subject>" for area in r.areas)
    meta = f"""<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:dcterms="http://purl.org/dc/terms/"
      xmlns:psi="http://psi.rechtspraak.nl/" xmlns:rdfs="http://www.w3.org/2000/01/rdf-schema#">
    <rdf:Description>
      <dcterms:identifier>{r.ecli}</dcterms:identifier>
      <dcterms:modified>{r.modified:%Y-%m-%dT%H:%M:%S}</dcterms:modified>
      <dcterms:issued rdfs:label="Publicatiedatum">{(r.issued or r.modified.date()).isoformat()}</dcterms:issued>
      <dcterms:creator rdfs:label="Instantie" resourceIdentifier={quoteattr(r.court_uri)}
        scheme="overheid.RechterlijkeMacht">{escape(r.court)}</dcterms:creator>
      <dcterms:date rdfs:label="{label}">{r.date.isoformat()}</dcterms:date>
      <dcterms:type rdf:language="nl" resourceIdentifier="http://psi.rechtspraak.nl/{r.type.lower()}">{r.type}</dcterms:type>{subjects}
    </rdf:Description>
    <rdf:Description rdf:about="http://deeplink.rechtspraak.nl/uitspraak?id={r.ecli}">
      <dcterms:title rdf:language="nl">{escape(r.title)}</dcterms:title>
    </rdf:Description>
  </rdf:RDF>"""
    ns = 'xmlns="http://www.rechtspraak.nl/schema/rechtspraak-1.0"'
    inh = (f'  <inhoudsindicatie id="{r.ecli}:INH" lang="nl" {ns}><para>{escape(r.summary)}</para>'
           "</inhoudsindicatie>\n") if r.summary else ""
    body = "" if r.source else (
        f'  <uitspraak id="{r.ecli}:DOC" lang="nl" {ns}><section role="beslissing"><title>Voorbeeld</title>'
        f"<para>Dit is een voorbeeld, geen echte uitspraak van de {escape(r.court)}.</para></section></uitspraak>\n")
    return f"""<?xml version="1.0" encoding="utf-8"?>
<open-rechtspraak>
  {meta}
{inh}{body}</open-rechtspraak>
"""
