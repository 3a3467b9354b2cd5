"""Information-set MCTS: legality everywhere, reproducibility, no peeking, finding known best moves."""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np
import pytest

import meeplezoo
from meeplezoo.agents import make as make_agent
from meeplezoo.agents.base import Agent, RandomAgent
from meeplezoo.agents.mcts import MCTSAgent
from meeplezoo.envs.core import Rng, as_rng
from meeplezoo.training.arena import play_match
from toygame import ToyGame, ToyState

GAMES = meeplezoo.list_envs()


# -- helpers ------------------------------------------------------------------------------------------
def game_or_skip(name: str, num_players: int | None = None):
    """The game's engine, or a skip while its module has not landed."""
    if name == "toy":
        return ToyGame(num_players)
    try:
        cls = meeplezoo.registry.game_class(name)
    except ImportError as e:
        pytest.skip(f"{name} is not importable yet ({e})")
    return cls(num_players)


def player_counts(name: str) -> list[int]:
    if name == "toy":
        return [2, 3, 4]
    try:
        cls = meeplezoo.registry.game_class(name)
    except ImportError:
        return [0]  # the test skips
    return list(range(cls.min_players, cls.max_players + 1))


def heuristic_or_skip(name: str) -> None:
    from meeplezoo.agents.registry import HEURISTICS

    module = HEURISTICS[name].split(":")[0]
    try:
        importlib.import_module(module)
    except ImportError as e:
        pytest.skip(f"the {name} heuristic is not importable yet ({e})")


def advance(state: Any, decisions: int, seed: int) -> Any:
    """Play ``decisions`` random moves (fewer if the game ends first)."""
    r = Rng(seed)
    for _ in range(decisions):
        if state.is_terminal():
            break
        acts = state.legal_actions()
        state.apply(acts[r.randbelow(len(acts))])
    return state


def quick(seed: int = 0, **kw: Any) -> MCTSAgent:
    """A cheap search (few iterations, shallow cut-off) for tests of legality and plumbing."""
    opts: dict[str, Any] = {"sims": 6, "max_depth": 6}
    opts.update(kw)
    return MCTSAgent(seed=seed, **opts)


class InformationSetView:
    """A position as the player to move may use it: whose turn, the game, and ``determinize``.

    Anything else the search touches raises, so a test passing through this
    view proves the search reads nothing but its own determinizations.
    """

    def __init__(self, state: Any) -> None:
        object.__setattr__(self, "_state", state)
        object.__setattr__(self, "calls", [])

    @property
    def current_player(self) -> int:
        return self._state.current_player

    @property
    def game(self) -> Any:
        return self._state.game

    def determinize(self, player: int, rng: Any = None) -> Any:
        assert player == self._state.current_player, "search determinized for another player"
        self.calls.append(player)
        return self._state.determinize(player, rng)

    def __getattr__(self, name: str) -> Any:
        raise AssertionError(f"the search read state.{name} of the real position")


class CanonicalToyState(ToyState):
    """The toy game with a determinize that depends only on what the player knows (pool sorted first)."""

    def determinize(self, player: int, rng: Any = None) -> ToyState:
        r = as_rng(rng)
        s = self.clone()
        pool = sorted(s.deck + [c for q in range(self.game.num_players) if q != player for c in s.hands[q]])
        r.shuffle(pool)
        for q in range(self.game.num_players):
            if q != player:
                s.hands[q] = [pool.pop() for _ in range(len(s.hands[q]))]
        s.deck = pool
        s.rng = Rng(r.next64())
        return s

    def clone(self) -> CanonicalToyState:
        return CanonicalToyState(self.game, self.deck[:], [h[:] for h in self.hands], self.score[:],
                                 self.current_player, self.pending, self.rng.clone())


def toy_position(scores: list[int], hands: list[list[int]], player: int, pending: int = 0,
                 deck: list[int] | None = None) -> ToyState:
    g = ToyGame(len(scores))
    return CanonicalToyState(g, list(deck or []), [list(h) for h in hands], list(scores), player, pending, Rng(5))


# -- options and registry -------------------------------------------------------------------------------
def test_registry_builds_mcts_with_options():
    a = make_agent("mcts:sims=20:c=0.5:rollout=random:temperature=0:reuse_tree=true", "kerala", seed=3)
    assert isinstance(a, MCTSAgent) and a.uses_state
    assert (a.sims, a.c, a.rollout, a.reuse_tree) == (20, 0.5, "random", True)
    assert a.name == "mcts:sims=20:c=0.5:rollout=random:temperature=0:reuse_tree=true"
    assert make_agent("mcts:50", "kerala").sims == 50
    assert make_agent("mcts:preset=plain", "kerala").sims == 400
    tuned = make_agent("mcts", "kerala")
    assert tuned.sims is None and tuned.time_limit == 0.5 and tuned.prior == "heuristic"
    timed = make_agent("mcts:time=0.5", "kerala")
    assert timed.sims is None and timed.time_limit == 0.5


@pytest.mark.parametrize("spec, words", [
    ("mcts:sims=0", "sims"),
    ("mcts:sims=abc", "sims"),
    ("mcts:c=-1", "c must"),
    ("mcts:time=0", "time"),
    ("mcts:temperature=-0.5", "temperature"),
    ("mcts:reward_mode=best", "reward_mode"),
    ("mcts:rollout=mcts", "nest"),
    ("mcts:rollout_depth=-1", "rollout_depth"),
    ("mcts:max_depth=0", "max_depth"),
    ("mcts:rollout_epsilon=2", "rollout_epsilon"),
    ("mcts:reuse_tree=7", "reuse_tree"),
    ("mcts:eval_scale=0", "eval_scale"),
    ("mcts:bogus=1", "bogus"),
    ("mcts:10:20", "positional"),
])
def test_bad_options_are_clear_errors(spec, words):
    with pytest.raises(ValueError, match=words):
        make_agent(spec, "kerala")


def test_act_without_state_is_a_clear_error():
    with pytest.raises(ValueError, match="engine state"):
        MCTSAgent(sims=5).act(np.zeros(3, np.float32), np.ones(11, bool))


def test_finished_game_is_a_clear_error():
    s = toy_position([0, 0], [[], []], -1)
    with pytest.raises(ValueError, match="game is over"):
        MCTSAgent(sims=5).search(s)


# -- legality and reproducibility on every game ----------------------------------------------------------------
@pytest.mark.parametrize("name", ["toy", *GAMES])
def test_legal_moves_only_every_player_count(name):
    for n in player_counts(name):
        game = game_or_skip(name, n)
        agents = [quick(seed=10 + i) for i in range(n)]
        result = play_match(game, agents, seed=n)  # play_match applies with validation
        assert result.length > 0
        s = game.new_state(n)
        for a in result.actions:
            assert s.is_legal(a)
            s.apply(a)
        assert s.is_terminal()


@pytest.mark.parametrize("name", ["toy", *GAMES])
def test_full_rollouts_and_agent_rollouts_play_legally(name):
    """No cut-off (rollouts reach the end) and an Agent as rollout policy, a few decisions each."""
    game = game_or_skip(name, 2)
    s = advance(game.new_state(3), 5, seed=1)
    for agent in (MCTSAgent(seed=1, sims=8), MCTSAgent(seed=1, sims=8, rollout=RandomAgent(seed=2),
                                                       rollout_epsilon=0.2)):
        t = s.clone()
        for _ in range(3):
            if t.is_terminal():
                break
            res = agent.search(t, action_mask=t.legal_mask())
            assert t.legal_mask()[res.action]
            assert res.visits.sum() == 8 and res.simulations == 8
            t.apply(res.action)


@pytest.mark.parametrize("name", GAMES)
def test_heuristic_rollouts(name):
    heuristic_or_skip(name)
    game = game_or_skip(name, 2)
    agent = make_agent("mcts:sims=6:rollout=heuristic:rollout_depth=10", name, seed=4)
    s = advance(game.new_state(4), 3, seed=2)
    res = agent.search(s, action_mask=s.legal_mask())
    assert s.legal_mask()[res.action]


def play_some(game: Any, agents: list[Any], seed: int, decisions: int = 40) -> list[int]:
    """The first ``decisions`` actions of a game between ``agents`` (reset from ``seed`` like play_match)."""
    ss = np.random.SeedSequence(seed)
    for agent, child in zip(agents, ss.spawn(len(agents))):
        agent.reset(int(child.generate_state(1)[0]))
    s = game.new_state(seed)
    actions = []
    while not s.is_terminal() and len(actions) < decisions:
        p = s.current_player
        a = agents[p].act(s.observe(p), s.legal_mask(), state=s)
        s.apply(a)
        actions.append(a)
    return actions


@pytest.mark.parametrize("name", ["toy", *GAMES])
def test_deterministic_under_a_seed(name):
    game = game_or_skip(name, 2)

    def run(agent: MCTSAgent) -> list[int]:
        return play_some(game, [agent, quick(seed=99)], seed=7)

    first = run(quick(seed=5))
    assert run(quick(seed=5)) == first
    reused = quick(seed=123)
    run(reused)
    assert run(reused) == first  # reset(seed) at the start of a game makes it equal to a fresh agent
    assert run(quick(seed=5, reuse_tree=True)) == run(quick(seed=5, reuse_tree=True))


# -- no peeking ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["toy", *GAMES])
def test_search_touches_only_determinizations(name):
    game = game_or_skip(name, 2)
    s = advance(game.new_state(11), 7, seed=3)
    view = InformationSetView(s)
    res = MCTSAgent(seed=2, sims=12, max_depth=8).search(view)
    assert len(view.calls) == 12
    assert s.legal_mask()[res.action]
    agent = MCTSAgent(seed=2, sims=12, max_depth=8, reuse_tree=True)
    assert agent.act(s.observe(s.current_player), s.legal_mask(), state=InformationSetView(s)) == res.action


def hidden_information_games() -> list[str]:
    out = []
    for name in GAMES:
        try:
            cls = meeplezoo.registry.game_class(name)
        except ImportError:
            out.append(name)  # skipped inside the test
            continue
        if cls.hidden_information:
            out.append(name)
    return out


@pytest.mark.parametrize("name", ["toy", *hidden_information_games()])
def test_same_decisions_whatever_the_hidden_holdings(name):
    """Two positions that differ only in what the player to move cannot see (other players' hidden
    holdings, pile order, the future chance) give identical searches under the same seed."""
    game = game_or_skip(name, 2)
    if name == "toy":
        base = game.new_state(1)
        base = CanonicalToyState(game, base.deck, base.hands, base.score, 0, 0, base.rng)
    else:
        base = game.new_state(21)
    checked = 0
    for step in range(4):
        s = advance(base.clone(), 4 + 6 * step, seed=step)
        if s.is_terminal():
            continue
        p = s.current_player
        other = s.determinize(p, Rng(1000 + step))  # same information for p, hidden parts resampled
        assert np.array_equal(s.observe(p), other.observe(p))
        if s.to_json() == other.to_json():
            continue  # nothing hidden at this point
        # determinize depends only on what p knows: both positions give the same sample
        assert s.determinize(p, Rng(7)).to_json() == other.determinize(p, Rng(7)).to_json()
        a = MCTSAgent(seed=3, sims=16, max_depth=10).search(s)
        b = MCTSAgent(seed=3, sims=16, max_depth=10).search(other)
        assert a.action == b.action
        assert np.array_equal(a.visits, b.visits)
        checked += 1
    assert checked > 0, "no position with hidden information was reached"


# -- strength on positions with a known answer -------------------------------------------------------------------
def test_finds_the_winning_bank_in_the_toy_endgame():
    # 3 players, last card: banking the 9 wins (14 > 12, 11); attacking the leader hands the win to player 2.
    s = toy_position([5, 12, 11], [[], [], []], player=0, pending=9)
    res = MCTSAgent(seed=0, sims=50).search(s)
    assert res.action == 9
    assert res.values[9] == pytest.approx(1.0) and res.values[10] == pytest.approx(-0.5)  # losers share -1


def test_finds_the_winning_line_through_sub_decisions_with_hidden_cards():
    # Player 0 must play its 9 (first sub-decision), then bank or attack (second).  Players 1 and 2
    # hold the 1 and the 2 in an order player 0 cannot see.  Banking (15 points) wins against every
    # holding and reply; attacking the leader (11 -> 2) leaves player 2 (10 points) out of reach.
    s = toy_position([6, 11, 10], [[9], [1], [2]], player=0, deck=[])
    agent = MCTSAgent(seed=1, sims=200, reuse_tree=True)
    first = agent.act(s.observe(0), s.legal_mask(), state=s)
    assert first == 8  # play 9 (forced: no search)
    assert agent.last_search.simulations == 0 and agent.last_search.extra["forced"]
    s.apply(first)
    second = agent.act(s.observe(0), s.legal_mask(), state=s)
    assert agent.last_search.simulations == 200
    assert second == 9  # bank
    assert agent.last_search.values[9] == pytest.approx(1.0)


class StepClock:
    """A stand-in for ``time.perf_counter``: each reading is ``step`` seconds after the last, so a timed
    search's stopping point depends on the number of clock readings alone, not on the machine's load."""

    def __init__(self, step: float) -> None:
        self.now, self.step, self.readings = 0.0, step, 0

    def perf_counter(self) -> float:
        self.now += self.step
        self.readings += 1
        return self.now


def test_temperature_samples_from_visits_and_time_budget_stops(monkeypatch):
    s = toy_position([0, 0, 0], [[9, 5], [3, 2], [4, 4]], player=0, deck=[1, 1, 2, 3])
    hot = MCTSAgent(seed=0, sims=40, temperature=5.0)
    picks = {hot.search(s).action for _ in range(30)}
    assert picks <= {4, 8} and len(picks) == 2
    import meeplezoo.agents.search.search as search_module

    monkeypatch.setattr(search_module, "_time", StepClock(0.001))
    res = MCTSAgent(seed=0, time=0.05).search(s)
    assert 0 < res.simulations < 60 and res.seconds <= 0.05 + 0.001 + 1e-9
    pol = res.policy(1.0)
    assert pol.sum() == pytest.approx(1.0) and set(np.flatnonzero(pol)) <= {4, 8}


@pytest.mark.parametrize("name", GAMES)
def test_reuse_tree_on_every_game(name):
    """Sub-decisions of one turn (and turns without chance in between) keep the subtree: legal moves, and
    the kept visits never exceed the last search's (whether a game has such decisions is up to its rules:
    the toy endgame test asserts that reuse happens)."""
    game = game_or_skip(name, 2)
    agent = quick(seed=1, sims=10, reuse_tree=True)
    reused, budget = [], []
    s = game.new_state(5)
    r = Rng(3)
    for _ in range(60):
        if s.is_terminal():
            break
        p = s.current_player
        if p == 0:
            budget.append(10 + (reused[-1] if reused else 0))
            a = agent.act(s.observe(p), s.legal_mask(), state=s)
            reused.append(agent.last_search.reused_visits)
        else:
            acts = s.legal_actions()
            a = acts[r.randbelow(len(acts))]
        s.apply(a)
    assert reused and all(v <= b for v, b in zip(reused, budget))  # at most the last search's tree


@pytest.mark.parametrize("name", GAMES)
def test_three_or_more_players(name):
    game_or_skip(name)
    n = max(c for c in player_counts(name))
    if n < 3:
        pytest.skip(f"{name} is a 2-player game")
    game = game_or_skip(name, n)
    s = advance(game.new_state(2), 9, seed=4)
    res = MCTSAgent(seed=1, sims=20, max_depth=8, reward_mode="rank").search(s)
    assert s.legal_mask()[res.action]


def test_mcts_beats_random_in_the_three_player_toy_game():
    from meeplezoo.training.arena import run_arena

    m = MCTSAgent(seed=1, sims=40)
    m.name = "mcts"
    stats, _ = run_arena(ToyGame(3), [m, RandomAgent(seed=2), RandomAgent(seed=3)], 45, seed=3)
    assert stats["mcts"].win_rate > 0.45  # random seats win about a third each


def test_cli_plays_with_mcts(capsys):
    from meeplezoo.cli import main

    for name in GAMES:
        try:
            meeplezoo.registry.game_class(name)
        except ImportError:
            continue
        assert main(["play", name, "--agents", "mcts:sims=4:max_depth=4,random", "--seed", "1", "--quiet"]) == 0
        out = capsys.readouterr().out
        assert "mcts:sims=4:max_depth=4" in out
        return
    pytest.skip("no game has landed yet")


def test_agent_protocol_reset_and_repr():
    a = MCTSAgent(sims=3, seed=1)
    assert isinstance(a, Agent)
    assert "sims=3" in repr(a)
    s = toy_position([0, 0], [[3, 4], [5, 6]], player=0, deck=[1, 2])
    a.act(s.observe(0), s.legal_mask(), state=s)
    assert a.total_decisions == 1 and a.total_simulations == 3


# -- endgames with an exact answer, on every game ------------------------------------------------------------------
class TooBig(Exception):
    pass


def solve(s: Any, budget: list[int]) -> list[float]:
    """Exact max^n value of a position whose future holds no chance (each player maximises its own return)."""
    if s.is_terminal():
        return s.returns("win").tolist()
    budget[0] -= 1
    if budget[0] < 0:
        raise TooBig
    best = None
    p = s.current_player
    for a in s.legal_actions():
        t = s.clone()
        t._apply(a)
        v = solve(t, budget)
        if best is None or v[p] > best[p]:
            best = v
    return best


def action_values(s: Any, limit: int) -> dict[int, float] | None:
    """Exact value of each legal action for the player to move, or None if the subtree is too big."""
    budget = [limit]
    p = s.current_player
    out = {}
    try:
        for a in s.legal_actions():
            t = s.clone()
            t._apply(a)
            out[a] = solve(t, budget)[p]
    except TooBig:
        return None
    return out


def find_decisive_endgame(game: Any, seed: int, limit: int = 400) -> tuple[Any, set[int]] | None:
    """The last position of a random game where some moves win and others lose, the same under any
    resampling of what the player cannot see (so chance and hidden information do not decide it)."""
    r = Rng(seed)
    s = game.new_state(seed)
    trace = []
    while not s.is_terminal():
        trace.append(s.clone())
        acts = s.legal_actions()
        s.apply(acts[r.randbelow(len(acts))])
    for pos in reversed(trace[-40:]):
        p = pos.current_player
        vals = [action_values(pos.determinize(p, Rng(k)), limit) for k in (1, 2, 3)]
        if any(v is None for v in vals):
            return None  # subtrees grow from here on backwards
        if not vals[0] == vals[1] == vals[2]:
            continue  # chance or hidden holdings still matter
        best = max(vals[0].values())
        winning = {a for a, v in vals[0].items() if v == best}
        if best > 0 and len(winning) < len(vals[0]):
            return pos, winning
    return None


@pytest.mark.parametrize("name", ["toy", *GAMES])
def test_finds_the_winning_move_in_an_endgame(name):
    """In Kerala, e.g., the last placement of the game where only some positions/rotations win."""
    game = game_or_skip(name, 2)
    found = None
    for seed in range(30):
        found = find_decisive_endgame(game, seed)
        if found is not None:
            break
    if found is None:
        pytest.skip(f"{name}: no decisive endgame within the solver's budget in 30 random games")
    pos, winning = found
    res = MCTSAgent(seed=0, sims=300).search(pos, action_mask=pos.legal_mask())
    assert res.action in winning, (f"{name}: chose {pos.action_name(res.action)}, winning moves: "
                                   f"{[pos.action_name(a) for a in sorted(winning)]}")


def test_agent_built_for_another_game_says_so():
    s = toy_position([0, 0], [[3, 4], [5, 6]], player=0, deck=[1, 2])
    with pytest.raises(ValueError, match="built for 'kerala'"):
        MCTSAgent(sims=3, game="kerala").search(s)
