"""One exception tree for BesluitBron; every failure a caller may treat differently has its own class."""

from __future__ import annotations

__all__ = [
    "BesluitBronError",
    "CatalogError",
    "NotHeld",
    "RegistryError",
    "RemoteRefused",
    "ToolInputError",
    "UnknownToolError",
    "UpstreamBadReply",
    "UpstreamError",
    "UpstreamRateLimited",
    "UpstreamStatusError",
    "UpstreamTimeout",
    "UpstreamTooLarge",
    "UpstreamUnreachable",
    "clipped",
]


class BesluitBronError(Exception):
    """Base of every error this project raises on purpose."""


class RegistryError(BesluitBronError):
    """registry.json is invalid; `problems` lists every `path: message` found."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__("registry is invalid:\n  " + "\n  ".join(problems))


class CatalogError(BesluitBronError):
    """The registry and the code disagree (a tool without implementation, a name collision)."""


class ToolInputError(BesluitBronError):
    """The arguments of a tool call cannot be used; the message says what to change."""


class NotHeld(ToolInputError):
    """The source answered that it holds no such record (a law, article, ruling, publication, member).

    Said of the platform when the platform answered; an installation answering from its offline sample says it
    of the sample instead (`proxy.results.sample.SampleData.not_held`): a gap of the sample is no fact about the
    platform. `what` names the record ("regulation BWBR0005537"), `url` is where a person finds the real one,
    `cause` why the platform lacks it (said of the live platform only), `advice` what to try next, and
    `sample_advice` what to try when the sample answered (default: `advice`).
    """

    def __init__(self, source: str, what: str, *, url: str | None = None, cause: str = "", advice: str = "",
                 sample_advice: str | None = None) -> None:
        self.source = source
        self.what = what
        self.url = url
        self.cause = cause
        self.advice = advice
        self.sample_advice = advice if sample_advice is None else sample_advice
        super().__init__(f"{source} has no {what}" + "".join(f"; {part}" for part in (cause, advice) if part))


class UpstreamError(BesluitBronError):
    """A source platform call failed. `platform` names the source; the message is for a person."""

    def __init__(self, platform: str, message: str) -> None:
        self.platform = platform
        super().__init__(message)


class UpstreamUnreachable(UpstreamError):
    """The platform could not be reached (connection refused, DNS, reset)."""


class UpstreamTimeout(UpstreamError):
    """The platform did not answer within the configured timeout."""


class UpstreamStatusError(UpstreamError):
    """The platform answered with an HTTP error status."""

    def __init__(self, platform: str, message: str, *, status: int, body: bytes = b"") -> None:
        self.status = status
        self.body = body  # what the platform said, for an adapter that maps its error codes to arguments
        super().__init__(platform, message)


class UpstreamRateLimited(UpstreamError):
    """Our own per-platform rate limit (from the registry) or the platform's 429."""

    def __init__(self, platform: str, message: str, *, retry_after: float, status: int | None = None) -> None:
        self.retry_after = retry_after
        self.status = status  # 429 when the platform said so; None for our own limit (nothing was sent)
        super().__init__(platform, message)


class UpstreamTooLarge(UpstreamError):
    """The answer exceeded the configured response-size cap."""


class UpstreamBadReply(UpstreamError):
    """The answer could not be parsed, or said it failed (an SRU diagnostic in an HTTP 200)."""


class UnknownToolError(BesluitBronError):
    """`Endpoint.call_tool` was asked for a tool this endpoint does not have."""

    def __init__(self, name: str) -> None:
        self.name = name
        super().__init__(f"Unknown tool: {clipped(name, TOOL_NAME_SHOWN)}")


class RemoteRefused(UpstreamError):
    """The remote server answered, but refused the call (a JSON-RPC error); the server is there."""


# Tool names are at most 64 characters (`proxy.core.toolnames`): a longer one is not a tool, and is shown cut.
TOOL_NAME_SHOWN = 64
QUOTE_MAX = 200


def clipped(text: str, limit: int = QUOTE_MAX) -> str:
    """A value a client sent, cut to `limit` characters when longer, saying how long it was: an answer, a log
    line or a span never echoes a megabyte back."""
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text):,} characters)"
