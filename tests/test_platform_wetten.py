"""Wetten (BWB) against its replica over a real socket: tools, wire shapes, diagnostics, load status."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest

from proxy.caller import SYSTEM_CALLER, Caller
from proxy.errors import ToolInputError
from proxy.platforms import wetten
from proxy.platforms._sru import reply_parser
from proxy.platforms.wetten import bwb_params
from proxy.replica.wetten import NEWEST_MODIFIED_DAYS, Version, build_versions
from tests.platform_harness import PlatformHarness, harness_fixture

ANCHOR = date(2026, 10, 5)
NOW = datetime(2026, 10, 5, 12, 0, tzinfo=UTC)
KEY = "wetten"


env = harness_fixture(KEY, NOW)


VERSIONS = build_versions(ANCHOR)


def bwb(**params: str) -> list[tuple[str, str]]:
    """Research §4.2: operation, version 1.2, x-connection=BWB, maximumRecords, startRecord, query."""
    return [("operation", "searchRetrieve"), ("version", "1.2"), ("x-connection", "BWB"), *params.items()]


def in_force(identifier: str, on: date) -> Version:
    day = on.isoformat()
    return next(v for v in VERSIONS if v.bwb == identifier and v.start <= day and (not v.end or day <= v.end))


# --------------------------------------------------------------------------- search_regulations


async def test_search_sends_a_title_query_with_the_date_filter(env: PlatformHarness) -> None:
    result = await env.call("search_regulations", title="wet bestuursrecht")
    assert [(s.method, s.path) for s in env.requests] == [("GET", "/wetten/sru/Search")]
    assert env.requests[0].pairs == bwb(maximumRecords="40", startRecord="1", query=(
        'overheidbwb.titel all "wet bestuursrecht" and overheidbwb.geldigheidsdatum==2026-10-05'))
    assert env.requests[0].headers["Accept"] == "application/xml"
    assert [r["identifier"] for r in result["results"]] == ["BWBR0005537"]
    current = in_force("BWBR0005537", ANCHOR)
    hit = result["results"][0]
    assert (hit["valid_from"], hit["valid_to"]) == (current.start, current.end or None)
    assert hit["url"] == "https://wetten.overheid.nl/BWBR0005537/2026-10-05"
    assert hit["citation"]["text"] == (f"Algemene wet bestuursrecht (BWBR0005537), geldend op 2026-10-05, toestand "
                                       f"http://wetten.overheid.nl/id/BWBR0005537/{current.start}/0")
    precision = result["precision"]
    assert (precision["total"], precision["total_relation"], precision["truncated"]) == (1, "exact", False)
    assert "titles only" in precision["matched"] and "in force on 2026-10-05" in precision["matched"]


async def test_search_by_kind_counts_one_record_per_regulation(env: PlatformHarness) -> None:
    result = await env.call("search_regulations", kind="wet", valid_on="2021-01-01", limit=5)
    assert env.requests[0].query["query"] == "dcterms.type==wet and overheidbwb.geldigheidsdatum==2021-01-01"
    records = [v for v in VERSIONS if v.kind == "wet" and v.start <= "2021-01-01"
               and (not v.end or v.end >= "2021-01-01")]
    expected = {v.bwb for v in records}
    # Truncated: the total is the platform's count of records (zicht generations included), said to be so.
    assert result["precision"]["total"] == len(records) > len(expected) > 5
    assert result["precision"]["total_relation"] == "estimate" and "counts the platform's records" in \
        result["precision"]["matched"]
    identifiers = [r["identifier"] for r in result["results"]]
    assert len(identifiers) == len(set(identifiers)) == 5
    assert result["precision"]["truncated"] is True and result["precision"]["next_offset"] >= 5
    assert "BWBR0005252" in expected  # the Wob was still in force then
    assert all(r["kind"] == "wet" for r in result["results"])


async def test_search_needs_a_title_or_a_kind(env: PlatformHarness) -> None:
    with pytest.raises(ToolInputError, match="title words or a kind"):
        await env.call("search_regulations", valid_on="2026-01-01")
    assert env.requests == []


# --------------------------------------------------------------------------- read_regulation / read_article


async def test_read_regulation_defaults_to_today_and_fetches_the_toestand(env: PlatformHarness) -> None:
    current = in_force("BWBR0005537", ANCHOR)
    result = await env.call("read_regulation", identifier="BWBR0005537", length=400)
    assert env.requests[0].pairs == bwb(maximumRecords="8", startRecord="1", query=(
        "dcterms.identifier==BWBR0005537 and overheidbwb.geldigheidsdatum==2026-10-05"))
    assert env.requests[1].path == f"/wetten/bwb/BWBR0005537/{current.label}/xml/BWBR0005537_{current.label}.xml"
    assert env.requests[1].headers["Accept"] == "application/xml"
    assert result["valid_on"] == "2026-10-05" and result["valid_from"] == current.start
    assert result["title"] == "Algemene wet bestuursrecht" and result["kind"] == "wet"
    assert result["toc"][0] == "Hoofdstuk 1 Algemene bepalingen" and result["toc"][1] == "  Artikel 1:1"
    assert result["articles"][0] == "1:1"
    assert result["length"] == 400 and result["next_offset"] == 400 and result["total_length"] > 400


async def test_a_later_date_reads_the_announced_version(env: PlatformHarness) -> None:
    later = ANCHOR + timedelta(days=40)
    now = await env.call("read_article", identifier="BWBR0005537", article="1:1")
    then = await env.call("read_article", identifier="BWBR0005537", article="1:1", date=later.isoformat())
    assert then["version"] == f"http://wetten.overheid.nl/id/BWBR0005537/{in_force('BWBR0005537', later).start}/0"
    assert now["version"] != then["version"] and now["text"] != then["text"]
    assert then["url"] == f"https://wetten.overheid.nl/jci1.3:c:BWBR0005537&artikel=1:1&g={later.isoformat()}"
    assert then["path"] == "Hoofdstuk 1 Algemene bepalingen" and then["label"] == "Artikel 1:1"


async def test_read_article_of_the_recorded_toestand(env: PlatformHarness) -> None:
    result = await env.call("read_article", identifier="bwbr0003984", article="Artikel 1")
    assert result["title"] == "Vaststelling nummers kandidatenlijsten centrales van overheidspersoneel"
    assert result["text"].startswith("Artikel 1\nBij verkiezingen op grond van artikel 124")
    assert "de Algemene Centrale van Overheidspersoneel" in result["text"]
    assert result["citation"]["title"].endswith(", Artikel 1")


async def test_clear_errors_for_unknown_articles_dates_and_ids(env: PlatformHarness) -> None:
    with pytest.raises(ToolInputError, match=r"has no article '99'.*1:1, 1:2"):
        await env.call("read_article", identifier="BWBR0005537", article="99")
    with pytest.raises(ToolInputError, match="no version in force on 2026-10-05"):
        await env.call("read_regulation", identifier="BWBR0005252")  # the Wob, repealed in 2022
    with pytest.raises(ToolInputError, match="no regulation BWBR9999999"):
        await env.call("read_regulation", identifier="BWBR9999999")
    with pytest.raises(ToolInputError, match="'CVDR123' is not a known regulation"):
        await env.call("read_regulation", identifier="CVDR123")


# --------------------------------------------------------------------------- SRU replies


async def test_diagnostics_become_input_errors(env: PlatformHarness) -> None:
    parse = reply_parser(KEY, "Legislation", default_relation="exact")
    with pytest.raises(ToolInputError, match="Unsupported index"):
        await env.ctx.upstream.get("", parse, params=bwb_params('dcterms.title="wet"', start=1, maximum=1),
                                   caller=Caller.session("test"))
    with pytest.raises(ToolInputError, match="Query syntax error"):
        await env.ctx.upstream.get("", parse, params=bwb_params("overheidbwb.titel any/x wet", start=1, maximum=1),
                                   caller=Caller.session("test"))
    versions = await env.ctx.upstream.get("", parse, params=bwb_params("dcterms.identifier==BWBR0045754", start=1,
                                                                       maximum=10), caller=Caller.session("test"))
    assert versions.total == 4 and versions.relation == "exact"  # one record per version, as on BWB


# --------------------------------------------------------------------------- load status


async def test_measure_load_finds_the_newest_version_date(env: PlatformHarness) -> None:
    report = await wetten.measure_load(env.ctx)
    assert report.current_through == ANCHOR - timedelta(days=NEWEST_MODIFIED_DAYS)
    assert max(v.modified for v in VERSIONS) == report.current_through.isoformat()
    assert [s.query["query"] for s in env.requests] == ["dcterms.modified>=2026-10-05",
                                                        "dcterms.modified>=2026-10-04"]
    _, count = await env.ctx.upstream._store.calls(SYSTEM_CALLER.key, 50)
    assert count == 2


# --------------------------------------------------------------------------- live fidelity (issue 11)


def _generations(identifier: str, on: date) -> list[Version]:
    day = on.isoformat()
    return [v for v in VERSIONS if v.bwb == identifier and v.start <= day and (not v.end or day <= v.end)]


async def test_reading_takes_the_newest_zicht_generation(env: PlatformHarness) -> None:
    on = date.fromisoformat(max(v.start for v in VERSIONS if v.bwb == "BWBR0011353"))  # its last version
    generations = _generations("BWBR0011353", on)
    assert [v.generation for v in generations] == [0, 1, 2, 3]
    newest = generations[-1]
    result = await env.call("read_regulation", identifier="BWBR0011353", date=on.isoformat(), length=20000)
    assert env.requests[1].path.endswith(f"/BWBR0011353_{newest.label}.xml")
    assert result["valid_to"] is None  # an open end (9999-12-31 upstream) reads as no end
    article = next(a for a in result["articles"] if a.endswith("1"))
    text = (await env.call("read_article", identifier="BWBR0011353", article=article, date=on.isoformat()))["text"]
    amounts = {v.generation: v.xml for v in generations}
    assert "€" in text and text.split("€")[1].split(",")[0].strip() in amounts[3]
    assert text.split("€")[1].split(",")[0].strip() not in amounts[0]


async def test_search_lists_each_regulation_once_and_says_what_the_total_counts(env: PlatformHarness) -> None:
    result = await env.call("search_regulations", title="inkomstenbelasting", valid_on="2026-12-01")
    assert [r["identifier"] for r in result["results"]] == ["BWBR0011353"]
    hit = result["results"][0]
    assert hit["valid_to"] is None and hit["version"].endswith("/0")
    assert result["precision"]["total"] == 1 and result["precision"]["total_relation"] == "exact"
    paged = await env.call("search_regulations", kind="wet", limit=3)
    seen = [r["identifier"] for r in paged["results"]]
    following = await env.call("search_regulations", kind="wet", limit=3,
                               offset=paged["precision"]["next_offset"])
    seen += [r["identifier"] for r in following["results"]]
    assert len(seen) == len(set(seen)) == 6  # no regulation twice, across pages either


async def test_regulations_by_abbreviation_and_short_title(env: PlatformHarness) -> None:
    awb = await env.call("read_article", identifier="Awb", article="1:1")
    assert awb["identifier"] == "BWBR0005537"
    assert awb["resolved"] == "'Awb' read as Algemene wet bestuursrecht (BWBR0005537)"
    assert (await env.call("read_regulation", identifier="gemeentewet", length=100))["identifier"] == "BWBR0005416"
    assert (await env.call("read_regulation", identifier="Sr", length=100))["identifier"] == "BWBR0001854"
    book6 = await env.call("read_article", identifier="BW", article="6:1")
    assert book6["identifier"] == "BWBR0005289" and "Boek 6" in book6["resolved"]
    woo = await env.call("search_regulations", title="Woo")
    assert env.requests[0].query["query"].startswith("dcterms.identifier==BWBR0045754 and ")
    assert [r["identifier"] for r in woo["results"]] == ["BWBR0045754"]
    assert "'Woo' read as Wet open overheid" in woo["precision"]["matched"]
    everything = await env.call("search_regulations", title="BW")
    assert env.requests[0].query["query"].startswith("(dcterms.identifier==BWBR0002656 or ")
    assert [r["identifier"] for r in everything["results"]] == ["BWBR0005289"]  # the one book the replica has
    with pytest.raises(ToolInputError, match=r"'BW' is the Burgerlijk Wetboek.*BW6 \(BWBR0005289\)"):
        await env.call("read_regulation", identifier="BW")
    with pytest.raises(ToolInputError, match=r"'Gemeentewt' is not a known regulation; the closest are: "
                                             r"Gemeentewet \(BWBR0005416\)"):
        await env.call("read_regulation", identifier="Gemeentewt")
    assert env.requests == []


async def test_replica_answers_a_record_per_zicht_generation_with_open_ends(env: PlatformHarness) -> None:
    # The request the old adapter sent to read a regulation: one record, which is the oldest generation.
    parse = reply_parser(KEY, "Legislation", default_relation="exact")
    old = await env.ctx.upstream.get("", parse, params=bwb_params(
        "dcterms.identifier==BWBR0011353 and overheidbwb.geldigheidsdatum==2026-10-05", start=1, maximum=1),
        caller=Caller.session("test"))
    assert old.total == 4
    raw = await env.ctx.upstream.get("", lambda body: body.decode(), params=bwb_params(
        "dcterms.identifier==BWBR0011353 and overheidbwb.geldigheidsdatum==2026-12-01", start=1, maximum=10),
        caller=Caller.session("test"))
    assert [f"_{n}.xml</overheidbwb:locatie_toestand>" in raw for n in range(4)] == [True] * 4
    assert raw.index("_0.xml<") < raw.index("_3.xml<")  # the superseded generation comes first
    assert "<overheidbwb:geldigheidsperiode_einddatum>9999-12-31</overheidbwb:geldigheidsperiode_einddatum>" in raw
