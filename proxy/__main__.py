"""Command line: `python -m proxy validate|serve|replicas|registry|check-live ...`."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import signal
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from aiohttp import web

from proxy.core.errors import BesluitBronError
from proxy.observe.accesslog import use_text_logs

if TYPE_CHECKING:
    from collections.abc import Mapping

    from proxy.maintain.registry_edit import Switch
    from proxy.maintain.upstreams import Choice, Mode
    from proxy.registry.model import Registry

DEFAULT_REGISTRY = Path("registry.json")
SWITCHES: dict[str, tuple[Switch, bool]] = {
    "enable": ("enabled", True),
    "disable": ("enabled", False),
    "show-in-footer": ("in_footer", True),
    "hide-from-footer": ("in_footer", False),
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m proxy", description="BesluitBron MCP proxy")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("validate", help="check a registry (schema, rules, implementations); exit 1 on errors")
    p.add_argument("path", nargs="?", type=Path, default=DEFAULT_REGISTRY)

    p = sub.add_parser("serve", help="serve every enabled connector over MCP (and the site with --site)")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--registry", type=Path, default=DEFAULT_REGISTRY)
    p.add_argument("--watch", action="store_true", help="reload when the registry file changes (SIGHUP always does)")
    p.add_argument("--upstream", choices=("auto", "replica", "real"), default=None,
                   help="auto: each platform live when its canary is answered at start, else its offline sample; "
                        "replica: every platform from the offline sample; real: every platform live (the default, "
                        "or replica with --replica-url)")
    p.add_argument("--replicas", action="store_true", help="the same as --upstream replica")
    p.add_argument("--replica-port", type=int, default=8100)
    p.add_argument("--site", action="store_true", help="build the documentation site and serve it at /")
    p.add_argument("--redis", default=os.environ.get("BESLUITBRON_REDIS_URL"),
                   help="share state through Redis (default: this process's memory)")
    p.add_argument("--replica-url", help="use replicas already running at this address (`python -m proxy replicas`)")
    p.add_argument("--loop", choices=("uvloop", "asyncio"), default="uvloop",
                   help="the event loop: uvloop (libuv, the faster) or Python's own")
    p.add_argument("--grace", type=float, default=30.0,
                   help="on SIGTERM or SIGINT: stop accepting, give calls in flight this many seconds, then exit")
    p.add_argument("--idle-timeout", type=float, default=15.0,
                   help="close a connection that sends no complete request header for this many seconds")
    p.add_argument("--trusted-proxy", action="append", default=None, metavar="ADDRESS",
                   help="a reverse proxy whose X-Forwarded-For names the client (repeatable; default: loopback)")
    p.add_argument("--trace-key-file", type=Path, default=Path("build/trace-key"),
                   help="without Redis, keep the trace-signing key here so trace handles survive a restart")
    p.add_argument("--workers", type=int, default=0, metavar="N",
                   help="run N worker processes on one port under gunicorn's arbiter (needs --redis when N > 1)")
    p.add_argument("--otlp", metavar="URL", default=None,
                   help="send OpenTelemetry traces over OTLP/HTTP to URL "
                        "(else OTEL_EXPORTER_OTLP_ENDPOINT; neither: off)")
    p.add_argument("--log-format", choices=("text", "json"), default="text",
                   help="json: one JSON line per log record, with the request id of the call it belongs to")

    p = sub.add_parser("replicas", help="serve only the offline platform replicas")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8100)

    p = sub.add_parser("registry", help="switch a connector in registry.json (validated first)")
    p.add_argument("action", choices=sorted(SWITCHES))
    p.add_argument("slug")
    p.add_argument("--registry", type=Path, default=DEFAULT_REGISTRY)

    p = sub.add_parser("check-live", help="send a few canary requests per platform and say per platform 'ok' or "
                                          "what drifted; exit 1 on drift, 2 when a platform cannot be reached")
    p.add_argument("slugs", nargs="*", metavar="SLUG", help="platform keys or connector slugs (default: all)")
    p.add_argument("--registry", type=Path, default=DEFAULT_REGISTRY)
    p.add_argument("--replicas-at", metavar="URL",
                   help="check the replicas served at URL (`python -m proxy replicas`) instead of the platforms")
    p.add_argument("--redis", default=os.environ.get("BESLUITBRON_REDIS_URL"),
                   help="store the result where the server's /status and Laadstatus read it")
    p.add_argument("--record", type=Path, metavar="DIR",
                   help="write every reply the canaries read to DIR/<platform>/ with a SOURCES.md (replica data)")

    args = parser.parse_args(argv)
    use_text_logs()
    if getattr(args, "log_format", "text") == "json":
        from proxy.observe.jsonlog import use_json_logs

        use_json_logs()
    try:
        if args.command == "validate":
            return _validate(args.path)
        if args.command == "registry":
            return _switch(args.registry, args.action, args.slug)
        if args.command == "check-live":
            return asyncio.run(_check_live(args))
        if args.command == "replicas":
            asyncio.run(_serve_replicas(args.host, args.port))
            return 0
        if args.workers:
            return _serve_workers(args)
        from proxy.web.eventloop import run_loop

        run_loop(_serve(args), args.loop)
        return 0
    except BesluitBronError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 0


def _validate(path: Path) -> int:
    from proxy.catalog.generation import load_generation

    catalog = load_generation(path).catalog  # validation never contacts a remote server
    print(f"{path}: valid; serving {', '.join(catalog.paths()) or 'nothing'}")
    for connector in catalog.registry.connectors:
        if connector.remote:
            print(f"  {connector.slug}: remote connector; its address passed the offline checks, its host name is "
                  "checked and its tools are listed when the server starts")
    return 0


def _switch(path: Path, action: str, slug: str) -> int:
    from proxy.maintain.registry_edit import set_switch, write_atomically

    field, value = SWITCHES[action]
    text = path.read_text(encoding="utf-8")
    new = set_switch(text, slug, field, value)  # raises RegistryError, naming the rule, before writing
    if new == text:
        print(f"{slug}: {field} is already {str(value).lower()}")
        return 0
    write_atomically(path, new)
    print(f"{slug}: {field} = {str(value).lower()}. A server started with --watch picks this up; "
          "otherwise send it SIGHUP.")
    return 0


async def _check_live(args: argparse.Namespace) -> int:
    from proxy.core.clock import utc_now
    from proxy.maintain.checklive import check_live, render, summary_record
    from proxy.maintain.recording import write_recording
    from proxy.registry.model import load_registry
    from proxy.replica import replica_base_urls
    from proxy.results.resultmemo import collecting

    registry = load_registry(args.registry)
    real_bases = {k: p.base_url for k, p in registry.platforms.items()}
    if args.replicas_at:
        registry = registry.with_base_urls(replica_base_urls({k: p.base_url for k, p in registry.platforms.items()},
                                                             args.replicas_at))
    keys = _platform_keys(registry, args.slugs)
    results = []
    for key in keys:
        with collecting() as fetches:
            results.append(await check_live(registry, key))
        if args.record:
            written = write_recording(args.record / key, key, registry.platforms[key].title.nl, fetches, utc_now(),
                                      served_at=registry.platforms[key].base_url, real_base=real_bases[key])
            print(f"recorded {len(written)} replies of {key} in {args.record / key}", flush=True)
    print(render(results), flush=True)
    if args.redis:
        from proxy.state.redis_store import RedisStore

        store = RedisStore(args.redis)
        try:
            await store.set_live_check(summary_record(results))
        finally:
            await store.close()
        print("stored: /status and the Laadstatus page of servers sharing this Redis show it")
    else:
        print("not stored: pass --redis (or set BESLUITBRON_REDIS_URL) to show it on the Laadstatus page")
    if any(r.status == "drift" for r in results):
        return 1
    return 2 if any(r.status == "unreachable" for r in results) else 0


def _platform_keys(registry: Registry, slugs: list[str]) -> list[str]:
    """Platform keys for the given platform keys or connector slugs (all platforms when none are given)."""
    if not slugs:
        return list(registry.platforms)
    by_slug = {c.slug: c.platform for c in registry.connectors if c.platform}
    keys = []
    for slug in slugs:
        key = slug if slug in registry.platforms else by_slug.get(slug)
        if key is None:
            known = ", ".join(sorted({*registry.platforms, *by_slug}))
            raise BesluitBronError(f"{slug!r} is neither a platform nor a connector; known: {known}")
        if key not in keys:
            keys.append(key)
    return keys


async def _serve_replicas(host: str, port: int) -> None:
    from proxy.registry.model import load_registry
    from proxy.replica import create_replicas_app

    keys = [k for k, p in load_registry(DEFAULT_REGISTRY).platforms.items() if p.remote is None]
    runner = web.AppRunner(create_replicas_app(keys))
    await runner.setup()
    await web.TCPSite(runner, host, port).start()
    print(f"replicas of {', '.join(keys)} at http://{host}:{port}/<platform>/", flush=True)
    with contextlib.suppress(asyncio.CancelledError):
        await asyncio.Event().wait()
    await runner.cleanup()


async def _serve(args: argparse.Namespace) -> None:
    from proxy.registry.model import load_registry
    from proxy.replica import create_replicas_app, replica_base_urls
    from proxy.results.sample import replica_sample
    from proxy.web.app import RUNTIME, Config, app_runner, create_app
    from proxy.web.discovery_routes import served_elsewhere
    from proxy.web.sitebuild import build_site

    registry = load_registry(args.registry)
    _raise_file_limit()
    asyncio.get_running_loop().set_exception_handler(_ExceptionLog())
    stop = _stop_on_signals()
    runners: list[web.AppRunner] = []
    try:
        # Remote connectors have no replica: they keep their own address.
        builtin = {k: p.base_url for k, p in registry.platforms.items() if p.remote is None}
        choice = await _choose(args, registry, builtin)
        sampled = {k: builtin[k] for k in choice.sampled}
        replica_root = args.replica_url
        if sampled and not replica_root:
            replicas = web.AppRunner(create_replicas_app(list(sampled)), access_log=None)
            runners.append(replicas)
            await replicas.setup()
            await web.TCPSite(replicas, args.host, args.replica_port).start()
            replica_root = f"http://{args.host}:{args.replica_port}"
        base_urls = replica_base_urls(sampled, replica_root) if sampled and replica_root else {}
        sample = replica_sample(sampled, live=choice.live) if sampled else None
        site_dir = site_root = None
        if args.site:
            site_root = Path("build/site-generations").resolve()
            site_dir = await build_site(args.registry, site_root, sample=sample)
        app = create_app(Config(registry_path=args.registry, base_urls=base_urls, redis_url=args.redis,
                                watch=args.watch, site_dir=site_dir, site_build_root=site_root,
                                idle_timeout_seconds=args.idle_timeout, grace_seconds=args.grace,
                                trace_key_file=args.trace_key_file,
                                trusted_proxies=tuple(args.trusted_proxy or ("127.0.0.1", "::1")),
                                sample=sample, otlp_endpoint=args.otlp))
        # Graceful stop (aiohttp's own): the listener closes, handlers get `grace` seconds, then cleanup.
        runner = app_runner(app, grace=args.grace)  # the same grace the app answers within
        runners.append(runner)
        await runner.setup()
        await web.TCPSite(runner, args.host, args.port).start()
        print(_addresses(f"http://{args.host}:{args.port}", app[RUNTIME].generation.catalog.paths(), args,
                         replicas=bool(sampled) and not args.replica_url), flush=True)
        warning = served_elsewhere(registry.server.public_url, f"{args.host}:{args.port}")
        if warning and args.host not in ("0.0.0.0", "::"):  # a wildcard bind is usually behind a proxy that knows
            logging.getLogger("proxy").warning("%s", warning)
        signame = await stop
        logging.getLogger("proxy").info("%s: no new connections; calls in flight get up to %g s", signame, args.grace)
    finally:
        for r in reversed(runners):
            await r.cleanup()


def _serve_workers(args: argparse.Namespace) -> int:
    """`serve --workers N`: the site is built once here, then gunicorn forks N workers that all serve it."""
    import shutil

    from proxy.registry.model import load_registry
    from proxy.replica import replica_base_urls
    from proxy.results.sample import replica_sample
    from proxy.web.app import Config
    from proxy.web.sitebuild import build_site
    from proxy.web.workers import serve_workers, unavailable

    if args.workers > 1 and not args.redis:
        raise BesluitBronError("--workers above 1 needs --redis (or BESLUITBRON_REDIS_URL): without it each worker "
                               "keeps its own sessions and a client's next request may reach another worker")
    if args.replicas or (_mode(args) != "real" and not args.replica_url):
        raise BesluitBronError("--workers does not start the replicas: run `python -m proxy replicas` and pass "
                               "its address with --replica-url")
    taken = unavailable(args.host, args.port)
    if taken:
        raise BesluitBronError(taken)
    registry = load_registry(args.registry)  # refuse a broken registry before any worker is forked
    _raise_file_limit()
    builtin = {k: p.base_url for k, p in registry.platforms.items() if p.remote is None}
    choice = asyncio.run(_choose(args, registry, builtin))
    sampled = {k: builtin[k] for k in choice.sampled}
    base_urls = replica_base_urls(sampled, args.replica_url) if sampled and args.replica_url else {}
    sample = replica_sample(sampled, live=choice.live) if sampled else None
    site_dir = site_root = initial_root = None
    if args.site:
        # The first site is the arbiter's (outside the workers' root, so a worker that stops leaves it alone);
        # a reload rebuilds in each worker under site-generations, as a single process does.
        site_root = Path("build/site-generations").resolve()
        initial_root = Path("build/site-initial").resolve()
        site_dir = asyncio.run(build_site(args.registry, initial_root, sample=sample))
    config = Config(registry_path=args.registry, base_urls=base_urls, redis_url=args.redis, watch=args.watch,
                    site_dir=site_dir, site_build_root=site_root, idle_timeout_seconds=args.idle_timeout,
                    trace_key_file=args.trace_key_file,
                    trusted_proxies=tuple(args.trusted_proxy or ("127.0.0.1", "::1")), sample=sample,
                    otlp_endpoint=args.otlp)
    from proxy.catalog.generation import load_generation

    paths = load_generation(args.registry, base_urls=base_urls).catalog.paths()
    print(_addresses(f"http://{args.host}:{args.port}", paths, args) + f"\n  workers      {args.workers} on this "
          "port, sharing state in Redis", flush=True)
    try:
        serve_workers(config, host=args.host, port=args.port, workers=args.workers, grace=args.grace,
                      loop=args.loop)
    finally:
        if site_dir is not None:
            shutil.rmtree(site_dir, ignore_errors=True)
    return 0


def _raise_file_limit() -> None:
    """Use the hard limit on open files, not the soft default (often 1,024): each client is one file."""
    try:
        import resource
    except ImportError:  # not on Unix
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = hard if hard != resource.RLIM_INFINITY else 65_536
    if soft < wanted:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))


class _ExceptionLog:
    """The event loop's error log, except that running out of files for new connections (every refused
    accept() was a traceback, many a second under a connection flood) is one line a minute."""

    def __init__(self) -> None:
        self._last_warned = -3600.0

    def __call__(self, loop: asyncio.AbstractEventLoop, context: dict[str, object]) -> None:
        if context.get("message") != "socket.accept() out of system resource":
            loop.default_exception_handler(context)
            return
        now = loop.time()
        if now - self._last_warned >= 60:
            self._last_warned = now
            logging.getLogger("proxy").warning(
                "new connections wait: no file descriptors left (%s); idle and slow connections are closed "
                "after --idle-timeout, raise the open-files limit for more", context.get("exception"))


def _finish(stop: asyncio.Future[str], name: str) -> None:
    if not stop.done():
        stop.set_result(name)


def _stop_on_signals() -> asyncio.Future[str]:
    """A future that SIGTERM or SIGINT completes (with the signal's name), instead of killing the process."""
    loop = asyncio.get_running_loop()
    stop: asyncio.Future[str] = loop.create_future()
    for sig in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError):  # no Unix signals (Windows): Ctrl+C still works
            loop.add_signal_handler(sig, _finish, stop, sig.name)
    return stop


def _mode(args: argparse.Namespace) -> Mode:
    """The --upstream mode: as given; else replica with --replicas or --replica-url, else real."""
    if args.replicas:
        return "replica"
    given: Mode | None = args.upstream
    return given or ("replica" if args.replica_url else "real")


async def _choose(args: argparse.Namespace, registry: Registry, builtin: Mapping[str, str]) -> Choice:
    """Live or sample per platform (checking the live ones first with --upstream auto), said per source."""
    from proxy.maintain.upstreams import CHECK_WITHIN, choose_upstreams

    mode = _mode(args)
    if mode == "auto":
        print(f"checking which platforms answer (at most {CHECK_WITHIN:g} s) ...", flush=True)
    choice = await choose_upstreams(registry, builtin, mode)
    titles = {k: p.title.nl for k, p in registry.platforms.items()}
    print("\n".join(["sources:", *choice.lines(titles)]), flush=True)
    return choice


def _addresses(base: str, paths: list[str], args: argparse.Namespace, *, replicas: bool = False) -> str:
    lines = [f"BesluitBron on {base}"]
    if args.site:
        lines.append(f"  site         {base}/  (English: {base}/en/)")
    lines += [f"  health       {base}/health", f"  load status  {base}/status"]
    lines += [f"  MCP          {base}{path}" for path in paths]
    if replicas:
        lines.append(f"  replicas     http://{args.host}:{args.replica_port}/<platform>/ (offline sample data)")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
