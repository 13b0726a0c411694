"""The C load generator: `wrk` (one thread, on the core the server does not have), driven from Python.

The Python generator of `bench._harness.run_load` saturates its own core long before a fast server does
(the bare aiohttp handler: about 2,700 calls/s under it, 5,600–8,900/s under wrk), so every throughput
figure of `make bench` comes from here. Python still does what needs a protocol-speaking client: opening
2025-11-25 sessions (initialize + notifications/initialized, `bench._harness.open_session`), reading
the answer BesluitBron gives, and checking one sample reply per measurement before wrk runs.

`bench/wrk/mcp.lua` sends the request with a fresh JSON-RPC id each time, rotates the session ids it is
given, checks every reply (HTTP 200 and the expected substrings), and prints one JSON line at the end.
A measurement with any socket error, non-2xx reply or wrong body raises: a fast error never counts.
"""

from __future__ import annotations

import json
import os
import re
import resource
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp

from bench._harness import LOOPBACK, affinity, server_cpu_seconds

__all__ = ["MISSING", "SCRIPT", "WrkMeasurement", "available", "children_of", "measure", "verify_sample",
           "write_spec"]

SCRIPT = Path(__file__).resolve().parent / "wrk" / "mcp.lua"
MISSING = ("wrk is not installed (the Debian package `wrk`; `make system-deps` installs it): "
           "the parts measured with the C load generator are skipped")
_SENTINEL = 987_654_321  # the JSON-RPC id in the template body; wrk puts its own counter in its place


def available() -> bool:
    """Whether wrk is on PATH (BESLUITBRON_BENCH_NO_WRK=1 pretends it is not: the test of the skip path)."""
    return shutil.which("wrk") is not None and not os.environ.get("BESLUITBRON_BENCH_NO_WRK")


@dataclass(frozen=True)
class WrkMeasurement:
    """One wrk run: throughput, latency, the server's CPU per call, and how busy wrk's own core was."""

    calls: int
    seconds: float
    calls_per_s: float
    p50_ms: float
    p90_ms: float
    p99_ms: float
    cpu_us_per_call: float  # the server's processes (utime + stime from /proc) ÷ calls; 0 if unreadable
    generator_busy: float  # wrk's CPU time ÷ wall time: well below 1 means wrk was not the bottleneck
    errors: Mapping[str, int] = field(default_factory=dict)  # connect/read/write/timeout/status/bad (all 0)
    extra_cpu_us_per_call: Mapping[str, float] = field(default_factory=dict)  # other processes (redis-server)

    def as_dict(self) -> dict[str, Any]:
        return {"calls": self.calls, "seconds": self.seconds, "calls_per_s": self.calls_per_s, "p50_ms": self.p50_ms,
                "p90_ms": self.p90_ms, "p99_ms": self.p99_ms, "cpu_us_per_call": self.cpu_us_per_call,
                "generator_busy": self.generator_busy, "errors": dict(self.errors),
                "extra_cpu_us_per_call": dict(self.extra_cpu_us_per_call)}


def _lua_string(text: str) -> str:
    """`text` as a Lua long-bracket literal (no escapes inside; a level whose closer does not occur)."""
    level = 0
    while f"]{'=' * level}]" in text:
        level += 1
    eq = "=" * level
    return f"[{eq}[{text}]{eq}]"


def write_spec(directory: Path, url: str, headers: Mapping[str, str], body: Mapping[str, Any] | None, *,
               sessions: Sequence[str] = (), expect: Sequence[str] = (), reject: Sequence[str] = ()) -> Path:
    """The SPEC.lua `bench/wrk/mcp.lua` reads: the request exactly as `bench._harness.post` would send it.

    The body is `json.dumps(body)` (the Python generator's bytes) with the id replaced per request; the headers
    are `headers` plus Host, and Mcp-Session-Id (one of `sessions`, round-robin) when sessions are given.
    Without a body (None) wrk sends a GET of `url` instead.
    """
    host, path = _split(url)
    template = json.dumps({**body, "id": _SENTINEL}) if body is not None else str(_SENTINEL)
    prefix, suffix = template.split(str(_SENTINEL), 1)
    lines = ["return {", f"  method = {_lua_string('POST' if body is not None else 'GET')},",
             f"  path = {_lua_string(path)},", "  headers = {",
             f"    [ {_lua_string('Host')} ] = {_lua_string(host)},"]
    lines += [f"    [ {_lua_string(k)} ] = {_lua_string(v)}," for k, v in headers.items()
              if k.lower() not in ("host", "mcp-session-id", "content-length")]
    lines += ["  },", f"  prefix = {_lua_string(prefix)},", f"  suffix = {_lua_string(suffix)},",
              "  sessions = {" + ", ".join(_lua_string(s) for s in sessions if s) + "},",
              "  expect = {" + ", ".join(_lua_string(s) for s in expect) + "},",
              "  reject = {" + ", ".join(_lua_string(s) for s in reject) + "},", "}"]
    fd, name = tempfile.mkstemp(prefix="wrk-spec-", suffix=".lua", dir=directory)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write("\n".join(lines) + "\n")
    return Path(name)


def _split(url: str) -> tuple[str, str]:
    match = re.fullmatch(rf"http://({re.escape(LOOPBACK)}:\d+)(/.*)", url)
    if match is None:
        raise ValueError(f"the load generator only targets http://{LOOPBACK}:PORT/..., not {url}")
    return match.group(1), match.group(2)


async def verify_sample(url: str, headers: Mapping[str, str], body: Mapping[str, Any], *,
                        sessions: Sequence[str] = (), check: Callable[[int, bytes], None]) -> bytes:
    """Send the very request wrk will send (once per session) and check the reply, its id included.

    Returns the last reply's body. wrk checks every reply itself too, by status and substrings.
    """
    _split(url)
    payload = b""
    async with aiohttp.ClientSession() as http:
        for number, session in enumerate(sessions or [""], start=1):
            sent = {**headers, **({"Mcp-Session-Id": session} if session else {})}
            async with http.post(url, data=json.dumps({**body, "id": number}), headers=sent) as response:
                status, payload = response.status, await response.read()
            check(status, payload)
            if f'"id":{number},'.encode() not in payload.replace(b'"id": ', b'"id":'):
                raise RuntimeError(f"the reply does not carry the request's id {number}: {payload[:200]!r}")
    return payload


def children_of(pid: int) -> list[int]:
    """The direct child processes of `pid` (Linux /proc), e.g. gunicorn's workers."""
    found = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found += [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            continue
    return found


def _run_wrk(url: str, spec: Path, *, connections: int, seconds: int, core: int | None) -> tuple[dict[str, Any],
                                                                                                    str, float]:
    cmd = ["wrk", "-t1", f"-c{connections}", f"-d{seconds}s", "--timeout", "10s", "-s", str(SCRIPT), url, "--",
           str(spec)]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=seconds + 60, preexec_fn=affinity(core))
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    line = next((ln for ln in proc.stdout.splitlines() if ln.startswith("WRKJSON ")), None)
    if proc.returncode != 0 or line is None:
        raise RuntimeError(f"wrk failed ({proc.returncode}): {proc.stdout[-1500:]} {proc.stderr[-1500:]}")
    bad = next((ln[len("WRKBAD "):] for ln in proc.stdout.splitlines() if ln.startswith("WRKBAD ")), "")
    return json.loads(line[len("WRKJSON "):]), bad, cpu


def measure(url: str, spec: Path, *, connections: int, seconds: int, warmup_seconds: int = 0,
            pids: Callable[[], Iterable[int]] | Iterable[int] = (), extra_pids: Mapping[str, int] | None = None,
            core: int | None = 1) -> WrkMeasurement:
    """Run wrk against `url` with `spec` (after an untimed warm-up run, if any) and read the servers' CPU.

    `pids` are the server's processes (a callable is asked again after the warm-up, e.g. for gunicorn's
    workers); `extra_pids` other processes whose CPU per call is reported by name (redis-server).
    Raises RuntimeError on any socket error, non-2xx reply or reply that fails the spec's checks.
    """
    if warmup_seconds > 0:  # untimed: a warm-up that finished no request (a slow first burst) is no failure
        _checked(*_run_wrk(url, spec, connections=connections, seconds=warmup_seconds, core=core)[:2],
                 need_requests=False)
    server = list(pids() if callable(pids) else pids)
    extra = dict(extra_pids or {})
    cpu_before = [server_cpu_seconds(p) for p in server]
    extra_before = {k: server_cpu_seconds(p) for k, p in extra.items()}
    started = time.perf_counter()
    raw, bad, wrk_cpu = _run_wrk(url, spec, connections=connections, seconds=seconds, core=core)
    wall = time.perf_counter() - started
    cpu = sum(server_cpu_seconds(p) - b for p, b in zip(server, cpu_before, strict=True))
    errors = _checked(raw, bad)
    calls = int(raw["requests"])
    duration = raw["duration_us"] / 1e6
    return WrkMeasurement(
        calls=calls, seconds=duration, calls_per_s=calls / duration, p50_ms=raw["p50_us"] / 1000,
        p90_ms=raw["p90_us"] / 1000, p99_ms=raw["p99_us"] / 1000,
        cpu_us_per_call=cpu / calls * 1e6 if calls else 0.0, generator_busy=wrk_cpu / wall if wall else 0.0,
        errors=errors,
        extra_cpu_us_per_call={k: (server_cpu_seconds(p) - extra_before[k]) / calls * 1e6 for k, p in extra.items()})


def _checked(raw: Mapping[str, Any], bad: str, *, need_requests: bool = True) -> dict[str, int]:
    errors = {k: int(raw[k]) for k in ("connect", "read", "write", "timeout", "status", "bad")}
    if (need_requests and int(raw["requests"]) == 0) or any(errors.values()):
        raise RuntimeError(f"wrk saw errors {errors} in {raw['requests']} requests; first wrong reply: {bad[:400]}")
    return errors
