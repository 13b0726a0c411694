"""Which event loop serves: uvloop (libuv) by default, Python's own on request (`serve --loop asyncio`).

uvloop runs the same asyncio code with its I/O in C: the proxy's cached calls cost less CPU under it
(`bench/`). The tests run the application on Python's own loop as well, so both stay served.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, Literal

import uvloop

__all__ = ["LOOPS", "Loop", "run_loop", "worker_class"]

Loop = Literal["uvloop", "asyncio"]
LOOPS: tuple[Loop, ...] = ("uvloop", "asyncio")


def run_loop(main: Coroutine[Any, Any, None], loop: Loop) -> None:
    if loop == "uvloop":
        uvloop.run(main)
    else:
        asyncio.run(main)


def worker_class(loop: Loop) -> str:
    """aiohttp's gunicorn worker for that loop (`serve --workers N`)."""
    return "aiohttp.GunicornUVLoopWebWorker" if loop == "uvloop" else "aiohttp.GunicornWebWorker"
