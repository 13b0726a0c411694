"""Site build time: the shipped registry against synthetic 100- and 200-source registries (nl + en).

    .venv/bin/python bench/bench_site.py [--repeats N] [--sizes 100 200]

A synthetic registry of size N has N source platforms, N source connectors and the aggregate
(N + 1 connectors). Platform i is a copy of a real platform (cycling through them) under the key
`<real>_<nnn>` with its own prefix, and its connector carries the real connector's tool words.
Only the real platforms have implementation modules, so the build runs with the benchmark-only
switch `BESLUITBRON_SITE_PLUGINS=bench.bench_site:synthetic_plugins`, which hands
the catalogue the *real* tool plugins (schemas included) of `<real>` for `<real>_<nnn>`.
Everything else is the normal `mkdocs build --strict`, run in a subprocess like `make site`.

Reported: wall seconds (best of the repeats), the CPU seconds (user + system) of that build, which
say more than wall time on a machine that is busy with other work, the ratio to the shipped
registry measured in the same run, the part of it that is `build_catalog` (timed in-process on the same registry: it
validates every tool schema, and the server pays it too), and seconds per added connector between
the two synthetic sizes (linear growth keeps that constant). Target: the 200-source site under
10 s on this machine.
"""

from __future__ import annotations

import argparse
import copy
import dataclasses
import json
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

from proxy.catalog import _schema_problem, build_catalog, load_plugin  # noqa: E402
from proxy.registry import Registry, load_registry, parse_registry  # noqa: E402
from proxy.toolkit import PlatformPlugin  # noqa: E402
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


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 200])
    args = parser.parse_args(argv)

    base = json.loads((ROOT / "registry.json").read_text(encoding="utf-8"))
    shipped_connectors = sum(1 for c in base["connectors"] if c["enabled"])
    with tempfile.TemporaryDirectory(prefix="bench-site-") as tmp:
        root = Path(tmp)
        rows: list[tuple[str, int, int, int, float, float, float]] = []
        shipped, shipped_cpu = time_build(ROOT / "registry.json", root, plugins=None, repeats=args.repeats)
        catalog = time_catalog(ROOT / "registry.json", synthetic=False, repeats=args.repeats)
        pages = sum(1 for _ in (root / "registry-0").rglob("*.html"))
        rows.append(("shipped registry", len(base["platforms"]), shipped_connectors, pages, shipped, shipped_cpu,
                     catalog))
        for size in args.sizes:
            path = root / f"synthetic-{size}.json"
            path.write_text(json.dumps(synthetic_registry(base, size), ensure_ascii=False), encoding="utf-8")
            seconds, cpu = time_build(path, root, plugins=PLUGINS, repeats=args.repeats)
            catalog = time_catalog(path, synthetic=True, repeats=args.repeats)
            pages = sum(1 for _ in (root / f"{path.stem}-0").rglob("*.html"))
            rows.append((f"synthetic {size}", size, size + 1, pages, seconds, cpu, catalog))

    print(f"site build, nl + en, mkdocs build --strict, best of {args.repeats}")
    print(f"{'registry':<18} {'platforms':>9} {'connectors':>10} {'pages':>6} {'seconds':>8} {'cpu':>6} "
          f"{'× shipped':>10} {'catalogue':>10} {'rest':>6}")
    for name, platforms, connectors, pages, seconds, cpu, catalog in rows:
        print(f"{name:<18} {platforms:>9} {connectors:>10} {pages:>6} {seconds:>8.2f} {cpu:>6.2f} "
              f"{seconds / shipped:>10.2f} {catalog:>10.2f} {seconds - catalog:>6.2f}")
    synthetic = rows[1:]
    if len(synthetic) >= 2:
        (_, _, c1, _, t1, _, _), (_, _, c2, _, t2, _, _) = synthetic[0], synthetic[-1]
        per = (t2 - t1) / (c2 - c1)
        print(f"seconds per added connector ({c1} → {c2}): {per:.4f}; "
              f"linear prediction for {c2} from shipped: {shipped + per * (c2 - shipped_connectors):.2f} s")
    largest = synthetic[-1][4] if synthetic else shipped
    print(f"target: largest synthetic site under 10 s → {'met' if largest < 10 else 'MISSED'} ({largest:.2f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
