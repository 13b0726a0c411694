"""site_headings against Python-Markdown: a generated page converted without it is the page mkdocs makes with it.

Each comparison renders the same Markdown twice through mkdocs' own `Page.render` under the site's
mkdocs.yml: once as mkdocs does it, once with `bridge.render_headings_only` in place. Content, table of
contents, title and anchor ids must be equal, for every generated page of the shipped registry and for
headings Hypothesis writes; where the conversion declines (None), the page goes through Python-Markdown.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from mkdocs.config import load_config
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page
from mkdocs.structure.toc import TableOfContents

from proxy.catalog.build import build_catalog
from proxy.catalog.generation import Generation
from proxy.registry.model import load_registry
from site_hooks import bridge
from site_hooks.site_data import SiteData
from site_hooks.site_headings import convert, fits
from site_hooks.site_render import Renderer

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def config() -> MkDocsConfig:
    os.environ.setdefault("NO_MKDOCS_2_WARNING", "1")
    return load_config(str(ROOT / "mkdocs.yml"))


def _toc(toc: TableOfContents | list[Any]) -> list[tuple[int, str, str, list[Any]]]:
    return [(item.level, item.id, item.title, _toc(item.children)) for item in toc]


def _rendered(config: MkDocsConfig, markdown_text: str, *, headings_only: bool) -> tuple[Any, ...]:
    file = File("connectoren/page.md", src_dir=None, dest_dir=config.site_dir, use_directory_urls=False)
    file.content_string = markdown_text
    page = Page(None, file, config)
    page.read_source(config)
    if headings_only:
        bridge.render_headings_only(page, config)
    page.render(config, Files([file]))
    links = {linked.src_uri: anchors for linked, anchors in (page.links_to_anchors or {}).items()}  # Files hash by id
    return page.content, _toc(page.toc), page.title, page.present_anchor_ids, links


def _outcome(config: MkDocsConfig, markdown_text: str, *, headings_only: bool) -> tuple[Any, ...]:
    try:
        return _rendered(config, markdown_text, headings_only=headings_only)
    except Exception as exc:  # Python-Markdown's own failures (its HTML parser on `<![`, say) must stay the same
        return ("raised", type(exc).__name__, str(exc))


def _assert_same_page(config: MkDocsConfig, markdown_text: str) -> None:
    assert _outcome(config, markdown_text, headings_only=True) == _outcome(config, markdown_text,
                                                                            headings_only=False)


def _generated_pages() -> list[tuple[str, str]]:
    data = SiteData(generation=Generation(build_catalog(load_registry(ROOT / "registry.json"))), status=None)
    pages = []
    for lang in ("nl", "en"):
        render = Renderer(data, lang)
        pages += [(f"{lang}:{c.slug}", render.connector_page(c.slug)) for c in data.connectors]
        pages += [(f"{lang}:{p.key}", render.platform_page(p.key)) for p in data.platforms]
    return pages


GENERATED = _generated_pages()


@pytest.mark.parametrize("markdown_text", [text for _, text in GENERATED], ids=[name for name, _ in GENERATED])
def test_every_generated_page_converts_as_python_markdown_converts_it(config: MkDocsConfig,
                                                                        markdown_text: str) -> None:
    body = markdown_text.split("\n---\n", 1)[-1]
    assert convert(body) is not None, "a generated page fell back to Python-Markdown"
    _assert_same_page(config, markdown_text)


def test_the_sites_markdown_settings_take_the_conversion_and_others_do_not(config: MkDocsConfig) -> None:
    assert fits(config.markdown_extensions, config.mdx_configs)
    assert not fits([*config.markdown_extensions, "smarty"], config.mdx_configs)
    assert not fits(config.markdown_extensions, {**config.mdx_configs, "toc": {"permalink": "#"}})


def test_anything_but_headings_and_placeholders_goes_through_python_markdown(config: MkDocsConfig) -> None:
    assert convert("# Title\n\nbesluitbron-slot-s0\n\n<!--besluitbron-slot-u1-->\n") is not None
    for other in ("A paragraph.", "* a list item", "## Title {: .class }", "## *Emphasis*", "## a_b_c",
                  "## Tom & Jerry", "## Issue #", "<div>html</div>", "## Title {: #id key='single' }",
                  '## Title {: hidden="hidden" }', "  ## Indented", "## Title\nbesluitbron-slot-s1"):
        assert convert(f"# Title\n\n{other}\n") is None, other
        _assert_same_page(config, f"# Title\n\n{other}\n")


PLAIN = st.text(st.sampled_from("abcXYZéëüß019 -–.,?!/()'\":;%+=|~^$@"), min_size=1, max_size=30)
ANY = st.text(st.sampled_from("ab Z1 -_*`[]()<>{}&#!:\\\t'\"é\u00a0\u2028"), min_size=1, max_size=20)
ATTRS = st.sampled_from(["", " {: #tools }", ' {: #tool-a_b data-tool="a_b" }', " {: #address }",
                         ' {: data-x="1" #x-1 }', " {:#bare}", " {: .cls }"])


def _page(headings: list[tuple[int, str, str]]) -> str:
    lines = []
    for i, (level, text, attrs) in enumerate(headings):
        placeholder = f"besluitbron-slot-s{i}" if i % 2 else f"<!--besluitbron-slot-u{i}-->"
        lines += [f"{'#' * level} {text}{attrs}", "", placeholder, ""]
    return "\n".join(lines)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.integers(1, 6), PLAIN, ATTRS), min_size=1, max_size=6))
@example([(1, "0  0", "")])  # the toc and the title collapse runs of white space; the heading keeps them
@example([(2, "a b", ""), (1, "Titel", " {: #x }")])
def test_plain_headings_convert_as_python_markdown_converts_them(config: MkDocsConfig,
                                                                 headings: list[tuple[int, str, str]]) -> None:
    markdown_text = _page(headings)
    if all(text == text.strip() and " {:" not in text and attrs != " {: .cls }" for _, text, attrs in headings):
        assert convert(markdown_text) is not None
    _assert_same_page(config, markdown_text)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.integers(1, 6), ANY, ATTRS), min_size=1, max_size=4))
@example([(2, "a\u00a0b", ""), (1, "Titel", " {: #x }")])  # other white space: Python-Markdown's way
@example([(1, "<![", "")])  # Python-Markdown fails on this; so does the page with the conversion in place
def test_any_heading_either_converts_as_python_markdown_does_or_goes_through_it(
        config: MkDocsConfig, headings: list[tuple[int, str, str]]) -> None:
    _assert_same_page(config, _page(headings))
