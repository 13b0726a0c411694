"""Hook: the all-languages `sitemap.xml` also at each other language's root (`/en/sitemap.xml`).

Material's language switcher looks up a page's translation in `sitemap.xml` next to each
alternate language's home (`new URL("sitemap.xml", "/en/")`); mkdocs-static-i18n writes the one
sitemap, with hreflang alternates for every language, only at the site root."""

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
    for lang in bridge.languages(config):
        prefix = bridge.lang_prefix(config, lang)
        if not prefix:
            continue
        for name in ("sitemap.xml", "sitemap.xml.gz"):
            if (site / name).is_file():
                (site / prefix).mkdir(parents=True, exist_ok=True)
                shutil.copyfile(site / name, site / prefix / name)
