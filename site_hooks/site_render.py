"""Render the generated Markdown, the markers, llms.txt and explorer.json. Pure: no mkdocs import.

Markup lives in Jinja templates next to this module (`templates/`). Links between pages are
relative `.md` links (`link`), so mkdocs still validates and rewrites them.

Everything but the headings of a generated page, and the big parts of some markers, are *slots*:
HTML that a template wraps in `{% filter slot %}`. The Markdown gets a one-line placeholder per
slot and `fill_slots` puts the HTML back into the converted page, so Python-Markdown only sees
headings (for the table of contents) and placeholders; converting thousands of table cells and
list items dominated the build time of big registries (bench/bench_site.py). HTML in a slot
writes page links as relative `.md` links, like Markdown; `resolve_slot_links` hands each to a
resolver (mkdocs' own lookup, in bridge.py), so they are checked and rewritten as Markdown links
are. Labels, which are Markdown, become HTML through `inline_html` (Python-Markdown, once per label).

`{% filter slot(search=false) %}` marks a slot the search index leaves out (parameter tables, the
client tabs, overviews of what has its own indexed section): it is filled after Material's search
plugin has read the page. See site_hooks/README.md, "Slots".
"""

from __future__ import annotations

import functools
import html
import json
import os
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import jinja2
import markdown
import markupsafe

from proxy.catalog.build import CatalogConnector, CatalogTool
from proxy.results.meta_schemas import LIST_PLATFORM_CALLS_OUTPUT, META_SCHEMAS
from proxy.results.outputs import PRECISION_SCHEMA, TOTAL_RELATIONS
from proxy.state.store import CALL_LOG_TTL_SECONDS, CALLS_PER_CALLER, SESSION_IDLE_SECONDS
from site_hooks.site_clients import ClientSnippets, client_snippets, client_tabs, is_public_https
from site_hooks.site_data import (
    CONNECTOR_DIR,
    PLATFORM_DIR,
    SiteData,
    connector_src,
    platform_src,
    rel_link,
    returns_result_list,
)
from site_hooks.site_labels import FIELD_DOCS, LABELS, label
from site_hooks.site_params import PageParam, page_params
from site_hooks.site_stencil import Hole, Stencil, token

__all__ = [
    "EXPLORER_TOOLS_DIR",
    "MARKERS",
    "MARKER_RE",
    "SLOT_TOKEN",
    "MarkerError",
    "PageRef",
    "Renderer",
    "address_html",
    "address_markup",
    "explorer_tools_file",
    "fill_markers",
    "fill_slots",
    "inline_html",
    "render_explorer_json",
    "render_explorer_tools",
    "render_llms_txt",
    "resolve_slot_links",
]

TEMPLATES = Path(__file__).resolve().parent / "templates"
MARKER_RE = re.compile(r"<!--\s*besluitbron:([A-Za-z0-9_-]+)\s*-->")
# Slot keys: "s<n>" is filled into the converted page (and indexed by search), "u<n>" only after
# the search plugin read the page (unindexed); a "u" placeholder may sit inside an "s" slot.
# An "s" placeholder is a plain word on a line of its own, which Markdown turns into `<p>word</p>`
# at half the cost of a raw HTML block. A "u" placeholder is an HTML comment, which the search
# plugin skips, so no placeholder text reaches the index.
SLOT_KINDS = "su"
SLOT_TOKEN = "besluitbron-slot-"
SLOT_RE = {"s": re.compile(rf"(<p>)?{SLOT_TOKEN}(s[0-9]+)(?(1)</p>)(?![0-9])"),
           "u": re.compile(rf"()<!--{SLOT_TOKEN}(u[0-9]+)-->")}  # group 2 is the key in both
# A page link inside slot HTML: relative, to a Markdown source, with an optional anchor.
SLOT_LINK_RE = re.compile(r'href="([^"#?:]+\.md)(#[^"]*)?"')

# Marker kind → template that fills it. Documented in site_hooks/README.md; a test keeps the two equal.
MARKERS: Mapping[str, str] = {
    "promoted": "promoted.md.j2",
    "choice": "choice.md.j2",
    "connector-list": "connector_list.md.j2",
    "meta-tools": "meta_tools.md.j2",
    "chooser": "chooser.md.j2",
    "explorer": "explorer.md.j2",
    "registry-switches": "registry_switches.md.j2",
    "platform-list": "platform_list.md.j2",
    "load-status": "load_status.md.j2",
    "attribution": "attribution.md.j2",
    "precision-fields": "precision_fields.md.j2",
    "result-list-tools": "result_list_tools.md.j2",
    "call-record-fields": "call_record_fields.md.j2",
    "privacy": "privacy.md.j2",
    "contact": "contact.md.j2",
    # The public-service pages: their facts from server.operator (site_public_words.py holds their words).
    "operator": "operator.md.j2",
    "software": "software.md.j2",
    "source-licences": "source_licences.md.j2",
    "platform-hosts": "platform_hosts.md.j2",
    "privacy-controller": "privacy_controller.md.j2",
    "privacy-basis": "privacy_basis.md.j2",
    "privacy-recipients": "privacy_recipients.md.j2",
    "privacy-hosting": "privacy_hosting.md.j2",
    "privacy-rights": "privacy_rights.md.j2",
    "accessibility": "accessibility.md.j2",
    "accessibility-contact": "accessibility_contact.md.j2",
}


class MarkerError(ValueError):
    """A page names a marker kind no renderer knows (a typo must fail the build)."""


@dataclass(frozen=True, slots=True)
class PageRef:
    """A built page as llms.txt lists it."""

    title: str
    url: str
    description: str


@dataclass(frozen=True, slots=True)
class Field:
    name: str
    type: str
    required: bool
    meaning: str


@dataclass(frozen=True, slots=True)
class PrivacyFacts:
    """Retention periods as the server enforces them (proxy.state.store), for the privacy page."""

    call_log_hours: int
    calls_per_session: int
    session_minutes: int
    cache_range: str


def privacy_facts(data: SiteData) -> PrivacyFacts:
    ttls = sorted({p.cache_ttl_seconds for p in data.platforms}) or [0]
    return PrivacyFacts(
        call_log_hours=CALL_LOG_TTL_SECONDS // 3600,
        calls_per_session=CALLS_PER_CALLER,
        session_minutes=int(SESSION_IDLE_SECONDS // 60),
        cache_range=str(ttls[0]) if len(ttls) == 1 else f"{ttls[0]}–{ttls[-1]}",
    )


class Renderer:
    """Renders one language of one catalog."""

    def __init__(self, data: SiteData, lang: str) -> None:
        self.data = data
        self.lang = lang
        self.env = _environment()
        self._slots: dict[str, str] = {}
        self._stencils: dict[str, Stencil] = {}
        self._clients_html: str | None = None  # the client tabs with tokens, rendered once (site_stencil)

    def take_slots(self) -> dict[str, str]:
        """The HTML slots of what was rendered since the last call (one page's worth)."""
        slots, self._slots = self._slots, {}
        return slots

    def take_stencils(self) -> dict[str, Stencil]:
        """Which of those slots are a filled stencil, by slot key: their twins convert the stencil's shared HTML."""
        stencils, self._stencils = self._stencils, {}
        return stencils

    # ----------------------------------------------------------------------- pages

    def connector_page(self, slug: str) -> str:
        """The connection page of an enabled connector."""
        connector = self.data.catalog.connectors[slug]
        here = connector_src(slug)
        url = self.data.url(slug)
        return self._render("connector.md.j2", here, c=connector, url=url, public=is_public_https(url),
                            clients=self.client_stencil(connector, url))

    def client_stencil(self, connector: CatalogConnector, url: str) -> Stencil:
        """The client tabs of a connection page: rendered once with tokens, filled with this page's strings."""
        lang = self.lang
        names = [self.data.registry.platforms[key].title[lang] for key in connector.platforms]
        snippets = client_snippets(connector.slug, url)
        strings = {"address": url, "count": str(len(connector.tools)), "title": connector.connector.title[lang],
                   "sources": names[0] if len(names) == 1 else label("client_check_sources", lang, count=len(names)),
                   **{f.name: getattr(snippets, f.name) for f in fields(ClientSnippets)}}
        if self._clients_html is None:
            self._clients_html = self.client_tabs_html({name: token(i) for i, name in enumerate(_CLIENT_STRINGS)})
            if SLOT_LINK_RE.search(self._clients_html):  # slots.py rewrites those per page; a stencil is shared
                raise MarkerError("clients.html.j2 links a page of the site: a stencil cannot hold such a link")
        return Stencil(self._clients_html, {token(i): Hole(strings[name], code=in_code)
                                            for i, (name, in_code) in enumerate(_CLIENT_STRINGS.items())})

    def client_tabs_html(self, strings: Mapping[str, str]) -> str:
        """clients.html.j2 for these strings (keys of _CLIENT_STRINGS), each escaped by the template."""
        snippets = ClientSnippets(**{f.name: strings[f.name] for f in fields(ClientSnippets)})
        return self._render("clients.html.j2", "", tabs=client_tabs(snippets, strings["address"], strings["count"]),
                            title=strings["title"], sources=strings["sources"]).strip("\n")

    def platform_page(self, key: str) -> str:
        """The page of a source platform; names its connector's address only when that is enabled."""
        platform = self.data.registry.platforms[key]
        status = self.data.status
        return self._render("platform.md.j2", platform_src(key), p=platform,
                            served=self.data.platform_connector(key),
                            source_status=status.sources.get(key) if status else None)

    def marker(self, kind: str, here: str) -> str:
        """The Markdown that replaces `<!-- besluitbron:<kind> -->` on page `here`."""
        template = MARKERS.get(kind)
        if template is None:
            raise MarkerError(f"{here}: unknown marker 'besluitbron:{kind}' (known: {', '.join(sorted(MARKERS))})")
        return self._render(template, here).strip("\n")

    # ----------------------------------------------------------------------- helpers

    def _render(self, template: str, here: str, **values: Any) -> str:
        lang = self.lang

        def t(key: str, **fmt: object) -> str:
            return label(key, lang, **fmt)

        def link(target: str) -> str:
            return rel_link(here, target)

        def h(key: str, **fmt: object) -> str:
            return inline_html(key, lang, **fmt)

        def params(tool: CatalogTool) -> tuple[PageParam, ...]:
            platform = self.data.registry.platforms.get(tool.platform or "")
            return page_params(tool.input_schema, tool.param_words(lang), lang,
                               platform.limits.results_per_call if platform else None)

        def address(url: str) -> str:
            return address_html(url, lang)

        def medium_name(code: str) -> str:
            """A kind of material (a gazette code, an organisation type) in words; the code if we have none."""
            return label(f"medium_{code}", lang) if f"medium_{code}" in LABELS else code

        def add_slot(content: str, search: bool) -> str:
            key = f"{'s' if search else 'u'}{len(self._slots)}"
            self._slots[key] = content.strip("\n")
            return key

        def placeholder(key: str) -> str:
            return f"\n\n{SLOT_TOKEN}{key}\n\n" if key[0] == "s" else f"\n\n<!--{SLOT_TOKEN}{key}-->\n\n"

        def slot(content: str, search: bool = True) -> str:
            return placeholder(add_slot(content, search))

        def stencil(fragment: Stencil) -> str:
            """An unindexed slot of a filled stencil."""
            key = add_slot(fragment.filled(), search=False)
            self._stencils[key] = fragment
            return placeholder(key)

        return self.env.get_template(template).render(
            data=self.data, lang=lang, t=t, h=h, link=link, here=here, slot=slot, stencil=stencil,
            params=params, address=address, medium_name=medium_name, result_list=returns_result_list,
            base_host=lambda url: urlsplit(url).hostname or url,
            fields=self._fields,
            tool_count=self.data.tool_count, privacy=privacy_facts(self.data),
            connector_src=connector_src, platform_src=platform_src, connector_dir=CONNECTOR_DIR,
            platform_dir=PLATFORM_DIR, precision_schema=PRECISION_SCHEMA, total_relations=TOTAL_RELATIONS,
            meta_schemas=META_SCHEMAS, call_schema=LIST_PLATFORM_CALLS_OUTPUT, **values,
        )

    def _fields(self, schema: Mapping[str, Any], group: str) -> list[Field]:
        """Schema properties with their documented meaning; an undocumented field fails the build."""
        docs = FIELD_DOCS[group]
        props = schema.get("properties", {})
        missing = [name for name in props if name not in docs]
        if missing:
            raise MarkerError(f"fields {missing} of '{group}' have no entry in site_labels.FIELD_DOCS")
        required = set(schema.get("required", ()))
        return [Field(name=name, type=_schema_type(prop), required=name in required, meaning=docs[name][self.lang])
                for name, prop in props.items()]


# The strings of a connection page's client tabs (client_stencil), and whether each stands in a code block.
_CLIENT_STRINGS = {"address": True, "count": False, "title": False, "sources": False,
                   **{f.name: not f.name.endswith("_install") for f in fields(ClientSnippets)}}


def fill_markers(markdown: str, here: str, renderer: Renderer) -> str:
    """Replace every `<!-- besluitbron:kind -->` in a page; MarkerError on an unknown kind."""
    if "besluitbron:" not in markdown:
        return markdown
    return MARKER_RE.sub(lambda m: renderer.marker(m.group(1), here), markdown)


def fill_slots(html_text: str, slots: Mapping[str, str], *, kinds: str = SLOT_KINDS) -> str:
    """Put each slot of `kinds` in place of its placeholder in a converted page; every slot exactly once."""
    out = html_text
    for kind in kinds:
        wanted = {key: value for key, value in slots.items() if key[0] == kind}
        used: list[str] = []

        def put(match: re.Match[str], wanted: Mapping[str, str] = wanted, used: list[str] = used) -> str:
            key = match.group(2)
            if key not in wanted:
                raise MarkerError(f"placeholder for HTML slot '{key}' has no content")
            used.append(key)
            return wanted[key]

        out = SLOT_RE[kind].sub(put, out)
        if sorted(used) != sorted(wanted):
            raise MarkerError(f"HTML slots {sorted(set(wanted) - set(used))} lost their placeholder in Markdown")
    return out


def resolve_slot_links(slots: Mapping[str, str], link: Callable[[str, str], str]) -> dict[str, str]:
    """The slots with every relative `.md` link replaced by `link(target, "#anchor" or "")`."""

    def one(match: re.Match[str]) -> str:
        return f'href="{link(match.group(1), match.group(2) or "")}"'

    return {key: SLOT_LINK_RE.sub(one, html_text) if ".md" in html_text else html_text
            for key, html_text in slots.items()}


def address_markup(url: str) -> str:
    """The escaped address with <wbr> after every slash but the scheme's: breaks at path boundaries, never mid-word."""
    pieces = html.escape(url).split("/")
    return "/".join(pieces[:3]) + "".join(f"/<wbr>{piece}" for piece in pieces[3:])


def address_html(url: str, lang: str) -> str:
    """An MCP address as a page shows it: whole, breakable only after a slash, with a copy button."""
    text = address_markup(url)
    copy = html.escape(label("copy_address", lang))
    return (f'<span class="bb-address" data-address="{html.escape(url)}"><code class="bb-address__url">{text}</code>'
            f'<button type="button" class="md-clipboard md-icon bb-address__copy" '
            f'data-clipboard-text="{html.escape(url)}" title="{copy}" aria-label="{copy}"></button></span>')


def inline_html(key: str, lang: str, **values: object) -> str:
    """A label as inline HTML: its Markdown (`code`, **bold**, links) converted, then `{name}`s filled.

    Values go in as they are: callers pass HTML (escape text with `|e`)."""
    text = _inline_html(LABELS[key][lang])
    return text.format(**values) if values else text


@functools.lru_cache(maxsize=1024)
def _inline_html(text: str) -> str:
    out = _INLINE_MD.reset().convert(text)
    if not (out.startswith("<p>") and out.endswith("</p>")) or "<p>" in out[3:]:
        raise MarkerError(f"label is not a single paragraph of inline Markdown: {text!r}")
    return out[3:-4]


_INLINE_MD = markdown.Markdown()


# --------------------------------------------------------------------------- machine-readable twins


def local_notice(data: SiteData, lang: str) -> str | None:
    """What a local installation says wherever it shows an address (it works on this computer only, and what
    going public takes); None for a public one, which says nothing of it."""
    address = data.registry.server.public_url.rstrip("/")
    return None if is_public_https(address) else label("local_notice", lang, address=address)


def render_llms_txt(data: SiteData, lang: str, *, pages: Sequence[PageRef], connection_pages: Mapping[str, str],
                    platform_pages: Mapping[str, str], other_language_url: str | None,
                    explorer_json_url: str) -> str:
    """llms.txt (llmstxt.org): H1, summary, details, then H2 sections of `- [name](url): notes`."""
    server = data.registry.server
    aggregate = data.aggregate
    aggregate_text = (label("llms_aggregate", lang, title=aggregate.connector.title[lang]) if aggregate
                      else label("llms_no_aggregate", lang))
    lines = [
        f"# {server.title[lang]}",
        "",
        f"> {_one_line(server.tagline[lang])}",
        "",
        _one_line(label("llms_info", lang, name=server.name, count=len(data.connectors), aggregate=aggregate_text)),
        "",
        *([_one_line(notice), ""] if (notice := local_notice(data, lang)) else []),
        f"## {label('llms_connectors', lang)}",
        "",
    ]
    for c in data.connectors:
        lines.append(_llms_link(c.connector.title[lang], data.url(c.slug),
                                f"{label('llms_address_note', lang)} {c.connector.description[lang]}"))
    lines += ["", f"## {label('llms_connection_pages', lang)}", ""]
    for c in data.connectors:
        lines.append(_llms_link(c.connector.title[lang], connection_pages[c.slug], c.connector.description[lang]))
    lines += ["", f"## {label('llms_docs', lang)}", ""]
    lines += [_llms_link(p.title, p.url, p.description) for p in pages]
    lines += ["", f"## {label('llms_platforms', lang)}", ""]
    for platform in data.platforms:
        lines.append(_llms_link(platform.title[lang], platform_pages[platform.key], platform.description[lang]))
    lines += ["", "## Optional", ""]
    lines.append(_llms_link(label("llms_explorer_json", lang), explorer_json_url,
                            label("llms_explorer_json_note", lang)))
    if other_language_url:
        lines.append(_llms_link(label("llms_other_language", lang), other_language_url,
                                label("llms_other_language_note", lang)))
    return "\n".join(lines) + "\n"


EXPLORER_TOOLS_DIR = "explorer"


def explorer_tools_file(slug: str) -> str:
    """Where a connector's tools file lies, relative to `explorer.json`."""
    return f"{EXPLORER_TOOLS_DIR}/{slug}.json"


def render_explorer_json(data: SiteData, lang: str, *, connection_pages: Mapping[str, str]) -> str:
    """The catalog the explorer page's script reads first: the connectors and their addresses, each
    naming its own tools file (`render_explorer_tools`), which the script fetches when it is chosen."""
    doc = {
        "server": data.registry.server.name,
        "public_url": data.registry.server.public_url,
        "language": lang,
        "connectors": [_connector_json(data, c, lang, connection_pages[c.slug]) for c in data.connectors],
    }
    return _compact(doc)


def render_explorer_tools(c: CatalogConnector, lang: str) -> str:
    """One connector's tools for the explorer: titles, words and input schemas."""
    return _compact({"slug": c.slug, "language": lang, "tools": [_tool_json(t, lang) for t in c.tools]})


def _compact(doc: Mapping[str, Any]) -> str:
    # Compact: json's C encoder only runs without indent.
    return json.dumps(doc, ensure_ascii=False, separators=(",", ":")) + "\n"


def _connector_json(data: SiteData, c: CatalogConnector, lang: str, page: str) -> dict[str, Any]:
    return {
        "slug": c.slug,
        "title": c.connector.title[lang],
        "description": c.connector.description[lang],
        "address": data.url(c.slug),
        "path": c.path,
        "page": page,
        "aggregate": c.connector.aggregate,
        "in_footer": c.connector.in_footer,
        "platforms": list(c.platforms),
        "tool_count": len(c.tools),
        "tools_url": explorer_tools_file(c.slug),
    }


def _tool_json(tool: CatalogTool, lang: str) -> dict[str, Any]:
    return {
        "name": tool.name,
        "title": tool.title[lang],
        "description": tool.words.description[lang],
        "question": tool.words.question[lang],
        "platform": tool.platform,
        "meta": tool.meta,
        "read_only": True,
        "result_list": returns_result_list(tool),
        # No output schema: the explorer shows what a call returns and never reads it, and at 500 sources it
        # made the all-sources file 7.7 MB for a phone to fetch when that address is chosen.
        "input_schema": tool.input_schema,
        # Per parameter the registry's words in this language, where given (else the schema's own text).
        "parameter_words": tool.param_words(lang),
    }


# --------------------------------------------------------------------------- jinja


def _environment() -> jinja2.Environment:
    """The template environment, compiled once per version of the templates folder.

    Without auto-reload Jinja does not stat a template file on every `include` (thousands per
    build); the stamp still picks up edited templates when a `mkdocs serve` rebuild makes a new
    Renderer."""
    global _ENV
    stamp = _templates_stamp()
    if _ENV is None or _ENV[0] != stamp:
        env = jinja2.Environment(
            loader=jinja2.FileSystemLoader(TEMPLATES),
            undefined=jinja2.StrictUndefined,
            autoescape=False,  # the output is Markdown; HTML parts escape explicitly with |e
            trim_blocks=True,
            lstrip_blocks=True,
            keep_trailing_newline=True,
            auto_reload=False,
        )
        env.filters["cell"] = _cell
        env.filters["yaml"] = _yaml_string
        env.filters["attr"] = _attr
        env.filters["code"] = _code
        env.filters["slot"] = _slot
        _ENV = (stamp, env)
    return _ENV[1]


_ENV: tuple[tuple[tuple[str, int], ...], jinja2.Environment] | None = None


def _templates_stamp() -> tuple[tuple[str, int], ...]:
    with os.scandir(TEMPLATES) as entries:
        return tuple(sorted((e.name, e.stat().st_mtime_ns) for e in entries if e.is_file()))


@jinja2.pass_context
def _slot(context: jinja2.runtime.Context, value: object, search: bool = True) -> str:
    """`{% filter slot %}...{% endfilter %}`: keep raw HTML out of Markdown (see the module docstring)."""
    return str(context["slot"](str(value), search))


def _code(value: object) -> str:
    """Text inside `<code>`: escaped as Python-Markdown escapes a code block (quotes stay)."""
    return html.escape(str(value), quote=False)


def _cell(value: object) -> str:
    """Text safe inside a Markdown table cell."""
    return _one_line(str(value)).replace("|", "\\|")


def _yaml_string(value: object) -> str:
    """A YAML front-matter scalar: JSON strings are valid YAML."""
    return json.dumps(_one_line(str(value)), ensure_ascii=False)


def _attr(value: object) -> str:
    return str(markupsafe.escape(str(value)))


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _llms_link(title: str, url: str, notes: str) -> str:
    # The llms.txt grammar: title without ']', url without ')', notes on one line.
    clean_title = _one_line(title).replace("]", ")").replace("[", "(")
    return f"- [{clean_title}]({url.replace(')', '%29')}): {_one_line(notes)}"


def _schema_type(prop: Mapping[str, Any]) -> str:
    if "enum" in prop:
        return " | ".join(json.dumps(v) for v in prop["enum"])
    kind = prop.get("type", "any")
    return " | ".join(kind) if isinstance(kind, list) else str(kind)


def iter_markers(markdown: str) -> Iterator[str]:
    """The marker kinds a page uses, in order."""
    for match in MARKER_RE.finditer(markdown):
        yield match.group(1)
