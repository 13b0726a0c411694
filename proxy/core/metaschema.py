"""Is this JSON Schema valid under the 2020-12 meta-schema? Asked of every tool schema at each catalogue build
(server start, reload, site build) and of every listed remote tool.

jsonschema walks the 2020-12 meta-schema's dynamic references in Python, about 20 ms a schema; jsonschema-rs
answers in microseconds, so it decides. Only for a schema it rejects does jsonschema name the problem, with the
same best-match message as before."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import jsonschema
import jsonschema_rs

__all__ = ["meta_schema_problem"]

_META_VALIDATOR = jsonschema.Draft202012Validator(jsonschema.Draft202012Validator.META_SCHEMA)
_DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema"


def meta_schema_problem(schema: Mapping[str, Any]) -> str | None:
    """None for a valid 2020-12 schema, else what is wrong with it, in jsonschema's words."""
    # jsonschema-rs picks the meta-schema by `$schema`; the check is against 2020-12 whatever a schema names.
    if schema.get("$schema", _DRAFT_2020_12) == _DRAFT_2020_12 and _fast_valid(schema):
        return None
    error = jsonschema.exceptions.best_match(_META_VALIDATOR.iter_errors(schema))
    return error.message if error else None


def _fast_valid(schema: Mapping[str, Any]) -> bool:
    try:
        return bool(jsonschema_rs.meta.is_valid(dict(schema)))
    except (jsonschema_rs.ReferencingError, ValueError, TypeError):  # a reference it cannot resolve: ask jsonschema
        return False
