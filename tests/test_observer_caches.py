"""An observer keeps its caches per game (:meth:`Observer.use_caches_of`): the positions of several games
observed in turn, as lockstep self-play and its searches' determinizations show them, give exactly the
observations of an observer that sees each position alone, and each game finds its own caches again."""

from __future__ import annotations

import numpy as np
import pytest

import meeplezoo
from meeplezoo.envs.core import observation as core_observation
from meeplezoo.envs.core.rng import Rng

CACHING = [("hawaii", 3, {}), ("kerala", 2, {}), ("kerala", 4, {}), ("asara", 3, {}),
           ("asara", 2, {"version": "professional"})]


def _interleaved_positions(game_name: str, players: int, rules: dict, games: int, steps: int):
    """Yield ``(state, game index)`` for ``games`` random games advanced in turn, each position followed by a
    determinization of it for its current player, before and after one move (a search's leaf)."""
    game = meeplezoo.make_game(game_name, players, **rules)
    rng = Rng(11)
    states = [game.new_state(seed=100 + k) for k in range(games)]
    for _ in range(steps):
        for k, s in enumerate(states):
            if s.is_terminal():
                continue
            yield s, k
            d = s.determinize(s.current_player, rng)
            yield d, k
            d._apply(d.legal_actions()[rng.randbelow(len(d.legal_actions()))])
            yield d, k
            acts = s.legal_actions()
            s.apply(acts[rng.randbelow(len(acts))])


@pytest.mark.parametrize(("game_name", "players", "rules"), CACHING)
def test_games_observed_in_turn_equal_each_position_alone(game_name, players, rules):
    game = meeplezoo.make_game(game_name, players, **rules)
    shared = game.make_observer()
    seen = 0
    for s, _k in _interleaved_positions(game_name, players, rules, games=4, steps=25):
        for p in range(players):
            alone = s.game.make_observer().observe(s, p)  # a fresh observer: built from scratch
            np.testing.assert_array_equal(shared.observe(s, p), alone)
            seen += 1
    assert seen >= 4 * 25 * players
    assert len(shared._games) == 3  # the three games not observed last keep their caches


@pytest.mark.parametrize(("game_name", "players"), [("hawaii", 2), ("kerala", 2), ("asara", 2)])
def test_a_game_finds_its_caches_again_and_the_oldest_are_dropped(game_name, players, monkeypatch):
    monkeypatch.setattr(core_observation, "CACHED_GAMES", 2)
    game = meeplezoo.make_game(game_name, players)
    obs = game.make_observer()
    a, b, c = (game.new_state(seed=s) for s in (1, 2, 3))
    obs.observe(a, 0)
    caches_a = {k: obs.__dict__[k] for k in obs.fresh_caches()}
    obs.observe(b, 0)
    obs.observe(a.determinize(1, Rng(5)), 1)  # a determinization of a: a's very cache objects
    assert all(obs.__dict__[k] is v for k, v in caches_a.items())
    obs.observe(c, 0)  # two games kept (a stored, c in use): b, used longest ago, is dropped
    assert set(obs._games) == {a.changes.origin}
    obs.observe(a, 1)
    assert all(obs.__dict__[k] is v for k, v in caches_a.items())
    np.testing.assert_array_equal(obs.observe(b, 1), game.make_observer().observe(b, 1))  # b anew
    assert set(obs._games) == {a.changes.origin}
