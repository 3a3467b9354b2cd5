"""The benchmark scripts that load the shipped networks still run against what ships (a smoke run of each).

Shipped networks change architecture (a game's 2-player network became its seat network); these runs keep
the benchmarks that load them working, on the smallest settings, without writing their results files.
"""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _run(*args: str) -> str:
    out = subprocess.run([sys.executable, *args], capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout


def _benchmark(name: str):
    """The module of ``benchmarks/<name>.py`` (the benchmarks are scripts, not a package)."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))


def test_selfplay_speed_runs_on_a_block_and_a_seat_network():
    out = _run("benchmarks/selfplay_speed.py", "--quick", "--games", "haus_der_sonne", "hawaii", "--backends", "numpy",
               "--repeat", "2")
    rows = [line.split() for line in out.splitlines()[1:]]
    assert [(r[0], r[2]) for r in rows] == [("haus_der_sonne", "rows"), ("haus_der_sonne", "batch"),
                                           ("hawaii", "rows"), ("hawaii", "batch")]
    assert all(r[1] == "numpy" and int(r[4]) > 0 for r in rows)
    assert all(r[-1] == "True" for r in rows if r[2] == "rows")  # the exact pass: the samples of one game at a time


def test_selfplay_speed_merges_a_runs_rows_into_the_results_file(tmp_path):
    selfplay_speed = _benchmark("selfplay_speed")
    key = dict(game="asara", players=2, sims=64, games=8, games_at_once=8, backend="numpy", pooled_pass="rows")
    path = tmp_path / "speed.json"
    assert selfplay_speed.merge_rows(path, [{**key, "speedup": 1.1}]) == [{**key, "speedup": 1.1}]  # no file yet
    path.write_text(json.dumps({"rows": [{**key, "speedup": 1.1}, {**key, "pooled_pass": "batch", "speedup": 1.2}]}))
    merged = selfplay_speed.merge_rows(path, [{**key, "speedup": 1.3}, {**key, "games": 32, "speedup": 1.4}])
    # the same measurement replaced in place, the other pass kept, a new size of the run appended
    assert [(r["pooled_pass"], r["games"], r["speedup"]) for r in merged] == [
        ("rows", 8, 1.3), ("batch", 8, 1.2), ("rows", 32, 1.4)]
    path.write_text("not json")
    with pytest.raises(SystemExit, match="not a selfplay_speed results file"):
        selfplay_speed.merge_rows(path, [])


def test_selfplay_profile_runs_on_a_seat_network():
    out = _run("benchmarks/selfplay_profile.py", "hawaii", "--games", "2", "--games-at-once", "1", "2", "--sims", "4")
    rows = [line.split() for line in out.splitlines()[1:]]
    assert [(r[0], r[1]) for r in rows] == [("hawaii", "1"), ("hawaii", "2")]
    for row in rows:
        positions, cpu = int(row[2]), float(row[3])
        assert positions > 0
        shares = [float(x.rstrip("%")) for x in row[4:] if x.endswith("%")]
        ms = [float(x[:-2]) for x in row[4:] if x.endswith("ms")]
        assert len(shares) == len(ms) == 6
        assert sum(shares) == pytest.approx(100, abs=0.5)
        # the milliseconds per position add up to the profiled CPU time per position
        assert sum(ms) == pytest.approx(1000 * cpu / positions, rel=0.05, abs=0.1)
    assert rows[0][2] == rows[1][2]  # the same games, one by one and two at once


def test_inference_speed_runs_on_every_shipped_two_player_network():
    pytest.importorskip("torch")
    out = _run("benchmarks/inference_speed.py", "--batch", "1", "--seconds", "0.02", "--json", "")
    names = {line.split()[0] for line in out.splitlines()[1:]}
    assert names == {"asara-2p", "haus_der_sonne-2p", "hawaii-2p", "kerala-2p"}


def test_search_strength_summary_keeps_every_configuration_and_agent(tmp_path):
    """A run limited to one configuration (or another agent) rewrites the summary without dropping the rows
    of the others: the summary is made from every game in the matches file."""
    ss = _benchmark("search_strength")

    def game(config: str, players: int, agent: str, win: float) -> dict:
        return {"config": config, "game": config.split("-")[0], "players": players, "rules": {}, "agent": agent,
                "opponent": "heuristic", "deal": 0, "seed": 1, "seat": 0, "win": win, "scores": [1.0] * players,
                "placements": [0] * players, "decisions": 10, "seconds": 2.0, "simulations": 100, "wall_s": 3.0,
                "finished_utc": "2026-12-06T00:00:00Z", "run": "r"}

    matches = [game("kerala-5", 5, "mcts", 1.0), game("kerala-2", 2, "mcts", 0.0), game("kerala-2", 2, "mcts", 1.0),
               game("kerala-2", 2, "mcts:time=0.2", 1.0)]
    rows = ss.write_summary(str(tmp_path / "summary.json"), matches)
    assert [(r["config"], r["agent"], r["games"]) for r in rows] == [
        ("kerala-2", "mcts", 2), ("kerala-2", "mcts:time=0.2", 1), ("kerala-5", "mcts", 1)]
    assert rows[0]["win_rate"] == 0.5 and rows[2]["players"] == 5
    # games of files written before the load was recorded leave the row's mean load unknown
    assert rows[0]["mean_load_per_core"] is None


def test_search_strength_rows_give_the_mean_load_of_their_games():
    ss = _benchmark("search_strength")
    load = ss.machine_load()
    assert load is None or load >= 0.0
    cfg = next(c for c in ss.CONFIGS if c.key == "kerala-2")
    base = {"seat": 0, "win": 1.0, "scores": [2.0, 1.0], "decisions": 10, "seconds": 2.0, "simulations": 100}
    rows = [{**base, "load_1min": 0.5}, {**base, "load_1min": 1.5}, {**base}]
    row = ss.summarise(cfg, "mcts", "heuristic", rows)
    assert row["mean_load_per_core"] == 1.0 and row["games"] == 3
