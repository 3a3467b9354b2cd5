"""Hawaii's option ``place_view`` (rules file §17.3) and the action features a network's action head reads."""

from __future__ import annotations

import numpy as np
import pytest
from hawaii_helpers import act, position

from meeplezoo.envs.hawaii import actions as A
from meeplezoo.envs.hawaii.components import NUM_SLOTS
from meeplezoo.envs.hawaii.observation import SLOT_W, X_MOVE


def _first_buy(s) -> int:
    return next(a for a in s.legal_actions() if a < NUM_SLOTS)


def test_default_observation_is_unchanged_and_declares_buy_features():
    s = position(3)
    assert s.game.observation_shape == (1648,)
    assert "move_costs" not in s.game.observation_layout
    af = s.game.observation_spec.action_features
    assert list(af.actions) == list(range(NUM_SLOTS))  # the ten buys
    place = af.factors[0]
    start = s.game.observation_layout["places"].start
    o = s.observe(0)
    for i in range(NUM_SLOTS):  # a buy at slot i reads that slot's places row
        assert np.array_equal(o[place.gather[place.index[i]]], o[start + i * SLOT_W:start + (i + 1) * SLOT_W])


def test_move_costs_follow_the_chieftain():
    s = position(2, {"place_view": True}, loc=[-1, -1])
    g, lay = s.game, s.game.observation_layout
    scale = max(4, *g.beach_dist, *(d for row in g.slot_dist for d in row))
    costs = s.observe(0)[lay["move_costs"]]
    assert costs == pytest.approx([g.beach_dist[i] / scale for i in range(NUM_SLOTS)])
    s = position(2, {"place_view": True}, loc=[4, -1])
    costs = s.observe(0)[lay["move_costs"]]
    assert costs[4] == pytest.approx(1 / scale)  # staying costs 1 (§12.1)
    assert costs[7] == pytest.approx(g.slot_dist[4][7] / scale)
    other = s.observe(1)[lay["move_costs"]]  # each observer sees its own costs
    assert other == pytest.approx([g.beach_dist[i] / scale for i in range(NUM_SLOTS)])


def test_chosen_place_is_the_chosen_slots_row_and_zero_before():
    s = position(2, {"place_view": True})
    lay = s.game.observation_layout
    assert not s.observe(0)[lay["chosen_place"]].any()
    slot = _first_buy(s)
    s.apply(slot)
    o = s.observe(s.current_player)
    start = lay["places"].start
    assert s.c_slot == slot
    assert np.array_equal(o[lay["chosen_place"]], o[start + slot * SLOT_W:start + (slot + 1) * SLOT_W])
    assert o.min() >= 0.0 and o.max() <= 1.0


def test_price_choice_features_read_each_circle_of_the_chosen_place():
    s = position(2, {"place_view": True})
    g, lay = s.game, s.game.observation_layout
    af = g.observation_spec.action_features
    token0 = g.codec.encode(A.TOKEN, 0)
    assert list(af.actions) == [*range(NUM_SLOTS), token0, token0 + 1, token0 + 2]
    place = af.factors[0]
    assert place.gather.shape == (NUM_SLOTS + 3, SLOT_W + 1)
    while s.phase != A.TOKEN:  # buy wherever a price choice follows
        s = position(2, {"place_view": True}, seed=int(s.rng.next64() % 1000))
        s.apply(_first_buy(s))
    o = s.observe(s.current_player)
    chosen = o[lay["chosen_place"]]
    first = 13  # the circles follow the place kind (13 values), nine values each
    for c in range(3):
        row = o[place.gather[NUM_SLOTS + c]]
        assert np.array_equal(row[first:first + 9], chosen[first + 9 * c:first + 9 * c + 9])
        assert sorted(row[:SLOT_W]) == sorted(chosen)  # the same values, circle c moved first
        assert row[-1] == o[lay["context"].start + X_MOVE]
    legal = list(s.legal_actions())
    assert all(a in af.actions for a in legal)
    act(s, A.TOKEN, legal[0] - token0)  # the state still plays on


def test_seat_network_with_the_action_head_reads_every_count():
    torch = pytest.importorskip("torch")
    from meeplezoo.agents.seatnet import SeatPolicyValueNet
    from meeplezoo.training.seatnet import SeatNet, seat_config

    game = position(2, {"place_view": True}).game
    net = SeatNet(game, seat_config("hawaii", {"action_hidden": 16}), (2, 3, 4, 5))
    twin = SeatPolicyValueNet(game, net.arrays(), net.config.as_dict(), seat_counts=(2, 3, 4, 5))
    for n in (2, 5):
        s = position(n, {"place_view": True})
        obs = s.observe(0)[None]
        logits, _ = net(torch.as_tensor(obs))
        ours, _ = twin.for_players(n).forward(obs)
        assert np.allclose(logits.detach().numpy(), ours, atol=1e-4)


def test_a_network_with_the_option_observes_states_of_default_options():
    """A network trained with place_view plays games of the default options (the option is observation-only):
    its own observer reads their states at its own size, the shared blocks as the game's own observer."""
    view = position(3, {"place_view": True}).game
    s = position(3, seed=4)
    assert view.same_rules(s.game)
    ours, theirs = view.observer.observe(s, 1), s.observe(1)
    assert ours.shape == view.observation_shape and theirs.shape == s.game.observation_shape
    assert np.array_equal(ours[:theirs.size], theirs)
    assert ours[view.observation_layout["move_costs"]].min() > 0.0
