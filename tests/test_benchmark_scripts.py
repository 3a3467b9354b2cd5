"""The benchmark scripts that load the shipped networks still run against what ships (a smoke run of each).

Shipped networks change architecture (a game's 2-player network became its seat network); these runs keep
the benchmarks that load them working, on the smallest settings, without writing their results files.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _run(*args: str) -> str:
    out = subprocess.run([sys.executable, *args], capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout


def test_selfplay_speed_runs_on_a_block_and_a_seat_network():
    out = _run("benchmarks/selfplay_speed.py", "--quick", "--games", "haus_der_sonne", "hawaii", "--backends", "numpy")
    rows = [line.split() for line in out.splitlines()[1:]]
    assert [(r[0], r[2]) for r in rows] == [("haus_der_sonne", "rows"), ("haus_der_sonne", "batch"),
                                           ("hawaii", "rows"), ("hawaii", "batch")]
    assert all(r[1] == "numpy" and int(r[4]) > 0 for r in rows)
    assert all(r[-1] == "True" for r in rows if r[2] == "rows")  # the exact pass: the samples of one game at a time


def test_selfplay_profile_runs_on_a_seat_network():
    out = _run("benchmarks/selfplay_profile.py", "hawaii", "--games", "1", "--games-at-once", "1", "--sims", "4")
    row = out.splitlines()[-1].split()
    assert row[0] == "hawaii" and int(row[1]) > 0
    assert sum(float(x.rstrip("%")) for x in row[3:]) == pytest.approx(100, abs=0.5)


def test_inference_speed_runs_on_every_shipped_two_player_network():
    pytest.importorskip("torch")
    out = _run("benchmarks/inference_speed.py", "--batch", "1", "--seconds", "0.02", "--json", "")
    names = {line.split()[0] for line in out.splitlines()[1:]}
    assert names == {"asara-2p", "haus_der_sonne-2p", "hawaii-2p", "kerala-2p"}
