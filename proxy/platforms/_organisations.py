"""The government's organisations by the names people write, read alike for every source.

One register (`organisations.json`, built by `scripts/build_organisations.py` from the TOOI registers, the DiWoo
ministry list and the OpenBesluitvorming catalog) of gemeenten, provincies, waterschappen and ministries, each
with its TOOI id, official name with and without its kind, the other names it goes by, and when it ended. Every
source that filters by organisation reads its argument here and sends the platform the value that platform
matches (its own key, the creator name KOOP publishes under, a facet value), never a substring.

How a name is read:

* compact: case, accents, spaces, hyphens and punctuation ignored ("Hof van Twente" = "Hofvantwente"), a leading
  "'s-" may be left out ("Hertogenbosch");
* a kind word in front picks the kind: "gemeente", "provincie", "provinciale staten van", "waterschap",
  "hoogheemraadschap (van)", "wetterskip", "ministerie (van)";
* full names (official, with its kind, other names, abbreviations such as BZK, JenV, HHNK) first; only when none
  matches, short ones: a name without its kind word ("Delfland"), or without its CBS qualifier ("Bergen");
* of several, a current organisation beats one that ended; a place name alone is the gemeente when exactly one
  gemeente has it, and the choice says what else it could mean; otherwise the candidates are named.
"""

from __future__ import annotations

import difflib
import json
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from proxy.core.errors import ToolInputError

__all__ = ["KIND_WORDS", "REGISTER", "Choice", "GovOrg", "Register", "compact", "kind_of", "variants", "words"]

REGISTER_FILE = Path(__file__).with_name("organisations.json")
KINDS = ("gemeente", "provincie", "waterschap", "ministerie")
# Words in front of a name that say which kind of organisation is meant (longest first).
KIND_WORDS: tuple[tuple[str, str], ...] = (
    ("provinciale staten van", "provincie"), ("gemeenteraad van", "gemeente"), ("hoogheemraadschap van", "waterschap"),
    ("het ministerie van", "ministerie"), ("ministerie van", "ministerie"), ("gemeente", "gemeente"),
    ("gemeenteraad", "gemeente"), ("provincie", "provincie"), ("waterschap", "waterschap"),
    ("hoogheemraadschap", "waterschap"), ("wetterskip", "waterschap"), ("ministerie", "ministerie"),
)
QUALIFIER = re.compile(r"\s*\([^)]*\)\s*$")
_ARTICLE = re.compile(r"^'?s[\s-]+", re.IGNORECASE)


def _plain(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def words(text: str) -> str:
    """Lower case, no accents, words separated by one space ('&' is the word 'en')."""
    return " ".join(re.sub(r"[^a-z0-9]+", " ", _plain(text).replace("&", " en ")).split())


def compact(text: str) -> str:
    """How names are compared: lower case, no accents, nothing but letters and digits ('&' reads 'en')."""
    return re.sub(r"[^a-z0-9]+", "", _plain(text).replace("&", "en"))


def kind_of(text: str) -> tuple[str | None, str]:
    """(kind named by a leading kind word, the rest), e.g. 'Provincie Utrecht' → ('provincie', 'utrecht')."""
    plain = words(text)
    for word, kind in KIND_WORDS:
        if plain.startswith(word + " "):
            return kind, plain[len(word) + 1:]
    return None, plain


def variants(name: str) -> set[str]:
    """A name compact, and without a leading "'s-" ('s-Hertogenbosch → hertogenbosch)."""
    out = {compact(name)}
    if _ARTICLE.match(name.strip()):
        out.add(compact(_ARTICLE.sub("", name.strip())))
    return out - {""}


@dataclass(frozen=True, slots=True)
class GovOrg:
    """One organisation of the register."""

    id: str  # TOOI id: gm0518, pv27, ws0155, mnre1034
    kind: str
    name: str  # official, without its kind: "'s-Gravenhage", 'Binnenlandse Zaken en Koninkrijksrelaties'
    full_name: str  # official, with its kind: "gemeente 's-Gravenhage", 'ministerie van …'
    other_names: tuple[str, ...] = ()  # short names, abbreviations, earlier names
    ended: str | None = None
    successor: str | None = None  # TOOI id

    @property
    def cbs(self) -> str | None:
        """The CBS municipality code (GM0518) of a gemeente."""
        return self.id.upper() if self.kind == "gemeente" else None

    @property
    def short_names(self) -> tuple[str, ...]:
        return self.other_names

    def full_forms(self) -> set[str]:
        forms = variants(self.name) | variants(self.full_name)
        for name in self.other_names:
            forms |= variants(name)
        if QUALIFIER.search(self.name):  # 'Bergen (NH.)' is also just 'Bergen', which makes 'Bergen' ambiguous
            forms |= variants(QUALIFIER.sub("", self.name))
        return forms

    def short_forms(self) -> set[str]:
        """The name without a kind word it carries itself: 'Hoogheemraadschap van Delfland' → 'delfland'."""
        kind, rest = kind_of(self.name)
        return variants(rest) if kind and rest else set()

    def describe(self) -> str:
        ended = f", ended {self.ended}" if self.ended else ""
        return f"{self.full_name} ({self.id}{ended})"


@dataclass(frozen=True, slots=True)
class Choice:
    """The organisation a name was read as; `note` says so when it could have meant another (`others`)."""

    org: GovOrg
    note: str | None = None
    others: tuple[GovOrg, ...] = ()


class Register:
    """The organisations, indexed once by every compact form of their names."""

    def __init__(self, orgs: Iterable[GovOrg]) -> None:
        self.orgs = tuple(orgs)
        self.by_id = {o.id: o for o in self.orgs}
        self._full: dict[str, list[GovOrg]] = {}
        self._short: dict[str, list[GovOrg]] = {}
        for org in self.orgs:
            for form in org.full_forms():
                self._full.setdefault(form, []).append(org)
            for form in org.short_forms():
                self._short.setdefault(form, []).append(org)

    @classmethod
    def load(cls, path: Path = REGISTER_FILE) -> Register:
        try:
            rows = json.loads(path.read_text(encoding="utf-8"))["organisations"]
            return cls(GovOrg(id=str(r["id"]), kind=str(r["kind"]), name=str(r["name"]), full_name=str(r["full_name"]),
                              other_names=tuple(str(n) for n in r.get("other_names") or ()), ended=r.get("ended"),
                              successor=r.get("successor")) for r in rows)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise ValueError(f"{path.name}: not an organisation register ({exc})") from exc

    def by_cbs(self, code: str | None) -> GovOrg | None:
        return self.by_id.get(code.lower()) if code else None

    def matches(self, name: str, kinds: Sequence[str] | None = None) -> tuple[str | None, list[GovOrg]]:
        """(the kind the name asked for, the organisations it names), current ones before ended ones."""
        kind, rest = kind_of(name)
        wanted = variants(name) | (variants(rest) if kind else set())
        allowed = [k for k in (kinds or KINDS) if kind in (None, k)]
        found: list[GovOrg] = []
        for table in (self._full, self._short):
            found = list(dict.fromkeys(o for form in sorted(wanted) for o in table.get(form, ())
                                       if o.kind in allowed))
            if found:
                break
        current = [o for o in found if not o.ended]
        return kind, current or found

    def resolve(self, name: str, kinds: Sequence[str] | None = None) -> Choice:
        """The one organisation `name` means, of `kinds` (default: all); ToolInputError with candidates when
        it names none or several."""
        raw = name.strip()
        if raw.lower() in self.by_id and self.by_id[raw.lower()].kind in (kinds or KINDS):
            return Choice(self.by_id[raw.lower()])
        kind, found = self.matches(raw, kinds)
        if len(found) == 1:
            return _merged(Choice(found[0]), self)
        if found:
            councils = [o for o in found if o.kind == "gemeente"]
            if kind is None and len(councils) == 1:
                others = tuple(o for o in found if o is not councils[0])
                note = (f"'{raw}' taken as the {councils[0].full_name}; it can also mean "
                        f"{', '.join(o.full_name for o in others)}: name the kind ('provincie …', 'waterschap …')")
                return _merged(Choice(councils[0], note, others), self)
            raise ToolInputError(f"'{raw}' can mean {', '.join(o.describe() for o in found)}; name the kind "
                                 "('gemeente …', 'provincie …', 'waterschap …', 'ministerie van …') or the full "
                                 "name")
        raise ToolInputError(self._unknown(raw, kinds))

    def _unknown(self, raw: str, kinds: Sequence[str] | None) -> str:
        pool: dict[str, list[GovOrg]] = {}
        for table in (self._full, self._short):
            for form, orgs in table.items():
                pool.setdefault(form, []).extend(o for o in orgs if o.kind in (kinds or KINDS) and not o.ended)
        close = difflib.get_close_matches(compact(raw), [f for f, orgs in pool.items() if orgs], n=3, cutoff=0.75)
        near = list(dict.fromkeys(o for f in close for o in pool[f]))
        hint = f"; did you mean {', '.join(o.full_name for o in near)}?" if near else ""
        what = ", ".join(k for k in KINDS if k in (kinds or KINDS))
        return (f"no {what} called '{raw}' in the government's register of organisations (TOOI){hint} Write its "
                "name as it is officially called or known (\"'s-Gravenhage\" or 'Den Haag', 'BZK', 'HHNK')")


def _merged(choice: Choice, register: Register) -> Choice:
    org = choice.org
    if not org.ended:
        return choice
    heir = register.by_id.get(org.successor or "")
    after = f"; it merged into the {heir.full_name}, under which later material appears" if heir else ""
    note = f"the {org.full_name} ended on {org.ended}{after}"
    return Choice(org, "; ".join(n for n in (choice.note, note) if n), choice.others)


REGISTER = Register.load()
