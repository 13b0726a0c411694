"""Hook: one search index per language, so a Dutch search finds Dutch pages and an English one English pages.

mkdocs-static-i18n gathers every language's entries into the one `search/search_index.json` at the root, and
Material's search on every page reads that one: Dutch queries returned English pages and the reverse. After i18n
has written it (its on_post_build, priority -100), the outer build splits it: the default language's entries stay
at the root, each other language's go to `<lang>/search/search_index.json` (their locations relative to that
folder), each index with its own language's stemmer. A page of another language points Material's `base` at its
own folder, which is where Material looks for the index (and for `sitemap.xml`, which `sitemap_languages.py` writes
into every folder)."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.plugins import event_priority
from mkdocs.structure.pages import Page

_ROOT = str(Path(__file__).resolve().parents[1])
if _ROOT not in sys.path:  # mkdocs puts only site_hooks/ on sys.path, and only while importing a hook
    sys.path.insert(0, _ROOT)

from site_hooks import bridge  # noqa: E402

INDEX = "search/search_index.json"
_BASE = re.compile(r'("base": ")([^"]*)(")')


def own_base(base: str, prefix: str) -> str:
    """Material's `base` for a page of the language under `prefix` ('en/'): that folder instead of the site root."""
    if base.startswith(("/", "http:", "https:")):  # an absolute base (the 404 pages)
        return base.rstrip("/") + "/" + prefix
    return "." if base == ".." else base.removesuffix("/..")


def _own(output: str, config: MkDocsConfig) -> str:
    prefix = bridge.lang_prefix(config, bridge.current_language(config))
    if not prefix:
        return output
    return _BASE.sub(lambda m: m.group(1) + own_base(m.group(2), prefix) + m.group(3), output, count=1)


def on_post_page(output: str, page: Page, config: MkDocsConfig) -> str:
    return _own(output, config)


@event_priority(10)  # before i18n_404.py captures the 404 page
def on_post_template(output: str, template_name: str, config: MkDocsConfig) -> str:
    return _own(output, config) if template_name == "404.html" else output


@event_priority(-110)  # after i18n has written the index of every language (-100)
def on_post_build(config: MkDocsConfig) -> None:
    if not bridge.outer_build(config):
        return
    site = Path(config.site_dir)
    merged = json.loads((site / INDEX).read_text(encoding="utf-8"))
    prefixes = {lang: bridge.lang_prefix(config, lang) for lang in bridge.languages(config)}
    for lang, prefix in prefixes.items():
        others = tuple(p for p in prefixes.values() if p and p != prefix)
        docs = [{**doc, "location": doc["location"].removeprefix(prefix)} for doc in merged["docs"]
                if (doc["location"].startswith(prefix) if prefix else not doc["location"].startswith(others))]
        index = {**merged, "config": {**merged["config"], "lang": [lang]}, "docs": docs}
        target = site / prefix / INDEX  # the default language's prefix is "": the root
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(index, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")
