"""Request bodies are read as the stdlib reads them (proxy/web/transport.py `_loads`): orjson takes the common
case, and must never give another value than `json.loads`, nor accept what it refuses."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from proxy.web.transport import _loads

_SCALARS = (st.none() | st.booleans() | st.integers() | st.integers(min_value=-2**70, max_value=2**70)
            | st.floats(allow_nan=True, allow_infinity=True) | st.text() | st.characters(codec=None).map(str))
_VALUES = st.recursive(_SCALARS, lambda inner: st.lists(inner, max_size=4)
                       | st.dictionaries(st.text(max_size=4), inner, max_size=4), max_leaves=20)
# Text near JSON: its grammar's characters, escapes, numbers, literals and the stdlib's extensions.
_NEAR_JSON = st.lists(st.sampled_from(['{', '}', '[', ']', ',', ':', '"', '\\', '\\u', 'd800', 'dc00', '0', '1', '9',
                                       '-', '.', 'e', 'E', '+', ' ', '\t', '\n', 'true', 'false', 'null', 'NaN',
                                       'Infinity', 'a', 'é', '\x00', '\ufeff', '"k"', '1' * 19, '1' * 25]),
                      max_size=30).map("".join)


def _outcome(parse: Any, body: bytes) -> str:
    try:
        value = parse(body)
    except (ValueError, RecursionError) as exc:
        return f"refused ({type(exc).__name__ != 'RecursionError'})"
    return repr(value) + repr(_types(value))  # repr tells 1 from 1.0 and 0.0 from -0.0, and keeps key order


def _types(value: Any) -> Any:
    if isinstance(value, dict):
        return [(type(k).__name__, _types(v)) for k, v in value.items()]
    if isinstance(value, list):
        return [_types(v) for v in value]
    return type(value).__name__


@settings(max_examples=400)
@given(_VALUES, st.booleans(), st.sampled_from(["utf-8", "utf-16", "utf-32"]))
def test_json_values_read_as_the_stdlib_reads_them(value: Any, ascii_only: bool, encoding: str) -> None:
    text = json.dumps({"jsonrpc": "2.0", "id": 1, "params": value}, ensure_ascii=ascii_only)
    try:
        body = text.encode(encoding)
    except UnicodeEncodeError:  # a lone surrogate written raw: not encodable, so never on the wire as such
        body = text.encode(encoding, "surrogatepass")
    assert _outcome(_loads, body) == _outcome(json.loads, body)


@settings(max_examples=600)
@given(_NEAR_JSON | st.binary(max_size=40))
def test_text_near_json_is_read_or_refused_as_the_stdlib_does(text: str | bytes) -> None:
    body = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    assert _outcome(_loads, body) == _outcome(json.loads, body)


def test_the_cases_the_two_parsers_differ_on_go_to_the_stdlib() -> None:
    for body in (b"[18446744073709551616]", b"-9223372036854775809", b"NaN", b'"\\ud800"', b"1e400",
                 b'{"a":1,"a":2,"b":3}', b"[" * 1100 + b"]" * 1100, "[1]".encode("utf-16")):
        assert _outcome(_loads, body) == _outcome(json.loads, body), body[:40]
