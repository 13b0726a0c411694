"""Who a call belongs to: the key of its call log, so one client never sees another's calls."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["SYSTEM_CALLER", "Caller"]

CallerKind = Literal["session", "trace", "system"]


@dataclass(frozen=True, slots=True)
class Caller:
    """A legacy session, a signed trace handle (stateless clients) or the server itself."""

    kind: CallerKind
    id: str

    @classmethod
    def session(cls, session_id: str) -> Caller:
        return cls("session", session_id)

    @classmethod
    def trace(cls, handle: str) -> Caller:
        return cls("trace", handle)

    @property
    def key(self) -> str:
        """The call-log key in the state store; kinds cannot collide."""
        return f"{self.kind}:{self.id}"

    @property
    def trace_handle(self) -> str | None:
        return self.id if self.kind == "trace" else None


# The load-status measurement: its calls are real traffic, logged apart from every client's.
SYSTEM_CALLER = Caller("system", "loadstatus")
