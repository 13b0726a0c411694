"""What an operator watches (issue 23): `/ready` apart from `/health`, and `/metrics` in the Prometheus format.

Real app, real replicas, a real redis-server stopped and started; `/metrics` is read with
prometheus-client's own parser and every counter is checked against what the test sent.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from prometheus_client.parser import text_string_to_metric_families

from proxy.web.app import reload_registry
from tests.conftest import Replicas, serve, write_registry
from tests.redis_server import _free_port, redis_server

MODERN = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json",
          "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call"}
ENVELOPE = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "observe", "version": "1"}}
LEGACY = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                         "clientInfo": {"name": "observe", "version": "1"}}}


async def _get(http: aiohttp.ClientSession, url: str) -> tuple[int, dict[str, Any]]:
    async with http.get(url) as resp:
        return resp.status, await resp.json()


# --------------------------------------------------------------------------- /ready


async def test_ready_and_health_say_the_same_while_redis_is_down(replicas: Replicas, tmp_path: Path) -> None:
    """/ready answered 503 on every process while Redis was down (a load balancer following the docs took the whole
    service down, though every process served on its own state) and /health said degraded: false. It says 503 only
    while Redis answers and this process is still on its own state (the others share Redis; this one's sessions
    and call logs are not theirs), until its recovery has passed."""
    import time

    port = _free_port()
    (tmp_path / "redis").mkdir()
    first = contextlib.ExitStack()
    url = first.enter_context(redis_server(tmp_path / "redis", port))
    try:
        async with serve(write_registry(tmp_path), replicas, redis_url=url) as live, aiohttp.ClientSession() as http:
            status, body = await _get(http, f"{live.base}/ready")
            assert (status, body["status"], body["failed"]) == (200, "ready", [])
            assert body["checks"]["redis"] == {"ok": True, "configured": True, "degraded": False}

            first.close()  # Redis stops
            status, body = await _get(http, f"{live.base}/ready")
            assert (status, body["failed"]) == (200, []) and body["checks"]["redis"]["degraded"] is True
            assert "Redis cannot be reached" in body["checks"]["redis"]["reason"]
            health_status, health = await _get(http, f"{live.base}/health")
            assert health_status == 200 and health["state"]["degraded"] is True  # the same moment, the same word

            with redis_server(tmp_path / "redis", port):  # back on the same address
                deadline = time.monotonic() + 15
                catching_up = []
                while (await _get(http, f"{live.base}/health"))[1]["state"]["degraded"]:
                    assert time.monotonic() < deadline, "the process did not return to Redis"
                    status, body = await _get(http, f"{live.base}/ready")
                    if status == 503:  # Redis answers others, this process is still on its own state: out
                        catching_up.append(body["checks"]["redis"]["reason"])
                    await asyncio.sleep(0.2)
                assert catching_up and "still serves on its own state" in catching_up[0], catching_up
                status, body = await _get(http, f"{live.base}/ready")
                assert (status, body["checks"]["redis"]["degraded"]) == (200, False)
    finally:
        first.close()


async def test_ready_is_503_until_the_site_is_built(replicas: Replicas, tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()  # the directory is there, the build is not
    async with serve(write_registry(tmp_path), replicas, site_dir=site) as live, aiohttp.ClientSession() as http:
        status, body = await _get(http, f"{live.base}/ready")
        assert (status, body["failed"]) == (503, ["site"])
        assert "not built" in body["checks"]["site"]["reason"]
        assert (await _get(http, f"{live.base}/health"))[0] == 200
        (site / "index.html").write_text("<!doctype html><title>BesluitBron</title>", encoding="utf-8")
        status, body = await _get(http, f"{live.base}/ready")
        assert (status, body["failed"], body["checks"]["site"]) == (200, [], {"ok": True, "served": True})


async def test_ready_without_redis_or_site_checks_only_the_registry(server: Any) -> None:
    async with aiohttp.ClientSession() as http:
        status, body = await _get(http, f"{server.base}/ready")
    assert status == 200
    assert body["checks"]["redis"] == {"ok": True, "configured": False}
    assert body["checks"]["site"] == {"ok": True, "served": False}
    assert body["checks"]["registry"]["ok"] is True


# --------------------------------------------------------------------------- /metrics


class Scrape:
    """One /metrics page, parsed by prometheus-client's own parser."""

    def __init__(self, text: str) -> None:
        self.samples = [s for family in text_string_to_metric_families(text) for s in family.samples]

    def value(self, name: str, **labels: str) -> float:
        found = [s.value for s in self.samples
                 if s.name == name and all(s.labels.get(k) == v for k, v in labels.items())]
        return sum(found)


async def _scrape(http: aiohttp.ClientSession, base: str) -> Scrape:
    async with http.get(f"{base}/metrics") as resp:
        assert resp.status == 200
        assert resp.content_type == "text/plain"
        return Scrape(await resp.text())


async def _call(http: aiohttp.ClientSession, url: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"_meta": ENVELOPE, "name": name, "arguments": arguments}}
    async with http.post(url, data=json.dumps(body), headers={**MODERN, "Mcp-Name": name}) as resp:
        return dict(await resp.json())


def _delta(after: Scrape, before: Scrape, name: str, **labels: str) -> float:
    return after.value(name, **labels) - before.value(name, **labels)


def _fast_wetten(data: dict[str, Any]) -> None:
    # 120 a minute: a drained budget refills one call in half a second, well within the 2 s the proxy waits.
    data["platforms"]["wetten"]["limits"]["requests_per_minute"] = 120


async def test_metrics_move_by_exactly_what_was_sent(replicas: Replicas, tmp_path: Path) -> None:
    registry = write_registry(tmp_path, _fast_wetten)
    replicas.faults("wetten").update({"latency_ms": 300})  # long enough for four identical calls to meet
    try:
        async with serve(registry, replicas) as live, aiohttp.ClientSession() as http:
            await _metrics_sequence(live, http)
    finally:
        replicas.clear_faults()


async def _metrics_sequence(live: Any, http: aiohttp.ClientSession) -> None:
    mcp, base, store = live.url("wetten"), live.base, live.runtime.store
    w = {"platform": "wetten"}
    before = await _scrape(http, base)

    # Four identical calls at once: one goes out, three join it.
    same = {"title": "omzetbelasting", "limit": 2}
    answers = await asyncio.gather(*(_call(http, mcp, "search_regulations", same) for _ in range(4)))
    assert [a["result"].get("isError", False) for a in answers] == [False] * 4
    joined = await _scrape(http, base)
    live_after_join = _delta(joined, before, "besluitbron_platform_requests_total", outcome="ok", **w)
    assert live_after_join >= 1
    assert _delta(joined, before, "besluitbron_platform_single_flight_joins_total", **w) == 3 * live_after_join
    assert _delta(joined, before, "besluitbron_platform_cache_hits_total", **w) == 0

    # The same call again: answered from what is kept, one cache hit per platform reply it was built from.
    again = await _call(http, mcp, "search_regulations", same)
    assert not again["result"].get("isError")
    kept = await _scrape(http, base)
    assert _delta(kept, joined, "besluitbron_platform_cache_hits_total", **w) == live_after_join
    assert _delta(kept, joined, "besluitbron_platform_requests_total", **w) == 0

    # The platform budget drained (as other workers on one Redis would): the next call waits for it.
    for _ in range(120):
        assert (await store.take_token("wetten", 120, 2.0))[0]
    waited = await _call(http, mcp, "search_regulations", {"title": "wet", "limit": 1})
    assert not waited["result"].get("isError")
    paced = await _scrape(http, base)
    assert _delta(paced, kept, "besluitbron_platform_rate_limit_waits_total", **w) >= 1
    assert _delta(paced, kept, "besluitbron_platform_rate_limit_refusals_total", **w) == 0

    # Reserved far ahead: the next call is refused without going out.
    for _ in range(20):
        await store.take_token("wetten", 120, 1000.0)
    refused = await _call(http, mcp, "search_regulations", {"title": "regeling", "limit": 1})
    assert refused["result"]["isError"] is True
    limited = await _scrape(http, base)
    assert _delta(limited, paced, "besluitbron_platform_rate_limit_refusals_total", **w) == 1
    assert _delta(limited, paced, "besluitbron_platform_requests_total", **w) == 0

    # A call with a bad argument (an isError result) and an unknown tool (a JSON-RPC error).
    bad = await _call(http, mcp, "search_regulations", {"title": "x", "limit": "many"})
    assert bad["result"]["isError"] is True
    unknown = await _call(http, mcp, "no_such_tool", {})
    assert "error" in unknown

    # A handshake-era session opened and ended.
    async with http.post(mcp, data=json.dumps(INITIALIZE), headers=LEGACY) as resp:
        session = resp.headers["Mcp-Session-Id"]
    opened = await _scrape(http, base)
    assert opened.value("besluitbron_sessions_open", connector="wetten") == 1
    idle = {s.labels["connector"] for s in opened.samples if s.name == "besluitbron_sessions_open" and s.value == 0}
    assert "wetten" not in idle and len(idle) >= 7  # every served connector is listed, at 0 when none is open
    async with http.delete(mcp, headers={"Mcp-Session-Id": session, "MCP-Protocol-Version": "2025-11-25"}) as resp:
        assert resp.status == 200

    # One reload applied, one refused (a broken registry keeps the previous one).
    text = live.registry_path.read_text(encoding="utf-8")
    assert await reload_registry(live.app) is True
    live.registry_path.write_text("{ not json", encoding="utf-8")
    assert await reload_registry(live.app) is False
    live.registry_path.write_text(text, encoding="utf-8")

    after = await _scrape(http, base)
    tool = {"connector": "wetten", "tool": "search_regulations"}
    assert _delta(after, before, "besluitbron_tool_calls_total", outcome="ok", **tool) == 6  # 4 + again + waited
    assert _delta(after, before, "besluitbron_tool_calls_total", outcome="error", **tool) == 2  # refused + bad
    assert _delta(after, before, "besluitbron_tool_calls_total", outcome="failed", connector="wetten",
                  tool="(unknown)") == 1
    assert _delta(after, before, "besluitbron_sessions_opened_total", connector="wetten") == 1
    assert _delta(after, before, "besluitbron_sessions_ended_total", connector="wetten") == 1
    assert after.value("besluitbron_session_streams_open") == 0
    assert after.value("besluitbron_sessions_open", connector="wetten") == 0
    assert _delta(after, before, "besluitbron_registry_reloads_total", outcome="applied") == 1
    assert _delta(after, before, "besluitbron_registry_reloads_total", outcome="refused") == 1
    assert _delta(after, before, "besluitbron_registry_reloads_total", outcome="failed") == 0

    # Every exchange sent is one latency observation, and only the first four calls and the paced one sent any.
    sent = _delta(after, before, "besluitbron_platform_requests_total", **w)
    assert sent == _delta(after, before, "besluitbron_platform_request_seconds_count", **w)
    # The replica waits 0.3 s before each answer: the latency histogram saw it.
    assert _delta(after, before, "besluitbron_platform_request_seconds_sum", **w) >= 0.25 * sent
    assert _delta(after, before, "besluitbron_platform_request_seconds_bucket", le="+Inf", **w) == sent
    assert _delta(after, before, "besluitbron_platform_requests_total", outcome="error", **w) == 0
    assert sent == live_after_join + _delta(paced, kept, "besluitbron_platform_requests_total", **w)


async def test_pages_carry_the_browser_protections_and_no_response_names_versions(
        replicas: Replicas, tmp_path: Path) -> None:
    """Issue 27: the site's pages (and its 404) send a content policy for this origin, nosniff, no framing and a
    referrer policy; no response names aiohttp's or Python's version in `Server`."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text("<!doctype html><title>BesluitBron</title>", encoding="utf-8")
    (site / "404.html").write_text("<!doctype html><title>Niet gevonden</title>", encoding="utf-8")
    async with serve(write_registry(tmp_path), replicas, site_dir=site) as live, aiohttp.ClientSession() as http:
        for path, status in (("/", 200), ("/no-such-page.html", 404)):
            async with http.get(f"{live.base}{path}") as resp:
                assert resp.status == status
                policy = resp.headers["Content-Security-Policy"]
                assert "default-src 'self'" in policy and "frame-ancestors 'none'" in policy
                assert resp.headers["X-Content-Type-Options"] == "nosniff"
                assert resp.headers["X-Frame-Options"] == "DENY" and "Referrer-Policy" in resp.headers
                assert resp.headers["Server"] == "BesluitBron"
        for path in ("/health", "/wetten/mcp", "/metrics"):
            async with http.get(f"{live.base}{path}", allow_redirects=False) as resp:
                assert resp.headers.get("Server") == "BesluitBron", path


async def test_metrics_answer_only_the_clients_the_registry_names(replicas: Replicas, tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Behind the trusted proxy (loopback here) a public client asking for /metrics gets 403 before any work; this
    machine, a network `server.metrics.allow_networks` names, or the token of `token_env` get the page."""
    monkeypatch.setenv("TEST_METRICS_TOKEN", "s3cret-token-for-prometheus")

    def access(data: dict[str, Any]) -> None:
        data["server"]["metrics"] = {"allow_networks": ["127.0.0.0/8", "198.51.100.0/24"],
                                     "token_env": "TEST_METRICS_TOKEN"}

    async with serve(write_registry(tmp_path, access), replicas) as live, aiohttp.ClientSession() as http:
        async def status(forwarded: str | None, token: str | None = None) -> int:
            headers = {"X-Forwarded-For": forwarded} if forwarded else {}
            if token is not None:
                headers["Authorization"] = f"Bearer {token}"
            async with http.get(f"{live.base}/metrics", headers=headers) as resp:
                body = await resp.text()
                assert (resp.status == 200) == ("besluitbron_tool_calls" in body), body[:200]
                return resp.status

        assert await status(None) == 200  # this machine
        assert await status("198.51.100.7") == 200  # a network the registry names
        assert await status("203.0.113.9") == 403  # the public, through the proxy
        assert await status("2001:db8::1") == 403
        assert await status("203.0.113.9", "s3cret-token-for-prometheus") == 200
        assert await status("203.0.113.9", "s3cret-token-for-prometheu") == 403
        assert await status("203.0.113.9", "") == 403


async def test_metrics_by_default_answer_this_machine_only(replicas: Replicas, tmp_path: Path) -> None:
    async with serve(write_registry(tmp_path), replicas) as live, aiohttp.ClientSession() as http:
        async with http.get(f"{live.base}/metrics", headers={"X-Forwarded-For": "203.0.113.9"}) as resp:
            assert resp.status == 403 and "server.metrics" in await resp.text()
        async with http.get(f"{live.base}/metrics", headers={"X-Forwarded-For": "127.0.0.1"}) as resp:
            assert resp.status == 200
