"""Write deploy/config/registry.json, the registry `deploy/compose.yaml` serves: the shipped registry.json with
the server settings of a public installation at https://localhost (Caddy's default name there). Run after
changing registry.json, then edit the copy for your own service (Publiek maken):

    .venv/bin/python scripts/compose_registry.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = ROOT / "registry.json"
COMPOSE = ROOT / "deploy" / "config" / "registry.json"
PUBLIC_URL = "https://localhost"
ABOUT = {
    "nl": "Deze installatie draait met deploy/compose.yaml: Caddy, de werkprocessen en Redis op één machine. Pas "
          "deze tekst, de naam en het contactadres aan voor je eigen dienst (zie Publiek maken).",
    "en": "This installation runs with deploy/compose.yaml: Caddy, the workers and Redis on one machine. Change "
          "this text, the name and the contact address for your own service (see Going public)."}
SERVER_LOG = {
    "nl": "De werkprocessen schrijven per verzoek het tijdstip, het IP-adres van de client (dat Caddy doorgeeft), "
          "het pad, de status en de browser of client naar hun uitvoer. Docker bewaart daarvan hooguit vijf "
          "bestanden van 10 MB (compose.yaml); het oudste wordt overschreven, bij druk verkeer na enkele dagen. "
          "Caddy schrijft in deze opzet geen eigen toegangslog.",
    "en": "The workers write the time, the client's IP address (passed on by Caddy), the path, the status and the "
          "browser or client of every request to their output. Docker keeps at most five files of 10 MB of it "
          "(compose.yaml); the oldest is overwritten, after a few days with busy traffic. In this set-up Caddy "
          "writes no access log of its own."}
HOSTING = {
    "location": {"nl": "Eén machine met deploy/compose.yaml (Caddy, de werkprocessen en Redis). Vul hier in waar die "
                       "machine staat en bij wie, en noem hieronder elke verwerker (zie Publiek maken).",
                 "en": "One machine running deploy/compose.yaml (Caddy, the workers and Redis). Say here where that "
                       "machine is and with whom, and name every processor below (see Going public)."},
    "processors": []}


def compose_registry(shipped: dict[str, Any]) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(json.dumps(shipped))  # a deep copy
    data["$schema"] = "../../registry.schema.json"
    server = data["server"]
    server["public_url"] = PUBLIC_URL
    server.pop("allowed_hosts", None)  # they follow from public_url
    server.pop("allowed_origins", None)
    server["operator"]["about"] = ABOUT
    server["privacy"]["server_log"] = SERVER_LOG
    server["operator"]["hosting"] = HOSTING
    return data


def render(data: dict[str, Any]) -> str:
    return json.dumps(data, ensure_ascii=False, indent=2) + "\n"


if __name__ == "__main__":
    COMPOSE.write_text(render(compose_registry(json.loads(SHIPPED.read_text(encoding="utf-8")))), encoding="utf-8")
    sys.stdout.write(f"wrote {COMPOSE.relative_to(ROOT)}\n")
