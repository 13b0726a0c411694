"""A stop answers every call within the grace (issue 27): the ones it cannot finish get a retryable error.

Before, a call longer than the grace lost its connection without an answer, and the effective limit was about
twice the grace. The real application on aiohttp's own runner with a 2 s grace (what `serve --grace 2` runs),
a platform that answers after 6 s, and the runner's cleanup (what SIGTERM starts).
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import aiohttp
from aiohttp import web

from proxy.web.app import Config, create_app
from tests.conftest import Replicas, write_registry
from tests.wire import stateless_call

GRACE = 2.0


async def test_a_call_longer_than_the_grace_is_answered_retry_within_the_grace(replicas: Replicas,
                                                                                tmp_path: Path) -> None:
    replicas.faults("wetten").update({"latency_ms": 6000})
    app = create_app(Config(registry_path=write_registry(tmp_path), base_urls=replicas.base_urls,
                            measure_load=False, grace_seconds=GRACE))
    runner = web.AppRunner(app, shutdown_timeout=GRACE)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    url = f"http://127.0.0.1:{runner.addresses[0][1]}/wetten/mcp"
    try:
        async with aiohttp.ClientSession() as http:  # the answer must be HTTP 200 (stateless_call checks it)
            arguments = {"title": "lang", "limit": 1}
            pending = asyncio.create_task(stateless_call(http, url, "search_regulations", arguments))
            await asyncio.sleep(0.5)  # the call waits on the platform
            stopped = time.monotonic()
            stopping = asyncio.create_task(runner.cleanup())
            result = await asyncio.wait_for(pending, GRACE + 2)
            answered_after = time.monotonic() - stopped
            await stopping
    finally:
        replicas.clear_faults()
    assert result["isError"] is True
    assert "restarting" in result["content"][0]["text"] and "again" in result["content"][0]["text"]
    assert answered_after <= GRACE + 0.5, answered_after  # within the grace, not after twice it
