"""Replica of OpenBesluitvorming (`https://openbesluitvorming.nl/api/…`), the successor of Open Raadsinformatie.

Built from the shapes in the platform's own code and docs (ontola/openbesluitvorming `src/types.ts`,
`web/server.ts`, `web/search_api.ts`, `web/rate_limit.ts`, `API.md`); no real recorded response of this API
exists in public material, so **every shape and rule here rests on documentation and source code only**, and
the sample data is synthetic. Where the platform changed a rule (before and after 2026-08-26), this replica
serves the later one: strict 400s with `{code, error, hint?}`, `sort=relevance`, the search cost model.

Served (GET only; unknown paths are a plain-text 404 `Niet gevonden`, as on the real host):

* `/api/search`: `query`, `organization` (a `/api/sources` key; `all_<supplier>` rows pass and match nothing),
  `entityType` (Meeting|Document|Motion|Recording), `sort` (date_desc|date_asc|title_asc|relevance),
  `dateFrom`/`dateTo` (bare YYYY-MM-DD, inclusive, on `sortDate`), `offset` ≥ 0, `limit` ≥ 1 (above 100
  clamped). Neither query nor organization: an empty 200. Query terms are lower-cased words, ANDed over
  title and text; `"…"` is a phrase; `"a b"~N` is a 400. A document's page hit gives `matchedPage`. Each
  entity costs index rows (one per commit plus one per page); a search scans at most 6,000 rows, past that
  `totalCount` is an estimate with `totalIsApproximate: true` and deep offsets return an empty page.
* `/api/entities/{id}`: document (`markdownText`, `downloadUrl`, `pdfUrl`, `meetingId`), meeting (`agenda`
  tree: Notubiz nested with `number`, iBabs flat; `motions` when present), motion (`motion`, `meetingId`,
  `pdfEntityId`). 404 `{code: entity_not_found}`.
* `/api/sources[?implemented=true]` (four aggregate rows first), `/api/status`, `/api/stats`.
* Rate limit: a token bucket per client (rightmost `X-Forwarded-For`, else the peer), 60 units, 1 unit/s;
  a search costs 1 plus (min(limit,100) − 24)/250 above 24; `RateLimit-Limit/Remaining/Reset` on every
  `/api/*` reply, 429 with `Retry-After` and `{code: rate_limited, …}` when the bucket is short.

Sample data (deterministic, dated relative to `anchor`): 36 organisations of all four suppliers and three
kinds, labels as odd as the real ones (`Bergen Nh`, `Noord Holland`), Dongen no longer imported, Weesp
merged away (discontinued), and organisations whose imports stopped: Hof van Twente (400 days),
Hardinxveld-Giessendam (130), Aa en Maas (75); Noordoostpolder (50) is close to the line but current.

Test hooks: `RATE` (the app's `RateLimiter`: `reset()` it with another capacity, or `drain()` the budget) and
`STATUS_FAULTS` (`index_down`: `/api/status` as when the search index cannot be read).
"""

from __future__ import annotations

import functools
import math
import random
import re
import time
import uuid
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from datetime import time as dtime
from typing import Any
from urllib.parse import unquote
from zoneinfo import ZoneInfo

from aiohttp import web

__all__ = ["RATE", "STATUS_FAULTS", "RateLimiter", "create_app"]

TZ = ZoneInfo("Europe/Amsterdam")
SCAN_BUDGET_ROWS = 6000
MAX_LIMIT = 100
SNIPPET_MIN_QUERY = 4
ENTITY_TYPES = ("Meeting", "Document", "Motion", "Recording")
SORTS = ("date_desc", "date_asc", "title_asc", "relevance")
LABELS = {"Meeting": "Vergadering", "Document": "Document", "Motion": "Motie"}
_MONTHS = ("januari", "februari", "maart", "april", "mei", "juni", "juli", "augustus", "september", "oktober",
           "november", "december")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_SLOP = re.compile(r'"[^"]*"~\d+')


# =========================================================================== rate limit


class RateLimiter:
    """The platform's token bucket per client: `capacity` units, refilled at `per_second`."""

    def __init__(self, capacity: float = 60.0, per_second: float = 1.0) -> None:
        self.reset(capacity, per_second)

    def reset(self, capacity: float = 60.0, per_second: float = 1.0) -> None:
        """Every bucket full, under these settings (a test hook)."""
        self.capacity = capacity
        self.per_second = per_second
        self._buckets: dict[str, tuple[float, float]] = {}
        self._drained = capacity

    def _level(self, client: str) -> float:
        now = time.monotonic()
        tokens, last = self._buckets.get(client, (self._drained, now))
        tokens = min(self.capacity, tokens + (now - last) * self.per_second)
        self._buckets[client] = (tokens, now)
        return tokens

    def take(self, client: str, cost: float) -> tuple[bool, dict[str, str], int]:
        """(allowed, RateLimit-* headers, seconds until this request would fit)."""
        tokens = self._level(client)
        allowed = tokens >= cost
        if allowed:
            tokens -= cost
            self._buckets[client] = (tokens, time.monotonic())
        headers = {"RateLimit-Limit": str(int(self.capacity)), "RateLimit-Remaining": str(max(0, math.floor(tokens))),
                   "RateLimit-Reset": str(math.ceil((self.capacity - tokens) / self.per_second))}
        return allowed, headers, 0 if allowed else max(1, math.ceil((cost - tokens) / self.per_second))

    def drain(self, to: float = 0.0) -> None:
        """Other programs behind the same addresses spent the budget (a test hook): every client, also new ones."""
        self._drained = to
        for client in self._buckets:
            self._buckets[client] = (to, time.monotonic())


RATE = web.AppKey("ori_rate", RateLimiter)
# Test hook: {"index_down": True} makes /api/status answer as when the search index cannot be reached.
STATUS_FAULTS = web.AppKey("ori_status_faults", dict[str, bool])


def _cost(request: web.Request) -> float:
    if request.path.endswith("/api/search"):  # the path keeps the prefix a replica is mounted under
        try:
            limit = min(int(request.query.get("limit", "24")), MAX_LIMIT)
        except ValueError:
            return 1.0
        return 1.0 + max(0, limit - 24) / 250
    if re.search(r"/pdf/page/", request.path):
        return 1 / 8
    return 1.0


def _client(request: web.Request) -> str:
    forwarded = request.headers.get("X-Forwarded-For", "")
    return forwarded.split(",")[-1].strip() if forwarded else (request.remote or "unknown")


@web.middleware
async def _rate_limit(request: web.Request, handler: Any) -> web.StreamResponse:
    if "/api/" not in request.path:
        return await handler(request)
    limiter = request.app[RATE]
    allowed, headers, retry = limiter.take(_client(request), _cost(request))
    if not allowed:
        body = {"code": "rate_limited", "error": f"Te veel verzoeken. Probeer het over {retry} seconde(n) opnieuw.",
                "limit_per_minute": int(limiter.capacity * 60 * limiter.per_second / 60),
                "retry_after_seconds": retry,
                "hint": "Een zoekopdracht kost 1 eenheid, plus 1/250 per resultaat boven de 24.",
                "documentation": "https://openbesluitvorming.nl/docs/api"}
        return web.json_response(body, status=429, headers={**headers, "Retry-After": str(retry)})
    try:
        response = await handler(request)
    except web.HTTPException as exc:
        exc.headers.update(headers)
        raise
    response.headers.update(headers)
    return response


# =========================================================================== sample data


@dataclass(frozen=True, slots=True)
class _Org:
    key: str
    label: str
    supplier: str  # notubiz | ibabs | gemeenteoplossingen | parlaeus
    kind: str  # gemeente | provincie | waterschap
    stalled_days: int | None = None
    implemented: bool = True
    discontinued: tuple[str, str] | None = None  # (date, successor key)
    cbs: str | None = None

    @property
    def ref(self) -> str:
        return f"{self.supplier}:{self.kind}:{self.key}"


_ORGS: tuple[_Org, ...] = (
    _Org("amsterdam", "Amsterdam", "notubiz", "gemeente", cbs="GM0363"),
    _Org("rotterdam", "Rotterdam", "ibabs", "gemeente"),
    _Org("den-haag", "Den Haag", "notubiz", "gemeente"),
    _Org("utrecht", "Utrecht", "ibabs", "gemeente"),
    _Org("utrechtse-heuvelrug", "Utrechtse Heuvelrug", "notubiz", "gemeente"),
    _Org("s-hertogenbosch", "'s-Hertogenbosch", "ibabs", "gemeente"),
    _Org("sudwest-fryslan", "Súdwest-Fryslân", "ibabs", "gemeente"),
    _Org("bergen_nh", "Bergen Nh", "notubiz", "gemeente"),
    _Org("bergen_l", "Bergen L", "gemeenteoplossingen", "gemeente"),
    _Org("groningen", "Groningen", "notubiz", "gemeente"),
    _Org("midden-groningen", "Midden-Groningen", "notubiz", "gemeente"),
    _Org("haarlem", "Haarlem", "notubiz", "gemeente"),
    _Org("leiden", "Leiden", "notubiz", "gemeente"),
    _Org("soest", "Soest", "ibabs", "gemeente"),
    _Org("houten", "Houten", "ibabs", "gemeente"),
    _Org("lochem", "Lochem", "notubiz", "gemeente"),
    _Org("hof-van-twente", "Hof van Twente", "ibabs", "gemeente", stalled_days=400),
    _Org("heemskerk", "Heemskerk", "notubiz", "gemeente"),
    _Org("nijmegen", "Nijmegen", "notubiz", "gemeente"),
    _Org("eindhoven", "Eindhoven", "ibabs", "gemeente"),
    _Org("zwolle", "Zwolle", "notubiz", "gemeente"),
    _Org("reusel-de_mierden", "Reusel-De Mierden", "gemeenteoplossingen", "gemeente"),
    _Org("hardinxveld-giessendam", "Hardinxveld-Giessendam", "gemeenteoplossingen", "gemeente", stalled_days=130),
    _Org("noordoostpolder", "Noordoostpolder", "ibabs", "gemeente", stalled_days=50),
    _Org("westland", "Westland", "ibabs", "gemeente"),
    _Org("putten", "Putten", "parlaeus", "gemeente"),
    _Org("dongen", "Dongen", "notubiz", "gemeente", stalled_days=200, implemented=False),
    _Org("weesp", "Weesp", "notubiz", "gemeente", stalled_days=1600, discontinued=("2022-03-24", "amsterdam")),
    _Org("provincie-utrecht", "Provincie Utrecht", "ibabs", "provincie"),
    _Org("noord-holland", "Noord Holland", "notubiz", "provincie"),
    _Org("gelderland", "Gelderland", "ibabs", "provincie"),
    _Org("provincie-groningen", "Provincie Groningen", "parlaeus", "provincie"),
    _Org("delfland", "Delfland", "ibabs", "waterschap"),
    _Org("aa-en-maas", "Aa En Maas", "notubiz", "waterschap", stalled_days=75),
    _Org("wetterskip-fryslan", "Wetterskip Fryslan", "ibabs", "waterschap"),
    _Org("hollands-noorderkwartier", "Hollands Noorderkwartier", "parlaeus", "waterschap"),
)
_SUPPLIER_LABEL = {"gemeenteoplossingen": "GemeenteOplossingen", "ibabs": "iBabs", "notubiz": "Notubiz",
                   "parlaeus": "Parlaeus"}
_BODY = {"gemeente": ("Gemeenteraad", "Commissie Ruimte", "Commissie Bestuur en Middelen"),
         "provincie": ("Provinciale Staten", "Statencommissie Ruimte"),
         "waterschap": ("Algemeen Bestuur", "Commissie Watersysteem")}
_PROPOSAL = {"gemeente": "Raadsvoorstel", "provincie": "Statenvoorstel", "waterschap": "Voorstel algemeen bestuur"}
_TOPICS = {
    "gemeente": ("warmtenet", "woningbouw stationsgebied", "omgevingsvisie", "jeugdzorg", "begroting",
                 "jaarrekening", "parkeerbeleid", "zonneparken", "asielopvang", "armoedebeleid", "bibliotheek",
                 "speelruimte", "afvalinzameling", "centrumplan"),
    "provincie": ("stikstof", "openbaar vervoer", "natuurnetwerk", "begroting", "jaarrekening", "windturbines",
                  "grondwater", "fietssnelwegen"),
    "waterschap": ("dijkversterking", "waterkwaliteit", "peilbesluit", "waterschapsbelasting", "begroting",
                   "jaarrekening", "klimaatadaptatie", "droogte"),
}
_PARTIES = ("VVD", "D66", "GroenLinks-PvdA", "CDA", "SP", "ChristenUnie", "BBB", "Lokaal Belang")
_SENTENCES = (
    "Het college stelt voor om {topic} in {year} verder uit te werken.",
    "De kosten voor {topic} worden geraamd op € {amount} miljoen, te dekken uit de algemene reserve.",
    "In de {body} is {topic} besproken met insprekers uit de wijk.",
    "De fractie van {party} vraagt om een evaluatie van {topic} voor het zomerreces.",
    "Met dit voorstel geeft {org} invulling aan het coalitieakkoord over {topic}.",
    "Wij verzoeken u in te stemmen met het beschikbaar stellen van een krediet voor {topic}.",
    "Uit de monitor blijkt dat de doelen voor {topic} in {year} nog niet zijn gehaald.",
    "Over {topic} is overleg gevoerd met de buurgemeenten, de provincie en het waterschap.",
)


@dataclass(slots=True)
class _Entity:
    id: str
    type: str  # Meeting | Document | Motion
    org: _Org
    title: str
    start: datetime | None
    pages: list[str] = field(default_factory=list)  # a document's text, per page
    detail: dict[str, Any] = field(default_factory=dict)  # the extra fields of its detail reply
    words: frozenset[str] = frozenset()
    page_words: tuple[frozenset[str], ...] = ()
    folded: str = ""  # title and text, lower-case, words separated by single spaces (phrase search)

    @property
    def rows(self) -> int:
        """Index rows this entity has: one commit row, one per extracted page."""
        return 1 + len(self.pages)

    def finish(self) -> None:
        pages = [_words(p) for p in self.pages]
        self.folded = " ".join([*_words(self.title), *(w for p in pages for w in p)])
        self.words = frozenset(self.folded.split())
        self.page_words = tuple(frozenset(p) for p in pages)


@dataclass(slots=True)
class _Dataset:
    anchor: date
    entities: dict[str, _Entity]
    ordered: list[_Entity]  # newest first


_WORD = re.compile(r"\w+")


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


class _Builder:
    def __init__(self, anchor: date) -> None:
        self.anchor = anchor
        self.rng = random.Random(20261101)
        self.seq = 480_000
        self.entities: dict[str, _Entity] = {}
        self._sentences: dict[tuple[str, str, str, int], list[str]] = {}

    def native(self, org: _Org) -> str:
        self.seq += 1
        if org.supplier == "ibabs":
            return str(uuid.uuid5(uuid.NAMESPACE_URL, f"{org.key}/{self.seq}"))
        return str(self.seq)

    def eid(self, kind: str, org: _Org) -> str:
        return f"{kind}:{org.ref}:{self.native(org)}"

    def org(self, org: _Org) -> None:
        stop = self.anchor - timedelta(days=org.stalled_days) if org.stalled_days else self.anchor + timedelta(days=42)
        day = min(self.anchor - timedelta(days=150), stop - timedelta(days=120)) + timedelta(days=self.rng.randrange(5))
        bodies = _BODY[org.kind]
        n = 0
        while day < stop:
            if not (day.month == 7 and day.day >= 20) and not (day.month == 8 and day.day <= 20):
                self.meeting(org, bodies[n % len(bodies)], day)
                n += 1
            day += timedelta(days=self.rng.choice((6, 7, 8, 9)))
        self.meeting(org, bodies[0], stop)  # a stalled organisation's last meeting falls on its stall date

    def meeting(self, org: _Org, body: str, day: date) -> None:
        rng = self.rng
        hour = 19 if org.kind == "gemeente" else 10
        start = datetime.combine(day, dtime(hour, 30), TZ)
        meeting = _Entity(self.eid("meeting", org), "Meeting", org, f"{body} {day.isoformat()}", start)
        topics = rng.sample(_TOPICS[org.kind], rng.randint(2, 4))
        agenda: list[dict[str, Any]] = []
        motions: list[dict[str, Any]] = []
        nested = org.supplier == "notubiz"
        for number, title in enumerate(["Opening en mededelingen", "Vaststellen van de agenda"], start=1):
            agenda.append(self.item(org, number, title, nested))
        for i, topic in enumerate(topics, start=3):
            item = self.item(org, i, f"{_PROPOSAL[org.kind]} {topic}", nested)
            if day <= self.anchor + timedelta(days=14):
                doc = self.document(org, f"{_PROPOSAL[org.kind]} {topic}", topic, body, start, meeting.id)
                item["documents"] = [self.doc_ref(doc)]
            if nested and rng.random() < 0.5:
                sub = self.item(org, 1, f"Bespreking {topic}", nested, parent=item["id"], prefix=f"{i}.")
                letter = self.document(org, f"Raadsinformatiebrief {topic}", topic, body, start, meeting.id)
                sub["documents"] = [self.doc_ref(letter)]
                item["agenda_items"] = [sub]
            if day < self.anchor and rng.random() < 0.35:
                motions.append(self.motion(org, topic, start, meeting.id, item["id"]))
            agenda.append(item)
        agenda.append(self.item(org, len(agenda) + 1, "Rondvraag en sluiting", nested))
        meeting.detail = {"agenda": agenda, **({"motions": motions} if motions else {})}
        self.add(meeting)

    def item(self, org: _Org, number: int, title: str, nested: bool, *, parent: str | None = None,
             prefix: str = "") -> dict[str, Any]:
        item: dict[str, Any] = {"id": self.eid("agenda_item", org), "title": title, "order": number}
        if nested:  # Notubiz: nested, numbered; iBabs and the others: flat, ordered
            item["number"] = f"{prefix}{number}"
            if parent:
                item["parent"] = parent
        return item

    def document(self, org: _Org, title: str, topic: str, body: str, start: datetime, meeting_id: str) -> _Entity:
        rng = self.rng
        doc = _Entity(self.eid("document", org), "Document", org, title, start)
        pool = self.sentences(org, topic, body, start.year)
        doc.pages = [" ".join(rng.sample(pool, rng.randint(3, 6))) for _ in range(rng.randint(2, 4))]
        native = doc.id.rsplit(":", 1)[1]
        url = (f"https://api.notubiz.nl/document/{native}/1" if org.supplier == "notubiz"
               else f"https://{org.key.replace('_', '')}.bestuurlijkeinformatie.nl/Document/{native}.pdf")
        doc.detail = {"downloadUrl": url, "contentType": "application/pdf", "pdfUrl": url, "meetingId": meeting_id,
                      "markdownText": f"# {title}\n\n" + "\n\n".join(doc.pages)}
        self.add(doc)
        return doc

    def sentences(self, org: _Org, topic: str, body: str, year: int) -> list[str]:
        """Sentences about one topic, made once per organisation and year (building is the slow part)."""
        key = (org.key, topic, body, year)
        if key not in self._sentences:
            rng = self.rng
            self._sentences[key] = [s.format(topic=topic, year=year + rng.randint(0, 2), amount=rng.randint(1, 40),
                                             body=body, party=rng.choice(_PARTIES), org=org.label)
                                    for s in _SENTENCES]
        return self._sentences[key]

    def doc_ref(self, doc: _Entity) -> dict[str, Any]:
        return {"id": doc.id, "name": doc.title, "content_type": "application/pdf",
                "original_url": doc.detail["downloadUrl"]}

    def motion(self, org: _Org, topic: str, start: datetime, meeting_id: str, item_id: str) -> dict[str, Any]:
        rng = self.rng
        party = rng.choice(_PARTIES)
        result = rng.choice(("aangenomen", "verworpen", "aangenomen", "ingetrokken"))
        title = f"Motie {party} over {topic}"
        attachment = self.document(org, title, topic, _BODY[org.kind][0], start, meeting_id)
        shape: dict[str, Any] = {"id": self.eid("motion", org), "name": title, "motion_type": "Moties",
                                 "result": result, "proposers": [f"{party}-fractie"], "parties": [party],
                                 "agenda_item": item_id, "attachment_id": attachment.id}
        if result != "ingetrokken":
            shape["tally"] = {"in_favour": rng.randint(10, 25), "against": rng.randint(5, 20)}
        motion = _Entity(shape["id"], "Motion", org, title, start, pages=list(attachment.pages))
        motion.detail = {"motion": {k: v for k, v in shape.items() if k != "id"} | {"id": shape["id"]},
                         "meetingId": meeting_id, "pdfEntityId": attachment.id,
                         "downloadUrl": attachment.detail["downloadUrl"], "pdfUrl": attachment.detail["downloadUrl"],
                         "contentType": "application/pdf", "markdownText": attachment.detail["markdownText"]}
        self.add(motion)
        return {**shape, "download_url": attachment.detail["downloadUrl"], "attachment_is_pdf": True}

    def add(self, entity: _Entity) -> None:
        entity.finish()
        self.entities[entity.id] = entity


@functools.lru_cache(maxsize=4)
def _dataset(anchor: date) -> _Dataset:
    """The sample data for one anchor date, built once per process and never changed."""
    builder = _Builder(anchor)
    for org in _ORGS:
        builder.org(org)
    ordered = sorted(builder.entities.values(), key=lambda e: (e.start or datetime.min.replace(tzinfo=UTC), e.id),
                     reverse=True)
    return _Dataset(anchor, builder.entities, ordered)


# =========================================================================== replies


def _error(status: int, code: str, error: str, hint: str | None = None) -> web.Response:
    return web.json_response({"code": code, "error": error, **({"hint": hint} if hint else {})}, status=status)


def _nl_date(moment: datetime | None) -> str:
    if moment is None:
        return "Datum onbekend"
    local = moment.astimezone(TZ)
    return f"{local.day} {_MONTHS[local.month - 1]} {local.year}"


def _sort_date(moment: datetime | None) -> str | None:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ") if moment else None


def _common(entity: _Entity) -> dict[str, Any]:
    out: dict[str, Any] = {"entityId": entity.id, "entityType": entity.type, "entityTypeLabel": LABELS[entity.type],
                           "organization": entity.org.label, "date": _nl_date(entity.start), "title": entity.title}
    if entity.start:
        out["sortDate"] = _sort_date(entity.start)
    return out


@dataclass(frozen=True, slots=True)
class _Query:
    terms: tuple[str, ...]
    phrases: tuple[str, ...]

    @property
    def empty(self) -> bool:
        return not self.terms and not self.phrases

    def matches(self, entity: _Entity) -> bool:
        return all(t in entity.words for t in self.terms) and all(f" {p} " in f" {entity.folded} "
                                                                   for p in self.phrases)

    def page(self, entity: _Entity) -> int | None:
        for number, words in enumerate(entity.page_words, start=1):
            if all(t in words for t in self.terms) and (self.terms or self.phrases):
                return number
        return None

    def score(self, entity: _Entity) -> int:
        return sum(entity.folded.count(t) for t in (*self.terms, *self.phrases))


def _parse_query(text: str) -> _Query:
    phrases = tuple(" ".join(_words(p)) for p in re.findall(r'"([^"]*)"', text) if _words(p))
    rest = re.sub(r'"[^"]*"', " ", text)
    return _Query(terms=tuple(dict.fromkeys(_words(rest))), phrases=phrases)


def _snippet(entity: _Entity, query: _Query, raw: str) -> dict[str, str]:
    text = " ".join(entity.pages) or entity.title
    words = (*query.terms, *(p.split()[0] for p in query.phrases))
    if len(raw.strip()) >= SNIPPET_MIN_QUERY and words:
        at = min((m.start() for w in words if (m := re.search(rf"\b{re.escape(w)}\b", text, re.I))), default=0)
        start = max(0, at - 80)
        piece = text[start:start + 240]
        html = piece.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        for w in words:
            html = re.sub(rf"\b({re.escape(w)})\b", r"<b>\1</b>", html, flags=re.I)
        return {"summary": piece, "summaryHtml": html}
    if not entity.pages:
        return {"summary": "Geen samenvatting beschikbaar."}
    return {"summary": text[:240]}


async def _search(request: web.Request) -> web.Response:
    data = request.app[_DATA]
    q = request.query
    raw_query = q.get("query", "")
    organization = q.get("organization", "")
    entity_type = q.get("entityType", "")
    sort = q.get("sort", "date_desc")
    if _SLOP.search(raw_query):
        return _error(400, "unsupported_phrase_slop", "De notatie \"woorden\"~N wordt niet ondersteund.",
                      "Zoek op de zin tussen aanhalingstekens, zonder ~N.")
    if organization and organization not in _SOURCE_KEYS:
        return _error(400, "unknown_organization", f"Onbekende organisatie: {organization}.",
                      "Gebruik een key uit /api/sources.")
    if entity_type and entity_type not in ENTITY_TYPES:
        return _error(400, "unknown_entity_type", f"Onbekend entityType: {entity_type}.",
                      "Kies Meeting, Document, Motion of Recording.")
    if sort not in SORTS:
        return _error(400, "unknown_sort", f"Onbekende sortering: {sort}.", "Kies date_desc, date_asc, title_asc "
                      "of relevance.")
    bounds: list[date | None] = []
    for name in ("dateFrom", "dateTo"):
        value = q.get(name)
        if value is None:
            bounds.append(None)
            continue
        try:
            if not _DATE.match(value):
                raise ValueError(value)
            bounds.append(date.fromisoformat(value))
        except ValueError:
            return _error(400, "invalid_date", f"Parameter {name} moet een datum in de vorm JJJJ-MM-DD zijn, kreeg "
                          f"\"{value}\".", "Alleen de kale datum wordt geaccepteerd; een tijd of tijdzone erachter "
                          "niet.")
    try:
        offset = int(q.get("offset", "0"))
        if offset < 0:
            raise ValueError
    except ValueError:
        return _error(400, "invalid_offset", "Parameter offset moet een geheel getal van 0 of meer zijn.")
    try:
        limit = int(q.get("limit", "24"))
        if limit < 1:
            raise ValueError
    except ValueError:
        return _error(400, "invalid_limit", "Parameter limit moet een geheel getal van 1 of meer zijn.")
    limit = min(limit, MAX_LIMIT)
    query = _parse_query(raw_query)
    if not raw_query.strip() and not organization:
        return web.json_response({"results": [], "totalCount": 0, "totalIsApproximate": False, "hasMore": False})
    if raw_query.strip() and query.empty:  # only punctuation: nothing, rather than everything
        return web.json_response({"results": [], "totalCount": 0, "totalIsApproximate": False, "hasMore": False})
    types = {entity_type} if entity_type else ({"Meeting", "Document", "Motion"})
    if "Recording" in types:
        types = {"Meeting"}  # recordings fold into their meeting; the replica has no transcripts to match
    start, end = bounds
    hits = []
    for entity in data.ordered:
        if entity.type not in types or (organization and entity.org.key != organization):
            continue
        day = entity.start.astimezone(UTC).date() if entity.start else None
        if (start or end) and (day is None or (start and day < start) or (end and day > end)):
            continue
        if not query.empty and not query.matches(entity):
            continue
        hits.append(entity)
    if sort == "date_asc":
        hits.reverse()
    elif sort == "relevance" and not query.empty:
        hits.sort(key=lambda e: -query.score(e))
    # The scan reads at most SCAN_BUDGET_ROWS index rows; what lies beyond is only estimated.
    scanned, rows = [], 0
    for entity in hits:
        if rows + entity.rows > SCAN_BUDGET_ROWS:
            break
        rows += entity.rows
        scanned.append(entity)
    complete = len(scanned) == len(hits)
    if sort == "title_asc":
        scanned.sort(key=lambda e: e.title.lower())  # orders the fetched window only, as documented
    if complete:
        total = len(hits)
    else:
        total_rows = sum(e.rows for e in hits)
        total = round(total_rows / (rows / len(scanned))) if scanned else 0
    window = scanned[offset:offset + limit]
    results = []
    for entity in window:
        item = _common(entity)
        item.update(_snippet(entity, query, raw_query))
        if entity.type in ("Document", "Motion"):
            item["downloadUrl"] = entity.detail["downloadUrl"]
            item["pageCount"] = len(entity.pages)
            page = query.page(entity) if entity.type == "Document" and not query.empty else None
            if page:
                item["matchedPage"] = page
        results.append(item)
    more = bool(window) and (offset + limit < len(scanned) or not complete)
    return web.json_response({"results": results, "totalCount": total, "totalIsApproximate": not complete,
                              "hasMore": more})


async def _entity(request: web.Request) -> web.Response:
    data = request.app[_DATA]
    entity_id = unquote(request.match_info["id"])
    entity = data.entities.get(entity_id)
    if entity is None:
        return _error(404, "entity_not_found", "Resultaat niet gevonden")
    return web.json_response({**_common(entity), **entity.detail})


def _state(org: _Org, anchor: date) -> dict[str, Any]:
    newest = anchor + timedelta(days=42) if not org.stalled_days else anchor - timedelta(days=org.stalled_days)
    latest = datetime.combine(newest, dtime(17, 30), UTC)
    ran = datetime.combine(anchor, dtime(0, 0, 24), UTC)
    row: dict[str, Any] = {"sourceKey": org.key, "sourceRef": org.ref, "label": org.label, "supplier": org.supplier,
                           "organizationType": org.kind}
    if org.cbs:
        row["cbsId"] = org.cbs
    if org.discontinued:
        when, successor = org.discontinued
        heir = next(o for o in _ORGS if o.key == successor)
        row.update(state="discontinued", discontinuedAt=when,
                   succeededBy={"cbsId": heir.cbs, "label": heir.label, "sourceKey": heir.key})
    elif not org.implemented:
        row.update(state="not_implemented")
    elif org.stalled_days and org.stalled_days > 60:
        row.update(state="failing", lastSuccessAt=_iso(latest), lastRunAt=_iso(ran), lastRunStatus="failed",
                   lastErrorMessage="De bron weigert verzoeken van deze server (403).")
    else:
        row.update(state="ok", lastSuccessAt=_iso(ran + timedelta(minutes=4)), lastRunAt=_iso(ran),
                   lastRunStatus="succeeded")
    row.update(latestContentDate=_iso(latest), lastIndexedAt=_iso(min(latest, ran + timedelta(minutes=3))))
    return row


def _iso(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.000Z")


_AGGREGATES = tuple({"key": f"all_{s}", "sourceRef": f"__supplier__:{s}", "label": f"Alle {label}-bronnen",
                     "supplier": s, "organizationType": "verzameling", "implemented": True, "isAggregate": True}
                    for s, label in sorted(_SUPPLIER_LABEL.items()))
_SOURCE_KEYS = frozenset([*(o.key for o in _ORGS), *(a["key"] for a in _AGGREGATES)])


async def _sources(request: web.Request) -> web.Response:
    only = request.query.get("implemented") == "true"
    rows = sorted(_ORGS, key=lambda o: (not o.implemented, o.label.lower()))
    out = [*_AGGREGATES, *({"key": o.key, "sourceRef": o.ref, "label": o.label, "supplier": o.supplier,
                            "organizationType": o.kind, "implemented": o.implemented}
                           for o in rows if o.implemented or not only)]
    return web.json_response({"sources": out})


async def _status(request: web.Request) -> web.Response:
    anchor = request.app[_DATA].anchor
    generated = datetime.combine(anchor, dtime(9, 0), UTC)
    suppliers = [{"supplier": s, "label": label, "state": "ok",
                  "sourceCount": sum(o.supplier == s for o in _ORGS)} for s, label in sorted(_SUPPLIER_LABEL.items())]
    blind = request.app[STATUS_FAULTS].get("index_down", False)
    rows = [_state(o, anchor) for o in _ORGS]
    if blind:  # both index-derived fields are omitted everywhere; the import half is unaffected
        rows = [{k: v for k, v in r.items() if k not in ("latestContentDate", "lastIndexedAt")} for r in rows]
    return web.json_response({"generatedAt": _iso(generated), "windowHours": 36, "indexActivityAvailable": not blind,
                              "suppliers": suppliers, "sources": rows},
                             headers={"Cache-Control": "public, max-age=600"})


async def _stats(request: web.Request) -> web.Response:
    data = request.app[_DATA]
    return web.json_response({"documentCount": sum(e.type == "Document" for e in data.ordered),
                              "organizationCount": len(_ORGS),
                              "municipalityCount": sum(o.kind == "gemeente" for o in _ORGS),
                              "waterBoardCount": sum(o.kind == "waterschap" for o in _ORGS),
                              "provinceCount": sum(o.kind == "provincie" for o in _ORGS)},
                             headers={"Cache-Control": "public, max-age=1800"})


async def _not_found(request: web.Request) -> web.Response:
    return web.Response(status=404, text="Niet gevonden")


_DATA = web.AppKey("ori_dataset", _Dataset)


def create_app(anchor: date) -> web.Application:
    """The OpenBesluitvorming replica, at the real paths (`/api/...`)."""
    app = web.Application(middlewares=[_rate_limit])
    app[_DATA] = _dataset(anchor)
    app[RATE] = RateLimiter()
    app[STATUS_FAULTS] = {}
    app.router.add_get("/api/search", _search)
    app.router.add_get("/api/entities/{id}", _entity)
    app.router.add_get("/api/sources", _sources)
    app.router.add_get("/api/status", _status)
    app.router.add_get("/api/stats", _stats)
    app.router.add_route("*", "/{tail:.*}", _not_found)
    return app

