"""Issue 27, its critical part: a third-party server's tool schemas are data. A schema that points at a URL is
refused before anything compiles it (jsonschema and fastjsonschema would fetch it with urllib, outside the
address guard), a schema nested past the limit is refused without walking it recursively (it stopped the
server starting), and the regular expressions of a served tool are not compiled by BesluitBron (backtracking
patterns froze the event loop). Against the SDK-built third-party server on loopback, through the real app."""

from __future__ import annotations

import json
import logging
import socket
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest

from proxy.core.errors import RegistryError
from proxy.registry.model import parse_registry
from proxy.remote.client import MAX_LISTED_TOOLS
from proxy.remote.schemas import SCHEMA_DEPTH_MAX, schema_problem, without_patterns
from tests.conftest import REGISTRY, Replicas, client, connector_entry, serve, slowest_health, write_registry
from tests.conftest_mcp import data_of
from tests.remote_server import ENV, READ_ONLY, SECRET, ThirdPartyServer, add_remote


def _nested(levels: int) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "string"}
    for _ in range(levels):
        schema = {"type": "object", "properties": {"a": schema}}
    return schema


def test_schema_rules() -> None:
    assert schema_problem({"type": "object", "$defs": {"x": {"type": "string"}},
                           "properties": {"q": {"$ref": "#/$defs/x"}}}) is None  # local references are fine
    assert "refers outside itself" in str(schema_problem({"properties": {"q": {"$ref": "http://10.0.0.1/x.json"}}}))
    assert "refers outside itself" in str(schema_problem({"allOf": [{"$dynamicRef": "other.json#meta"}]}))
    assert f"deeper than {SCHEMA_DEPTH_MAX}" in str(schema_problem(_nested(5000)))  # no RecursionError
    assert schema_problem(_nested(SCHEMA_DEPTH_MAX - 1)) is None
    wide = {"type": "object", "properties": {f"p{n}": {"type": "string"} for n in range(6000)}}
    assert "subschemas" in str(schema_problem(wide))
    stripped = without_patterns({"type": "object", "properties": {"pattern": {"type": "string", "pattern": "^(a+)+$"}},
                                 "patternProperties": {"^x": {}}})
    # A property named "pattern" stays; the keyword goes.
    assert stripped == {"type": "object", "properties": {"pattern": {"type": "string"}}}


@pytest.fixture
def probe() -> Iterator[tuple[str, list[str]]]:
    """A loopback listener that notes every connection: a schema's $ref points here."""
    seen: list[str] = []
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    server.settimeout(0.2)
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except TimeoutError:
                continue
            seen.append("connection")
            conn.close()

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.getsockname()[1]}/probe.json", seen
    stop.set()
    thread.join()
    server.close()


def _hostile(name: str, properties: dict[str, Any]) -> types.Tool:
    return types.Tool(name=name, description=f"A hostile schema ({name}).", annotations=READ_ONLY,
                      input_schema={"type": "object", "properties": properties})


async def test_a_hostile_listing_fetches_nothing_and_the_server_serves_on(
        probe: tuple[str, list[str]], replicas: Replicas, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    url, seen = probe
    monkeypatch.setenv(ENV, SECRET)
    third_party = ThirdPartyServer(header="Authorization", value=f"Bearer {SECRET}")
    third_party.state.hostile = [
        _hostile("ref_out", {"q": {"$ref": url}}),
        _hostile("deep", {"q": _nested(60)}),  # past our limit (the SDK server itself serializes ~100 at most)
        _hostile("redos", {"q": {"type": "string", "pattern": "^(a+)+$"}}),
        types.Tool(name="redos_out", description="Answers a value its own pattern backtracks on.",
                   annotations=READ_ONLY, input_schema={"type": "object"},
                   output_schema={"type": "object", "properties": {"v": {"type": "string", "pattern": "^(a+)+$"}}}),
    ]
    # ^(a+)+$ backtracks about 2^27 steps on this (seconds of a frozen event loop), then does not match: checked
    # with the pattern, the call would stall the server and then fail; without it, it answers at once.
    backtracks = {"v": "a" * 27 + "!"}
    third_party.state.answers["redos_out"] = types.CallToolResult(
        content=[types.TextContent(type="text", text=json.dumps(backtracks))], structured_content=backtracks)
    third_party.start()
    try:
        path = write_registry(tmp_path, lambda d: add_remote(d, third_party.url, more_tools=(
            "ref_out", "deep", "redos", "redos_out")))
        async with serve(path, replicas) as live:
            catalog = live.runtime.generation.catalog
            served = {t.name: t for t in catalog.connectors["derde"].tools}
            cannot = "\n".join(catalog.plugins["derde"].about.cannot)
            async with client(live.url("wetten"), "2026-07-28") as c:  # a built-in connector serves on
                answer = await c.call_tool("search_regulations", {"title": "omzetbelasting", "limit": 1})
            # The remote's answer is not run through its own backtracking pattern here (the SDK's client check
            # is skipped; ours leaves patterns out): it comes back, as the external data it is.
            async with client(live.url("derde"), "2026-07-28") as c:
                await c.list_tools()
                # /health keeps answering while each hostile call is handled (the loop is never held).
                over_out, remote = await slowest_health(live, c.call_tool("redos_out", {}))
                over_in, _ = await slowest_health(live, c.call_tool("redos", {"q": "a" * 27 + "!"}))
    finally:
        third_party.stop()
    assert "ref_out" not in served and "deep" not in served
    assert "ref_out: its inputSchema is not one BesluitBron compiles: it refers outside itself" in cannot
    assert f"deep: its inputSchema is not one BesluitBron compiles: it nests deeper than {SCHEMA_DEPTH_MAX}" in cannot
    assert "pattern" not in str(served["redos"].input_schema)  # served, its regular expression not compiled here
    assert seen == []  # nothing was fetched for the $ref
    assert not answer.is_error
    assert not remote.is_error and data_of(remote)["data"] == backtracks, remote.content
    assert over_out <= 0 and over_in <= 0, (over_out, over_in)  # /health within its limit during both calls


def test_validate_refuses_a_remote_name_that_becomes_a_meta_tool_on_the_aggregate() -> None:
    """`python -m proxy validate` (the registry's rules, offline): prefix `list` plus tool `capabilities` would be
    `list_capabilities` on Alle Bronnen, where the meta tool of that name already is."""
    data = json.loads(REGISTRY.read_text(encoding="utf-8"))
    add_remote(data, "https://notes.example.org/mcp", more_tools=("capabilities",))
    derde = connector_entry(data, "derde")
    derde["prefix"] = "list"
    with pytest.raises(RegistryError, match=r"remote\.tools\[\d+\]: 'list_capabilities' \(the name on the "
                                            r"aggregate connector\) is a meta tool's name"):
        parse_registry(data)


def _roomy(url: str, more_tools: tuple[str, ...] = ()) -> Callable[[dict[str, Any]], None]:
    """The test registry's remote connector with the default 4 MB reply cap (its own is 64 KB), and time to list
    thousands of tools on a busy machine (its own 2 s is for the failure tests)."""
    def edit(data: dict[str, Any]) -> None:
        add_remote(data, url, more_tools=more_tools)
        remote = connector_entry(data, "derde")["remote"]
        remote["max_response_bytes"] = 4 * 1024 * 1024
        remote["timeouts"] = {"connect_seconds": 2, "total_seconds": 30}
    return edit


async def test_a_listing_of_170000_tools_keeps_the_allow_listed_within_bounds_in_one_log_line(
        replicas: Replicas, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    """170,000 tools on 50 pages: BesluitBron reads at most MAX_LISTING_PAGES pages and MAX_LISTED_TOOLS tools,
    keeps only the allow-listed ones (the rest are counted), says so in one line, and serves them."""
    monkeypatch.setenv(ENV, SECRET)
    caplog.set_level(logging.INFO, logger="proxy.remote")
    third_party = ThirdPartyServer(header="Authorization", value=f"Bearer {SECRET}")
    third_party.state.filler = 170_000
    third_party.state.page_size = 3_400
    third_party.start()
    try:
        path = write_registry(tmp_path, _roomy(third_party.url))
        async with serve(path, replicas) as live:
            listing = live.runtime.remote.snapshot()["listings"]["derde"]
            served = [t.name for t in live.runtime.generation.catalog.connectors["derde"].tools]
            cannot = live.runtime.generation.catalog.plugins["derde"].about.cannot
            async with client(live.url("derde"), "2026-07-28") as c:
                found = await c.call_tool("search_notes", {"query": "begroting"})
    finally:
        third_party.stop()
    assert len(listing["tools"]) <= 9 and listing["complete"] is False  # the allow-list only; cut off at the bounds
    assert MAX_LISTED_TOOLS <= listing["listed"] < MAX_LISTED_TOOLS + 3_400
    assert "search_notes" in served and not any(name.startswith("filler_") for name in served)
    assert any("more" in line and "allow-list" in line for line in cannot) and len(cannot) < 20
    said = [r.getMessage() for r in caplog.records if r.getMessage().startswith("remote connector derde: ")]
    assert len(said) == 1 and "cut off there" in said[0] and len(said[0]) < 2_000
    assert not found.is_error


async def test_a_huge_remote_answer_leaves_capped_and_is_not_repeated(
        replicas: Replicas, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A 3.9 MB answer (text, structured data, a long link) leaves bounded: the text cut, each value capped, the
    data dropped past its cap with a note, and the whole response a fraction of what came in."""
    monkeypatch.setenv(ENV, SECRET)
    third_party = ThirdPartyServer(header="Authorization", value=f"Bearer {SECRET}")
    link = "https://notes.example.org/" + "n" * 5_000
    big = {"items": [{"text": "x" * 300_000, "url": link} for _ in range(6)]}  # as JSON text and as data: 3.7 MB
    third_party.state.answers["bulky"] = types.CallToolResult(
        content=[types.TextContent(type="text", text=json.dumps(big))], structured_content=big)
    third_party.state.hostile = [types.Tool(name="bulky", description="Answers megabytes.", annotations=READ_ONLY,
                                            input_schema={"type": "object"})]
    third_party.start()
    try:
        path = write_registry(tmp_path, _roomy(third_party.url, ("bulky",)))
        async with serve(path, replicas) as live, client(live.url("derde"), "2026-07-28") as c:
            result = await c.call_tool("bulky", {})
    finally:
        third_party.stop()
    assert not result.is_error, result.content
    sent = len(json.dumps(result.model_dump(mode="json", by_alias=True)))
    assert sent < 1_500_000, sent  # it came in at 3.7 MB, and once as text, once as data
    data = data_of(result)
    assert len(data["text"]) <= 20_000
    assert all(len(item["uri"]) <= 2_048 for item in data["links"])
