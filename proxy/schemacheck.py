"""Compiled JSON Schema checks for the per-call path, with jsonschema's words when a check fails.

`jsonschema` interprets a schema on every call: about a millisecond for one search result, the
largest cost of a cached tool call (bench/RESULTS.md). `fastjsonschema` turns a schema into Python
code once (some milliseconds, so lazily, and shared by every endpoint that serves the same schema)
after which a check costs microseconds. jsonschema stays the reference: when the compiled check
refuses a value, jsonschema says why, and it has the last word should the two ever disagree.

Both leave `format` alone (jsonschema treats it as an annotation) and neither fills in defaults:
a check never changes the value it looks at.
"""

from __future__ import annotations

import functools
import itertools
import json
import logging
from collections.abc import Callable, Mapping
from typing import Any

import fastjsonschema
import jsonschema

__all__ = ["SchemaCheck"]

log = logging.getLogger(__name__)


class SchemaCheck:
    """One schema's check: `problems(value)` is empty when the value conforms."""

    __slots__ = ("_fast", "_key", "_reference", "_schema")

    def __init__(self, schema: Mapping[str, Any]) -> None:
        self._schema = schema
        self._key = json.dumps(schema, sort_keys=True, separators=(",", ":"))
        self._fast: Callable[[Any], Any] | None = None
        self._reference: jsonschema.Draft202012Validator | None = None

    def problems(self, value: Any, limit: int = 5) -> list[jsonschema.ValidationError]:
        """Up to `limit` ways `value` breaks the schema, in path order; [] when it conforms.

        jsonschema builds its errors lazily: stopping at `limit` keeps a huge wrong value cheap."""
        if self._fast is None:
            self._fast = _compiled(self._key)
        try:
            self._fast(value)
            return []
        except fastjsonschema.JsonSchemaValueException:
            pass
        if self._reference is None:
            self._reference = jsonschema.Draft202012Validator(self._schema)
        found = itertools.islice(self._reference.iter_errors(value), limit)
        return sorted(found, key=lambda e: [str(p) for p in e.absolute_path])


@functools.lru_cache(maxsize=2048)
def _compiled(key: str) -> Callable[[Any], Any]:
    """The compiled check of a schema (by its canonical JSON), or jsonschema's when it cannot compile."""
    schema = json.loads(key)
    try:
        return fastjsonschema.compile(schema, use_default=False, use_formats=False)  # type: ignore[no-any-return]
    except fastjsonschema.JsonSchemaDefinitionException:
        log.warning("schema cannot be compiled; checking it with jsonschema: %s", key[:200])
        validator = jsonschema.Draft202012Validator(schema)

        def check(value: Any) -> None:
            if not validator.is_valid(value):
                raise fastjsonschema.JsonSchemaValueException("does not conform")

        return check
