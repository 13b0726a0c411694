"""The SDK's checks of a request, exactly as strict, with less work.

Every MCP request is checked as the SDK's runner checks it: the JSON-RPC envelope (`JSONRPCRequest`), on
2026-07-28 the routing headers and the `_meta` ladder (`classify_inbound_request`), and the method's params
against the era's schema (`validate_client_request`). Run as they are, those checks cost more than everything
else BesluitBron does on a cached call. Most of that work repeats: an assistant sends the same `_meta` (protocol
version, capabilities, client info) and the same routing headers with every call, and only its arguments change,
which no schema of the protocol looks into (`arguments` is any object; the tool's own schema checks it later).

So here:

- an envelope whose fields have plainly the types the model takes (`"2.0"`, an int or a string id, a string
  method, an object or no params) is a request without asking pydantic, which would say the same; anything
  else is asked of pydantic, whose verdict stands;
- a verdict of the ladder or of the params schema is remembered under a key holding everything that check
  reads (the headers it compares, the method, the params with the contents of an `arguments` object left out,
  as JSON, which tells 1, 1.0 and true apart), so the same request shape is checked once;
- a routing header given twice is looked for by name, and only when one is, the SDK names it.

A check is a pure function of what its key holds, so a remembered verdict is the verdict the SDK gives.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final, Literal, TypeVar

import mcp_types as types
import orjson
from mcp.shared.inbound import (
    MCP_METHOD_HEADER,
    MCP_NAME_HEADER,
    MCP_PROTOCOL_VERSION_HEADER,
    InboundLadderRejection,
    InboundModernRoute,
    classify_inbound_request,
    find_duplicated_routing_header,
)
from mcp_types import methods as _methods
from multidict import CIMultiDictProxy
from pydantic import ValidationError

__all__ = ["ROUTING_HEADERS", "RequestChecks", "Surface", "params_text"]

ROUTING_HEADERS: Final = (MCP_PROTOCOL_VERSION_HEADER, MCP_METHOD_HEADER, MCP_NAME_HEADER)
_MAX_KEY: Final = 4096  # a longer params text (a hostile _meta) is checked each time, not kept

# The params schema's verdict: fits, no such method at this version, or does not fit.
Surface = Literal["ok", "not found", "invalid"]


class RequestChecks:
    """The checks with their verdicts remembered, bounded (at `limit` each is forgotten all at once: a flood of
    distinct shapes only costs the checks it would have cost anyway)."""

    def __init__(self, limit: int = 1024) -> None:
        self._limit = limit
        self._ladder: dict[tuple[Any, ...], InboundModernRoute | InboundLadderRejection] = {}
        self._surface: dict[tuple[str, str, bytes], Surface] = {}

    @staticmethod
    def is_request(decoded: Any) -> bool:
        """Whether `decoded` is a JSON-RPC request as `types.JSONRPCRequest` takes one."""
        if type(decoded) is dict:
            rpc, id_, method = decoded.get("jsonrpc"), decoded.get("id"), decoded.get("method")
            params = decoded.get("params")
            if type(rpc) is str and rpc == "2.0" and type(id_) in (int, str) and type(method) is str \
                    and (params is None or type(params) is dict):
                return True  # what the model takes, as it takes it (a strict int, so never a bool)
        try:
            types.JSONRPCRequest.model_validate(decoded)
        except ValidationError:
            return False
        return True

    @staticmethod
    def duplicated_routing_header(headers: CIMultiDictProxy[str]) -> str | None:
        """The routing header given more than once, as `find_duplicated_routing_header` names it, or None."""
        if all(len(headers.getall(name, ())) < 2 for name in ROUTING_HEADERS):
            return None
        return find_duplicated_routing_header(headers.items())

    def ladder(self, decoded: Mapping[str, Any], routing: Mapping[str, str], text: bytes | None
               ) -> InboundModernRoute | InboundLadderRejection:
        """`classify_inbound_request(decoded, headers=routing)`; `text` is `params_text` of its params."""
        if text is None:
            return classify_inbound_request(decoded, headers=routing)
        key = (text, decoded.get("method"), routing.get(MCP_PROTOCOL_VERSION_HEADER),
               routing.get(MCP_METHOD_HEADER), routing.get(MCP_NAME_HEADER))
        verdict = self._ladder.get(key)
        if verdict is None:
            verdict = classify_inbound_request(decoded, headers=routing)
            _keep(self._ladder, key, verdict, self._limit)
        return verdict

    def surface(self, method: str, version: str, params: Mapping[str, Any] | None, text: bytes | None
                ) -> Surface:
        """`validate_client_request(method, version, params)` as a verdict (the method is one of the spec's);
        `text` is `params_text(params)`."""
        if text is None:
            return _surface(method, version, params)
        key = (method, version, text)
        verdict = self._surface.get(key)
        if verdict is None:
            verdict = _surface(method, version, params)
            _keep(self._surface, key, verdict, self._limit)
        return verdict


def _surface(method: str, version: str, params: Mapping[str, Any] | None) -> Surface:
    try:
        _methods.validate_client_request(method, version, params)
    except KeyError:
        return "not found"
    except ValidationError:
        return "invalid"
    return "ok"


def params_text(params: Any) -> bytes | None:
    """The params as a key: all of them but an `arguments` object's contents (written once per request, for both
    checks). None, so checked each time, for params too long to keep, or holding a null: orjson writes NaN and
    Infinity (which `json.loads` reads) as null too, and only this way does a key never stand for two requests."""
    if type(params) is dict and type(params.get("arguments")) is dict:
        params = {**params, "arguments": {}}
    try:
        text = orjson.dumps(params)  # tells 1, 1.0 and true apart; a fifth of repr's cost, which guards recursion
    except TypeError:  # an integer past 64 bits, a lone surrogate: no key
        return None
    # `find`, not `in`: CPython 3.11 reads `x in bytes` as a number first, raising and clearing a TypeError.
    return text if len(text) <= _MAX_KEY and text.find(b"null") == -1 else None


K = TypeVar("K")
V = TypeVar("V")


def _keep(memo: dict[K, V], key: K, verdict: V, limit: int) -> None:
    if len(memo) >= limit:
        memo.clear()
    memo[key] = verdict
