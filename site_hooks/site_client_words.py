"""The words of the client tabs on connection pages (how to add an address to an assistant), Dutch and English.

`site_labels.LABELS` merges `CLIENT_WORDS`, so every page reads them through `label()`/`h()` like any other
label. Keys start with `client_` (or `phone_`). Per client `<key>` (see `site_clients.client_tabs`):
`client_<key>_tab` (the tab's name), `client_<key>_needs` (plan or role), `client_<key>_phone`, and the
steps and failures its `ClientTab` names.

Button and menu names are the clients' own, as their vendors document them; on Dutch pages an English-only
name is marked `lang="en"`. Plans and rights were checked against the vendors' pages named in
`site_clients.client_tabs` in December 2026 (`CHECKED`); update both when a vendor changes them.
"""

from __future__ import annotations

from collections.abc import Mapping

from proxy.registry.model import Text

__all__ = ["CHECKED", "CLIENT_WORDS"]

CHECKED = Text(nl="december 2026", en="December 2026")


_t = Text  # _t(nl, en): one interface word in both languages


def _ui(*names: str) -> str:
    """Menu and button names of an English-only interface on a Dutch page: bold, marked as English."""
    return " → ".join(f'<strong lang="en">{name}</strong>' for name in names)


def _en(*names: str) -> str:
    return " → ".join(f"**{name}**" for name in names)


CLIENT_WORDS: Mapping[str, Text] = {
    # --- around every tab
    "client_needs": _t("Nodig:", "You need:"),
    "client_source": _t("Bron:", "Source:"),
    "client_checked": _t(f"gecontroleerd {CHECKED.nl}", f"checked {CHECKED.en}"),
    "client_trouble": _t("Werkt het niet?", "Not working?"),
    "client_phone_label": _t("[Op je telefoon](#phone):", "[On your phone](#phone):"),
    "client_computer_only": _t("Alleen op een computer.", "On a computer only."),
    "client_address": _t("Het adres:", "The address:"),
    "client_tools_all": _t(
        "Deze assistent gebruikt alle {count} tools van dit adres en kiest zelf welke een vraag nodig heeft.",
        "This assistant uses all {count} tools of this address and picks the ones a question needs.",
    ),
    "client_check": _t(
        "**Controleer:** vraag *Welke bronnen kun je via {title} raadplegen, en tot wanneer hebben ze materiaal?* "
        "Noemt het antwoord {sources} met een datum, dan werkt de verbinding.",
        "**Check:** ask *Which sources can you consult through {title}, and up to when do they have material?* "
        "If the answer names {sources} with a date, the connection works.",
    ),
    "client_check_sources": _t("de {count} bronnen van dit adres", "this address's {count} sources"),
    # Link texts of the vendors' pages behind the requirements (site_clients.client_tabs).
    "client_src_anthropic": _t("Anthropic, eigen connectors", "Anthropic, custom connectors"),
    "client_src_mcp_local": _t("MCP, lokale servers", "MCP, local servers"),
    "client_src_claude_code": _t("Claude Code, installatie", "Claude Code, setup"),
    "client_src_openai_developer_mode": _t("OpenAI, ontwikkelaarsmodus", "OpenAI, developer mode"),
    "client_src_openai_admin": _t("OpenAI, beheer van apps", "OpenAI, admin controls for apps"),
    "client_src_ms_mcp": _t("Microsoft, MCP-server koppelen", "Microsoft, connect an MCP server"),
    "client_src_ms_licence": _t("Microsoft, licenties", "Microsoft, licensing"),
    "client_src_ms_dlp": _t("Microsoft, databeleid (DLP)", "Microsoft, data policies (DLP)"),
    "client_src_ms_publish": _t("Microsoft, publiceren in Teams en Microsoft 365 Copilot",
                                "Microsoft, publish to Teams and Microsoft 365 Copilot"),
    "client_src_github_mcp": _t("GitHub, MCP in Copilot", "GitHub, MCP in Copilot"),
    "client_src_vscode_mcp": _t("VS Code, MCP-servers", "VS Code, MCP servers"),
    "client_src_cursor_mcp": _t("Cursor, MCP", "Cursor, MCP"),
    "client_src_inspector": _t("MCP Inspector", "MCP Inspector"),
    # The failures several clients share.
    "client_fail_not_public": _t(
        "De dienst kan het adres niet bereiken.",
        "The service cannot reach the address.",
    ),
    "client_fix_not_public": _t(
        "Deze dienst verbindt vanuit de eigen cloud, niet vanaf je computer: het adres moet via internet met https "
        "bereikbaar zijn, dus niet `localhost` of alleen in het netwerk van je organisatie. Gebruik een publiek "
        "https-adres van BesluitBron (de beheerder van je organisatie weet of er een is), of een assistent op je "
        "computer.",
        "This service connects from its own cloud, not from your computer: the address must be reachable over the "
        "internet with https, so not `localhost` or only inside your organisation's network. Use a public https "
        "address of BesluitBron (your organisation's operator knows whether there is one), or an assistant on "
        "your computer.",
    ),
    "client_fail_node": _t(
        "Foutmelding dat `npx` of `node` niet gevonden wordt.",
        "An error that `npx` or `node` cannot be found.",
    ),
    "client_fix_node": _t(
        "Installeer Node.js (de LTS-versie van nodejs.org) en start het programma daarna opnieuw.",
        "Install Node.js (the LTS version from nodejs.org), then restart the program.",
    ),
    # --- the phone overview above the tabs
    "phone_title": _t("Op je telefoon", "On your phone"),
    "phone_claude": _t(
        "**Claude** (iOS, Android): gebruikt de connectors die je eerst op claude.ai of in de desktop-app toevoegt; in "
        "de app zelf voeg je er geen toe.",
        "**Claude** (iOS, Android): uses the connectors you first add on claude.ai or in the desktop app; you cannot "
        "add one in the app itself.",
    ),
    "phone_copilot": _t(
        "**Microsoft 365 Copilot** en **Teams** (iOS, Android): zodra de agent uit Copilot Studio in Teams en "
        "Microsoft 365 Copilot is gepubliceerd.",
        "**Microsoft 365 Copilot** and **Teams** (iOS, Android): once the agent from Copilot Studio is published to "
        "Teams and Microsoft 365 Copilot.",
    ),
    "phone_chatgpt": _t(
        "**ChatGPT**: eigen MCP-apps werken alleen in ChatGPT op het web, niet in de apps.",
        "**ChatGPT**: your own MCP apps work only in ChatGPT on the web, not in the apps.",
    ),
    "phone_computer": _t(
        "Claude Desktop met het configuratiebestand, Claude Code, VS Code, Cursor en de MCP Inspector werken alleen op "
        "een computer.",
        "Claude Desktop with its configuration file, Claude Code, VS Code, Cursor and the MCP Inspector work on a "
        "computer only.",
    ),
    "phone_public": _t(
        "Een telefoon gebruikt het adres via de cloud van de dienst: dat kan alleen met een publiek https-adres.",
        "A phone uses the address through the service's cloud: that only works with a public https address.",
    ),
    # --- Claude (claude.ai, the desktop app, the mobile apps): a custom connector
    "client_claude_tab": _t("Claude", "Claude"),
    "client_claude_needs": _t(
        "een Claude-account. Free heeft één eigen connector; Pro, Max, Team en Enterprise meer. Bij Team en Enterprise "
        "voegt eerst een eigenaar (*Owner*) de connector toe voor de organisatie.",
        "a Claude account. Free has one custom connector; Pro, Max, Team and Enterprise more. On Team and "
        "Enterprise an *Owner* first adds the connector for the organisation.",
    ),
    "client_claude_step_open": _t(
        f"Open op claude.ai of in de desktop-app {_ui('Customize', 'Connectors')} (eerder: "
        f"{_ui('Settings', 'Connectors')}), kies {_ui('+')} en dan {_ui('Add custom connector')}.",
        f"On claude.ai or in the desktop app open {_en('Customize', 'Connectors')} (earlier: "
        f"{_en('Settings', 'Connectors')}), choose {_en('+')}, then {_en('Add custom connector')}.",
    ),
    "client_claude_step_add": _t(
        f"Geef een naam, plak dit adres en kies {_ui('Add')}. Inloggen is niet nodig.",
        f"Give a name, paste this address and choose {_en('Add')}. No sign-in is needed.",
    ),
    "client_claude_step_use": _t(
        f"In een gesprek: {_ui('+')} links onder het invoerveld, {_ui('Connectors')}, zet de connector aan. Per tool "
        "kies je daar of Claude eerst om toestemming vraagt.",
        f"In a chat: {_en('+')} at the lower left of the input field, {_en('Connectors')}, switch the connector on. "
        "There you also choose per tool whether Claude asks for permission first.",
    ),
    "client_claude_phone": _t(
        "de apps voor iOS en Android gebruiken de connector zodra je hem op claude.ai of in de desktop-app hebt "
        "toegevoegd.",
        "the iOS and Android apps use the connector once you have added it on claude.ai or in the desktop app.",
    ),
    "client_claude_fail_off": _t(
        "Claude gebruikt de tools niet.",
        "Claude does not use the tools.",
    ),
    "client_claude_fix_off": _t(
        f"Zet de connector aan in dit gesprek ({_ui('+')}, {_ui('Connectors')}) en noem de bron in je vraag.",
        f"Switch the connector on in this chat ({_en('+')}, {_en('Connectors')}) and name the source in your "
        "question.",
    ),
    "client_claude_fail_missing": _t(
        f"Je ziet {_ui('Add custom connector')} niet.",
        f"You do not see {_en('Add custom connector')}.",
    ),
    "client_claude_fix_missing": _t(
        f"Bij Team en Enterprise voegt een *Owner* de connector toe onder {_ui('Admin settings', 'Connectors')}; "
        "daarna zet ieder hem zelf aan. Op Free gebruik je misschien je ene eigen connector al.",
        f"On Team and Enterprise an *Owner* adds the connector under {_en('Admin settings', 'Connectors')}; then "
        "everyone switches it on. On Free you may already use your one custom connector.",
    ),
    # --- Claude Desktop through its configuration file: the only Claude route to an address that is not public
    "client_claude_desktop_tab": _t("Claude Desktop (configuratiebestand)", "Claude Desktop (config file)"),
    "client_claude_desktop_needs": _t(
        "Claude Desktop voor macOS of Windows en Node.js voor de brug `mcp-remote`. Alleen deze route bereikt een "
        "adres dat niet publiek is (je eigen computer, het netwerk van je organisatie): connectors verbinden altijd "
        "vanuit de cloud van Anthropic.",
        "Claude Desktop for macOS or Windows and Node.js for the `mcp-remote` bridge. Only this route reaches an "
        "address that is not public (your own computer, your organisation's network): connectors always connect "
        "from Anthropic's cloud.",
    ),
    "client_claude_desktop_step_config": _t(
        f"Open {_ui('Settings', 'Developer', 'Edit Config')} en zet dit in `claude_desktop_config.json` (naast "
        "servers die er al staan):",
        f"Open {_en('Settings', 'Developer', 'Edit Config')} and put this in `claude_desktop_config.json` (next to "
        "any servers already there):",
    ),
    "client_claude_desktop_step_paths": _t(
        "Het bestand staat op macOS in `~/Library/Application Support/Claude/claude_desktop_config.json` en op "
        "Windows in `%APPDATA%\\Claude\\claude_desktop_config.json`. Sluit Claude Desktop helemaal af en start het "
        "opnieuw.",
        "On macOS the file is `~/Library/Application Support/Claude/claude_desktop_config.json`, on Windows "
        "`%APPDATA%\\Claude\\claude_desktop_config.json`. Quit Claude Desktop completely and start it again.",
    ),
    "client_claude_desktop_fail_json": _t(
        "Claude meldt een fout in de configuratie.",
        "Claude reports an error in the configuration.",
    ),
    "client_claude_desktop_fix_json": _t(
        "Het bestand is geen geldige JSON meer, vaak door een komma. Zet de server binnen het bestaande "
        "`mcpServers`-blok en controleer de haakjes.",
        "The file is no longer valid JSON, often because of a comma. Put the server inside the existing "
        "`mcpServers` block and check the brackets.",
    ),
    "client_claude_desktop_fail_absent": _t(
        "De server verschijnt niet in Claude.",
        "The server does not appear in Claude.",
    ),
    "client_claude_desktop_fix_absent": _t(
        f"Claude leest het bestand alleen bij het starten: sluit het helemaal af (niet alleen het venster). De "
        f"logboeken staan onder {_ui('Settings', 'Developer')}.",
        f"Claude reads the file only when it starts: quit it completely (not just the window). The logs are under "
        f"{_en('Settings', 'Developer')}.",
    ),
    # --- Claude Code
    "client_claude_code_tab": _t("Claude Code", "Claude Code"),
    "client_claude_code_needs": _t(
        "Claude Code op je computer met een Claude-abonnement (Pro, Max, Team of Enterprise) of een account van de "
        "Claude Console.",
        "Claude Code on your computer with a Claude plan (Pro, Max, Team or Enterprise) or a Claude Console "
        "account.",
    ),
    "client_claude_code_step_add": _t(
        "Voeg het adres toe in een terminal; met `--scope user` werkt het in al je projecten:",
        "Add the address in a terminal; with `--scope user` it works in all your projects:",
    ),
    "client_claude_code_step_check": _t(
        "Controleer daarna met `claude mcp list`, of met `/mcp` in Claude Code.",
        "Check afterwards with `claude mcp list`, or with `/mcp` inside Claude Code.",
    ),
    "client_claude_code_fail_connect": _t(
        "`claude mcp list` meldt dat de verbinding mislukt.",
        "`claude mcp list` reports that connecting failed.",
    ),
    "client_claude_code_fix_connect": _t(
        "Open het adres in je browser: zie je deze pagina niet, dan is het adres vanaf je computer niet bereikbaar "
        "(typfout, VPN of proxy).",
        "Open the address in your browser: if you do not see this page, the address is not reachable from your "
        "computer (typo, VPN or proxy).",
    ),
    "client_claude_code_fail_transport": _t(
        "Claude Code probeert het adres als programma te starten.",
        "Claude Code tries to start the address as a program.",
    ),
    "client_claude_code_fix_transport": _t(
        "`--transport http` ontbrak. Verwijder de server met `claude mcp remove` en voeg hem opnieuw toe met de "
        "opdracht hierboven.",
        "`--transport http` was missing. Remove the server with `claude mcp remove` and add it again with the "
        "command above.",
    ),
    "client_claude_code_fail_scope": _t(
        "In een ander project zijn de tools er niet.",
        "In another project the tools are missing.",
    ),
    "client_claude_code_fix_scope": _t(
        "Zonder `--scope` geldt de server alleen voor de map waarin je hem toevoegde. Voeg hem toe met "
        "`--scope user`.",
        "Without `--scope` the server only applies to the folder where you added it. Add it with `--scope user`.",
    ),
    # --- ChatGPT
    "client_chatgpt_tab": _t("ChatGPT", "ChatGPT"),
    "client_chatgpt_needs": _t(
        "ChatGPT op het web met de ontwikkelaarsmodus: Plus en Pro zetten die zelf aan, voor tools die alleen lezen "
        "(zoals alle tools hier). Bij Business, Enterprise en Edu zet een beheerder hem aan in de instellingen van de "
        "werkruimte en publiceert de app; Free heeft hem niet.",
        "ChatGPT on the web with developer mode: Plus and Pro switch it on themselves, for tools that only read "
        "(like every tool here). On Business, Enterprise and Edu an admin switches it on in the workspace settings "
        "and publishes the app; Free does not have it.",
    ),
    "client_chatgpt_step_mode": _t(
        f"Zet {_ui('Settings', 'Apps', 'Advanced settings', 'Developer mode')} aan (eerder: "
        f"{_ui('Settings', 'Connectors')}; OpenAI noemt connectors sinds december 2025 apps).",
        f"Switch on {_en('Settings', 'Apps', 'Advanced settings', 'Developer mode')} (earlier: "
        f"{_en('Settings', 'Connectors')}; OpenAI has called connectors apps since December 2025).",
    ),
    "client_chatgpt_step_create": _t(
        f"Kies {_ui('Create app')}: geef een naam, plak dit adres bij {_ui('MCP Server URL')}, kies bij "
        f"{_ui('Authentication')} {_ui('No Auth')} en bevestig dat je de app vertrouwt.",
        f"Choose {_en('Create app')}: give a name, paste this address as {_en('MCP Server URL')}, choose "
        f"{_en('No Auth')} under {_en('Authentication')} and confirm that you trust the app.",
    ),
    "client_chatgpt_step_use": _t(
        f"In een gesprek: {_ui('+')} naast het invoerveld, {_ui('Developer mode')} (soms onder {_ui('More')}), en "
        "kies de app. Dat doe je per gesprek.",
        f"In a chat: {_en('+')} next to the input field, {_en('Developer mode')} (sometimes under {_en('More')}), "
        "and pick the app. You do this per chat.",
    ),
    "client_chatgpt_tools": _t(
        "Deep research en bedrijfskennis gebruiken alleen `search` (alle bronnen hier tegelijk) en `fetch` (een "
        "resultaat lezen); in een gesprek in ontwikkelaarsmodus zijn alle {count} tools beschikbaar.",
        "Deep research and company knowledge use only `search` (every source here at once) and `fetch` (read a "
        "result); in a developer-mode chat all {count} tools are available.",
    ),
    "client_chatgpt_check_research": _t(
        "Voor deep research: vraag *Zoek met {title} naar begroting en geef de bronnen met hun links.* Het antwoord "
        "citeert stukken met een link naar de pagina van de bron.",
        "For deep research: ask *Search {title} for begroting and give the sources with their links.* The answer "
        "cites documents with a link to the source's page.",
    ),
    "client_chatgpt_phone": _t(
        "niet: eigen MCP-apps werken alleen in ChatGPT op het web, niet in de apps voor iOS en Android.",
        "no: your own MCP apps work only in ChatGPT on the web, not in the iOS and Android apps.",
    ),
    "client_chatgpt_fail_mode": _t(
        f"{_ui('Developer mode')} ontbreekt of staat grijs.",
        f"{_en('Developer mode')} is missing or greyed out.",
    ),
    "client_chatgpt_fix_mode": _t(
        f"Free heeft hem niet. Bij Business, Enterprise en Edu zet een beheerder hem aan onder "
        f"{_ui('Workspace settings', 'Permissions & roles', 'Connected data')}; bij Enterprise en Edu moet ook je "
        "rol hem toestaan.",
        f"Free does not have it. On Business, Enterprise and Edu an admin switches it on under "
        f"{_en('Workspace settings', 'Permissions & roles', 'Connected data')}; on Enterprise and Edu your role must "
        "allow it too.",
    ),
    "client_chatgpt_fail_disabled": _t(
        f"De app ontbreekt in het gesprek of heet {_ui('Disabled by admin')}.",
        f"The app is missing in the chat or says {_en('Disabled by admin')}.",
    ),
    "client_chatgpt_fix_disabled": _t(
        f"Zet hem per gesprek aan ({_ui('+')}, {_ui('Developer mode')}). In een werkruimte moet een beheerder de app "
        f"publiceren en je rol toegang geven onder {_ui('Workspace settings', 'Apps')}.",
        f"Switch it on per chat ({_en('+')}, {_en('Developer mode')}). In a workspace an admin must publish the app "
        f"and give your role access under {_en('Workspace settings', 'Apps')}.",
    ),
    # --- Microsoft 365 Copilot through an agent built in Copilot Studio
    "client_copilot_tab": _t("Microsoft 365 Copilot / Copilot Studio", "Microsoft 365 Copilot / Copilot Studio"),
    "client_copilot_intro": _t(
        "Microsoft 365 Copilot gebruikt dit adres via een agent die in Copilot Studio is gebouwd: je maakt die agent "
        "zelf, of je beheerder maakt hem voor je beschikbaar.",
        "Microsoft 365 Copilot uses this address through an agent built in Copilot Studio: you make that agent "
        "yourself, or your admin makes it available to you.",
    ),
    "client_copilot_needs": _t(
        "Copilot Studio met een licentie of met betalen per gebruik in de tenant (met een proefversie kun je bouwen "
        "en testen, niet publiceren); het recht om agents te maken in de omgeving (rol *Environment Maker*); en een "
        "databeleid (DLP) van de tenant dat de MCP-connector toestaat.",
        "Copilot Studio with a licence or pay-as-you-go billing in the tenant (a trial lets you build and test, not "
        "publish); the right to make agents in the environment (the *Environment Maker* role); and a tenant data "
        "policy (DLP) that allows the MCP connector.",
    ),
    "client_copilot_step_tool": _t(
        f"Open je agent in Copilot Studio en kies {_ui('Tools', 'Add a tool', 'New tool', 'Model Context Protocol')}. "
        f"Vul {_ui('Server name')}, {_ui('Server description')} (wanneer de agent hem moet gebruiken) en "
        f"{_ui('Server URL')} in, kies {_ui('None')} bij de verificatie en dan {_ui('Create')}.",
        "Open your agent in Copilot Studio and choose "
        f"{_en('Tools', 'Add a tool', 'New tool', 'Model Context Protocol')}. "
        f"Fill in {_en('Server name')}, {_en('Server description')} (when the agent should use it) and "
        f"{_en('Server URL')}, choose {_en('None')} for authentication, then {_en('Create')}.",
    ),
    "client_copilot_step_connect": _t(
        f"Maak de verbinding ({_ui('Create a new connection', 'Create')}) en kies {_ui('Add to agent')}. Generatieve "
        "orkestratie moet aan staan; dan kiest de agent zelf wanneer hij een tool gebruikt.",
        f"Create the connection ({_en('Create a new connection', 'Create')}) and choose {_en('Add to agent')}. "
        "Generative orchestration must be on; the agent then decides by itself when to use a tool.",
    ),
    "client_copilot_step_publish": _t(
        f"Kies {_ui('Publish')}, dan bij {_ui('Channels')} {_ui('Teams and Microsoft 365 Copilot')} en zet "
        f"{_ui('Make agent available in Microsoft 365 Copilot')} aan. Zo nodig keurt je beheerder de agent goed in "
        "het Microsoft 365-beheercentrum.",
        f"Choose {_en('Publish')}, then under {_en('Channels')} {_en('Teams and Microsoft 365 Copilot')} and switch "
        f"on {_en('Make agent available in Microsoft 365 Copilot')}. Where needed your admin approves the agent in "
        "the Microsoft 365 admin center.",
    ),
    "client_copilot_tools": _t(
        "De agent krijgt alle {count} tools van dit adres; bij de agent kun je elke tool apart uitzetten.",
        "The agent gets all {count} tools of this address; with the agent you can switch each tool off "
        "separately.",
    ),
    "client_copilot_phone": _t(
        "in de apps Teams en Microsoft 365 Copilot, zodra de agent in Teams en Microsoft 365 Copilot is "
        "gepubliceerd.",
        "in the Teams and Microsoft 365 Copilot apps, once the agent is published to Teams and Microsoft 365 "
        "Copilot.",
    ),
    "client_copilot_fail_rights": _t(
        f"{_ui('Model Context Protocol')} of {_ui('Publish')} ontbreekt.",
        f"{_en('Model Context Protocol')} or {_en('Publish')} is missing.",
    ),
    "client_copilot_fix_rights": _t(
        "Je mist een licentie (een proefversie publiceert niet) of maker-rechten in de omgeving: vraag je Power "
        "Platform-beheerder om de rol *Environment Maker* en een Copilot Studio-licentie.",
        "You lack a licence (a trial does not publish) or maker rights in the environment: ask your Power Platform "
        "admin for the *Environment Maker* role and a Copilot Studio licence.",
    ),
    "client_copilot_fail_dlp": _t(
        "Een melding over het databeleid (DLP), of de connector is geblokkeerd.",
        "A message about the data policy (DLP), or the connector is blocked.",
    ),
    "client_copilot_fix_dlp": _t(
        "Het databeleid van je tenant blokkeert de connector. De beheerder staat hem toe in het Power "
        "Platform-beheercentrum (onder het databeleid van de omgeving), in dezelfde groep als de andere connectors "
        "van de agent.",
        "Your tenant's data policy blocks the connector. The admin allows it in the Power Platform admin center "
        "(under the environment's data policy), in the same group as the agent's other connectors.",
    ),
    # --- VS Code
    "client_vscode_tab": _t("VS Code", "VS Code"),
    "client_vscode_needs": _t(
        "VS Code met GitHub Copilot (ook Copilot Free). Bij Copilot Business of Enterprise moet je organisatie het "
        f"beleid {_ui('MCP servers in Copilot')} aanzetten; dat staat standaard uit.",
        "VS Code with GitHub Copilot (Copilot Free too). On Copilot Business or Enterprise your organisation must "
        f"switch on the policy {_en('MCP servers in Copilot')}; it is off by default.",
    ),
    "client_vscode_install": _t(
        "[Installeren in VS Code]({link}): VS Code opent en vraagt of je de server wilt toevoegen. Je kunt het ook "
        "met de hand doen.",
        '[Install in VS Code]({link}): VS Code opens and asks whether to add the server. You can also do it by hand.',
    ),
    "client_vscode_step_file": _t(
        f"Zet dit in `.vscode/mcp.json` van je werkmap (of gebruik {_ui('MCP: Add Server')} in het opdrachtenpalet) "
        "en gebruik de tools in de agentmodus van de chat:",
        f"Put this in `.vscode/mcp.json` of your workspace (or use {_en('MCP: Add Server')} in the command palette) "
        "and use the tools in the chat's agent mode:",
    ),
    "client_vscode_cli": _t("Of vanaf de commandoregel:", "Or from the command line:"),
    "client_vscode_fail_policy": _t(
        "De chat meldt dat MCP door je organisatie is uitgeschakeld.",
        "The chat says MCP is turned off by your organisation.",
    ),
    "client_vscode_fix_policy": _t(
        f"Vraag de beheerder van je Copilot-organisatie het beleid {_ui('MCP servers in Copilot')} aan te zetten.",
        f"Ask the admin of your Copilot organisation to switch on the policy {_en('MCP servers in Copilot')}.",
    ),
    "client_vscode_fail_tools": _t(
        "De tools staan niet in de chat.",
        "The tools are not in the chat.",
    ),
    "client_vscode_fix_tools": _t(
        f"Start de server met {_ui('MCP: List Servers')} en bevestig dat je hem vertrouwt; kies in de chat de "
        "agentmodus.",
        f"Start the server with {_en('MCP: List Servers')} and confirm that you trust it; choose agent mode in the "
        "chat.",
    ),
    "client_vscode_fail_start": _t(
        "De server start niet.",
        "The server does not start.",
    ),
    "client_vscode_fix_start": _t(
        f"{_ui('MCP: List Servers')} → {_ui('Show Output')} toont de fout. In `.vscode/mcp.json` heet het blok "
        "`servers` (niet `mcpServers`).",
        f"{_en('MCP: List Servers')} → {_en('Show Output')} shows the error. In `.vscode/mcp.json` the block is "
        "called `servers` (not `mcpServers`).",
    ),
    # --- Cursor
    "client_cursor_tab": _t("Cursor", "Cursor"),
    "client_cursor_needs": _t(
        "Cursor op je computer, met een Cursor-account.",
        "Cursor on your computer, with a Cursor account.",
    ),
    "client_cursor_install": _t(
        "[Installeren in Cursor]({link}): Cursor opent en vraagt of je de server wilt toevoegen. Je kunt het ook met "
        "de hand doen.",
        '[Install in Cursor]({link}): Cursor opens and asks whether to add the server. You can also do it by hand.',
    ),
    "client_cursor_step_file": _t(
        f"Zet dit in `~/.cursor/mcp.json` (al je projecten) of `.cursor/mcp.json` (dit project) en zet de server aan "
        f"onder {_ui('Customize', 'MCPs')} (eerder: {_ui('Cursor Settings', 'MCP')}):",
        f"Put this in `~/.cursor/mcp.json` (all your projects) or `.cursor/mcp.json` (this project) and switch the "
        f"server on under {_en('Customize', 'MCPs')} (earlier: {_en('Cursor Settings', 'MCP')}):",
    ),
    "client_cursor_fail_off": _t(
        "De server staat uit of heeft een rode stip.",
        "The server is off or has a red dot.",
    ),
    "client_cursor_fix_off": _t(
        f"Zet hem aan onder {_ui('Customize', 'MCPs')}; de fout staat in het paneel {_ui('Output')} bij "
        f"{_ui('MCP Logs')}.",
        f"Switch it on under {_en('Customize', 'MCPs')}; the error is in the {_en('Output')} panel under "
        f"{_en('MCP Logs')}.",
    ),
    "client_cursor_fail_file": _t(
        "De server staat er niet tussen.",
        "The server is not listed.",
    ),
    "client_cursor_fix_file": _t(
        "Het bestand staat op de verkeerde plek of is geen geldige JSON. Het blok heet `mcpServers`; start Cursor "
        "daarna opnieuw.",
        "The file is in the wrong place or not valid JSON. The block is called `mcpServers`; restart Cursor "
        "afterwards.",
    ),
    "client_cursor_fail_unused": _t(
        "De agent gebruikt de tools niet.",
        "The agent does not use the tools.",
    ),
    "client_cursor_fix_unused": _t(
        "Stel de vraag in de agentmodus, noem de bron erin en keur de aanroep goed als Cursor erom vraagt.",
        "Ask in agent mode, name the source in the question and approve the call when Cursor asks.",
    ),
    # --- MCP Inspector
    "client_inspector_tab": _t("MCP Inspector", "MCP Inspector"),
    "client_inspector_needs": _t(
        "Node.js op je computer; geen account. Voor beheerders en ontwikkelaars: je ziet precies wat het adres "
        "aanbiedt.",
        "Node.js on your computer; no account. For operators and developers: you see exactly what the address "
        "offers.",
    ),
    "client_inspector_step_start": _t(
        f"Start de Inspector, kies bij {_ui('Transport Type')} {_ui('Streamable HTTP')}, plak het adres en klik "
        f"{_ui('Connect')}:",
        f"Start the Inspector, choose {_en('Streamable HTTP')} as {_en('Transport Type')}, paste the address and "
        f"click {_en('Connect')}:",
    ),
    "client_inspector_cli": _t("Of zonder browser, de tools opvragen:", "Or without a browser, list the tools:"),
    "client_inspector_check": _t(
        f"**Controleer:** klik {_ui('List Tools')}: je ziet {{count}} tools. Roep `platform_status` aan: je krijgt per "
        "bron de stand van het materiaal.",
        f"**Check:** click {_en('List Tools')}: you see {{count}} tools. Call `platform_status`: you get the state of "
        "the material per source.",
    ),
    "client_inspector_fail_connect": _t(
        f"{_ui('Connection Error')} bij {_ui('Connect')}.",
        f"{_en('Connection Error')} on {_en('Connect')}.",
    ),
    "client_inspector_fix_connect": _t(
        f"Kies {_ui('Streamable HTTP')} (niet {_ui('STDIO')} of {_ui('SSE')}) en plak het hele adres, tot en met "
        "`/mcp`.",
        f"Choose {_en('Streamable HTTP')} (not {_en('STDIO')} or {_en('SSE')}) and paste the whole address, up to "
        "and including `/mcp`.",
    ),
    "client_inspector_fail_token": _t(
        "De Inspector vraagt om een token of weigert de proxy.",
        "The Inspector asks for a token or refuses the proxy.",
    ),
    "client_inspector_fix_token": _t(
        "Open de link die de terminal bij het starten toont: daar zit het sessietoken al in.",
        "Open the link the terminal shows at start: it already carries the session token.",
    ),
}
