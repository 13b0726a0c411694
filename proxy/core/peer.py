"""Which network peer (the client address) the current request came from, for per-client limits deep in the stack.

The transport sets it once per HTTP request; the upstream layer reads it to share each platform's
rate budget fairly. A context variable rather than a parameter: the address means nothing to the
tools and platform modules in between, and asyncio copies it into every task the request starts.

Limits are kept per client group, not per address: one IPv4 /24 or one IPv6 /64 is one client. A
single host owns a whole /64, and a handful of addresses in one /24 is what one office, one cloud
tenant or one attacker holds; counting them apart would let them take as many shares as addresses.

What is scarce for the whole installation (the platforms' budgets, the call logs in the state store) is shared per
*budget group*: the IPv4 /24 again, but the IPv6 /48. A /48 is one site's allocation (RIPE-690), so a client that
owns one has 65,536 /64s to rotate through: counted per /64, each would be a new, least-served client.
"""

from __future__ import annotations

import functools
import ipaddress
from contextvars import ContextVar

__all__ = ["budget_group", "client_group", "current_peer"]

current_peer: ContextVar[str | None] = ContextVar("besluitbron_peer", default=None)
"""The client group of the request (`client_group` of its address, see `McpHttp`), or None outside a client
request (the load measurement)."""

_PREFIX = {4: 24, 6: 64}
_BUDGET_PREFIX = {4: 24, 6: 48}


@functools.lru_cache(maxsize=65_536)  # once per address, not per request (parsing costs microseconds)
def client_group(address: str) -> str:
    """The group an address counts in: its /24 (IPv4) or /64 (IPv6) network, written out; anything that is
    not an address (a Unix socket, a test's name) counts as itself."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return str(ipaddress.ip_network(f"{ip}/{_PREFIX[ip.version]}", strict=False))


def budget_group() -> str | None:
    """The budget group of the current request (None outside a client request): its client group, widened to the
    /48 for IPv6."""
    group = current_peer.get()
    return None if group is None else _widened(group)


@functools.lru_cache(maxsize=65_536)
def _widened(group: str) -> str:
    try:
        network = ipaddress.ip_network(group)
    except ValueError:
        return group  # not a network (a Unix socket, a test's name): counts as itself
    return str(network.supernet(new_prefix=min(network.prefixlen, _BUDGET_PREFIX[network.version])))
