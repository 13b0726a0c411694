"""Officiële bekendmakingen: Staatscourant, Staatsblad, Tractatenblad, Kamerstukken, Handelingen and Kamervragen.

Upstream: KOOP's SRU 2.0 at https://repository.overheid.nl/sru (guide: "HandleidingSRU2.0.pdf",
https://data.overheid.nl/dataset/officiele-bekendmakingen), scoped with
`c.product-area=="officielepublicaties"` and `w.publicatienaam` to the national gazettes and the
parliamentary papers. Texts come from the record's XML manifestation under
https://repository.overheid.nl/frbr/.
"""

from __future__ import annotations

import re
from datetime import date

from proxy.platforms._sru import (
    KoopSource,
    OwnCreator,
    cql_quote,
    koop_plugin,
    koop_tools,
    newest_query,
    read_publication_record,
    system_search,
)
from proxy.plugin.toolkit import LoadReport, PlatformContext, SourceRoute, ToolCall, ToolImpl

__all__ = ["ID_PATTERN", "PLATFORM", "SOURCE", "TOOLS", "measure_load"]

# The identifier grammar as KOOP's own ids show it (5.5 million of them, listed in WetSuite's test files): a family
# prefix, then parts of letters, digits and underscores separated by hyphens (once a doubled hyphen:
# kst-32302--B). Families: stcrt, stb, trb, kst (kst-36200-1, kst-35300-X-63, kst-32545-143-b1), blg, h (h-tk,
# h-ek, h-vv), ah (ah-tk, ah-ek), ag (ag-tk, ag-ek), kv (kv-2989900822, kv-tk-2020Z13248, kv-ek-215160000) and
# nds (nds-tk-2015D00006, nds-wwi0800141-b1).
ID_PATTERN = re.compile(r"(?:stcrt|stb|trb|kst|blg|h|ah|ag|kv|nds)(?:-[0-9A-Za-z_]*)*-[0-9A-Za-z_]+")

SOURCE = KoopSource(
    # Kamervragen are two publicatienaam values of their own (as the recorded records carry them): with the
    # minister's answer in the Aanhangsel of the Handelingen (ah-tk-…), and still unanswered (kv-tk-…).
    media={"stcrt": "Staatscourant", "stb": "Staatsblad", "trb": "Tractatenblad", "kst": "Kamerstuk",
           "h": "Handelingen", "ah": "Kamervragen (Aanhangsel)", "kv": "Kamervragen zonder antwoord"},
    medium_titles={"stcrt": "Staatscourant", "stb": "Staatsblad", "trb": "Tractatenblad", "kst": "Kamerstukken",
                   "h": "Handelingen", "ah": "Kamervragen with the minister's answer (Aanhangsel Handelingen)",
                   "kv": "Kamervragen not yet answered"},
    # The other families (appendices, agendas, non-dossier papers) can be read, though searches stay within the
    # gazettes above.
    prefixes={"stcrt": "stcrt", "stb": "stb", "trb": "trb", "kst": "kst", "blg": "kst", "h": "h", "ah": "ah",
              "ag": None, "kv": "kv", "nds": None},
    id_pattern=ID_PATTERN,
    id_examples="stcrt-2024-12345, stb-2025-252, trb-2024-80, kst-36200-1, blg-998035, h-tk-20202021-101-5, "
                "kv-tk-2020Z13248 or nds-tk-2015D00006",
    type_examples="'Kamerstuk', 'Handeling', 'Wet', 'Regeling', 'Besluit' or 'Bijlage'",
    organisation_examples="'Defensie', 'BZK', 'ministerie van JenV', 'Tweede Kamer' or a gemeente in the "
                          "Staatscourant ('Haarlem')",
    elsewhere="Gemeenteblad, Provinciaal blad, Waterschapsblad and Blad gemeenschappelijke regeling are in the "
              "Lokale bekendmakingen connector (lokalebekendmakingen).",
    organisation_kinds=("ministerie", "gemeente", "provincie", "waterschap"),
    # The Staatscourant names a gemeente both ways; the platform's own search site sends "gemeente <name>" too.
    kind_creator_forms={"gemeente": ("gemeente {}",)},
    own_creators=(
        OwnCreator("Tweede Kamer der Staten-Generaal", "staten generaal", ("Tweede Kamer", "TK")),
        OwnCreator("Eerste Kamer der Staten-Generaal", "staten generaal", ("Eerste Kamer", "EK", "Senaat")),
    ),
)

DOSSIER_PROP = {
    "dossier": {"type": "string", "maxLength": 40, "pattern": r"^[0-9]{4,6}(-[0-9A-Za-z]{1,8})*$",
                "description": "Parliamentary dossier number (w.dossiernummer), e.g. 36600-VII; for Kamerstukken."},
}


def _dossier_clause(call: ToolCall) -> list[tuple[str, str]]:
    dossier = str(call.arguments.get("dossier") or "").strip()
    if not dossier:
        return []
    return [(f"w.dossiernummer=={cql_quote(dossier)}", f"dossier number is exactly {dossier!r}")]


TOOLS: tuple[ToolImpl, ...] = koop_tools(
    SOURCE, search_props=DOSSIER_PROP, search_clauses=_dossier_clause,
    search_example={"media": ["stb"], "publication_type": "Wet", "limit": 5},
    read_example={"identifier": "kst-22112-3185", "length": 2000})


async def measure_load(ctx: PlatformContext) -> LoadReport:
    """Newest publication date (dt.available) per gazette: one call each, newest first."""
    per_medium: dict[str, date | None] = {}
    for code in SOURCE.media:
        reply = await system_search(ctx, newest_query(SOURCE, code), maximum=1)
        newest = None
        if reply.records:
            published = read_publication_record(reply.records[0], SOURCE)["published"]
            newest = date.fromisoformat(published[:10]) if published else None
        per_medium[code] = newest
    dates = [d for d in per_medium.values() if d]
    return LoadReport(current_through=max(dates, default=None), per_medium=per_medium,
                      note="newest publication date (dt.available) per gazette")

# How search and fetch (proxy.serving.crosssearch) reach this source.
SEARCH_ROUTE = SourceRoute("search_publications", "query", "identifier",
    ((re.compile(r"^(stcrt|stb|trb|kst|blg|h|ah|ag|kv|nds)-", re.IGNORECASE), "read_publication", "identifier"),),
    "stb-2025-252, kst-36200-1, stcrt-2021-100, kv-tk-2020Z13248", organisation=True)


PLATFORM = koop_plugin("officieel", TOOLS, measure_load, SOURCE, SEARCH_ROUTE,
                       search_words=(
                           ("bekendmaking", "staatscourant", "staatsblad", "kamerstuk", "publicatie"),
                           ("publication", "gazette", "official")),
                       cannot=("no full text in search results, only metadata",),
                       quirks=("Kamerstukken and Handelingen share the index with the gazettes",),
                       cannot_nl=("geen volledige tekst in zoekresultaten, alleen metadata",),
                       quirks_nl=("Kamerstukken en Handelingen delen de index met de Staatscourant en het "
                                  "Staatsblad",))
