"""The machine-readable twins of the built site. Pure: no mkdocs import.

* `page_markdown`: a page as Markdown (the `.md` next to every `.html`, linked from llms.txt and
  from each page's head): the page's own Markdown after the markers were filled, with its HTML
  slots put back as Markdown (markdownify), so it says exactly what the page says, generated
  parts included, in the form a reader of Markdown expects: tables as pipe tables, links as
  links. Only the slots are converted, never a whole built page: converting every page's
  HTML cost more than the rest of a big registry's build (bench/bench_site.py).
* `render_robots_txt`: robots.txt naming the sitemap and keeping crawlers off the MCP addresses,
  which answer programs, not people.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping

from markdownify import MarkdownConverter

from site_hooks import site_markdownify
from site_hooks.site_render import SLOT_RE, fill_slots
from site_hooks.site_stencil import Stencil

__all__ = ["markdown_path", "page_markdown", "render_robots_txt"]

# attr_list on headings (`## Adres {: #address }`) says nothing to a reader; copy buttons do nothing outside a browser.
_ATTR_LIST = re.compile(r"[ \t]*\{:[^}\n]*\}[ \t]*$", re.MULTILINE)
_BUTTON = re.compile(r"<button\b[^>]*>.*?</button>", re.DOTALL)
_TAB_LABELS = re.compile(r'<div class="tabbed-labels">(.*?)</div>', re.DOTALL)
_LABEL = re.compile(r"<label\b[^>]*>(.*?)</label>", re.DOTALL)
_TAB_BLOCK = re.compile(r'<div class="tabbed-block"[^>]*>')
_BLANK_LINES = re.compile(r"\n{3,}")
# Registry words and tool names are plain text: `search_documents` must stay as written, not `search\_documents`.
_CONVERTER = MarkdownConverter(heading_style="ATX", bullets="-", escape_underscores=False, escape_asterisks=False)


def markdown_path(html_path: str) -> str:
    """`connectoren/wetten.html` → `connectoren/wetten.md`."""
    return re.sub(r"\.html$", ".md", html_path)


def page_markdown(markdown: str, slots: Mapping[str, str], *, title: str, url: str, html_url: str,
                  stencils: Mapping[str, Stencil] | None = None) -> str:
    """A page's Markdown with its slots filled, headed by its title and where its HTML lives. `stencils` names
    the slots that are a filled stencil (site_stencil), whose shared HTML is converted once for all pages."""
    body = fill_slots(markdown, _slots_as_markdown(slots, stencils or {})) if slots else markdown
    if "{:" in body:
        body = _ATTR_LIST.sub("", body)
    body = _BLANK_LINES.sub("\n\n", body)
    if not body.lstrip().startswith("# "):
        body = f"# {title}\n\n{body.lstrip()}"
    return f"<!-- {url} · HTML: {html_url} -->\n\n{body.strip()}\n"


def _slots_as_markdown(slots: Mapping[str, str], stencils: Mapping[str, Stencil]) -> dict[str, str]:
    """The slots the page's Markdown names, each converted whole: an unindexed slot inside another (see
    site_render) is put in first, so a converted slot never holds a placeholder. A stencil's slot is put in as
    its shared HTML and its strings are filled into the Markdown, where that gives the same text."""
    shared = {key: stencil for key, stencil in stencils.items() if stencil.fills_markdown()}
    inner = {key: SLOT_RE["u"].findall(value) for key, value in slots.items()}
    nested = {name for found in inner.values() for _, name in found}

    def html_of(key: str) -> str:
        return shared[key].html if key in shared else slots[key]

    out: dict[str, str] = {}
    for key in [key for key in slots if key not in nested]:
        text = _markdown(SLOT_RE["u"].sub(lambda m: html_of(m.group(2)), html_of(key)))
        held = [shared[k] for k in [key, *(name for _, name in inner[key])] if k in shared]
        if len(held) > 1:  # their tokens would be the same
            raise ValueError(f"slot {key} holds {len(held)} stencils; one at most")
        filled = held[0].fill_markdown(text) if held else text
        if filled is None:  # the stencil's Markdown cannot be filled here: the page's own HTML, converted
            filled = _markdown(SLOT_RE["u"].sub(lambda m: slots[m.group(2)], slots[key]))
        out[key] = "\n\n" + filled + "\n\n"
    return out


# Keyed by the slot's HTML alone, so a changed registry can never be served stale: most slots (a tool's
# section, a platform's table) repeat across pages and languages, and markdownify is the costliest step.
@functools.lru_cache(maxsize=4096)
def _markdown(html: str) -> str:
    return site_markdownify.convert(_CONVERTER, _prepared(html)).strip()


def _prepared(html: str) -> str:
    html = _BUTTON.sub("", html).replace("<wbr>", "")  # copy buttons do nothing outside a browser
    if 'class="tabbed-labels"' in html:
        html = _headed_tabs(html)
    return html


def _headed_tabs(html: str) -> str:
    """A tab set (pymdownx.tabbed) without its row of labels: each tab's panel headed by its label instead."""
    labels: list[str] = []

    def drop(match: re.Match[str]) -> str:
        labels.extend(_LABEL.findall(match.group(1)))
        return ""

    html = _TAB_LABELS.sub(drop, html)
    names = iter(labels)
    return _TAB_BLOCK.sub(lambda m: f"{m.group(0)}<h4>{next(names, '')}</h4>", html)


def render_robots_txt(site_url: str, mcp_paths: Iterable[str]) -> str:
    """Every page may be crawled; the MCP addresses (programs' endpoints) not; the sitemap is named."""
    lines = ["User-agent: *", "Allow: /"]
    lines += [f"Disallow: {path}" for path in mcp_paths]
    lines += ["", f"Sitemap: {site_url.rstrip('/')}/sitemap.xml", ""]
    return "\n".join(lines)
