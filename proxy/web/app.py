"""The aiohttp application: MCP endpoints per enabled connector, /health, /ready, /metrics, /status and the site.

`create_app(config)` is the one factory used by `python -m proxy serve`, the tests and the bench.
Routes are fixed (`/{slug}/mcp` and friends); which slugs answer is looked up in the current
catalog on every request, so a reload changes addresses, tools and limits in one step.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import mimetypes
import secrets
import shutil
import signal
import tempfile
import urllib.parse
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from aiohttp import web
from opentelemetry.sdk.trace.export import SpanExporter

from proxy import __version__
from proxy.catalog.discovery import icons
from proxy.core.trace import TraceSigner
from proxy.observe.accesslog import AccessLine
from proxy.observe.forwarded import TRUSTED_PROXIES, client_address
from proxy.observe.metrics import CONTENT_TYPE as METRICS_CONTENT_TYPE
from proxy.observe.metrics import Metrics
from proxy.observe.tracing import make_tracer
from proxy.registry.model import ServerSettings
from proxy.results.sample import SampleData
from proxy.serving.loadstatus import measure_generation, run_measurements, stored_status
from proxy.serving.runtime import Runtime
from proxy.state.store import MemoryStore, StateStore
from proxy.web.cors import cors_middleware
from proxy.web.discovery_routes import add_discovery_routes, browser_redirect, served_elsewhere
from proxy.web.framing import WRITE_SECONDS, held_framing
from proxy.web.headers import SITE_HEADERS
from proxy.web.sitebuild import SiteBuildError, build_site
from proxy.web.transport import McpHttp, ServerIdentity, TransportSettings, handler_args

__all__ = ["RUNTIME", "Config", "app_runner", "create_app"]

log = logging.getLogger(__name__)
RUNTIME = web.AppKey("runtime", Runtime)
CONFIG = web.AppKey["Config"]("config")  # Config is defined below
MCP = web.AppKey("mcp", McpHttp)
RETIRED_SITES = web.AppKey("retired_sites", list[Path])
METRICS = web.AppKey("metrics", Metrics)
LAST_RELOAD = web.AppKey("last_reload", dict[str, object])  # this process's last reload: outcome, when, why
STARTED = web.AppKey("started", list[bool])  # one flag, set once start-up (remote listings included) is done


@dataclass(frozen=True)
class Config:
    """How to run one server process.

    registry_path: the registry to serve (reloaded on SIGHUP, and on change with `watch`).
    base_urls: platform key → base URL overrides (the replicas).
    redis_url: share state through Redis instead of this process's memory.
    site_dir: serve this built site at `/`; with `site_build_root`, reloads rebuild the site there.
    measure_load: run the load-status measurement in the background.
    idle_timeout_seconds: close a connection that sends no complete request header for this long.
    write_timeout_seconds: drop a connection whose client has not taken its response within this long.
    grace_seconds: at a stop, calls in flight get this long (the runner's shutdown_timeout); those still running
        near its end are answered with a retryable error.
    trace_key_file: without Redis, keep the trace-signing key in this file so handles survive a restart.
    trusted_proxies: peers (a reverse proxy in front) whose X-Forwarded-For names the client.
    sample: the platforms are the offline replicas: every answer, /health and the instructions say so.
    otlp_endpoint: send traces over OTLP/HTTP to this base address (else OTEL_EXPORTER_OTLP_ENDPOINT; neither: off).
    span_exporter: send traces to this exporter instead (tests: the SDK's in-memory one).
    """

    registry_path: Path
    base_urls: Mapping[str, str] = field(default_factory=dict)
    redis_url: str | None = None
    watch: bool = False
    watch_interval: float = 1.0
    site_dir: Path | None = None
    site_build_root: Path | None = None
    measure_load: bool = True
    trace_secret: bytes = b""
    idle_timeout_seconds: float = 15
    write_timeout_seconds: float = WRITE_SECONDS
    grace_seconds: float = 30.0
    trace_key_file: Path | None = None
    trusted_proxies: tuple[str, ...] = ("127.0.0.1", "::1")
    sample: SampleData | None = None
    otlp_endpoint: str | None = None
    span_exporter: SpanExporter | None = None


# At a stop, calls still running this long before the grace ends are answered "try again" (time to write that).
STOP_ANSWER_SECONDS = 1.0


def create_app(config: Config) -> web.Application:
    """Build the application; raises RegistryError/CatalogError if the registry cannot be served."""
    store = _make_store(config.redis_url, config.trace_key_file)
    metrics = Metrics()
    traced = make_tracer(config.otlp_endpoint, config.span_exporter)
    runtime = Runtime(store=store, base_urls=config.base_urls, signer=TraceSigner(config.trace_secret or None),
                      sample=config.sample, metrics=metrics)
    server = runtime.apply(runtime.load(config.registry_path), config.site_dir).server

    app = web.Application(
        client_max_size=server.max_body_bytes,
        handler_args=handler_args(idle_timeout_seconds=config.idle_timeout_seconds),
        middlewares=[held_framing(config.write_timeout_seconds),
                     cors_middleware(lambda: runtime.generation.server.cors_origins)],
    )
    app[RUNTIME] = runtime
    app[CONFIG] = config
    mcp = McpHttp(
        resolve=runtime.endpoint,
        identity=server_identity(server, config.sample),
        settings=transport_settings(server, config),
        sessions=store,
        signer=runtime.signer,
        metrics=metrics,
        tracer=traced[0] if traced else None,
    )
    app[MCP] = mcp
    app[METRICS] = metrics
    app[STARTED] = []
    app[RETIRED_SITES] = []
    app[LAST_RELOAD] = {}
    app[TRUSTED_PROXIES] = frozenset(config.trusted_proxies)  # the access log names the client behind them
    app.router.add_get("/health", health)
    app.router.add_get("/ready", ready)
    app.router.add_get("/metrics", metrics_page)
    app.router.add_get("/status", status)
    # Only a GET can be a browser opening an address; every other method goes straight to the transport.
    app.router.add_route("GET", "/{slug}/mcp", browser_redirect(mcp.handle, lambda: runtime.generation.catalog))
    app.router.add_route("*", "/{slug}/mcp", mcp.handle)
    add_discovery_routes(app, lambda: runtime.generation.catalog)
    app.router.add_get("/{tail:.*}", site)
    app.cleanup_ctx.append(_background)
    app.on_shutdown.append(_end_streams)
    if traced:
        provider = traced[1]

        async def _flush_spans(_: web.Application) -> None:
            provider.shutdown()  # the batch still queued goes out before the process ends

        app.on_cleanup.append(_flush_spans)
    return app


def app_runner(app: web.Application, *, grace: float) -> web.AppRunner:
    """How every BesluitBron process serves `app` (one process, each worker, the benchmark): one access-log line per
    request (`AccessLine`), and calls in flight given `grace` seconds at a stop."""
    return web.AppRunner(app, shutdown_timeout=grace, access_log_class=AccessLine)


def server_identity(server: ServerSettings, sample: SampleData | None = None) -> ServerIdentity:
    """What initialize and server/discover say: the registry's name, Dutch title, tagline and instructions
    (led by the sample notice when the platforms are the replicas), the site as website and its favicon as icon."""
    instructions = f"{sample.instructions()}\n\n{server.instructions.nl}" if sample else server.instructions.nl
    return ServerIdentity(name=server.name, version=__version__, title=server.title.nl,
                          instructions=instructions, description=server.tagline.nl,
                          website_url=server.public_url.rstrip("/") + "/", icons=tuple(icons(server.public_url)))


def transport_settings(server: ServerSettings, config: Config) -> TransportSettings:
    """Host and Origin allow-lists (a separately hosted site's origins included), the body limit and the
    reverse proxies whose X-Forwarded-For names the client."""
    return TransportSettings(
        allowed_hosts=server.allowed_hosts,
        allowed_origins=(*server.allowed_origins, *server.cors_origins),
        max_body_bytes=server.max_body_bytes,
        trusted_proxies=config.trusted_proxies,
    )


# --------------------------------------------------------------------------- handlers


async def health(request: web.Request) -> web.Response:
    """Liveness plus exactly the enabled connectors; nothing secret."""
    runtime = request.app[RUNTIME]
    catalog = runtime.generation.catalog
    body: dict[str, object] = {
        "status": "ok",
        "server": catalog.registry.server.name,
        "version": __version__,
        "state": runtime.store.describe(),  # with Redis: whether it is reachable, or local state is used
        # The last SIGHUP or watch reload of this process: a refused one keeps the previous registry serving.
        "last_reload": _last_reload(request.app),
        "connectors": [
            {"slug": c.slug, "title": c.connector.title.nl, "url": c.path} for c in catalog.connectors.values()
        ],
    }
    warning = served_elsewhere(catalog.registry.server.public_url, request.host)
    if warning:
        body["warning"] = warning
    sample = runtime.sample
    if sample:
        body["sample_data"] = sample.describe(runtime.generation.served_platforms)
    return web.json_response(body)


def _last_reload(app: web.Application) -> dict[str, object] | None:
    last: dict[str, object] = app[LAST_RELOAD]
    return dict(last) if last else None


async def ready(request: web.Request) -> web.Response:
    """Readiness for a load balancer or orchestrator: 503 naming each failed check, else 200.

    Checks: the registry is applied (start-up done) and the site is built when one is served. Redis is reported,
    not required: without it every process serves on its own state and keeps the cluster's sessions (their ids
    are signed), so a load balancer that takes every process out while Redis is down would take the service
    down for nothing; /health and /ready then both say degraded."""
    app = request.app
    checks = {"registry": _registry_check(app), "site": _site_check(app), "redis": await _redis_check(app)}
    failed = [name for name, check in checks.items() if not check["ok"]]
    body = {"status": "not ready" if failed else "ready", "failed": failed, "checks": checks}
    return web.json_response(body, status=503 if failed else 200, headers={"Cache-Control": "no-store"})


def _registry_check(app: web.Application) -> dict[str, object]:
    if not app[STARTED]:
        return {"ok": False, "reason": "start-up is not finished (remote connectors are being listed)"}
    return {"ok": True, "connectors": len(app[RUNTIME].generation.catalog.connectors)}


def _site_check(app: web.Application) -> dict[str, object]:
    config = app[CONFIG]
    if config.site_dir is None and config.site_build_root is None:
        return {"ok": True, "served": False}
    site_dir = app[RUNTIME].generation.site_dir
    if site_dir is None or not (site_dir / "index.html").is_file():
        return {"ok": False, "reason": "the site is not built yet (no index.html in the served directory)"}
    return {"ok": True, "served": True}


async def _redis_check(app: web.Application) -> dict[str, object]:
    if not app[CONFIG].redis_url:
        return {"ok": True, "configured": False}
    store = app[RUNTIME].store
    unreachable = getattr(store, "unreachable", None)  # a ResilientStore (imported only where Redis is used)
    if unreachable is None:
        return {"ok": True, "configured": True, "degraded": False}
    reason = await unreachable()
    if reason:  # every process is in the same place: taking them all out of the balancer would help nobody
        return {"ok": True, "configured": True, "degraded": True, "reason": reason}
    if getattr(store, "on_local_state", False):  # Redis answers the others; this process is still catching up
        return {"ok": False, "configured": True, "degraded": True,
                "reason": "Redis answers again, but this process still serves on its own state until its recovery "
                          "checks pass (a few seconds); meanwhile its sessions and call logs are not the others'"}
    return {"ok": True, "configured": True, "degraded": False}


async def metrics_page(request: web.Request) -> web.Response:
    """The Prometheus text format: the service's counters (every worker's, under --workers) and the sessions
    open, counted in the session store. Only for the clients `server.metrics` names (by default this machine's
    own): anyone else is refused before any of that work (a scrape costs 70 times a /health)."""
    access = request.app[RUNTIME].generation.registry.server.metrics
    trusted: frozenset[str] = request.app[TRUSTED_PROXIES]
    client = client_address(request, trusted)
    if not access.admits(client, request.headers.get("Authorization")):
        return web.Response(status=403, text="/metrics is for this installation's monitoring: scrape it from a network "
                            "server.metrics.allow_networks names (by default this machine), or send the token of "
                            "server.metrics.token_env as 'Authorization: Bearer <token>'.\n")
    metrics = request.app[METRICS]
    open_now = await request.app[RUNTIME].store.open_sessions()
    for slug in request.app[RUNTIME].generation.catalog.connectors.keys() | open_now.keys():
        metrics.sessions_open.labels(slug).set(open_now.get(slug, 0))
    return web.Response(body=metrics.exposition(), headers={"Content-Type": METRICS_CONTENT_TYPE})


def request_sample(app: web.Application) -> SampleData | None:
    return app[CONFIG].sample


async def status(request: web.Request) -> web.Response:
    """The Laadstatus of every served source, as JSON (the site's live Laadstatus page reads it)."""
    runtime = request.app[RUNTIME]
    generation = runtime.generation
    registry = generation.registry
    sources = [await stored_status(generation, runtime.store, key) for key in generation.served_platforms]
    body = {
        "server": registry.server.name,
        "version": __version__,
        "stalled_after_days": registry.load_status.stalled_after_days,
        "interval_minutes": registry.load_status.interval_minutes,
        "sources": sources,
        "live_check": await runtime.store.live_check(),  # the last `check-live` run, when one has run
    }
    if runtime.sample:  # the sample's dates are of its recording days: the page counts ages from those
        body["sample_data"] = runtime.sample.describe(generation.served_platforms)
    return web.json_response(body)


async def site(request: web.Request) -> web.StreamResponse:
    """Static files of the current site generation, with directory indexes and a per-language 404."""
    site_dir = request.app[RUNTIME].generation.site_dir
    if site_dir is None:
        raise web.HTTPNotFound(text="no site is served here; see /health")
    tail = request.match_info["tail"]
    target = _resolve_static(site_dir, tail)
    if target is None:
        page = site_dir / ("en/404.html" if tail.startswith("en/") else "404.html")
        if page.is_file():
            return web.Response(status=404, body=page.read_bytes(), content_type="text/html", charset="utf-8",
                                headers=SITE_HEADERS)
        raise web.HTTPNotFound()
    if target.is_dir():
        # To the directory's own path under the site, never to what the client wrote: a tail such as
        # "\t/evil.example/../.." resolves here, and echoed it would be a redirect off the site ("//evil.example/").
        inside = target.relative_to(site_dir.resolve()).as_posix()
        raise web.HTTPFound(urllib.parse.quote(f"/{inside}/" if inside != "." else "/"))
    return web.FileResponse(target, headers={**SITE_HEADERS, "Content-Type": _content_type(target.name)})


def _content_type(name: str) -> str:
    """The file's media type; text says it is UTF-8, or browsers guess (and show llms.txt as mojibake)."""
    ctype = _TYPES.get(Path(name).suffix) or mimetypes.guess_type(name)[0] or "application/octet-stream"
    if ctype.startswith("text/") or ctype in ("application/json", "application/xml", "image/svg+xml"):
        ctype += "; charset=utf-8"
    return ctype


_TYPES = {".md": "text/markdown", ".txt": "text/plain", ".json": "application/json", ".svg": "image/svg+xml"}


def _resolve_static(root: Path, tail: str) -> Path | None:
    if tail.startswith("/") or "\x00" in tail or "\\" in tail:
        return None  # never an absolute path, a NUL or a Windows separator: only files under the site
    try:
        return _find_static(root, tail)
    except (OSError, ValueError):  # a name too long for the file system, and the like: not a page of ours
        return None


def _find_static(root: Path, tail: str) -> Path | None:
    candidate = (root / tail).resolve()
    if not candidate.is_relative_to(root.resolve()):
        return None
    if candidate.is_dir():
        index = candidate / "index.html"
        if not index.is_file():
            return None
        return index if tail == "" or tail.endswith("/") else candidate
    return candidate if candidate.is_file() else None


# --------------------------------------------------------------------------- background work


async def _end_streams(app: web.Application) -> None:
    """Long-lived notification streams end first, so a graceful stop waits only for calls in flight; those still
    running near the end of the grace are answered with a retryable error (time left to write it)."""
    grace = app[CONFIG].grace_seconds
    app[MCP].close_streams()
    app[MCP].stop_calls_after(max(grace - STOP_ANSWER_SECONDS, grace / 2))


class _EarlySighup:
    """Whether a SIGHUP reached this process before its application could reload (a gunicorn worker starting)."""

    def __init__(self) -> None:
        self._noted = False

    def note(self, *_: object) -> None:
        self._noted = True

    def pop(self) -> bool:
        noted, self._noted = self._noted, False
        return noted


_early_sighup = _EarlySighup()
note_early_sighup = _early_sighup.note  # the signal handler gunicorn's post_worker_init installs


async def _background(app: web.Application) -> AsyncIterator[None]:
    """Load-status loop, registry watcher and SIGHUP; torn down in reverse."""
    runtime, config = app[RUNTIME], app[CONFIG]
    if not config.trace_secret:
        # Every process on one store signs trace handles alike, so a stateless client may land on any of them.
        runtime.signer.secret = await runtime.store.shared_secret()
    remote = await runtime.refresh_remote(config.registry_path)
    if remote:
        # Remote connectors' tools are known once their servers were listed: serve that before the first request.
        listed = runtime.try_load(config.registry_path)
        if listed is not None:
            runtime.apply(listed)
    tasks: list[asyncio.Task[None]] = []
    if config.measure_load:
        tasks.append(asyncio.create_task(run_measurements(lambda: runtime.generation, runtime.store,
                                                          owner=secrets.token_hex(8))))
    if config.site_build_root is not None and (remote or config.measure_load or runtime.generation.site_dir is None):
        # The site that was built before the remote servers were listed and the sources measured shows neither:
        # build it again from what is served now, before /ready says ready.
        await _first_site(app)
    app[STARTED].append(True)
    reloading = asyncio.Lock()

    async def reload() -> None:
        async with reloading:
            try:
                await reload_registry(app)
            except Exception:  # the watcher and SIGHUP must outlive any one bad reload
                log.exception("registry reload failed; still serving the previous registry")

    loop = asyncio.get_running_loop()
    with contextlib.suppress(NotImplementedError, RuntimeError):
        loop.add_signal_handler(signal.SIGHUP, lambda: tasks.append(asyncio.create_task(reload())))
    if _early_sighup.pop():  # one came while this worker started, perhaps after it read the registry
        tasks.append(asyncio.create_task(reload()))
    if config.watch:
        tasks.append(asyncio.create_task(_watch(config.registry_path, config.watch_interval, reload)))
    yield
    with contextlib.suppress(NotImplementedError, RuntimeError):
        loop.remove_signal_handler(signal.SIGHUP)
    _remove_own_site_generations(app)
    for task in tasks:
        task.cancel()
    for task in tasks:
        with contextlib.suppress(asyncio.CancelledError):
            await task
    await runtime.close()


FIRST_MEASUREMENT_SECONDS = 60.0  # how long start-up waits for every source's first load status


async def _first_site(app: web.Application) -> None:
    runtime, config = app[RUNTIME], app[CONFIG]
    assert config.site_build_root is not None
    if config.measure_load:
        deadline = asyncio.get_running_loop().time() + FIRST_MEASUREMENT_SECONDS
        while asyncio.get_running_loop().time() < deadline:  # measured here or by the worker holding the lease
            known = [await runtime.store.load_status(k) for k in runtime.generation.served_platforms]
            if all(s is not None for s in known):
                break
            await asyncio.sleep(0.2)
    with tempfile.TemporaryDirectory(prefix="registry-") as scratch:
        snapshot = Path(scratch) / "registry.json"
        try:
            shutil.copyfile(config.registry_path, snapshot)
            current = runtime.generation
            statuses = {"sources": [await stored_status(current, runtime.store, k) for k in current.served_platforms]}
            site = await build_site(snapshot, config.site_build_root, status=statuses,
                                    remote=runtime.remote.snapshot(), sample=config.sample)
        except (OSError, SiteBuildError) as exc:
            log.error("the site could not be rebuilt from what is served; still serving the first one:\n%s", exc)
            return
    old = runtime.generation.site_dir
    runtime.apply(runtime.generation, site)
    if old is not None and old.parent == config.site_build_root:  # the start-up build of this process
        app[RETIRED_SITES].append(old)
        asyncio.get_running_loop().call_later(30, shutil.rmtree, old, True)


async def reload_registry(app: web.Application) -> bool:
    """Apply the registry file again: catalog (and site) first built aside, then swapped in one step.

    Counted in /metrics as applied, refused (the previous one still served) or failed (raised)."""
    reloads = app[METRICS].reloads
    runtime = app[RUNTIME]
    runtime.last_refusal = ""
    at = datetime.now(UTC).isoformat(timespec="seconds")
    try:
        applied = await _reload_registry(app)
    except Exception as exc:
        reloads.labels("failed").inc()
        app[LAST_RELOAD].clear()
        app[LAST_RELOAD].update(outcome="failed", at_utc=at, reason=f"{type(exc).__name__}: {exc}"[:500])
        raise
    reloads.labels("applied" if applied else "refused").inc()
    app[LAST_RELOAD].clear()
    app[LAST_RELOAD].update(outcome="applied" if applied else "refused", at_utc=at,
                            reason=None if applied else (runtime.last_refusal or "see the log")[:500])
    return applied


async def _reload_registry(app: web.Application) -> bool:
    runtime, config = app[RUNTIME], app[CONFIG]
    with tempfile.TemporaryDirectory(prefix="registry-") as scratch:
        # One read of the file feeds both the catalog and the site, so an edit in between cannot split them.
        snapshot = Path(scratch) / "registry.json"
        try:
            shutil.copyfile(config.registry_path, snapshot)
        except OSError as exc:
            log.error("registry reload refused, still serving the previous one: %s", exc)
            runtime.last_refusal = f"the registry file cannot be read: {exc}"
            return False
        # The catalog is built off the event loop (compiling every tool's schemas, a third party's too, takes
        # its time): calls keep being answered meanwhile. Building it is pure, so a thread of its own is safe.
        generation = await asyncio.to_thread(runtime.try_load, snapshot)
        if generation is None:
            return False
        if await runtime.refresh_remote(snapshot):  # a maintainer's reload lists remote servers afresh
            generation = await asyncio.to_thread(runtime.try_load, snapshot) or generation
        new_site: Path | None = None
        if config.site_build_root is not None:
            try:
                current = runtime.generation
                statuses = {"sources": [await stored_status(current, runtime.store, k)
                                        for k in current.served_platforms]}
                new_site = await build_site(snapshot, config.site_build_root, status=statuses,
                                            remote=runtime.remote.snapshot(), sample=config.sample)
            except SiteBuildError as exc:
                log.error("registry reload refused: the site did not build, still serving the previous one:\n%s",
                          exc)
                runtime.last_refusal = f"the site did not build: {exc}"
                return False
    old_site = runtime.generation.site_dir
    measured_before = set(runtime.generation.served_platforms)
    applied = runtime.apply(generation, new_site)
    app[MCP].configure(transport_settings(applied.server, config))
    app[MCP].set_identity(server_identity(applied.server, request_sample(app)))
    app[MCP].notify_tools_changed()
    if config.measure_load:
        # A source switched on is measured now, not at the next round up to interval_minutes away.
        fresh = [key for key in applied.served_platforms
                 if key not in measured_before and await runtime.store.load_status(key) is None]
        if fresh:
            runtime.start_task(measure_generation(applied, runtime.store, fresh))
    log.info("registry reloaded: %s", ", ".join(applied.catalog.paths()))
    if new_site is not None and old_site is not None and old_site.parent == config.site_build_root:
        # Requests still reading the old files have them open already; give stragglers a moment.
        app[RETIRED_SITES].append(old_site)
        asyncio.get_running_loop().call_later(30, shutil.rmtree, old_site, True)
    return True


def _remove_own_site_generations(app: web.Application) -> None:
    """At shutdown: the generations this process built or served go (other processes keep theirs)."""
    root = app[CONFIG].site_build_root
    if root is None:
        return
    current = app[RUNTIME].generation.site_dir
    for generation in [*app[RETIRED_SITES], *([current] if current is not None else [])]:
        if generation.parent == root:
            shutil.rmtree(generation, ignore_errors=True)


async def _watch(path: Path, interval: float, reload: Callable[[], Awaitable[None]]) -> None:
    """Poll the registry's modification time; a change triggers the same reload as SIGHUP."""
    last = _mtime(path)
    while True:
        await asyncio.sleep(interval)
        current = _mtime(path)
        if current != last:
            last = current
            await reload()


def _mtime(path: Path) -> float | None:
    try:
        return path.stat().st_mtime_ns / 1e9
    except OSError:
        return None


# --------------------------------------------------------------------------- state


def _make_store(redis_url: str | None, trace_key_file: Path | None) -> StateStore:
    if not redis_url:
        return MemoryStore(secret_file=trace_key_file)
    from proxy.state.redis_store import RedisStore, ResilientStore

    # Redis gone: serve on this process's memory (the trace key from its file) until it is back.
    return ResilientStore(RedisStore(redis_url), MemoryStore(secret_file=trace_key_file))

