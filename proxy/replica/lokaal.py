"""Replica of KOOP's SRU 2.0 (https://repository.overheid.nl/sru) for the four decentral gazettes.

Serves, under the platform's real paths:

* `GET|POST /sru` (and `/sru/Search`): `operation=searchRetrieve`, `version=2.0`, `recordSchema=gzd`,
  `startRecord`, `maximumRecords` (≤ 1000), `query` (the CQL subset of `sru_common`), `facetLimit`
  (`N:index,…`). Replies are SRU 2.0 `gzd` records shaped like the recorded responses in
  `data/officieel/`, with `resultCountPrecision` estimate and `nextRecordPosition`. Bad CQL → an
  SRU diagnostic in an HTTP 200; `startRecord >= 10000` → nginx 504, as the real service does.
* `GET /frbr/officielepublicaties/<blad>/<jaar>/<id>/1/{xml,html}/<id>.{xml,html}`: the texts.

Data: real KOOP records only, with their real ids, organisations and dates (provenance in
`data/lokaal/SOURCES.md`):

* `wetsuite_records.json`: four records from WetSuite's test files (Bergeijk, Rheden and Reimerswaal in the
  Gemeenteblad, Zuid-Holland in the Provinciaal blad), three with the text of their recorded page;
* `basgroot_history_records.json`: 34 Gemeenteblad records of Gouda (December 2025), 's-Gravenhage (November
  2024) and Utrecht (December 2025), and 4 Provinciaal blad records of the province of Utrecht that the same
  client's Utrecht file holds (the name "Utrecht" is both), as it stored them from KOOP's SRU (title, type, date,
  description).

No real Waterschapsblad or Blad gemeenschappelijke regeling record was found, so those gazettes are empty
here. Where a text was not recorded, the XML document holds only the record's title and description. One
made-up record remains, marked "Voorbeeld" in its title: a Gouda notice with script/img payloads, dated
two days before `anchor`, for the site's inertness test.
"""

from __future__ import annotations

import json
from datetime import date, timedelta
from pathlib import Path
from typing import TypedDict

from aiohttp import web

from proxy.replica.cvdr import add_cvdr_routes
from proxy.replica.provenance import Provenance
from proxy.replica.sru_common import Publication, koop_app, publication_provenance

__all__ = ["RECORDED_ON", "SAMPLE_ORGANISATION", "XSS_ABSTRACT", "XSS_TITLE", "build_publications", "create_app",
           "provenance"]

DATA = Path(__file__).resolve().parent / "data" / "lokaal"
XSS_TITLE = "Voorbeeld (geen echte publicatie): Kennisgeving <script>alert(1)</script> ontwerpbestemmingsplan " \
            "Binnenstad-Oost"
XSS_ABSTRACT = "<img src=x onerror=alert(1)> ter inzage"
SAMPLE_ORGANISATION = "Gouda"
# The newest recording behind this sample: basgroot/bekendmakingen's Gouda file of December 2025.
RECORDED_ON = "2025-12-04"
SAMPLE_WHY = "script/img payloads for the site's inertness test; no real record carries them (title says 'Voorbeeld')"
class _Gazette(TypedDict):
    publication_name: str
    organisation_type: str
    creator_scheme: str


_GEMEENTEBLAD: _Gazette = {"publication_name": "Gemeenteblad", "organisation_type": "gemeente",
                 "creator_scheme": "OVERHEID.Gemeente"}
# A client's file of one place name can hold the province's Provinciaal blad next to the municipality's
# Gemeenteblad (basgroot's Utrecht file does): the id's gazette says which organisation published it.
_GAZETTE_OF_PREFIX: dict[str, _Gazette] = {"gmb": _GEMEENTEBLAD,
                      "prb": {"publication_name": "Provinciaal blad", "organisation_type": "provincie",
                              "creator_scheme": "OVERHEID.Provincie"}}


def _wetsuite() -> list[Publication]:
    name = "wetsuite_records.json"
    out = []
    for row in json.loads((DATA / name).read_text(encoding="utf-8"))["records"]:
        fields = {k: v for k, v in row.items() if k not in ("origin", "recorded_publication_name")}
        fields["formats"] = tuple(fields["formats"])
        fields["extra_tpmeta"] = [tuple(t) for t in fields.get("extra_tpmeta", [])]
        out.append(Publication(**fields, origin=name))
    return out


def _basgroot() -> list[Publication]:
    """Gemeenteblad and Provinciaal blad records kept as a client stored them; the gzd fields they lack follow
    from their id."""
    name = "basgroot_history_records.json"
    out = []
    for row in json.loads((DATA / name).read_text(encoding="utf-8"))["records"]:
        prefix, year, number = row["identifier"].split("-")
        out.append(Publication(
            identifier=row["identifier"], title=row["title"], type=row["type"], creator=row["creator"],
            area=f"{prefix}/{year}", date=row["available"], available=row["available"], modified=row["available"],
            year=year, number=number, abstract=row["abstract"], origin=name, **_GAZETTE_OF_PREFIX[prefix]))
    return out


def _sample(anchor: date) -> Publication:
    """The one made-up record: payloads in title and abstract, marked as a sample in its title."""
    day = (anchor - timedelta(days=2)).isoformat()
    return Publication(
        identifier=f"gmb-{anchor.year}-999001", title=XSS_TITLE, type="kennisgeving", creator=SAMPLE_ORGANISATION,
        area=f"gmb/{anchor.year}", date=day, available=day, modified=day, year=str(anchor.year), number="999001",
        abstract=XSS_ABSTRACT, subjects=["Ruimte en infrastructuur | Ruimtelijke ordening"],
        paragraphs=[f"Zienswijzen: {XSS_TITLE}. {XSS_ABSTRACT}.",
                    "Voorbeeld: deze publicatie bestaat niet; zij test alleen dat tekens als tekst worden "
                    "doorgegeven."],
        **_GEMEENTEBLAD)


def build_publications(anchor: date, *, fixtures: bool = False) -> list[Publication]:
    """The replica's publications: the recorded ones, then the sample."""
    return [*_wetsuite(), *_basgroot(), *([_sample(anchor)] if fixtures else [])]


def provenance(anchor: date, *, fixtures: bool = False) -> Provenance:
    """Served records counted by the data file they come from; the sample named."""
    return publication_provenance(build_publications(anchor, fixtures=fixtures), recorded_on=RECORDED_ON,
                                  why_invented=SAMPLE_WHY)


def create_app(anchor: date, *, fixtures: bool = False) -> web.Application:
    """The replica app; mounted by `create_replicas_app` under /lokaal."""
    app = koop_app(build_publications(anchor, fixtures=fixtures))
    add_cvdr_routes(app)  # the regulations in force (CVDR), which the Lokale bekendmakingen address also serves
    return app
