"""The pure parts of the site (no mkdocs): catalog view, markers, llms.txt, explorer.json, snapshot."""

from __future__ import annotations

import base64
import json
import re
import urllib.parse
from pathlib import Path

import markupsafe
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from llms_txt import parse_llms_file

from proxy.catalog.build import build_catalog
from proxy.catalog.generation import Generation
from proxy.maintain.registry_edit import set_switch
from proxy.registry.model import LANGUAGES, Text, load_registry, parse_registry
from proxy.results.meta_schemas import LIST_PLATFORM_CALLS_OUTPUT
from proxy.results.outputs import PRECISION_SCHEMA
from site_hooks.site_clients import client_snippets, is_public_https
from site_hooks.site_data import SiteData, connector_src, rel_link
from site_hooks.site_labels import FIELD_DOCS, LABELS
from site_hooks.site_params import page_params
from site_hooks.site_render import (
    MARKER_RE,
    MARKERS,
    SLOT_TOKEN,
    TEMPLATES,
    MarkerError,
    PageRef,
    Renderer,
    fill_markers,
    fill_slots,
    inline_html,
    render_explorer_json,
    render_llms_txt,
    resolve_slot_links,
)
from site_hooks.site_status import StatusSnapshotError, parse_status_snapshot

ROOT = Path(__file__).resolve().parent.parent
REGISTRY = ROOT / "registry.json"
DOCS = ROOT / "docs"


@pytest.fixture(scope="module")
def data() -> SiteData:
    return SiteData(generation=Generation(build_catalog(load_registry(REGISTRY))), status=None)


# --------------------------------------------------------------------------- markers


def test_markers_table_templates_and_readme_agree() -> None:
    readme = (ROOT / "site_hooks" / "README.md").read_text(encoding="utf-8")
    documented = dict(re.findall(r"\| `<!-- besluitbron:([a-z-]+) -->` \| `([a-z_]+\.md\.j2)` \|", readme))
    assert documented == dict(MARKERS)
    assert all((TEMPLATES / template).is_file() for template in MARKERS.values())


def test_hand_written_pages_use_every_marker_and_only_known_ones() -> None:
    used = {m.group(1) for page in DOCS.rglob("*.md") for m in MARKER_RE.finditer(page.read_text(encoding="utf-8"))}
    assert used == set(MARKERS)


def test_every_hand_written_page_has_both_languages() -> None:
    dutch = {p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md") if not p.name.endswith(".en.md")}
    english = {p.relative_to(DOCS).as_posix().replace(".en.md", ".md") for p in DOCS.rglob("*.en.md")}
    assert dutch == english
    for name in dutch:  # the same markers in both languages, in the same order
        nl = MARKER_RE.findall((DOCS / name).read_text(encoding="utf-8"))
        en = MARKER_RE.findall((DOCS / name.replace(".md", ".en.md")).read_text(encoding="utf-8"))
        assert nl == en, name


def test_unknown_marker_raises(data: SiteData) -> None:
    with pytest.raises(MarkerError, match=r"unknown marker 'besluitbron:chooserr' \(known: "):
        fill_markers("# X\n\n<!-- besluitbron:chooserr -->\n", "keuzehulp.md", Renderer(data, "nl"))


def test_page_without_markers_is_returned_unchanged(data: SiteData) -> None:
    text = "# Title\n\n<!-- an ordinary comment -->\n"
    assert fill_markers(text, "index.md", Renderer(data, "nl")) is text


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("kind", sorted(MARKERS))
def test_every_marker_renders_without_leftovers(data: SiteData, kind: str, lang: str) -> None:
    out = fill_markers(f"before\n\n<!-- besluitbron:{kind} -->\n\nafter\n", "keuzehulp.md", Renderer(data, lang))
    assert "besluitbron:" not in out and out.startswith("before") and out.rstrip().endswith("after")


_PLACEHOLDER = re.compile(rf"{SLOT_TOKEN}([su][0-9]+)")


def test_big_html_parts_travel_as_slots(data: SiteData) -> None:
    renderer = Renderer(data, "nl")
    page = renderer.connector_page(next(iter(data.catalog.connectors)))
    slots = renderer.take_slots()
    assert slots and renderer.take_slots() == {}
    # Markdown keeps the headings and the address; an unindexed slot may sit inside a searchable one.
    body = [line for line in page.split("---\n", 2)[2].splitlines() if line.strip()]
    assert all(line.startswith(("#", "```", "http", SLOT_TOKEN, f"<!--{SLOT_TOKEN}")) for line in body), body
    placed = _PLACEHOLDER.findall(page + "".join(slots.values()))
    assert "<table" not in page and sorted(placed) == sorted(slots)
    html = "<p>x</p>\n" + "\n".join(f"<p>{SLOT_TOKEN}{key}</p>" if key[0] == "s" else f"<!--{SLOT_TOKEN}{key}-->"
                                     for key in _PLACEHOLDER.findall(page))
    filled = fill_slots(html, slots)
    assert SLOT_TOKEN not in filled and "<p><p>" not in filled
    assert all(part in filled for key, part in slots.items() if SLOT_TOKEN not in part)


def test_unindexed_slots_are_filled_after_the_searchable_ones(data: SiteData) -> None:
    renderer = Renderer(data, "en")
    page = renderer.connector_page(data.sources[0].slug)
    slots = renderer.take_slots()
    assert {key[0] for key in slots} == {"s", "u"}
    unindexed = "".join(v for k, v in slots.items() if k[0] == "u")
    indexed = "".join(v for k, v in slots.items() if k[0] == "s")
    assert "data-params=" in unindexed and "tabbed-set" in unindexed  # parameter tables, client instructions
    assert "data-params=" not in indexed and "tabbed-set" not in indexed
    tools = data.sources[0].tools
    assert all(str(markupsafe.escape(tool.words.description.en)) in indexed  # descriptions stay indexed
               for tool in tools if tool.impl is not None)
    # The meta tools are the same on every address: the connector list's section is their search hit.
    assert not any(str(markupsafe.escape(tool.words.description.en)) in indexed for tool in tools if tool.impl is None)
    html = "\n".join(f"<p>{SLOT_TOKEN}{key}</p>" if key[0] == "s" else f"<!--{SLOT_TOKEN}{key}-->"
                     for key in _PLACEHOLDER.findall(page))
    searchable = fill_slots(html, slots, kinds="s")
    assert "data-params=" not in searchable and f"<!--{SLOT_TOKEN}u" in searchable
    assert re.sub(r"<!--.*?-->|<[^>]+>", "", searchable).count(SLOT_TOKEN) == 0  # no placeholder text to index
    assert fill_slots(searchable, slots, kinds="u") == fill_slots(html, slots)


def test_slot_links_resolve_like_markdown_links() -> None:
    seen = []

    def link(target: str, anchor: str) -> str:
        seen.append((target, anchor))
        return target.replace(".md", ".html") + anchor

    slots = {"s0": '<a href="../zoekprecisie.md">a</a> <a href="wetten.md#tool-x">b</a> <a href="#tool-y">c</a>',
             "u1": '<a href="https://example.org/x.md">d</a>'}
    out = resolve_slot_links(slots, link)
    assert out["s0"] == ('<a href="../zoekprecisie.html">a</a> <a href="wetten.html#tool-x">b</a> '
                         '<a href="#tool-y">c</a>')
    assert out["u1"] == slots["u1"] and seen == [("../zoekprecisie.md", ""), ("wetten.md", "#tool-x")]


def test_every_label_is_one_paragraph_of_inline_html() -> None:
    for key, text in LABELS.items():
        for lang in LANGUAGES:
            out = inline_html(key, lang)
            assert "<p>" not in out and "**" not in out and "`" not in out, (key, lang, out)
            assert "{" in text[lang] or out.count("<") == out.count(">"), (key, lang)


def test_slots_must_match_their_placeholders() -> None:
    with pytest.raises(MarkerError, match="has no content"):
        fill_slots(f"<p>{SLOT_TOKEN}s1</p>", {})
    with pytest.raises(MarkerError, match="lost their placeholder"):
        fill_slots("<p>Markdown ate it</p>", {"s0": "<table></table>"})


def test_schema_fields_need_documentation() -> None:
    call_fields = LIST_PLATFORM_CALLS_OUTPUT["properties"]["calls"]["items"]["properties"]
    assert set(FIELD_DOCS["precision"]) == set(PRECISION_SCHEMA["properties"])
    assert set(FIELD_DOCS["call"]) == set(call_fields)


def test_undocumented_schema_field_fails(data: SiteData) -> None:
    renderer = Renderer(data, "nl")
    schema = {"type": "object", "properties": {**PRECISION_SCHEMA["properties"], "new_field": {"type": "string"}}}
    with pytest.raises(MarkerError, match="new_field"):
        renderer._fields(schema, "precision")


def test_labels_have_both_languages() -> None:
    for key, text in LABELS.items():
        assert text.nl.strip() and text.en.strip(), key


# --------------------------------------------------------------------------- pages


def test_connector_page_names_its_address_and_tools(data: SiteData) -> None:
    for c in data.connectors:
        renderer = Renderer(data, "en")
        page = renderer.connector_page(c.slug)
        slots = "".join(renderer.take_slots().values())
        assert page.startswith("---\ndescription: ")
        assert f"# {c.connector.title.en}\n" in page
        assert f'data-address="{data.url(c.slug)}"' in slots and f'data-clipboard-text="{data.url(c.slug)}"' in slots
        for tool in c.tools:
            if c.connector.aggregate and tool.impl is not None:  # a row of its source's table, not a section
                assert f'<tr id="tool-{tool.name}" data-tool="{tool.name}">' in slots
            elif tool.impl is None:  # a meta tool: the same on every address, so its section is not indexed here
                assert f'{{: #tool-{tool.name} data-tool="{tool.name}" data-search-exclude="1" }}' in page
            else:
                assert f"{{: #tool-{tool.name} data-tool=\"{tool.name}\" }}" in page


def test_aggregate_links_each_tool_to_its_sources_parameter_table(data: SiteData) -> None:
    assert data.aggregate is not None
    renderer = Renderer(data, "nl")
    renderer.connector_page(data.aggregate.slug)
    slots = "".join(renderer.take_slots().values())
    for key, source, pairs in data.aggregate_sources(data.aggregate):
        assert source.connector.platform == key
        for tool, own in pairs:
            assert tool.words is own.words and tool.name.endswith(own.name)
            assert f'href="{source.slug}.md#tool-{own.name}"' in slots
            names = list(tool.input_schema.get("properties", {}))
            assert f"<code>{', '.join(names)}</code>" in slots if names else True, tool.name
    assert sum(len(pairs) for *_, pairs in data.aggregate_sources(data.aggregate)) == len(
        data.content_tools(data.aggregate))


def test_platform_page_without_connector_names_no_address() -> None:
    text = set_switch(REGISTRY.read_text(encoding="utf-8"), _first_source_slug(), "enabled", False)
    registry = parse_registry(json.loads(text))
    data = SiteData(generation=Generation(build_catalog(registry)), status=None)
    key = registry.connector(_first_source_slug()).platform
    assert key is not None
    renderer = Renderer(data, "nl")
    page = renderer.platform_page(key) + "".join(renderer.take_slots().values())
    assert "/mcp" not in page.replace(data.url(data.aggregate.slug), "") if data.aggregate else "/mcp" not in page
    assert "niet via een connector aangeboden" in page


def test_links_are_relative_markdown_links() -> None:
    assert rel_link("connectoren/x.md", "bronplatforms/ori.md") == "../bronplatforms/ori.md"
    assert rel_link("keuzehulp.md", connector_src("wetten")) == "connectoren/wetten.md"
    assert rel_link("explorer.md", "explorer.json") == "explorer.json"


def test_parameters_read_in_the_page_language() -> None:
    schema = {
        "type": "object",
        "properties": {
            "query": {"type": "string", "minLength": 1, "description": "Words."},
            "kind": {"enum": ["a", "b"]},
            "date_from": {"type": "string", "format": "date"},
            "limit": {"type": "integer", "minimum": 1, "maximum": 50, "default": 10},
            "ids": {"type": "array", "items": {"type": "string"}, "maxItems": 5, "description": "Ids."},
            "maybe": {"type": ["string", "null"], "pattern": "^x$"},
        },
        "required": ["query"],
    }
    words = {"query": Text(nl="Zoekwoorden.", en="Search words.")}
    nl = {p.name: p for p in page_params(schema, {k: v.nl for k, v in words.items()}, "nl")}
    en = {p.name: p for p in page_params(schema, {k: v.en for k, v in words.items()}, "en")}
    assert list(nl) == ["query", "kind", "date_from", "limit", "ids", "maybe"]
    assert nl["query"].required and not nl["limit"].required
    # Registry words win in both languages; untranslated schema text only on English pages, else behind a toggle.
    assert (nl["query"].description, nl["query"].schema_text) == ("Zoekwoorden.", None)
    assert (en["query"].description, en["query"].schema_text) == ("Search words.", None)
    assert (nl["ids"].description, nl["ids"].schema_text) == (None, "Ids.")
    assert (en["ids"].description, en["ids"].schema_text) == ("Ids.", None)
    assert nl["kind"].type == "keuze" and nl["kind"].constraints == (('"a"', True), ('"b"', True))
    assert nl["date_from"].type == "tekst (datum, JJJJ-MM-DD)" and en["date_from"].type == "text (date, YYYY-MM-DD)"
    assert nl["limit"].default == "10" and nl["limit"].constraints == (("minstens 1", False), ("hoogstens 50", False))
    assert nl["ids"].type == "lijst van tekst" and ("hoogstens 5 waarden", False) in nl["ids"].constraints
    assert nl["maybe"].type == "tekst of leeg" and nl["maybe"].constraints[-1] == ("^x$", True)
    assert page_params({"type": "object", "properties": {}}, {}, "nl") == ()
    with pytest.raises(ValueError, match="nope"):
        page_params(schema, {"nope": "x"}, "nl")


# --------------------------------------------------------------------------- client snippets


def test_client_snippets() -> None:
    local = client_snippets("wetten", "http://127.0.0.1:8000/wetten/mcp")
    assert local.claude_code == "claude mcp add --transport http wetten http://127.0.0.1:8000/wetten/mcp"
    assert json.loads(local.vscode) == {"servers": {"wetten": {"type": "http", "url": "http://127.0.0.1:8000/wetten/mcp"}}}
    assert json.loads(local.cursor) == {"mcpServers": {"wetten": {"url": "http://127.0.0.1:8000/wetten/mcp"}}}
    assert "--allow-http" not in local.claude_desktop
    remote_http = client_snippets("x", "http://besluitbron.example/x/mcp")
    assert json.loads(remote_http.claude_desktop)["mcpServers"]["x"]["args"][-1] == "--allow-http"
    assert is_public_https("https://besluitbron.example/x/mcp")
    assert not is_public_https("https://localhost:8443/x/mcp") and not is_public_https("http://a.example/x/mcp")
    # One-click install links as VS Code and Cursor document them.
    assert local.vscode_install.startswith("vscode:mcp/install?%7B")
    assert json.loads(urllib.parse.unquote(local.vscode_install.split("?", 1)[1])) == {
        "name": "wetten", "type": "http", "url": "http://127.0.0.1:8000/wetten/mcp"}
    query = urllib.parse.parse_qs(urllib.parse.urlsplit(local.cursor_install).query)
    assert local.cursor_install.startswith("cursor://anysphere.cursor-deeplink/mcp/install?")
    assert query["name"] == ["wetten"]
    assert json.loads(base64.b64decode(query["config"][0])) == {"url": "http://127.0.0.1:8000/wetten/mcp"}


# --------------------------------------------------------------------------- llms.txt and explorer.json


def _llms(data: SiteData, lang: str) -> str:
    base = "https://site.example/"
    return render_llms_txt(
        data, lang,
        pages=[PageRef(title="Keuzehulp [x]", url=base + "keuzehulp.html", description="Kies\neen bron.")],
        connection_pages={c.slug: f"{base}connectoren/{c.slug}.html" for c in data.connectors},
        platform_pages={p.key: f"{base}bronplatforms/{p.key}.html" for p in data.platforms},
        other_language_url=base + "en/llms.txt", explorer_json_url=base + "explorer.json",
    )


@pytest.mark.parametrize("lang", LANGUAGES)
def test_llms_txt_parses(data: SiteData, lang: str) -> None:
    parsed = parse_llms_file(_llms(data, lang))
    assert parsed.title == data.registry.server.title[lang]
    assert "Optional" in parsed.sections
    assert [link["url"] for link in next(iter(parsed.sections.values()))] == [data.url(c.slug) for c in data.connectors]
    docs = [link for links in parsed.sections.values() for link in links if link["url"].endswith("keuzehulp.html")]
    assert docs == [{"title": "Keuzehulp (x)", "url": "https://site.example/keuzehulp.html", "desc": "Kies een bron."}]


def _first_source_slug() -> str:
    return next(c.slug for c in load_registry(REGISTRY).connectors if c.enabled and not c.aggregate)


_SLUGS = [c.slug for c in load_registry(REGISTRY).connectors]


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(off=st.sets(st.sampled_from(_SLUGS)), footer=st.sets(st.sampled_from(_SLUGS)))
def test_machine_readable_twins_name_exactly_the_enabled_connectors(off: set[str], footer: set[str]) -> None:
    raw = json.loads(REGISTRY.read_text(encoding="utf-8"))
    for entry in raw["connectors"]:
        entry["enabled"], entry["in_footer"] = entry["slug"] not in off, entry["slug"] in footer
    data = SiteData(generation=Generation(build_catalog(parse_registry(raw))), status=None)
    expected = {f"/{slug}/mcp" for slug in _SLUGS if slug not in off}
    for lang in LANGUAGES:
        llms = _llms(data, lang)
        explorer = render_explorer_json(data, lang, connection_pages={c.slug: f"x/{c.slug}" for c in data.connectors})
        for rendered in (llms, explorer):
            assert set(re.findall(r"/[a-z0-9]+/mcp", rendered)) == expected
        for slug in off:
            assert f"connectoren/{slug}." not in llms and f'"slug":"{slug}"' not in explorer
        renderer = Renderer(data, lang)
        choice = renderer.marker("choice", "keuzehulp.md") + "".join(renderer.take_slots().values())
        assert set(re.findall(r"/[a-z0-9]+/mcp", choice)) == expected
        chooser = renderer.marker("chooser", "keuzehulp.md") + "".join(renderer.take_slots().values())
        pages = {f"/{slug}/mcp" for slug in re.findall(r'href="connectoren/([a-z0-9]+)\.md"', chooser)}
        assert pages == expected  # per source its connection page, only for the enabled ones


# --------------------------------------------------------------------------- status snapshot


def test_status_snapshot_parses_the_status_shape() -> None:
    snapshot = parse_status_snapshot({
        "server": "BesluitBron", "stalled_after_days": 60,
        "sources": [{"source": "ori", "title": "Open Raadsinformatie", "receiving": True,
                     "current_through": "2026-11-01",
                     "current_through_per_medium": {"provincie": "2026-10-01", "gemeente": None},
                     "measured_at": "2026-11-30T10:00:00+00:00", "reason": None, "organs_total": 3,
                     "organs_stalled": 1, "organs": []}],
    })
    ori = snapshot.sources["ori"]
    assert ori.receiving is True and ori.organs_stalled == 1
    assert ori.per_medium == (("gemeente", None), ("provincie", "2026-10-01"))
    assert snapshot.stalled_after_days == 60


@pytest.mark.parametrize("bad", [
    [], {"sources": {}}, {"sources": [{"title": "no source"}]}, {"sources": [{"source": "x", "receiving": "yes"}]},
    {"sources": [{"source": "x", "organs_total": "3"}]}, {"sources": [{"source": "x", "current_through": 2026}]},
])
def test_status_snapshot_rejects_other_shapes(bad: object) -> None:
    with pytest.raises(StatusSnapshotError):
        parse_status_snapshot(bad)


def test_addresses_break_only_between_parts_and_nothing_else_changes() -> None:
    from site_hooks.site_breaks import break_addresses

    page = ('<p>Zie <a href="https://www.rechtspraak.nl/Uitspraken/open-data.aspx">https://www.rechtspraak.nl/'
            'Uitspraken/open-data.aspx</a>.</p><pre><code><span class="s2">&quot;http://127.0.0.1:8000/wetten/mcp'
            '&quot;</span></code></pre><script>const u = "https://x.nl/a-b";</script><style>a[href^="https://x.nl/"]'
            '{}</style><code>http://127.0.0.1:8000/<wbr>wetten/<wbr>mcp</code><p>geen adres: open-data.aspx</p>')
    broken = break_addresses(page)
    assert broken.replace("<wbr>", "") == page.replace("<wbr>", "")  # only break opportunities added
    assert ">https://www<wbr>.rechtspraak<wbr>.nl/<wbr>Uitspraken/<wbr>open<wbr>-data<wbr>.aspx</a>" in broken
    assert "&quot;http://127<wbr>.0<wbr>.0<wbr>.1:8000/<wbr>wetten/<wbr>mcp&quot;" in broken  # the entity ends it
    assert 'href="https://www.rechtspraak.nl/Uitspraken/open-data.aspx"' in broken  # tags untouched
    assert '"https://x.nl/a-b"' in broken and 'a[href^="https://x.nl/"]' in broken  # scripts and styles too
    assert "/<wbr><wbr>" not in broken and "geen adres: open-data.aspx" in broken  # once; only addresses
