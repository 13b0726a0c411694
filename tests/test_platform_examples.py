"""Every tool's example (the arguments the site shows and test_tools sends through the SDK) against the
platform's replica: schema-valid output, and a list tool finds something."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from tests.platform_harness import platform_harness

NOW = datetime(2026, 11, 30, 9, 30, tzinfo=UTC)
KEYS = ["ori", "lokaal", "officieel", "wetten", "tweedekamer", "rechtspraak", "woo"]


@pytest.mark.parametrize("key", KEYS)
async def test_every_example_works_against_the_replica(key: str) -> None:
    async with platform_harness(key, NOW) as h:
        for name, impl in h.tools.items():
            assert impl.example is not None, name
            result = await h.call(name, **impl.example)
            assert result.get("results", [result]), name
            if "precision" in result:
                assert result["precision"]["returned"] == len(result["results"]) > 0, name
