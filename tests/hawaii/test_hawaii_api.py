"""PettingZoo conformance of hawaii_v0 for every player count and for non-default rule options."""

import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test

import meeplezoo
from meeplezoo.envs import hawaii_v0

CONFIGS = [
    {"num_players": 2},
    {"num_players": 3},
    {"num_players": 4},
    {"num_players": 5},
    {"num_players": 3, "place_set": "B", "exchange_limit": "per_round", "printed_start_hut": False},
    {"num_players": 4, "resources_public": False, "island_reshuffle": "on_top", "fish_cost_per_fish": True},
    {"num_players": 2, "pass_positions": "all", "token_fish_by_value": [2, 2, 2, 3, 3], "spear_tokens_per_value": 4},
]


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: "-".join(f"{k}={v}" for k, v in c.items()))
def test_api_seed_render(config):
    api_test(hawaii_v0.env(**config), num_cycles=200)
    seed_test(lambda render_mode=None: hawaii_v0.env(render_mode=render_mode, **config), num_cycles=100)
    render_test(lambda render_mode=None: hawaii_v0.env(render_mode=render_mode, **config))


def test_registry_make_and_spaces():
    env = meeplezoo.make("hawaii", num_players=4, place_set="B")
    env.reset(seed=3)
    obs, _, _, _, _ = env.last()
    game = env.unwrapped.game
    assert obs["observation"].shape == game.observation_shape
    assert obs["action_mask"].shape == (game.num_actions,)
    assert obs["action_mask"].any()
    assert env.unwrapped.metadata["name"] == "hawaii_v0"


def test_full_game_through_aec_gives_zero_sum_rewards():
    env = hawaii_v0.env(num_players=3)
    env.reset(seed=11)
    rng = np.random.default_rng(0)
    total = {a: 0.0 for a in env.possible_agents}
    for agent in env.agent_iter():
        obs, rew, term, trunc, _ = env.last()
        total[agent] += rew
        if term or trunc:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(rng.choice(legal)))
    assert abs(sum(total.values())) < 1e-9
    assert max(total.values()) > 0
