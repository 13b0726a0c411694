"""Hook: the theme's compiled templates are kept for the whole process.

mkdocs makes a new Jinja environment for every build, and mkdocs-static-i18n builds each language as a build
of its own, so Material's templates were parsed and compiled once per language: about a fifth of a small
site's build. Jinja keys each entry by template file and a checksum of its source, so an edited template
(under `mkdocs serve` or the proxy's --watch) is compiled anew."""

from __future__ import annotations

from typing import Any

import jinja2
from jinja2.bccache import Bucket


class _ProcessBytecodeCache(jinja2.BytecodeCache):
    def __init__(self) -> None:
        self._code: dict[str, bytes] = {}

    def load_bytecode(self, bucket: Bucket) -> None:
        if (code := self._code.get(bucket.key)) is not None:
            bucket.bytecode_from_string(code)

    def dump_bytecode(self, bucket: Bucket) -> None:
        self._code[bucket.key] = bucket.bytecode_to_string()


_CACHE = _ProcessBytecodeCache()


def on_env(env: jinja2.Environment, **_: Any) -> jinja2.Environment:
    env.bytecode_cache = _CACHE
    return env
