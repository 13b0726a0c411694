"""Full-text search of rulings through the search behind uitspraken.rechtspraak.nl (`POST /api/zoek`).

The open-data feed has no free text. The website's own search does: a JSON POST that public clients
have used for years (openstate's and lawgraph's scrapers, WAINUTAI's NL-GOV-MCP, research scripts), but
that Rechtspraak does not document as an API. So it is used as best effort, said so in `matched`, and
the open-data feed stays the fallback when it does not answer.

What is sent is the body those clients send: `SearchTerms` `[{"Term": …, "Field": "AlleVelden"}]`,
`StartRow`/`PageSize` for paging, `SortOrder` "Relevance", `Advanced.PublicatieStatus`
"AlleenGepubliceerd" and empty facet lists. The answer is `ResultCount` and `Results[]`, each with
`TitelEmphasis` (the ECLI), `Titel`, `Uitspraakdatum` (dd-mm-yyyy), `Publicatiedatum`,
`Rechtsgebieden` (labels such as "Bestuursrecht; Omgevingsrecht"), `GerechtelijkProductType`,
`Tekstfragment` (with highlight markup) and `DeeplinkUrl`. The clients disagree on how court and area
facets are written, so those filters (and the period) are applied here, to the first `FILTERED_PAGE`
hits, and the answer says so.
"""

from __future__ import annotations

import datetime as dt
import html
import json
import re
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

__all__ = ["FILTERED_PAGE", "REAL_BASE", "ZOEK_URL", "Hit", "Narrowing", "read_zoek", "zoek_body", "zoek_url"]

ZOEK_URL = "https://uitspraken.rechtspraak.nl/api/zoek"
REAL_BASE = "https://data.rechtspraak.nl"
FILTERED_PAGE = 100  # hits read when court, area, type or period are applied here
_ECLI = re.compile(r"^ECLI:[A-Z]{2}:[A-Z0-9]{1,7}:[0-9]{4}:[A-Z0-9.]{1,25}$")
_TAG = re.compile(r"<[^>]*>")


def zoek_url(base_url: str) -> str:
    """The real search on the real platform; on a replica or mirror, the same path under its root."""
    base = base_url.rstrip("/")
    return ZOEK_URL if base == REAL_BASE else base + "/api/zoek"


def zoek_body(words: str, start: int, size: int) -> dict[str, Any]:
    return {"StartRow": start, "PageSize": size, "ShouldReturnHighlights": True, "ShouldCountFacets": False,
            "SortOrder": "Relevance", "SearchTerms": [{"Term": words, "Field": "AlleVelden"}],
            "Contentsoorten": [], "Rechtsgebieden": [], "Instanties": [], "DatumPublicatie": [],
            "DatumUitspraak": [], "Proceduresoorten": [], "Advanced": {"PublicatieStatus": "AlleenGepubliceerd"}}


def _day(value: Any) -> date | None:
    """'25-03-2026' (what the search writes) or an ISO date."""
    text = str(value or "").strip()[:10]
    for form in ("%d-%m-%Y", "%Y-%m-%d"):
        try:
            return datetime.strptime(text, form).date()
        except ValueError:
            continue
    return None


def _plain(fragment: Any) -> str:
    return " ".join(html.unescape(_TAG.sub(" ", str(fragment or ""))).split())


@dataclass(frozen=True, slots=True)
class Hit:
    ecli: str
    title: str
    date: dt.date | None  # `date` here would name the field itself
    published: dt.date | None
    areas: tuple[str, ...]
    kind: str  # "uitspraak", "conclusie" or "" when the search did not say
    fragment: str

    @property
    def court_code(self) -> str:
        return self.ecli.split(":")[2]


def read_zoek(body: bytes) -> tuple[int | None, list[Hit]]:
    """(ResultCount, hits) of an /api/zoek answer; a hit without a well-formed ECLI is skipped."""
    data = json.loads(body)
    if not isinstance(data, dict) or not isinstance(data.get("Results"), list):
        raise ValueError("an /api/zoek answer is an object with a Results list")
    hits = []
    for row in data["Results"]:
        if not isinstance(row, dict):
            continue
        ecli = str(row.get("TitelEmphasis") or "").strip().upper()
        if not _ECLI.match(ecli):
            continue
        areas = row.get("Rechtsgebieden")
        hits.append(Hit(ecli=ecli, title=str(row.get("Titel") or "").strip(), date=_day(row.get("Uitspraakdatum")),
                        published=_day(row.get("Publicatiedatum")),
                        areas=tuple(str(a) for a in areas) if isinstance(areas, list) else (),
                        kind=str(row.get("GerechtelijkProductType") or "").strip().lower(),
                        fragment=_plain(row.get("Tekstfragment"))))
    count = data.get("ResultCount")
    return (count if isinstance(count, int) and not isinstance(count, bool) else None), hits


@dataclass(frozen=True, slots=True)
class Narrowing:
    """The filters applied here to the search's hits: court codes, area labels, type and ruling dates."""

    courts: frozenset[str] = frozenset()
    areas: tuple[str, ...] = ()  # labels; a hit's area matches a label or lies under it ("Bestuursrecht; …")
    kind: str = ""
    start: date | None = None
    end: date | None = None
    said: list[str] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.courts or self.areas or self.kind or self.start or self.end)

    def keeps(self, hit: Hit) -> bool:
        if self.courts and hit.court_code not in self.courts:
            return False
        if self.areas and not any(_under(area, label) for area in hit.areas for label in self.areas):
            return False
        if self.kind and hit.kind and hit.kind != self.kind:
            return False
        if self.start and (hit.date is None or hit.date < self.start):
            return False
        return not (self.end and (hit.date is None or hit.date > self.end))


def _under(area: str, label: str) -> bool:
    area, label = area.strip().lower(), label.strip().lower()
    return area == label or area.startswith(label + ";")
