"""The Hawaii heuristic beats random play and reads only what its player may know."""

import numpy as np
import pytest

from meeplezoo.agents.base import RandomAgent, act_on_state
from meeplezoo.agents.heuristics.hawaii import HawaiiHeuristic
from meeplezoo.agents.registry import make as make_agent
from meeplezoo.envs.hawaii.state import HawaiiGame


def _match(n: int, games: int, seed0: int = 0) -> tuple[list[int], int]:
    """Wins per seat kind (index 0 = heuristic, then the random seats) with the heuristic's seat rotating."""
    g = HawaiiGame(n)
    wins = [0] * n
    for i in range(games):
        seat = i % n
        agents = [RandomAgent(seed=seed0 + 31 * i + k) for k in range(n)]
        agents[seat] = HawaiiHeuristic(seed=i)
        s = g.new_state(seed0 + i)
        while not s.is_terminal():
            s.apply(act_on_state(agents[s.current_player], s))
        for w in s.winners():
            wins[(w - seat) % n] += 1
    return wins, games


def test_heuristic_beats_random_two_players():
    wins, games = _match(2, 30)
    assert wins[0] >= 0.8 * games


def test_heuristic_wins_most_in_four_players():
    wins, games = _match(4, 24, seed0=500)
    assert wins[0] > max(wins[1:])


@pytest.mark.slow
def test_heuristic_win_rates_over_200_games():
    wins, games = _match(2, 200, seed0=10_000)
    assert wins[0] >= 0.9 * games
    wins, games = _match(4, 200, seed0=20_000)
    assert wins[0] > max(wins[1:])


def test_heuristic_from_registry_and_ignores_hidden_parts():
    agent = make_agent("heuristic", "hawaii", seed=1)
    assert isinstance(agent, HawaiiHeuristic) and agent.uses_state
    g = HawaiiGame(3)
    s = g.new_state(4)
    rng = np.random.default_rng(0)
    steps = 0
    while not s.is_terminal() and steps < 200:
        p = s.current_player
        d = s.determinize(p, int(rng.integers(1 << 30)))  # hidden order resampled
        a = agent.act(s.observe(p), s.legal_mask(), state=s)
        b = agent.act(d.observe(p), d.legal_mask(), state=d)
        assert a == b and s.legal_mask()[a]
        s.apply(a)
        steps += 1
    with pytest.raises(ValueError):
        HawaiiHeuristic(depth=3)
