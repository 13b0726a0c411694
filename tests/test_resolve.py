"""Resolution tables (arguments as people write them): checked when they load, one behaviour everywhere."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from proxy.core.errors import ToolInputError
from proxy.platforms._resolve import Table

PLATFORMS = Path(__file__).resolve().parent.parent / "proxy" / "platforms"


def _write(tmp_path: Path, data: object) -> Path:
    path = tmp_path / "table.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


@pytest.mark.parametrize("name", sorted(p.name for p in PLATFORMS.glob("*_*.json")))
def test_every_shipped_table_loads(name: str) -> None:
    table = Table.load(PLATFORMS / name, argument="x")
    assert table.entries and all(e.key and e.label for e in table.entries)


def test_a_malformed_table_is_refused_naming_the_fault(tmp_path: Path) -> None:
    entry = {"key": "BWBR0005537", "label": "Algemene wet bestuursrecht", "names": ["Awb"]}
    with pytest.raises(ValueError, match=r"table\.json: regulation: 'AWB' names both 'BWBR0005537' and 'BWBR9'"):
        Table.load(_write(tmp_path, {"what": "regulation", "source": "s", "entries": [
            entry, {"key": "BWBR9", "label": "Other", "names": ["AWB"]}]}), argument="identifier")
    with pytest.raises(ValueError, match="entry 0 needs a non-empty 'key' and 'label'"):
        Table.load(_write(tmp_path, {"what": "w", "source": "s", "entries": [{"key": "k"}]}), argument="x")
    with pytest.raises(ValueError, match="'names' and 'values' are lists of non-empty strings"):
        Table.load(_write(tmp_path, {"what": "w", "source": "s", "entries": [{**entry, "names": [""]}]}),
                   argument="x")
    with pytest.raises(ValueError, match="expected an object with 'what', 'source' and an 'entries' list"):
        Table.load(_write(tmp_path, [entry]), argument="x")


def test_exact_partial_and_refused(tmp_path: Path) -> None:
    table = Table.load(_write(tmp_path, {"what": "court", "source": "s", "entries": [
        {"key": "Gerechtshof_Den_Haag", "label": "Gerechtshof Den Haag", "names": ["Hof Den Haag"]},
        {"key": "Gerechtshof_Amsterdam", "label": "Gerechtshof Amsterdam", "names": ["Hof Amsterdam"]}]}),
        argument="court")
    assert table.resolve("hof  den-haag").entry.key == "Gerechtshof_Den_Haag"  # case, spacing, punctuation folded
    assert table.resolve("hof den haag").note == "'hof den haag' read as Gerechtshof Den Haag"
    assert [e.key for e in table.partial("gerechtshof")] == ["Gerechtshof_Den_Haag", "Gerechtshof_Amsterdam"]
    with pytest.raises(ToolInputError, match=r"court 'Hof Amsterdm' is not a known court; the closest are: "
                                             r"Gerechtshof Amsterdam \(Gerechtshof_Amsterdam\)"):
        table.resolve("Hof Amsterdm")
