"""Which platforms a server answers live and which from the offline sample (`serve --upstream`).

`real`: every platform live. `replica`: every platform from the replicas (tests, offline demos). `auto` (what
`make run` does): each platform's canary (`proxy.maintain.checklive`) runs once at start, all at once and within
`within` seconds together; a platform whose canary gets answers is served live, one that refuses, fails or
does not answer in time is served from its replica. The choice is made once: a platform that comes back later
is served live after a restart.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Literal

from proxy.maintain.checklive import CheckResult, check_live
from proxy.registry.model import Registry

__all__ = ["CHECK_WITHIN", "Choice", "Mode", "choose_upstreams"]

Mode = Literal["auto", "replica", "real"]
CHECK_WITHIN = 10.0  # seconds for all canaries together: start-up waits no longer than this
ANSWERED = ("ok", "drift")  # a drifted platform still answers: live beats a sample (the drift is logged)


@dataclass(frozen=True, slots=True)
class Choice:
    """Per platform key: live or sample, and why (for the start-up lines and /health)."""

    live: tuple[str, ...]
    sampled: tuple[str, ...]
    reasons: Mapping[str, str] = field(default_factory=dict)

    def lines(self, titles: Mapping[str, str]) -> list[str]:
        out = []
        for key in (*self.live, *self.sampled):
            how = "live" if key in self.live else "offline sample"
            why = f" ({self.reasons[key]})" if self.reasons.get(key) else ""
            out.append(f"  {titles.get(key, key):<24} {how}{why}")
        return out


def _reason(result: CheckResult) -> str:
    if result.status == "ok":
        return "its canary was answered"
    first = result.findings[0] if result.findings else result.status
    return f"{result.status}: {first}"[:200]


async def _check(registry: Registry, key: str, within: float) -> tuple[str, bool, str]:
    try:
        result = await asyncio.wait_for(check_live(registry, key), within)
    except TimeoutError:
        return key, False, f"no answer within {within:g} s"
    except Exception as exc:  # a canary that breaks on an odd answer: the sample serves, start-up goes on
        return key, False, f"canary failed: {type(exc).__name__}: {exc}"[:200]
    return key, result.status in ANSWERED, _reason(result)


async def choose_upstreams(registry: Registry, keys: Iterable[str], mode: Mode, *,
                           within: float = CHECK_WITHIN) -> Choice:
    """Live or sample for each of `keys` (built-in platforms), by `mode`; `registry` holds the real addresses."""
    listed = list(keys)
    if mode == "real":
        return Choice(live=tuple(listed), sampled=(), reasons=dict.fromkeys(listed, "UPSTREAM=real"))
    if mode == "replica":
        return Choice(live=(), sampled=tuple(listed), reasons=dict.fromkeys(listed, "UPSTREAM=replica"))
    checked = await asyncio.gather(*(_check(registry, key, within) for key in listed))
    return Choice(live=tuple(k for k, ok, _ in checked if ok), sampled=tuple(k for k, ok, _ in checked if not ok),
                  reasons={k: why for k, _, why in checked})
