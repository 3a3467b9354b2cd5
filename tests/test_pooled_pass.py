"""numpy's two passes of the lockstep driver's pooled batch (``inference_pass``: rows or batch).

``rows`` evaluates each position as a batch of it alone (bit for bit), so self-play's samples do not depend on
``games_at_once``; ``batch`` evaluates the batch in one matrix product, cheaper per position, its values within
rounding of the rows pass, and self-play on it plays the same games in distribution (on these seeds: the same
games, the visit targets within rounding).  Setting a pass copies the network; a seat network's views of other
counts take the pass of the view they came from.
"""

from __future__ import annotations

import numpy as np
import pytest

from meeplezoo.agents.network import POOLED_PASSES, load_network, with_pooled_pass
from meeplezoo.agents.pretrained import checkpoint_path
from meeplezoo.training import samples

torch = pytest.importorskip("torch")

from meeplezoo.training.exit import ExItConfig, ExItTrainer, generate, self_play_net  # noqa: E402


def _obs(net, n: int = 24) -> np.ndarray:
    rng = np.random.default_rng(1)
    state, out = net.game.new_state(3), []
    while len(out) < n:
        if state.is_terminal():
            state = net.game.new_state(len(out))
        out.append(net.observe(state, state.current_player))
        state.apply(int(rng.choice(np.flatnonzero(state.legal_mask()))))
    return np.stack(out)


@pytest.mark.parametrize("game", ["haus_der_sonne", "hawaii"])  # a block network, a seat network
def test_the_batch_pass_is_one_product_within_rounding_of_the_rows_pass(game):
    net = load_network(checkpoint_path(game, 2), None, 2)
    assert net.pooled_pass == "rows" and POOLED_PASSES == ("rows", "batch")
    fast = with_pooled_pass(net, "batch")
    assert fast is not net and net.pooled_pass == "rows" and fast.params is net.params
    assert with_pooled_pass(fast, "batch") is fast
    obs = _obs(net)
    rows_l, rows_v = net.pooled_forward(obs)
    batch_l, batch_v = fast.pooled_forward(obs)
    np.testing.assert_array_equal(batch_v, fast.forward(obs)[1])  # the batched pass itself
    np.testing.assert_allclose(batch_l, rows_l, atol=1e-4)
    np.testing.assert_allclose(batch_v, rows_v, atol=1e-5)
    for i in (0, 5):  # the rows pass is each position alone, bit for bit
        np.testing.assert_array_equal(rows_v[i], net.forward(obs[i])[1][0])
    with pytest.raises(ValueError, match="pooled pass must be one of rows, batch, got 'fast'"):
        with_pooled_pass(net, "fast")


def test_a_seat_networks_views_take_the_pass_of_the_view_they_came_from():
    net = load_network(checkpoint_path("hawaii", 2), None, 2)
    fast = with_pooled_pass(net, "batch")
    assert fast.for_players(4).pooled_pass == "batch" and net.for_players(4).pooled_pass == "rows"
    assert fast.for_players(4) is not net.for_players(4) and fast.for_players(4).for_players(2) is fast


def test_self_play_on_the_batch_pass_plays_the_same_games_within_rounding(tmp_path):
    base = {"game": "hawaii", "num_players": 2, "player_counts": (2, 3), "architecture": "seatnet", "iterations": 1,
            "games_per_iteration": 2, "sims": 8, "eval_games": 0, "epochs": 1, "games_at_once": 3,
            "seat_widths": {"seat_hidden": 8, "global_hidden": 8, "trunk_hidden": 8, "value_hidden": 4}}
    rows_cfg, batch_cfg = ExItConfig(**base), ExItConfig(**base, inference_pass="batch")
    trainer = ExItTrainer(rows_cfg, tmp_path / "run", tensorboard=False, verbose=0)
    path = str(trainer.numpy_net().save(tmp_path / "net.zip"))
    assert self_play_net(batch_cfg, path, batch_cfg.make_game()).pooled_pass == "batch"
    assert self_play_net(rows_cfg, path, rows_cfg.make_game()).pooled_pass == "rows"
    seeds = [200, 201, 202, 203, 204, 205]
    exact = generate(rows_cfg, "selfplay", seeds, path, workers=1)
    fast = generate(batch_cfg, "selfplay", seeds, path, workers=1)
    again = generate(batch_cfg, "selfplay", seeds, path, workers=1)
    for k in samples.SAMPLE_KEYS:
        np.testing.assert_array_equal(fast[k], again[k])  # deterministic for a seed and G
    for k in ("obs", "players", "z"):
        np.testing.assert_array_equal(fast[k], exact[k])
    np.testing.assert_allclose(fast["pi"].astype(np.float32), exact["pi"].astype(np.float32), atol=1e-2)
    with pytest.raises(ValueError, match="inference_pass"):
        ExItConfig(**base, inference_pass="gemm")
