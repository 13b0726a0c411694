"""Graceful restarts (issue 16, item 7): the real `python -m proxy serve` in a child process, stopped
with SIGTERM while calls are in flight; what must outlive a restart does."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from mcp import Client

from proxy.core.trace import TRACE_META_KEY
from tests.conftest import ROOT, Replicas, serve, write_registry
from tests.conftest_mcp import data_of, meta_of

MODERN = "2026-07-28"
ENVELOPE = {"io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "restart-test", "version": "1"}}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def proxy_process(registry: Path, replicas: Replicas, tmp: Path, *extra: str,
                  preexec: Callable[[], None] | None = None) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    """`python -m proxy serve` against the test's replicas; yields the process and its base URL."""
    port = _free_port()
    log = (tmp / f"serve-{port}.log").open("wb")
    proc = subprocess.Popen(
        [sys.executable, "-m", "proxy", "serve", "--port", str(port), "--registry", str(registry),
         "--replica-url", replicas.url, "--trace-key-file", str(tmp / "trace-key"), *extra],
        cwd=tmp, env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=log, stderr=subprocess.STDOUT,
        preexec_fn=preexec)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                    break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError((tmp / f"serve-{port}.log").read_text()) from None
                time.sleep(0.1)
        yield proc, base
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=30)
        log.close()


async def _modern_call(http: aiohttp.ClientSession, url: str, name: str, arguments: dict[str, Any],
                      client: str = "192.0.2.1") -> Any:
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"_meta": ENVELOPE, "name": name, "arguments": arguments}}
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json",
               "MCP-Protocol-Version": MODERN, "Mcp-Method": "tools/call", "Mcp-Name": name,
               "X-Forwarded-For": client}  # several clients: each has its share of the platform's budget
    async with http.post(url, data=json.dumps(body), headers=headers) as resp:
        assert resp.status == 200
        return (await resp.json())["result"]


async def test_sigterm_lets_twenty_calls_in_flight_finish(replicas: Replicas, tmp_path: Path) -> None:
    replicas.faults("wetten").update({"latency_ms": 3000})
    try:
        with proxy_process(write_registry(tmp_path), replicas, tmp_path) as (proc, base):
            # One connection per call, all sent before the signal (an unsent request would rightly be refused).
            async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as http:
                calls = [asyncio.ensure_future(_modern_call(http, f"{base}/wetten/mcp", "search_regulations",
                                                            {"title": f"wet {i}", "limit": 1}, f"198.18.{i % 4}.1"))
                         for i in range(20)]
                await asyncio.sleep(1.5)  # all twenty are waiting on the slow platform now
                assert not any(c.done() for c in calls)
                proc.send_signal(signal.SIGTERM)
                answered = await asyncio.wait_for(asyncio.gather(*calls, return_exceptions=True), 30)
            assert [not isinstance(a, BaseException) and not a.get("isError") for a in answered] == [True] * 20, \
                answered
            assert await asyncio.to_thread(proc.wait, 30) == 0
    finally:
        replicas.clear_faults()


async def test_a_trace_handle_outlives_a_restart(replicas: Replicas, tmp_path: Path) -> None:
    registry = write_registry(tmp_path)
    with proxy_process(registry, replicas, tmp_path) as (proc, base):
        async with Client(f"{base}/wetten/mcp", mode=MODERN) as client:
            handle = meta_of(await client.call_tool("search_regulations", {"title": "wet", "limit": 1}))[TRACE_META_KEY]
        proc.send_signal(signal.SIGTERM)
        assert await asyncio.to_thread(proc.wait, 30) == 0
    with proxy_process(registry, replicas, tmp_path) as (proc, base):
        async with Client(f"{base}/wetten/mcp", mode=MODERN) as client:
            again = await client.call_tool("list_platform_calls", {"trace": handle})
    assert not again.is_error, again.content
    assert data_of(again)["trace"] == handle


async def test_shutdown_removes_this_process_site_generations(replicas: Replicas, tmp_path: Path) -> None:
    root = tmp_path / "site-generations"
    own, other = root / "site-own", root / "site-other-process"
    for generation in (own, other):
        generation.mkdir(parents=True)
        (generation / "index.html").write_text("<h1>BesluitBron</h1>", encoding="utf-8")
    async with serve(write_registry(tmp_path), replicas, site_dir=own, site_build_root=root) as live, \
            aiohttp.ClientSession() as http, http.get(f"{live.base}/") as resp:
        assert resp.status == 200
    assert not own.exists() and other.exists()


@pytest.fixture(autouse=True)
def _no_stray_key(tmp_path: Path) -> Iterator[None]:
    yield
    key = tmp_path / "trace-key"
    assert not key.exists() or key.stat().st_mode & 0o077 == 0  # the key is readable by its owner only


async def test_a_connection_flood_at_the_file_limit_neither_starves_clients_nor_floods_the_log(
        replicas: Replicas, tmp_path: Path) -> None:
    """Item 4: 300 connections that never finish a header, against a process allowed 128 files."""
    import resource

    def low_file_limit() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (128, 128))

    with proxy_process(write_registry(tmp_path), replicas, tmp_path, "--idle-timeout", "1",
                       preexec=low_file_limit) as (proc, base):
        host, port = base.removeprefix("http://").split(":")
        slow = []
        for _ in range(300):
            sock = socket.socket()
            sock.setblocking(False)
            with contextlib.suppress(BlockingIOError):
                sock.connect((host, int(port)))
            slow.append(sock)
        await asyncio.sleep(0.3)
        for sock in slow:
            with contextlib.suppress(OSError):
                sock.send(b"GET /health HTTP/1.1\r\nHost: " + host.encode() + b"\r\nX-Slow: ")
        started = time.monotonic()
        async with aiohttp.ClientSession() as http:
            while True:  # a normal client gets through once the slow ones have timed out
                try:
                    async with http.get(f"{base}/health", timeout=aiohttp.ClientTimeout(total=2)) as resp:
                        if resp.status == 200:
                            break
                except (aiohttp.ClientError, TimeoutError):
                    pass
                assert time.monotonic() - started < 15, "a normal client was starved"
        await asyncio.sleep(2)  # several accept() retries happen meanwhile
        for sock in slow:
            sock.close()
        proc.send_signal(signal.SIGTERM)
        await asyncio.to_thread(proc.wait, 30)
    log = next(tmp_path.glob("serve-*.log")).read_text()
    assert "Traceback" not in log, log[-2000:]
    assert log.count("no file descriptors left") <= 1
