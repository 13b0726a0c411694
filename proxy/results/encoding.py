"""The last stage of a tool result: its parts encoded once, for the transport to splice."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from proxy.core.jsonwire import encode_json

__all__ = ["EncodedResult", "json_members"]


@dataclass(frozen=True, slots=True)
class EncodedResult:
    """A successful tool result whose parts are already JSON: the transport splices them into the wire form,
    so a result is encoded once rather than dumped, re-validated and encoded again per call.

    `structured` is the structured content (a JSON object); `text` the text block as a JSON string (None: the
    structured JSON itself, as a string); `meta` the members of the result's `_meta`, without the braces
    (`json_members`; empty: no `_meta`).
    """

    structured: bytes
    text: bytes | None = None
    meta: bytes = b""


def json_members(mapping: Mapping[str, Any] | None) -> bytes:
    """The members of a JSON object, braces off, for splicing into another object (b"" for none)."""
    return encode_json(dict(mapping))[1:-1] if mapping else b""
