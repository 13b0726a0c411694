"""The site's own interface words, Dutch and English.

Every connector, tool and platform word comes from the catalog; these are only the labels
around them (table headers, section titles, client instructions). Keeping them as `Text` makes a
missing translation a load-time error instead of a half-Dutch English page.
"""

from __future__ import annotations

from collections.abc import Mapping

from proxy.registry.model import Text
from site_hooks.site_choice_words import CHOICE_WORDS
from site_hooks.site_client_words import CLIENT_WORDS
from site_hooks.site_public_words import PUBLIC_WORDS

__all__ = ["FIELD_DOCS", "LABELS", "label"]


_t = Text  # _t(nl, en): one interface word in both languages


LABELS: Mapping[str, Text] = {
    **CHOICE_WORDS,  # which address answers which question (site_choice_words.py)
    **PUBLIC_WORDS,  # Over, Privacy, Toegankelijkheid and the footer (site_public_words.py)
    # --- connection pages
    "back_to_connectors": _t("Alle connectoren", "All connectors"),
    "address": _t("Adres", "Address"),
    "address_intro": _t(
        "Dit is het MCP-adres van deze connector. Je zet het in je AI-assistent; open je het in een browser, dan kom "
        "je op deze pagina. Alles op dit adres is alleen-lezen: geen tool verandert iets bij een bron.",
        "This is the MCP address of this connector. You put it in your AI assistant; opened in a browser, it brings "
        "you to this page. Everything at this address is read-only: no tool changes anything at a source.",
    ),
    "not_public": _t(
        "Dit adres is geen publiek https-adres. Assistenten op je eigen computer werken ermee: Claude Desktop via "
        "het configuratiebestand, Claude Code, VS Code, Cursor en de MCP Inspector. ChatGPT, de connectors van "
        "Claude en Copilot Studio verbinden vanuit de cloud en hebben een adres nodig dat via internet met https "
        "bereikbaar is: [Publiek maken]({guide}) zegt hoe een beheerder dat regelt.",
        "This address is not a public https address. Assistants on your own computer work with it: Claude Desktop "
        "through its configuration file, Claude Code, VS Code, Cursor and the MCP Inspector. ChatGPT, Claude's "
        "connectors and Copilot Studio connect from the cloud and need an address reachable over the internet with "
        "https: [Going public]({guide}) says how an operator sets that up.",
    ),
    "local_notice": _t(
        "Deze installatie draait op één computer: de adressen op deze site ({address}) werken alleen op de computer "
        "waarop BesluitBron draait, voor een assistent op die computer. Voor ChatGPT, de connectors van Claude, "
        "Copilot Studio of een collega is een publiek https-adres nodig; een beheerder regelt dat met een eigen "
        "domeinnaam, een server en een certificaat.",
        "This installation runs on one computer: the addresses on this site ({address}) work only on the computer "
        "that runs BesluitBron, for an assistant on that computer. ChatGPT, Claude's connectors, Copilot Studio or a "
        "colleague need a public https address; an operator sets that up with a domain name, a server and a "
        "certificate.",
    ),
    "local_notice_link": _t("Publiek maken", "Going public"),
    "hosts_outbound": _t("Adressen die de server aanroept (https, poort 443)",
                         "Addresses the server calls (https, port 443)"),
    "public_https": _t(
        "Dit is een publiek https-adres. Ook diensten die vanuit de cloud verbinden, kunnen het gebruiken: ChatGPT, "
        "de connectors van Claude en Copilot Studio. Wat je assistent opvraagt, gaat dan via die dienst naar deze "
        "server.",
        "This is a public https address. Services that connect from the cloud can use it too: ChatGPT, Claude's "
        "connectors and Copilot Studio. What your assistant asks for then travels through that service to this "
        "server.",
    ),
    "server_json": _t(
        'Beschrijving voor MCP-registers (`server.json`)',
        'Description for MCP registries (`server.json`)',
    ),
    "copy_address": _t(
        'Adres kopiëren',
        'Copy address',
    ),
    "tool_count": _t(
        '{count} tools',
        '{count} tools',
    ),
    "technical_details": _t(
        'Technische details',
        'Technical details',
    ),
    "allowed": _t(
        'toegestaan',
        'allowed',
    ),
    "aggregate_short": _t(
        'alle bronnen samen',
        'all sources together',
    ),
    "answers": _t("Wat dit adres beantwoordt", "What this address answers"),
    "source": _t("Bron", "Source"),
    "sources_behind": _t("Bronnen achter dit adres", "Sources behind this address"),
    "aggregate_note": _t(
        "Dit adres leest zelf niets in: het biedt de tools van alle ingeschakelde bronnen op één adres, elk met de "
        "naam van de bron ervoor. Dat zijn {tools} tools tegelijk; het adres van een losse bron heeft er hooguit "
        "{largest}. Hoe meer tools een assistent tegelijk ziet, hoe vaker hij de verkeerde kiest. Kies dus een losse "
        "bron als de vraag bij één bron hoort.",
        "This address reads nothing itself: it serves the tools of every enabled source at one address, each "
        "prefixed with its source. That is {tools} tools at once; the address of a single source has at most "
        "{largest}. The more tools an assistant sees at once, the more often it picks the wrong one. So choose a "
        "single source when the question belongs to one source.",
    ),
    "aggregate_empty": _t(
        "Op deze installatie is geen bronconnector ingeschakeld; dit adres biedt nu alleen de meta-tools.",
        "No source connector is enabled on this installation; this address now offers only the meta tools.",
    ),
    "questions": _t("Vragen die dit adres beantwoordt", "Questions this address answers"),
    "aggregate_tools_intro": _t(
        "Per bron de tools op dit adres, met de namen van hun parameters. Wat een tool doet, welke vraag hij "
        "beantwoordt, of hij een resultatenlijst met Zoekprecisie geeft en zijn volledige parametertabel staan op "
        "de verbindingspagina van zijn bron: de naam van de tool linkt ernaar.",
        "Per source, the tools at this address, with the names of their parameters. What a tool does, which "
        "question it answers, whether it returns a result list with search precision, and its full parameter "
        "table are on its source's connection page: the tool's name links there.",
    ),
    "aggregate_source": _t(
        "Dezelfde tools, zonder voorvoegsel, staan ook op het eigen adres van deze bron: {title}.",
        "The same tools, without the prefix, are also at this source's own address: {title}.",
    ),
    "tool": _t("Tool", "Tool"),
    "tools": _t("Tools", "Tools"),
    "tools_intro": _t(
        "Elke tool heeft een naam (die het model kiest), een titel (die jij leest) en is gemarkeerd als "
        "alleen-lezen.",
        "Every tool has a name (which the model picks), a title (which you read) and is marked read-only.",
    ),
    "remote_tools_note": _t(
        "Deze tools komen van een externe MCP-server. BesluitBron biedt alleen de tools aan die op de lijst in het "
        "register staan en die de server zelf als alleen-lezen markeert; wat ze teruggeven is externe data.",
        "These tools come from an external MCP server. BesluitBron serves only the tools on the registry's list "
        "that the server itself marks read-only; what they return is external data.",
    ),
    "remote_refused_intro": _t(
        "Wat de server over de andere tools zegt, en waarom BesluitBron ze niet aanbiedt (Engelstalig, zoals in "
        "het logboek):",
        "What the server says of its other tools, and why BesluitBron does not serve them:",
    ),
    "title": _t("Titel", "Title"),
    "name": _t("Naam", "Name"),
    "question": _t("Vraag", "Question"),
    "meta_tools": _t("Meta-tools", "Meta tools"),
    "meta_tools_intro": _t(
        "Deze tools heeft elke connector, welke bron er ook achter zit.",
        "Every connector has these tools, whatever source is behind it.",
    ),
    "read_only": _t("alleen-lezen", "read-only"),
    "result_list": _t("geeft een resultatenlijst met Zoekprecisie", "returns a result list with search precision"),
    "parameters": _t("Parameters", "Parameters"),
    "no_parameters": _t("Geen parameters.", "No parameters."),
    "param_type": _t("Type", "Type"),
    "param_required": _t("Verplicht", "Required"),
    "param_default": _t("Standaard", "Default"),
    "param_description": _t("Beschrijving", "Description"),
    "yes": _t("ja", "yes"),
    "no": _t("nee", "no"),
    "param_note": _t("Per parameter staat wat je kunt meegeven.", "Per parameter, what you can pass."),
    "connect": _t("Toevoegen aan je AI-assistent", "Add it to your AI assistant"),
    "connect_intro": _t(
        "Kies je client. Geen sleutel nodig: alles op dit adres is alleen-lezen.",
        "Pick your client. No key is needed: everything at this address is read-only.",
    ),
    # --- platform pages
    "back_to_platforms": _t("Alle bronplatforms", "All source platforms"),
    "covers": _t("Wat deze bron bevat", "What this source holds"),
    "coverage": _t("Dekking", "Coverage"),
    "notice": _t("Let op", "Note"),
    "media": _t("Media", "Media"),
    "local_source": _t(
        "Lokale bron: actualiteit verschilt per medium en per organisatie.",
        "Local source: currency differs per medium and per organisation.",
    ),
    "load_status": _t("Laadstatus", "Load status"),
    "no_measurement": _t(
        "Bij het bouwen van deze site was geen meting beschikbaar. Vraag de actuele stand op met de tool "
        "`platform_status` op elk adres, of lees `/status` van de server.",
        "No measurement was available when this site was built. Ask for the current state with the "
        "`platform_status` tool at any address, or read the server's `/status`.",
    ),
    "snapshot_missing_source": _t(
        "De meting bij het bouwen van deze site bevatte deze bron niet. Vraag de actuele stand op met de tool "
        "`platform_status`.",
        "The measurement taken when this site was built did not include this source. Ask for the current state "
        "with the `platform_status` tool.",
    ),
    "not_in_snapshot": _t("niet in de meting", "not in the measurement"),
    "snapshot_note": _t(
        "Momentopname van de meting op het moment dat deze site werd gebouwd; de tool `platform_status` geeft "
        "de actuele stand.",
        "A snapshot of the measurement taken when this site was built; the `platform_status` tool gives the "
        "current state.",
    ),
    "load_status_settings": _t(
        "Deze installatie meet elke {minutes} minuten. Een bron of organisatie die langer dan {days} dagen geen "
        "nieuw materiaal kreeg, telt als stilstaand.",
        "This installation measures every {minutes} minutes. A source or organisation that received no new "
        "material for more than {days} days counts as stalled.",
    ),
    "receiving": _t("Ontvangt nieuw materiaal", "Receiving new material"),
    "receiving_true": _t("ja", "yes"),
    "receiving_false": _t("nee, staat stil", "no, stalled"),
    "receiving_none": _t("onbekend", "unknown"),
    "current_through": _t("Materiaal tot en met", "Material up to"),
    "measured_at": _t("Gemeten op", "Measured at"),
    "organs_stalled": _t(
        'Organisaties zonder nieuw materiaal',
        'Organisations without new material',
    ),
    "reason": _t("Toelichting", "Note"),
    "per_medium": _t("Per soort", "Per kind"),
    "limits": _t("Limieten op deze installatie", "Limits on this installation"),
    "results_per_call": _t("Resultaten per aanroep", "Results per call"),
    "requests_per_minute": _t("Aanroepen per minuut", "Calls per minute"),
    "cache_ttl": _t("Cache (seconden)", "Cache (seconds)"),
    "timeout": _t("Time-out (seconden)", "Timeout (seconds)"),
    "citing": _t("Zo citeer je deze bron", "How to cite this source"),
    "attribution_label": _t("Bronvermelding", "Attribution"),
    "attribution_cite": _t("Wat je noemt", "What to name"),
    "attribution_license": _t("Licentie", "Licence"),
    "attribution_url": _t("Website", "Website"),
    "attribution_required": _t("Vermelding verplicht", "Attribution required"),
    "connector": _t("Connector", "Connector"),
    "served_by": _t("Deze bron is bereikbaar via de connector {title}:",
                    "This source is served by the connector {title}:"),
    "served_by_aggregate": _t(
        "Ook bereikbaar via {title}, samen met de andere bronnen.",
        "Also reachable through {title}, together with the other sources.",
    ),
    "not_served": _t(
        "Deze bron wordt op deze installatie niet via een connector aangeboden.",
        "This source is not offered through a connector on this installation.",
    ),
    "connection_page": _t("verbindingspagina", "connection page"),
    # --- lists and chooser
    "connector_list_tools": _t("Tools", "Tools"),
    "what": _t("Wat", "What"),
    "not_offered": _t("niet aangeboden", "not offered"),
    "chooser_source_questions": _t("Voor vragen als", "For questions like"),
    "chooser_cross": _t("Vragen over meerdere bestuurslagen", "Questions across levels of government"),
    "chooser_cross_body": _t(
        "{title} biedt alle {sources} bronnen op één adres, met {tools} tools. Gebruik het als een vraag gemeente, "
        "provincie, Rijk en rechter tegelijk raakt. Het nadeel: de assistent kiest uit {tools} tools in plaats van "
        "hooguit {largest}, en kiest dus vaker mis.",
        "{title} offers all {sources} sources at one address, with {tools} tools. Use it when a question spans "
        "municipality, province, national government and courts at once. The drawback: the assistant picks from "
        "{tools} tools instead of at most {largest}, and so picks wrong more often.",
    ),
    "chooser_no_aggregate": _t(
        "Op deze installatie is geen adres ingeschakeld dat alle bronnen samen aanbiedt; kies per vraag een bron.",
        "No address that offers all sources together is enabled on this installation; choose a source per "
        "question.",
    ),
    "explorer_connectors": _t("Connectoren", "Connectors"),
    "switch_footer": _t("In de footer", "In the footer"),
    "switch_enabled": _t("Ingeschakeld", "Enabled"),
    "disabled_count": _t(
        "Uitgeschakelde connectoren: {count}. Ze staan nergens op deze site, want hun adres antwoordt niet.",
        "Disabled connectors: {count}. They appear nowhere on this site, because their address does not answer.",
    ),
    "promoted": _t("Eén adres voor alle bronnen", "One address for all sources"),
    "promoted_none": _t(
        "Kies een adres in de lijst met [connectoren]({connectors}) of laat de [keuzehulp]({chooser}) "
        "meedenken.",
        "Pick an address from the list of [connectors]({connectors}) or let the [chooser]({chooser}) help.",
    ),
    "promoted_more": _t(
        "Liever één bron tegelijk? Zie de [connectoren]({connectors}) en de [keuzehulp]({chooser}).",
        "Prefer one source at a time? See the [connectors]({connectors}) and the [chooser]({chooser}).",
    ),
    "start_choose": _t(
        "**Kies een bron** die bij je vraag past. De [keuzehulp]({chooser}) zet per bron de vragen op een rij. Eén "
        "bron tegelijk werkt het best: de assistent kiest dan vaker de goede tool.",
        "**Choose a source** that fits your question. The [chooser]({chooser}) lists the questions per source. One "
        "source at a time works best: the assistant then picks the right tool more often.",
    ),
    "start_copy": _t(
        '**Kopieer het adres** van die bron met de knop naast het adres.',
        '**Copy the address** of that source with the button next to it.',
    ),
    "start_connect": _t(
        '**Zet het adres in je AI-assistent.** De verbindingspagina van elke bron zegt per assistent hoe dat gaat.',
        "**Put the address in your AI assistant.** Each source's connection page says how, per assistant.",
    ),
    "start_cross": _t(
        "Gaat je vraag over meer bestuurslagen tegelijk, bijvoorbeeld gemeente, Rijk en rechter? Gebruik dan "
        "{title}: alle bronnen op één adres, met {tools} tools in plaats van hooguit {largest}. De assistent kiest "
        "dan wel vaker mis.",
        "Does your question span several levels of government, for example municipality, national government and "
        "courts? Then use {title}: all sources at one address, with {tools} tools instead of at most {largest}. The "
        "assistant will pick wrong more often, though.",
    ),
    "start_more": _t(
        'Alle adressen staan bij [Connectoren]({connectors}); de [keuzehulp]({chooser}) helpt je kiezen.',
        'Every address is under [Connectors]({connectors}); the [chooser]({chooser}) helps you choose.',
    ),
    "contact_line": _t(
        "Meld een storing bij {name}: {email}. Noem erbij welk adres je gebruikte, wanneer het misging en wat de "
        "assistent antwoordde.",
        "Report a fault to {name}: {email}. Say which address you used, when it went wrong and what the assistant "
        "answered.",
    ),
    "privacy_what": _t(
        'Wat',
        'What',
    ),
    "privacy_kept": _t(
        'Hoe lang',
        'How long',
    ),
    "privacy_who": _t(
        'Wie kan erbij',
        'Who can see it',
    ),
    "privacy_calls": _t(
        "De aanroepen naar de bronplatforms per sessie of trace-handle: tijdstip, tool, het opgevraagde adres bij "
        "het platform (met je zoekwoorden), de status, de duur en de omvang.",
        "The calls to the source platforms per session or trace handle: time, tool, the address requested at the "
        "platform (with your search words), the status, the duration and the size.",
    ),
    "privacy_calls_kept": _t(
        'Tot {hours} uur na de laatste aanroep van die sessie; per sessie hooguit de laatste {count} aanroepen.',
        "Until {hours} hours after that session's last call; at most the latest {count} calls per session.",
    ),
    "privacy_calls_who": _t(
        'Alleen wie de sessie of de trace-handle heeft (via `list_platform_calls`), en de beheerder van de server.',
        "Only whoever holds the session or the trace handle (through `list_platform_calls`), and the server's "
        "operator.",
    ),
    "privacy_cache": _t(
        'Antwoorden van de bronplatforms, zodat dezelfde vraag niet steeds opnieuw naar het platform gaat.',
        'Answers from the source platforms, so the same question does not go to the platform again and again.',
    ),
    "privacy_cache_kept": _t(
        'Per bron {range} seconden; daarna vervalt het antwoord.',
        'Per source {range} seconds; then the answer expires.',
    ),
    "privacy_cache_who": _t(
        'Niemand apart: een volgende gelijke vraag krijgt hetzelfde antwoord. Het zijn openbare gegevens van de bron.',
        'Nobody separately: the next identical question gets the same answer. It is public data from the source.',
    ),
    "privacy_sessions": _t(
        'Een sessienummer per verbinding van een assistent, met het adres waarvoor het geldt.',
        'A session number per connection of an assistant, with the address it is for.',
    ),
    "privacy_sessions_kept": _t(
        'Tot {minutes} minuten nadat de sessie voor het laatst gebruikt werd.',
        'Until {minutes} minutes after the session was last used.',
    ),
    "privacy_sessions_who": _t(
        'De assistent die de sessie opende, en de beheerder van de server.',
        "The assistant that opened the session, and the server's operator.",
    ),
    "privacy_server_log": _t(
        'Het logboek van de webserver.',
        "The web server's log.",
    ),
    "privacy_operator": _t(
        'Wie deze installatie beheert',
        'Who runs this installation',
    ),
    "field": _t("Veld", "Field"),
    "setting": _t("Gegeven", "Item"),
    "value": _t("Waarde", "Value"),
    "measurement": _t("Meting", "Measurement"),
    "meaning": _t("Betekenis", "Meaning"),
    "result_list_tools": _t("Tools met een resultatenlijst", "Tools that return a result list"),
    # --- footer and llms.txt
    "footer_label": _t("MCP-adres", "MCP address"),
    "footer_aggregate_note": _t("Alle bronnen op één adres. Met het adres van één bron kiest een assistent preciezer:",
                                "Every source at one address. With one source's own address an assistant chooses "
                                "more precisely:"),
    "llms_connectors": _t("Connectoren", "Connectors"),
    "llms_connection_pages": _t("Verbindingspagina's", "Connection pages"),
    "llms_docs": _t("Documentatie", "Documentation"),
    "llms_platforms": _t("Bronplatforms", "Source platforms"),
    "llms_address_note": _t("MCP-adres (Streamable HTTP, alleen-lezen).", "MCP address (Streamable HTTP, read-only)."),
    "llms_info": _t(
        "{name} geeft AI-assistenten alleen-lezen toegang tot Nederlandse openbare besluitvorming via het Model "
        "Context Protocol. Er zijn {count} connectoren: elke bronconnector leest precies één bronplatform; "
        "{aggregate} Elke connector heeft de meta-tools list_capabilities, list_platform_calls en "
        "platform_status. Citeer vondsten met de bronvermelding die elke bron opgeeft.",
        "{name} gives AI assistants read-only access to Dutch public decision-making over the Model Context "
        "Protocol. There are {count} connectors: each source connector reads exactly one source platform; "
        "{aggregate} Every connector has the meta tools list_capabilities, list_platform_calls and "
        "platform_status. Cite findings with the attribution each source states.",
    ),
    "llms_aggregate": _t(
        "{title} biedt de tools van alle ingeschakelde bronnen op één adres.",
        "{title} serves the tools of every enabled source at one address.",
    ),
    "llms_no_aggregate": _t("er is geen verzameladres ingeschakeld.", "no all-sources address is enabled."),
    "llms_other_language": _t("English", "Nederlands"),
    "llms_other_language_note": _t(
        "Dezelfde index in het Engels.", "The same index in Dutch.",
    ),
    "llms_explorer_json": _t("Catalogus (JSON)", "Catalog (JSON)"),
    "llms_explorer_json_note": _t(
        "Elke connector met zijn adres; per connector een eigen bestand (`tools_url`) met zijn tools, inclusief "
        "invoer- en uitvoerschema's.",
        "Every connector with its address; per connector a file of its own (`tools_url`) with its tools, including "
        "input and output schemas.",
    ),
    # --- the client tabs of connection pages: their own module
    **CLIENT_WORDS,
}

# Explanations of the schema fields the site documents (Zoekprecisie, call records). A field the
# code adds without an entry here fails the build, so the documentation cannot silently fall behind.
FIELD_DOCS: Mapping[str, Mapping[str, Text]] = {
    "precision": {
        "total": _t("Aantal treffers volgens het platform; leeg als het platform dat niet zegt.",
                    "Number of matches according to the platform; empty when the platform does not say."),
        "total_relation": _t("Hoe dat aantal te lezen is: exact, ondergrens, schatting of onbekend.",
                             "How to read that number: exact, lower bound, estimate or unknown."),
        "returned": _t("Aantal resultaten in dit antwoord.", "Number of results in this answer."),
        "truncated": _t("Waar als er meer treffers zijn dan teruggegeven.",
                        "True when there are more matches than were returned."),
        "matched": _t("Hoe de zoekvraag bij het platform is gematcht (bijvoorbeeld volledige tekst of alleen titel).",
                      "How the query was matched at the platform (for example full text or title only)."),
        "not_applied": _t("Delen van de vraag die het platform niet kon toepassen, zoals een filter.",
                          "Parts of the request the platform could not apply, such as a filter."),
        "partial": _t("Het platform meldde zelf een onvolledige zoekopdracht.",
                      "The platform itself reported an incomplete search."),
        "next_offset": _t("Waar de volgende pagina begint; leeg als er geen volgende is.",
                          "Where the next page starts; empty when there is none."),
        "hint": _t("Bij een lege lijst na filters: welk filter de lijst leeg maakte en wat je kunt proberen.",
                   "For a list emptied by filters: which filter emptied it and what to try."),
    },
    "call": {
        "at_utc": _t("Tijdstip van de aanroep (UTC).", "Time of the call (UTC)."),
        "source": _t("Het bronplatform.", "The source platform."),
        "tool": _t("De tool die de aanroep deed.", "The tool that made the call."),
        "method": _t("HTTP-methode.", "HTTP method."),
        "url": _t("Het aangeroepen adres, zonder geheimen.", "The address called, without secrets."),
        "status": _t("HTTP-status van het antwoord; leeg als er geen antwoord kwam.",
                     "HTTP status of the reply; empty when no reply came."),
        "duration_ms": _t("Duur in milliseconden.", "Duration in milliseconds."),
        "bytes": _t("Omvang van het antwoord in bytes.", "Size of the reply in bytes."),
        "cache_hit": _t("Kwam uit de cache (telt niet mee voor beschikbaarheid).",
                        "Came from the cache (does not count towards availability)."),
        "error": _t("Foutmelding als de aanroep mislukte.", "Error message when the call failed."),
        "request_id": _t("Het id van het MCP-verzoek dat de aanroep deed; hetzelfde id staat in het logboek van de "
                         "server.",
                         "The id of the MCP request that made the call; the same id is in the server's log."),
    },
}


def label(key: str, lang: str, **values: object) -> str:
    """The label `key` in `lang`, with `{name}` placeholders filled."""
    try:
        text = LABELS[key][lang]
    except KeyError as exc:
        raise KeyError(f"no label '{key}' in language '{lang}'") from exc
    return text.format(**values) if values else text
