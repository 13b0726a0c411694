"""Instructions per cached call, counted by callgrind: a figure that does not move with the machine's load.

    .venv/bin/python bench/bench_instructions.py [--eras modern legacy] [--seconds 10] [--against REV] [--no-floors]

On this shared virtual machine calls/s and CPU per call swing by a third from one minute to the next
(bench/RESULTS.md), which hides a change of 5 or 10 %. The instructions a server executes per call do not
swing: the same code, request and answer give the same count within about 1 %, whatever else the machine does.
So this measures bench/bench_calls.py's cached call (`search_members` on `/tweedekamer/mcp`) that way.

Each server (`bench/servers.py`) runs under `valgrind --tool=callgrind` with counting off. wrk warms it up
(BesluitBron's cache and result memo included), counting is switched on for `--seconds` of wrk's load
(`callgrind_control -i on/off`), and the count is divided by the calls wrk saw. The bare handler (the same
answer bytes, no MCP work) is the ceiling, and the bare handler plus only the SDK's request checks
(`bench/servers.py checked`) the floor under it: what those checks alone cost. The kernel's work is not
counted (a system call is one instruction here), so ratios to the bare handler come out higher than by CPU
per call. `--against REV` also measures
BesluitBron at that commit, from a temporary git worktree run with this interpreter: the A/B of a change.
valgrind is the Debian package `valgrind`; without it, or without wrk, this says so and exits 1.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import wrk_load  # noqa: E402
from bench._harness import Child, pin  # noqa: E402
from bench.bench_calls import SLUG, capture_answer, open_sessions, wrk_spec  # noqa: E402

__all__ = ["count", "run"]

CONNECTIONS = 4
CALLGRIND = ("valgrind", "-q", "--tool=callgrind", "--instr-atstart=no")  # counting starts switched off
WARMUP_SECONDS = 3  # under callgrind a server runs some 50 times slower: its first calls warm caches and code


def count(child: Child, out: Path, era: str, *, seconds: int, tmp: Path, sessions: bool) -> dict[str, float]:
    """The instructions `child` (under callgrind, writing to `out`) executes per cached call of `era`."""
    url = f"{child.base}/{SLUG}/mcp"
    opened = asyncio.run(open_sessions(url, CONNECTIONS)) if sessions else []
    spec = wrk_spec(tmp, url, era, opened)
    wrk_load.measure(url, spec, connections=CONNECTIONS, seconds=WARMUP_SECONDS, pids=[child.pid])
    _control("-i", "on", child.pid)
    measured = wrk_load.measure(url, spec, connections=CONNECTIONS, seconds=seconds, pids=[child.pid])
    _control("-i", "off", child.pid)
    _control("-d", child.pid)
    instructions = _dumped_total(out)
    return {"calls": measured.calls, "instructions_per_call": instructions / measured.calls}


def _control(*args: object) -> None:
    subprocess.run(["callgrind_control", *map(str, args)], check=True, capture_output=True, timeout=60)


def _dumped_total(out: Path) -> int:
    """The instruction count of the dump `callgrind_control -d` asked for (`out.1`), once written whole."""
    dump = out.with_name(out.name + ".1")
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        totals = [int(line.split()[1]) for line in _lines(dump) if line.startswith(("summary:", "totals:"))]
        if totals and max(totals) > 0:
            return max(totals)
        time.sleep(0.5)
    raise RuntimeError(f"callgrind wrote no count to {dump}")


def _lines(path: Path) -> list[str]:
    try:
        return path.read_text(errors="replace").splitlines()
    except FileNotFoundError:
        return []


def run(*, eras: tuple[str, ...] = ("modern", "legacy"), seconds: int = 10, against: str | None = None,
        floors: bool = True) -> dict[str, Any]:
    """k instructions per call for BesluitBron (this tree, and `against` when given) and, with `floors`, the bare
    handler and the SDK's checks."""
    missing = [tool for tool in ("valgrind", "callgrind_control", "wrk") if shutil.which(tool) is None]
    if missing:
        return {"skipped": f"{', '.join(missing)} not installed (Debian packages valgrind, wrk)"}
    pin(1)
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="bench-instructions-") as name, Child("replicas", core=1) as replicas:
        tmp = Path(name)
        trees = {"besluitbron": ROOT}
        if against:
            trees[f"besluitbron@{against}"] = _worktree(tmp / "against", against)
        try:
            with Child("besluitbron", "--replicas", replicas.base) as ours:
                answer = asyncio.run(capture_answer(ours.base))
            answer_file = tmp / "answer.json"
            answer_file.write_text(json.dumps(answer, ensure_ascii=False))
            servers: list[tuple[str, Path, list[str]]] = [
                *((label, root, ["--replicas", replicas.base]) for label, root in trees.items()),
                *((role, ROOT, ["--answer", str(answer_file)]) for role in ("bare", "checked") if floors)]
            for era in eras:
                for label, root, args in servers:
                    out = tmp / f"callgrind-{label.replace('@', '-')}-{era}"
                    wrapper = [*CALLGRIND, f"--callgrind-out-file={out}"]
                    role = label if label in ("bare", "checked") else "besluitbron"
                    with Child(role, *args, wrapper=wrapper, root=root) as child:
                        counted = count(child, out, era, seconds=seconds, tmp=tmp,
                                        sessions=era == "legacy" and role == "besluitbron")
                    rows.append({"era": era, "server": label, **counted})
                    print(f"  {era} {label}: {counted['instructions_per_call'] / 1000:,.0f}k instructions per call "
                          f"({counted['calls']:,.0f} calls)", flush=True)
        finally:
            if against:
                subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tmp / "against")],
                               capture_output=True)
    for row in rows:
        bare = next((r for r in rows if r["era"] == row["era"] and r["server"] == "bare"), None)
        row["x_bare"] = bare["instructions_per_call"] / row["instructions_per_call"] if bare else None
    return {"connections": CONNECTIONS, "seconds": seconds, "rows": rows}


def _worktree(path: Path, rev: str) -> Path:
    subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "--force", str(path), rev], check=True,
                   capture_output=True)
    return path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--eras", nargs="+", default=["modern", "legacy"], choices=("modern", "legacy"))
    parser.add_argument("--seconds", type=int, default=10, help="wrk's counted run per server and era")
    parser.add_argument("--against", help="also measure BesluitBron at this git revision (a temporary worktree)")
    parser.add_argument("--no-floors", action="store_true", help="BesluitBron only: the A/B of a change, quicker")
    args = parser.parse_args()
    result = run(eras=tuple(args.eras), seconds=args.seconds, against=args.against, floors=not args.no_floors)
    if "skipped" in result:
        print(result["skipped"])
        return 1
    print(f"{'era':7} {'server':28} {'k instructions per call':>24} {'bare ÷ this':>12}")
    for row in result["rows"]:
        ratio = "–" if row["x_bare"] is None else f"{row['x_bare']:.2f}"
        print(f"{row['era']:7} {row['server']:28} {row['instructions_per_call'] / 1000:>24,.0f} {ratio:>12}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
