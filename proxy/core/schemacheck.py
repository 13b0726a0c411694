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
from collections.abc import Callable, Iterator, Mapping
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

        Cost-bounded: wrong types and values over a size limit (maxItems, maxLength, maxProperties) are
        found by a walk that never enters a wrong or oversized part; only a value of the right shape goes to
        jsonschema, whose lazily built errors stop at `limit`."""
        if self._fast is None:
            self._fast = _compiled(self._key)
        try:
            self._fast(value)
            return []
        except fastjsonschema.JsonSchemaValueException:
            pass
        if self._reference is None:
            self._reference = jsonschema.Draft202012Validator(self._schema)
        misfits = list(itertools.islice(_misfits(self._schema, value, ()), limit))
        if any(e.validator in _SHAPE for e in misfits):
            return sorted(misfits, key=_by_path)
        found = itertools.islice(self._reference.iter_errors(value), limit)
        return sorted(found, key=_by_path)


_SIZE_LIMITS = {"maxItems": list, "maxLength": str, "maxProperties": dict}
_SHAPE = frozenset({"type", *_SIZE_LIMITS})


def _by_path(error: jsonschema.ValidationError) -> list[str]:
    return [str(p) for p in error.absolute_path]


def _misfits(schema: Any, value: Any, path: tuple[Any, ...]) -> Iterator[jsonschema.ValidationError]:
    """The wrong types and broken size limits in `value`, walking only into parts of the right type and within
    their limits: a walk that costs no more than a conforming value would, and errors that name a value by
    its type and size (jsonschema's own quote the whole value, which may be 1 MB)."""
    if not isinstance(schema, Mapping):
        return
    declared = schema.get("type")
    if declared is not None:
        wanted = declared if isinstance(declared, list) else [declared]
        actual = _json_types(value)
        if not actual & set(wanted):
            yield jsonschema.ValidationError(f"is {_a(sorted(actual)[0])}, not {' or '.join(_a(t) for t in wanted)}",
                                             validator="type", validator_value=declared, instance=value,
                                             schema=schema, path=path)
            return
    broken = False
    for keyword, kind in _SIZE_LIMITS.items():
        bound = schema.get(keyword)
        if isinstance(value, kind) and isinstance(bound, int) and len(value) > bound:
            broken = True
            yield jsonschema.ValidationError(f"is too long ({len(value)}, at most {bound})", validator=keyword,
                                             validator_value=bound, instance=value, schema=schema, path=path)
    if broken:
        return
    for key in ("allOf",):  # every branch holds (anyOf / oneOf branches are alternatives: left to jsonschema)
        for sub in schema.get(key) or ():
            yield from _misfits(sub, value, path)
    if isinstance(value, dict):
        properties = schema.get("properties") or {}
        extra = schema.get("additionalProperties")
        # Cheap to find and worth saying with a wrong type: names that are not parameters, ones left out.
        unexpected = [name for name in value if name not in properties] if extra is False else []
        if unexpected:
            listed = ", ".join(repr(name[:40]) for name in unexpected[:5])
            yield jsonschema.ValidationError(
                f"Additional properties are not allowed ({listed} {'was' if len(unexpected) == 1 else 'were'} "
                "unexpected)", validator="additionalProperties", validator_value=False, instance=value,
                schema=schema, path=path)
        for name in schema.get("required") or ():
            if name not in value:
                yield jsonschema.ValidationError(f"{name!r} is a required property", validator="required",
                                                 validator_value=schema["required"], instance=value,
                                                 schema=schema, path=path)
        for name, item in value.items():
            yield from _misfits(properties.get(name, extra), item, (*path, name))
    elif isinstance(value, list):
        items = schema.get("items")
        for i, item in enumerate(value):
            yield from _misfits(items, item, (*path, i))


def _json_types(value: Any) -> set[str]:
    if value is None:
        return {"null"}
    if isinstance(value, bool):
        return {"boolean"}
    if isinstance(value, int):
        return {"integer", "number"}
    if isinstance(value, float):
        return {"number", "integer"} if value.is_integer() else {"number"}
    names: dict[type, str] = {str: "string", list: "array", dict: "object"}
    return {names.get(type(value), "value")}


def _a(kind: str) -> str:
    return f"an {kind}" if kind[0] in "aeiou" else f"a {kind}"


@functools.lru_cache(maxsize=2048)
def _compiled(key: str) -> Callable[[Any], Any]:
    """The compiled check of a schema (by its canonical JSON), or jsonschema's when it cannot compile."""
    schema = json.loads(key)
    try:
        return fastjsonschema.compile(schema, use_default=False, use_formats=False)
    except fastjsonschema.JsonSchemaDefinitionException:
        log.warning("schema cannot be compiled; checking it with jsonschema: %s", key[:200])
        validator = jsonschema.Draft202012Validator(schema)

        def check(value: Any) -> None:
            if not validator.is_valid(value):
                raise fastjsonschema.JsonSchemaValueException("does not conform")

        return check
