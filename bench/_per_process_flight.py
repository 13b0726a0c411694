"""`python -m proxy` as it was before the single flight spanned the workers (the workload bench's "before").

Every process then fetched a request another process was already fetching: each claim in the shared store is
granted at once (as the memory store grants it) and never held, so a process never waits for another's reply.
Only the claim is changed: the shared cache, its near copy and everything else run as shipped. The arbiter
loads this before it forks, so every worker runs it too.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from proxy.__main__ import main  # noqa: E402
from proxy.state.redis_store import RedisStore  # noqa: E402


async def _granted(self: RedisStore, key: str, owner: str, seconds: float) -> bool:
    return True


async def _nothing_to_release(self: RedisStore, key: str, owner: str) -> None:
    return None


RedisStore.claim_fetch = _granted  # type: ignore[method-assign]
RedisStore.release_fetch = _nothing_to_release  # type: ignore[method-assign]

if __name__ == "__main__":
    sys.exit(main())
