"""The live contract check: `python -m proxy check-live [SLUG ...]`.

The replicas are written from the same knowledge as the adapters, so a platform that changes its
answers breaks nothing in the tests. This runs each platform's canary (`PlatformPlugin.canary`, built on
`proxy.plugin.canary`): a few small requests (one search, one read, the load-status query), each answer checked
against what the adapter relies on, and reports per platform "ok" or exactly what drifted. It runs where
the platforms can be reached; the tests run it against the replicas, once as they are and once switched
to a drifted shape (`Faults.drift`). A platform without a canary is reported as skipped.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

from proxy.catalog.build import load_plugin
from proxy.core.clock import utc_now
from proxy.core.errors import UpstreamError
from proxy.plugin.canary import Drift, Probe, Stop
from proxy.plugin.toolkit import PlatformContext, PlatformPlugin
from proxy.plugin.upstream import Upstream
from proxy.registry.model import Registry
from proxy.state.store import MemoryStore

__all__ = ["CheckResult", "check_live", "check_platform", "render", "summary_record"]

Status = Literal["ok", "drift", "unreachable", "skipped"]


# --------------------------------------------------------------------------- running and reporting


@dataclass(frozen=True, slots=True)
class CheckResult:
    key: str
    status: Status
    findings: tuple[str, ...]
    requests: int
    seconds: float


async def check_platform(plugin: PlatformPlugin, ctx: PlatformContext) -> CheckResult:
    """Run one platform's canaries; never raises for what the platform answers."""
    key = ctx.platform.key
    canary = plugin.canary
    if canary is None:
        return CheckResult(key, "skipped", ("no canary defined for this platform (PlatformPlugin.canary)",), 0, 0.0)
    probe = Probe(ctx)
    started = time.perf_counter()
    try:
        await canary(probe, plugin)
    except Drift as exc:
        probe.findings.append(str(exc))
    except Stop:
        pass
    except UpstreamError as exc:
        return CheckResult(key, "unreachable", (str(exc),), probe.requests, time.perf_counter() - started)
    status: Status = "drift" if probe.findings else "ok"
    return CheckResult(key, status, tuple(probe.findings), probe.requests, time.perf_counter() - started)


async def check_live(registry: Registry, key: str) -> CheckResult:
    """`key`'s canary through a context of its own: its own upstream and an empty cache, so every canary
    request reaches the platform (what `python -m proxy check-live` runs for each platform)."""
    upstream = Upstream(registry.platforms[key], store=MemoryStore())
    try:
        return await check_platform(load_plugin(key), PlatformContext.of(registry, key, upstream))
    finally:
        await upstream.close()


def render(results: Iterable[CheckResult]) -> str:
    lines = []
    for r in results:
        head = {"ok": "ok", "drift": "DRIFT", "unreachable": "UNREACHABLE", "skipped": "skipped"}[r.status]
        timing = f" ({r.requests} requests, {r.seconds:.1f} s)" if r.requests else ""
        lines.append(f"{r.key}: {head}{timing}")
        lines += [f"  - {finding}" for finding in r.findings]
    return "\n".join(lines)


def summary_record(results: Iterable[CheckResult]) -> dict[str, Any]:
    """What the state store keeps and /status shows: when the check ran and what it found per platform."""
    listed = list(results)
    return {
        "checked_at": utc_now().isoformat(timespec="seconds"),
        "ok": all(r.status in ("ok", "skipped") for r in listed),
        "platforms": {r.key: {"status": r.status, "findings": list(r.findings)} for r in listed},
    }
