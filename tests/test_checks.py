"""`RequestChecks` gives the SDK's verdict on every request, remembered or not.

The requests are drawn around real ones (a 2026-07-28 `tools/call` with its `_meta` envelope and routing headers,
a 2025-11-25 one), then broken the ways clients and attackers break them: wrong types in the envelope, a missing or
odd `_meta`, headers that disagree, `arguments` of any shape. Each verdict is compared with what the SDK's own
functions say of the same request, on a fresh instance and again once the verdict is remembered, and across
requests that differ only in the contents of their arguments.
"""

from __future__ import annotations

from typing import Any

import mcp_types as types
from hypothesis import event, given, settings
from hypothesis import strategies as st
from mcp.shared.inbound import (
    MCP_METHOD_HEADER,
    MCP_NAME_HEADER,
    MCP_PROTOCOL_VERSION_HEADER,
    InboundLadderRejection,
    classify_inbound_request,
    find_duplicated_routing_header,
)
from mcp_types import methods
from multidict import CIMultiDict, CIMultiDictProxy
from pydantic import ValidationError

from proxy.web.checks import RequestChecks, params_text

MODERN = "2026-07-28"
LEGACY = "2025-11-25"

_json = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
                     lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner,
                                                                                 max_size=3), max_leaves=8)
_odd = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=6) | st.lists(st.integers(),
                                                                                                max_size=2)
_capabilities: st.SearchStrategy[Any] = st.sampled_from(
    [{}, {"sampling": {}}, {"roots": {"listChanged": True}}, {"elicitation": "yes"}]) | _odd
_CLIENT_INFOS = [{"name": "claude-ai", "version": "0.1.0"}, {"name": "x"}, {"version": 1}]
_client_info = st.sampled_from(_CLIENT_INFOS) | _odd


def _mostly(draw: st.DrawFn, usual: st.SearchStrategy[Any], other: st.SearchStrategy[Any], odds: int = 6) -> Any:
    """`usual` most of the time (one in `odds` `other`): a request broken in one place at a time, mostly."""
    return draw(other) if draw(st.integers(0, odds - 1)) == 0 else draw(usual)


@st.composite
def _meta(draw: st.DrawFn) -> Any:
    meta: dict[str, Any] = {}
    if draw(st.integers(0, 9)):
        meta["io.modelcontextprotocol/protocolVersion"] = _mostly(draw, st.sampled_from([MODERN, MODERN, LEGACY,
                                                                                          "2099-01-01"]), _odd)
    if draw(st.integers(0, 9)):
        meta["io.modelcontextprotocol/clientCapabilities"] = _mostly(draw, st.just({}), _capabilities, 3)
    if draw(st.booleans()):
        meta["io.modelcontextprotocol/clientInfo"] = _mostly(draw, st.sampled_from(_CLIENT_INFOS), _client_info, 4)
    if draw(st.booleans()):
        meta["progressToken"] = draw(st.integers() | st.text(max_size=4) | st.floats() | st.none())
    if draw(st.booleans()):
        meta["nl.besluitbron/trace"] = draw(st.text(max_size=10))
    return meta if draw(st.integers(0, 9)) else draw(_odd)


@st.composite
def _request(draw: st.DrawFn) -> tuple[Any, dict[str, str]]:
    method = _mostly(draw, st.sampled_from(["tools/call", "tools/call", "tools/list", "ping", "server/discover"]),
                     _odd, 8)
    params: Any = {"name": _mostly(draw, st.sampled_from(["search_members", "search"]), _odd, 8),
                   "arguments": _mostly(draw, st.dictionaries(st.text(max_size=6), _json, max_size=3),
                                        st.none() | _odd, 5)}
    if draw(st.integers(0, 4)):
        params["_meta"] = draw(_meta())
    if draw(st.integers(0, 5)) == 0:
        params["inputResponses"] = draw(_odd | st.just({}))
    if draw(st.integers(0, 7)) == 0:
        params = draw(_odd)
    body: dict[str, Any] = {"jsonrpc": _mostly(draw, st.just("2.0"), st.sampled_from(["2", "1.0", 2.0]) | _odd, 8),
                            "id": _mostly(draw, st.integers() | st.text(max_size=4), _odd, 8), "method": method}
    if draw(st.integers(0, 5)):
        body["params"] = params
    for field in ("jsonrpc", "id", "method"):
        if draw(st.integers(0, 12)) == 0:
            del body[field]
    meta = params.get("_meta") if isinstance(params, dict) else None
    said = meta.get("io.modelcontextprotocol/protocolVersion") if isinstance(meta, dict) else None
    version = _mostly(draw, st.just(said if isinstance(said, str) else MODERN),
                      st.sampled_from([MODERN, LEGACY, "2099-01-01", ""]), 4)
    # Keyed as the transport keys them (`proxy.web.checks.ROUTING_HEADERS`).
    headers = {MCP_PROTOCOL_VERSION_HEADER: version} if version else {}
    if draw(st.integers(0, 9)):
        headers[MCP_METHOD_HEADER] = method if isinstance(method, str) and draw(st.integers(0, 9)) else "tools/list"
    if draw(st.integers(0, 9)) and isinstance(params, dict) and isinstance(params.get("name"), str):
        headers[MCP_NAME_HEADER] = params["name"] if draw(st.integers(0, 9)) else "other"
    return (body if draw(st.integers(0, 15)) else draw(_odd)), headers


def _sdk_is_request(decoded: Any) -> bool:
    try:
        types.JSONRPCRequest.model_validate(decoded)
    except ValidationError:
        return False
    return True


def _sdk_surface(method: str, version: str, params: Any) -> str:
    try:
        methods.validate_client_request(method, version, params)
    except KeyError:
        return "not found"
    except ValidationError:
        return "invalid"
    return "ok"


def _same(ours: Any, theirs: Any) -> bool:
    if isinstance(theirs, InboundLadderRejection):
        return isinstance(ours, InboundLadderRejection) and (ours.code, ours.message, ours.data) == (
            theirs.code, theirs.message, theirs.data)
    return not isinstance(ours, InboundLadderRejection) and ours.protocol_version == theirs.protocol_version


_warm = RequestChecks()  # one instance for every example: verdicts remembered from earlier requests count too


@settings(max_examples=1000, deadline=None)
@given(_request(), st.dictionaries(st.text(max_size=6), _json, max_size=3))
def test_every_verdict_is_the_sdks(drawn: tuple[Any, dict[str, str]], other_arguments: dict[str, Any]) -> None:
    decoded, headers = drawn
    assert RequestChecks.is_request(decoded) == _sdk_is_request(decoded)
    if not _sdk_is_request(decoded):
        return
    fresh = RequestChecks()
    theirs = classify_inbound_request(decoded, headers=headers)
    event("ladder: passed" if not isinstance(theirs, InboundLadderRejection) else f"ladder: {theirs.code}")
    for checks in (fresh, fresh, _warm):  # new, remembered, remembered among others
        assert _same(checks.ladder(decoded, headers, params_text(decoded.get("params"))), theirs)
    method, params = decoded["method"], decoded.get("params")
    for version in (MODERN, LEGACY):
        if method in methods.SPEC_CLIENT_METHODS:
            expected = _sdk_surface(method, version, params)
            event(f"surface {version}: {expected}")
            for checks in (fresh, fresh, _warm):
                assert checks.surface(method, version, params, params_text(params)) == expected
    # The same request with other arguments: the same verdicts, from memory, as the SDK's anew.
    if isinstance(params, dict) and isinstance(params.get("arguments"), dict):
        other = {**params, "arguments": other_arguments}
        changed = {**decoded, "params": other}
        theirs = classify_inbound_request(changed, headers=headers)
        assert _same(fresh.ladder(changed, headers, params_text(other)), theirs)
        if method in methods.SPEC_CLIENT_METHODS:
            assert fresh.surface(method, MODERN, other, params_text(other)) == _sdk_surface(method, MODERN, other)


@given(st.lists(st.tuples(st.sampled_from(["MCP-Protocol-Version", "mcp-method", "Mcp-Name", "Accept", "Host",
                                           "MCP-PROTOCOL-VERSION"]), st.text("ab", max_size=2)), max_size=6))
def test_a_routing_header_given_twice_is_named_as_the_sdk_names_it(lines: list[tuple[str, str]]) -> None:
    headers = CIMultiDictProxy(CIMultiDict(lines))
    assert RequestChecks.duplicated_routing_header(headers) == find_duplicated_routing_header(lines)


def test_a_key_never_stands_for_two_requests() -> None:
    """Params that differ anywhere but inside `arguments` have different keys or none (a null, which NaN and
    Infinity would also be written as; an integer past 64 bits)."""
    meta = {"io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": {}}
    texts = [params_text({"name": "x", "arguments": {"q": 1}, "_meta": {**meta, "progressToken": token}})
             for token in (1, 1.0, True, "1")]
    assert None not in texts and len(set(texts)) == 4
    for odd in (None, float("nan"), float("inf"), 2**70):
        assert params_text({"name": "x", "arguments": {}, "_meta": {**meta, "progressToken": odd}}) is None
    assert params_text({"name": "x", "arguments": {"q": 1}}) == params_text({"name": "x", "arguments": {"q": 2}})
    assert params_text({"name": "x", "arguments": {"q": 1}}) != params_text({"name": "x", "arguments": [1]})


def test_a_flood_of_shapes_is_forgotten_not_kept() -> None:
    checks = RequestChecks(limit=8)
    meta = {"io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": {}}
    for n in range(50):
        params = {"name": f"tool_{n}", "arguments": {}, "_meta": meta}
        assert checks.surface("tools/call", MODERN, params, params_text(params)) == "ok"
    assert len(checks._surface) <= 8
    huge = {"name": "x", "arguments": {}, "_meta": {**meta, "pad": "x" * 10_000}}
    assert checks.surface("tools/call", MODERN, huge, params_text(huge)) == "ok" and len(checks._surface) <= 8
