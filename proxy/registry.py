"""Load and validate registry.json into a frozen model.

Free of aiohttp and mkdocs imports: the server, the site hooks and the tests all load the registry
through `load_registry`. Every problem is reported as `<json path>: <rule>`; all problems are
collected before raising, so a maintainer fixes a broken file in one go.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import MappingProxyType
from typing import Any
from urllib.parse import urlsplit

import jsonschema

from proxy.errors import RegistryError
from proxy.hostmatch import matches

__all__ = [
    "AGGREGATE_NAME_MAX",
    "META_TOOL_NAMES",
    "SCHEMA_PATH",
    "Attribution",
    "Connector",
    "DomainPolicy",
    "Limits",
    "LoadStatusSettings",
    "Platform",
    "Registry",
    "ServerSettings",
    "Text",
    "Timeouts",
    "ToolWords",
    "decode_json",
    "load_registry",
    "parse_registry",
]

SCHEMA_PATH = Path(__file__).resolve().parent.parent / "registry.schema.json"
META_TOOL_NAMES: tuple[str, ...] = ("list_capabilities", "list_platform_calls", "platform_status")
# Clients prepend `mcp__<server>__` and reject names over 64 characters.
AGGREGATE_NAME_MAX = 48
LANGUAGES: tuple[str, ...] = ("nl", "en")


@dataclass(frozen=True, slots=True)
class Text:
    """A user-facing string in Dutch and English."""

    nl: str
    en: str

    def __getitem__(self, lang: str) -> str:
        if lang not in LANGUAGES:
            raise KeyError(lang)
        return self.nl if lang == "nl" else self.en


@dataclass(frozen=True, slots=True)
class ToolWords:
    """What the registry says of a tool: its name and words; behaviour lives in code."""

    name: str
    title: Text
    description: Text
    question: Text
    params: Mapping[str, Text] = field(default_factory=dict)  # input parameter → what it means


@dataclass(frozen=True, slots=True)
class Limits:
    results_per_call: int
    requests_per_minute: int


@dataclass(frozen=True, slots=True)
class Timeouts:
    connect_seconds: float
    total_seconds: float


@dataclass(frozen=True, slots=True)
class Attribution:
    required: bool
    label: Text
    cite: Text
    license: Text
    url: str


@dataclass(frozen=True, slots=True)
class Platform:
    """One source platform and the settings its adapter runs under."""

    key: str
    title: Text
    description: Text
    coverage: Text
    base_url: str
    prefix: str
    local: bool
    media: tuple[str, ...]
    limits: Limits
    cache_ttl_seconds: int
    timeouts: Timeouts
    max_response_bytes: int
    attribution: Attribution
    user_agent: str = "BesluitBron"  # server.name, version and server.contact (ServerSettings.user_agent)
    notice: Text | None = None  # a change earlier users must know about (the source page shows it)


@dataclass(frozen=True, slots=True)
class Connector:
    """One MCP address. A source connector has a platform and tools; the aggregate has neither."""

    slug: str
    enabled: bool
    in_footer: bool
    title: Text
    description: Text
    platform: str | None
    tools: tuple[ToolWords, ...]

    @property
    def aggregate(self) -> bool:
        return self.platform is None

    @property
    def path(self) -> str:
        return f"/{self.slug}/mcp"


@dataclass(frozen=True, slots=True)
class ServerSettings:
    name: str
    title: Text
    tagline: Text
    instructions: Text
    public_url: str
    allowed_hosts: tuple[str, ...]
    allowed_origins: tuple[str, ...]
    cors_origins: tuple[str, ...]
    max_body_bytes: int
    contact: str = ""  # how a platform's operators reach us; goes into every User-Agent

    @property
    def user_agent(self) -> str:
        """The User-Agent of every platform call: the project's name and version, and its contact address."""
        from proxy import __version__

        return f"{self.name}/{__version__}" + (f" (+{self.contact})" if self.contact else "")


@dataclass(frozen=True, slots=True)
class LoadStatusSettings:
    interval_minutes: int
    stalled_after_days: int


@dataclass(frozen=True, slots=True)
class DomainPolicy:
    """Which document links tools may return: excluded > context URLs > preferred (seed 002)."""

    excluded_domains: tuple[str, ...]
    context_urls: tuple[str, ...]
    preferred_domains: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Registry:
    server: ServerSettings
    load_status: LoadStatusSettings
    domain_policy: DomainPolicy
    meta_tools: Mapping[str, ToolWords]
    platforms: Mapping[str, Platform]
    connectors: tuple[Connector, ...]
    source: str = field(default="", compare=False)

    def enabled_connectors(self) -> tuple[Connector, ...]:
        return tuple(c for c in self.connectors if c.enabled)

    def connector(self, slug: str) -> Connector:
        for c in self.connectors:
            if c.slug == slug:
                return c
        raise KeyError(slug)

    def with_base_urls(self, base_urls: Mapping[str, str]) -> Registry:
        """A copy whose platforms call other base URLs (the replicas, in tests and `make run`)."""
        platforms = {k: replace(p, base_url=base_urls.get(k, p.base_url)) for k, p in self.platforms.items()}
        return replace(self, platforms=MappingProxyType(platforms))


# --------------------------------------------------------------------------- loading


def load_registry(path: str | Path) -> Registry:
    """Read and validate a registry file; raises RegistryError naming every problem."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise RegistryError([f"{path}: cannot be read ({exc.strerror or exc})"]) from exc
    except UnicodeDecodeError as exc:
        raise RegistryError([f"(file): not UTF-8 at byte {exc.start}; save the file as UTF-8"]) from exc
    return parse_registry(decode_json(text), source=str(path))


def decode_json(text: str) -> Any:
    """Strict JSON: no NaN or Infinity (they would pass every numeric bound), errors named by position."""
    try:
        return json.loads(text, parse_constant=_refuse_constant)
    except json.JSONDecodeError as exc:
        raise RegistryError([f"(file): not valid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"]) from exc
    except ValueError as exc:
        raise RegistryError([f"(file): {exc}"]) from exc
    except RecursionError as exc:
        raise RegistryError(["(file): nested too deeply to be a registry"]) from exc


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number JSON allows; write a finite number")


def parse_registry(data: Any, *, source: str = "") -> Registry:
    """Validate decoded registry JSON (schema, then cross-references) into a frozen Registry."""
    problems = [f"{_path(e.absolute_path)}: {e.message}" for e in _validator().iter_errors(data)]
    if problems:
        raise RegistryError(sorted(problems))
    problems = list(_check_rules(data))
    if problems:
        raise RegistryError(problems)
    return _build(data, source)


def _validator() -> jsonschema.Draft202012Validator:
    global _VALIDATOR
    if _VALIDATOR is None:
        schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
        _VALIDATOR = jsonschema.Draft202012Validator(schema)
    return _VALIDATOR


_VALIDATOR: jsonschema.Draft202012Validator | None = None


def _path(parts: Any) -> str:
    out = ""
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(root)"


def _check_rules(data: Mapping[str, Any]) -> Iterator[str]:
    """The rules JSON Schema cannot say: uniqueness, references, name lengths, reserved names."""
    platforms: Mapping[str, Any] = data["platforms"]
    connectors: list[Mapping[str, Any]] = data["connectors"]

    seen_prefix: dict[str, str] = {}
    for key, p in platforms.items():
        where = f"platforms.{key}"
        if p["prefix"] in seen_prefix:
            yield f"{where}.prefix: '{p['prefix']}' is already the prefix of platform '{seen_prefix[p['prefix']]}'"
        seen_prefix.setdefault(p["prefix"], key)
        if p["timeouts"]["connect_seconds"] > p["timeouts"]["total_seconds"]:
            yield f"{where}.timeouts.connect_seconds: must not exceed total_seconds ({p['timeouts']['total_seconds']})"
        if p["local"] and "media" not in p:
            yield f"{where}.media: a local source must list its media"
        if not p["local"] and "media" in p:
            yield f"{where}.media: only local sources have media"

    seen_slug: dict[str, int] = {}
    served_by: dict[str, int] = {}
    aggregates: list[int] = []
    for i, c in enumerate(connectors):
        where = f"connectors[{i}]"
        if c["slug"] in seen_slug:
            yield f"{where}.slug: '{c['slug']}' is already used by connectors[{seen_slug[c['slug']]}]"
        seen_slug.setdefault(c["slug"], i)
        if c.get("aggregate"):
            aggregates.append(i)
            for forbidden in ("platform", "tools"):
                if forbidden in c:
                    yield (f"{where}.{forbidden}: the aggregate connector serves other connectors' tools "
                           f"and takes no {forbidden}")
            continue
        if "platform" not in c or "tools" not in c:
            yield f"{where}: a source connector needs 'platform' and 'tools' (or 'aggregate': true)"
            continue
        key = c["platform"]
        if key not in platforms:
            yield f"{where}.platform: '{key}' is not a platform in platforms ({', '.join(sorted(platforms))})"
            continue
        if key in served_by:
            yield (f"{where}.platform: '{key}' is already served by connectors[{served_by[key]}]; "
                   "one connector per platform")
        served_by.setdefault(key, i)
        prefix = platforms[key]["prefix"]
        names: dict[str, int] = {}
        for j, tool in enumerate(c["tools"]):
            twhere = f"{where}.tools[{j}].name"
            name = tool["name"]
            if name in META_TOOL_NAMES:
                yield f"{twhere}: '{name}' is a reserved meta-tool name"
            if name in names:
                yield f"{twhere}: '{name}' is already tools[{names[name]}] of this connector"
            names.setdefault(name, j)
            if len(f"{prefix}_{name}") > AGGREGATE_NAME_MAX:
                yield (f"{twhere}: '{prefix}_{name}' (the name on the aggregate connector) is longer than "
                       f"{AGGREGATE_NAME_MAX} characters")

    server = data["server"]
    host = urlsplit(server["public_url"]).netloc
    if not matches(host, tuple(server["allowed_hosts"])):
        yield (f"server.allowed_hosts: does not admit '{host}', the host of public_url; every published "
               "address would answer 421")
    if not matches(server["public_url"], tuple(server["allowed_origins"]) + tuple(server["cors_origins"])):
        yield (f"server.allowed_origins: does not admit '{server['public_url']}', the origin of public_url; "
               "the site's own explorer would get 403")

    if len(aggregates) != 1:
        found = ", ".join(f"connectors[{i}]" for i in aggregates) or "none"
        yield f"connectors: exactly one connector must have 'aggregate': true (found {found})"
    for key in platforms:
        if key not in served_by:
            yield f"platforms.{key}: no connector serves this platform"


def _text(d: Mapping[str, str]) -> Text:
    return Text(nl=d["nl"], en=d["en"])


def _words(name: str, d: Mapping[str, Any]) -> ToolWords:
    return ToolWords(name=name, title=_text(d["title"]), description=_text(d["description"]),
                     question=_text(d["question"]),
                     params=MappingProxyType({k: _text(v) for k, v in d.get("params", {}).items()}))


def _build(data: Mapping[str, Any], source: str) -> Registry:
    s = data["server"]
    server = ServerSettings(
        name=s["name"], title=_text(s["title"]), tagline=_text(s["tagline"]),
        instructions=_text(s["instructions"]), public_url=s["public_url"],
        allowed_hosts=tuple(s["allowed_hosts"]), allowed_origins=tuple(s["allowed_origins"]),
        cors_origins=tuple(s["cors_origins"]), max_body_bytes=int(s["max_body_bytes"]),
        contact=s.get("contact", ""),
    )
    platforms = {
        key: Platform(
            key=key, title=_text(p["title"]), description=_text(p["description"]), coverage=_text(p["coverage"]),
            base_url=p["base_url"], prefix=p["prefix"], local=p["local"], media=tuple(p.get("media", ())),
            limits=Limits(results_per_call=int(p["limits"]["results_per_call"]),
                          requests_per_minute=int(p["limits"]["requests_per_minute"])),
            cache_ttl_seconds=int(p["cache_ttl_seconds"]),
            timeouts=Timeouts(**p["timeouts"]), max_response_bytes=int(p["max_response_bytes"]),
            attribution=Attribution(
                required=p["attribution"]["required"], label=_text(p["attribution"]["label"]),
                cite=_text(p["attribution"]["cite"]), license=_text(p["attribution"]["license"]),
                url=p["attribution"]["url"],
            ),
            user_agent=server.user_agent,
            notice=_text(p["notice"]) if "notice" in p else None,
        )
        for key, p in data["platforms"].items()
    }
    connectors = tuple(
        Connector(
            slug=c["slug"], enabled=c["enabled"], in_footer=c["in_footer"], title=_text(c["title"]),
            description=_text(c["description"]), platform=c.get("platform"),
            tools=tuple(_words(t["name"], t) for t in c.get("tools", ())),
        )
        for c in data["connectors"]
    )
    dp = data["domain_policy"]
    return Registry(
        server=server,
        load_status=LoadStatusSettings(interval_minutes=int(data["load_status"]["interval_minutes"]),
                                       stalled_after_days=int(data["load_status"]["stalled_after_days"])),
        domain_policy=DomainPolicy(excluded_domains=tuple(dp["excluded_domains"]),
                                   context_urls=tuple(dp["context_urls"]),
                                   preferred_domains=tuple(dp["preferred_domains"])),
        meta_tools=MappingProxyType({n: _words(n, w) for n, w in data["meta_tools"].items()}),
        platforms=MappingProxyType(platforms),
        connectors=connectors,
        source=source,
    )
