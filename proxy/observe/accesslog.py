"""The web server's log: one line per request, with what the registry's privacy text says it holds.

aiohttp's own `AccessLogger` renders each field of its format through a method of its own, the time through a
`strftime` of local time, and logs with an `extra` mapping per field: about 20 µs a request, almost as much as all
of BesluitBron's own work on a cached call. `AccessLine` writes the same fields (client address, request line, status,
bytes, referrer, user agent) in one f-string. The time is the log record's own (`asctime`, or `at_utc` in JSON lines),
so it is not written twice.
"""

from __future__ import annotations

import logging
import time
from typing import TextIO

from aiohttp import web
from aiohttp.abc import AbstractAccessLogger

from proxy.observe.forwarded import TRUSTED_PROXIES, client_address
from proxy.observe.logsafe import one_line

__all__ = ["TEXT_FORMAT", "AccessLine", "TextLines", "lean_log_records", "use_text_logs"]

TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"  # a process's log line, unless JSON lines are asked


class AccessLine(AbstractAccessLogger):
    """`127.0.0.1 "POST /tweedekamer/mcp HTTP/1.1" 200 4321 "-" "client/1.0"`: aiohttp's default line, less the time."""

    def log(self, request: web.BaseRequest, response: web.StreamResponse, elapsed: float) -> None:
        headers = request.headers
        version = request.version
        # Behind a trusted reverse proxy the client's own address, not the proxy's (as the per-client limits read it).
        client = client_address(request, _trusted_proxies(request)) or "-"
        # The path is decoded and the headers are the client's: escaped, so no client can write a line of its own.
        self.logger.info(one_line(
            f'{client} "{request.method} {request.path_qs} HTTP/{version.major}.{version.minor}" '
            f'{response.status} {response.body_length} "{headers.get("Referer", "-")}" '
            f'"{headers.get("User-Agent", "-")}"'))


def _trusted_proxies(request: web.BaseRequest) -> frozenset[str]:
    """The application's trusted proxies; none for a request the HTTP parser refused (a 400 before routing has no
    application, and aiohttp's `config_dict` then fails an assertion inside the logger)."""
    if not isinstance(request, web.Request):
        return frozenset()
    try:
        return request.config_dict.get(TRUSTED_PROXIES, frozenset())
    except (AssertionError, AttributeError):
        return frozenset()


def lean_log_records() -> None:
    """Leave out of every log record what no line prints: where in the source it was logged (a walk up the stack),
    the thread and the process's name, all looked up anew for every record, the access log's one per request
    included; the logging HOWTO's own list of optimisations. The process id stays: gunicorn's lines print it."""
    logging._srcfile = None
    logging.logThreads = False
    logging.logMultiprocessing = False


class TextLines(logging.Formatter):
    """`TEXT_FORMAT`, its time written as `logging.Formatter` writes it (`2026-12-06 07:01:02,345`, local time),
    the text up to the second made once a second: with an access line per request, the time was a seventh of a
    line's cost."""

    def __init__(self) -> None:
        super().__init__(TEXT_FORMAT)
        self._second: tuple[int, str] = (-1, "")

    def formatMessage(self, record: logging.LogRecord) -> str:
        """The line with its message on one line, whatever a client put into it (`proxy.observe.logsafe`)."""
        record.message = one_line(record.message)
        return super().formatMessage(record)

    def formatTime(self, record: logging.LogRecord, datefmt: str | None = None) -> str:
        if datefmt is not None:
            return super().formatTime(record, datefmt)
        second = int(record.created)
        known = self._second
        if known[0] != second:
            known = self._second = (second, time.strftime(self.default_time_format, self.converter(record.created)))
        return f"{known[1]},{int(record.msecs):03d}"  # logging's default_msec_format, "%s,%03d"


def use_text_logs(stream: TextIO | None = None, level: int = logging.INFO) -> None:
    """Send every log record at `level` and above to `stream` (standard error) in `TextLines`, with lean records."""
    handler = logging.StreamHandler(stream)
    handler.setFormatter(TextLines())
    logging.basicConfig(level=level, handlers=[handler])
    lean_log_records()
