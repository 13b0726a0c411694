"""A tool's input parameters as a page shows them, in the page's language. Pure: no mkdocs import.

A parameter's words come from the registry (`tools[].params.<name>`, Dutch and English, through
`CatalogTool.param_words`) when given there; otherwise the input schema's own `description`,
which the platform modules write in English. A Dutch page then shows that text only behind a
"Technische details" toggle, so no English reaches its running text. Types and constraints are
put into words per language.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["PageParam", "page_params"]


@dataclass(frozen=True, slots=True)
class PageParam:
    """One input parameter as a page in one language shows it."""

    name: str
    type: str
    required: bool
    default: str | None
    description: str | None  # in the page's language, or None
    schema_text: str | None  # the schema's own (English) text, when no translation replaces it
    constraints: tuple[tuple[str, bool], ...]  # (text, is a value to write as code)


def page_params(schema: Mapping[str, Any], words: Mapping[str, str], lang: str,
                results_per_call: int | None = None) -> tuple[PageParam, ...]:
    """The top-level properties of `schema` in schema order; `words` are the registry's, in `lang`.

    `results_per_call` is this installation's cap on a search's `limit` (the platform's registry limit): the
    server accepts a larger limit and lowers it with a note, so the page states the cap it enforces, not the
    schema's wider bound. A translation for a parameter the schema does not have is a mistake in the registry:
    ValueError."""
    props = schema.get("properties", {})
    unknown = sorted(set(words) - set(props))
    if unknown:
        raise ValueError(f"registry parameters {unknown} are not in the tool's input schema ({', '.join(props)})")
    required = set(schema.get("required", ()))
    out = []
    for name, prop in props.items():
        prop = prop if isinstance(prop, Mapping) else {}
        own = str(prop.get("description", "")).strip() or None
        translated = words.get(name) or None
        out.append(PageParam(
            name=name,
            type=_type_label(prop, lang),
            required=name in required,
            default=json.dumps(prop["default"], ensure_ascii=False) if "default" in prop else None,
            description=translated if translated else (own if lang == "en" else None),
            schema_text=None if translated or lang == "en" else own,
            constraints=_constraints(_capped(prop, results_per_call) if name == "limit" else prop, lang),
        ))
    return tuple(out)


def _capped(prop: Mapping[str, Any], cap: int | None) -> Mapping[str, Any]:
    if cap is None or not isinstance(prop.get("maximum"), int) or prop["maximum"] <= cap:
        return prop
    return {**prop, "maximum": cap}


def _type_label(prop: Mapping[str, Any], lang: str) -> str:
    words = _TYPES[lang]
    if "enum" in prop:
        return words["enum"]
    if "const" in prop:
        return words["const"]
    kind = prop.get("type")
    if isinstance(kind, list):
        label = _OR[lang].join(words.get(str(k), str(k)) for k in kind)
    elif isinstance(kind, str):
        label = words.get(kind, kind)
    elif "anyOf" in prop or "oneOf" in prop:
        options = prop.get("anyOf") or prop.get("oneOf") or []
        label = _OR[lang].join(_type_label(o, lang) for o in options if isinstance(o, Mapping))
    else:
        label = words["any"]
    if kind == "array" and isinstance(prop.get("items"), Mapping):
        label = _LIST_OF[lang].format(item=_type_label(prop["items"], lang))
    fmt = prop.get("format")
    if isinstance(fmt, str):
        label = f"{label} ({_FORMATS[lang].get(fmt, fmt)})"
    return label


def _constraints(prop: Mapping[str, Any], lang: str) -> tuple[tuple[str, bool], ...]:
    """Allowed values and limits: values (enum members, patterns) as code, limits in words."""
    words = _LIMITS[lang]
    parts: list[tuple[str, bool]] = []
    items = prop.get("items")
    values = [*prop.get("enum", ()), *([prop["const"]] if "const" in prop else []),
              *(items.get("enum", ()) if isinstance(items, Mapping) else ())]
    parts += [(json.dumps(v, ensure_ascii=False), True) for v in values]
    for key in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength",
                "minItems", "maxItems"):
        if key in prop:
            parts.append((words[key].format(value=prop[key]), False))
    if "pattern" in prop:
        parts += [(words["pattern"], False), (str(prop["pattern"]), True)]
    return tuple(parts)


# ----------------------------------------------------------------------------- data

_TYPES: Mapping[str, Mapping[str, str]] = {
    "nl": {"string": "tekst", "integer": "geheel getal", "number": "getal", "boolean": "ja of nee",
           "array": "lijst", "object": "object", "null": "leeg", "enum": "keuze", "const": "vaste waarde",
           "any": "willekeurig"},
    "en": {"string": "text", "integer": "whole number", "number": "number", "boolean": "yes or no",
           "array": "list", "object": "object", "null": "empty", "enum": "choice", "const": "fixed value",
           "any": "any"},
}
_OR = {"nl": " of ", "en": " or "}
_LIST_OF = {"nl": "lijst van {item}", "en": "list of {item}"}
_FORMATS: Mapping[str, Mapping[str, str]] = {
    "nl": {"date": "datum, JJJJ-MM-DD", "date-time": "datum en tijd", "uri": "webadres", "email": "e-mailadres"},
    "en": {"date": "date, YYYY-MM-DD", "date-time": "date and time", "uri": "web address", "email": "email address"},
}
_LIMITS: Mapping[str, Mapping[str, str]] = {
    "nl": {"minimum": "minstens {value}", "maximum": "hoogstens {value}", "exclusiveMinimum": "meer dan {value}",
           "exclusiveMaximum": "minder dan {value}", "minLength": "minstens {value} tekens",
           "maxLength": "hoogstens {value} tekens", "minItems": "minstens {value} waarden",
           "maxItems": "hoogstens {value} waarden", "pattern": "in de vorm"},
    "en": {"minimum": "at least {value}", "maximum": "at most {value}", "exclusiveMinimum": "more than {value}",
           "exclusiveMaximum": "less than {value}", "minLength": "at least {value} characters",
           "maxLength": "at most {value} characters", "minItems": "at least {value} values",
           "maxItems": "at most {value} values", "pattern": "in the form"},
}
