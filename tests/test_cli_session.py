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
