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

from proxy.app import reload_registry
from proxy.registry import load_registry
from tests.conftest import REGISTRY, LiveServer, Replicas, client, serve, write_registry

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
        assert fresh.is_error and "0.3 s" in fresh.content[0].text  # a new call gets the new setting


async def test_a_call_in_flight_keeps_its_generations_tools(replicas: Replicas, tmp_path: Path) -> None:
    def switch_off(data: dict[str, Any]) -> None:
        next(c for c in data["connectors"] if c["slug"] == "tweedekamer")["enabled"] = False

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
    found = set()
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
    assert len(graph) > 30 and "proxy.endpoint" in graph["proxy.runtime"]
    assert _cycle(graph) is None, " → ".join(_cycle(graph) or [])


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


@pytest.mark.parametrize("module", ["proxy.endpoint", "proxy.meta", "proxy.loadstatus"])
def test_request_modules_do_not_reach_back_to_the_runtime(module: str) -> None:
    assert "proxy.runtime" not in import_map()[module]


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


def test_the_readme_layout_names_every_module() -> None:
    """A newcomer finds every module of `proxy/` (and each of its packages) in the README's layout table."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    table = readme[readme.index("## Layout"):]
    missing = [f"proxy/{p.name}" for p in sorted((ROOT / "proxy").iterdir())
               if (p.suffix == ".py" or (p.is_dir() and (p / "__init__.py").exists()))
               and f"proxy/{p.name}" not in table]
    assert missing == []


def test_every_meta_tool_name_has_its_behaviour_in_one_table() -> None:
    """The registry names the meta tools (META_TOOL_NAMES); proxy.meta.META_RUNS says what each does, and nothing
    else chooses between them."""
    from proxy.meta import META_RUNS
    from proxy.registry import META_TOOL_NAMES

    assert tuple(META_RUNS) == META_TOOL_NAMES
