"""The machine-readable twins of the built site. Pure: no mkdocs import.

* `page_markdown`: a page as Markdown (the `.md` next to every `.html`, linked from llms.txt and
  from each page's head): the page's own Markdown after the markers were filled, with its HTML
  slots put back (HTML is valid Markdown), so it says exactly what the page says, generated
  parts included. Assembling it costs string replacement only; converting every built page's
  HTML back to Markdown cost more than the rest of a big registry's build (bench/bench_site.py).
* `render_robots_txt`: robots.txt naming the sitemap and keeping crawlers off the MCP addresses,
  which answer programs, not people.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from site_hooks.site_render import fill_slots

__all__ = ["markdown_path", "page_markdown", "render_robots_txt"]

# attr_list on headings (`## Adres {: #address }`) says nothing to a reader; copy buttons do nothing outside a browser.
_ATTR_LIST = re.compile(r"[ \t]*\{:[^}\n]*\}[ \t]*$", re.MULTILINE)
_BUTTON = re.compile(r"<button\b[^>]*>.*?</button>", re.DOTALL)


def markdown_path(html_path: str) -> str:
    """`connectoren/wetten.html` → `connectoren/wetten.md`."""
    return re.sub(r"\.html$", ".md", html_path)


def page_markdown(markdown: str, slots: Mapping[str, str], *, title: str, url: str, html_url: str) -> str:
    """A page's Markdown with its slots filled, headed by its title and where its HTML lives."""
    body = fill_slots(markdown, slots) if slots else markdown
    if "{:" in body:
        body = _ATTR_LIST.sub("", body)
    if "<button" in body:
        body = _BUTTON.sub("", body).replace("<wbr>", "")
    if not body.lstrip().startswith("# "):
        body = f"# {title}\n\n{body.lstrip()}"
    return f"<!-- {url} · HTML: {html_url} -->\n\n{body.strip()}\n"


def render_robots_txt(site_url: str, mcp_paths: Iterable[str]) -> str:
    """Every page may be crawled; the MCP addresses (programs' endpoints) not; the sitemap is named."""
    lines = ["User-agent: *", "Allow: /"]
    lines += [f"Disallow: {path}" for path in mcp_paths]
    lines += ["", f"Sitemap: {site_url.rstrip('/')}/sitemap.xml", ""]
    return "\n".join(lines)
