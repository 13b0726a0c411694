"""Hook: when the server answers from its offline sample of the platforms, every page says so in a banner.

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

from site_hooks import bridge  # noqa: E402

WORDS = {
    "nl": "Voorbeeldgegevens: deze installatie antwoordt uit een offline steekproef van de platforms, vastgelegd "
          "tot {date}, niet uit de live platforms. Antwoorden zijn niet de actuele stand; de bronvermeldingen wijzen "
          "naar het echte stuk.",
    "en": "Sample data: this installation answers from an offline sample of the platforms, recorded up to {date}, "
          "not from the live platforms. Answers are not the current state; citations point to the real record.",
}


def banner(config: MkDocsConfig) -> str | None:
    recorded = bridge.site_input(config).sample_recorded_on
    lang = bridge.current_language(config)
    return WORDS.get(lang, WORDS["en"]).format(date=recorded) if recorded else None


def on_page_context(context: dict[str, Any], page: Page, config: MkDocsConfig, nav: Navigation) -> dict[str, Any]:
    context["bb_sample_banner"] = banner(config)
    return context


def on_template_context(context: dict[str, Any], template_name: str, config: MkDocsConfig) -> dict[str, Any]:
    """The pages rendered from a template alone (404.html) get the banner too."""
    context["bb_sample_banner"] = banner(config)
    return context
