"""The labeller's knobs: the network's prior blended with the game heuristic's (``heuristic_prior``; at the
other seats' decisions ``opponent_prior``, an opponent model) and the Gumbel root (``root=gumbel``, sequential
halving, the improved policy), each off by default, each deciding the same in lockstep as alone."""

from __future__ import annotations

import numpy as np
import pytest
from test_batched_search import _positions

from meeplezoo.agents import make as make_agent
from meeplezoo.agents.network import (
    NetworkEvaluator,
    PolicyValueNet,
    full_config,
    load_network,
    masked_softmax,
    network_search,
)
from meeplezoo.agents.pretrained import checkpoint_path
from meeplezoo.agents.search import GumbelRoot, HeuristicPrior, Request, Tree, answer_all, considered_visits, lockstep
from meeplezoo.agents.search.gumbel import completed_q, sigma
from meeplezoo.agents.seatnet import SeatPolicyValueNet
from meeplezoo.envs.core.rng import Rng
from meeplezoo.registry import make_game


def _net(game_name: str = "kerala") -> PolicyValueNet | SeatPolicyValueNet:
    """The shipped 2-player network (Kerala's is a seat network)."""
    return load_network(str(checkpoint_path(game_name, 2)), make_game(game_name, 2))


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


@pytest.mark.parametrize("knob", ["heuristic_prior", "opponent_prior"])
def test_heuristic_weights_refused_out_of_range_or_without_a_heuristic(knob):
    """heuristic_prior and opponent_prior (the heuristic at the other seats' decisions) are refused by name
    out of [0, 1], and above 0 for a game without a heuristic, by the search, the evaluator and exit."""
    net = _net()
    for bad in (-0.1, 1.5, "half"):
        with pytest.raises(ValueError, match=f"netmcts: {knob} must be a number in"):
            network_search(net, sims=4, **{knob: bad})
    with pytest.raises(ValueError, match=f"{knob}=0.3 .* 'template' has no heuristic"):
        network_search(_tiny_template_net(), sims=4, **{knob: 0.3})
    with pytest.raises(ValueError, match="weight and opponent_weight must be in"):  # no heuristic to blend in
        NetworkEvaluator(net, **{"weight" if knob == "heuristic_prior" else "opponent_weight": 0.5})
    from meeplezoo.training.exit import ExItConfig

    with pytest.raises(ValueError, match=f"{knob} .* 'template' has no heuristic"):
        ExItConfig(game="template", search_options={knob: 0.5}, opponents={"self": 1.0})
    with pytest.raises(ValueError, match=f"{knob} must be a number in"):
        ExItConfig(game="kerala", search_options={knob: 2})

# -- the opponent model ---------------------------------------------------------------------------------------
def test_opponent_prior_blends_the_heuristic_at_the_other_seats_decisions_only():
    net = _net()
    state = _positions("kerala", 1, least=5)[0]
    heuristic = HeuristicPrior(make_agent("heuristic", "kerala", seed=1), temp=0.5)
    p_net = NetworkEvaluator(net).evaluate([state])[0][0]
    p_h = heuristic.evaluate([state])[0][0]
    ev = NetworkEvaluator(net, heuristic=heuristic, weight=0.25, opponent_weight=1.0)
    assert ev.heuristic is heuristic
    ev.searching_player = state.current_player  # its own decision: heuristic_prior's weight
    np.testing.assert_allclose(ev.evaluate([state])[0][0], 0.75 * p_net + 0.25 * p_h, rtol=1e-12, atol=0)
    ev.searching_player = 1 - state.current_player  # the other seat's decision: the heuristic's prior alone
    np.testing.assert_allclose(ev.evaluate([state])[0][0], p_h, rtol=1e-12, atol=0)
    only = NetworkEvaluator(net, heuristic=heuristic, opponent_weight=0.5)  # no heuristic at its own decisions
    only.searching_player = state.current_player
    np.testing.assert_array_equal(only.evaluate([state])[0][0], p_net)
    only.searching_player = 1 - state.current_player
    np.testing.assert_allclose(only.evaluate([state])[0][0], 0.5 * p_net + 0.5 * p_h, rtol=1e-12, atol=0)
    assert not np.allclose(p_net, p_h)


def test_opponent_prior_unset_is_the_search_of_today_and_the_search_names_its_seat():
    net = _net()
    for state in _positions("kerala", 2, least=6):
        today = network_search(net, seed=5, sims=24, heuristic_prior=0.5)
        _same(today.search(state), network_search(net, seed=5, sims=24, heuristic_prior=0.5,
                                                   opponent_prior=None).search(state))
        assert today.engine.source.searching_player == state.current_player
        assert today.engine.source.opponent_weight is None
    assert network_search(net, sims=4, opponent_prior=0).engine.source.heuristic is None


def test_opponent_prior_changes_the_search_and_spec_and_exit_take_it():
    net = _net()
    changed = 0
    for state in _positions("kerala", 3, least=8):
        plain = network_search(net, seed=5, sims=60).search(state)
        modelled = network_search(net, seed=5, sims=60, opponent_prior=1.0).search(state)
        changed += not np.array_equal(plain.visits, modelled.visits)
    assert changed >= 1  # the other seats' replies, modelled as the heuristic's, move the visits
    agent = make_agent("pretrained:sims=12:opponent_prior=1", "kerala", seed=1)
    assert agent.engine.source.opponent_weight == 1.0 and agent.engine.source.weight == 0
    from meeplezoo.training.exit import ExItConfig, _search

    cfg = ExItConfig(game="kerala", sims=8, search_options={"opponent_prior": 1.0, "prior_temp": 0.5})
    expert = _search(net, cfg, 3)
    assert expert.engine.source.opponent_weight == 1.0 and expert.engine.source.heuristic.temp == 0.5  # noqa: PLR2004


def test_opponent_prior_searches_in_lockstep_decide_as_each_alone():
    net = _net()
    states = _positions("kerala", 3, seed=7)

    def searches():
        return [network_search(net, seed=1, sims=16, opponent_prior=1.0),
                network_search(net, seed=2, sims=16, opponent_prior=0.5, heuristic_prior=0.25),
                network_search(net, seed=3, sims=16)]

    alone = [s.search(st) for s, st in zip(searches(), states)]
    together = lockstep([s.search_steps(state=st) for s, st in zip(searches(), states)], 3)
    for a, b in zip(alone, together):
        _same(a, b)


# -- the policy softmax temperature --------------------------------------------------------------------------
def test_policy_temp_divides_the_logits_before_the_prior_softmax():
    net = _net()
    state = _positions("kerala", 1, least=8)[0]
    logits, _ = net.forward(net.observe(state, state.current_player)[None])
    mask = state.legal_mask().astype(bool)[None]
    plain = NetworkEvaluator(net).evaluate([state])[0][0]
    assert np.array_equal(NetworkEvaluator(net, policy_temp=1.0).evaluate([state])[0][0], plain)
    flat = NetworkEvaluator(net, policy_temp=2.0).evaluate([state])[0][0]
    np.testing.assert_allclose(flat, masked_softmax(logits / 2.0, mask)[0], rtol=1e-12, atol=0)
    assert flat.sum() == pytest.approx(1.0) and not flat[~mask[0]].any()

    def entropy(p: np.ndarray) -> float:
        q = p[p > 0]
        return float(-(q * np.log(q)).sum())

    assert entropy(flat) > entropy(plain) + 0.05  # flatter: the best action's share falls
    assert flat.max() < plain.max() and flat.argmax() == plain.argmax()


def test_policy_temp_pools_as_alone_and_spec_and_exit_take_it():
    net = _net()
    states = _positions("kerala", 4)
    evs = [NetworkEvaluator(net, policy_temp=1.5), NetworkEvaluator(net), NetworkEvaluator(net, policy_temp=0.7)]
    requests = [Request(evs[i % 3], [s]) for i, s in enumerate(states)]
    for r, (priors, values) in zip(requests, answer_all(requests)):
        p1, v1 = r.answer()
        assert np.array_equal(p1[0], priors[0]) and np.array_equal(v1[0], values[0])
    state = _positions("kerala", 1, least=8)[0]
    assert not np.array_equal(network_search(net, seed=5, sims=40).search(state).visits,
                              network_search(net, seed=5, sims=40, policy_temp=3.0).search(state).visits)
    agent = make_agent("pretrained:sims=12:policy_temp=1.5", "kerala", seed=1)
    assert agent.engine.source.policy_temp == 1.5  # noqa: PLR2004
    from meeplezoo.training.exit import ExItConfig, _search

    expert = _search(net, ExItConfig(game="kerala", sims=8, search_options={"policy_temp": 2.0}), 3)
    assert expert.engine.source.policy_temp == 2.0  # noqa: PLR2004
    for bad in (0, -1.0, "hot"):
        with pytest.raises(ValueError, match="policy_temp"):
            network_search(net, sims=4, policy_temp=bad)
    with pytest.raises(ValueError, match="policy_temp must be above 0"):
        NetworkEvaluator(net, policy_temp=0.0)


# -- the Gumbel root ------------------------------------------------------------------------------------------
def test_sequential_halving_schedule_and_visits_on_a_small_budget():
    assert considered_visits(4, 16) == (0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5)
    assert considered_visits(1, 3) == (0, 1, 2) and len(considered_visits(16, 64)) == 64  # noqa: PLR2004
    net = _net()
    for state in _positions("kerala", 3, least=6):
        result = network_search(net, seed=2, sims=16, root="gumbel", gumbel_k=4).search(state)
        assert sorted(result.visits[result.visits > 0].tolist()) == [2, 2, 6, 6]
        assert result.visits[result.action] == 6 and result.simulations == 16  # noqa: PLR2004 - the winner
    few = _positions("kerala", 1, least=2)[0]
    n = len(few.legal_actions())
    result = network_search(net, seed=2, sims=12, root="gumbel", gumbel_k=64).search(few)
    assert result.visits.sum() == 12 and (result.visits > 0).sum() == min(n, 12)  # noqa: PLR2004 - k capped


def _hand_made_root(values: list[float], visits: list[int]) -> tuple[Tree, GumbelRoot]:
    """A root over actions 0..len-1 of a 2-player game whose child ``a`` has ``visits[a]`` visits of mean
    ``values[a]`` for player 0, under a uniform prior, the root valued 0, no noise."""
    tree = Tree(2)
    root = tree.new_node()
    for a, (v, n) in enumerate(zip(values, visits)):
        k = tree.children[root][a] = tree.new_node()
        tree.N[k], tree.W[k] = n, [v * n, -v * n]
    legal = list(range(len(values)))
    return tree, GumbelRoot(legal, dict.fromkeys(legal, 1 / len(legal)), 0.0, 8, 4, 0.0, None)


def test_improved_policy_sums_to_one_on_legal_actions_and_follows_q():
    tree, root = _hand_made_root([0.2, -0.4, 0.0], [3, 3, 0])
    pi = root.improved_policy(tree, 0, 0, 5)
    assert pi.sum() == pytest.approx(1.0) and pi[3] == pi[4] == 0
    assert pi[0] > pi[2] > pi[1]  # the unvisited action is worth the mixed value, between the two
    mixed = (0.0 + 6 * (0.2 - 0.4) / 2) / 7
    np.testing.assert_allclose(completed_q(np.array([0.2, -0.4, 0.0]), np.array([3, 3, 0]), np.ones(3) / 3, 0.0),
                               [0.2, -0.4, mixed])
    assert sigma(np.array([0.2, -0.4, mixed]), np.array([3, 3, 0])).max() == pytest.approx(53 * 0.1)
    flip = root.improved_policy(tree, 0, 1, 5)  # the other player's values: the order reverses
    assert flip[1] > flip[0]
    net = _net()
    state = _positions("kerala", 1, least=6)[0]
    result = network_search(net, seed=4, sims=32, root="gumbel").search(state)
    pi = result.extra["improved_policy"]
    mask = state.legal_mask().astype(bool)
    assert pi.shape == mask.shape and pi.sum() == pytest.approx(1.0) and not pi[~mask].any() and (pi[mask] > 0).all()


def test_gumbel_root_checks_the_searchers_legal_actions():
    tree, root = _hand_made_root([0.0, 0.0, 0.0], [0, 0, 0])
    assert root.pick(tree, 0, 0, [2, 1, 0]) in (0, 1, 2)  # the same set in another order
    with pytest.raises(RuntimeError, match="legal actions at the root"):
        root.pick(tree, 0, 0, [0, 1])
    for game_name in ("haus_der_sonne", "kerala", "hawaii", "asara"):
        rng = Rng(7)
        for state in _positions(game_name, 3):
            p = state.current_player
            assert all(sorted(state.determinize(p, rng).legal_actions()) == sorted(state.legal_actions())
                       for _ in range(4))


def test_root_puct_is_the_search_of_today_and_gumbel_changes_it():
    net = _net()
    for state in _positions("kerala", 2, least=6):
        today = network_search(net, seed=5, sims=24).search(state)
        _same(today, network_search(net, seed=5, sims=24, root="puct", gumbel_k=3).search(state))
        assert "improved_policy" not in today.extra
        gumbel = network_search(net, seed=5, sims=24, root="gumbel").search(state)
        assert not np.array_equal(today.visits, gumbel.visits)


def test_gumbel_searches_in_lockstep_decide_as_each_alone():
    net = _net()
    states = _positions("kerala", 4, seed=5)

    def searches():
        return [network_search(net, seed=1, sims=16, root="gumbel"),
                network_search(net, seed=2, sims=16, root="gumbel", gumbel_k=4, heuristic_prior=0.5),
                network_search(net, seed=3, sims=16, root="gumbel", gumbel_scale=0, leaf="rollout", rollout_depth=0),
                network_search(net, seed=4, sims=16, root="gumbel", batch=4)]

    alone = [s.search(st) for s, st in zip(searches(), states)]
    together = lockstep([s.search_steps(state=st) for s, st in zip(searches(), states)], 4)
    for a, b in zip(alone, together):
        _same(a, b)
        assert np.array_equal(a.extra["improved_policy"], b.extra["improved_policy"])
    assert alone[3].visits.sum() == 16  # noqa: PLR2004 - batches of descents keep to the budget


def test_gumbel_knobs_refused_by_name():
    net = _net()
    cases = [({"root": "alpha"}, "root must be one of puct, gumbel"), ({"gumbel_k": 0}, "gumbel_k must be an int >= 1"),
             ({"gumbel_scale": -1}, "gumbel_scale must be a number >= 0"),
             ({"root": "gumbel", "time": 0.5}, "root=gumbel needs a simulation budget"),
             ({"root": "gumbel", "temperature": 1}, "root=gumbel .* temperature must be 0"),
             ({"root": "gumbel", "reuse_tree": True}, "root=gumbel .* reuse_tree must be false")]
    for options, msg in cases:
        with pytest.raises(ValueError, match=msg):
            network_search(net, **{"sims": 8, **options})
    with pytest.raises(ValueError, match="root=gumbel needs a prior"):
        make_agent("mcts:sims=8:preset=plain:root=gumbel", "kerala")
    from meeplezoo.training.exit import ExItConfig

    with pytest.raises(ValueError, match="policy_target=improved .* root=gumbel"):
        ExItConfig(game="kerala", policy_target="improved")
    with pytest.raises(ValueError, match="policy_target must be one of visits, improved"):
        ExItConfig(game="kerala", policy_target="best")


# -- expert iteration -----------------------------------------------------------------------------------------
def test_an_exit_run_with_the_gumbel_root_stores_improved_policy_targets(tmp_path):
    pytest.importorskip("torch")
    import shlex

    from meeplezoo.cli import build_parser
    from meeplezoo.commands.train import config_from_args
    from meeplezoo.training.exit import ExItConfig, ExItTrainer

    base = {"game": "kerala", "iterations": 1, "games_per_iteration": 1, "sims": 4, "eval_games": 0, "epochs": 1,
            "channels": 4, "conv_layers": 1, "flat_hidden": 16, "trunk_hidden": 16, "opponents": {"self": 1.0},
            "seed": 3}
    targets = {}
    for target, options in (("improved", {"root": "gumbel", "heuristic_prior": 0.5}), ("visits", {})):
        cfg = ExItConfig(**base, policy_target=target, search_options=options)
        line = cfg.command(out=str(tmp_path / target))
        assert config_from_args(build_parser().parse_args(shlex.split(line)[1:])) == cfg
        trainer = ExItTrainer(cfg, tmp_path / target, tensorboard=False, verbose=0)
        trainer.run()
        targets[target] = (trainer.buffer["pi"].astype(np.float64), trainer.buffer["mask"].astype(bool))
    pi, mask = targets["improved"]
    wide = mask.sum(axis=1) > 8  # noqa: PLR2004 - decisions with more legal actions than simulations
    assert len(pi) > 20 and wide.sum() > 10  # noqa: PLR2004
    np.testing.assert_allclose(pi.sum(axis=1), 1.0, atol=2e-3)
    assert not pi[~mask].any()
    assert ((pi > 0).sum(axis=1)[wide] > 4).mean() > 0.9  # noqa: PLR2004 - softmax over every legal action
    visits, vmask = targets["visits"]
    assert ((visits > 0).sum(axis=1) <= 4).all()  # noqa: PLR2004 - four simulations: at most four actions
    assert np.allclose(visits * 4, np.round(visits * 4), atol=1e-2)
