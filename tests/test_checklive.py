"""The live contract check (`python -m proxy check-live`) against the replicas: all ok as they are, the drift
named and a non-zero exit when a replica answers in a changed shape, and the result on /status."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import aiohttp

from proxy.core.clock import utc_now
from proxy.maintain.checklive import check_live
from proxy.registry.model import load_registry
from tests.conftest import REGISTRY, ROOT, Replicas, serve


async def _cli(*args: str) -> tuple[int, str]:
    """`python -m proxy check-live ARGS` in a child process (the replicas keep serving in this loop)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("BESLUITBRON_REDIS_URL", None)
    proc = await asyncio.create_subprocess_exec(sys.executable, "-m", "proxy", "check-live", *args, cwd=ROOT, env=env,
                                                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
    out, _ = await asyncio.wait_for(proc.communicate(), timeout=120)
    return proc.returncode or 0, out.decode()


async def test_every_platform_is_ok_against_the_replicas(replicas: Replicas) -> None:
    registry = load_registry(REGISTRY).with_base_urls(replicas.base_urls)
    results = {key: await check_live(registry, key) for key in registry.platforms}
    # Every platform brings its canary (PlatformPlugin.canary): none skipped, all ok.
    assert {k: (r.status, r.findings) for k, r in results.items()} == {k: ("ok", ()) for k in registry.platforms}
    assert all(r.requests >= 3 for r in results.values())  # a search, a read, the load query


async def test_a_drifted_replica_is_named_and_the_exit_is_non_zero(replicas: Replicas) -> None:
    code, out = await _cli("tweedekamer", "wetten", "--replicas-at", replicas.url)
    assert code == 0, out
    assert "tweedekamer: ok" in out and "wetten: ok" in out
    try:
        # The Gegevensmagazijn renames a field; BWB answers its end dates in another form.
        replicas.faults("tweedekamer").update({"drift": {'"DocumentNummer"': '"Documentnummer"'}})
        replicas.faults("wetten").update({"drift": {"<overheidbwb:geldigheidsperiode_startdatum>":
                                                    "<overheidbwb:geldigheidsperiode_startdatum>d:"}})
        code, out = await _cli("tweedekamer", "wetten", "woo", "--replicas-at", replicas.url)
    finally:
        replicas.clear_faults()
    assert code == 1, out
    assert "tweedekamer: DRIFT" in out and "search: value[0]: field 'DocumentNummer' is missing" in out
    assert "wetten: DRIFT" in out and "geldigheidsperiode_startdatum 'd:" in out and "is not a date" in out
    assert "woo: ok" in out


async def test_an_unknown_slug_is_refused_naming_the_known_ones(replicas: Replicas) -> None:
    code, out = await _cli("tweedekamr", "--replicas-at", replicas.url)
    assert code == 1 and "'tweedekamr' is neither a platform nor a connector; known: " in out
    assert "tweedekamer" in out


async def test_status_shows_the_last_live_check(replicas: Replicas, redis_url: str, tmp_path: Path) -> None:
    code, out = await _cli("woo", "--replicas-at", replicas.url, "--redis", redis_url)
    assert code == 0 and "stored:" in out, out
    registry = tmp_path / "registry.json"
    registry.write_bytes(REGISTRY.read_bytes())
    async with serve(registry, replicas, redis_url=redis_url) as live, aiohttp.ClientSession() as http, \
            http.get(f"{live.base}/status") as resp:
        status = await resp.json()
    check = status["live_check"]
    assert check["ok"] is True and check["platforms"] == {"woo": {"status": "ok", "findings": []}}
    assert check["checked_at"][:10] == utc_now().date().isoformat()


async def test_record_writes_the_canaries_replies_as_replica_data(replicas: Replicas, tmp_path: Path) -> None:
    """`check-live --record DIR`: every reply the canaries read, byte for byte, with a SOURCES.md naming each file
    with the request at the platform's real address; the replica data format is those raw replies."""
    import hashlib
    import json

    out = tmp_path / "recorded"
    code, text = await _cli("ori", "tweedekamer", "--replicas-at", replicas.url, "--record", str(out))
    assert code == 0, text
    registry = load_registry(REGISTRY)
    for key in ("ori", "tweedekamer"):
        folder = out / key
        sources = (folder / "SOURCES.md").read_text(encoding="utf-8")
        files = sorted(p for p in folder.iterdir() if p.name != "SOURCES.md")
        assert len(files) >= 3, files  # a search, a read, the load query
        for path in files:
            row = next(line for line in sources.splitlines() if f"`{path.name}`" in line)
            assert registry.platforms[key].base_url in row and replicas.url not in row
            assert hashlib.sha256(path.read_bytes()).hexdigest()[:16] in row
    # The replies are kept as served: the organisation list is the platform's whole catalog.
    listed = next(p for p in (out / "ori").iterdir() if p.name.endswith("-sources.json"))
    rows = json.loads(listed.read_bytes())["sources"]
    assert len([r for r in rows if not r.get("isAggregate")]) == 330 and {"key": "den_bosch"}.items() <= \
        next(r for r in rows if r["key"] == "den_bosch").items()
