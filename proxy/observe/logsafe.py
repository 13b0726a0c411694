"""Text from clients, made safe to write into a log line: nothing in it ends the line.

A log reader that splits on Unicode line ends (Python's `str.splitlines`, many viewers and shippers) also splits
on U+0085, U+2028, U+2029 and the C0 separators, which HTTP headers and decoded paths can carry. Each such
character, and every other control character, is written as its `\\uXXXX` escape (valid in JSON strings too), so
one record stays one line and what the client sent can still be read back.
"""

from __future__ import annotations

import re

__all__ = ["one_line"]

# C0 controls, DEL, C1 controls (U+0085 among them) and the two Unicode separators.
_LINE_BREAKING = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def _escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def one_line(text: str) -> str:
    """`text` with every character that could end or hide a line written as its escape."""
    if text.isprintable():  # no control character or separator at all (one C scan; the search cost three)
        return text
    return _LINE_BREAKING.sub(_escape, text)
