"""What a site build is handed: the registry and, from a running server, what it measured and listed.

A build never measures, lists a remote server or reads the environment for itself: everything it
renders beyond the registry arrives here, as data. A server (`proxy.web.sitebuild`) writes one
file and names it in `SITE_INPUT_ENV`, the one variable a build reads (in `site_hooks.bridge`);
a build without it renders `registry.json` beside `mkdocs.yml`, with no load measurement, remote
connectors without a tool list and no sample banner.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

__all__ = ["SITE_INPUT_ENV", "SiteInput", "SiteInputError"]

SITE_INPUT_ENV = "BESLUITBRON_SITE_INPUT"


class SiteInputError(ValueError):
    """The site input file cannot be used; the message names the file and the part."""


@dataclass(frozen=True, slots=True)
class SiteInput:
    registry: Path | None = None
    """The registry file; None: `registry.json` beside `mkdocs.yml`."""
    status: Mapping[str, Any] | None = None
    """The server's `GET /status` JSON, shown as the build-time Laadstatus; None: "no measurement"."""
    remote: Mapping[str, Any] | None = None
    """The server's remote listings (`RemoteHub.snapshot()`), so the site shows the remote tools it serves."""
    sample_recorded_on: str | None = None
    """The server answers from the offline replicas, recorded up to this date: the banner on every page."""
    sample_sources: list[str] | None = None
    """The platform keys answering from the sample when the others answer live (`--upstream auto`); None: all."""
    plugins: str | None = None
    """Benchmarks only: "module:function" returning plug-ins for a synthetic registry."""

    def write(self, path: Path) -> None:
        data = asdict(self)
        data["registry"] = str(self.registry.resolve()) if self.registry else None
        path.write_text(json.dumps(data), encoding="utf-8")

    @classmethod
    def read(cls, path: Path) -> SiteInput:
        """The input in `path`; a file that is named but unusable fails the build (it would pass as "nothing")."""
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except OSError as exc:
            raise SiteInputError(f"site input {path}: cannot be read ({exc.strerror or exc})") from exc
        except json.JSONDecodeError as exc:
            raise SiteInputError(f"site input {path}: not valid JSON ({exc.msg}, line {exc.lineno})") from exc
        known = {f.name for f in fields(cls)}
        if not isinstance(data, dict) or set(data) - known:
            raise SiteInputError(f"site input {path}: expected an object with the keys {sorted(known)}")
        registry = data.get("registry")
        return cls(registry=Path(registry) if registry else None, status=data.get("status"),
                   remote=data.get("remote"), sample_recorded_on=data.get("sample_recorded_on"),
                   sample_sources=data.get("sample_sources"),
                   plugins=data.get("plugins"))
