"""Deeply nested XML from a platform is a reply that could not be read, never an internal failure."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from aiohttp import web

from proxy.core.caller import Caller
from proxy.core.errors import UpstreamBadReply
from proxy.platforms._common import MAX_XML_DEPTH, parse_xml
from proxy.platforms._sru import as_element, parse_reply
from proxy.plugin.upstream import Upstream
from proxy.registry.model import load_registry
from proxy.state.store import MemoryStore
from tests.conftest import listen

ROOT = Path(__file__).resolve().parent.parent
DEEP = b"<a>" * 50_000 + b"</a>" * 50_000


def test_parse_xml_refuses_depth_beyond_the_bound_and_keeps_the_rest() -> None:
    assert parse_xml(b"<a>" * MAX_XML_DEPTH + b"</a>" * MAX_XML_DEPTH).tag == "a"
    with pytest.raises(ValueError, match="nested deeper"):
        parse_xml(b"<a>" * (MAX_XML_DEPTH + 1) + b"</a>" * (MAX_XML_DEPTH + 1))
    with pytest.raises(ValueError, match="nested deeper"):
        parse_reply(DEEP, platform="wetten", name="Wetten")


@pytest.fixture
async def deep_server() -> AsyncIterator[str]:
    async def deep(_: web.Request) -> web.Response:
        return web.Response(body=DEEP, content_type="application/xml")

    app = web.Application()
    app.router.add_get("/doc.xml", deep)
    runner, url = await listen(app)
    yield url
    await runner.cleanup()


async def test_a_deep_linked_document_is_a_bad_reply(deep_server: str) -> None:
    platform = load_registry(ROOT / "registry.json").platforms["wetten"]
    up = Upstream(dataclasses.replace(platform, base_url=deep_server), store=MemoryStore())
    try:
        with pytest.raises(UpstreamBadReply, match="could not be read"):
            await up.get_url(f"{deep_server}/doc.xml", as_element, caller=Caller.session("t"))
    finally:
        await up.close()
