"""Site build time: the shipped registry against synthetic 50-, 200- and 500-source registries (nl + en).

    .venv/bin/python bench/bench_site.py [--repeats N] [--sizes 50 200 500] [--profile FILE]

A synthetic registry of size N has N source platforms, N source connectors and the aggregate
(N + 1 connectors). Platform i is a copy of a real platform (cycling through them) under the key
`<real>_<nnn>` with its own prefix, and its connector carries the real connector's tool words.
Only the real platforms have implementation modules, so the build runs with the benchmark-only
switch `SiteInput.plugins = "bench.bench_site:synthetic_plugins"`, which hands
the catalogue the *real* tool plugins (schemas included) of `<real>` for `<real>_<nnn>`.
Everything else is the normal `mkdocs build --strict`, run in a subprocess like `make site`.

Reported: wall seconds (best of the repeats), the CPU seconds (user + system) of that build, which
say more than wall time on a machine that is busy with other work, the ratio to the shipped
registry measured in the same run, the part of it that is `build_catalog` (timed in-process on the same registry: it
validates every tool schema, and the server pays it too), and seconds per added connector between
the first and last synthetic sizes (linear growth keeps that constant), and the largest HTML page.
Targets (issue 14): the 500-connector site under 20 s, growing linearly, no page over 1 MB.
`--profile FILE` instead builds the largest synthetic size once under cProfile and prints where the time goes.
"""

from __future__ import annotations

import argparse
import copy
import dataclasses
import json
import pstats
import resource
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench._harness import CORES, pin  # noqa: E402
from proxy.catalog.build import _schema_problem, build_catalog, load_plugin  # noqa: E402
from proxy.plugin.toolkit import PlatformPlugin  # noqa: E402
from proxy.registry.model import Registry, load_registry, parse_registry  # noqa: E402
from tests.site_helpers import run_mkdocs_build  # noqa: E402

__all__ = ["synthetic_plugins", "synthetic_registry"]

PLUGINS = "bench.bench_site:synthetic_plugins"
_SEPARATOR = "_"


def synthetic_registry(base: Mapping[str, Any], sources: int) -> dict[str, Any]:
    """A registry with `sources` cloned source platforms and connectors, plus the aggregate."""
    real = [c for c in base["connectors"] if not c.get("aggregate")]
    aggregate = next(c for c in base["connectors"] if c.get("aggregate"))
    data = copy.deepcopy(dict(base))
    data["platforms"], data["connectors"] = {}, []
    for i in range(1, sources + 1):
        model = real[(i - 1) % len(real)]
        key = f"{model['platform']}{_SEPARATOR}{i:03d}"
        platform = copy.deepcopy(base["platforms"][model["platform"]])
        platform["prefix"] = f"s{i:03d}"
        platform["title"] = {lang: f"{text} {i:03d}" for lang, text in platform["title"].items()}
        data["platforms"][key] = platform
        connector = copy.deepcopy(model)
        connector.update(slug=f"bron{i:03d}", platform=key, enabled=True, in_footer=False,
                         title={lang: f"{text} {i:03d}" for lang, text in model["title"].items()})
        data["connectors"].append(connector)
    data["connectors"].append(copy.deepcopy(aggregate))
    parse_registry(data)  # the synthetic registry must be as valid as a real one
    return data


def synthetic_plugins(registry: Registry) -> dict[str, PlatformPlugin]:
    """Benchmark only: the real platform's plug-in, under its clone's key, for every `<real>_<nnn>`."""
    return {key: dataclasses.replace(load_plugin(key.rsplit(_SEPARATOR, 1)[0]), key=key) for key in registry.platforms}


def time_build(registry_path: Path, out_root: Path, *, plugins: str | None,
               repeats: int) -> tuple[float, float]:
    """Best wall time of `repeats` strict builds (each into a fresh directory), and that build's CPU time."""
    best = (float("inf"), float("inf"))
    for attempt in range(repeats):
        out = out_root / f"{registry_path.stem}-{attempt}"
        cpu_before = _children_cpu()
        started = time.perf_counter()
        proc = run_mkdocs_build(registry_path, out, plugins=plugins, timeout=600)
        elapsed = time.perf_counter() - started
        if proc.returncode != 0:
            raise SystemExit(f"build failed for {registry_path.name}:\n{proc.stdout}\n{proc.stderr}")
        best = min(best, (elapsed, _children_cpu() - cpu_before))
    return best


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def time_catalog(registry_path: Path, *, synthetic: bool, repeats: int) -> float:
    """Best in-process time of `build_catalog` for a registry, as the hooks call it (in a fresh build
    process: the schema check's cache is emptied first)."""
    registry = load_registry(registry_path)
    best = float("inf")
    for _ in range(repeats):
        _schema_problem.cache_clear()
        started = time.perf_counter()
        build_catalog(registry, synthetic_plugins(registry) if synthetic else None)
        best = min(best, time.perf_counter() - started)
    return best


def _pages(site: Path) -> tuple[int, int, str]:
    """Number of HTML pages, and the size and path of the largest one."""
    pages = [(p.stat().st_size, p) for p in site.rglob("*.html")]
    size, path = max(pages)
    return len(pages), size, str(path.relative_to(site))


def run(*, sizes: Sequence[int] = (50, 200, 500), repeats: int = 2) -> dict[str, Any]:
    """Build the shipped and the synthetic registries; time, CPU, catalogue share and largest page."""
    pin(None)  # every core, as `make site` has: the build forks a process per language (the other parts pin)
    base = json.loads((ROOT / "registry.json").read_text(encoding="utf-8"))
    shipped_connectors = sum(1 for c in base["connectors"] if c["enabled"])
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="bench-site-") as tmp:
        root = Path(tmp)
        builds = [("shipped registry", ROOT / "registry.json", None, len(base["platforms"]), shipped_connectors)]
        for size in sizes:
            path = root / f"synthetic-{size}.json"
            path.write_text(json.dumps(synthetic_registry(base, size), ensure_ascii=False), encoding="utf-8")
            builds.append((f"synthetic {size}", path, PLUGINS, size, size + 1))
        for name, path, plugins, platforms, connectors in builds:
            seconds, cpu = time_build(path, root, plugins=plugins, repeats=repeats)
            catalog = time_catalog(path, synthetic=plugins is not None, repeats=repeats)
            pages, largest, largest_path = _pages(root / f"{path.stem}-0")
            rows.append({"registry": name, "platforms": platforms, "connectors": connectors, "pages": pages,
                         "seconds": seconds, "cpu_seconds": cpu, "catalog_seconds": catalog,
                         "largest_page_bytes": largest, "largest_page": largest_path})
    for row in rows:
        row["x_shipped"] = row["seconds"] / rows[0]["seconds"]
    synthetic = rows[1:]
    per = None
    if len(synthetic) >= 2:
        first, last = synthetic[0], synthetic[-1]
        per = (last["seconds"] - first["seconds"]) / (last["connectors"] - first["connectors"])
    return {"repeats": repeats, "rows": rows, "seconds_per_connector": per, "cores": len(CORES) or 1}


def profile(size: int, out: Path) -> None:
    """One strict build of the `size`-source synthetic registry under cProfile; then the top of it."""
    base = json.loads((ROOT / "registry.json").read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory(prefix="bench-site-") as tmp:
        path = Path(tmp) / f"synthetic-{size}.json"
        path.write_text(json.dumps(synthetic_registry(base, size), ensure_ascii=False), encoding="utf-8")
        proc = run_mkdocs_build(path, Path(tmp) / "site", plugins=PLUGINS, profile_to=out, timeout=1800)
        if proc.returncode != 0:
            raise SystemExit(f"build failed:\n{proc.stdout}\n{proc.stderr}")
    stats = pstats.Stats(str(out))
    stats.sort_stats("cumulative").print_stats(60)
    stats.sort_stats("tottime").print_stats(30)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--sizes", type=int, nargs="+", default=[50, 200, 500])
    parser.add_argument("--profile", type=Path, help="profile one build of the largest size and print the top")
    args = parser.parse_args(argv)
    if args.profile:
        profile(max(args.sizes), args.profile)
        return 0
    result = run(sizes=args.sizes, repeats=args.repeats)
    print(f"site build, nl + en, mkdocs build --strict, best of {args.repeats}")
    print(f"{'registry':<18} {'connectors':>10} {'pages':>6} {'seconds':>8} {'cpu':>6} {'× shipped':>10} "
          f"{'catalogue':>10} {'largest page':>13}")
    for r in result["rows"]:
        print(f"{r['registry']:<18} {r['connectors']:>10} {r['pages']:>6} {r['seconds']:>8.2f} "
              f"{r['cpu_seconds']:>6.2f} {r['x_shipped']:>10.2f} {r['catalog_seconds']:>10.2f} "
              f"{r['largest_page_bytes'] / 1e6:>10.2f} MB  {r['largest_page']}")
    if result["seconds_per_connector"] is not None:
        print(f"seconds per added connector: {result['seconds_per_connector']:.4f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
