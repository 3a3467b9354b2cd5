"""meeplezoo.testing.check_game on every registered game (the template included), and what it catches."""

from __future__ import annotations

import numpy as np
import pytest

import meeplezoo
from meeplezoo.envs.core.info import GameInfo
from meeplezoo.envs.template.state import TemplateGame, TemplateState
from meeplezoo.registry import GAMES, discover
from meeplezoo.testing import CHECKS, check_game


@pytest.mark.parametrize("name", meeplezoo.list_envs(include_examples=True))
def test_every_registered_game_passes_check_game(name):
    assert check_game(name) == list(CHECKS)


def test_check_game_takes_a_class_an_entry_module_or_a_game_object():
    from meeplezoo.envs import template_v0

    check_game(TemplateGame, [{"num_players": 4, "hand_size": 3}], checks=["api", "random_games"])
    check_game(template_v0, checks=["json"])
    game = TemplateGame(3, hand_size=1)
    check_game(game, checks=["determinize"])
    with pytest.raises(ValueError, match="unknown checks"):
        check_game("template", checks=["nope"])


def test_check_game_catches_a_determinization_that_leaks():
    from toygame import ToyGame  # its determinize shuffles the true order of the unseen cards

    with pytest.raises(AssertionError, match="depends on what they cannot see"):
        check_game(ToyGame, [{"num_players": 2}], checks=["determinize"])
    check_game(ToyGame, [{"num_players": 2}], checks=["determinize"], determinize_consistency=False)


class _OutOfBoundsState(TemplateState):
    def observe(self, player):
        o = super().observe(player)
        o[self.game.observation_layout["deck"]] = 2.0
        return o


class _OutOfBoundsGame(TemplateGame):
    name = "template_out_of_bounds"
    state_class = _OutOfBoundsState


_OutOfBoundsState._game_class = _OutOfBoundsGame


class _BrokenInvariantState(TemplateState):
    def check_invariants(self):
        return ["always broken"] if self.deck else []


class _BrokenInvariantGame(TemplateGame):
    name = "template_broken"
    state_class = _BrokenInvariantState


_BrokenInvariantState._game_class = _BrokenInvariantGame


def test_check_game_catches_observations_out_of_bounds_and_broken_invariants():
    with pytest.raises(AssertionError, match=r"outside \[0.0, 1.0\] \(block \['deck'\]\)"):
        check_game(_OutOfBoundsGame, [{"num_players": 2}], checks=["random_games"])
    with pytest.raises(AssertionError, match="always broken"):
        check_game(_BrokenInvariantGame, [{"num_players": 2}], checks=["random_games"])
    with pytest.raises(AssertionError, match="score"):
        check_game("template", [{"num_players": 2}], checks=["random_games"],
                   invariants=lambda s: ["score out of range"] if max(map(abs, s.score)) > 5 else [])


def test_the_template_is_registered_but_left_out_of_the_defaults():
    info = meeplezoo.game_info("template")
    assert info.example and info.heuristic is None and info.search_defaults is None
    assert "template" not in meeplezoo.list_envs()
    assert meeplezoo.list_envs(include_examples=True)[-1] == "template"
    env = meeplezoo.make("template", num_players=3)
    env.reset(seed=0)
    assert len(env.agents) == 3
    from meeplezoo.bench import configurations

    assert all(name != "template" for name, _ in configurations())
    import gymnasium
    import pettingzoo

    pettingzoo.make("aec", "meeplezoo/Template-v0").reset(seed=1)
    e = gymnasium.make("meeplezoo/Template-v0", opponents=["random"])
    obs, _ = e.reset(seed=0)
    assert obs.shape == TemplateGame().observation_shape


def test_game_info_is_the_one_source_of_the_registries():
    from meeplezoo.agents.registry import HEURISTICS
    from meeplezoo.registry import ENVS

    assert list(discover()) == list(GAMES) == ["kerala", "haus_der_sonne", "hawaii", "asara", "template"]
    for name, info in GAMES.items():
        assert isinstance(info, GameInfo)
        assert ENVS[name] == (info.entry_module, info.pettingzoo_id)
        assert HEURISTICS.get(name) == info.heuristic
        assert meeplezoo.env_module(name).raw_env.game_cls.name == name
    assert GAMES["haus_der_sonne"].pettingzoo_id == "meeplezoo/HausDerSonne-v0"
    assert GameInfo("x_y", "pkg.x_y_v3", "X y").pettingzoo_id == "meeplezoo/XY-v3"
    with pytest.raises(ValueError, match="snake_case"):
        GameInfo("Bad Name", "m", "d")


def test_games_from_entry_points_are_discovered(monkeypatch):
    import importlib.metadata as md

    info = GameInfo("third_party", "meeplezoo.envs.template_v0", "Third Party", example=True)

    class EP:
        name, value = "third_party", "somewhere:GAME_INFO"

        def load(self):
            return info

    class Broken(EP):
        name = "broken"

        def load(self):
            raise ImportError("not installed")

    monkeypatch.setattr(md, "entry_points", lambda group: [EP(), Broken()] if group == "meeplezoo.games" else [])
    with pytest.warns(UserWarning, match="broken"):
        found = discover()
    assert found["third_party"] is info and list(found)[:4] == ["kerala", "haus_der_sonne", "hawaii", "asara"]


def test_template_observation_layout_and_hidden_hands():
    game = TemplateGame(3)
    s = game.new_state(4)
    o = s.observe(0)
    lay = game.observation_layout
    assert o[lay["my_hand"]].sum() == pytest.approx(len(s.hands[0]) / 2)
    t = s.clone()
    t.hands[1], t.hands[2] = t.hands[2], t.hands[1]
    assert np.array_equal(t.observe(0), o)
    assert "hand 2 cards" in s.observation_string(0) and str(sorted(s.hands[0])) in s.observation_string(0)


def test_a_game_module_that_fails_to_import_is_skipped_with_a_warning(monkeypatch):
    import importlib

    real = importlib.import_module

    def fake(name, *a, **kw):
        if name == "meeplezoo.envs.hawaii_v0":
            raise ImportError("no module named 'something_hawaii_needs'")
        return real(name, *a, **kw)

    monkeypatch.setattr(importlib, "import_module", fake)
    with pytest.warns(UserWarning, match="hawaii_v0"):
        found = discover()
    assert "hawaii" not in found and "kerala" in found
