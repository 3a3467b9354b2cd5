"""Command-line arguments: every number is checked by argparse, every output path before anything runs."""

from __future__ import annotations

import argparse

import pytest

import meeplezoo
from meeplezoo import cli
from meeplezoo.cli import build_parser, main


def _game() -> str:
    for name in meeplezoo.list_envs():
        try:
            meeplezoo.game_class(name)
            return name
        except ImportError:
            continue
    pytest.skip("no game has landed yet")


def parse_error(argv: list[str], capsys) -> str:
    with pytest.raises(SystemExit) as e:
        main(argv)
    assert e.value.code == 2
    return capsys.readouterr().err


def _actions(parser: argparse.ArgumentParser, prefix: str = ""):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _actions(sub, f"{prefix}{name} ")
        else:
            yield prefix.strip(), action


def test_no_numeric_argument_is_parsed_unchecked():
    """Every number goes through a type that checks its range (bare int/float accept -5, nan, 0 games)."""
    unchecked = [(cmd, a.option_strings) for cmd, a in _actions(build_parser()) if a.type in (int, float)]
    assert not unchecked, unchecked
    names = {(cmd, s) for cmd, a in _actions(build_parser()) for s in a.option_strings
             if getattr(a.type, "__name__", "") in ("integer", "number", "seed_arg")}
    for expected in [("play", "--seed"), ("play", "--players"), ("arena", "--games"), ("arena", "--seed"),
                     ("bench", "--seconds"), ("replay", "--colors"), ("train", "--timesteps"), ("train", "--seed"),
                     ("train", "--n-envs"), ("train", "--time-limit"), ("evaluate", "--games"),
                     ("evaluate", "--seed"), ("league run", "--matches"), ("league run", "--workers"),
                     ("league run", "--seed"), ("league run", "--round-size"), ("league run", "--tau"),
                     ("league run", "--rating-lag")]:
        assert expected in names, expected


BAD_NUMBERS = [
    (["arena", "{game}", "--agents", "random", "--games", "-5"], "--games", "must be an integer >= 1"),
    (["arena", "{game}", "--agents", "random", "--games", "0"], "--games", "must be an integer >= 1"),
    (["arena", "{game}", "--agents", "random", "--games", "many"], "--games", "expected an integer"),
    (["arena", "{game}", "--agents", "random", "--seed", "-1"], "--seed", "non-negative integer below 2**64"),
    (["arena", "{game}", "--agents", "random", "--players", "0"], "--players", ">= 1"),
    (["bench", "--seconds", "-1"], "--seconds", "must be a finite number > 0"),
    (["bench", "--seconds", "0"], "--seconds", "> 0"),
    (["bench", "--seconds", "nan"], "--seconds", "finite"),
    (["bench", "--seconds", "inf"], "--seconds", "finite"),
    (["play", "{game}", "--seed", str(2**64)], "--seed", "below 2**64"),
    (["play", "{game}", "--seed", "1.5"], "--seed", "must be an integer"),
    (["replay", "x.json", "--colors", "1"], "--colors", "between 2 and 256"),
    (["train", "{game}", "--timesteps", "0"], "--timesteps", ">= 1"),
    (["train", "{game}", "--timesteps", "-100"], "--timesteps", ">= 1"),
    (["train", "{game}", "--n-envs", "0"], "--n-envs", ">= 1"),
    (["train", "{game}", "--seed", "-3"], "--seed", "non-negative"),
    (["train", "{game}", "--time-limit", "-1"], "--time-limit", "> 0"),
    (["train", "{game}", "--eval-games", "-1"], "--eval-games", ">= 0"),
    (["train", "{game}", "--final-eval-games", "-1"], "--final-eval-games", ">= 0"),
    (["train", "{game}", "--eval-freq", "0"], "--eval-freq", ">= 1"),
    (["train", "{game}", "--eval-every-seconds", "0"], "--eval-every-seconds", "> 0"),
    (["train", "{game}", "--keep-last", "0"], "--keep-last", ">= 1"),
    (["train", "{game}", "--snapshot-freq", "0"], "--snapshot-freq", ">= 1"),
    (["train", "{game}", "--self-play-weight", "-1"], "--self-play-weight", ">= 0"),
    (["train", "{game}", "--lr", "0"], "--lr", "> 0"),
    (["train", "{game}", "--n-epochs", "0"], "--n-epochs", ">= 1"),
    (["train", "{game}", "--rollout-steps", "0"], "--rollout-steps", ">= 1"),
    (["train", "{game}", "--batch-size", "0"], "--batch-size", ">= 1"),
    (["train", "{game}", "--ent-coef", "-0.1"], "--ent-coef", ">= 0"),
    (["train", "{game}", "--gamma", "1.5"], "--gamma", "<= 1"),
    (["train", "{game}", "--gamma", "0"], "--gamma", "> 0"),
    (["train", "{game}", "--torch-threads", "0"], "--torch-threads", ">= 1"),
    (["train", "{game}", "--players", "-2"], "--players", ">= 1"),
    (["evaluate", "x.zip", "--games", "0"], "--games", ">= 1"),
    (["evaluate", "x.zip", "--seed", "-1"], "--seed", "non-negative"),
    (["league", "run", "--db", "l.sqlite", "--matches", "-1"], "--matches", ">= 0"),
    (["league", "run", "--db", "l.sqlite", "--workers", "0"], "--workers", ">= 1"),
    (["league", "run", "--db", "l.sqlite", "--seed", str(2**64 + 1)], "--seed", "below 2**64"),
    (["league", "run", "--db", "l.sqlite", "--round-size", "0"], "--round-size", ">= 1"),
    (["league", "run", "--db", "l.sqlite", "--tau", "-1"], "--tau", ">= 0"),
    (["league", "run", "--db", "l.sqlite", "--rating-lag", "-1"], "--rating-lag", ">= 0"),
    (["league", "run", "--db", "l.sqlite", "--players", "0"], "--players", ">= 1"),
]


@pytest.mark.parametrize("argv, flag, message", BAD_NUMBERS, ids=[" ".join(a[:1] + a[-2:]) for a, _, _ in BAD_NUMBERS])
def test_bad_numbers_are_argparse_errors_naming_the_flag(argv, flag, message, capsys):
    argv = [a.replace("{game}", _game()) for a in argv]
    err = parse_error(argv, capsys)
    assert f"argument {flag}: " in err and message in err, err


def test_extreme_seeds_are_accepted(capsys, tmp_path):
    game = _game()
    assert main(["play", game, "--agents", "random", "--seed", str(2**64 - 1), "--quiet"]) == 0
    assert main(["arena", game, "--agents", "random", "--games", "1", "--seed", str(2**64 - 1), "--quiet"]) == 0
    assert cli.seed_arg("0") == 0


def test_train_and_league_functions_check_seeds(tmp_path):
    from meeplezoo.training.league import LeagueConfig, ResolvedLeague
    from toygame import ToyGame

    with pytest.raises(ValueError, match="below 2\\*\\*64"):
        ResolvedLeague(LeagueConfig(game=ToyGame(2), agents=["a=random", "b=random"], seed=2**64))
    assert ResolvedLeague(LeagueConfig(game=ToyGame(2), agents=["a=random", "b=random"], seed=2**64 - 1)).seed \
        == 2**64 - 1
    ppo = pytest.importorskip("meeplezoo.training.ppo")
    for seed in (-1, 2**64, 1.5, True):
        with pytest.raises(ValueError, match="seed must be a non-negative integer below 2\\*\\*64"):
            ppo.train(ToyGame(2), None, opponents="random:1", timesteps=16, out_dir=tmp_path / "r", seed=seed,
                      tensorboard=False, verbose=0)
    assert ppo.offset_seed(2**64 - 1, 2) == 1 and ppo.offset_seed(5, 2) == 7
    assert ppo.sb3_seed(7) == 7 and 0 <= ppo.sb3_seed(2**64 - 1) < 2**32


# -- output paths are checked before anything is played ------------------------------------------
def test_unwritable_outputs_fail_before_playing(tmp_path, capsys, monkeypatch):
    game = _game()
    played = []
    import meeplezoo.training.arena as arena

    real = arena.play_match
    monkeypatch.setattr(arena, "play_match", lambda *a, **k: played.append(1) or real(*a, **k))
    a_file = tmp_path / "plain"
    a_file.write_text("x")
    missing = str(tmp_path / "nope" / "out.json")
    cases = [
        (["play", game, "--agents", "random", "--replay", missing, "--quiet"], "--replay", "does not exist"),
        (["play", game, "--agents", "random", "--replay", str(tmp_path), "--quiet"], "--replay", "is a directory"),
        (["arena", game, "--agents", "random", "--games", "2", "--json", missing, "--quiet"], "--json",
         "does not exist"),
        (["arena", game, "--agents", "random", "--games", "2", "--json", str(a_file / "a.json")], "--json",
         "is not a directory"),
        (["bench", "--seconds", "0.1", "--json", missing], "--json", "does not exist"),
        (["replay", "r.json", "--html", missing], "--html", "does not exist"),
        (["replay", "r.json", "--gif", missing], "--gif", "does not exist"),
        (["replay", "r.json", "--frames", str(a_file)], "--frames", "is not a directory"),
        (["replay", "r.json", "--frames", str(a_file / "sub" / "frames")], "--frames", "is not a directory"),
        (["evaluate", "x.zip", "--json", missing], "--json", "does not exist"),
        (["train", game, "--out", str(a_file / "run")], "--out", "is not a directory"),
        (["train", game, "--out", str(a_file)], "--out", "is not a directory"),
        (["league", "table", "--db", "l.sqlite", "--csv", missing], "--csv", "does not exist"),
        (["league", "table", "--db", "l.sqlite", "--json", missing], "--json", "does not exist"),
        (["league", "plot", "--db", "l.sqlite", "--out", missing], "--out", "does not exist"),
    ]
    for argv, flag, message in cases:
        err = parse_error(argv, capsys)
        assert f"argument {flag}: " in err and message in err, (argv, err)
    assert not played, "a game was played before an output path was found unusable"


def test_league_db_in_a_missing_directory_fails_before_anything_runs(tmp_path, capsys):
    db = str(tmp_path / "nope" / "l.sqlite")
    assert main(["league", "run", "--game", _game(), "--agents", "a=random,b=random", "--matches", "4",
                 "--db", db, "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "does not exist" in err and db in err and len(err.strip().splitlines()) == 1


def test_train_run_folder_that_cannot_be_created_is_a_clear_error(tmp_path):
    ppo = pytest.importorskip("meeplezoo.training.ppo")
    from toygame import ToyGame

    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(ValueError, match="cannot create the run folder"):
        ppo.train(ToyGame(2), None, opponents="random:1", timesteps=16, out_dir=blocker / "run",
                  tensorboard=False, verbose=0)


def test_good_outputs_are_written(tmp_path, capsys):
    game = _game()
    out = tmp_path / "new" / "r.json"
    (tmp_path / "new").mkdir()
    assert main(["play", game, "--agents", "random", "--seed", "2", "--replay", str(out), "--quiet"]) == 0
    assert out.exists()
    assert main(["replay", str(out), "--frames", str(tmp_path / "deep" / "frames")]) == 0
    assert list((tmp_path / "deep" / "frames").glob("*.png"))
