"""Replica of KOOP's SRU 2.0 (https://repository.overheid.nl/sru) for the national gazettes and parliament.

Serves the same request subset as the `lokaal` replica (see `proxy.replica.sru_common.koop_app`):
`GET|POST /sru` with `searchRetrieve` 2.0 and the CQL subset, and the XML texts under
`/frbr/officielepublicaties/...`.

Data: real KOOP records only, with their real ids and dates (provenance in `data/officieel/SOURCES.md`):

* verbatim SRU 2.0 records (`sru2_*.xml`: Kamerstukken, bijlagen, Handelingen, an aanhangsel, a Kamervraag),
  served as recorded, two of them with their recorded XML text (`frbr_*.xml`);
* fields of real repository `metadata_owms.xml` files (`plooi_metadata_owms_records.json`: the identifier
  families ag-, ah-ek, kv-tk, kv-ek, nds-, nds-tk, a Staatsblad and a Staatscourant record);
* five Staatsblad records from an SRU 1.2 recording (`staatsblad_records.json`);
* three publications with the meta tags and text of their recorded pages (`wetsuite_records.json`:
  Tractatenblad, Staatsblad, Staatscourant).

Where a record's text was not recorded, its XML document holds only what the record says (title,
abstract): no text is made up. One made-up record remains, marked "Voorbeeld" in its title: a
Staatscourant notice with script/img payloads, dated the day before `anchor`, for the inertness test.
"""

from __future__ import annotations

import json
import re
from datetime import date, timedelta
from pathlib import Path
from xml.etree.ElementTree import Element

from aiohttp import web
from defusedxml import ElementTree as SafeET

from proxy.replica.provenance import Provenance
from proxy.replica.sru_common import Publication, koop_app, publication_provenance

__all__ = ["RECORDED_ON", "SRU_FILES", "XSS_ABSTRACT", "XSS_TITLE", "build_publications", "create_app", "provenance"]

DATA = Path(__file__).resolve().parent / "data" / "officieel"
XSS_TITLE = "Voorbeeld (geen echte publicatie): Regeling <script>alert(1)</script> tarieven luchtvaart"
XSS_ABSTRACT = "<img src=x onerror=alert(1)> toelichting"
SRU_FILES = ("sru2_staten-generaal_10of76.xml", "sru2_record_kv-2989900822.xml", "sru2_record_kst-35842-4.xml",
             "sru2_record_h-ek-20202021-1-1.xml", "sru2_record_blg-936562.xml", "sru2_integratie_5records.xml")
JSON_FILES = ("plooi_metadata_owms_records.json", "wetsuite_records.json")
# The newest recording behind this sample: the SRU 1.2 Staatsblad answer of 2 October 2025.
RECORDED_ON = "2025-10-02"
SAMPLE_WHY = "script/img payloads for the inertness test; no real record carries them (title says 'Voorbeeld')"
# PLOOI's integration fixture points its item URLs at its test double; the real host is restored when served.
MOCK_HOST = "http://__MOCK_SERVICE__/repository.overheid.nl"
_GZD = "{http://standaarden.overheid.nl/sru}gzd"


def _recorded_text(identifier: str) -> str | None:
    path = DATA / f"frbr_{identifier}.xml"
    return path.read_text(encoding="utf-8") if path.exists() else None


def _gzd_fields(gzd: Element) -> tuple[dict[str, str], list[str], list[str]]:
    """(first text per local tag name, subjects, manifestations) of one recorded <gzd:gzd>."""
    fields: dict[str, str] = {}
    subjects: list[str] = []
    formats: list[str] = []
    for el in gzd.iter():
        tag = el.tag.rsplit("}", 1)[-1]
        value = " ".join((el.text or "").split())
        if tag == "subject":
            subjects.append(value)
        elif tag == "itemUrl":
            formats.append(el.get("manifestation", ""))
        elif value and tag not in fields:
            fields[tag] = value
    return fields, subjects, formats


def _from_sru(name: str) -> list[Publication]:
    """The verbatim SRU 2.0 records of one file: index fields read from them, the <gzd:gzd> text served as it is."""
    text = (DATA / name).read_text(encoding="utf-8").replace(MOCK_HOST, "https://repository.overheid.nl")
    raw_elements = re.findall(r"<gzd:gzd>.*?</gzd:gzd>", text, flags=re.S)
    parsed = [e for e in SafeET.fromstring(text.encode()).iter() if e.tag == _GZD]
    out = []
    for raw, gzd in zip(raw_elements, parsed, strict=True):
        fields, subjects, formats = _gzd_fields(gzd)
        out.append(Publication(
            identifier=fields["identifier"], title=fields["title"], type=fields["type"],
            creator=fields["creator"], publication_name=fields["publicatienaam"],
            organisation_type=fields["organisatietype"],
            area=fields["content-area"].removeprefix("officielepublicaties/"), date=fields["date"],
            available=fields["available"], modified=fields["modified"], dossier=fields.get("dossiernummer", ""),
            number=fields.get("publicatienummer", ""), status=fields.get("documentStatus", "") or
            fields.get("documentstatus", ""), subjects=subjects, formats=tuple(formats), raw_gzd=raw,
            raw_document=_recorded_text(fields["identifier"]), origin=name))
    return out


def _staatsblad() -> list[Publication]:
    name = "staatsblad_records.json"
    records = json.loads((DATA / name).read_text(encoding="utf-8"))["records"]
    return [Publication(
        identifier=r["identifier"], title=r["title"], type=r["type"], type_scheme="OVERHEIDop.Staatsblad",
        creator=r["creator"], creator_scheme="OVERHEID.Ministerie", publication_name="Staatsblad",
        organisation_type="ministerie", area=f"stb/{r['year']}", date=r["date"], available=r["available"],
        modified=r["modified"], year=r["year"], number=r["number"], dossier=r["dossier"], subjects=r["subjects"],
        origin=name) for r in records]


def _from_json(name: str) -> list[Publication]:
    """Records stored as fields (with the file each came from, kept in `origin` of the JSON row)."""
    rows = json.loads((DATA / name).read_text(encoding="utf-8"))["records"]
    out = []
    for row in rows:
        fields = {k: v for k, v in row.items() if k != "origin"}
        fields["extra_tpmeta"] = [tuple(t) for t in fields.get("extra_tpmeta", [])]
        out.append(Publication(**fields, origin=name))
    return out


def _sample(anchor: date) -> Publication:
    """The one made-up record: payloads in title and abstract, marked as a sample in its title."""
    day = (anchor - timedelta(days=1)).isoformat()
    return Publication(
        identifier=f"stcrt-{anchor.year}-999001", title=XSS_TITLE, type="Regeling",
        type_scheme="OVERHEIDop.Staatscourant", creator="Ministerie van Infrastructuur en Waterstaat",
        creator_scheme="OVERHEID.Ministerie", publication_name="Staatscourant", organisation_type="ministerie",
        area=f"stcrt/{anchor.year}", date=day, available=day, modified=day, year=str(anchor.year), number="999001",
        abstract=XSS_ABSTRACT, paragraphs=["Voorbeeld: deze publicatie bestaat niet; zij test alleen dat tekens als "
                                           "tekst worden doorgegeven."])


def build_publications(anchor: date, *, fixtures: bool = False) -> list[Publication]:
    """The replica's publications: every recorded record once (the first file that has it wins), plus the test
    fixture when asked for."""
    recorded: dict[str, Publication] = {}
    for pub in [*(p for n in SRU_FILES for p in _from_sru(n)), *_staatsblad(), *(p for n in JSON_FILES
                                                                                 for p in _from_json(n))]:
        recorded.setdefault(pub.identifier, pub)
    return [*recorded.values(), *([_sample(anchor)] if fixtures else [])]


def provenance(anchor: date, *, fixtures: bool = False) -> Provenance:
    """Served records counted by the data file they come from; the sample named."""
    return publication_provenance(build_publications(anchor, fixtures=fixtures), recorded_on=RECORDED_ON,
                                  why_invented=SAMPLE_WHY)


def create_app(anchor: date, *, fixtures: bool = False) -> web.Application:
    """The replica app; mounted by `create_replicas_app` under /officieel."""
    return koop_app(build_publications(anchor, fixtures=fixtures))
