"""Flip a connector switch in registry.json: load, set, validate, write canonical JSON atomically.

registry.json is kept canonical (`canonical_json`: two-space indent, UTF-8 text, a final newline;
a test holds the shipped file to it), so flipping one switch changes exactly one line of the file
and a reviewer sees exactly that.

The CLI `python -m proxy registry enable|disable|show-in-footer|hide-from-footer SLUG` calls this.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any, Literal

from proxy.core.errors import RegistryError
from proxy.registry.model import decode_json, parse_registry

__all__ = ["SWITCHES", "Switch", "canonical_json", "set_switch", "write_atomically"]

Switch = Literal["enabled", "in_footer"]
SWITCHES: tuple[str, ...] = ("enabled", "in_footer")


def canonical_json(data: Any) -> str:
    """The one formatting of registry.json."""
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def set_switch(text: str, slug: str, field: Switch, value: bool) -> str:
    """Return the canonical text of the registry `text` with `connectors[slug].<field>` set to `value`.

    Raises RegistryError when the text is not a valid registry (before or after the edit) or
    names no connector `slug`; ValueError for a field that is not a switch.
    """
    if field not in SWITCHES:
        raise ValueError(f"field must be one of {SWITCHES}, got {field!r}")
    if not isinstance(value, bool):
        raise ValueError(f"value must be true or false, got {value!r}")
    data = decode_json(text)
    connectors = data.get("connectors") if isinstance(data, dict) else None
    if not isinstance(connectors, list):
        raise RegistryError(["connectors: missing or not a list"])
    for index, item in enumerate(connectors):
        if not isinstance(item, dict) or item.get("slug") != slug:
            continue
        if not isinstance(item.get(field), bool):
            raise RegistryError([f"connectors[{index}].{field}: missing or not true/false"])
        item[field] = value
        parse_registry(data, source="(edited)")
        return canonical_json(data)
    known = ", ".join(str(item["slug"]) for item in connectors if isinstance(item, dict) and "slug" in item)
    raise RegistryError([f"connectors: no connector with slug '{slug}' (known: {known})"])


def write_atomically(path: Path, text: str) -> None:
    """Replace `path` in one step: a watching server never reads half a file."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
