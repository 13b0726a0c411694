"""What a platform's canary (its live contract check, `PlatformPlugin.canary`) works with.

A canary sends a few small requests to the real platform (one search, one read, the load-status query) through
the platform's own upstream client and checks each answer against what the adapter relies on: fields, types,
formats, counts that must be consistent. `Probe` carries the run; `proxy.maintain.checklive` runs every
platform's canary and reports "ok" or exactly what drifted.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from proxy.core.caller import Caller
from proxy.core.errors import ToolInputError, UpstreamBadReply, UpstreamStatusError
from proxy.plugin.toolkit import PlatformContext, PlatformPlugin

__all__ = ["CHECK_CALLER", "DAY", "DTO", "GUID", "ISO_START", "Drift", "Probe", "Stop", "check_load"]

CHECK_CALLER = Caller("system", "checklive")

GUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
DTO = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?([+-]\d{2}:\d{2}|Z)$")
DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")
ISO_START = re.compile(r"^\d{4}-\d{2}-\d{2}")


class Drift(Exception):
    """An answer whose shape the adapter cannot rely on any more; stops that platform's remaining canaries."""


class Stop(Exception):
    """Findings are recorded; the remaining canaries would only build on a broken answer."""


@dataclass
class Probe:
    """One platform's canary run: its context, the requests sent and what drifted."""

    ctx: PlatformContext
    findings: list[str] = field(default_factory=list)
    requests: int = 0

    async def get(self, step: str, path: str, parse: Callable[[bytes], Any], **kwargs: Any) -> Any:
        """GET through the platform's own upstream client; an unreadable answer or a refusal is drift."""
        return await self._ask(step, self.ctx.upstream.get(path, parse, caller=CHECK_CALLER, **kwargs))

    async def post_json(self, step: str, path: str, payload: Any, parse: Callable[[bytes], Any]) -> Any:
        """POST JSON (a search) through the platform's own upstream client, judged as `get` is."""
        return await self._ask(step, self.ctx.upstream.post_json(path, payload, parse, caller=CHECK_CALLER,
                                                                 idempotent=True))

    async def _ask(self, step: str, request: Awaitable[Any]) -> Any:
        self.requests += 1
        try:
            return await request
        except UpstreamBadReply as exc:
            raise Drift(f"{step}: the answer cannot be read the way the adapter reads it "
                        f"({exc.__cause__ or exc})") from exc
        except ToolInputError as exc:
            raise Drift(f"{step}: the platform refused the request the adapter sends ({exc})") from exc
        except UpstreamStatusError as exc:
            if 400 <= exc.status < 500:
                raise Drift(f"{step}: the platform refused the request the adapter sends (HTTP {exc.status}: "
                            f"{exc})") from exc
            raise

    def expect(self, ok: bool, where: str, message: str) -> bool:
        if not ok:
            self.findings.append(f"{where}: {message}")
        return ok

    def field(self, row: Mapping[str, Any], name: str, where: str, *, kind: type | tuple[type, ...] = str,
              pattern: re.Pattern[str] | None = None, nullable: bool = False, example: str = "") -> Any:
        """Check one field of a record: present, of `kind` (or null when `nullable`), matching `pattern`."""
        if name not in row:
            self.findings.append(f"{where}: field {name!r} is missing")
            return None
        value = row[name]
        if value is None:
            self.expect(nullable, where, f"{name} is null")
            return None
        if not self.expect(isinstance(value, kind), where, f"{name} is {type(value).__name__}, expected "
                                                           f"{_kinds(kind)}"):
            return None
        if pattern is not None and isinstance(value, str):
            self.expect(bool(pattern.search(value)), where,
                        f"{name} {value[:60]!r} is not in the expected form" + (f" (like {example})" if example
                                                                                 else ""))
        return value

    def count(self, total: Any, shown: int, where: str) -> None:
        """A reported total must be a non-negative integer at least as large as what came back."""
        if self.expect(isinstance(total, int) and not isinstance(total, bool), where,
                       f"the total is {total!r}, expected an integer"):
            self.expect(total >= shown, where, f"the total {total} is smaller than the {shown} records returned")

    def check(self) -> None:
        """Stop here when something drifted, so later canaries do not build on a broken answer."""
        if self.findings:
            raise Stop


def _kinds(kind: type | tuple[type, ...]) -> str:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return " or ".join(k.__name__ for k in kinds)


# --------------------------------------------------------------------------- shared checks


async def check_load(probe: Probe, plugin: PlatformPlugin) -> None:
    """The load-status query, through the adapter's own measurement."""
    probe.requests += 1
    try:
        report = await plugin.measure_load(probe.ctx)
    except UpstreamBadReply as exc:
        raise Drift(f"load status: the answer cannot be read the way the adapter reads it "
                    f"({exc.__cause__ or exc})") from exc
    probe.expect(isinstance(report.current_through, date), "load status",
                 "the measurement found no dated material (current_through is empty)")
