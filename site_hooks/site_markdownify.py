"""markdownify, block by block: the same Markdown as `MarkdownConverter.convert` of a whole fragment, with
each block converted once per distinct HTML. Pure: no mkdocs import.

A connection page's client tabs are 24 KB of HTML of which only the address and title lines differ from
the next page's, but markdownify parses and converts a fragment whole: at 500 connectors that was most of
the build (bench/bench_site.py). So a fragment is split into its top-level elements, and each `div` into
its children, wherever markdownify's own result is the join of its children's results (`process_tag`:
children converted alone, empty ones dropped, newlines collapsed at the seams, the container's conversion
applied). Each leaf block is converted alone and cached by its HTML. Anything the splitter cannot vouch
for (text or a comment between blocks, whitespace markdownify would keep, an element it would not close
where the split does, a raw-text element) is converted whole, as before. `tests/test_site_markdownify.py`
compares the two on every slot of real and synthetic builds.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import markdownify
from bs4 import BeautifulSoup, Tag
from markdownify import MarkdownConverter

# process_tag, its newline pattern and whitespace rule are markdownify's own (1.2.3, pinned), not in its stubs.
_MARKDOWNIFY: Any = markdownify

__all__ = ["convert"]

_TAG = re.compile(r"""<(/?)([a-zA-Z][a-zA-Z0-9-]*)((?:[^>"']|"[^"]*"|'[^']*')*?)(/?)>""")
_VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source",
                   "track", "wbr"})
# Raw-text elements (html.parser reads their content differently) and declarations: converted whole.
_RAW = re.compile(r"<(?:script|style|textarea|title)\b|<[!?]", re.IGNORECASE)
# Elements whose conversion looks at their siblings or parent (list numbering, table rows): never split off.
_CONTEXTUAL = frozenset({"li", "tr", "td", "th", "thead", "tbody", "tfoot", "caption", "dt", "dd"})
_DOCUMENT = "[document]"  # the name BeautifulSoup gives the fragment itself


class _Unsplittable(Exception):
    """The fragment is converted whole."""


@dataclass
class _Node:
    name: str
    start: int  # of its start tag
    end: int = -1  # after its end tag
    inner: int = -1  # after its start tag
    children: list[_Node] = field(default_factory=list)


def convert(converter: MarkdownConverter, html: str) -> str:
    """`converter.convert(html)`, block by block where that gives the same text."""
    if _RAW.search(html):
        return str(converter.convert(html))
    try:
        root = _tree(html)
        return _document(converter, html, root)
    except _Unsplittable:
        return str(converter.convert(html))


def _tree(html: str) -> _Node:
    """The elements of `html` as spans, as html.parser and BeautifulSoup nest them (or _Unsplittable)."""
    root = _Node(_DOCUMENT, 0, len(html), 0)
    stack = [root]
    pos = 0
    for match in _TAG.finditer(html):
        if "<" in html[pos:match.start()]:
            raise _Unsplittable  # a "<" that is not a tag: html.parser's text rules, not ours
        pos = match.end()
        closing, name, self_closing = match.group(1), match.group(2).lower(), match.group(4)
        if closing:
            if stack[-1].name != name or len(stack) == 1:
                raise _Unsplittable  # BeautifulSoup would close (or ignore) other elements here
            node = stack.pop()
            node.end = match.end()
            continue
        node = _Node(name, match.start(), inner=match.end())
        stack[-1].children.append(node)
        if self_closing or name in _VOID:
            node.end = match.end()
        else:
            stack.append(node)
    if len(stack) != 1 or "<" in html[pos:]:
        raise _Unsplittable
    return root


def _document(converter: MarkdownConverter, html: str, root: _Node) -> str:
    text = _join(_children(converter, html, root, parent_tags=frozenset({_DOCUMENT})))
    return text.strip("\n")  # convert__document_ with strip_document=STRIP, markdownify's default


def _div(converter: MarkdownConverter, html: str, node: _Node, parent_tags: frozenset[str]) -> str:
    text = _join(_children(converter, html, node, parent_tags=parent_tags | {"div"})).strip()
    return f"\n\n{text}\n\n" if text else ""  # convert_div outside inline context


def _children(converter: MarkdownConverter, html: str, node: _Node, *, parent_tags: frozenset[str]) -> Iterator[str]:
    """The converted children of `node`, in order, as markdownify's process_tag would list them."""
    kids = node.children
    for i, kid in enumerate(kids):
        before = html[node.inner if i == 0 else kids[i - 1].end:kid.start]
        _check_gap(before, kids[i - 1] if i else None, kid, edge=node.name != _DOCUMENT and i == 0)
        if kid.name in _CONTEXTUAL:
            raise _Unsplittable
        if kid.name == "div" and kid.children:
            yield _div(converter, html, kid, parent_tags)
            continue
        text = _leaf(converter, html[kid.start:kid.end], parent_tags)
        after = kids[i + 1] if i + 1 < len(kids) else None
        if kid.name in ("ul", "ol") and after is not None and after.name not in ("ul", "ol"):
            text += "\n"  # convert_list: a list followed by other content ends with one more newline
        yield text
    tail = html[kids[-1].end if kids else node.inner:node.end if node.name == _DOCUMENT else _end_tag(html, node)]
    _check_gap(tail, kids[-1] if kids else None, None, edge=node.name != _DOCUMENT)


def _end_tag(html: str, node: _Node) -> int:
    return html.rindex("<", node.inner, node.end)


def _check_gap(text: str, before: _Node | None, after: _Node | None, *, edge: bool) -> None:
    """Text between two children must be whitespace that markdownify drops (its _can_ignore)."""
    if not text:
        return
    if text.strip():
        raise _Unsplittable
    if edge and (before is None or after is None):
        return  # whitespace just inside a div
    if not (_block(before) or _block(after)):
        raise _Unsplittable


def _block(node: _Node | None) -> bool:
    return node is not None and bool(_MARKDOWNIFY.should_remove_whitespace_outside(_Named(node.name)))


@dataclass(frozen=True)
class _Named:
    """Just enough of a bs4 element for markdownify's should_remove_whitespace_* tests."""

    name: str


@functools.lru_cache(maxsize=8192)
def _leaf(converter: MarkdownConverter, html: str, parent_tags: frozenset[str]) -> str:
    """One element converted alone, as process_tag converts it inside its parent (cached by its HTML)."""
    internal: Any = converter
    soup = BeautifulSoup(html, **internal.options["bs4_options"])
    if len(soup.contents) != 1 or not isinstance(soup.contents[0], Tag):
        raise _Unsplittable
    return str(internal.process_tag(soup.contents[0], parent_tags=set(parent_tags)))


def _join(strings: Iterator[str]) -> str:
    """process_tag's join: empty results dropped, at most two newlines where two results meet."""
    out = [""]
    for string in strings:
        if not string:
            continue
        match = _MARKDOWNIFY.re_extract_newlines.match(string)
        leading, content, trailing = match.groups()
        if out[-1] and leading:
            leading = "\n" * min(2, max(len(out.pop()), len(leading)))
        out.extend([leading, content, trailing])
    return "".join(out)
