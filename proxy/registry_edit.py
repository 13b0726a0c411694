"""Flip a connector switch in registry.json text without touching anything else.

Maintainers keep registry.json under review, so an edit must change exactly one JSON value and
leave indentation, key order and every other byte alone. `set_switch` finds the value's span with
a small position-tracking scanner (the `json` module reports no positions), replaces it, and
validates the result with `proxy.registry.parse_registry` before handing it back.

The CLI `python -m proxy registry enable|disable|show-in-footer|hide-from-footer SLUG` calls this.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Literal

from proxy.errors import RegistryError
from proxy.registry import decode_json, parse_registry

__all__ = ["SWITCHES", "Switch", "set_switch"]

Switch = Literal["enabled", "in_footer"]
SWITCHES: tuple[str, ...] = ("enabled", "in_footer")


def set_switch(text: str, slug: str, field: Switch, value: bool) -> str:
    """Return `text` with `connectors[slug].<field>` set to `value`; only that literal changes.

    Raises RegistryError when the text is not a valid registry (before or after the edit) or
    names no connector `slug`; ValueError for a field that is not a switch.
    """
    if field not in SWITCHES:
        raise ValueError(f"field must be one of {SWITCHES}, got {field!r}")
    if not isinstance(value, bool):
        raise ValueError(f"value must be true or false, got {value!r}")
    try:
        root = _Scanner(text).document()
    except _ScanError as exc:
        raise RegistryError([f"(file): not valid JSON at line {exc.line} column {exc.column}: {exc.msg}"]) from exc

    connectors = root.members.get("connectors") if root.kind == "object" else None
    if connectors is None or connectors.kind != "array":
        raise RegistryError(["connectors: missing or not a list"])
    for index, item in enumerate(connectors.items):
        slug_node = item.members.get("slug") if item.kind == "object" else None
        if slug_node is None or slug_node.value != slug:
            continue
        target = item.members.get(field)
        if target is None or not isinstance(target.value, bool):
            raise RegistryError([f"connectors[{index}].{field}: missing or not true/false"])
        if target.value is value:
            new_text = text
        else:
            new_text = text[:target.start] + ("true" if value else "false") + text[target.end:]
        parse_registry(decode_json(new_text), source="(edited)")
        return new_text
    known = ", ".join(
        str(item.members["slug"].value) for item in connectors.items
        if item.kind == "object" and "slug" in item.members
    )
    raise RegistryError([f"connectors: no connector with slug '{slug}' (known: {known})"])


# --------------------------------------------------------------------------- scanner


@dataclass(slots=True)
class _Node:
    """A JSON value with its [start, end) span in the source text."""

    kind: str  # object | array | scalar
    start: int
    end: int
    value: Any = None
    members: dict[str, _Node] = field(default_factory=dict)
    items: list[_Node] = field(default_factory=list)


class _ScanError(Exception):
    def __init__(self, msg: str, text: str, pos: int) -> None:
        self.msg = msg
        self.line = text.count("\n", 0, pos) + 1
        self.column = pos - (text.rfind("\n", 0, pos) + 1) + 1
        super().__init__(f"{msg} at line {self.line} column {self.column}")


_WS = re.compile(r"[ \t\n\r]*")
_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?")
_DECODER = json.JSONDecoder()


class _Scanner:
    """Just enough of a JSON parser to know where each value sits; strings decode via `json`."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def document(self) -> _Node:
        node = self.value()
        self.skip()
        if self.pos != len(self.text):
            raise _ScanError("extra data after the document", self.text, self.pos)
        return node

    def skip(self) -> None:
        match = _WS.match(self.text, self.pos)
        self.pos = match.end() if match else self.pos

    def value(self) -> _Node:
        self.skip()
        if self.pos >= len(self.text):
            raise _ScanError("unexpected end of text", self.text, self.pos)
        char = self.text[self.pos]
        if char == "{":
            return self.obj()
        if char == "[":
            return self.array()
        if char == '"':
            start = self.pos
            return _Node("scalar", start, self.pos, value=self.string())
        for literal, val in (("true", True), ("false", False), ("null", None)):
            if self.text.startswith(literal, self.pos):
                start, self.pos = self.pos, self.pos + len(literal)
                return _Node("scalar", start, self.pos, value=val)
        match = _NUMBER.match(self.text, self.pos)
        if match is None:
            raise _ScanError("expected a value", self.text, self.pos)
        self.pos = match.end()
        return _Node("scalar", match.start(), match.end(), value=json.loads(match.group()))

    def string(self) -> str:
        try:
            decoded, end = _DECODER.raw_decode(self.text, self.pos)
        except json.JSONDecodeError as exc:
            raise _ScanError(exc.msg, self.text, exc.pos) from exc
        self.pos = end
        return str(decoded)

    def obj(self) -> _Node:
        node = _Node("object", self.pos, self.pos)
        self.pos += 1
        self.skip()
        if self.text.startswith("}", self.pos):
            self.pos += 1
            node.end = self.pos
            return node
        while True:
            self.skip()
            if not self.text.startswith('"', self.pos):
                raise _ScanError("expected a property name", self.text, self.pos)
            key = self.string()
            self.skip()
            if not self.text.startswith(":", self.pos):
                raise _ScanError("expected ':'", self.text, self.pos)
            self.pos += 1
            node.members[key] = self.value()
            self.skip()
            if self.text.startswith(",", self.pos):
                self.pos += 1
                continue
            if self.text.startswith("}", self.pos):
                self.pos += 1
                node.end = self.pos
                return node
            raise _ScanError("expected ',' or '}'", self.text, self.pos)

    def array(self) -> _Node:
        node = _Node("array", self.pos, self.pos)
        self.pos += 1
        self.skip()
        if self.text.startswith("]", self.pos):
            self.pos += 1
            node.end = self.pos
            return node
        while True:
            node.items.append(self.value())
            self.skip()
            if self.text.startswith(",", self.pos):
                self.pos += 1
                continue
            if self.text.startswith("]", self.pos):
                self.pos += 1
                node.end = self.pos
                return node
            raise _ScanError("expected ',' or ']'", self.text, self.pos)
