"""Response headers a public service sends: no software versions in `Server`, and on the site's pages the
browser protections (no sniffing, no framing, no referrer to other sites, a content policy for this origin).

The policy allows inline scripts and styles because Material for MkDocs writes its configuration and palette
inline; everything else (scripts, styles, fonts, images, calls from the explorer and Laadstatus) comes from this
origin only.
"""

from __future__ import annotations

from collections.abc import Mapping

from aiohttp import web_response

__all__ = ["SERVER", "SITE_HEADERS"]

SERVER = "BesluitBron"
# aiohttp writes `Server: Python/3.x aiohttp/3.y` on every response a handler leaves it to (`_prepare_headers`), the
# answers its parser gives itself (a malformed request's 400) included: the default is replaced at the source, once,
# rather than by a signal on every response. tests/test_observe.py asks the site, the API and /metrics.
web_response.SERVER_SOFTWARE = SERVER  # type: ignore[attr-defined]  # a module global, not in its __all__
SITE_HEADERS: Mapping[str, str] = {
    "Content-Security-Policy": "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' "
                               "'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; "
                               "object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "strict-origin-when-cross-origin",
    "X-Frame-Options": "DENY",
}

