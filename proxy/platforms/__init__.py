"""One module per source platform, named exactly as the registry's platform key (see proxy.plugin.toolkit).

Modules that start with `_` are helpers shared by several platforms, never platforms themselves.
Directories named in BESLUITBRON_PLATFORM_PATH (os.pathsep-separated) are searched too, after this
one, so a platform can be added without editing the package; see README.md beside this file.
"""

import os

PLATFORM_PATH_ENV = "BESLUITBRON_PLATFORM_PATH"

__path__ += [p for p in os.environ.get(PLATFORM_PATH_ENV, "").split(os.pathsep) if p]
