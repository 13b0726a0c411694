"""The web server's log: one line per request, as the registry's privacy text says (time, address, path, status,
client), written by `AccessLine` and `TextLines` at a fraction of aiohttp's own logger's cost.

The line is aiohttp's default access line without its time (the record's own time leads the line); the time text is
what `logging.Formatter` writes; and every process serves with it, the real application on a real socket here.
"""

from __future__ import annotations

import asyncio
import io
import json
import logging
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import aiohttp
import pytest
from aiohttp import web
from aiohttp.test_utils import make_mocked_request
from aiohttp.web_log import AccessLogger
from hypothesis import given
from hypothesis import strategies as st

from proxy.observe.accesslog import TEXT_FORMAT, AccessLine, LineFormatter, LineHandler, TextLines
from proxy.observe.jsonlog import JsonLines
from proxy.observe.logsafe import _LINE_BREAKING, _escape, one_line
from proxy.web.app import Config, app_runner, create_app
from tests.conftest import REGISTRY, Replicas

_TIME = re.compile(r" \[[^\]]*\]")  # aiohttp's %t field


def _line(logger_class: type, request: web.BaseRequest, response: web.StreamResponse, fmt: str) -> str:
    stream = io.StringIO()
    logger = logging.getLogger(f"test-access-{logger_class.__name__}")
    logger.handlers[:] = [logging.StreamHandler(stream)]
    logger.setLevel(logging.INFO)
    logger.propagate = False
    logger_class(logger, fmt).log(request, response, 0.012)
    return stream.getvalue().rstrip("\n")


@given(path=st.sampled_from(["/tweedekamer/mcp", "/connectoren/wetten.html", "/health?x=1&y=%20z", "/"]),
       method=st.sampled_from(["GET", "POST", "DELETE"]), status=st.sampled_from([200, 202, 404, 421]),
       agent=st.one_of(st.none(), st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=40)),
       referer=st.one_of(st.none(), st.just("https://besluitbron.nl/keuzehulp.html")),
       body=st.binary(max_size=64))
def test_the_line_is_aiohttps_default_line_without_its_time(path: str, method: str, status: int, agent: str | None,
                                                            referer: str | None, body: bytes) -> None:
    headers = {name: value for name, value in (("User-Agent", agent), ("Referer", referer)) if value is not None}
    request = make_mocked_request(method, path, headers=headers)
    response = web.Response(status=status, body=body)
    ours = _line(AccessLine, request, response, "")
    theirs = _TIME.sub("", _line(AccessLogger, request, response, AccessLogger.LOG_FORMAT), count=1)
    assert ours == theirs


@given(st.floats(min_value=0, max_value=7.2e9, allow_nan=False))
def test_the_time_is_written_as_loggings_own_formatter_writes_it(created: float) -> None:
    record = logging.LogRecord("aiohttp.access", logging.INFO, __file__, 1, "a line", None, None)
    record.created, record.msecs = created, (created - int(created)) * 1000 // 1
    ours, theirs = TextLines(), logging.Formatter(TEXT_FORMAT)
    for _ in range(2):  # the second time from the text it kept for that second
        assert ours.format(record) == theirs.format(record)


@pytest.mark.parametrize("formatter", [TextLines, JsonLines])
def test_a_line_taken_without_a_record_is_the_line_a_record_makes(formatter: type[LineFormatter]) -> None:
    """The handler every process logs through takes the access line as text (`LineHandler.take`): the same line
    `Logger.info` writes through it, in text and in JSON lines. With a filter on the way the line goes through
    `logging` (the filter sees it), and so it does with a second handler (both get it)."""
    stream, other = io.StringIO(), io.StringIO()
    logger = logging.getLogger(f"test-take-{formatter.__name__}")
    logger.handlers[:] = [LineHandler(formatter(), stream)]
    logger.setLevel(logging.INFO)
    logger.propagate = False
    request = make_mocked_request("GET", "/health", headers={"User-Agent": "take-test/1.0"})
    response = web.Response(status=200, body=b"ok")
    AccessLine(logger, "").log(request, response, 0.01)
    logger.info('- "GET /health HTTP/1.1" 200 0 "-" "take-test/1.0"')  # a mocked request: no peer, nothing sent
    taken, logged = stream.getvalue().splitlines()
    if formatter is JsonLines:
        assert json.loads(taken) | {"at_utc": ""} == json.loads(logged) | {"at_utc": ""}
        assert json.loads(taken)["logger"] == logger.name
    else:
        stamp = r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} "
        assert re.fullmatch(stamp + re.escape(f'INFO {logger.name}: - "GET /health HTTP/1.1" 200 0 "-" '
                                              '"take-test/1.0"'), taken), taken
        assert taken[23:] == logged[23:] and re.match(stamp, logged)

    seen: list[str] = []

    def refuse(record: logging.LogRecord) -> bool:
        seen.append(record.getMessage())
        return False

    logger.addFilter(refuse)
    AccessLine(logger, "").log(request, response, 0.01)
    assert len(seen) == 1 and len(stream.getvalue().splitlines()) == 2  # the filter refused it: no line
    logger.filters.clear()
    logger.addHandler(logging.StreamHandler(other))
    AccessLine(logger, "").log(request, response, 0.01)
    assert len(stream.getvalue().splitlines()) == 3 and other.getvalue().endswith('"take-test/1.0"\n')


@contextmanager
def _access_lines() -> Iterator[io.StringIO]:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(TextLines())
    logger = logging.getLogger("aiohttp.access")
    level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        yield stream
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)


async def test_every_request_leaves_one_line_with_time_address_request_status_and_client(replicas: Replicas,
                                                                                          tmp_path: Path) -> None:
    app = create_app(Config(registry_path=REGISTRY, base_urls=replicas.base_urls, measure_load=False))
    runner = app_runner(app, grace=1.0)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    base = f"http://127.0.0.1:{site.port}"
    try:
        with _access_lines() as stream:
            async with aiohttp.ClientSession(headers={"User-Agent": "access-test/1.0"}) as http:
                async with http.get(f"{base}/health", headers={"Referer": "https://example.test/"}) as resp:
                    size = len(await resp.read())
                async with http.post(f"{base}/tweedekamer/mcp", data=b"{}") as resp:
                    refused = resp.status
                # From a trusted proxy (loopback): the client it names, not the proxy; a forged value is not believed.
                async with http.get(f"{base}/health", headers={"X-Forwarded-For": "198.51.100.7, 203.0.113.9"}):
                    pass
                async with http.get(f"{base}/health", headers={"X-Forwarded-For": "203.0.113.9\u2028evil"}):
                    pass
    finally:
        await runner.cleanup()
    # The replicas' own server logs to aiohttp.access too: only this client's lines count.
    lines = [line for line in stream.getvalue().splitlines() if line.endswith('"access-test/1.0"')]
    assert len(lines) == 4, stream.getvalue()
    assert ' INFO aiohttp.access: 203.0.113.9 "GET /health' in lines[2]  # it logged the proxy's 127.0.0.1
    assert ' INFO aiohttp.access: 127.0.0.1 "GET /health' in lines[3] and "evil" not in lines[3]
    stamp = r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} INFO aiohttp\.access: "
    health = re.fullmatch(stamp + r'127\.0\.0\.1 "GET /health HTTP/1\.1" 200 (\d+) "https://example\.test/" '
                          r'"access-test/1\.0"', lines[0])
    assert health and int(health[1]) > size, lines[0]  # bytes sent, headers included (aiohttp's %b)
    assert re.fullmatch(stamp + rf'127\.0\.0\.1 "POST /tweedekamer/mcp HTTP/1\.1" {refused} \d+ "-" '
                        r'"access-test/1\.0"', lines[1]), lines[1]


_LINE_ENDS = ["\u2028", "\u2029", "\x85", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e"]


async def test_no_client_can_forge_a_line_with_a_unicode_line_end(replicas: Replicas) -> None:
    """A User-Agent, Referer or decoded path holding a character `str.splitlines` breaks on stays on its request's
    line, escaped (the request sent as raw bytes, as a hostile client would: HTTP clients refuse some of these). The
    parser refuses C0 controls in a header with a 400, which is logged too."""
    app = create_app(Config(registry_path=REGISTRY, base_urls=replicas.base_urls, measure_load=False))
    runner = app_runner(app, grace=1.0)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    sent = 0
    try:
        with _access_lines() as stream:
            for end in _LINE_ENDS:
                forged = f"x{end}2026-12-06 07:01:02,345 INFO aiohttp.access: 10.0.0.1 \"GET /admin\""
                path = "/health?q=" + "".join(f"%{b:02X}" for b in end.encode())
                request = (f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: forge-test {forged}\r\n"
                           f"Referer: {forged}\r\nConnection: close\r\n\r\n").encode()
                reader, writer = await asyncio.open_connection("127.0.0.1", site.port)
                writer.write(request)
                await writer.drain()
                assert re.match(rb"HTTP/1\.[01] (200|400) ", await reader.read())
                writer.close()
                sent += 1
    finally:
        await runner.cleanup()
    lines = [line for line in stream.getvalue().splitlines() if "aiohttp.access: " in line]
    assert len(lines) == sent == len(_LINE_ENDS), lines  # one line a request, none of them forged
    stamp = r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} INFO aiohttp\.access: 127\.0\.0\.1 "
    assert all(re.match(stamp, line) for line in lines), lines
    kept = [line for line in lines if "forge-test" in line]  # the three the parser let through, escaped
    assert len(kept) == 3 and all("x\\u20" in line or "x\\u0085" in line for line in kept), kept


@given(st.text())
def test_a_line_is_escaped_exactly_where_a_character_could_end_it(text: str) -> None:
    """`one_line` leaves printable text as it is (its fast path) and escapes exactly the characters that end or hide
    a line, whatever else the text holds (a soft hyphen, a private-use character: kept)."""
    assert one_line(text) == _LINE_BREAKING.sub(_escape, text)
    assert len(one_line(text).splitlines()) <= 1
