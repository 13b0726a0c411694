"""Replica of the Open Raadsinformatie Elasticsearch 7 endpoint, `https://api.openraadsinformatie.nl/v1/elastic/`.

API docs: https://github.com/openstate/open-raadsinformatie/blob/master/API-docs.md (the nginx rules in
`deployment/nginx/default.conf`). This module holds ORI's sample data, its index and alias catalogue, the nginx
rules and the routes; the searches themselves run in the engine in `proxy/replica/_elastic.py`, which documents
the exact query-language subset (Elasticsearch 7.17's: bool/match/simple_query_string/query_string/range/term(s)/
ids/exists, `_source` filtering, sort with `search_after`, `track_total_hits`, aggregations, highlighting, ES error
bodies).

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

* `GET /`, `GET /_aliases`, `GET /_cat/indices[/{indices}]` (`format=json`, `h=`, `v`), `GET /{index}`,
  `GET /{indices}/_mapping`, `GET /{index}/_doc/{id}`, `GET /{indices}/_count`,
  `GET|POST /[{indices}/]_search` (body, or URL parameters `q`, `size`, `from`, `sort`, `_source`,
  `track_total_hits`), `POST /[{indices}/]_msearch` (ndjson). A body with another Content-Type than JSON or
  ndjson is a 406; other paths are ES's 400 "no handler found".
* `{indices}`: comma lists, `*` wildcards, aliases, `-exclusions`; a missing name is a 404
  `index_not_found_exception` unless `ignore_unavailable=true` (then `_shards.total` drops);
  `allow_no_indices`.

Test hook on the replica app: `SHARD_FAILURES` (concrete indices whose shard fails, to produce `_shards.failed`).
"""

from __future__ import annotations

import fnmatch
import functools
import itertools
import json
import random
import time
import zlib
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from datetime import time as dtime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from aiohttp import web

from proxy.replica._elastic import (
    MAX_RESULT_WINDOW,
    Cluster,
    Doc,
    EsError,
    index_not_found,
    parsing_error,
    search,
    search_body,
)

__all__ = ["SHARD_FAILURES", "create_app"]

SHARD_FAILURES = web.AppKey("ori_shard_failures", set[str])

DATA_FILE = Path(__file__).resolve().parent / "data" / "ori" / "seed_hits.json"
TZ = ZoneInfo("Europe/Amsterdam")
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



@dataclass(slots=True)
class _IndexInfo:
    name: str
    aliases: tuple[str, ...]
    created: datetime
    docs: list[Doc] = field(default_factory=list)


@dataclass(slots=True)
class _Dataset:
    anchor: date
    indices: dict[str, _IndexInfo]
    by_id: dict[str, list[Doc]]

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
        doc = Doc(index, source["@id"], source, next(self._order))
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
    by_id: dict[str, list[Doc]] = {}
    for info in builder.indices.values():
        for doc in info.docs:
            by_id.setdefault(doc.id, []).append(doc)
    return _Dataset(anchor=anchor, indices=builder.indices, by_id=by_id)


# =========================================================================== mapping and index expressions

# The fields the ORI template maps (es_mappings/ori_template.json), as far as the replica uses them.
CLUSTER = Cluster(fields={
    "@id": "keyword", "@type": "keyword", "name": "text", "text": "text", "md_text": "text", "title": "text",
    "description": "text", "location": "text", "classification": "text", "file_name": "keyword",
    "url": "keyword", "original_url": "keyword", "content_type": "keyword", "size_in_bytes": "long",
    "date_modified": "date", "last_discussed_at": "date", "start_date": "date", "end_date": "date",
    "has_organization_name": "keyword", "status": "keyword", "position": "float", "parent": "keyword",
    "committee": "keyword", "organization": "keyword", "attachment": "keyword", "is_referenced_by": "keyword",
    "isReferencedBy": "keyword", "collection": "keyword", "homepage": "keyword", "subOrganizationOf": "keyword",
    "agenda": "keyword", "_id": "keyword", "_index": "keyword",
}, node="ori_elastic_1", peer="[ori_elastic_2][10.0.0.12:9300]")


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
                raise index_not_found(name)
        elif name in data.indices:
            found = [name]
        elif name in aliases:
            found = aliases[name]
        elif ignore_unavailable:
            found = []
        else:
            raise index_not_found(name)
        if exclude:
            chosen = [i for i in chosen if i not in found]
        else:
            chosen.extend(i for i in found if i not in chosen)
    if not chosen and not allow_no_indices:
        raise index_not_found(expression)
    return chosen


def _search(data: _Dataset, indices: list[str], body: dict[str, Any], *, now: datetime,
            failing: set[str]) -> dict[str, Any]:
    """One search, by the engine, over the concrete `indices` (as `_resolve` names them)."""
    return search({i: data.indices[i].docs for i in indices}, body, cluster=CLUSTER, now=now, failing=failing)


# =========================================================================== HTTP


def create_app(anchor: date) -> web.Application:
    """The ORI replica: the Elasticsearch paths under `/v1/elastic`, as nginx exposes them."""
    app = web.Application()
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
    parts = [p for p in tail.split("/") if p]
    if "_cluster" in tail or "_shutdown" in tail:
        return _nginx_forbidden()
    if request.method == "POST" and not (parts and parts[-1] in ("_search", "_msearch")):
        return _nginx_forbidden()
    if request.method not in ("GET", "HEAD", "POST"):
        return _nginx_forbidden()
    try:
        return _dispatch(request, parts, raw)
    except EsError as exc:
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
        return web.json_response({"name": CLUSTER.node, "cluster_name": "docker-cluster",
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
        body = search_body(raw, query)
        if action == "_count":
            result = _search(data, indices, {"query": body.get("query", {"match_all": {}}), "size": 0,
                                             "track_total_hits": True}, now=now, failing=failing)
            return web.json_response({"count": result["hits"]["total"]["value"], "_shards": result["_shards"]})
        return web.json_response(_search(data, indices, body, now=now, failing=failing))
    if len(parts) == 3 and parts[1] == "_doc":
        return _get_doc(data, parts[0], parts[2])
    if action == "_mapping" and len(parts) <= 2:
        indices = _resolve(data, expression, **flags)
        return web.json_response({i: {"mappings": {"properties": CLUSTER.mapping_properties()}} for i in indices})
    if len(parts) == 1 and not parts[0].startswith("_"):
        indices = _resolve(data, parts[0], **flags)
        return web.json_response({i: {"aliases": {a: {} for a in data.indices[i].aliases},
                                      "mappings": {"properties": CLUSTER.mapping_properties()},
                                      "settings": {"index": {"max_result_window": str(MAX_RESULT_WINDOW)}}}
                                  for i in indices})
    return web.json_response({"error": f"no handler found for uri [{request.path}] and method [{request.method}]",
                              "status": 400}, status=400)


def _msearch(data: _Dataset, expression: str, raw: bytes, flags: dict[str, bool], now: datetime,
             failing: set[str]) -> web.Response:
    lines = [line for line in raw.decode("utf-8").splitlines() if line.strip()]
    if len(lines) % 2:
        raise EsError(400, "illegal_argument_exception", "The msearch request must be terminated by a newline [\n]")
    started = time.perf_counter()
    responses: list[dict[str, Any]] = []
    for header_line, body_line in zip(lines[::2], lines[1::2], strict=True):
        try:
            header, body = json.loads(header_line), json.loads(body_line)
            index = header.get("index", expression)
            index = ",".join(index) if isinstance(index, list) else index
            indices = _resolve(data, index, **flags)
            responses.append({**_search(data, indices, body, now=now, failing=failing), "status": 200})
        except EsError as exc:
            responses.append(exc.body())
        except ValueError as exc:
            responses.append(parsing_error(str(exc)).body())
    return web.json_response({"took": max(1, round((time.perf_counter() - started) * 1000)), "responses": responses})


def _get_doc(data: _Dataset, expression: str, doc_id: str) -> web.Response:
    indices = _resolve(data, expression, ignore_unavailable=False, allow_no_indices=False)
    if len(indices) != 1:
        raise EsError(400, "illegal_argument_exception", f"alias [{expression}] has more than one index associated "
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


def _nginx_forbidden() -> web.Response:
    return web.Response(status=403, content_type="text/html",
                        text="<html>\r\n<head><title>403 Forbidden</title></head>\r\n<body>\r\n<center><h1>403 "
                             "Forbidden</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n")
