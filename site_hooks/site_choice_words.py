"""The words of the one story about which address answers which question (home, Keuzehulp, Connectoren)."""

from __future__ import annotations

from collections.abc import Mapping

from proxy.registry.model import Text

__all__ = ["CHOICE_WORDS"]


_t = Text  # _t(nl, en): one interface word in both languages


CHOICE_WORDS: Mapping[str, Text] = {
    "choice_looking_for": _t("Je zoekt", "You are looking for"),
    "choice_address": _t("Adres", "Address"),
    "choice_across": _t(
        "Een vraag over meer bestuurslagen tegelijk, zoals gemeente, Rijk en rechter",
        "A question across several levels of government, such as municipality, national government and courts",
    ),
    "choice_across_cost": _t(
        "de assistent kiest uit {tools} tools in plaats van hooguit {largest}, en kiest dus vaker mis.",
        "the assistant chooses from {tools} tools instead of at most {largest}, so it picks wrong more often.",
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
    # Laadstatus: the kinds of material a local source measures separately, by the code the platform uses
    "medium_gmb": _t("Gemeenteblad", "Municipal gazette"),
    "medium_prb": _t("Provinciaal blad", "Provincial gazette"),
    "medium_wsb": _t("Waterschapsblad", "Water board gazette"),
    "medium_bgr": _t("Blad gemeenschappelijke regeling", "Joint arrangement gazette"),
    "medium_gemeente": _t("Gemeenten", "Municipalities"),
    "medium_provincie": _t("Provincies", "Provinces"),
    "medium_waterschap": _t("Waterschappen", "Water boards"),
    # (local sources) where the reader sees which organisations stand still
    "coverage_stand": _t("Per organisatie tot wanneer het materiaal loopt: [Laadstatus]({laadstatus}).",
                         "Per organisation, up to when its material runs: [Load status]({laadstatus})."),
    # (source pages) the platform plug-in's About
    "about_platform": _t("Over het platform", "About the platform"),
    "about_documentation": _t("Het platform beschrijft zijn API op {link}.",
                              "The platform documents its API at {link}."),
    "about_cannot": _t("Wat het platform niet kan", "What the platform cannot do"),
    "about_quirks": _t("Eigenaardigheden in zijn antwoorden", "Quirks in its answers"),
    # (source pages) without a build-time measurement: the live page has it, so say where, not only what is missing
    "platform_no_snapshot": _t(
        "De actuele meting van deze bron staat op [Laadstatus]({laadstatus}), die de stand rechtstreeks bij de "
        "server opvraagt; bij het bouwen van deze site was er nog geen meting. Een assistent vraagt hem op met de "
        "tool `platform_status`.",
        "The current measurement of this source is on [Load status]({laadstatus}), which asks the server directly; "
        "when this site was built there was no measurement yet. An assistant asks for it with the "
        "`platform_status` tool.",
    ),
    # (connection pages) the parameter tables' note, split so the pointer to a toggle appears only with the toggle
    "param_note_untranslated": _t(
        "Een uitleg die nog niet in het Nederlands beschikbaar is, staat onder Technische details.",
        "An explanation not yet available in English is under Technical details.",
    ),
}
