"""Hook: every address in a page's content breaks only between its parts (`site_breaks.break_addresses`).

It runs on the finished content, after the slots are back (slots.py, -50), so it reaches the generated pages, the
client tabs and the hand-written pages alike; the search index (read before) and the Markdown twins never see it."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.plugins import event_priority
from mkdocs.structure.nav import Navigation
from mkdocs.structure.pages import Page

_ROOT = str(Path(__file__).resolve().parents[1])
if _ROOT not in sys.path:  # mkdocs puts only site_hooks/ on sys.path, and only while importing a hook
    sys.path.insert(0, _ROOT)

from site_hooks.site_breaks import break_addresses  # noqa: E402


@event_priority(-60)
def on_page_context(context: dict[str, Any], page: Page, config: MkDocsConfig, nav: Navigation) -> dict[str, Any]:
    if page.content is not None:
        page.content = break_addresses(page.content)
    return context
