"""Copyable client configuration for one MCP address. Pure.

Formats as the clients document them (checked Nov 2026): Claude Code `claude mcp add --transport
http`; Claude Desktop's `claude_desktop_config.json` only starts local processes, so a remote
address goes through the `mcp-remote` bridge; VS Code `.vscode/mcp.json` (`servers`, `type: http`);
Cursor `mcp.json` (`mcpServers`, `url`); MCP Inspector `--cli <url> --transport http`.
"""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass
from urllib.parse import urlsplit

__all__ = ["ClientSnippets", "client_snippets", "is_public_https"]

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
    )


def _json(value: object) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False)
