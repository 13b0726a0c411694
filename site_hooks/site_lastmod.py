"""When each page really changed, for the sitemap's `lastmod`. Pure: no mkdocs import.

A hand-written page changed when its source file was last committed (one `git log` for the whole
docs folder); outside a git checkout, its file's modification date. A generated page changed when
its registry entry says it did (`updated`), else when the registry file changed.
"""

from __future__ import annotations

import datetime as dt
import functools
import subprocess
from pathlib import Path

__all__ = ["file_date"]


def file_date(path: str | Path) -> str:
    """YYYY-MM-DD of the last commit touching `path`, or of its modification time outside git."""
    path = Path(path).resolve()
    committed = _commit_dates(str(path.parent)).get(path.name)
    if committed:
        return committed
    try:
        stamp = path.stat().st_mtime
    except OSError:
        stamp = 0.0
    return dt.datetime.fromtimestamp(stamp, dt.UTC).date().isoformat()


@functools.lru_cache(maxsize=64)
def _commit_dates(folder: str) -> dict[str, str]:
    """File name → date of its newest commit, for the files directly in `folder` (one git call)."""
    try:
        out = subprocess.run(["git", "log", "--format=%x00%cs", "--name-only", "--relative", "--", "."],
                             cwd=folder, capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.SubprocessError):
        return {}
    if out.returncode != 0:
        return {}
    dates: dict[str, str] = {}
    current = ""
    for line in out.stdout.splitlines():
        if line.startswith("\x00"):
            current = line[1:]
        elif line and "/" not in line:
            dates.setdefault(line, current)  # newest first: the first date seen is the last change
    return dates
