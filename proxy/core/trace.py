"""Trace handles: how a stateless (2026-07-28) client finds its own platform calls again.

A handle is `<random>.<mac>`, HMAC-signed with a secret every process on one state store shares, so
it works on any instance and cannot be forged to read another client's calls.
"""

from __future__ import annotations

import base64
import hmac
import secrets
from typing import Final

__all__ = ["TRACE_META_KEY", "TraceSigner"]

TRACE_META_KEY: Final = "nl.besluitbron/trace"
"""`_meta` key carrying the modern-era trace handle, on tools/call requests and results."""

_MAC_BYTES: Final = 16
_MAX_LEN: Final = 128


class TraceSigner:
    """Mints and verifies trace handles; the secret may be replaced once the shared one is known."""

    def __init__(self, secret: bytes | None = None) -> None:
        self.secret = secret or secrets.token_bytes(32)

    def _mac(self, token: str) -> str:
        # hmac.digest is the one-shot C path: a third of hmac.new's cost, and this runs per call.
        digest = hmac.digest(self.secret, b"trace:" + token.encode(), "sha256")[:_MAC_BYTES]
        return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")

    def mint(self) -> str:
        """A new handle; only the holder of the secret can mint valid ones."""
        token = secrets.token_urlsafe(16)
        return f"{token}.{self._mac(token)}"

    def verify(self, handle: object) -> bool:
        """True if `handle` was minted with this secret (constant-time comparison)."""
        if not isinstance(handle, str) or len(handle) > _MAX_LEN:
            return False
        token, dot, mac = handle.rpartition(".")
        if not dot or not token or not handle.isascii():  # ours are ASCII; this also rules out surrogates
            return False
        return hmac.compare_digest(mac.encode("ascii"), self._mac(token).encode("ascii"))
