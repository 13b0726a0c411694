"""`python -m proxy` as it was before searches fetched whole blocks of results (the workload bench's "before").

Every search then asked the platform for exactly the caller's window (`limit` results from `offset`), so the next
page, or the same search with a smaller limit, was a request of its own. Only the window is changed; the arbiter
loads this before it forks, so every worker runs it too.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import proxy.platforms  # noqa: E402
from proxy.__main__ import main  # noqa: E402
from proxy.platforms import _common  # noqa: E402
from proxy.platforms._common import Window  # noqa: E402


def _as_asked(offset: int, limit: int, *, most: int, block: int = 0) -> Window:
    return Window(offset, limit, offset, limit)


# Every platform module that fetches blocks (it imports `aligned`), found rather than listed, so none is missed.
for info in pkgutil.iter_modules(proxy.platforms.__path__):
    module = importlib.import_module(f"proxy.platforms.{info.name}")
    if getattr(module, "aligned", None) is _common.aligned and module is not _common:
        module.aligned = _as_asked  # type: ignore[attr-defined]

if __name__ == "__main__":
    sys.exit(main())
