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

__all__ = ["META_KEY", "SampleData", "replica_sample"]

META_KEY = "nl.besluitbron/sample"


@dataclass(frozen=True, slots=True)
class SampleData:
    """The proxy answers from the offline replicas; `recorded_on` per platform key (YYYY-MM-DD)."""

    recorded_on: Mapping[str, str]

    def note(self, platform: str | None = None) -> str:
        when = self.recorded_on.get(platform or "") if platform else None
        recorded = f"recorded on {when}" if when else f"recorded up to {self.newest}"
        return (f"SAMPLE DATA: this answer comes from BesluitBron's offline sample of the platform, {recorded}, "
                "not from the live platform. Do not present it as the current law, ruling or decision; the "
                "citations point to where the real record lives, check it there.")

    @property
    def newest(self) -> str:
        return max(self.recorded_on.values(), default="")

    def instructions(self) -> str:
        return ("VOORBEELDGEGEVENS: deze installatie antwoordt uit een offline steekproef van de platforms "
                f"(vastgelegd tot {self.newest}), niet uit de live platforms. Presenteer antwoorden niet als de "
                "actuele stand van wet, rechtspraak of besluit; de bronvermeldingen wijzen naar waar het echte stuk "
                "staat.")

    def meta(self, platform: str | None) -> dict[str, Any]:
        return {META_KEY: {"sample": True, "recorded_on": self.recorded_on.get(platform or "") or self.newest,
                           "note": self.note(platform)}}

    def describe(self, platforms: Iterable[str] | None = None) -> dict[str, Any]:
        """For /health and list_capabilities: that the answers are a sample, and of when."""
        keys = list(platforms) if platforms is not None else list(self.recorded_on)
        return {"sample": True, "note": self.note(),
                "recorded_on": {k: self.recorded_on[k] for k in keys if k in self.recorded_on}}


def replica_sample(keys: Iterable[str], anchor: date | None = None) -> SampleData:
    """The sample the replicas of `keys` serve, with each one's recording date (from its provenance)."""
    recorded = {}
    for key in keys:
        module = importlib.import_module(f"proxy.replica.{key}")
        provenance = getattr(module, "provenance", None)
        recorded[key] = provenance(anchor or date.today()).recorded_on if provenance else ""
    return SampleData(recorded)
