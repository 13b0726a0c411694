"""compose's own registry (deploy/config/registry.json, public_url https://localhost, hosts and origins left to follow
from it) served the way compose serves it: `serve --workers 2` on a real redis-server behind the shipped Caddyfile
run by a real Caddy. The shipped registry admitted loopback only, so every MCP call through compose got 421."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.conftest import MODES, ROOT, Replicas
from tests.test_workers import _sdk_call, _until_answering, caddy, workers_process

pytestmark = pytest.mark.redis


async def test_the_compose_registry_answers_mcp_through_caddy_on_its_public_name(
        replicas: Replicas, redis_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    registry = tmp_path / "registry.json"
    shutil.copy(ROOT / "deploy" / "config" / "registry.json", registry)
    with workers_process(registry, replicas, redis_url, tmp_path) as (_, port), caddy(port, tmp_path) as (https, ca):
        await _until_answering(https, ca)
        monkeypatch.setenv("SSL_CERT_FILE", str(ca))
        for mode in MODES:
            result = await _sdk_call(f"{https}/wetten/mcp", mode, "omzetbelasting")
            assert not result.is_error, result.content
