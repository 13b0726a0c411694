"""`/.well-known/security.txt` (RFC 9116): where to report a vulnerability, from the registry's fault contact.

Expires lies a fixed span after the day it is served, so a file that is served stays valid and a copy saved long
ago says it is stale; Canonical names the address the registry publishes."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from proxy.registry.model import ServerSettings

__all__ = ["SECURITY_TXT_PATH", "security_txt"]

SECURITY_TXT_PATH = "/.well-known/security.txt"
VALID_DAYS = 180  # RFC 9116 asks for less than a year


def security_txt(server: ServerSettings, now: datetime | None = None) -> str:
    moment = (now or datetime.now(UTC)).astimezone(UTC)
    expires = (moment + timedelta(days=VALID_DAYS)).replace(hour=0, minute=0, second=0, microsecond=0)
    contact = server.fault_contact
    lines = [f"Contact: mailto:{contact.email}"]
    if contact.url:
        lines.append(f"Contact: {contact.url}")
    lines += [f"Expires: {expires:%Y-%m-%dT%H:%M:%SZ}", "Preferred-Languages: nl, en",
              f"Canonical: {server.public_url.rstrip('/')}{SECURITY_TXT_PATH}"]
    if server.operator.source_url:
        lines.append(f"Policy: {server.operator.source_url.rstrip('/')}/blob/main/SECURITY.md")
    return "\n".join(lines) + "\n"
