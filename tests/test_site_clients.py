"""The client tabs of connection pages (site_clients, site_client_words, clients.html.j2), rendered the way a build
renders them: every client on its own tab with its requirement and source, a phone line, a check and three
failures with their fix; the tab set is the one pymdownx.tabbed makes, so Material's styles and scripts apply."""

from __future__ import annotations

import json
import re
import textwrap
from collections.abc import Iterator

import markdown
import pytest
from bs4 import BeautifulSoup, Tag

from proxy.catalog.build import build_catalog
from proxy.catalog.generation import Generation
from proxy.registry.model import LANGUAGES, load_registry
from site_hooks.site_client_words import CHECKED, CLIENT_WORDS
from site_hooks.site_clients import client_snippets, client_tabs
from site_hooks.site_data import SiteData
from site_hooks.site_labels import LABELS
from site_hooks.site_render import Renderer
from tests.site_helpers import ROOT, attr

# Every client the site explains, each on its own tab (issue 24).
CLIENTS = {
    "claude": "Claude", "chatgpt": "ChatGPT", "copilot": "Microsoft 365 Copilot / Copilot Studio",
    "claude_desktop": "Claude Desktop", "claude_code": "Claude Code", "vscode": "VS Code", "cursor": "Cursor",
    "inspector": "MCP Inspector",
}
CLOUD = {"claude", "chatgpt", "copilot"}


@pytest.fixture(scope="module")
def data() -> SiteData:
    return SiteData(generation=Generation(build_catalog(load_registry(ROOT / "registry.json"))), status=None)


def _slugs(data: SiteData) -> list[str]:
    """One source connector and the aggregate."""
    source = next(c.slug for c in data.connectors if not c.connector.aggregate)
    aggregate = next(c.slug for c in data.connectors if c.connector.aggregate)
    return [source, aggregate]


def _clients_html(data: SiteData, slug: str, lang: str) -> BeautifulSoup:
    """The rendered client instructions of a connection page: the one slot that holds the tab set."""
    renderer = Renderer(data, lang)
    renderer.connector_page(slug)
    slots = [html for html in renderer.take_slots().values() if 'class="bb-clients"' in html]
    assert len(slots) == 1, slug
    return BeautifulSoup(slots[0], "html.parser")


def _blocks(soup: BeautifulSoup) -> Iterator[tuple[str, str, Tag]]:
    labels = soup.select(".bb-clients .tabbed-labels > label")
    blocks = soup.select(".bb-clients .tabbed-content > .tabbed-block")
    assert len(labels) == len(blocks)
    for label, block in zip(labels, blocks, strict=True):
        yield str(block["data-client"]), label.get_text(strip=True), block


def test_every_client_has_its_own_tab(data: SiteData) -> None:
    for slug in _slugs(data):
        for lang in LANGUAGES:
            soup = _clients_html(data, slug, lang)
            tabs = list(_blocks(soup))
            assert [key for key, _, _ in tabs] == list(CLIENTS), (slug, lang)
            for key, name, _ in tabs:
                assert name.startswith(CLIENTS[key]), (key, name)
            assert len({name for _, name, _ in tabs}) == len(CLIENTS)
            inputs = soup.select(".tabbed-set > input[type=radio]")
            assert [i["id"] for i in inputs] == [lab["for"] for lab in soup.select(".tabbed-labels > label")]


def test_each_tab_names_its_requirement_with_a_source_a_phone_line_a_check_and_three_fixes(data: SiteData) -> None:
    for slug in _slugs(data):
        connector = data.catalog.connectors[slug]
        for lang in LANGUAGES:
            checked = f"{'gecontroleerd' if lang == 'nl' else 'checked'} {CHECKED[lang]}"
            for key, _, block in _blocks(_clients_html(data, slug, lang)):
                where = (slug, lang, key)
                needs = block.select_one("p[data-needs]")
                assert needs is not None, where
                sources = [attr(a, "href") for a in needs.select("a[href]")]
                assert sources and all(re.fullmatch(r"https://[a-z0-9.-]+\.[a-z]+/\S+", h) for h in sources), where
                assert checked in needs.get_text(" "), where
                # The requirement itself is words, not only the link.
                assert len(needs.get_text(" ", strip=True)) > 60, where
                phone = block.select_one("p[data-phone]")
                assert phone is not None and phone.select_one('a[href="#phone"]') is not None, where
                assert len(phone.get_text(" ", strip=True)) > 20, where
                checks = block.select("p[data-check]")
                assert checks, where
                if key != "inspector":  # the Inspector is no assistant: its check is a click, not a question
                    assert connector.connector.title[lang] in checks[0].get_text(" "), where
                    assert checks[0].select_one("em") is not None, where  # the question itself
                troubles = block.select("details.bb-client-trouble li[data-trouble]")
                assert len(troubles) == 3, where
                for trouble in troubles:
                    symptom = trouble.select_one("strong")
                    assert symptom is not None and symptom.get_text(strip=True), where
                    fix = trouble.get_text(" ", strip=True).removeprefix(symptom.get_text(" ", strip=True))
                    assert len(fix.strip()) > 20, where
                steps = block.select("ol.bb-client-steps > li")
                assert steps, where
                if key in CLOUD:
                    # Cloud clients reach only a public https address: the first failure says so.
                    assert "https" in troubles[0].get_text(), where
                    # ... and they are the ones a phone can use at all (ChatGPT: only on the web).
                    assert "#phone" in str(phone)


def test_the_phone_overview_sits_above_the_tabs_and_names_where_to_add_first(data: SiteData) -> None:
    for slug in _slugs(data):
        for lang in LANGUAGES:
            soup = _clients_html(data, slug, lang)
            phone = soup.select_one("#phone")
            assert phone is not None
            assert phone.find_next(class_="bb-clients") is not None  # before the tab set
            text = phone.get_text(" ")
            for client in ("Claude", "Microsoft 365 Copilot", "Teams", "ChatGPT", "claude.ai"):
                assert client in text, (lang, client)
            assert len(phone.select("li")) == 4


def test_which_tools_each_client_uses_and_the_snippets(data: SiteData) -> None:
    for slug in _slugs(data):
        connector = data.catalog.connectors[slug]
        url = data.url(slug)
        count = str(len(connector.tools))
        for lang in LANGUAGES:
            blocks = {key: block for key, _, block in _blocks(_clients_html(data, slug, lang))}
            research = blocks["chatgpt"].get_text(" ")
            assert "search" in research and "fetch" in research and count in research
            for key in ("claude", "copilot", "claude_desktop", "claude_code", "vscode", "cursor"):
                assert f" {count} tools" in blocks[key].get_text(" "), (key, lang)
            code = {key: [c.get_text() for c in block.select("pre code")] for key, block in blocks.items()}
            assert f"claude mcp add --transport http {slug} {url}" in code["claude_code"]
            desktop = json.loads(code["claude_desktop"][0])["mcpServers"][slug]
            assert desktop["command"] == "npx" and desktop["args"][:3] == ["-y", "mcp-remote", url]
            assert json.loads(code["vscode"][0]) == {"servers": {slug: {"type": "http", "url": url}}}
            assert json.loads(code["cursor"][0]) == {"mcpServers": {slug: {"url": url}}}
            for key in CLOUD:
                assert url in code[key], key  # the address to paste
            links = [attr(a, "href") for a in blocks["vscode"].select("a[href]")] + [
                attr(a, "href") for a in blocks["cursor"].select("a[href]")]
            assert any(h.startswith("vscode:mcp/install?") for h in links)
            assert any(h.startswith("cursor://anysphere.cursor-deeplink/mcp/install?") for h in links)


def test_the_tab_set_is_what_pymdownx_tabbed_makes(data: SiteData) -> None:
    """clients.html.j2 writes the tab set as HTML; its skeleton (inputs, labels, blocks) must equal pymdownx'
    rendering of tabs with the same names, so Material's tab styles and scripts work on it."""
    slug = _slugs(data)[0]
    for lang in LANGUAGES:
        soup = _clients_html(data, slug, lang)
        tab_set = soup.select_one(".bb-clients > .tabbed-set")
        assert tab_set is not None
        names = [label.decode_contents() for label in tab_set.select(".tabbed-labels > label")]
        source = "\n".join(f'=== "{i}"\n\n' + textwrap.indent("x", "    ") + "\n" for i in range(len(names)))
        expected = BeautifulSoup(markdown.markdown(source, extensions=["pymdownx.superfences", "pymdownx.tabbed"],
                                                   extension_configs={"pymdownx.tabbed": {"alternate_style": True}}),
                                 "html.parser").select_one(".tabbed-set")
        assert expected is not None
        for tree, labels in ((expected, [str(i) for i in range(len(names))]), (tab_set, names)):
            for label, text in zip(tree.select(".tabbed-labels > label"), labels, strict=True):
                assert label.decode_contents() == text
                label.clear()
            for block in tree.select(".tabbed-content > .tabbed-block"):
                block.clear()
                block.attrs = {k: v for k, v in block.attrs.items() if k == "class"}
        assert _squash(str(tab_set)) == _squash(str(expected)), lang


def test_client_words_have_one_home_and_every_tab_word_exists() -> None:
    assert all(key.startswith(("client_", "phone_")) for key in CLIENT_WORDS)
    assert all(LABELS[key] is CLIENT_WORDS[key] for key in CLIENT_WORDS)
    address = "https://besluitbron.example/wetten/mcp"
    for tab in client_tabs(client_snippets("wetten", address), address, "8"):
        keys = [tab.name, tab.needs, *(k for k, _ in tab.sources), *(k for k, _ in tab.checks),
                *(k for pair in tab.troubles for k in pair),
                *(b[1] for step in tab.steps for b in step if b[0] == "p")]
        keys += [f"client_{tab.key}_phone"] if tab.phone else []
        keys += [tab.tools[1]] if tab.tools else []
        assert [k for k in keys if k not in CLIENT_WORDS] == [], tab.key
        assert all(url.startswith("https://") for _, url in tab.sources)
        # A vendor page ending in /<word>/mcp would count as an MCP address in the site's address checks.
        assert not [url for _, url in tab.sources if re.search(r"/[a-z0-9]+/mcp$", url)], tab.key


def _squash(text: str) -> str:
    return re.sub(r">\s+<", "><", text.strip())
