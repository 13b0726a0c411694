"""Arguments as people write them: resolution tables kept as data, checked when they load.

A `Table` maps the words people use ("Awb", "BZK", "belastingrecht", "Hof Den Haag") to the value
a platform wants (a BWB id, an organisation's full name, a URI). Every platform resolves the same
way, so a caller learns one behaviour:

* an exact match (case, accents, punctuation and spacing ignored) on a key, label or alias is used;
* a value that several entries could mean (`partial`) is for the tool to decide: a search takes the
  likely meaning and says what it chose;
* anything else is refused with the closest candidates (difflib), naming what to send instead.

A table file is JSON: `{"what": "...", "source": "...", "entries": [{"key": ..., "label": ...,
"names": [...], "values": [...]?}]}`; `load` refuses a file with a missing field or a name that two
entries claim.
"""

from __future__ import annotations

import difflib
import json
import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from proxy.core.errors import ToolInputError

__all__ = ["Entry", "Resolved", "Table", "norm"]

_PUNCTUATION = re.compile(r"[\s_\-;,./:()'’`\"]+")


def norm(text: str) -> str:
    """Lower case, accents dropped, punctuation and spacing folded: how names are compared."""
    plain = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    return _PUNCTUATION.sub(" ", plain.casefold()).strip()


@dataclass(frozen=True, slots=True)
class Entry:
    """One thing a table knows: the value sent upstream (`key`, or several `values`), its name and aliases."""

    key: str
    label: str
    names: tuple[str, ...] = ()
    values: tuple[str, ...] = ()
    extra: Mapping[str, Any] = field(default_factory=dict)

    @property
    def sends(self) -> tuple[str, ...]:
        return self.values or (self.key,)


@dataclass(frozen=True, slots=True)
class Resolved:
    """A value as written and the entry it was read as; `note` says so when they differ."""

    written: str
    entry: Entry

    @property
    def note(self) -> str | None:
        if norm(self.written) in (norm(self.entry.key), norm(self.entry.label)):
            return None
        return f"{self.written!r} read as {self.entry.label}"


class Table:
    """Named entries looked up by key, label or alias; see the module docstring."""

    def __init__(self, what: str, argument: str, entries: Iterable[Entry]) -> None:
        self.what = what  # "area of law"
        self.argument = argument  # the tool argument these values arrive in
        self.entries = tuple(entries)
        self._index: dict[str, Entry] = {}
        for entry in self.entries:
            for name in (entry.key, entry.label, *entry.names):
                known = self._index.setdefault(norm(name), entry)
                if known is not entry:
                    raise ValueError(f"{what}: {name!r} names both {known.key!r} and {entry.key!r}")

    @classmethod
    def load(cls, path: Path, *, argument: str) -> Table:
        """A table from its JSON file; a malformed file is a ValueError naming the file and the fault."""
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            if not isinstance(data, dict) or not isinstance(data.get("what"), str) \
                    or not isinstance(data.get("source"), str) or not isinstance(data.get("entries"), list):
                raise ValueError("expected an object with 'what', 'source' and an 'entries' list")
            entries = [_entry(item, n) for n, item in enumerate(data["entries"])]
            if not entries:
                raise ValueError("the table has no entries")
            return cls(data["what"], argument, entries)
        except (OSError, ValueError) as exc:
            raise ValueError(f"resolution table {path.name}: {exc}") from exc

    def find(self, text: str) -> Entry | None:
        """The entry `text` names exactly (after `norm`), or None."""
        return self._index.get(norm(text))

    def partial(self, text: str) -> list[Entry]:
        """Entries one of whose names contains every word of `text`, in table order."""
        words = norm(text).split()
        if not words:
            return []
        found = []
        for entry in self.entries:
            names = [norm(n) for n in (entry.key, entry.label, *entry.names)]
            if any(all(re.search(rf"\b{re.escape(w)}", n) for w in words) for n in names):
                found.append(entry)
        return found

    def closest(self, text: str, n: int = 5, *, cutoff: float = 0.5) -> list[Entry]:
        """Up to `n` entries whose names look most like `text` (difflib similarity at least `cutoff`)."""
        matches = difflib.get_close_matches(norm(text), list(self._index), n=n * 3, cutoff=cutoff)
        out: list[Entry] = []
        for name in matches:
            entry = self._index[name]
            if entry not in out:
                out.append(entry)
        return out[:n]

    def refusal(self, text: str, *, hint: str = "") -> ToolInputError:
        """The error for a value this table does not know: the closest candidates and what to send."""
        near = self.closest(text)
        shown = near or list(self.entries[:8])
        listed = "; ".join(f"{e.label} ({e.key})" if e.key != e.label else e.label for e in shown)
        lead = "the closest are" if near else "known ones include"
        return ToolInputError(f"{self.argument} {text!r} is not a known {self.what}; {lead}: {listed}. "
                              f"Send one of these{hint}")

    def resolve(self, text: str, *, hint: str = "") -> Resolved:
        """The entry `text` names exactly; otherwise the refusal with the closest candidates."""
        entry = self.find(text)
        if entry is None:
            raise self.refusal(text, hint=hint)
        return Resolved(text, entry)

    def labels(self) -> list[str]:
        return [e.label for e in self.entries]


def _entry(item: Any, n: int) -> Entry:
    if not isinstance(item, dict):
        raise ValueError(f"entry {n} is not an object")
    key, label = item.get("key"), item.get("label")
    names, values = item.get("names", []), item.get("values", [])
    if not isinstance(key, str) or not key or not isinstance(label, str) or not label:
        raise ValueError(f"entry {n} needs a non-empty 'key' and 'label'")
    if not _strings(names) or not _strings(values):
        raise ValueError(f"entry {n} ({key}): 'names' and 'values' are lists of non-empty strings")
    extra = {k: v for k, v in item.items() if k not in ("key", "label", "names", "values")}
    return Entry(key=key, label=label, names=tuple(names), values=tuple(values), extra=extra)


def _strings(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) and v.strip() for v in value)


