"""A generated page's Markdown converted without Python-Markdown. Pure: no mkdocs import.

A generated page is headings and slot placeholders only (site_render): all Python-Markdown does with it
is the toc extension's work (ids, permalinks, the table of contents), and building a `Markdown` instance
with every extension of the site costs more than that work. `convert` writes what Python-Markdown writes
for such a page under the site's toc settings (`permalink: true`), with the toc extension's own `slugify`,
`unique` and `nest_toc_tokens`. A line of any other kind, heading text that Markdown would read as markup,
or attributes other than the `#id` and `name="value"` the templates write, give None: that page goes
through Python-Markdown. tests/test_site_headings.py holds the output to Python-Markdown's.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from markdown.extensions.toc import nest_toc_tokens, slugify, unique

__all__ = ["HeadingsPage", "convert", "fits"]

# The extensions and toc settings this output was checked against (tests/test_site_headings.py): one more
# extension could change how heading text reads (smarty's quotes, say), so with any other set, every page
# goes through Python-Markdown until the test has been run against it and the set extended.
CHECKED_EXTENSIONS = frozenset({
    "abbr", "admonition", "attr_list", "fenced_code", "md_in_html", "tables", "toc", "pymdownx.details",
    "pymdownx.highlight", "pymdownx.inlinehilite", "pymdownx.superfences", "pymdownx.tabbed",
    # An include (`--8<-- "file"`) is neither a heading nor a slot: a page with one is left to Python-Markdown.
    "pymdownx.snippets",
})
CHECKED_TOC = {"permalink": True}

_HEADING_RE = re.compile(r"(#{1,6})[ ]+(.+?)(?:[ ]+\{:[ ]*(.*?)[ ]*\})?[ ]*")
_SPECIAL = r"\\`*_\[\]<>{}&#"  # Markdown's inline markup, escapes, HTML, entities, attribute lists, closing hashes
# White space inside only as plain spaces: Markdown and str.split may not agree on other kinds (U+2028, say).
_PLAIN_RE = re.compile(rf"[^\s{_SPECIAL}](?:(?:[^\s{_SPECIAL}]| )*[^\s{_SPECIAL}])?")
_ATTR_RE = re.compile(r'#([A-Za-z][\w-]*)|([A-Za-z][\w-]*)="([^"&<>\\]*)"')
_LEADING_BLANK_LINES_RE = re.compile(r"\A(?:[ \t]*\n)+")
_BLANK_LINES_RE = re.compile(r"\n(?:[ \t]*\n)+")
_PLACEHOLDER_RE = re.compile(r"besluitbron-slot-s[0-9]+|<!--besluitbron-slot-u[0-9]+-->")


@dataclass(frozen=True)
class HeadingsPage:
    """What mkdocs' Page.render takes from Python-Markdown."""

    html: str
    toc_tokens: list[Any]  # the toc extension's tokens (its stubs predate their `html` and `data-toc-label`)
    title: str | None  # the first h1's text, as mkdocs reads the page title from it
    ids: frozenset[str]
    permalinks: tuple[str, ...]  # the ids the headings' permalinks (`#id`) point to, in page order


def fits(extensions: Iterable[str], configs: Mapping[str, Any]) -> bool:
    """Whether `convert` writes what Python-Markdown would with these extensions and settings."""
    names = set(extensions)
    return "toc" in names and "attr_list" in names and names <= CHECKED_EXTENSIONS and configs.get("toc") == CHECKED_TOC


def convert(markdown_text: str) -> HeadingsPage | None:
    """The page as Python-Markdown converts it, if it is only headings and slot placeholders; else None."""
    blocks: list[str | tuple[int, str, dict[str, str]]] = []
    for line in _BLANK_LINES_RE.split(_LEADING_BLANK_LINES_RE.sub("", markdown_text).rstrip()):
        if "\n" in line:  # Markdown reads lines without a blank line between them as one block
            return None
        if _PLACEHOLDER_RE.fullmatch(line):
            # An HTML block keeps the newline after it; a paragraph does not.
            blocks.append(f"{line}\n" if line[0] == "<" else f"<p>{line}</p>")
            continue
        heading = _HEADING_RE.fullmatch(line)
        if heading is None or not _PLAIN_RE.fullmatch(heading.group(2)):
            return None
        attrs = _attributes(heading.group(3))
        if attrs is None:
            return None
        blocks.append((len(heading.group(1)), heading.group(2), attrs))
    # The toc extension first collects every id given, then gives the other headings unique slugs.
    used = {block[2]["id"] for block in blocks if isinstance(block, tuple) and "id" in block[2]}
    out: list[str] = []
    tokens: list[Any] = []
    first = blocks[0] if blocks else None
    # mkdocs takes the title from a page that opens with h1; it and the toc collapse runs of white space.
    title = " ".join(first[1].split()) if isinstance(first, tuple) and first[0] == 1 else None
    for block in blocks:
        if isinstance(block, str):
            out.append(block)
            continue
        level, text, attrs = block
        name = " ".join(text.split())  # as the toc extension names it
        if "id" not in attrs:
            attrs = {**attrs, "id": unique(slugify(name, "-"), used)}
        anchor = attrs["id"]
        shown = "".join(f' {name}="{value}"' for name, value in sorted(attrs.items()))  # values need no escape
        out.append(f'<h{level}{shown}>{text}<a class="headerlink" href="#{anchor}" title="Permanent link">&para;</a>'
                   f"</h{level}>")
        tokens.append({"level": level, "id": anchor, "name": name, "html": text, "data-toc-label": ""})
    permalinks = tuple(token["id"] for token in tokens)  # before nest_toc_tokens, which empties the list
    return HeadingsPage(html="\n".join(out).strip(), toc_tokens=nest_toc_tokens(tokens), title=title,
                        ids=frozenset(used), permalinks=permalinks)


def _attributes(spec: str | None) -> dict[str, str] | None:
    """`#id name="value" …` as attr_list reads it; None for any other form."""
    attrs: dict[str, str] = {}
    if not spec:
        return attrs
    end = 0
    for match in _ATTR_RE.finditer(spec):
        if spec[end:match.start()].strip():
            return None
        end = match.end()
        if match.group(1):
            attrs["id"] = match.group(1)
        elif match.group(2) == match.group(3):  # `hidden="hidden"`: Markdown may write a boolean attribute bare
            return None
        else:
            attrs[match.group(2)] = match.group(3)
    return attrs if not spec[end:].strip() else None
