"""A local installation says on every page that its addresses work on this computer only, and links to what
going public takes; a public installation (its `public_url` a public https address) says nothing of it.

Every page shows an address (the footer names Alle Bronnen), so the notice is in Material's announce bar, beside
the sample banner; the hook `sample_banner.py` puts both there."""

from __future__ import annotations

import sys
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig

_ROOT = str(Path(__file__).resolve().parents[1])
if _ROOT not in sys.path:  # mkdocs puts only site_hooks/ on sys.path, and only while importing a hook
    sys.path.insert(0, _ROOT)

from site_hooks import bridge  # noqa: E402
from site_hooks.site_labels import label  # noqa: E402
from site_hooks.site_render import local_notice  # noqa: E402


def banner(config: MkDocsConfig) -> dict[str, str] | None:
    lang = bridge.current_language(config)
    text = local_notice(bridge.site_data(config), lang)
    if text is None:
        return None
    return {"text": text, "link": label("local_notice_link", lang),
            "href": bridge.site_url(config) + bridge.lang_prefix(config, lang) + "publiek-maken.html"}
