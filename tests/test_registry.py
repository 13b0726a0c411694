"""The registry loader: the shipped file is valid, and every broken variant is refused by name."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from proxy.core.errors import RegistryError
from proxy.registry.model import load_registry, parse_registry
from tests.conftest import connector_entry

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = json.loads((ROOT / "registry.json").read_text(encoding="utf-8"))


def test_shipped_registry_is_valid() -> None:
    registry = parse_registry(SHIPPED)
    assert len(registry.connectors) == len(registry.platforms) + 1
    assert sum(c.aggregate for c in registry.connectors) == 1
    assert [c.slug for c in registry.connectors if c.in_footer] == ["allebronnen"]


def _set(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def edit(data: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        node: Any = data
        for part in parents:
            node = node[int(part)] if part.isdigit() else node[part]
        node[int(last) if last.isdigit() else last] = value
    return edit


def _drop_en_title(data: dict[str, Any]) -> None:
    del data["connectors"][2]["tools"][0]["title"]["en"]


def _duplicate_slug(data: dict[str, Any]) -> None:
    data["connectors"][1]["slug"] = data["connectors"][0]["slug"]


def _second_aggregate(data: dict[str, Any]) -> None:
    extra = copy.deepcopy(connector_entry(data, "allebronnen"))
    extra["slug"] = "nogeen"
    data["connectors"].append(extra)


def _no_aggregate(data: dict[str, Any]) -> None:
    data["connectors"] = [c for c in data["connectors"] if not c.get("aggregate")]


def _unknown_platform(data: dict[str, Any]) -> None:
    connector_entry(data, "wetten")["platform"] = "eerstekamer"


def _reserved_name(data: dict[str, Any]) -> None:
    connector_entry(data, "rechtspraak")["tools"][0]["name"] = "platform_status"


def _long_prefixed_name(data: dict[str, Any]) -> None:
    connector_entry(data, "rechtspraak")["tools"][0]["name"] = "search_rulings_by_court_and_date_range_x"  # 40 chars


def _duplicate_prefix(data: dict[str, Any]) -> None:
    data["platforms"]["woo"]["prefix"] = data["platforms"]["ori"]["prefix"]


def _duplicate_tool(data: dict[str, Any]) -> None:
    tools = connector_entry(data, "tweedekamer")["tools"]
    tools[1]["name"] = tools[0]["name"]


def _aggregate_with_tools(data: dict[str, Any]) -> None:
    connector_entry(data, "allebronnen")["tools"] = copy.deepcopy(connector_entry(data, "wetten")["tools"])


def _orphan_platform(data: dict[str, Any]) -> None:
    data["connectors"] = [c for c in data["connectors"] if c["slug"] != "openoverheid"]


def _public_url_not_admitted(data: dict[str, Any]) -> None:
    data["server"]["public_url"] = "https://besluitbron.nl"


def _connect_over_total(data: dict[str, Any]) -> None:
    data["platforms"]["ori"]["timeouts"] = {"connect_seconds": 30, "total_seconds": 10}


BROKEN: dict[str, tuple[Callable[[dict[str, Any]], None], str]] = {
    "slug pattern": (_set("connectors.3.slug", "Tweede Kamer"),
                     "connectors[3].slug: 'Tweede Kamer' does not match '^[a-z0-9]+$'"),
    "missing en text": (_drop_en_title, "connectors[2].tools[0].title: 'en' is a required property"),
    "empty nl text": (_set("connectors.0.title.nl", "  "), "connectors[0].title.nl: '  ' does not match"),
    "tool name pattern": (_set("connectors.0.tools.0.name", "Search-Documents"),
                          "connectors[0].tools[0].name: 'Search-Documents' does not match"),
    "limit too high": (_set("platforms.ori.limits.results_per_call", 5000),
                       "platforms.ori.limits.results_per_call: 5000 is greater than the maximum of 200"),
    "rate not positive": (_set("platforms.wetten.limits.requests_per_minute", 0),
                          "platforms.wetten.limits.requests_per_minute: 0 is less than the minimum of 1"),
    "enabled not boolean": (_set("connectors.1.enabled", "yes"),
                            "connectors[1].enabled: 'yes' is not of type 'boolean'"),
    "unknown key": (_set("connectors.1.visible", True), "connectors[1]: Additional properties are not allowed"),
    "too many context urls": (_set("domain_policy.context_urls", [f"https://x{i}.nl/" for i in range(21)]),
                              "domain_policy.context_urls: "),
    "duplicate slug": (_duplicate_slug, "connectors[1].slug: 'openraadsinformatie' is already used by connectors[0]"),
    "two aggregates": (_second_aggregate, "connectors: exactly one connector must have 'aggregate': true"),
    "no aggregate": (_no_aggregate, "connectors: exactly one connector must have 'aggregate': true (found none)"),
    "unknown platform": (_unknown_platform, "connectors[4].platform: 'eerstekamer' is not a platform"),
    "reserved name": (_reserved_name, "connectors[5].tools[0].name: 'platform_status' is a reserved meta-tool name"),
    "prefixed name too long": (_long_prefixed_name, "longer than 48 characters"),
    "duplicate prefix": (_duplicate_prefix, "platforms.woo.prefix: 'ori' is already the prefix of platform 'ori'"),
    "duplicate tool": (_duplicate_tool, "connectors[3].tools[1].name: 'search_documents' is already tools[0]"),
    "aggregate with tools": (_aggregate_with_tools, "connectors[7].tools: the aggregate connector"),
    "platform without connector": (_orphan_platform, "platforms.woo: no connector serves this platform"),
    "connect over total": (_connect_over_total, "platforms.ori.timeouts.connect_seconds: must not exceed"),
    "public host not allowed": (_public_url_not_admitted,
                                "server.allowed_hosts: does not admit 'besluitbron.nl', the host of public_url"),
}


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_broken_registry_is_refused_naming_path_and_rule(case: str) -> None:
    edit, expected = BROKEN[case]
    data = copy.deepcopy(SHIPPED)
    edit(data)
    with pytest.raises(RegistryError) as info:
        parse_registry(data)
    assert any(expected in problem for problem in info.value.problems), info.value.problems


def test_invalid_json_names_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "registry.json"
    path.write_text('{"server": {,}}', encoding="utf-8")
    with pytest.raises(RegistryError, match=r"line 1 column 13"):
        load_registry(path)


def test_validate_command_exit_codes(tmp_path: Path) -> None:
    ok = subprocess.run([sys.executable, "-m", "proxy", "validate", str(ROOT / "registry.json")],
                        capture_output=True, text=True, cwd=ROOT)
    assert ok.returncode == 0, ok.stderr
    assert "/allebronnen/mcp" in ok.stdout
    broken = copy.deepcopy(SHIPPED)
    connector_entry(broken, "tweedekamer")["slug"] = "Tweede Kamer"
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(broken), encoding="utf-8")
    bad = subprocess.run([sys.executable, "-m", "proxy", "validate", str(path)], capture_output=True, text=True,
                         cwd=ROOT)
    assert bad.returncode == 1
    assert "connectors[3].slug: 'Tweede Kamer' does not match '^[a-z0-9]+$'" in bad.stderr


def test_switch_commands_edit_one_value_in_place(tmp_path: Path) -> None:
    path = tmp_path / "registry.json"
    original = (ROOT / "registry.json").read_text(encoding="utf-8")
    path.write_text(original, encoding="utf-8")

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "proxy", "registry", *args, "--registry", str(path)],
                              capture_output=True, text=True, cwd=ROOT)

    assert run("disable", "wetten").returncode == 0
    assert run("hide-from-footer", "allebronnen").returncode == 0
    changed = path.read_text(encoding="utf-8")
    diff = [(a, b) for a, b in zip(original.splitlines(), changed.splitlines(), strict=True) if a != b]
    assert diff == [('      "enabled": true,', '      "enabled": false,'),
                    ('      "in_footer": true,', '      "in_footer": false,')]
    registry = load_registry(path)
    assert not registry.connector("wetten").enabled and not registry.connector("allebronnen").in_footer
    unknown = run("enable", "eerstekamer")
    assert unknown.returncode == 1 and "no connector with slug 'eerstekamer'" in unknown.stderr
    assert path.read_text(encoding="utf-8") == changed


@pytest.mark.parametrize(("text", "expected"), [
    ('{"a": NaN}', "NaN is not a number JSON allows"),
    ('{"a": Infinity}', "Infinity is not a number JSON allows"),
    ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
])
def test_numbers_and_shapes_json_does_not_allow_are_refused(tmp_path: Path, text: str, expected: str) -> None:
    path = tmp_path / "registry.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(RegistryError, match=expected):
        load_registry(path)


def test_a_file_that_is_not_utf8_is_refused_by_name(tmp_path: Path) -> None:
    path = tmp_path / "registry.json"
    path.write_bytes((ROOT / "registry.json").read_text(encoding="utf-8").encode("latin-1", errors="replace"))
    with pytest.raises(RegistryError, match="not UTF-8 at byte"):
        load_registry(path)


def test_whole_number_floats_become_integers() -> None:
    data = copy.deepcopy(SHIPPED)
    data["platforms"]["wetten"]["limits"]["results_per_call"] = 5.0
    limit = parse_registry(data).platforms["wetten"].limits.results_per_call
    assert limit == 5 and isinstance(limit, int)


def test_the_schema_and_the_code_share_one_tool_name_rule() -> None:
    """`registry.schema.json` spells the tool-name rule for editors and validators; `proxy.core.toolnames` is the
    rule the code applies: every tool-name pattern in the schema is that one."""
    from proxy.core.toolnames import TOOL_NAME_PATTERN, name_problem

    schema = json.loads((ROOT / "registry.schema.json").read_text(encoding="utf-8"))
    defs = schema["$defs"]
    tool_names = [defs["tool"]["properties"]["name"], defs["remote_tool"]["oneOf"][0],
                  defs["remote_tool"]["oneOf"][1]["properties"]["name"]]
    assert {entry["pattern"] for entry in tool_names} == {TOOL_NAME_PATTERN}
    assert name_problem("search_members", "tk") is None
    assert "reserved meta-tool name" in (name_problem("platform_status", None) or "")
    assert "meta tool's name" in (name_problem("status", "platform") or "")
    assert "longer than 48" in (name_problem("a" * 40, "prefix_long") or "")
    assert "not a tool name" in (name_problem("Search-Members", None) or "")
