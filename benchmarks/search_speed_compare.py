"""Search speed of two revisions side by side: simulations per CPU second per game, measured interleaved.

Each revision is checked out into a temporary folder (``git archive``; ``--head .`` is the working tree
as it is) and measured in a fresh subprocess that imports the package from that folder (an import hook
maps ``meeplezoo``, ``meeplezoo.envs``, ``meeplezoo.agents`` and ``meeplezoo.training`` to their source
folders, as the package-dir mapping of ``setup.py`` does).  Rounds alternate between the revisions so that
a machine whose load drifts slows both alike; the table shows the median of the rounds.  Both revisions
search the same positions with the same seeds: when their decisions are identical (the golden
trajectories), they do exactly the same work, and the ratio is the cost of the code alone.

    python benchmarks/search_speed_compare.py --base 965d0f8 --head . --rounds 5
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results" / "search_speed_compare.json"
GAMES = ("haus_der_sonne", "kerala", "hawaii", "asara")
#: the settings measured: the plain search (UCT, random rollouts) and each game's tuned search (PUCT with
#: the heuristic prior where the game's tuning says so) at a fixed budget
SETTINGS = {"plain": "mcts:sims={sims}:preset=plain", "tuned": "mcts:sims={sims}"}

#: run in the subprocess: ROOT and the job come as argv; prints one JSON line
MEASURE = r'''
import importlib.abc, importlib.util, json, sys, time
from pathlib import Path

root = Path(sys.argv[1])
job = json.loads(sys.argv[2])
MAP = {"meeplezoo": root / "meeplezoo", "meeplezoo.envs": root / "envs", "meeplezoo.agents": root / "agents",
       "meeplezoo.training": root / "training"}


class Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        folder = MAP.get(name)
        if folder is None:
            return None
        return importlib.util.spec_from_file_location(name, folder / "__init__.py",
                                                      submodule_search_locations=[str(folder)])


sys.meta_path.insert(0, Finder())
import meeplezoo  # noqa: E402
from meeplezoo.agents import make  # noqa: E402
from meeplezoo.envs.core import Rng  # noqa: E402

assert Path(meeplezoo.__file__).resolve().is_relative_to(root.resolve()), meeplezoo.__file__


def positions(game, count, seed):
    r = Rng(seed)
    s = game.new_state(seed)
    trace = [s.clone()]
    while not s.is_terminal():
        acts = s.legal_actions()
        s.apply(acts[r.randbelow(len(acts))])
        if not s.is_terminal():
            trace.append(s.clone())
    step = max(1, len(trace) // count)
    return trace[::step][:count]


out = {}
for name in job["games"]:
    game = meeplezoo.make_game(name, 2)
    pos = positions(game, job["positions"], 1)
    for label, spec in job["settings"].items():
        agent = make(spec.format(sims=job["sims"]), name, seed=0)
        agent.search(pos[0])  # warm-up: builds the rollout agent and the prior
        sims = 0
        t0 = time.process_time()
        for i, s in enumerate(pos):
            agent.reset(i)
            sims += agent.search(s).simulations
        out[f"{name}/{label}"] = sims / (time.process_time() - t0)
print(json.dumps(out))
'''


def checkout(rev: str, into: Path) -> Path:
    """The source tree of ``rev`` under ``into`` (``.``: the working tree itself)."""
    if rev == ".":
        return ROOT
    folder = into / rev.replace("/", "_")
    folder.mkdir(parents=True)
    data = subprocess.run(["git", "-C", str(ROOT), "archive", rev], check=True, capture_output=True).stdout
    archive = into / f"{folder.name}.tar"
    archive.write_bytes(data)
    with tarfile.open(archive) as tf:
        tf.extractall(folder, filter="data")
    return folder


def measure(root: Path, job: dict[str, Any]) -> dict[str, float]:
    res = subprocess.run([sys.executable, "-c", MEASURE, str(root), json.dumps(job)], check=True,
                         capture_output=True, text=True, cwd=str(root))
    return json.loads(res.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", default="965d0f8", help="the revision measured first (default: %(default)s)")
    ap.add_argument("--head", default=".", help="the revision compared with it ('.': the working tree)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--sims", type=int, default=200)
    ap.add_argument("--positions", type=int, default=4)
    ap.add_argument("--games", nargs="+", default=list(GAMES))
    ap.add_argument("--json", type=Path, default=RESULTS)
    args = ap.parse_args(argv)
    job = {"games": args.games, "settings": SETTINGS, "sims": args.sims, "positions": args.positions}
    runs: dict[str, list[dict[str, float]]] = {"base": [], "head": []}
    with tempfile.TemporaryDirectory() as tmp:
        roots = {"base": checkout(args.base, Path(tmp)), "head": checkout(args.head, Path(tmp))}
        for r in range(args.rounds):
            for side in (("base", "head") if r % 2 == 0 else ("head", "base")):
                runs[side].append(measure(roots[side], job))
                print(f"round {r + 1}/{args.rounds} {side}: done", file=sys.stderr)
    rows = []
    print(f"{'game/setting':28s} {'base sims/s':>12s} {'head sims/s':>12s} {'head/base':>10s}")
    for key in runs["base"][0]:
        b = statistics.median(run[key] for run in runs["base"])
        h = statistics.median(run[key] for run in runs["head"])
        rows.append({"case": key, "base": round(b, 1), "head": round(h, 1), "ratio": round(h / b, 4)})
        print(f"{key:28s} {b:12.1f} {h:12.1f} {h / b:10.3f}")
    ratios = [row["ratio"] for row in rows]
    geo = statistics.geometric_mean(ratios)
    print(f"{'geometric mean':28s} {'':12s} {'':12s} {geo:10.3f}")
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps({"base": args.base, "head": args.head, "rounds": args.rounds, "sims": args.sims,
                                     "positions": args.positions, "measure": "simulations per CPU second, median",
                                     "rows": rows, "geometric_mean_ratio": round(geo, 4),
                                     "runs": runs}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
