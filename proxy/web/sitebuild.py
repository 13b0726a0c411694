"""Build the documentation site for a registry into a fresh directory (used by reloads)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import sys
import tempfile
from pathlib import Path
from typing import Any

from proxy.catalog.site_input import SITE_INPUT_ENV, SiteInput
from proxy.core.errors import BesluitBronError
from proxy.results.sample import SampleData

__all__ = ["MKDOCS_YML", "SiteBuildError", "build_site"]

ROOT = Path(__file__).resolve().parents[2]
MKDOCS_YML = ROOT / "mkdocs.yml"


# A rebuild after a registry change keeps both cores busy for seconds (two languages, the twin writer); niced,
# it takes what the MCP traffic of the same server leaves.
BUILD_NICENESS = 10


class SiteBuildError(BesluitBronError):
    """mkdocs refused to build; the message carries its last lines."""


async def build_site(registry_path: Path, out_root: Path, *, status: dict[str, Any] | None = None,
                     remote: dict[str, Any] | None = None, sample: SampleData | None = None,
                     timeout: float = 300) -> Path:
    """`mkdocs build --strict` into a new directory under `out_root`; returns that directory.

    What the server knows and the site shows (its load measurement, its remote listings, that it answers
    from the offline sample) is handed over as one `SiteInput` file: the build itself measures nothing."""
    out_root.mkdir(parents=True, exist_ok=True)
    target = Path(tempfile.mkdtemp(prefix="site-", dir=out_root))
    given = target.with_suffix(".input.json")
    SiteInput(registry=registry_path, status=status, remote=remote,
              sample_recorded_on=sample.newest if sample is not None else None,
              sample_sources=sorted(sample.recorded_on) if sample is not None and sample.live else None).write(given)
    env = {**os.environ, SITE_INPUT_ENV: str(given)}
    env.setdefault("SOURCE_DATE_EPOCH", "1767225600")
    try:
        await _run_mkdocs(target, env, timeout)
    except BaseException:
        shutil.rmtree(target, ignore_errors=True)  # a failed or cancelled build leaves nothing behind
        raise
    finally:
        given.unlink(missing_ok=True)
    return target


async def _run_mkdocs(target: Path, env: dict[str, str], timeout: float) -> None:
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "-f", str(MKDOCS_YML),
        "-d", str(target), cwd=str(ROOT), env=env,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
        start_new_session=True,  # its own process group: the languages it forks (site_hooks/parallel_languages.py)
    )
    if hasattr(os, "setpriority"):  # before mkdocs forks anything: what it starts inherits the niceness
        with contextlib.suppress(OSError):
            os.setpriority(os.PRIO_PROCESS, proc.pid, BUILD_NICENESS)
    try:
        output, _ = await asyncio.wait_for(proc.communicate(), timeout)
    except TimeoutError as exc:
        raise SiteBuildError(f"site build took longer than {timeout:g} s") from exc
    finally:
        if proc.returncode is None:  # timed out or cancelled (shutdown mid-reload): stop mkdocs too
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)  # mkdocs and every process it started
            await proc.wait()
    if proc.returncode != 0:
        tail = "\n".join(output.decode(errors="replace").splitlines()[-15:])
        raise SiteBuildError(f"site build failed (exit {proc.returncode}):\n{tail}")
