"""The build-time Laadstatus snapshot: the server's `GET /status` JSON, handed over in the site input.

A build never measures anything itself. When the server hands it a status (`SiteInput.status`), its
`sources` list (the shape `proxy.serving.loadstatus` stores and `/status` returns) is shown on the
platform pages and the Laadstatus page; otherwise those pages say no measurement was available.
A status that is not the server's shape fails the build.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from proxy.core.shapes import ShapeError, StatusReport, checker

__all__ = ["SourceStatus", "StatusSnapshot", "StatusSnapshotError", "parse_status_snapshot"]


class StatusSnapshotError(ValueError):
    """The status snapshot file cannot be used; the message says which part and why."""


@dataclass(frozen=True, slots=True)
class SourceStatus:
    """One source's load status as measured by the server."""

    source: str
    receiving: bool | None
    current_through: str | None
    per_medium: tuple[tuple[str, str | None], ...]
    measured_at: str | None
    reason: str | None
    organs_total: int | None
    organs_stalled: int | None


@dataclass(frozen=True, slots=True)
class StatusSnapshot:
    stalled_after_days: int | None
    sources: Mapping[str, SourceStatus]


def parse_status_snapshot(data: Any) -> StatusSnapshot:
    """Check the `/status` shape (`proxy.core.shapes.StatusReport`, the server's own definition) and index it."""
    try:
        report: StatusReport = _check(data)
    except ShapeError as exc:
        raise StatusSnapshotError(f"not the server's /status shape: {exc}") from exc
    sources = {
        item["source"]: SourceStatus(
            source=item["source"],
            receiving=item["receiving"],
            current_through=item["current_through"],
            per_medium=tuple(sorted(item["current_through_per_medium"].items())),
            measured_at=item["measured_at"],
            reason=item["reason"],
            organs_total=item["organs_total"],
            organs_stalled=item["organs_stalled"],
        )
        for item in report["sources"]
    }
    return StatusSnapshot(stalled_after_days=report.get("stalled_after_days"), sources=MappingProxyType(sources))


_check = checker(StatusReport)
