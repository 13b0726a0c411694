"""Hook: the announce bar's two notices. When the server answers from its offline sample of the platforms, every
page says so in a banner; a local installation says where its addresses work (`local_banner.py`).

The server hands the builds it runs with the replicas the newest recording date (`SiteInput.sample_recorded_on`);
a build without it (the public site, CI) shows no banner. The banner is Material's announce bar."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.nav import Navigation
from mkdocs.structure.pages import Page

_ROOT = str(Path(__file__).resolve().parents[1])
if _ROOT not in sys.path:  # mkdocs puts only site_hooks/ on sys.path, and only while importing a hook
    sys.path.insert(0, _ROOT)

from site_hooks import bridge, local_banner  # noqa: E402

WORDS = {
    "nl": "Voorbeeldgegevens: deze installatie antwoordt uit een offline steekproef van de platforms, vastgelegd "
          "tot {date}, niet uit de live platforms. Antwoorden zijn niet de actuele stand; de bronvermeldingen wijzen "
          "naar het echte stuk.",
    "en": "Sample data: this installation answers from an offline sample of the platforms, recorded up to {date}, "
          "not from the live platforms. Answers are not the current state; citations point to the real record.",
}
# When only some sources answer from the sample (the others answered at start and are served live).
SOME = {
    "nl": "Voorbeeldgegevens voor {sources}: die bronnen antwoorden uit een offline steekproef, vastgelegd tot "
          "{date}, omdat ze bij de start niet antwoordden; de andere bronnen antwoorden live.",
    "en": "Sample data for {sources}: those sources answer from an offline sample, recorded up to {date}, because "
          "they did not answer at start; the other sources answer live.",
}


def banner(config: MkDocsConfig) -> str | None:
    given = bridge.site_input(config)
    recorded = given.sample_recorded_on
    if not recorded:
        return None
    lang = bridge.current_language(config)
    if given.sample_sources:
        platforms = bridge.site_data(config).registry.platforms
        names = ", ".join(platforms[k].title[lang] if k in platforms else k for k in given.sample_sources)
        return SOME.get(lang, SOME["en"]).format(sources=names, date=recorded)
    return WORDS.get(lang, WORDS["en"]).format(date=recorded)


def on_page_context(context: dict[str, Any], page: Page, config: MkDocsConfig, nav: Navigation) -> dict[str, Any]:
    context["bb_sample_banner"] = banner(config)
    context["bb_local_banner"] = local_banner.banner(config)
    return context


def on_template_context(context: dict[str, Any], template_name: str, config: MkDocsConfig) -> dict[str, Any]:
    """The pages rendered from a template alone (404.html) get the banners too."""
    context["bb_sample_banner"] = banner(config)
    context["bb_local_banner"] = local_banner.banner(config)
    return context
