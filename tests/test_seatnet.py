"""The seat network: one network per game for every player count (training/seatnet.py in torch,
agents/seatnet.py in numpy), its checkpoints and its use by the network agent and the search."""

from __future__ import annotations

import zipfile

import numpy as np
import pytest

from meeplezoo.agents.checkpoint import NET_WEIGHTS_MEMBER
from meeplezoo.agents.network import NetworkAgent, PolicyValueNet, _conv3x3, load_agent, load_network, network_search
from meeplezoo.agents.seat_convs import ActiveConv
from meeplezoo.agents.seat_layout import SEAT_CONFIG_KEYS, SeatLayout, seatnet_shapes
from meeplezoo.agents.seatnet import SeatPolicyValueNet
from meeplezoo.registry import game_class, make_game

GAMES = [("kerala", {}), ("kerala", {"derived_features": True, "elephant_view": True}), ("hawaii", {}),
         ("asara", {}), ("haus_der_sonne", {})]
SMALL = {"channels": 4, "seat_hidden": 8, "global_hidden": 8, "trunk_hidden": 16, "cell_hidden": 4,
         "value_hidden": 4, "action_hidden": 8}


def _observations(game, seed: int, count: int = 4, every: int = 7) -> np.ndarray:
    """Observations of the player to move along a random game."""
    state = game.new_state(seed)
    rng = np.random.default_rng(seed)
    out, step = [], 0
    while not state.is_terminal() and len(out) < count:
        if step % every == 0:
            out.append(state.observe(state.current_player))
        legal = state.legal_actions()
        state.apply(legal[int(rng.integers(len(legal)))])
        step += 1
    return np.stack(out)


def _random_net(game, config=SMALL, seed: int = 0) -> SeatPolicyValueNet:
    rng = np.random.default_rng(seed)
    shapes = seatnet_shapes(SeatLayout(game), config)
    arrays = {k: rng.normal(0, 0.3, s).astype(np.float32) for k, s in shapes.items()}
    return SeatPolicyValueNet(game, arrays, config)


def _counts(name):
    cls = game_class(name)
    return range(cls.min_players, cls.max_players + 1)


# -- numpy alone ---------------------------------------------------------------------------------------
def test_active_convolution_equals_the_full_one():
    """Convolving only the cells near a non-zero value gives the full 3x3 convolution on every cell."""
    game = make_game("kerala", 3, derived_features=True)
    lay = SeatLayout(game)
    rng = np.random.default_rng(1)
    w = rng.normal(0, 0.2, (5, lay.planes, 3, 3)).astype(np.float32)
    b = rng.normal(0, 0.2, 5).astype(np.float32)
    conv = ActiveConv(lay.board_index, lay.height, lay.width, w, b, nonnegative=True)
    obs = _observations(game, 4)
    active, h, sums = conv(obs)
    x = obs[:, lay.board_index].reshape(-1, lay.planes, lay.height, lay.width).transpose(0, 2, 3, 1)
    full = np.maximum(_conv3x3(x, w, b), 0).reshape(len(obs), lay.rows, lay.cells, -1)
    assert np.allclose(sums, full.sum(axis=2), atol=1e-3)
    assert np.allclose(h, full.reshape(-1, 5)[active], atol=1e-5)
    far = np.setdiff1d(np.arange(full.size // 5), active)
    assert len(far) and np.allclose(full.reshape(-1, 5)[far], np.maximum(b, 0))


@pytest.mark.parametrize("name,options", GAMES, ids=lambda x: str(x))
def test_numpy_network_every_count(name, options):
    """One set of weights reads every player count: logits over the actions, one value per seat in [-1, 1]."""
    net = _random_net(make_game(name, 2, **options))
    for n in _counts(name):
        view = net.for_players(n)
        assert view.params["trunk.weight"] is net.params["trunk.weight"] and view.for_players(2) is net
        obs = _observations(view.game, n)
        logits, values = view.forward(obs)
        assert logits.shape == (len(obs), view.game.num_actions) and np.isfinite(logits).all()
        assert values.shape == (len(obs), n) and np.all(np.abs(values) <= 1)
        one, _ = view.forward(obs[1])
        assert np.allclose(one[0], logits[1], atol=1e-5)
        if name == "kerala" and n != 2:  # the observation's size tells the counts apart
            with pytest.raises(ValueError, match="bound to"):
                net.forward(obs)


def test_bad_seat_counts_and_configs():
    net = _random_net(make_game("asara", 2))
    with pytest.raises(ValueError, match="plays"):
        net.for_players(5)
    with pytest.raises(ValueError, match="config"):
        seatnet_shapes(SeatLayout(make_game("asara")), {k: 1 for k in SEAT_CONFIG_KEYS[:-1]})
    with pytest.raises(ValueError, match="lack"):
        SeatPolicyValueNet(make_game("asara"), {}, SMALL)


def test_checkpoint_round_trip_float16(tmp_path):
    net = _random_net(make_game("kerala", 3, derived_features=True, elephant_view=True))
    path = net.save(tmp_path / "seat.zip", algorithm="test")
    with zipfile.ZipFile(path) as z, z.open(NET_WEIGHTS_MEMBER) as f:
        with np.load(f) as npz:
            assert {npz[k].dtype for k in npz.files} == {np.dtype(np.float16)}
    back = load_network(path)
    assert isinstance(back, SeatPolicyValueNet) and back.game.num_players == 2  # the first count it plays
    assert back.metadata["seat_counts"] == [2, 3, 4, 5] and back.metadata["algorithm"] == "test"
    for k, v in net.params.items():
        assert np.array_equal(back.params[k], v.astype(np.float16).astype(np.float32)), k
    at4 = load_network(path, "kerala", 4)
    obs = _observations(at4.game, 2)
    logits, values = at4.forward(obs)
    want, want_v = net.for_players(4).forward(obs)
    assert np.allclose(logits, want, atol=0.05) and np.allclose(values, want_v, atol=0.05)
    with pytest.raises(ValueError, match="not 6"):
        load_network(path, "kerala", 6)
    with pytest.raises(ValueError, match="not 'hawaii'"):
        load_network(path, "hawaii")
    with pytest.raises(ValueError, match="rule options"):
        load_network(path, make_game("kerala", 3, pass_mode="discard_chosen"))


def test_load_network_reads_a_block_network():
    from meeplezoo.agents.pretrained import checkpoint_path

    net = load_network(checkpoint_path("haus_der_sonne", 2))  # Haus der Sonne ships a 2-player block network
    assert isinstance(net, PolicyValueNet) and not isinstance(net, SeatPolicyValueNet)


def test_seat_network_plays_every_count(tmp_path):
    """``net:PATH`` of a seat network plays legal moves at every player count (bound per state), and the
    network-guided search uses it unchanged."""
    path = _random_net(make_game("hawaii", 2)).save(tmp_path / "hawaii.zip")
    agent = load_agent(path, seed=1)
    assert isinstance(agent, NetworkAgent)
    for n in _counts("hawaii"):
        game = make_game("hawaii", n)
        state = game.new_state(n)
        for _ in range(25):
            if state.is_terminal():
                break
            a = agent.act(state.observe(state.current_player), state.legal_mask(), state=state)
            assert state.legal_mask()[a]
            state.apply(a)
    search = network_search(str(path), seed=2, sims=8)
    state = make_game("hawaii", 3).new_state(5)
    assert state.legal_mask()[search.act(state.observe(state.current_player), state.legal_mask(), state=state)]


# -- torch and numpy -----------------------------------------------------------------------------------
def _torch_net(name, options, seed=0):
    torch = pytest.importorskip("torch")
    from meeplezoo.training.seatnet import SeatNet, SeatNetConfig

    torch.manual_seed(seed)
    net = SeatNet(make_game(name, 2, **options), SeatNetConfig(**SMALL))
    with torch.no_grad():
        for prm in net.parameters():
            prm.add_(torch.randn_like(prm) * 0.2)
    return torch, net


@pytest.mark.parametrize("name,options", GAMES, ids=lambda x: str(x))
def test_torch_and_numpy_agree(name, options):
    torch, net = _torch_net(name, options)
    twin = SeatPolicyValueNet(net.games[2], net.arrays(), net.config.as_dict())
    for n in net.seat_counts:
        obs = _observations(net.games[n], 10 + n)
        with torch.no_grad():
            logits, values = net(torch.as_tensor(obs))
        for got, got_v in (twin.for_players(n).forward(obs), twin.for_players(n).forward_rows(obs)):
            # the batched pass and the one-observation pass (forward_rows: every row alone)
            assert np.allclose(logits.numpy(), got, atol=1e-4), (n, np.abs(logits.numpy() - got).max())
            assert np.allclose(values.numpy()[:, :n], got_v, atol=1e-4)
        assert values.shape[1] == net.max_seats and not values[:, n:].any()  # masked to the seats present
        assert np.array_equal(net.presence(torch.as_tensor(obs)).numpy()[0], (np.arange(net.max_seats) < n))


@pytest.mark.parametrize("name,n", [("hawaii", 5), ("asara", 4), ("kerala", 4)])
def test_other_seats_are_pooled(name, n):
    """Swapping two of the other seats (not the observer, not the next) changes no logit and swaps their
    values only."""
    torch, net = _torch_net(name, {})
    game = net.games[n]
    obs = _observations(game, 3)
    spec = game.observation_spec
    swapped = obs.copy()
    for array in spec.seat_names():
        sl = spec.structure()[array][3]
        rows = obs[:, sl].reshape(len(obs), -1, (sl.stop - sl.start) // spec.structure()[array][0][0])
        perm = np.arange(rows.shape[1])
        perm[[2, 3]] = perm[[3, 2]]
        swapped[:, sl] = rows[:, perm].reshape(len(obs), -1)
    with torch.no_grad():
        logits, values = net(torch.as_tensor(obs))
        logits2, values2 = net(torch.as_tensor(swapped))
    assert torch.allclose(logits, logits2, atol=1e-5)
    assert torch.allclose(values[:, [0, 1, 3, 2]], values2[:, :4], atol=1e-5)
    twin = SeatPolicyValueNet(net.games[2], net.arrays(), net.config.as_dict()).for_players(n)
    assert np.allclose(twin.forward(obs)[0], twin.forward(swapped)[0], atol=1e-4)


def test_seat_loss_decreases():
    torch, net = _torch_net("asara", {})
    from meeplezoo.training.seatnet import seat_loss

    game = net.games[3]
    obs = torch.as_tensor(_observations(game, 1, count=6, every=3))
    rng = np.random.default_rng(0)
    target_policy = torch.zeros(len(obs), game.num_actions)
    target_policy[torch.arange(len(obs)), torch.as_tensor(rng.integers(0, game.num_actions, len(obs)))] = 1.0
    present = net.presence(obs)
    target_values = torch.as_tensor(rng.uniform(-1, 1, (len(obs), net.max_seats)), dtype=torch.float32) * present
    opt = torch.optim.Adam(net.parameters(), lr=3e-2)
    losses = []
    for _ in range(25):
        logits, values = net(obs)
        loss, _pl, _vl = seat_loss(logits, values, target_policy, target_values, present)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(float(loss.detach()))
    assert losses[-1] < 0.5 * losses[0]


@pytest.mark.parametrize("name,options", [GAMES[1], ("hawaii", {})], ids=lambda x: str(x))
def test_forward_rows_are_single_forwards_bit_for_bit(name, options):
    """Each row of ``forward_rows`` is what ``forward`` gives that observation alone (the one-observation
    pass where it applies, the batched pass of one row elsewhere), at every count; and the pooled
    evaluator answers states of several counts as each alone."""
    from meeplezoo.agents.network import NetworkEvaluator
    from meeplezoo.agents.search import Request, answer_all

    net = _random_net(make_game(name, 2, **options), dict(SMALL, channels=6, trunk_hidden=24))
    for n in _counts(name):
        view = net.for_players(n)
        obs = _observations(view.game, 20 + n, count=6, every=5)
        logits, values = view.forward_rows(obs)
        for i, x in enumerate(obs):
            one, one_v = view.forward(x)
            assert np.array_equal(one[0], logits[i]) and np.array_equal(one_v[0], values[i])
        batched, batched_v = view.forward(obs)
        assert np.allclose(batched, logits, atol=1e-4) and np.allclose(batched_v, values, atol=1e-5)
    states = []
    for n in (2, 3):
        state = make_game(name, n, **options).new_state(5)
        for _ in range(6):
            state.apply(state.legal_actions()[0])
        states += [state.clone(), state]
    ev = NetworkEvaluator(net)
    requests = [Request(ev, [s]) for s in states]
    for r, (priors, seats) in zip(requests, answer_all(requests)):
        p1, v1 = r.answer()
        assert np.array_equal(p1[0], priors[0]) and np.array_equal(v1[0], seats[0])


def test_a_seat_network_pickles_for_a_process_pool():
    """Evaluation and self-play send the network (in an agent) to pool workers: it must pickle, and the copy
    must answer as the original, at every count."""
    import pickle

    for name in ("kerala", "hawaii", "asara"):
        game = make_game(name, 3, **({"derived_features": True, "elephant_view": True} if name == "kerala" else {}))
        net = _random_net(game)
        obs = _observations(game, 1, count=2).astype(np.float32)
        copy = pickle.loads(pickle.dumps(net))
        for a, b in zip(net.forward(obs), copy.forward(obs), strict=True):
            np.testing.assert_array_equal(a, b)
        agent = pickle.loads(pickle.dumps(NetworkAgent(net)))
        assert agent is not None
