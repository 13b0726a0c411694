"""Hostile addresses for a remote connector: each refused at validation or at connect time.

Validation (`python -m proxy validate`, any registry load) refuses what it can decide offline;
connect time checks every address a name resolves to, once, and dials only a checked address.
DNS is played by a test resolver; no traffic leaves 127.0.0.0/8, and trap listeners on 127.0.0.1
prove nothing reached an address that was refused.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
from collections.abc import AsyncIterator
from pathlib import Path

import httpx2
import pytest
from aiohttp import web

from proxy.__main__ import main
from proxy.core.caller import SYSTEM_CALLER
from proxy.core.errors import RegistryError, UpstreamUnreachable
from proxy.core.netguard import AddressPolicy, AddressRefused
from proxy.registry.model import Registry, parse_registry
from proxy.remote.client import RemoteClient
from proxy.remote.transport import _GuardedBackend, guarded_client, refusal_in
from proxy.state.store import MemoryStore
from tests.conftest import REGISTRY
from tests.remote_server import ENV, SECRET, ThirdPartyServer, add_remote

# Refused without the network: loopback and private in every notation, metadata, userinfo, plain http...
REFUSED_AT_VALIDATION = [
    ("https://127.0.0.1/mcp", "loopback"),
    ("https://localhost/mcp", "internal name"),
    ("https://2130706433/mcp", "notation"),  # decimal 127.0.0.1
    ("https://0177.0.0.1/mcp", "notation"),  # octal
    ("https://0x7f000001/mcp", "notation"),  # hex
    ("https://0x7f.1/mcp", "notation"),  # hex, short
    ("https://127.1/mcp", "notation"),  # short form
    ("https://10.1/mcp", "notation"),  # short form of 10.0.0.1
    ("https://012.0.0.1/mcp", "notation"),  # octal 10.0.0.1
    ("https://[::1]/mcp", "loopback"),
    ("https://[::ffff:127.0.0.1]/mcp", "IPv4-mapped"),
    ("https://[::ffff:a9fe:a9fe]/mcp", "IPv4-mapped"),  # 169.254.169.254, mapped
    ("https://[64:ff9b::a00:1]/mcp", "NAT64"),  # 10.0.0.1 via NAT64
    ("https://169.254.169.254/latest/meta-data/", "metadata"),
    ("https://metadata.google.internal/computeMetadata/v1/", "internal name"),
    ("https://192.168.1.10/mcp", "private"),
    ("https://172.16.5.4/mcp", "private"),
    ("https://100.64.0.1/mcp", "carrier-grade NAT"),
    ("https://[fe80::1]/mcp", "link-local"),
    ("https://[fe80::1%25eth0]/mcp", "zone"),
    ("https://[fd12:3456::1]/mcp", "private"),
    ("https://224.0.0.251/mcp", "multicast"),
    ("https://0.0.0.0/mcp", "unspecified"),
    ("https://[::]/mcp", "unspecified"),
    ("https://240.0.0.1/mcp", "private"),  # reserved (Python counts 240/4 as private too)
    ("https://user:pass@mcp.example.org/mcp", "userinfo"),
    ("https://mcp.example.org@127.0.0.1/mcp", "userinfo"),
    ("http://mcp.example.org/mcp", "plain http"),
    ("https://mcp.example.org/mcp?api_key=abc", "credential"),
    ("https://intranet/mcp", "internal name"),
    ("ftp://mcp.example.org/mcp", "https?://"),  # the schema's own pattern
]


def registry_with(url: str, *, allow: list[str] | None = None) -> Registry:
    data = json.loads(REGISTRY.read_text(encoding="utf-8"))
    add_remote(data, url, allow=[] if allow is None else allow)
    return parse_registry(data)


@pytest.mark.parametrize(("url", "why"), REFUSED_AT_VALIDATION)
def test_refused_at_validation(url: str, why: str) -> None:
    with pytest.raises(RegistryError) as caught:
        registry_with(url)
    problem = next(p for p in caught.value.problems if ".remote.url" in p)
    assert why in problem
    assert "pass@" not in problem  # userinfo is never echoed back


def test_validation_accepts_public_names_and_addresses_without_contacting_them(tmp_path: Path,
                                                                               capsys: pytest.CaptureFixture[str]
                                                                               ) -> None:
    for url in ("https://mcp.example.org/mcp", "https://8.8.8.8/mcp", "https://[2606:4700:4700::1111]/mcp"):
        registry_with(url)
    data = json.loads(REGISTRY.read_text(encoding="utf-8"))
    add_remote(data, "https://mcp.example.org/mcp", allow=[])
    path = tmp_path / "registry.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    assert main(["validate", str(path)]) == 0  # offline: a name is checked when the proxy connects
    assert "derde: remote connector" in capsys.readouterr().out


def test_allow_networks_are_the_only_exception() -> None:
    assert registry_with("http://127.0.0.1:9/mcp", allow=["127.0.0.1/32"]).platforms["derde"].remote
    with pytest.raises(RegistryError, match="loopback"):
        registry_with("http://127.0.0.2:9/mcp", allow=["127.0.0.1/32"])
    with pytest.raises(RegistryError, match=r"remote_allow_networks: .*CIDR"):
        registry_with("https://mcp.example.org/mcp", allow=["not-a-network"])


# --------------------------------------------------------------------------- connect time


class PlayedDns:
    """A resolver that answers from a script (the last answer repeats) and counts lookups."""

    def __init__(self, *answers: list[str]) -> None:
        self.answers = list(answers)
        self.lookups: list[str] = []

    async def __call__(self, host: str, port: int) -> list[str]:
        self.lookups.append(host)
        return self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]


class Trap:
    """A listener that counts connections: what a refused address must never receive."""

    def __init__(self) -> None:
        self.connections = 0
        self.server: asyncio.Server | None = None

    async def start(self, host: str, port: int) -> Trap:
        async def hit(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            self.connections += 1
            writer.close()

        self.server = await asyncio.start_server(hit, host, port)
        return self

    @property
    def port(self) -> int:
        assert self.server is not None
        return int(self.server.sockets[0].getsockname()[1])

    async def close(self) -> None:
        assert self.server is not None
        self.server.close()
        await self.server.wait_closed()


@pytest.fixture
async def trap() -> AsyncIterator[Trap]:
    t = await Trap().start("127.0.0.1", 0)
    yield t
    await t.close()


def remote_client(url: str, resolver: PlayedDns | None = None, allow: list[str] | None = None) -> RemoteClient:
    """A connector's client for `url` under `allow`; its platform is built under a wide exception, so a URL
    validation would refuse still reaches the connect-time checks."""
    allow = ["127.0.0.2/32"] if allow is None else allow
    registry = registry_with(url, allow=["127.0.0.0/8"])
    policy = AddressPolicy(allow=tuple(ipaddress.ip_network(a) for a in allow))
    return RemoteClient(registry.platforms["derde"], policy=policy, store=MemoryStore(), environ={ENV: SECRET},
                        resolver=resolver)


@pytest.mark.parametrize(("answer", "why"), [
    (["10.0.0.7"], "private"),
    (["93.184.216.34", "127.0.0.1"], "loopback"),  # one bad address in the answer refuses the host
    (["::ffff:10.0.0.1"], "IPv4-mapped"),
    (["169.254.169.254"], "metadata"),
    (["64:ff9b::a9fe:a9fe"], "NAT64"),
    (["fe80::1%eth0"], "link-local"),
])
async def test_name_resolving_to_a_refused_address(answer: list[str], why: str, trap: Trap) -> None:
    dns = PlayedDns(answer)
    client = remote_client(f"http://notes.example.org:{trap.port}/mcp", dns)
    try:
        with pytest.raises(UpstreamUnreachable, match=why) as caught:
            await client.list_tools(SYSTEM_CALLER)
    finally:
        await client.close()
    assert "was not called" in str(caught.value)
    assert dns.lookups and trap.connections == 0


async def test_dns_answer_that_changes_between_lookups_is_never_dialled(trap: Trap) -> None:
    """The first answer (allowed 127.0.0.2) is checked and dialled; the rebinding answer (127.0.0.1) at the
    next connection is refused. There is no second lookup between a check and its dial."""
    real = await Trap().start("127.0.0.2", trap.port)  # same port on both addresses: only the address differs
    dns = PlayedDns(["127.0.0.2"], ["127.0.0.1"])
    backend = _GuardedBackend(AddressPolicy(allow=(ipaddress.ip_network("127.0.0.2/32"),)), dns)
    try:
        stream = await backend.connect_tcp("rebind.example.org", trap.port)
        assert stream.get_extra_info("server_addr")[0] == "127.0.0.2"
        assert dns.lookups == ["rebind.example.org"]  # resolved once, dialled what was checked
        await stream.aclose()
        with pytest.raises(Exception) as caught:
            await backend.connect_tcp("rebind.example.org", trap.port)
        refused = refusal_in(caught.value)
        assert refused is not None and "loopback" in str(refused)
        await asyncio.sleep(0.05)
        assert real.connections == 1 and trap.connections == 0
    finally:
        await real.close()


async def test_redirect_to_a_private_address_is_refused(trap: Trap) -> None:
    async def redirect(request: web.Request) -> web.Response:
        raise web.HTTPTemporaryRedirect(f"http://127.0.0.1:{trap.port}/mcp")

    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", redirect)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.2", 0)
    await site.start()
    url = f"http://127.0.0.2:{site.port}/mcp"
    client = remote_client(url)
    http = guarded_client(AddressPolicy(allow=(ipaddress.ip_network("127.0.0.2/32"),)), headers={},
                          connect_seconds=1, total_seconds=2, max_bytes=4096)
    try:
        with pytest.raises(UpstreamUnreachable, match="HTTP 307; it redirects elsewhere"):  # as a connector calls
            await client.list_tools(SYSTEM_CALLER)
        with pytest.raises(httpx2.ConnectError) as caught:  # and when redirects are followed, each is checked
            await http.get(url, follow_redirects=True)
        refused = refusal_in(caught.value)
        assert refused is not None and "loopback" in str(refused)
    finally:
        await client.close()
        await http.aclose()
        await runner.cleanup()
    assert trap.connections == 0


async def test_loopback_server_refused_when_allow_networks_is_empty() -> None:
    server = ThirdPartyServer(header="Authorization", value=f"Bearer {SECRET}").start()
    try:
        with pytest.raises(RegistryError, match="loopback"):
            registry_with(server.url, allow=[])  # at validation
        client = remote_client(server.url, allow=[])  # and at connect time, had validation been skipped
        try:
            with pytest.raises(UpstreamUnreachable, match="loopback"):
                await client.list_tools(SYSTEM_CALLER)
        finally:
            await client.close()
        allowed = remote_client(server.url, allow=["127.0.0.1/32"])
        try:
            names = {t.name for t in (await allowed.list_tools(SYSTEM_CALLER)).tools}
        finally:
            await allowed.close()
        assert "search_notes" in names  # the same server, allowed: it was only the rule
        assert server.state.calls == []
    finally:
        server.stop()


def test_address_rules_unit() -> None:
    policy = AddressPolicy()
    with pytest.raises(AddressRefused, match="plain http"):
        policy.check_address(ipaddress.ip_address("93.184.216.34"), host="x.example", plain_http=True)
    policy.check_address(ipaddress.ip_address("93.184.216.34"), host="x.example", plain_http=False)
    for bad in ("127.0.0.1", "10.1.2.3", "100.100.0.1", "::1", "::ffff:192.168.0.1", "64:ff9b::808:808",
                "2002:7f00:1::", "ff02::1", "198.18.0.1", "192.0.2.1", "192.0.0.8", "fec0::1"):
        assert policy.refusal(ipaddress.ip_address(bad)) is not None, bad

