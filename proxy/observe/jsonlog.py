"""Logs as JSON lines, each carrying the id of the request it was written for.

Every MCP request gets an id (`REQUEST_ID`): the `X-Request-Id` a reverse proxy in front set, when it
is a plain token, else a fresh one. The same id goes into each call record of that request
(`list_platform_calls`) and into every log line written while serving it, so an operator can go
from a user's call record to the log lines of that very request.
"""

from __future__ import annotations

import json
import logging
import re
import secrets
from contextvars import ContextVar
from datetime import UTC, datetime

from proxy.observe.accesslog import LineFormatter, LineHandler
from proxy.observe.logsafe import one_line

__all__ = ["REQUEST_ID", "JsonLines", "request_id_for", "use_json_logs"]

REQUEST_ID: ContextVar[str | None] = ContextVar("request_id", default=None)
# What a front proxy's id may look like to be kept (Caddy's and nginx's ids are hex or UUIDs).
_PLAIN_ID = re.compile(r"[A-Za-z0-9._:-]{8,64}")


def request_id_for(offered: str | None) -> str:
    """The front proxy's `X-Request-Id` when it is a plain token, else a new random id."""
    if offered is not None and _PLAIN_ID.fullmatch(offered):
        return offered
    return secrets.token_hex(8)


class JsonLines(LineFormatter):
    """One JSON object per line: time (UTC), level, logger, message, request_id, and the traceback if any."""

    def format(self, record: logging.LogRecord) -> str:
        return self.line(record.created, int(record.msecs), record.levelname, record.name, record.getMessage(),
                         self.formatException(record.exc_info) if record.exc_info else None)

    def line(self, created: float, msecs: int, level: str, name: str, message: str,
             exception: str | None = None) -> str:
        line: dict[str, object] = {
            "at_utc": datetime.fromtimestamp(created, UTC).isoformat(timespec="milliseconds"),
            "level": level,
            "logger": name,
            "message": message,
        }
        request_id = REQUEST_ID.get()
        if request_id is not None:
            line["request_id"] = request_id
        if exception is not None:
            line["exception"] = exception
        # JSON escapes C0 controls itself, but not U+0085, U+2028 or U+2029, which end a line for Unicode readers.
        return one_line(json.dumps(line, ensure_ascii=False))


def use_json_logs(level: int = logging.INFO) -> None:
    """Send every log record to standard error as a JSON line (replaces the root logger's handlers)."""
    root = logging.getLogger()
    root.handlers[:] = [LineHandler(JsonLines())]
    root.setLevel(level)
