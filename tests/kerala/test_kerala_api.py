"""Kerala through its PettingZoo entry module; bad input; registry; rendering."""

from __future__ import annotations

from functools import partial

import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test

import meeplezoo
from meeplezoo.envs import kerala_v0
from meeplezoo.envs.core.game import IllegalActionError

CONFIGS = [
    {"num_players": 2},
    {"num_players": 3},
    {"num_players": 4},
    {"num_players": 5},
    {"num_players": 3, "pass_mode": "discard_chosen", "own_colour_areas": 1, "board_radius": 6},
    {"num_players": 2, "tile_composition": "with_blanks", "move_tile_dest_rule": "platform_adjacent",
     "hole_definition": "four_sided_cell", "hole_scope": "none_after", "move_tile_may_rotate": False},
    {"num_players": 4, "edge_bonus_layers": "any", "colour_presence_layers": "any", "first_start_player": "random",
     "keep_choice": "greedy", "start_tile_symbols": 0, "tiebreak": "removed_then_standing"},
    {"num_players": 3, "derived_features": True},
]


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: "-".join(f"{k}={v}" for k, v in c.items()))
def test_pettingzoo_api(config):
    api_test(kerala_v0.env(**config), num_cycles=300)
    seed_test(partial(kerala_v0.env, **config), num_cycles=100)


@pytest.mark.parametrize("config", [CONFIGS[0], CONFIGS[1], CONFIGS[2], CONFIGS[3], CONFIGS[5]],
                         ids=["2", "3", "4", "5", "options"])
def test_pettingzoo_render(config, capsys):
    render_test(partial(kerala_v0.env, **config))
    assert "Kerala" in capsys.readouterr().out  # human mode prints the position


def test_full_episode_rewards_and_registry():
    env = meeplezoo.make("kerala", num_players=3, reward_mode="rank")
    env.reset(seed=4)
    rng = np.random.default_rng(0)
    total = {a: 0.0 for a in env.possible_agents}
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        total[agent] += reward
        if term or trunc:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(rng.choice(legal)))
    assert sorted(total.values()) == pytest.approx(sorted([1.0, 0.0, -1.0])) or abs(sum(total.values())) < 1e-9
    assert env.unwrapped.game_state.is_terminal()
    assert set(env.unwrapped.game_state.placements()) <= {0, 1, 2}


def test_illegal_action_leaves_state_unchanged():
    game = kerala_v0.Game(2)
    s = game.new_state(0)
    before = s.to_json()
    illegal = int(np.flatnonzero(~s.legal_mask())[0])
    with pytest.raises(IllegalActionError, match="illegal action"):
        s.apply(illegal)
    with pytest.raises(IllegalActionError):
        s.apply(game.num_actions + 5)
    with pytest.raises(IllegalActionError):
        s.apply("pass")
    assert s.to_json() == before
    env = kerala_v0.env(num_players=2, illegal_action="raise")
    env.reset(seed=1)
    state = env.unwrapped.game_state
    illegal = int(np.flatnonzero(~state.legal_mask())[0])
    before = state.to_json()
    with pytest.raises(IllegalActionError):
        env.step(illegal)
    assert env.unwrapped.game_state.to_json() == before


def test_bad_options_and_player_counts():
    with pytest.raises(ValueError, match="num_players"):
        kerala_v0.env(num_players=6)
    with pytest.raises(ValueError, match="num_players"):
        kerala_v0.Game(1)
    with pytest.raises(ValueError, match="pass_mode"):
        kerala_v0.Game(2, pass_mode="sometimes")
    with pytest.raises(ValueError, match="board_radius"):
        kerala_v0.Game(2, board_radius=1)
    with pytest.raises(ValueError, match="own_colour_areas"):
        kerala_v0.Game(2, own_colour_areas=3)
    with pytest.raises(ValueError, match="move_tile_may_rotate"):
        kerala_v0.Game(2, move_tile_may_rotate="yes")
    with pytest.raises(ValueError, match="unknown option"):
        kerala_v0.Game(2, elephants=3)


def test_action_names_unique_and_readable():
    for config in CONFIGS:
        game = kerala_v0.Game(**config)
        s = game.new_state(0)
        names = [s.action_name(a) for a in range(game.num_actions)]
        assert len(set(names)) == game.num_actions
        assert all(names)
    s = kerala_v0.Game(2).new_state(0)
    assert s.action_name(160) == "pass"
    legal = s.legal_actions()
    assert s.action_name(legal[0]).startswith("take slot 0 ")


def test_render_text_and_picture():
    game = kerala_v0.Game(4)
    s = game.new_state(2)
    rng = np.random.default_rng(1)
    for _ in range(50):
        s.apply(s.legal_actions()[rng.integers(len(s.legal_actions()))])
    text = s.render_text()
    assert "Offer:" in text and "Player 3 (purple)" in text and "@" in text
    img = s.render_rgb()
    assert img.dtype == np.uint8 and img.ndim == 3 and img.shape[2] == 3
    assert np.array_equal(img, s.render_rgb())  # deterministic
    assert len(np.unique(img.reshape(-1, 3), axis=0)) > 10  # a picture, not a blank canvas
    blue = np.all(img == np.array([52, 101, 200], dtype=np.uint8), axis=2).sum()
    assert blue > 100  # tiles drawn in their colours
