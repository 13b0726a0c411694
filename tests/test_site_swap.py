"""One switch for both faces: site and MCP routes served from one process change in one step,
and a failed site build or an invalid registry changes nothing that is being served."""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import time
import urllib.parse
from pathlib import Path

import aiohttp
import pytest
import yarl

from proxy.web import sitebuild
from proxy.web.app import reload_registry
from proxy.web.sitebuild import build_site
from tests.conftest import Replicas, connector_entry, serve, write_registry


async def _status(http: aiohttp.ClientSession, url: str) -> int:
    async with http.get(url, allow_redirects=False) as resp:
        return resp.status


async def test_registry_change_swaps_site_and_routes_together(replicas: Replicas, tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    path = write_registry(tmp_path)
    root = tmp_path / "generations"
    first = await build_site(path, root)
    async with serve(path, replicas, site_dir=first, site_build_root=root) as live, \
            aiohttp.ClientSession() as http:
        page = f"{live.base}/connectoren/tweedekamer.html"
        assert await _status(http, f"{live.base}/") == 200
        assert await _status(http, f"{live.base}/en/") == 200
        assert await _status(http, page) == 200
        async with http.get(f"{live.base}/connectoren.html") as resp:
            assert "/tweedekamer/mcp" in await resp.text()
        # Text says it is UTF-8 (llms.txt names "Officiële bekendmakingen"), Markdown twins are text/markdown.
        for name, media in (("llms.txt", "text/plain"), ("en/llms.txt", "text/plain"), ("robots.txt", "text/plain"),
                            ("index.md", "text/markdown"), ("connectoren/tweedekamer.md", "text/markdown"),
                            ("connectoren/tweedekamer.server.json", "application/json"),
                            ("assets/favicon.svg", "image/svg+xml")):
            async with http.get(f"{live.base}/{name}") as resp:
                assert resp.status == 200 and resp.headers["Content-Type"] == f"{media}; charset=utf-8", name
                if name == "llms.txt":
                    assert "Officiële" in await resp.text()
        # A browser opening the address lands on its connection page.
        async with http.get(live.url("tweedekamer"), headers={"Accept": "text/html"}) as resp:
            assert resp.status == 200 and str(resp.url) == page

        data = json.loads(path.read_text())
        connector_entry(data, "tweedekamer")["enabled"] = False
        path.write_text(json.dumps(data))
        assert await reload_registry(live.app)
        snapshot = live.runtime.generation
        assert snapshot.site_dir != first and "tweedekamer" not in snapshot.catalog.connectors
        assert await _status(http, page) == 404
        async with http.post(live.url("tweedekamer"), json={}) as resp:
            assert resp.status == 404
        async with http.get(f"{live.base}/connectoren.html") as resp:
            assert "/tweedekamer/mcp" not in await resp.text()

        # A site that fails to build refuses the whole reload: routes and pages stay as they are.
        connector_entry(data, "rechtspraak")["enabled"] = False
        path.write_text(json.dumps(data))
        broken = tmp_path / "broken-mkdocs.yml"
        broken.write_text("site_name: [\n", encoding="utf-8")  # mkdocs refuses it: the build fails for real
        monkeypatch.setattr(sitebuild, "MKDOCS_YML", broken)
        assert not await reload_registry(live.app)
        assert live.runtime.generation is snapshot and snapshot.site_dir is not None
        assert sorted(p.name for p in root.iterdir()) == sorted([first.name, snapshot.site_dir.name])
        assert await _status(http, f"{live.base}/connectoren/rechtspraak.html") == 200
        async with http.post(live.url("rechtspraak"), json={}) as resp:
            assert resp.status != 404

        # An invalid registry changes nothing either.
        monkeypatch.undo()
        connector_entry(data, "openraadsinformatie")["slug"] = "Open Raad"
        path.write_text(json.dumps(data))
        assert not await reload_registry(live.app)
        assert live.runtime.generation is snapshot


async def test_site_serving_is_confined_to_its_directory(replicas: Replicas, tmp_path: Path) -> None:
    path = write_registry(tmp_path)
    root = tmp_path / "generations"
    site = await build_site(path, root)
    (tmp_path / "secret.txt").write_text("no")
    async with serve(path, replicas, site_dir=site, site_build_root=root) as live, \
            aiohttp.ClientSession() as http:
        assert await _status(http, f"{live.base}/../secret.txt") == 404
        assert await _status(http, f"{live.base}/%2e%2e/secret.txt") == 404
        async with http.get(f"{live.base}/bestaat-niet.html") as resp:
            assert resp.status == 404 and "<html" in (await resp.text()).lower()
        async with http.get(f"{live.base}/llms.txt") as resp:
            assert resp.status == 200 and "/allebronnen/mcp" in await resp.text()


async def test_static_paths_that_are_not_files_under_the_site(replicas: Replicas, tmp_path: Path) -> None:
    path = write_registry(tmp_path)
    root = tmp_path / "generations"
    site = await build_site(path, root)
    async with serve(path, replicas, site_dir=site, site_build_root=root) as live, \
            aiohttp.ClientSession() as http:
        for tail in ("%00", f"/{site}/index.html", "..%5c..%5cetc%5cpasswd"):
            async with http.get(f"{live.base}/{tail}", allow_redirects=False) as resp:
                assert resp.status == 404, tail


# Paths whose tail resolves to a directory of the site while reading as another host once a browser drops the tab,
# newline or backslash in it (the WHATWG URL parser strips tabs and newlines, and reads "\\" as "/").
_OFF_SITE = ["%09/evil.example/../..", "%09/evil.example:8080/../..", "%09/user@evil.example/../..",
             "%0a/evil.example/../..", "%0d/evil.example/../..", "%09%09/evil.example/../../en",
             ".%09/evil.example/../..", "%09/evil.example/../../connectoren"]


async def test_no_redirect_leaves_the_site(replicas: Replicas, tmp_path: Path) -> None:
    path = write_registry(tmp_path)
    root = tmp_path / "generations"
    site = await build_site(path, root)
    async with serve(path, replicas, site_dir=site, site_build_root=root) as live, \
            aiohttp.ClientSession() as http:
        redirected = 0
        for tail in _OFF_SITE:
            url = yarl.URL(f"{live.base}/{tail}", encoded=True)  # sent as written, not normalised by the client
            async with http.get(url, allow_redirects=False) as resp:
                location = resp.headers.get("Location")
            if location is None:
                continue
            redirected += 1
            browser_reads = re.sub(r"[\t\n\r]", "", urllib.parse.unquote(location)).replace("\\", "/")
            assert browser_reads.startswith("/") and not browser_reads.startswith("//"), (tail, location)
            assert urllib.parse.urljoin(live.base + "/", browser_reads).startswith(live.base + "/"), (tail, location)
        assert redirected  # the directories are still redirected to their own path
        async with http.get(f"{live.base}/en", allow_redirects=False) as resp:
            assert resp.status == 302 and resp.headers["Location"] == "/en/"


def _build_processes(marker: str) -> dict[int, tuple[int, int]]:
    """pid → (process group, niceness) of every live process in the process group of a mkdocs build whose
    command line names `marker` (its output folder), the forked language and the twin writer included."""
    stats: dict[int, list[str]] = {}
    groups: set[int] = set()
    for proc in Path("/proc").glob("[0-9]*"):
        with contextlib.suppress(OSError):
            fields = (proc / "stat").read_text().rsplit(")", 1)[1].split()
            if fields[0] == "Z":
                continue
            stats[int(proc.name)] = fields
            if marker in (proc / "cmdline").read_bytes().decode(errors="replace"):
                groups.add(int(fields[2]))
    return {pid: (int(f[2]), int(f[16])) for pid, f in stats.items() if int(f[2]) in groups}


async def test_a_cancelled_build_leaves_no_process_and_no_folder(tmp_path: Path) -> None:
    """A build runs niced in a process group of its own; cancelling it (a shutdown mid-reload) ends every process
    in it, the forked English build too, and removes its folder."""
    root = tmp_path / "generations"
    task = asyncio.create_task(build_site(write_registry(tmp_path), root))
    deadline = time.monotonic() + 60
    while len(found := _build_processes(str(root))) < 2:  # mkdocs and the language it forked
        assert time.monotonic() < deadline and not task.done(), found
        await asyncio.sleep(0.02)
    assert {nice for _, nice in found.values()} == {sitebuild.BUILD_NICENESS}
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    deadline = time.monotonic() + 10
    while any(_build_processes(str(root)).keys() & found.keys()):
        assert time.monotonic() < deadline, _build_processes(str(root))
        await asyncio.sleep(0.05)
    assert list(root.iterdir()) == []
