"""Every platform adapter under its replica's faults (HTTP 500 and 503, a garbled body, an oversized body,
no answer in time): each call fails with the matching UpstreamError, whose message names the platform; the
platform is marked unavailable; once the fault is gone the same context answers again and is available."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import pytest

from proxy.errors import UpstreamBadReply, UpstreamError, UpstreamStatusError, UpstreamTimeout, UpstreamTooLarge
from proxy.registry import Timeouts
from tests.platform_harness import platform_harness

NOW = datetime(2026, 11, 30, 9, 30, tzinfo=UTC)
CAP = 50_000  # max_response_bytes under test
WAIT = 0.3  # connect and total timeout under test, in seconds


@dataclass(frozen=True)
class Probe:
    title: str  # how the platform's errors name it
    calls: tuple[tuple[str, dict[str, Any]], ...]  # each must fail under every fault; the last one also recovers
    recovered: Callable[[dict[str, Any]], bool]  # holds for the last call's result once the fault is gone


PROBES = {
    "lokaal": Probe("Local official publications",
                    (("search_publications", {"query": "parkeren", "limit": 3}),),
                    lambda r: r["precision"]["total"] is not None),
    "officieel": Probe("Official publications",
                       (("read_publication", {"identifier": "kv-2989900822"}),),
                       lambda r: r["title"].startswith("Mondelinge vragen van het lid Atsma")),
    "wetten": Probe("Legislation",
                    (("read_article", {"identifier": "BWBR0003984", "article": "2"}),),
                    lambda r: r["label"] == "Artikel 2"),
    "ori": Probe("Open Raadsinformatie",
                 (("list_organisations", {}),
                  ("read_document", {"id": "document:notubiz:gemeente:amsterdam:7636790", "length": 200})),
                 lambda r: r["organisation"] == "Amsterdam"),
    "rechtspraak": Probe("Case law",
                         (("search_rulings", {"court": "HR"}),
                          ("read_ruling", {"ecli": "ECLI:NL:RBAMS:2010:BO3979"})),
                         lambda r: r["court"] == "Rechtbank Amsterdam" and r["has_text"] is True),
    "woo": Probe("Open Government",
                 (("search_publications", {}),
                  ("search_publications", {"query": "Wob-verzoek"})),
                 lambda r: r["precision"]["total"] > 0),
    "tweedekamer": Probe("House of Representatives",
                         (("search_cases", {"query": "motie"}),
                          ("search_members", {}),
                          ("search_documents", {"query": "stikstof"})),
                         lambda r: r["precision"]["total"] > 0),
}

FAULTS = [
    pytest.param({"error_rate": 1.0}, UpstreamStatusError, "HTTP 500", id="500"),
    pytest.param({"error_rate": 1.0, "status": 503}, UpstreamStatusError, "HTTP 503", id="503"),
    pytest.param({"malformed": True}, UpstreamBadReply, "could not be read", id="malformed"),
    pytest.param({"oversize_bytes": CAP + 10_000}, UpstreamTooLarge, f"more than the {CAP}-byte cap", id="oversize"),
    pytest.param({"latency_ms": 800}, UpstreamTimeout, f"did not answer within {WAIT:g} s", id="timeout"),
]


@pytest.mark.parametrize("key", list(PROBES))
@pytest.mark.parametrize(("faults", "error", "words"), FAULTS)
async def test_failures_are_readable_then_recover(key: str, faults: dict[str, Any], error: type[UpstreamError],
                                                  words: str) -> None:
    probe = PROBES[key]
    async with platform_harness(key, NOW) as h:
        tight = h.context(max_response_bytes=CAP, timeouts=Timeouts(connect_seconds=WAIT, total_seconds=WAIT))
        store = tight.upstream._store
        h.faults.update(faults)
        for tool, arguments in probe.calls:
            with pytest.raises(error, match=re.escape(words)) as caught:
                await h.call(tool, ctx=tight, **arguments)
            assert probe.title in str(caught.value) and caught.value.platform == key
            if isinstance(caught.value, UpstreamStatusError):
                assert caught.value.status == faults.get("status", 500)
            assert (await store.availability(key) or {}).get("available") is False, tool
        h.faults.clear()
        tool, arguments = probe.calls[-1]
        assert probe.recovered(await h.call(tool, ctx=tight, **arguments))
        assert (await store.availability(key) or {}).get("available") is True
