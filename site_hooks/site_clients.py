"""Copyable client configuration for one MCP address, and the client tabs of a connection page. Pure.

Formats as the clients document them (checked Nov 2026): Claude Code `claude mcp add --transport
http`; Claude Desktop's `claude_desktop_config.json` only starts local processes, so a remote
address goes through the `mcp-remote` bridge; VS Code `.vscode/mcp.json` (`servers`, `type: http`)
and its install link `vscode:mcp/install?<url-encoded {name, type, url}>`; Cursor `mcp.json`
(`mcpServers`, `url`) and its install link
`cursor://anysphere.cursor-deeplink/mcp/install?name=<name>&config=<base64 of {url}>`;
MCP Inspector `--cli <url> --transport http`. Microsoft Copilot Studio and ChatGPT take the
address in their own settings screens and reach it from their cloud.
"""

from __future__ import annotations

import base64
import json
import shlex
from dataclasses import dataclass
from urllib.parse import quote, urlsplit

__all__ = ["Block", "ClientSnippets", "client_snippets", "client_tabs", "is_public_https"]

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


# One block of a client tab: ("p", label key, values) for a paragraph, or (language, code, {}) for code.
Block = tuple[str, str, dict[str, str]]


def client_tabs(snippets: ClientSnippets, address: str, tool_count: int) -> list[tuple[str, list[Block]]]:
    """The client tabs of a connection page, in order: name and blocks (see `Block`). Each ends with the tools that
    client will use here and a first question that checks the connection."""
    every: list[Block] = [("p", "client_tools_all", {"count": str(tool_count)}), ("p", "first_question", {})]
    return [
        ("Claude Desktop", [("p", "claude_desktop", {}), ("p", "claude_desktop_config", {}),
                            ("json", snippets.claude_desktop, {}), ("p", "claude_desktop_paths", {}), *every]),
        ("Claude Code", [("p", "claude_code", {}), ("bash", snippets.claude_code, {}), *every]),
        ("ChatGPT", [("p", "chatgpt", {}), ("text", address, {}), ("p", "chatgpt_use", {}),
                     ("p", "chatgpt_tools", {"count": str(tool_count)}), ("p", "first_question_chatgpt", {})]),
        ("VS Code", [("p", "vscode_install", {"link": snippets.vscode_install}), ("p", "vscode", {}),
                     ("json", snippets.vscode, {}), ("p", "vscode_cli", {}), ("bash", snippets.vscode_cli, {}),
                     *every]),
        ("Cursor", [("p", "cursor_install", {"link": snippets.cursor_install}), ("p", "cursor", {}),
                    ("json", snippets.cursor, {}), *every]),
        ("Copilot Studio", [("p", "copilot_studio", {}), ("text", address, {}), ("p", "copilot_studio_use", {}),
                            *every]),
        ("MCP Inspector", [("p", "inspector", {}), ("bash", snippets.inspector, {}), ("text", address, {}),
                           ("p", "inspector_cli", {}), ("bash", snippets.inspector_cli, {})]),
    ]


def _json(value: object) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False)
