"""Copyable client configuration for one MCP address, and the client tabs of a connection page. Pure.

Formats as the clients document them (checked Nov 2026): Claude Code `claude mcp add --transport
http`; Claude Desktop's `claude_desktop_config.json` only starts local processes, so a remote
address goes through the `mcp-remote` bridge; VS Code `.vscode/mcp.json` (`servers`, `type: http`)
and its install link `vscode:mcp/install?<url-encoded {name, type, url}>`; Cursor `mcp.json`
(`mcpServers`, `url`) and its install link
`cursor://anysphere.cursor-deeplink/mcp/install?name=<name>&config=<base64 of {url}>`;
MCP Inspector `--cli <url> --transport http`. Claude's connectors (claude.ai, the desktop and mobile
apps), ChatGPT and Copilot Studio (for Microsoft 365 Copilot) take the address in their own screens and
reach it from their cloud. The tabs' words are in `site_client_words`; each tab's requirement links the
vendor's page it was checked against.
"""

from __future__ import annotations

import base64
import json
import shlex
from dataclasses import dataclass
from urllib.parse import quote, urlsplit

__all__ = ["Block", "ClientSnippets", "ClientTab", "client_snippets", "client_tabs", "is_public_https"]

_LOCAL_HOSTS = frozenset({"localhost", "127.0.0.1", "::1", "[::1]"})


@dataclass(frozen=True, slots=True)
class ClientSnippets:
    claude_code: str
    claude_desktop: str
    vscode: str
    vscode_cli: str
    cursor: str
    inspector: str
    inspector_cli: str
    vscode_install: str
    cursor_install: str


def is_public_https(url: str) -> bool:
    """Cloud clients (ChatGPT, Claude connectors) reach only public https addresses."""
    parts = urlsplit(url)
    return parts.scheme == "https" and (parts.hostname or "") not in _LOCAL_HOSTS


def client_snippets(name: str, url: str) -> ClientSnippets:
    """Configuration snippets that add the address `url` under the server name `name`."""
    parts = urlsplit(url)
    bridge_args = ["-y", "mcp-remote", url]
    if parts.scheme == "http" and (parts.hostname or "") not in _LOCAL_HOSTS:
        bridge_args.append("--allow-http")  # mcp-remote refuses plain http except to localhost
    vscode_entry = {"name": name, "type": "http", "url": url}
    return ClientSnippets(
        claude_code=f"claude mcp add --transport http {shlex.quote(name)} {shlex.quote(url)}",
        claude_desktop=_json({"mcpServers": {name: {"command": "npx", "args": bridge_args}}}),
        vscode=_json({"servers": {name: {"type": "http", "url": url}}}),
        vscode_cli=f"code --add-mcp {shlex.quote(json.dumps(vscode_entry, separators=(',', ':')))}",
        cursor=_json({"mcpServers": {name: {"url": url}}}),
        inspector="npx @modelcontextprotocol/inspector",
        inspector_cli=f"npx @modelcontextprotocol/inspector --cli {shlex.quote(url)} --transport http "
                      "--method tools/list",
        vscode_install="vscode:mcp/install?" + quote(json.dumps(vscode_entry, separators=(",", ":")), safe=""),
        cursor_install="cursor://anysphere.cursor-deeplink/mcp/install?name=" + quote(name, safe="") + "&config="
                       + quote(base64.b64encode(json.dumps({"url": url}, separators=(",", ":")).encode()).decode(),
                               safe=""),
    )


# One piece of a step: ("p", label key, values) for a paragraph, or (language, code, {}) for a code block.
Block = tuple[str, str, dict[str, str]]


@dataclass(frozen=True, slots=True)
class ClientTab:
    """One client's tab. Its words are `client_<key>_*` in `site_client_words` (tab name, needs, phone line)."""

    key: str
    sources: tuple[tuple[str, str], ...]  # (label key of the link text, the vendor's https page) for the needs
    steps: tuple[tuple[Block, ...], ...]  # numbered steps in the client's own words; each a paragraph and its code
    tools: Block | None  # which of the address's tools this client uses
    checks: tuple[tuple[str, dict[str, str]], ...]  # what to ask (or do) after connecting: label key, values
    troubles: tuple[tuple[str, str], ...]  # the three most likely failures: (what you see, what to do), label keys
    phone: bool  # usable on a phone (the phone line is then `client_<key>_phone`)
    cloud: bool  # connects from the vendor's cloud, so it needs a public https address
    intro: str | None = None  # label key of a line before the needs

    @property
    def name(self) -> str:
        return f"client_{self.key}_tab"

    @property
    def needs(self) -> str:
        return f"client_{self.key}_needs"


_NOT_PUBLIC = ("client_fail_not_public", "client_fix_not_public")
_NODE = ("client_fail_node", "client_fix_node")
_CHECK: tuple[str, dict[str, str]] = ("client_check", {})


def client_tabs(snippets: ClientSnippets, address: str, tool_count: str) -> list[ClientTab]:
    """The client tabs of a connection page, in order: the assistants people use in a browser or on a phone first,
    then the ones on a computer. Each names what it needs (with the vendor's page), the steps, what works on a phone,
    a question that checks the connection and its three most likely failures. `tool_count` is the number as the
    page writes it (site_render renders the tabs once with a token in its place)."""
    count = {"count": tool_count}
    every = ("p", "client_tools_all", count)

    def p(key: str, **values: str) -> Block:
        return ("p", key, values)

    def code(language: str, text: str) -> Block:
        return (language, text, {})

    at = code("text", address)
    return [
        ClientTab(
            key="claude", phone=True, cloud=True,
            sources=(("client_src_anthropic", _ANTHROPIC_CONNECTORS),),
            steps=((p("client_claude_step_open"),), (p("client_claude_step_add"), at), (p("client_claude_step_use"),)),
            tools=every, checks=(_CHECK,),
            troubles=(_NOT_PUBLIC, ("client_claude_fail_off", "client_claude_fix_off"),
                      ("client_claude_fail_missing", "client_claude_fix_missing")),
        ),
        ClientTab(
            key="chatgpt", phone=False, cloud=True,
            sources=(("client_src_openai_developer_mode", _OPENAI_DEVELOPER_MODE),
                     ("client_src_openai_admin", _OPENAI_ADMIN)),
            steps=((p("client_chatgpt_step_mode"),), (p("client_chatgpt_step_create"), at),
                   (p("client_chatgpt_step_use"),)),
            tools=p("client_chatgpt_tools", **count), checks=(_CHECK, ("client_chatgpt_check_research", {})),
            troubles=(_NOT_PUBLIC, ("client_chatgpt_fail_mode", "client_chatgpt_fix_mode"),
                      ("client_chatgpt_fail_disabled", "client_chatgpt_fix_disabled")),
        ),
        ClientTab(
            key="copilot", phone=True, cloud=True, intro="client_copilot_intro",
            sources=(("client_src_ms_mcp", _MS_MCP), ("client_src_ms_licence", _MS_LICENCE),
                     ("client_src_ms_dlp", _MS_DLP), ("client_src_ms_publish", _MS_PUBLISH)),
            steps=((p("client_copilot_step_tool"), at), (p("client_copilot_step_connect"),),
                   (p("client_copilot_step_publish"),)),
            tools=p("client_copilot_tools", **count), checks=(_CHECK,),
            troubles=(_NOT_PUBLIC, ("client_copilot_fail_rights", "client_copilot_fix_rights"),
                      ("client_copilot_fail_dlp", "client_copilot_fix_dlp")),
        ),
        ClientTab(
            key="claude_desktop", phone=False, cloud=False,
            sources=(("client_src_mcp_local", _MCP_LOCAL), ("client_src_anthropic", _ANTHROPIC_CONNECTORS)),
            steps=((p("client_claude_desktop_step_config"), code("json", snippets.claude_desktop)),
                   (p("client_claude_desktop_step_paths"),)),
            tools=every, checks=(_CHECK,),
            troubles=(_NODE, ("client_claude_desktop_fail_json", "client_claude_desktop_fix_json"),
                      ("client_claude_desktop_fail_absent", "client_claude_desktop_fix_absent")),
        ),
        ClientTab(
            key="claude_code", phone=False, cloud=False,
            sources=(("client_src_claude_code", _CLAUDE_CODE_SETUP),),
            steps=((p("client_claude_code_step_add"), code("bash", snippets.claude_code)),
                   (p("client_claude_code_step_check"),)),
            tools=every, checks=(_CHECK,),
            troubles=(("client_claude_code_fail_connect", "client_claude_code_fix_connect"),
                      ("client_claude_code_fail_transport", "client_claude_code_fix_transport"),
                      ("client_claude_code_fail_scope", "client_claude_code_fix_scope")),
        ),
        ClientTab(
            key="vscode", phone=False, cloud=False,
            sources=(("client_src_github_mcp", _GITHUB_MCP), ("client_src_vscode_mcp", _VSCODE_MCP)),
            steps=((p("client_vscode_install", link=snippets.vscode_install),),
                   (p("client_vscode_step_file"), code("json", snippets.vscode)),
                   (p("client_vscode_cli"), code("bash", snippets.vscode_cli))),
            tools=every, checks=(_CHECK,),
            troubles=(("client_vscode_fail_policy", "client_vscode_fix_policy"),
                      ("client_vscode_fail_tools", "client_vscode_fix_tools"),
                      ("client_vscode_fail_start", "client_vscode_fix_start")),
        ),
        ClientTab(
            key="cursor", phone=False, cloud=False,
            sources=(("client_src_cursor_mcp", _CURSOR_MCP),),
            steps=((p("client_cursor_install", link=snippets.cursor_install),),
                   (p("client_cursor_step_file"), code("json", snippets.cursor))),
            tools=every, checks=(_CHECK,),
            troubles=(("client_cursor_fail_off", "client_cursor_fix_off"),
                      ("client_cursor_fail_file", "client_cursor_fix_file"),
                      ("client_cursor_fail_unused", "client_cursor_fix_unused")),
        ),
        ClientTab(
            key="inspector", phone=False, cloud=False,
            sources=(("client_src_inspector", _MCP_INSPECTOR),),
            steps=((p("client_inspector_step_start"), code("bash", snippets.inspector), at),
                   (p("client_inspector_cli"), code("bash", snippets.inspector_cli))),
            tools=None, checks=(("client_inspector_check", count),),
            troubles=(_NODE, ("client_inspector_fail_connect", "client_inspector_fix_connect"),
                      ("client_inspector_fail_token", "client_inspector_fix_token")),
        ),
    ]


# The vendors' own pages behind each tab's plan or role requirement (checked December 2026, see
# site_client_words.CHECKED). None may end in `/<word>/mcp`: the site's address checks would take it for an MCP
# address (tests/site_helpers.collect_site_addresses).
_ANTHROPIC_CONNECTORS = ("https://support.claude.com/en/articles/11175166-get-started-with-custom-connectors-using-"
                         "remote-mcp")
_MCP_LOCAL = "https://modelcontextprotocol.io/docs/develop/connect-local-servers"
_CLAUDE_CODE_SETUP = "https://code.claude.com/docs/en/setup"
_OPENAI_DEVELOPER_MODE = "https://help.openai.com/en/articles/12584461-developer-mode-apps-and-full-mcp-connectors-in-chatgpt-beta"
_OPENAI_ADMIN = ("https://help.openai.com/en/articles/11509118-admin-controls-security-and-compliance-in-apps-enterprise-"
                 "edu-and-business")
_MS_MCP = "https://learn.microsoft.com/en-us/microsoft-copilot-studio/mcp-add-existing-server-to-agent"
_MS_LICENCE = "https://learn.microsoft.com/en-us/microsoft-copilot-studio/requirements-licensing-subscriptions"
_MS_DLP = "https://learn.microsoft.com/en-us/microsoft-copilot-studio/admin-data-loss-prevention"
_MS_PUBLISH = "https://learn.microsoft.com/en-us/microsoft-copilot-studio/publication-add-bot-to-microsoft-teams"
_GITHUB_MCP = ("https://docs.github.com/en/copilot/how-tos/provide-context/use-mcp-in-your-ide/"
               "extend-copilot-chat-with-mcp")
_VSCODE_MCP = "https://code.visualstudio.com/docs/agent-customization/mcp-servers"
_CURSOR_MCP = "https://docs.cursor.com/context/model-context-protocol"
_MCP_INSPECTOR = "https://modelcontextprotocol.io/docs/tools/inspector"


def _json(value: object) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False)
