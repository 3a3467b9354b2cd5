"""scripts/quickstart.sh's logic, dry (it prints its commands): the arena and the league at PLAYERS players,
the pretrained steps left out with a message where no shipped network plays that count."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "quickstart.sh"


def _dry(**env: str) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", str(SCRIPT)], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "QUICKSTART_DRY_RUN": "1", "PYTHON": sys.executable, **env})


def test_two_players_by_default_with_the_shipped_network():
    out = _dry()
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].startswith("meeplezoo arena haus_der_sonne --players 2 --agents pretrained\\,random")
    assert "--out runs/quickstart-haus_der_sonne/exit" in lines[2]
    assert "pretrained-search=pretrained:sims=100" in lines[3] and "--players 2" in lines[3]


def test_a_count_without_a_shipped_network_says_so_and_runs_the_rest(tmp_path):
    # every count of every game has a shipped network: the script's Python sees an empty pretrained folder here
    # (a sitecustomize module on its path points the folder elsewhere before the script's checks run)
    empty = tmp_path / "no_networks"
    empty.mkdir()
    (tmp_path / "sitecustomize.py").write_text(
        "import meeplezoo.agents.pretrained as p\n"
        f"p.FOLDER = __import__('pathlib').Path({str(empty)!r})\n")
    path = os.pathsep.join(x for x in (str(tmp_path), os.environ.get("PYTHONPATH", "")) if x)
    out = _dry(GAME="kerala", PLAYERS="4", PYTHONPATH=path)
    assert out.returncode == 0, out.stderr
    message, train, league = out.stdout.splitlines()
    assert "no shipped network plays kerala at 4 players" in message
    assert train.startswith("meeplezoo train kerala --players 4 --algo exit")
    assert "pretrained" not in league and "--players 4" in league and "quickstart-kerala-4p" in league
    bad = _dry(PLAYERS="3")
    assert bad.returncode != 0 and "haus_der_sonne plays 2..2 players, not PLAYERS=3" in bad.stderr


@pytest.mark.parametrize(("game", "players"), [("asara", 3), ("hawaii", 4)])
def test_a_count_the_seat_network_covers_plays_it(game, players):
    out = _dry(GAME=game, PLAYERS=str(players))
    assert out.returncode == 0, out.stderr
    alone, against, train, league = out.stdout.splitlines()
    others = players - 1
    assert alone.startswith(f"meeplezoo arena {game} --players {players} --agents pretrained" + "\\,random" * others)
    assert "pretrained" + "\\,heuristic" * others in against and f"--players {players}" in train
    assert "pretrained-search=pretrained:sims=100" in league and f"quickstart-{game}-{players}p" in league
