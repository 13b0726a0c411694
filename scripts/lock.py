"""Write requirements.lock: every package the runtime needs (pyproject's dependencies and theirs), pinned to the
version installed here, so the image installs exactly what `make test` tested. Run after changing a dependency:

    .venv/bin/python scripts/lock.py
"""

from __future__ import annotations

import re
import sys
import tomllib
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[1]
LOCK = ROOT / "requirements.lock"


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _wanted(requirement: str) -> str | None:
    """The package a requirement names, unless its marker leaves it out here (an extra, another platform or
    Python); the image runs the same Python on the same kind of system as `make test`."""
    parsed = Requirement(requirement)
    if parsed.marker is not None and not parsed.marker.evaluate({"extra": ""}):
        return None
    return _canonical(parsed.name)


def runtime_closure() -> dict[str, str]:
    """{canonical name: installed version} of the runtime dependencies and everything they pull in."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    todo = [n for r in project["dependencies"] if (n := _wanted(r))]
    pinned: dict[str, str] = {}
    while todo:
        name = todo.pop()
        if name in pinned:
            continue
        dist = metadata.distribution(name)
        pinned[name] = dist.version
        todo += [n for r in dist.requires or [] if (n := _wanted(r))]
    return dict(sorted(pinned.items()))


def render(pinned: dict[str, str]) -> str:
    head = "# The runtime's dependencies, pinned (scripts/lock.py writes it from the environment `make test` uses).\n"
    return head + "".join(f"{name}=={version}\n" for name, version in pinned.items())


if __name__ == "__main__":
    LOCK.write_text(render(runtime_closure()), encoding="utf-8")
    sys.stdout.write(f"wrote {LOCK.name}: {len(runtime_closure())} packages\n")
