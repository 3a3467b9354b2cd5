"""The package's layers: every import (module level or inside a function) goes down or sideways, never up.

Layers, lowest first:

0. ``meeplezoo.envs.core``: the engine protocol and the generic adapters; knows no game, no agent, no name;
1. the games: ``meeplezoo.envs.<game>`` and its entry module ``meeplezoo.envs.<game>_v<N>``, each importing
   only ``envs.core`` and itself (never another game);
2. ``meeplezoo.registry`` (game discovery and by-name construction), ``meeplezoo._version`` and
   ``meeplezoo.knobs`` (settings declared once; imports nothing of the package) and
   ``meeplezoo.threads`` (the process's BLAS threads for network inference; imports nothing of the package);
3. ``meeplezoo.agents``;
4. ``meeplezoo.training`` (its ``*_cli`` front-ends belong to the application layer);
5. the application: ``meeplezoo`` itself (``__init__`` wires the by-name resolvers), the CLI, bench,
   the OpenSpiel adapter, ``meeplezoo.testing``.

The graph is built with ``ast`` from the source folders of the package-dir mapping, so an import that only
runs inside a function counts as much as one at the top of a module.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE_DIR = {"meeplezoo": "meeplezoo", "meeplezoo.envs": "envs", "meeplezoo.agents": "agents",
               "meeplezoo.training": "training"}
ENTRY = re.compile(r"meeplezoo\.envs\.([a-z][a-z0-9_]*)_v\d+$")
APP = {"meeplezoo", "meeplezoo.__main__", "meeplezoo.cli", "meeplezoo.bench", "meeplezoo.openspiel", "meeplezoo.rllib",
       "meeplezoo.testing"}


def package_modules() -> dict[str, Path]:
    """Module name -> source file, over the package-dir mapping (nested mappings win)."""
    mods: dict[str, Path] = {}
    for pkg, folder in sorted(PACKAGE_DIR.items(), key=lambda kv: len(kv[0])):
        base = ROOT / folder
        for path in base.rglob("*.py"):
            rel = path.relative_to(base).with_suffix("")
            parts = [p for p in rel.parts if p != "__init__"]
            mods[".".join([pkg, *parts])] = path
    return mods


MODULES = package_modules()


def _is_package(name: str) -> bool:
    return MODULES.get(name, Path()).name == "__init__.py"


def imports_of(name: str) -> set[str]:
    """Package modules ``name`` imports, anywhere in its source."""
    tree = ast.parse(MODULES[name].read_text(encoding="utf-8"), str(MODULES[name]))
    here = name if _is_package(name) else name.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here.split(".")
                base = base[: len(base) - (node.level - 1)]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            targets = [f"{mod}.{a.name}" if f"{mod}.{a.name}" in MODULES else mod for a in node.names]
        else:
            continue
        for t in targets:
            if t == "meeplezoo" or t.startswith("meeplezoo."):
                while t not in MODULES and "." in t:  # `import meeplezoo.envs.core.game as g` -> that module
                    t = t.rpartition(".")[0]
                out.add(t)
    out.discard(name)
    return out


def unit(name: str) -> tuple[int, str]:
    """(layer, unit) of a module: units are what the no-cycle rule is about."""
    if name == "meeplezoo.envs.core" or name.startswith("meeplezoo.envs.core."):
        return 0, "core"
    m = ENTRY.match(name)
    if m:
        return 1, f"game:{m.group(1)}"
    if name == "meeplezoo.envs":
        return 1, "envs"
    if name.startswith("meeplezoo.envs."):
        return 1, f"game:{name.split('.')[2]}"
    if name in ("meeplezoo.registry", "meeplezoo._version", "meeplezoo.threads", "meeplezoo.knobs"):
        return 2, "registry"
    if name == "meeplezoo.agents" or name.startswith("meeplezoo.agents."):
        return 3, "agents"
    if name == "meeplezoo.training" or name.startswith("meeplezoo.training."):
        return (5, "app") if name.endswith("_cli") else (4, "training")
    if name in APP or name.startswith("meeplezoo.serve"):
        return 5, "app"
    raise AssertionError(f"module {name} has no layer: add it to tests/test_layering.py")


GRAPH = {name: imports_of(name) for name in MODULES}


def test_every_module_has_a_layer():
    for name in MODULES:
        unit(name)
    assert {"meeplezoo.envs.core.gym", "meeplezoo.envs.core.replay", "meeplezoo.registry"} <= set(MODULES)


@pytest.mark.parametrize("name", sorted(MODULES))
def test_imports_go_down(name):
    layer, own = unit(name)
    for target in sorted(GRAPH[name]):
        t_layer, t_unit = unit(target)
        assert t_layer <= layer, f"{name} (layer {layer}, {own}) imports {target} (layer {t_layer}, {t_unit})"
        if own.startswith("game:") and t_unit.startswith("game:"):
            assert t_unit == own, f"{name} imports another game: {target}"
        if own == "core":
            assert t_unit == "core", f"envs.core imports {target}"


def test_no_cycles_between_units():
    edges: dict[str, set[str]] = {}
    for name, targets in GRAPH.items():
        src = unit(name)[1]
        edges.setdefault(src, set()).update(unit(t)[1] for t in targets if unit(t)[1] != src)
    state: dict[str, int] = {}

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                raise AssertionError(f"import cycle: {' -> '.join([*path, node, nxt])}")
            if nxt not in state:
                visit(nxt, [*path, node])
        state[node] = 2

    for node in sorted(edges):
        if node not in state:
            visit(node, [])


def test_the_graph_sees_imports_inside_functions():
    # meeplezoo.bench imports the registry only inside functions
    assert "meeplezoo.registry" in GRAPH["meeplezoo.bench"]
