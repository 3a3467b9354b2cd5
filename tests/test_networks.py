"""The block network (training/networks.py): built from every game's observation blocks, small, and
shaped as the search and the trainer expect."""

from __future__ import annotations

import numpy as np
import pytest

import meeplezoo
from meeplezoo.envs.core.observation import ObservationSpec

torch = pytest.importorskip("torch")

from meeplezoo.training.networks import BlockNet  # noqa: E402

CONFIGS = [("kerala", 2), ("kerala", 5), ("haus_der_sonne", 2), ("hawaii", 2), ("hawaii", 5), ("asara", 2),
           ("asara", 4), ("template", 3)]


@pytest.mark.parametrize(("name", "players"), CONFIGS)
def test_the_network_fits_every_game_and_stays_small(name, players):
    torch.set_num_threads(1)
    torch.manual_seed(0)
    game = meeplezoo.make_game(name, players)
    net = BlockNet(game.observation_spec, game.num_actions, players)
    params = sum(p.numel() for p in net.parameters())
    assert params < 1_000_000, f"{name}: {params} parameters"
    state = game.new_state(1)
    obs = torch.as_tensor(np.stack([state.observe(p) for p in range(players)]))
    logits, values = net(obs)
    assert logits.shape == (players, game.num_actions)
    assert values.shape == (players, players)
    assert torch.isfinite(logits).all() and (values.abs() <= 1).all()


def test_boards_get_convolutions_and_the_rest_an_mlp():
    game = meeplezoo.make_game("kerala", 2)
    net = BlockNet(game.observation_spec, game.num_actions, 2)
    assert net.spatial, "Kerala's platform planes are spatial"
    assert set(net.spatial) == {"platforms", "pending_cell"}  # the boards; the offer table is not one
    assert "offer" in net.flat and "players" in net.flat
    for name in ("haus_der_sonne", "hawaii", "asara"):  # no board grids: tables and counts only
        g = meeplezoo.make_game(name, 2)
        assert not BlockNet(g.observation_spec, g.num_actions, 2).spatial, name
    with pytest.raises(ValueError, match="a spatial block needs at least two dims"):
        ObservationSpec().add("row", 5, spatial=True)
