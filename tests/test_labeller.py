"""The labeller's knobs: the network's prior blended with the game heuristic's (``heuristic_prior``) and the
Gumbel root (``root=gumbel``, sequential halving, the improved policy), each off by default, each deciding the
same in lockstep as alone."""

from __future__ import annotations

import numpy as np
import pytest

from meeplezoo.agents import make as make_agent
from meeplezoo.agents.network import NetworkEvaluator, PolicyValueNet, full_config, masked_softmax, network_search
from meeplezoo.agents.pretrained import checkpoint_path
from meeplezoo.agents.search import HeuristicPrior, Request, answer_all, lockstep
from meeplezoo.registry import make_game


def _net(game_name: str = "kerala") -> PolicyValueNet:
    return PolicyValueNet.load(str(checkpoint_path(game_name, 2)), make_game(game_name, 2))


def _positions(game_name: str, count: int, seed: int = 3, least: int = 2) -> list:
    """``count`` positions of a random game with at least ``least`` legal actions."""
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


def _same(a, b) -> None:
    assert a.action == b.action and np.array_equal(a.visits, b.visits)
    np.testing.assert_array_equal(a.values, b.values)


def _tiny_template_net() -> PolicyValueNet:
    game = make_game("template", 2)
    cfg = full_config({"channels": 4, "conv_layers": 1, "flat_hidden": 8, "trunk_hidden": 8})
    rng = np.random.default_rng(0)
    shapes = PolicyValueNet.parameter_shapes(game, cfg)
    return PolicyValueNet(game, {k: rng.normal(0, 0.1, s) for k, s in shapes.items()}, cfg)


# -- the blended prior ----------------------------------------------------------------------------------------
def test_blended_prior_is_the_weighted_mix_over_the_legal_actions():
    net = _net()
    state = _positions("kerala", 1, least=5)[0]
    heuristic = HeuristicPrior(make_agent("heuristic", "kerala", seed=1), temp=0.5)
    priors, values = NetworkEvaluator(net, heuristic=heuristic, weight=0.3).evaluate([state])
    logits, v = net.forward(net.observe(state, state.current_player)[None])
    mask = state.legal_mask().astype(bool)
    p_net = masked_softmax(logits, mask[None])[0]
    p_h = heuristic.evaluate([state])[0][0]
    np.testing.assert_allclose(priors[0], 0.7 * p_net + 0.3 * p_h, rtol=1e-12, atol=0)
    assert priors[0].sum() == pytest.approx(1.0) and not priors[0][~mask].any()
    assert not np.allclose(p_net, p_h)  # the mix is a real change on this position
    np.testing.assert_array_equal(values[0], v[0][np.arange(2) - state.current_player])  # the network's values


def test_heuristic_prior_zero_is_the_network_search_of_today():
    net = _net()
    for state in _positions("kerala", 3):
        _same(network_search(net, seed=5, sims=24).search(state),
              network_search(net, seed=5, sims=24, heuristic_prior=0).search(state))
    assert network_search(net, sims=4).engine.source.heuristic is None


def test_heuristic_prior_changes_the_search_and_spec_and_exit_take_it():
    net = _net()
    state = _positions("kerala", 1, least=8)[0]
    plain = network_search(net, seed=5, sims=40).search(state)
    blended = network_search(net, seed=5, sims=40, heuristic_prior=0.8).search(state)
    assert not np.array_equal(plain.visits, blended.visits)
    agent = make_agent("pretrained:sims=12:heuristic_prior=0.5", "kerala", seed=1)
    assert agent.engine.source.weight == 0.5 and agent.sims == 12  # noqa: PLR2004
    from meeplezoo.training.exit import ExItConfig, _search

    cfg = ExItConfig(game="kerala", sims=8, search_options={"heuristic_prior": 0.5, "prior_temp": 0.5})
    expert = _search(net, cfg, 3)
    assert expert.engine.source.weight == 0.5 and expert.engine.source.heuristic.temp == 0.5  # noqa: PLR2004


def test_blended_searches_in_lockstep_decide_as_each_alone():
    net = _net()
    states = _positions("kerala", 4)

    def searches():
        return [network_search(net, seed=1, sims=12, heuristic_prior=0.5),
                network_search(net, seed=2, sims=12),
                network_search(net, seed=3, sims=12, heuristic_prior=0.25, leaf="rollout", rollout_depth=0),
                network_search(net, seed=4, sims=12, heuristic_prior=1.0, prior_temp=0.5)]

    alone = [s.search(st) for s, st in zip(searches(), states)]
    together = lockstep([s.search_steps(state=st) for s, st in zip(searches(), states)], 4)
    for a, b in zip(alone, together):
        _same(a, b)
    heuristic = HeuristicPrior(make_agent("heuristic", "kerala", seed=1))
    evs = [NetworkEvaluator(net, heuristic=heuristic, weight=0.4), NetworkEvaluator(net)]
    requests = [Request(evs[i % 2], [s]) for i, s in enumerate(states)]
    for r, (priors, values) in zip(requests, answer_all(requests)):
        p1, v1 = r.answer()
        assert np.array_equal(p1[0], priors[0]) and np.array_equal(v1[0], values[0])


def test_heuristic_prior_refused_out_of_range_or_without_a_heuristic():
    net = _net()
    for bad in (-0.1, 1.5, "half"):
        with pytest.raises(ValueError, match="netmcts: heuristic_prior must be a number in"):
            network_search(net, sims=4, heuristic_prior=bad)
    with pytest.raises(ValueError, match="heuristic_prior=0.3 .* 'template' has no heuristic"):
        network_search(_tiny_template_net(), sims=4, heuristic_prior=0.3)
    from meeplezoo.training.exit import ExItConfig

    with pytest.raises(ValueError, match="heuristic_prior .* 'template' has no heuristic"):
        ExItConfig(game="template", search_options={"heuristic_prior": 0.5}, opponents={"self": 1.0})
    with pytest.raises(ValueError, match="heuristic_prior must be a number in"):
        ExItConfig(game="kerala", search_options={"heuristic_prior": 2})
