"""The Asara heuristic: legal moves only, no peeking at hidden information, and its strength against random."""

import random

import pytest

from meeplezoo.agents.base import RandomAgent, act_on_state
from meeplezoo.agents.heuristics.asara import AsaraHeuristic
from meeplezoo.agents.registry import make as make_agent
from meeplezoo.envs.asara.state import AsaraGame


def play_match(n: int, version: str, games: int, offset: int = 0) -> tuple[float, list[float]]:
    """Heuristic in seat i % n against random players; returns its win share and each random seat's."""
    g = AsaraGame(n, version=version)
    h_wins = 0.0
    others = [0.0] * (n - 1)
    for i in range(offset, offset + games):
        seat = i % n
        agents = [RandomAgent(seed=i * 10 + q) for q in range(n)]
        agents[seat] = AsaraHeuristic(seed=i)
        s = g.new_state(10_000 + i)
        while not s.is_terminal():
            s.apply(act_on_state(agents[s.current_player], s))
        winners = s.winners()
        for q in winners:
            if q == seat:
                h_wins += 1 / len(winners)
            else:
                others[(q - seat) % n - 1] += 1 / len(winners)
    return h_wins / games, [x / games for x in others]


def test_registry_builds_the_heuristic():
    agent = make_agent("heuristic", "asara", seed=1)
    assert isinstance(agent, AsaraHeuristic) and agent.uses_state
    with pytest.raises(ValueError):
        AsaraHeuristic(seed=1, depth=3)


@pytest.mark.parametrize("n,version", [(2, "base"), (3, "professional")])
def test_heuristic_ignores_hidden_information(n, version):
    g = AsaraGame(n, version=version)
    rng = random.Random(0)
    s = g.new_state(5)
    checked = 0
    while not s.is_terminal():
        p = s.current_player
        if rng.random() < 0.2:
            d = s.determinize(p, rng.randrange(2**32))  # another world that p cannot tell apart
            a1 = AsaraHeuristic(seed=3).act(s.observe(p), s.legal_mask(), state=s)
            a2 = AsaraHeuristic(seed=3).act(d.observe(p), d.legal_mask(), state=d)
            assert a1 == a2
            checked += 1
        s.apply(act_on_state(AsaraHeuristic(seed=rng.randrange(100)), s))
    assert checked > 10


def test_heuristic_beats_random_two_players_quick():
    share, _ = play_match(2, "base", 20)
    assert share >= 0.85


def test_heuristic_beats_random_four_players_quick():
    share, others = play_match(4, "professional", 12)
    assert share > max(others)


@pytest.mark.slow
@pytest.mark.parametrize("version", ["base", "professional"])
def test_heuristic_win_rate_two_players_200_games(version):
    share, _ = play_match(2, version, 200, offset=500)
    assert share >= 0.90


@pytest.mark.slow
@pytest.mark.parametrize("version", ["base", "professional"])
def test_heuristic_win_rate_four_players_200_games(version):
    share, others = play_match(4, version, 200, offset=500)
    assert share > max(others)
