"""Every platform adapter under its replica's faults (HTTP 500 and 503, a garbled body, an oversized body,
no answer in time): each tool's example call that reaches the platform fails with the matching UpstreamError,
whose message names the platform by its registry title; the platform is marked unavailable; once the fault is
gone the same context answers again and is available. For every platform the registry names
(tests/test_plugins.py runs the same check on a platform added as a plug-in)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from proxy.core.errors import UpstreamBadReply, UpstreamError, UpstreamStatusError, UpstreamTimeout, UpstreamTooLarge
from proxy.registry.model import Timeouts, load_registry
from tests.conftest import REGISTRY
from tests.platform_harness import platform_harness

NOW = datetime(2026, 11, 30, 9, 30, tzinfo=UTC)
CAP = 50_000  # max_response_bytes under test
WAIT = 0.3  # connect and total timeout under test, in seconds

# By test id: the replica's faults, the error each example call must raise, and words its message holds.
FAULTS: dict[str, tuple[dict[str, Any], type[UpstreamError], str]] = {
    "500": ({"error_rate": 1.0}, UpstreamStatusError, "HTTP 500"),
    "503": ({"error_rate": 1.0, "status": 503}, UpstreamStatusError, "HTTP 503"),
    "malformed": ({"malformed": True}, UpstreamBadReply, "could not be read"),
    "oversize": ({"oversize_bytes": CAP + 10_000}, UpstreamTooLarge, f"more than the {CAP}-byte cap"),
    "timeout": ({"latency_ms": 800}, UpstreamTimeout, f"did not answer within {WAIT:g} s"),
}


async def check_failures(key: str, faults: dict[str, Any], error: type[UpstreamError], words: str,
                         registry_path: Path = REGISTRY) -> None:
    async with platform_harness(key, NOW, registry_path) as h:
        tight = h.context(max_response_bytes=CAP, timeouts=Timeouts(connect_seconds=WAIT, total_seconds=WAIT))
        store = tight.upstream._store
        h.faults.update(faults)
        failed = []
        for name, impl in h.tools.items():
            assert impl.example is not None, name
            try:
                await h.call(name, ctx=tight, **impl.example)
            except error as exc:
                assert words in str(exc), (name, str(exc))
                assert h.platform.title.en in str(exc) and exc.platform == key, (name, str(exc))
                if isinstance(exc, UpstreamStatusError):
                    assert exc.status == faults.get("status", 500)
                assert (await store.availability(key) or {}).get("available") is False, name
                failed.append(name)
            else:  # a tool may answer from what it holds itself, but then it sent nothing
                assert not h.requests, f"{name} reached the platform under {faults} and did not fail"
        assert failed, "no tool's example reaches the platform"
        h.faults.clear()
        answered = []
        for name in failed:  # the same context answers again (some real answers exceed the test's small cap)
            try:
                result = await h.call(name, ctx=tight, **(h.tools[name].example or {}))
            except UpstreamTooLarge:
                continue
            assert result.get("results", [result]), name
            answered.append(name)
            break
        assert answered, f"no tool answered once the fault was gone: {failed}"
        assert (await store.availability(key) or {}).get("available") is True


@pytest.mark.parametrize("key", list(load_registry(REGISTRY).platforms))
@pytest.mark.parametrize(("faults", "error", "words"), [pytest.param(*case, id=name) for name, case in FAULTS.items()])
async def test_failures_are_readable_then_recover(key: str, faults: dict[str, Any], error: type[UpstreamError],
                                                  words: str) -> None:
    await check_failures(key, faults, error, words)
