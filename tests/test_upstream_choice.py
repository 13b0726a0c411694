"""Issue 39: `make run` (`serve --upstream auto`) serves each platform live when it answers at start and from the
offline sample when it does not, and says which per source: at start-up, in /health and in every answer.

The real `python -m proxy serve` runs as a subprocess against stand-ins on loopback only: the Wetten "platform" is
the replica app on a port of its own (it answers the canary as the real service does), every other platform's
address is a closed loopback port (it refuses). No request leaves this machine.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import aiohttp
import pytest

from proxy.maintain.upstreams import choose_upstreams
from proxy.results.sample import META_KEY
from tests.conftest import client, listen, write_registry
from tests.conftest_mcp import meta_of, text_of

ROOT = Path(__file__).resolve().parents[1]
LIVE = "wetten"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
async def stand_in() -> AsyncIterator[str]:
    """The Wetten replica alone, standing in for the live platform (its real paths, on loopback)."""
    from proxy.replica import create_replicas_app

    runner, url = await listen(create_replicas_app([LIVE]))
    yield f"{url}/{LIVE}"
    await runner.cleanup()


def _registry(tmp_path: Path, stand_in: str) -> tuple[Path, int]:
    """The shipped registry with Wetten at the stand-in and every other platform at a refusing loopback port."""
    refusing = _free_port()

    def edit(data: dict[str, Any]) -> None:
        for key, platform in data["platforms"].items():
            path = urlsplit(platform["base_url"]).path  # kept, so the sample's replica is found under it
            platform["base_url"] = (stand_in + path if key == LIVE else f"http://127.0.0.1:{refusing}{path}")

    return write_registry(tmp_path, edit), refusing


async def test_choice_live_where_the_canary_is_answered(tmp_path: Path, stand_in: str) -> None:
    from proxy.registry.model import load_registry

    path, _ = _registry(tmp_path, stand_in)
    registry = load_registry(path)
    keys = list(registry.platforms)
    choice = await choose_upstreams(registry, keys, "auto", within=10)
    assert choice.live == (LIVE,), choice.reasons
    assert set(choice.sampled) == set(keys) - {LIVE}
    assert choice.reasons[LIVE] == "its canary was answered"
    assert all("unreachable" in choice.reasons[k] for k in choice.sampled), choice.reasons
    forced = await choose_upstreams(registry, keys, "replica")
    assert forced.live == () and set(forced.sampled) == set(keys)
    assert (await choose_upstreams(registry, keys, "real")).sampled == ()


async def _read_until(stream: asyncio.StreamReader, marker: str, timeout: float) -> list[str]:
    lines: list[str] = []
    async with asyncio.timeout(timeout):
        while not any(marker in line for line in lines):
            raw = await stream.readline()
            if not raw:
                raise AssertionError("serve stopped before it was ready:\n" + "".join(lines))
            lines.append(raw.decode())
    return lines


async def test_serve_auto_says_per_source_live_or_sample(tmp_path: Path, stand_in: str) -> None:
    path, _ = _registry(tmp_path, stand_in)
    port, replica_port = _free_port(), _free_port()
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "proxy", "serve", "--upstream", "auto", "--registry", str(path), "--port", str(port),
        "--replica-port", str(replica_port), "--trace-key-file", str(tmp_path / "trace-key"),
        cwd=ROOT, env={**os.environ, "PYTHONUNBUFFERED": "1"},
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
    try:
        assert proc.stdout is not None
        said = "".join(await _read_until(proc.stdout, "BesluitBron on", 90))
        sources = said.split("sources:", 1)[1].split("BesluitBron on", 1)[0].strip().splitlines()
        titles = {key: p["title"]["nl"] for key, p in json.loads(path.read_text("utf-8"))["platforms"].items()}
        said_of = {key: next(line for line in sources if line.strip().startswith(title))
                   for key, title in titles.items()}
        assert said_of[LIVE].rstrip().endswith("live (its canary was answered)"), sources
        assert all("offline sample (unreachable" in said_of[k] for k in titles if k != LIVE), sources
        base = f"http://127.0.0.1:{port}"
        async with aiohttp.ClientSession() as http, http.get(f"{base}/health") as resp:
            health = await resp.json()
        sample = health["sample_data"]
        assert sample["live"] == [LIVE] and LIVE not in sample["recorded_on"] and len(sample["recorded_on"]) == 6
        async with client(f"{base}/wetten/mcp", "2026-07-28") as c:
            live = await c.call_tool("read_article", {"identifier": "BWBR0003984", "article": "2"})
            assert not live.is_error and not text_of(live).startswith("SAMPLE DATA")
            assert META_KEY not in (live.meta or {}) and "sample_notice" not in (live.structured_content or {})
        async with client(f"{base}/rechtspraak/mcp", "2026-07-28") as c:
            sampled = await c.call_tool("search_rulings", {"query": "redelijke termijn"})
            assert text_of(sampled).startswith("SAMPLE DATA") and meta_of(sampled)[META_KEY]["sample"] is True
            assert sampled.structured_content and "sample_notice" in sampled.structured_content
            status = await c.call_tool("platform_status", {})
            assert status.structured_content and status.structured_content["sample_data"]["recorded_on"]
        print("\n" + "\n".join(sources))
    finally:
        proc.terminate()
        await asyncio.wait_for(proc.wait(), 30)

