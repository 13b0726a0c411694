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
import hashlib
import json
import math
import re
import time
import uuid
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from datetime import time as dtime
from pathlib import Path
from typing import Any
from urllib.parse import unquote
from zoneinfo import ZoneInfo

from aiohttp import web
from aiohttp.typedefs import Handler
from defusedxml import ElementTree as SafeET

from proxy.replica.provenance import Provenance, tally

__all__ = ["RATE", "STATUS_FAULTS", "RateLimiter", "create_app", "provenance"]

TZ = ZoneInfo("Europe/Amsterdam")
DATA = Path(__file__).parent / "data" / "ori"
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
async def _rate_limit(request: web.Request, handler: Handler) -> web.StreamResponse:
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
    """One row of the platform's catalog (`data/ori/catalog.json`)."""

    key: str
    label: str
    supplier: str  # notubiz | ibabs | gemeenteoplossingen | parlaeus
    kind: str  # gemeente | provincie | waterschap
    ref: str
    implemented: bool = True
    cbs: str | None = None
    discontinued: str | None = None
    successor: tuple[str | None, str, str | None] | None = None  # (cbs code, label, source key)


def _catalog() -> tuple[_Org, ...]:
    rows = json.loads((DATA / "catalog.json").read_text(encoding="utf-8"))
    return tuple(_Org(key=r["key"], label=r["label"], supplier=r["supplier"], kind=r["organizationType"],
                      ref=r["sourceRef"], implemented=r["implemented"], cbs=r.get("cbsId"),
                      discontinued=r.get("discontinuedAt"),
                      successor=(r.get("succeededByCbsId"), r["succeededByLabel"], r.get("succeededBySourceKey"))
                      if r.get("succeededByLabel") else None)
                 for r in rows)


_ORGS: tuple[_Org, ...] = _catalog()
_BY_KEY = {o.key: o for o in _ORGS}
_SUPPLIER_LABEL = {"gemeenteoplossingen": "GemeenteOplossingen", "ibabs": "iBabs", "notubiz": "Notubiz",
                   "parlaeus": "Parlaeus"}
# An organisation whose imports fail while its agendas run ahead (status only: no /api/status recording exists).
FAILING = {"hofvantwente": 90}


@dataclass(slots=True)
class _Entity:
    id: str
    type: str  # Meeting | Document | Motion
    org: _Org
    title: str
    start: datetime | None
    source: str  # the data file it was built from, or INVENTED
    pages: list[str] = field(default_factory=list)  # a document's text, per page
    detail: dict[str, Any] = field(default_factory=dict)  # the extra fields of its detail reply
    classification: tuple[str, ...] = ()
    commits: int = 1  # index rows per version of the entity: browse mode pages over these
    words: frozenset[str] = frozenset()
    page_words: tuple[frozenset[str], ...] = ()
    folded: str = ""  # title and text, lower-case, words separated by single spaces (phrase search)

    @property
    def rows(self) -> int:
        """Index rows this entity has: one per commit, one per extracted page."""
        return self.commits + len(self.pages)

    def finish(self) -> None:
        pages = [_words(p) for p in self.pages]
        # A meeting's indexed content is its agenda (the titles of its items).
        agenda = [w for item in self.detail.get("agenda") or [] for w in _words(str(item.get("title") or ""))]
        self.folded = " ".join([*_words(self.title), *(w for p in pages for w in p), *agenda])
        self.words = frozenset(self.folded.split()) | frozenset(w for c in self.classification for w in _words(c))
        self.page_words = tuple(frozenset(p) for p in pages)
        self.commits = 1 + int(hashlib.sha256(self.id.encode()).hexdigest(), 16) % 3


@dataclass(slots=True)
class _Dataset:
    anchor: date
    entities: dict[str, _Entity]
    ordered: list[_Entity]  # newest first
    fixtures: bool = False  # test fixtures served: meetings ahead of the anchor, import states around it

    def newest(self, org: _Org) -> datetime | None:
        """The newest recorded moment of one organisation's entities (None: nothing of it is in the sample)."""
        return max((e.start for e in self.ordered if e.org is org and e.start and e.source != INVENTED),
                   default=None)


# When the catalog behind this sample was checked against the platform's own (catalog.data.ts).
RECORDED_ON = "2026-08-21"
_WORD = re.compile(r"[^\W_]+")
INVENTED = "invented"


def _words(text: str) -> list[str]:
    """Lower-cased, split on every non-letter/digit (the platform's tokenizeQueryText)."""
    return _WORD.findall(text.lower())


def _eid(kind: str, org: _Org, native: object) -> str:
    return f"{kind}:{org.supplier}:{org.kind}:{org.key}:{native}"


def _utc(value: str) -> datetime:
    moment = datetime.fromisoformat(value)
    return (moment if moment.tzinfo else moment.replace(tzinfo=TZ)).astimezone(UTC)


class _Builder:
    """Entities as the platform's normalisers make them from the recorded supplier and Classic replies."""

    def __init__(self, anchor: date) -> None:
        self.anchor = anchor
        self.entities: dict[str, _Entity] = {}

    def add(self, entity: _Entity) -> _Entity:
        entity.finish()
        self.entities[entity.id] = entity
        return entity

    # ----------------------------------------------------------------- Classic ORI documents (2019)

    def classic_documents(self, name: str) -> None:
        """Classic MediaObject hits as OpenBesluitvorming documents: a Notubiz document keeps its Notubiz id
        (`original_url` …/document/<id>/1 is the new `downloadUrl`, the guide's Recept 10)."""
        reply = json.loads((DATA / name).read_text(encoding="utf-8"))
        for hit in reply["hits"]["hits"]:
            src = hit["_source"]
            index_key = re.sub(r"^ori_|_\d{14}$", "", hit["_index"])
            org = _BY_KEY[index_key]
            native = re.search(r"/document/(\d+)/", src["original_url"])
            assert native, src["original_url"]
            doc = _Entity(_eid("document", org, native.group(1)), "Document", org, src["name"],
                          _utc(src["last_discussed_at"]), name, pages=[str(p) for p in src.get("text") or []],
                          classification=("Document",))
            doc.detail = {"downloadUrl": src["original_url"], "contentType": src["content_type"],
                          "pdfUrl": src["original_url"],
                          "markdownText": f"# {src['name']}\n\n" + "\n\n".join(doc.pages)}
            self.add(doc)

    # ----------------------------------------------------------------- Notubiz motions (2026)

    def notubiz_motions(self, name: str, key: str) -> None:
        """Notubiz module items (field ids of src/notubiz/motions.ts): the motion, its main document (whose
        `is_referenced_by` is the motion), and the meeting its agenda-item label names."""
        org = _BY_KEY[key]
        for item in json.loads((DATA / name).read_text(encoding="utf-8"))["items"]:
            fields = {a["id"]: a for a in item["attributes"]}

            def text(field_id: int, fields: dict[int, Any] = fields) -> str | None:
                values = (fields.get(field_id) or {}).get("values") or []
                content = values[0].get("content") if values else None
                return str(content).strip() if content not in (None, "") else None

            def labels(field_id: int, fields: dict[int, Any] = fields) -> list[str]:
                return [str(v["meta_data"]["label"]).strip() for v in (fields.get(field_id) or {}).get("values") or []
                        if isinstance(v.get("meta_data"), dict) and v["meta_data"].get("label")]

            title = text(1) or f"Motie {item['id']}"
            status = text(62) or text(71)
            agenda_native = ((fields.get(54) or {}).get("values") or [{}])[0].get("content")
            hint = next(iter(labels(54)), None)
            meeting = self.meeting_from_hint(org, hint, agenda_native, name)
            day = _utc(meeting.detail["_start"]) if meeting else _utc(str(text(15)))
            motion_id = _eid("motion", org, item["id"])
            shape: dict[str, Any] = {"id": motion_id, "name": title, "motion_type": text(45) or "Motie",
                                     "status": status, "result": _result(status),
                                     "date": (text(15) or "")[:10] or None}
            for field_id, out in ((36, "proposers"), (87, "co_proposers"), (37, "parties")):
                if labels(field_id):
                    shape[out] = labels(field_id)
            if text(61):
                shape["vote_summary"] = re.sub(r"<[^>]+>", "", str(text(61))).strip()
            if agenda_native:
                shape["agenda_item"] = _eid("agenda_item", org, agenda_native)
            shape = {k: v for k, v in shape.items() if v is not None}
            document = ((fields.get(2) or {}).get("values") or [{}])[0].get("document")
            attachment = None
            if isinstance(document, dict) and document.get("id"):
                url = f"https://api.notubiz.nl/document/{document['id']}/1"
                attachment = self.add(_Entity(_eid("document", org, document["id"]), "Document", org, title, day, name,
                                              classification=(shape["motion_type"],)))
                attachment.detail = {"downloadUrl": url, "contentType": "application/pdf", "pdfUrl": url,
                                     "meetingId": motion_id}
                shape["attachment_id"] = attachment.id
            motion = _Entity(motion_id, "Motion", org, title, day, name, classification=(shape["motion_type"],))
            motion.detail = {"motion": shape, **({"meetingId": meeting.id} if meeting else {})}
            if attachment:
                motion.detail.update(downloadUrl=attachment.detail["downloadUrl"], contentType="application/pdf",
                                     pdfUrl=attachment.detail["downloadUrl"])
            if meeting:
                meeting.detail.setdefault("motions", []).append(
                    {**shape, **({"download_url": attachment.detail["downloadUrl"], "attachment_is_pdf": True}
                                 if attachment else {})})
            else:
                shape["agenda_item_hint"] = hint
            self.add(motion)

    def ibabs_motion(self, entry_name: str, votes_name: str, key: str) -> None:
        """An iBabs list entry (GetListEntry) and its votes (GetListEntryVotesByListEntryId), shaped as the
        platform's src/ibabs/normalize.ts normalizeIbabsMotion shapes them: proposers split on ';', parties from
        each proposer's last '(…)', one vote per member (voor/tegen) with its group, the tally counted from them."""
        org = _BY_KEY[key]
        entry = SafeET.fromstring((DATA / entry_name).read_bytes())
        values = {(kv.findtext(f"{_ARRAYS}Key") or "").strip().lower(): (kv.findtext(f"{_ARRAYS}Value") or "").strip()
                  for kv in entry.iter(f"{_ARRAYS}KeyValueOfstringstring")}
        votes_xml = SafeET.fromstring((DATA / votes_name).read_bytes())
        rows = list(votes_xml.iter(f"{_IBABS}iBabsListEntryVote"))
        native = rows[0].findtext(f"{_IBABS}EntryId") if rows else None
        votes = [{"option": "voor" if row.findtext(f"{_IBABS}Vote") == "true" else "tegen",
                  "voter": _eid("person", org, row.findtext(f"{_IBABS}UserId")),
                  "voter_name": row.findtext(f"{_IBABS}UserName"),
                  "group": _eid("party", org, row.findtext(f"{_IBABS}GroupId")),
                  "group_name": row.findtext(f"{_IBABS}GroupName")}
                 for row in rows if row.findtext(f"{_IBABS}Vote") in ("true", "false")]
        proposers = [p.strip() for p in values.get("indiener(s)", "").split(";") if p.strip()]
        co_proposers = [p.strip() for p in values.get("mede-indieners", "").split(";") if p.strip()]
        parties = list(dict.fromkeys(m[-1].strip() for p in [*proposers, *co_proposers]
                                     if (m := re.findall(r"\(([^()]*)\)", p)) and m[-1].strip()))
        day = _ibabs_date(values.get("datum"))
        title = values.get("onderwerp") or f"Moties {native}"
        status = values.get("status") or None
        motion_id = _eid("motion", org, native)
        shape: dict[str, Any] = {
            "id": motion_id, "name": title, "motion_type": "Moties", "status": status, "result": _result(status),
            "date": day, "proposers": proposers or None, "co_proposers": co_proposers or None,
            "parties": parties or None, "votes": votes or None,
            "tally": {"in_favour": sum(v["option"] == "voor" for v in votes),
                      "against": sum(v["option"] == "tegen" for v in votes)} if votes else None,
            "agenda_item_hint": values.get("agendapunt") or None}
        shape = {k: v for k, v in shape.items() if v is not None}
        start = _utc(day) if day else None
        motion = _Entity(motion_id, "Motion", org, title, start, entry_name, classification=("Moties",))
        motion.detail = {"motion": shape}
        for document in entry.iter(f"{_IBABS}iBabsDocument"):
            url = document.findtext(f"{_IBABS}PublicDownloadURL")
            attachment = self.add(_Entity(_eid("document", org, document.findtext(f"{_IBABS}Id")), "Document", org,
                                          document.findtext(f"{_IBABS}DisplayName") or title, start, entry_name,
                                          classification=("Moties",)))
            attachment.detail = {"downloadUrl": url, "contentType": "application/pdf", "pdfUrl": url,
                                 "meetingId": motion_id}
            shape.setdefault("attachment_id", attachment.id)
            motion.detail.update(downloadUrl=url, contentType="application/pdf", pdfUrl=url)
        self.add(motion)

    def meeting_from_hint(self, org: _Org, hint: str | None, agenda_native: Any, source: str) -> _Entity | None:
        """The meeting a label such as '… (Gemeenteraad 22-01-2026 19:30)' names, with that agenda item."""
        found = re.search(r"\(([^()]*?)\s+(\d{2})-(\d{2})-(\d{4})\s+(\d{1,2}):(\d{2})\)\s*$", hint or "")
        if not found or not agenda_native:
            return None
        body, dd, mm, yyyy, hh, mi = found.groups()
        wall = f"{yyyy}-{mm}-{dd}T{int(hh):02d}:{mi}:00"
        # The Notubiz event id is not in the recording: the native id is made from the date, and says so.
        meeting_id = _eid("meeting", org, f"zonder-id-{yyyy}{mm}{dd}")
        meeting = self.entities.get(meeting_id)
        if meeting is None:
            meeting = self.add(_Entity(meeting_id, "Meeting", org, body, _utc(wall), INVENTED,
                                       classification=(body,)))
            meeting.detail = {"_start": wall, "agenda": []}
        agenda = meeting.detail["agenda"]
        item_title = re.sub(r"\s*\([^()]*\)\s*$", "", hint or "")
        agenda.append({"id": _eid("agenda_item", org, agenda_native), "title": item_title, "order": len(agenda) + 1})
        return meeting

    # ----------------------------------------------------------------- invented, marked

    def upcoming(self) -> None:
        """Meetings ahead of the anchor (nothing recorded lies in the future), one per supplier's shape; the
        Parlaeus one has a document linked, as Parlaeus documents are, to its agenda item only."""
        specs = (("utrecht", "Voorbeeld: Commissie Ruimte", 6, 19), ("den_haag", "Voorbeeld: Gemeenteraad", 9, 14),
                 ("apeldoorn", "Voorbeeld: Raadsvergadering", 13, 19))
        for key, title, days, hour in specs:
            org = _BY_KEY[key]
            start = datetime.combine(self.anchor + timedelta(days=days), dtime(hour, 30), TZ).astimezone(UTC)
            native = (str(uuid.uuid5(uuid.NAMESPACE_URL, f"{key}/{days}")) if org.supplier == "ibabs"
                      else f"voorbeeld-{days}")
            meeting = _Entity(_eid("meeting", org, native), "Meeting", org, title, start, INVENTED,
                              classification=(title,))
            item_id = _eid("agenda_item", org, f"voorbeeld-{days}-1")
            agenda: list[dict[str, Any]] = [{"id": item_id, "title": "Voorbeeld: vaststelling van de agenda",
                                             "order": 1}]
            if org.supplier == "parlaeus":
                doc = self.add(_Entity(_eid("document", org, f"voorbeeld-{days}-1"), "Document", org,
                                       "Voorbeeld: agenda raadsvergadering", start, INVENTED,
                                       pages=["Voorbeeld van een Parlaeus-document: geen echte tekst."],
                                       classification=("Document", "Agenda")))
                url = f"https://{key}.parlaeus.nl/user/showdoc/action=view/id=voorbeeld-{days}-1"
                doc.detail = {"downloadUrl": url, "contentType": "application/pdf", "pdfUrl": url,
                              "meetingId": item_id, "markdownText": doc.pages[0]}
                agenda[0]["documents"] = [{"id": doc.id, "name": doc.title, "original_url": url}]
            meeting.detail = {"agenda": agenda}
            self.add(meeting)


_IBABS = "{http://schemas.datacontract.org/2004/07/iBabsWCFObjects.Public}"
_ARRAYS = "{http://schemas.microsoft.com/2003/10/Serialization/Arrays}"
_US_MONTHS = {m: n for n, m in enumerate(("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov",
                                           "dec"), start=1)}


def _ibabs_date(value: str | None) -> str | None:
    """src/motions/normalize.ts parseMotionDate: iBabs writes 'Jan 29 2026 12:00AM'; the platform keeps the day
    as midnight UTC ('2026-01-29T00:00:00Z'), a date, not a time."""
    found = re.match(r"^([A-Za-z]{3})[a-z]*\s+(\d{1,2})\s+(\d{4})", value or "")
    if not found or found.group(1).lower() not in _US_MONTHS:
        return None
    return f"{found.group(3)}-{_US_MONTHS[found.group(1).lower()]:02d}-{int(found.group(2)):02d}T00:00:00Z"


def _result(status: str | None) -> str | None:
    """src/motions/normalize.ts normalizeMotionResult: withdrawn and held before passed and rejected."""
    if not status:
        return None
    text = status.lower()
    return next((r for r in ("ingetrokken", "aangehouden", "aangenomen", "verworpen") if r in text), "overig")


@functools.lru_cache(maxsize=4)
def _dataset(anchor: date, fixtures: bool = False) -> _Dataset:
    """The sample data for one anchor date, built once per process and never changed; the meetings ahead of the
    anchor (made up, marked "Voorbeeld") only when a test asks for fixtures."""
    builder = _Builder(anchor)
    builder.classic_documents("classic_search_begrippenlijst_2019_5of30.json")
    builder.notubiz_motions("notubiz_alkmaar_motions.json", "alkmaar")
    builder.notubiz_motions("notubiz_altena_motions.json", "altena")
    builder.ibabs_motion("ibabs_utrecht_list_entry.xml", "ibabs_utrecht_list_entry_votes.xml", "utrecht")
    if fixtures:
        builder.upcoming()
    for entity in builder.entities.values():
        entity.detail.pop("_start", None)
        entity.finish()  # again: a meeting's agenda grows while its motions are read
    ordered = sorted(builder.entities.values(), key=lambda e: (e.start or datetime.min.replace(tzinfo=UTC), e.id),
                     reverse=True)
    return _Dataset(anchor, builder.entities, ordered, fixtures)


def provenance(anchor: date, *, fixtures: bool = False) -> Provenance:
    """Organisations (the whole real catalog) and entities, by the file each was built from."""
    data = _dataset(anchor, fixtures)
    recorded = {"catalog.json": len(_ORGS)}
    for entity in data.ordered:
        if entity.source != INVENTED:
            recorded[entity.source] = recorded.get(entity.source, 0) + 1
    invented = tuple(f"{e.id}: {e.type} '{e.title}'" + (
        " (a meeting named by a recorded agenda-item label; the recording lacks its id)"
        if not e.title.startswith("Voorbeeld") else " (no recording lies in the future)")
        for e in data.ordered if e.source == INVENTED)
    notes = ("no recorded /api/status exists: each organisation's import state and dates are derived from the "
             "anchor (Hof van Twente failing), and those of organisations without sample entities are sample values",
             ) if fixtures else (
        "no recorded /api/status exists: each organisation's row carries the catalog's state (discontinued, not "
        "implemented) and the date of its newest recorded entity, nothing else; an organisation with no recorded "
        "entity has no date",)
    holds = (f"{len(_ORGS)} organisations in the catalog",
             *tally(f"{e.type} of {e.org.label}" for e in data.ordered if e.source != INVENTED))
    return Provenance(recorded=recorded, invented=invented, recorded_on=RECORDED_ON, notes=notes, holds=holds)


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

    @property
    def has_phrase(self) -> bool:
        """A quoted run of two words or more: the platform then does not widen the query."""
        return any(" " in p for p in self.phrases)

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
    alternatives = [query] if query.has_phrase else [_parse_query(t) for t in _governance_terms(raw_query)]
    hits = []
    for entity in data.ordered:
        if entity.type not in types or (organization and entity.org.key != organization):
            continue
        day = entity.start.astimezone(UTC).date() if entity.start else None
        if (start or end) and (day is None or (start and day < start) or (end and day > end)):
            continue
        if not query.empty and not any(alt.matches(entity) for alt in alternatives):
            continue
        hits.append(entity)
    if sort == "date_asc":
        hits.reverse()
    elif sort == "relevance" and not query.empty:
        hits.sort(key=lambda e: -query.score(e))
    if query.empty:
        return _browse(hits, query, raw_query, offset, limit)
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
    more = bool(window) and (offset + limit < len(scanned) or not complete)
    return web.json_response({"results": [_hit(e, query, raw_query) for e in window], "totalCount": total,
                              "totalIsApproximate": not complete, "hasMore": more})


def _browse(hits: list[_Entity], query: _Query, raw_query: str, offset: int, limit: int) -> web.Response:
    """Without a query (web/search_api.ts, the "direct window"): `offset` is a position among raw index rows, one
    per commit of each entity, read in batches of limit + 1 rows until limit + 1 distinct entities are collected or
    offset + limit + 1 rows are read; the first `limit` distinct ones are the page."""
    rows = [e for e in hits for _ in range(e.commits)]
    budget, seen, raw = offset + limit + 1, 0, offset
    collected: dict[str, _Entity] = {}
    while len(collected) < limit + 1 and seen < budget and raw < len(rows):
        batch = rows[raw:raw + min(limit + 1, budget - seen)]
        for entity in batch:
            collected.setdefault(entity.id, entity)
        raw += len(batch)
        seen += len(batch)
    window = list(collected.values())
    exhausted = raw >= len(rows)
    total = len(hits) if exhausted and not offset else max(len(window), round(len(rows) / 2))
    return web.json_response({"results": [_hit(e, query, raw_query) for e in window[:limit]], "totalCount": total,
                              "totalIsApproximate": not (exhausted and not offset),
                              "hasMore": bool(window) and (len(window) > limit or not exhausted)})


def _hit(entity: _Entity, query: _Query, raw_query: str) -> dict[str, Any]:
    item = _common(entity)
    item.update(_snippet(entity, query, raw_query))
    if entity.type in ("Document", "Motion") and entity.detail.get("downloadUrl"):
        item["downloadUrl"] = entity.detail["downloadUrl"]
        if entity.pages:
            item["pageCount"] = len(entity.pages)
        page = query.page(entity) if entity.type == "Document" and not query.empty else None
        if page:
            item["matchedPage"] = page
    return item


def _governance_terms(query: str) -> list[str]:
    """web/search_api.ts expandDutchGovernanceTerms: the whole query, OR each stem word a governance compound ends
    in ("raadsvergadering" → also "raad", "vergadering"): any one alternative matching is a hit."""
    normalized = query.strip().lower()
    terms = [normalized]
    for word in normalized.split():
        if word.endswith("vergadering") and word != "vergadering":
            terms.append("vergadering")
        if word.endswith("besluitenlijst") and word != "besluitenlijst":
            terms.append("besluitenlijst")
        if word.endswith("raadsvergadering"):
            terms += ["raad", "vergadering"]
        if word.endswith("commissievergadering"):
            terms += ["commissie", "vergadering"]
    return list(dict.fromkeys(terms))


async def _entity(request: web.Request) -> web.Response:
    data = request.app[_DATA]
    entity_id = unquote(request.match_info["id"])
    entity = data.entities.get(entity_id)
    if entity is None:
        return _error(404, "entity_not_found", "Resultaat niet gevonden")
    return web.json_response({**_common(entity), **entity.detail})


def _state(org: _Org, anchor: date) -> dict[str, Any]:
    """A `/api/status` row (web/status_api.ts). No recording exists: dates are sample values around the anchor;
    agendas run ahead of today, and a failing organisation's latest content runs ahead of its last import."""
    ahead = int(hashlib.sha256(org.key.encode()).hexdigest(), 16) % 20
    ran = datetime.combine(anchor, dtime(0, 0, 24), UTC)
    row: dict[str, Any] = {"sourceKey": org.key, "sourceRef": org.ref, "label": org.label, "supplier": org.supplier,
                           "organizationType": org.kind}
    if org.cbs:
        row["cbsId"] = org.cbs
    latest = datetime.combine(anchor + timedelta(days=ahead), dtime(17, 30), UTC)
    if org.discontinued:
        code, label, key = org.successor or (None, "", None)
        row.update(state="discontinued", discontinuedAt=org.discontinued,
                   succeededBy={k: v for k, v in (("cbsId", code), ("label", label), ("sourceKey", key)) if v})
        latest = datetime.combine(date.fromisoformat(org.discontinued) - timedelta(days=10), dtime(17, 30), UTC)
    elif not org.implemented:  # Notubiz deactivated Dongen (catalog.data.ts, verified 2026-08-12)
        row.update(state="not_implemented")
        latest = datetime.combine(date(2026, 8, 12), dtime(17, 30), UTC)
    elif org.key in FAILING:
        success = ran - timedelta(days=FAILING[org.key])
        row.update(state="failing", lastSuccessAt=_iso(success), lastRunAt=_iso(ran), lastRunStatus="failed",
                   lastErrorMessage="De bron weigert verzoeken van deze server (403).")
    else:
        row.update(state="ok", lastSuccessAt=_iso(ran + timedelta(minutes=4)), lastRunAt=_iso(ran),
                   lastRunStatus="succeeded")
    row.update(latestContentDate=_iso(latest), lastIndexedAt=_iso(min(latest, ran + timedelta(minutes=3))))
    return row


def _recorded_state(org: _Org, data: _Dataset) -> dict[str, Any]:
    """A `/api/status` row holding only what the sample records: the catalog's state, the newest entity."""
    row: dict[str, Any] = {"sourceKey": org.key, "sourceRef": org.ref, "label": org.label, "supplier": org.supplier,
                           "organizationType": org.kind}
    if org.cbs:
        row["cbsId"] = org.cbs
    if org.discontinued:
        code, label, key = org.successor or (None, "", None)
        row.update(state="discontinued", discontinuedAt=org.discontinued,
                   succeededBy={k: v for k, v in (("cbsId", code), ("label", label), ("sourceKey", key)) if v})
    elif not org.implemented:
        row.update(state="not_implemented")
    newest = data.newest(org)
    if newest is not None:
        row["latestContentDate"] = _iso(newest)
    return row


def _iso(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.000Z")


_AGGREGATES = tuple({"key": f"all_{s}", "sourceRef": f"__supplier__:{s}", "label": f"Alle {label}-bronnen",
                     "supplier": s, "organizationType": "verzameling", "implemented": True, "isAggregate": True}
                    for s, label in sorted(_SUPPLIER_LABEL.items()))
_SOURCE_KEYS = frozenset([*(o.key for o in _ORGS), *(a["key"] for a in _AGGREGATES)])


async def _sources(request: web.Request) -> web.Response:
    only = request.query.get("implemented") == "true"
    rows = sorted(_ORGS, key=lambda o: (not o.implemented, o.label.lower()))  # as listAdminSourceOptions
    out = [*_AGGREGATES, *({"key": o.key, "sourceRef": o.ref, "label": o.label, "supplier": o.supplier,
                            "organizationType": o.kind, "implemented": o.implemented}
                           for o in rows if o.implemented or not only)]
    return web.json_response({"sources": out})


async def _status(request: web.Request) -> web.Response:
    data = request.app[_DATA]
    anchor = data.anchor if data.fixtures else date.fromisoformat(RECORDED_ON)
    generated = datetime.combine(anchor, dtime(9, 0), UTC)
    suppliers = [{"supplier": s, "label": label, "state": "ok",
                  "sourceCount": sum(o.supplier == s and o.implemented and not o.discontinued for o in _ORGS)}
                 for s, label in sorted(_SUPPLIER_LABEL.items())]
    blind = request.app[STATUS_FAULTS].get("index_down", False)
    rows = sorted((_state(o, anchor) if data.fixtures else _recorded_state(o, data) for o in _ORGS),
                  key=lambda r: r["label"].lower())
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


def create_app(anchor: date, *, fixtures: bool = False) -> web.Application:
    """The OpenBesluitvorming replica, at the real paths (`/api/...`); `fixtures`: see `_dataset` and `_status`."""
    app = web.Application(middlewares=[_rate_limit])
    app[_DATA] = _dataset(anchor, fixtures)
    app[RATE] = RateLimiter()
    app[STATUS_FAULTS] = {}
    app.router.add_get("/api/search", _search)
    app.router.add_get("/api/entities/{id}", _entity)
    app.router.add_get("/api/sources", _sources)
    app.router.add_get("/api/status", _status)
    app.router.add_get("/api/stats", _stats)
    app.router.add_route("*", "/{tail:.*}", _not_found)
    return app

