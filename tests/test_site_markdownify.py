"""site_hooks.site_markdownify: block-by-block conversion gives exactly markdownify's own Markdown."""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from proxy.catalog.build import build_catalog
from proxy.catalog.generation import Generation
from proxy.registry.model import LANGUAGES, load_registry
from site_hooks import site_markdown, site_markdownify
from site_hooks.site_data import SiteData
from site_hooks.site_render import MARKERS, SLOT_RE, Renderer

REGISTRY = Path(__file__).resolve().parent.parent / "registry.json"
CONVERTER = site_markdown._CONVERTER  # the twins' own settings


def _whole(html: str) -> str:
    return str(CONVERTER.convert(html))


@pytest.fixture(scope="module")
def slots() -> list[str]:
    """Every slot of the shipped registry's generated pages and markers, both languages, as the twins convert them."""
    data = SiteData(generation=Generation(build_catalog(load_registry(REGISTRY))), status=None)
    found: list[str] = []
    for lang in LANGUAGES:
        renderer = Renderer(data, lang)
        for c in data.connectors:
            found += _slots_of(renderer, functools.partial(Renderer.connector_page, slug=c.slug))
        for key in data.registry.platforms:
            found += _slots_of(renderer, functools.partial(Renderer.platform_page, key=key))
        for kind in MARKERS:
            found += _slots_of(renderer, functools.partial(Renderer.marker, kind=kind, here="keuzehulp.md"))
    return [site_markdown._prepared(html) for html in found]


def _slots_of(renderer: Renderer, render: Callable[[Renderer], str]) -> list[str]:
    """One render's slots, each with the unindexed slots inside it put in (as site_markdown converts them)."""
    render(renderer)
    slots = renderer.take_slots()
    return [SLOT_RE["u"].sub(lambda m: slots[m.group(2)], html) for html in slots.values()]


def test_every_slot_converts_as_markdownify_converts_it_whole(slots: list[str]) -> None:
    assert len(slots) > 100
    assert [html for html in slots if site_markdownify.convert(CONVERTER, html) != _whole(html)] == []


def test_the_client_tabs_are_split_into_blocks(slots: list[str]) -> None:
    # What makes big builds fast: a connection page's tabs are not converted whole (see the module's docstring).
    tabs = [html for html in slots if 'class="tabbed-block"' in html]
    assert tabs
    site_markdownify._leaf.cache_clear()
    for html in tabs:
        site_markdownify.convert(CONVERTER, html)
    assert site_markdownify._leaf.cache_info().hits > 0


@pytest.mark.parametrize("html", [
    "<p>a</p>\n<ul>\n<li>x</li>\n</ul>\n<details><summary>s</summary>\n<p>b</p></details>",  # list before a non-block
    "<ol><li>x</li></ol>\n<ol><li>y</li></ol>",
    "<span>a</span> <span>b</span>",  # whitespace markdownify keeps
    "<p>a</p>text<p>b</p>",  # text between blocks
    "<p>a</p><!-- c --><p>b</p>",
    "<div><p>a</p></span></div>",  # an end tag BeautifulSoup would handle its own way
    "<div>\n <p>a</p>\n <div> <input type=radio><input/> <p>b &amp; c</p> </div>\n</div>\n",
    "<p>1 < 2</p><p>x</p>",
    "<pre>\n  x\n</pre>\n<p>y</p>",
    "<script>a<b</script><p>x</p>",
    "<div></div><div/><p></p>",
    "<table><tr><td>x</td></tr></table><h4>t</h4><blockquote><p>q</p></blockquote>",
])
def test_edge_cases_convert_as_whole(html: str) -> None:
    assert site_markdownify.convert(CONVERTER, html) == _whole(html)


_WS = st.sampled_from(["", "", "\n", " ", "\n\n", "  \n "])
_TEXT = st.sampled_from(["a", "b c", " lead", "trail ", "1. x", "# h", "&amp;", "x_y", "*z*", "<", "t\tx"])
_LEAF = st.one_of(_TEXT, st.just("<input type='radio' />"), st.just("<br>"), st.just("<!-- c -->"))


def _wrap(children: st.SearchStrategy[str], tag: str) -> st.SearchStrategy[str]:
    return st.tuples(_WS, children, _WS).map(lambda t: f"<{tag}>{t[0]}{t[1]}{t[2]}</{tag}>")


def _extend(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    seq = st.lists(st.tuples(inner, _WS).map("".join), max_size=4).map("".join)
    items = st.lists(_wrap(seq, "li"), min_size=1, max_size=3).map("".join)
    tags = ["div", "p", "span", "strong", "details", "summary", "h4", "pre", "code", "blockquote", "a"]
    return st.one_of(*[_wrap(seq, tag) for tag in tags], _wrap(items, "ul"), _wrap(items, "ol"),
                     st.just("<table><tr><td>x</td></tr></table>"))


_FRAGMENT = st.lists(st.tuples(st.recursive(_LEAF, _extend, max_leaves=12), _WS).map("".join), max_size=5).map("".join)


@settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
@given(_FRAGMENT)
def test_any_fragment_converts_as_whole(html: str) -> None:
    assert site_markdownify.convert(CONVERTER, html) == _whole(html)


def test_a_changed_slot_is_never_served_from_the_cache() -> None:
    # The caches are keyed by the HTML itself: a page rebuilt from a changed registry gets its new words.
    first = site_markdown.page_markdown("x\n\nbesluitbron-slot-s0\n", {"s0": "<p>old words</p>"},
                                        title="T", url="u", html_url="h")
    second = site_markdown.page_markdown("x\n\nbesluitbron-slot-s0\n", {"s0": "<p>new words</p>"},
                                         title="T", url="u", html_url="h")
    assert "old words" in first and "new words" in second and "old words" not in second

