"""The last stage of a tool result: its structured content encoded once, for the transport to splice."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

import pydantic_core

__all__ = ["EncodedResult", "encode_json"]


@dataclass(frozen=True, slots=True)
class EncodedResult:
    """A successful tool result whose structured content, a JSON object, is already encoded.

    `text` is the text block (None: the structured JSON itself) and `meta` the result's `_meta`.
    The transport splices it into the wire form, so a result is encoded once per call rather than
    dumped, re-validated and encoded again.
    """

    structured: bytes
    text: str | None = None
    meta: Mapping[str, Any] | None = None


# pydantic-core's encoder: compact UTF-8 JSON, ~3.5x the stdlib's speed on result-shaped dicts
# (bench/bench_transport.py). NaN/Infinity become null, as pydantic's own JSON mode does.
def _encode(value: Any) -> bytes:
    try:
        return pydantic_core.to_json(value, inf_nan_mode="null")
    except pydantic_core.PydanticSerializationError:
        # Lone surrogates (valid JSON escapes, not UTF-8) echoed from the request: keep them escaped.
        return json.dumps(value, separators=(",", ":")).encode()


encode_json: Final = _encode
"""Compact JSON as the transport writes it (for `EncodedResult.structured`)."""
