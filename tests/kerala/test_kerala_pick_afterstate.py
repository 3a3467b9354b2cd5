"""Kerala's observation-only option ``pick_afterstate`` (rules file §13.5) and the pick features it declares."""

from __future__ import annotations

import numpy as np
import pytest

from meeplezoo.agents.base import act_on_state
from meeplezoo.agents.heuristics.kerala import COMPACT_WEIGHT, FREEDOM_WEIGHT, OPEN_EDGE_BONUS, KeralaHeuristic
from meeplezoo.envs.kerala import components as C
from meeplezoo.envs.kerala.actions import PICK_IDS
from meeplezoo.envs.kerala.observation import AFTERSTATE_FEATURES
from meeplezoo.envs.kerala.state import KeralaGame, KeralaState

OPTS = {"derived_features": True, "elephant_view": True, "pick_afterstate": True}


def _rows(state: KeralaState, player: int) -> np.ndarray:
    lay = state.game.observation_layout["pick_afterstate"]
    return state.observe(player)[lay.start:lay.start + PICK_IDS * AFTERSTATE_FEATURES].reshape(
        PICK_IDS, AFTERSTATE_FEATURES)


def _position(n: int = 2, **options) -> KeralaState:
    """Seat 0 (blue) holds its start tile and a blue 1-symbol tile east of it, an elephant on each; the offer
    holds a blue 2-symbol tile, a black 1-symbol tile and a red 1-symbol tile."""
    game = KeralaGame(n, **{**OPTS, **options})
    blue1 = game.tiles_matching("blue", "sym1")[0]
    offer = [game.tiles_matching("blue", "sym2")[0], game.tiles_matching("black", "sym1")[0],
             game.tiles_matching("red", "sym1")[0]]
    plat = {(0, 0): [C.START_TILE_BASE + 0], (0, 1): [blue1]}
    return KeralaState.from_position(game, platforms=[plat] + [None] * (n - 1),
                                     elephants=[[(0, 0), (0, 1)]] + [None] * (n - 1), offer=offer)


def test_default_observation_has_no_afterstate_block():
    game = KeralaGame(2, derived_features=True, elephant_view=True)
    assert "pick_afterstate" not in game.observation_layout
    assert [f.name for f in game.observation_spec.action_features.factors] == [
        "tile", "target", "orientation", "direction"]
    with_block = KeralaGame(2, **OPTS)
    assert with_block.observation_shape[0] == game.observation_shape[0] + PICK_IDS * AFTERSTATE_FEATURES
    assert with_block.same_rules(game)  # observation-only


def test_each_pick_reads_its_own_row():
    s = _position()
    af = s.game.observation_spec.action_features
    assert [f.name for f in af.factors] == ["tile", "target", "afterstate", "orientation", "direction"]
    after = af.factors[2]
    o = s.observe(0)
    rows = _rows(s, 0)
    for a in range(PICK_IDS):
        assert np.array_equal(o[after.gather[after.index[a]]], rows[a])


def test_rows_are_what_the_engine_scores_after_the_placement():
    """Every legal pick's row equals the change of the §9 score the engine computes once the pick is
    applied (an independent route: the engine's own placement and its cached scorer)."""
    s = _position()
    rows = _rows(s, 0)
    before = s.platform_score(0)
    legal = [a for a in s.legal_actions() if a < PICK_IDS]
    assert legal
    g = s.game
    for a in legal:
        t = s.clone()
        t.apply(a)
        after = t.platform_score(0)
        dt = (after.total - before.total) / 10
        assert rows[a][0] == pytest.approx(max(-4.0, min(4.0, dt)))
        assert rows[a][1:5] == pytest.approx([(after.symbols - before.symbols) / 10, (after.edges - before.edges) / 5,
                                              (after.removed_tiles - before.removed_tiles) / 10,
                                              after.missing - before.missing])
        plat, els = t.platforms[0], t.elephants[0]
        free = {c + d for c in els for d in g.delta if c + d not in plat}
        assert rows[a][6] == pytest.approx(len(free) / 8)
    assert not rows[[a for a in range(PICK_IDS) if a not in legal]].any()  # illegal picks read zeros


def test_known_values_of_a_hand_made_position():
    s = _position()
    g, codec = s.game, s.game.codec
    rows = _rows(s, 0)
    # the blue 2-symbol tile (slot 0) north of the start tile: its area gains 2 symbols, nothing else changes
    north = codec.pick(0, 0, 0)
    assert rows[north][:5] == pytest.approx([0.2, 0.2, 0.0, 0.0, 0.0])
    assert rows[north][7] == pytest.approx(0.25)  # (-1, 0) touches the start tile only
    # the black 1-symbol tile (slot 1) south of the start tile: a new colour (one fewer missing) and a symbol
    south = codec.pick(1, 0, 2)
    assert rows[south][1] == pytest.approx(0.1)
    assert rows[south][4] == pytest.approx(-1.0)
    assert rows[south][0] == pytest.approx((1 + C.POINTS_PER_MISSING_COLOUR * -1) / 10)
    # elephant 0 stands on the start tile, elephant 1 on the blue tile east of it
    assert s.elephants[0] == [g.cell_of(0, 0), g.cell_of(0, 1)]
    assert not s.is_legal(codec.pick(2, 0, 1))  # east of the start: the other elephant stands there
    east = codec.pick(2, 1, 1)  # the red 1-symbol tile east of the blue tile, at (0, 2)
    assert rows[east][1] == pytest.approx(0.1) and rows[east][4] == pytest.approx(-1.0)
    assert rows[east][7] == pytest.approx(0.25)  # one occupied neighbour: the blue tile


def test_zero_for_other_observers_and_other_phases():
    s = _position(3)
    assert _rows(s, 0).any()
    assert not _rows(s, 1).any() and not _rows(s, 2).any()  # only the player to act sees its picks
    rng = np.random.default_rng(3)
    while s.phase == C.PHASE_PICK or s.current_player != 0:
        if s.is_terminal():
            pytest.skip("no other phase reached")
        legal = s.legal_actions()
        s.apply(int(rng.choice(legal)))
        if s.phase != C.PHASE_PICK and not s.is_terminal():
            assert not _rows(s, s.current_player).any()
            break


@pytest.mark.parametrize("n", [2, 4])
def test_the_heuristic_judgement_is_linear_in_the_rows(n):
    """The heuristic's placement value is a fixed linear function of each row (up to the clip): an action
    head can read its judgement off the block, so imitation has no reason to stop short of it."""
    game = KeralaGame(n, **OPTS)
    h = KeralaHeuristic(seed=0)
    w = np.zeros(AFTERSTATE_FEATURES)
    w[0], w[5], w[6], w[7] = 10.0, 2.0 * OPEN_EDGE_BONUS, 8.0 * FREEDOM_WEIGHT, 4.0 * COMPACT_WEIGHT
    checked = 0
    for seed in range(2):
        s = game.new_state(seed)
        while not s.is_terminal():
            a = act_on_state(h, s)
            if s.phase == C.PHASE_PICK and a < PICK_IDS:
                legal = [x for x in s.legal_actions() if x < PICK_IDS]
                scores = h.action_scores(s, legal)
                values = _rows(s, s.current_player)[legal] @ w
                assert np.ptp(values - np.asarray(scores)) < 1e-4 * max(1.0, np.abs(scores).max())
                checked += 1
            s.apply(a)
    assert checked > 20


def test_a_network_with_the_option_observes_states_of_default_options():
    view = KeralaGame(3, **OPTS)
    s = KeralaGame(3).new_state(5)
    ours = view.observer.observe(s, s.current_player)
    assert ours.shape == view.observation_shape
    lay = view.observation_layout["pick_afterstate"]
    assert ours[lay].any()


def test_seat_network_with_the_action_head_reads_every_count():
    torch = pytest.importorskip("torch")
    from meeplezoo.agents.seatnet import SeatPolicyValueNet
    from meeplezoo.training.seatnet import SeatNet, seat_config

    game = KeralaGame(2, **OPTS)
    net = SeatNet(game, seat_config("kerala", {"action_hidden": 16}), (2, 3, 4, 5))
    twin = SeatPolicyValueNet(game, net.arrays(), net.config.as_dict(), seat_counts=(2, 3, 4, 5))
    for n in (2, 5):
        s = _position(n)
        obs = s.observe(0)[None]
        logits, _ = net(torch.as_tensor(obs))
        ours, _ = twin.for_players(n).forward(obs)
        assert np.allclose(logits.detach().numpy(), ours, atol=1e-4)
