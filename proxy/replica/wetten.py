"""Replica of the BWB SRU (https://zoekservice.overheid.nl/sru/Search?x-connection=BWB) and its repository.

Serves, under the platform's real paths:

* `GET|POST /sru/Search` with `x-connection=BWB`, `operation=searchRetrieve`, `version` 1.2 (default;
  `srw:` namespace http://www.loc.gov/zing/srw/) or 2.0 (OASIS `sruResponse`), `startRecord`,
  `maximumRecords` (≤ 1000), `query` in the CQL subset of `sru_common` over the indexes
  `dcterms.identifier`, `overheidbwb.titel`, `dcterms.type`, `dcterms.modified`, `overheid.authority`,
  `overheidbwb.rechtsgebied`, `overheidbwb.afkorting` (the WTI's afkorting, where recorded),
  `overheidbwb.geldigheidsperiode_startdatum|einddatum`, `overheidbwb.geldigheidsdatum==<date>` ("in force
  on") and `overheidbwb.zichtdatum==<date>` (the zicht generation shown on that date, from the manifest's
  zicht period; a version without a recorded manifest has one generation, which matches). One record per
  version (toestand), as on the real service: without the date filter a regulation comes back once per
  version. Generic indexes such as `dcterms.title` or `cql.textAndIndexes` are refused (diagnostic 16),
  as BWB does. Bad CQL → an SRU diagnostic in an HTTP 200 (1.2: a bare `<diagnostics>` document, as recorded).
* `GET /bwb/<BWBR>/<date>_<n>/xml/<BWBR>_<date>_<n>.xml`: the toestand XML (the record's
  `overheidbwb:locatie_toestand` on repository.officiele-overheidspublicaties.nl).

Which fields a BWB SRU record carries. No real BWB SRU response is in public material, so the record is
built from what independent clients read out of real ones, and only from that:

* `owmskern`: `dcterms:identifier`, `dcterms:title`, `dcterms:type`, `overheid:authority`,
  `dcterms:modified`; `bwbipm`: `overheidbwb:toestand`, `overheidbwb:rechtsgebied`,
  `overheidbwb:geldigheidsperiode_startdatum` and `…_einddatum` (9999-12-31 for an open end);
  `enrichedData`: `overheidbwb:locatie_toestand`. Read by ThijsvanEssen/lawgraph
  (`src/lawgraph/clients/bwb.py`), digitalheir/java-wetten-nl-library
  (`src/main/java/gov/loc/zing/srw/StringOrXmlFragment.java`) and tanarchytan/wettenbank
  (`src/sru/client.ts`); see `data/wetten/SOURCES.md`.
* Not shown to exist in a record: `zichtdatum_start`/`zichtdatum_eind`. Those are fields of the
  repository *manifest* (recorded: `data/wetten/manifest_*.xml`); one client reads
  `overheidbwb:zichtperiode_startdatum` from records, none reads `zichtdatum_*`, and `overheidbwb.zichtdatum`
  appears only as a query index. So the replica renders no zicht field, and the adapter tells the zicht
  generations of one toestand apart by the `_<n>` of `locatie_toestand` (the repository's own labels,
  recorded in the manifests, numbered in zicht order).
* One toestand answering as one record per zicht generation is documentation only (a third-party
  write-up shows four records `_0…_3` for BWBR0011353 on one date); the generations themselves are
  real (the Wet op de omzetbelasting 1968 has `2010-01-01_0`, `_1` and `_2`, recorded here).

Data: real BWB toestanden only (`data/wetten/`), each served as one version record with the dates its
manifest records: the Wet op de omzetbelasting 1968 (BWBR0002629: toestand 2010-01-01 in three zicht
generations, and 2015-01-01, open-ended as of the manifest of 2015-02-19), the first version of the
Wet open overheid (BWBR0045754, 2022-05-01 to 2022-07-31; title, ministry and field of law from its
WTI) and the 1986 regeling BWBR0003984, whose end is not in the recording (its record has no end
date). Texts are the recorded toestand XML, trimmed to the first chapters where marked. Regulations
whose text was not recorded (the Awb among them) are not in this sample: no text is made up.
The Participatiewet (BWBR0015703, toestand 2026-01-01, whole; no manifest
recorded, so no end date) is kept gzip-compressed. Every other expression a recorded manifest lists is served as
a version record without text (its toestand path answers 404): a known version, its text not in the sample.
"""

from __future__ import annotations

import gzip
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from xml.etree.ElementTree import Element

from aiohttp import web
from defusedxml import ElementTree as SafeET

from proxy.replica.provenance import Provenance, tally
from proxy.replica.sru_common import (
    Clause,
    Evaluation,
    Record,
    SruFault,
    SruRequest,
    check_query,
    evaluate,
    koop_diagnostic,
    parse_cql,
    request_params,
    sort_records,
    sru_request,
    x,
    xml_response,
)

__all__ = ["RECORDED_ON", "TOESTANDEN", "Version", "build_versions", "create_app", "provenance"]

DATA = Path(__file__).resolve().parent / "data" / "wetten"
REPOSITORY = "https://repository.officiele-overheidspublicaties.nl"
SRW = "http://www.loc.gov/zing/srw/"
GZD = "http://standaarden.overheid.nl/sru/"
OPEN_END = "9999-12-31"  # how the BWB writes "no end" (the recorded manifests' einddatum)
# The newest recording behind this sample: the Participatiewet's toestand 2026-01-01, in a commit of 2026-02-24.
RECORDED_ON = "2026-02-24"
# Served toestanden: (data file, manifest that dates it or None, WTI that names it or None).
TOESTANDEN: tuple[tuple[str, str | None, str | None], ...] = (
    ("toestand_BWBR0002629_2010-01-01_0_trimmed.xml", "manifest_BWBR0002629.xml", None),
    ("toestand_BWBR0002629_2010-01-01_1_trimmed.xml", "manifest_BWBR0002629.xml", None),
    ("toestand_BWBR0002629_2010-01-01_2_trimmed.xml", "manifest_BWBR0002629.xml", None),
    ("toestand_BWBR0002629_2015-01-01_0_trimmed.xml", "manifest_BWBR0002629.xml", None),
    ("toestand_BWBR0045754_2022-05-01_0_trimmed.xml", "manifest_BWBR0045754.xml",
     "wti_BWBR0045754_algemene-informatie.xml"),
    ("toestand_BWBR0003984_1986-06-26_0.xml", None, None),
    ("toestand_BWBR0015703_2026-01-01_0.xml.gz", None, None),
)


@dataclass
class Version(Record):
    """One version (toestand, in one zicht generation) of a regulation: an SRU record and its text."""

    bwb: str
    title: str
    kind: str
    label: str  # <date>_<generation>, the repository's folder name
    toestand: str  # the toestand URI as the XML names it (bwb-ng-vast-deel)
    start: str
    end: str = ""
    modified: str = ""
    authority: str = ""
    area: str = ""
    abbreviation: str = ""  # the WTI's afkorting, where one was recorded
    seen_from: str = ""  # the zicht period of this generation, from its manifest (zichtdatum_start/eind)
    seen_until: str = ""
    origin: str = ""
    xml: str = field(repr=False, default="")

    @property
    def generation(self) -> int:
        return int(self.label.rsplit("_", 1)[1])

    def values(self, index: str) -> Sequence[str]:
        fields = {
            "dcterms.identifier": self.bwb, "overheidbwb.titel": self.title, "dcterms.type": self.kind,
            "dcterms.modified": self.modified, "overheid.authority": self.authority,
            "overheidbwb.rechtsgebied": self.area, "overheidbwb.geldigheidsperiode_startdatum": self.start,
            "overheidbwb.geldigheidsperiode_einddatum": self.end, "overheidbwb.afkorting": self.abbreviation,
        }
        value = fields.get(index, "")
        return [value] if value else []

    @property
    def text_url(self) -> str:
        return f"{REPOSITORY}/bwb/{self.bwb}/{self.label}/xml/{self.bwb}_{self.label}.xml"


# --------------------------------------------------------------------------- reading the recordings


def _read(name: str) -> bytes:
    """A recorded file; large toestanden are kept gzip-compressed (`.xml.gz`, the bytes verbatim inside)."""
    raw = (DATA / name).read_bytes()
    return gzip.decompress(raw) if name.endswith(".gz") else raw


def _text(root: Element, name: str) -> str:
    """The own text of the first element of this name (a toestand puts its meta-data inside the element)."""
    found = next((e for e in root.iter() if e.tag == name), None)
    return " ".join((found.text or "").split()) if found is not None else ""


def _manifest_dates(manifest: str, label: str) -> dict[str, str]:
    """start, end and last change of one expression in a recorded repository manifest."""
    root = SafeET.fromstring(_read(manifest))
    expression = next(e for e in root.iter("expression") if e.get("label") == label)
    meta = expression.find("metadata")
    assert meta is not None
    end = meta.findtext("einddatum") or ""
    return {"start": meta.findtext("datum_inwerkingtreding") or "", "end": end,
            "modified": (meta.findtext("tijdstip_laatste_wijziging") or "")[:10],
            "seen_from": meta.findtext("zichtdatum_start") or "", "seen_until": meta.findtext("zichtdatum_eind") or ""}


def _wti_names(wti: str) -> dict[str, str]:
    """Citation title, kind, ministry and field of law from a WTI's algemene-informatie."""
    root = SafeET.fromstring(_read(wti))
    return {"title": _text(root, "citeertitel"), "kind": _text(root, "soort-regeling"),
            "authority": _text(root, "eerstverantwoordelijke"), "area": _text(root, "specifiekgebied"),
            "abbreviation": next((a.text.strip() for a in root.iter("afkorting") if a.text and a.text.strip()), "")}


def _version(name: str, manifest: str | None, wti: str | None) -> Version:
    xml = _read(name).decode("utf-8")
    root = SafeET.fromstring(xml.encode())
    wetgeving = next(e for e in root.iter() if e.tag == "wetgeving")
    toestand = root.get("bwb-ng-vast-deel", "")
    bwb = root.get("bwb-id", "")
    generation = toestand.rsplit("/", 1)[1]
    label = f"{root.get('inwerkingtreding')}_{generation}"
    dated = _manifest_dates(manifest, label) if manifest else {"start": root.get("inwerkingtreding", "")}
    named = _wti_names(wti) if wti else {"title": _text(wetgeving, "citeertitel"), "kind": wetgeving.get("soort", "")}
    return Version(bwb=bwb, label=label, toestand=toestand, xml=xml, origin=name, **named, **dated)


def _listed(manifest: str, known: Version) -> list[Version]:
    """Every expression a recorded manifest lists, as a version record whose text was not recorded.

    The record is as real as the manifest (its dates, its label); only the toestand XML is missing, so the
    repository path answers 404 for it, as the adapter reads it: a version known, its text not in the sample.
    """
    root = SafeET.fromstring(_read(manifest))
    out = []
    for expression in root.iter("expression"):
        label = expression.get("label", "")
        day, generation = label.rsplit("_", 1)
        out.append(Version(bwb=known.bwb, title=known.title, kind=known.kind, label=label,
                           toestand=f"http://wetten.overheid.nl/id/{known.bwb}/{day}/{generation}",
                           authority=known.authority, area=known.area, abbreviation=known.abbreviation, origin=manifest,
                           **_manifest_dates(manifest, label)))
    return out


def build_versions(anchor: date | None = None) -> list[Version]:
    """Every served version, read from the recordings (the anchor changes nothing: real dates stay real).

    A recorded toestand is served with its text; every other expression its manifest lists is served as a
    record without text (see `_listed`).
    """
    recorded = [_version(*spec) for spec in TOESTANDEN]
    labels = {(v.bwb, v.label) for v in recorded}
    manifests = {spec[1]: version for spec, version in zip(TOESTANDEN, recorded, strict=True) if spec[1]}
    listed = [v for manifest, known in manifests.items() for v in _listed(manifest, known)
              if (v.bwb, v.label) not in labels]
    return [*recorded, *listed]


def provenance(anchor: date) -> Provenance:
    """Served version records counted by the toestand file each comes from; none is made up."""
    counts: dict[str, int] = {}
    versions = build_versions(anchor)
    for version in versions:
        counts[version.origin] = counts.get(version.origin, 0) + 1
    texts: dict[str, list[str]] = {}
    for v in sorted((v for v in versions if v.xml), key=lambda v: v.label):
        texts.setdefault(f"{v.title} ({v.bwb})", []).append(v.label + (" (trimmed)" if "trimmed" in v.origin else ""))
    holds = (*(f"{name}: text of {', '.join(labels)}" for name, labels in texts.items()),
             *tally(f"known version of {v.title} without its text (from its manifest)" for v in versions if not v.xml))
    return Provenance(recorded=counts, recorded_on=RECORDED_ON, holds=holds)


# --------------------------------------------------------------------------- SRU


def _visible(record: Record, clause: Clause) -> bool:
    """`overheidbwb.zichtdatum==<date>`: the zicht generation the repository showed on that date. A version
    whose manifest was not recorded has one known generation, which stands for all."""
    if clause.relation not in ("==", "=", "exact"):
        raise SruFault(19, "Unsupported relation", f"{clause.relation} on overheidbwb.zichtdatum")
    assert isinstance(record, Version)
    return not record.seen_from or record.seen_from <= clause.term <= (record.seen_until or "9999-12-31")


def _in_force(record: Record, clause: Clause) -> bool:
    if clause.relation not in ("==", "=", "exact"):
        raise SruFault(19, "Unsupported relation", f"{clause.relation} on overheidbwb.geldigheidsdatum")
    assert isinstance(record, Version)
    return record.start <= clause.term and (not record.end or clause.term <= record.end)


_INDEXES = frozenset({"dcterms.identifier", "overheidbwb.titel", "dcterms.type", "dcterms.modified",
                      "overheid.authority", "overheidbwb.rechtsgebied", "overheidbwb.geldigheidsdatum",
                      "overheidbwb.geldigheidsperiode_startdatum", "overheidbwb.geldigheidsperiode_einddatum",
                      "overheidbwb.afkorting", "overheidbwb.zichtdatum"})


def _evaluation() -> Evaluation:
    return Evaluation(known=_INDEXES.__contains__, case_sensitive=frozenset(),
                      virtual={"overheidbwb.geldigheidsdatum": _in_force, "overheidbwb.zichtdatum": _visible},
                      date_indexes=frozenset({"dcterms.modified", "overheidbwb.geldigheidsperiode_startdatum",
                                              "overheidbwb.geldigheidsperiode_einddatum"}))


def _element(tag: str, value: str) -> str:
    """An element only when the recording has its value: a field not recorded is left out, not made up."""
    return f"<{tag}>{x(value)}</{tag}>" if value else ""


def _gzd(v: Version) -> str:
    return (
        '<gzd xmlns="http://standaarden.overheid.nl/sru" xmlns:dcterms="http://purl.org/dc/terms/" '
        'xmlns:overheid="http://standaarden.overheid.nl/owms/terms/" '
        'xmlns:overheidbwb="http://standaarden.overheid.nl/bwb/terms/"><originalData><overheidbwb:meta><owmskern>'
        f"<dcterms:identifier>{v.bwb}</dcterms:identifier><dcterms:title>{x(v.title)}</dcterms:title>"
        f"{_element('dcterms:type', v.kind)}{_element('overheid:authority', v.authority)}"
        f"{_element('dcterms:modified', v.modified)}</owmskern><bwbipm>"
        f"<overheidbwb:toestand>{x(v.toestand)}</overheidbwb:toestand>"
        f"{_element('overheidbwb:rechtsgebied', v.area)}"
        f"{_element('overheidbwb:geldigheidsperiode_startdatum', v.start)}"
        f"{_element('overheidbwb:geldigheidsperiode_einddatum', v.end)}"
        "</bwbipm></overheidbwb:meta></originalData><enrichedData>"
        f"<overheidbwb:locatie_toestand>{x(v.text_url)}</overheidbwb:locatie_toestand></enrichedData></gzd>"
    )


def _response(req: SruRequest, hits: Sequence[Version], version: str) -> str:
    p, ns = ("srw", SRW) if version == "1.2" else ("sru", "http://docs.oasis-open.org/ns/search-ws/sruResponse")
    shown = hits[req.start - 1:req.start - 1 + req.maximum]
    packing = f"<{p}:recordPacking>xml</{p}:recordPacking>"
    records = "".join(
        f"<{p}:record><{p}:recordSchema>{GZD}</{p}:recordSchema>{packing}<{p}:recordData>{_gzd(v)}</{p}:recordData>"
        f"<{p}:recordPosition>{req.start + i}</{p}:recordPosition></{p}:record>" for i, v in enumerate(shown))
    following = req.start + len(shown)
    nxt = f"<{p}:nextRecordPosition>{following}</{p}:nextRecordPosition>" if shown and following <= len(hits) else ""
    return (f'<?xml version="1.0" encoding="UTF-8"?>\n<{p}:searchRetrieveResponse xmlns:{p}="{ns}">'
            f"<{p}:version>{version}</{p}:version><{p}:numberOfRecords>{len(hits)}</{p}:numberOfRecords>"
            f"<{p}:records>{records}</{p}:records>{nxt}</{p}:searchRetrieveResponse>")


def _diagnostic(fault: SruFault, version: str) -> str:
    if version != "1.2":
        return koop_diagnostic(fault)
    # The SRU 1.2 service answers a bare <diagnostics> document (recorded in the fixtures).
    details = fault.details if fault.number != 10 else fault.details or fault.message
    return ('<?xml version="1.0" encoding="UTF-8"?><diagnostics xmlns:dcterms="http://purl.org/dc/terms/" '
            'xmlns:overheid="http://standaarden.overheid.nl/owms/terms/"><diagnostic '
            'xmlns="http://www.loc.gov/zing/srw/diagnostic/"><uri>info:srw/diagnostic/1/'
            f"{fault.number}</uri><details>{x(details)}</details><message>"
            f"{'Invalid parameter' if fault.number == 10 else x(fault.message)}</message></diagnostic></diagnostics>")


_LABEL = re.compile(r"\d{4}-\d{2}-\d{2}_\d+")


def create_app(anchor: date, *, fixtures: bool = False) -> web.Application:
    """The replica app; mounted by `create_replicas_app` under /wetten (it has no test fixtures)."""
    versions = build_versions(anchor)
    by_label = {(v.bwb, v.label): v for v in versions}
    # Generation order within a toestand, as the write-up shows the service answering.
    ordered = sorted(versions, key=lambda v: (v.title, v.start, v.generation))

    async def search(request: web.Request) -> web.Response:
        params = await request_params(request)
        version = params.get("version") or "1.2"
        try:
            if params.get("x-connection", "").lower() != "bwb":
                raise SruFault(1, "General system error", f"unknown x-connection {params.get('x-connection')!r}")
            if version not in ("1.2", "2.0"):
                raise SruFault(5, "Unsupported version", version)
            req = sru_request(params, default_maximum=10, max_maximum=1000)
            if req.operation != "searchRetrieve":
                raise SruFault(4, "Unsupported operation", req.operation)
            if not req.query:
                raise SruFault(7, "Mandatory parameter not supplied", "query")
            query = parse_cql(req.query)
            evaluation = _evaluation()
            check_query(query, evaluation)
            hits = sort_records([v for v in ordered if evaluate(query.root, v, evaluation)], query.sort)
        except SruFault as fault:
            return xml_response(_diagnostic(fault, version))
        return xml_response(_response(req, hits, version))

    async def toestand(request: web.Request) -> web.Response:
        bwb, label, name = request.match_info["bwb"], request.match_info["label"], request.match_info["file"]
        found = by_label.get((bwb, label)) if _LABEL.fullmatch(label) else None
        if found is None or not found.xml or name != f"{bwb}_{label}.xml":
            raise web.HTTPNotFound(text="Not Found")
        return xml_response(found.xml)

    app = web.Application()
    app.router.add_route("GET", "/sru/Search", search)
    app.router.add_route("POST", "/sru/Search", search)
    app.router.add_route("GET", "/bwb/{bwb}/{label}/xml/{file}", toestand)
    return app
