"""The one notion of time (proxy/core/clock.py): its shortcuts give what the plain computation gives."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, timezone

from hypothesis import given
from hypothesis import strategies as st

from proxy.core.clock import AMSTERDAM, dutch_today, stamp_ms, utc_stamp_ms

# Instants around the DST changes of 2026 and across a few years, in the order Hypothesis draws them.
_INSTANTS = st.datetimes(min_value=datetime(2020, 1, 1), max_value=datetime(2035, 1, 1), timezones=st.just(UTC))
_OFFSETS = st.sampled_from([UTC, AMSTERDAM, timezone(timedelta(hours=-11)), timezone(timedelta(hours=13))])


@given(st.lists(st.tuples(_INSTANTS, _OFFSETS), min_size=1, max_size=20))
def test_the_remembered_dutch_day_is_the_day_at_every_instant(instants: list[tuple[datetime, object]]) -> None:
    for instant, zone in instants:
        for moment in (instant, instant - timedelta(microseconds=1), instant + timedelta(hours=1)):
            local = moment.astimezone(zone)  # type: ignore[arg-type]
            assert dutch_today(local) == moment.astimezone(AMSTERDAM).date()


def test_the_dutch_day_turns_at_dutch_midnight_in_summer_and_winter() -> None:
    for midnight_utc in ("2026-03-28T23:00:00", "2026-03-29T22:00:00", "2026-10-24T22:00:00", "2026-10-25T23:00:00"):
        turn = datetime.fromisoformat(midnight_utc).replace(tzinfo=UTC)
        before = dutch_today(turn - timedelta(microseconds=1))
        assert dutch_today(turn) == before + timedelta(days=1)


def test_the_millisecond_stamp_is_now_in_utc() -> None:
    before = datetime.now(UTC)
    stamp = utc_stamp_ms()
    after = datetime.now(UTC)
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00", stamp)
    assert before - timedelta(milliseconds=1) <= datetime.fromisoformat(stamp) <= after  # cut to the millisecond


# Milliseconds since the epoch from 1970 to 2200, drawn in runs within one second and across seconds.
_MILLISECONDS = st.integers(min_value=0, max_value=7_258_118_400_000)


@given(st.lists(st.one_of(_MILLISECONDS, _MILLISECONDS.map(lambda ms: ms - ms % 1000 + 999)), min_size=1, max_size=30))
def test_the_millisecond_stamp_is_what_datetime_writes(moments: list[int]) -> None:
    for ms in moments:
        for moment in (ms, ms + 1, ms - ms % 1000):  # the same second again, the next millisecond, its start
            expected = datetime.fromtimestamp(moment / 1000, UTC).isoformat(timespec="milliseconds")
            assert stamp_ms(moment) == expected


@given(_INSTANTS)
def test_this_moments_dutch_day_is_found_whatever_day_was_asked_before(earlier: datetime) -> None:
    dutch_today(earlier)  # remembered: a day long past (or to come)
    before = datetime.now(AMSTERDAM).date()
    today = dutch_today()
    assert today in (before, datetime.now(AMSTERDAM).date())
    assert dutch_today() == today or dutch_today() == datetime.now(AMSTERDAM).date()  # now from what it remembered
