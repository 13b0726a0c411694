"""What every benchmark here shares: server subprocesses, core pinning and one load generator.

Servers run as subprocesses of `bench/servers.py` (pinned to the first core when the machine has
two or more); the load generator runs in this process, pinned to the second core. It only ever
targets 127.0.0.1. Besides calls/s and latency it reads the server's CPU time from /proc, the
fairer figure when the client core is the bottleneck.
"""

from __future__ import annotations

import asyncio
import json
import os
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
    "LEGACY",
    "LOOPBACK",
    "MODERN",
    "ROOT",
    "Child",
    "Measurement",
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


def pin(core: int) -> None:
    """Pin this process to the `core`-th allowed core when there are at least two."""
    if hasattr(os, "sched_setaffinity") and len(os.sched_getaffinity(0)) >= 2:
        cores = sorted(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {cores[core % len(cores)]})


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


class Child:
    """One `bench/servers.py ROLE` subprocess on a free loopback port; started, then stopped on exit."""

    def __init__(self, role: str, *args: str, core: int | None = 0) -> None:
        self.role = role
        self.port = free_port()
        cmd = [sys.executable, str(ROOT / "bench" / "servers.py"), role, "--port", str(self.port), *args]
        if core is not None:
            cmd += ["--core", str(core)]
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
        self._proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, env=env)
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
        if self._proc.poll() is None:
            self._proc.terminate()
            try:
                self._proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()

    def __enter__(self) -> Child:
        return self

    def __exit__(self, *_: object) -> None:
        self.stop()


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
