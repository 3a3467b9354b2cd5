"""Guided search (PUCT with priors, progressive widening, batched leaf evaluation, time budgets)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from test_mcts import (
    GAMES,
    InformationSetView,
    StepClock,
    advance,
    find_decisive_endgame,
    game_or_skip,
    heuristic_or_skip,
    hidden_information_games,
    play_some,
    player_counts,
    toy_position,
)

import meeplezoo
from meeplezoo.agents import make as make_agent
from meeplezoo.agents.mcts import TUNED, Evaluator, HeuristicPrior, MCTSAgent
from meeplezoo.envs.core import Rng


def guided(seed: int = 0, **kw: Any) -> MCTSAgent:
    opts: dict[str, Any] = {"sims": 8, "max_depth": 6, "prior": "heuristic", "c": 1.5}
    opts.update(kw)
    return MCTSAgent(seed=seed, **opts)


class CountingEvaluator(Evaluator):
    """A stand-in for a policy-value network: uniform priors, zero values, records its batch sizes."""

    provides_values = True

    def __init__(self) -> None:
        self.batches: list[int] = []

    def evaluate(self, states: list[Any]) -> tuple[Any, Any]:
        self.batches.append(len(states))
        priors = [s.legal_mask().astype(np.float64) for s in states]
        values = [[0.0] * s.game.num_players for s in states]
        return priors, values


# -- every game, every player count ----------------------------------------------------------------------
@pytest.mark.parametrize("name", GAMES)
def test_prior_and_widening_paths_play_legally(name):
    heuristic_or_skip(name)
    for n in player_counts(name):
        game = game_or_skip(name, n)
        agents = [guided(seed=1, widen=1.5), guided(seed=2, prior="uniform", batch=3)]
        agents += [MCTSAgent(seed=3 + i, sims=4, max_depth=4) for i in range(n - 2)]
        actions = play_some(game, agents, seed=5)
        assert actions
        # the heuristic prior is a distribution over exactly the legal actions of any position
        s = advance(game.new_state(3), 9, seed=1)
        hp = HeuristicPrior(make_agent("heuristic", name, seed=0))
        (pr,), values = hp.evaluate([s])
        assert values is None
        mask = s.legal_mask()
        assert pr.sum() == pytest.approx(1.0) and (pr[~mask] == 0).all() and (pr[mask] > 0).all()


@pytest.mark.parametrize("name", GAMES)
def test_the_spec_mcts_is_the_tuned_setting(name):
    a = make_agent("mcts", name, seed=0)
    for key, value in TUNED[name].items():
        attr = {"time": "time_limit", "sims": "sims"}.get(key, key)
        assert getattr(a, attr) == value, key
    b = make_agent("mcts:sims=30:c=0.7", name, seed=0)
    assert b.sims == 30 and b.time_limit is None and b.c == 0.7 and b.prior == TUNED[name].get("prior")
    assert make_agent("mcts:preset=plain", name).prior is None


def test_misspelled_options_name_the_bad_one_and_the_known_ones():
    with pytest.raises(ValueError, match=r"unknown option 'sim' for agent 'mcts'.*known options: .*sims"):
        make_agent("mcts:sim=10", "kerala")
    with pytest.raises(ValueError, match=r"'sim'.*known options: .*widen"):
        make_agent("mcts:sim=10")
    with pytest.raises(ValueError, match=r"unknown option 'foo' for agent 'heuristic'.*pass_margin"):
        make_agent("heuristic:foo=1", "kerala")
    with pytest.raises(ValueError, match="prior"):
        make_agent("mcts:prior=network", "kerala")
    with pytest.raises(ValueError, match="batch"):
        make_agent("mcts:batch=0", "kerala")


# -- evaluator hook ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["toy", *GAMES])
def test_leaves_go_to_the_evaluator_in_batches(name):
    game = game_or_skip(name, 2)
    s = advance(game.new_state(4), 5, seed=2)
    ev = CountingEvaluator()
    agent = MCTSAgent(seed=0, sims=40, prior=ev, batch=8)
    res = agent.search(s, action_mask=s.legal_mask())
    assert s.legal_mask()[res.action]
    assert res.simulations == 40
    assert max(ev.batches) > 1  # leaves were collected, then evaluated together
    assert sum(res.visits) <= 40 and agent.engine.tree.N[0] == 40  # virtual losses were all taken back


def test_evaluator_values_steer_the_search():
    """An evaluator whose values say "the leader at the leaf wins" and whose priors favour the wrong move
    still leads the search to the winning bank of the toy endgame (its values are what is backed up)."""
    s = toy_position([5, 12, 11], [[], [], []], player=0, pending=9)

    class Leader(Evaluator):
        provides_values = True

        def evaluate(self, states: list[Any]) -> tuple[Any, Any]:
            priors, values = [], []
            for t in states:
                pr = t.legal_mask().astype(np.float64)
                pr[9:10] *= 0.1  # mislead: bank looks unlikely
                priors.append(pr)
                sc = t.scores()
                best = max(sc)
                values.append([1.0 if x == best else -1.0 for x in sc])
            return priors, values

    res = MCTSAgent(seed=0, sims=60, prior=Leader(), batch=4, c=1.0).search(s)
    assert res.action == 9


# -- no peeking -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", GAMES)
def test_heuristic_prior_sees_only_determinizations(name):
    heuristic_or_skip(name)
    game = game_or_skip(name, 2)
    s = advance(game.new_state(11), 7, seed=3)
    view = InformationSetView(s)
    res = guided(seed=2, sims=12).search(view)
    assert len(view.calls) == 12
    assert s.legal_mask()[res.action]


@pytest.mark.parametrize("name", hidden_information_games())
def test_heuristic_prior_same_decisions_whatever_the_hidden_holdings(name):
    heuristic_or_skip(name)
    game = game_or_skip(name, 2)
    base = game.new_state(21)
    checked = 0
    for step in range(4):
        s = advance(base.clone(), 4 + 6 * step, seed=step)
        if s.is_terminal():
            continue
        p = s.current_player
        other = s.determinize(p, Rng(1000 + step))
        if s.to_json() == other.to_json():
            continue
        a = guided(seed=3, sims=16, max_depth=10, widen=1.0).search(s)
        b = guided(seed=3, sims=16, max_depth=10, widen=1.0).search(other)
        assert a.action == b.action
        assert np.array_equal(a.visits, b.visits)
        checked += 1
    assert checked > 0, "no position with hidden information was reached"


# -- budgets and reproducibility ------------------------------------------------------------------------
@pytest.mark.parametrize("name", GAMES)
def test_time_budget_is_kept(name, monkeypatch):
    import meeplezoo.agents.search.search as search_module

    heuristic_or_skip(name)
    game = game_or_skip(name, 2)
    checked = 0
    for k in range(3):
        s = advance(game.new_state(k), 6 + 10 * k, seed=k)
        if s.is_terminal() or len(s.legal_actions()) < 2:
            continue
        runs = {}
        for limit in (0.15, 0.3):
            clock = StepClock(0.01)  # every iteration reads the clock once: 0.01 s an iteration
            monkeypatch.setattr(search_module, "_time", clock)
            res = make_agent(f"mcts:time={limit}", name, seed=0).search(s, action_mask=s.legal_mask())
            # the search stops before the deadline it foresees (the next iteration would pass it); the
            # clock says how long it ran: within one iteration of the budget, never much short of it
            assert limit - 0.05 <= res.seconds <= limit + 0.01 + 1e-9
            assert res.simulations == clock.readings - 2  # t0, one reading per later iteration, the end
            runs[limit] = res.simulations
        assert 1 <= runs[0.15] < runs[0.3] < 400  # the time is the budget, not the default simulations
        checked += 1
    assert checked


@pytest.mark.parametrize("name", GAMES)
def test_a_forced_move_costs_nothing(name):
    game = game_or_skip(name, 2)
    agent = make_agent("mcts", name, seed=0)
    s = game.new_state(0)
    r = Rng(0)
    for _ in range(400):
        if s.is_terminal():
            pytest.skip(f"{name}: no forced move in the first game")
        if len(s.legal_actions()) == 1:
            res = agent.search(s, action_mask=s.legal_mask())
            assert res.simulations == 0 and res.seconds == 0.0
            return
        acts = s.legal_actions()
        s.apply(acts[r.randbelow(len(acts))])
    pytest.skip(f"{name}: no forced move found")


@pytest.mark.parametrize("name", GAMES)
def test_tuned_search_is_deterministic_with_sims(name):
    heuristic_or_skip(name)
    game = game_or_skip(name, 2)

    def run() -> list[int]:
        agents = [make_agent("mcts:sims=12:max_depth=8", name, seed=5),
                  make_agent("mcts:sims=6:max_depth=6:batch=2:widen=1", name, seed=6)]
        return play_some(game, agents, seed=7)

    assert run() == run()


# -- known best moves -------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", GAMES)
def test_tuned_search_finds_the_winning_move_in_an_endgame(name):
    heuristic_or_skip(name)
    game = game_or_skip(name, 2)
    found = None
    for seed in range(30):
        found = find_decisive_endgame(game, seed)
        if found is not None:
            break
    if found is None:
        pytest.skip(f"{name}: no decisive endgame within the solver's budget in 30 random games")
    pos, winning = found
    agent = make_agent("mcts:sims=300", name, seed=0)
    res = agent.search(pos, action_mask=pos.legal_mask())
    assert res.action in winning, (f"{name}: chose {pos.action_name(res.action)}, winning moves: "
                                   f"{[pos.action_name(a) for a in sorted(winning)]}")


def test_known_games_have_a_tuned_setting():
    assert set(TUNED) == set(meeplezoo.list_envs())


# the settings as agents/mcts.py held them before each game's GameInfo.search_defaults became their one source
SETTINGS_BEFORE = {
    "kerala": dict(time=0.5, prior="heuristic", prior_temp=0.5, c=1.5, rollout_depth=0, widen=2.0),
    "haus_der_sonne": dict(time=0.5, prior="heuristic", prior_temp=0.5, c=1.5, rollout="heuristic",
                           rollout_epsilon=0.1, rollout_depth=20),
    "hawaii": dict(time=0.5, rollout_depth=20),
    "asara": dict(time=0.5, prior="heuristic", prior_temp=1.0, c=1.5, rollout="heuristic", rollout_epsilon=0.1,
                  rollout_depth=30),
}


def _settings(agent):
    """The agent's plain options (the registry also names the agent after its spec)."""
    return {k: v for k, v in vars(agent).items()
            if isinstance(v, (int, float, str, bool, type(None))) and k != "name"}


@pytest.mark.parametrize("name", [*SETTINGS_BEFORE, "template"])
def test_search_defaults_are_the_one_source_of_the_tuned_settings(name):
    info = meeplezoo.game_info(name)
    assert info.search_defaults == SETTINGS_BEFORE.get(name)
    assert dict(TUNED.get(name, {})) == SETTINGS_BEFORE.get(name, {})
    with pytest.raises(TypeError):
        TUNED[name] = {}  # a view: set the settings in the game's GAME_INFO
    # the spec "mcts" builds exactly the agent the settings give
    want = MCTSAgent(game=name, seed=0, **SETTINGS_BEFORE.get(name, {}))
    assert _settings(make_agent("mcts", name, seed=0)) == _settings(want)
    given = {k: v for k, v in SETTINGS_BEFORE.get(name, {}).items() if k != "time"}
    assert _settings(make_agent("mcts:sims=30", name, seed=0)) == _settings(
        MCTSAgent(game=name, seed=0, **{**given, "sims": 30}))


# -- leaf_mix: the value head blended with the plain search's leaf value ------------------------------------
class ScaledCutoff(Evaluator):
    """A value head that answers k times the cut-off value (uniform priors), with the search's ``leaf_mix``."""

    provides_values = True

    def __init__(self, k: float, leaf_mix: float = 0.0) -> None:
        from meeplezoo.agents.search import ScoreEvaluator

        self.k, self.leaf_mix, self.cut = k, leaf_mix, ScoreEvaluator()

    def evaluate(self, states: list[Any]) -> tuple[Any, Any]:
        return ([s.legal_mask().astype(np.float64) for s in states],
                [[self.k * x for x in self.cut.value(s)] for s in states])


@pytest.mark.parametrize(("k", "mix", "same_as"), [(3.0, 0.5, 2.0), (3.0, 1.0, 1.0), (2.0, 0.25, 1.75)])
def test_leaf_mix_blends_each_leaf_value_with_the_rollouts(k, mix, same_as):
    """At rollout_depth=0 the rollout's value is the cut-off's, so a head answering k x cut-off mixed at m
    values every leaf (k(1 - m) + m) x cut-off: the same search, visit for visit, as a head answering that."""
    s = meeplezoo.make_game("kerala", num_players=3).new_state(5)
    kw = {"seed": 0, "sims": 60, "rollout_depth": 0, "c": 1.5}
    mixed = MCTSAgent(prior=ScaledCutoff(k, mix), **kw).search(s.clone())
    plain = MCTSAgent(prior=ScaledCutoff(same_as), **kw).search(s.clone())
    assert np.array_equal(mixed.visits, plain.visits)
    seen = plain.visits > 0
    assert np.allclose(mixed.values[seen], plain.values[seen])
    unmixed = MCTSAgent(prior=ScaledCutoff(k), **kw).search(s.clone())
    assert not np.allclose(unmixed.values[seen], plain.values[seen])


def test_leaf_mix_is_a_network_search_knob():
    from meeplezoo.agents.network import network_search

    # Kerala's 2-player network searches with rollout leaves by default: leaf_mix asks for the value head's
    agent = make_agent("pretrained:sims=4:leaf=network:leaf_mix=0.3:rollout_depth=0", game="kerala", num_players=2,
                       seed=0)
    assert agent.engine.source.leaf_mix == 0.3
    s = meeplezoo.make_game("kerala", num_players=2, **agent.network.game.options).new_state(1)
    assert s.legal_mask()[agent.act(None, s.legal_mask(), state=s)]
    with pytest.raises(ValueError, match="leaf_mix=0.5 blends the value head with the rollouts"):
        network_search(agent.network, leaf="rollout", leaf_mix=0.5)
    with pytest.raises(ValueError, match="leaf_mix"):
        make_agent("pretrained:sims=4:leaf_mix=1.5", game="kerala", num_players=2)
