"""benchmarks/imitation_agreement.py: the heuristic agrees with itself, and its hybrid rows equal its own play."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import meeplezoo

PATH = Path(__file__).resolve().parents[1] / "benchmarks" / "imitation_agreement.py"
spec = importlib.util.spec_from_file_location("imitation_agreement", PATH)
bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench)


def test_the_heuristic_agrees_with_itself_and_kinds_add_up():
    game = meeplezoo.make_game("hawaii", num_players=2)
    rows = bench.agreement(game, "heuristic", games=2, seed=5)
    kinds = {k: r for k, r in rows.items() if k != "all"}
    assert rows["all"]["agreement"] == 1.0 and rows["all"]["decisions"] == sum(r["decisions"] for r in kinds.values())
    assert all(r["legal"] > 1 for r in kinds.values())
    assert any("buy" in k for k in kinds) and "token" in kinds  # Hawaii's main decision and its price circle


def test_hybrid_rows_of_the_heuristic_equal_its_own_play_and_a_weaker_player_shows():
    game = meeplezoo.make_game("hawaii", num_players=2)
    same = bench.hybrid(game, "heuristic", ["token"], games=4, seed=5)
    assert same["none"] == same["all"] and same["none"]["firsts"] == 0.5  # each deal from both seats
    weak = bench.hybrid(game, "random", [], games=4, seed=5)
    assert weak["all"]["margin"] < weak["none"]["margin"]


def test_decision_kind_names_the_choices():
    state = meeplezoo.make_game("hawaii", num_players=2).new_state(1)
    assert bench.decision_kind(state, state.legal_actions()).startswith("buy")
