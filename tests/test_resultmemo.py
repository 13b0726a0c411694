"""A finished tool result is reused only while the replies it was built from are cached, and a reuse
writes the same call records as a cached run (proxy/results/resultmemo.py)."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from typing import Any

from proxy.core.trace import TRACE_META_KEY
from proxy.results.external import FencedJson, unfence
from proxy.results.resultmemo import Answer, Memo, ResultMemo
from proxy.serving.endpoint import _arguments_key
from tests.conftest import LiveServer, Replicas, client, serve, write_registry
from tests.conftest_mcp import meta_of, text_of

SLUG = "wetten"


def _example(server: LiveServer) -> tuple[str, dict[str, Any]]:
    endpoint = server.runtime.endpoint(SLUG)
    assert endpoint is not None
    tool = next(t for t in endpoint.connector.tools if t.impl is not None and t.impl.example)
    assert tool.impl is not None and tool.impl.example is not None
    return tool.name, dict(tool.impl.example)


async def _three_calls(server: LiveServer) -> tuple[list[Any], list[list[dict[str, Any]]]]:
    """The same call three times, each under its own trace handle; results and each call's records."""
    name, args = _example(server)
    results, records = [], []
    async with client(server.url(SLUG), "2026-07-28") as c:
        for _ in range(3):
            result = await c.call_tool(name, args)
            assert not result.is_error, result.content
            handle = meta_of(result)[TRACE_META_KEY]
            listed = await c.call_tool("list_platform_calls", {"trace": handle})
            results.append(result)
            records.append(listed.structured_content["calls"])
    return results, records


async def test_a_repeated_call_reuses_its_result_and_records_the_same_cache_hits(server: LiveServer) -> None:
    endpoint = server.runtime.endpoint(SLUG)
    assert endpoint is not None and endpoint.results_kept == 0
    results, records = await _three_calls(server)
    assert endpoint.results_kept == 1
    assert results[1].structured_content == results[2].structured_content == results[0].structured_content
    texts = [r.content[0].text for r in results]
    assert len({t.splitlines()[0] for t in texts}) == 3  # each answer fenced with its own boundary
    assert {unfence(t) for t in texts} == {json.dumps(results[0].structured_content, ensure_ascii=False,
                                                      separators=(",", ":"))}
    first, *again = records
    assert first and any(not r["cache_hit"] for r in first)
    for later in again:  # one record per reply used, as a cached run writes them
        assert [(r["url"], r["cache_hit"], r["status"], r["bytes"]) for r in later] == [
            (r["url"], True, 200, r["bytes"]) for r in first]


async def test_without_the_cache_nothing_is_reused(replicas: Replicas, tmp_path: Path) -> None:
    def no_cache(data: dict[str, Any]) -> None:
        for platform in data["platforms"].values():
            platform["cache_ttl_seconds"] = 0

    async with serve(write_registry(tmp_path, no_cache), replicas) as server:
        _, records = await _three_calls(server)
    assert all(records) and all(not r["cache_hit"] for calls in records for r in calls)


def test_the_memo_is_bounded_by_entries_and_bytes() -> None:
    memo = ResultMemo(max_entries=3, max_bytes=800)

    def entry(size: int) -> Memo:
        return Memo.of(Answer(b"{}", FencedJson(b"x" * (size - 2), b"", b""), b""), (), "t")

    day = date(2026, 1, 1)
    for i in range(5):
        memo.put((str(i), (), day), entry(10))
    assert len(memo) == 3 and memo.get(("0", (), day)) is None and memo.get(("4", (), day)) is not None
    memo.put(("big", (), day), entry(101))  # over an eighth of the byte budget: not kept
    assert memo.get(("big", (), day)) is None
    for i in range(3):
        memo.put((f"m{i}", (), day), entry(95))
    assert len(memo) == 3 and memo.get(("4", (), day)) is None


def test_arguments_that_differ_only_in_type_are_different_keys() -> None:
    keys = {_arguments_key({"limit": value, "q": "a"}) for value in (1, 1.0, True, "1", None, float("nan"),
                                                                     float("inf"), 2**70)}
    assert len(keys) == 8  # NaN and Infinity (which json.loads reads) are not null, as orjson would write them
    assert _arguments_key({"q": "a", "limit": 2}) == _arguments_key({"limit": 2, "q": "a"})
    assert _arguments_key({"q": ["a", "b"]}) != _arguments_key({"q": ["b", "a"]})


async def test_a_reused_result_skips_the_checks_only_for_the_arguments_it_was_built_from(server: LiveServer) -> None:
    """A remembered result answers before the argument checks (it was built from arguments that passed them);
    the same names with a value of another type are checked and refused as ever."""
    name, args = _example(server)
    endpoint = server.runtime.endpoint(SLUG)
    assert endpoint is not None
    async with client(server.url(SLUG), "2026-07-28") as c:
        assert not (await c.call_tool(name, args)).is_error
        kept = endpoint.results_kept
        assert kept >= 1 and not (await c.call_tool(name, args)).is_error
        field, value = next((k, v) for k, v in args.items() if isinstance(v, str))
        other = await c.call_tool(name, {**args, field: [value]})
    assert other.is_error and text_of(other).startswith(f"Invalid arguments for {name}")
    assert endpoint.results_kept == kept
