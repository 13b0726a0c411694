"""Addresses in a page break only between their parts. Pure: no mkdocs import.

A browser breaks a long address where it must, mid-word ("openraadsin|formatie") at 390 px, because an address
has no spaces and Chromium finds no break after a slash. `<wbr>` after every `/` (but the scheme's) and before
every `.` and `-` gives it places that keep each part whole; copying is unchanged (`<wbr>` has no text).
"""

from __future__ import annotations

import re

__all__ = ["break_addresses"]

_TAG_OR_TEXT = re.compile(r"(<[^>]*>)")
_RAW_OPEN = re.compile(r"<(script|style|textarea)\b", re.IGNORECASE)
# In HTML text a quote around an address is an entity (&quot;): an address stops there, &amp; stays part of it.
_ADDRESS = re.compile(r"https?://(?:[^\s<>\"'&]|&amp;)+")
_PARTS = re.compile(r"(?<=[^/:]/)(?=[^/])|(?<=\w)(?=[.-]\w)")


def _broken(match: re.Match[str]) -> str:
    scheme, rest = match.group(0).split("//", 1)
    return f"{scheme}//{_PARTS.sub('<wbr>', rest)}"


def break_addresses(page_html: str) -> str:
    """`page_html` with break opportunities in every address in its text (not in tags, scripts or styles)."""
    if "://" not in page_html:
        return page_html
    pieces = _TAG_OR_TEXT.split(page_html)
    raw_until: str | None = None
    for i, piece in enumerate(pieces):
        if i % 2:  # a tag
            if raw_until is None and (opened := _RAW_OPEN.match(piece)):
                raw_until = f"</{opened.group(1).lower()}"
            elif raw_until is not None and piece.lower().startswith(raw_until):
                raw_until = None
        elif raw_until is None and "://" in piece:
            pieces[i] = _ADDRESS.sub(_broken, piece)
    return "".join(pieces)
