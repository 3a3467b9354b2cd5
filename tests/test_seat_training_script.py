"""scripts/train_seat_networks.sh: the step runner of the seat networks' long runs (its refusals and its budget;
the training it runs is expert iteration's, tested in test_exit_seats.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "train_seat_networks.sh"


def _run(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", str(SCRIPT), *args], capture_output=True, text=True, timeout=120,
                          env={"PATH": "/usr/bin:/bin", "PYTHON": sys.executable, "SEAT_RUNS": str(tmp_path), **env})


def _command(tmp_path: Path, plan: str) -> list[str]:
    """The training command ``plan`` runs, printed by a stand-in interpreter, as its words."""
    stub = tmp_path / "python"
    stub.write_text('#!/bin/sh\necho "$@"\n')
    stub.chmod(0o755)
    out = _run(tmp_path, plan, PYTHON=str(stub))
    assert out.returncode == 0, out.stderr
    return next(x for x in out.stdout.splitlines() if x.startswith("-m meeplezoo train")).split()


def _value(line: list[str], flag: str) -> str:
    return line[line.index(flag) + 1]


def test_a_game_without_a_plan_is_refused_by_name(tmp_path):
    out = _run(tmp_path, "haus_der_sonne")
    assert out.returncode == 2
    assert "no seat-network plan for 'haus_der_sonne'" in out.stderr


def test_a_run_that_spent_its_budget_does_nothing(tmp_path):
    run = tmp_path / "kerala"
    run.mkdir()
    progress = {"iteration": 70, "samples": 9000, "cpu_seconds": 4.2 * 3600}
    (run / "progress.json").write_text(json.dumps(progress))
    out = _run(tmp_path, "kerala")
    assert out.returncode == 0, out.stderr
    assert "done" in out.stdout and "4.2" in out.stdout
    assert sorted(p.name for p in run.iterdir()) == ["progress.json"]  # nothing trained, nothing written
    out = _run(tmp_path, "kerala", BUDGET_CPU_HOURS="5", STEP_SECONDS="abc")
    assert out.returncode == 2  # a bad time limit is refused before anything runs
    assert "STEP_SECONDS must be a number of seconds (the step's time limit), got 'abc'" in out.stderr


def test_a_step_ends_when_the_budget_is_spent(tmp_path):
    """The step's time limit is what is left of the budget over the workers (0.1 CPU h on 2 workers: 180 s);
    the trainer then refuses this run directory by name: progress without its trainer state."""
    run = tmp_path / "kerala"
    run.mkdir()
    (run / "progress.json").write_text(json.dumps({"iteration": 7, "samples": 9000, "cpu_seconds": 3.9 * 3600}))
    out = _run(tmp_path, "kerala", WORKERS="2")
    assert "a step of at most 180 s on 2 workers" in out.stdout
    assert out.returncode != 0 and "trainer.pt: the trainer state is missing" in out.stderr + out.stdout
    out = _run(tmp_path, "kerala", WORKERS="2", STEP_SECONDS="60")
    assert "a step of at most 60 s on 2 workers" in out.stdout  # the shorter of the two


def test_a_step_leaves_room_for_the_iteration_under_way(tmp_path):
    """With a log, the step's limit is what is left of the budget less one iteration (the last logged one's CPU
    time), over the workers, so that the iteration under way when the limit passes ends within the budget; a
    budget that cannot pay for one more iteration is spent."""
    run = tmp_path / "kerala"
    run.mkdir()
    (run / "progress.json").write_text(json.dumps({"iteration": 7, "samples": 9000, "cpu_seconds": 3.8 * 3600}))
    (run / "log.csv").write_text("iteration,cpu_seconds,policy_loss\n6,12960.0,1.2\n7,13380.0,1.1\n")
    out = _run(tmp_path, "kerala", WORKERS="2")
    assert "a step of at most 150 s on 2 workers" in out.stdout  # (0.2 h - 420 s) / 2
    (run / "progress.json").write_text(json.dumps({"iteration": 7, "samples": 9000, "cpu_seconds": 3.9 * 3600}))
    out = _run(tmp_path, "kerala", WORKERS="2")
    assert out.returncode == 0, out.stderr
    assert "has spent 3.9 of its 4 CPU hours, less than one iteration (420.0 CPU s) from the end: done" in out.stdout
    assert sorted(p.name for p in run.iterdir()) == ["log.csv", "progress.json"]  # nothing trained


def test_a_later_recipe_starts_from_its_games_run(tmp_path):
    """kerala-leafmix is a new run in its own folder that starts from kerala's (--init): without that run it
    stops with the trainer's message naming the missing folder."""
    out = _run(tmp_path, "kerala-leafmix", STEP_SECONDS="5")
    assert out.returncode != 0
    assert f"init='{tmp_path / 'kerala'}' is not an expert-iteration run directory" in out.stderr + out.stdout
    assert not (tmp_path / "kerala-leafmix").exists()
    out = _run(tmp_path, "kerala-other")
    assert out.returncode == 2 and "no seat-network plan for 'kerala-other'" in out.stderr


def test_a_per_count_plan_has_the_per_configuration_budget(tmp_path):
    """kerala-2p is a network for one count: its budget is 1.5 CPU hours (the issue's per configuration), not
    the 4 of a game's seat network, unless BUDGET_CPU_HOURS says otherwise."""
    run = tmp_path / "kerala-2p"
    run.mkdir()
    (run / "progress.json").write_text(json.dumps({"iteration": 5, "samples": 9000, "cpu_seconds": 1.6 * 3600}))
    out = _run(tmp_path, "kerala-2p")
    assert out.returncode == 0, out.stderr
    assert "has spent 1.6 of its 1.5 CPU hours: done" in out.stdout
    (run / "progress.json").write_text(json.dumps({"iteration": 5, "samples": 9000, "cpu_seconds": 1.45 * 3600}))
    out = _run(tmp_path, "kerala-2p", WORKERS="2")
    assert "a step of at most 90 s on 2 workers" in out.stdout  # (1.5 - 1.45) h over 2 workers
    out = _run(tmp_path, "kerala-2p", WORKERS="2", BUDGET_CPU_HOURS="1.7")
    assert "a step of at most 450 s on 2 workers" in out.stdout  # (1.7 - 1.45) h over 2 workers


@pytest.mark.parametrize(("plan", "with_lookahead"), [("kerala-2p", "kerala-2p-move"), ("kerala", "kerala-move")])
def test_a_move_lookahead_plan_is_its_recipe_with_the_option(tmp_path, plan, with_lookahead):
    """kerala-2p-move (kerala-move) runs kerala-2p's (kerala's) command (recipe, seed, budget) with the one
    observation option added, into its own folder: a stand-in interpreter prints the command each plan runs."""
    base, move = _command(tmp_path, plan), _command(tmp_path, with_lookahead)
    assert "move_lookahead=true" not in base
    i = move.index("move_lookahead=true")
    assert move[i - 1] == "-o" and move[:i - 1] + move[i + 1:] == [
        x if x != str(tmp_path / plan) else str(tmp_path / with_lookahead) for x in base]


def test_the_two_player_plan_with_the_seat_labeller_is_kerala_moves_command_at_two_players(tmp_path):
    """kerala-2p-prior runs kerala-move's command (observation, labeller, widths, seed) with every game at 2
    players and kerala-2p's warm start and evaluations, under the per-count budget of 1.5 CPU hours."""
    lines = {name: _command(tmp_path, name) for name in ("kerala-move", "kerala-2p-move", "kerala-2p-prior")}
    value = _value
    seat, per_count, prior = lines["kerala-move"], lines["kerala-2p-move"], lines["kerala-2p-prior"]
    assert value(prior, "--players") == "2" and value(seat, "--players") == "2,3,4,5"
    for flag in ("--warm-start-games", "--eval-games"):
        assert value(prior, flag) == value(per_count, flag) != value(seat, flag)
    changed = {"--players", "--warm-start-games", "--eval-games", "--out"}
    keep = [x for i, x in enumerate(seat) if x not in changed and (i == 0 or seat[i - 1] not in changed)]
    assert keep == [x for i, x in enumerate(prior) if x not in changed and (i == 0 or prior[i - 1] not in changed)]
    assert value(prior, "--sims") == "64" and "heuristic_prior=0.5" in prior and "move_lookahead=true" in prior
    run = tmp_path / "kerala-2p-prior"
    run.mkdir()
    (run / "progress.json").write_text(json.dumps({"iteration": 5, "samples": 9000, "cpu_seconds": 1.5 * 3600}))
    out = _run(tmp_path, "kerala-2p-prior")
    assert out.returncode == 0 and "has spent 1.5 of its 1.5 CPU hours: done" in out.stdout


def test_the_three_player_plan_labels_with_the_capped_stronger_search(tmp_path):
    """kerala-3p-cap: 3 players alone, labelled at 200 simulations with leaves half value head, half cut-off,
    a quarter of the decisions searched in full and kept (the rest at 32), under the per-count budget."""
    line = _command(tmp_path, "kerala-3p-cap")

    def value(flag: str) -> str:
        return _value(line, flag)

    assert value("--players") == "3" and value("--sims") == "200"
    assert value("--full-search-fraction") == "0.25" and value("--fast-sims") == "32"
    options = [line[i + 1] for i, x in enumerate(line) if x == "--search-option"]
    assert options == ["leaf_mix=0.5", "rollout_depth=0", "widen=2"]
    assert "move_lookahead=true" in line and value("--out") == str(tmp_path / "kerala-3p-cap")
    run = tmp_path / "kerala-3p-cap"
    run.mkdir()
    (run / "progress.json").write_text(json.dumps({"iteration": 5, "samples": 9000, "cpu_seconds": 1.5 * 3600}))
    out = _run(tmp_path, "kerala-3p-cap")
    assert out.returncode == 0 and "has spent 1.5 of its 1.5 CPU hours: done" in out.stdout


def test_the_recent_labels_plan_continues_the_capped_run_on_a_smaller_buffer(tmp_path):
    """kerala-3p-recent: kerala-3p-cap's labeller and network (``--init``, so its CPU time counts in the same
    per-count budget), with a buffer of 5,000 samples that holds the capped search's labels only."""
    line = _command(tmp_path, "kerala-3p-recent")

    def value(flag: str) -> str:
        return _value(line, flag)

    assert value("--init") == str(tmp_path / "kerala-3p-cap") and value("--buffer-size") == "5000"
    assert value("--players") == "3" and value("--sims") == "200"
    assert value("--full-search-fraction") == "0.25" and value("--fast-sims") == "32"
    options = [line[i + 1] for i, x in enumerate(line) if x == "--search-option"]
    assert options == ["leaf_mix=0.5", "rollout_depth=0", "widen=2"]
    assert value("--out") == str(tmp_path / "kerala-3p-recent")
    run = tmp_path / "kerala-3p-recent"
    run.mkdir()
    (run / "progress.json").write_text(json.dumps({"iteration": 3, "samples": 9000, "cpu_seconds": 1.5 * 3600}))
    out = _run(tmp_path, "kerala-3p-recent")
    assert out.returncode == 0 and "has spent 1.5 of its 1.5 CPU hours: done" in out.stdout


def test_the_lean_plan_is_a_new_capped_run_on_the_smaller_buffer(tmp_path):
    """kerala-3p-lean: kerala-3p-cap's warm start and labeller with the 5,000-sample buffer from the start, a
    new run (no ``--init``) under its own per-count budget."""
    line = _command(tmp_path, "kerala-3p-lean")

    def value(flag: str) -> str:
        return _value(line, flag)

    assert "--init" not in line and value("--buffer-size") == "5000" and value("--warm-start-games") == "600"
    assert value("--players") == "3" and value("--sims") == "200"
    assert value("--full-search-fraction") == "0.25" and value("--fast-sims") == "32"
    assert value("--out") == str(tmp_path / "kerala-3p-lean")
    run = tmp_path / "kerala-3p-lean"
    run.mkdir()
    (run / "progress.json").write_text(json.dumps({"iteration": 9, "samples": 9000, "cpu_seconds": 1.5 * 3600}))
    out = _run(tmp_path, "kerala-3p-lean")
    assert out.returncode == 0 and "has spent 1.5 of its 1.5 CPU hours: done" in out.stdout


@pytest.mark.parametrize(("recipe", "players", "warm"),
                         [("lean", 4, "450"), ("lean", 5, "600"), ("gumbel", 4, "450"), ("gumbel", 5, "600")])
def test_the_four_and_five_player_plans_are_the_three_player_command_at_their_count(
        tmp_path, recipe, players, warm):
    """kerala-4p-lean and kerala-5p-lean run kerala-3p-lean's command (observation, capped labeller, widths,
    5,000-sample buffer, seed), kerala-4p-gumbel and kerala-5p-gumbel kerala-3p-gumbel's (the Gumbel labeller,
    15,000-sample buffer), at their count with their own warm starts (450 games at 4 players, 600 at 5), each
    under its own per-count budget."""
    plan, three = f"kerala-{players}p-{recipe}", f"kerala-3p-{recipe}"
    base, line = _command(tmp_path, three), _command(tmp_path, plan)
    assert _value(line, "--players") == str(players) and _value(line, "--warm-start-games") == warm

    def rest(words: list[str], name: str) -> list[str]:
        words = [x for x in words if x != str(tmp_path / name)]
        for flag in ("--players", "--warm-start-games"):
            i = words.index(flag)
            words = words[:i] + words[i + 2:]
        return words

    assert rest(line, plan) == rest(base, three)
    run = tmp_path / plan
    run.mkdir()
    (run / "progress.json").write_text(json.dumps({"iteration": 6, "samples": 9000, "cpu_seconds": 1.5 * 3600}))
    out = _run(tmp_path, plan)
    assert out.returncode == 0 and "has spent 1.5 of its 1.5 CPU hours: done" in out.stdout


def test_the_opponent_model_plan_is_the_three_player_lean_command_with_the_heuristic_at_the_other_seats(tmp_path):
    """kerala-3p-opp runs kerala-3p-lean's command with the labeller's opponent model (opponent_prior=1 at the
    tuned search's prior_temp 0.5) added, into its own folder, under its own per-count budget."""
    base, line = _command(tmp_path, "kerala-3p-lean"), _command(tmp_path, "kerala-3p-opp")
    added = ["--search-option", "opponent_prior=1", "--search-option", "prior_temp=0.5"]
    i = line.index("opponent_prior=1") - 1
    assert line[i:i + 4] == added
    assert line[:i] + line[i + 4:] == [x if x != str(tmp_path / "kerala-3p-lean") else str(tmp_path / "kerala-3p-opp")
                                       for x in base]
    run = tmp_path / "kerala-3p-opp"
    run.mkdir()
    (run / "progress.json").write_text(json.dumps({"iteration": 9, "samples": 9000, "cpu_seconds": 1.5 * 3600}))
    out = _run(tmp_path, "kerala-3p-opp")
    assert out.returncode == 0 and "has spent 1.5 of its 1.5 CPU hours: done" in out.stdout


def test_the_gumbel_plan_labels_every_searching_decision_with_the_improved_policy(tmp_path):
    """kerala-3p-gumbel: kerala-3p-lean's observation, leaves, widths and warm start, but every searching
    decision a label of the Gumbel root's improved policy at 64 simulations (no playout cap), on a
    15,000-sample buffer, under its own per-count budget."""
    line = _command(tmp_path, "kerala-3p-gumbel")

    def value(flag: str) -> str:
        return _value(line, flag)

    assert "--init" not in line and "--full-search-fraction" not in line and "--fast-sims" not in line
    assert value("--players") == "3" and value("--sims") == "64" and value("--buffer-size") == "15000"
    assert value("--policy-target") == "improved" and value("--warm-start-games") == "600"
    options = [line[i + 1] for i, x in enumerate(line) if x == "--search-option"]
    assert options == ["leaf_mix=0.5", "rollout_depth=0", "widen=2", "root=gumbel"]
    lean = _command(tmp_path, "kerala-3p-lean")
    assert [line[i + 1] for i, x in enumerate(line) if x in ("-o", "--seat-width")] == \
        [lean[i + 1] for i, x in enumerate(lean) if x in ("-o", "--seat-width")]
    run = tmp_path / "kerala-3p-gumbel"
    run.mkdir()
    (run / "progress.json").write_text(json.dumps({"iteration": 9, "samples": 9000, "cpu_seconds": 1.5 * 3600}))
    out = _run(tmp_path, "kerala-3p-gumbel")
    assert out.returncode == 0 and "has spent 1.5 of its 1.5 CPU hours: done" in out.stdout

