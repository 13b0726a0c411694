"""The domain policy for returned documents (seed 002): excluded > context URLs > preferred.

* excluded domains: hits whose link lies on such a domain (or a subdomain) are withheld, and a
  document on one is not returned at all; this wins over everything else;
* context URLs: the maintainers' own reference pages, offered in `list_capabilities` unless their
  domain is excluded;
* preferred domains: hits on them are listed first, keeping the platform's order otherwise.

Pure functions: the endpoint applies them to every result before it leaves the server.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from proxy.core.errors import ToolInputError
from proxy.registry.model import DomainPolicy

__all__ = ["apply_policy", "context_urls", "on_domain"]


def on_domain(uri: str, domains: tuple[str, ...]) -> bool:
    """Whether `uri`'s host is one of `domains` or a subdomain of one (`www.` is ignored)."""
    host = (urlsplit(uri).hostname or "").lower().removeprefix("www.")
    return any(host == d.removeprefix("www.") or host.endswith("." + d.removeprefix("www.")) for d in domains)


def context_urls(policy: DomainPolicy) -> list[str]:
    return [u for u in policy.context_urls if not on_domain(u, policy.excluded_domains)]


def apply_policy(data: dict[str, Any], policy: DomainPolicy) -> dict[str, Any]:
    """Filter and order a tool result by the policy; refuse a document on an excluded domain.

    A document is any object with a `citation`, at the top or one level down (`{"document": {...}}`);
    lists of cited objects are filtered and ordered, and a `results` list keeps `precision` truthful.
    """
    if not policy.excluded_domains and not policy.preferred_domains:
        return data
    if _excluded(data, policy) or any(isinstance(v, dict) and _excluded(v, policy) for v in data.values()):
        raise ToolInputError("this document lies on a domain this installation excludes (domain policy); "
                             "it is not returned")
    out = dict(data)
    for key, value in data.items():
        if isinstance(value, list) and any(isinstance(item, dict) and "citation" in item for item in value):
            kept = [item for item in value if not _excluded(item, policy)]
            kept.sort(key=lambda item: not on_domain(_uri(item), policy.preferred_domains))  # stable
            out[key] = kept
            withheld = len(value) - len(kept)
            if withheld and key == "results" and isinstance(data.get("precision"), dict):
                precision = dict(data["precision"])
                precision["returned"] = len(kept)
                precision["not_applied"] = [*precision.get("not_applied", []),
                                            f"{withheld} result(s) withheld: their domain is excluded by the "
                                            "domain policy"]
                out["precision"] = precision
    return out


def _excluded(item: Any, policy: DomainPolicy) -> bool:
    return isinstance(item, dict) and isinstance(item.get("citation"), dict) and \
        on_domain(_uri(item), policy.excluded_domains)


def _uri(hit: Any) -> str:
    return str(hit.get("citation", {}).get("uri", "")) if isinstance(hit, dict) else ""
