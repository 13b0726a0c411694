"""OpenBesluitvorming organisations by the names people write, resolved onto the platform's own keys.

The platform's labels are made from its keys ("Den Bosch", "Hofvantwente", "Capelle Ad Ijssel", and the
province of Groningen is labelled just "Groningen"), so a label alone misses the official names. Each
municipality in the platform's catalogue carries its CBS code (`cbsId` in `/api/status`); the CBS table
(`ori_municipalities.json`) gives the official name for that code, so "'s-Hertogenbosch", "Capelle aan den IJssel"
and "Súdwest-Fryslân" resolve without a line per council. Names are compared compact: case, accents, spaces,
hyphens and punctuation ignored ("Hof van Twente" = "Hofvantwente"), and a leading "'s-" may be left out.

What the CBS table cannot give (exonyms, abbreviations, a province's other name) is in `ori_aliases.json`, keyed
by the platform's source key; a test checks every key against the platform's real catalogue.

Tiers: a label, key, official name or alias is a full name; a name without its kind word ("Delfland" for
"Hoogheemraadschap Van Delfland") or without its CBS qualifier ("Bergen" for "Bergen (NH.)") is a short name and
is only used when no full name matches. A place name alone means the gemeente when exactly one gemeente matches,
and says which other organisations share the name.
"""

from __future__ import annotations

import difflib
import json
import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from proxy.errors import ToolInputError
from proxy.platforms._resolve import Table

__all__ = ["ALIASES", "KINDS", "MUNICIPALITIES", "Municipalities", "Organisation", "Resolved", "compact",
           "load_aliases", "organisations_from", "resolve"]

KINDS = ("gemeente", "provincie", "waterschap")
HERE = Path(__file__).parent
ALIAS_FILE = HERE / "ori_aliases.json"
MUNICIPALITY_FILE = HERE / "ori_municipalities.json"
# Words in front of a name that say which kind of organisation is meant (longest first).
KIND_WORDS: tuple[tuple[str, str], ...] = (
    ("provinciale staten van", "provincie"), ("gemeenteraad van", "gemeente"), ("hoogheemraadschap van", "waterschap"),
    ("gemeente", "gemeente"), ("gemeenteraad", "gemeente"), ("provincie", "provincie"), ("waterschap", "waterschap"),
    ("hoogheemraadschap", "waterschap"), ("wetterskip", "waterschap"),
)
_QUALIFIER = re.compile(r"\s*\([^)]*\)\s*$")
_ARTICLE = re.compile(r"^'?s[\s-]+", re.IGNORECASE)


def _plain(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def words(text: str) -> str:
    """Lower case, no accents, words separated by one space."""
    return " ".join(re.sub(r"[^a-z0-9]+", " ", _plain(text)).split())


def compact(text: str) -> str:
    """How names are compared: lower case, no accents, nothing but letters and digits."""
    return re.sub(r"[^a-z0-9]+", "", _plain(text))


def _kind_of(text: str) -> tuple[str | None, str]:
    """(kind named by a leading kind word, the rest), e.g. 'Provincie Utrecht' → ('provincie', 'utrecht')."""
    plain = words(text)
    for word, kind in KIND_WORDS:
        if plain.startswith(word + " "):
            return kind, plain[len(word) + 1:]
    return None, plain


def _variants(name: str) -> set[str]:
    """A name compact, and without a leading "'s-" ('s-Hertogenbosch → hertogenbosch)."""
    out = {compact(name)}
    if _ARTICLE.match(name.strip()):
        out.add(compact(_ARTICLE.sub("", name.strip())))
    return out - {""}


# =========================================================================== tables


@dataclass(frozen=True, slots=True)
class Municipalities:
    """CBS municipality codes with official names; former ones with their merger."""

    current: Mapping[str, str]
    former: Mapping[str, Mapping[str, str]]

    def name(self, code: str | None) -> str | None:
        if not code:
            return None
        return self.current.get(code) or (self.former.get(code) or {}).get("name")

    @classmethod
    def load(cls, path: Path = MUNICIPALITY_FILE) -> Municipalities:
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
            current = {str(k): str(v) for k, v in raw["current"].items()}
            former = {str(k): {"name": str(v["name"]), "merged_on": str(v["merged_on"]), "into": str(v["into"])}
                      for k, v in raw["former"].items()}
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            raise ValueError(f"{path.name}: not a municipality table ({exc})") from exc
        return cls(current, former)


def load_aliases(path: Path = ALIAS_FILE) -> dict[str, str]:
    """The alias table as compact name → platform source key; a malformed file fails on import."""
    table = Table.load(path, argument="organisation")
    return {form: entry.key for entry in table.entries for name in entry.names for form in _variants(name)}


ALIASES: Mapping[str, str] = load_aliases()
MUNICIPALITIES = Municipalities.load()


# =========================================================================== organisations


@dataclass(frozen=True, slots=True)
class Organisation:
    """One organisation of the platform: `key` is what its `organization` parameter takes.

    `official` is the CBS name for its code (municipalities only); `merged_on`/`successor` say where a merged
    municipality's newer material is (`successor_key` when the platform imports the successor)."""

    key: str
    label: str
    kind: str
    supplier: str
    implemented: bool
    cbs: str | None = None
    official: str | None = None
    merged_on: str | None = None
    successor: str | None = None
    successor_key: str | None = None

    @property
    def name(self) -> str:
        """The name to show: the official one where there is one (the label is made from the key)."""
        return self.official or self.label

    def full_forms(self, aliases: Mapping[str, str]) -> set[str]:
        forms = _variants(self.label) | _variants(self.key)
        if self.official:  # 'Bergen (NH.)' is also just 'Bergen', which makes 'Bergen' ambiguous, as it is
            forms |= _variants(self.official) | _variants(_QUALIFIER.sub("", self.official))
        return forms | {name for name, key in aliases.items() if key == self.key}

    def short_forms(self) -> set[str]:
        """The label without its kind word: 'Hoogheemraadschap Van Delfland' → 'delfland'."""
        kind, rest = _kind_of(self.label)
        return _variants(rest) if kind and rest else set()


def organisations_from(sources: Any, status: Mapping[str, Mapping[str, Any]],
                       municipalities: Municipalities = MUNICIPALITIES) -> tuple[Organisation, ...]:
    """Organisations from a `/api/sources` reply joined with the `/api/status` rows (CBS code, merger)."""
    rows = sources.get("sources") if isinstance(sources, dict) else None
    if not isinstance(rows, list):
        raise ValueError("not a /api/sources reply")
    plain = [r for r in rows if isinstance(r, dict) and r.get("key") and not r.get("isAggregate")
             and not str(r["key"]).startswith("all_")]  # the all_<supplier> rows pass the check but match nothing
    by_code: dict[str, list[str]] = {}
    for row in plain:
        code = str((status.get(str(row["key"])) or {}).get("cbsId") or "")
        by_code.setdefault(code, []).append(str(row["key"]))
    out = []
    for row in plain:
        key = str(row["key"])
        state = status.get(key) or {}
        code = str(state.get("cbsId") or "") or None
        official = municipalities.name(code)
        label = str(row.get("label") or key)
        # Several sources under one code (Amsterdam and its boroughs): the official name is the one labelled so.
        if code and len(by_code.get(code, ())) > 1 and compact(label) != compact(official or ""):
            official = None
        heir = state.get("succeededBy") if isinstance(state.get("succeededBy"), dict) else {}
        kind = str(row.get("organizationType") or "")
        out.append(Organisation(
            key=key, label=label, kind=kind if kind in KINDS else "gemeente", supplier=str(row.get("supplier") or ""),
            implemented=bool(row.get("implemented", True)), cbs=code, official=official,
            merged_on=state.get("discontinuedAt") if isinstance(state.get("discontinuedAt"), str) else None,
            successor=str(heir.get("label") or "") or None, successor_key=str(heir.get("sourceKey") or "") or None))
    return tuple(out)


# =========================================================================== resolution


@dataclass(frozen=True, slots=True)
class Resolved:
    organisation: Organisation
    note: str | None = None  # when a name could have meant another organisation, or was merged away


def resolve(name: str, organisations: Sequence[Organisation], aliases: Mapping[str, str] = ALIASES,
            municipalities: Municipalities = MUNICIPALITIES) -> Resolved:
    """An organisation as people write it ('Den Bosch', "'s-Hertogenbosch", 'Bergen (NH)', 'Provincie Groningen',
    'HHNK'), or its key. Ambiguous or unknown names raise a ToolInputError naming the candidates."""
    raw = name.strip()
    index = _index(organisations, aliases)
    if raw in index.keys:
        return _merged_note(Resolved(index.keys[raw]))
    kind, rest = _kind_of(raw)
    pool = [o for o in organisations if kind is None or o.kind == kind]
    wanted = _variants(raw) | (_variants(rest) if kind else set())
    found = index.find(wanted, kind, index.full)
    if not found:
        found = index.find(wanted, kind, index.short)
    if len(found) > 1:
        councils = [o for o in found if o.kind == "gemeente"]
        if kind is None and len(councils) == 1:
            others = "; ".join(f"{o.name} ({o.kind}, key '{o.key}')" for o in found if o is not councils[0])
            return _merged_note(Resolved(councils[0], f"'{raw}' taken as the gemeente {councils[0].name}; for {others} "
                                                      "name the kind ('Provincie …', 'Waterschap …') or pass the key"))
        raise ToolInputError(f"'{raw}' matches several organisations: {_listing(found)}; pass one of these keys")
    if found:
        resolved = Resolved(found[0])
        shared = [o for o in index.find(wanted, None, index.short) if o is not found[0]] if kind is None else []
        if shared:
            resolved = Resolved(found[0], f"'{raw}' taken as the {found[0].kind} {found[0].name}; also called so: "
                                          f"{_listing(shared)}")
        return _merged_note(resolved)
    raise ToolInputError(_unknown(raw, kind, wanted, pool, organisations, municipalities))


@dataclass(frozen=True, slots=True)
class _Index:
    """The organisations by key and by every compact form of their names, built once per catalogue."""

    keys: Mapping[str, Organisation]
    full: Mapping[str, tuple[Organisation, ...]]
    short: Mapping[str, tuple[Organisation, ...]]

    def find(self, forms: set[str], kind: str | None, table: Mapping[str, tuple[Organisation, ...]]
             ) -> list[Organisation]:
        found = dict.fromkeys(o for form in sorted(forms) for o in table.get(form, ()) if kind in (None, o.kind))
        return list(found)


_INDEXES: dict[tuple[int, int], tuple[object, object, _Index]] = {}


def _index(organisations: Sequence[Organisation], aliases: Mapping[str, str]) -> _Index:
    key = (id(organisations), id(aliases))
    hit = _INDEXES.get(key)
    if hit and hit[0] is organisations and hit[1] is aliases:
        return hit[2]
    full: dict[str, list[Organisation]] = {}
    short: dict[str, list[Organisation]] = {}
    for org in organisations:
        for form in org.full_forms(aliases):
            full.setdefault(form, []).append(org)
        for form in org.short_forms():
            short.setdefault(form, []).append(org)
    index = _Index({o.key: o for o in organisations}, {k: tuple(v) for k, v in full.items()},
                   {k: tuple(v) for k, v in short.items()})
    if len(_INDEXES) >= 8:
        _INDEXES.clear()
    _INDEXES[key] = (organisations, aliases, index)
    return index


def _merged_note(resolved: Resolved) -> Resolved:
    org = resolved.organisation
    if not org.merged_on:
        return resolved
    heir = (f"{org.successor} (key '{org.successor_key}')" if org.successor_key else
            f"{org.successor}, which OpenBesluitvorming does not hold" if org.successor else "another municipality")
    note = f"{org.name} merged into {heir} on {org.merged_on}: material from after that date is under {heir}"
    return Resolved(org, "; ".join(n for n in (resolved.note, note) if n))


def _unknown(raw: str, kind: str | None, wanted: set[str], pool: Sequence[Organisation],
             organisations: Sequence[Organisation], municipalities: Municipalities) -> str:
    """Why a name found nothing: a real municipality the platform does not hold, a merger, or a likely typo."""
    held = {o.cbs for o in organisations if o.cbs}
    for code, official in municipalities.current.items():
        if kind in (None, "gemeente") and code not in held and wanted & _variants(official):
            merged = [o for o in organisations if code in (o.cbs, _code_into(o, municipalities))
                      and o.merged_on]
            if merged:
                return (f"{official} (CBS {code}) is not in OpenBesluitvorming; it holds the municipalities that "
                        f"merged into it, up to the merger: {_listing(merged)}")
            return (f"{official} (CBS {code}) is a municipality that OpenBesluitvorming does not hold: its council "
                    "documents are not in this source (list_organisations lists the 330 it holds)")
    forms = {f: o for o in pool for f in o.full_forms(ALIASES) | o.short_forms()}
    close = difflib.get_close_matches(compact(raw), list(forms), n=4, cutoff=0.75)
    near = list(dict.fromkeys(forms[f] for f in close))
    hint = f"; did you mean {_listing(near)}?" if near else ""
    return (f"no organisation called '{raw}' in OpenBesluitvorming{hint} list_organisations lists all "
            f"{len(organisations)} with their keys")


def _code_into(org: Organisation, municipalities: Municipalities) -> str | None:
    return (municipalities.former.get(org.cbs or "") or {}).get("into")


def _listing(orgs: Sequence[Organisation]) -> str:
    return ", ".join(f"{o.name} ({o.kind}, key '{o.key}')" for o in orgs)
