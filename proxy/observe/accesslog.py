"""The web server's log: one line per request, with what the registry's privacy text says it holds.

aiohttp's own `AccessLogger` renders each field of its format through a method of its own, the time through a
`strftime` of local time, and logs with an `extra` mapping per field: about 20 µs a request, almost as much as all
of BesluitBron's own work on a cached call. `AccessLine` writes the same fields (client address, request line, status,
bytes, referrer, user agent) in one f-string. The time is the log record's own (`asctime`, or `at_utc` in JSON lines),
so it is not written twice. Where the line's one handler is the `LineHandler` every process logs through
(`use_text_logs`, or JSON lines), the line goes to it as text, without a LogRecord; anywhere else through `logging`.
"""

from __future__ import annotations

import logging
import time
from typing import TextIO

from aiohttp import web
from aiohttp.abc import AbstractAccessLogger

from proxy.observe.forwarded import CLIENT, TRUSTED_PROXIES, client_address
from proxy.observe.logsafe import one_line

__all__ = ["TEXT_FORMAT", "AccessLine", "LineFormatter", "LineHandler", "TextLines", "lean_log_records",
           "use_text_logs"]

TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"  # a process's log line, unless JSON lines are asked


class AccessLine(AbstractAccessLogger):
    """`127.0.0.1 "POST /tweedekamer/mcp HTTP/1.1" 200 4321 "-" "client/1.0"`: aiohttp's default line, less the time."""

    def log(self, request: web.BaseRequest, response: web.StreamResponse, elapsed: float) -> None:
        logger = self.logger
        if not logger.isEnabledFor(logging.INFO):
            return
        headers = request.headers
        version = request.version
        # Behind a trusted reverse proxy the client's own address, not the proxy's (as the per-client limits read it).
        client = request.get(CLIENT) if isinstance(request, web.Request) else None
        if client is None:
            client = client_address(request, _trusted_proxies(request))
        client = client or "-"
        # The path is decoded and the headers are the client's: escaped, so no client can write a line of its own.
        message = one_line(
            f'{client} "{request.method} {request.path_qs} HTTP/{version.major}.{version.minor}" '
            f'{response.status} {response.body_length} "{headers.get("Referer", "-")}" '
            f'"{headers.get("User-Agent", "-")}"')
        sole = _sole_line_handler(logger)
        if sole is None:
            logger.info(message)
        else:
            sole.take(logger.name, message)


def _sole_line_handler(logger: logging.Logger) -> LineHandler | None:
    """The handler a record of `logger` would reach, when there is one, a `LineHandler`, and nothing on the way
    filters: then the line can go to it without a LogRecord (what `use_text_logs` and `use_json_logs` set up)."""
    found: LineHandler | None = None
    node: logging.Logger | None = logger
    while node is not None:
        if node.filters:
            return None
        for handler in node.handlers:
            if found is not None or not isinstance(handler, LineHandler) or handler.filters \
                    or handler.level > logging.INFO:
                return None
            found = handler
        if not node.propagate:
            break
        node = node.parent
    return found


class LineFormatter(logging.Formatter):
    """A formatter that also writes a line from its parts (`TextLines`, `proxy.observe.jsonlog.JsonLines`)."""

    def line(self, created: float, msecs: int, level: str, name: str, message: str) -> str:
        raise NotImplementedError


class LineHandler(logging.StreamHandler[TextIO]):
    """A stream handler that also takes an access line as its parts (`take`). A line per request through
    `Logger.info` made a LogRecord and walked the loggers and handlers for it: two thirds of the line's cost."""

    def __init__(self, lines: LineFormatter, stream: TextIO | None = None) -> None:
        super().__init__(stream)
        self.lines = lines
        self.setFormatter(lines)

    def take(self, name: str, message: str) -> None:
        """Write `message` at INFO from logger `name`, as this handler writes such a record."""
        created = time.time()
        text = self.lines.line(created, int((created - int(created)) * 1000), "INFO", name, message)
        self.acquire()
        try:
            self.stream.write(text + self.terminator)
            self.flush()
        except Exception:
            self.handleError(logging.LogRecord(name, logging.INFO, "", 0, message, None, None))
        finally:
            self.release()


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


class TextLines(LineFormatter):
    """`TEXT_FORMAT`, its time written as `logging.Formatter` writes it (`2026-12-06 07:01:02,345`, local time),
    the text up to the second made once a second: with an access line per request, the time was a seventh of a
    line's cost."""

    def __init__(self) -> None:
        super().__init__(TEXT_FORMAT)
        self._second: tuple[int, str] = (-1, "")

    def format(self, record: logging.LogRecord) -> str:
        """`TEXT_FORMAT` in one f-string (logging's own way looks the format up and searches it for the time on
        every record: half of an access line's cost); a record with a traceback or stack the standard way."""
        if record.exc_info or record.exc_text or record.stack_info:
            return super().format(record)
        return self.line(record.created, int(record.msecs), record.levelname, record.name, record.getMessage())

    def line(self, created: float, msecs: int, level: str, name: str, message: str) -> str:
        return f"{self._time(created, msecs)} {level} {name}: {one_line(message)}"

    def formatMessage(self, record: logging.LogRecord) -> str:
        """The line with its message on one line, whatever a client put into it (`proxy.observe.logsafe`)."""
        record.message = one_line(record.message)
        return super().formatMessage(record)

    def formatTime(self, record: logging.LogRecord, datefmt: str | None = None) -> str:
        if datefmt is not None:
            return super().formatTime(record, datefmt)
        return self._time(record.created, int(record.msecs))

    def _time(self, created: float, msecs: int) -> str:
        second = int(created)
        known = self._second
        if known[0] != second:
            known = self._second = (second, time.strftime(self.default_time_format, self.converter(created)))
        return f"{known[1]},{msecs:03d}"  # logging's default_msec_format, "%s,%03d"


def use_text_logs(stream: TextIO | None = None, level: int = logging.INFO) -> None:
    """Send every log record at `level` and above to `stream` (standard error) in `TextLines`, with lean records."""
    logging.basicConfig(level=level, handlers=[LineHandler(TextLines(), stream)])
    lean_log_records()
