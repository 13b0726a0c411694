"""Build `proxy/platforms/organisations.json`, the register of government organisations every source's
organisation argument is read against, from the real lists in `tests/data/` (see its SOURCES.md):

* the TOOI registers of gemeenten, provincies and waterschappen (KOOP waardelijsten, CC0): TOOI id, official
  name with and without its kind, end date;
* the TOOI ministries and the DiWoo ministerielijst (the current names, the earlier ones kept as other names);
* the abbreviations rijksoverheid.nl uses for ministries (`proxy/platforms/woo_organisations.json`);
* the OpenBesluitvorming catalog (`proxy/replica/data/ori/catalog.json`): the short names councils go by
  ("Den Haag", "Den Bosch") by CBS code, and each merged municipality's successor.

Run `python scripts/build_organisations.py` after refreshing one of those lists; the tests check the result
against them.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data"
OUT = ROOT / "proxy" / "platforms" / "organisations.json"
# Names people use that no list above gives (exonyms, water-board abbreviations); each target is a TOOI id.
EXTRA_NAMES: dict[str, list[str]] = {
    "gm0518": ["The Hague"],
    "gm1900": ["Zuidwest-Friesland"],
    "pv21": ["Friesland"],
    "pv30": ["Brabant"],
    "ws0651": ["HHNK"],
    "ws0155": ["AGV", "Waternet"],
    "ws0372": ["Delfland"],
    "ws0616": ["Rijnland"],
    "ws0636": ["HDSR", "De Stichtse Rijnlanden"],
    "ws0656": ["HHSK", "Schieland en de Krimpenerwaard"],
    "mnre1045": ["EZK"],
}


def _title(name: str) -> str:
    return " ".join(w if w.isupper() else w.capitalize() for w in name.split())


def main() -> None:
    tooi = json.loads((DATA / "tooi_organisations.json").read_text(encoding="utf-8"))
    catalog = json.loads((ROOT / "proxy/replica/data/ori/catalog.json").read_text(encoding="utf-8"))
    by_cbs: dict[str, list[dict[str, Any]]] = {}
    for r in catalog:
        if str(r.get("cbsId", "")).startswith("GM"):
            by_cbs.setdefault(r["cbsId"].lower(), []).append(r)
    rows: list[dict[str, Any]] = []
    for kind in ("gemeente", "provincie", "waterschap"):
        for r in tooi[kind]:
            if not r["name"] or not re.match(r"^(gm|pv|ws)\d{2,4}$", r["id"]):
                continue  # header rows and ids without a register number (old hoogheemraadschap records)
            row: dict[str, Any] = {"id": r["id"], "kind": kind, "name": r["name"], "full_name": r["full_name"],
                                   "ended": r["ended"]}
            councils = by_cbs.get(r["id"], []) if kind == "gemeente" else []
            # Amsterdam's boroughs share its code: only a code's single source names the municipality.
            ori = councils[0] if len(councils) == 1 else None
            short = [ori["label"]] if ori and ori["label"].replace(" ", "").lower() != \
                r["name"].replace(" ", "").replace("-", "").lower() else []
            if ori and ori.get("succeededByCbsId"):
                row["successor"] = ori["succeededByCbsId"].lower()
            row["other_names"] = [*short, *EXTRA_NAMES.get(r["id"], [])]
            rows.append(row)
    ministries: dict[str, dict[str, Any]] = {}
    names = json.loads((DATA / "woo_organisation_names.json").read_text(encoding="utf-8"))["organisations"]
    # The TOOI register says which ministry ended; the DiWoo list (2024) has the current names.
    for o in sorted(names, key=lambda o: o["list"].startswith("diwoo")):
        if not str(o["id"]).startswith("mnre") or not o.get("label", "").startswith("ministerie van "):
            continue
        name = o["label"][len("ministerie van "):]
        entry = ministries.setdefault(o["id"], {"id": o["id"], "kind": "ministerie", "name": name,
                                                "full_name": o["label"], "ended": o.get("ended"),
                                                "other_names": []})
        if name != entry["name"] and o["list"].startswith("diwoo"):
            entry["other_names"].append(entry["name"])
            entry.update(name=name, full_name=o["label"])
    abbreviations = json.loads((ROOT / "proxy/platforms/woo_organisations.json").read_text(encoding="utf-8"))
    for e in abbreviations["entries"]:
        target = next((m for m in ministries.values() if m["full_name"] == e["key"] and not m["ended"]), None)
        if target:
            target["other_names"] += [n for n in e["names"] if n not in target["other_names"]]
    for ministry in ministries.values():
        ministry["other_names"] += EXTRA_NAMES.get(ministry["id"], [])
    rows += sorted(ministries.values(), key=lambda m: m["id"])
    for row in rows:
        row["other_names"] = list(dict.fromkeys(n for n in row["other_names"] if n != row["name"]))
    doc = {"what": "organisation",
           "source": "Built by scripts/build_organisations.py from the TOOI registers (gemeenten, provincies, "
                     "waterschappen, ministeries; KOOP waardelijsten, CC0), the DiWoo ministerielijst, the "
                     "ministries' abbreviations and the OpenBesluitvorming catalog's short names and successors; "
                     "provenance of each list in tests/data/SOURCES.md.",
           "organisations": rows}
    OUT.write_text(json.dumps(doc, ensure_ascii=False, indent=0) + "\n", encoding="utf-8")
    print(f"{OUT.relative_to(ROOT)}: {len(rows)} organisations")


if __name__ == "__main__":
    main()
