"""The lockstep driver: searches driven together decide exactly as each driven alone, and expert iteration's
self-play samples do not depend on how many games are played at once or on how many workers play them."""

from __future__ import annotations

import numpy as np
import pytest

from meeplezoo.agents.network import NetworkEvaluator, PolicyValueNet, load_network, network_search
from meeplezoo.agents.pretrained import checkpoint_path
from meeplezoo.agents.search import Request, answer_all, drive, lockstep
from meeplezoo.agents.seatnet import SeatPolicyValueNet
from meeplezoo.registry import make_game
from meeplezoo.training.exit import ExItConfig, generate

GAMES = ("haus_der_sonne", "kerala", "hawaii", "asara")


def _net(game_name: str) -> PolicyValueNet | SeatPolicyValueNet:
    """The shipped 2-player network (a block or a seat network: Hawaii's plays every count)."""
    return load_network(str(checkpoint_path(game_name, 2)), make_game(game_name, 2))


def _positions(game_name: str, count: int, seed: int = 3, least: int = 2) -> list:
    """``count`` positions of a random game with at least ``least`` legal actions (a decision to make)."""
    game = make_game(game_name, 2)
    rng = np.random.default_rng(seed)
    state = game.new_state(seed)
    out = []
    while not state.is_terminal() and len(out) < count:
        acts = state.legal_actions()
        if len(acts) >= least and rng.random() < 0.5:
            out.append(state.clone())
        state.apply(acts[int(rng.integers(len(acts)))])
    return out


@pytest.mark.parametrize("game_name", GAMES)
def test_lockstep_of_one_search_is_the_search_move_for_move(game_name):
    net = _net(game_name)
    alone = network_search(net, seed=11, sims=8)
    driven = network_search(net, seed=11, sims=8)
    state = make_game(game_name, 2).new_state(5)
    for _ in range(6):
        if state.is_terminal():
            break
        a = alone.search(state)
        b = lockstep([driven.search_steps(state)], 1)[0]
        assert np.array_equal(a.visits, b.visits) and a.action == b.action
        np.testing.assert_array_equal(a.values, b.values)
        state.apply(a.action)


def test_searches_in_lockstep_decide_as_each_alone():
    """Three searches on one network (one with rollout leaves, one with batches of two leaves, whose requests
    are answered alone) and one on a second copy of it: lockstep gives each the statistics it gets alone."""
    net, other = _net("hawaii"), _net("hawaii")
    states = _positions("hawaii", 4)

    def searches():
        return [network_search(net, seed=1, sims=12), network_search(net, seed=2, sims=12, leaf="rollout"),
                network_search(net, seed=3, sims=12, batch=2), network_search(other, seed=4, sims=12)]

    alone = [s.search(st) for s, st in zip(searches(), states)]
    together = lockstep([s.search_steps(state=st) for s, st in zip(searches(), states)], 4)
    for a, b in zip(alone, together):
        assert np.array_equal(a.visits, b.visits) and a.action == b.action
        np.testing.assert_array_equal(a.values, b.values)
    narrow = lockstep([s.search_steps(state=st) for s, st in zip(searches(), states)], 2)
    assert [r.action for r in narrow] == [r.action for r in alone]


def test_pooled_answers_are_the_single_answers_bit_for_bit():
    net = _net("kerala")  # a seat network: convolutions per seat and the action head over the picks
    states = _positions("kerala", 5)
    evs = [NetworkEvaluator(net), NetworkEvaluator(net, values=False)]
    requests = [Request(evs[i % 2], [s]) for i, s in enumerate(states)] + [Request(evs[0], states[:2], [0, 1])]
    for r, (priors, values) in zip(requests, answer_all(requests)):
        p1, v1 = r.answer()
        for x, y in zip(p1, priors):
            assert np.array_equal(x, y)
        assert (v1 is None) == (values is None)
        for x, y in zip(v1 or (), values or ()):
            assert np.array_equal(x, y)
    assert evs[0].states == 2 * (3 + 2) and evs[1].calls == 2 * 2  # each request counted as answered alone


def test_drive_returns_what_the_steps_return():
    def steps():
        answer = yield Request(NetworkEvaluator(_net("haus_der_sonne")), _positions("haus_der_sonne", 1))
        return len(answer[0])

    assert drive(steps()) == 1
    assert lockstep(iter(()), 3) == []
    for bad in (0, -2, 1.5, True):
        with pytest.raises(ValueError, match="width"):
            lockstep([], bad)


def test_exit_samples_do_not_depend_on_games_at_once_or_workers():
    path = str(checkpoint_path("haus_der_sonne", 2))
    seeds = [101, 102, 103, 104, 105]
    runs = {}
    for g in (1, 3):
        for workers in (1, 2):
            cfg = ExItConfig(game="haus_der_sonne", sims=4, games_at_once=g, seed=1)
            runs[g, workers] = generate(cfg, "selfplay", seeds, path, [path], workers=workers)
    first = runs[1, 1]
    assert len(first["obs"]) > 50
    for key, data in runs.items():
        for k in ("obs", "mask", "pi", "z"):
            assert np.array_equal(first[k], data[k]), (key, k)


def test_games_at_once_must_be_positive():
    for bad in (0, -3):
        with pytest.raises(ValueError, match="games_at_once"):
            ExItConfig(game="template", games_at_once=bad)


def test_self_play_on_torch_pools_through_torch():
    pytest.importorskip("torch")
    from meeplezoo.training.exit import self_play_net

    cfg = ExItConfig(game="haus_der_sonne", sims=4, games_at_once=2, inference="torch", seed=1)
    path = str(checkpoint_path("haus_der_sonne", 2))
    net = self_play_net(cfg, path, cfg.make_game())
    assert type(net).__name__ == "TorchNet"
    obs = np.stack([net.observe(s, s.current_player) for s in _positions("haus_der_sonne", 3)])
    for x, y in zip(net.pooled_forward(obs), net.forward(obs)):  # torch's batched pass, not numpy's rows
        np.testing.assert_array_equal(x, y)
    data = generate(cfg, "selfplay", [7, 8], path)
    assert len(data["obs"]) > 10 and np.isfinite(data["pi"].astype(np.float32)).all()
    with pytest.raises(ValueError, match="float16"):
        ExItConfig(game="template", inference_precision="float16")


def test_self_play_jobs_hold_games_at_once_games_and_one_per_worker_at_least():
    from meeplezoo.training.exit import GENERATE_JOBS, _jobs

    cfg = ExItConfig(game="template", games_at_once=8)
    assert _jobs(cfg, "selfplay", 8, 1) == 1 and _jobs(cfg, "selfplay", 8, 2) == 2
    assert _jobs(cfg, "selfplay", 40, 2) == 5 and _jobs(cfg, "selfplay", 3, 4) == 3
    assert _jobs(cfg, "selfplay", 100_000, 2) == GENERATE_JOBS and _jobs(cfg, "imitation", 8, 1) == GENERATE_JOBS
