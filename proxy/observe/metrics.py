"""What an operator watches: Prometheus metrics, one `CollectorRegistry` per application.

A registry per app (not prometheus-client's global one) keeps servers started in one process
(tests, the bench) from sharing counters. Labelled children are bound once — per platform when an
`Upstream` is made, per tool when an endpoint is made — so a call costs a counter increment, not a
label lookup.

Under `serve --workers N` every worker writes its values to files in one directory
(prometheus-client's multiprocess mode, `share_between_workers`), and whichever worker answers
/metrics reports the sum over all of them: a scrape through the load balancer sees the service,
not one process chosen at random.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest, multiprocess, values
from prometheus_client.exposition import CONTENT_TYPE_LATEST

__all__ = ["CONTENT_TYPE", "Metrics", "PlatformMetrics", "ToolMetrics", "share_between_workers", "worker_gone"]

CONTENT_TYPE = CONTENT_TYPE_LATEST
# Platform latency buckets (s): replicas answer in milliseconds, real platforms in tenths to seconds.
_LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)
TOOL_OUTCOMES = ("ok", "error", "failed")
_shared: Path | None = None  # the multiprocess directory, once this process is a worker


def share_between_workers(directory: Path) -> None:
    """Make this (freshly forked) worker write its metrics to `directory`, and /metrics read all workers'.

    Called before the worker builds its application. prometheus-client chooses its value class at
    import, from PROMETHEUS_MULTIPROC_DIR, before the arbiter forks; `values.ValueClass` is where it
    keeps that choice, and its file-backed values read the same variable for their directory.
    """
    global _shared
    _shared = directory
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = str(directory)
    values.ValueClass = values.MultiProcessValue()


def worker_gone(directory: Path, pid: int) -> None:
    """A worker exited: its live gauges (streams open) leave the sum; its counters stay in the totals."""
    multiprocess.mark_process_dead(pid, str(directory))


@dataclass(frozen=True, slots=True)
class PlatformMetrics:
    """One platform's bound children: what `proxy.plugin.upstream` increments."""

    ok: Counter
    error: Counter
    latency: Histogram
    cache_hits: Counter
    joins: Counter
    rate_waits: Counter
    rate_refusals: Counter


@dataclass(frozen=True, slots=True)
class ToolMetrics:
    """One tool's bound children by outcome: ok, error (an isError result), failed (a protocol error)."""

    ok: Counter
    error: Counter
    failed: Counter


class Metrics:
    """Every metric of one application, in its own registry."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        r = self.registry
        self.tool_calls = Counter("besluitbron_tool_calls", "tools/call requests by connector, tool and outcome "
                                  "(ok; error: an isError result; failed: a JSON-RPC error)",
                                  ["connector", "tool", "outcome"], registry=r)
        self.platform_requests = Counter("besluitbron_platform_requests", "HTTP exchanges sent to a platform "
                                         "(each retry counts), by outcome", ["platform", "outcome"], registry=r)
        self.platform_latency = Histogram("besluitbron_platform_request_seconds", "Duration of one HTTP exchange "
                                          "with a platform", ["platform"], buckets=_LATENCY_BUCKETS, registry=r)
        self.cache_hits = Counter("besluitbron_platform_cache_hits", "Platform calls answered from the cache "
                                  "(or a kept result built from cached replies)", ["platform"], registry=r)
        self.joins = Counter("besluitbron_platform_single_flight_joins", "Platform calls that waited for the "
                             "same request already in flight instead of sending it again", ["platform"], registry=r)
        self.rate_waits = Counter("besluitbron_platform_rate_limit_waits", "Platform calls that waited for the "
                                  "rate limit (ours or the platform's pacing) before going out", ["platform"],
                                  registry=r)
        self.rate_refusals = Counter("besluitbron_platform_rate_limit_refusals", "Platform calls refused without "
                                     "sending: rate limit used up, platform pause, or all slots busy",
                                     ["platform"], registry=r)
        self.sessions_opened = Counter("besluitbron_sessions_opened", "Handshake-era sessions opened (initialize)",
                                       ["connector"], registry=r)
        self.sessions_ended = Counter("besluitbron_sessions_ended", "Handshake-era sessions ended by the client "
                                      "(DELETE)", ["connector"], registry=r)
        self.streams_open = Gauge("besluitbron_session_streams_open", "Handshake-era GET event streams open",
                                  registry=r, multiprocess_mode="livesum")
        # Set from the shared session store at each scrape; every worker sees the same number.
        self.sessions_open = Gauge("besluitbron_sessions_open", "Handshake-era sessions open (not ended or idle "
                                   "past the timeout), by connector", ["connector"], registry=r,
                                   multiprocess_mode="mostrecent")
        self.reloads = Counter("besluitbron_registry_reloads", "Registry reloads by outcome (applied, refused, "
                               "failed)", ["outcome"], registry=r)
        self._platforms: dict[str, PlatformMetrics] = {}

    def platform(self, key: str) -> PlatformMetrics:
        """The children for one platform (made once; a reload's new `Upstream` gets the same)."""
        bound = self._platforms.get(key)
        if bound is None:
            bound = self._platforms[key] = PlatformMetrics(
                ok=self.platform_requests.labels(key, "ok"), error=self.platform_requests.labels(key, "error"),
                latency=self.platform_latency.labels(key), cache_hits=self.cache_hits.labels(key),
                joins=self.joins.labels(key), rate_waits=self.rate_waits.labels(key),
                rate_refusals=self.rate_refusals.labels(key))
        return bound

    def tool(self, connector: str, name: str) -> ToolMetrics:
        calls = self.tool_calls
        return ToolMetrics(*(calls.labels(connector, name, outcome) for outcome in TOOL_OUTCOMES))

    def exposition(self) -> bytes:
        if _shared is None:
            return generate_latest(self.registry)
        every_worker = CollectorRegistry()
        multiprocess.MultiProcessCollector(every_worker, path=str(_shared))
        return generate_latest(every_worker)
