"""The command line as a session: --version, list GAME, interruptions and end of input, the board
shown once to a human, short training runs."""

from __future__ import annotations

import io
import sys

import pytest

import meeplezoo
from meeplezoo.cli import main


def test_version(capsys):
    with pytest.raises(SystemExit) as e:
        main(["--version"])
    assert e.value.code == 0
    assert capsys.readouterr().out.strip() == f"meeplezoo {meeplezoo.__version__}"


def test_list_one_game(capsys):
    assert main(["list", "haus_der_sonne"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("haus_der_sonne") and "turn_limit" in out and "kerala" not in out
    assert main(["list", "chess"]) == 2
    assert "unknown game 'chess'" in capsys.readouterr().err


def test_end_of_input_at_the_human_prompt_is_one_line(monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    assert main(["play", "kerala", "--agents", "human,random", "--seed", "1"]) == 130
    out = capsys.readouterr().out
    assert out.rstrip().endswith("end of input: game abandoned") and "Traceback" not in out
    assert out.count("Kerala, 2 players") == 1  # the first board once: at the human's prompt


def test_first_board_once_when_the_human_moves_second(monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    assert main(["play", "asara", "--agents", "random,human", "--seed", "1"]) == 130
    out = capsys.readouterr().out
    first = out.split("-- decision 1")[0]
    assert first.count("Asara (base") == 1 and "View of P1" in first  # shown from the human's side


def test_ctrl_c_in_arena_is_one_line(monkeypatch, capsys):
    import meeplezoo.training.arena as arena

    def interrupted(*a, **kw):
        raise KeyboardInterrupt

    monkeypatch.setattr(arena, "run_arena", interrupted)
    assert main(["arena", "kerala", "--agents", "random,random", "--games", "3"]) == 130
    err = capsys.readouterr().err
    assert err.strip() == "interrupted: meeplezoo arena stopped"


def test_ctrl_c_in_league_keeps_what_it_stored(monkeypatch, capsys, tmp_path):
    import meeplezoo.training.league as league_mod

    real = league_mod.run_league
    db = str(tmp_path / "l.sqlite")

    def interrupted(config, db, matches=None, **kw):
        real(config, db, 2, **kw).close()
        raise KeyboardInterrupt

    monkeypatch.setattr(league_mod, "run_league", interrupted)
    code = main(["league", "run", "--game", "kerala", "--agents", "random,heuristic", "--matches", "6",
                 "--db", db, "--quiet"])
    assert code == 130
    err = capsys.readouterr().err
    assert "interrupted: 2 matches stored" in err and "--resume" in err and "Traceback" not in err
    monkeypatch.setattr(league_mod, "run_league", real)
    assert main(["league", "run", "--db", db, "--resume", "--matches", "6", "--quiet"]) == 0
    assert len(league_mod.read_league(db)[1]) == 6


def test_train_512_steps_trains_512(tmp_path, capsys):
    pytest.importorskip("sb3_contrib")
    out = tmp_path / "run"
    assert main(["train", "haus_der_sonne", "--timesteps", "512", "--out", str(out), "--eval-games", "0",
                 "--final-eval-games", "0", "--no-tensorboard", "--n-envs", "2", "--vec", "dummy"]) == 0
    text = capsys.readouterr().out
    assert "trained 512 steps" in text
    assert main(["train", "haus_der_sonne", "--timesteps", "500", "--out", str(out), "--eval-games", "0",
                 "--final-eval-games", "0", "--no-tensorboard", "--n-envs", "2", "--vec", "dummy",
                 "--rollout-steps", "256"]) == 0
    text = capsys.readouterr().out
    assert "note: PPO trains whole rollouts of 256 steps" in text and "trained 512 steps" in text


def _interrupt_group(args: list[str], ready, timeout: float = 60.0):
    """Run the CLI in its own process group, send Ctrl-C's SIGINT to the whole group once ``ready()``."""
    import os
    import signal
    import subprocess
    import time

    p = subprocess.Popen([sys.executable, "-m", "meeplezoo", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, start_new_session=True,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    t0 = time.monotonic()
    while not ready() and time.monotonic() - t0 < timeout and p.poll() is None:
        time.sleep(0.2)
    os.killpg(p.pid, signal.SIGINT)
    out, err = p.communicate(timeout=timeout)
    return p.returncode, out, err


def test_real_ctrl_c_stops_a_league_and_its_workers_with_one_line(tmp_path):
    import sqlite3

    db = tmp_path / "l.sqlite"

    def stored() -> bool:
        try:
            with sqlite3.connect(db) as con:
                return con.execute("select count(*) from matches").fetchone()[0] >= 2
        except sqlite3.Error:
            return False

    code, _, err = _interrupt_group(["league", "run", "--game", "kerala", "--agents", "random,heuristic",
                                     "--matches", "100000", "--db", str(db), "--workers", "2", "--quiet"], stored)
    assert code == 130, err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("interrupted: ") and "matches stored" in lines[0], err
    assert "Traceback" not in err


def test_real_ctrl_c_stops_an_arena_with_one_line():
    import time

    t0 = time.monotonic()
    code, _, err = _interrupt_group(["arena", "kerala", "--agents", "heuristic,random", "--games", "100000",
                                     "--quiet"], lambda: time.monotonic() - t0 > 4)
    assert code == 130 and err.strip() == "interrupted: meeplezoo arena stopped", err
