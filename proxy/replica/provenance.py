"""Where a replica's served records come from: recorded files, or made up (and then named).

Every replica module exposes `provenance(anchor) -> Provenance`; `tests/test_replica_provenance.py` prints the
share of records traced to a recording per replica and holds it at 90 % or more wherever a recording exists.
The files behind `recorded` are listed, with repository, path, commit or URL and the request that produced them,
in the `SOURCES.md` beside the data (`proxy/replica/data/<platform>/SOURCES.md`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

__all__ = ["Provenance", "tally"]


@dataclass(frozen=True, slots=True)
class Provenance:
    """What one replica serves, counted by origin.

    recorded: data file (name inside `data/<platform>/`) → how many served records come from it; a record
        rebuilt from a real supplier recording by the platform's own normaliser counts as recorded.
    invented: one line per made-up record (its id and why nothing real exists); such records are marked as
        samples where they are served.
    recorded_on: when the newest recording was made (YYYY-MM-DD): the date the sample notes name.
    holds: what the sample holds of what people ask most, one line per kind ("12 Kamerstuk (kst)",
        "Algemene wet bestuursrecht (BWBR0005537), text of 2024-01-01"): printed by the provenance test.
    """

    recorded: Mapping[str, int]
    invented: tuple[str, ...] = ()
    recorded_on: str = ""
    notes: tuple[str, ...] = field(default=())
    holds: tuple[str, ...] = ()

    @property
    def total(self) -> int:
        return sum(self.recorded.values()) + len(self.invented)

    @property
    def share(self) -> float:
        """Share of served records traced to a recording (1.0 for a replica that serves nothing)."""
        return sum(self.recorded.values()) / self.total if self.total else 1.0


def tally(kinds: Iterable[str], top: int = 12) -> tuple[str, ...]:
    """`holds` lines from one kind per record: "<count> <kind>", the most frequent first."""
    return tuple(f"{n} {kind}" for kind, n in Counter(k for k in kinds if k).most_common(top))
