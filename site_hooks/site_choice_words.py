"""The words of the one story about which address answers which question (home, Keuzehulp, Connectoren)."""

from __future__ import annotations

from collections.abc import Mapping

from proxy.registry import Text

__all__ = ["CHOICE_WORDS"]


def _t(nl: str, en: str) -> Text:
    return Text(nl=nl, en=en)


CHOICE_WORDS: Mapping[str, Text] = {
    "choice_looking_for": _t("Je zoekt", "You are looking for"),
    "choice_address": _t("Adres", "Address"),
    "choice_across": _t(
        "Een vraag over meer bestuurslagen tegelijk, zoals gemeente, Rijk en rechter",
        "A question across several levels of government, such as municipality, national government and courts",
    ),
    "choice_across_cost": _t(
        "{tools} tools op één adres: de assistent kiest vaker mis dan bij één bron (hooguit {largest}).",
        "{tools} tools at one address: the assistant picks wrong more often than with one source (at most "
        "{largest}).",
    ),
    "choice_council_or_notice": _t(
        "**Raadsbesluit of bekendmaking?** Een raadsbesluit neemt de gemeenteraad in een vergadering; het voorstel, "
        "de moties en het besluit staan bij {council}. Een bekendmaking is de officiële publicatie van een besluit, "
        "zoals een vergunning, een verordening of een verkeersbesluit, in het Gemeenteblad of een ander blad; die "
        "staan bij {notices}.",
        "**Council decision or public notice?** A council decision is taken by the municipal council in a meeting; "
        "the proposal, the motions and the decision are at {council}. A public notice is the official publication "
        "of a decision, such as a permit, a bylaw or a traffic decision, in the municipal gazette or another "
        "gazette; those are at {notices}.",
    ),
    "keywords_line": _t("Het adres voor", "The address for"),
}
