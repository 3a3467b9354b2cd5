"""PettingZoo API, seeding and rendering through the entry module, for both variants and non-default options."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test

import meeplezoo
from meeplezoo.envs import haus_der_sonne_v0
from meeplezoo.envs.haus_der_sonne.state import HausDerSonneGame

CONFIGS = [
    {"variant": "base"},
    {"variant": "tactical"},
    {"variant": "base", "buy_window_multi": True, "priestess_optional": True, "takeback_tie": "forbid",
     "scoring2_trigger": "refill_impossible", "diagonal_adjacency": True, "statue_base_points": "by_level",
     "lava_card_refill": "leave_gap", "purchases_per_shell": "many", "pearl_pairs": "one_pair"},
    {"variant": "tactical", "lava_disc_return": "any_landing", "tactical_priestess_buy_at_scoring": True,
     "tactical_chip_timing": "after_distribution", "placement_tie_rule": "value", "lava_disc_without_chip": "allowed",
     "nautilus_scoring": "once", "identical_cards": "type"},
]


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: "-".join(f"{k}={v}" for k, v in c.items()))
def test_pettingzoo_api(config):
    api_test(haus_der_sonne_v0.env(**config), num_cycles=400)


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: "-".join(f"{k}={v}" for k, v in c.items()))
def test_pettingzoo_seed(config):
    seed_test(lambda **kw: haus_der_sonne_v0.env(**config, **kw), num_cycles=200)


@pytest.mark.parametrize("config", CONFIGS[:2], ids=["base", "tactical"])
def test_pettingzoo_render(config):
    render_test(lambda render_mode=None: haus_der_sonne_v0.env(render_mode=render_mode, **config))


def test_registry_make_and_entry_module():
    env = meeplezoo.make("haus_der_sonne", variant="tactical")
    env.reset(seed=1)
    assert env.unwrapped.game.tactical and env.unwrapped.game.num_players == 2
    assert haus_der_sonne_v0.raw_env.metadata["name"] == "haus_der_sonne_v0"
    assert haus_der_sonne_v0.Game is HausDerSonneGame
    with pytest.raises(ValueError, match="variant"):
        meeplezoo.make("haus_der_sonne", variant="expert")


def test_full_game_through_aec_with_rewards():
    env = meeplezoo.make("haus_der_sonne")
    env.reset(seed=3)
    rng = np.random.default_rng(0)
    total = {a: 0.0 for a in env.possible_agents}
    for agent in env.agent_iter():
        obs, rew, term, trunc, info = env.last()
        total[agent] += rew
        if term or trunc:
            env.step(None)
            continue
        mask = obs["action_mask"]
        assert mask.any() and obs["observation"].shape == env.unwrapped.game.observation_shape
        env.step(int(rng.choice(np.flatnonzero(mask))))
    assert sorted(total.values()) == [-1.0, 1.0]


def test_text_rendering_shows_the_ring_and_holdings():
    s = HausDerSonneGame(variant="tactical").new_state(5)
    text = s.render_text()
    for needle in ("BOAT", "bays", "meadow", "forest", "mountain", "crater", "P0", "P1", "score", "hand",
                   "statues left", "scoring board"):
        assert needle in text
    assert len([ln for ln in text.splitlines() if ln.startswith(" ") and ln[1].isdigit()]) == 6


def test_picture_is_deterministic_and_shows_the_island():
    s = HausDerSonneGame().new_state(2)
    for a in (0, 60):
        if a in s.legal_actions():
            s.apply(a)
    s.clone().render_rgb()  # fonts and the empty island are prepared once
    img = s.render_rgb()
    assert img.dtype == np.uint8 and img.ndim == 3 and img.shape[2] == 3 and img.shape[0] >= 400
    assert np.array_equal(img, s.clone().render_rgb())
    sea = np.array([70, 130, 190], dtype=np.uint8)
    assert (img[5, 5] == sea).all()  # sea around the island
    assert (img[img.shape[0] // 2 - 22, img.shape[1] // 2] != sea).any()  # the crater in the middle
    assert len(np.unique(img.reshape(-1, 3), axis=0)) > 20
