"""Load and validate registry.json into a frozen model.

Free of aiohttp and mkdocs imports: the server, the site hooks and the tests all load the registry
through `load_registry`. Every problem is reported as `<json path>: <rule>`; all problems are
collected before raising, so a maintainer fixes a broken file in one go.
"""

from __future__ import annotations

import datetime
import functools
import hmac
import ipaddress
import json
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import MappingProxyType
from typing import Any
from urllib.parse import urlsplit

import jsonschema

from proxy.core.errors import RegistryError
from proxy.core.hostmatch import matches
from proxy.core.netguard import AddressPolicy, AddressRefused, IPNetwork, in_networks, parse_networks
from proxy.core.schemacheck import SchemaCheck
from proxy.core.toolnames import name_problem

__all__ = [
    "ACCESSIBILITY_STATUSES",
    "LEGAL_BASES",
    "OPERATOR_KINDS",
    "SCHEMA_PATH",
    "Accessibility",
    "Attribution",
    "Connector",
    "Contact",
    "DomainPolicy",
    "Hosting",
    "Limits",
    "LoadStatusSettings",
    "MetricsAccess",
    "Operator",
    "Platform",
    "Privacy",
    "Processor",
    "Registry",
    "RemoteAuth",
    "RemoteSettings",
    "RemoteTool",
    "ServerSettings",
    "Text",
    "Timeouts",
    "ToolWords",
    "decode_json",
    "load_registry",
    "parse_registry",
]

SCHEMA_PATH = Path(__file__).resolve().parents[2] / "registry.schema.json"
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
class RemoteAuth:
    """How to authenticate to a remote MCP server: the environment variable is named, never its value."""

    scheme: str  # none | bearer | header
    env: str | None = None
    header: str | None = None


@dataclass(frozen=True, slots=True)
class RemoteTool:
    """An allow-listed remote tool and the registry's own words for it (None: the server's words)."""

    name: str
    title: Text | None = None
    description: Text | None = None
    question: Text | None = None


@dataclass(frozen=True, slots=True)
class RemoteSettings:
    """A third-party MCP server behind a remote connector."""

    url: str
    tools: tuple[RemoteTool, ...]
    auth: RemoteAuth


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
    remote: RemoteSettings | None = None  # a third-party MCP server instead of a platform module
    updated: str | None = None  # YYYY-MM-DD: the sitemap lastmod of the platform's page


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
    remote: bool = False  # its platform is a third-party MCP server (key = slug), its tools come from there
    updated: str | None = None  # YYYY-MM-DD: the sitemap lastmod of the connection page
    keywords: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # lang → words readers search by

    @property
    def aggregate(self) -> bool:
        return self.platform is None

    @property
    def path(self) -> str:
        return f"/{self.slug}/mcp"


@dataclass(frozen=True, slots=True)
class Contact:
    """A name to address, an e-mail address and an optional web page (the operator, fault reports, the DPO)."""

    name: Text
    email: str
    url: str | None = None


@dataclass(frozen=True, slots=True)
class Processor:
    """Who processes data for the operator (a verwerker under the GDPR): a hosting company, a supplier."""

    name: str
    role: Text
    location: Text
    url: str | None = None


@dataclass(frozen=True, slots=True)
class Hosting:
    """Where the installation runs and who processes data for the operator (server.operator.hosting)."""

    location: Text
    processors: tuple[Processor, ...]


@dataclass(frozen=True, slots=True)
class Privacy:
    """What only the operator can say on the privacy page; retention periods come from the code."""

    server_log: Text


# The kinds of operator, the GDPR grounds and the accessibility statuses the registry may name (registry.schema.json).
OPERATOR_KINDS: tuple[str, ...] = ("public_body", "organisation", "person")
LEGAL_BASES: tuple[str, ...] = ("public_task", "legitimate_interest", "own_use")
ACCESSIBILITY_STATUSES: tuple[str, ...] = ("A", "B", "C", "D", "E")
_THIS_COMPUTER = frozenset({"localhost", "127.0.0.1", "::1"})  # a public_url here serves no one else
# The ground that fits each kind of operator: a public body has a public task (art. 6(1)(e) GDPR), another
# organisation a legitimate interest (6(1)(f)), one person running it for themselves is outside the GDPR (2(2)(c)).
_BASIS_OF_KIND: Mapping[str, str] = MappingProxyType({
    "public_body": "public_task", "organisation": "legitimate_interest", "person": "own_use",
})


@dataclass(frozen=True, slots=True)
class Accessibility:
    """The facts of the accessibility statement (the Dutch model, toegankelijkheidsverklaring.nl)."""

    status: str  # A fully compliant .. E no statement
    checked: str  # YYYY-MM-DD: the last check
    report_url: str | None = None
    register_url: str | None = None


@dataclass(frozen=True, slots=True)
class Operator:
    """Who runs this installation: the one source of the Over, Privacy and Toegankelijkheid pages and the footer."""

    name: Text
    kind: str  # one of OPERATOR_KINDS
    about: Text
    contact: Contact
    code_license: str  # SPDX id or expression; NOASSERTION: none stated
    data_license: str
    legal_basis: str  # one of LEGAL_BASES
    accessibility: Accessibility
    controller_name: Text  # the controller under the GDPR: the operator unless the registry names another
    controller_email: str | None  # None: one person for their own use, who needs no address to reach themselves
    address: Text | None = None
    source_url: str | None = None
    dpo: Contact | None = None
    hosting: Hosting | None = None  # required for a public installation (_check_operator)


@dataclass(frozen=True, slots=True)
class MetricsAccess:
    """Who may read /metrics (`server.metrics`): clients in `networks`, or any client sending the token held in the
    environment variable `token_env`."""

    networks: tuple[IPNetwork, ...]
    token_env: str | None

    def admits(self, client: str, authorization: str | None) -> bool:
        try:
            ip = ipaddress.ip_address(client.split("%", 1)[0])
        except ValueError:
            ip = None
        if ip is not None and in_networks(ip, self.networks):
            return True
        token = os.environ.get(self.token_env, "") if self.token_env else ""
        scheme, _, sent = (authorization or "").partition(" ")
        return bool(token) and scheme == "Bearer" and hmac.compare_digest(sent.encode(), token.encode())


LOOPBACK_NETWORKS: tuple[IPNetwork, ...] = parse_networks(("127.0.0.0/8", "::1/128"))


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
    namespace: str
    fault_contact: Contact  # server.fault_contact, else the operator's contact
    privacy: Privacy
    operator: Operator
    contact: str = ""  # how a platform's operators reach us; goes into every User-Agent
    remote_allow_networks: tuple[str, ...] = ()
    metrics: MetricsAccess = field(default_factory=lambda: MetricsAccess(LOOPBACK_NETWORKS, None))

    @property
    def user_agent(self) -> str:
        """The User-Agent of every platform call: the project's name and version, and its contact address."""
        from proxy import __version__

        return f"{self.name}/{__version__}" + (f" (+{self.contact})" if self.contact else "")

    @property
    def version(self) -> str:
        """The software version, as `initialize` reports it (the installed package's)."""
        from proxy import __version__

        return __version__

    def address_policy(self) -> AddressPolicy:
        """The address rules for remote connectors, with this registry's exceptions."""
        return AddressPolicy(allow=parse_networks(self.remote_allow_networks))


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
    """Validate decoded registry JSON (schema, then cross-references) into a frozen Registry.

    The compiled check answers first (a 500-platform registry: about 0.1 s instead of 1.7 s, which the
    site build and every reload pay); only a registry it refuses is walked by jsonschema, which names
    every problem and has the last word."""
    if _check().problems(data, limit=1):
        problems = [f"{_path(e.absolute_path)}: {e.message}" for e in _validator().iter_errors(data)]
        if problems:
            raise RegistryError(sorted(problems) + list(_migration_hints(data)))
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


@functools.cache
def _check() -> SchemaCheck:
    return SchemaCheck(json.loads(SCHEMA_PATH.read_text(encoding="utf-8")))


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

    server = data["server"]
    yield from _check_operator(server)
    policy: AddressPolicy | None = None
    try:
        policy = AddressPolicy(allow=parse_networks(server.get("remote_allow_networks", ())))
    except ValueError as exc:
        yield f"server.remote_allow_networks: {exc}; write CIDR networks such as 127.0.0.1/32"
    try:
        parse_networks(server.get("metrics", {}).get("allow_networks", ()))
    except ValueError as exc:
        yield f"server.metrics.allow_networks: {exc}; write CIDR networks such as 10.0.0.0/8"

    seen_slug: dict[str, int] = {}
    served_by: dict[str, int] = {}
    aggregates: list[int] = []
    for i, c in enumerate(connectors):
        where = f"connectors[{i}]"
        if c["slug"] in seen_slug:
            yield f"{where}.slug: '{c['slug']}' is already used by connectors[{seen_slug[c['slug']]}]"
        seen_slug.setdefault(c["slug"], i)
        if "remote" in c:
            yield from _check_remote(where, c, platforms, seen_prefix, policy)
            continue
        if "prefix" in c:
            yield f"{where}.prefix: only a remote connector sets its prefix here; a platform's is under platforms"
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
            if problem := name_problem(name, prefix):
                yield f"{twhere}: {problem}"
            if name in names:
                yield f"{twhere}: '{name}' is already tools[{names[name]}] of this connector"
            names.setdefault(name, j)

    host = urlsplit(server["public_url"]).netloc
    if not matches(host, hosts_for(server)):
        yield (f"server.allowed_hosts: does not admit '{host}', the host of public_url; every published "
               "address would answer 421")
    if not matches(server["public_url"], origins_for(server) + tuple(server["cors_origins"])):
        yield (f"server.allowed_origins: does not admit '{server['public_url']}', the origin of public_url; "
               "the site's own explorer would get 403")

    if len(aggregates) != 1:
        found = ", ".join(f"connectors[{i}]" for i in aggregates) or "none"
        yield f"connectors: exactly one connector must have 'aggregate': true (found {found})"
    for key in platforms:
        if key not in served_by:
            yield f"platforms.{key}: no connector serves this platform"


def _migration_hints(data: Any) -> Iterator[str]:
    """What to move where, for a registry written before server.operator (fault_contact and privacy.operator)."""
    server = data.get("server") if isinstance(data, Mapping) else None
    if not isinstance(server, Mapping) or "operator" in server:
        return
    privacy = server.get("privacy")
    if isinstance(privacy, Mapping) and "operator" in privacy:
        yield ("server.privacy.operator: moved to server.operator.about; server.operator now holds who runs this "
               "installation (name, kind, contact, licences, legal basis, accessibility), see registry.schema.json")
    if "fault_contact" in server:
        yield ("server.fault_contact: server.operator.contact takes its place (keep fault_contact only for a "
               "separate fault-report address)")


def _check_operator(server: Mapping[str, Any]) -> Iterator[str]:
    """The operator facts JSON Schema cannot relate: ground and kind, status and report, a real date."""
    op = server["operator"]
    where = "server.operator"
    expected = _BASIS_OF_KIND[op["kind"]]
    if op["legal_basis"] != expected:
        yield (f"{where}.legal_basis: '{op['legal_basis']}' does not fit kind '{op['kind']}'; "
               f"an operator of that kind processes under '{expected}'")
    access = op["accessibility"]
    try:
        datetime.date.fromisoformat(access["checked"])
    except ValueError:
        yield f"{where}.accessibility.checked: '{access['checked']}' is not a date; write YYYY-MM-DD"
    if access["status"] in ("A", "B") and "report_url" not in access:
        yield (f"{where}.accessibility.report_url: status '{access['status']}' rests on a complete research report; "
               "link it, or choose the status the checks support")
    if access["status"] == "E":
        yield (f"{where}.accessibility.status: 'E' means there is no statement, but this registry makes one; "
               "choose A, B, C or D")
    host = urlsplit(server["public_url"]).hostname or ""
    if "hosting" not in op and server["public_url"].startswith("https://") and host not in _THIS_COMPUTER:
        yield (f"{where}.hosting: a public installation says where it runs and who processes data for it (the "
               "Privacy page shows it); give location and processors (an empty list: nobody but the operator)")


def _check_remote(where: str, c: Mapping[str, Any], platforms: Mapping[str, Any], seen_prefix: dict[str, str],
                  policy: AddressPolicy | None) -> Iterator[str]:
    """A remote connector: its own prefix and a URL the address rules allow; no platform, tools or aggregate."""
    for forbidden in ("platform", "tools", "aggregate"):
        if forbidden in c:
            yield f"{where}.{forbidden}: a remote connector takes its tools from remote.tools and has no {forbidden}"
    slug = c["slug"]
    if slug in platforms:
        yield f"{where}.slug: '{slug}' is also a platform key; a remote connector's slug names its source"
    prefix = c.get("prefix")
    if prefix is None:
        yield f"{where}.prefix: a remote connector needs a prefix for its tools on the aggregate connector"
    elif prefix in seen_prefix:
        yield f"{where}.prefix: '{prefix}' is already the prefix of '{seen_prefix[prefix]}'"
    else:
        seen_prefix[prefix] = slug
    remote = c["remote"]
    if policy is not None:
        try:
            policy.check_url(remote["url"])
        except AddressRefused as exc:
            yield f"{where}.remote.url: {exc}"
    auth = remote["auth"]
    if auth["scheme"] == "none" and ("env" in auth or "header" in auth):
        yield f"{where}.remote.auth: scheme 'none' takes no env or header"
    if auth["scheme"] in ("bearer", "header") and "env" not in auth:
        yield f"{where}.remote.auth.env: scheme '{auth['scheme']}' needs the name of an environment variable"
    if (auth["scheme"] == "header") != ("header" in auth):
        yield f"{where}.remote.auth.header: name the header for scheme 'header' (and only for it)"
    if auth.get("header", "").lower() in ("host", "content-type", "accept", "content-length", "mcp-session-id",
                                          "mcp-protocol-version", "cookie"):
        yield f"{where}.remote.auth.header: '{auth['header']}' is a header the transport sets itself"
    timeouts = remote.get("timeouts")
    if timeouts and timeouts["connect_seconds"] > timeouts["total_seconds"]:
        yield f"{where}.remote.timeouts.connect_seconds: must not exceed total_seconds ({timeouts['total_seconds']})"
    names: dict[str, int] = {}
    for j, tool in enumerate(remote["tools"]):
        name = tool if isinstance(tool, str) else tool["name"]
        twhere = f"{where}.remote.tools[{j}]"
        if problem := name_problem(name, prefix):
            yield f"{twhere}: {problem}"
        if name in names:
            yield f"{twhere}: '{name}' is already remote.tools[{names[name]}]"
        names.setdefault(name, j)


def _text(d: Mapping[str, str]) -> Text:
    return Text(nl=d["nl"], en=d["en"])


def _words(name: str, d: Mapping[str, Any]) -> ToolWords:
    return ToolWords(name=name, title=_text(d["title"]), description=_text(d["description"]),
                     question=_text(d["question"]),
                     params=MappingProxyType({k: _text(v) for k, v in d.get("params", {}).items()}))


# What a remote connector runs under when its entry does not say: modest, like the slowest built-in platform.
REMOTE_DEFAULTS: Mapping[str, Any] = MappingProxyType({
    "limits": {"results_per_call": 50, "requests_per_minute": 60},
    "timeouts": {"connect_seconds": 5, "total_seconds": 30},
    "max_response_bytes": 4 * 1024 * 1024,
})


def _remote_platform(c: Mapping[str, Any], server: ServerSettings) -> Platform:
    """A remote connector as one more platform (key = slug), so every layer serves it like the others."""
    r = c["remote"]
    title, description = _text(c["title"]), _text(c["description"])
    parts = urlsplit(r["url"])
    origin = f"{parts.scheme}://{parts.netloc}"
    if "attribution" in r:
        a = r["attribution"]
        attribution = Attribution(required=a["required"], label=_text(a["label"]), cite=_text(a["cite"]),
                                  license=_text(a["license"]), url=a["url"])
    else:
        attribution = Attribution(
            required=True,
            label=Text(nl=f"Bron: {title.nl} (externe MCP-server)", en=f"Source: {title.en} (external MCP server)"),
            cite=Text(nl=f"Noem {title.nl} als bron, met de links uit het antwoord.",
                      en=f"Name {title.en} as the source, with the links from the answer."),
            license=Text(nl="De voorwaarden van de aanbieder van deze server",
                         en="The terms of this server's operator"),
            url=origin,
        )
    limits = r.get("limits", REMOTE_DEFAULTS["limits"])
    auth = r["auth"]
    return Platform(
        key=c["slug"], title=title, description=description,
        coverage=_text(r["coverage"]) if "coverage" in r else description,
        base_url=r["url"], prefix=c.get("prefix", ""), local=False, media=(),
        limits=Limits(results_per_call=int(limits["results_per_call"]),
                      requests_per_minute=int(limits["requests_per_minute"])),
        cache_ttl_seconds=0,  # a third party's answers are passed on as they come, never from our cache
        timeouts=Timeouts(**r.get("timeouts", REMOTE_DEFAULTS["timeouts"])),
        max_response_bytes=int(r.get("max_response_bytes", REMOTE_DEFAULTS["max_response_bytes"])),
        attribution=attribution,
        user_agent=server.user_agent,
        remote=RemoteSettings(
            url=r["url"],
            tools=tuple(RemoteTool(name=t) if isinstance(t, str) else RemoteTool(
                name=t["name"], title=_text(t["title"]) if "title" in t else None,
                description=_text(t["description"]) if "description" in t else None,
                question=_text(t["question"]) if "question" in t else None) for t in r["tools"]),
            auth=RemoteAuth(scheme=auth["scheme"], env=auth.get("env"), header=auth.get("header")),
        ),
    )


def hosts_for(server: Mapping[str, Any]) -> tuple[str, ...]:
    """`server.allowed_hosts`, or when it is left out what `public_url` implies: its host with and without a port
    (a proxy on 443 may pass `Host` with or without it), so a registry names its public address once."""
    if "allowed_hosts" in server:
        return tuple(server["allowed_hosts"])
    parts = urlsplit(server["public_url"])
    return tuple(dict.fromkeys([parts.netloc, f"{parts.hostname}:*" if parts.hostname else parts.netloc]))


def origins_for(server: Mapping[str, Any]) -> tuple[str, ...]:
    """`server.allowed_origins`, or when it is left out the origin of `public_url` (the site's own explorer)."""
    if "allowed_origins" in server:
        return tuple(server["allowed_origins"])
    return (server["public_url"].rstrip("/"),)


def _contact(d: Mapping[str, Any]) -> Contact:
    return Contact(name=_text(d["name"]), email=d["email"], url=d.get("url"))


def _operator(d: Mapping[str, Any]) -> Operator:
    access = d["accessibility"]
    controller = d.get("controller", {})
    return Operator(
        name=_text(d["name"]), kind=d["kind"], about=_text(d["about"]), contact=_contact(d["contact"]),
        code_license=d["code_license"], data_license=d["data_license"], legal_basis=d["legal_basis"],
        accessibility=Accessibility(status=access["status"], checked=access["checked"],
                                    report_url=access.get("report_url"), register_url=access.get("register_url")),
        controller_name=_text(controller["name"]) if "name" in controller else _text(d["name"]),
        controller_email=controller.get("email", None if d["kind"] == "person" else d["contact"]["email"]),
        address=_text(d["address"]) if "address" in d else None,
        source_url=d.get("source_url"),
        dpo=_contact(d["dpo"]) if "dpo" in d else None,
        hosting=_hosting(d["hosting"]) if "hosting" in d else None,
    )


def _hosting(d: Mapping[str, Any]) -> Hosting:
    return Hosting(location=_text(d["location"]), processors=tuple(
        Processor(name=p["name"], role=_text(p["role"]), location=_text(p["location"]), url=p.get("url"))
        for p in d["processors"]))


def _metrics_access(section: Mapping[str, Any]) -> MetricsAccess:
    networks = section.get("allow_networks")
    return MetricsAccess(LOOPBACK_NETWORKS if networks is None else parse_networks(networks), section.get("token_env"))


def _build(data: Mapping[str, Any], source: str) -> Registry:
    s = data["server"]
    operator = _operator(s["operator"])
    server = ServerSettings(
        name=s["name"], title=_text(s["title"]), tagline=_text(s["tagline"]),
        instructions=_text(s["instructions"]), public_url=s["public_url"],
        allowed_hosts=hosts_for(s), allowed_origins=origins_for(s),
        cors_origins=tuple(s["cors_origins"]), max_body_bytes=int(s["max_body_bytes"]),
        contact=s.get("contact") or (operator.contact.url if operator.contact.url
                                     else f"mailto:{operator.contact.email}"),
        remote_allow_networks=tuple(s.get("remote_allow_networks", ())),
        metrics=_metrics_access(s.get("metrics", {})),
        namespace=s["namespace"],
        fault_contact=_contact(s["fault_contact"]) if "fault_contact" in s else operator.contact,
        privacy=Privacy(server_log=_text(s["privacy"]["server_log"])),
        operator=operator,
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
            updated=p.get("updated"),
        )
        for key, p in data["platforms"].items()
    }
    platforms.update({c["slug"]: _remote_platform(c, server) for c in data["connectors"] if "remote" in c})
    connectors = tuple(
        Connector(
            slug=c["slug"], enabled=c["enabled"], in_footer=c["in_footer"], title=_text(c["title"]),
            description=_text(c["description"]), platform=c["slug"] if "remote" in c else c.get("platform"),
            tools=tuple(_words(t["name"], t) for t in c.get("tools", ())), remote="remote" in c,
            updated=c.get("updated"),
            keywords={lang: tuple(words) for lang, words in c.get("keywords", {}).items()},
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
