"""Seat networks evaluated in torch (training/torch_net.py ``TorchSeatNet``), on the CPU and where there is one a GPU.

Every shipped seat network, at every count it plays, gives in torch on the CPU the priors and values the numpy
network gives on positions of real games; the views of other counts share one module; the torch twin stands in
for the numpy one in the search's evaluator, and expert iteration's self-play runs on it (``inference=torch``),
its samples agreeing with numpy's.  The CUDA test runs only where torch sees a GPU.
"""

from __future__ import annotations

import numpy as np
import pytest

from meeplezoo.agents.network import NetworkEvaluator, load_network
from meeplezoo.agents.pretrained import available
from meeplezoo.agents.seatnet import SeatPolicyValueNet
from meeplezoo.training import samples
from meeplezoo.training.inference import inference_net

torch = pytest.importorskip("torch")

from meeplezoo.training.exit import ExItConfig, ExItTrainer, generate  # noqa: E402
from meeplezoo.training.torch_net import TorchSeatNet  # noqa: E402

CUDA = torch.cuda.is_available()
#: (game, count) of every count a shipped seat network plays
SEAT_COUNTS = sorted((c["game"], c["num_players"]) for c in available() if c["architecture"] == "seatnet")
PATHS = {c["game"]: str(c["path"]) for c in available() if c["architecture"] == "seatnet"}


def _positions(net: SeatPolicyValueNet, n: int = 40) -> tuple[list, np.ndarray, np.ndarray]:
    """States of random games of ``net``'s game, observed by the player to move, and their legal masks."""
    rng = np.random.default_rng(0)
    states, obs, masks = [], [], []
    seed = 0
    while len(states) < n:
        state = net.game.new_state(seed)
        seed += 1
        while not state.is_terminal() and len(states) < n:
            states.append(state.clone())
            obs.append(net.observe(state, state.current_player))
            masks.append(state.legal_mask())
            state.apply(int(rng.choice(np.flatnonzero(state.legal_mask()))))
    return states, np.stack(obs), np.stack(masks)


@pytest.mark.parametrize(("game", "players"), SEAT_COUNTS, ids=[f"{g}-{n}p" for g, n in SEAT_COUNTS])
def test_every_shipped_seat_network_gives_the_same_priors_and_values_in_torch(game, players):
    net = load_network(PATHS[game], None, players)
    tnet = inference_net(net, "torch")
    assert isinstance(tnet, TorchSeatNet) and str(tnet.device) == "cpu" and tnet.game.num_players == players
    states, obs, masks = _positions(net)
    la, va = net.forward(obs)
    lb, vb = tnet.forward(obs)
    assert lb.dtype == np.float32 and lb.shape == la.shape and vb.shape == va.shape == (len(obs), players)
    legal = masks.astype(bool)
    np.testing.assert_allclose(lb[legal], la[legal], atol=1e-4)
    np.testing.assert_allclose(vb, va, atol=1e-5)
    np.testing.assert_allclose(tnet.policy(obs, masks), net.policy(obs, masks), atol=1e-5)
    np.testing.assert_allclose(tnet.pooled_forward(obs)[1], vb)  # the lockstep driver's batch: one call
    p_np, v_np = NetworkEvaluator(net).evaluate(states[:8])
    p_t, v_t = NetworkEvaluator(tnet).evaluate(states[:8])
    np.testing.assert_allclose(np.stack(p_t), np.stack(p_np), atol=1e-5)
    np.testing.assert_allclose(np.stack(v_t), np.stack(v_np), atol=1e-5)


def test_the_views_of_other_counts_share_one_module_and_numpy_gives_the_numpy_twin_back():
    net = load_network(PATHS["hawaii"], None, 2)
    tnet = inference_net(net, "torch")
    four = tnet.for_players(4)
    assert isinstance(four, TorchSeatNet) and four.module is tnet.module and four.game.num_players == 4
    assert four.for_players(2) is tnet and tnet.for_players(4) is four
    _states, obs, _masks = _positions(net.for_players(4), 12)
    np.testing.assert_allclose(four.forward(obs)[1], net.for_players(4).forward(obs)[1], atol=1e-5)
    with pytest.raises(ValueError, match="plays .* players, not 7"):
        tnet.for_players(7)
    back = inference_net(tnet, "numpy")
    assert type(back) is SeatPolicyValueNet and back.params.keys() == net.params.keys()
    with pytest.raises(ValueError, match="float16 runs on a GPU only"):
        inference_net(net, "torch", precision="float16")


def test_seat_network_self_play_runs_on_torch_with_the_samples_numpy_gives(tmp_path):
    tiny = {"seat_hidden": 8, "global_hidden": 8, "trunk_hidden": 8, "value_hidden": 4}
    base = {"game": "asara", "num_players": 2, "player_counts": (2, 3), "architecture": "seatnet", "iterations": 1,
            "games_per_iteration": 2, "sims": 8, "eval_games": 0, "epochs": 1, "seat_widths": tiny, "games_at_once": 2}
    cfg = ExItConfig(**base)
    trainer = ExItTrainer(cfg, tmp_path / "run", tensorboard=False, verbose=0)
    path = str(trainer.numpy_net().save(tmp_path / "net.zip"))
    seeds = [100, 101, 102, 103]
    with_numpy = generate(cfg, "selfplay", seeds, path, workers=1)
    with_torch = generate(ExItConfig(**base, inference="torch"), "selfplay", seeds, path, workers=1)
    assert set(with_torch["players"].tolist()) == {2, 3}
    # float32 kernels of another library: the same games unless a search's choice falls on a rounding tie
    same = [np.array_equal(with_numpy[k], with_torch[k]) for k in ("obs", "players", "z")]
    assert all(same), "torch's self-play played other games than numpy's"
    np.testing.assert_allclose(with_torch["pi"].astype(np.float32), with_numpy["pi"].astype(np.float32), atol=1e-2)
    assert set(with_torch) == set(samples.SAMPLE_KEYS)


@pytest.mark.skipif(not CUDA, reason="torch sees no GPU")
@pytest.mark.parametrize("precision", ["float32", "bfloat16"])
def test_every_shipped_seat_network_on_the_gpu(precision):
    for game, players in SEAT_COUNTS:
        net = load_network(PATHS[game], None, players)
        tnet = inference_net(net, "numpy", "cuda", precision)  # a GPU means torch
        assert isinstance(tnet, TorchSeatNet) and tnet.device.type == "cuda"
        _states, obs, masks = _positions(net, 24)
        atol = 1e-3 if precision == "float32" else 0.15
        np.testing.assert_allclose(tnet.forward(obs)[1], net.forward(obs)[1], atol=atol)
        np.testing.assert_allclose(tnet.policy(obs, masks), net.policy(obs, masks), atol=atol)
