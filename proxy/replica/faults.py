"""Switchable faults for the replicas, so tests can make a platform slow, failing or garbled.

Each replica app carries one `Faults` object. Tests set it over HTTP
(`POST /_faults/<platform>` with a JSON body of the fields below; `DELETE` clears them) or directly
in-process. The middleware applies the faults to every request of that replica.
"""

from __future__ import annotations

import asyncio
import random
from dataclasses import asdict, dataclass, field, fields

from aiohttp import web
from aiohttp.typedefs import Handler

__all__ = ["FAULTS_KEY", "Faults", "fault_middleware"]


@dataclass
class Faults:
    """What goes wrong, per replica. All off by default."""

    latency_ms: int = 0  # added before answering
    error_rate: float = 0.0  # share of requests answered with HTTP 500 (1.0 = all)
    status: int = 500  # the status used by error_rate
    malformed: bool = False  # answer 200 with a garbled body
    oversize_bytes: int = 0  # answer 200 with this many bytes of padding
    slow_body_ms: int = 0  # send the body in pieces with this pause between them
    # A platform whose answers changed shape: every 200 answer's body with each key replaced by its value
    # (e.g. {"DocumentNummer": "Documentnummer"}), for the live contract check's drift test.
    drift: dict[str, str] = field(default_factory=dict)
    # Only requests whose path ends so are touched (e.g. ["/api/status"]: one endpoint down, the rest up).
    only_paths: list[str] = field(default_factory=list)
    seed: int = 7

    def update(self, values: dict[str, object]) -> None:
        known = {f.name: f.type for f in fields(self)}
        for name, value in values.items():
            if name not in known:
                raise ValueError(f"unknown fault {name!r}; known: {', '.join(known)}")
            setattr(self, name, value)
        self._rng = random.Random(self.seed)

    def clear(self) -> None:
        self.update(asdict(Faults()))

    def roll(self) -> bool:
        rng = getattr(self, "_rng", None) or random.Random(self.seed)
        self._rng = rng
        return rng.random() < self.error_rate


FAULTS_KEY = web.AppKey("faults", Faults)


@web.middleware
async def fault_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    faults = request.app[FAULTS_KEY]
    if faults.only_paths and not request.path.endswith(tuple(faults.only_paths)):
        return await handler(request)
    if faults.latency_ms:
        await asyncio.sleep(faults.latency_ms / 1000)
    if faults.error_rate and faults.roll():
        return web.Response(status=faults.status, text="replica: injected failure")
    if faults.malformed:
        return web.Response(status=200, body=b"\x00{<not json or xml", content_type="application/json")
    if faults.oversize_bytes:
        return web.Response(status=200, body=b" " * faults.oversize_bytes, content_type="application/json")
    response = await handler(request)
    # The replicas answer with bytes (text or JSON); a streamed payload is passed on untouched.
    if (faults.drift and isinstance(response, web.Response) and response.status == 200
            and isinstance(response.body, bytes | bytearray) and response.body):
        text = bytes(response.body).decode("utf-8", "replace")
        for old, new in faults.drift.items():
            text = text.replace(old, new)
        response.body = text.encode()
    if (faults.slow_body_ms and isinstance(response, web.Response)
            and isinstance(response.body, bytes | bytearray) and response.body):
        body = bytes(response.body)
        slow = web.StreamResponse(status=response.status, headers=response.headers)
        slow.content_type = response.content_type
        await slow.prepare(request)
        for i in range(0, len(body), max(1, len(body) // 4)):
            await slow.write(body[i:i + max(1, len(body) // 4)])
            await asyncio.sleep(faults.slow_body_ms / 1000)
        await slow.write_eof()
        return slow
    return response
