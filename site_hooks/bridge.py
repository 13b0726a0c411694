"""The one module that touches mkdocs and mkdocs-static-i18n internals. Not a hook itself.

The hook files stay thin: they ask this module for the current language, the site data (the
catalog, loaded once per registry version) and a renderer, and hand generated pages to
`add_generated_page`, which gives them the attributes i18n would have set (see
shared research docs-site-mkdocs.md §1.3: i18n rebuilds every File at priority -100, so generated
pages are added after it, at -110, and appended to its per-language sitemap snapshot).
"""

from __future__ import annotations

import logging
import os
import posixpath
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files, InclusionLevel
from mkdocs.structure.pages import Page
from mkdocs.structure.toc import get_toc

from proxy.catalog.site_input import SITE_INPUT_ENV, SiteInput
from proxy.core.errors import BesluitBronError
from site_hooks.site_data import DEFAULT_LANG, SiteData, load_site_data
from site_hooks.site_headings import convert, fits
from site_hooks.site_render import PageRef, Renderer
from site_hooks.site_status import StatusSnapshotError
from site_hooks.site_stencil import Stencil

__all__ = [
    "BuildRecord",
    "add_generated_page",
    "all_languages_done",
    "current_language",
    "lang_prefix",
    "languages",
    "outer_build",
    "page_src",
    "record",
    "register_slot_anchors",
    "render_headings_only",
    "renderer",
    "site_data",
    "site_input",
    "site_url",
    "slot_link_resolver",
]

T = TypeVar("T")

# --------------------------------------------------------------------------- languages


def _i18n(config: MkDocsConfig) -> Any:
    return config.plugins.get("i18n")


def current_language(config: MkDocsConfig) -> str:
    plugin = _i18n(config)
    return (plugin.current_language or plugin.default_language) if plugin else DEFAULT_LANG


def default_language(config: MkDocsConfig) -> str:
    plugin = _i18n(config)
    return plugin.default_language if plugin else DEFAULT_LANG


def languages(config: MkDocsConfig) -> tuple[str, ...]:
    plugin = _i18n(config)
    return tuple(plugin.build_languages) if plugin else (DEFAULT_LANG,)


def lang_prefix(config: MkDocsConfig, lang: str) -> str:
    """Where a language's pages live under the site root: '' for the default, 'en/' otherwise."""
    return "" if lang == default_language(config) else f"{lang}/"


def outer_build(config: MkDocsConfig) -> bool:
    """True in the build mkdocs was asked for (the default language's); False in the build of another language,
    which i18n runs inside the outer build's on_post_build (-100), or a fork runs (parallel_languages)."""
    plugin = _i18n(config)
    return plugin is None or not plugin.building


def all_languages_done(config: MkDocsConfig) -> bool:
    """True in the outer build's late on_post_build (below -100), after i18n built every other language."""
    return outer_build(config)


# --------------------------------------------------------------------------- data


def site_url(config: MkDocsConfig) -> str:
    """The site's address, which pages.py's on_config sets from the registry before any other hook runs."""
    if config.site_url is None:
        raise PluginError("besluitbron: site_url is not set (site_hooks/pages.py sets it from the registry)")
    return config.site_url


def site_input(config: MkDocsConfig) -> SiteInput:
    """What the server handed this build (`SITE_INPUT_ENV` names the file: the one variable a build reads)."""
    named = os.environ.get(SITE_INPUT_ENV)
    if not named:
        return SiteInput()
    key = (named, _stamp(Path(named)))
    cached = _INPUT.get("input")
    if cached is None or cached[0] != key:
        try:
            cached = (key, SiteInput.read(Path(named)))
        except ValueError as exc:
            raise PluginError(f"besluitbron: {exc}") from exc
        _INPUT["input"] = cached
    return cached[1]


def registry_path(config: MkDocsConfig) -> Path:
    return site_input(config).registry or Path(config.config_file_path).resolve().parent / "registry.json"


def site_data(config: MkDocsConfig) -> SiteData:
    """The catalog for this build, loaded once per registry (and input) version."""
    given = site_input(config)
    path = registry_path(config)
    key = (str(path), _stamp(path), given)
    cached = _CACHE.get("data")
    if cached is not None and cached[0] == key:
        return cached[1]
    try:
        data = load_site_data(path, given)
    except (BesluitBronError, StatusSnapshotError, ValueError, ImportError) as exc:
        raise PluginError(f"besluitbron: {path.name}: {exc}") from exc
    _CACHE["data"] = (key, data)
    return data


def renderer(config: MkDocsConfig, lang: str | None = None) -> Renderer:
    return Renderer(site_data(config), lang or current_language(config))


def _stamp(path: Path) -> tuple[int, int] | None:
    try:
        stat = path.stat()
    except OSError:
        return None
    return stat.st_mtime_ns, stat.st_size


# One entry each: the input and the catalog of the build in progress (mkdocs serve rebuilds in one process).
_INPUT: dict[str, tuple[object, SiteInput]] = {}
_CACHE: dict[str, tuple[object, SiteData]] = {}


# --------------------------------------------------------------------------- generated pages


@dataclass
class BuildRecord:
    """What one language build learnt, for the hooks that write files after it."""

    generated: dict[str, str] = field(default_factory=dict)  # src_uri → url (site-root relative)
    nav_order: list[str] = field(default_factory=list)  # norm src_uri of the nav's pages, in order
    pages: dict[str, PageRef] = field(default_factory=dict)  # norm src_uri → title/url/description
    slots: dict[str, dict[str, str]] = field(default_factory=dict)  # norm src_uri → HTML slots
    stencils: dict[str, dict[str, Stencil]] = field(default_factory=dict)  # norm src_uri → its stencils' slots
    lookups: dict[str, File | None] = field(default_factory=dict)  # src_uri → page, for links in slots
    markdown: dict[str, str] = field(default_factory=dict)  # norm src_uri → absolute URL of its Markdown twin
    sources: dict[str, str] = field(default_factory=dict)  # norm src_uri → its Markdown, markers filled


_RECORDS: dict[str, BuildRecord] = {}


def record(lang: str, *, reset: bool = False) -> BuildRecord:
    if reset or lang not in _RECORDS:
        _RECORDS[lang] = BuildRecord()
    return _RECORDS[lang]


def page_src(file: File) -> str:
    """The language-neutral source path of a page (`keuzehulp.md` for `keuzehulp.en.md`)."""
    return str(getattr(file, "norm_src_uri", file.src_uri))


def add_generated_page(files: Files, config: MkDocsConfig, src_uri: str, content: str) -> File:
    """Add a virtual page for the current language, as i18n (suffix mode) would have shaped it."""
    lang = current_language(config)
    plugin = _i18n(config)
    alternates = {other: _virtual(config, src_uri, content, other) for other in languages(config)}
    page_file = alternates[lang]
    for file in alternates.values():
        _set_i18n(file, alternates=alternates)
    files.append(page_file)
    if plugin is not None:
        # i18n's sitemap.xml iterates this per-language snapshot taken in its own on_files.
        plugin.i18n_files_per_language.setdefault(lang, []).append(page_file)
    record(lang).generated[src_uri] = page_file.url
    return page_file


def _virtual(config: MkDocsConfig, src_uri: str, content: str, lang: str) -> File:
    # Not in the nav: the sidebar stays the size of the hand-written pages, so build time grows
    # linearly with connectors (Material renders the whole nav on every page).
    file = File.generated(config, src_uri, content=content, inclusion=InclusionLevel.NOT_IN_NAV)
    file.dest_uri = lang_prefix(config, lang) + file.dest_uri
    _set_i18n(file, locale=lang, locale_alternate_of=lang, localization=None, norm_src_uri=src_uri)
    return file


def _set_i18n(file: File, **attributes: Any) -> None:
    """Give a File the attributes i18n gives its own; mkdocs' File does not declare them."""
    for name, value in attributes.items():
        setattr(file, name, value)


def plugin_error(action: Callable[[], T], where: str) -> T:
    """Run `action`, turning a data problem into a one-line PluginError naming `where`."""
    try:
        return action()
    except (BesluitBronError, StatusSnapshotError, ValueError, KeyError) as exc:
        raise PluginError(f"besluitbron: {where}: {exc}") from exc


# --------------------------------------------------------------------------- generated pages without Markdown


def render_headings_only(page: Page, config: MkDocsConfig) -> None:
    """Let a generated page skip Python-Markdown: mkdocs' `Page.render`, with site_headings' conversion
    of its headings and placeholders in place of the `Markdown` instance; the page renders as before when
    that conversion does not apply (other extensions, or Markdown it does not write)."""
    if not fits(config.markdown_extensions, config.mdx_configs):
        return
    markdown_render = page.render

    def render(config: MkDocsConfig, files: Files) -> None:
        converted = convert(page.markdown) if page.markdown is not None else None
        if converted is None:
            markdown_render(config, files)
            return
        page.content = converted.html
        page.toc = get_toc(converted.toc_tokens)
        page._title_from_render = converted.title
        page.present_anchor_ids = set(converted.ids)
        if _PAGES_LOG.getEffectiveLevel() > logging.DEBUG:  # as Page.render, which collects them unless debugging
            links = {anchor: f"#{anchor}" for anchor in converted.permalinks}
            page.links_to_anchors = {page.file: links} if links else {}

    page.render = render  # type: ignore[method-assign]


_PAGES_LOG = logging.getLogger("mkdocs.structure.pages")


# --------------------------------------------------------------------------- links in HTML slots


def slot_link_resolver(page: Page, files: Files, lookups: dict[str, File | None]) -> Callable[[str, str], str]:
    """Resolve a relative `.md` link in slot HTML as mkdocs resolves one in Markdown.

    The same steps as mkdocs' `_RelativePathTreeprocessor`: the target relative to the page's source,
    looked up in the (i18n) file collection, then made relative to the page's URL. A missing target
    stops the build; a link with an anchor joins the page's anchor validation. `lookups` keeps the
    file lookups of one language build (its file collection no longer changes once pages render).
    """

    found: dict[str, tuple[File, str]] = {}  # target → (file, URL): pages repeat their links

    def resolve(target: str, anchor: str) -> str:
        if target not in found:
            src_uri = posixpath.normpath(posixpath.join(posixpath.dirname(page.file.src_uri), target))
            if src_uri not in lookups:
                lookups[src_uri] = files.get_file_from_path(src_uri)
            file = lookups[src_uri]
            if file is None:
                raise PluginError(f"besluitbron: {page.file.src_uri}: generated link '{target}' has no page "
                                  f"'{src_uri}'")
            found[target] = (file, file.url_relative_to(page.file))
        file, url = found[target]
        if anchor and page.links_to_anchors is not None:
            page.links_to_anchors.setdefault(file, {}).setdefault(anchor[1:], target + anchor)
        return url + anchor

    return resolve


def register_slot_anchors(page: Page, slots: Mapping[str, str]) -> None:
    """Make the ids in slot HTML linkable and its same-page `#anchor` links validated, as in Markdown."""
    for content in slots.values():
        if page.present_anchor_ids is not None:
            page.present_anchor_ids.update(_ID_RE.findall(content))
        if page.links_to_anchors is not None:
            for anchor in _SELF_ANCHOR_RE.findall(content):
                page.links_to_anchors.setdefault(page.file, {}).setdefault(anchor, f"#{anchor}")


_ID_RE = re.compile(r'\sid="([^"]+)"')
_SELF_ANCHOR_RE = re.compile(r'href="#([^"]+)"')
