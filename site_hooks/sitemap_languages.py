"""Hook: the all-languages `sitemap.xml` also in every other folder that holds pages (`/en/`,
`/connectoren/`, `/en/bronplatforms/`, ...).

Material's language switcher fetches `sitemap.xml` relative to every `<link rel="alternate">` of a
page (`new URL("sitemap.xml", link.href)`), and those are the page's own translations, so a
connection page asks for `connectoren/sitemap.xml`. mkdocs-static-i18n writes the one sitemap,
with hreflang alternates for every language, only at the site root; without the copies each
connection page would make requests that 404."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.plugins import event_priority

_ROOT = str(Path(__file__).resolve().parents[1])
if _ROOT not in sys.path:  # mkdocs puts only site_hooks/ on sys.path, and only while importing a hook
    sys.path.insert(0, _ROOT)

from site_hooks import bridge  # noqa: E402

# ----------------------------------------------------------------------------- events


@event_priority(-200)  # after i18n (-100) has written the final sitemap in the last language build
def on_post_build(config: MkDocsConfig) -> None:
    if not bridge.all_languages_done(config):
        return
    site = Path(config.site_dir)
    folders = {page.parent for page in site.rglob("*.html")} - {site}
    for lang in bridge.languages(config):
        prefix = bridge.lang_prefix(config, lang)
        if prefix:
            folders.add(site / prefix)
    for folder in sorted(folders):
        if "assets" in folder.relative_to(site).parts or "search" in folder.relative_to(site).parts:
            continue
        for name in ("sitemap.xml", "sitemap.xml.gz"):
            if (site / name).is_file():
                folder.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(site / name, folder / name)
