"""The shipped deploy/nginx.conf, run by a real nginx (Debian) with a certificate made here, in front of
`python -m proxy serve --workers 2` on a real redis-server: both protocol eras over https, an event stream
delivered while it is open, a worker killed mid-run with no call lost. What nginx cannot do, the page
Meerdere processen says: hold requests while no worker listens at all (a whole-service restart), which Caddy does."""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import signal
import ssl
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import aiohttp
import pytest

from tests.conftest import MODES, ROOT, Replicas, client, write_registry
from tests.redis_server import redis_server
from tests.test_workers import (
    TITLES,
    _free_port,
    _until_answering,
    _wait_for_port,
    children,
    person,
    unhurried,
    workers_process,
)

pytestmark = pytest.mark.redis
NGINX = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with redis_server(tmp_path_factory.mktemp("redis")) as url:
        yield url


def _certificate(tmp: Path) -> tuple[Path, Path]:
    cert, key = tmp / "fullchain.pem", tmp / "privkey.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=localhost",
                    "-addext", "subjectAltName=DNS:localhost", "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True)
    return cert, key


@contextmanager
def nginx(workers_port: int, tmp: Path) -> Iterator[tuple[str, Path]]:
    """deploy/nginx.conf with only its marked lines changed, inside a minimal main configuration."""
    assert NGINX, "nginx is not installed; `make test` installs it (Debian package nginx)"
    cert, key = _certificate(tmp)
    port = _free_port()
    block = (ROOT / "deploy" / "nginx.conf").read_text(encoding="utf-8")
    changed = block.replace("127.0.0.1:8000", f"127.0.0.1:{workers_port}").replace("listen 443 ssl;",
                                                                                    f"listen 127.0.0.1:{port} ssl;")
    changed = changed.replace("server_name besluitbron.example;", "server_name localhost;")
    changed = changed.replace("/etc/ssl/besluitbron/fullchain.pem", str(cert)).replace(
        "/etc/ssl/besluitbron/privkey.pem", str(key))
    assert changed.count(str(workers_port)) == 4 and str(cert) in changed  # the marked lines, and only those
    (tmp / "nginx").mkdir(exist_ok=True)
    main = tmp / "nginx" / "nginx.conf"
    main.write_text(f"""daemon off;
pid {tmp}/nginx/nginx.pid;
error_log {tmp}/nginx/error.log warn;
events {{ worker_connections 1024; }}
http {{
    access_log off;
    client_body_temp_path {tmp}/nginx/body;
    proxy_temp_path {tmp}/nginx/proxy;
    fastcgi_temp_path {tmp}/nginx/fastcgi;
    uwsgi_temp_path {tmp}/nginx/uwsgi;
    scgi_temp_path {tmp}/nginx/scgi;
{changed}
}}
""", encoding="utf-8")
    log = tmp / "nginx" / "run.log"
    with log.open("wb") as out:
        proc = subprocess.Popen([NGINX, "-c", str(main), "-p", str(tmp / "nginx")], stdout=out,
                                stderr=subprocess.STDOUT)
        try:
            _wait_for_port(port, proc, log)
            yield f"https://localhost:{port}", cert
        finally:
            proc.terminate()  # nginx's fast shutdown: open event streams are not waited for
            proc.wait(timeout=20)


async def test_two_workers_behind_nginx_answer_both_eras_stream_and_survive_a_killed_worker(
        replicas: Replicas, redis_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    registry = write_registry(tmp_path, unhurried)
    with workers_process(registry, replicas, redis_url, tmp_path) as (arbiter, port), \
            nginx(port, tmp_path) as (https, ca):
        monkeypatch.setenv("SSL_CERT_FILE", str(ca))
        url = f"{https}/wetten/mcp"
        context = ssl.create_default_context(cafile=str(ca))
        await _until_answering(https, ca, lambda: (tmp_path / "nginx" / "error.log").read_text())
        # Both eras, several at once so both workers answer (a legacy session spans them through Redis).
        async def one(mode: str, title: str) -> bool:
            async with client(url, mode) as c:
                return not (await c.call_tool("search_regulations", {"title": title, "limit": 1})).is_error
        assert all(await asyncio.gather(*(one(mode, f"wet {i}") for i in range(3) for mode in MODES)))

        # An event stream through nginx delivers each event as it is sent (proxy_buffering off): a legacy
        # session's GET stream is open, SIGHUP reloads the workers, the tools/list_changed notification arrives.
        await _notification_arrives(url, context, arbiter.pid)

        # 40 people calling for 8 s; one worker killed halfway: nginx sends the failed calls again.
        stop = asyncio.Event()
        failed: list[str] = []
        done = [0]

        async def keep_calling(n: int, mode: str) -> None:
            async with person(url, mode, n, ca) as session:
                while not stop.is_set():
                    try:
                        result = await session.call_tool("search_regulations", {"title": TITLES[n % 8], "limit": 2})
                        if result.is_error:
                            failed.append(str(result.content[0])[:200])
                        done[0] += 1
                    except Exception as exc:
                        failed.append(f"person {n}: {exc!r:.200}")

        before = children(arbiter.pid)
        loops = [asyncio.ensure_future(keep_calling(n, MODES[n % 2])) for n in range(40)]
        await asyncio.sleep(4)
        os.kill(min(before), signal.SIGKILL)
        await asyncio.sleep(4)
        stop.set()
        await asyncio.gather(*loops)
    print(f"\nnginx: 40 clients, 8 s, a worker killed: {done[0]} calls, {len(failed)} failed")
    errors = (tmp_path / "nginx" / "error.log").read_text(errors="replace").splitlines()
    assert not failed, (len(failed), failed[:3], [e[-300:] for e in errors if "upstream" in e][-6:])
    assert done[0] >= 40


async def _notification_arrives(url: str, context: ssl.SSLContext, arbiter: int) -> None:
    import json

    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
               "MCP-Protocol-Version": "2025-11-25"}
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
    async with aiohttp.ClientSession() as http:
        async with http.post(url, data=json.dumps(init), headers=headers, ssl=context) as resp:
            assert resp.status == 200
            session = resp.headers["Mcp-Session-Id"]
        headers["Mcp-Session-Id"] = session
        async with http.post(url, data=json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}),
                             headers=headers, ssl=context) as resp:
            assert resp.status == 202
        async with http.get(url, headers={**headers, "Accept": "text/event-stream"}, ssl=context,
                            timeout=aiohttp.ClientTimeout(total=30)) as stream:
            assert stream.status == 200 and stream.content_type == "text/event-stream"
            await asyncio.sleep(0.5)  # the stream is registered at its worker
            os.kill(arbiter, signal.SIGHUP)
            async with asyncio.timeout(20):
                while b"notifications/tools/list_changed" not in await stream.content.readline():
                    pass


def test_the_page_shows_the_shipped_nginx_configuration_and_what_nginx_cannot_do() -> None:
    """One nginx configuration: the page includes deploy/nginx.conf itself (the two had diverged)."""
    for page in ("meerdere-processen.md", "meerdere-processen.en.md"):
        text = (ROOT / "docs" / page).read_text(encoding="utf-8")
        assert '--8<-- "deploy/nginx.conf"' in text and "upstream besluitbron {" not in text, page
        assert re.search(r"lb_try_duration", text), page  # what nginx cannot do, said next to it
