"""Hook: the footer's data (`config.extra.besluitbron_footer`, read by overrides/partials/footer.html and
overrides/partials/copyright.html): the enabled connectors whose `in_footer` switch is on, and who runs the
service (server.operator) with links to the Over, Privacy and Toegankelijkheid pages, in the page's language."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
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
            "aggregate": c.connector.aggregate,  # says that one source's own address chooses more precisely
        })
    operator = data.registry.server.operator
    # config.extra, not the page context: 404.html is rendered without a page but reads config.
    config.extra["besluitbron_footer"] = {
        "label": label("footer_label", lang), "copy_label": label("copy_address", lang), "connectors": entries,
        "aggregate_note": label("footer_aggregate_note", lang),
        "connectors_page": _page(files, "connectoren.md", label("llms_connectors", lang)),
        "service": {
            "operator_label": label("pub_footer_operator", lang), "operator": operator.name[lang],
            "contact_label": label("pub_footer_contact", lang), "email": operator.contact.email,
            "url": operator.contact.url,
            "version": label("pub_footer_version", lang, version=data.registry.server.version),
            "pages_label": label("pub_footer_pages", lang),
            "pages": [_page(files, src, label(key, lang)) for src, key in _SERVICE_PAGES],
        },
        "made_with": label("pub_footer_made_with", lang),
    }
    return files


# ----------------------------------------------------------------------------- helpers


def _page(files: Files, src: str, title: str) -> dict[str, Any]:
    file = files.get_file_from_path(src)
    if file is None:  # a renamed page must not leave a dead link in every footer
        raise PluginError(f"besluitbron: footer: no page '{src}' for the link '{title}'")
    return {"src": src, "title": title, "url": file.url}


# ----------------------------------------------------------------------------- data

# The public-service pages every footer links to, in this order.
_SERVICE_PAGES: tuple[tuple[str, str], ...] = (
    ("over.md", "pub_footer_over"),
    ("privacy.md", "pub_footer_privacy"),
    ("toegankelijkheid.md", "pub_footer_accessibility"),
)
