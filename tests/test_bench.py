"""The benchmark harness keeps working: `bench/run.py --quick` runs every part for real (servers,
load generator, site builds, plots) with tiny counts and writes RESULTS.md. Its figures are not
judged here (speed targets live in bench/RESULTS.md, never in timed asserts); what it reports
about behaviour is: identical concurrent searches share one upstream call, every server answered, and `search`
on Alle Bronnen reached every free-text source with the same platform requests as asking each in turn.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.site  # it runs real mkdocs builds too


def test_quick_bench_writes_every_figure(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, str(ROOT / "bench" / "run.py"), "--quick", "--out", str(tmp_path)],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]

    results = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
    rows = results["calls"]["rows"]
    assert {(r["server"], r["era"]) for r in rows} == {
        (s, e) for s in ("besluitbron", "bare", "sdk", "fastmcp") for e in ("modern", "legacy")}
    assert all(r["calls_per_s"] > 0 and r["x_bare"] > 0 for r in rows)
    assert results["upstream"]["single_flight"]["upstream_calls"] == 1
    assert results["memory"]["sessions"] == 64
    search = results["search"]
    assert search["sources_answered_p50"] == len(search["sequential_tools"]) == 6
    assert search["search"]["requests_p50"] == search["sequential"]["requests_p50"] > 0
    slugs = {r["slug"] for r in results["toolslist"]["addresses"]}
    assert {"tweedekamer", "allebronnen"} <= slugs
    assert [r["connectors"] for r in results["site"]["rows"]][1:] == [4]

    text = (tmp_path / "RESULTS.md").read_text(encoding="utf-8")
    for heading in ("## A cached real tool call", "## In front of a slow platform",
                    "## search on Alle Bronnen against each source in turn", "## Site build",
                    "## Memory of legacy sessions", "## tools/list per address"):
        assert heading in text
    assert "quick mode" in text and "× bare" in text and "added p50" in text
    assert "one after another ÷ search" in text
    for plot in ("calls.png", "search.png", "site.png"):
        assert (tmp_path / plot).read_bytes().startswith(b"\x89PNG\r\n\x1a\n")


def test_transport_bench_runs_on_the_shared_harness() -> None:
    """bench/bench_transport.py: the echo server role and the harness's load generator, all three routes."""
    proc = subprocess.run([sys.executable, str(ROOT / "bench" / "bench_transport.py"), "--calls", "80", "--rounds",
                           "1", "--concurrency", "2"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert "(b) modern runs at" in proc.stdout, proc.stdout[-2000:] + proc.stderr[-2000:]
    for name in ("(a) bare aiohttp", "(b) McpHttp modern", "(c) McpHttp legacy"):
        assert name in proc.stdout
