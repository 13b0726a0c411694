"""The Markdown twins are written by a second process while the pages build. Pure: no mkdocs import.

Converting a page's slots to Markdown (site_markdown, markdownify) costs about as much CPU as mkdocs
spends on the page itself, and nothing in the build reads a twin: so one worker process converts them
beside the build, and the files are written once every language is built (bench/bench_site.py). The
worker keeps its conversion caches for the whole build. The text is site_markdown.page_markdown's, as
when it ran in the build process.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Mapping
from concurrent.futures import Future, ProcessPoolExecutor
from pathlib import Path

from site_hooks.site_markdown import page_markdown
from site_hooks.site_stencil import Stencil

__all__ = ["TwinWriter"]

class TwinWriter:
    """Twins converted in one worker process, written by `finish`."""

    def __init__(self) -> None:
        self._pool: ProcessPoolExecutor | None = None
        self._pending: list[tuple[Future[str], Path, str]] = []

    def submit(self, target: Path, where: str, markdown: str, slots: Mapping[str, str], *, title: str, url: str,
               html_url: str, stencils: Mapping[str, Stencil]) -> None:
        if self._pool is None:
            # spawn, not fork: `mkdocs serve` builds while its server threads run.
            self._pool = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"))
        future = self._pool.submit(page_markdown, markdown, dict(slots), title=title, url=url, html_url=html_url,
                                   stencils=dict(stencils))
        self._pending.append((future, target, where))

    def finish(self, check: Callable[[Callable[[], str], str], str]) -> None:
        """Write every twin; `check(result, where)` gets each text, so a conversion's error is raised as the
        build raises it (bridge.plugin_error). The worker stops either way."""
        pending, self._pending = self._pending, []
        try:
            for future, target, where in pending:
                text = check(future.result, where)
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(text, encoding="utf-8")
        finally:
            self.close()

    def close(self) -> None:
        """Stop the worker, dropping what it has not converted (a failed build)."""
        pool, self._pool = self._pool, None
        self._pending = []
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)

