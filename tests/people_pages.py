"""Whether a citation link is a page for people rather than an API address (issue 12)."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from proxy.registry.model import load_registry
from tests.conftest import REGISTRY

__all__ = ["not_for_people"]

# Hosts that serve machines, not people: every platform's API host, plus the replicas' loopback host. Three
# hosts serve both (open.overheid.nl pages and API, repository.overheid.nl files and SRU, openbesluitvorming.nl
# its viewer and API): there the path decides.
API_HOSTS = {urlsplit(p.base_url).hostname for p in load_registry(REGISTRY).platforms.values()} - {
    "open.overheid.nl", "repository.overheid.nl", "openbesluitvorming.nl"} | {"127.0.0.1", "localhost"}
API_PATH = re.compile(r"/api/|/odata/|/sru", re.IGNORECASE)


def not_for_people(uri: str) -> str | None:
    """Why `uri` is not a page for people, or None when it is one."""
    parts = urlsplit(uri)
    if parts.scheme != "https":
        return "not https"
    if parts.hostname in API_HOSTS:
        return f"API host {parts.hostname}"
    if API_PATH.search(parts.path):
        return "an API path"
    return None
