"""The one organisation register every source reads its organisation argument against (issue 21): names as
people write them, across municipalities, provinces, water boards and ministries, resolved to the government's
own identifier (TOOI), the choice said when a name could mean more, candidates when it is ambiguous; and the
register itself built from the real lists in tests/data/ (SOURCES.md there)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from proxy.core.errors import ToolInputError
from proxy.platforms._organisations import REGISTER, Register

if TYPE_CHECKING:
    from proxy.platforms._ori_names import Organisation

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
    ("Economische Zaken", "mnre1045"), ("EZK", "mnre1045"), ("ministerie van EZK", "mnre1045"),
    ("IenW", "mnre1130"), ("Asiel en Migratie", "mnre1162"),
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


# --------------------------------------------------------------------------- per source

# As people write them → what each source is sent: ORI's source key, KOOP's exact creator name with its kind (the
# lokale and officiële bekendmakingen), open.overheid.nl's organisation value. None: that source holds no such body.
PER_SOURCE = [
    ("Utrecht", "utrecht", ("Utrecht", "gemeente"), "gemeente Utrecht"),
    ("gemeente Utrecht", "utrecht", ("Utrecht", "gemeente"), "gemeente Utrecht"),
    ("Provincie Utrecht", "provincie-utrecht", ("Utrecht", "provincie"), "provincie Utrecht"),
    ("Den Haag", "den_haag", ("'s-Gravenhage", "gemeente"), "gemeente 's-Gravenhage"),
    ("'s-Gravenhage", "den_haag", ("'s-Gravenhage", "gemeente"), "gemeente 's-Gravenhage"),
    ("gemeente Den Haag", "den_haag", ("'s-Gravenhage", "gemeente"), "gemeente 's-Gravenhage"),
    ("Den Bosch", "den_bosch", ("'s-Hertogenbosch", "gemeente"), "gemeente 's-Hertogenbosch"),
    ("'s-Hertogenbosch", "den_bosch", ("'s-Hertogenbosch", "gemeente"), "gemeente 's-Hertogenbosch"),
    ("Hof van Twente", "hofvantwente", ("Hof van Twente", "gemeente"), "gemeente Hof van Twente"),
    ("Capelle a/d IJssel", "capelle_ad_ijssel", ("Capelle aan den IJssel", "gemeente"),
     "gemeente Capelle aan den IJssel"),
    ("Súdwest-Fryslân", "sudwest_fryslan", ("Súdwest-Fryslân", "gemeente"), "gemeente Súdwest-Fryslân"),
    ("Bergen (NH)", "bergen_nh", ("Bergen (NH)", "gemeente"), "gemeente Bergen (NH)"),
    ("Groningen", "groningen", ("Groningen", "gemeente"), "gemeente Groningen"),
    ("Provincie Groningen", "provincie_groningen", ("Groningen", "provincie"), "provincie Groningen"),
    ("Friesland", "fryslan", ("Fryslân", "provincie"), "provincie Fryslân"),
    ("Noord-Holland", "noord-holland", ("Noord-Holland", "provincie"), "provincie Noord-Holland"),
    ("Zuid-Holland", "zuid_holland", ("Zuid-Holland", "provincie"), "provincie Zuid-Holland"),
    ("Beemster", "beemster", ("Beemster", "gemeente"), "gemeente Beemster"),
    ("Weesp", "weesp", ("Weesp", "gemeente"), "gemeente Weesp"),
    ("HHNK", "hoogheemraadschap_hollands_noorderkwartier", ("Hoogheemraadschap Hollands Noorderkwartier",
                                                             "waterschap"),
     "waterschap Hoogheemraadschap Hollands Noorderkwartier"),
    ("Delfland", "hoogheemraadschap_van_delfland", ("Hoogheemraadschap van Delfland", "waterschap"),
     "waterschap Hoogheemraadschap van Delfland"),
    ("Waterschap Aa en Maas", "aa-en-maas", ("Aa en Maas", "waterschap"), "waterschap Aa en Maas"),
    ("AGV", "waterschap_amstel_gooi_en_vecht", ("Amstel, Gooi en Vecht", "waterschap"),
     "waterschap Amstel, Gooi en Vecht"),
    ("Gouda", "gouda", ("Gouda", "gemeente"), "gemeente Gouda"),
    ("Amsterdam", "amsterdam", ("Amsterdam", "gemeente"), "gemeente Amsterdam"),
    ("Rotterdam", "rotterdam", ("Rotterdam", "gemeente"), "gemeente Rotterdam"),
    ("Maastricht", "maastricht", ("Maastricht", "gemeente"), "gemeente Maastricht"),
    ("Alphen aan den Rijn", None, ("Alphen aan den Rijn", "gemeente"), "gemeente Alphen aan den Rijn"),
    ("Land van Cuijk", None, ("Land van Cuijk", "gemeente"), "gemeente Land van Cuijk"),
    ("BZK", None, ("Ministerie van Binnenlandse Zaken en Koninkrijksrelaties", "ministerie"),
     "ministerie van Binnenlandse Zaken en Koninkrijksrelaties"),
    ("ministerie van BZK", None, ("Ministerie van Binnenlandse Zaken en Koninkrijksrelaties", "ministerie"),
     "ministerie van Binnenlandse Zaken en Koninkrijksrelaties"),
    ("JenV", None, ("Ministerie van Justitie en Veiligheid", "ministerie"), "ministerie van Justitie en Veiligheid"),
    ("Defensie", None, ("Ministerie van Defensie", "ministerie"), "ministerie van Defensie"),
    ("Financiën", None, ("Ministerie van Financiën", "ministerie"), "ministerie van Financiën"),
    ("OCW", None, ("Ministerie van Onderwijs, Cultuur en Wetenschap", "ministerie"),
     "ministerie van Onderwijs, Cultuur en Wetenschap"),
    ("VWS", None, ("Ministerie van Volksgezondheid, Welzijn en Sport", "ministerie"),
     "ministerie van Volksgezondheid, Welzijn en Sport"),
    ("LNV", None, ("Ministerie van Landbouw, Visserij, Voedselzekerheid en Natuur", "ministerie"),
     "ministerie van Landbouw, Visserij, Voedselzekerheid en Natuur"),
    ("Economische Zaken", None, ("Ministerie van Economische Zaken", "ministerie"), "ministerie van Economische Zaken"),
    ("IenW", None, ("Ministerie van Infrastructuur en Waterstaat", "ministerie"),
     "ministerie van Infrastructuur en Waterstaat"),
    ("Asiel en Migratie", None, ("Ministerie van Asiel en Migratie", "ministerie"), "ministerie van Asiel en Migratie"),
]


def _ori_organisations() -> tuple[Organisation, ...]:
    from datetime import date

    from proxy.platforms import _ori_names
    from proxy.replica import ori

    anchor = date(2026, 11, 30)
    sources = {"sources": [{"key": o.key, "label": o.label, "supplier": o.supplier, "organizationType": o.kind,
                            "implemented": o.implemented} for o in ori._ORGS]}
    return _ori_names.organisations_from(sources, {o.key: ori._state(o, anchor) for o in ori._ORGS})


def test_each_source_is_sent_the_value_it_matches_exactly() -> None:
    from proxy.platforms import _ori_names, _sru, officieel, woo

    orgs = _ori_organisations()
    assert len(PER_SOURCE) >= 40
    for name, ori_key, (creator, kind), woo_value in PER_SOURCE:
        if ori_key:
            assert _ori_names.resolve(name, orgs).organisation.key == ori_key, name
        else:
            with pytest.raises(ToolInputError, match=r"not in OpenBesluitvorming|does not hold|holds councils"):
                _ori_names.resolve(name, orgs)
        clauses = _sru.read_organisation(officieel.SOURCE, name).clauses
        assert f'dt.creator=="{creator}"' in clauses[0] and clauses[1] == f'w.organisatietype=="{kind}"', name
        value = woo._register_value(name, [])
        assert value is not None and value[0] == woo_value, name


def test_a_name_of_two_kinds_is_refused_alike_everywhere() -> None:
    from proxy.platforms import _ori_names, _sru, officieel, woo

    for attempt in (lambda: _ori_names.resolve("Limburg", _ori_organisations()),
                    lambda: _sru.read_organisation(officieel.SOURCE, "Limburg"),
                    lambda: woo._register_value("Limburg", [])):
        with pytest.raises(ToolInputError, match="Limburg"):
            attempt()
