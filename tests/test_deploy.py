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
    assert base and re.search(r":\d+\.\d+\.\d+-slim", base.group(1)), "a pinned slim base"
    assert re.search(r"^USER 10001$", dockerfile, re.M) and "HEALTHCHECK" in dockerfile
    assert "/health" in dockerfile and "[test" not in dockerfile and "pip install --no-cache-dir ." in dockerfile
    compose = (DEPLOY / "compose.yaml").read_text(encoding="utf-8")
    caddy = re.search(r"caddy:.*?ipv4_address: (\S+)", compose, re.S)
    assert caddy and f'"--trusted-proxy", "{caddy.group(1)}"' in dockerfile  # the workers trust Caddy's address
    assert "./Caddyfile:/etc/caddy/Caddyfile" in compose and "condition: service_healthy" in compose
