"""The one organisation register every source reads its organisation argument against (issue 21): names as
people write them, across municipalities, provinces, water boards and ministries, resolved to the government's
own identifier (TOOI), the choice said when a name could mean more, candidates when it is ambiguous; and the
register itself built from the real lists in tests/data/ (SOURCES.md there)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from proxy.errors import ToolInputError
from proxy.platforms._organisations import REGISTER, Register

DATA = Path(__file__).parent / "data"

# As people write them → the TOOI id of what they mean.
NAMES = [
    ("Utrecht", "gm0344"), ("gemeente Utrecht", "gm0344"), ("Provincie Utrecht", "pv26"),
    ("provinciale staten van Utrecht", "pv26"), ("Den Haag", "gm0518"), ("'s-Gravenhage", "gm0518"),
    ("s Gravenhage", "gm0518"), ("The Hague", "gm0518"), ("gemeente Den Haag", "gm0518"),
    ("'s-Hertogenbosch", "gm0796"), ("Den Bosch", "gm0796"), ("Hertogenbosch", "gm0796"),
    ("Hof van Twente", "gm1735"), ("Hofvantwente", "gm1735"), ("Capelle aan den IJssel", "gm0502"),
    ("Capelle a/d IJssel", "gm0502"), ("Bodegraven-Reeuwijk", "gm1901"), ("Súdwest-Fryslân", "gm1900"),
    ("Sudwest Fryslan", "gm1900"), ("Zuidwest-Friesland", "gm1900"), ("Nuenen, Gerwen en Nederwetten", "gm0820"),
    ("Midden-Groningen", "gm1952"), ("Groningen", "gm0014"), ("Provincie Groningen", "pv20"),
    ("Fryslân", "pv21"), ("Friesland", "pv21"), ("Noord-Holland", "pv27"), ("noord holland", "pv27"),
    ("Noord-Brabant", "pv30"), ("Zeeland", "pv29"), ("Beemster", "gm0370"), ("Land van Cuijk", "gm1982"),
    ("HHNK", "ws0651"), ("Hoogheemraadschap Hollands Noorderkwartier", "ws0651"), ("Delfland", "ws0372"),
    ("Hoogheemraadschap van Delfland", "ws0372"), ("waterschap Aa en Maas", "ws0654"), ("AGV", "ws0155"),
    ("Wetterskip Fryslân", "ws0653"), ("Waterschap Limburg", "ws0665"), ("Provincie Limburg", "pv31"),
    ("BZK", "mnre1034"), ("ministerie van BZK", "mnre1034"), ("Binnenlandse Zaken", "mnre1034"),
    ("JenV", "mnre1058"), ("J&V", "mnre1058"), ("ministerie van Justitie en Veiligheid", "mnre1058"),
    ("VWS", "mnre1025"), ("OCW", "mnre1109"), ("Financiën", "mnre1090"), ("Financien", "mnre1090"),
    ("Defensie", "mnre1018"), ("LNV", "mnre1153"), ("ministerie van Landbouw, Natuur en Voedselkwaliteit", "mnre1153"),
    ("Economische Zaken", "mnre1045"), ("IenW", "mnre1130"), ("Asiel en Migratie", "mnre1162"),
]


def test_names_as_people_write_them_resolve_to_the_organisation_meant() -> None:
    resolved = {name: REGISTER.resolve(name).org.id for name, _ in NAMES}
    assert resolved == dict(NAMES)
    assert len(NAMES) >= 40 and {REGISTER.by_id[i].kind for _, i in NAMES} == {"gemeente", "provincie",
                                                                              "waterschap", "ministerie"}


def test_a_place_name_of_two_kinds_is_the_gemeente_and_the_choice_is_said() -> None:
    choice = REGISTER.resolve("Utrecht")
    assert choice.org.id == "gm0344" and [o.id for o in choice.others] == ["pv26"]
    assert choice.note and "provincie Utrecht" in choice.note and "name the kind" in choice.note
    assert REGISTER.resolve("Groningen", kinds=("provincie",)).org.id == "pv20"  # a source of one kind


@pytest.mark.parametrize(("name", "words"), [
    ("Bergen", ["gemeente Bergen (NH)", "gemeente Bergen (L)", "name the kind"]),
    ("Limburg", ["provincie Limburg", "waterschap Limburg"]),
    ("Atlantis", ["no gemeente, provincie, waterschap, ministerie called 'Atlantis'"]),
    ("Utreht", ["did you mean", "gemeente Utrecht"]),
])
def test_ambiguous_and_unknown_names_get_candidates(name: str, words: list[str]) -> None:
    with pytest.raises(ToolInputError) as caught:
        REGISTER.resolve(name)
    assert all(w in str(caught.value) for w in words), str(caught.value)


def test_a_merged_municipality_names_its_successor() -> None:
    choice = REGISTER.resolve("Weesp")
    assert choice.org.ended == "2022-03-23" and choice.note
    assert "merged into the gemeente Amsterdam" in choice.note
    assert REGISTER.resolve("Economische Zaken").org.ended is None  # the current ministry, not its 2010 namesake


def test_the_register_is_the_real_lists() -> None:
    """Every organisation is a row of the TOOI registers or the DiWoo ministry list, with its official names."""
    tooi = json.loads((DATA / "tooi_organisations.json").read_text("utf-8"))
    rows = {r["id"]: r for kind in ("gemeente", "provincie", "waterschap") for r in tooi[kind]}
    ministries = {o["id"]: o for o in json.loads((DATA / "woo_organisation_names.json").read_text("utf-8"))
                  ["organisations"] if str(o["id"]).startswith("mnre")}
    for org in REGISTER.orgs:
        if org.kind == "ministerie":
            assert org.id in ministries and org.full_name in {o["label"] for o in ministries.values()}, org
        else:
            row = rows[org.id]
            assert (org.name, org.full_name, org.ended) == (row["name"], row["full_name"], row["ended"]), org
    assert len(REGISTER.orgs) == len(REGISTER.by_id)


def test_a_malformed_register_is_refused(tmp_path: Path) -> None:
    bad = tmp_path / "organisations.json"
    bad.write_text(json.dumps({"organisations": [{"id": "gm1"}]}), encoding="utf-8")
    with pytest.raises(ValueError, match=r"organisations\.json: not an organisation register"):
        Register.load(bad)
