"""Hook: the footer's connectors (`config.extra.besluitbron_footer`, read by
overrides/partials/footer.html): only enabled connectors whose `in_footer` switch is on."""

from __future__ import annotations

import sys
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.plugins import event_priority
from mkdocs.structure.files import Files

_ROOT = str(Path(__file__).resolve().parents[1])
if _ROOT not in sys.path:  # mkdocs puts only site_hooks/ on sys.path, and only while importing a hook
    sys.path.insert(0, _ROOT)

from site_hooks import bridge  # noqa: E402
from site_hooks.site_data import connector_src  # noqa: E402
from site_hooks.site_labels import label  # noqa: E402
from site_hooks.site_render import address_markup  # noqa: E402

# ----------------------------------------------------------------------------- events


@event_priority(-120)  # after pages.py (-110) added this language's connection pages
def on_files(files: Files, config: MkDocsConfig) -> Files:
    data = bridge.site_data(config)
    lang = bridge.current_language(config)
    entries = []
    for c in data.footer:
        page = files.get_file_from_path(connector_src(c.slug))
        entries.append({
            "slug": c.slug,
            "title": c.connector.title[lang],
            "address": data.url(c.slug),
            "address_html": address_markup(data.url(c.slug)),
            "page": page.url if page else None,
        })
    # config.extra, not the page context: 404.html is rendered without a page but reads config.
    config.extra["besluitbron_footer"] = {"label": label("footer_label", lang),
                                          "copy_label": label("copy_address", lang), "connectors": entries}
    return files
