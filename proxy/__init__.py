"""BesluitBron: read-only MCP access to Dutch public decision-making."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("besluitbron")
except PackageNotFoundError:  # pragma: no cover - running from a source tree without install
    __version__ = "0.0.0+source"
