"""A request runs to its end on the generation it started on; the import map has no cycles."""

from __future__ import annotations

import ast
import asyncio
import json
import tokenize
from collections.abc import Callable
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from proxy.registry.model import load_registry
from proxy.web.app import reload_registry
from tests.conftest import REGISTRY, LiveServer, Replicas, client, connector_entry, serve, write_registry
from tests.conftest_mcp import text_of

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("proxy", "site_hooks")


async def _reload_during_call(live: LiveServer, replicas: Replicas, arguments: dict[str, Any],
                              edit: Callable[[dict[str, Any]], None]) -> Any:
    """Start search_members on a slow platform, reload with `edit` applied while it waits, return its result."""
    replicas.faults("tweedekamer").update({"latency_ms": 1500})
    try:
        async with client(live.url("tweedekamer"), "legacy") as c:
            await c.list_tools()  # the client checks results against the schemas it listed
            call = asyncio.create_task(c.call_tool("search_members", arguments))
            await asyncio.sleep(0.5)  # the call is now waiting on the platform
            data = json.loads(live.registry_path.read_text(encoding="utf-8"))
            edit(data)
            live.registry_path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
            assert await reload_registry(live.app)
            assert not call.done()
            return await call
    finally:
        replicas.clear_faults()


async def test_a_call_in_flight_keeps_its_generations_settings(replicas: Replicas, tmp_path: Path) -> None:
    def impatient(data: dict[str, Any]) -> None:
        data["platforms"]["tweedekamer"]["timeouts"] = {"connect_seconds": 0.2, "total_seconds": 0.3}

    async with serve(write_registry(tmp_path), replicas) as live:
        result = await _reload_during_call(live, replicas, {"party": "VVD", "limit": 2}, impatient)
        assert not result.is_error, result.content  # started under the 20 s timeout: finished under it
        replicas.faults("tweedekamer").update({"latency_ms": 1500})
        async with client(live.url("tweedekamer"), "legacy") as c:
            fresh = await c.call_tool("search_members", {"party": "VVD", "limit": 3})
        replicas.clear_faults()
        assert fresh.is_error and "0.3 s" in text_of(fresh)  # a new call gets the new setting


async def test_a_call_in_flight_keeps_its_generations_tools(replicas: Replicas, tmp_path: Path) -> None:
    def switch_off(data: dict[str, Any]) -> None:
        connector_entry(data, "tweedekamer")["enabled"] = False

    async with serve(write_registry(tmp_path), replicas) as live:
        result = await _reload_during_call(live, replicas, {"party": "VVD", "limit": 2}, switch_off)
        assert not result.is_error and result.structured_content["results"], result.content
        async with aiohttp.ClientSession() as http, http.post(live.url("tweedekamer"), json={}) as resp:
            assert resp.status == 404  # the address itself is gone for everyone who comes after


# --------------------------------------------------------------------------- import map


def _imports(path: Path, module: str) -> set[str]:
    """The project modules `path` imports, TYPE_CHECKING imports included (a cycle there still tangles)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module.rsplit(".", 1)[0] if path.name != "__init__.py" else module
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return {name for name in found if name.split(".")[0] in PACKAGES}


def import_map() -> dict[str, set[str]]:
    modules = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if "replica" in path.parts:
                continue
            parts = path.relative_to(ROOT).with_suffix("").parts
            modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    graph = {name: _imports(path, name) & set(modules) for name, path in modules.items()}
    for name, edges in graph.items():  # importing a package's module also runs the package's __init__
        edges.discard(name)
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return [*stack[stack.index(nxt):], nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return None


def test_no_import_cycle_among_proxy_and_site_hooks_modules() -> None:
    graph = import_map()
    assert len(graph) > 30 and "proxy.serving.endpoint" in graph["proxy.serving.runtime"]
    assert _cycle(graph) is None, " → ".join(_cycle(graph) or [])


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


# The stages of `proxy/`, top to bottom (README "Layout"): a module imports its own folder or one below, never one
# above. The site's hooks sit on the catalog and below, beside the web face, never on it.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("proxy", "proxy.__main__"),
    ("proxy.maintain",),
    ("proxy.web",),
    ("site_hooks",),
    ("proxy.serving",),
    ("proxy.catalog",),
    ("proxy.platforms", "proxy.remote"),
    ("proxy.plugin",),
    ("proxy.results",),
    ("proxy.registry",),
    ("proxy.state",),
    ("proxy.observe", "proxy.core"),
)


def _folder(module: str) -> str:
    """The LAYERS folder `module` belongs to."""
    found = [f for folders in LAYERS for f in folders if module == f or module.startswith(f + ".")]
    if not found:
        raise AssertionError(f"{module} is in no folder of LAYERS: add its folder")
    return max(found, key=len)


def _layer(module: str) -> int:
    return next(rank for rank, folders in enumerate(LAYERS) if _folder(module) in folders)


def _upward(graph: dict[str, set[str]]) -> list[str]:
    """Every arrow to a higher layer, or sideways to another folder of the same layer."""
    return sorted(f"{a} → {b}" for a, edges in graph.items() for b in edges
                  if _layer(b) < _layer(a) or (_layer(b) == _layer(a) and _folder(a) != _folder(b)))


def test_imports_point_down_the_stages() -> None:
    graph = import_map()
    # `from proxy import __version__` is the package itself, not a stage
    graph = {name: {e for e in edges if e != "proxy"} for name, edges in graph.items()}
    assert _upward(graph) == []


def test_the_stage_guard_sees_an_arrow_back_up() -> None:
    assert _upward({"proxy.core.errors": {"proxy.web.app"}, "proxy.web.app": set()}) == [
        "proxy.core.errors → proxy.web.app"]
    assert _upward({"proxy.web.app": {"proxy.core.errors"}, "proxy.core.errors": set()}) == []


@pytest.mark.parametrize("module", ["proxy.serving.endpoint", "proxy.serving.meta", "proxy.serving.loadstatus"])
def test_request_modules_do_not_reach_back_to_the_runtime(module: str) -> None:
    assert "proxy.serving.runtime" not in import_map()[module]


def _string_literals(path: Path) -> set[str]:
    """The plain string constants of a module (no docstrings, no f-strings, no bytes)."""
    found = set()
    with path.open("rb") as source:
        for token in tokenize.tokenize(source.readline):
            if token.type != tokenize.STRING:
                continue
            body = token.string.lstrip("rbufRBUF")
            prefix = token.string[:len(token.string) - len(body)].lower()
            if "f" in prefix or "b" in prefix or body[:3] in ('"""', "'''"):
                continue
            found.add(ast.literal_eval(token.string))
    return found


def test_no_module_outside_the_platforms_and_replicas_names_a_platform_key() -> None:
    """What is particular to one platform (its canary, how search reaches it, the words people find it by) lives in
    its plug-in; the rest of the code knows platforms only as the registry lists them. `tests/test_plugins.py`
    shows that a platform can then be added without touching anything else."""
    keys = set(load_registry(REGISTRY).platforms)
    named = {}
    for package in ("proxy", "site_hooks"):
        for path in sorted((ROOT / package).rglob("*.py")):
            if {"platforms", "replica"} & set(path.relative_to(ROOT).parts):
                continue
            if found := keys & _string_literals(path):
                named[str(path.relative_to(ROOT))] = sorted(found)
    assert named == {}


def _layout_rows() -> set[str]:
    """`folder/module` for every module the README's layout table names (a row without a folder continues the last)."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    table = readme[readme.index("## Layout"):readme.index("### The way of a tool result")]
    named, folder = set(), ""
    for row in table.splitlines():
        cells = [c.strip() for c in row.strip().strip("|").split("|")]
        if len(cells) < 3 or not row.startswith("|"):
            continue
        folder = cells[0].strip("`") or folder
        named.add(folder)
        named.update(folder + m.strip("` ") for m in cells[1].split(",") if m.strip().endswith(".py`"))
    return named


def test_the_readme_layout_names_every_module() -> None:
    """A newcomer finds every folder of `proxy/`, and every module of the stage folders, in the README's layout
    table. The plug-in folders (one module per platform) are named as folders."""
    named = _layout_rows()
    expected = {"proxy/" + p.relative_to(ROOT / "proxy").as_posix()
                for p in (ROOT / "proxy").glob("*/*.py")
                if p.name != "__init__.py" and p.parent.name not in ("platforms", "replica", "remote")}
    expected |= {f"proxy/{p.name}/" for p in (ROOT / "proxy").iterdir() if (p / "__init__.py").exists()}
    assert sorted(expected - named) == []


def test_every_meta_tool_name_has_its_behaviour_in_one_table() -> None:
    """The registry names the meta tools (META_TOOL_NAMES); proxy.serving.meta.META_RUNS says what each does, and
    nothing else chooses between them."""
    from proxy.core.toolnames import META_TOOL_NAMES
    from proxy.serving.meta import META_RUNS

    assert tuple(META_RUNS) == META_TOOL_NAMES
