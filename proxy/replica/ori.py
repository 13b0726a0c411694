"""Replica of the Open Raadsinformatie Elasticsearch 7 endpoint, `https://api.openraadsinformatie.nl/v1/elastic/`.

API docs: https://github.com/openstate/open-raadsinformatie/blob/master/API-docs.md (the nginx rules in
`deployment/nginx/default.conf`); the query language is Elasticsearch 7's
(https://www.elastic.co/guide/en/elasticsearch/reference/7.17/search-search.html).

Sample data (deterministic, dated relative to `anchor`): 38 organisations, one index each named
`<ori|osi|owi>_<slug>_<timestamp>` with the alias `<prefix>_<slug>` and irregular slugs as on the real
host (`ori_den_bosch`, `ori_hofvantwente`, `osi_provincie-utrecht`, `owi_aa-en-maas`, ...): 30 gemeenten
(one of them the Amsterdam stadsdeel `ori_amsterdam_centrum`, which has no Organization record), 4
provincies and 4 waterschappen, plus Heemskerk's older unaliased index beside its current one. Each index
holds its `Organization` and `Committee` records, about one `Meeting` a week from a year back to eight
weeks ahead (summer recess left out), their `AgendaItem`s and `MediaObject` documents with page texts:
over 2,000 documents and more than 10,000 records in all. The five real hits of the recorded ORI response
(`data/ori/seed_hits.json`) are included unchanged, with their meetings and agenda items rebuilt around
their `isReferencedBy` ids. Stalled (newest meeting more than 60 days before `anchor`): Hof van Twente
(400 days), Hardinxveld-Giessendam (130), Waterschap Aa en Maas (75) and the old Heemskerk index (2019);
Noordoostpolder (50 days) is close to the line but not stalled. One Utrecht motion and agenda item carry
`<script>` and `<img onerror>` payloads in their titles and text (search "beeldmerk").

Supported requests (the real nginx lets GET/HEAD through except `*_cluster*`/`*_shutdown*`, and POST only
to `*_search`/`*_msearch`; everything else is an nginx 403 page, as here):

* `GET /_aliases`, `GET /_cat/indices[/{indices}]` (`format=json`, `h=`), `GET /{index}`,
  `GET /{indices}/_mapping`, `GET /{index}/_doc/{id}`, `GET /{indices}/_count`,
  `GET|POST /[{indices}/]_search`, `POST /[{indices}/]_msearch`.
* `{indices}`: comma lists, `*` wildcards, aliases, `-exclusions`; a missing name is a 404
  `index_not_found_exception` unless `ignore_unavailable=true` (then `_shards.total` drops);
  `allow_no_indices`.
* Body keys: `query`, `post_filter`, `size`, `from` (`from + size > 10000` is the ES 400 of
  `max_result_window`), `_source` (false, a list, `includes`/`excludes`, wildcards), `sort` (`_score`,
  `_id`, `_index`, keyword/date/number fields, `order`, `missing`, `unmapped_type`; text fields are a 400
  as in ES), `search_after`, `track_total_hits` (default 10,000: `relation: "gte"` above it), `timeout`,
  `aggs` (`terms`, `max`, `min`, `filter`, nested), `highlight` (`fields`, `fragment_size`,
  `number_of_fragments`, `no_match_size`, `pre_tags`/`post_tags`). Unknown body keys and query types are
  the ES 400 `parsing_exception`. URL parameters `q`, `size`, `from`, `sort`, `_source`.
* Queries: `bool` (`must`, `filter`, `should`, `must_not`, `minimum_should_match`), `match_all`, `term`,
  `terms`, `ids`, `exists`, `range` (dates with `now`, `||` date math, `/d` rounding, `format`,
  `time_zone`; a date-only value without `format` is the ES 400, as the real date fields are
  `strict_date_time`), `match`, `match_phrase`, `simple_query_string` (`"phrases"`, `-not`, `|`, `+`,
  `prefix*`, `fields` with `^boost`, `default_operator`) and `query_string` (the same plus `AND`/`OR`/`NOT`
  and `field:value`). Text is matched with a small Dutch analyser (case and accent folding, stop words,
  plural endings) and scored by term frequency: close to, not the same as, ES scoring.

Test hooks on the replica app: `REQUESTS` (every request seen: method, path, query, headers, body) and
`SHARD_FAILURES` (concrete indices whose shard fails, to produce `_shards.failed`).
"""

from __future__ import annotations

import fnmatch
import functools
import itertools
import json
import math
import random
import re
import time
import unicodedata
import zlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from datetime import time as dtime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from aiohttp import web

__all__ = ["REQUESTS", "SHARD_FAILURES", "create_app"]

REQUESTS = web.AppKey("ori_requests", list[dict[str, Any]])
SHARD_FAILURES = web.AppKey("ori_shard_failures", set[str])

DATA_FILE = Path(__file__).resolve().parent / "data" / "ori" / "seed_hits.json"
TZ = ZoneInfo("Europe/Amsterdam")
MAX_RESULT_WINDOW = 10_000
DEFAULT_TRACK_TOTAL_HITS = 10_000
LONG_MAX = 9_223_372_036_854_775_807
LONG_MIN = -9_223_372_036_854_775_808
RESOLVER = "https://api.openraadsinformatie.nl/v1/resolve"
COMPLETED = "https://argu.co/ns/meeting/EventCompleted"
CONFIRMED = "https://argu.co/ns/meeting/EventConfirmed"
CANCELLED = "http://schema.org/EventCancelled"


# =========================================================================== sample data: organisations


@dataclass(frozen=True, slots=True)
class _OrgSpec:
    prefix: str  # ori | osi | owi
    slug: str
    name: str | None  # None: no Organization record (an Amsterdam stadsdeel)
    supplier: str  # notubiz | ibabs | go: decides what the document links look like
    stalled_days: int | None = None  # newest meeting this many days before the anchor
    index: str | None = None  # concrete index name, when the fixture fixes it
    org_id: str | None = None
    host: str | None = None  # the council system's own host (supplier "go")
    aliased: bool = True
    window: tuple[date, date] | None = None  # fixed meeting window (the old unaliased index)

    @property
    def alias(self) -> str:
        return f"{self.prefix}_{self.slug}"


_ORGS: tuple[_OrgSpec, ...] = (
    _OrgSpec("ori", "amsterdam", "Gemeente Amsterdam", "notubiz", index="ori_amsterdam_20190809125033", org_id="34"),
    _OrgSpec("ori", "krimpen_ad_ijssel", "Gemeente Krimpen aan den IJssel", "notubiz",
             index="ori_krimpen_ad_ijssel_20190809125113", org_id="58"),
    _OrgSpec("ori", "zeist", "Gemeente Zeist", "notubiz", index="ori_zeist_20190809125053", org_id="7"),
    _OrgSpec("ori", "amsterdam_centrum", None, "notubiz"),
    _OrgSpec("ori", "utrecht", "Gemeente Utrecht", "ibabs"),
    _OrgSpec("ori", "delft", "Gemeente Delft", "ibabs"),
    _OrgSpec("ori", "den_haag", "Gemeente Den Haag", "notubiz"),
    _OrgSpec("ori", "den_bosch", "Gemeente 's-Hertogenbosch", "ibabs"),
    _OrgSpec("ori", "capelle_ad_ijssel", "Gemeente Capelle aan den IJssel", "notubiz"),
    _OrgSpec("ori", "hofvantwente", "Gemeente Hof van Twente", "ibabs", stalled_days=400),
    _OrgSpec("ori", "heemskerk", "Gemeente Heemskerk", "notubiz"),
    _OrgSpec("ori", "heemskerk", "Gemeente Heemskerk", "notubiz", index="ori_heemskerk_20190612093015",
             aliased=False, window=(date(2018, 10, 2), date(2019, 6, 5))),
    _OrgSpec("ori", "rotterdam", "Gemeente Rotterdam", "ibabs"),
    _OrgSpec("ori", "groningen", "Gemeente Groningen", "notubiz"),
    _OrgSpec("ori", "nijmegen", "Gemeente Nijmegen", "notubiz"),
    _OrgSpec("ori", "eindhoven", "Gemeente Eindhoven", "ibabs"),
    _OrgSpec("ori", "haarlem", "Gemeente Haarlem", "notubiz"),
    _OrgSpec("ori", "leiden", "Gemeente Leiden", "notubiz"),
    _OrgSpec("ori", "almere", "Gemeente Almere", "ibabs"),
    _OrgSpec("ori", "arnhem", "Gemeente Arnhem", "notubiz"),
    _OrgSpec("ori", "enschede", "Gemeente Enschede", "ibabs"),
    _OrgSpec("ori", "tilburg", "Gemeente Tilburg", "ibabs"),
    _OrgSpec("ori", "zwolle", "Gemeente Zwolle", "notubiz"),
    _OrgSpec("ori", "maastricht", "Gemeente Maastricht", "notubiz"),
    _OrgSpec("ori", "sudwest_fryslan", "Gemeente Súdwest-Fryslân", "ibabs"),
    _OrgSpec("ori", "bergen_nh", "Gemeente Bergen (NH)", "notubiz"),
    _OrgSpec("ori", "noordoostpolder", "Gemeente Noordoostpolder", "ibabs", stalled_days=50),
    _OrgSpec("ori", "westland", "Gemeente Westland", "ibabs"),
    _OrgSpec("ori", "hardinxveld-giessendam", "Gemeente Hardinxveld-Giessendam", "go", stalled_days=130,
             host="raad.hardinxveld-giessendam.nl"),
    _OrgSpec("ori", "goeree-overflakkee", "Gemeente Goeree-Overflakkee", "go", host="raad.goeree-overflakkee.nl"),
    _OrgSpec("ori", "utrechtse_heuvelrug", "Gemeente Utrechtse Heuvelrug", "notubiz"),
    _OrgSpec("osi", "provincie-utrecht", "Provincie Utrecht", "ibabs"),
    _OrgSpec("osi", "noord-holland", "Provincie Noord-Holland", "notubiz"),
    _OrgSpec("osi", "gelderland", "Provincie Gelderland", "ibabs"),
    _OrgSpec("osi", "zuid-holland", "Provincie Zuid-Holland", "ibabs"),
    _OrgSpec("owi", "hoogheemraadschap_van_delfland", "Hoogheemraadschap van Delfland", "ibabs"),
    _OrgSpec("owi", "aa-en-maas", "Waterschap Aa en Maas", "notubiz", stalled_days=75),
    _OrgSpec("owi", "wetterskip_fryslan", "Wetterskip Fryslân", "ibabs"),
    _OrgSpec("owi", "rijnland", "Hoogheemraadschap van Rijnland", "notubiz"),
)

_CLASSIFICATION = {"ori": "Municipality", "osi": "Province", "owi": "Water board"}
_COMMITTEES = {
    "ori": ("Gemeenteraad", "Commissie Ruimte", "Commissie Bestuur en Middelen", "Commissie Samenleving"),
    "osi": ("Provinciale Staten", "Statencommissie Ruimte en Landschap",
            "Statencommissie Bestuur, Economie en Middelen"),
    "owi": ("Algemeen Bestuur", "Commissie Watersysteem", "Commissie Waterketen en Bedrijfsvoering"),
}
_ROOM = {"ori": "Raadzaal", "osi": "Statenzaal", "owi": "Vergaderzaal waterschapshuis"}
_HOUR = {"ori": (19, 30), "osi": (10, 0), "owi": (14, 0)}
_PROPOSAL = {"ori": "Raadsvoorstel", "osi": "Statenvoorstel", "owi": "Voorstel aan het algemeen bestuur"}
_DECISION = {"ori": "Raadsbesluit", "osi": "Statenbesluit", "owi": "Besluit algemeen bestuur"}
_LETTER = {"ori": "Raadsinformatiebrief", "osi": "Statenbrief", "owi": "Informatiememo"}
_TOPICS = {
    "ori": ("warmtenet", "bedrijventerrein", "woningbouw op de stationslocatie", "Omgevingsvisie",
            "Regionale Energiestrategie", "jeugdzorg", "Wmo-voorzieningen", "begroting", "voorjaarsnota",
            "jaarrekening", "afvalinzameling", "parkeerbeleid", "fietsstraten", "windturbines", "zonneparken",
            "huisvesting statushouders", "asielopvang", "armoedebeleid", "sportaccommodaties", "bibliotheek",
            "cameratoezicht", "erfgoed en monumenten", "groenbeleid", "speelruimte", "centrumplan"),
    "osi": ("stikstof", "Regionale Energiestrategie", "openbaar vervoer", "natuurnetwerk", "provinciale wegen",
            "Omgevingsverordening", "begroting", "jaarrekening", "zonneparken", "windturbines", "grondwater",
            "cultuurhistorie", "fietssnelwegen", "woningbouwafspraken"),
    "owi": ("dijkversterking", "waterkwaliteit", "zuiveringsbeheer", "peilbesluit", "maaibeleid",
            "waterschapsbelasting", "klimaatadaptatie", "droogte", "muskusrattenbestrijding", "begroting",
            "jaarrekening", "rioolwaterzuivering", "Kaderrichtlijn Water"),
}
_PARTIES = {
    "ori": ("VVD", "D66", "GroenLinks-PvdA", "CDA", "SP", "ChristenUnie", "PvdD", "Lokaal Belang", "JA21"),
    "osi": ("BBB", "VVD", "GroenLinks-PvdA", "D66", "CDA", "PVV", "ChristenUnie", "PvdD"),
    "owi": ("Water Natuurlijk", "AWP", "Waterschapspartij", "VVD", "CDA", "BBB"),
}
_SENTENCES = (
    "Het college stelt voor om {topic} in {year} verder uit te werken en de raad daarover te informeren.",
    "De kosten voor {topic} worden geraamd op € {amount} miljoen, te dekken uit de algemene reserve.",
    "In de {committee} van {day} is {topic} uitgebreid besproken met insprekers uit de wijk.",
    "De fractie van {party} vraagt het college om een evaluatie van {topic} voor het zomerreces.",
    "Met dit voorstel geeft {org} invulling aan de afspraken uit het coalitieakkoord over {topic}.",
    "De gevolgen voor inwoners en ondernemers zijn in beeld gebracht in een participatieverslag.",
    "Wij verzoeken u in te stemmen met het beschikbaar stellen van een krediet voor {topic}.",
    "Uit de monitor blijkt dat de doelen voor {topic} in {year} nog niet volledig zijn gehaald.",
    "De motie van {party} over {topic} is met een ruime meerderheid aangenomen.",
    "Bijgevoegd treft u de planning aan; het besluit wordt in het derde kwartaal verwacht.",
    "Over {topic} is overleg gevoerd met de buurgemeenten, de provincie en het waterschap.",
    "De risico's zijn beschreven in de paragraaf weerstandsvermogen en risicobeheersing.",
    "Het amendement van {party} beoogt de ambitie voor {topic} te verhogen.",
    "De inspraakreacties zijn verwerkt in de nota van beantwoording bij dit voorstel.",
    "Het college beantwoordt de schriftelijke vragen van {party} over {topic} als volgt.",
)
_MONTHS = ("januari", "februari", "maart", "april", "mei", "juni", "juli", "augustus", "september", "oktober",
           "november", "december")
_XSS_TITLE = "Motie vreemd aan de orde: nieuw beeldmerk <script>alert(1)</script> <img src=x onerror=alert(1)>"
_XSS_TEXT = ("Motie over het nieuwe beeldmerk van de gemeente. <script>alert(1)</script> De raad verzoekt het "
             "college het beeldmerk <img src=x onerror=alert(1)> niet in te voeren zonder participatie.")
# The recorded documents point at these agenda items; the replica rebuilds them around those ids.
_SEED_AGENDA = {
    "51032": "15. Vaststellen stedelijk kader 2020-2023 Samen Vooruit: op weg naar een stevige sociale basis",
    "38132": "7. Speelruimtebeleidsplan 2018-2022",
    "32327": "3. Ronde Tafel Lyceumkwartier (VSL 77 / Socrateslaan)",
}


# =========================================================================== sample data: records


class _Doc:
    """One Elasticsearch document: its index, id and `_source`, with analysed text cached."""

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


@dataclass(slots=True)
class _IndexInfo:
    name: str
    aliases: tuple[str, ...]
    created: datetime
    docs: list[_Doc] = field(default_factory=list)


@dataclass(slots=True)
class _Dataset:
    anchor: date
    indices: dict[str, _IndexInfo]
    by_id: dict[str, list[_Doc]]

    def alias_map(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for info in self.indices.values():
            for alias in info.aliases:
                out.setdefault(alias, []).append(info.name)
        return out


class _Builder:
    """Generates one organisation's records; ids come from one sequence across all indices, as in ORI."""

    def __init__(self, anchor: date) -> None:
        self.anchor = anchor
        self.rng = random.Random(20240131)
        self.ids = itertools.count(4_100_000)
        self.indices: dict[str, _IndexInfo] = {}
        self._order = itertools.count()

    def next_id(self) -> str:
        return str(next(self.ids))

    def add(self, index: str, source: dict[str, Any]) -> dict[str, Any]:
        doc = _Doc(index, source["@id"], source, next(self._order))
        self.indices[index].docs.append(doc)
        return source

    def org(self, spec: _OrgSpec) -> None:
        rng = self.rng
        created = datetime(2023, 1, 1, tzinfo=UTC) + timedelta(seconds=rng.randrange(3 * 365 * 86400))
        index = spec.index or f"{spec.alias}_{created:%Y%m%d%H%M%S}"
        if spec.index:
            created = datetime.strptime(spec.index.rsplit("_", 1)[1], "%Y%m%d%H%M%S").replace(tzinfo=UTC)
        self.indices[index] = _IndexInfo(index, (spec.alias,) if spec.aliased else (), created)
        org_id = spec.org_id or self.next_id()
        org_name = spec.name or spec.slug.replace("_", " ").title()
        if spec.name:
            self.add(index, {"@id": org_id, "@type": "Organization", "name": spec.name,
                             "classification": _CLASSIFICATION[spec.prefix], "collection": spec.slug,
                             "homepage": f"https://www.{spec.slug.replace('_', '')}.nl",
                             "has_organization_name": org_id})
        committees = []
        for name in _COMMITTEES[spec.prefix]:
            committee_id = self.next_id()
            committees.append((committee_id, name))
            self.add(index, {"@id": committee_id, "@type": "Committee", "name": name, "subOrganizationOf": org_id,
                             "has_organization_name": org_id})
        for i, day in enumerate(self._meeting_days(spec)):
            committee = committees[0] if i % 2 == 0 else committees[1 + (i // 2) % (len(committees) - 1)]
            self.meeting(spec, index, org_id, org_name, committee, day, besluitenlijst=i % 8 == 0)

    def _meeting_days(self, spec: _OrgSpec) -> list[date]:
        rng = self.rng
        if spec.window:
            start, stop = spec.window
        else:
            stop = self.anchor - timedelta(days=spec.stalled_days) if spec.stalled_days else \
                self.anchor + timedelta(days=56)
            start = min(self.anchor - timedelta(days=365), stop - timedelta(days=180))
        days = []
        day = start + timedelta(days=rng.randrange(7))
        while day < stop:
            if not _recess(day):
                days.append(day)
            day += timedelta(days=rng.choice((5, 6, 7, 7, 8, 9)))
        if spec.stalled_days or spec.window:
            days.append(stop)  # a stalled organisation's last meeting falls exactly on its stall date
        return days

    def meeting(self, spec: _OrgSpec, index: str, org_id: str, org_name: str, committee: tuple[str, str],
                day: date, *, besluitenlijst: bool) -> None:
        rng = self.rng
        hour, minute = _HOUR[spec.prefix]
        if committee[1].startswith(("Commissie", "Statencommissie")):
            hour, minute = (20, 0) if spec.prefix == "ori" else (hour, minute)
        start = datetime.combine(day, dtime(hour, minute), TZ)
        past = day < self.anchor
        status = COMPLETED if past else (CANCELLED if rng.random() < 0.04 else CONFIRMED)
        meeting_id = self.next_id()
        items: list[str] = []
        attachments: list[str] = []
        self.add(index, {
            "@id": meeting_id, "@type": "Meeting", "name": committee[1], "start_date": _iso(start),
            "end_date": _iso(start + timedelta(hours=rng.choice((2, 3, 4)))), "last_discussed_at": _iso(start),
            "location": _ROOM[spec.prefix], "status": status, "committee": committee[0], "organization": org_id,
            "classification": ["Agenda"], "agenda": {"@list": items}, "attachment": attachments,
            "has_organization_name": org_id,
        })
        titles = ["Opening en mededelingen", "Vaststellen van de agenda"]
        topics = rng.sample(_TOPICS[spec.prefix], rng.randint(2, 5))
        kinds = []
        for topic in topics:
            kind = rng.choice(("proposal", "proposal", "discussion", "letter"))
            kinds.append((kind, topic))
            titles.append({"proposal": f"{_PROPOSAL[spec.prefix]} {topic}", "discussion": f"Bespreking {topic}",
                           "letter": f"{_LETTER[spec.prefix]} {topic}"}[kind])
        titles += ["Rondvraag", "Sluiting"]
        for position, title in enumerate(titles, start=1):
            item_id = self.next_id()
            items.append(item_id)
            docs: list[str] = []
            self.add(index, {"@id": item_id, "@type": "AgendaItem", "name": f"{position}. {title}",
                             "position": float(position), "parent": meeting_id, "start_date": _iso(start),
                             "last_discussed_at": _iso(start), "attachment": docs, "has_organization_name": org_id})
            if 2 < position <= 2 + len(kinds) and rng.random() < 0.3:
                kind, topic = kinds[position - 3]
                docs.append(self.document(spec, index, org_id, org_name, committee[1], start, item_id, kind, topic))
        if besluitenlijst and past:
            attachments.append(self.document(spec, index, org_id, org_name, committee[1], start, meeting_id,
                                              "decisions", committee[1]))

    def document(self, spec: _OrgSpec, index: str, org_id: str, org_name: str, committee: str, start: datetime,
                 referenced_by: str, kind: str, topic: str) -> str:
        rng = self.rng
        party = rng.choice(_PARTIES[spec.prefix])
        p = spec.prefix
        names = {
            "proposal": (f"{_PROPOSAL[p]} {topic}", f"{_DECISION[p]} {topic}", f"Bijlage 1 - {topic}",
                         f"Motie {rng.randint(1, 40)} - {topic} ({party})",
                         f"Amendement {rng.randint(1, 20)} - {topic} ({party})"),
            "discussion": (f"Notitie {topic}", f"Presentatie {topic}",
                           f"Beantwoording schriftelijke vragen {party} over {topic}"),
            "letter": (f"{_LETTER[p]} {topic}",),
            "decisions": (f"Besluitenlijst {committee} {start.day} {_MONTHS[start.month - 1]} {start.year}",),
        }[kind]
        name = rng.choice(names)
        doc_id = self.next_id()
        url, original = self._links(spec, doc_id)
        words = {"topic": topic, "org": org_name, "party": party, "committee": committee, "year": start.year,
                 "day": f"{start.day} {_MONTHS[start.month - 1]}",
                 "amount": f"{rng.randint(1, 90)},{rng.randint(0, 9)}"}
        header = f"{org_name}\n{name}\n{start.day} {_MONTHS[start.month - 1]} {start.year}\n"
        pages = []
        for page in range(rng.randint(1, 4)):
            sentences = " ".join(t.format(**words) for t in rng.sample(_SENTENCES, rng.randint(5, 9)))
            pages.append((header if page == 0 else "") + sentences)
        modified = start - timedelta(days=rng.randint(3, 12), hours=rng.randint(0, 8))
        self.add(index, {
            "@id": doc_id, "@type": "MediaObject", "name": name, "file_name": f"{name}.pdf", "url": url,
            "original_url": original, "content_type": "application/pdf",
            "size_in_bytes": rng.randint(20_000, 3_000_000), "date_modified": _iso(modified),
            "last_discussed_at": _iso(start), "is_referenced_by": referenced_by, "text": pages,
            "has_organization_name": org_id,
        })
        return doc_id

    def _links(self, spec: _OrgSpec, doc_id: str) -> tuple[str, str]:
        if spec.supplier == "ibabs":
            a, b, c, d, e = (self.rng.getrandbits(bits) for bits in (32, 16, 16, 16, 48))
            guid = f"{a:08x}-{b:04x}-{c:04x}-{d:04x}-{e:012x}"
            return (f"{RESOLVER}/ibabs/agenda_item/{guid}",
                    f"https://api1.ibabs.eu/publicdownload.aspx?site={spec.slug.replace('_', '')}&id={guid}")
        if spec.supplier == "go":
            path = f"Documenten/{doc_id}.pdf"
            return f"{RESOLVER}/{spec.host}/{path}", f"https://{spec.host}/{path}"
        number = 13_000_000 + int(doc_id) % 1_000_000
        return f"{RESOLVER}/api.notubiz.nl/document/{number}", f"https://api.notubiz.nl/document/{number}/1"

    def xss(self) -> None:
        """A Utrecht motion and agenda item whose titles carry script payloads (the site must keep them inert)."""
        index = next(name for name, info in self.indices.items() if "ori_utrecht" in info.aliases)
        org_id = next(d.id for d in self.indices[index].docs if d.source["@type"] == "Organization")
        start = datetime.combine(self.anchor - timedelta(days=3), dtime(19, 30), TZ)
        meeting_id, item_id, doc_id = self.next_id(), self.next_id(), self.next_id()
        self.add(index, {"@id": meeting_id, "@type": "Meeting", "name": "Gemeenteraad", "start_date": _iso(start),
                         "end_date": _iso(start + timedelta(hours=3)), "last_discussed_at": _iso(start),
                         "location": "Raadzaal", "status": COMPLETED, "organization": org_id,
                         "classification": ["Agenda"], "agenda": {"@list": [item_id]}, "attachment": [],
                         "has_organization_name": org_id})
        self.add(index, {"@id": item_id, "@type": "AgendaItem", "name": f"12. {_XSS_TITLE}", "position": 12.0,
                         "parent": meeting_id, "start_date": _iso(start), "last_discussed_at": _iso(start),
                         "attachment": [doc_id], "has_organization_name": org_id})
        self.add(index, {"@id": doc_id, "@type": "MediaObject", "name": _XSS_TITLE, "file_name": "motie-beeldmerk.pdf",
                         "url": f"{RESOLVER}/ibabs/agenda_item/{doc_id}",
                         "original_url": f"https://api1.ibabs.eu/publicdownload.aspx?site=utrecht&id={doc_id}",
                         "content_type": "application/pdf", "size_in_bytes": 48_213,
                         "date_modified": _iso(start - timedelta(days=1)), "last_discussed_at": _iso(start),
                         "is_referenced_by": item_id, "text": [_XSS_TEXT], "has_organization_name": org_id})

    def seeds(self) -> None:
        """The real recorded hits, unchanged, plus the meetings and agenda items they point at."""
        groups: dict[str, list[dict[str, Any]]] = {}
        for hit in json.loads(DATA_FILE.read_text(encoding="utf-8"))["hits"]:
            groups.setdefault(hit["_source"]["isReferencedBy"], []).append(hit)
        for item_id, members in groups.items():
            first = members[0]
            index, source = first["_index"], first["_source"]
            org_id = source["has_organization_name"]
            start = datetime.fromisoformat(source["last_discussed_at"])
            meeting_id = self.next_id()
            doc_ids = [h["_id"] for h in members]
            self.add(index, {"@id": meeting_id, "@type": "Meeting", "name": "Gemeenteraad", "start_date": _iso(start),
                             "end_date": _iso(start + timedelta(hours=8)), "last_discussed_at": _iso(start),
                             "location": "Raadzaal", "status": COMPLETED, "organization": org_id,
                             "classification": ["Agenda"], "agenda": {"@list": [item_id]}, "attachment": [],
                             "has_organization_name": org_id})
            self.add(index, {"@id": item_id, "@type": "AgendaItem", "name": _SEED_AGENDA[item_id],
                             "position": float(_SEED_AGENDA[item_id].split(".")[0]), "parent": meeting_id,
                             "start_date": _iso(start), "last_discussed_at": _iso(start), "attachment": doc_ids,
                             "has_organization_name": org_id})
            for hit in members:
                self.add(hit["_index"], hit["_source"])


def _recess(day: date) -> bool:
    return (day.month == 7 and day.day >= 20) or (day.month == 8 and day.day <= 20)


def _iso(moment: datetime) -> str:
    return moment.isoformat(timespec="seconds")


@functools.lru_cache(maxsize=4)
def _dataset(anchor: date) -> _Dataset:
    """The sample data for one anchor date; built once per process (it is never changed afterwards)."""
    builder = _Builder(anchor)
    for spec in _ORGS:
        builder.org(spec)
    builder.seeds()
    builder.xss()
    builder.indices[".kibana_1"] = _IndexInfo(".kibana_1", (".kibana",), datetime(2019, 8, 9, tzinfo=UTC))
    by_id: dict[str, list[_Doc]] = {}
    for info in builder.indices.values():
        for doc in info.docs:
            by_id.setdefault(doc.id, []).append(doc)
    return _Dataset(anchor=anchor, indices=builder.indices, by_id=by_id)


# =========================================================================== text analysis

_WORD = re.compile(r"\w+")
_STOP_WORDS = frozenset((
    "aan", "al", "alles", "als", "dan", "dat", "de", "der", "des", "die", "dit", "door", "een", "en", "er", "het",
    "hij", "hoe", "hun", "ik", "in", "is", "je", "kan", "me", "met", "na", "naar", "niet", "nog", "nu", "of", "om",
    "omdat", "ook", "op", "over", "te", "tot", "u", "uit", "van", "veel", "voor", "was", "wat", "we", "wel", "wie",
    "zal", "ze", "zich", "zij", "zijn", "zo", "zou",
))
# The fields the ORI template maps (es_mappings/ori_template.json), as far as the replica uses them.
_MAPPING: dict[str, str] = {
    "@id": "keyword", "@type": "keyword", "name": "text", "text": "text", "md_text": "text", "title": "text",
    "description": "text", "location": "text", "classification": "text", "file_name": "keyword",
    "url": "keyword", "original_url": "keyword", "content_type": "keyword", "size_in_bytes": "long",
    "date_modified": "date", "last_discussed_at": "date", "start_date": "date", "end_date": "date",
    "has_organization_name": "keyword", "status": "keyword", "position": "float", "parent": "keyword",
    "committee": "keyword", "organization": "keyword", "attachment": "keyword", "is_referenced_by": "keyword",
    "isReferencedBy": "keyword", "collection": "keyword", "homepage": "keyword", "subOrganizationOf": "keyword",
    "agenda": "keyword", "_id": "keyword", "_index": "keyword",
}
_TEXT_FIELDS = tuple(name for name, kind in _MAPPING.items() if kind == "text")


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
    return [_stem(w) for w in _WORD.findall(_fold(text)) if w not in _STOP_WORDS]


def _field_type(name: str) -> str | None:
    if name.endswith(".keyword") and _MAPPING.get(name[:-8]) == "text":
        return "keyword"
    return _MAPPING.get(name)


# =========================================================================== errors


class _EsError(Exception):
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


def _parsing(reason: str) -> _EsError:
    return _EsError(400, "parsing_exception", reason, line=1, col=1)


def _text_field_error(name: str) -> _EsError:
    return _EsError(400, "illegal_argument_exception",
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
            raise _EsError(400, "parse_exception", f"failed to parse date field [{anchor_text}] with format "
                           f"[strict_date_time]: [failed to parse date field [{anchor_text}] with format "
                           "[strict_date_time]]", index=field_name)
        try:
            parsed = datetime.fromisoformat(anchor_text.replace("Z", "+00:00"))
        except ValueError as exc:
            raise _EsError(400, "parse_exception", f"failed to parse date field [{anchor_text}] with format "
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

Matcher = Callable[[_Doc], float | None]


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
    terms: list[_Clause] = field(default_factory=list)  # positive clauses, for highlighting


def _compile(query: Any, ctx: _QueryContext) -> Matcher:
    if not isinstance(query, dict) or len(query) != 1:
        raise _parsing("[_na] query malformed, must start with start_object")
    kind, spec = next(iter(query.items()))
    builder = _QUERIES.get(kind)
    if builder is None:
        raise _parsing(f"unknown query [{kind}]")
    return builder(spec, ctx)


def _single(spec: Any, kind: str) -> tuple[str, Any]:
    if not isinstance(spec, dict) or not spec:
        raise _parsing(f"[{kind}] query malformed, no start_object after query name")
    items = [(k, v) for k, v in spec.items() if k not in ("boost", "_name")]
    if len(items) != 1:
        raise _parsing(f"[{kind}] query doesn't support multiple fields, found [{items[0][0]}] and [{items[1][0]}]")
    return items[0]


def _q_match_all(spec: Any, ctx: _QueryContext) -> Matcher:
    return lambda doc: 1.0


def _q_bool(spec: Any, ctx: _QueryContext) -> Matcher:
    if not isinstance(spec, dict):
        raise _parsing("[bool] query malformed")
    unknown = set(spec) - {"must", "filter", "should", "must_not", "minimum_should_match", "boost"}
    if unknown:
        raise _parsing(f"[bool] query does not support [{sorted(unknown)[0]}]")

    def clauses(key: str) -> list[Matcher]:
        value = spec.get(key, [])
        return [_compile(q, ctx) for q in (value if isinstance(value, list) else [value])]

    filters, must_not = clauses("filter"), clauses("must_not")
    must, should = clauses("must"), clauses("should")
    minimum_spec = str(spec.get("minimum_should_match", 0 if (must or filters) else 1))
    minimum = math.ceil(len(should) * int(minimum_spec[:-1]) / 100) if minimum_spec.endswith("%") \
        else int(minimum_spec)

    def matcher(doc: _Doc) -> float | None:
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


def _keyword_values(doc: _Doc, name: str) -> list[str]:
    kind = _field_type(name)
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
    return lambda doc: 1.0 if wanted in _keyword_values(doc, name) else None


def _q_terms(spec: Any, ctx: _QueryContext) -> Matcher:
    name, values = _single(spec, "terms")
    if not isinstance(values, list):
        raise _parsing("[terms] query does not support lookups in the replica")
    wanted = {str(v) for v in values}
    return lambda doc: 1.0 if wanted.intersection(_keyword_values(doc, name)) else None


def _q_ids(spec: Any, ctx: _QueryContext) -> Matcher:
    values = spec.get("values") if isinstance(spec, dict) else None
    if not isinstance(values, list):
        raise _parsing("[ids] query malformed, no values")
    wanted = {str(v) for v in values}
    return lambda doc: 1.0 if doc.id in wanted else None


def _q_exists(spec: Any, ctx: _QueryContext) -> Matcher:
    name = spec.get("field") if isinstance(spec, dict) else None
    if not name:
        raise _parsing("[exists] must be provided with a [field]")
    return lambda doc: 1.0 if doc.values(name) else None


def _q_range(spec: Any, ctx: _QueryContext) -> Matcher:
    name, bounds = _single(spec, "range")
    if not isinstance(bounds, dict):
        raise _parsing("[range] query malformed")
    kind = _field_type(name)
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

    def matcher(doc: _Doc) -> float | None:
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
        raise _parsing("[simple_query_string] requires query value")
    groups = _parse_text_query(str(spec["query"]), str(spec.get("default_operator", "or")).lower(), boolean=False)
    return _text_matcher(groups, _fields(spec.get("fields", ["*"])), ctx)


def _q_query_string(spec: Any, ctx: _QueryContext) -> Matcher:
    if not isinstance(spec, dict) or "query" not in spec:
        raise _parsing("[query_string] requires query value")
    fields = spec.get("fields") or [spec.get("default_field", "*")]
    groups = _parse_text_query(str(spec["query"]), str(spec.get("default_operator", "or")).lower(), boolean=True)
    return _text_matcher(groups, _fields(fields), ctx)


def _fields(specs: Iterable[str]) -> list[tuple[str, float]]:
    out = []
    for spec in specs:
        name, _, boost = str(spec).partition("^")
        names = [f for f in _TEXT_FIELDS if fnmatch.fnmatchcase(f, name)] if "*" in name else [name]
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


def _clause_score(clause: _Clause, doc: _Doc, fields: list[tuple[str, float]]) -> float | None:
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
    keyword_fields = [name for name, _ in fields if _field_type(name) not in (None, "text")]

    def matcher(doc: _Doc) -> float | None:
        if keyword_exact is not None and keyword_fields:
            return 1.0 if any(keyword_exact in _keyword_values(doc, n) for n in keyword_fields) else None
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


def _sort_keys(spec: Any) -> list[_SortKey]:
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
            raise _parsing("malformed sort")
        order = str(options.get("order", "desc" if name == "_score" else "asc")).lower()
        kind = "score" if name == "_score" else _field_type(name)
        if kind == "text":
            raise _text_field_error(name)
        if kind is None:
            if "unmapped_type" not in options:
                raise _EsError(400, "query_shard_exception", f"No mapping found for [{name}] in order to sort on")
            kind = options["unmapped_type"]
        keys.append(_SortKey(name, order == "desc", options.get("missing") == "_first", kind))
    return keys


def _sort_value(doc: _Doc, key: _SortKey, score: float) -> Any:
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


def _pass_key(row: tuple[_Doc, float, list[Any]], *, position: int, key: _SortKey) -> tuple[bool, Any]:
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


def _aggregate(spec: Any, docs: list[_Doc], ctx: _QueryContext) -> dict[str, Any]:
    if not isinstance(spec, dict):
        raise _parsing("Expected [START_OBJECT] under [aggs]")
    out: dict[str, Any] = {}
    for name, body in spec.items():
        if not isinstance(body, dict):
            raise _parsing(f"Expected [START_OBJECT] under [{name}]")
        subs = body.get("aggs", body.get("aggregations"))
        kinds = [k for k in body if k not in ("aggs", "aggregations", "meta")]
        if len(kinds) != 1:
            raise _parsing(f"Expected exactly one aggregation type for [{name}]")
        kind = kinds[0]
        options = body[kind]
        if kind == "terms":
            result = _agg_terms(options, docs, subs, ctx)
        elif kind in ("max", "min"):
            result = _agg_extreme(kind, options, docs)
        elif kind == "filter":
            matcher = _compile(options, ctx)
            chosen = [d for d in docs if matcher(d) is not None]
            result = {"doc_count": len(chosen), **(_aggregate(subs, chosen, ctx) if subs else {})}
            subs = None
        else:
            raise _parsing(f"Unknown aggregation type [{kind}]")
        if subs and kind != "terms":
            raise _parsing(f"Aggregator [{name}] of type [{kind}] cannot accept sub-aggregations")
        out[name] = result
    return out


def _agg_terms(options: dict[str, Any], docs: list[_Doc], subs: Any, ctx: _QueryContext) -> dict[str, Any]:
    name = options.get("field")
    kind = _field_type(str(name))
    if kind == "text":
        raise _text_field_error(str(name))
    groups: dict[Any, list[_Doc]] = {}
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


def _agg_extreme(kind: str, options: dict[str, Any], docs: list[_Doc]) -> dict[str, Any]:
    name = str(options.get("field"))
    field_kind = _field_type(name)
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


def _highlight(spec: dict[str, Any], doc: _Doc, clauses: list[_Clause]) -> dict[str, list[str]]:
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
        raise _parsing("[_source] must be a boolean, a string, an array or an object")

    def keep(key: str) -> bool:
        inside = not includes or any(fnmatch.fnmatchcase(key, p) for p in includes)
        return inside and not any(fnmatch.fnmatchcase(key, p) for p in excludes)

    return lambda source: {k: v for k, v in source.items() if keep(k)}


_BODY_KEYS = frozenset({"query", "post_filter", "size", "from", "_source", "sort", "search_after",
                        "track_total_hits", "timeout", "aggs", "aggregations", "highlight", "track_scores",
                        "min_score", "terminate_after", "stored_fields", "explain", "version", "seq_no_primary_term"})


def _search(data: _Dataset, indices: list[str], body: dict[str, Any], *, now: datetime,
            failing: set[str]) -> dict[str, Any]:
    started = time.perf_counter()
    unknown = set(body) - _BODY_KEYS
    if unknown:
        raise _parsing(f"Unknown key for a START_OBJECT in [{sorted(unknown)[0]}].")
    size, offset = int(body.get("size", 10)), int(body.get("from", 0))
    if size < 0 or offset < 0:
        raise _EsError(400, "illegal_argument_exception", f"[from] parameter cannot be negative, found [{offset}]")
    if offset + size > MAX_RESULT_WINDOW:
        raise _EsError(400, "illegal_argument_exception",
                       f"Result window is too large, from + size must be less than or equal to: [{MAX_RESULT_WINDOW}] "
                       f"but was [{offset + size}]. See the scroll api for a more efficient way to request large data "
                       "sets. This limit can be set by changing the [index.max_result_window] index level setting.",
                       index=indices[0] if indices else "_na_")
    ctx = _QueryContext(now=now)
    matcher = _compile(body.get("query", {"match_all": {}}), ctx)
    post = _compile(body["post_filter"], _QueryContext(now=now)) if "post_filter" in body else None
    keys = _sort_keys(body["sort"]) if "sort" in body else None
    after = body.get("search_after")
    if after is not None:
        if keys is None:
            raise _EsError(400, "illegal_argument_exception", "Sort must contain at least one field.")
        if len(after) != len(keys):
            raise _EsError(400, "illegal_argument_exception", f"search_after has {len(after)} value(s) but sort has "
                           f"{len(keys)}.")
        if offset:
            raise _EsError(400, "illegal_argument_exception",
                           "`from` parameter must be set to 0 when `search_after` is used.")
    show = _source_filter(body.get("_source"))

    searched = [i for i in indices if i not in failing]
    matched: list[tuple[_Doc, float]] = []
    for index in searched:
        for doc in data.indices[index].docs:
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
        "_shards": _shards(indices, failing),
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


def _shards(indices: list[str], failing: set[str]) -> dict[str, Any]:
    failed = [i for i in indices if i in failing]
    shards: dict[str, Any] = {"total": len(indices), "successful": len(indices) - len(failed), "skipped": 0,
                              "failed": len(failed)}
    if failed:
        shards["failures"] = [{"shard": 0, "index": i, "node": "ori_elastic_1",
                               "reason": {"type": "node_not_connected_exception",
                                          "reason": "[ori_elastic_2][10.0.0.12:9300] Node not connected"}}
                              for i in failed]
    return shards


# =========================================================================== index expressions


def _resolve(data: _Dataset, expression: str, *, ignore_unavailable: bool, allow_no_indices: bool) -> list[str]:
    """Concrete indices named by a comma list of names, aliases, wildcards and -exclusions."""
    aliases = data.alias_map()
    chosen: list[str] = []
    parts = [p for p in expression.split(",") if p] or ["_all"]
    for part in parts:
        exclude = part.startswith("-") and bool(chosen)
        name = part[1:] if exclude else part
        if name in ("_all", "*"):
            found = [i for i in data.indices if not i.startswith(".")]
        elif "*" in name:
            found = [i for i in data.indices if fnmatch.fnmatchcase(i, name)]
            found += [c for a, cs in aliases.items() if fnmatch.fnmatchcase(a, name) for c in cs]
            if not found and not allow_no_indices:
                raise _not_found(name)
        elif name in data.indices:
            found = [name]
        elif name in aliases:
            found = aliases[name]
        elif ignore_unavailable:
            found = []
        else:
            raise _not_found(name)
        if exclude:
            chosen = [i for i in chosen if i not in found]
        else:
            chosen.extend(i for i in found if i not in chosen)
    if not chosen and not allow_no_indices:
        raise _not_found(expression)
    return chosen


def _not_found(name: str) -> _EsError:
    return _EsError(404, "index_not_found_exception", f"no such index [{name}]", **{
        "resource.type": "index_or_alias", "resource.id": name, "index_uuid": "_na_", "index": name})


# =========================================================================== HTTP


def create_app(anchor: date) -> web.Application:
    """The ORI replica: the Elasticsearch paths under `/v1/elastic`, as nginx exposes them."""
    app = web.Application()
    app[REQUESTS] = []
    app[SHARD_FAILURES] = set()
    app[_DATA] = _dataset(anchor)
    app.router.add_route("*", "/v1/elastic", _handle)
    app.router.add_route("*", "/v1/elastic/{tail:.*}", _handle)
    return app


_DATA = web.AppKey("ori_dataset", _Dataset)


def _now(anchor: date) -> datetime:
    """The replica's `now`: the real clock on the anchor day, noon UTC of the anchor otherwise."""
    real = datetime.now(UTC)
    return real if real.date() == anchor else datetime.combine(anchor, dtime(12, 0), UTC)


async def _handle(request: web.Request) -> web.StreamResponse:
    raw = await request.read()
    tail = request.match_info.get("tail", "")
    request.app[REQUESTS].append({
        "method": request.method, "path": request.path, "query": list(request.query.items()),
        "headers": {k: v for k, v in request.headers.items() if k.lower() in ("content-type", "accept")},
        "body": _json_or_text(raw),
    })
    parts = [p for p in tail.split("/") if p]
    if "_cluster" in tail or "_shutdown" in tail:
        return _nginx_forbidden()
    if request.method == "POST" and not (parts and parts[-1] in ("_search", "_msearch")):
        return _nginx_forbidden()
    if request.method not in ("GET", "HEAD", "POST"):
        return _nginx_forbidden()
    try:
        return _dispatch(request, parts, raw)
    except _EsError as exc:
        return web.json_response(exc.body(), status=exc.status)


def _dispatch(request: web.Request, parts: list[str], raw: bytes) -> web.StreamResponse:
    data = request.app[_DATA]
    query = request.query
    flags = {"ignore_unavailable": query.get("ignore_unavailable") == "true",
             "allow_no_indices": query.get("allow_no_indices", "true") != "false"}
    if raw and request.content_type not in ("application/json", "application/x-ndjson"):
        return web.json_response({"error": f"Content-Type header [{request.content_type}] is not supported",
                                  "status": 406}, status=406)
    if not parts:
        return web.json_response({"name": "ori_elastic_1", "cluster_name": "docker-cluster",
                                  "version": {"number": "7.17.9"}, "tagline": "You Know, for Search"})
    if parts == ["_aliases"]:
        return web.json_response({name: {"aliases": {a: {} for a in info.aliases}}
                                  for name, info in sorted(data.indices.items())})
    if parts[0] == "_cat" and parts[1:2] == ["indices"]:
        return _cat_indices(data, parts[2] if len(parts) > 2 else "_all", query)
    action = parts[-1]
    expression = parts[0] if len(parts) > 1 and not parts[0].startswith("_") else "_all"
    if action in ("_search", "_count", "_msearch") and len(parts) <= 2:
        now = _now(data.anchor)
        failing = request.app[SHARD_FAILURES]
        if action == "_msearch":
            return _msearch(data, expression, raw, flags, now, failing)
        indices = _resolve(data, expression, **flags)
        body = _search_body(raw, query)
        if action == "_count":
            result = _search(data, indices, {"query": body.get("query", {"match_all": {}}), "size": 0,
                                             "track_total_hits": True}, now=now, failing=failing)
            return web.json_response({"count": result["hits"]["total"]["value"], "_shards": result["_shards"]})
        return web.json_response(_search(data, indices, body, now=now, failing=failing))
    if len(parts) == 3 and parts[1] == "_doc":
        return _get_doc(data, parts[0], parts[2])
    if action == "_mapping" and len(parts) <= 2:
        indices = _resolve(data, expression, **flags)
        return web.json_response({i: {"mappings": {"properties": _mapping_properties()}} for i in indices})
    if len(parts) == 1 and not parts[0].startswith("_"):
        indices = _resolve(data, parts[0], **flags)
        return web.json_response({i: {"aliases": {a: {} for a in data.indices[i].aliases},
                                      "mappings": {"properties": _mapping_properties()},
                                      "settings": {"index": {"max_result_window": str(MAX_RESULT_WINDOW)}}}
                                  for i in indices})
    return web.json_response({"error": f"no handler found for uri [{request.path}] and method [{request.method}]",
                              "status": 400}, status=400)


def _search_body(raw: bytes, query: Any) -> dict[str, Any]:
    body: dict[str, Any] = {}
    if raw.strip():
        try:
            body = json.loads(raw)
        except ValueError as exc:
            raise _parsing(f"Failed to parse content to map: {exc}") from exc
        if not isinstance(body, dict):
            raise _parsing("request body must be an object")
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


def _msearch(data: _Dataset, expression: str, raw: bytes, flags: dict[str, bool], now: datetime,
             failing: set[str]) -> web.Response:
    lines = [line for line in raw.decode("utf-8").splitlines() if line.strip()]
    if len(lines) % 2:
        raise _EsError(400, "illegal_argument_exception", "The msearch request must be terminated by a newline [\n]")
    started = time.perf_counter()
    responses: list[dict[str, Any]] = []
    for header_line, body_line in zip(lines[::2], lines[1::2], strict=True):
        try:
            header, body = json.loads(header_line), json.loads(body_line)
            index = header.get("index", expression)
            index = ",".join(index) if isinstance(index, list) else index
            indices = _resolve(data, index, **flags)
            responses.append({**_search(data, indices, body, now=now, failing=failing), "status": 200})
        except _EsError as exc:
            responses.append(exc.body())
        except ValueError as exc:
            responses.append(_parsing(str(exc)).body())
    return web.json_response({"took": max(1, round((time.perf_counter() - started) * 1000)), "responses": responses})


def _get_doc(data: _Dataset, expression: str, doc_id: str) -> web.Response:
    indices = _resolve(data, expression, ignore_unavailable=False, allow_no_indices=False)
    if len(indices) != 1:
        raise _EsError(400, "illegal_argument_exception", f"alias [{expression}] has more than one index associated "
                       "with it, can't execute a single index op")
    for doc in data.by_id.get(doc_id, []):
        if doc.index == indices[0]:
            return web.json_response({"_index": doc.index, "_type": "_doc", "_id": doc.id, "_version": 1,
                                      "_seq_no": doc.order, "_primary_term": 1, "found": True, "_source": doc.source})
    return web.json_response({"_index": indices[0], "_type": "_doc", "_id": doc_id, "found": False}, status=404)


def _cat_indices(data: _Dataset, expression: str, query: Any) -> web.Response:
    indices = _resolve(data, expression, ignore_unavailable=False, allow_no_indices=True)
    rows = []
    for name in sorted(indices):
        info = data.indices[name]
        rows.append({"health": "green", "status": "open", "index": name, "uuid": f"{zlib.crc32(name.encode()):022d}",
                     "pri": "1", "rep": "0", "docs.count": str(len(info.docs)), "docs.deleted": "0",
                     "creation.date": str(int(info.created.timestamp() * 1000)),
                     "creation.date.string": info.created.strftime("%Y-%m-%dT%H:%M:%S.000Z"),
                     "store.size": f"{max(1, len(info.docs) // 40)}mb"})
    columns = query.get("h", "health,status,index,uuid,pri,rep,docs.count,docs.deleted,store.size").split(",")
    rows = [{c: r.get(c) for c in columns} for r in rows]
    if query.get("format") == "json":
        return web.json_response(rows)
    lines = [" ".join(columns)] if "v" in query else []
    lines += [" ".join(str(r[c]) for c in columns) for r in rows]
    return web.Response(text="\n".join(lines) + "\n", content_type="text/plain")


def _mapping_properties() -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, kind in _MAPPING.items():
        if name.startswith("_"):
            continue
        if kind == "text":
            out[name] = {"type": "text", "analyzer": "dutch", "fields": {"keyword": {"type": "keyword",
                                                                                     "ignore_above": 256}}}
        elif kind == "date":
            out[name] = {"type": "date", "format": "strict_date_time"}
        else:
            out[name] = {"type": kind}
    return out


def _nginx_forbidden() -> web.Response:
    return web.Response(status=403, content_type="text/html",
                        text="<html>\r\n<head><title>403 Forbidden</title></head>\r\n<body>\r\n<center><h1>403 "
                             "Forbidden</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n")


def _json_or_text(raw: bytes) -> Any:
    if not raw:
        return None
    try:
        return json.loads(raw)
    except ValueError:
        return raw.decode("utf-8", "replace")
