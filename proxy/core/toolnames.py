"""The rules of tool names, once: what the registry, a remote server's listing and the catalog check.

A source tool's name is a-z, 0-9 and `_`, at most 40 characters (`registry.schema.json` carries the same
pattern; a test holds the two equal). On Alle Bronnen it is served as `<prefix>_<name>`, at most
`AGGREGATE_NAME_MAX`, so that a client's own prefix (`mcp__<server>__`, Claude Code's, the longest) keeps
it within the 64 characters clients accept (`proxy.catalog.assistants`). The meta tools' and the
cross-source tools' names are every address's own, so no tool may take them, on its connector or on the
aggregate.
"""

from __future__ import annotations

import re
from typing import Final

__all__ = ["AGGREGATE_NAME_MAX", "CROSS_TOOL_NAMES", "META_TOOL_NAMES", "RESERVED", "TOOL_NAME_PATTERN",
           "aggregate_name", "name_problem"]

META_TOOL_NAMES: Final[tuple[str, ...]] = ("list_capabilities", "list_platform_calls", "platform_status")
CROSS_TOOL_NAMES: Final[tuple[str, ...]] = ("search", "fetch")
RESERVED: Final = frozenset((*META_TOOL_NAMES, *CROSS_TOOL_NAMES))
TOOL_NAME_PATTERN: Final = "^[a-z0-9_]{1,40}$"
AGGREGATE_NAME_MAX: Final = 48  # 64 minus Claude Code's `mcp__<server>__` for a short server name

_TOOL_NAME: Final = re.compile(TOOL_NAME_PATTERN)


def aggregate_name(prefix: str, name: str) -> str:
    """The name a source tool has on the aggregate connector."""
    return f"{prefix}_{name}"


def name_problem(name: str, prefix: str | None) -> str | None:
    """Why `name` cannot be a source tool served as `<prefix>_<name>` on the aggregate (no prefix: not there
    at all), or None when it can."""
    if not _TOOL_NAME.match(name):
        return f"'{name[:64]}' is not a tool name BesluitBron can serve (a-z, 0-9 and _, at most 40 characters)"
    if name in META_TOOL_NAMES:
        return f"'{name}' is a reserved meta-tool name"
    if prefix:
        full = aggregate_name(prefix, name)
        if len(full) > AGGREGATE_NAME_MAX:
            return f"'{full}' (the name on the aggregate connector) is longer than {AGGREGATE_NAME_MAX} characters"
        if full in RESERVED:
            return f"'{full}' (the name on the aggregate connector) is a meta tool's name; choose another prefix"
    return None
