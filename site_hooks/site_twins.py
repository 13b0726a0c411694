"""The Markdown twins are written by a second process while the pages build. Pure: no mkdocs import.

Converting a page's slots to Markdown (site_markdown, markdownify) costs about as much CPU as mkdocs
spends on the page itself, and nothing in the build reads a twin: so one worker process converts them
beside the build, and the files are written at the end of their language's build (bench/bench_site.py). The
worker keeps its conversion caches for the whole build. The text is site_markdown.page_markdown's, as
when it ran in the build process.

Pages travel in batches of `BATCH`: one message per batch instead of one per page (each message wakes the
pool's threads, which take the GIL from the build), and one pickle per batch writes a stencil's shared HTML
(the client tabs, 24 KB, the same object for every connection page) once. A stencil's filled slot does not
travel at all: the worker fills it again from the stencil.
"""

from __future__ import annotations

import functools
import multiprocessing
from collections.abc import Callable, Mapping
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from site_hooks.site_markdown import page_markdown
from site_hooks.site_stencil import Stencil

__all__ = ["BATCH", "TwinWriter"]

BATCH = 32  # pages per message: at 3 ms a page, the last batch adds about 0.1 s after the last page is built


@dataclass(frozen=True)
class _Job:
    """One page's twin, as it travels to the worker."""

    markdown: str
    slots: dict[str, str]  # without the stencils' slots: the worker fills those from `stencils`
    title: str
    url: str
    html_url: str
    stencils: dict[str, Stencil]


def _convert(jobs: list[_Job]) -> list[str | Exception]:
    """In the worker: each page's twin, or the error its conversion raised (named in the build by its page)."""
    out: list[str | Exception] = []
    for job in jobs:
        slots = {**job.slots, **{key: stencil.filled() for key, stencil in job.stencils.items()}}
        try:
            out.append(page_markdown(job.markdown, slots, title=job.title, url=job.url, html_url=job.html_url,
                                     stencils=job.stencils))
        except Exception as exc:  # handed back to the build, which raises it for this page
            out.append(exc)
    return out


def _result(text: str | Exception) -> str:
    if isinstance(text, Exception):
        raise text
    return text


class TwinWriter:
    """Twins converted in one worker process, written by `finish`."""

    def __init__(self) -> None:
        self._pool: ProcessPoolExecutor | None = None
        self._batch: list[tuple[Path, str, _Job]] = []
        self._pending: list[tuple[Future[list[str | Exception]], list[tuple[Path, str]]]] = []

    def submit(self, target: Path, where: str, markdown: str, slots: Mapping[str, str], *, title: str, url: str,
               html_url: str, stencils: Mapping[str, Stencil]) -> None:
        own = {key: html for key, html in slots.items() if key not in stencils}
        self._batch.append((target, where, _Job(markdown, own, title, url, html_url, dict(stencils))))
        if len(self._batch) >= BATCH:
            self._send()

    def _send(self) -> None:
        if not self._batch:
            return
        if self._pool is None:
            # spawn, not fork: `mkdocs serve` builds while its server threads run.
            self._pool = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"))
        batch, self._batch = self._batch, []
        future = self._pool.submit(_convert, [job for _, _, job in batch])
        self._pending.append((future, [(target, where) for target, where, _ in batch]))

    def finish(self, check: Callable[[Callable[[], str], str], str]) -> None:
        """Write every twin; `check(result, where)` gets each text, so a conversion's error is raised as the
        build raises it (bridge.plugin_error). The worker stops either way."""
        try:
            self._send()
            pending, self._pending = self._pending, []
            for future, places in pending:
                try:
                    texts = future.result()
                except Exception as exc:  # the worker failed: every page of the batch says so
                    texts = [exc] * len(places)
                for (target, where), text in zip(places, texts, strict=True):
                    written = check(functools.partial(_result, text), where)
                    target.parent.mkdir(parents=True, exist_ok=True)
                    target.write_text(written, encoding="utf-8")
        finally:
            self.close()

    def close(self) -> None:
        """Stop the worker, dropping what it has not converted (a failed build)."""
        pool, self._pool = self._pool, None
        self._batch, self._pending = [], []
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
