"""Hook: put the raw-HTML slots (generated page bodies, parameter tables, explorer entries) back
into each converted page.

pages.py and markers.py render those parts beside the Markdown and leave a placeholder, so
Python-Markdown does not re-parse thousands of table cells (see site_hooks/site_render.py).
Searchable slots go back into the converted page, before Material's search plugin reads it; slots
marked `search=false` (parameter tables) only after it, so the index leaves them out."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority
from mkdocs.structure.files import Files
from mkdocs.structure.nav import Navigation
from mkdocs.structure.pages import Page

_ROOT = str(Path(__file__).resolve().parents[1])
if _ROOT not in sys.path:  # mkdocs puts only site_hooks/ on sys.path, and only while importing a hook
    sys.path.insert(0, _ROOT)

from site_hooks import bridge  # noqa: E402
from site_hooks.site_render import MarkerError, fill_slots, resolve_slot_links  # noqa: E402

# ----------------------------------------------------------------------------- events


def on_page_content(html: str, page: Page, config: MkDocsConfig, files: Files) -> str | None:
    slots = _slots(page, config)
    if not slots:
        return None
    record = bridge.record(bridge.current_language(config))
    slots = resolve_slot_links(slots, bridge.slot_link_resolver(page, files, record.lookups))
    record.slots[bridge.page_src(page.file)] = slots
    bridge.register_slot_anchors(page, slots)
    return _fill(html, page, slots, "s")


@event_priority(-50)  # after Material's search plugin (0) has indexed the page
def on_page_context(context: dict[str, Any], page: Page, config: MkDocsConfig, nav: Navigation) -> dict[str, Any]:
    slots = _slots(page, config)
    if slots and page.content is not None:
        page.content = _fill(page.content, page, slots, "u")
    return context


def _slots(page: Page, config: MkDocsConfig) -> dict[str, str] | None:
    return bridge.record(bridge.current_language(config)).slots.get(bridge.page_src(page.file))


def _fill(html: str, page: Page, slots: dict[str, str], kinds: str) -> str:
    try:
        return fill_slots(html, slots, kinds=kinds)
    except MarkerError as exc:
        raise PluginError(f"besluitbron: {bridge.page_src(page.file)}: {exc}") from exc
