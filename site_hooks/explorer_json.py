"""Hook: `explorer.json` per language, the catalog the explorer page points to (`data-catalog`)
for the live explorer script: connectors and addresses; and per connector `explorer/<slug>.json`,
its tools with titles, descriptions and input schemas, which the script fetches when that connector is chosen."""

from __future__ import annotations

import sys
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig

_ROOT = str(Path(__file__).resolve().parents[1])
if _ROOT not in sys.path:  # mkdocs puts only site_hooks/ on sys.path, and only while importing a hook
    sys.path.insert(0, _ROOT)

from site_hooks import bridge  # noqa: E402
from site_hooks.site_data import connector_src  # noqa: E402
from site_hooks.site_render import (  # noqa: E402
    explorer_tools_file,
    render_explorer_json,
    render_explorer_tools,
)

# ----------------------------------------------------------------------------- events


def on_post_build(config: MkDocsConfig) -> None:
    lang = bridge.current_language(config)
    data = bridge.site_data(config)
    record = bridge.record(lang)
    text = render_explorer_json(data, lang, connection_pages={
        c.slug: record.generated[connector_src(c.slug)] for c in data.connectors
    })
    folder = Path(config.site_dir) / bridge.lang_prefix(config, lang)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "explorer.json").write_text(text, encoding="utf-8")
    for c in data.connectors:
        target = folder / explorer_tools_file(c.slug)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(render_explorer_tools(c, lang), encoding="utf-8")
