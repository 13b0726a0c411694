"""Every replica says where its records come from: the share traced to a real recording (printed, at least
90 % wherever a recording exists), the made-up rest named, and a SOURCES.md that lists every data file."""

from __future__ import annotations

import importlib
import re
from datetime import date
from pathlib import Path

import pytest

from proxy.registry.model import load_registry
from proxy.replica.provenance import Provenance
from tests.conftest import REGISTRY

DATA = Path(__file__).parents[1] / "proxy" / "replica" / "data"
KEYS = sorted(load_registry(REGISTRY).platforms)
ANCHOR = date(2026, 11, 30)
MIN_SHARE = 0.9


def _provenance(key: str) -> Provenance:
    module = importlib.import_module(f"proxy.replica.{key}")
    provenance = module.provenance(ANCHOR)
    assert isinstance(provenance, Provenance)
    return provenance


@pytest.mark.parametrize("key", KEYS)
def test_share_of_served_records_traced_to_a_recording(key: str) -> None:
    provenance = _provenance(key)
    recorded = sum(provenance.recorded.values())
    print(f"\n{key}: {recorded} of {provenance.total} served records traced to a recording "
          f"({provenance.share:.1%}); invented: {len(provenance.invented)}")
    for line in provenance.holds:
        print(f"  holds: {line}")
    for line in provenance.invented:
        print(f"  invented: {line}")
    assert provenance.total > 0 and provenance.holds, "the sample says what it holds"
    assert all(line.strip() for line in provenance.invented), "every invented record is named"
    if provenance.recorded:
        assert provenance.share >= MIN_SHARE, f"{key}: {provenance.share:.1%} traced to a recording"
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", provenance.recorded_on), "the sample names its recording date"


@pytest.mark.parametrize("key", KEYS)
def test_sources_file_lists_every_data_file(key: str) -> None:
    folder = DATA / key
    sources = (folder / "SOURCES.md").read_text(encoding="utf-8")
    files = sorted(p.name for p in folder.iterdir() if p.is_file() and p.name != "SOURCES.md")
    assert files, f"{key}: no data files"
    missing = [name for name in files if f"`{name}`" not in sources]
    assert not missing, f"{key}: SOURCES.md does not list {missing}"
    unknown = [name for name in _provenance(key).recorded if name not in files]
    assert not unknown, f"{key}: provenance names files that are not there: {unknown}"
