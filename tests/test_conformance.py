"""The official MCP conformance suite (transport and lifecycle scenarios) against the real proxy.

Runs `scripts/conformance-run.sh` (the `make conformance` target): it starts the proxy against the
replicas and runs `@modelcontextprotocol/conformance` through npx, which the npm registry serves.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_official_conformance_suite_passes() -> None:
    assert shutil.which("npx"), "npx (Node.js) is needed to run the official conformance suite"
    done = subprocess.run(["bash", "scripts/conformance-run.sh"], cwd=ROOT, capture_output=True, text=True,
                          timeout=600)
    summary = [line for line in done.stdout.splitlines() if line.startswith(("PASS", "FAIL", "==", "conformance"))]
    assert done.returncode == 0, "\n".join(summary) + "\n" + done.stdout[-3000:] + done.stderr[-2000:]
    assert sum(line.startswith("conformance: all scenarios pass") for line in summary) == 3, summary
