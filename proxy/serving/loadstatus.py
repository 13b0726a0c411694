"""The Laadstatus measurement: does each source still receive new material?

Run at start and then every `load_status.interval_minutes`. Each platform module's
`measure_load` reports the newest material date (per organ for the two local sources); this module
turns that into `receiving`, `current_through`, `measured_at` and, for local sources,
`organs_total`, `organs_stalled` and each organ's date, and stores it for `platform_status`,
`list_capabilities` and `GET /status`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable
from datetime import date, datetime
from typing import TYPE_CHECKING

from proxy.core.clock import is_stalled, utc_now
from proxy.core.errors import UpstreamError
from proxy.core.shapes import SourceStatus
from proxy.plugin.toolkit import LoadReport, PlatformContext, PlatformPlugin
from proxy.registry.model import Platform
from proxy.state.store import StateStore

if TYPE_CHECKING:
    from proxy.catalog.generation import Generation

__all__ = ["measure_generation", "measure_platform", "run_measurements", "status_from_report", "stored_status"]

log = logging.getLogger(__name__)


def status_from_report(platform: Platform, report: LoadReport, *, today: date, stalled_after_days: int,
                       measured_at: datetime) -> SourceStatus:
    """Pure: a LoadReport → the stored status of one source."""

    def stalled(d: date | None) -> bool:
        return is_stalled(d, today, stalled_after_days)

    status: SourceStatus = {
        "source": platform.key,
        "title": platform.title.nl,
        "receiving": not stalled(report.current_through) if report.dated else None,
        "current_through": _iso(report.current_through),
        "current_through_per_medium": {m: _iso(d) for m, d in report.per_medium.items()},
        "measured_at": measured_at.isoformat(timespec="seconds"),
        "reason": report.note,
        "organs_total": None,
        "organs_stalled": None,
        "organs": [],
    }
    if platform.local:
        organs = sorted(report.organs, key=lambda o: (o.current_through or date.min, o.organ))
        status["organs"] = [
            {"organ": o.organ, "name": o.name, "medium": o.medium, "current_through": _iso(o.current_through),
             "stalled": stalled(o.current_through)}
            for o in organs
        ]
        status["organs_total"] = len(organs)
        status["organs_stalled"] = sum(1 for o in organs if stalled(o.current_through))
    return status


def failed_status(platform: Platform, error: str, *, measured_at: datetime) -> SourceStatus:
    """What is stored when a measurement could not be made: unknown, with the reason."""
    return {
        "source": platform.key, "title": platform.title.nl, "receiving": None, "current_through": None,
        "current_through_per_medium": {}, "measured_at": measured_at.isoformat(timespec="seconds"),
        "reason": f"measurement failed: {error}", "organs_total": None, "organs_stalled": None, "organs": [],
    }


async def measure_platform(plugin: PlatformPlugin, ctx: PlatformContext, store: StateStore) -> SourceStatus:
    """Measure one platform now with its plug-in and store the result (also when it fails, with the reason)."""
    platform = ctx.platform
    now = ctx.now()
    try:
        # A sample is measured on its recording day: its dates then read as they did when it was recorded.
        report = await plugin.measure_load(ctx.on_recording_day())
        status = status_from_report(platform, report, today=ctx.as_of(),
                                    stalled_after_days=ctx.stalled_after_days, measured_at=now)
    except UpstreamError as exc:
        log.warning("load status of %s failed: %s", platform.key, exc)
        previous = await store.load_status(platform.key)
        status = failed_status(platform, str(exc), measured_at=now)
        if previous and previous.get("current_through"):
            # Keep what we knew; the failure itself is the news.
            status = {**previous, "reason": f"latest measurement failed ({exc}); values from {previous['measured_at']}"}
    await store.set_load_status(platform.key, status)
    return status


async def measure_generation(generation: Generation, store: StateStore, keys: Iterable[str] | None = None) -> None:
    """Measure the served platforms of one generation (or only `keys`), each on its own plug-in."""
    for key in generation.served_platforms if keys is None else keys:
        try:
            await measure_platform(generation.plugins[key], generation.context(key), store)
        except Exception:
            log.exception("load status of %s crashed", key)


async def run_measurements(current: Callable[[], Generation], store: StateStore, *, owner: str = "") -> None:
    """Forever: measure every served platform of the current generation, then sleep its interval.

    Processes sharing one store take turns through a lease, so a cluster measures once per interval."""
    while True:
        generation = current()
        interval = generation.registry.load_status.interval_minutes * 60
        if await store.take_lease("loadstatus", owner, interval):
            await measure_generation(generation, store)
        await asyncio.sleep(interval)


async def stored_status(generation: Generation, store: StateStore, key: str, *, organs: str = "all") -> SourceStatus:
    """The stored load status of one source; `organs` = all | stalled | none."""
    platform = generation.registry.platforms[key]
    status = await store.load_status(key)
    if status is None:
        status = failed_status(platform, "", measured_at=utc_now())
        status.update({"measured_at": None, "reason": "not measured yet: the first measurement is still running"})
    all_organs = status.pop("organs", [])
    if organs == "all":
        status["organs"] = all_organs
    elif organs == "stalled":
        status["stalled_organs"] = [o for o in all_organs if o["stalled"]]
    return status


def _iso(d: date | None) -> str | None:
    return d.isoformat() if d else None
