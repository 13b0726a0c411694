"""The client tabs are rendered once per language and filled per page (site_hooks.site_stencil): the filled HTML is
what the template renders for the page's own strings, and the Markdown twin made from the shared HTML is the one
made from the page's HTML, for the shipped registry and for titles with every character that could tell them apart."""

from __future__ import annotations

import copy
import dataclasses
import functools
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from proxy.catalog.build import build_catalog
from proxy.catalog.generation import Generation
from proxy.registry.model import LANGUAGES, parse_registry
from site_hooks import site_markdown
from site_hooks.site_data import SiteData
from site_hooks.site_render import _CLIENT_STRINGS, Renderer
from site_hooks.site_stencil import Hole, Stencil, token
from tests.site_helpers import ROOT

BASE = json.loads((ROOT / "registry.json").read_text(encoding="utf-8"))
# Characters each escape treats its own way, Markdown's markup, and words markdownify would write otherwise.
ODD_TITLE = """Raad & "Staten" <Zuid> 'x' *y* _z_ `c` [a](b) #1 \\ é"""


@functools.cache
def _data(title: str | None = None) -> SiteData:
    raw: dict[str, Any] = copy.deepcopy(BASE)
    if title is not None:
        for connector in raw["connectors"]:
            connector["title"] = {lang: f"{title} {lang}" for lang in LANGUAGES}
        for platform in raw["platforms"].values():
            platform["title"] = {lang: f"{title} bron" for lang in LANGUAGES}
    return SiteData(generation=Generation(build_catalog(parse_registry(raw))), status=None)


def _page(renderer: Renderer, slug: str) -> tuple[str, dict[str, str], dict[str, Stencil]]:
    markdown = renderer.connector_page(slug)
    return markdown, renderer.take_slots(), renderer.take_stencils()


def _twin(markdown: str, slots: dict[str, str], stencils: dict[str, Stencil] | None) -> str:
    return site_markdown.page_markdown(markdown, slots, title="t", url="u", html_url="h", stencils=stencils)


def _direct(renderer: Renderer, stencil: Stencil) -> str:
    """clients.html.j2 rendered for the page's own strings, as before stencils."""
    return renderer.client_tabs_html({name: stencil.holes[token(i)].text for i, name in enumerate(_CLIENT_STRINGS)})


@pytest.mark.parametrize("title", [None, ODD_TITLE, "two  spaces", " edges "],
                         ids=["shipped", "odd", "spaces", "edges"])
def test_every_connection_page_fills_its_client_tabs_as_the_template_renders_them(title: str | None) -> None:
    data = _data(title)
    for lang in LANGUAGES:
        renderer = Renderer(data, lang)
        for c in data.connectors:
            markdown, slots, stencils = _page(renderer, c.slug)
            [(key, stencil)] = stencils.items()
            assert slots[key] == stencil.filled() == _direct(renderer, stencil), (c.slug, lang)
            assert _twin(markdown, slots, stencils) == _twin(markdown, slots, None), (c.slug, lang)
            # The shipped registry's strings all take the shared way; a title markdownify would rewrite does not.
            assert stencil.fills_markdown() is (title in (None, ODD_TITLE)), (c.slug, lang, title)


def test_the_shared_html_is_converted_once_per_language(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[str] = []
    convert = site_markdown._markdown.__wrapped__

    def counted(html: str) -> str:
        seen.append(html)
        return convert(html)

    monkeypatch.setattr(site_markdown, "_markdown", functools.lru_cache(maxsize=None)(counted))
    data = _data()
    renderer = Renderer(data, "nl")
    for c in data.connectors:
        _twin(*_page(renderer, c.slug))
    tabs = [html for html in seen if 'class="bb-clients"' in html]
    assert len(data.connectors) > 1 and len(tabs) == 1 and token(0) in tabs[0]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(title=st.text(st.characters(exclude_categories=["Cs", "Cc"]), min_size=1, max_size=20))
def test_any_title_gives_the_twin_of_the_page(title: str) -> None:
    data = _data()
    renderer = Renderer(data, "en")
    slug = next(c.slug for c in data.connectors if not c.connector.aggregate)
    markdown, slots, stencils = _page(renderer, slug)
    [(key, stencil)] = stencils.items()
    holes = dict(stencil.holes)
    holes[token(list(_CLIENT_STRINGS).index("title"))] = Hole(title)
    odd = dataclasses.replace(stencil, holes=holes)
    slots = {**slots, key: odd.filled()}
    assert odd.filled() == _direct(renderer, odd)
    assert _twin(markdown, slots, {key: odd}) == _twin(markdown, slots, None)


@pytest.mark.parametrize("html", [
    "<ol><li><p>Step</p><pre><code>{t}</code></pre></li></ol>",  # markdownify indents the lines: so does the fill
    "<blockquote><pre><code>{t}</code></pre></blockquote>",  # it marks them with `>`: the page's HTML is converted
    "<p>Ask <em>{t}</em> now</p>",  # several lines of text would be joined: the page's HTML is converted
], ids=["list", "quote", "text"])
@pytest.mark.parametrize("text", ['{\n  "a": "b & <c>",\n\n  "d": 1\n}', "one line"], ids=["lines", "line"])
def test_a_stencil_twin_equals_the_twin_of_its_filled_html(html: str, text: str) -> None:
    stencil = Stencil(html.format(t=token(0)), {token(0): Hole(text, code="<code>" in html)})
    markdown = "# T\n\n<!--besluitbron-slot-u0-->\n"
    slots = {"u0": stencil.filled()}
    assert _twin(markdown, slots, {"u0": stencil}) == _twin(markdown, slots, None)
