"""Build the documentation site for a registry and read back which MCP addresses it shows.

`build_site` runs the real `mkdocs build --strict` in a subprocess (the way `make site` and the
server's reload do), with `SOURCE_DATE_EPOCH` fixed so two builds are byte-identical.
`collect_site_addresses` reads every surface a person or an AI assistant could take an address
from; the site/server agreement test compares those sets with what the server answers.
`tag` and `attr` read a built page's HTML (BeautifulSoup) with the check a test makes anyway:
the element is there, the attribute is one string.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from bs4 import Tag

from proxy.catalog.site_input import SITE_INPUT_ENV, SiteInput

__all__ = [
    "ROOT",
    "SOURCE_DATE_EPOCH",
    "SiteBuildFailed",
    "attr",
    "build_site",
    "collect_site_addresses",
    "run_mkdocs_build",
    "site_files",
    "tag",
]

ROOT = Path(__file__).resolve().parent.parent
SOURCE_DATE_EPOCH = "1767225600"  # 2026-01-01T00:00:00Z

_ADDRESS = re.compile(r"/([a-z0-9]+)/mcp(?![A-Za-z0-9_/.-])")
_CONNECTION_PAGE = re.compile(r"/connectoren/([a-z0-9]+)\.html(?![A-Za-z0-9_/.-])")
_LOC = re.compile(r"<loc>([^<]+)</loc>")


class SiteBuildFailed(AssertionError):
    """mkdocs exited non-zero; the message carries its output."""


def run_mkdocs_build(registry_path: str | Path, out_dir: str | Path, *, status_path: str | Path | None = None,
                     plugins: str | None = None, config_file: str | Path | None = None,
                     sample_recorded_on: str | None = None, remote: Mapping[str, Any] | None = None,
                     extra_env: Mapping[str, str] | None = None,
                     profile_to: str | Path | None = None, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """`mkdocs build --strict` for `registry_path` into `out_dir`; returns the finished process.

    What a server hands its builds (`SiteInput`) is written beside `out_dir`: the registry, the status
    snapshot read from `status_path`, the remote listings, the sample date. `plugins` is the benchmark-only
    "module:function" switch (see site_hooks/README.md); tests leave it unset, so the hooks build the catalog
    exactly as the server does. `profile_to` runs the build under cProfile and writes its stats there
    (bench/bench_site.py).
    """
    out = Path(out_dir).resolve()
    out.parent.mkdir(parents=True, exist_ok=True)
    given = out.with_name(out.name + ".input.json")
    status = json.loads(Path(status_path).read_text(encoding="utf-8")) if status_path is not None else None
    SiteInput(registry=Path(registry_path), status=status, remote=remote, sample_recorded_on=sample_recorded_on,
              plugins=plugins).write(given)
    env = {key: value for key, value in os.environ.items() if key != SITE_INPUT_ENV}
    env.update({
        SITE_INPUT_ENV: str(given),
        "SOURCE_DATE_EPOCH": SOURCE_DATE_EPOCH,
        "NO_MKDOCS_2_WARNING": "1",
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")])),
    })
    env.update(extra_env or {})
    profiler = ["-m", "cProfile", "-o", str(Path(profile_to).resolve())] if profile_to is not None else []
    command = [sys.executable, *profiler, "-m", "mkdocs", "build", "--strict",
               "-f", str(config_file or ROOT / "mkdocs.yml"), "-d", str(out)]
    try:
        return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout,
                              check=False)
    finally:
        given.unlink(missing_ok=True)


def build_site(registry_path: str | Path, out_dir: str | Path, *, status_path: str | Path | None = None,
               plugins: str | None = None, remote: Mapping[str, Any] | None = None) -> Path:
    """Build the site for `registry_path` into `out_dir` and return that directory."""
    proc = run_mkdocs_build(registry_path, out_dir, status_path=status_path, plugins=plugins, remote=remote)
    if proc.returncode != 0:
        raise SiteBuildFailed(f"mkdocs build --strict failed (exit {proc.returncode}) for {registry_path}:\n"
                              f"{proc.stdout}\n{proc.stderr}")
    return Path(out_dir)


def site_files(site_dir: str | Path) -> dict[str, bytes]:
    """Every output file by its posix path under `site_dir` (gzip files decompressed)."""
    root = Path(site_dir)
    out = {}
    for path in sorted(root.rglob("*")):
        if path.is_file():
            data = path.read_bytes()
            out[path.relative_to(root).as_posix()] = gzip.decompress(data) if path.suffix == ".gz" else data
    return out


def collect_site_addresses(site_dir: str | Path) -> dict[str, set[str]]:
    """Per surface, the `/<slug>/mcp` addresses it shows.

    Surfaces: every HTML page (its whole text, footer included) and its Markdown twin (`.md`), every
    `server.json`, `llms.txt`, `en/llms.txt`, `explorer.json`, `en/explorer.json`, `robots.txt` and
    `sitemap.xml`. The sitemap lists pages, not MCP addresses, so for it a listed connection page
    `connectoren/<slug>.html` counts as `/<slug>/mcp`.
    """
    root = Path(site_dir)
    surfaces: dict[str, set[str]] = {}
    for pattern in ("*.html", "*.md", "*.server.json"):
        for path in sorted(root.rglob(pattern)):
            surfaces[path.relative_to(root).as_posix()] = _addresses(path.read_text(encoding="utf-8"))
    for name in ("llms.txt", "en/llms.txt", "explorer.json", "en/explorer.json", "robots.txt"):
        path = root / name
        if path.is_file():
            surfaces[name] = _addresses(path.read_text(encoding="utf-8"))
    sitemap = root / "sitemap.xml"
    if sitemap.is_file():
        text = sitemap.read_text(encoding="utf-8")
        pages = {f"/{m.group(1)}/mcp" for loc in _LOC.findall(text) for m in _CONNECTION_PAGE.finditer(loc)}
        surfaces["sitemap.xml"] = pages | _addresses(text)
    return surfaces


def tag(found: object) -> Tag:
    """What `find` or `select_one` returned, as the element; fails the test if nothing was found."""
    assert isinstance(found, Tag), found
    return found


def attr(element: object, name: str) -> str:
    """A single-valued attribute (href, src, id, ...) of an element that must be there."""
    value = tag(element).get(name)
    assert isinstance(value, str), (name, value)
    return value


def _addresses(text: str) -> set[str]:
    return {f"/{m.group(1)}/mcp" for m in _ADDRESS.finditer(text)}
