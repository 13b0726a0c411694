"""Offline stand-ins for the seven source platforms, for tests and `make run`.

Each platform has a module `proxy/replica/<key>.py` with `create_app(anchor: date) -> web.Application`
that answers the request shapes its adapter sends, at the same paths as the real platform, with
deterministic sample data (seeded from the recorded responses in `proxy/replica/data/`). `anchor`
is "today" for the data: recent material is dated relative to it, and some organs stand still.

`create_replicas_app` mounts every replica under `/<key>`; `replica_base_urls` gives the base URLs
that point the proxy at them (the real base URL's path under `<root>/<key>`).

A platform added through BESLUITBRON_PLATFORM_PATH (see proxy.platforms) brings its replica beside it: a directory
D on that path holds the platform as `D/<key>.py` and its replica as `D/replica/<key>.py`.
"""

from __future__ import annotations

import importlib
import inspect
import os
from collections.abc import Iterable, Mapping
from datetime import date
from urllib.parse import urlsplit

from aiohttp import web

from proxy.platforms import PLATFORM_PATH_ENV
from proxy.replica.faults import FAULTS_KEY, Faults, fault_middleware

__path__ += [os.path.join(p, "replica") for p in os.environ.get(PLATFORM_PATH_ENV, "").split(os.pathsep) if p]

__all__ = ["FAULTS", "create_replicas_app", "replica_base_urls"]

FAULTS = web.AppKey("faults_by_platform", dict[str, Faults])


def replica_base_urls(base_urls: Mapping[str, str], root: str) -> dict[str, str]:
    """Map each platform key to `<root>/<key><path of its real base URL>`."""
    return {key: f"{root.rstrip('/')}/{key}{urlsplit(url).path}".rstrip("/") for key, url in base_urls.items()}


def create_replicas_app(keys: Iterable[str], *, anchor: date | None = None, fixtures: bool = False
                        ) -> web.Application:
    """One aiohttp app serving every named replica under `/<key>`, plus `/_faults/<key>` to switch faults.

    `fixtures`: also serve the records made for tests (escaping payloads, meetings and rulings dated around
    `anchor`, a withdrawn feed entry); never in `make run`, where every answer is a recorded record.
    """
    anchor = anchor or date.today()
    root = web.Application()
    faults: dict[str, Faults] = {}
    for key in keys:
        module = importlib.import_module(f"proxy.replica.{key}")
        # A replica brought on BESLUITBRON_PLATFORM_PATH may have no fixtures to leave out.
        takes = "fixtures" in inspect.signature(module.create_app).parameters
        sub: web.Application = module.create_app(anchor, fixtures=fixtures) if takes else module.create_app(anchor)
        sub.middlewares.append(fault_middleware)
        sub[FAULTS_KEY] = faults[key] = Faults()
        root.add_subapp(f"/{key}", sub)
    root[FAULTS] = faults
    root.router.add_route("POST", "/_faults/{key}", _set_faults)
    root.router.add_route("DELETE", "/_faults/{key}", _clear_faults)
    return root


async def _set_faults(request: web.Request) -> web.Response:
    faults = request.app[FAULTS].get(request.match_info["key"])
    if faults is None:
        raise web.HTTPNotFound(text="no such replica")
    try:
        faults.update(await request.json())
    except (ValueError, TypeError) as exc:
        raise web.HTTPBadRequest(text=str(exc)) from exc
    return web.json_response({"ok": True})


async def _clear_faults(request: web.Request) -> web.Response:
    faults = request.app[FAULTS].get(request.match_info["key"])
    if faults is None:
        raise web.HTTPNotFound(text="no such replica")
    faults.clear()
    return web.json_response({"ok": True})
