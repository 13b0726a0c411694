"""What the three SRU replicas share: a CQL subset, its evaluation, and SRU reply rendering.

CQL subset (what the adapters send, plus what KOOP's guide shows):

* clauses `index relation term` with relations `==`, `=`, `<>`, `<`, `>`, `<=`, `>=`, `any`, `all`,
  `adj`, `exact`; a bare term (or `cql.serverChoice` / `cql.textAndIndexes`) searches all text;
* booleans `AND`, `OR`, `NOT` (binary, equal precedence, left to right, as in CQL), parentheses;
* `sortBy index[/sort.descending|/descending|/sort.ascending|/ascending]`;
* terms quoted (`"..."` with `\\"` escapes) or bare; `*` as a whole term matches any value, a
  trailing `*` is a prefix match.

Matching: `==` is exact (case-insensitive except for identifier indexes), `=` a phrase containment
on word boundaries (case- and accent-insensitive), `any`/`all` on words, comparisons on ISO dates.
A comparison with an impossible date (2026-02-29) is ignored and reported next to the results, as
KOOP does (SEARCH-IGNOREDQTEXT). Syntax errors, unknown indexes and relations raise `SruFault`,
which each replica renders as its platform's diagnostic in an HTTP 200.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from functools import lru_cache
from typing import Any, Union
from xml.sax.saxutils import escape, quoteattr

from aiohttp import web

from proxy.replica.provenance import Provenance, tally

__all__ = [
    "Bool",
    "Clause",
    "CqlQuery",
    "Record",
    "SruFault",
    "SruRequest",
    "evaluate",
    "facet_counts",
    "norm",
    "parse_cql",
    "publication_provenance",
    "request_params",
    "sort_records",
    "x",
]

# --------------------------------------------------------------------------- errors


class SruFault(Exception):
    """A fatal SRU diagnostic: `number` of info:srw/diagnostic/1/<number>, a message and details."""

    def __init__(self, number: int, message: str, details: str = "") -> None:
        self.number = number
        self.message = message
        self.details = details
        super().__init__(f"{number}: {message} {details}".strip())


# --------------------------------------------------------------------------- CQL parsing

_RELATION_WORDS = frozenset({"any", "all", "adj", "exact"})
_SYMBOLS = ("==", "<>", "<=", ">=", "=", "<", ">", "(", ")", "/")
_BOOLEANS = frozenset({"and", "or", "not", "prox"})


@dataclass(frozen=True, slots=True)
class Token:
    kind: str  # "word" | "string" | "symbol" | "eof"
    text: str
    column: int


@dataclass(frozen=True, slots=True)
class Clause:
    index: str
    relation: str
    term: str


@dataclass(frozen=True, slots=True)
class Bool:
    op: str  # "and" | "or" | "not"
    left: Node
    right: Node


Node = Union[Clause, Bool]  # noqa: UP007 - a runtime alias used before `Bool` is complete


@dataclass(frozen=True, slots=True)
class CqlQuery:
    root: Node
    sort: tuple[tuple[str, bool], ...] = ()  # (index, descending)


def _tokens(text: str) -> list[Token]:
    out: list[Token] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch.isspace():
            i += 1
            continue
        if ch == '"':
            j, buf = i + 1, []
            while j < len(text) and text[j] != '"':
                if text[j] == "\\" and j + 1 < len(text):
                    j += 1
                buf.append(text[j])
                j += 1
            if j >= len(text):
                raise SruFault(10, f"line 1:{i} token recognition error at: '{text[i:]}'", "unterminated string")
            out.append(Token("string", "".join(buf), i))
            i = j + 1
            continue
        symbol = next((s for s in _SYMBOLS if text.startswith(s, i)), None)
        if symbol:
            out.append(Token("symbol", symbol, i))
            i += len(symbol)
            continue
        j = i
        while j < len(text) and not text[j].isspace() and text[j] not in '()"=<>/':
            j += 1
        out.append(Token("word", text[i:j], i))
        i = j
    out.append(Token("eof", "<EOF>", len(text)))
    return out


class _Parser:
    def __init__(self, text: str) -> None:
        self.tokens = _tokens(text)
        self.pos = 0

    def peek(self, ahead: int = 0) -> Token:
        return self.tokens[min(self.pos + ahead, len(self.tokens) - 1)]

    def take(self) -> Token:
        token = self.peek()
        self.pos += 1
        return token

    def fail(self, token: Token, expecting: str) -> SruFault:
        return SruFault(10, f"line 1:{token.column} mismatched input '{token.text}' expecting {expecting}",
                        f"Query syntax error: expected {expecting}, got '{token.text}'")

    def query(self) -> CqlQuery:
        if self.peek().kind == "eof":
            raise SruFault(27, "Empty term unsupported", "empty query")
        root = self.boolean()
        sort: list[tuple[str, bool]] = []
        if self.peek().kind == "word" and self.peek().text.lower() == "sortby":
            self.take()
            while self.peek().kind == "word":
                index = self.take().text
                descending = False
                while self.peek().text == "/":
                    self.take()
                    modifier = self.take()
                    if modifier.kind != "word":
                        raise self.fail(modifier, "a sort modifier")
                    descending = modifier.text.lower() in ("sort.descending", "descending")
                sort.append((index, descending))
            if not sort:
                raise self.fail(self.peek(), "an index to sort by")
        if self.peek().kind != "eof":
            raise self.fail(self.peek(), "{<EOF>, AND, OR, NOT, PROX, SORTBY}")
        return CqlQuery(root=root, sort=tuple(sort))

    def boolean(self) -> Node:
        node = self.operand()
        while self.peek().kind == "word" and self.peek().text.lower() in _BOOLEANS:
            op = self.take().text.lower()
            if op == "prox":
                raise SruFault(37, "Unsupported boolean operator", "PROX")
            node = Bool(op, node, self.operand())
        return node

    def operand(self) -> Node:
        token = self.peek()
        if token.text == "(" and token.kind == "symbol":
            self.take()
            node = self.boolean()
            closing = self.take()
            if closing.text != ")":
                raise self.fail(closing, "')'")
            return node
        if token.kind not in ("word", "string"):
            raise self.fail(token, "a search term")
        nxt = self.peek(1)
        is_relation = (nxt.kind == "symbol" and nxt.text in ("==", "<>", "<=", ">=", "=", "<", ">")) or (
            nxt.kind == "word" and nxt.text.lower() in _RELATION_WORDS and token.kind == "word"
            and self.peek(2).kind in ("word", "string"))
        if not is_relation:
            self.take()
            return Clause("cql.serverChoice", "=", token.text)
        index = self.take().text
        relation = self.take().text.lower()
        if self.peek().text == "/":
            raise self.fail(self.peek(), "boolean")
        term = self.take()
        if term.kind not in ("word", "string"):
            raise self.fail(term, "a search term")
        return Clause(index, relation, term.text)


def parse_cql(text: str) -> CqlQuery:
    """Parse the CQL subset; raises `SruFault` (diagnostic 10) on a syntax error."""
    return _Parser(text).query()


def clauses(node: Node) -> Iterable[Clause]:
    if isinstance(node, Clause):
        yield node
    else:
        yield from clauses(node.left)
        yield from clauses(node.right)


# --------------------------------------------------------------------------- evaluation


@lru_cache(maxsize=65536)
def norm(text: str) -> str:
    """Case- and accent-insensitive form."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


@lru_cache(maxsize=65536)
def _words(text: str) -> tuple[str, ...]:
    return tuple(re.findall(r"[0-9a-z]+", norm(text)))


class Record:
    """A searchable record: index name → values. Subclasses add what they render."""

    def values(self, index: str) -> Sequence[str]:  # pragma: no cover - overridden
        raise NotImplementedError


@dataclass
class Evaluation:
    known: Callable[[str], bool]
    case_sensitive: frozenset[str] = frozenset()
    virtual: Mapping[str, Callable[[Record, Clause], bool]] = field(default_factory=dict)
    ignored: list[str] = field(default_factory=list)
    date_indexes: frozenset[str] = frozenset()


def _valid_date(term: str) -> bool:
    try:
        date.fromisoformat(term)
    except ValueError:
        return False
    return True


def _match(values: Sequence[str], relation: str, term: str, *, exact_case: bool) -> bool:
    if term == "*":
        return any(v for v in values)
    if relation in ("==", "exact"):
        if term.endswith("*"):
            return any(norm(v).startswith(norm(term[:-1])) for v in values)
        return any((v == term) if exact_case else (norm(v) == norm(term)) for v in values)
    if relation == "<>":
        return not any(norm(v) == norm(term) for v in values)
    if relation in ("<", ">", "<=", ">="):
        checks = {"<": lambda v: v < term, ">": lambda v: v > term, "<=": lambda v: v <= term,
                  ">=": lambda v: v >= term}
        return any(checks[relation](v[:10]) for v in values if v)
    wanted = _words(term)
    if not wanted:
        return False
    prefix = term.endswith("*")
    for value in values:
        have = _words(value)
        if relation == "any" and any(w in have for w in wanted):
            return True
        if relation == "all" and all(w in have for w in wanted):
            return True
        if relation in ("=", "adj"):
            n = len(wanted)
            for i in range(len(have) - n + 1):
                window = have[i:i + n]
                if window[:-1] == wanted[:-1] and (
                        window[-1] == wanted[-1] or (prefix and window[-1].startswith(wanted[-1]))):
                    return True
    return False


def check_query(query: CqlQuery, evaluation: Evaluation) -> None:
    """Unknown indexes and relations are fatal (diagnostics 16 and 19)."""
    for clause in clauses(query.root):
        if not evaluation.known(clause.index):
            raise SruFault(16, "Unsupported index", clause.index)
        if clause.relation in ("<", ">", "<=", ">=") and clause.index not in evaluation.date_indexes:
            raise SruFault(19, "Unsupported relation", f"{clause.relation} on {clause.index}")
    for index, _ in query.sort:
        if not evaluation.known(index):
            raise SruFault(16, "Unsupported index", index)


def evaluate(node: Node, record: Record, evaluation: Evaluation) -> bool:
    if isinstance(node, Bool):
        left = evaluate(node.left, record, evaluation)
        if node.op == "and":
            return left and evaluate(node.right, record, evaluation)
        if node.op == "or":
            return left or evaluate(node.right, record, evaluation)
        return left and not evaluate(node.right, record, evaluation)
    clause = node
    if clause.relation in ("<", ">", "<=", ">=") and not _valid_date(clause.term):
        text = f"{clause.index}{clause.relation}{clause.term}"
        if text not in evaluation.ignored:
            evaluation.ignored.append(text)
        return True
    special = evaluation.virtual.get(clause.index)
    if special is not None:
        return special(record, clause)
    return _match(record.values(clause.index), clause.relation, clause.term,
                  exact_case=clause.index in evaluation.case_sensitive)


def sort_records(records: list[Any], keys: Sequence[tuple[str, bool]]) -> list[Any]:
    for index, descending in reversed(keys):
        def key(r: Record, i: str = index) -> str:
            return (r.values(i) or [""])[0]

        records = sorted(records, key=key, reverse=descending)
    return records


def facet_counts(records: Iterable[Record], index: str, limit: int) -> list[tuple[str, int]]:
    counts: dict[str, int] = {}
    for record in records:
        for value in dict.fromkeys(record.values(index)):
            counts[value] = counts.get(value, 0) + 1
    return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:limit]


# --------------------------------------------------------------------------- requests


@dataclass(frozen=True, slots=True)
class SruRequest:
    operation: str
    version: str | None
    query: str | None
    start: int
    maximum: int
    record_schema: str | None
    facet_limit: str | None
    params: Mapping[str, str]


async def request_params(request: web.Request) -> dict[str, str]:
    """GET query or form-encoded POST body, as SRU allows both."""
    params = dict(request.query)
    if request.method == "POST":
        params.update({k: str(v) for k, v in (await request.post()).items()})
    return params


def sru_request(params: Mapping[str, str], *, default_maximum: int, max_maximum: int) -> SruRequest:
    def integer(name: str, default: int, minimum: int) -> int:
        raw = params.get(name)
        if raw is None or raw == "":
            return default
        try:
            value = int(raw)
        except ValueError:
            raise SruFault(6, "Unsupported parameter value", f"{name}={raw}") from None
        if value < minimum:
            raise SruFault(6, "Unsupported parameter value", f"{name}={raw}")
        return value

    return SruRequest(
        operation=params.get("operation", "searchRetrieve"),
        version=params.get("version"),
        query=params.get("query"),
        start=integer("startRecord", 1, 1),
        maximum=min(integer("maximumRecords", default_maximum, 0), max_maximum),
        record_schema=params.get("recordSchema"),
        facet_limit=params.get("facetLimit"),
        params=params,
    )


def parse_facet_limit(raw: str | None) -> list[tuple[str, int]]:
    """`50:dt.type,50:w.organisatietype` → [("dt.type", 50), ...]."""
    out: list[tuple[str, int]] = []
    for part in (raw or "").split(","):
        if not part.strip():
            continue
        count, _, index = part.strip().partition(":")
        if not index or not count.isdigit():
            raise SruFault(6, "Unsupported parameter value", f"facetLimit={raw}")
        out.append((index, int(count)))
    return out


# --------------------------------------------------------------------------- rendering helpers


def x(value: Any) -> str:
    """Escape text for XML element content."""
    return escape(str(value))


def xa(value: Any) -> str:
    """Quote a value for an XML attribute."""
    return quoteattr(str(value))


def xml_response(body: str, *, status: int = 200) -> web.Response:
    return web.Response(status=status, body=body.encode("utf-8"), content_type="text/xml", charset="utf-8")


def nginx_504() -> web.Response:
    """What repository.overheid.nl answers for startRecord >= 10000 (research §3.1)."""
    html = ("<html>\r\n<head><title>504 Gateway Time-out</title></head>\r\n<body>\r\n<center><h1>504 Gateway "
            "Time-out</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n")
    return web.Response(status=504, text=html, content_type="text/html")


# --------------------------------------------------------------------------- KOOP repository.overheid.nl/sru
# Shared by the `lokaal` and `officieel` replicas: gzd records of officielepublicaties, the SRU 2.0
# reply shaped like the recorded response in data/officieel/, and the /frbr/ text documents.

GZD_SCHEMA = "http://standaarden.overheid.nl/sru/"
PRECISION_ESTIMATE = "info:srw/vocabulary/resultCountPrecision/1/estimate"
REPOSITORY = "https://repository.overheid.nl"
KOOP_NAMESPACES = (
    'xmlns:overheidwetgeving="http://standaarden.overheid.nl/wetgeving/" xmlns:dcterms="http://purl.org/dc/terms/" '
    'xmlns:cd="http://standaarden.overheid.nl/cup/data" '
    'xmlns:sru="http://docs.oasis-open.org/ns/search-ws/sruResponse" '
    'xmlns:gzd="http://standaarden.overheid.nl/sru" xmlns:diag="http://docs.oasis-open.org/ns/search-ws/diagnostic" '
    'xmlns:facet="http://docs.oasis-open.org/ns/search-ws/facetedResults" '
    'xmlns:c="http://standaarden.overheid.nl/collectie/"'
)
_KOOP_INDEX = {
    "dt.identifier": "identifier", "dt.title": "title", "dt.creator": "creator", "dt.type": "type",
    "dt.date": "date", "dt.available": "available", "dt.modified": "modified", "dt.abstract": "abstract",
    "w.publicatienaam": "publication_name", "w.organisatietype": "organisation_type", "w.dossiernummer": "dossier",
    "w.jaargang": "year", "w.publicatienummer": "number", "w.documentstatus": "status",
}
_KOOP_TEXT = ("title", "abstract", "creator", "type", "publication_name")
KOOP_INDEXES = frozenset({*_KOOP_INDEX, "dt.subject", "c.product-area", "cql.textAndIndexes", "cql.serverChoice",
                          "cql.anywhere"})


@dataclass
class Publication(Record):
    """One publication in the KOOP repository, as the replica stores it."""

    identifier: str
    title: str
    type: str
    creator: str
    publication_name: str
    organisation_type: str
    area: str  # FRBR content area below officielepublicaties, e.g. "gmb/2026" or "blg/onopgemaakt"
    date: str
    available: str
    modified: str
    type_scheme: str = "OVERHEIDop.Rubriek"
    creator_scheme: str = "OVERHEID.Gemeente"
    year: str = ""
    number: str = ""
    dossier: str = ""
    status: str = ""
    abstract: str = ""
    subjects: list[str] = field(default_factory=list)
    paragraphs: list[str] = field(default_factory=list)
    extra_tpmeta: list[tuple[str, str]] = field(default_factory=list)  # (qualified tag, text)
    formats: tuple[str, ...] = ("html", "metadata", "pdf", "xml")
    raw_gzd: str | None = None  # the verbatim <gzd:gzd> element of a recorded record
    raw_document: str | None = None  # the verbatim XML text of a recorded publication
    origin: str = ""  # the data file (in data/<platform>/) it was read from; "" for a made-up sample

    def values(self, index: str) -> Sequence[str]:
        if index in _KOOP_INDEX:
            value = getattr(self, _KOOP_INDEX[index])
            return [value] if value else []
        if index == "dt.subject":
            return self.subjects
        if index == "c.product-area":
            return ["officielepublicaties"]
        if index in ("cql.textAndIndexes", "cql.serverChoice", "cql.anywhere"):
            return [*(getattr(self, f) for f in _KOOP_TEXT), *self.subjects, *self.paragraphs]
        return []

    def item_url(self, manifestation: str) -> str:
        folder = {"metadata": "metadata", "metadataowms": "metadataowms"}.get(manifestation, manifestation)
        name = {"metadata": "metadata.xml", "metadataowms": "metadata_owms.xml"}.get(
            manifestation, f"{self.identifier}.{manifestation}")
        return f"{REPOSITORY}/frbr/officielepublicaties/{self.area.split('/')[0]}/{self.area.split('/')[1]}/" \
               f"{self.identifier}/1/{folder}/{name}"


def koop_gzd(pub: Publication) -> str:
    """The <gzd:gzd> element of one record, in the shape of the recorded KOOP responses."""
    if pub.raw_gzd is not None:
        return pub.raw_gzd
    ow = "overheidwetgeving"
    subjects = "".join(f'<dcterms:subject scheme="OVERHEID.TaxonomieBeleidsagendaDecentraal">{x(s)}</dcterms:subject>'
                       for s in pub.subjects)
    abstract = f"<dcterms:abstract>{x(pub.abstract)}</dcterms:abstract>" if pub.abstract else ""
    tp = [("c:product-area", "officielepublicaties"), ("c:content-area", f"officielepublicaties/{pub.area}")]
    if pub.year:
        tp.append((f"{ow}:jaargang", pub.year))
    tp.append((f"{ow}:organisatietype", pub.organisation_type))
    tp.append((f"{ow}:publicatienaam", pub.publication_name))
    if pub.number:
        tp.append((f"{ow}:publicatienummer", pub.number))
    if pub.dossier:
        tp.append((f"{ow}:dossiernummer", pub.dossier))
    tp.extend(pub.extra_tpmeta)
    tpmeta = "".join(
        f'<{tag} scheme="OVERHEID.Organisatietype">{x(v)}</{tag}>' if tag.endswith(":organisatietype")
        else f"<{tag}>{x(v)}</{tag}>" for tag, v in tp)
    main = "xml" if "xml" in pub.formats else "pdf"
    items = "".join(f'<gzd:itemUrl manifestation="{m}">{x(pub.item_url(m))}</gzd:itemUrl>' for m in pub.formats)
    return (
        f"<gzd:gzd><gzd:originalData><{ow}:meta><{ow}:owmskern>"
        f"<dcterms:identifier>{x(pub.identifier)}</dcterms:identifier><dcterms:title>{x(pub.title)}</dcterms:title>"
        f"<dcterms:language>nl</dcterms:language>"
        f"<dcterms:type scheme={xa(pub.type_scheme)}>{x(pub.type)}</dcterms:type>"
        f"<dcterms:creator scheme={xa(pub.creator_scheme)}>{x(pub.creator)}</dcterms:creator>"
        f"<dcterms:modified>{pub.modified}</dcterms:modified></{ow}:owmskern><{ow}:owmsmantel>"
        f"<dcterms:available>{pub.available}</dcterms:available><dcterms:date>{pub.date}</dcterms:date>"
        f'<dcterms:hasVersion resourceIdentifier="https://zoek.officielebekendmakingen.nl/{x(pub.identifier)}.html">1'
        f"</dcterms:hasVersion>{subjects}{abstract}"
        f"<dcterms:publisher scheme={xa(pub.creator_scheme)}>{x(pub.creator)}</dcterms:publisher>"
        f"</{ow}:owmsmantel><{ow}:tpmeta>{tpmeta}</{ow}:tpmeta></{ow}:meta></gzd:originalData>"
        f"<gzd:enrichedData><gzd:url>{x(pub.item_url(main))}</gzd:url>"
        f"<gzd:preferredUrl>https://zoek.officielebekendmakingen.nl/{x(pub.identifier)}.html</gzd:preferredUrl>"
        f"{items}<gzd:timestamp>{pub.modified}T09:00:00.000000+02:00</gzd:timestamp></gzd:enrichedData></gzd:gzd>"
    )


def koop_diagnostic(fault: SruFault) -> str:
    """A fatal diagnostic as repository.overheid.nl sends it (HTTP 200, research §3.3)."""
    return ('<?xml version="1.0" encoding="UTF-8"?><searchRetrieveResponse '
            'xmlns="http://docs.oasis-open.org/ns/search-ws/sruResponse" '
            'xmlns:ns3="http://docs.oasis-open.org/ns/search-ws/diagnostic"><version>2.0</version><diagnostics>'
            f"<ns3:diagnostic><ns3:uri>info:srw/diagnostic/1/{fault.number}</ns3:uri>"
            f"<ns3:message>{x(fault.message)}</ns3:message>"
            + (f"<ns3:details>{x(fault.details)}</ns3:details>" if fault.details and fault.number != 10 else "")
            + "</ns3:diagnostic></diagnostics></searchRetrieveResponse>")


def _koop_facets(hits: Sequence[Publication], wanted: list[tuple[str, int]]) -> str:
    if not wanted:
        return ""
    facets = []
    for index, limit in wanted:
        terms = "".join(
            f"<facet:term><facet:actualTerm>{x(term)}</facet:actualTerm>"
            f"<facet:query>{x(index)}==&quot;{x(term)}&quot;</facet:query><facet:count>{count}</facet:count>"
            "</facet:term>" for term, count in facet_counts(hits, index, limit))
        facets.append(f"<facet:facet><facet:facetDisplayLabel>{x(index)}</facet:facetDisplayLabel>"
                      f"<facet:index>{x(index)}</facet:index><facet:terms>{terms}</facet:terms></facet:facet>")
    return f"<sru:facetedResults><facet:facets>{''.join(facets)}</facet:facets></sru:facetedResults>"


def koop_response(req: SruRequest, hits: Sequence[Publication], ignored: Sequence[str],
                  facets: list[tuple[str, int]]) -> str:
    shown = hits[req.start - 1:req.start - 1 + req.maximum]
    records = "".join(
        f"<sru:record><sru:recordSchema>{GZD_SCHEMA}</sru:recordSchema><sru:recordPacking>xml</sru:recordPacking>"
        f"<sru:recordData>{koop_gzd(p)}</sru:recordData><sru:recordPosition>{req.start + i}</sru:recordPosition>"
        "</sru:record>" for i, p in enumerate(shown))
    following = req.start + len(shown)
    nxt = f"<sru:nextRecordPosition>{following}</sru:nextRecordPosition>" if following <= len(hits) and shown else ""
    diagnostics = "".join(
        f"<diag:diagnostic><diag:uri>SEARCH-IGNOREDQTEXT</diag:uri><diag:details>{x(text)}</diag:details>"
        "<diag:message>Query text ignored</diag:message></diag:diagnostic>" for text in ignored)
    return (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<sru:searchRetrieveResponse {KOOP_NAMESPACES}>'
        f"<sru:version>2.0</sru:version><sru:numberOfRecords>{len(hits)}</sru:numberOfRecords>"
        f"<sru:records>{records}</sru:records>{nxt}"
        f"<sru:echoedSearchRetrieveRequest><sru:query>{x(req.query or '')}</sru:query>"
        f"<sru:startRecord>{req.start}</sru:startRecord><sru:maximumRecords>{req.maximum}</sru:maximumRecords>"
        f"<sru:recordXMLEscaping>xml</sru:recordXMLEscaping><sru:recordSchema>{GZD_SCHEMA}</sru:recordSchema>"
        "</sru:echoedSearchRetrieveRequest>"
        + (f"<sru:diagnostics>{diagnostics}</sru:diagnostics>" if diagnostics else "")
        + f"<sru:resultCountPrecision>{PRECISION_ESTIMATE}</sru:resultCountPrecision>"
        + _koop_facets(hits, facets)
        + "</sru:searchRetrieveResponse>"
    )


_ROOTS = {"gmb": "gemeenteblad", "prb": "provinciaalblad", "wsb": "waterschapsblad",
          "bgr": "bladgemeenschappelijkeregeling", "stcrt": "staatscourant", "stb": "staatsblad",
          "trb": "tractatenblad", "kst": "kamerstuk", "h-tk": "handelingen", "h-ek": "handelingen",
          "blg": "bijlage", "kv": "kamervragen"}


def koop_document(pub: Publication) -> str:
    """The XML manifestation of a publication (officiele-publicatie): the recorded text where there is one, else
    the record's own title, abstract and the paragraphs recorded with it (nothing made up is added)."""
    if pub.raw_document is not None:
        return pub.raw_document
    root = _ROOTS.get(pub.area.split("/")[0], "publicatie")
    paragraphs = "".join(f"<al>{x(p)}</al>" for p in ([pub.abstract] if pub.abstract else []) + pub.paragraphs)
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n<officiele-publicatie xml:lang="nl">'
        f'<metadata><meta name="DC.identifier" content={xa(pub.identifier)}/>'
        f'<meta name="DC.title" content={xa(pub.title)}/><meta name="DC.creator" content={xa(pub.creator)}/>'
        f'<meta name="DCTERMS.available" content={xa(pub.available)}/></metadata>'
        f"<{root}><zakelijke-mededeling><zakelijke-mededeling-tekst><tussenkop>{x(pub.title)}</tussenkop>"
        f"{paragraphs}</zakelijke-mededeling-tekst></zakelijke-mededeling></{root}></officiele-publicatie>"
    )


def _koop_evaluation() -> Evaluation:
    return Evaluation(known=KOOP_INDEXES.__contains__, case_sensitive=frozenset({"dt.identifier"}),
                      date_indexes=frozenset({"dt.date", "dt.available", "dt.modified"}))


def koop_app(publications: Sequence[Publication]) -> web.Application:
    """A replica of repository.overheid.nl: `/sru` (GET and POST) and the `/frbr/...` text documents."""
    by_id = {p.identifier: p for p in publications}
    ordered = sorted(publications, key=lambda p: (p.available, p.identifier), reverse=True)

    async def sru(request: web.Request) -> web.Response:
        params = await request_params(request)
        try:
            req = sru_request(params, default_maximum=10, max_maximum=1000)
            if req.start >= 10_000:
                return nginx_504()
            if req.operation != "searchRetrieve":
                raise SruFault(4, "Unsupported operation", req.operation)
            if req.version not in (None, "2.0"):
                raise SruFault(5, "Unsupported version", str(req.version))
            if req.record_schema not in (None, "gzd", GZD_SCHEMA):
                raise SruFault(66, "Unknown schema for retrieval", str(req.record_schema))
            if not req.query:
                raise SruFault(7, "Mandatory parameter not supplied", "query")
            query = parse_cql(req.query)
            evaluation = _koop_evaluation()
            check_query(query, evaluation)
            facets = parse_facet_limit(req.facet_limit)
        except SruFault as fault:
            return xml_response(koop_diagnostic(fault))
        hits = [p for p in ordered if evaluate(query.root, p, evaluation)]
        hits = sort_records(hits, query.sort)
        return xml_response(koop_response(req, hits, evaluation.ignored, facets))

    async def frbr(request: web.Request) -> web.Response:
        parts = request.match_info["tail"].split("/")
        # officielepublicaties/<blad>/<jaar>/<id>/1/<manifestation>/<file>
        if len(parts) != 7 or parts[0] != "officielepublicaties" or parts[3] not in by_id:
            raise web.HTTPNotFound(text="Not Found")
        pub = by_id[parts[3]]
        manifestation = parts[5]
        if manifestation not in pub.formats or parts[6] != pub.item_url(manifestation).rsplit("/", 1)[1]:
            raise web.HTTPNotFound(text="Not Found")
        if manifestation == "xml":
            return xml_response(koop_document(pub))
        if manifestation == "html":
            body = "".join(f"<p>{x(p)}</p>" for p in pub.paragraphs)
            return web.Response(text=f"<!DOCTYPE html><html lang=\"nl\"><head><title>{x(pub.title)}</title></head>"
                                f"<body><h1>{x(pub.title)}</h1>{body}</body></html>", content_type="text/html")
        raise web.HTTPNotFound(text="Not Found")

    app = web.Application()
    app.router.add_route("GET", "/sru", sru)
    app.router.add_route("POST", "/sru", sru)
    app.router.add_route("GET", "/sru/Search", sru)
    app.router.add_route("POST", "/sru/Search", sru)
    app.router.add_route("GET", "/frbr/{tail:.+}", frbr)
    return app


# KOOP identifier families, as people name them.
FAMILIES = {"kst": "Kamerstuk", "ah": "Aanhangsel Handelingen (Kamervragen with answer)", "kv": "Kamervragen",
            "h": "Handelingen", "blg": "Bijlage", "stb": "Staatsblad", "stcrt": "Staatscourant", "trb": "Tractatenblad",
            "gmb": "Gemeenteblad", "prb": "Provinciaal blad", "wsb": "Waterschapsblad",
            "bgr": "Blad gemeenschappelijke regeling", "ag": "Agenda", "nds": "Niet-dossierstuk"}


def publication_provenance(publications: Iterable[Publication], *, recorded_on: str, why_invented: str) -> Provenance:
    """Served publications counted by the data file they were read from; each made-up one named with `why_invented`."""
    publications = list(publications)
    counts: dict[str, int] = {}
    invented: list[str] = []
    for pub in publications:
        if pub.origin:
            counts[pub.origin] = counts.get(pub.origin, 0) + 1
        else:
            invented.append(f"{pub.identifier}: {why_invented}")
    held = [p for p in publications if p.origin]
    holds = (*tally(f"{FAMILIES.get(p.identifier.split('-')[0], p.publication_name)} ({p.identifier.split('-')[0]})"
                    for p in held),
             *tally((f"from {p.creator}" for p in held), top=8))
    return Provenance(recorded=counts, invented=tuple(invented), recorded_on=recorded_on, holds=holds)
