"""The Haus der Sonne heuristic: legal, blind to the pile order, and far stronger than random."""

from __future__ import annotations

import random

import numpy as np
import pytest

from meeplezoo.agents.base import RandomAgent, act_on_state
from meeplezoo.agents.heuristics.haus_der_sonne import HausDerSonneHeuristic
from meeplezoo.agents.registry import make as make_agent
from meeplezoo.envs.haus_der_sonne import actions as A
from meeplezoo.envs.haus_der_sonne import components as C
from meeplezoo.envs.haus_der_sonne.state import BUY_WINDOW, PRIESTESS, SHAMAN, HausDerSonneGame


def play_match(variant: str, games: int, seed0: int = 0) -> tuple[int, list[int]]:
    """Heuristic against random, alternating seats; returns the heuristic's wins and score margins."""
    game = HausDerSonneGame(variant=variant)
    wins, margins = 0, []
    for i in range(games):
        seat = i % 2
        agents = [None, None]
        agents[seat] = HausDerSonneHeuristic(seed=seed0 + i)
        agents[1 - seat] = RandomAgent(seed=seed0 + i)
        s = game.new_state(seed0 + 10_000 + i)
        while not s.is_terminal():
            s.apply(act_on_state(agents[s.current_player], s))
        wins += s.winners() == [seat]
        margins.append(s.score[seat] - s.score[1 - seat])
    return wins, margins


@pytest.mark.parametrize("variant", ["base", "tactical"])
def test_heuristic_beats_random(variant):
    wins, margins = play_match(variant, 30)
    assert wins >= 26 and np.mean(margins) > 10


@pytest.mark.slow
@pytest.mark.parametrize("variant", ["base", "tactical"])
def test_heuristic_beats_random_in_90_percent_of_200_games(variant):
    wins, _ = play_match(variant, 200, seed0=500)
    assert wins >= 180


def test_heuristic_from_registry_and_options():
    agent = make_agent("heuristic", "haus_der_sonne", seed=1)
    assert isinstance(agent, HausDerSonneHeuristic) and agent.uses_state
    with pytest.raises(ValueError):
        HausDerSonneHeuristic(depth=3)
    s = HausDerSonneGame().new_state(0)
    with pytest.raises(ValueError):
        agent.act(s.observe(0), s.legal_mask())


def test_heuristic_ignores_the_pile_order():
    game = HausDerSonneGame()
    r = random.Random(0)
    for seed in range(5):
        s = game.new_state(seed)
        while not s.is_terminal():
            d = s.determinize(s.current_player, r.randrange(1 << 30))
            a1 = HausDerSonneHeuristic(seed=seed).act(s.observe(s.current_player), s.legal_mask(), state=s)
            a2 = HausDerSonneHeuristic(seed=seed).act(d.observe(d.current_player), d.legal_mask(), state=d)
            assert a1 == a2
            s.apply(a1 if r.random() < 0.7 else r.choice(s.legal_actions()))


def test_heuristic_strategy_choices(hds):
    h = HausDerSonneHeuristic(seed=0, noise=0.0)
    # sail where it holds the higher sum and a nautilus waits
    s = hds.position(boat=0, disc=hds.discs(p0={5: 2}, p1={1: 2}), bays=hds.bays(s2=(C.NAUTILUS, C.FISH)))
    assert h.act(s.observe(0), s.legal_mask(), state=s) == A.place(2, 0)
    # walk to a free mountain field rather than staying on the meadow
    s = hds.position(phase=SHAMAN, shaman=[7, 22])  # standing on forest 1
    a = h.act(s.observe(0), s.legal_mask(), state=s)
    assert A.SHAMAN_TO0 + 12 <= a < A.SHAMAN_STAY
    # buy the mountain card when it owns mountain statues
    hand = [0] * 13
    hand[C.SHELL] = 2
    st = [-1] * 12 + [0, 0, -1, -1, -1, -1]
    s = hds.position(phase=BUY_WINDOW, trigger=0, hand=[hand, [0] * 13], statue=st)
    assert h.act(s.observe(0), s.legal_mask(), state=s) == A.buy(C.SC_MOUNTAIN)
    # move lava away from its own statue toward the opponent's
    st = [-1] * 12 + [0, 1, -1, -1, -1, -1]
    s = hds.position(phase=PRIESTESS, crater=[1, 0, 0, 0, 0, 0], statue=st, shaman=[3, 22])
    assert h.act(s.observe(0), s.legal_mask(), state=s) == A.priestess(0, 1)
