"""OpenBesluitvorming organisations by the names people write, resolved onto the platform's own keys.

The platform's labels are made from its keys ("Den Bosch", "Hofvantwente", "Capelle Ad Ijssel", and the
province of Groningen is labelled just "Groningen"), so a label alone misses the official names. Each
municipality in the platform's catalog carries its CBS code (`cbsId` in `/api/status`); the government's
register (`proxy/platforms/_organisations.py`, from TOOI) gives the official and other names for that code (and for
a province or water board, for its name), so "'s-Hertogenbosch", "Capelle aan den IJssel", "Súdwest-Fryslân" and
"Friesland" resolve without a line per council. Names are compared compact: case, accents, spaces,
hyphens and punctuation ignored ("Hof van Twente" = "Hofvantwente"), and a leading "'s-" may be left out.

What the register cannot give (names only this platform's organisations go by) is in `ori_aliases.json`, keyed by
the platform's source key; a test checks every key against the platform's real catalog.

Tiers: a label, key, official name or alias is a full name; a name without its kind word ("Delfland" for
"Hoogheemraadschap Van Delfland") or without its CBS qualifier ("Bergen" for "Bergen (NH.)") is a short name and
is only used when no full name matches. A place name alone means the gemeente when exactly one gemeente matches,
and says which other organisations share the name.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from proxy.core.errors import ToolInputError
from proxy.platforms._common import object_at
from proxy.platforms._organisations import QUALIFIER, REGISTER, GovOrg, Register, compact, kind_of, variants, words
from proxy.platforms._resolve import Table

__all__ = ["ALIASES", "KINDS", "Organisation", "Resolved", "compact", "load_aliases", "organisations_from", "resolve",
           "words"]

KINDS = ("gemeente", "provincie", "waterschap")
ALIAS_FILE = Path(__file__).with_name("ori_aliases.json")


def load_aliases(path: Path = ALIAS_FILE) -> dict[str, str]:
    """The alias table as compact name → platform source key; a malformed file fails on import."""
    table = Table.load(path, argument="organisation")
    return {form: entry.key for entry in table.entries for name in entry.names for form in variants(name)}


ALIASES: Mapping[str, str] = load_aliases()


# =========================================================================== organisations


@dataclass(frozen=True, slots=True)
class Organisation:
    """One organisation of the platform: `key` is what its `organization` parameter takes.

    `gov` is the organisation of the government's register it is (by CBS code, else by kind and name), whose
    official and other names it answers to; `merged_on`/`successor` say where a merged municipality's newer
    material is (`successor_key` when the platform imports the successor)."""

    key: str
    label: str
    kind: str
    supplier: str
    implemented: bool
    cbs: str | None = None
    gov: GovOrg | None = None
    merged_on: str | None = None
    successor: str | None = None
    successor_key: str | None = None

    @property
    def official(self) -> str | None:
        return self.gov.name if self.gov else None

    @property
    def name(self) -> str:
        """The name to show: the official one where there is one (the label is made from the key)."""
        return self.official or self.label

    def full_forms(self, aliases: Mapping[str, str]) -> set[str]:
        forms = variants(self.label) | variants(self.key)
        if self.gov:  # 'Bergen (NH.)' is also just 'Bergen', which makes 'Bergen' ambiguous, as it is
            forms |= self.gov.full_forms() | variants(QUALIFIER.sub("", self.gov.name))
        return forms | {name for name, key in aliases.items() if key == self.key}

    def short_forms(self) -> set[str]:
        """The label without its kind word: 'Hoogheemraadschap Van Delfland' → 'delfland'."""
        kind, rest = kind_of(self.label)
        return variants(rest) if kind and rest else set()


def organisations_from(sources: Any, status: Mapping[str, Mapping[str, Any]],
                       register: Register = REGISTER) -> tuple[Organisation, ...]:
    """Organisations from a `/api/sources` reply joined with the `/api/status` rows (CBS code, merger)."""
    rows = sources.get("sources") if isinstance(sources, dict) else None
    if not isinstance(rows, list):
        raise ValueError("not a /api/sources reply")
    plain = [r for r in rows if isinstance(r, dict) and r.get("key") and not r.get("isAggregate")
             and not str(r["key"]).startswith("all_")]  # the all_<supplier> rows pass the check but match nothing
    by_code: dict[str, list[str]] = {}
    for row in plain:
        by_code.setdefault(str((status.get(str(row["key"])) or {}).get("cbsId") or ""), []).append(str(row["key"]))
    out = []
    for row in plain:
        key = str(row["key"])
        state = status.get(key) or {}
        code = str(state.get("cbsId") or "") or None
        label = str(row.get("label") or key)
        kind = str(row.get("organizationType") or "")
        kind = kind if kind in KINDS else "gemeente"
        gov = register.by_cbs(code) if code else _by_name(register, kind, label)
        # Several sources under one code (Amsterdam and its boroughs): the official name is the one labelled so.
        if code and gov and len(by_code.get(code, ())) > 1 and compact(label) != compact(gov.name):
            gov = None
        heir = object_at(state, "succeededBy")
        out.append(Organisation(
            key=key, label=label, kind=kind, supplier=str(row.get("supplier") or ""),
            implemented=bool(row.get("implemented", True)), cbs=code, gov=gov,
            merged_on=state.get("discontinuedAt") if isinstance(state.get("discontinuedAt"), str) else None,
            successor=str(heir.get("label") or "") or None, successor_key=str(heir.get("sourceKey") or "") or None))
    return tuple(out)


def _by_name(register: Register, kind: str, label: str) -> GovOrg | None:
    """A province or water board (no CBS code) by its label: the one current organisation of that kind so named."""
    _, found = register.matches(f"{kind} {label}", (kind,))
    return found[0] if len(found) == 1 and not found[0].ended else None


# =========================================================================== resolution


@dataclass(frozen=True, slots=True)
class Resolved:
    organisation: Organisation
    note: str | None = None  # when a name could have meant another organisation, or was merged away


def resolve(name: str, organisations: Sequence[Organisation], aliases: Mapping[str, str] = ALIASES,
            register: Register = REGISTER) -> Resolved:
    """An organisation as people write it ('Den Bosch', "'s-Hertogenbosch", 'Bergen (NH)', 'Provincie Groningen',
    'HHNK'), or its key. Ambiguous or unknown names raise a ToolInputError naming the candidates."""
    raw = name.strip()
    index = _index(organisations, aliases)
    if raw in index.keys:
        return _merged_note(Resolved(index.keys[raw]))
    kind, rest = kind_of(raw)
    pool = [o for o in organisations if kind is None or o.kind == kind]
    wanted = variants(raw) | (variants(rest) if kind else set())
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
    raise ToolInputError(_unknown(raw, kind, pool, organisations, register))


@dataclass(frozen=True, slots=True)
class _Index:
    """The organisations by key and by every compact form of their names, built once per catalog."""

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
    if org.successor_key:
        heir = f"{org.successor} (key '{org.successor_key}')"
        note = f"{org.name} merged into {heir} on {org.merged_on}: material from after that date is under {heir}"
    elif org.successor:
        note = (f"{org.name} merged into {org.successor} on {org.merged_on}; OpenBesluitvorming does not hold "
                f"{org.successor}, so material from after that date is not in this source")
    else:
        note = (f"{org.name} merged into another municipality on {org.merged_on}: material from after that date "
                "is not under this name")
    return Resolved(org, "; ".join(n for n in (resolved.note, note) if n))


def _unknown(raw: str, kind: str | None, pool: Sequence[Organisation], organisations: Sequence[Organisation],
             register: Register) -> str:
    """Why a name found nothing: a real municipality the platform does not hold, a merger, or a likely typo."""
    held = {o.cbs for o in organisations if o.cbs}
    _, bodies = register.matches(raw, ("ministerie",))
    if bodies and kind in (None, "ministerie"):
        return (f"'{raw}' is the {bodies[0].full_name}: OpenBesluitvorming holds councils, provinces and water "
                "boards only; a ministry's publications are in Officiële bekendmakingen and Open Overheid")
    _, named = register.matches(raw, ("gemeente",)) if kind in (None, "gemeente") else (None, [])
    for municipality in named:
        if municipality.cbs in held:
            continue
        merged = [o for o in organisations if o.merged_on and o.gov and o.gov.successor == municipality.id]
        if merged:
            return (f"{municipality.name} (CBS {municipality.cbs}) is not in OpenBesluitvorming; it holds the "
                    f"municipalities that merged into it, up to the merger: {_listing(merged)}")
        if municipality.ended:
            heir = register.by_id.get(municipality.successor or "")
            held_heir = next((o for o in organisations if heir and o.cbs == heir.cbs), None)
            into = (f": it merged into {heir.name}" + (f" (key '{held_heir.key}'), which OpenBesluitvorming holds"
                                                       if held_heir else "") if heir else "")
            return (f"{municipality.name} (CBS {municipality.cbs}) ended on {municipality.ended}{into}; "
                    "OpenBesluitvorming does not hold it under its own name (list_organisations lists the "
                    f"{len(organisations)} it holds)")
        return (f"{municipality.name} (CBS {municipality.cbs}) is a municipality that OpenBesluitvorming does not "
                "hold: its council documents are not in this source (list_organisations lists the 330 it holds)")
    # A province or water board it does not hold is said so, not offered a look-alike ("did you mean
    # Noord-Holland" for Noord-Brabant).
    held_bodies = {o.gov.id for o in organisations if o.gov}
    for body_kind in ("provincie", "waterschap"):
        if kind not in (None, body_kind):
            continue
        for body in register.matches(raw, (body_kind,))[1]:
            if body.id not in held_bodies:
                what = "province" if body_kind == "provincie" else "water board"
                return (f"{body.full_name[:1].upper()}{body.full_name[1:]} is a {what} that OpenBesluitvorming "
                        "does not hold: its "
                        f"{'Provinciale Staten' if body_kind == 'provincie' else 'algemeen bestuur'} documents "
                        f"are not in this source (list_organisations lists the {len(organisations)} it holds)")
    forms = {f: o for o in pool for f in o.full_forms(ALIASES) | o.short_forms()}
    close = difflib.get_close_matches(compact(raw), list(forms), n=4, cutoff=0.75)
    near = list(dict.fromkeys(forms[f] for f in close))
    hint = f"; did you mean {_listing(near)}?" if near else ""
    return (f"no organisation called '{raw}' in OpenBesluitvorming{hint} list_organisations lists all "
            f"{len(organisations)} with their keys")


def _listing(orgs: Sequence[Organisation]) -> str:
    return ", ".join(f"{o.name} ({o.kind}, key '{o.key}')" for o in orgs)
