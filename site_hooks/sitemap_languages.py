"""Hook: the all-languages `sitemap.xml` also in every other folder that holds pages (`/en/`,
`/connectoren/`, `/en/bronplatforms/`, ...).

Material's language switcher fetches `sitemap.xml` relative to every `<link rel="alternate">` of a
page (`new URL("sitemap.xml", link.href)`), and those are the page's own translations, so a
connection page asks for `connectoren/sitemap.xml`. mkdocs-static-i18n writes the one sitemap,
with hreflang alternates for every language, only at the site root; without the copies each
connection page would make requests that 404. Every copy is written from the sitemaps the language
builds rendered, merged, not from the root file: languages built in parallel processes
(site_hooks/parallel_languages.py) each render only their own pages, and overwrite it in either order."""

from __future__ import annotations

import gzip
import io
import re
import sys
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.plugins import event_priority

_ROOT = str(Path(__file__).resolve().parents[1])
if _ROOT not in sys.path:  # mkdocs puts only site_hooks/ on sys.path, and only while importing a hook
    sys.path.insert(0, _ROOT)

from site_hooks import bridge  # noqa: E402

# ----------------------------------------------------------------------------- events


def on_post_template(output: str, template_name: str, config: MkDocsConfig) -> str:
    if template_name == "sitemap.xml":
        _CAPTURED[bridge.current_language(config)] = output
    return output


@event_priority(-200)  # after i18n (-100) has built every language
def on_post_build(config: MkDocsConfig) -> None:
    if not bridge.all_languages_done(config):
        return
    default = bridge.default_language(config)
    rendered = [_CAPTURED[lang] for lang in dict.fromkeys((default, *bridge.languages(config))) if lang in _CAPTURED]
    _CAPTURED.clear()
    if not rendered:
        return
    text = merged_sitemap(rendered)
    site = Path(config.site_dir)
    folders = {page.parent for page in site.rglob("*.html")}
    for lang in bridge.languages(config):
        folders.add(site / bridge.lang_prefix(config, lang))
    buffer = io.BytesIO()
    # mtime 0, "no time stamp" (RFC 1952): the same bytes whatever day and order the languages were built in.
    with gzip.GzipFile(filename="sitemap.xml", mode="wb", fileobj=buffer, mtime=0) as compressed:
        compressed.write(text.encode("utf-8"))
    for folder in sorted(folders):
        if "assets" in folder.relative_to(site).parts or "search" in folder.relative_to(site).parts:
            continue
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "sitemap.xml").write_text(text, encoding="utf-8")
        (folder / "sitemap.xml.gz").write_bytes(buffer.getvalue())


def merged_sitemap(rendered: list[str]) -> str:
    """One sitemap with every `<url>` of `rendered`, in order, each once. A language's build renders the pages
    of the languages built before it in the same process too: all of them when one process builds them all."""
    first = rendered[0]
    head, tail = first[:first.index(">", first.index("<urlset")) + 1], first[first.rindex("\n</urlset>"):]
    blocks = dict.fromkeys(block for text in rendered for block in _URL_BLOCK.findall(text))
    return head + "".join(blocks) + tail


def hand_over(config: MkDocsConfig) -> dict[str, str]:
    """A language built in its own process (site_hooks/parallel_languages.py) hands its sitemap over."""
    return dict(_CAPTURED)


def take_over(config: MkDocsConfig, handed: dict[str, str]) -> None:
    _CAPTURED.update(handed)


_URL_BLOCK = re.compile(r"\n *<url>.*?</url>", re.S)  # as mkdocs-static-i18n's sitemap.xml template writes one
_CAPTURED: dict[str, str] = {}  # language → the sitemap.xml its build rendered
