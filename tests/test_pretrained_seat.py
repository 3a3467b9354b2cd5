"""``pretrained`` at every player count: a seat network ``<game>.zip`` in the pretrained folder covers the
counts without a file of their own; an exact per-count file is preferred; anything else is refused naming what
ships.  The network here is tiny and random, written to a temporary folder."""

from __future__ import annotations

import numpy as np
import pytest

import meeplezoo.agents.pretrained as pretrained
from meeplezoo.agents import make
from meeplezoo.agents.checkpoint import blocknet_shapes
from meeplezoo.agents.network import NetworkAgent, PolicyValueNet
from meeplezoo.agents.seat_layout import SeatLayout, seatnet_shapes
from meeplezoo.agents.seatnet import SeatPolicyValueNet
from meeplezoo.registry import make_game

TINY = {"channels": 2, "seat_hidden": 4, "global_hidden": 4, "trunk_hidden": 8, "cell_hidden": 2,
        "value_hidden": 2, "action_hidden": 0}
BLOCK_TINY = {"channels": 2, "conv_layers": 1, "flat_hidden": 4, "trunk_hidden": 8}


@pytest.fixture
def folder(tmp_path, monkeypatch):
    """A pretrained folder holding a random Kerala 2-player block network and a random Kerala seat network
    for 2..5 players."""
    monkeypatch.setattr(pretrained, "FOLDER", tmp_path)
    rng = np.random.default_rng(0)
    two = make_game("kerala", 2)
    block = {k: rng.normal(0, 0.1, s).astype(np.float32) for k, s in blocknet_shapes(two, BLOCK_TINY).items()}
    PolicyValueNet(two, block, BLOCK_TINY).save(tmp_path / "kerala-2p.zip")
    game = make_game("kerala", 3)
    shapes = seatnet_shapes(SeatLayout(game), TINY)
    arrays = {k: rng.normal(0, 0.3, s).astype(np.float32) for k, s in shapes.items()}
    net = SeatPolicyValueNet(game, arrays, TINY, seat_counts=(2, 3, 4, 5))
    net.save(tmp_path / "kerala.zip", algorithm="exit", training_cpu_seconds=1.0)
    return tmp_path


def _steps(game, agents, seed: int, steps: int) -> None:
    state = game.new_state(seed)
    for _ in range(steps):
        if state.is_terminal():
            break
        p = state.current_player
        mask = state.legal_mask()
        a = agents[p].act(state.observe(p), mask, state=state)
        assert mask[a]
        state.apply(a)


@pytest.mark.parametrize("players", [3, 4, 5])
def test_the_seat_network_plays_the_counts_without_a_file_of_their_own(folder, players):
    assert pretrained.checkpoint_path("kerala", players) == folder / "kerala.zip"
    game = make_game("kerala", players)
    alone = make("pretrained", game, seed=0)
    assert isinstance(alone, NetworkAgent) and alone.net.seat_counts == (2, 3, 4, 5)
    searching = make("pretrained:sims=8", "kerala", num_players=players, seed=1)
    assert searching.sims == 8 and searching.network.game.num_players == players
    _steps(game, [alone, searching, *[make("random", seed=s) for s in range(players - 2)]], players, 12)
    assert searching._prior_source.states > 0


def test_an_exact_file_wins_and_available_lists_every_configuration(folder):
    assert pretrained.checkpoint_path("kerala", 2) == folder / "kerala-2p.zip"
    assert isinstance(make("pretrained", "kerala").net, PolicyValueNet)
    rows = {(c["num_players"], c["path"].name, c["architecture"]) for c in pretrained.available()}
    assert rows == {(2, "kerala-2p.zip", "blocknet"), (3, "kerala.zip", "seatnet"), (4, "kerala.zip", "seatnet"),
                    (5, "kerala.zip", "seatnet")}


def test_a_count_nothing_covers_is_refused_naming_what_ships(folder):
    small = make_game("kerala", 3)
    rng = np.random.default_rng(1)
    arrays = {k: rng.normal(0, 0.3, s).astype(np.float32) for k, s in seatnet_shapes(SeatLayout(small), TINY).items()}
    SeatPolicyValueNet(small, arrays, TINY, seat_counts=(3,)).save(folder / "kerala.zip")
    with pytest.raises(ValueError, match=r"no shipped network for 'kerala' at 4 players; shipped: kerala 2p, "
                                         r"kerala 3p \(seat network kerala.zip\)"):
        make("pretrained", "kerala", num_players=4)
    with pytest.raises(ValueError, match="no shipped network for 'asara' at 3 players"):
        make("pretrained", "asara", num_players=3)


def test_a_per_count_file_may_be_a_seat_network(folder):
    """A network for one count trained as a seat network (``seat_counts`` of that count alone) ships as
    ``<game>-<n>p.zip`` like a block network; a file whose name and counts disagree is refused by name."""
    two = make_game("kerala", 2)
    rng = np.random.default_rng(2)
    arrays = {k: rng.normal(0, 0.3, s).astype(np.float32) for k, s in seatnet_shapes(SeatLayout(two), TINY).items()}
    SeatPolicyValueNet(two, arrays, TINY, seat_counts=(2,)).save(folder / "kerala-2p.zip")
    rows = {(c["num_players"], c["path"].name, c["architecture"]) for c in pretrained.available()}
    assert rows == {(2, "kerala-2p.zip", "seatnet"), (3, "kerala.zip", "seatnet"), (4, "kerala.zip", "seatnet"),
                    (5, "kerala.zip", "seatnet")}
    alone = make("pretrained", "kerala", num_players=2, seed=0)
    assert alone.net.seat_counts == (2,)
    _steps(two, [alone, make("random", seed=0)], 0, 12)
    (folder / "kerala-2p.zip").rename(folder / "kerala-3p.zip")
    with pytest.raises(ValueError, match=r"kerala-3p.zip: a network for 3 players whose seat_counts are \[2\]"):
        pretrained.available()
