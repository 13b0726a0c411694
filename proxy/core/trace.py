"""Trace handles: how a stateless (2026-07-28) client finds its own platform calls again.

A handle is `<random>.<mac>`, signed (keyed BLAKE2b) with a secret every process on one state store shares, so
it works on any instance and cannot be forged to read another client's calls.
"""

from __future__ import annotations

import hashlib
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

    @property
    def secret(self) -> bytes:
        return self._secret

    @secret.setter
    def secret(self, secret: bytes) -> None:
        self._secret = secret
        # BLAKE2b takes a key of at most 64 bytes: a longer secret is hashed down to one.
        key = secret if len(secret) <= hashlib.blake2b.MAX_KEY_SIZE else hashlib.blake2b(secret).digest()
        # Keyed once: each MAC copies this state, its key block already compressed.
        self._keyed = hashlib.blake2b(key=key, digest_size=_MAC_BYTES, person=b"trace")

    def _mac(self, token: str) -> str:
        # Keyed BLAKE2b is a MAC by design (RFC 7693), and CPython's own: this runs per call, and HMAC-SHA256
        # through OpenSSL 3 cost five times as many instructions (most of them finding the digest by name).
        mac = self._keyed.copy()
        mac.update(token.encode())
        return mac.hexdigest()

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
