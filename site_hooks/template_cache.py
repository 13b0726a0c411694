"""Hook: the theme's templates are compiled once per machine, not once per language of every build.

mkdocs makes a new Jinja environment for every build, and mkdocs-static-i18n builds each language as a build
of its own, so Material's templates were parsed and compiled again each time: about a sixth of a build's
time. Jinja's own file cache keeps the compiled code in its per-user temporary folder (created private, and
refused if someone else owns it). Each entry is keyed by template file and checked against a checksum of the
source, so an edited template (under `mkdocs serve` or the proxy's --watch) is compiled anew."""

from __future__ import annotations

from typing import Any

import jinja2

_CACHE = jinja2.FileSystemBytecodeCache()


def on_env(env: jinja2.Environment, **_: Any) -> jinja2.Environment:
    env.bytecode_cache = _CACHE
    return env
