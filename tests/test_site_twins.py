"""The twin worker: batches of pages converted in a second process give each page the twin page_markdown gives it
in the build process, and a page whose conversion fails is named."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from proxy.catalog.build import build_catalog
from proxy.catalog.generation import Generation
from proxy.registry.model import load_registry
from site_hooks.site_data import SiteData, connector_src, platform_src
from site_hooks.site_markdown import page_markdown
from site_hooks.site_render import Renderer
from site_hooks.site_stencil import Stencil
from site_hooks.site_twins import BATCH, TwinWriter

ROOT = Path(__file__).resolve().parent.parent


def _pages() -> list[tuple[str, str, dict[str, str], dict[str, Stencil]]]:
    data = SiteData(generation=Generation(build_catalog(load_registry(ROOT / "registry.json"))), status=None)
    pages = []
    for lang in ("nl", "en"):
        render = Renderer(data, lang)
        for c in data.connectors:
            markdown = render.connector_page(c.slug)
            pages.append((f"{lang}/{connector_src(c.slug)}", markdown, render.take_slots(), render.take_stencils()))
        for p in data.platforms:
            markdown = render.platform_page(p.key)
            pages.append((f"{lang}/{platform_src(p.key)}", markdown, render.take_slots(), {}))
    return pages


def _checked(result: Callable[[], str], where: str) -> str:
    try:
        return result()
    except ValueError as exc:
        raise RuntimeError(f"{where}: {exc}") from exc


def test_batched_twins_are_the_twins_the_build_process_would_write(tmp_path: Path) -> None:
    pages = _pages() * 3  # more pages than a batch, and a batch that is not full
    assert len(pages) > 2 * BATCH and len(pages) % BATCH
    writer = TwinWriter()
    expected = {}
    for i, (where, markdown, slots, stencils) in enumerate(pages):
        target = tmp_path / f"{i}" / where.replace(".md", ".twin.md")
        writer.submit(target, where, markdown, slots, title="T", url=f"u{i}", html_url=f"h{i}", stencils=stencils)
        expected[target] = page_markdown(markdown, slots, title="T", url=f"u{i}", html_url=f"h{i}", stencils=stencils)
    writer.finish(_checked)
    assert {target: target.read_text(encoding="utf-8") for target in expected} == expected


def test_a_page_whose_twin_fails_is_named_and_the_worker_stops(tmp_path: Path) -> None:
    pages = _pages()[:BATCH + 3]
    broken = pages[5][0]
    writer = TwinWriter()
    for i, (where, markdown, slots, stencils) in enumerate(pages):
        if where == broken:
            slots = {**slots, "s999": "<p>a slot whose placeholder the page lost</p>"}
        writer.submit(tmp_path / f"{i}.md", where, markdown, slots, title="T", url="u", html_url="h", stencils=stencils)
    with pytest.raises(RuntimeError, match=f"^{broken}: .*s999"):
        writer.finish(_checked)
    assert writer._pool is None  # the worker has stopped
