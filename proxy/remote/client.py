"""Talking to one third-party MCP server: list its tools, call one, and account for every exchange.

A `RemoteClient` holds the connector's guarded HTTP client (with the credential, read from the
environment variable the registry names) and opens one short MCP session per exchange with the SDK's
own client, in whichever protocol era the server speaks. Every exchange is timed, size-capped,
rate-limited, recorded in the caller's call log and counted for availability, like a call to a
built-in platform. Failures become the project's `UpstreamError`s with a message for a person;
the credential is never part of a URL, a log line, a record or a message.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import os
import time
from collections.abc import Awaitable, Callable, Collection, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar, cast

import httpx2
import mcp_types
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp_types import CONNECTION_CLOSED

from proxy.core.caller import Caller
from proxy.core.errors import (
    RemoteRefused,
    UpstreamBadReply,
    UpstreamError,
    UpstreamRateLimited,
    UpstreamTimeout,
    UpstreamTooLarge,
    UpstreamUnreachable,
)
from proxy.core.netguard import AddressPolicy, safe_url
from proxy.core.peer import budget_group
from proxy.core.shapes import availability_record, call_record
from proxy.observe.jsonlog import REQUEST_ID
from proxy.plugin.fairshare import FairBudget
from proxy.registry.model import Platform, RemoteAuth
from proxy.remote.transport import Resolver, ResponseTooLarge, exception_chain, guarded_client, refusal_in
from proxy.state.store import StateStore

__all__ = ["Listed", "MissingCredential", "RemoteClient", "credential_headers", "scrub"]

log = logging.getLogger(__name__)
T = TypeVar("T")
_EXCERPT = 200
# A listing is read within bounds, whatever the server sends: pages, tools looked at, names of the others kept.
MAX_LISTING_PAGES = 20
MAX_LISTED_TOOLS = 5_000
NAMES_KEPT = 10


class _Observed:
    """The HTTP status of a failed exchange: the SDK turns it into a generic JSON-RPC error, we need it back."""

    status: int | None = None


# Set per exchange; the SDK's transport tasks inherit it, so its response hook writes into this exchange's.
_OBSERVED: contextvars.ContextVar[_Observed | None] = contextvars.ContextVar("remote_observed", default=None)


async def _observe(response: httpx2.Response) -> None:
    observed = _OBSERVED.get()
    if observed is not None and response.status_code >= 300:
        observed.status = response.status_code


class MissingCredential(Exception):
    """The environment variable a remote connector's auth names is not set (or empty)."""


def credential_headers(auth: RemoteAuth, environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The header that carries the credential, read now from the environment; raises MissingCredential."""
    if auth.scheme == "none":
        return {}
    assert auth.env is not None
    value = (environ if environ is not None else os.environ).get(auth.env, "")
    if not value.strip():
        raise MissingCredential(f"environment variable {auth.env} is not set")
    if auth.scheme == "bearer":
        return {"Authorization": f"Bearer {value}"}
    assert auth.header is not None
    return {auth.header: value}


def scrub(value: T, secrets: tuple[str, ...]) -> T:
    """`value` with every occurrence of a secret replaced: a careless server may echo it back.

    A string stays a string, a list a list and a dict a dict (the casts say so to the type checker)."""
    if not secrets:
        return value
    if isinstance(value, str):
        text: str = value
        for secret in secrets:
            text = text.replace(secret, "[credential removed]")
        return cast(T, text)
    if isinstance(value, list):
        return cast(T, [scrub(v, secrets) for v in value])
    if isinstance(value, dict):
        return cast(T, {scrub(k, secrets): scrub(v, secrets) for k, v in value.items()})
    return value


@dataclass(frozen=True, slots=True)
class Listed:
    """What one listing found: the allow-listed tools, and how much else the server listed."""

    tools: tuple[mcp_types.Tool, ...]
    seen: int  # tools listed on the pages read
    pages: int
    others: tuple[str, ...]  # the first NAMES_KEPT names not on the allow-list
    complete: bool  # False: cut off at MAX_LISTING_PAGES or MAX_LISTED_TOOLS

    @property
    def not_allowed(self) -> int:
        return self.seen - len(self.tools)


class RemoteClient:
    """One remote connector's connection, under one generation's settings (`platform`)."""

    def __init__(self, platform: Platform, *, policy: AddressPolicy, store: StateStore,
                 environ: Mapping[str, str] | None = None, resolver: Resolver | None = None) -> None:
        assert platform.remote is not None
        self.platform = platform
        self.key = platform.key
        self.url = platform.remote.url
        self.shown_url = safe_url(self.url)
        self._store = store
        self._budget = FairBudget(store.take_token)  # kept for the client's life: its queue and group shares
        headers = credential_headers(platform.remote.auth, environ)  # MissingCredential: the connector stays off
        # Any form of the credential a server might echo: the header value and the bare token.
        self._secrets = tuple(sorted({v for v in headers.values()} | {v.removeprefix("Bearer ") for v in
                                                                      headers.values()}, key=len, reverse=True))
        self._http = guarded_client(policy, headers=headers, connect_seconds=platform.timeouts.connect_seconds,
                                    total_seconds=platform.timeouts.total_seconds,
                                    max_bytes=platform.max_response_bytes, resolver=resolver,
                                    user_agent=platform.user_agent)
        self._http.event_hooks["response"].append(_observe)

    @property
    def name(self) -> str:
        return f"{self.platform.title.en} (external MCP server)"

    def scrub(self, value: T) -> T:
        return scrub(value, self._secrets)

    async def close(self) -> None:
        await self._http.aclose()
        self._secrets = ()

    # ----------------------------------------------------------------------- exchanges

    async def list_tools(self, caller: Caller, keep: Collection[str] | None = None) -> Listed:
        """The tools named in `keep` (the allow-list; None: every one) from every page the server lists, within
        bounds: at most MAX_LISTING_PAGES pages and MAX_LISTED_TOOLS tools looked at; the others are counted."""
        async def run(client: Client) -> Listed:
            kept: dict[str, mcp_types.Tool] = {}
            others: list[str] = []
            seen = pages = 0
            cursor: str | None = None
            while pages < MAX_LISTING_PAGES and seen < MAX_LISTED_TOOLS:
                page = await client.list_tools(cursor=cursor)
                pages += 1
                for tool in page.tools[:MAX_LISTED_TOOLS - seen]:
                    if keep is None or tool.name in keep:
                        kept.setdefault(tool.name, tool)
                    elif len(others) < NAMES_KEPT:
                        others.append(tool.name[:64])
                seen += len(page.tools)
                cursor = page.next_cursor
                if not cursor:
                    return Listed(tuple(kept.values()), seen, pages, tuple(others), complete=True)
            return Listed(tuple(kept.values()), seen, pages, tuple(others), complete=False)

        return await self._exchange("tools/list", None, caller, run)

    async def call_tool(self, name: str, arguments: Mapping[str, Any], caller: Caller) -> mcp_types.CallToolResult:
        async def run(client: Client) -> mcp_types.CallToolResult:
            # The SDK would list the tools again and check the answer against the server's own outputSchema, its
            # regular expressions included, in this event loop (a backtracking pattern froze the process). The
            # answer is checked against BesluitBron's envelope instead, which leaves those patterns out
            # (proxy.remote.schemas). No schema for the name: the SDK skips its check and lists nothing.
            client.session._tool_output_schemas[name] = None
            return await client.call_tool(name, dict(arguments))

        return await self._exchange("tools/call", name, caller, run)

    async def _exchange(self, method: str, tool: str | None, caller: Caller,
                        run: Callable[[Client], Awaitable[T]]) -> T:
        started = time.perf_counter()
        observed = _Observed()
        token = _OBSERVED.set(observed)
        try:
            await self._wait_for_token()
            async with asyncio.timeout(self.platform.timeouts.total_seconds):
                async with Client(streamable_http_client(self.url, http_client=self._http), mode="auto") as client:
                    result = await run(client)
        except UpstreamRateLimited as exc:
            await self._record(caller, method, tool, started, error=str(exc))
            raise
        except Exception as exc:
            error = self._translate(exc, observed.status)
            await self._record(caller, method, tool, started, error=str(error))
            answered = isinstance(error, RemoteRefused)
            await self._set_available(answered, None if answered else str(error))
            if not answered:
                log.warning("remote connector %s: %s failed: %s", self.key, method, error)
            raise error from None
        finally:
            _OBSERVED.reset(token)
        await self._record(caller, method, tool, started, error=None)
        await self._set_available(True, None)
        return result

    def _translate(self, exc: Exception, status: int | None) -> UpstreamError:
        """One place where the SDK's, httpx's and the guard's failures become messages for a person."""
        name, key = self.name, self.key
        refused = refusal_in(exc)
        if refused is not None:
            return UpstreamUnreachable(key, f"{name} was not called: {refused}")
        found = _find(exc, (ResponseTooLarge, httpx2.TimeoutException, TimeoutError, MCPError, httpx2.TransportError))
        if isinstance(found, ResponseTooLarge):
            return UpstreamTooLarge(key, f"{name} sent more than the {self.platform.max_response_bytes}-byte cap; "
                                    "narrow the request")
        if isinstance(found, (httpx2.TimeoutException, TimeoutError)):
            return UpstreamTimeout(key, f"{name} did not answer within {self.platform.timeouts.total_seconds:g} s; "
                                   "try again later or narrow the request")
        problem = _status_problem(status)
        if isinstance(found, MCPError) and problem:
            return UpstreamUnreachable(key, f"{name} answered HTTP {status}; {problem}")
        if isinstance(found, MCPError) and found.error.code == CONNECTION_CLOSED:
            return UpstreamUnreachable(key, f"{name} broke off its answer; try again later")
        if isinstance(found, MCPError):
            said = self.scrub(_excerpt(found.error.message))
            return RemoteRefused(key, f"{name} refused the call (MCP error {found.error.code}: {said}); check the "
                                 "arguments against the tool's inputSchema")
        if isinstance(found, httpx2.TransportError):
            return UpstreamUnreachable(key, f"{name} cannot be reached ({type(found).__name__}); try again later")
        return UpstreamBadReply(key, f"{name} sent a reply that could not be read ({type(exc).__name__}); "
                                "try again later")

    async def _wait_for_token(self) -> None:
        """The same fair share of the budget as a built-in platform's (`FairBudget`): per client group, queued."""
        await self._budget.spend(self.key, self.platform.limits.requests_per_minute, budget_group(), self.name)

    async def _record(self, caller: Caller, method: str, tool: str | None, started: float, *,
                      error: str | None) -> None:
        await self._store.record_call(caller.key, call_record(
            source=self.key, tool=tool, method=f"MCP {method}", url=self.shown_url, status=None, started=started,
            size=0, cache_hit=False, error=error, request_id=REQUEST_ID.get()))

    async def _set_available(self, available: bool, error: str | None) -> None:
        await self._store.set_availability(self.key, availability_record(available, error))


def _status_problem(status: int | None) -> str | None:
    """What an HTTP status the SDK reported as a generic JSON-RPC error means. None for a 4xx that carries
    the server's own JSON-RPC error (a spec-correct refusal of the call)."""
    if status is None:
        return None
    if status < 400:
        return "it redirects elsewhere, and BesluitBron follows redirects only on the same origin"
    if status in (401, 403):
        return "the credential was refused; a maintainer must check the environment variable named in the registry"
    if status == 404:
        return "the address does not serve MCP; a maintainer must check remote.url"
    if status >= 500:
        return "the server is failing on its side; try again later"
    return None


def _find(exc: BaseException, kinds: tuple[type[BaseException], ...]) -> BaseException | None:
    """The first exception of `kinds` in `exc`, its group members, causes and contexts (kinds in order)."""
    found = exception_chain(exc)
    for kind in kinds:
        for candidate in found:
            if isinstance(candidate, kind):
                return candidate
    return None


def _excerpt(text: str) -> str:
    """A remote message as one short line: the first line only, so a traceback's internals stay behind."""
    line = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    return line[:_EXCERPT] + ("…" if len(line) > _EXCERPT else "")
