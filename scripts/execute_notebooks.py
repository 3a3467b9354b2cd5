"""Execute the notebooks in order and store their outputs in place (what is committed).

    python scripts/execute_notebooks.py [--full] [NAME ...]

Small budgets (``MEEPLEZOO_FAST=1``; ``--full``: the notebooks' real budgets, as
03_explore_policy's outputs are made) and outputs a repository viewer can show
(``MEEPLEZOO_NOTEBOOK_STATIC=1``: replays as pictures, smaller figures); the
files the notebooks write go to ``runs/notebooks/`` under a scratch folder.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import nbclient
import nbformat

ROOT = Path(__file__).resolve().parent.parent
ORDER = ["01_quickstart", "02_train_baseline", "03_explore_policy", "04_league"]


def main(names: list[str]) -> int:
    full = "--full" in names
    names = [n for n in names if n != "--full"]
    os.environ.update({"MEEPLEZOO_FAST": "1", "MEEPLEZOO_NOTEBOOK_STATIC": "1", "PYDEVD_DISABLE_FILE_VALIDATION": "1"})
    if full:
        del os.environ["MEEPLEZOO_FAST"]
    os.environ.pop("MEEPLEZOO_NOTEBOOK_OUT", None)
    work = tempfile.mkdtemp(prefix="meeplezoo-notebooks-")
    for name in names or ORDER:
        path = ROOT / "notebooks" / f"{name}.ipynb"
        nb = nbformat.read(path, as_version=4)
        nbclient.NotebookClient(nb, timeout=900, kernel_name="python3",
                                resources={"metadata": {"path": work}}).execute()
        for cell in nb.cells:
            cell.metadata.pop("execution", None)  # timestamps would change on every run
        nbformat.write(nb, path)
        print(f"{path.relative_to(ROOT)}: {path.stat().st_size / 1e3:.0f} kB")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
