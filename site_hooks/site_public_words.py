"""The words of the public-service pages (Over BesluitBron, Privacy, Toegankelijkheid) and the footer, nl and en.

The facts in them (who runs the installation, contact, licences, legal basis, accessibility status) come from
the registry's `server.operator`; these are only the sentences around them. Merged into `site_labels.LABELS`.
"""

from __future__ import annotations

from collections.abc import Mapping

from proxy.registry.model import Text

__all__ = ["PUBLIC_WORDS"]


_t = Text  # _t(nl, en): one interface word in both languages


PUBLIC_WORDS: Mapping[str, Text] = {
    # --- facts tables (Over, Privacy, Toegankelijkheid)
    "pub_item": _t("Gegeven", "Item"),
    "pub_value": _t("Waarde", "Value"),
    "pub_operator": _t("Beheerder", "Operator"),
    "pub_kind": _t("Soort beheerder", "Kind of operator"),
    "pub_kind_public_body": _t("Overheidsorganisatie (bestuursorgaan)", "Government body"),
    "pub_kind_organisation": _t("Organisatie", "Organisation"),
    "pub_kind_person": _t("Eén persoon, voor eigen gebruik", "One person, for their own use"),
    "pub_about": _t("Waar het draait", "Where it runs"),
    "pub_contact": _t("Contact", "Contact"),
    "pub_address": _t("Adres", "Address"),
    "pub_version": _t("Versie", "Version"),
    "pub_version_note": _t(
        "Dezelfde versie noemt de server aan elke assistent die verbindt (`initialize`).",
        "The server names the same version to every assistant that connects (`initialize`).",
    ),
    "pub_code_license": _t("Licentie van de software", "Licence of the software"),
    "pub_data_license": _t("Licentie van wat deze installatie zelf publiceert", "Licence of what this installation "
                           "publishes itself"),
    "pub_data_license_scope": _t(
        "De teksten van deze site en de beschrijving van de connectoren (`explorer.json`, `server.json`). "
        "Gegevens uit een bron houden de licentie van die bron (hieronder).",
        "The text of this site and the description of the connectors (`explorer.json`, `server.json`). Data from a "
        "source keeps that source's licence (below).",
    ),
    "pub_no_license": _t(
        "Geen licentie opgegeven. Zonder licentie geldt het gewone auteursrecht: vraag de beheerder wat je mag "
        "hergebruiken.",
        "No licence stated. Without a licence ordinary copyright applies: ask the operator what you may reuse.",
    ),
    "pub_source_code": _t("Broncode", "Source code"),
    "pub_no_source_url": _t(
        "Deze installatie noemt geen openbare repository. De broncode staat in de map waaruit BesluitBron hier draait "
        "(met `LICENSE` en `SECURITY.md`); wat je ermee mag, zegt de licentie hierboven. Een publieke "
        "installatie noemt hier haar repository (`server.operator.source_url`).",
        "This installation names no public repository. The source code is in the folder BesluitBron runs from here "
        "(with `LICENSE` and `SECURITY.md`); what you may do with it, the licence above says. A public installation "
        "names its repository here (`server.operator.source_url`).",
    ),
    "pub_security": _t("Beveiligingsproblemen melden", "Reporting a security problem"),
    "pub_security_value": _t(
        "Meld een kwetsbaarheid aan {email}, niet in een openbaar kanaal. De server publiceert dit adres ook "
        "volgens RFC 9116 op {securitytxt}; `SECURITY.md` bij de broncode zegt wat je na een melding kunt "
        "verwachten.",
        "Report a vulnerability to {email}, not in a public channel. The server also publishes this address as "
        "RFC 9116 asks, at {securitytxt}; `SECURITY.md` with the source code says what to expect after a report.",
    ),
    "pub_source": _t("Bron", "Source"),
    "pub_source_license": _t("Licentie", "Licence"),
    # --- privacy statement
    "pub_controller": _t("Verwerkingsverantwoordelijke", "Controller"),
    "pub_controller_is_operator": _t(
        "De beheerder van deze installatie is verantwoordelijk voor wat ze met persoonsgegevens doet.",
        "The operator of this installation is responsible for what it does with personal data.",
    ),
    "pub_controller_other": _t(
        "Verantwoordelijk voor wat deze installatie met persoonsgegevens doet, is niet de beheerder zelf maar de "
        "organisatie hiernaast.",
        "Responsible for what this installation does with personal data is not the operator itself but the "
        "organisation shown here.",
    ),
    "pub_dpo": _t("Functionaris gegevensbescherming", "Data protection officer"),
    "pub_no_dpo": _t(
        "Er is geen functionaris gegevensbescherming opgegeven; vragen gaan naar de verwerkingsverantwoordelijke.",
        "No data protection officer is given; questions go to the controller.",
    ),
    "pub_basis_public_task": _t(
        "**Artikel 6, eerste lid, onder e, AVG (publieke taak).** De gegevens worden verwerkt omdat dat nodig is "
        "voor een taak van algemeen belang van {name}: openbare besluitvorming toegankelijk maken. Je kunt "
        "daartegen bezwaar maken (zie Je rechten).",
        "**Article 6(1)(e) GDPR (public task).** The data is processed because that is necessary for a task in "
        "the public interest of {name}: making public decision-making accessible. You can object to it (see Your "
        "rights).",
    ),
    "pub_basis_legitimate_interest": _t(
        "**Artikel 6, eerste lid, onder f, AVG (gerechtvaardigd belang).** {name} heeft er belang bij dat de dienst "
        "werkt, beveiligd is en dat storingen te onderzoeken zijn; de gegevens zijn daartoe beperkt en kort bewaard. "
        "Je kunt daartegen bezwaar maken (zie Je rechten).",
        "**Article 6(1)(f) GDPR (legitimate interest).** {name} has an interest in the service working, being "
        "secure and faults being traceable; the data is limited to that and kept briefly. You can object to it "
        "(see Your rights).",
    ),
    "pub_basis_own_use": _t(
        "**Eigen gebruik.** Deze installatie draait op de computer van wie haar startte, voor die persoon zelf. Voor "
        "zuiver persoonlijk gebruik geldt de AVG niet (artikel 2, tweede lid, onder c). Maakt die persoon haar "
        "bereikbaar voor anderen, dan is hij of zij verantwoordelijk en is een grondslag uit artikel 6 AVG nodig: "
        "een organisatie die BesluitBron aanbiedt, zet haar eigen gegevens en grondslag in het register.",
        "**Own use.** This installation runs on the computer of whoever started it, for that person. The GDPR does "
        "not apply to purely personal use (Article 2(2)(c)). If that person makes it reachable for others, they are "
        "responsible and need a ground from Article 6 GDPR: an organisation that offers BesluitBron puts its own "
        "facts and ground in the registry.",
    ),
    "pub_recipient_note": _t(
        "Het platform ziet het internetadres van deze server, niet dat van jou of je assistent.",
        "The platform sees the internet address of this server, not yours or your assistant's.",
    ),
    "pub_hosting": _t("Waar het draait", "Where it runs"),
    "pub_hosting_more": _t("Meer op", "More on"),
    "pub_processors_named": _t("Verwerkers: {names}.", "Processors: {names}."),
    "pub_processor": _t("Verwerker", "Processor"),
    "pub_processor_role": _t("Wat die doet", "What it does"),
    "pub_processor_location": _t("Waar", "Where"),
    "pub_processors_note": _t(
        "Met elke verwerker is een verwerkersovereenkomst gesloten (artikel 28 AVG); vraag die op bij de "
        "verantwoordelijke hierboven.",
        "With every processor a data processing agreement has been made (Article 28 GDPR); ask the controller "
        "above for it.",
    ),
    "pub_no_processors": _t(
        "Er zijn geen verwerkers: niemand anders dan de beheerder hierboven verwerkt gegevens voor deze installatie.",
        "There are no processors: nobody but the operator above processes data for this installation.",
    ),
    "pub_hosting_unstated": _t(
        "Deze installatie zegt niet waar ze draait. Vraag het de verantwoordelijke hierboven.",
        "This installation does not say where it runs. Ask the controller above.",
    ),
    "pub_no_recipients": _t(
        "Op deze installatie staat geen bron aan; er gaat niets naar een bronplatform.",
        "No source is switched on in this installation; nothing goes to a source platform.",
    ),
    "pub_rights_contact": _t(
        "Wil je een van deze rechten gebruiken, mail dan {controller} via {email}{dpo}. Noem erbij welk adres je "
        "gebruikte en wanneer, en zo mogelijk de sessie of trace-handle: BesluitBron kent geen namen, alleen "
        "sessies. Je krijgt binnen een maand antwoord (artikel 12 AVG).",
        "To use any of these rights, e-mail {controller} at {email}{dpo}. Say which address you used and when, and "
        "if you can the session or trace handle: BesluitBron knows no names, only sessions. You get an answer "
        "within a month (Article 12 GDPR).",
    ),
    "pub_rights_own_use": _t(
        "Op deze installatie staan alleen gegevens van wie haar startte, en die persoon kan er zelf bij: wie de "
        "server stopt, wist de aanroepen, de cache en de sessies (zonder Redis staan ze alleen in het geheugen) en "
        "het logboek in het terminalvenster.",
        "This installation holds only data of whoever started it, and that person can reach it themselves: stopping "
        "the server erases the calls, the cache and the sessions (without Redis they are in memory only) and the "
        "log in the terminal window.",
    ),
    "pub_rights_dpo": _t(
        " of de functionaris gegevensbescherming via {email}",
        " or the data protection officer at {email}",
    ),
    # --- accessibility statement
    "pub_site": _t("Website", "Website"),
    "pub_status": _t("Nalevingsstatus", "Compliance status"),
    "pub_checked": _t("Laatst gecontroleerd", "Last checked"),
    "pub_report": _t("Onderzoeksrapport", "Research report"),
    "pub_register": _t("In het register", "In the register"),
    "pub_statement_intro": _t(
        "{name} wil dat iedereen deze website kan gebruiken, ook met een beperking. Deze verklaring geldt voor de "
        "documentatiesite van BesluitBron op {site}, in het Nederlands en het Engels.",
        "{name} wants everyone to be able to use this website, with a disability too. This statement applies to "
        "BesluitBron's documentation site at {site}, in Dutch and English.",
    ),
    "pub_status_A": _t("A – voldoet volledig", "A – fully compliant"),
    "pub_status_B": _t("B – voldoet gedeeltelijk", "B – partially compliant"),
    "pub_status_C": _t("C – eerste maatregelen genomen", "C – first measures taken"),
    "pub_status_D": _t("D – voldoet niet", "D – not compliant"),
    "pub_status_E": _t("E – geen verklaring", "E – no statement"),
    "pub_status_meaning_A": _t(
        "Een volledig onderzoek van minder dan drie jaar oud laat zien dat de site aan alle eisen voldoet.",
        "A complete study less than three years old shows the site meets every requirement.",
    ),
    "pub_status_meaning_B": _t(
        "Een volledig onderzoek van minder dan drie jaar oud laat zien dat de site nog niet aan alle eisen voldoet; "
        "voor elke afwijking zijn oorzaak, gevolg en maatregelen beschreven.",
        "A complete study less than three years old shows the site does not yet meet every requirement; for each "
        "deviation the cause, effect and measures are described.",
    ),
    "pub_status_meaning_C": _t(
        "Er is nog geen volledig onderzoek; een onderzoek is binnen zes maanden gepland.",
        "There is no complete study yet; a study is planned within six months.",
    ),
    "pub_status_meaning_D": _t(
        "Er is een verklaring, maar geen volledig onderzoek naar alle eisen en geen onderzoek binnen zes maanden "
        "gepland. De controles hieronder zijn automatisch en dekken niet alle eisen.",
        "There is a statement, but no complete study of every requirement and no study planned within six months. "
        "The checks below are automatic and do not cover every requirement.",
    ),
    "pub_status_meaning_E": _t(
        "Er is geen toegankelijkheidsverklaring.",
        "There is no accessibility statement.",
    ),
    "pub_access_contact": _t(
        "Kun je iets op deze site niet lezen of gebruiken, of heb je een vraag over de toegankelijkheid? Mail "
        "{name} via {email}. Zeg op welke pagina het was, wat je probeerde en met welk hulpmiddel (bijvoorbeeld een "
        "schermlezer of vergroting).",
        "Is there something on this site you cannot read or use, or do you have a question about its accessibility? "
        "E-mail {name} at {email}. Say on which page it was, what you tried and with which aid (a screen reader or "
        "magnifier, for example).",
    ),
    "pub_access_ombudsman": _t(
        "Ben je niet tevreden met hoe je melding is afgehandeld, dan kun je een klacht indienen bij de [Nationale "
        "ombudsman](https://www.nationaleombudsman.nl), of bij de ombudsman van je gemeente als die er een heeft.",
        "If you are not satisfied with how your report was handled, you can complain to the [National "
        "Ombudsman](https://www.nationaleombudsman.nl), or to your municipality's ombudsman if it has one.",
    ),
    # --- footer
    "pub_footer_operator": _t("Beheer", "Run by"),
    "pub_footer_contact": _t("Contact", "Contact"),
    "pub_footer_version": _t("versie {version}", "version {version}"),
    "pub_footer_pages": _t("Over deze dienst", "About this service"),
    "pub_footer_over": _t("Over BesluitBron", "About BesluitBron"),
    "pub_footer_privacy": _t("Privacy", "Privacy"),
    "pub_footer_accessibility": _t("Toegankelijkheid", "Accessibility"),
    "pub_footer_made_with": _t("Gemaakt met", "Made with"),
}
