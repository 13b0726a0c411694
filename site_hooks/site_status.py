"""The build-time Laadstatus snapshot: the server's `GET /status` JSON, read from a file.

A build never measures anything itself. When `BESLUITBRON_STATUS_JSON` names a file, its
`sources` list (the shape `proxy.serving.loadstatus` stores and `/status` returns) is shown on the
platform pages and the Laadstatus page; otherwise those pages say no measurement was available.
A file that is named but unreadable fails the build: a snapshot that silently vanished would
look like "no measurement" and hide the mistake.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

from proxy.core.shapes import ShapeError, StatusReport, checker

__all__ = ["SourceStatus", "StatusSnapshot", "StatusSnapshotError", "load_status_snapshot", "parse_status_snapshot"]


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


def load_status_snapshot(path: str | Path) -> StatusSnapshot:
    """Read and parse a snapshot file; StatusSnapshotError names the file and the problem."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise StatusSnapshotError(f"status snapshot {path}: cannot be read ({exc.strerror or exc})") from exc
    except json.JSONDecodeError as exc:
        raise StatusSnapshotError(f"status snapshot {path}: not valid JSON ({exc.msg}, line {exc.lineno})") from exc
    try:
        return parse_status_snapshot(data)
    except StatusSnapshotError as exc:
        raise StatusSnapshotError(f"status snapshot {path}: {exc}") from exc


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
