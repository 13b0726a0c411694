"""Which network addresses BesluitBron may call on behalf of a remote connector (SSRF rules).

Standard library only, so the registry loader can refuse offline what it can decide without the
network (addresses written as IPs in any notation, userinfo, plain http, internal names), and the
remote transport can check every resolved address at connect time with the same rules.

Refused: loopback, private, link-local, carrier-grade NAT, multicast, unspecified, reserved and
other non-global addresses, the cloud metadata address and name, IPv4-mapped / NAT64 / 6to4 / Teredo
IPv6 forms of those, integer, octal, hex and short IPv4 notations, userinfo and plain http.
`server.remote_allow_networks` lists networks allowed in spite of these rules (plain http included).
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import SplitResult, urlsplit

from proxy.core.errors import BesluitBronError

__all__ = ["AddressPolicy", "AddressRefused", "IPAddress", "IPNetwork", "in_networks", "literal_ip", "parse_networks",
           "resolved_ip", "safe_url"]

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network

# Names that only ever mean "inside": the metadata services and the special-use domains for local nets.
_INTERNAL_NAMES = frozenset({"localhost", "metadata", "metadata.google.internal", "instance-data"})
_INTERNAL_SUFFIXES = (".localhost", ".local", ".internal", ".home.arpa", ".lan", ".intranet", ".corp")
_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")
_NAT64_LOCAL = ipaddress.IPv6Network("64:ff9b:1::/48")
_CGNAT = ipaddress.IPv4Network("100.64.0.0/10")  # not `is_private` in every Python version
# Special-purpose blocks Python's `is_global` lets through: the IETF protocol assignments (192.0.0.8, the dummy
# address, and the rest of 192.0.0.0/24) and IPv6 site-local addresses (deprecated, still routed inside sites).
_SPECIAL_V4 = ipaddress.IPv4Network("192.0.0.0/24")
_SITE_LOCAL_V6 = ipaddress.IPv6Network("fec0::/10")
_METADATA = frozenset({ipaddress.IPv4Address("169.254.169.254"), ipaddress.IPv6Address("fd00:ec2::254")})
_NUMERIC_HOST = re.compile(r"^(0x[0-9a-f]*|[0-9]+)(\.(0x[0-9a-f]*|[0-9]+))*\.?$", re.IGNORECASE)
_SECRET_QUERY = frozenset({"key", "apikey", "api_key", "token", "access_token", "password", "secret", "auth"})


class AddressRefused(BesluitBronError):
    """A remote address is not one BesluitBron may call; the message says why and what to do."""


def parse_networks(cidrs: Iterable[str]) -> tuple[IPNetwork, ...]:
    """`server.remote_allow_networks` as networks; raises ValueError naming a bad entry."""
    return tuple(ipaddress.ip_network(c, strict=False) for c in cidrs)


def in_networks(ip: IPAddress, networks: Iterable[IPNetwork]) -> bool:
    """Whether `ip` lies in one of `networks` (an address of the other IP version never does)."""
    return any(ip.version == net.version and ip in net for net in networks)


@dataclass(frozen=True, slots=True)
class AddressPolicy:
    """The address rules plus the registry's exceptions (`allow`)."""

    allow: tuple[IPNetwork, ...] = ()

    def allowed_by_exception(self, ip: IPAddress) -> bool:
        return in_networks(ip, self.allow)

    def refusal(self, ip: IPAddress) -> str | None:
        """Why `ip` may not be called, or None when it may."""
        if self.allowed_by_exception(ip):
            return None
        return _address_problem(ip)

    def check_address(self, ip: IPAddress, *, host: str, plain_http: bool, literal: bool = False) -> None:
        """Raise AddressRefused unless `ip` (written as, or resolved for, `host`) may be called."""
        reason = self.refusal(ip)
        if reason:
            what = f"{host} is" if literal else f"{host} resolves to {ip},"
            raise AddressRefused(f"{what} {reason}; BesluitBron only calls public addresses "
                                 "(or networks in server.remote_allow_networks)")
        if plain_http and not self.allowed_by_exception(ip):
            raise AddressRefused(f"{host}: plain http is allowed only for networks in server.remote_allow_networks; "
                                 "use https")

    def check_url(self, url: str) -> SplitResult:
        """The offline checks: scheme, userinfo, secrets in the query, IP literals in any notation and
        internal names. Names that need DNS pass here and are checked when connecting."""
        try:
            parts = urlsplit(url)
            port = parts.port
        except ValueError as exc:
            raise AddressRefused(f"{safe_url(url)} is not a valid URL ({exc})") from exc
        if parts.scheme not in ("https", "http"):
            raise AddressRefused(f"{safe_url(url)}: only https addresses can be connectors")
        if "@" in parts.netloc or parts.username is not None or parts.password is not None:
            raise AddressRefused(f"{safe_url(url)}: userinfo (user:password@) is not allowed in the URL; put a "
                                 "credential in remote.auth, which names an environment variable")
        if parts.fragment:
            raise AddressRefused(f"{safe_url(url)}: remove the #fragment")
        if any(k.lower() in _SECRET_QUERY for k in _query_keys(parts.query)):
            raise AddressRefused(f"{safe_url(url)}: the query holds what looks like a credential; put it in "
                                 "remote.auth, which names an environment variable")
        host = (parts.hostname or "").rstrip(".").lower()
        if not host:
            raise AddressRefused(f"{safe_url(url)}: no host")
        if port == 0:
            raise AddressRefused(f"{safe_url(url)}: port 0 is not a port")
        plain_http = parts.scheme == "http"
        ip = literal_ip(host)
        if ip is not None:
            self.check_address(ip, host=host, plain_http=plain_http, literal=True)
            return parts
        if _NUMERIC_HOST.match(host):
            raise AddressRefused(f"{host} is an IPv4 address in integer, octal, hex or short notation; "
                                 "write a public address as a dotted quad, or use its name")
        if host in _INTERNAL_NAMES or host.endswith(_INTERNAL_SUFFIXES) or "." not in host:
            raise AddressRefused(f"{host} is an internal name; only public names and addresses can be connectors")
        if plain_http and not self.allow:
            raise AddressRefused(f"{safe_url(url)}: plain http is allowed only for networks in "
                                 "server.remote_allow_networks; use https")
        return parts


def literal_ip(host: str) -> IPAddress | None:
    """The address a URL host names literally (brackets stripped, IPv6 zone refused), else None."""
    bare = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    if "%" in bare:
        raise AddressRefused(f"{host}: IPv6 zone identifiers name a local interface and are not allowed")
    try:
        return ipaddress.ip_address(bare)
    except ValueError:
        return None


def resolved_ip(sockaddr_host: str) -> IPAddress:
    """An address as getaddrinfo returns it (a zone suffix on link-local IPv6 dropped)."""
    return ipaddress.ip_address(sockaddr_host.split("%", 1)[0])


def _address_problem(ip: IPAddress) -> str | None:
    if ip in _METADATA:
        return "a cloud metadata address"
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            inner = _address_problem(ip.ipv4_mapped)
            return f"an IPv4-mapped form of {ip.ipv4_mapped}, {inner}" if inner else None
        if ip in _NAT64 or ip in _NAT64_LOCAL:
            embedded = ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
            return f"a NAT64 address (of {embedded}), which leads into a translator's network"
        if ip.sixtofour is not None or ip.teredo is not None:
            return "a 6to4 or Teredo tunnel address, which embeds another address"
    if ip.is_loopback:
        return "a loopback address"
    if ip.is_unspecified:
        return "the unspecified address"
    if ip.is_link_local:
        return "a link-local address"
    if ip.is_multicast:
        return "a multicast address"
    if isinstance(ip, ipaddress.IPv4Address) and ip in _CGNAT:
        return "a carrier-grade NAT address (100.64.0.0/10)"
    if isinstance(ip, ipaddress.IPv4Address) and ip in _SPECIAL_V4:
        return "an IETF protocol assignment (192.0.0.0/24)"
    if isinstance(ip, ipaddress.IPv6Address) and ip in _SITE_LOCAL_V6:
        return "a site-local address (fec0::/10)"
    if ip.is_private:
        return "a private address"
    if ip.is_reserved:
        return "a reserved address"
    if not ip.is_global:
        return "not a globally reachable address"
    return None


def _query_keys(query: str) -> list[str]:
    return [pair.split("=", 1)[0] for pair in query.split("&") if pair]


def safe_url(url: str) -> str:
    """A URL as it may appear in a message: no userinfo, no query (either may hold a credential)."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        netloc = f"[{host}]" if ":" in host else host
        if parts.port is not None:
            netloc += f":{parts.port}"
        return f"{parts.scheme}://{netloc}{parts.path}"
    except ValueError:
        return "(unparseable URL)"
