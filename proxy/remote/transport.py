"""The HTTP client a remote connector talks through: every address checked where it is dialled.

`guarded_client` builds an `httpx2.AsyncClient` (the client the `mcp` SDK's Streamable HTTP
transport uses) whose network backend resolves a host once, checks every address the answer holds
against the `AddressPolicy`, and dials the checked address itself: there is no second lookup a
changed DNS answer could slip through. TLS still verifies the certificate against the host name.
Every request URL (redirects included) passes the offline URL checks first, plain http is only
spoken to networks in `server.remote_allow_networks`, and each response is cut off at the size cap.
"""

from __future__ import annotations

import asyncio
import contextvars
import socket
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping
from typing import Any

import httpcore2
import httpx2

from proxy.core.netguard import AddressPolicy, AddressRefused, IPAddress, literal_ip, resolved_ip

__all__ = ["Resolver", "ResponseTooLarge", "exception_chain", "guarded_client", "refusal_in", "system_resolver"]

# Resolve a host name to the addresses to dial (as text); tests pass their own to play DNS.
Resolver = Callable[[str, int], Awaitable[list[str]]]
# The scheme of the request being sent: httpcore dials inside the same task, so the backend can see it.
_SCHEME: contextvars.ContextVar[str] = contextvars.ContextVar("remote_scheme", default="https")


class ResponseTooLarge(httpx2.TransportError):
    """A remote answer exceeded the connector's response-size cap."""


class _Refused(httpcore2.ConnectError):
    """Raised where a connection is dialled; carries the policy's reason up through httpx."""

    def __init__(self, refused: AddressRefused) -> None:
        self.refused = refused
        super().__init__(str(refused))


async def system_resolver(host: str, port: int) -> list[str]:
    """The operating system's answer, once."""
    infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return [str(info[4][0]) for info in infos]


class _GuardedBackend(httpcore2.AsyncNetworkBackend):
    """Resolve once, check every address, dial only a checked one."""

    def __init__(self, policy: AddressPolicy, resolver: Resolver) -> None:
        self._policy = policy
        self._resolver = resolver
        self._inner = httpcore2.AnyIOBackend()

    async def connect_tcp(self, host: str, port: int, timeout: float | None = None,
                          local_address: str | None = None,
                          socket_options: Iterable[Any] | None = None) -> httpcore2.AsyncNetworkStream:
        addresses = await self.checked_addresses(host, port, plain_http=_SCHEME.get() == "http")
        errors: list[Exception] = []
        for ip in addresses:
            try:
                stream = await self._inner.connect_tcp(str(ip), port, timeout=timeout, local_address=local_address,
                                                       socket_options=socket_options)
            except (httpcore2.ConnectError, httpcore2.ConnectTimeout) as exc:
                errors.append(exc)
                continue
            return stream
        raise errors[-1] if errors else httpcore2.ConnectError(f"{host}: no address to connect to")

    async def checked_addresses(self, host: str, port: int, *, plain_http: bool) -> list[IPAddress]:
        """Resolve once and check every address; one bad address refuses the host (a rebinding answer mixes
        them). The caller dials only these."""
        addresses = await self._addresses(host, port)
        try:
            for ip in addresses:  # the address rules first, for every address; then plain http
                self._policy.check_address(ip, host=host, plain_http=False, literal=str(ip) == host)
            for ip in addresses:
                self._policy.check_address(ip, host=host, plain_http=plain_http, literal=str(ip) == host)
        except AddressRefused as exc:
            raise _Refused(exc) from None
        return addresses

    async def _addresses(self, host: str, port: int) -> list[IPAddress]:
        try:
            literal = literal_ip(host)
        except AddressRefused as exc:
            raise _Refused(exc) from None
        if literal is not None:
            return [literal]
        try:
            answer = await self._resolver(host, port)
        except OSError as exc:
            raise httpcore2.ConnectError(f"{host} could not be resolved ({exc.strerror or exc})") from exc
        ips = list(dict.fromkeys(resolved_ip(a) for a in answer))
        if not ips:
            raise httpcore2.ConnectError(f"{host} resolved to no address")
        return ips

    async def connect_unix_socket(self, path: str, timeout: float | None = None,
                                  socket_options: Iterable[Any] | None = None) -> httpcore2.AsyncNetworkStream:
        raise _Refused(AddressRefused("unix sockets are never a remote connector"))

    async def sleep(self, seconds: float) -> None:
        await self._inner.sleep(seconds)


class _CappedStream(httpx2.AsyncByteStream):
    def __init__(self, inner: httpx2.AsyncByteStream, cap: int) -> None:
        self._inner = inner
        self._cap = cap

    async def __aiter__(self) -> AsyncIterator[bytes]:
        seen = 0
        async for chunk in self._inner:
            seen += len(chunk)
            if seen > self._cap:
                raise ResponseTooLarge(f"the answer exceeded the {self._cap}-byte cap")
            yield chunk

    async def aclose(self) -> None:
        await self._inner.aclose()


class _GuardedTransport(httpx2.AsyncHTTPTransport):
    """httpx's transport on the guarded backend, with offline URL checks and a size cap per response."""

    def __init__(self, policy: AddressPolicy, resolver: Resolver, max_bytes: int) -> None:
        super().__init__(trust_env=False)  # never a proxy from the environment: it would dial for us
        # httpx builds its pool without a backend hook; replace it with one on the guarded backend.
        self._pool = httpcore2.AsyncConnectionPool(ssl_context=httpx2.create_ssl_context(trust_env=False),
                                                   network_backend=_GuardedBackend(policy, resolver))
        self._policy = policy
        self._max_bytes = max_bytes

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        try:
            self._policy.check_url(str(request.url))
        except AddressRefused as exc:
            raise httpx2.ConnectError(str(exc), request=request) from _Refused(exc)
        _SCHEME.set(request.url.scheme)
        response = await super().handle_async_request(request)
        declared = response.headers.get("content-length")
        if declared and declared.isdigit() and int(declared) > self._max_bytes:
            await response.aclose()
            raise ResponseTooLarge(f"the answer announced {declared} bytes, more than the {self._max_bytes}-byte cap")
        assert isinstance(response.stream, httpx2.AsyncByteStream)
        response.stream = _CappedStream(response.stream, self._max_bytes)
        return response


def guarded_client(policy: AddressPolicy, *, headers: Mapping[str, str], connect_seconds: float,
                   total_seconds: float, max_bytes: int, resolver: Resolver | None = None,
                   user_agent: str = "BesluitBron") -> httpx2.AsyncClient:
    """An httpx client for one remote connector; `headers` carry its credential (never logged)."""
    return httpx2.AsyncClient(
        transport=_GuardedTransport(policy, resolver or system_resolver, max_bytes),
        headers={"User-Agent": user_agent, **headers},
        timeout=httpx2.Timeout(total_seconds, connect=connect_seconds),
        follow_redirects=False,  # the SDK follows same-origin redirects itself; each one is checked here again
        trust_env=False,
    )


def exception_chain(exc: BaseException) -> list[BaseException]:
    """`exc` with its group members, causes and contexts, each once, nearest first."""
    found: list[BaseException] = []
    seen: set[int] = set()
    stack: list[BaseException] = [exc]
    while stack:
        current = stack.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        found.append(current)
        if isinstance(current, BaseExceptionGroup):
            stack.extend(current.exceptions)
        stack.extend(e for e in (current.__cause__, current.__context__) if e is not None)
    return found


def refusal_in(exc: BaseException) -> AddressRefused | None:
    """The address refusal somewhere in an exception (its causes, contexts or group members)."""
    for current in exception_chain(exc):
        if isinstance(current, AddressRefused):
            return current
        if isinstance(current, _Refused):
            return current.refused
    return None
