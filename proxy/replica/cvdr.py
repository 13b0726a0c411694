"""Replica of CVDR (KOOP's local regulations) for the Lokale bekendmakingen replica: its SRU 1.2 search and the
regulations' XML, served over real regulation documents (`data/lokaal/cvdr/`, provenance in data/lokaal/SOURCES.md).

* `GET /zoekservice/sru/Search?operation=searchRetrieve&version=1.2&x-connection=cvdr&query=…&maximumRecords=N
  &startRecord=M` (the real `https://zoekservice.overheid.nl/sru/Search`): the CQL clauses `keyword all "…"`
  (every word in the regulation's text or metadata, case and accents ignored), `dcterms.creator="…"`,
  `dcterms.identifier=CVDR…_*` or exact, `overheidrg.inwerkingtredingDatum<=D` / `>=D`, joined by `and`, then
  `sortby overheidrg.inwerkingtredingDatum/descending|ascending`. Anything else is an SRU diagnostic, as
  the real service answers one. Records are `gzd` with the document's own `meta` as `originalData` and
  `enrichedData` (`publicatieurl_xml`, `publicatieurl_xhtml`, `preferred_url`): the shape of research §7.2
  (no recorded CVDR search answer was found; the record's fields are the documents' own).
* `GET /cvdr/CVDR<n>/<v>/xml/CVDR<n>_<v>.xml` (the real repository.officiele-overheidspublicaties.nl): the document
  as recorded.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from xml.etree.ElementTree import Element
from xml.sax.saxutils import escape

from aiohttp import web
from defusedxml import ElementTree as SafeET

__all__ = ["Regulation", "add_cvdr_routes", "regulations"]

DATA = Path(__file__).resolve().parent / "data" / "lokaal" / "cvdr"
SRW = "http://www.loc.gov/zing/srw/"
CLAUSE = re.compile(r'^(?P<index>[\w.]+)\s*(?P<op>all|<=|>=|=)\s*(?P<value>"[^"]*"|\S+)$', re.IGNORECASE)


def _fold(text: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", text.lower()) if not unicodedata.combining(c))


def _local(el: Element) -> str:
    return el.tag.rsplit("}", 1)[-1]


def _first(root: Element, name: str) -> str:
    el = next((e for e in root.iter() if _local(e) == name), None)
    return " ".join("".join(el.itertext()).split()) if el is not None else ""


@dataclass(frozen=True)
class Regulation:
    file: str
    work: str
    version: int
    document: str  # the recorded XML
    meta: str  # its <meta> element, serialised as recorded
    creator: str
    in_force_from: str
    words: str  # folded text, for keyword

    @property
    def id(self) -> str:
        return f"{self.work}_{self.version}"


@lru_cache(maxsize=1)
def regulations() -> tuple[Regulation, ...]:
    out = []
    for path in sorted(DATA.glob("CVDR*.xml")):
        text = path.read_text(encoding="utf-8")
        root = SafeET.fromstring(text.encode())
        work, version = path.stem.split("_")
        start, end = text.index("<meta"), text.index("</meta>") + len("</meta>")
        out.append(Regulation(file=path.name, work=work, version=int(version), document=text, meta=text[start:end],
                              creator=_first(root, "creator"), in_force_from=_first(root, "inwerkingtredingDatum"),
                              words=_fold(" ".join(root.itertext()))))
    return tuple(out)


class _Diagnostic(Exception):
    pass


def _matches(reg: Regulation, index: str, op: str, value: str) -> bool:
    value = value.strip('"')
    index = index.lower()
    if index == "keyword" and op.lower() in ("all", "="):
        return all(w in reg.words.split() for w in _fold(value).split())
    if index == "dcterms.creator" and op == "=":
        return _fold(reg.creator) == _fold(value)
    if index == "dcterms.identifier" and op == "=":
        return reg.id == value or (value.endswith("_*") and reg.work == value[:-2])
    if index == "overheidrg.inwerkingtredingdatum" and op in ("<=", ">="):
        return bool(reg.in_force_from) and (reg.in_force_from <= value if op == "<=" else reg.in_force_from >= value)
    raise _Diagnostic(f"unsupported index or relation: {index} {op}")


def _search(query: str) -> list[Regulation]:
    body, _, sort = query.partition(" sortby ")
    clauses = [c.strip() for c in re.split(r"\s+and\s+(?=(?:[^\"]*\"[^\"]*\")*[^\"]*$)", body.strip()) if c.strip()]
    if not clauses:
        raise _Diagnostic("empty query")
    parsed = []
    for clause in clauses:
        found = CLAUSE.match(clause)
        if not found:
            raise _Diagnostic(f"query syntax error at {clause!r}")
        parsed.append((found.group("index"), found.group("op"), found.group("value")))
    hits = [r for r in regulations() if all(_matches(r, *c) for c in parsed)]
    descending = "descending" in sort
    return sorted(hits, key=lambda r: (r.in_force_from, r.id), reverse=descending)


def _record(reg: Regulation, position: int) -> str:
    xml = f"https://repository.officiele-overheidspublicaties.nl/cvdr/{reg.work}/{reg.version}/xml/{reg.id}.xml"
    html = xml.replace("/xml/", "/html/").replace(".xml", ".html")
    return (f"<srw:record><srw:recordSchema>http://standaarden.overheid.nl/sru/</srw:recordSchema>"
            f"<srw:recordPacking>xml</srw:recordPacking><srw:recordData>"
            f'<gzd xmlns="http://standaarden.overheid.nl/sru"><originalData>{_namespaced(reg.meta)}</originalData>'
            f"<enrichedData><organisatietype>Gemeente</organisatietype>"
            f"<publicatieurl_xhtml>{escape(html)}</publicatieurl_xhtml><publicatieurl_xml>{escape(xml)}"
            f"</publicatieurl_xml><preferred_url>https://lokaleregelgeving.overheid.nl/{reg.work}/{reg.version}"
            f"</preferred_url></enrichedData></gzd></srw:recordData>"
            f"<srw:recordPosition>{position}</srw:recordPosition></srw:record>")


def _namespaced(meta: str) -> str:
    """The document's <meta>, with the namespaces its root declared, so it stands on its own in a record."""
    return meta.replace("<meta", '<meta xmlns="http://standaarden.overheid.nl/cvdr/terms/" '
                        'xmlns:dcterms="http://purl.org/dc/terms/" '
                        'xmlns:overheid="http://standaarden.overheid.nl/owms/terms/" '
                        'xmlns:overheidrg="http://standaarden.overheid.nl/cvdr/meta/"', 1)


def _answer(total: int, records: str) -> web.Response:
    return web.Response(text=f'<?xml version="1.0" encoding="utf-8"?><srw:searchRetrieveResponse xmlns:srw="{SRW}">'
                             f"<srw:version>1.2</srw:version><srw:numberOfRecords>{total}</srw:numberOfRecords>"
                             f"<srw:records>{records}</srw:records></srw:searchRetrieveResponse>",
                        content_type="text/xml", charset="utf-8")


def _diagnostic(message: str) -> web.Response:
    return web.Response(text=f'<?xml version="1.0" encoding="utf-8"?><srw:searchRetrieveResponse xmlns:srw="{SRW}">'
                             "<srw:version>1.2</srw:version><srw:numberOfRecords>0</srw:numberOfRecords>"
                             '<srw:diagnostics><diagnostic xmlns="http://www.loc.gov/zing/srw/diagnostic/">'
                             f"<uri>info:srw/diagnostic/1/10</uri><message>{escape(message)}</message></diagnostic>"
                             "</srw:diagnostics></srw:searchRetrieveResponse>",
                        content_type="text/xml", charset="utf-8")


async def _sru(request: web.Request) -> web.Response:
    q = request.query
    if q.get("x-connection", "").lower() != "cvdr":
        return _diagnostic(f"unknown x-connection {q.get('x-connection')!r}; this replica serves cvdr")
    if q.get("operation") != "searchRetrieve" or q.get("version") not in ("1.2", None):
        return _diagnostic("operation searchRetrieve, version 1.2")
    try:
        size, start = int(q.get("maximumRecords", "10")), int(q.get("startRecord", "1"))
        if not 0 <= size <= 1000 or start < 1:
            raise ValueError
        hits = _search(q.get("query", ""))
    except ValueError:
        return _diagnostic("maximumRecords 0-1000, startRecord from 1")
    except _Diagnostic as exc:
        return _diagnostic(str(exc))
    page = hits[start - 1:start - 1 + size]
    return _answer(len(hits), "".join(_record(r, start + n) for n, r in enumerate(page)))


async def _document(request: web.Request) -> web.Response:
    work, version, name = request.match_info["work"], request.match_info["version"], request.match_info["name"]
    found = next((r for r in regulations() if r.work == work and str(r.version) == version
                  and name == f"{r.id}.xml"), None)
    if found is None:
        raise web.HTTPNotFound(text="Not Found")
    return web.Response(text=found.document, content_type="application/xml", charset="utf-8")


def add_cvdr_routes(app: web.Application) -> None:
    app.router.add_get("/zoekservice/sru/Search", _sru)
    app.router.add_get("/cvdr/{work}/{version}/xml/{name}", _document)
