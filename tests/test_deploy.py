"""Issue 23: the container image and the compose file, checked where no Docker engine runs: hadolint on the
Dockerfile, the compose file against the Compose specification's own JSON schema (vendored by check-jsonschema),
and what an operator relies on (non-root, a health check, no test dependencies, Caddy trusted by address)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import Replicas

ROOT = Path(__file__).parents[1]
DEPLOY = ROOT / "deploy"
BIN = Path(sys.executable).parent


def _tool(name: str) -> str:
    found = shutil.which(name, path=str(BIN)) or shutil.which(name)
    if not found:
        pytest.fail(f"{name} is not installed; `make test` installs the test extras")
    return found


def test_hadolint_passes_the_dockerfile() -> None:
    proc = subprocess.run([_tool("hadolint"), str(DEPLOY / "Dockerfile")], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_the_compose_file_follows_the_compose_specification() -> None:
    proc = subprocess.run([_tool("check-jsonschema"), "--builtin-schema", "vendor.compose-spec",
                           str(DEPLOY / "compose.yaml")], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_the_image_runs_unprivileged_with_a_health_check_and_only_the_runtime() -> None:
    dockerfile = (DEPLOY / "Dockerfile").read_text(encoding="utf-8")
    base = re.search(r"^FROM (\S+)", dockerfile, re.M)
    assert base and re.search(r":\d+\.\d+\.\d+-slim\S*@sha256:[0-9a-f]{64}$", base.group(1)), "a slim base, by digest"
    assert re.search(r"^USER 10001$", dockerfile, re.M) and "HEALTHCHECK" in dockerfile
    assert "/health" in dockerfile and "[test" not in dockerfile and "-r requirements.lock" in dockerfile
    compose = (DEPLOY / "compose.yaml").read_text(encoding="utf-8")
    pulled = re.findall(r"^\s+image: (\S+)$", compose, re.M)
    assert all(re.search(r"@sha256:[0-9a-f]{64}$", i) for i in pulled if i != "besluitbron:local"), pulled
    caddy = re.search(r"caddy:.*?ipv4_address: (\S+)", compose, re.S)
    assert caddy and f'"--trusted-proxy", "{caddy.group(1)}"' in dockerfile  # the workers trust Caddy's address
    assert "./Caddyfile:/etc/caddy/Caddyfile" in compose and "condition: service_healthy" in compose
    # The CMD's flags agree with its comments: Redis comes from BESLUITBRON_REDIS_URL (no --redis overriding it).
    assert "ENV BESLUITBRON_REDIS_URL=" in dockerfile and '"--redis"' not in dockerfile


def test_what_the_image_copies_exists_and_the_build_context_is_small() -> None:
    dockerfile = (DEPLOY / "Dockerfile").read_text(encoding="utf-8")
    copied = [p for line in re.findall(r"^COPY (.+)$", dockerfile, re.M) for p in line.split()[:-1]]
    assert copied and all((ROOT / p).exists() for p in copied), [p for p in copied if not (ROOT / p).exists()]
    ignore = (ROOT / ".dockerignore").read_text(encoding="utf-8").split()
    assert ignore[ignore.index("*") if "*" in ignore else 0] == "*"  # everything out, then what the image needs
    assert all(f"!{p.rstrip('/')}" in {i.rstrip("/") for i in ignore} for p in copied), copied


def test_the_lock_pins_every_runtime_dependency_at_the_version_tested() -> None:
    from scripts.lock import LOCK, render, runtime_closure

    assert LOCK.read_text(encoding="utf-8") == render(runtime_closure()), "run .venv/bin/python scripts/lock.py"


def test_the_compose_registry_is_a_public_one_that_validates() -> None:
    """compose.yaml serves deploy/config/registry.json through a directory mount (an edit on the host applies on
    SIGHUP); its hosts and origins follow from public_url, so Caddy's Host header (with or without :443) is
    admitted. The shipped registry admitted loopback only: every MCP call through compose got 421."""
    from proxy.registry.model import load_registry

    compose = (DEPLOY / "compose.yaml").read_text(encoding="utf-8")
    assert "./config:/app/config:ro" in compose and "registry.json:/app" not in compose
    server = load_registry(DEPLOY / "config" / "registry.json").server
    host = re.search(r"BESLUITBRON_HOST: \$\{BESLUITBRON_HOST:-([^}]+)\}", compose)
    assert host and server.public_url == f"https://{host.group(1)}"
    assert server.allowed_hosts == (host.group(1), f"{host.group(1)}:*")
    assert server.allowed_origins == (server.public_url,)


def test_the_compose_registry_serves_what_the_shipped_one_serves() -> None:
    """Only its server settings differ: a connector or tool added to registry.json is also in compose's copy."""
    import json

    from scripts.compose_registry import COMPOSE, SHIPPED, compose_registry, render

    expected = render(compose_registry(json.loads(SHIPPED.read_text(encoding="utf-8"))))
    assert COMPOSE.read_text(encoding="utf-8") == expected, "run .venv/bin/python scripts/compose_registry.py"


def test_the_going_public_steps_give_a_registry_that_validates(tmp_path: Path) -> None:
    """The page's steps, applied to the shipped registry: the public_url it shows, hosts and origins left out."""
    import json

    from proxy.registry.model import load_registry

    page = (ROOT / "docs" / "publiek-maken.md").read_text(encoding="utf-8")
    url = re.search(r"`server.public_url` op `(https://[^`]+)`", page)
    assert url and not url.group(1).endswith("/")
    data = json.loads((ROOT / "registry.json").read_text(encoding="utf-8"))
    data["server"]["public_url"] = url.group(1)
    for name in re.findall(r"`server\.(allowed_\w+)`", page):
        data["server"].pop(name)
    path = tmp_path / "registry.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    server = load_registry(path).server
    assert "besluitbron.gemeente.nl" in server.allowed_hosts and server.allowed_origins == (url.group(1),)


async def test_the_compose_registry_answers_mcp_on_its_public_name(replicas: Replicas) -> None:
    """What Caddy sends on from https://localhost (Host with or without :443, the page's origin) is answered."""
    import json

    import aiohttp

    from tests.conftest import serve

    initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    async with serve(DEPLOY / "config" / "registry.json", replicas) as server, aiohttp.ClientSession() as http:
        for extra in ({"Host": "localhost"}, {"Host": "localhost:443", "Origin": "https://localhost"}):
            async with http.post(server.url("wetten"), data=json.dumps(initialize),
                                 headers={**headers, **extra}) as resp:
                assert resp.status == 200, (extra, resp.status, await resp.text())
        async with http.post(server.url("wetten"), data=json.dumps(initialize),
                             headers={**headers, "Host": "evil.example"}) as resp:
            assert resp.status == 421
