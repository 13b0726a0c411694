"""Lokale bekendmakingen: Gemeenteblad, Provinciaal blad, Waterschapsblad, Blad gemeenschappelijke regeling.

Upstream: KOOP's SRU 2.0 at https://repository.overheid.nl/sru (guide: "HandleidingSRU2.0.pdf",
https://data.overheid.nl/dataset/officiele-bekendmakingen), scoped with
`c.product-area=="officielepublicaties"` and `w.publicatienaam` to the four decentral gazettes.
Texts come from the record's XML manifestation under https://repository.overheid.nl/frbr/. The regulations in
force that the gazettes enact come from CVDR (proxy.platforms.cvdr), on the same address.

Load status: per gazette the newest publication, and per publishing organisation its newest
publication, measured in a bounded number of calls (see `measure_load`).
"""

from __future__ import annotations

import re
import unicodedata
from datetime import date, timedelta
from urllib.parse import urlsplit

from proxy.platforms import cvdr
from proxy.platforms._sru import (
    KoopSource,
    SruReply,
    cql_quote,
    koop_plugin,
    koop_tools,
    newest_query,
    read_publication_record,
    system_search,
)
from proxy.plugin.toolkit import LoadReport, OrganLoad, PlatformContext, SourceRoute, ToolImpl

__all__ = ["PLATFORM", "SOURCE", "TOOLS", "measure_load"]

SOURCE = KoopSource(
    media={"gmb": "Gemeenteblad", "prb": "Provinciaal blad", "wsb": "Waterschapsblad",
           "bgr": "Blad gemeenschappelijke regeling"},
    medium_titles={"gmb": "Gemeenteblad", "prb": "Provinciaal blad", "wsb": "Waterschapsblad",
                   "bgr": "Blad gemeenschappelijke regeling"},
    prefixes={"gmb": "gmb", "prb": "prb", "wsb": "wsb", "bgr": "bgr"},
    id_pattern=re.compile(r"(gmb|prb|wsb|bgr)-\d{4}-\d{1,9}"),
    id_examples="gmb-2023-174296, prb-2024-1234, wsb-2024-567 or bgr-2024-89",
    type_examples="'omgevingsvergunning', 'verordening', 'beleidsregel', 'verkeersbesluit', 'kennisgeving' or "
                  "'ander besluit van algemene strekking'",
    organisation_examples="'Gouda', 'gemeente Den Haag' (published as 's-Gravenhage), 'provincie Utrecht', "
                          "'HHNK'; a gemeenschappelijke regeling by its exact name",
    elsewhere="Staatscourant, Staatsblad, Kamerstukken, Handelingen and Kamervragen are in the Officiële "
              "bekendmakingen connector (officielebekendmakingen).",
    organisation_kinds=("gemeente", "provincie", "waterschap"),
    kind_media={"gemeente": "gmb", "provincie": "prb", "waterschap": "wsb"},
)

# How far back an organisation counts as a publisher at all; the window within which it counts as
# active is the registry's load_status.stalled_after_days (ctx.stalled_after_days).
PUBLISHER_WINDOW_DAYS = 365
# Newest records read per gazette in one call: exact newest dates for every organisation in them.
SWEEP_RECORDS = 500
# Follow-up calls (one per organisation outside the sweep), stalled organisations first.
ORGAN_CALL_BUDGET = 30
FACETS = "1000:dt.creator"


# The gazettes' publications, and the local regulations in force that some of them enact (CVDR).
TOOLS: tuple[ToolImpl, ...] = (*koop_tools(
    SOURCE, search_example={"query": "omgevingsvergunning", "organisation": "Bergeijk", "limit": 5},
    read_example={"identifier": "gmb-2023-174296", "length": 2000}), *cvdr.TOOLS)


# --------------------------------------------------------------------------- load status


def _newest_by_organisation(reply: SruReply) -> dict[str, date]:
    newest: dict[str, date] = {}
    for record in reply.records:
        pub = read_publication_record(record, SOURCE)
        when = _as_date(pub["published"])
        name = pub["organisation"]
        if name and when and (name not in newest or when > newest[name]):
            newest[name] = when
    return newest


def _as_date(value: str | None) -> date | None:
    try:
        return date.fromisoformat(value[:10]) if value else None
    except ValueError:
        return None


def _slug(name: str) -> str:
    plain = unicodedata.normalize("NFKD", name.lower()).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "-", plain).strip("-")


async def measure_load(ctx: PlatformContext) -> LoadReport:
    """Newest publication per gazette and per organisation.

    Per gazette: (1) the newest `SWEEP_RECORDS` publications of the last year with a facet of all
    organisations that published in that year, (2) a facet of the organisations active in the last
    `stalled_after_days`. Organisations outside the sweep get one call each for their newest
    publication, the ones missing from (2), which are the stalled ones, first, within `ORGAN_CALL_BUDGET`.
    """
    today = ctx.today()
    year_ago = (today - timedelta(days=PUBLISHER_WINDOW_DAYS)).isoformat()
    active_since = (today - timedelta(days=ctx.stalled_after_days)).isoformat()
    per_medium: dict[str, date | None] = {}
    organs: list[OrganLoad] = []
    pending: list[tuple[int, str, str]] = []  # (priority, medium, organisation)
    notes: list[str] = []
    for code in SOURCE.media:
        sweep = await system_search(ctx, newest_query(SOURCE, code, f"dt.available>={year_ago}"),
                                    maximum=SWEEP_RECORDS, facets=FACETS)
        active = await system_search(ctx, newest_query(SOURCE, code, f"dt.available>={active_since}"),
                                     maximum=0, facets=FACETS)
        seen = _newest_by_organisation(sweep)
        per_medium[code] = max(seen.values(), default=None)
        organs.extend(OrganLoad(organ=f"{code}:{_slug(n)}", name=n, current_through=d, medium=code)
                      for n, d in sorted(seen.items()))
        publishers = {term for term, count in sweep.facets.get("dt.creator", []) if count > 0}
        if not publishers and sweep.total and sweep.total > len(sweep.records):
            notes.append(f"{code}: the platform returned no organisation facet; only organisations among the "
                         f"newest {SWEEP_RECORDS} publications were measured")
        recent = {term for term, count in active.facets.get("dt.creator", []) if count > 0}
        for name in sorted(publishers - set(seen)):
            pending.append((0 if name not in recent else 1, code, name))
    pending.sort()
    for _, code, name in pending[:ORGAN_CALL_BUDGET]:
        reply = await system_search(ctx, newest_query(SOURCE, code, f"dt.creator=={cql_quote(name)}"), maximum=1)
        newest = _newest_by_organisation(reply)
        organs.append(OrganLoad(organ=f"{code}:{_slug(name)}", name=name, current_through=newest.get(name),
                                medium=code))
    if len(pending) > ORGAN_CALL_BUDGET:
        notes.append(f"{len(pending) - ORGAN_CALL_BUDGET} organisations that published in the last "
                     f"{ctx.stalled_after_days} days were not measured individually this round")
    dates = [d for d in per_medium.values() if d]
    return LoadReport(current_through=max(dates, default=None), organs=tuple(organs), per_medium=per_medium,
                      note="; ".join(notes) or f"organisations that published in the last {PUBLISHER_WINDOW_DAYS} "
                                                "days, newest publication date (dt.available) each")

# How search and fetch (proxy.serving.crosssearch) reach this source.
SEARCH_ROUTE = SourceRoute("search_publications", "query", "identifier",
    ((re.compile(r"^(gmb|prb|wsb|bgr)-", re.IGNORECASE), "read_publication", "identifier"),),
    "gmb-2025-526769 (also prb-, wsb-, bgr-)", organisation=True)


PLATFORM = koop_plugin("lokaal", TOOLS, measure_load, SOURCE, SEARCH_ROUTE,
                       search_words=(
                           ("bekendmaking", "gemeenteblad", "vergunning", "publicatie", "verordening", "regeling"),
                           ("publication", "notice", "announcement", "permit", "regulation", "by-law")),
                       cannot=("no exact totals for large result sets",
                               "no per-organisation publication list except through search"),
                       quirks=("the decentral gazettes share one SRU index with the national ones, scoped by "
                               "w.publicatienaam",),
                       hosts=(urlsplit(cvdr.SEARCH_URL).netloc, *sorted(cvdr.TEXT_HOSTS)),
                       cannot_nl=("geen exacte totalen bij grote aantallen resultaten",
                                  "geen lijst van publicaties per organisatie, alleen via zoeken"),
                       quirks_nl=("de decentrale bladen delen één SRU-index met de landelijke, afgebakend met "
                                  "w.publicatienaam",))
