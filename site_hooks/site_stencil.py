"""A fragment rendered once per language with a token in each place a page puts a string of its own. Pure.

The client tabs of a connection page are 24 KB of HTML in which only a dozen strings are the page's own (its
address, title, tool count and the snippets made from them). Converting them to Markdown for every page's
twin was the largest part of a big registry's build (bench/bench_site.py). A `Stencil` is that fragment
rendered once with a token for each string; a page fills the tokens, escaped as the template would have
escaped the string there, which gives the HTML the template gives for that page. Its twin converts the
tokened fragment once per language (site_markdown caches by HTML) and fills the tokens with the strings as
they are: markdownify passes text and code through unchanged (a list item's lines indented), so that is the
Markdown of the filled HTML wherever a string has nothing markdownify would change (`fills_markdown`,
`fill_markdown`); otherwise the twin converts the filled HTML, as for any slot.

Every token goes into the template through one filter, `| code` for a hole inside a code block and `| e` for
a hole in text or an attribute; the template never branches on a hole's value, and no link has holes for
both its text and its address (markdownify writes a link whose text is its address another way). A test
renders every connector's fragment directly and compares, HTML and Markdown.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping
from dataclasses import dataclass

import markupsafe

__all__ = ["Hole", "Stencil", "token"]

_TOKEN = "bbhole{:02d}x"
_TOKEN_RE = re.compile(r"bbhole\d{2}x")


def token(index: int) -> str:
    """The placeholder of hole `index`: letters and digits only, so every escape leaves it as it is."""
    return _TOKEN.format(index)


@dataclass(frozen=True, slots=True)
class Hole:
    """One of a page's own strings: `text` as a reader sees it; `code` if it stands inside a code block."""

    text: str
    code: bool = False

    def html(self) -> str:
        # The template's own filters: `| code` (site_render._code) and `| e` (markupsafe).
        return html.escape(self.text, quote=False) if self.code else str(markupsafe.escape(self.text))

    def passes_markdownify(self) -> bool:
        """markdownify writes this string as it is: a code block's text loses only leading and trailing
        newlines; other text has runs of whitespace collapsed and is trimmed at block edges."""
        if not self.text:
            return False
        if self.code:
            return self.text == self.text.strip()
        return self.text == " ".join(self.text.split())


@dataclass(frozen=True, slots=True)
class Stencil:
    """`html` with `token(i)` for hole i; the same `html` for every page, the holes its own."""

    html: str
    holes: Mapping[str, Hole]  # token → the page's string

    def filled(self) -> str:
        """The page's HTML."""
        return _TOKEN_RE.sub(lambda m: self.holes[m.group(0)].html(), self.html)

    def fills_markdown(self) -> bool:
        """Whether `fill_markdown` of the converted `html` is the Markdown of `filled()`: every string passes
        markdownify unchanged."""
        return all(hole.passes_markdownify() for hole in self.holes.values())

    def fill_markdown(self, markdown: str) -> str | None:
        """The Markdown of `html` with each token replaced by its string. markdownify indents every line of a
        list item's content, so a string of several lines gets its token's indentation on each further line;
        None where something other than indentation stands before such a token (a quote's `>`)."""
        out: list[str] = []
        done = 0
        for match in _TOKEN_RE.finditer(markdown):
            first, *more = self.holes[match.group(0)].text.split("\n")
            indent = markdown[markdown.rfind("\n", 0, match.start()) + 1:match.start()]
            if more and indent.strip():
                return None
            out += [markdown[done:match.start()], "\n".join([first, *(indent + line if line else "" for line in more)])]
            done = match.end()
        return "".join([*out, markdown[done:]])
