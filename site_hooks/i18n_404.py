"""Hook: one 404 page per language (`/404.html` Dutch, `/en/404.html` English).

mkdocs-static-i18n renders the theme's 404.html in every language build into the same file, so
the last language wins, and its language switcher keeps the links of the last page rendered
(upstream ultrabug/mkdocs-static-i18n#284, #326, #349). This hook resets the switcher to each
language's home page, captures each language's 404, and writes both after the last build."""

from __future__ import annotations

import copy
import sys
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.plugins import event_priority

_ROOT = str(Path(__file__).resolve().parents[1])
if _ROOT not in sys.path:  # mkdocs puts only site_hooks/ on sys.path, and only while importing a hook
    sys.path.insert(0, _ROOT)

from site_hooks import bridge  # noqa: E402

# ----------------------------------------------------------------------------- events


def on_template_context(context: dict[str, Any], template_name: str, config: MkDocsConfig) -> dict[str, Any]:
    if template_name != "404.html":
        return context
    plugin = config.plugins.get("i18n")
    if plugin is not None and getattr(plugin, "extra_alternate", None):
        # i18n stores the per-page switcher as an *attribute* of config.extra, which Jinja reads
        # before the key; put each language's home page back.
        config.extra.alternate = copy.deepcopy(plugin.extra_alternate)  # type: ignore[attr-defined]  # i18n's, undeclared
    return context


def on_post_template(output: str, template_name: str, config: MkDocsConfig) -> str:
    if template_name == "404.html":
        _CAPTURED[bridge.current_language(config)] = output
    return output


@event_priority(-110)  # after i18n's on_post_build (-100) has built the other languages
def on_post_build(config: MkDocsConfig) -> None:
    if not bridge.all_languages_done(config):
        return
    for lang, output in sorted(_CAPTURED.items()):
        target = Path(config.site_dir) / bridge.lang_prefix(config, lang) / "404.html"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(output, encoding="utf-8")
    _CAPTURED.clear()


def hand_over(config: MkDocsConfig) -> dict[str, str]:
    """A language built in its own process (site_hooks/parallel_languages.py) hands its 404 page over."""
    return dict(_CAPTURED)


def take_over(config: MkDocsConfig, handed: dict[str, str]) -> None:
    _CAPTURED.update(handed)


# ----------------------------------------------------------------------------- data

_CAPTURED: dict[str, str] = {}
