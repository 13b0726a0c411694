"""Host and Origin allow-list matching, shared by the transport and the registry rules."""

from __future__ import annotations

__all__ = ["matches"]


def matches(value: str, allowed: tuple[str, ...]) -> bool:
    """The SDK's `TransportSecurityMiddleware` semantics: an exact match, or `base:*` for any port."""
    if value in allowed:
        return True
    return any(pattern.endswith(":*") and value.startswith(pattern[:-1]) for pattern in allowed)
