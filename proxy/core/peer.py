"""Which network peer (the client address) the current request came from, for per-client limits deep in the stack.

The transport sets it once per HTTP request; the upstream layer reads it to share each platform's
rate budget fairly. A context variable rather than a parameter: the address means nothing to the
tools and platform modules in between, and asyncio copies it into every task the request starts.
"""

from __future__ import annotations

from contextvars import ContextVar

__all__ = ["current_peer"]

current_peer: ContextVar[str | None] = ContextVar("besluitbron_peer", default=None)
"""The client's address (see `McpHttp`), or None outside a client request (the load measurement)."""
