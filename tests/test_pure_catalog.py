"""The path from registry to catalog is pure: `load_generation` reads the registry and the plug-in modules,
and nothing else. No environment variable is read, no connection opened, no HTTP client imported; what a
running server knows (its remote listings) arrives as data."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import TypedDict

from proxy.platforms import PLATFORM_PATH_ENV
from tests.conftest import REGISTRY

ROOT = Path(__file__).resolve().parent.parent

# Run in a fresh interpreter: os.environ is swapped for a mapping that records every key asked for, and a socket
# that is opened or a DNS name looked up raises. Then the catalog is built, and what was touched is printed.
PROBE = r"""
import json, os, socket, sys
from pathlib import Path

PROJECT = (str(Path.cwd() / "proxy"), str(Path.cwd() / "site_hooks"))

class Recording(dict):
    asked = []  # the keys the project's own code asked for (libraries' reads, e.g. sysconfig's, are theirs)
    def _note(self, key):
        caller = sys._getframe(2).f_code.co_filename
        if caller.startswith(PROJECT):
            Recording.asked.append(key)
    def __getitem__(self, key):
        self._note(key)
        return super().__getitem__(key)
    def get(self, key, default=None):
        self._note(key)
        return super().get(key, default)
    def __contains__(self, key):
        self._note(key)
        return super().__contains__(key)

def refuse(*args, **kwargs):
    raise AssertionError(f"the catalog path opened a connection: {args!r}")

socket.socket.connect = refuse
socket.create_connection = refuse
socket.getaddrinfo = refuse
before = set(sys.modules)
os.environ = Recording(os.environ)  # the imports below read the environment through this one
from proxy.catalog.generation import load_generation
generation = load_generation(Path(sys.argv[1]))
loaded = sorted({m.split(".")[0] for m in set(sys.modules) - before})
print(json.dumps({"asked": Recording.asked, "loaded": loaded, "connectors": len(generation.catalog.connectors),
                  "tools": sum(len(c.tools) for c in generation.catalog.connectors.values())}))
"""
HTTP_CLIENTS = {"aiohttp", "httpx", "httpx2", "requests", "urllib3", "redis", "mcp", "anyio"}


class Probed(TypedDict):
    """What the probe prints: the variables asked for, the top-level modules loaded, the catalog's size."""

    asked: list[str]
    loaded: list[str]
    connectors: int
    tools: int


def _probe(registry: Path) -> Probed:
    done = subprocess.run([sys.executable, "-c", PROBE, str(registry)], cwd=ROOT, capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    seen: Probed = json.loads(done.stdout.splitlines()[-1])  # the probe prints one object
    return seen


def test_loading_the_catalog_reads_no_environment_opens_nothing_and_imports_no_http_client() -> None:
    """The one variable asked for is where plug-ins are found (BESLUITBRON_PLATFORM_PATH, read once when
    `proxy.platforms` is imported, like PYTHONPATH): part of reading the plug-in modules, not a setting."""
    seen = _probe(REGISTRY)
    assert seen["connectors"] == 8 and int(seen["tools"]) > 40
    assert seen["asked"] == [PLATFORM_PATH_ENV]
    assert sorted(HTTP_CLIENTS & set(seen["loaded"])) == []


def test_the_probe_sees_an_environment_read_and_an_http_client() -> None:
    """The probe itself can fail: a module that reads a variable and imports aiohttp is caught."""
    done = subprocess.run([sys.executable, "-c", PROBE.replace(
        "from proxy.catalog.generation import load_generation",
        "import aiohttp\nfrom proxy.catalog.generation import load_generation\n"
        "from proxy.core import clock; exec(compile('os.environ.get(\"HOME\")', clock.__file__, 'exec'))"),
        str(REGISTRY)],
        cwd=ROOT, capture_output=True, text=True, timeout=120, check=False)
    seen = json.loads(done.stdout.splitlines()[-1])
    assert "HOME" in seen["asked"] and "aiohttp" in seen["loaded"]
