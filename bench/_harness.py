"""What every benchmark here shares: server subprocesses, core pinning, a local Redis, and the Python load generator.

Servers run as subprocesses of `bench/servers.py` (pinned to the first core when the machine has
two or more); load generators run on the second: `wrk` (bench/wrk_load.py) for every throughput figure,
and the aiohttp generator here (`run_load`, `post`, `open_session`) where a client must do protocol work
(sessions, sample replies) or where one call at a time is the point. Both only ever target 127.0.0.1.
Besides calls/s and latency they read the server's CPU time from /proc. `RedisServer` starts a private
redis-server for the scale-out measurements and can count (INFO commandstats) and record (MONITOR) what
it is asked.
"""

from __future__ import annotations

import asyncio
import json
import os
import shlex
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp

__all__ = [
    "ACCEPT",
    "CORES",
    "LEGACY",
    "LOOP",
    "LOOPBACK",
    "MODERN",
    "ROOT",
    "Child",
    "Measurement",
    "RedisMonitor",
    "RedisServer",
    "affinity",
    "core_set",
    "free_port",
    "median",
    "open_session",
    "pin",
    "post",
    "rss_bytes",
    "run_load",
    "server_cpu_seconds",
]

ROOT = Path(__file__).resolve().parent.parent
LOOPBACK = "127.0.0.1"
MODERN = "2026-07-28"
LEGACY = "2025-11-25"
ACCEPT = "application/json, text/event-stream"
# The event loop every server here runs on: the product's default (`python -m proxy serve --loop`), so BesluitBron
# is measured as it serves and the bare handler, the SDK and FastMCP on the same loop beside it.
LOOP = os.environ.get("BESLUITBRON_BENCH_LOOP", "uvloop")


# The cores the benchmark may use, read once before anything is pinned and handed down to every child through
# the environment: a process pinned to one core passes that one core on to what it starts, so reading its own
# affinity again (as this harness once did) put every server on the load generator's core.
_CORES_ENV = "BESLUITBRON_BENCH_CORES"
if hasattr(os, "sched_getaffinity"):
    os.environ.setdefault(_CORES_ENV, ",".join(str(c) for c in sorted(os.sched_getaffinity(0))))
CORES: tuple[int, ...] = tuple(int(c) for c in os.environ.get(_CORES_ENV, "").split(",") if c)


def core_set(core: int | None) -> set[int] | None:
    """The `core`-th of the benchmark's cores as an affinity set; all of them for None; None if unknown or < 2."""
    if len(CORES) < 2 or not hasattr(os, "sched_setaffinity"):
        return None
    return set(CORES) if core is None else {CORES[core % len(CORES)]}


def pin(core: int | None) -> None:
    """Pin this process to the `core`-th core of the benchmark's (all of them for None), when it has two or more."""
    chosen = core_set(core)
    if chosen is not None:
        os.sched_setaffinity(0, chosen)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((LOOPBACK, 0))
        return int(sock.getsockname()[1])


def server_cpu_seconds(pid: int) -> float:
    """utime + stime of a process (Linux /proc); 0 elsewhere."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_bytes(pid: int) -> int:
    """Resident memory of a process (Linux /proc); 0 elsewhere."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def stop_process(proc: subprocess.Popen[Any], *, grace: float = 10) -> None:
    """SIGTERM, then SIGKILL if it has not exited within `grace` seconds."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


class Child:
    """One `bench/servers.py ROLE` subprocess on a free loopback port; started, then stopped on exit."""

    def __init__(self, role: str, *args: str, core: int | None = 0, port: int | None = None,
                 wrapper: Sequence[str] = (), root: Path = ROOT) -> None:
        """`wrapper`: a command the server runs under (valgrind, say); `root`: the checkout whose code it runs (another
        commit's worktree, for an A/B), with this interpreter and its packages."""
        self.role = role
        self.port = port or free_port()
        cmd = [*wrapper, sys.executable, str(root / "bench" / "servers.py"), role, "--port", str(self.port), "--loop",
               LOOP, *args]
        if core is not None:
            cmd += ["--core", str(core)]
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(root), os.environ.get("PYTHONPATH")]))}
        # Pinned from the start (and again by the role's own --core): never the core of whoever started it.
        self._proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, env=env, preexec_fn=affinity(core))
        assert self._proc.stdout is not None
        line = self._proc.stdout.readline().strip()
        if line != "ready":
            self.stop()
            raise RuntimeError(f"bench server {role!r} did not start (said {line!r})")

    @property
    def pid(self) -> int:
        return self._proc.pid

    @property
    def base(self) -> str:
        return f"http://{LOOPBACK}:{self.port}"

    def stop(self) -> None:
        stop_process(self._proc)

    def __enter__(self) -> Child:
        return self

    def __exit__(self, *_: object) -> None:
        self.stop()


class RedisServer:
    """A local `redis-server` on a loopback port of its own (no persistence), pinned to `core`; stopped on exit.

    `commandstats()` reads INFO commandstats (calls per command); `monitor()` records every command Redis
    receives while it is open (`redis-cli monitor`), to count and name the round trips of a call.
    """

    def __init__(self, directory: Path, *, core: int | None = 1) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            raise RuntimeError("redis-server is not installed (Debian package redis-server; `make system-deps`)")
        self.port = free_port()
        self.url = f"redis://{LOOPBACK}:{self.port}/0"
        self._proc = subprocess.Popen(
            [binary, "--port", str(self.port), "--bind", LOOPBACK, "--save", "", "--appendonly", "no",
             "--dir", str(directory)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            preexec_fn=affinity(core))
        deadline = time.monotonic() + 10
        while True:
            try:
                if self.command("PING").startswith(b"+PONG"):
                    break
            except OSError:
                pass
            if time.monotonic() > deadline or self._proc.poll() is not None:
                self.stop()
                raise RuntimeError("redis-server did not start")
            time.sleep(0.05)

    @staticmethod
    def installed() -> bool:
        return shutil.which("redis-server") is not None

    @property
    def pid(self) -> int:
        return self._proc.pid

    def command(self, *words: str) -> bytes:
        """One inline command, its raw reply (enough for PING, INFO and CONFIG RESETSTAT)."""
        with socket.create_connection((LOOPBACK, self.port), timeout=2) as sock:
            sock.sendall(" ".join(words).encode() + b"\r\n")
            reply = sock.recv(65536)
            if reply.startswith(b"$"):  # a bulk string: read all of it
                size = int(reply[1:reply.index(b"\r\n")])
                while len(reply) < size + len(str(size)) + 5:
                    more = sock.recv(65536)
                    if not more:
                        break
                    reply += more
            return reply

    def commandstats(self) -> dict[str, int]:
        """Calls per command so far (INFO commandstats), e.g. {"get": 1200, "multi": 600}."""
        counts = {}
        for line in self.command("INFO", "commandstats").decode().splitlines():
            if line.startswith("cmdstat_"):
                name, fields = line[len("cmdstat_"):].split(":", 1)
                counts[name] = int(dict(f.split("=") for f in fields.split(","))["calls"])
        return counts

    def monitor(self) -> RedisMonitor:
        return RedisMonitor(self.port)

    def stop(self) -> None:
        stop_process(self._proc)

    def __enter__(self) -> RedisServer:
        return self

    def __exit__(self, *_: object) -> None:
        self.stop()


class RedisMonitor:
    """`redis-cli monitor` while the `with` block runs; `commands` then holds (client, command words) in order.

    The client is "addr:port" of the connection that sent it, or "lua" for a command a script ran.
    """

    def __init__(self, port: int) -> None:
        self._port = port
        self.commands: list[tuple[str, list[str]]] = []

    def __enter__(self) -> RedisMonitor:
        cli = shutil.which("redis-cli")
        if cli is None:
            raise RuntimeError("redis-cli is not installed (Debian package redis-tools, which redis-server brings)")
        self._proc = subprocess.Popen([cli, "-h", LOOPBACK, "-p", str(self._port), "monitor"],
                                      stdout=subprocess.PIPE, text=True)
        assert self._proc.stdout is not None
        if self._proc.stdout.readline().strip() != "OK":
            raise RuntimeError("redis-cli monitor did not start")
        return self

    def __exit__(self, *_: object) -> None:
        time.sleep(0.2)  # let the last commands reach the monitor
        self._proc.terminate()
        out, _ = self._proc.communicate(timeout=10)
        for line in out.splitlines():
            head, _, rest = line.partition("] ")
            if not rest or " [" not in head:
                continue
            client = head.split(" [", 1)[1].split(" ", 1)[-1]
            self.commands.append((client, shlex.split(rest)))


def affinity(core: int | None) -> Callable[[], None] | None:
    """A preexec_fn pinning a child process as `pin(core)` would (None: free to use every core), or None."""
    chosen = core_set(core)
    if chosen is None:
        return None
    return lambda: os.sched_setaffinity(0, chosen)


@dataclass(frozen=True)
class Measurement:
    calls: int
    calls_per_s: float
    p50_ms: float
    p99_ms: float
    cpu_us_per_call: float  # 0 when the server's CPU cannot be read

    def as_dict(self) -> dict[str, float]:
        return {"calls_per_s": self.calls_per_s, "p50_ms": self.p50_ms, "p99_ms": self.p99_ms,
                "cpu_us_per_call": self.cpu_us_per_call}


def _check_loopback(url: str) -> None:
    if not url.startswith(f"http://{LOOPBACK}:"):
        raise ValueError(f"the load generator only targets {LOOPBACK}, not {url}")


async def post(http: aiohttp.ClientSession, url: str, body: dict[str, Any], headers: dict[str, str]
               ) -> tuple[int, dict[str, str], bytes]:
    _check_loopback(url)
    async with http.post(url, data=json.dumps(body), headers=headers) as response:
        return response.status, dict(response.headers), await response.read()


async def open_session(http: aiohttp.ClientSession, url: str) -> str:
    """A legacy-era session: initialize, then the initialized notification."""
    headers = {"Accept": ACCEPT, "Content-Type": "application/json"}
    init = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": LEGACY, "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}}}
    status, got, payload = await post(http, url, init, headers)
    if status != 200:
        raise RuntimeError(f"initialize at {url}: {status} {payload[:200]!r}")
    session = got.get("Mcp-Session-Id") or got.get("mcp-session-id") or ""
    headers = {**headers, "MCP-Protocol-Version": LEGACY, **({"Mcp-Session-Id": session} if session else {})}
    await post(http, url, {"jsonrpc": "2.0", "method": "notifications/initialized"}, headers)
    return session


async def run_load(url: str, prepared: Sequence[tuple[dict[str, str], dict[str, Any]]], *, calls: int,
                   pid: int | None, check: Callable[[int, bytes], None]) -> Measurement:
    """`calls` POSTs spread over one concurrent worker per entry of `prepared` (after a 10 % warm-up).

    `prepared[worker]` is that worker's headers and body (the id is rewritten per call); `check`
    raises on a wrong answer, so a fast error never counts as a fast call.
    """
    _check_loopback(url)
    clients = len(prepared)
    connector = aiohttp.TCPConnector(limit=clients)
    latencies: list[float] = []
    async with aiohttp.ClientSession(connector=connector) as http:

        async def worker(index: int, count: int, record: bool) -> None:
            headers, body = prepared[index]
            body = dict(body)
            for i in range(count):
                body["id"] = index * 1_000_000 + i
                data = json.dumps(body)
                started = time.perf_counter()
                async with http.post(url, data=data, headers=headers) as response:
                    payload = await response.read()
                if record:
                    latencies.append(time.perf_counter() - started)
                check(response.status, payload)

        per_worker = max(1, calls // clients)
        await asyncio.gather(*(worker(i, max(1, per_worker // 10), False) for i in range(clients)))
        cpu_before = server_cpu_seconds(pid) if pid else 0.0
        started = time.perf_counter()
        await asyncio.gather(*(worker(i, per_worker, True) for i in range(clients)))
        elapsed = time.perf_counter() - started
        cpu = (server_cpu_seconds(pid) - cpu_before) if pid else 0.0
    latencies.sort()
    done = len(latencies)
    return Measurement(calls=done, calls_per_s=done / elapsed, p50_ms=latencies[done // 2] * 1000,
                       p99_ms=latencies[min(done - 1, int(done * 0.99))] * 1000, cpu_us_per_call=cpu / done * 1e6)


def median(values: Sequence[float]) -> float:
    ordered = sorted(values)
    mid = len(ordered) // 2
    return ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2
