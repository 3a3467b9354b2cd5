"""The pretrained networks shipped in ``meeplezoo.agents.pretrained``: each loads, plays every configuration
it claims legally (alone and searching), fits the size bound, and anything else is refused clearly."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import meeplezoo
from meeplezoo.agents import make
from meeplezoo.agents.network import NetworkAgent, PolicyValueNet
from meeplezoo.agents.pretrained import FOLDER, MAX_CHECKPOINT_BYTES, available, checkpoint_path, search_defaults

SHIPPED = available()
#: every game of the collection has a 2-player network (Haus der Sonne base, Asara base)
GAMES = ("kerala", "haus_der_sonne", "hawaii", "asara")


def test_every_game_ships_a_two_player_network_within_the_size_bound():
    have = {(c["game"], c["num_players"]) for c in SHIPPED}
    assert {(g, 2) for g in GAMES} <= have
    for c in SHIPPED:
        assert c["rule_options"] == {}  # the base rules (a network may read an observation-only option)
        assert c["path"].stat().st_size <= MAX_CHECKPOINT_BYTES
        assert c["training"]["training_cpu_seconds"] > 0 and c["training"]["algorithm"] in ("exit", "distill")
        assert c["path"].parent == FOLDER


def _play(game, agents, seed):
    state = game.new_state(seed)
    steps = 0
    while not state.is_terminal():
        p = state.current_player
        mask = state.legal_mask()
        a = agents[p].act(state.observe(p), mask, state=state)
        assert mask[a], f"illegal action {a} at step {steps}"
        state.apply(a)
        steps += 1
    return state


@pytest.mark.parametrize("entry", SHIPPED, ids=lambda c: f"{c['game']}-{c['num_players']}p")
def test_a_shipped_network_plays_whole_games_legally_alone_and_searching(entry):
    game = meeplezoo.make_game(entry["game"], entry["num_players"], **entry["rule_options"])
    alone = make("pretrained", game, seed=0)
    assert isinstance(alone, NetworkAgent) and not alone.sample
    searching = make("pretrained:sims=4", game, seed=1)
    assert searching.sims == 4 and searching.network is not None
    trained = search_defaults(searching.network.metadata)  # the search the network was trained with
    assert searching._prior_source.provides_values == (trained.get("leaf", "network") == "network")
    evaluator_knobs = {"heuristic_prior": "weight", "opponent_prior": "opponent_weight", "leaf_mix": "leaf_mix",
                       "policy_temp": "policy_temp"}  # knobs the network's evaluator holds, not the search
    for key, value in trained.items():
        if key in evaluator_knobs:  # e.g. the heuristic's prior blended in, leaf values mixed with rollouts
            assert getattr(searching._prior_source, evaluator_knobs[key]) == value, key
        elif key != "leaf":
            assert getattr(searching, key) == value, key
    sampled = make("pretrained:sample=true:temperature=2", entry["game"], num_players=entry["num_players"], seed=2)
    assert sampled.sample
    others = [make("random", seed=s) for s in range(game.num_players)]
    end = _play(game, [alone, *others[1:]], 3)
    assert end.is_terminal()
    seats = [sampled, *others[1:]]
    seats[-1] = searching
    assert _play(game, seats, 4).is_terminal()
    assert searching._prior_source.states > 0


def test_other_configurations_are_refused_with_what_is_shipped():
    with pytest.raises(ValueError, match=r"no shipped network for 'haus_der_sonne' at 5 players; shipped: .*kerala 2p"):
        make("pretrained", "haus_der_sonne", num_players=5)
    tactical = meeplezoo.make_game("haus_der_sonne", 2, variant="tactical")
    with pytest.raises(ValueError, match="rule options"):
        make("pretrained", tactical)
    with pytest.raises(ValueError, match="takes options only"):
        make("pretrained:extra", "kerala")
    with pytest.raises(ValueError, match="a game is needed"):
        make("pretrained")
    with pytest.raises(ValueError, match="is a network for 'haus_der_sonne', not 'kerala'"):
        PolicyValueNet.load(checkpoint_path("haus_der_sonne"), "kerala")


def test_the_pretrained_network_beats_random_through_the_cli():
    out = subprocess.run([sys.executable, "-m", "meeplezoo", "arena", "haus_der_sonne", "--agents",
                          "pretrained,random", "--games", "10", "--seed", "3", "--quiet"],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "pretrained" in out.stdout


def test_the_shipped_network_is_better_than_random_in_every_game():
    from meeplezoo.training.ppo import evaluate

    for g in GAMES:
        game = meeplezoo.make_game(g, 2)
        res = evaluate(make("pretrained", game, seed=0), game, ["random"], 20, seed=11)
        assert res["random"].win_rate >= 0.6, (g, res["random"].win_rate)
    assert np.isfinite(res["random"].interval).all()


def test_the_pretrained_network_plays_in_a_league_that_records_its_checkpoint(tmp_path):
    from meeplezoo.training.league import LeagueConfig, run_league

    cfg = LeagueConfig(game="haus_der_sonne", num_players=2, agents=["random", "pretrained"], seed=2)
    with run_league(cfg, str(tmp_path / "l.sqlite"), 4, progress=False) as league:
        table = league.standings().to_dict()
        files = {r.name: r.files for r in league.resolved.records}
    assert table["matches"] == 4 and {row["agent"] for row in table["agents"]} == {"random", "pretrained"}
    assert list(files["pretrained"]) == ["pretrained/haus_der_sonne-2p.zip"]
