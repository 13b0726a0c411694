"""`python -m proxy serve --workers N`: N processes on one port, supervised by gunicorn's arbiter.

Gunicorn's arbiter does what a supervisor of our own would have to re-implement: it forks the workers
onto one listening socket, replaces a worker that dies, and on SIGTERM stops every worker gracefully
(each closes its listener and lets calls in flight finish, `--grace` seconds at most). aiohttp's own
`GunicornWebWorker` runs the application in each worker. One thing is ours: SIGHUP. Gunicorn's default
answer is to fork fresh workers, which would end every open event stream and, with a broken registry,
leave no worker able to boot. Here the arbiter validates the registry once for the log and
passes SIGHUP on to the workers, which reload in place exactly as a single process does (and refuse a broken
registry each, keeping the previous one, which /health and /metrics then show).

Listening: each worker accepts on a socket of its own, all bound to the one address with SO_REUSEPORT (gunicorn's
`reuse_port`), and the kernel spreads new connections over them. On one shared socket the worker whose event loop
wakes first accepts every connection waiting (its loop drains the backlog), so a client or reverse proxy that opens
its keep-alive connections together lands them all on one worker (bench/RESULTS.md measured 64 of 64). The price:
a worker that stops resets the connections still waiting in its own backlog, which a shared socket would have
handed to another worker. Where the system has no SO_REUSEPORT, gunicorn shares one socket as before.

Metrics: each worker writes its counters to files in one directory (PROMETHEUS_MULTIPROC_DIR if the operator
names one, else a fresh temporary one), so /metrics from any worker reports the whole service.
"""

from __future__ import annotations

import logging
import math
import os
import shutil
import signal
import socket
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any

from aiohttp import web
from gunicorn.app.base import BaseApplication
from gunicorn.arbiter import Arbiter

from proxy.observe import metrics
from proxy.web.app import Config, app_runner, create_app, note_early_sighup
from proxy.web.eventloop import Loop, worker_class

log = logging.getLogger("proxy")


def validated(registry_path: Any) -> bool:
    """Whether the registry file can be served (the checks of `python -m proxy validate`, offline)."""
    from proxy.catalog.generation import load_generation

    try:
        load_generation(registry_path)
    except Exception as exc:  # any refusal: every worker keeps the registry it serves
        log.error("SIGHUP: the registry is refused, every worker keeps serving the previous one: %s", exc)
        return False
    return True


class ReloadingArbiter(Arbiter):
    """Gunicorn's arbiter, except that SIGHUP reloads the workers in place (never forks new ones).

    The registry is checked here once, for one clear line in the log, and the signal goes on to the workers
    either way: each one refuses a broken registry itself (and keeps serving), so the refusal shows in every
    worker's /health (`last_reload`) and in /metrics (`besluitbron_registry_reloads_total{outcome="refused"}`),
    not only in the log."""

    app: Workers  # the application it runs is always ours

    def handle_hup(self) -> None:
        registry = self.app.config.registry_path
        if validated(registry):
            log.info("SIGHUP: %s is valid; every worker reloads it", registry)
        self.kill_workers(signal.SIGHUP)


def _hold_hup_until_ready(worker: Any) -> None:
    """A SIGHUP that reaches a worker before its application installed its own handler must not kill it, nor be
    lost: the worker may have read the registry before it changed. It is noted, and the application reloads once
    its handler is in place (`proxy.web.app.note_early_sighup`)."""
    signal.signal(signal.SIGHUP, note_early_sighup)


def unavailable(host: str, port: int) -> str | None:
    """Why `host:port` cannot be listened on, or None. The workers bind it with SO_REUSEPORT, which would let them
    share it with another service of this user's already there (and retry a port another program holds, worker
    after worker): a plain bind tried first refuses both once, clearly."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # a previous run's closing connections are fine
        try:
            probe.bind((host, port))
        except OSError as exc:
            return f"cannot listen on {host}:{port}: {exc.strerror or exc} (is another program or service on it?)"
    return None


def _metrics_directory() -> tuple[Path, bool]:
    """Where the workers' metric files go, emptied (files of an earlier run would be summed in); and whether it is
    ours to remove at the end (a temporary one) or the operator's."""
    named = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if not named:
        return Path(tempfile.mkdtemp(prefix="besluitbron-metrics-")), True
    directory = Path(named)
    directory.mkdir(parents=True, exist_ok=True)
    for old in directory.glob("*.db"):
        old.unlink()
    return directory, False


class Workers(BaseApplication):
    """N aiohttp workers for one `Config`, bound to `bind` ("host:port"), their metrics in `metrics_dir`."""

    def __init__(self, config: Config, *, bind: str, workers: int, grace: float, metrics_dir: Path,
                 loop: Loop = "uvloop") -> None:
        self.config, self.grace = config, grace
        self.options = {
            "bind": bind,
            "workers": workers,
            "worker_class": worker_class(loop),
            # The arbiter waits a little longer than each worker's own drain before it kills.
            "graceful_timeout": math.ceil(grace) + 5,
            "post_fork": lambda arbiter, worker: metrics.share_between_workers(metrics_dir),
            "child_exit": lambda arbiter, worker: metrics.worker_gone(metrics_dir, worker.pid),
            "post_worker_init": _hold_hup_until_ready,
            # Gunicorn then opens no socket in the arbiter: each worker binds its own (see the docstring).
            "reuse_port": True,
            # Gunicorn's control socket (in $HOME or $XDG_RUNTIME_DIR) would make two services on one machine
            # collide; signals are this service's whole control interface.
            "control_socket_disable": True,
        }
        super().__init__()

    def load_config(self) -> None:
        for key, value in self.options.items():
            self.cfg.set(key, value)

    def load(self) -> Any:
        """Runs in each worker after the fork: its own application, store and connections."""
        config, grace = self.config, self.grace

        async def runner() -> web.AppRunner:
            return app_runner(create_app(config), grace=grace)

        return runner

    def run(self) -> None:
        ReloadingArbiter(self).run()


def serve_workers(config: Config, *, host: str, port: int, workers: int, grace: float,
                  loop: Loop = "uvloop") -> None:
    """Run `workers` processes until SIGTERM/SIGINT; returns after every worker has drained."""
    bind = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    metrics_dir, temporary = _metrics_directory()
    try:
        Workers(replace(config, grace_seconds=grace), bind=bind, workers=workers, grace=grace,
                metrics_dir=metrics_dir, loop=loop).run()
    finally:
        if temporary:
            shutil.rmtree(metrics_dir, ignore_errors=True)
