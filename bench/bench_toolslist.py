"""The size of each address's tools/list: what an assistant loads before its first question.

    .venv/bin/python bench/bench_toolslist.py

Asks the running application (shipped registry) for `tools/list` on every address in `/health`,
in both eras, and reports the bytes of the result as served (compact JSON) and the tool count.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import aiohttp

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench._harness import Child, open_session, pin, post  # noqa: E402
from bench.bench_calls import request  # noqa: E402

__all__ = ["run"]


async def _sizes(base: str) -> list[dict[str, Any]]:
    rows = []
    async with aiohttp.ClientSession() as http:
        async with http.get(f"{base}/health") as response:
            slugs = [c["slug"] for c in (await response.json())["connectors"]]
        for slug in slugs:
            url = f"{base}/{slug}/mcp"
            row: dict[str, Any] = {"slug": slug}
            for era in ("modern", "legacy"):
                session = await open_session(http, url) if era == "legacy" else ""
                headers, body = request(era, "tools/list", {}, session)
                status, _, payload = await post(http, url, body, headers)
                if status != 200:
                    raise RuntimeError(f"tools/list on {slug} ({era}): {status} {payload[:200]!r}")
                start = payload.index(b',"result":') + len(b',"result":')
                row[f"{era}_bytes"] = len(payload) - start - 1
                row["tools"] = len(json.loads(payload)["result"]["tools"])
            rows.append(row)
    return rows


def run() -> dict[str, Any]:
    pin(1)
    with Child("replicas", core=1) as replicas, Child("besluitbron", "--replicas", replicas.base) as ours:
        return {"addresses": asyncio.run(_sizes(ours.base))}


def main() -> int:
    for row in run()["addresses"]:
        print(f"/{row['slug']}/mcp  {row['tools']:>3} tools  {row['modern_bytes']:>7} B (2026-07-28)  "
              f"{row['legacy_bytes']:>7} B (2025-11-25)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
