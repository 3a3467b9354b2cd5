"""The command line: play, replay, arena, list, bench, and its errors."""

from __future__ import annotations

import io
import json

import pytest

import meeplezoo
from meeplezoo.agents import make as make_agent
from meeplezoo.agents.human import HumanAgent
from meeplezoo.cli import main
from test_envs import GAMES, _landed


@pytest.mark.parametrize("name", GAMES)
def test_play_writes_a_replay_that_replays(name, tmp_path, capsys):
    out = tmp_path / "game.json"
    assert main(["play", name, "--agents", "heuristic,random", "--seed", "7", "--replay", str(out), "--quiet"]) == 0
    text = capsys.readouterr().out
    assert "seat 0: heuristic" in text and "seat 1: random" in text
    doc = json.loads(out.read_text())
    assert doc["game"] == name and doc["seed"] == 7 and doc["actions"]
    game = meeplezoo.make_game(name, **doc["config"])
    state = game.new_state(7)
    for a in doc["actions"]:
        state.apply(a)
    assert state.is_terminal() and [float(s) for s in state.scores()] == doc["scores"]
    assert main(["replay", str(out), "--brief"]) == 0
    shown = capsys.readouterr().out
    assert f"decision {len(doc['actions'])}/{len(doc['actions'])}" in shown
    assert "scores:" in shown


def test_play_is_reproducible_under_a_seed(tmp_path):
    if not _landed("kerala"):
        pytest.skip("kerala is not in this checkout")
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    for f in (a, b):
        main(["play", "kerala", "--players", "3", "--agents", "heuristic,random,random", "--seed", "3",
              "--replay", str(f), "--quiet"])
    assert json.loads(a.read_text())["actions"] == json.loads(b.read_text())["actions"]


def test_arena_prints_win_rates_with_intervals(capsys, tmp_path):
    if not _landed("kerala"):
        pytest.skip("kerala is not in this checkout")
    js = tmp_path / "arena.json"
    code = main(["arena", "kerala", "--players", "3", "--agents", "heuristic,random,random", "--games", "6",
                 "--seed", "1", "--quiet", "--json", str(js)])
    assert code == 0
    out = capsys.readouterr().out
    assert "random#1" in out and "random#2" in out and "95% interval" in out
    table = json.loads(js.read_text())
    assert sum(v["wins"] for v in table.values()) == pytest.approx(6)
    assert all(v["games"] == 6 for v in table.values())


def test_human_seat_reads_moves_by_number_id_or_name():
    if not _landed("kerala"):
        pytest.skip("kerala is not in this checkout")
    game = meeplezoo.make_game("kerala", 2)
    state = game.new_state(1)
    legal = state.legal_actions()
    name = state.action_name(legal[1])
    out = io.StringIO()
    human = HumanAgent(io.StringIO(f"nonsense\n{name}\n"), out)
    assert human.act(state.observe(0), state.legal_mask(), state=state) == legal[1]
    assert "not a legal move" in out.getvalue()
    human = HumanAgent(io.StringIO(f"#{legal[2]}\n"), io.StringIO())
    assert human.act(state.observe(0), state.legal_mask(), state=state) == legal[2]
    human = HumanAgent(io.StringIO(""), io.StringIO())
    with pytest.raises(EOFError):
        human.act(state.observe(0), state.legal_mask(), state=state)


def test_list_shows_every_game(capsys):
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    for name in meeplezoo.list_envs():
        assert name in out


def test_bad_input_gives_clear_errors(capsys):
    if not _landed("kerala"):
        pytest.skip("kerala is not in this checkout")
    assert main(["play", "kerala", "--agents", "heuristic,wizard"]) == 2
    assert "unknown agent 'wizard'" in capsys.readouterr().err
    assert main(["play", "kerala", "--players", "9", "--agents", "random"]) == 2
    assert "num_players" in capsys.readouterr().err
    assert main(["play", "kerala", "-o", "no_such_rule=1", "--agents", "random"]) == 2
    assert "no_such_rule" in capsys.readouterr().err
    assert main(["play", "chess", "--agents", "random"]) == 2
    assert "unknown environment 'chess'" in capsys.readouterr().err
    with pytest.raises(SystemExit, match="3 agents given for 2 players"):
        main(["play", "kerala", "--players", "2", "--agents", "random,random,random"])


def test_agent_registry_parses_specs():
    from meeplezoo.agents.registry import parse_spec

    assert parse_spec("mcts:sims=400:rollout=heuristic") == ("mcts", [], {"sims": 400, "rollout": "heuristic"})
    assert parse_spec("runs/k/best.zip") == ("ppo", ["runs/k/best.zip"], {})
    assert parse_spec("ppo:runs/k/best.zip") == ("ppo", ["runs/k/best.zip"], {})
    with pytest.raises(ValueError, match="unknown agent"):
        make_agent("wizard", "kerala")
    with pytest.raises(ValueError, match="no heuristic agent for game 'chess'"):
        make_agent("heuristic", "chess")
    with pytest.raises(ValueError, match="random"):
        make_agent("random:fast=1", "kerala")


def test_bench_runs_and_prints_the_table(capsys):
    if not _landed("kerala"):
        pytest.skip("kerala is not in this checkout")
    pytest.importorskip("pygame", reason="connect_four_v3 needs pygame (the dev extra installs it)")
    assert main(["bench", "--seconds", "0.2", "--game", "kerala"]) == 0
    out = capsys.readouterr().out
    assert "connect_four_v3" in out and "kerala" in out
