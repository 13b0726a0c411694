"""Hook: a page outside the nav gets the nav rendered for the first page of its folder.

Material renders the whole nav into every page. A page outside it (every generated connection and source
page, bridge._virtual) has no active item there, and the nav's links are relative to the page's folder, so
that nav is the same for every such page of a folder: rendering it again for each was about a fifth of a
big registry's build (bench/bench_site.py). `overrides/partials/nav.html` renders Material's own nav
(`material/partials/nav.html`, from the loader this hook adds) once per language and folder, and reuses it.
A page in the nav renders its own, as before.
"""

from __future__ import annotations

import posixpath
from typing import Any

import jinja2
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import InclusionLevel
from mkdocs.structure.nav import Navigation
from mkdocs.structure.pages import Page

_NAVS: dict[str, str] = {}  # "<language>:<folder>" → its nav's HTML, for the build in progress


def on_env(env: jinja2.Environment, config: MkDocsConfig, **_: Any) -> jinja2.Environment:
    theme = [folder for folder in config.theme.dirs if folder != config.theme.custom_dir]
    assert env.loader is not None
    env.loader = jinja2.ChoiceLoader([env.loader, jinja2.PrefixLoader({"material": jinja2.FileSystemLoader(theme)})])
    return env


def on_pre_build(config: MkDocsConfig) -> None:
    _NAVS.clear()  # each language's build, and each rebuild under mkdocs serve, has a nav of its own


def on_page_context(context: dict[str, Any], page: Page, config: MkDocsConfig, nav: Navigation) -> dict[str, Any]:
    outside = page.file.inclusion == InclusionLevel.NOT_IN_NAV
    context["bb_nav_key"] = f"{config.theme.locale}:{posixpath.dirname(page.url)}" if outside else None
    context["bb_navs"] = _NAVS
    return context
