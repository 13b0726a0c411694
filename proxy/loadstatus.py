"""The Laadstatus measurement: does each source still receive new material?

Run at start and then every `load_status.interval_minutes`. Each platform module's
`measure_load` reports the newest material date (per organ for the two local sources); this module
turns that into `receiving`, `current_through`, `measured_at` and, for local sources,
`organs_total`, `organs_stalled` and each organ's date, and stores it for `platform_status`,
`list_capabilities` and `GET /status`.
"""

from __future__ import annotations

import asyncio
import importlib
import logging
from collections.abc import Callable, Mapping
from datetime import date, datetime, timedelta
from typing import Any

from proxy.errors import UpstreamError
from proxy.registry import Platform
from proxy.state import StateStore
from proxy.toolkit import LoadReport, PlatformContext

__all__ = ["measure_platform", "status_from_report"]

log = logging.getLogger(__name__)
JsonDict = dict[str, Any]


def status_from_report(platform: Platform, report: LoadReport, *, today: date, stalled_after_days: int,
                       measured_at: datetime) -> JsonDict:
    """Pure: a LoadReport → the stored status of one source."""
    threshold = today - timedelta(days=stalled_after_days)

    def stalled(d: date | None) -> bool:
        return d is None or d < threshold

    status: JsonDict = {
        "source": platform.key,
        "title": platform.title.nl,
        "receiving": not stalled(report.current_through),
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


def failed_status(platform: Platform, error: str, *, measured_at: datetime) -> JsonDict:
    """What is stored when a measurement could not be made: unknown, with the reason."""
    return {
        "source": platform.key, "title": platform.title.nl, "receiving": None, "current_through": None,
        "current_through_per_medium": {}, "measured_at": measured_at.isoformat(timespec="seconds"),
        "reason": f"measurement failed: {error}", "organs_total": None, "organs_stalled": None, "organs": [],
    }


async def measure_platform(ctx: PlatformContext, store: StateStore, *, stalled_after_days: int) -> JsonDict:
    """Measure one platform now and store the result (also when it fails, with the reason)."""
    platform = ctx.platform
    module = importlib.import_module(f"proxy.platforms.{platform.key}")
    now = ctx.now()
    try:
        report: LoadReport = await module.measure_load(ctx)
        status = status_from_report(platform, report, today=now.date(), stalled_after_days=stalled_after_days,
                                    measured_at=now)
    except UpstreamError as exc:
        log.warning("load status of %s failed: %s", platform.key, exc)
        previous = await store.load_status(platform.key)
        status = failed_status(platform, str(exc), measured_at=now)
        if previous and previous.get("current_through"):
            # Keep what we knew; the failure itself is the news.
            status = {**previous, "reason": f"latest measurement failed ({exc}); values from {previous['measured_at']}"}
    await store.set_load_status(platform.key, status)
    return status


async def run_measurements(contexts: Callable[[], Mapping[str, PlatformContext]], store: StateStore,
                           settings: Callable[[], tuple[int, int]]) -> None:
    """Forever: measure every served platform, then sleep `interval_minutes`. Settings are read each round."""
    while True:
        interval_minutes, stalled_after_days = settings()
        for key, ctx in contexts().items():
            try:
                await measure_platform(ctx, store, stalled_after_days=stalled_after_days)
            except Exception:
                log.exception("load status of %s crashed", key)
        await asyncio.sleep(interval_minutes * 60)


def _iso(d: date | None) -> str | None:
    return d.isoformat() if d else None
