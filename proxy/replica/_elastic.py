"""A small Elasticsearch 7 search engine over in-memory documents (for the Open Raadsinformatie replica).

It answers the search-request subset that the ORI adapter and its tests send to an Elasticsearch 7.17 cluster
(https://www.elastic.co/guide/en/elasticsearch/reference/7.17/search-search.html), over documents grouped by
concrete index; which indices and aliases exist, and which index expression names which indices, is the
caller's business (`proxy/replica/ori.py`). Field types come from a `Cluster` (what an index template maps).

* Request: `search_body` reads a JSON body plus the URL parameters `q`, `size`, `from`, `sort`, `_source`,
  `track_total_hits`. Body keys: `query`, `post_filter`, `size`, `from` (`from + size > 10000` is the ES 400
  of `max_result_window`), `_source` (false, a list, `includes`/`excludes`, wildcards), `sort` (`_score`,
  `_id`, `_index`, keyword/date/number fields, `order`, `missing`, `unmapped_type`; text fields are a 400
  as in ES), `search_after`, `track_total_hits` (default 10,000: `relation: "gte"` above it; `false` leaves
  `hits.total` out), `track_scores`, `aggs` (`terms`, `max`, `min`, `filter`, nested), `highlight`
  (`fields`, `fragment_size`, `number_of_fragments`, `no_match_size`, `pre_tags`/`post_tags`); `timeout`,
  `min_score`, `terminate_after`, `stored_fields`, `explain`, `version` and `seq_no_primary_term` are
  accepted and ignored. Other body keys and unknown query or aggregation types are the ES 400
  `parsing_exception`.
* Queries: `bool` (`must`, `filter`, `should`, `must_not`, `minimum_should_match`), `match_all`, `term`,
  `terms`, `ids`, `exists`, `range` (dates with `now`, `||` date math, `/d` rounding, `format`,
  `time_zone`; a date-only value without `format` is the ES 400, as date fields here are
  `strict_date_time`), `match` (`operator`), `match_phrase`, `simple_query_string` (`"phrases"`, `-not`,
  `|`, `+`, `prefix*`, `fields` with `^boost`, `default_operator`) and `query_string` (the same plus
  `AND`/`OR`/`NOT` and `field:value`). Text is matched with a small Dutch analyser (case and accent folding,
  stop words, plural endings; ES's `dutch` analyser stands behind every text field) and scored by term
  frequency: close to, not the same as, ES scoring. A JSON-LD `{"@list": [...]}` value counts as its list.
* Response: `took`, `timed_out`, `_shards` (indices the caller marks as failing count as failed shards,
  with a `node_not_connected_exception`), `hits.total` (`eq`/`gte`), `hits.max_score`, hits with `_index`,
  `_type`, `_id`, `_score`, `_source`, `highlight`, `sort`, and `aggregations`.

Every failure is an `EsError`, whose `body()` is the ES error reply (`{"error": {"root_cause": [...], ...},
"status": n}`, wrapped in a `search_phase_execution_exception` where ES wraps shard-level failures).
"""

from __future__ import annotations

import fnmatch
import functools
import json
import math
import re
import time
import unicodedata
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

__all__ = [
    "DATE_FORMAT",
    "MAX_RESULT_WINDOW",
    "TEXT_ANALYZER",
    "Cluster",
    "Doc",
    "EsError",
    "index_not_found",
    "parsing_error",
    "search",
    "search_body",
]

MAX_RESULT_WINDOW = 10_000
DEFAULT_TRACK_TOTAL_HITS = 10_000
LONG_MAX = 9_223_372_036_854_775_807
LONG_MIN = -9_223_372_036_854_775_808
TEXT_ANALYZER = "dutch"  # the analyser every text field is mapped with (approximated by `_analyse`)
DATE_FORMAT = "strict_date_time"  # the format every date field is mapped with


# =========================================================================== model


@dataclass(frozen=True, slots=True)
class Cluster:
    """What a search needs beyond the documents: the mapped field types and the names of the cluster's nodes.

    `fields` maps a field name (dotted for objects; `_id` and `_index` included) to `keyword`, `text`, `date`,
    `long` or `float`; a text field also has its `.keyword` sub-field. `node` answers the search; `peer`
    (`[name][host:port]`) is the node a failing shard's reason says is not connected.
    """

    fields: Mapping[str, str]
    node: str
    peer: str

    def field_type(self, name: str) -> str | None:
        if name.endswith(".keyword") and self.fields.get(name[:-8]) == "text":
            return "keyword"
        return self.fields.get(name)

    @property
    def text_fields(self) -> tuple[str, ...]:
        return tuple(name for name, kind in self.fields.items() if kind == "text")

    def mapping_properties(self) -> dict[str, Any]:
        """The `properties` of the index mapping, as `GET /{index}/_mapping` shows them."""
        out: dict[str, Any] = {}
        for name, kind in self.fields.items():
            if name.startswith("_"):
                continue
            if kind == "text":
                out[name] = {"type": "text", "analyzer": TEXT_ANALYZER,
                             "fields": {"keyword": {"type": "keyword", "ignore_above": 256}}}
            elif kind == "date":
                out[name] = {"type": "date", "format": DATE_FORMAT}
            else:
                out[name] = {"type": kind}
        return out


class Doc:
    """One Elasticsearch document: its index, id and `_source`, with analysed text cached.

    `order` is the document's place in the whole collection: it breaks ties between equal sort values and scores.
    """

    __slots__ = ("_tokens", "id", "index", "order", "source")

    def __init__(self, index: str, doc_id: str, source: dict[str, Any], order: int) -> None:
        self.index = index
        self.id = doc_id
        self.source = source
        self.order = order
        self._tokens: dict[str, list[str]] = {}

    def values(self, path: str) -> list[Any]:
        """Raw values of a field (`_id`, `_index`, dotted paths); lists are flattened."""
        if path == "_id":
            return [self.id]
        if path == "_index":
            return [self.index]
        if "." in path:
            value: Any = self.source
            for part in path.split("."):
                if not isinstance(value, dict) or part not in value:
                    return []
                value = value[part]
        else:
            value = self.source.get(path)
        if isinstance(value, dict) and "@list" in value:
            value = value["@list"]
        if value is None:
            return []
        return list(value) if isinstance(value, list) else [value]

    def tokens(self, path: str) -> list[str]:
        """Analysed tokens of a text field; array values are kept apart by a gap token."""
        cached = self._tokens.get(path)
        if cached is None:
            cached = []
            for value in self.values(path):
                if cached:
                    cached.append("")
                cached.extend(_analyse(str(value)))
            self._tokens[path] = cached
        return cached


# =========================================================================== text analysis

_WORD = re.compile(r"\w+")
_STOP_WORDS = frozenset((
    "aan", "al", "alles", "als", "dan", "dat", "de", "der", "des", "die", "dit", "door", "een", "en", "er", "het",
    "hij", "hoe", "hun", "ik", "in", "is", "je", "kan", "me", "met", "na", "naar", "niet", "nog", "nu", "of", "om",
    "omdat", "ook", "op", "over", "te", "tot", "u", "uit", "van", "veel", "voor", "was", "wat", "we", "wel", "wie",
    "zal", "ze", "zich", "zij", "zijn", "zo", "zou",
))


def _fold(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def _stem(token: str) -> str:
    if len(token) > 5 and token.endswith("en"):
        return token[:-2]
    if len(token) > 4 and token.endswith("s"):
        return token[:-1]
    return token


def _analyse(text: str) -> list[str]:
    """The tokens of a text value: folded, stop words dropped, plural endings cut (a rough `dutch` analyser)."""
    return [_stem(w) for w in _WORD.findall(_fold(text)) if w not in _STOP_WORDS]


# =========================================================================== errors


class EsError(Exception):
    """An Elasticsearch error reply: `{"error": {...}, "status": n}`."""

    def __init__(self, status: int, kind: str, reason: str, **extra: Any) -> None:
        super().__init__(reason)
        self.status = status
        self.kind = kind
        self.reason = reason
        self.extra = extra

    def body(self) -> dict[str, Any]:
        cause = {"type": self.kind, "reason": self.reason, **self.extra}
        error: dict[str, Any] = {"root_cause": [cause], **cause}
        if self.kind in ("illegal_argument_exception", "query_shard_exception", "parse_exception") \
                and self.status == 400:
            error = {"root_cause": [cause], "type": "search_phase_execution_exception", "reason": "all shards failed",
                     "phase": "query", "grouped": True,
                     "failed_shards": [{"shard": 0, "index": self.extra.get("index", "_na_"), "reason": cause}]}
        return {"error": error, "status": self.status}


def parsing_error(reason: str) -> EsError:
    """The ES 400 for a malformed request body or query."""
    return EsError(400, "parsing_exception", reason, line=1, col=1)


def index_not_found(name: str) -> EsError:
    """The 404 for an index expression that names no index."""
    return EsError(404, "index_not_found_exception", f"no such index [{name}]", **{
        "resource.type": "index_or_alias", "resource.id": name, "index_uuid": "_na_", "index": name})


def _text_field_error(name: str) -> EsError:
    return EsError(400, "illegal_argument_exception",
                   "Text fields are not optimised for operations that require per-document field data like "
                   "aggregations and sorting, so these operations are disabled by default. Please use a keyword "
                   f"field instead. Alternatively, set fielddata=true on [{name}] in order to load field data by "
                   "uninverting the inverted index. Note that this can use significant memory.")


# =========================================================================== dates


_DATE_MATH = re.compile(r"([+-])(\d+)([yMwdhHms])|/([yMwdhHms])")


def _parse_date(value: Any, *, now: datetime, zone: ZoneInfo, round_up: bool, has_format: bool,
                field_name: str) -> datetime:
    """An ES range bound: `now`, an ISO date or date-time, epoch millis, each with `||` date math."""
    if isinstance(value, int | float):
        return datetime.fromtimestamp(value / 1000, UTC)
    text = str(value)
    if text.startswith("now"):
        base, math_part = now.astimezone(zone), text[3:]
        date_only = False
    else:
        anchor_text, _, math_part = text.partition("||")
        date_only = "T" not in anchor_text
        if date_only and not has_format:
            raise EsError(400, "parse_exception", f"failed to parse date field [{anchor_text}] with format "
                          f"[{DATE_FORMAT}]: [failed to parse date field [{anchor_text}] with format "
                          f"[{DATE_FORMAT}]]", index=field_name)
        try:
            parsed = datetime.fromisoformat(anchor_text.replace("Z", "+00:00"))
        except ValueError as exc:
            raise EsError(400, "parse_exception", f"failed to parse date field [{anchor_text}] with format "
                          "[strict_date_optional_time]", index=field_name) from exc
        base = parsed if parsed.tzinfo else parsed.replace(tzinfo=zone)
        if date_only and round_up and not math_part:
            math_part = "/d"  # ES fills the missing time with the end of the day for gt/lte
    for sign, amount, unit, rounding in _DATE_MATH.findall(math_part):
        if rounding:
            base = _round(base, rounding, up=round_up)
        else:
            base = _shift(base, int(amount) * (1 if sign == "+" else -1), unit)
    return base


def _shift(moment: datetime, amount: int, unit: str) -> datetime:
    if unit == "y":
        return moment.replace(year=moment.year + amount)
    if unit == "M":
        months = moment.month - 1 + amount
        return moment.replace(year=moment.year + months // 12, month=months % 12 + 1)
    seconds = {"w": 604800, "d": 86400, "h": 3600, "H": 3600, "m": 60, "s": 1}[unit]
    return moment + timedelta(seconds=seconds * amount)


def _round(moment: datetime, unit: str, *, up: bool) -> datetime:
    if unit == "y":
        start = moment.replace(month=1, day=1, hour=0, minute=0, second=0, microsecond=0)
        end = start.replace(year=start.year + 1)
    elif unit == "M":
        start = moment.replace(day=1, hour=0, minute=0, second=0, microsecond=0)
        end = _shift(start, 1, "M")
    elif unit == "w":
        start = (moment - timedelta(days=moment.weekday())).replace(hour=0, minute=0, second=0, microsecond=0)
        end = start + timedelta(days=7)
    elif unit == "d":
        start = moment.replace(hour=0, minute=0, second=0, microsecond=0)
        end = start + timedelta(days=1)
    else:
        step = {"h": 3600, "H": 3600, "m": 60, "s": 1}[unit]
        seconds = int(moment.timestamp()) // step * step
        start = datetime.fromtimestamp(seconds, moment.tzinfo)
        end = start + timedelta(seconds=step)
    return end - timedelta(milliseconds=1) if up else start


@functools.lru_cache(maxsize=65536)  # the same timestamps recur on every agenda item of a meeting
def _millis(value: Any) -> int | None:
    try:
        moment = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return int(moment.timestamp() * 1000)


def _as_string(millis: float) -> str:
    return datetime.fromtimestamp(millis / 1000, UTC).strftime("%Y-%m-%dT%H:%M:%S.") + f"{int(millis) % 1000:03d}Z"


# =========================================================================== queries

Matcher = Callable[[Doc], float | None]


@dataclass(slots=True)
class _Clause:
    """One part of a text query: a term, a prefix or a phrase, with its sign and optional field."""

    kind: str  # term | prefix | phrase
    value: tuple[str, ...]
    sign: str = ""  # "+" must, "-" must not, "" by the default operator
    field_name: str | None = None


@dataclass(slots=True)
class _QueryContext:
    now: datetime
    cluster: Cluster
    terms: list[_Clause] = field(default_factory=list)  # positive clauses, for highlighting


def _compile(query: Any, ctx: _QueryContext) -> Matcher:
    if not isinstance(query, dict) or len(query) != 1:
        raise parsing_error("[_na] query malformed, must start with start_object")
    kind, spec = next(iter(query.items()))
    builder = _QUERIES.get(kind)
    if builder is None:
        raise parsing_error(f"unknown query [{kind}]")
    return builder(spec, ctx)


def _single(spec: Any, kind: str) -> tuple[str, Any]:
    if not isinstance(spec, dict) or not spec:
        raise parsing_error(f"[{kind}] query malformed, no start_object after query name")
    items = [(k, v) for k, v in spec.items() if k not in ("boost", "_name")]
    if len(items) != 1:
        raise parsing_error(f"[{kind}] query doesn't support multiple fields, found [{items[0][0]}] and "
                            f"[{items[1][0]}]")
    return items[0]


def _q_match_all(spec: Any, ctx: _QueryContext) -> Matcher:
    return lambda doc: 1.0


def _q_bool(spec: Any, ctx: _QueryContext) -> Matcher:
    if not isinstance(spec, dict):
        raise parsing_error("[bool] query malformed")
    unknown = set(spec) - {"must", "filter", "should", "must_not", "minimum_should_match", "boost"}
    if unknown:
        raise parsing_error(f"[bool] query does not support [{sorted(unknown)[0]}]")

    def clauses(key: str) -> list[Matcher]:
        value = spec.get(key, [])
        return [_compile(q, ctx) for q in (value if isinstance(value, list) else [value])]

    filters, must_not = clauses("filter"), clauses("must_not")
    must, should = clauses("must"), clauses("should")
    minimum_spec = str(spec.get("minimum_should_match", 0 if (must or filters) else 1))
    minimum = math.ceil(len(should) * int(minimum_spec[:-1]) / 100) if minimum_spec.endswith("%") \
        else int(minimum_spec)

    def matcher(doc: Doc) -> float | None:
        if any(f(doc) is None for f in filters) or any(m(doc) is not None for m in must_not):
            return None
        score = 0.0
        for m in must:
            s = m(doc)
            if s is None:
                return None
            score += s
        hits = [s for s in (m(doc) for m in should) if s is not None]
        if len(hits) < minimum:
            return None
        return score + sum(hits) if (must or hits) else (score or 0.0)

    return matcher


def _keyword_values(doc: Doc, name: str, cluster: Cluster) -> list[str]:
    kind = cluster.field_type(name)
    if name.endswith(".keyword") and kind == "keyword":
        name = name[:-8]
    if kind == "text":
        return doc.tokens(name)
    return [v if isinstance(v, str) else json.dumps(v) if isinstance(v, bool) else str(v) for v in doc.values(name)]


def _q_term(spec: Any, ctx: _QueryContext) -> Matcher:
    name, value = _single(spec, "term")
    if isinstance(value, dict):
        value = value.get("value")
    wanted = str(value).lower() if isinstance(value, bool) else str(value)
    return lambda doc: 1.0 if wanted in _keyword_values(doc, name, ctx.cluster) else None


def _q_terms(spec: Any, ctx: _QueryContext) -> Matcher:
    name, values = _single(spec, "terms")
    if not isinstance(values, list):
        raise parsing_error("[terms] query does not support lookups in the replica")
    wanted = {str(v) for v in values}
    return lambda doc: 1.0 if wanted.intersection(_keyword_values(doc, name, ctx.cluster)) else None


def _q_ids(spec: Any, ctx: _QueryContext) -> Matcher:
    values = spec.get("values") if isinstance(spec, dict) else None
    if not isinstance(values, list):
        raise parsing_error("[ids] query malformed, no values")
    wanted = {str(v) for v in values}
    return lambda doc: 1.0 if doc.id in wanted else None


def _q_exists(spec: Any, ctx: _QueryContext) -> Matcher:
    name = spec.get("field") if isinstance(spec, dict) else None
    if not name:
        raise parsing_error("[exists] must be provided with a [field]")
    return lambda doc: 1.0 if doc.values(name) else None


def _q_range(spec: Any, ctx: _QueryContext) -> Matcher:
    name, bounds = _single(spec, "range")
    if not isinstance(bounds, dict):
        raise parsing_error("[range] query malformed")
    kind = ctx.cluster.field_type(name)
    checks: list[Callable[[float], bool]] = []
    if kind == "date":
        zone = ZoneInfo(bounds["time_zone"]) if "time_zone" in bounds else ZoneInfo("UTC")
        has_format = "format" in bounds
        for op in ("gte", "gt", "lte", "lt"):
            if bounds.get(op) is None:
                continue
            moment = _parse_date(bounds[op], now=ctx.now, zone=zone, round_up=op in ("gt", "lte"),
                                 has_format=has_format, field_name=name)
            checks.append(_compare(op, moment.timestamp() * 1000))
    else:
        for op in ("gte", "gt", "lte", "lt"):
            if bounds.get(op) is not None:
                checks.append(_compare(op, float(bounds[op])))

    def matcher(doc: Doc) -> float | None:
        for value in doc.values(name):
            number = _millis(value) if kind == "date" else (value if isinstance(value, int | float) else None)
            if number is not None and all(check(number) for check in checks):
                return 1.0
        return None

    return matcher


def _compare(op: str, bound: float) -> Callable[[float], bool]:
    return {"gte": lambda v: v >= bound, "gt": lambda v: v > bound, "lte": lambda v: v <= bound,
            "lt": lambda v: v < bound}[op]


def _q_match(spec: Any, ctx: _QueryContext) -> Matcher:
    name, value = _single(spec, "match")
    options = value if isinstance(value, dict) else {"query": value}
    operator = str(options.get("operator", "or")).lower()
    clauses = [_Clause("term", (t,), "+" if operator == "and" else "") for t in _analyse(str(options.get("query")))]
    return _text_matcher([clauses], [(name, 1.0)], ctx, keyword_exact=str(options.get("query")))


def _q_match_phrase(spec: Any, ctx: _QueryContext) -> Matcher:
    name, value = _single(spec, "match_phrase")
    text = value.get("query") if isinstance(value, dict) else value
    return _text_matcher([[_Clause("phrase", tuple(_analyse(str(text))), "+")]], [(name, 1.0)], ctx)


def _q_simple_query_string(spec: Any, ctx: _QueryContext) -> Matcher:
    if not isinstance(spec, dict) or "query" not in spec:
        raise parsing_error("[simple_query_string] requires query value")
    groups = _parse_text_query(str(spec["query"]), str(spec.get("default_operator", "or")).lower(), boolean=False)
    return _text_matcher(groups, _fields(spec.get("fields", ["*"]), ctx.cluster), ctx)


def _q_query_string(spec: Any, ctx: _QueryContext) -> Matcher:
    if not isinstance(spec, dict) or "query" not in spec:
        raise parsing_error("[query_string] requires query value")
    fields = spec.get("fields") or [spec.get("default_field", "*")]
    groups = _parse_text_query(str(spec["query"]), str(spec.get("default_operator", "or")).lower(), boolean=True)
    return _text_matcher(groups, _fields(fields, ctx.cluster), ctx)


def _fields(specs: Iterable[str], cluster: Cluster) -> list[tuple[str, float]]:
    out = []
    text_fields = cluster.text_fields
    for spec in specs:
        name, _, boost = str(spec).partition("^")
        names = [f for f in text_fields if fnmatch.fnmatchcase(f, name)] if "*" in name else [name]
        out.extend((n, float(boost or 1)) for n in names)
    return out


_TOKEN = re.compile(r'([+\-]?)"([^"]*)"|(\|)|([+\-]?)([^\s|"()]+)')


def _parse_text_query(query: str, default_operator: str, *, boolean: bool) -> list[list[_Clause]]:
    """OR-alternatives of clauses: `|` (and `OR` in query_string) separate alternatives."""
    if boolean:
        query = re.sub(r"\bAND\s+", "+", query)
        query = re.sub(r"\bNOT\s+", "-", query)
        query = re.sub(r"\s+OR\s+", " | ", query)
    query = query.replace("(", " ").replace(")", " ")
    groups: list[list[_Clause]] = [[]]
    for match in _TOKEN.finditer(query):
        phrase_sign, phrase, bar, sign, word = match.groups()
        if bar:
            groups.append([])
            continue
        default = "+" if default_operator == "and" else ""
        if phrase is not None:
            tokens = tuple(_analyse(phrase))
            if tokens:
                groups[-1].append(_Clause("phrase", tokens, phrase_sign or default))
            continue
        field_name = None
        if boolean and ":" in word and not word.startswith("http"):
            field_name, word = word.split(":", 1)
        if word.endswith("*"):
            prefix = _fold(word[:-1])
            if prefix:
                groups[-1].append(_Clause("prefix", (prefix,), sign or default, field_name))
            continue
        for token in _analyse(word):
            groups[-1].append(_Clause("term", (token,), sign or default, field_name))
    return [g for g in groups if g]


def _clause_score(clause: _Clause, doc: Doc, fields: list[tuple[str, float]]) -> float | None:
    targets = [(clause.field_name, 1.0)] if clause.field_name else fields
    score = 0.0
    found = False
    for name, boost in targets:
        if clause.field_name == "_id":
            if doc.id == clause.value[0]:
                return 1.0
            continue
        tokens = doc.tokens(name)
        if not tokens:
            continue
        if clause.kind == "term":
            tf = tokens.count(clause.value[0])
        elif clause.kind == "prefix":
            tf = sum(1 for t in tokens if t.startswith(clause.value[0]))
        else:
            tf = _phrase_count(tokens, clause.value)
        if tf:
            found = True
            score += boost * (1.0 + math.log(tf)) / math.sqrt(1 + len(tokens) / 200)
    return score if found else None


def _phrase_count(tokens: list[str], phrase: tuple[str, ...]) -> int:
    n = len(phrase)
    if not n:
        return 0
    return sum(1 for i in range(len(tokens) - n + 1) if tuple(tokens[i:i + n]) == phrase)


def _text_matcher(groups: list[list[_Clause]], fields: list[tuple[str, float]], ctx: _QueryContext,
                  keyword_exact: str | None = None) -> Matcher:
    ctx.terms.extend(c for g in groups for c in g if c.sign != "-")
    cluster = ctx.cluster
    keyword_fields = [name for name, _ in fields if cluster.field_type(name) not in (None, "text")]

    def matcher(doc: Doc) -> float | None:
        if keyword_exact is not None and keyword_fields:
            return 1.0 if any(keyword_exact in _keyword_values(doc, n, cluster) for n in keyword_fields) else None
        total = None
        for group in groups:
            score = 0.0
            ok = True
            optional_hit = False
            required = False
            for clause in group:
                s = _clause_score(clause, doc, fields)
                if clause.sign == "-":
                    if s is not None:
                        ok = False
                        break
                elif clause.sign == "+":
                    required = True
                    if s is None:
                        ok = False
                        break
                    score += s
                elif s is not None:
                    optional_hit = True
                    score += s
            if ok and (required or optional_hit or all(c.sign == "-" for c in group)):
                total = (total or 0.0) + score
        return total

    return matcher


_QUERIES: dict[str, Callable[[Any, _QueryContext], Matcher]] = {
    "match_all": _q_match_all, "bool": _q_bool, "term": _q_term, "terms": _q_terms, "ids": _q_ids,
    "exists": _q_exists, "range": _q_range, "match": _q_match, "match_phrase": _q_match_phrase,
    "simple_query_string": _q_simple_query_string, "query_string": _q_query_string,
}


# =========================================================================== sorting


@dataclass(frozen=True, slots=True)
class _SortKey:
    field_name: str
    descending: bool
    missing_first: bool
    kind: str | None


def _sort_keys(spec: Any, cluster: Cluster) -> list[_SortKey]:
    items = spec if isinstance(spec, list) else [spec]
    keys = []
    for item in items:
        if isinstance(item, str):
            name, _, order = item.partition(":")
            options: dict[str, Any] = {"order": order} if order else {}
        elif isinstance(item, dict) and len(item) == 1:
            name, value = next(iter(item.items()))
            options = value if isinstance(value, dict) else {"order": value}
        else:
            raise parsing_error("malformed sort")
        order = str(options.get("order", "desc" if name == "_score" else "asc")).lower()
        kind = "score" if name == "_score" else cluster.field_type(name)
        if kind == "text":
            raise _text_field_error(name)
        if kind is None:
            if "unmapped_type" not in options:
                raise EsError(400, "query_shard_exception", f"No mapping found for [{name}] in order to sort on")
            kind = options["unmapped_type"]
        keys.append(_SortKey(name, order == "desc", options.get("missing") == "_first", kind))
    return keys


def _sort_value(doc: Doc, key: _SortKey, score: float) -> Any:
    if key.kind == "score":
        return score
    values = doc.values(key.field_name)
    if key.kind == "date":
        millis = [m for m in (_millis(v) for v in values) if m is not None]
        values = millis
    if not values:
        return None
    return max(values) if key.descending else min(values)


def _missing(key: _SortKey) -> Any:
    if key.kind in ("date", "long", "float", "score"):
        return LONG_MAX if key.descending == key.missing_first else LONG_MIN
    return None


def _pass_key(row: tuple[Doc, float, list[Any]], *, position: int, key: _SortKey) -> tuple[bool, Any]:
    """Sort key of one pass; missing values go last (or first) whatever the order."""
    value = row[2][position]
    missing = value is None
    return (missing == key.missing_first if key.descending else missing != key.missing_first,
            0 if missing else value)


def _compare_values(a: list[Any], b: list[Any], keys: list[_SortKey]) -> int:
    for x, y, key in zip(a, b, keys, strict=True):
        if x == y:
            continue
        if x is None or y is None:
            first = (x is None) == key.missing_first
            return -1 if first else 1
        result = (x > y) - (x < y)
        if key.descending:
            result = -result
        if result:
            return result
    return 0


# =========================================================================== aggregations


def _aggregate(spec: Any, docs: list[Doc], ctx: _QueryContext) -> dict[str, Any]:
    if not isinstance(spec, dict):
        raise parsing_error("Expected [START_OBJECT] under [aggs]")
    out: dict[str, Any] = {}
    for name, body in spec.items():
        if not isinstance(body, dict):
            raise parsing_error(f"Expected [START_OBJECT] under [{name}]")
        subs = body.get("aggs", body.get("aggregations"))
        kinds = [k for k in body if k not in ("aggs", "aggregations", "meta")]
        if len(kinds) != 1:
            raise parsing_error(f"Expected exactly one aggregation type for [{name}]")
        kind = kinds[0]
        options = body[kind]
        if kind == "terms":
            result = _agg_terms(options, docs, subs, ctx)
        elif kind in ("max", "min"):
            result = _agg_extreme(kind, options, docs, ctx.cluster)
        elif kind == "filter":
            matcher = _compile(options, ctx)
            chosen = [d for d in docs if matcher(d) is not None]
            result = {"doc_count": len(chosen), **(_aggregate(subs, chosen, ctx) if subs else {})}
            subs = None
        else:
            raise parsing_error(f"Unknown aggregation type [{kind}]")
        if subs and kind != "terms":
            raise parsing_error(f"Aggregator [{name}] of type [{kind}] cannot accept sub-aggregations")
        out[name] = result
    return out


def _agg_terms(options: dict[str, Any], docs: list[Doc], subs: Any, ctx: _QueryContext) -> dict[str, Any]:
    name = options.get("field")
    kind = ctx.cluster.field_type(str(name))
    if kind == "text":
        raise _text_field_error(str(name))
    groups: dict[Any, list[Doc]] = {}
    for doc in docs:
        for value in set(map(str, doc.values(str(name)))):
            groups.setdefault(value, []).append(doc)
    ordered = sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    size = int(options.get("size", 10))
    buckets = []
    for key, members in ordered[:size]:
        bucket: dict[str, Any] = {"key": key, "doc_count": len(members)}
        if subs:
            bucket.update(_aggregate(subs, members, ctx))
        buckets.append(bucket)
    return {"doc_count_error_upper_bound": 0, "sum_other_doc_count": sum(len(m) for _, m in ordered[size:]),
            "buckets": buckets}


def _agg_extreme(kind: str, options: dict[str, Any], docs: list[Doc], cluster: Cluster) -> dict[str, Any]:
    name = str(options.get("field"))
    field_kind = cluster.field_type(name)
    if field_kind == "text":
        raise _text_field_error(name)
    values: list[float] = []
    for doc in docs:
        for value in doc.values(name):
            number = _millis(value) if field_kind == "date" else value
            if isinstance(number, int | float):
                values.append(float(number))
    if not values:
        return {"value": None}
    value = max(values) if kind == "max" else min(values)
    return {"value": value, "value_as_string": _as_string(value)} if field_kind == "date" else {"value": value}


# =========================================================================== highlighting


def _highlight(spec: dict[str, Any], doc: Doc, clauses: list[_Clause]) -> dict[str, list[str]]:
    pre = (spec.get("pre_tags") or ["<em>"])[0]
    post = (spec.get("post_tags") or ["</em>"])[0]
    stems = {c.value[0] for c in clauses if c.kind == "term"} | {t for c in clauses if c.kind == "phrase"
                                                                  for t in c.value}
    prefixes = tuple(c.value[0] for c in clauses if c.kind == "prefix")

    def wanted(word: str) -> bool:
        folded = _fold(word)
        if folded in _STOP_WORDS:
            return False
        return _stem(folded) in stems or (bool(prefixes) and folded.startswith(prefixes))

    out: dict[str, list[str]] = {}
    for name, options in (spec.get("fields") or {}).items():
        options = options or {}
        size = int(options.get("fragment_size", spec.get("fragment_size", 100)))
        count = int(options.get("number_of_fragments", spec.get("number_of_fragments", 5)))
        no_match = int(options.get("no_match_size", spec.get("no_match_size", 0)))
        fragments: list[str] = []
        values = [str(v) for v in doc.values(name)]
        for value in values:
            spans = [m.span() for m in _WORD.finditer(value) if wanted(m.group())]
            cursor = 0
            for start, _ in spans:
                if len(fragments) >= count:
                    break
                if start < cursor:
                    continue
                begin = max(cursor, value.rfind(" ", 0, max(0, start - size // 3)) + 1)
                end = min(len(value), begin + size)
                inner = [(s, e) for s, e in spans if begin <= s and e <= end]
                piece, last = [], begin
                for s, e in inner:
                    piece += [value[last:s], pre, value[s:e], post]
                    last = e
                piece.append(value[last:end])
                fragments.append("".join(piece).strip())
                cursor = end
            if len(fragments) >= count:
                break
        if not fragments and no_match and values:
            fragments = [values[0][:no_match].strip()]
        if fragments:
            out[name] = fragments
    return out


# =========================================================================== search


def _source_filter(spec: Any) -> Callable[[dict[str, Any]], dict[str, Any] | None]:
    if spec is None or spec is True:
        return lambda source: source
    if spec is False:
        return lambda source: None
    if isinstance(spec, str):
        spec = [spec]
    if isinstance(spec, list):
        includes, excludes = spec, []
    elif isinstance(spec, dict):
        includes = spec.get("includes", spec.get("include", []))
        excludes = spec.get("excludes", spec.get("exclude", []))
        includes, excludes = ([includes] if isinstance(includes, str) else includes,
                              [excludes] if isinstance(excludes, str) else excludes)
    else:
        raise parsing_error("[_source] must be a boolean, a string, an array or an object")

    def keep(key: str) -> bool:
        inside = not includes or any(fnmatch.fnmatchcase(key, p) for p in includes)
        return inside and not any(fnmatch.fnmatchcase(key, p) for p in excludes)

    return lambda source: {k: v for k, v in source.items() if keep(k)}


def search_body(raw: bytes, query: Mapping[str, str]) -> dict[str, Any]:
    """The search request from a `_search`/`_count` body and its URL parameters (which win over the body)."""
    body: dict[str, Any] = {}
    if raw.strip():
        try:
            body = json.loads(raw)
        except ValueError as exc:
            raise parsing_error(f"Failed to parse content to map: {exc}") from exc
        if not isinstance(body, dict):
            raise parsing_error("request body must be an object")
    if "q" in query:
        body["query"] = {"query_string": {"query": query["q"]}}
    for key in ("size", "from"):
        if key in query:
            body[key] = int(query[key])
    if "sort" in query:
        body["sort"] = [s for s in query["sort"].split(",") if s]
    if "_source" in query:
        value = query["_source"]
        body["_source"] = False if value == "false" else True if value == "true" else value.split(",")
    if "track_total_hits" in query:
        value = query["track_total_hits"]
        body["track_total_hits"] = value == "true" if value in ("true", "false") else int(value)
    return body


_BODY_KEYS = frozenset({"query", "post_filter", "size", "from", "_source", "sort", "search_after",
                        "track_total_hits", "timeout", "aggs", "aggregations", "highlight", "track_scores",
                        "min_score", "terminate_after", "stored_fields", "explain", "version", "seq_no_primary_term"})


def search(indices: Mapping[str, Sequence[Doc]], body: dict[str, Any], *, cluster: Cluster, now: datetime,
           failing: Collection[str]) -> dict[str, Any]:
    """Run one search over `indices` (concrete index name -> its documents, in resolution order); the indices in
    `failing` answer as failed shards. Raises `EsError` for a request ES refuses."""
    started = time.perf_counter()
    unknown = set(body) - _BODY_KEYS
    if unknown:
        raise parsing_error(f"Unknown key for a START_OBJECT in [{sorted(unknown)[0]}].")
    size, offset = int(body.get("size", 10)), int(body.get("from", 0))
    if size < 0 or offset < 0:
        raise EsError(400, "illegal_argument_exception", f"[from] parameter cannot be negative, found [{offset}]")
    if offset + size > MAX_RESULT_WINDOW:
        raise EsError(400, "illegal_argument_exception",
                      f"Result window is too large, from + size must be less than or equal to: [{MAX_RESULT_WINDOW}] "
                      f"but was [{offset + size}]. See the scroll api for a more efficient way to request large data "
                      "sets. This limit can be set by changing the [index.max_result_window] index level setting.",
                      index=next(iter(indices), "_na_"))
    ctx = _QueryContext(now=now, cluster=cluster)
    matcher = _compile(body.get("query", {"match_all": {}}), ctx)
    post = _compile(body["post_filter"], _QueryContext(now=now, cluster=cluster)) if "post_filter" in body else None
    keys = _sort_keys(body["sort"], cluster) if "sort" in body else None
    after = body.get("search_after")
    if after is not None:
        if keys is None:
            raise EsError(400, "illegal_argument_exception", "Sort must contain at least one field.")
        if len(after) != len(keys):
            raise EsError(400, "illegal_argument_exception", f"search_after has {len(after)} value(s) but sort has "
                          f"{len(keys)}.")
        if offset:
            raise EsError(400, "illegal_argument_exception",
                          "`from` parameter must be set to 0 when `search_after` is used.")
    show = _source_filter(body.get("_source"))

    searched = [i for i in indices if i not in failing]
    matched: list[tuple[Doc, float]] = []
    for index in searched:
        for doc in indices[index]:
            score = matcher(doc)
            if score is not None:
                # rounded once, so a search_after cursor echoes back exactly the value that was sorted on
                matched.append((doc, round(score, 6)))
    aggregations = _aggregate(body.get("aggs", body.get("aggregations")), [d for d, _ in matched], ctx) \
        if ("aggs" in body or "aggregations" in body) else None
    if post:
        matched = [(d, s) for d, s in matched if post(d) is not None]

    if keys is None:
        ranked = sorted(matched, key=lambda ds: (-ds[1], ds[0].order))
        sort_values: list[list[Any]] | None = None
    else:
        rows = [(doc, score, [_sort_value(doc, k, score) for k in keys]) for doc, score in matched]
        rows.sort(key=lambda row: row[0].order)
        for position in reversed(range(len(keys))):  # stable passes, last key first
            rows.sort(key=functools.partial(_pass_key, position=position, key=keys[position]),
                      reverse=keys[position].descending)
        if after is not None:
            cursor = [None if v in (LONG_MAX, LONG_MIN) else v for v in after]
            rows = [r for r in rows if _compare_values(r[2], cursor, keys) > 0]
        ranked = [(d, s) for d, s, _ in rows]
        sort_values = [v for _, _, v in rows]
    with_score = keys is None or any(k.kind == "score" for k in keys) or bool(body.get("track_scores"))
    window = ranked[offset:offset + size] if after is None else ranked[:size]
    hits = []
    for position, (doc, score) in enumerate(window):
        hit: dict[str, Any] = {"_index": doc.index, "_type": "_doc", "_id": doc.id,
                               "_score": score if with_score else None}
        source = show(doc.source)
        if source is not None:
            hit["_source"] = source
        if "highlight" in body:
            highlighted = _highlight(body["highlight"], doc, ctx.terms)
            if highlighted:
                hit["highlight"] = highlighted
        if sort_values is not None:
            row = sort_values[(offset if after is None else 0) + position]
            hit["sort"] = [_missing(k) if v is None else v for v, k in zip(row, keys or [], strict=True)]
        hits.append(hit)

    result: dict[str, Any] = {
        "took": max(1, round((time.perf_counter() - started) * 1000)),
        "timed_out": False,
        "_shards": _shards(list(indices), failing, cluster),
        "hits": {"max_score": max((s for _, s in ranked), default=None) if with_score and size else None,
                 "hits": hits},
    }
    total = _total(len(matched), body.get("track_total_hits"))
    if total is not None:
        result["hits"] = {"total": total, **result["hits"]}
    if aggregations is not None:
        result["aggregations"] = aggregations
    return result


def _total(count: int, track: Any) -> dict[str, Any] | None:
    if track is False:
        return None
    threshold = MAX_RESULT_WINDOW * 1_000_000 if track is True else int(track or DEFAULT_TRACK_TOTAL_HITS)
    if count > threshold:
        return {"value": threshold, "relation": "gte"}
    return {"value": count, "relation": "eq"}


def _shards(indices: list[str], failing: Collection[str], cluster: Cluster) -> dict[str, Any]:
    failed = [i for i in indices if i in failing]
    shards: dict[str, Any] = {"total": len(indices), "successful": len(indices) - len(failed), "skipped": 0,
                              "failed": len(failed)}
    if failed:
        shards["failures"] = [{"shard": 0, "index": i, "node": cluster.node,
                               "reason": {"type": "node_not_connected_exception",
                                          "reason": f"{cluster.peer} Node not connected"}}
                              for i in failed]
    return shards
