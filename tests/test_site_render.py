"""The pure parts of the site (no mkdocs): catalogue view, markers, llms.txt, explorer.json, snapshot."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from llms_txt import parse_llms_file

from proxy.catalog import build_catalog
from proxy.meta_schemas import LIST_PLATFORM_CALLS_OUTPUT
from proxy.registry import LANGUAGES, load_registry, parse_registry
from proxy.registry_edit import set_switch
from proxy.results import PRECISION_SCHEMA
from site_hooks.site_clients import client_snippets, is_public_https
from site_hooks.site_data import SiteData, connector_src, rel_link, tool_params
from site_hooks.site_labels import FIELD_DOCS, LABELS
from site_hooks.site_render import (
    MARKER_RE,
    MARKERS,
    TEMPLATES,
    MarkerError,
    PageRef,
    Renderer,
    fill_markers,
    fill_slots,
    render_explorer_json,
    render_llms_txt,
)
from site_hooks.site_status import StatusSnapshotError, parse_status_snapshot

ROOT = Path(__file__).resolve().parent.parent
REGISTRY = ROOT / "registry.json"
DOCS = ROOT / "docs"


@pytest.fixture(scope="module")
def data() -> SiteData:
    return SiteData(catalog=build_catalog(load_registry(REGISTRY)), status=None)


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


def test_big_html_parts_travel_as_slots(data: SiteData) -> None:
    renderer = Renderer(data, "nl")
    page = renderer.connector_page(next(iter(data.catalog.connectors)))
    slots = renderer.take_slots()
    assert slots and renderer.take_slots() == {}
    assert "<table" not in page and all(f'<div data-besluitbron-slot="{key}"></div>' in page for key in slots)
    html = "<p>x</p>\n" + "\n".join(f'<div data-besluitbron-slot="{key}"></div>' for key in slots)
    filled = fill_slots(html, slots)
    assert "data-besluitbron-slot" not in filled and all(part in filled for part in slots.values())


def test_slots_must_match_their_placeholders() -> None:
    with pytest.raises(MarkerError, match="has no content"):
        fill_slots('<div data-besluitbron-slot="s1"></div>', {})
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
        page = Renderer(data, "en").connector_page(c.slug)
        assert page.startswith("---\ndescription: ")
        assert f"# {c.connector.title.en}\n" in page
        assert f"```text\n{data.url(c.slug)}\n```" in page
        for tool in c.tools:
            assert f"{{: #tool-{tool.name} data-tool=\"{tool.name}\" }}" in page


def test_platform_page_without_connector_names_no_address() -> None:
    text = set_switch(REGISTRY.read_text(encoding="utf-8"), _first_source_slug(), "enabled", False)
    registry = parse_registry(json.loads(text))
    data = SiteData(catalog=build_catalog(registry), status=None)
    key = registry.connector(_first_source_slug()).platform
    assert key is not None
    page = Renderer(data, "nl").platform_page(key)
    assert "/mcp" not in page.replace(data.url(data.aggregate.slug), "") if data.aggregate else "/mcp" not in page
    assert "niet via een connector aangeboden" in page


def test_links_are_relative_markdown_links() -> None:
    assert rel_link("connectoren/x.md", "bronplatforms/ori.md") == "../bronplatforms/ori.md"
    assert rel_link("keuzehulp.md", connector_src("wetten")) == "connectoren/wetten.md"
    assert rel_link("explorer.md", "explorer.json") == "explorer.json"


def test_tool_params_reads_the_input_schema() -> None:
    schema = {
        "type": "object",
        "properties": {
            "query": {"type": "string", "minLength": 1, "description": "Words."},
            "kind": {"enum": ["a", "b"]},
            "date_from": {"type": "string", "format": "date"},
            "limit": {"type": "integer", "minimum": 1, "maximum": 50, "default": 10},
            "ids": {"type": "array", "items": {"type": "string"}, "maxItems": 5},
            "maybe": {"type": ["string", "null"]},
        },
        "required": ["query"],
    }
    params = {p.name: p for p in tool_params(schema)}
    assert list(params) == ["query", "kind", "date_from", "limit", "ids", "maybe"]
    assert params["query"].required and not params["limit"].required
    assert params["kind"].type == "enum" and params["kind"].constraints == '"a" · "b"'
    assert params["date_from"].type == "string (date)"
    assert params["limit"].default == "10" and params["limit"].constraints == "≥ 1; ≤ 50"
    assert params["ids"].type == "array of string" and "max items 5" in params["ids"].constraints
    assert params["maybe"].type == "string | null"
    assert tool_params({"type": "object", "properties": {}, "additionalProperties": False}) == ()


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
    data = SiteData(catalog=build_catalog(parse_registry(raw)), status=None)
    expected = {f"/{slug}/mcp" for slug in _SLUGS if slug not in off}
    for lang in LANGUAGES:
        llms = _llms(data, lang)
        explorer = render_explorer_json(data, lang, connection_pages={c.slug: f"x/{c.slug}" for c in data.connectors})
        for rendered in (llms, explorer):
            assert set(re.findall(r"/[a-z0-9]+/mcp", rendered)) == expected
        for slug in off:
            assert f"connectoren/{slug}." not in llms and f'"slug": "{slug}"' not in explorer
        chooser = Renderer(data, lang).marker("chooser", "keuzehulp.md")
        assert set(re.findall(r"/[a-z0-9]+/mcp", chooser)) == expected


# --------------------------------------------------------------------------- status snapshot


def test_status_snapshot_parses_the_status_shape() -> None:
    snapshot = parse_status_snapshot({
        "server": "BesluitBron", "stalled_after_days": 60,
        "sources": [{"source": "ori", "receiving": True, "current_through": "2026-11-01",
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
