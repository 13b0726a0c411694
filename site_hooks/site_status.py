"""The build-time Laadstatus snapshot: the server's `GET /status` JSON, read from a file.

A build never measures anything itself. When `BESLUITBRON_STATUS_JSON` names a file, its
`sources` list (the shape `proxy.loadstatus` stores and `/status` returns) is shown on the
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
    """Validate the `/status` shape: an object with a `sources` list of objects keyed by `source`."""
    if not isinstance(data, Mapping) or not isinstance(data.get("sources"), list):
        raise StatusSnapshotError("expected an object with a 'sources' list (the server's /status JSON)")
    stalled_after = data.get("stalled_after_days")
    sources: dict[str, SourceStatus] = {}
    for i, item in enumerate(data["sources"]):
        where = f"sources[{i}]"
        if not isinstance(item, Mapping) or not isinstance(item.get("source"), str):
            raise StatusSnapshotError(f"{where}: expected an object with a 'source' key")
        receiving = item.get("receiving")
        if receiving is not None and not isinstance(receiving, bool):
            raise StatusSnapshotError(f"{where}.receiving: expected true, false or null")
        per_medium = item.get("current_through_per_medium") or {}
        if not isinstance(per_medium, Mapping):
            raise StatusSnapshotError(f"{where}.current_through_per_medium: expected an object")
        sources[item["source"]] = SourceStatus(
            source=item["source"],
            receiving=receiving,
            current_through=_opt_str(item, "current_through", where),
            per_medium=tuple((str(k), None if v is None else str(v)) for k, v in sorted(per_medium.items())),
            measured_at=_opt_str(item, "measured_at", where),
            reason=_opt_str(item, "reason", where),
            organs_total=_opt_int(item, "organs_total", where),
            organs_stalled=_opt_int(item, "organs_stalled", where),
        )
    return StatusSnapshot(
        stalled_after_days=stalled_after if isinstance(stalled_after, int) else None,
        sources=MappingProxyType(sources),
    )


def _opt_str(item: Mapping[str, Any], key: str, where: str) -> str | None:
    value = item.get(key)
    if value is not None and not isinstance(value, str):
        raise StatusSnapshotError(f"{where}.{key}: expected a string or null")
    return value


def _opt_int(item: Mapping[str, Any], key: str, where: str) -> int | None:
    value = item.get(key)
    if value is not None and (not isinstance(value, int) or isinstance(value, bool)):
        raise StatusSnapshotError(f"{where}.{key}: expected a whole number or null")
    return value
