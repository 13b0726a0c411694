"""Wetten (BWB) against its replica over a real socket: tools, wire shapes, diagnostics, load status.

The replica serves real BWB toestanden only (the Wet op de omzetbelasting 1968 in three zicht generations and a
later version, the first version of the Wet open overheid, the 1986 regeling BWBR0003984); the name table is
checked against a recorded list of real BWB ids and titles (tests/data/bwb_titles.json)."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from proxy.core.caller import SYSTEM_CALLER, Caller
from proxy.core.errors import NotHeld, ToolInputError
from proxy.platforms import wetten
from proxy.platforms._sru import reply_parser
from proxy.platforms.wetten import REGULATIONS, bwb_params, newest_per_regulation, record_fields
from proxy.replica.wetten import Version, build_versions
from tests.conftest import MODES, LiveServer, client
from tests.conftest_mcp import text_of
from tests.platform_harness import PlatformHarness, harness_fixture

ANCHOR = date(2026, 10, 5)
NOW = datetime(2026, 10, 5, 12, 0, tzinfo=UTC)
KEY = "wetten"
PARTICIPATIEWET = "BWBR0015703"
OB = "BWBR0002629"  # Wet op de omzetbelasting 1968
WOO = "BWBR0045754"


env = harness_fixture(KEY, NOW)


VERSIONS = build_versions(ANCHOR)


def bwb(**params: str) -> list[tuple[str, str]]:
    """Research §4.2: operation, version 1.2, x-connection=BWB, maximumRecords, startRecord, query."""
    return [("operation", "searchRetrieve"), ("version", "1.2"), ("x-connection", "BWB"), *params.items()]


def in_force(identifier: str, on: date) -> list[Version]:
    day = on.isoformat()
    return [v for v in VERSIONS if v.bwb == identifier and v.start <= day and (not v.end or day <= v.end)]


# --------------------------------------------------------------------------- search_regulations


async def test_search_sends_a_title_query_with_the_date_filter(env: PlatformHarness) -> None:
    result = await env.call("search_regulations", title="omzetbelasting")
    assert [(s.method, s.path) for s in env.requests] == [("GET", "/wetten/sru/Search")]
    assert env.requests[0].pairs == bwb(maximumRecords="40", startRecord="1", query=(
        '(overheidbwb.titel all "omzetbelasting" or overheidbwb.afkorting=="omzetbelasting") and '
        'overheidbwb.geldigheidsdatum==2026-10-05 and overheidbwb.zichtdatum==2026-10-05'))
    assert env.requests[0].headers["Accept"] == "application/xml"
    assert [r["identifier"] for r in result["results"]] == [OB]
    hit = result["results"][0]
    assert (hit["valid_from"], hit["valid_to"]) == ("2015-01-01", None)  # 9999-12-31 in the manifest: no end
    assert hit["url"] == f"https://wetten.overheid.nl/{OB}/2026-10-05"
    assert hit["citation"]["text"] == (f"Wet op de omzetbelasting 1968 ({OB}), geldend op 2026-10-05, toestand "
                                       f"http://wetten.overheid.nl/id/{OB}/2015-01-01/0")
    precision = result["precision"]
    assert (precision["total"], precision["total_relation"], precision["truncated"]) == (1, "exact", False)
    assert "titles only" in precision["matched"] and "in force on 2026-10-05" in precision["matched"]


async def test_search_by_kind_lists_each_regulation_once(env: PlatformHarness) -> None:
    result = await env.call("search_regulations", kind="wet", valid_on="2010-02-01", limit=5)
    assert env.requests[0].query["query"] == ("dcterms.type==wet and overheidbwb.geldigheidsdatum==2010-02-01 and "
                                              "overheidbwb.zichtdatum==2026-10-05")
    assert [r["identifier"] for r in result["results"]] == [OB]
    assert result["results"][0]["version"] == f"http://wetten.overheid.nl/id/{OB}/2010-01-01/2"
    # Failed before (no zichtdatum): the three zicht generations of 2010-01-01 came back as three records; the
    # generation the repository shows today (zichtdatum_start 2013-01-01 in the manifest) is the one record.
    assert result["precision"]["total"] == 1 and result["precision"]["total_relation"] == "exact"


async def test_the_replica_answers_the_abbreviation_and_zicht_indexes_real_clients_use(env: PlatformHarness) -> None:
    # The official abbreviation is the WTI's afkorting (Woo, recorded); a title that is an abbreviation the
    # name table does not know is searched as one.
    result = await env.call("search_regulations", title="Wet open overheid", valid_on="2022-06-01")
    assert [r["identifier"] for r in result["results"]] == ["BWBR0045754"]
    parse = reply_parser(KEY, "Legislation", default_relation="exact")
    reply = await env.ctx.upstream.get("", parse, params=bwb_params(
        'overheidbwb.afkorting=="Woo" and overheidbwb.geldigheidsdatum==2022-06-01 and '
        "overheidbwb.zichtdatum==2026-10-05", start=1, maximum=10), caller=Caller.session("test"))
    assert reply.total == 1 and "BWBR0045754" in str(record_fields(reply.records[0]))
    awir = await env.call("search_regulations", title="AWIR")  # a real afkorting the name table does not hold
    assert 'overheidbwb.afkorting=="AWIR"' in env.requests[-1].query["query"] and awir["results"] == []


async def test_search_needs_a_title_or_a_kind(env: PlatformHarness) -> None:
    with pytest.raises(ToolInputError, match="title words or a kind"):
        await env.call("search_regulations", valid_on="2026-01-01")
    assert env.requests == []


# --------------------------------------------------------------------------- read_regulation / read_article


async def test_read_regulation_defaults_to_today_and_fetches_the_toestand(env: PlatformHarness) -> None:
    result = await env.call("read_regulation", identifier=OB, length=400)
    assert env.requests[0].pairs == bwb(maximumRecords="8", startRecord="1", query=(
        f"dcterms.identifier=={OB} and overheidbwb.geldigheidsdatum==2026-10-05"))
    assert env.requests[1].path == f"/wetten/bwb/{OB}/2015-01-01_0/xml/{OB}_2015-01-01_0.xml"
    assert env.requests[1].headers["Accept"] == "application/xml"
    assert result["valid_on"] == "2026-10-05" and result["valid_from"] == "2015-01-01"
    assert result["title"] == "Wet op de omzetbelasting 1968" and result["kind"] == "wet"
    assert result["toc"][0].startswith("Hoofdstuk I") and result["articles"][0] == "1"
    assert result["length"] == 400 and result["next_offset"] == 400 and result["total_length"] > 400


async def test_read_the_real_first_version_of_the_woo(env: PlatformHarness) -> None:
    result = await env.call("read_article", identifier="Woo", article="1.1", date="2022-06-01")
    assert result["identifier"] == WOO and result["resolved"] == f"'Woo' read as Wet open overheid ({WOO})"
    assert result["title"] == "Wet open overheid" and result["authority"] == "Binnenlandse Zaken en Koninkrijksrelaties"
    assert (result["valid_from"], result["valid_to"]) == ("2022-05-01", "2022-07-31")  # from its manifest
    assert "Eenieder heeft recht op toegang tot publieke informatie" in result["text"]
    assert result["url"] == f"https://wetten.overheid.nl/jci1.3:c:{WOO}&artikel=1.1&g=2022-06-01"


async def test_read_article_of_the_recorded_toestand(env: PlatformHarness) -> None:
    result = await env.call("read_article", identifier="bwbr0003984", article="Artikel 1")
    assert result["title"] == "Vaststelling nummers kandidatenlijsten centrales van overheidspersoneel"
    assert result["text"].startswith("Artikel 1\nBij verkiezingen op grond van artikel 124")
    assert "de Algemene Centrale van Overheidspersoneel" in result["text"]
    assert result["citation"]["title"].endswith(", Artikel 1")
    assert result["valid_to"] is None  # the recording does not say when it ended: no end date is made up


async def test_clear_errors_for_unknown_articles_dates_and_ids(env: PlatformHarness) -> None:
    with pytest.raises(ToolInputError, match=r"has no article '999'.*its articles are 1, "):
        await env.call("read_article", identifier=OB, article="999")
    # Its manifest lists the version in force today (from 2023-04-01); only the first one's text is recorded.
    with pytest.raises(NotHeld, match=r"no text of BWBR0045754 \(Wet open overheid\) in force on 2026-10-05") as held:
        await env.call("read_regulation", identifier=WOO)
    assert "in force from 2023-04-01" in held.value.sample_advice
    with pytest.raises(NotHeld, match=r"no version of BWBR0045754 .* in force on 2020-01-01; it was not yet in force"):
        await env.call("read_regulation", identifier=WOO, date="2020-01-01")
    with pytest.raises(ToolInputError, match="no regulation BWBR9999999"):
        await env.call("read_regulation", identifier="BWBR9999999")
    with pytest.raises(ToolInputError, match="'CVDR123' is not a known regulation"):
        await env.call("read_regulation", identifier="CVDR123")


async def test_a_regulation_whose_text_was_not_recorded_is_absent_not_invented(env: PlatformHarness) -> None:
    with pytest.raises(NotHeld, match="no regulation BWBR0005537"):
        await env.call("read_article", identifier="Awb", article="1:1")
    assert {v.bwb for v in VERSIONS} == {OB, WOO, "BWBR0003984", PARTICIPATIEWET}


async def test_the_participatiewet_is_read_whole(env: PlatformHarness) -> None:
    """Issue 39: a whole recorded toestand (kept gzip-compressed) answers an ordinary question."""
    result = await env.call("read_article", identifier="Participatiewet", article="8")
    assert result["title"] == "Participatiewet" and result["valid_from"] == "2026-01-01"
    assert result["text"].startswith("Artikel 8") and "verordening" in result["text"]


# --------------------------------------------------------------------------- SRU replies


async def test_diagnostics_become_input_errors(env: PlatformHarness) -> None:
    parse = reply_parser(KEY, "Legislation", default_relation="exact")
    with pytest.raises(ToolInputError, match="Unsupported index"):
        await env.ctx.upstream.get("", parse, params=bwb_params('dcterms.title="wet"', start=1, maximum=1),
                                   caller=Caller.session("test"))
    with pytest.raises(ToolInputError, match="Query syntax error"):
        await env.ctx.upstream.get("", parse, params=bwb_params("overheidbwb.titel any/x wet", start=1, maximum=1),
                                   caller=Caller.session("test"))
    versions = await env.ctx.upstream.get("", parse, params=bwb_params(f"dcterms.identifier=={OB}", start=1,
                                                                       maximum=10), caller=Caller.session("test"))
    # One record per version and generation: the four recorded toestanden and the rest of the manifest's list.
    assert versions.total == len([v for v in VERSIONS if v.bwb == OB]) == 61 and versions.relation == "exact"


# --------------------------------------------------------------------------- load status


async def test_measure_load_finds_the_newest_recorded_version_however_old(env: PlatformHarness) -> None:
    report = await wetten.measure_load(env.ctx)
    # The Woo's newest expression (2023-04-01) and its last change, as its manifest records them.
    assert max(v.modified for v in VERSIONS) == "2023-04-01"
    # Widening windows back from today; the last (4096 days) reaches the sample's newest change, so the source
    # reads as standing still since then rather than as unmeasured.
    assert report.current_through == date(2023, 4, 1) and env.ctx.is_stalled(report.current_through)
    assert env.requests[0].query["query"] == "dcterms.modified>=2026-10-05"
    _, count = await env.ctx.upstream._store.calls(SYSTEM_CALLER.key, 50)
    assert count == len(env.requests) == len(wetten._LOAD_WINDOWS)


# --------------------------------------------------------------------------- zicht generations (real ones)


async def test_reading_takes_the_newest_zicht_generation(env: PlatformHarness) -> None:
    on = date(2010, 2, 1)
    generations = in_force(OB, on)
    assert [v.label for v in generations] == ["2010-01-01_0", "2010-01-01_1", "2010-01-01_2"]
    assert generations[0].xml != generations[2].xml  # a later generation corrects the text
    result = await env.call("read_regulation", identifier=OB, date=on.isoformat(), length=20000)
    assert env.requests[1].path.endswith(f"/{OB}_2010-01-01_2.xml")
    assert result["version"] == f"http://wetten.overheid.nl/id/{OB}/2010-01-01/2"
    assert result["valid_to"] == "2010-03-31"


async def test_replica_answers_a_record_per_zicht_generation_in_generation_order(env: PlatformHarness) -> None:
    raw = await env.ctx.upstream.get("", lambda body: body.decode(), params=bwb_params(
        f"dcterms.identifier=={OB} and overheidbwb.geldigheidsdatum==2010-02-01", start=1, maximum=10),
        caller=Caller.session("test"))
    assert [f"_{n}.xml</overheidbwb:locatie_toestand>" in raw for n in range(3)] == [True] * 3
    assert raw.index("_0.xml<") < raw.index("_2.xml<")  # the superseded generation comes first
    assert "zichtdatum" not in raw  # no zicht field is shown to be in a real record, so none is served
    assert "<overheidbwb:geldigheidsperiode_einddatum>2010-03-31</overheidbwb:geldigheidsperiode_einddatum>" in raw


def test_generations_are_told_apart_without_a_zicht_date_in_the_record() -> None:
    """The old adapter ranked by `zichtdatum_start`, a field no real record is shown to carry; the label decides."""
    records = [{"identifier": OB, "text_url": f"https://r/bwb/{OB}/2010-01-01_{n}/xml/{OB}_2010-01-01_{n}.xml"}
               for n in (0, 2, 1)]
    assert newest_per_regulation(records)[0]["text_url"].endswith("_2.xml")


def test_a_record_without_the_optional_fields_reads_as_absent() -> None:
    from defusedxml import ElementTree

    gzd = ElementTree.fromstring(
        '<gzd xmlns="http://standaarden.overheid.nl/sru" xmlns:dcterms="http://purl.org/dc/terms/" '
        'xmlns:overheidbwb="http://standaarden.overheid.nl/bwb/terms/"><originalData><overheidbwb:meta><owmskern>'
        "<dcterms:identifier>BWBR0003984</dcterms:identifier></owmskern></overheidbwb:meta></originalData>"
        "<enrichedData/></gzd>")
    fields = record_fields(gzd)
    assert fields["identifier"] == "BWBR0003984" and fields["title"] == "BWBR0003984"
    assert fields["valid_to"] is None and fields["authority"] is None and fields["text_url"] is None


# --------------------------------------------------------------------------- names (issue 20)


async def test_regulations_by_abbreviation_and_short_title(env: PlatformHarness) -> None:
    woo = await env.call("search_regulations", title="Woo", valid_on="2022-06-01")
    assert env.requests[0].query["query"].startswith(f"dcterms.identifier=={WOO} and ")
    assert [r["identifier"] for r in woo["results"]] == [WOO]
    assert "'Woo' read as Wet open overheid" in woo["precision"]["matched"]
    ob = await env.call("read_regulation", identifier="Wet OB 1968", length=100)
    assert ob["identifier"] == OB and ob["resolved"] == f"'Wet OB 1968' read as Wet op de omzetbelasting 1968 ({OB})"
    everything = await env.call("search_regulations", title="BW")
    assert env.requests[-1].query["query"].startswith("(dcterms.identifier==BWBR0002656 or ")
    assert everything["results"] == []  # no book of the Burgerlijk Wetboek was recorded
    with pytest.raises(ToolInputError, match=r"'BW' is the Burgerlijk Wetboek.*BW8 \(BWBR0005034\)"):
        await env.call("read_regulation", identifier="BW")
    with pytest.raises(ToolInputError, match=r"'Gemeentewt' is not a known regulation; the closest are: "
                                             r"Gemeentewet \(BWBR0005416\)"):
        await env.call("read_regulation", identifier="Gemeentewt")


REAL = json.loads((Path(__file__).parent / "data" / "bwb_titles.json").read_text(encoding="utf-8"))["regulations"]


def _named_so(bwb_id: str, label: str) -> bool:
    """The real sources name this id with this title: its BWB path title, or a citation of it by that title."""
    row = REAL.get(bwb_id)
    if row is None:
        return False
    wanted = label.lower()
    path = str(row.get("path_title") or "")
    cited = [c.lower() for c in row["cited_as"]]
    return path == wanted or path.startswith(wanted + " (") or any(
        c == wanted or c.endswith(" " + wanted) for c in cited)


def test_every_table_target_is_a_real_bwb_id_with_its_real_title() -> None:
    for entry in REGULATIONS.entries:
        books = dict(entry.extra.get("books") or {})
        if books:
            for book, bwb_id in books.items():
                assert _named_so(bwb_id, f"{entry.label} Boek {book}"), (bwb_id, book)
            continue
        for bwb_id in entry.sends:
            assert _named_so(bwb_id, entry.label), (bwb_id, entry.label)


def test_book_8_is_the_id_the_bwb_gives_it() -> None:
    """The table had BWBR0005287 for Boek 8, an id no real source names; the BWB's Boek 8 is BWBR0005034."""
    book_8 = REGULATIONS.find("BW8")
    assert book_8 is not None and book_8.sends == ("BWBR0005034",)
    assert "BWBR0005287" not in REAL
    assert REAL["BWBR0005034"]["path_title"] == "burgerlijk wetboek boek 8"


@pytest.mark.parametrize("mode", MODES)
async def test_real_regulations_through_the_sdk(server: LiveServer, mode: str) -> None:
    async with client(server.url("wetten"), mode) as c:
        result = await c.call_tool("read_article", {"identifier": "Woo", "article": "1.1", "date": "2022-06-01"})
        assert not result.is_error, text_of(result)
        assert result.structured_content["valid_to"] == "2022-07-31"
        missing = await c.call_tool("read_article", {"identifier": "Awb", "article": "1:1"})
        assert missing.is_error and "no regulation BWBR0005537" in text_of(missing)


async def test_a_regulation_not_in_force_on_the_date_says_so_not_spelling(env: PlatformHarness) -> None:
    """Issue 21: 'Woo' is the Wet open overheid, in force since 2022-05-01; asked for a date before that, the hint
    names when it was in force (the real cause) instead of the words. Today it is found (issue 39: the versions
    its manifest lists are known versions, their texts not recorded)."""
    result = await env.call("search_regulations", title="Woo", valid_on="2020-01-01")
    hint = result["precision"]["hint"]
    assert result["results"] == [] and hint.startswith("nothing in force on ")
    assert "Wet open overheid (BWBR0045754)" in hint and "2022-05-01 to" in hint and "spelling" not in hint
    found = await env.call("search_regulations", title="Woo")
    assert [(r["identifier"], r["valid_from"]) for r in found["results"]] == [("BWBR0045754", "2023-04-01")]
