"""Who the client is: the peer, or, when the peer is a trusted reverse proxy, the last `X-Forwarded-For` hop it
added. Shared by the per-client limits (proxy.web.transport) and the access log, so both name the same address."""

from __future__ import annotations

import re
from collections.abc import Collection

from aiohttp import web

__all__ = ["CLIENT", "TRUSTED_PROXIES", "client_address"]

TRUSTED_PROXIES = web.AppKey("trusted_proxies", frozenset[str])
# The address a handler found for its request's client (the MCP transport's, which its limits count against): the
# access line names that one rather than working it out again.
CLIENT = web.RequestKey("client", str)
# An address as a proxy writes it (IPv4, IPv6, bracketed, with a port): anything else is not believed, and never
# reaches a log line (a forged header could carry line breaks or terminal codes).
_ADDRESS = re.compile(r"^[0-9A-Fa-f.:\[\]]{2,64}$")


def client_address(request: web.BaseRequest, trusted: Collection[str]) -> str:
    peer = request.remote or ""
    if peer in trusted:
        forwarded = request.headers.getall("X-Forwarded-For", [])
        if forwarded:
            last = forwarded[-1].rsplit(",", 1)[-1].strip()
            if _ADDRESS.match(last):
                return last
    return peer
