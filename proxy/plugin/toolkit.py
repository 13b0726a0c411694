"""What a platform module provides: one `PlatformPlugin`.

A platform module `proxy/platforms/<key>.py` (named exactly as the registry's platform key) exports
`PLATFORM = PlatformPlugin(key=..., tools=..., measure_load=..., about=...)`:

* `tools`: behaviour and schemas of its tools (words live in registry.json);
* `measure_load(ctx) -> LoadReport`: the Laadstatus measurement;
* `about`: facts about the upstream for maintainers and the site.

The catalog alone imports and checks it (`proxy.catalog.build.load_plugins`).

Handlers receive a `ToolCall`, call the platform through `ctx.upstream` and return a dict that
validates against the tool's output schema. They raise `ToolInputError` for arguments that cannot
be used and let `UpstreamError`s propagate; the dispatcher turns both into `isError` results.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from proxy.core.clock import dutch_today, is_stalled, utc_now
from proxy.core.shapes import JsonDict

if TYPE_CHECKING:
    from proxy.core.caller import Caller
    from proxy.plugin.upstream import Upstream
    from proxy.registry.model import Platform, Registry

__all__ = ["About", "LoadReport", "OrganLoad", "PlatformContext", "PlatformPlugin", "ToolCall", "ToolImpl", "as_json"]

T = TypeVar("T")


def as_json(body: bytes) -> Any:
    """The parser for a JSON reply (`ctx.upstream.get(path, as_json)`)."""
    return json.loads(body)


@dataclass(frozen=True, slots=True)
class PlatformContext:
    """What a platform module may use: its settings, its upstream client and the clock."""

    platform: Platform
    upstream: Upstream
    now: Callable[[], datetime]
    stalled_after_days: int = 60  # the registry's load_status setting: an organ older than this stands still
    # Answering from the offline sample, recorded on this day: how current anything is, is measured against
    # the recording, never against the clock (a sample ages, the platform does not).
    sample_on: date | None = None

    @classmethod
    def of(cls, registry: Registry, key: str, upstream: Upstream,
           now: Callable[[], datetime] = utc_now) -> PlatformContext:
        """The one way to a platform's context: its entry and the load-status rule from the registry."""
        return cls(platform=registry.platforms[key], upstream=upstream, now=now,
                   stalled_after_days=registry.load_status.stalled_after_days)

    def today(self) -> date:
        """Today in the Netherlands, by this context's clock (the real one asks without making a datetime)."""
        return dutch_today(None if self.now is utc_now else self.now())

    def as_of(self) -> date:
        """The day freshness is measured against: the sample's recording day, else today."""
        return self.sample_on or self.today()

    def is_stalled(self, newest: date | None) -> bool:
        """The installation's one rule for a source or organ that stands still (against `as_of`)."""
        return is_stalled(newest, self.as_of(), self.stalled_after_days)

    def on_recording_day(self) -> PlatformContext:
        """This context with its clock at the sample's recording day (noon UTC), for measuring a sample."""
        if self.sample_on is None:
            return self
        noon = datetime.combine(self.sample_on, time(12), UTC)
        return dataclasses.replace(self, now=lambda: noon)

    def cite_label(self, lang: str = "nl") -> str:
        """The citation label from the platform's attribution settings."""
        return self.platform.attribution.label[lang]


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One tool invocation: validated arguments plus the caller whose call log it feeds."""

    tool: str
    arguments: Mapping[str, Any]
    caller: Caller
    ctx: PlatformContext

    async def get(self, path: str, parse: Callable[[bytes], T], *, params: Any = None,
                  headers: Mapping[str, str] | None = None) -> T:
        """GET from this tool's platform, recorded under this caller."""
        return await self.ctx.upstream.get(path, parse, params=params, headers=headers, caller=self.caller,
                                           tool=self.tool)

    async def post_json(self, path: str, payload: Any, parse: Callable[[bytes], T], *, idempotent: bool = False) -> T:
        """POST JSON to this tool's platform, recorded under this caller."""
        return await self.ctx.upstream.post_json(path, payload, parse, caller=self.caller, tool=self.tool,
                                                 idempotent=idempotent)


Handler = Callable[[ToolCall], Awaitable[JsonDict]]


@dataclass(frozen=True, slots=True)
class ToolImpl:
    """Behaviour of one tool. `name` must match a registry tool of the same platform."""

    name: str
    input_schema: Mapping[str, Any]
    output_schema: Mapping[str, Any]
    handler: Handler
    open_world: bool = True
    # Arguments that work against the replicas: used by the tests that walk every tool, and by the site.
    example: Mapping[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class OrganLoad:
    """Newest material of one organ (a council, a publishing body) of a local source."""

    organ: str
    name: str
    current_through: date | None
    medium: str | None = None


@dataclass(frozen=True, slots=True)
class LoadReport:
    """Result of one Laadstatus measurement of one platform.

    `current_through` is the newest material date (per medium where `per_medium` is filled);
    `organs` is filled for the two local sources only.
    """

    current_through: date | None
    organs: tuple[OrganLoad, ...] = ()
    per_medium: Mapping[str, date | None] = field(default_factory=dict)
    note: str | None = None
    dated: bool = True  # False: the source cannot say how current it is (a remote server); receiving is unknown


@dataclass(frozen=True, slots=True)
class About:
    """Facts about an upstream platform that a maintainer and the site need."""

    documentation: str  # where the platform documents its API (the licence of its data is the registry's attribution)
    # The hosts it calls besides its registry base_url's (a search elsewhere, the texts a record links to), over
    # https: what an IT department opens outbound (the page "Voor organisaties" lists them).
    hosts: tuple[str, ...] = ()
    cannot: tuple[str, ...] = ()  # what the platform cannot do (so nobody builds a tool expecting it)
    quirks: tuple[str, ...] = ()  # known surprises in its answers
    # The same lines in Dutch, in the same order, for the Dutch site; a remote server's come in its one language.
    cannot_nl: tuple[str, ...] = ()
    quirks_nl: tuple[str, ...] = ()
    # The words people search this source's tools with, (Dutch, English): a client that finds tools by topic
    # finds these in a tool's name, title or description (proxy.catalog.assistants checks it).
    search_words: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())

    def lines(self, kind: Literal["cannot", "quirks"], lang: str) -> tuple[tuple[str, str], ...]:
        """(line, its language) of `cannot` or `quirks` for a page in `lang`: the Dutch lines where the plug-in
        has them all, else the English ones (a page marks them as English)."""
        english: tuple[str, ...] = getattr(self, kind)
        dutch: tuple[str, ...] = getattr(self, f"{kind}_nl")
        if lang == "nl" and len(dutch) == len(english):
            return tuple((line, "nl") for line in dutch)
        return tuple((line, "en") for line in english)


@dataclass(frozen=True, slots=True)
class SourceRoute:
    """How `search` and `fetch` (proxy.serving.crosssearch) reach a source: its tools, the arguments they take, the form
    of its ids. A platform without one is left out of both."""

    search: str | None  # the tool that searches free text; None: the source cannot
    words: str  # its free-text argument
    native_id: str  # the result field holding the id its read tool takes
    reads: tuple[tuple[re.Pattern[str], str, str], ...]  # (id form, read tool, its id argument)
    id_form: str  # how its ids look, for an error
    organisation: bool = False  # its search takes an organisation
    period: bool = True  # its search takes date_from / date_to
    why_not: str = ""  # why it cannot search free text


MeasureLoad = Callable[[PlatformContext], Awaitable[LoadReport]]
# (probe, plugin): the probe is proxy.plugin.canary's Probe (named loosely here: canary builds on this module).
Canary = Callable[[Any, "PlatformPlugin"], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class PlatformPlugin:
    """Everything a platform module contributes; `key` is the registry's platform key."""

    key: str
    tools: tuple[ToolImpl, ...]
    measure_load: MeasureLoad
    about: About
    # The live contract check (`python -m proxy check-live`): a few small requests to the real platform, each
    # answer checked against what the adapter relies on (proxy.plugin.canary). None: reported as skipped.
    canary: Canary | None = None
    search_route: SourceRoute | None = None  # how search and fetch reach it (proxy.serving.crosssearch)

    def tool(self, name: str) -> ToolImpl | None:
        return next((t for t in self.tools if t.name == name), None)
