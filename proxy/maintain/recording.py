"""`check-live --record DIR`: the canaries' replies, written as replica data with their provenance.

A maintainer with network access refreshes the offline sample in one command: each reply the canaries read is
written byte for byte as the platform sent it (the form the replicas' data files keep: JSON pages, SRU and Atom
XML), one folder per platform, with a `SOURCES.md` that names every file with the request that produced it, when,
its size and its SHA-256. Requests are written with the platform's real address, also when the run was pointed
elsewhere (`--replicas-at`), so the provenance names where the data comes from.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from proxy.results.resultmemo import Fetch

__all__ = ["Recorded", "write_recording"]


@dataclass(frozen=True, slots=True)
class Recorded:
    file: str
    method: str
    request: str
    size: int
    sha256: str


def _suffix(body: bytes) -> str:
    head = body.lstrip()[:1]
    return ".json" if head in (b"{", b"[") else ".xml" if head == b"<" else ".txt"


def _name(n: int, url: str, body: bytes) -> str:
    path = url.split("?", 1)[0].rstrip("/").rsplit("/", 1)[-1] or "root"
    return f"{n:02d}-{re.sub(r'[^A-Za-z0-9._-]+', '_', path)[:60]}{_suffix(body)}"


def write_recording(folder: Path, platform: str, title: str, fetches: Sequence[Fetch], when: datetime, *,
                    served_at: str, real_base: str) -> list[Recorded]:
    """Write `fetches` into `folder` (created) with its SOURCES.md; returns what was written."""
    folder.mkdir(parents=True, exist_ok=True)
    written: list[Recorded] = []
    seen: set[str] = set()
    for fetch in fetches:
        url = str(getattr(fetch.target, "public_url", fetch.target))
        if served_at and url.startswith(served_at):
            url = real_base.rstrip("/") + url[len(served_at.rstrip("/")):]
        key = f"{fetch.method} {url}"
        if key in seen:  # the same reply read twice (a canary and the load query): kept once
            continue
        seen.add(key)
        name = _name(len(written) + 1, url, fetch.body)
        (folder / name).write_bytes(fetch.body)
        written.append(Recorded(name, fetch.method, url, len(fetch.body), hashlib.sha256(fetch.body).hexdigest()))
    stamp = when.strftime("%Y-%m-%d %H:%M UTC")
    lines = [f"# {title} ({platform}): recorded by `python -m proxy check-live --record`", "",
             f"Replies of the live-check canaries, recorded on {stamp}, byte for byte as the platform sent them.",
             "The platform's data is open data (see its licence on the source page); nothing here was edited.", "",
             "| File | Request | Recorded | Bytes | SHA-256 |", "|---|---|---|---|---|"]
    lines += [f"| `{r.file}` | `{r.method} {r.request}` | {stamp} | {r.size} | `{r.sha256[:16]}…` |" for r in written]
    (folder / "SOURCES.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return written
