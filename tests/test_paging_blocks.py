"""Searches fetch whole blocks of results and cut the caller's window out (`proxy.platforms._common.aligned`)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from proxy.platforms._common import PAGE_BLOCK, aligned


def test_the_usual_first_pages_share_one_block() -> None:
    fetched = {(w.start, w.size) for w in (aligned(o, n, most=200) for o, n in [(0, 5), (0, 10), (0, 20), (10, 10)])}
    assert fetched == {(0, PAGE_BLOCK)}
    assert (aligned(20, 10, most=200).start, aligned(20, 10, most=200).size) == (20, PAGE_BLOCK)


def test_a_window_no_block_holds_is_fetched_as_asked() -> None:
    for offset, limit in [(10, 20), (0, 50), (15, 10)]:
        window = aligned(offset, limit, most=200)
        assert (window.start, window.size) == (offset, limit)
    assert (aligned(0, 5, most=10).start, aligned(0, 5, most=10).size) == (0, 5)  # the platform's page is smaller


@given(st.integers(0, 10_000), st.integers(1, 200), st.integers(0, 60))
def test_the_cut_is_exactly_the_window_asked(offset: int, limit: int, available: int) -> None:
    """Whatever the platform holds after `start`, the cut is what asking for `offset`/`limit` would give."""
    window = aligned(offset, limit, most=200)
    assert window.start <= offset and offset + limit <= window.start + window.size <= window.start + max(limit, 200)
    universe = list(range(window.start + available))
    held = universe[window.start:window.start + window.size]
    assert window.cut(held) == universe[offset:offset + limit]
    assert window.more_held(held) == (len(universe[offset:window.start + window.size]) > limit)
