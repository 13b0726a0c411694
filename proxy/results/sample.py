"""Answers from the offline replicas say so: server instructions, every result, list_capabilities, /health
and the site banner name the sample and the date it was recorded.

The replicas serve records recorded from the real platforms (and a few made-up ones, marked): an assistant that
is not told would present them as the live state of the law or a council. Citations keep pointing where the
real record lives, so a person can check it there.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date
from typing import Any

from proxy.core.errors import NotHeld

__all__ = ["META_KEY", "SAMPLE_FIELD", "SampleData", "replica_sample"]

META_KEY = "nl.besluitbron/sample"
SAMPLE_FIELD = "sample_notice"  # the notice in structured content, beside `_meta`: clients that drop `_meta` keep it


@dataclass(frozen=True, slots=True)
class SampleData:
    """The proxy answers from the offline replicas; `recorded_on` per platform key (YYYY-MM-DD)."""

    recorded_on: Mapping[str, str]
    live: tuple[str, ...] = ()  # the platform keys this server answers live beside the sample (`--upstream auto`)

    def note(self, platform: str | None = None) -> str:
        when = self.recorded_on.get(platform or "") if platform else None
        recorded = f"recorded on {when}" if when else f"recorded up to {self.newest}"
        return (f"SAMPLE DATA: this answer comes from BesluitBron's offline sample of the platform, {recorded}, "
                "not from the live platform. Do not present it as the current law, ruling or decision; the "
                "citations point to where the real record lives, check it there.")

    def covers(self, platform: str | None) -> bool:
        """Whether `platform` answers from the sample (a server may serve some platforms live); None: any."""
        return bool(self.recorded_on) if platform is None else platform in self.recorded_on

    def recorded(self, platform: str | None) -> str:
        return (self.recorded_on.get(platform) if platform else None) or self.newest

    def not_held(self, exc: NotHeld, platform: str | None, title: str) -> str:
        """A record the sample lacks, said of the sample: the live platform may well hold it."""
        where = f" Look it up where the real record lives: {exc.url}." if exc.url else ""
        advice = f" {exc.sample_advice[:1].upper()}{exc.sample_advice[1:]}." if exc.sample_advice else ""
        return (f"BesluitBron's offline sample of {title} (recorded on {self.recorded(platform)}) does not hold the "
                f"{exc.what}. That is a gap of this small sample, not a fact about {exc.source}: the live platform "
                f"may well hold it.{where}{advice}")

    def empty(self, platform: str | None, title: str) -> str:
        """What an empty list from the sample means: nothing in the sample, not nothing on the platform."""
        return (f"BesluitBron's offline sample of {title} (recorded on {self.recorded(platform)}) holds a small part "
                "of the platform: an empty list means the sample has no match, not that the platform has none")

    def recording_days(self) -> dict[str, date]:
        """Each sampled platform's recording day, the day its freshness is measured against."""
        return {key: date.fromisoformat(day) for key, day in self.recorded_on.items() if day}

    @property
    def newest(self) -> str:
        return max(self.recorded_on.values(), default="")

    def instructions(self) -> str:
        return ("VOORBEELDGEGEVENS: deze installatie antwoordt uit een offline steekproef van de platforms "
                f"(vastgelegd tot {self.newest}), niet uit de live platforms. Presenteer antwoorden niet als de "
                "actuele stand van wet, rechtspraak of besluit; de bronvermeldingen wijzen naar waar het echte stuk "
                "staat.")

    def meta(self, platform: str | None) -> dict[str, Any]:
        return {META_KEY: {"sample": True, "recorded_on": self.recorded(platform), "note": self.note(platform)}}

    def describe(self, platforms: Iterable[str] | None = None) -> dict[str, Any]:
        """For /health, list_capabilities and platform_status: that the answers are a sample, and of when."""
        keys = list(platforms) if platforms is not None else list(self.recorded_on)
        recorded = {k: self.recorded_on[k] for k in keys if k in self.recorded_on}
        one = next(iter(recorded)) if len(recorded) == 1 else None
        return {"sample": True, "recorded_on": recorded, "live": [k for k in keys if k in self.live],
                "note": f"{self.note(one)} Freshness (current_through, receiving, stalled) is that of the sample "
                        "on its recording day, not of the live platform."}


def replica_sample(keys: Iterable[str], anchor: date | None = None, *, live: Iterable[str] = ()) -> SampleData:
    """The sample the replicas of `keys` serve, with each one's recording date (from its provenance); `live`:
    the platforms served live beside it."""
    recorded = {}
    for key in keys:
        module = importlib.import_module(f"proxy.replica.{key}")
        provenance = getattr(module, "provenance", None)
        recorded[key] = provenance(anchor or date.today()).recorded_on if provenance else ""
    return SampleData(recorded, live=tuple(live))
