"""The package's layers: every import (module level or inside a function) goes down or sideways, never up.

Layers, lowest first:

0. ``meeplezoo.envs.core``: the engine protocol and the generic adapters; knows no game, no agent, no name;
1. the games: ``meeplezoo.envs.<game>`` and its entry module ``meeplezoo.envs.<game>_v<N>``, each importing
   only ``envs.core`` and itself (never another game);
2. ``meeplezoo.registry`` (game discovery and by-name construction), ``meeplezoo._version`` and
   ``meeplezoo.knobs`` (settings declared once; imports nothing of the package) and
   ``meeplezoo.threads`` (the process's BLAS threads for network inference; imports nothing of the package);
3. ``meeplezoo.agents``;
4. ``meeplezoo.training``;
5. the application: ``meeplezoo`` itself (``__init__`` wires the by-name resolvers), the CLI and its command
   modules (``meeplezoo.commands``), bench, the OpenSpiel adapter, ``meeplezoo.testing``.

The graph is built with ``ast`` from the source folders of the package-dir mapping, so an import that only
runs inside a function counts as much as one at the top of a module.  Beyond the layers: no two modules of
the learning side and the application import each other (directly or around a circle); imports of the
package's own modules sit at the top of a module, save a few that load an optional heavy dependency (torch,
stable-baselines3, Ray, OpenSpiel) or are needed late; and the learning side's files and functions stay short
enough to read in one sitting.
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
APP = {"meeplezoo", "meeplezoo.__main__", "meeplezoo.cli", "meeplezoo.bench", "meeplezoo.openspiel",
       "meeplezoo.rllib", "meeplezoo.testing"}
#: the most imports of the package's own modules inside functions, in the whole package
MAX_INNER_IMPORTS = 15
#: the longest file and function (lines) in the folders of SIZE_CHECKED
MAX_FILE_LINES, MAX_FUNCTION_LINES = 500, 80
#: the folders whose files and functions are held to those sizes
SIZE_CHECKED = ["agents", "training", "meeplezoo"]


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
        return 4, "training"
    if name in APP or name.startswith(("meeplezoo.commands", "meeplezoo.serve")):
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


# -- the learning side and the application: module circles, inner imports, sizes --------------------------------
def _module_cycles(modules: set[str]) -> list[list[str]]:
    """The circles of the import graph restricted to ``modules`` (strongly connected parts of two or more)."""
    graph = {m: sorted(t for t in GRAPH[m] if t in modules) for m in modules}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    out: list[list[str]] = []

    def strong(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = []
            while True:
                w = stack.pop()
                part.append(w)
                if w == v:
                    break
            if len(part) > 1:
                out.append(sorted(part))

    for v in sorted(graph):
        if v not in index:
            strong(v)
    return out


def test_no_module_circles_among_agents_training_and_the_application():
    side = {m for m in MODULES if not m.startswith("meeplezoo.envs")}
    assert _module_cycles(side) == []
    assert "meeplezoo.cli" not in GRAPH["meeplezoo.bench"]  # the command line and bench once imported each other


def inner_imports() -> list[str]:
    """``module:line`` of every import of a package module inside a function."""
    found = []
    for name, path in MODULES.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        seen: set[int] = set()
        for fn in ast.walk(tree):
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(fn):
                own = (isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").startswith("meeplezoo"))
                       or isinstance(node, ast.Import) and any(a.name.startswith("meeplezoo") for a in node.names))
                if own and id(node) not in seen:
                    seen.add(id(node))
                    found.append(f"{name}:{node.lineno}")
    return sorted(found)


def test_imports_of_the_package_sit_at_the_top():
    inner = inner_imports()
    assert len(inner) <= MAX_INNER_IMPORTS, f"{len(inner)} imports inside functions: {inner}"


@pytest.mark.parametrize("folder", SIZE_CHECKED)
def test_files_and_functions_are_short(folder):
    too_long = []
    for path in sorted((ROOT / folder).rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        lines = len(text.splitlines())
        if lines > MAX_FILE_LINES:
            too_long.append(f"{path.relative_to(ROOT)}: {lines} lines")
        for fn in ast.walk(ast.parse(text)):
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                n = fn.end_lineno - fn.lineno + 1
                if n > MAX_FUNCTION_LINES:
                    too_long.append(f"{path.relative_to(ROOT)}:{fn.lineno} {fn.name}: {n} lines")
    assert not too_long, too_long


def test_expert_iteration_and_the_command_line_load_no_stable_baselines():
    """The self-play workers load the expert-iteration module, and every command builds the parser: neither
    may import stable-baselines3 (nor torch, which the trainers load when they first train)."""
    import subprocess
    import sys

    code = ("import sys, meeplezoo.training.exit, meeplezoo.training.distill, meeplezoo.training.finetune, "
            "meeplezoo.cli; meeplezoo.cli.build_parser(); "
            "print(','.join(m for m in ('stable_baselines3', 'sb3_contrib', 'torch', 'ray') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd="/")
    assert out.stdout.strip() == ""
