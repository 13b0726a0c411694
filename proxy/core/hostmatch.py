"""Host and Origin allow-list matching, shared by the transport and the registry rules."""

from __future__ import annotations

__all__ = ["matches"]


def matches(value: str, allowed: tuple[str, ...]) -> bool:
    """The SDK's `TransportSecurityMiddleware` semantics: an exact match, or `base:*` for any port.

    Unlike a bare prefix test, `base:*` needs a port after the colon: `localhost:*` must not let
    `localhost:evil.example` through.
    """
    if value in allowed:
        return True
    for pattern in allowed:
        if pattern.endswith(":*") and value.startswith(pattern[:-1]):
            port = value[len(pattern) - 1:]
            if port.isascii() and port.isdigit() and len(port) <= 5:
                return True
    return False
