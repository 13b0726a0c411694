"""The small JSON Schema pieces tool schemas are built from, defined once."""

from __future__ import annotations

from typing import Any

__all__ = ["NBOOL", "NDATE", "NINT", "NSTR", "STR", "STRINGS"]

STR: dict[str, Any] = {"type": "string"}
NSTR: dict[str, Any] = {"type": ["string", "null"]}
NINT: dict[str, Any] = {"type": ["integer", "null"]}
NBOOL: dict[str, Any] = {"type": ["boolean", "null"]}
NDATE: dict[str, Any] = {"type": ["string", "null"], "format": "date"}  # a calendar date, YYYY-MM-DD
STRINGS: dict[str, Any] = {"type": "array", "items": STR}
