"""The documentation site, built for real (`mkdocs build --strict` in a subprocess) and read back.

Three builds of the shipped registry's variants cover it: the shipped registry twice (strictness,
determinism, every surface), and one variant with connectors disabled, footer switches flipped and
a load-status snapshot (off = absent, hidden ≠ off, the snapshot on the pages).
"""

from __future__ import annotations

import hashlib
import json
import posixpath
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urldefrag, urljoin, urlsplit
from xml.etree import ElementTree

import pytest
from bs4 import BeautifulSoup, Tag
from llms_txt import parse_llms_file

from proxy.catalog.build import Catalog, build_catalog
from proxy.maintain.registry_edit import Switch, set_switch
from proxy.registry.model import load_registry, parse_registry
from proxy.state.store import CALL_LOG_TTL_SECONDS, CALLS_PER_CALLER
from proxy.web.securitytxt import SECURITY_TXT_PATH
from proxy.web.transport import TransportSettings
from site_hooks.parallel_languages import SERIAL_ENV
from site_hooks.site_data import CONNECTOR_DIR, PLATFORM_DIR
from site_hooks.site_labels import label
from site_hooks.site_lastmod import file_date
from site_hooks.site_render import SLOT_TOKEN
from tests.site_helpers import (
    ROOT,
    attr,
    build_site,
    collect_site_addresses,
    run_mkdocs_build,
    site_files,
    tag,
)

pytestmark = pytest.mark.site

REGISTRY = ROOT / "registry.json"
LANGS = ("nl", "en")
# The Material partial overrides/partials/footer.html was copied from (mkdocs-material 9.8.2).
FOOTER_UPSTREAM_SHA256 = "50c2a75f013b7b03fb97f381860c77df8fd5d13d68f90d3281754b68f69ec894"
# Theme files copied verbatim from Material; they say nothing about the registry.
THEME_ASSETS = ("assets/javascripts/", "assets/stylesheets/")
SITEMAP_NS = "{http://www.sitemaps.org/schemas/sitemap/0.9}"
XHTML_NS = "{http://www.w3.org/1999/xhtml}"
# The client tabs of a connection page, in order (site_clients.client_tabs).
CLIENT_KEYS = ("claude", "chatgpt", "copilot", "claude_desktop", "claude_code", "vscode", "cursor", "inspector")


# --------------------------------------------------------------------------- builds


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return build_catalog(load_registry(REGISTRY))


@pytest.fixture(scope="module")
def shipped(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site") / "a"
    proc = run_mkdocs_build(REGISTRY, out)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    # --strict aborts on warnings; also make sure nothing below warning level says something is off.
    log = proc.stdout + proc.stderr
    assert not re.search(r"^(WARNING|ERROR)", log, re.MULTILINE), log
    assert "Unhandled file case" not in log and "not included in the \"nav\"" not in log, log
    return out


@pytest.fixture(scope="module")
def variant(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Registry variant: a slug-unique source, a source whose slug is also platform text, and the
    aggregate disabled; the disabled source's footer switch on; another source put in the footer."""
    text = REGISTRY.read_text(encoding="utf-8")
    registry = load_registry(REGISTRY)
    sources = [c for c in registry.connectors if c.enabled and not c.aggregate]
    aggregate = next(c for c in registry.connectors if c.aggregate)
    unique = next(c for c in sources if _slug_is_unique(c.slug))
    shared = next(c for c in sources if c is not unique and not _slug_is_unique(c.slug))
    promoted = next(c for c in sources if c not in (unique, shared))
    flips: tuple[tuple[str, Switch, bool], ...] = (
        (unique.slug, "enabled", False), (unique.slug, "in_footer", True), (shared.slug, "enabled", False),
        (aggregate.slug, "enabled", False), (promoted.slug, "in_footer", True))
    for slug, field, value in flips:
        text = set_switch(text, slug, field, value)
    tmp = tmp_path_factory.mktemp("variant")
    registry_path = tmp / "registry.json"
    registry_path.write_text(text, encoding="utf-8")
    status = {
        "server": "BesluitBron", "stalled_after_days": 60, "interval_minutes": 30,
        "sources": [
            {"source": unique.platform, "title": "x", "receiving": True, "current_through": "2026-11-27",
             "current_through_per_medium": {}, "measured_at": "2026-11-30T10:00:00+00:00", "reason": None,
             "organs_total": 12, "organs_stalled": 3, "organs": []},
            {"source": promoted.platform, "title": "y", "receiving": False, "current_through": "2026-05-04",
             "current_through_per_medium": {}, "measured_at": "2026-11-30T10:00:00+00:00",
             "reason": "measurement failed: timeout", "organs_total": None, "organs_stalled": None, "organs": []},
        ],
    }
    status_path = tmp / "status.json"
    status_path.write_text(json.dumps(status), encoding="utf-8")
    site = build_site(registry_path, tmp / "site", status_path=status_path)
    return {
        "site": site, "unique": unique, "shared": shared, "aggregate": aggregate, "promoted": promoted,
        "catalog": build_catalog(parse_registry(json.loads(text))), "status": status,
    }


def _search_docs(site: Path) -> list[dict[str, Any]]:
    """Both languages' search entries, each at its location under the site root (each language has its own index,
    its locations relative to its own folder: site_hooks/search_languages.py)."""
    docs: list[dict[str, Any]] = []
    for prefix in ("", "en/"):
        index = json.loads((site / prefix / "search/search_index.json").read_text(encoding="utf-8"))
        docs += [{**doc, "location": prefix + doc["location"]} for doc in index["docs"]]
    return docs


def test_each_language_has_its_own_search_index_with_its_own_stemmer(shipped: Path) -> None:
    """One index held both languages: Dutch searches returned English pages and the reverse."""
    for prefix, lang, other in (("", "nl", "en/"), ("en/", "en", None)):
        index = json.loads((shipped / prefix / "search/search_index.json").read_text(encoding="utf-8"))
        assert index["config"]["lang"] == [lang]
        assert index["docs"] and all((shipped / prefix / d["location"].split("#")[0]).is_file() for d in index["docs"])
        if other:
            assert not [d for d in index["docs"] if d["location"].startswith(other)]
        page = (shipped / prefix / "connectoren" / "wetten.html").read_text(encoding="utf-8")
        assert '"base": ".."' in page  # Material reads the index below its base: this language's folder


def _slug_is_unique(slug: str) -> bool:
    """True when no registry text but the connector's own entry, and no hand-written page, has the slug."""
    data = json.loads(REGISTRY.read_text(encoding="utf-8"))
    data["connectors"] = [c for c in data["connectors"] if c["slug"] != slug]
    corpus = json.dumps(data, ensure_ascii=False).lower()
    corpus += "".join(p.read_text(encoding="utf-8").lower() for p in (ROOT / "docs").rglob("*.md"))
    return slug not in corpus


def _html_pages(site: Path) -> Iterator[tuple[str, BeautifulSoup]]:
    """Every HTML page of a build, parsed once per build (html.parser is the slow part of these tests)."""
    if site not in _PARSED:
        _PARSED[site] = {path.relative_to(site).as_posix(): BeautifulSoup(path.read_text(encoding="utf-8"),
                                                                           "html.parser")
                         for path in sorted(site.rglob("*.html"))}
    yield from _PARSED[site].items()


_PARSED: dict[Path, dict[str, BeautifulSoup]] = {}


def _expected_pages(catalog: Catalog) -> set[str]:
    hand = {p.relative_to(ROOT / "docs").with_suffix(".html").as_posix()
            for p in (ROOT / "docs").rglob("*.md") if not p.name.endswith(".en.md")}
    generated = {f"{CONNECTOR_DIR}/{slug}.html" for slug in catalog.connectors}
    generated |= {f"{PLATFORM_DIR}/{key}.html" for key in catalog.registry.platforms}
    return hand | generated


def _site_url(catalog: Catalog) -> str:
    return catalog.registry.server.public_url.rstrip("/") + "/"


# --------------------------------------------------------------------------- shipped registry


def _shown_addresses(node: Tag) -> set[str]:
    """The addresses a page shows with the address component: whole text and the copy button's text agree."""
    found = set()
    for box in node.select(".bb-address"):
        shown = tag(box.select_one("code")).get_text("")
        button = box.select_one("button[data-clipboard-text]")
        assert button is not None and button["data-clipboard-text"] == shown == box["data-address"], shown
        found.add(shown)
    return found


def test_two_builds_are_byte_identical(shipped: Path, tmp_path: Path) -> None:
    """Also when the second builds its languages one after another in one process, as mkdocs-static-i18n does,
    where the first built English in a process of its own (site_hooks/parallel_languages.py)."""
    again = run_mkdocs_build(REGISTRY, tmp_path / "b", extra_env={"PYTHONHASHSEED": "12345", SERIAL_ENV: "1"})
    assert again.returncode == 0, again.stdout + again.stderr
    first, second = site_files(shipped), site_files(tmp_path / "b")
    assert first.keys() == second.keys()
    assert [name for name in first if first[name] != second[name]] == []


def test_pages_outside_the_nav_reuse_the_nav_material_renders_for_them(shipped: Path, tmp_path: Path) -> None:
    """site_hooks/nav_once.py renders the nav once per folder for pages outside it: without that hook and its
    template every page is the same, byte for byte."""
    project = _project_copy(tmp_path)
    (project / "overrides" / "partials" / "nav.html").unlink()
    config = project / "mkdocs.yml"
    text = config.read_text(encoding="utf-8")
    assert "  - site_hooks/nav_once.py\n" in text
    config.write_text(text.replace("  - site_hooks/nav_once.py\n", ""), encoding="utf-8")
    plain = run_mkdocs_build(REGISTRY, tmp_path / "plain", config_file=config)
    assert plain.returncode == 0, plain.stdout + plain.stderr
    # The pages (a copy outside git dates its pages otherwise, so the sitemaps' lastmod differ).
    first, second = ({name: data for name, data in site_files(site).items() if name.endswith(".html")}
                     for site in (shipped, tmp_path / "plain"))
    assert first.keys() == second.keys()
    assert [name for name in first if first[name] != second[name]] == []
    assert sum(name.startswith(("connectoren/", "en/connectoren/")) for name in first) > 2


def test_every_page_exists_in_both_languages(shipped: Path, catalog: Catalog) -> None:
    expected = _expected_pages(catalog)
    built = {p.relative_to(shipped).as_posix() for p in shipped.rglob("*.html")}
    assert {p for p in built if not p.startswith("en/")} == expected | {"404.html"}
    assert {p.removeprefix("en/") for p in built if p.startswith("en/")} == expected | {"404.html"}
    for name, soup in _html_pages(shipped):
        assert soup.html is not None and soup.html["lang"] == ("en" if name.startswith("en/") else "nl"), name


# Paths on the site's address that the server answers itself (proxy.web.app), which the site links to.
SERVER_ANSWERS = frozenset({SECURITY_TXT_PATH})


def test_internal_links_resolve(shipped: Path, catalog: Catalog) -> None:
    site_url = _site_url(catalog)
    ids: dict[str, set[str]] = {}
    pages = dict(_html_pages(shipped))
    for name, soup in pages.items():
        ids[name] = {str(element["id"]) for element in soup.find_all(id=True)}
    broken = []
    for name, soup in pages.items():
        for element_name, attribute in (("a", "href"), ("link", "href"), ("script", "src"), ("img", "src")):
            for element in soup.find_all(element_name, attrs={attribute: True}):
                target = _resolve(name, str(element[attribute]), site_url)
                if target is None:
                    continue
                path, fragment = target
                if "/" + path in SERVER_ANSWERS:  # the server answers it, not a file of the site
                    continue
                if not (shipped / path).is_file():
                    broken.append(f"{name}: {element[attribute]} → {path} (missing)")
                elif fragment and path.endswith(".html") and fragment not in ids.get(path, set()):
                    broken.append(f"{name}: {element[attribute]} → #{fragment} (no such id)")
    assert broken == []


def _resolve(page: str, href: str, site_url: str) -> tuple[str, str] | None:
    """Site-relative path and fragment of a link on `page`, or None for a link off the site."""
    url, fragment = urldefrag(href)
    if url.startswith(site_url):
        url = "/" + url[len(site_url):]
    parts = urlsplit(url)
    if parts.scheme or parts.netloc:
        return None
    if not parts.path:
        return page, fragment
    if parts.path.startswith("/"):
        path = parts.path.lstrip("/")
    else:
        path = posixpath.normpath(posixpath.join(posixpath.dirname(page), parts.path))
    if path in ("", ".") or parts.path.endswith("/"):
        path = posixpath.join(path if path not in ("", ".") else "", "index.html")
    return path, fragment


def test_llms_txt_parses_and_lists_every_address(shipped: Path, catalog: Catalog) -> None:
    site_url = _site_url(catalog)
    for lang, name in (("nl", "llms.txt"), ("en", "en/llms.txt")):
        parsed = parse_llms_file((shipped / name).read_text(encoding="utf-8"))
        assert parsed.title == catalog.registry.server.title[lang]
        assert parsed.summary == catalog.registry.server.tagline[lang]
        connectors = parsed.sections[label("llms_connectors", lang)]
        assert [link["url"] for link in connectors] == [catalog.url(slug) for slug in catalog.connectors]
        assert [link["title"] for link in connectors] == [c.connector.title[lang] for c in catalog.connectors.values()]
        docs = parsed.sections[label("llms_docs", lang)]
        assert len(docs) == len(list((ROOT / "docs").glob("*.en.md")))
        for section in parsed.sections.values():
            for link in section:
                if link["url"].startswith(site_url) and not link["url"].endswith("/mcp"):
                    assert (shipped / link["url"][len(site_url):]).is_file(), link


def test_sitemap_lists_every_page_with_alternates(shipped: Path, catalog: Catalog) -> None:
    site_url = _site_url(catalog)
    tree = ElementTree.fromstring((shipped / "sitemap.xml").read_bytes())
    urls = {u.findtext(f"{SITEMAP_NS}loc"): u for u in tree.iter(f"{SITEMAP_NS}url")}
    pages = {p.relative_to(shipped).as_posix() for p in shipped.rglob("*.html")} - {"404.html", "en/404.html"}
    assert set(urls) == {site_url + p for p in pages}
    for loc, url in urls.items():
        assert loc is not None
        alternates = {link.get("hreflang"): link.get("href") for link in url.iter(f"{XHTML_NS}link")
                      if link.get("rel") == "alternate"}
        path = loc[len(site_url):].removeprefix("en/")
        assert alternates == {"nl": site_url + path, "en": site_url + "en/" + path}, loc
    # Material's language switcher looks for the sitemap next to each language's home page.
    assert (shipped / "en" / "sitemap.xml").read_bytes() == (shipped / "sitemap.xml").read_bytes()


def test_footer_names_only_in_footer_connectors(shipped: Path, catalog: Catalog) -> None:
    promoted = [c.slug for c in catalog.connectors.values() if c.connector.in_footer]
    assert promoted, "the shipped registry promotes at least one connector"
    for name, soup in _html_pages(shipped):
        footer = soup.find("footer")
        assert footer is not None, name
        shown = [p["data-connector"] for p in footer.select("[data-besluitbron-footer] [data-connector]")]
        assert shown == promoted, name
        assert _addresses(str(footer)) == {catalog.connectors[s].path for s in promoted}, name
        # An aggregate in the footer says what Home says of it (issue 43): one source's address chooses better.
        notes = footer.select("[data-footer-aggregate-note]")
        assert len(notes) == sum(catalog.connectors[s].connector.aggregate for s in promoted), name
        for note in notes:
            link = note.find("a")
            assert link is not None and str(link["href"]).endswith("connectoren.html"), name


def test_search_has_what_each_connection_page_says_of_its_own_and_what_every_page_repeats_once(
        shipped: Path, catalog: Catalog) -> None:
    docs = _search_docs(shipped)
    locations = {doc["location"] for doc in docs}
    meta = [t.name for t in next(iter(catalog.connectors.values())).tools if t.impl is None]
    assert meta
    for c in catalog.connectors.values():
        for prefix in ("", "en/"):
            page = f"{prefix}{CONNECTOR_DIR}/{c.slug}.html"
            assert {page, f"{page}#address"} <= locations, page
            if not c.connector.aggregate:
                assert {f"{page}#tool-{t.name}" for t in c.tools if t.impl is not None} <= locations, page
            shared = {f"{page}#connect", f"{page}#tools", f"{page}#meta-tools", *(f"{page}#tool-{n}" for n in meta)}
            assert not shared & locations, page
            assert "data-search-exclude" not in (shipped / page).read_text(encoding="utf-8"), page
    for prefix in ("", "en/"):
        # The meta tools' one hit: the connector list says what every connector has.
        hits = [d for d in docs if d["location"].startswith(f"{prefix}connectoren.html#") and
                all(f"<code>{name}</code>" in d["text"] for name in meta)]
        assert len(hits) == 1, prefix
        assert not [d for d in docs if d["location"].startswith(f"{prefix}{CONNECTOR_DIR}/") and
                    f"<code>{meta[-1]}</code>" in d["text"]]


def test_hidden_connectors_are_listed_everywhere_but_the_footer(shipped: Path, catalog: Catalog) -> None:
    hidden = [c for c in catalog.connectors.values() if not c.connector.in_footer]
    assert hidden
    search = json.dumps(_search_docs(shipped), ensure_ascii=False, separators=(",", ":"))
    sitemap = (shipped / "sitemap.xml").read_text(encoding="utf-8")
    for c in hidden:
        for prefix in ("", "en/"):
            assert (shipped / f"{prefix}{CONNECTOR_DIR}/{c.slug}.html").is_file()
            assert c.path in _addresses((shipped / f"{prefix}keuzehulp.html").read_text(encoding="utf-8"))
            assert c.path in _addresses((shipped / f"{prefix}connectoren.html").read_text(encoding="utf-8"))
            explorer = BeautifulSoup((shipped / f"{prefix}explorer.html").read_text(encoding="utf-8"), "html.parser")
            assert explorer.find(None, {"id": f"explorer-{c.slug}", "data-connector": c.slug}) is not None
            assert catalog.url(c.slug) in (shipped / f"{prefix}llms.txt").read_text(encoding="utf-8")
            assert f"{_site_url(catalog)}{prefix}{CONNECTOR_DIR}/{c.slug}.html" in sitemap
            assert f'"location":"{prefix}{CONNECTOR_DIR}/{c.slug}.html"' in search


def test_connection_pages_show_address_tools_and_client_snippets(shipped: Path, catalog: Catalog) -> None:
    for c in catalog.connectors.values():
        for lang, prefix in (("nl", ""), ("en", "en/")):
            soup = BeautifulSoup((shipped / f"{prefix}{CONNECTOR_DIR}/{c.slug}.html").read_text(encoding="utf-8"),
                                 "html.parser")
            article = tag(soup.find("article"))
            text = article.get_text(" ")
            assert _heading(soup.find("h1")) == c.connector.title[lang]
            assert catalog.url(c.slug) in _shown_addresses(article)
            for tool in c.tools:
                heading = article.find(id=f"tool-{tool.name}")
                assert heading is not None and heading["data-tool"] == tool.name, (c.slug, tool.name)
                assert tool.title[lang] in heading.get_text()
                for param in tool.input_schema.get("properties", {}):
                    assert f"{param}" in text, (c.slug, tool.name, param)
            tabs = [label.get_text(strip=True) for label in article.select(".tabbed-labels label")]
            assert tabs == [label(f"client_{key}_tab", lang) for key in CLIENT_KEYS]
            installs = [attr(a, "href") for a in article.select(".tabbed-set a[href]")]
            schemes = [h.split(":", 1)[0] for h in installs if h.startswith(("vscode:", "cursor:"))]
            assert schemes == ["vscode", "cursor"]
            blocks = [b.get_text() for b in article.select(".tabbed-set pre.highlight code")]
            snippets = [json.loads(b) for b in blocks if b.startswith("{")]
            assert len(snippets) == 3  # Claude Desktop (configuration file), VS Code, Cursor
            assert all(catalog.url(c.slug) in json.dumps(snippet) for snippet in snippets)
            assert f"claude mcp add --transport http {c.slug} {catalog.url(c.slug)}" in blocks


def test_platform_pages_say_no_measurement_without_snapshot(shipped: Path, catalog: Catalog) -> None:
    for key, platform in catalog.registry.platforms.items():
        for lang, prefix in (("nl", ""), ("en", "en/")):
            page = BeautifulSoup((shipped / f"{prefix}{PLATFORM_DIR}/{key}.html").read_text(encoding="utf-8"),
                                 "html.parser")
            article = tag(page.find("article"))
            text = " ".join(article.get_text(" ").split())
            assert _heading(page.find("h1")) == platform.title[lang]
            assert platform.attribution.label[lang] in text
            # Without a build-time measurement the page sends the reader to the live Laadstatus.
            assert "De actuele meting van deze bron staat op Laadstatus" in text or lang == "en"
            assert "The current measurement of this source is on Load status" in text or lang == "nl"
            assert article.find("a", href=re.compile(r"laadstatus\.html$"))
            # The plug-in's About: where the platform documents its API (its limits behind Technische details).
            assert article.find("a", href=catalog.plugins[key].about.documentation), key
            served = next((c for c in catalog.connectors.values() if c.connector.platform == key), None)
            if served:
                assert catalog.url(served.slug) in _shown_addresses(article)


def test_explorer_lists_connectors_and_each_connector_has_its_tools_file(shipped: Path, catalog: Catalog) -> None:
    """The page names every connector (not every tool, so it stays small whatever the registry holds);
    explorer.json lists the connectors, and each connector's tools file holds its tools with their schemas."""
    for lang, prefix in (("nl", ""), ("en", "en/")):
        soup = BeautifulSoup((shipped / f"{prefix}explorer.html").read_text(encoding="utf-8"), "html.parser")
        root = soup.find(id="besluitbron-explorer")
        assert root is not None and root["data-catalog"] == "explorer.json"
        article = tag(soup.find("article"))
        entries = article.select("li[data-connector]")
        assert [li["data-connector"] for li in entries] == list(catalog.connectors)
        assert article.select("details[data-tool]") == []
        for li, c in zip(entries, catalog.connectors.values(), strict=True):
            assert li["id"] == f"explorer-{c.slug}" and c.connector.title[lang] in li.get_text()
            assert (shipped / prefix / attr(li.find("a"), "href")).resolve() == (
                shipped / f"{prefix}{CONNECTOR_DIR}/{c.slug}.html").resolve()
        doc = json.loads((shipped / f"{prefix}explorer.json").read_text(encoding="utf-8"))
        assert doc["language"] == lang
        assert [(c["slug"], c["address"]) for c in doc["connectors"]] == [
            (slug, catalog.url(slug)) for slug in catalog.connectors]
        for entry, c in zip(doc["connectors"], catalog.connectors.values(), strict=True):
            assert "tools" not in entry and entry["tool_count"] == len(c.tools)
            assert (shipped / entry["page"]).is_file()
            tools = json.loads((shipped / prefix / entry["tools_url"]).read_text(encoding="utf-8"))
            assert tools["slug"] == c.slug and tools["language"] == lang
            assert [t["name"] for t in tools["tools"]] == [t.name for t in c.tools]
            assert [t["title"] for t in tools["tools"]] == [t.title[lang] for t in c.tools]
            assert [t["input_schema"] for t in tools["tools"]] == [json.loads(json.dumps(t.input_schema))
                                                                   for t in c.tools]
            assert not [t for t in tools["tools"] if "output_schema" in t]  # the explorer never reads it


def test_the_public_site_has_no_sample_banner(shipped: Path) -> None:
    """Only a build for a server answering from the replicas says "sample" (tests/test_sample_notice.py)."""
    assert not [p for p in shipped.rglob("*.html") if 'class="sample-banner"' in p.read_text(encoding="utf-8")]


def test_a_local_installation_says_on_every_page_that_its_addresses_work_on_this_computer_only(
        shipped: Path) -> None:
    """The shipped registry's public_url is http://127.0.0.1:8000: every page shows an address (the footer's), so
    every page, the 404 pages and llms.txt say where it works and link to what going public takes."""
    pages = list(shipped.rglob("*.html"))
    without = [p for p in pages if 'class="local-banner"' not in p.read_text(encoding="utf-8")]
    assert pages and not without, without[:5]
    for prefix, words, guide in (("", "alleen op de computer", "publiek-maken.html"),
                                 ("en/", "only on the computer", "en/publiek-maken.html")):
        soup = BeautifulSoup((shipped / prefix / "keuzehulp.html").read_text(encoding="utf-8"), "html.parser")
        banner = soup.select_one(".local-banner")
        assert banner is not None and words in banner.get_text() and "http://127.0.0.1:8000" in banner.get_text()
        link = banner.find("a")
        assert link is not None and str(link["href"]).endswith(guide)
        assert words in (shipped / prefix / "llms.txt").read_text(encoding="utf-8")


def test_per_language_404(shipped: Path) -> None:
    for name, lang in (("404.html", "nl"), ("en/404.html", "en")):
        soup = BeautifulSoup((shipped / name).read_text(encoding="utf-8"), "html.parser")
        assert attr(soup.html, "lang") == lang
        switcher = [a["href"] for a in soup.select("a[hreflang]")]
        assert switcher == ["/index.html", "/en/index.html"], switcher


def test_collected_addresses_agree_with_the_catalog(shipped: Path, catalog: Catalog) -> None:
    surfaces = collect_site_addresses(shipped)
    everything = set(catalog.paths())
    assert set().union(*surfaces.values()) == everything
    for name in ("llms.txt", "en/llms.txt", "sitemap.xml", "explorer.json", "en/explorer.json",
                 "connectoren.html", "en/connectoren.html", "explorer.html", "en/explorer.html"):
        assert surfaces[name] == everything, name


def test_footer_override_matches_pinned_upstream() -> None:
    import material

    upstream = Path(material.__file__).parent / "templates" / "partials" / "footer.html"
    assert hashlib.sha256(upstream.read_bytes()).hexdigest() == FOOTER_UPSTREAM_SHA256, (
        "Material's footer partial changed: merge it into overrides/partials/footer.html, then update the pin")


# --------------------------------------------------------------------------- variant: off, hidden, snapshot


def test_disabled_connectors_appear_on_no_page_or_file(variant: dict[str, Any]) -> None:
    site: Path = variant["site"]
    files = {name: data.decode("utf-8", errors="replace") for name, data in site_files(site).items()
             if not name.startswith(THEME_ASSETS)}
    unique, shared, aggregate = variant["unique"].slug, variant["shared"].slug, variant["aggregate"].slug
    for slug in (unique, aggregate):  # slugs no other text contains: not even the bare word may remain
        assert [name for name, text in files.items() if slug in text] == [], slug
    patterns = (f"/{shared}/mcp", f"{CONNECTOR_DIR}/{shared}.", f'data-connector="{shared}"', f'"slug": "{shared}"',
                f"explorer-{shared}", f"choose-{shared}", f"{shared}--")
    assert [(name, p) for name, text in files.items() for p in patterns if p in text] == []
    assert set().union(*collect_site_addresses(site).values()) == set(variant["catalog"].paths())


def test_platform_of_a_disabled_connector_keeps_its_page_without_address(variant: dict[str, Any]) -> None:
    site: Path = variant["site"]
    for lang, prefix in (("nl", ""), ("en", "en/")):
        for connector in (variant["unique"], variant["shared"]):
            html = (site / f"{prefix}{PLATFORM_DIR}/{connector.platform}.html").read_text(encoding="utf-8")
            assert _addresses(html) - {c.path for c in variant["catalog"].connectors.values()
                                       if c.connector.in_footer} == set()
            assert label("not_served", lang) in html


def test_variant_footer_and_chooser(variant: dict[str, Any]) -> None:
    site: Path = variant["site"]
    promoted = variant["promoted"].slug
    for name, soup in _html_pages(site):
        shown = [p["data-connector"] for p in soup.select("[data-besluitbron-footer] [data-connector]")]
        assert shown == [promoted], name
    for lang, prefix in (("nl", ""), ("en", "en/")):
        chooser = (site / f"{prefix}keuzehulp.html").read_text(encoding="utf-8")
        assert label("chooser_no_aggregate", lang) in chooser


def test_status_snapshot_is_rendered(variant: dict[str, Any]) -> None:
    site: Path = variant["site"]
    unique, promoted = variant["unique"], variant["promoted"]
    for lang, prefix in (("nl", ""), ("en", "en/")):
        text = _text(site / f"{prefix}{PLATFORM_DIR}/{unique.platform}.html")
        assert "2026-11-27" in text and "3 / 12" in text and label("receiving_true", lang) in text
        text = _text(site / f"{prefix}{PLATFORM_DIR}/{promoted.platform}.html")
        assert "2026-05-04" in text and label("receiving_false", lang) in text and "measurement failed" in text
        overview = _text(site / f"{prefix}laadstatus.html")
        assert "2026-11-27" in overview and "2026-05-04" in overview and label("not_in_snapshot", lang) in overview


# --------------------------------------------------------------------------- failures


def _project_copy(tmp_path: Path) -> Path:
    """The site's sources (docs, overrides, hooks, mkdocs.yml, registry) copied, for a test to break one."""
    project = tmp_path / "project"
    for part in ("docs", "overrides", "site_hooks"):
        shutil.copytree(ROOT / part, project / part, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("mkdocs.yml", "registry.json"):
        shutil.copy(ROOT / name, project / name)
    return project


def test_unknown_marker_fails_the_build(tmp_path: Path) -> None:
    project = _project_copy(tmp_path)
    page = project / "docs" / "keuzehulp.md"
    page.write_text(page.read_text(encoding="utf-8") + "\n<!-- besluitbron:no-such-marker -->\n", encoding="utf-8")
    proc = run_mkdocs_build(REGISTRY, tmp_path / "site", config_file=project / "mkdocs.yml")
    assert proc.returncode != 0
    assert "unknown marker 'besluitbron:no-such-marker'" in proc.stdout + proc.stderr


@pytest.mark.parametrize(("href", "message"), [
    ("nope.md", "generated link '../nope.md' has no page 'nope.md'"),
    ("zoekprecisie.md#nope", "contains a link '../zoekprecisie.md#nope', but the doc 'zoekprecisie"),
])
def test_links_in_html_slots_are_validated_like_markdown_links(tmp_path: Path, href: str, message: str) -> None:
    project = _project_copy(tmp_path)
    template = project / "site_hooks" / "templates" / "platform.md.j2"
    text = template.read_text(encoding="utf-8")
    marker = '<p>{{ p.description[lang] | e }}</p>'
    assert marker in text
    template.write_text(text.replace(marker, marker + f'<a href="{{{{ link("{href}") }}}}">x</a>'), encoding="utf-8")
    proc = run_mkdocs_build(REGISTRY, tmp_path / "site", config_file=project / "mkdocs.yml")
    assert proc.returncode != 0
    assert message in proc.stdout + proc.stderr, proc.stdout + proc.stderr


def test_a_broken_english_page_fails_the_build_naming_its_language(tmp_path: Path) -> None:
    """English is built in a process of its own; its strict-mode warning still fails the whole build."""
    project = _project_copy(tmp_path)
    page = project / "docs" / "keuzehulp.en.md"
    page.write_text(page.read_text(encoding="utf-8") + "\n[gone](no-such-page.md)\n", encoding="utf-8")
    proc = run_mkdocs_build(REGISTRY, tmp_path / "site", config_file=project / "mkdocs.yml")
    output = proc.stdout + proc.stderr
    assert proc.returncode != 0, output
    assert "no-such-page.md" in output and "the en build failed" in output, output


def test_broken_registry_fails_the_build_naming_the_entry(tmp_path: Path) -> None:
    data = json.loads(REGISTRY.read_text(encoding="utf-8"))
    data["connectors"][0]["in_fotter"] = True
    broken = tmp_path / "registry.json"
    broken.write_text(json.dumps(data), encoding="utf-8")
    proc = run_mkdocs_build(broken, tmp_path / "site")
    output = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert "connectors[0]" in output and "in_fotter" in output
    # The English build, forked before the catalogue loads, fails on the same entry: the cause is said once.
    assert output.count("in_fotter") == 1 and "the en build failed" not in output, output


# --------------------------------------------------------------------------- helpers


def _addresses(text: str) -> set[str]:
    return {f"/{m}/mcp" for m in re.findall(r"/([a-z0-9]+)/mcp(?![A-Za-z0-9_/.-])", text)}


def _heading(found: object) -> str:
    """A heading's text without its permalink."""
    heading = tag(found)
    for link in heading.select("a.headerlink"):
        link.extract()
    return heading.get_text(strip=True)


def _text(path: Path) -> str:
    soup = BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")
    return " ".join(tag(soup.find("article")).get_text(" ").split())


def test_theme_words_follow_the_page_language(shipped: Path) -> None:
    assert 'aria-label="Dark mode"' in (shipped / "en" / "index.html").read_text(encoding="utf-8")
    assert 'aria-label="Donkere modus"' in (shipped / "index.html").read_text(encoding="utf-8")
    assert "Donkere modus" not in (shipped / "en" / "connectoren.html").read_text(encoding="utf-8")


# --------------------------------------------------------------------------- for machines and for Dutch readers


def test_head_links_are_absolute_and_every_alternate_has_its_sitemap(shipped: Path, catalog: Catalog) -> None:
    """Absolute hreflang (with x-default) and the Markdown twin in every head; Material fetches sitemap.xml next
    to every alternate link, so each of those must exist or the page makes requests that 404."""
    site_url = _site_url(catalog)
    for name, soup in _html_pages(shipped):
        links = soup.select('head link[rel="alternate"]')
        hreflang = {attr(link, "hreflang"): attr(link, "href") for link in links if link.get("hreflang")}
        assert set(hreflang) == {"nl", "en", "x-default"}, name
        assert all(href.startswith(site_url) for href in hreflang.values()), name
        assert hreflang["x-default"] == hreflang["nl"]
        for link in links:
            fetched = urljoin(attr(link, "href"), "sitemap.xml")[len(site_url):]
            assert (shipped / fetched).is_file(), (name, fetched)
        icon = soup.select_one('head link[rel="icon"]')
        assert icon is not None and attr(icon, "href").endswith("favicon.svg"), name
        if not name.endswith("404.html"):
            twin = soup.select_one('head link[rel="alternate"][type="text/markdown"]')
            assert twin is not None and twin["href"] == site_url + name.removesuffix(".html") + ".md", name
    assert (shipped / "assets/favicon.svg").read_text(encoding="utf-8").startswith("<svg")


def test_every_page_has_a_markdown_twin_linked_from_llms_txt(shipped: Path, catalog: Catalog) -> None:
    site_url = _site_url(catalog)
    for name, soup in _html_pages(shipped):
        if name.endswith("404.html"):
            continue
        twin = (shipped / name.removesuffix(".html")).with_suffix(".md").read_text(encoding="utf-8")
        assert twin.startswith(f"<!-- {site_url}{name.removesuffix('.html')}.md · HTML: {site_url}{name} -->"), name
        assert f"# {_heading(soup.find('h1'))}" in twin, name
        assert SLOT_TOKEN not in twin and "{: #" not in twin, name
    wetten = (shipped / CONNECTOR_DIR / "wetten.md").read_text(encoding="utf-8")
    assert catalog.url("wetten") in wetten and "search_regulations" in wetten
    # Markdown, not HTML in a .md file: generated tables are pipe tables, links are links, each client tab is a
    # section under its own name; what HTML is left is the hand-written pages' own (toggles, live roots).
    assert "| `search_regulations` |" in wetten
    assert "<table" not in wetten and "<a href" not in wetten and "<button" not in wetten
    assert "#### Claude\n" in wetten and "#### VS Code\n" in wetten
    twins = [p.read_text(encoding="utf-8") for p in shipped.rglob("*.md")]
    tags = sum(len(markup) for twin in twins for markup in re.findall(r"<[^>]+>", twin))
    assert tags / sum(map(len, twins)) < 0.05
    for lang, name in (("nl", "llms.txt"), ("en", "en/llms.txt")):
        parsed = parse_llms_file((shipped / name).read_text(encoding="utf-8"))
        for section in (label("llms_docs", lang), label("llms_connection_pages", lang), label("llms_platforms", lang)):
            assert all(link["url"].endswith(".md") for link in parsed.sections[section]), section


def test_robots_txt_names_the_sitemap_and_keeps_crawlers_off_the_addresses(shipped: Path, catalog: Catalog) -> None:
    robots = (shipped / "robots.txt").read_text(encoding="utf-8").splitlines()
    assert f"Sitemap: {_site_url(catalog)}sitemap.xml" in robots
    assert [line.split(" ", 1)[1] for line in robots if line.startswith("Disallow:")] == catalog.paths()


def test_sitemap_lastmod_is_each_pages_own_change(shipped: Path, catalog: Catalog) -> None:
    site_url = _site_url(catalog)
    tree = ElementTree.fromstring((shipped / "sitemap.xml").read_bytes())
    lastmod = {u.findtext(f"{SITEMAP_NS}loc"): u.findtext(f"{SITEMAP_NS}lastmod")
               for u in tree.iter(f"{SITEMAP_NS}url")}
    for c in catalog.connectors.values():
        assert lastmod[f"{site_url}{CONNECTOR_DIR}/{c.slug}.html"] == c.connector.updated
    for key, p in catalog.registry.platforms.items():
        assert lastmod[f"{site_url}{PLATFORM_DIR}/{key}.html"] == p.updated
    for page in ("keuzehulp.html", "en/keuzehulp.html"):
        source = ROOT / "docs" / ("keuzehulp.en.md" if page.startswith("en/") else "keuzehulp.md")
        assert lastmod[site_url + page] == file_date(source)
    assert "2026-01-01" not in set(lastmod.values())  # SOURCE_DATE_EPOCH is no page's change


def test_server_json_per_connector_in_the_official_registry_format(shipped: Path, catalog: Catalog) -> None:
    for prefix in ("", "en/"):
        for slug, c in catalog.connectors.items():
            doc = json.loads((shipped / prefix / CONNECTOR_DIR / f"{slug}.server.json").read_text(encoding="utf-8"))
            assert doc["$schema"].endswith("/server.schema.json")
            assert doc["name"] == f"{catalog.registry.server.namespace}/{slug}" and doc["name"].count("/") == 1
            assert doc["remotes"] == [{"type": "streamable-http", "url": catalog.url(slug)}]
            assert 0 < len(doc["description"]) <= 100 and doc["version"]
            assert doc["websiteUrl"] == f"{_site_url(catalog)}{CONNECTOR_DIR}/{slug}.html"
            assert "packages" not in doc and c.connector.title.nl == doc["title"]


def test_privacy_page_states_the_enforced_periods_and_the_contact(shipped: Path, catalog: Catalog) -> None:
    server = catalog.registry.server
    for lang, prefix in (("nl", ""), ("en", "en/")):
        soup = BeautifulSoup((shipped / f"{prefix}privacy.html").read_text(encoding="utf-8"), "html.parser")
        rows = {tr["data-kept"]: " ".join(tr.get_text(" ").split())
                for tr in soup.select("[data-privacy] tr[data-kept]")}
        assert f"{CALL_LOG_TTL_SECONDS // 3600} " in rows["calls"] and f"{CALLS_PER_CALLER} " in rows["calls"]
        idle = TransportSettings(allowed_hosts=(), allowed_origins=()).session_idle_seconds
        assert f"{int(idle // 60)} " in rows["sessions"]
        assert server.privacy.server_log[lang] in rows["server-log"]
        for page in ("privacy.html", "logging-en-verantwoording.html"):
            contact = BeautifulSoup((shipped / prefix / page).read_text(encoding="utf-8"), "html.parser")
            link = contact.select_one("[data-contact] a[href^='mailto:']")
            assert link is not None and link["href"] == f"mailto:{server.fault_contact.email}", page


# English words that have no Dutch homograph: any of them in the running text of a Dutch page is English.
ENGLISH_WORDS = frozenset([
    "the", "and", "with", "which", "from", "this", "that", "these", "those", "should", "would", "could", "returns",
    "without", "whether", "their", "there", "been", "have", "has", "will", "into", "than", "only", "also", "each",
    "every", "your", "you", "are", "were", "being", "not", "for", "to", "if", "when", "where", "what", "who", "how",
    "left", "out", "older", "copies", "unaliased", "search", "query", "results", "result", "documents",
    "match", "matched", "matches", "please", "click", "here", "see", "more", "less", "true", "false", "none", "null",
    "string", "integer", "number", "boolean", "array",
])
DIAGNOSTICS = re.compile(r"Traceback|simple_query_string|MediaObject|ori_[a-z]+_\d{8,}|\bquery_string\b|Exception")


def test_dutch_pages_carry_no_english_running_text(shipped: Path) -> None:
    """Outside code, the language switcher and "Technische details", a Dutch page is Dutch throughout."""
    found: dict[str, list[str]] = {}
    for name, soup in _html_pages(shipped):
        if name.startswith("en/"):
            continue
        for node in soup.select("code, pre, kbd, samp, details.bb-tech, [lang='en'], .md-select, script, style"):
            node.decompose()
        article = soup.find("article")
        text = " ".join(article.get_text(" ").split()) if article else ""
        # Words as a reader sees them: "time-out" and "precision.not_applied" are one token each.
        words = {w.lower() for w in re.findall(r"[A-Za-z][A-Za-z_.]*[A-Za-z](?:-[A-Za-z]+)*", text)}
        english = sorted(words & ENGLISH_WORDS)
        if english or DIAGNOSTICS.search(text):
            found[name] = english + DIAGNOSTICS.findall(text)
    assert found == {}


def test_one_tool_count_per_address_wherever_the_site_names_one(shipped: Path, catalog: Catalog) -> None:
    """Cards, chooser, explorer, connection pages and the all-sources advice count the same tools: all that an
    address serves, the meta tools included."""
    count = {catalog.url(slug): len(c.tools) for slug, c in catalog.connectors.items()}
    largest = max(len(c.tools) for c in catalog.connectors.values() if not c.connector.aggregate)
    aggregate = next(c for c in catalog.connectors.values() if c.connector.aggregate)
    seen = 0
    for name, soup in _html_pages(shipped):
        article = soup.find("article")
        for box in article.select(".bb-address") if article else []:
            after = box.find_next_sibling("p")
            shown = re.match(r"(\d+) tools", after.get_text(" ", strip=True)) if after else None
            if shown:
                assert int(shown.group(1)) == count[attr(box, "data-address")], (name, box["data-address"])
                seen += 1
        text = " ".join(article.get_text(" ").split()) if article else ""
        for many, most in re.findall(r"(\d+) tools (?:in plaats van hooguit|instead of at most) (\d+)", text):
            assert (int(many), int(most)) == (len(aggregate.tools), largest), name
            seen += 1
    assert seen >= 4 * len(catalog.connectors)



def test_a_local_address_links_to_going_public_and_is_not_called_public(shipped: Path, catalog: Catalog) -> None:
    """Issue 23: where a connection page says its address is not public, it links to the operators' page, and no
    page calls a local address "openbaar"."""
    from site_hooks.site_clients import is_public_https

    assert (shipped / "publiek-maken.html").exists() and (shipped / "en" / "publiek-maken.html").exists()
    for slug in catalog.connectors:
        page = (shipped / "connectoren" / f"{slug}.html").read_text(encoding="utf-8")
        if not is_public_https(catalog.url(slug)):
            assert 'href="../publiek-maken.html"' in page and "het adres is openbaar" not in page, slug


def test_search_override_is_materials_own_but_for_the_dialog_name() -> None:
    """overrides/partials/search.html adds only an accessible name to Material's search dialog (a theme update that
    changes the partial makes this fail, so the copy is brought up to date)."""
    import material

    upstream = (Path(material.__file__).parent / "templates" / "partials" / "search.html").read_text(encoding="utf-8")
    ours = (ROOT / "overrides" / "partials" / "search.html").read_text(encoding="utf-8")
    ours = ours[ours.index("-#}\n") + 4:]  # our own comment, before the copy
    named = ' aria-label="{{ lang.t(\'search\') }}"'
    assert named in ours
    assert ours.replace(named, "", 1) == upstream  # the first: the dialog (the search options nav has its own)


def test_every_reference_to_a_toggle_or_section_names_one_on_that_page(shipped: Path) -> None:
    """A sentence that sends the reader "onder Technische details" (or to any other named toggle or section) sends
    them somewhere that exists: every toggle (<summary>) and heading name that a page's running text mentions after
    "onder", "zie", "under" or "see" is a toggle or heading of that same page, or a link."""
    pages = dict(_html_pages(shipped))
    names = set()
    for soup in pages.values():
        names |= {" ".join(t.get_text(" ").split()) for t in soup.select("article summary, article h2, article h3")}
    names = {n.rstrip("¶ ").strip() for n in names if len(n) > 3}
    pointer = re.compile(r"\b(?:onder|zie|under|see)\s+(?:het kopje\s+|the heading\s+)?[\"“]?(" +
                         "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True)) + r")\b")
    dangling = []
    for name, soup in pages.items():
        article = soup.find("article")
        if article is None:
            continue
        own = {" ".join(t.get_text(" ").split()).rstrip("¶ ").strip()
               for t in article.select("summary, h1, h2, h3, h4")}
        for text in article.find_all(string=True):
            parent = tag(text.parent)
            if parent.name in ("a", "summary", "code") or text.find_parent(["a", "summary", "h1", "h2", "h3"]):
                continue
            for match in pointer.finditer(" ".join(text.split())):
                if match.group(1) not in own:
                    dangling.append(f"{name}: ...{match.group(0)}")
    assert dangling == []
