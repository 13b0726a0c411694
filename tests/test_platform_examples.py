"""Every tool's example (the arguments the site shows and test_tools sends through the SDK) against the
platform's replica: schema-valid output, and a list tool finds something. For every platform the registry
names (tests/test_plugins.py runs the same check on a platform added as a plug-in)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from proxy.registry.model import load_registry
from tests.conftest import REGISTRY
from tests.platform_harness import platform_harness

NOW = datetime(2026, 11, 30, 9, 30, tzinfo=UTC)


async def check_examples(key: str, registry_path: Path = REGISTRY) -> None:
    async with platform_harness(key, NOW, registry_path) as h:
        for name, impl in h.tools.items():
            assert impl.example is not None, name
            result = await h.call(name, **impl.example)
            assert result.get("results", [result]), name
            if "precision" in result:
                assert result["precision"]["returned"] == len(result["results"]) > 0, name


@pytest.mark.parametrize("key", list(load_registry(REGISTRY).platforms))
async def test_every_example_works_against_the_replica(key: str) -> None:
    await check_examples(key)
