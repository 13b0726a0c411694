"""Strict HTTP framing and a write deadline (issue 27), on the real server over raw sockets.

`Transfer-Encoding: gzip, chunked` used to be read as chunked with the coding ignored; an absolute-form target
naming another host was answered as that host; a client that stopped reading kept its response forever.
"""

from __future__ import annotations

import asyncio
import logging
import socket
import time
from pathlib import Path
from urllib.parse import urlsplit

import aiohttp
import pytest

from tests.conftest import Replicas, serve, write_registry


async def _exchange(base: str, raw: bytes) -> bytes:
    parts = urlsplit(base)
    reader, writer = await asyncio.open_connection(parts.hostname, parts.port)
    writer.write(raw)
    await writer.drain()
    try:
        return await asyncio.wait_for(reader.read(65536), 5)
    finally:
        writer.close()


@pytest.mark.parametrize("coding", [b"gzip, chunked", b"chunked, chunked", b"identity"])
async def test_a_transfer_coding_other_than_chunked_alone_is_refused(replicas: Replicas, tmp_path: Path,
                                                                     caplog: pytest.LogCaptureFixture,
                                                                     coding: bytes) -> None:
    async with serve(write_registry(tmp_path), replicas) as live:
        host = urlsplit(live.base).netloc.encode()
        body = b"2\r\n{}\r\n0\r\n\r\n"
        answer = await _exchange(live.base, b"POST /wetten/mcp HTTP/1.1\r\nHost: " + host + b"\r\nTransfer-Encoding: "
                                 + coding + b"\r\nContent-Type: application/json\r\n\r\n" + body)
        plain = await _exchange(live.base, b"GET /health HTTP/1.1\r\nHost: " + host + b"\r\nConnection: close\r\n\r\n")
    status, _, rest = answer.partition(b"\r\n")
    assert status.split()[1] == b"400", answer[:80]  # refused: by the parser, or by held_framing
    assert b"\r\nServer: BesluitBron\r\n" in b"\r\n" + rest  # a parser's own answer names no versions either
    assert plain.startswith(b"HTTP/1.1 200")
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


async def test_an_absolute_form_target_for_another_host_is_refused(replicas: Replicas, tmp_path: Path) -> None:
    async with serve(write_registry(tmp_path), replicas) as live:
        host = urlsplit(live.base).netloc.encode()
        foreign = await _exchange(live.base, b"GET http://intranet.example/health HTTP/1.1\r\nHost: " + host
                                  + b"\r\nConnection: close\r\n\r\n")
        own = await _exchange(live.base, b"GET http://" + host + b"/health HTTP/1.1\r\nHost: " + host
                              + b"\r\nConnection: close\r\n\r\n")
    assert foreign.startswith(b"HTTP/1.1 400") and b"not a proxy" in foreign
    assert own.startswith(b"HTTP/1.1 200")


async def test_a_client_that_stops_reading_loses_the_connection_at_the_deadline(replicas: Replicas,
                                                                                  tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text("<!doctype html><title>t</title>", encoding="utf-8")
    (site / "big.bin").write_bytes(b"\0" * (64 * 1024 * 1024))  # far beyond what the socket buffers hold
    async with serve(write_registry(tmp_path), replicas, site_dir=site, write_timeout_seconds=1.0) as live:
        parts = urlsplit(live.base)
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # a small window: the server's writes stall
        sock.connect((parts.hostname, parts.port))
        sock.sendall(f"GET /big.bin HTTP/1.1\r\nHost: {parts.netloc}\r\n\r\n".encode())
        await asyncio.sleep(3)  # reads nothing: past the 1 s deadline
        sock.setblocking(False)
        received, ended = 0, False
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                chunk = sock.recv(1 << 20)
            except BlockingIOError:
                await asyncio.sleep(0.01)
                continue
            except ConnectionResetError:
                ended = True
                break
            if not chunk:
                ended = True
                break
            received += len(chunk)
        sock.close()
        async with asyncio.timeout(5), aiohttp.ClientSession() as http, http.get(f"{live.base}/health") as resp:
            healthy = resp.status  # at once: the dropped connection left nothing behind (it once stalled 15 s)
    assert ended and received < 32 * 1024 * 1024, received  # cut off, not the whole 64 MB
    assert healthy == 200
