"""Finished tool results, kept while the platform replies they were built from stay in the cache.

A cached tool call used to parse the cached reply, rebuild every item, move the citations and
encode the result again: the same work, with the same outcome, on every call (about two thirds
of its CPU, bench/bench_calls.py --profile). Here a successful result is remembered together
with the upstream fetches it came from (`Fetch`: the cache key and the very bytes). A later call
with the same tool, arguments and Dutch date reuses it only if every one of those fetches would
again be a cache hit on the same bytes; it then writes the same call records a cached run writes
(one per fetch, `cache_hit: true`), so `list_platform_calls` cannot tell the two apart.

Which fetches a run made is collected by `collecting()` (a context variable that
`Upstream._call` appends to). Only runs whose every source of data is such a fetch are kept:
the tool's arguments, the date (`PlatformContext.today`) and the generation's settings (the memo
lives on the endpoint of one generation). A run that made no fetch (a remote MCP server's tool,
a meta tool) is never kept.
"""

from __future__ import annotations

import contextvars
from collections import Counter, OrderedDict
from collections.abc import Hashable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date
from typing import Any, Protocol

from proxy.core.clock import utc_stamp_ms
from proxy.core.shapes import CallRecord
from proxy.results.encoding import EncodedResult
from proxy.results.external import FencedJson

__all__ = ["Answer", "Fetch", "FetchSource", "Memo", "MemoKey", "ResultMemo", "collecting", "note_fetch"]

# Per endpoint: results kept, and their total size; the least recently used go first.
MEMO_MAX_ENTRIES = 512
MEMO_MAX_BYTES = 8 * 1024 * 1024


# (tool name, arguments as a hashable key, Dutch date): what a result depends on besides its fetches.
MemoKey = tuple[str, Hashable, date]


class FetchSource(Protocol):
    """What made a fetch (`proxy.plugin.upstream.Upstream`; this module must not import it, which imports this)."""

    def holds(self, target: Any, body: bytes) -> bool: ...

    async def still_cached(self, target: Any, body: bytes) -> bool: ...

    def cache_hit_record(self, tool: str | None, fetch: Fetch) -> CallRecord:
        """The record a cache hit on `fetch` writes, its moment and request id left to fill in."""
        ...

    def count_cache_hits(self, hits: int) -> None: ...


@dataclass(frozen=True, slots=True)
class Fetch:
    """One upstream reply a result was built from: where it came from and the exact bytes."""

    upstream: FetchSource
    method: str
    target: Any  # the source's own description of the request (`Upstream`'s `_Target`)
    body: bytes


@dataclass(frozen=True, slots=True)
class Answer:
    """A platform tool's finished result, every part encoded: its structured content, its text (that JSON,
    fenced as external data, with a fresh boundary per call) and the members of its `_meta`."""

    structured: bytes
    text: FencedJson
    meta: bytes

    def result(self) -> EncodedResult:
        return EncodedResult(self.structured, self.text.json(), self.meta)

    @property
    def size(self) -> int:
        text = self.text
        return len(self.structured) + len(text.head) + len(text.middle) + len(text.tail) + len(self.meta)


@dataclass(frozen=True, slots=True)
class Memo:
    """A finished result, the fetches it was built from, and the records a reuse of it writes (made once: every
    reuse writes the same ones but for their moment and request id)."""

    answer: Answer
    fetches: tuple[Fetch, ...]
    hits: tuple[CallRecord, ...]
    tallies: tuple[tuple[FetchSource, int], ...]  # cache hits per source, for its metrics (from `fetches`)

    @classmethod
    def of(cls, answer: Answer, fetches: Sequence[Fetch], tool: str) -> Memo:
        sources = Counter(f.upstream for f in fetches)
        return cls(answer, tuple(fetches), tuple(f.upstream.cache_hit_record(tool, f) for f in fetches),
                   tuple(sources.items()))

    def hit_records(self, request_id: str | None) -> list[CallRecord]:
        """The records of this result's fetches as cache hits now, each as the source that made the fetch writes
        it (and counted in that source's metrics)."""
        for source, hits in self.tallies:
            source.count_cache_hits(hits)
        at = utc_stamp_ms()
        return [record | {"at_utc": at, "request_id": request_id} for record in self.hits]


_collector: contextvars.ContextVar[list[Fetch] | None] = contextvars.ContextVar("besluitbron_fetches", default=None)


@contextmanager
def collecting() -> Iterator[list[Fetch]]:
    """Collect the fetches made in this block (this task and the tasks it awaits directly)."""
    fetches: list[Fetch] = []
    token = _collector.set(fetches)
    try:
        yield fetches
    finally:
        _collector.reset(token)


def note_fetch(upstream: FetchSource, method: str, target: Any, body: bytes) -> None:
    """Called by `Upstream._call` for every reply a tool used (cached, shared or live)."""
    fetches = _collector.get()
    if fetches is not None:
        fetches.append(Fetch(upstream, method, target, body))


class ResultMemo:
    """The results of one endpoint, bounded by entries and bytes."""

    def __init__(self, *, max_entries: int = MEMO_MAX_ENTRIES, max_bytes: int = MEMO_MAX_BYTES) -> None:
        self._entries: OrderedDict[MemoKey, Memo] = OrderedDict()
        self._bytes = 0
        self._max_entries = max_entries
        self._max_bytes = max_bytes

    def get(self, key: MemoKey) -> Memo | None:
        hit = self._entries.get(key)
        if hit is not None:
            self._entries.move_to_end(key)
        return hit

    def put(self, key: MemoKey, memo: Memo) -> None:
        size = _size(memo)
        if size > self._max_bytes // 8:
            return  # one huge answer must not push out everything else
        self.drop(key)
        self._entries[key] = memo
        self._bytes += size
        while len(self._entries) > self._max_entries or self._bytes > self._max_bytes:
            self.drop(next(iter(self._entries)))

    def drop(self, key: MemoKey) -> None:
        old = self._entries.pop(key, None)
        if old is not None:
            self._bytes -= _size(old)

    def __len__(self) -> int:
        return len(self._entries)


def _size(memo: Memo) -> int:
    return memo.answer.size + sum(len(f.body) for f in memo.fetches)
