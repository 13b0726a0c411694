"""Build the documentation site for a registry into a fresh directory (used by reloads)."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from proxy.core.errors import BesluitBronError
from proxy.remote.sources import REMOTE_LISTINGS_ENV
from proxy.results.sample import SampleData

__all__ = ["PLUGINS_ENV", "REGISTRY_ENV", "SAMPLE_ENV", "STATUS_ENV", "SiteBuildError", "build_site"]

ROOT = Path(__file__).resolve().parents[2]
# How a build is told what to render (read by site_hooks.bridge): the registry file, a load-status
# snapshot, and (benchmarks only) a "module:function" returning plug-ins for a synthetic registry.
REGISTRY_ENV = "BESLUITBRON_REGISTRY"
STATUS_ENV = "BESLUITBRON_STATUS_JSON"
PLUGINS_ENV = "BESLUITBRON_SITE_PLUGINS"
# The server answers from the offline replicas: the newest recording date, for the banner on every page.
SAMPLE_ENV = "BESLUITBRON_SAMPLE_RECORDED_ON"


class SiteBuildError(BesluitBronError):
    """mkdocs refused to build; the message carries its last lines."""


async def build_site(registry_path: Path, out_root: Path, *, status: dict[str, Any] | None = None,
                     remote: dict[str, Any] | None = None, sample: SampleData | None = None,
                     timeout: float = 300) -> Path:
    """`mkdocs build --strict` into a new directory under `out_root`; returns that directory."""
    out_root.mkdir(parents=True, exist_ok=True)
    target = Path(tempfile.mkdtemp(prefix="site-", dir=out_root))
    env = {**os.environ, REGISTRY_ENV: str(registry_path.resolve())}
    if sample is not None:
        env[SAMPLE_ENV] = sample.newest
    env.setdefault("SOURCE_DATE_EPOCH", "1767225600")
    status_file = target.with_suffix(".status.json")
    if status is not None:
        status_file.write_text(json.dumps(status), encoding="utf-8")
        env[STATUS_ENV] = str(status_file)
    remote_file = target.with_suffix(".remote.json")
    if remote is not None:  # the server's own listings, so the site shows exactly the remote tools it serves
        remote_file.write_text(json.dumps(remote), encoding="utf-8")
        env[REMOTE_LISTINGS_ENV] = str(remote_file)
    try:
        await _run_mkdocs(target, env, timeout)
    except BaseException:
        shutil.rmtree(target, ignore_errors=True)  # a failed or cancelled build leaves nothing behind
        raise
    finally:
        status_file.unlink(missing_ok=True)
        remote_file.unlink(missing_ok=True)
    return target


async def _run_mkdocs(target: Path, env: dict[str, str], timeout: float) -> None:
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "-f", str(ROOT / "mkdocs.yml"),
        "-d", str(target), cwd=str(ROOT), env=env,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
    )
    try:
        output, _ = await asyncio.wait_for(proc.communicate(), timeout)
    except TimeoutError as exc:
        raise SiteBuildError(f"site build took longer than {timeout:g} s") from exc
    finally:
        if proc.returncode is None:  # timed out or cancelled (shutdown mid-reload): stop mkdocs too
            proc.kill()
            await proc.wait()
    if proc.returncode != 0:
        tail = "\n".join(output.decode(errors="replace").splitlines()[-15:])
        raise SiteBuildError(f"site build failed (exit {proc.returncode}):\n{tail}")
