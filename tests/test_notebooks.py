"""The notebooks under ``notebooks/`` run top to bottom, and are committed executed.

They are committed with their outputs (made with ``MEEPLEZOO_FAST=1
MEEPLEZOO_NOTEBOOK_STATIC=1``: small budgets, replays as pictures) so that a
repository viewer shows them; the tests below check those outputs are complete,
error-free and small, and execute every notebook again.

They are executed in order (02 leaves the checkpoint that 04 enters in its
league; 03 explores the shipped network) in one scratch folder, with ``MEEPLEZOO_FAST=1`` so the
budgets are small.  This is what ``MEEPLEZOO_FAST=1 pytest --nbmake notebooks/``
does too; running them here puts them in the default suite.  A notebook whose
pieces have not landed (a game, a heuristic, the MCTS agent) is skipped with
the missing piece named.
"""

from __future__ import annotations

import importlib
import json
import os
from pathlib import Path

import pytest

import meeplezoo

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
ORDER = ["01_quickstart", "02_train_baseline", "03_explore_policy", "04_league"]
#: game of the training notebooks (02-04)
TRAIN_GAME = "hawaii"


def _heuristic_missing(game: str) -> str | None:
    from meeplezoo.agents import make as make_agent

    try:
        make_agent("heuristic", game, num_players=2, seed=0)
    except ImportError as e:
        return f"the {game} heuristic ({e})"
    return None


def _module_missing(module: str) -> str | None:
    try:
        importlib.import_module(module)
    except ImportError as e:
        return f"{module} ({e})"
    return None


def _game_missing(game: str) -> str | None:
    try:
        meeplezoo.game_class(game)
    except ImportError as e:
        return f"the game {game} ({e})"
    return None


def missing_pieces(notebook: str) -> list[str]:
    """What a notebook needs that does not import yet."""
    checks = []
    if notebook == "01_quickstart":
        checks += [lambda g=g: _game_missing(g) or _heuristic_missing(g) for g in meeplezoo.list_envs()]
    else:
        checks += [lambda: _game_missing(TRAIN_GAME), lambda: _heuristic_missing(TRAIN_GAME)]
        checks += [lambda: _module_missing("sb3_contrib"), lambda: _module_missing("meeplezoo.training.ppo")]
    if notebook in ("03_explore_policy", "04_league"):
        checks.append(lambda: _module_missing("meeplezoo.agents.mcts"))
    if notebook == "04_league":
        checks.append(lambda: _module_missing("meeplezoo.training.league"))
    return [m for m in (c() for c in checks) if m]


def read(name: str) -> dict:
    return json.loads((NOTEBOOKS / f"{name}.ipynb").read_text())


def test_every_notebook_is_listed():
    assert sorted(p.stem for p in NOTEBOOKS.glob("*.ipynb")) == sorted(ORDER)


#: largest committed notebook, outputs included
MAX_NOTEBOOK_BYTES = 600_000


@pytest.mark.parametrize("name", ORDER)
def test_committed_executed_with_small_outputs(name):
    nb = read(name)
    assert nb["nbformat"] == 4
    assert nb["metadata"]["kernelspec"]["name"] == "python3"
    counts = []
    hint = "execute them in order with their outputs: python scripts/execute_notebooks.py"
    for cell in nb["cells"]:
        if cell["cell_type"] != "code":
            continue
        assert cell["execution_count"] is not None, f"{name}: cell {cell.get('id')} was not executed; {hint}"
        counts.append(cell["execution_count"])
        for out in cell["outputs"]:
            assert out["output_type"] != "error", f"{name}: cell {cell.get('id')} stored an error"
            assert "<iframe" not in "".join(out.get("data", {}).get("text/html", "")), (
                f"{name}: an interactive viewer is stored (a repository viewer cannot run it); {hint}")
    assert counts == sorted(counts), f"{name}: cells were not executed top to bottom; {hint}"
    assert any(c["outputs"] for c in nb["cells"] if c["cell_type"] == "code")
    size = (NOTEBOOKS / f"{name}.ipynb").stat().st_size
    assert size < MAX_NOTEBOOK_BYTES, f"{name}: {size} bytes with outputs; keep pictures small"


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    """One scratch folder for the whole sequence (the checkpoint of 02 is reused by 03 and 04)."""
    return tmp_path_factory.mktemp("notebooks")


@pytest.mark.parametrize("name", ORDER)
def test_notebook_runs(name, workdir, monkeypatch):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    missing = missing_pieces(name)
    if missing:
        pytest.skip(f"{name} needs pieces that have not landed: {'; '.join(missing)}")
    monkeypatch.setenv("MEEPLEZOO_FAST", "1")
    monkeypatch.setenv("MEEPLEZOO_NOTEBOOK_OUT", str(workdir))
    monkeypatch.setenv("PYDEVD_DISABLE_FILE_VALIDATION", "1")
    nb = nbformat.read(NOTEBOOKS / f"{name}.ipynb", as_version=4)
    client = nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                                     resources={"metadata": {"path": str(workdir)}})
    try:
        client.execute()
    except nbclient.exceptions.CellExecutionError as e:
        pytest.fail(f"{name} failed:\n{str(e)[-4000:]}")
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.get("output_type") == "error"]
    assert not errors
    if os.environ.get("MEEPLEZOO_KEEP_EXECUTED"):  # to look at the executed notebooks
        nbformat.write(nb, Path(os.environ["MEEPLEZOO_KEEP_EXECUTED"]) / f"{name}.ipynb")
